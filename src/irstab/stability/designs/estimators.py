r"""Variance-component estimators of the designs: expected mean squares and Henderson 1.

The designs and their effects: :mod:`irstab.stability.designs`.

Two estimators:

**Expected mean squares** (balanced data, :func:`ems_components`): the ANOVA
sums of squares of a dense array ``x[..., s, t]`` or ``x[..., s, t, a]``
(for the nested design, ``a`` indexes the assessors *within* a topic) and the
EMS equations of Brennan (2001, §3.4), e.g. for s x (a:t)

.. math::

    \sigma^2_{sa:t} = MS_{sa:t},\;
    \sigma^2_{st} = \frac{MS_{st} - MS_{sa:t}}{n_a},\;
    \sigma^2_{a:t} = \frac{MS_{a:t} - MS_{sa:t}}{n_s},\;
    \sigma^2_{t} = \frac{MS_t - MS_{a:t} - MS_{st} + MS_{sa:t}}{n_s n_a},\;
    \sigma^2_{s} = \frac{MS_s - MS_{st}}{n_t n_a}.

The kernels take any leading batch axes (bootstrap, optimizer).

**Henderson's method 1** (any data, :func:`henderson1_components`), the
"analogous ANOVA" that urGENOVA computes for unbalanced designs (Brennan 2001,
§7.1; Searle, Casella & McCulloch 1992, §5.3): for every effect :math:`e` the
uncorrected sum of squares :math:`T_e = \sum_{l} y_{l\cdot}^2 / n_l` over its
levels, whose expectation under the random model is

.. math::

    E[T_e] = N\mu^2 + \sum_c k_{ec}\,\sigma^2_c, \qquad
    k_{ec} = \sum_l \frac{\sum_m n_{lm}^2}{n_l},

with :math:`n_{lm}` the number of scores in level :math:`l` of :math:`e`
and level :math:`m` of :math:`c` (and :math:`T_\emptyset = y_{\cdot\cdot}^2/N`).
Equating each :math:`T_e` to its expectation gives a square linear system in
:math:`\mu^2` and the components. It is unbiased, needs no iteration and no
normality, and on balanced data it *is* the EMS solution (tested). REML
(e.g. statsmodels' ``MixedLM``) agrees with both on balanced data whenever no
ANOVA estimate is negative (tested); on unbalanced data the two differ: REML weights
cells by their information and cannot go negative, Henderson's method 1
weights every score equally and can. Method 1 was chosen because it is
exact, closed-form, fast on large score tables and what urGENOVA reports.

References
----------
R. L. Brennan (2001). *Generalizability Theory*. Springer, ch. 3, 4, 7.
C. R. Henderson (1953). Estimation of variance and covariance components.
*Biometrics* 9(2).
S. R. Searle, G. Casella, C. E. McCulloch (1992). *Variance Components*. Wiley.
"""

from __future__ import annotations

import numpy as np

from ...errors import IRStabError
from .effects import FACETS, Design, clean_components, effects_of

__all__ = ["ems_anova", "ems_components", "henderson1_components"]


# ------------------------------------------------------------- balanced: EMS


def ems_anova(x: np.ndarray, design: Design | str, n_facets: int = 3) -> dict[str, tuple]:
    """ANOVA table ``{label: (df, ss, ms)}`` of a dense balanced array.

    ``x[..., s, t]`` (crossed, ``n_facets=2``) or ``x[..., s, t, a]``
    (crossed or nested, ``n_facets=3``); ``ss`` and ``ms`` carry the leading
    batch axes. A zero-df source (one assessor) has ``ms = 0``.
    """
    x = np.asarray(x, dtype=float)
    design = Design(design)
    effects_of(design, n_facets)
    if x.ndim < n_facets:
        raise IRStabError(f"scores: expected a {n_facets}-D array, got {x.ndim}-D")
    g = x.mean(axis=tuple(range(-n_facets, 0)), keepdims=True)
    if n_facets == 2:
        n_s, n_t = x.shape[-2:]
        m_s = x.mean(axis=-1, keepdims=True)
        m_t = x.mean(axis=-2, keepdims=True)
        ss = {
            "s": n_t * _sq(m_s - g, 2),
            "t": n_s * _sq(m_t - g, 2),
            "st": _sq(x - m_s - m_t + g, 2),
        }
        df = {"s": n_s - 1, "t": n_t - 1, "st": (n_s - 1) * (n_t - 1)}
        return {k: (df[k], ss[k], ss[k] / df[k]) for k in ss}
    n_s, n_t, n_a = x.shape[-3:]
    m_s = x.mean(axis=(-2, -1), keepdims=True)
    m_t = x.mean(axis=(-3, -1), keepdims=True)
    m_st = x.mean(axis=-1, keepdims=True)
    m_ta = x.mean(axis=-3, keepdims=True)
    ss = {"s": n_t * n_a * _sq(m_s - g, 3), "t": n_s * n_a * _sq(m_t - g, 3)}
    ss["st"] = n_a * _sq(m_st - m_s - m_t + g, 3)
    if design is Design.nested:
        ss["a:t"] = n_s * _sq(m_ta - m_t, 3)
        ss["sa:t"] = _sq(x - m_st - m_ta + m_t, 3)
        df = {
            "s": n_s - 1,
            "t": n_t - 1,
            "a:t": n_t * (n_a - 1),
            "st": (n_s - 1) * (n_t - 1),
            "sa:t": (n_s - 1) * n_t * (n_a - 1),
        }
    else:
        m_a = x.mean(axis=(-3, -2), keepdims=True)
        m_sa = x.mean(axis=-2, keepdims=True)
        ss["a"] = n_s * n_t * _sq(m_a - g, 3)
        ss["sa"] = n_t * _sq(m_sa - m_s - m_a + g, 3)
        ss["ta"] = n_s * _sq(m_ta - m_t - m_a + g, 3)
        ss["sta"] = _sq(x - m_st - m_sa - m_ta + m_s + m_t + m_a - g, 3)
        df = {
            "s": n_s - 1,
            "t": n_t - 1,
            "a": n_a - 1,
            "st": (n_s - 1) * (n_t - 1),
            "sa": (n_s - 1) * (n_a - 1),
            "ta": (n_t - 1) * (n_a - 1),
            "sta": (n_s - 1) * (n_t - 1) * (n_a - 1),
        }
    order = [e.label for e in effects_of(design, 3)]
    return {k: (df[k], ss[k], ss[k] / df[k] if df[k] else np.zeros_like(ss[k])) for k in order}


def _sq(d: np.ndarray, k: int) -> np.ndarray:
    return np.square(d).sum(axis=tuple(range(-k, 0)))


def ems_components(x: np.ndarray, design: Design | str, n_facets: int = 3) -> np.ndarray:
    """Variance components ``[..., n_effects]`` (order of :func:`effects_of`) from the EMS.

    Raw estimates (may be negative). ``x`` as in :func:`ems_anova`.
    """
    design = Design(design)
    tab = ems_anova(x, design, n_facets)
    ms = {k: v[2] for k, v in tab.items()}
    if n_facets == 2:
        n_s, n_t = np.shape(x)[-2:]
        comp = [(ms["s"] - ms["st"]) / n_t, (ms["t"] - ms["st"]) / n_s, ms["st"]]
        return clean_components(np.stack(comp, axis=-1))
    n_s, n_t, n_a = np.shape(x)[-3:]
    if design is Design.nested:
        r = ms["sa:t"]
        comp = [
            (ms["s"] - ms["st"]) / (n_t * n_a),
            (ms["t"] - ms["a:t"] - ms["st"] + r) / (n_s * n_a),
            (ms["a:t"] - r) / n_s,
            (ms["st"] - r) / n_a,
            r,
        ]
    else:
        r = ms["sta"]
        comp = [
            (ms["s"] - ms["st"] - ms["sa"] + r) / (n_t * n_a),
            (ms["t"] - ms["st"] - ms["ta"] + r) / (n_s * n_a),
            (ms["a"] - ms["sa"] - ms["ta"] + r) / (n_s * n_t),
            (ms["st"] - r) / n_a,
            (ms["sa"] - r) / n_t,
            (ms["ta"] - r) / n_s,
            r,
        ]
    return clean_components(np.stack(comp, axis=-1))


# ------------------------------------------------------- any data: Henderson 1


def _group_codes(codes, sizes, facets, batch, n_batch):
    """Dense code of each score's level of the effect indexed by ``facets`` (within batch)."""
    code = batch.astype(np.int64, copy=True)
    size = n_batch
    for f in FACETS:
        if f in facets:
            code = code * sizes[f] + codes[f]
            size *= sizes[f]
    return code, size


def henderson1_components(
    y: np.ndarray,
    codes: dict[str, np.ndarray],
    design: Design | str,
    *,
    batch: np.ndarray | None = None,
    n_batch: int = 1,
) -> np.ndarray:
    """Henderson's method 1 (analogous ANOVA) components ``[n_batch, n_effects]``.

    Parameters
    ----------
    y : ndarray, shape (N,)
        Scores, at most one per cell of the residual effect.
    codes : dict
        Integer codes per score for the facets ``"s"``, ``"t"`` and (three
        facets) ``"a"``, each in ``0..max``. For the nested design ``a`` may be
        the index of the assessor within its topic.
    design : {"crossed", "nested"}
        With ``"a"`` in ``codes`` a three-facet design, else s x t.
    batch, n_batch : optional
        Independent data sets stacked in one call (bootstrap resamples):
        ``batch[i]`` says which one score ``i`` belongs to.

    Returns
    -------
    ndarray
        Raw components in the order of :func:`effects_of`; a batch whose
        system is singular (too few levels to separate the effects) gives NaN.
    """
    y = np.asarray(y, dtype=float)
    n = len(y)
    batch = np.zeros(n, dtype=np.int64) if batch is None else np.asarray(batch, dtype=np.int64)
    effects = effects_of(design, 3 if "a" in codes else 2)
    sizes = {f: int(np.max(c)) + 1 for f, c in codes.items()}
    n_b = np.bincount(batch, minlength=n_batch).astype(float)
    # Centring per batch leaves every component unchanged and avoids cancellation.
    y = y - (np.bincount(batch, weights=y, minlength=n_batch) / np.maximum(n_b, 1))[batch]

    level_code = {}
    level_n = {}
    sets = [frozenset()] + [e.facets for e in effects]
    for fs in sets:
        code, size = _group_codes(codes, sizes, fs, batch, n_batch)
        code_u, code = np.unique(code, return_inverse=True) if size > 4 * n + 1024 else (None, code)
        level_code[fs] = code
        level_n[fs] = np.bincount(code)
    k = len(effects)
    lhs = np.zeros((n_batch, k + 1, k + 1))
    rhs = np.zeros((n_batch, k + 1))
    for i, fs in enumerate(sets):
        code, cnt = level_code[fs], level_n[fs]
        sums = np.bincount(code, weights=y, minlength=len(cnt))
        per_level = np.divide(np.square(sums), cnt, out=np.zeros(len(cnt)), where=cnt > 0)
        owner = np.zeros(len(cnt), dtype=np.int64)
        owner[code] = batch
        rhs[:, i] = np.bincount(owner, weights=per_level, minlength=n_batch)
        lhs[:, i, 0] = n_b
        for j, e in enumerate(effects):
            union = fs | e.facets
            cell_n = level_n[union][level_code[union]]
            lhs[:, i, j + 1] = np.bincount(batch, weights=cell_n / cnt[code], minlength=n_batch)
    out = np.full((n_batch, k), np.nan)
    # Confounded effects (e.g. a and ta when each assessor judged one topic) make
    # the system singular: those batches are NaN rather than a number from noise.
    ok = np.linalg.cond(lhs) < 1e10
    if ok.any():
        out[ok] = clean_components(np.linalg.solve(lhs[ok], rhs[ok][..., None])[..., 1:, 0])
    return out
