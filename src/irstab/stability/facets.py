r"""G-study and D-study with an assessor facet: s x t x a and s x (a:t).

Systems are the object of measurement; topics and assessors (the people, or
models, whose judgments produced the qrels) are random facets. The variance
components come from :mod:`irstab.stability.designs` (expected mean squares
on balanced data, Henderson's method 1 otherwise). For a D-study with
:math:`n'_t` topics and :math:`n'_a` assessors (per topic, when nested)

.. math::

    \sigma^2(\delta) = \sum_{e \ni s,\, e \ne s} \frac{\sigma^2_e}{d_e},\qquad
    \sigma^2(\Delta) = \sum_{e \ne s} \frac{\sigma^2_e}{d_e},\qquad
    E\rho^2 = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2(\delta)},\quad
    \Phi = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2(\Delta)},

where :math:`d_e` is the product of :math:`n'_t` (if :math:`t \in e`) and
:math:`n'_a` (if :math:`a \in e`) (Brennan 2001, §4.1-4.3). In the crossed
design :math:`\sigma^2_{sa}/n'_a` does not shrink with topics, so a target can
be out of reach with few assessors; in the nested design every error term
shrinks with :math:`n'_t`. Components are truncated at 0 in the coefficients
(Brennan 2001, §3.4), kept raw in the table.

The "topics with one assessor equal to topics with two" of the study is
:meth:`FacetGStudy.topics_needed` at the target :math:`\Phi(n_t, 2)`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._numeric import check_allocation, check_resamples, spread_exponent
from ..errors import DegenerateDataError, IRStabError, IRStabWarning
from .designs import (
    Design,
    coefficient_weights,
    divisors,
    effects_of,
    ems_anova,
    ems_components,
    henderson1_components,
)
from .designs.crossed import constant_message
from .designs.data import FacetData, as_long, encode, from_array
from .coefficients import Coefficient, CoefficientValue, check_confidence, check_target

__all__ = ["FacetGStudy", "FacetNeeded", "FacetIntervals", "facet_gstudy"]

_CEIL_TOL = 1e-9


# ----------------------------------------------------------------- results


def _tup(a) -> tuple[float, ...]:
    return tuple(float(v) for v in np.ravel(a))


@dataclass(frozen=True)
class FacetNeeded:
    """Topics and assessors reaching a target coefficient at the least cost.

    Cost of a design: ``n_topics * (cost_ratio + n_assessors)`` in units of one
    assessor judging one topic, ``cost_ratio`` being the cost of a topic
    (building it, pooling) in those units. ``table`` has, for each number of
    assessors, the topics needed (``inf``: unreachable) and the cost.
    """

    coefficient: Coefficient
    target: float
    cost_ratio: float
    n_topics: float
    n_assessors: int
    cost: float
    table: pd.DataFrame = field(repr=False, compare=False)

    def to_dict(self) -> dict:
        fin = math.isfinite(self.n_topics)
        return {
            "coefficient": self.coefficient.value,
            "target": self.target,
            "cost_ratio": self.cost_ratio,
            "n_topics": int(self.n_topics) if fin else None,
            "n_assessors": self.n_assessors if fin else None,
            "cost": self.cost if fin else None,
            "by_assessors": [
                {
                    "n_assessors": int(r.n_assessors),
                    "n_topics": int(r.n_topics) if math.isfinite(r.n_topics) else None,
                    "cost": float(r.cost) if math.isfinite(r.cost) else None,
                }
                for r in self.table.itertuples()
            ],
        }


@dataclass(frozen=True)
class FacetIntervals:
    """Percentile bootstrap intervals of the components and coefficients.

    ``components_lower/upper`` are aligned with :attr:`FacetGStudy.sources`
    (raw components); ``erho2``/``phi`` limits are at ``(n_topics,
    n_assessors)``.
    """

    confidence: float
    n_resamples: int
    resample: str
    n_topics: float
    n_assessors: float
    components_lower: tuple[float, ...]
    components_upper: tuple[float, ...]
    erho2: tuple[float, float]
    phi: tuple[float, float]

    def to_dict(self) -> dict:
        return {
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "resample": self.resample,
            "n_topics": self.n_topics,
            "n_assessors": self.n_assessors,
            "components_ci": [list(p) for p in zip(self.components_lower, self.components_upper)],
            "erho2_ci": list(self.erho2),
            "phi_ci": list(self.phi),
        }


@dataclass(frozen=True)
class FacetGStudy:
    """Result of :func:`facet_gstudy`: components of a three-facet design.

    ``variance`` holds the raw estimates in the order of ``sources`` (Brennan's
    labels: ``s, t, a, st, sa, ta, sta`` crossed; ``s, t, a:t, st, sa:t``
    nested; the last is the residual). ``df/ss/ms`` are the ANOVA table of a
    balanced design (``None`` when unbalanced). ``n_assessors`` is the number of
    assessors per topic, the harmonic mean over topics when it varies (Brennan
    2001, §7.2), used as the default D-study size.
    """

    name: str | None
    design: Design
    method: str  # "ems" or "henderson1"
    systems: tuple
    topics: tuple
    assessors: tuple
    n_assessors: float
    sources: tuple[str, ...]
    variance: tuple[float, ...]
    df: tuple[float, ...] | None
    ss: tuple[float, ...] | None
    ms: tuple[float, ...] | None
    data: FacetData = field(repr=False, compare=False)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @property
    def balanced(self) -> bool:
        return self.method == "ems"

    @property
    def components(self) -> tuple[float, ...]:
        """Components truncated at 0: what the coefficients use."""
        return tuple(max(v, 0.0) for v in self.variance)

    @property
    def percent(self) -> tuple[float, ...]:
        """Each truncated component as a percentage of their sum (the shares)."""
        c = np.array(self.components)
        return _tup(100.0 * c / c.sum())

    def component(self, source: str) -> float:
        """Raw component of ``source`` (e.g. ``"sa:t"``)."""
        try:
            return self.variance[self.sources.index(source)]
        except ValueError:
            raise IRStabError(f"source: expected one of {self.sources}, got {source!r}") from None

    # ------------------------------------------------------- coefficients

    def _sizes(self, n_topics, n_assessors):
        n_t = self.n_topics if n_topics is None else n_topics
        n_a = self.n_assessors if n_assessors is None else n_assessors
        for what, v in (("n_topics", n_t), ("n_assessors", n_a)):
            arr = np.asarray(v, dtype=float)
            if not np.all(np.isfinite(arr)) or np.any(arr < 1):
                raise IRStabError(f"{what}: must be finite numbers >= 1, got {v!r}")
        return np.asarray(n_t, dtype=float), np.asarray(n_a, dtype=float)

    def errors(self, n_topics=None, n_assessors=None) -> tuple[np.ndarray, np.ndarray]:
        """Relative and absolute error variances at ``(n'_t, n'_a)`` (broadcast)."""
        n_t, n_a = self._sizes(n_topics, n_assessors)
        return _errors(np.array(self.components), self.design, n_t, n_a)

    def erho2_at(self, n_topics=None, n_assessors=None):
        """Generalizability coefficient at ``(n'_t, n'_a)``; arrays broadcast."""
        return self._coef(Coefficient.erho2, n_topics, n_assessors)

    def phi_at(self, n_topics=None, n_assessors=None):
        """Dependability coefficient at ``(n'_t, n'_a)``; arrays broadcast."""
        return self._coef(Coefficient.phi, n_topics, n_assessors)

    @property
    def erho2(self) -> CoefficientValue:
        """Erho2 at the observed sizes (a number); ``erho2(n_topics, n_assessors)`` elsewhere."""
        return CoefficientValue(self.erho2_at(), self.erho2_at)

    @property
    def phi(self) -> CoefficientValue:
        """Phi at the observed sizes (a number); ``phi(n_topics, n_assessors)`` elsewhere."""
        return CoefficientValue(self.phi_at(), self.phi_at)

    def _coef(self, coefficient, n_topics, n_assessors):
        n_t, n_a = self._sizes(n_topics, n_assessors)
        out = _coefficient(np.array(self.components), self.design, n_t, n_a, coefficient)
        return float(out) if np.ndim(out) == 0 else out

    def grid(self, n_topics: Sequence[float], n_assessors: Sequence[float]) -> pd.DataFrame:
        """Erho2 and Phi over every (n_topics, n_assessors) pair, one row each."""
        t, a = np.meshgrid(np.asarray(n_topics, float), np.asarray(n_assessors, float), indexing="ij")
        return pd.DataFrame(
            {
                "measure": self.name,
                "n_topics": t.ravel(),
                "n_assessors": a.ravel(),
                "erho2": np.ravel(self.erho2(t, a)),
                "phi": np.ravel(self.phi(t, a)),
            }
        )

    def topics_needed(
        self, target: float, n_assessors=None, coefficient: Coefficient | str = "phi"
    ) -> np.ndarray | float:
        """Smallest integer number of topics reaching ``target`` with ``n_assessors`` each.

        Solves :math:`\\sigma^2_s(1-g)/g \\ge E_t/n_t + E_a/n_a + E_{ta}/(n_t n_a)`
        for :math:`n_t`, where :math:`E_t, E_a, E_{ta}` sum the error components
        indexed by t only, a only, and both. ``inf`` when no number of topics
        reaches it (no system variance, or a crossed :math:`\\sigma^2_{sa}/n_a`
        already too large).
        """
        coefficient = Coefficient(coefficient)
        target = check_target(target)
        _, n_a = self._sizes(None, n_assessors)
        return _topics_needed(
            np.array(self.components), self.design, target, n_a, coefficient
        )

    def needed(
        self,
        target: float = 0.95,
        *,
        coefficient: Coefficient | str = "phi",
        cost_ratio: float = 1.0,
        max_assessors: int = 10,
    ) -> FacetNeeded:
        """Cheapest (topics, assessors per topic) reaching ``target`` (see :class:`FacetNeeded`).

        Ties in cost go to fewer assessors.
        """
        coefficient = Coefficient(coefficient)
        if not (cost_ratio >= 0 and math.isfinite(cost_ratio)):
            raise IRStabError(f"cost_ratio: must be a finite number >= 0, got {cost_ratio!r}")
        max_assessors = check_max_assessors(max_assessors)
        n_a = np.arange(1, max_assessors + 1, dtype=float)
        n_t = np.asarray(self.topics_needed(target, n_a, coefficient), dtype=float)
        cost = n_t * (cost_ratio + n_a)
        best = int(np.argmin(cost))
        table = pd.DataFrame({"n_assessors": n_a.astype(int), "n_topics": n_t, "cost": cost})
        return FacetNeeded(
            coefficient=coefficient,
            target=float(target),
            cost_ratio=float(cost_ratio),
            n_topics=float(n_t[best]),
            n_assessors=int(n_a[best]),
            cost=float(cost[best]),
            table=table,
        )

    # ------------------------------------------------------- bootstrap

    def bootstrap(
        self,
        n_resamples: int = 1000,
        *,
        resample: str = "both",
        confidence: float = 0.95,
        n_topics=None,
        n_assessors=None,
        seed: int | np.random.Generator | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> FacetIntervals:
        """Percentile bootstrap over topics and/or assessors (see :func:`bootstrap_facets`)."""
        from .facet_bootstrap import bootstrap_facets

        confidence = check_confidence(confidence)
        check_resamples(n_resamples, confidence)
        n_t, n_a = self._sizes(n_topics, n_assessors)
        comps = bootstrap_facets(
            self, n_resamples, resample=resample, seed=seed, progress=progress
        )
        alpha = 1.0 - confidence
        qs = [alpha / 2, 1 - alpha / 2]
        clipped = np.maximum(comps, 0.0)
        coefs = {
            c: _coefficient(clipped, self.design, n_t, n_a, c) for c in Coefficient
        }
        ok = ~np.isnan(comps).any(axis=1)

        def q(a):
            return np.quantile(a[ok], qs, axis=0, method="inverted_cdf")

        lo_hi = q(comps)
        return FacetIntervals(
            confidence=confidence,
            n_resamples=int(n_resamples),
            resample=resample,
            n_topics=float(n_t),
            n_assessors=float(n_a),
            components_lower=_tup(lo_hi[0]),
            components_upper=_tup(lo_hi[1]),
            erho2=tuple(float(v) for v in q(coefs[Coefficient.erho2])),
            phi=tuple(float(v) for v in q(coefs[Coefficient.phi])),
        )

    # ------------------------------------------------------- output

    def to_frame(self) -> pd.DataFrame:
        """Components table: ``source, df, ss, ms, variance, percent`` (ANOVA columns NaN if unbalanced)."""
        k = len(self.sources)
        nan = (math.nan,) * k
        return pd.DataFrame(
            {
                "source": list(self.sources),
                "df": pd.array([None if math.isnan(v) else int(v) for v in (self.df or nan)], dtype="Int64"),
                "ss": list(self.ss or nan),
                "ms": list(self.ms or nan),
                "variance": list(self.variance),
                "percent": list(self.percent),
            }
        )

    def to_dict(self) -> dict:
        """JSON-ready dict: design, sizes, components and shares, Erho2 and Phi."""
        rows = self.to_frame().to_dict(orient="records")
        for r in rows:
            for key in ("df", "ss", "ms"):
                if isinstance(r[key], float) and math.isnan(r[key]):
                    r[key] = None
        return {
            "measure": self.name,
            "design": self.design.value,
            "method": self.method,
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            "n_assessors": self.n_assessors,
            "components": rows,
            "variance": dict(zip(self.sources, self.variance)),
            "erho2": self.erho2(),
            "phi": self.phi(),
        }


# ----------------------------------------------------------------- kernels


def _errors(comps: np.ndarray, design: Design, n_t, n_a):
    """Relative and absolute error variances, shape ``batch + broadcast(n_t, n_a)``."""
    _, rel, ab = coefficient_weights(design)
    d = divisors(design, n_t, n_a)  # sizes + (k,)
    comps = np.asarray(comps, dtype=float)
    batch = comps.shape[:-1]
    c = comps.reshape(batch + (1,) * (d.ndim - 1) + comps.shape[-1:])
    scaled = c / d
    return (scaled * rel).sum(axis=-1), (scaled * ab).sum(axis=-1)


def _coefficient(comps: np.ndarray, design: Design, n_t, n_a, coefficient: Coefficient):
    """Erho2 or Phi; ``0/0`` (no variance at all) is 0, ``x/(x+0)`` is 1."""
    rel, ab = _errors(comps, design, n_t, n_a)
    err = rel if coefficient is Coefficient.erho2 else ab
    comps = np.asarray(comps, dtype=float)
    obj = comps[..., 0].reshape(comps.shape[:-1] + (1,) * (np.ndim(err) - comps.ndim + 1))
    den = obj + err
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, obj / np.where(den > 0, den, 1.0), 0.0)
    return out


def _topics_needed(comps, design, target, n_a, coefficient):
    effects = effects_of(design)
    _, rel, ab = coefficient_weights(design)
    use = rel if coefficient is Coefficient.erho2 else ab
    has_t = np.array(["t" in e.facets for e in effects])
    has_a = np.array(["a" in e.facets for e in effects])
    e_t = comps[use & has_t & ~has_a].sum()
    e_a = comps[use & has_a & ~has_t].sum()
    e_ta = comps[use & has_t & has_a].sum()
    budget = comps[0] * (1.0 - target) / target - e_a / n_a
    need = e_t + e_ta / n_a
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = need / budget
    n = np.where(budget > 0, np.maximum(np.ceil(raw * (1.0 - _CEIL_TOL)), 1.0), np.inf)
    return float(n) if np.ndim(n) == 0 else n


#: Bytes per design of :meth:`FacetGStudy.needed`: eight float64 temporaries and a row of its
#: three-column table (~100), and the row's dict in :meth:`FacetNeeded.to_dict` and its JSON
#: text (measured: 1.3 KB per row at 10^6 rows).
DESIGN_BYTES = 1536.0


def check_max_assessors(max_assessors, n_tables: int = 1) -> int:
    """``max_assessors`` as an int if its designs fit in memory, else an error naming it.

    :meth:`FacetGStudy.needed` evaluates one design per number of assessors, 1 to
    ``max_assessors``, and keeps them as a table that ``to_dict`` (JSON) turns into one
    record each: :data:`DESIGN_BYTES` per design, times ``n_tables`` (one per measure).
    """
    if isinstance(max_assessors, bool) or not isinstance(max_assessors, (int, np.integer)) \
            or max_assessors < 1:
        raise IRStabError(f"max_assessors: must be an integer >= 1, got {max_assessors!r}")
    tables = f" for each of {n_tables} measures" if n_tables > 1 else ""
    check_allocation(DESIGN_BYTES * int(max_assessors) * max(int(n_tables), 1),
                     f"max_assessors: {int(max_assessors)} designs (one per number of "
                     f"assessors){tables}")
    return int(max_assessors)


# ----------------------------------------------------------------- entry point


def facet_gstudy(
    scores,
    design: Design | str = Design.nested,
    *,
    name: str | None = None,
    method: str = "auto",
) -> FacetGStudy:
    r"""G-study of systems x topics x assessors scores, crossed or nested.

    Parameters
    ----------
    scores : pandas.DataFrame or numpy.ndarray
        Long table with columns ``system, topic, assessor, score`` (one row per
        cell; rows may be missing: unbalanced), or a dense array
        ``x[system, topic, assessor]`` (for ``nested``, the third index is the
        assessor *within* the topic). Not modified.
    design : {"nested", "crossed"}
        ``nested``: s x (a:t), each topic has its own assessors (an assessor
        label in two topics stands for two different draws), the design of
        re-annotation studies. ``crossed``: s x t x a, one assessor label is
        the same assessor in every topic.
    name : str, optional
        Label of the measure.
    method : {"auto", "ems", "henderson1"}
        ``auto``: expected mean squares when balanced, else Henderson's method 1
        (both in :mod:`irstab.stability.designs`; they agree on balanced data).

    Returns
    -------
    FacetGStudy

    Raises
    ------
    irstab.errors.DegenerateDataError
        Fewer than 2 systems or topics, a missing or non-finite score, all
        scores equal, or too few levels to separate the effects.

    Warns
    -----
    irstab.errors.IRStabWarning
        Negative component estimates (kept raw, set to 0 in the coefficients)
        and one assessor per topic everywhere (assessor effects not separable
        from the residual).

    Notes
    -----
    Validated (tests/stability/test_facets_oracles.py) against Brennan (2001)
    Synthetic Data Set No. 4 as p x (r:t) (its published components), GeneralizIT
    on the crossed calibration round of the DL-2019 re-annotation, and
    simulated data with known components.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(6, 5, 1)) + rng.normal(size=(6, 1, 1)) + rng.normal(size=(6, 5, 3))
    >>> x = x + rng.normal(size=(1, 5, 1))  # systems x topics x 3 assessors per topic
    >>> g = facet_gstudy(x, "nested", name="demo")
    >>> g.sources
    ('s', 't', 'a:t', 'st', 'sa:t')
    >>> round(g.phi(), 3), round(g.phi(50, 1), 3)  # observed 5 x 3, then 50 topics x 1
    (0.191, 0.608)
    """
    try:
        design = Design(design)
    except ValueError:
        raise IRStabError(f"design: expected 'crossed' or 'nested', got {design!r}") from None
    frame = from_array(scores) if isinstance(scores, np.ndarray) else as_long(scores)
    if method not in ("auto", "ems", "henderson1"):
        raise IRStabError(f"method: expected 'auto', 'ems' or 'henderson1', got {method!r}")
    data, systems, topics, assessors = encode(frame, design)
    if len(systems) < 2 or len(topics) < 2:
        raise DegenerateDataError(
            f"scores: a G-study needs at least 2 systems and 2 topics, got "
            f"{len(systems)} system(s) x {len(topics)} topic(s)"
        )
    if spread_exponent(data.y[None, :])[1]:  # equal, or equal up to rounding (irstab._numeric)
        raise DegenerateDataError(
            f"scores: {constant_message(data.y)}; every variance component is 0 and Erho2 "
            "and Phi are undefined"
        )
    per_topic = data.n_assessors_per_topic
    if per_topic.max() < 2:
        raise DegenerateDataError(
            "scores: every topic has a single assessor; an assessor facet needs at least "
            "2 assessors on some topic"
        )
    use_ems = method == "ems" or (method == "auto" and data.dense is not None)
    if use_ems and data.dense is None:
        raise IRStabError("method='ems' needs balanced data (every cell once, equal assessors per topic)")
    sources = tuple(e.label for e in effects_of(design))
    df = ss = ms = None
    if use_ems:
        tab = ems_anova(data.dense, design)
        df = tuple(float(tab[k][0]) for k in sources)
        ss = tuple(float(tab[k][1]) for k in sources)
        ms = tuple(float(tab[k][2]) for k in sources)
        var = ems_components(data.dense, design)
    else:
        var = henderson1_components(data.y, {"s": data.s, "t": data.t, "a": data.a}, design)[0]
        if np.isnan(var).any():
            raise DegenerateDataError(
                "scores: the design's effects cannot be separated with these data "
                "(too few systems, topics or assessors in some combination)"
            )
    n_a = float(len(per_topic) / np.sum(1.0 / per_topic))
    g = FacetGStudy(
        name=name,
        design=design,
        method="ems" if use_ems else "henderson1",
        systems=systems,
        topics=topics,
        assessors=assessors,
        n_assessors=n_a,
        sources=sources,
        variance=_tup(var),
        df=df,
        ss=ss,
        ms=ms,
        data=data,
    )
    label = f"{name}: " if name else ""
    negative = [f"sigma2_{k} = {v:.4g}" for k, v in zip(sources, g.variance) if v < 0]
    if negative:
        warnings.warn(
            f"{label}negative variance estimate(s) {', '.join(negative)}: kept in the table, "
            "set to 0 in Erho2 and Phi",
            IRStabWarning,
            stacklevel=2,
        )
    return g
