r"""Agreement between judge sets: Cohen's kappa, Krippendorff's alpha, confusion matrices.

Every statistic here is a function of count matrices over the grade scale's :math:`K`
categories, and those counts are sums over topics. So each is computed from per-topic
matrices, and a bootstrap over topics is a weighted sum of them: resample :math:`b` draws
topics with replacement, its counts are :math:`\sum_t w_{bt} C_t` (:math:`w_{bt}` how often
topic :math:`t` was drawn), one matrix product for all resamples, no loop over them.

Cohen's kappa (two judges, the pairs both labelled)
    With :math:`p_{ck}` the share of pairs graded :math:`c` by the first judge and
    :math:`k` by the second, :math:`p_{c\cdot}, p_{\cdot k}` its margins and disagreement
    weights :math:`w_{ck}`:
    :math:`\kappa_w = 1 - \sum w_{ck} p_{ck} / \sum w_{ck} p_{c\cdot} p_{\cdot k}`
    (Cohen, *Psychol. Bull.* 1968). Plain kappa: :math:`w_{ck} = [c \ne k]`; linearly
    weighted :math:`|c - k|`; quadratically weighted :math:`(c - k)^2`, where :math:`c, k`
    are the grades themselves (on a scale of consecutive integers, as TREC's, the same as
    the category indices scikit-learn's ``cohen_kappa_score`` weighs by).

Krippendorff's alpha (any number of judges, missing labels)
    A pair (topic, document) is a *unit*; the :math:`m_u \ge 2` labels it has are
    pairable (units with one label are left out). The coincidence matrix is
    :math:`o_{ck} = \sum_u n_{uc}(n_{uk} - [c = k]) / (m_u - 1)`, with margins
    :math:`n_c` and :math:`n = \sum_c n_c`, and
    :math:`\alpha = 1 - (n - 1) \sum o_{ck}\,\delta_{ck} / \sum n_c n_k \delta_{ck}`
    (Krippendorff, *Content Analysis*, 2004, ch. 11; Hayes & Krippendorff, *Commun.
    Methods Meas.* 2007), with the metric :math:`\delta`: nominal
    :math:`[c \ne k]`; interval :math:`(c - k)^2`; ordinal
    :math:`\delta_{ck} = (\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2` (ranks, not the grades'
    distances: how many labels lie between).

Binarised at a level :math:`L`
    Grades :math:`\ge L` are relevant, the others not, for every level above the scale's
    lowest (``rel=L`` of the binary measures). The binarised matrices are the full ones
    summed into two categories, so they need no second pass over the labels. On two
    categories the three alphas are one (every metric is a constant times
    :math:`[c \ne k]`).

Conventions. A statistic whose expected disagreement is 0 (both judges gave every pair the
same one grade, or one judge did: kappa's chance agreement is then 1) is undefined: NaN, with
an :class:`~irstab.errors.IRStabWarning` naming the pair, and ``null`` in JSON. Intervals are
percentile intervals over ``n_resamples`` bootstrap resamples of the topics the pair shares
(resamples where the statistic is undefined are left out of the quantiles).

Validated against scikit-learn's ``cohen_kappa_score`` (plain, linear, quadratic) and the
``krippendorff`` package's ``alpha`` (nominal, ordinal, interval; Castro, 2017) to 1e-9 on
the TREC DL 2019 re-annotation (tests/judges/test_agreement.py).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from enum import Enum
from itertools import combinations

import numpy as np
import pandas as pd

from .._numeric import check_seed
from .._repr import json_records
from ..errors import IRStabError, IRStabWarning
from .labels import JudgeSets

__all__ = [
    "Weighting", "Level", "cohen_kappa", "krippendorff_alpha", "confusion_matrix",
    "kappa_from_counts", "alpha_from_coincidences", "coincidences", "Agreement", "agreement",
]


class Weighting(str, Enum):
    """Disagreement weights of Cohen's kappa."""

    none = "none"
    linear = "linear"
    quadratic = "quadratic"


class Level(str, Enum):
    """Krippendorff's metric (level of measurement)."""

    nominal = "nominal"
    ordinal = "ordinal"
    interval = "interval"


# ---------------------------------------------------------------- kernels on counts


def _weights(values: np.ndarray, kind: Weighting) -> np.ndarray:
    d = values[:, None] - values[None, :]
    return {Weighting.none: (d != 0).astype(np.float64), Weighting.linear: np.abs(d),
            Weighting.quadratic: d * d}[kind]


def kappa_from_counts(c: np.ndarray, values, weighting: Weighting | str = Weighting.none
                      ) -> np.ndarray:
    r"""Cohen's (weighted) kappa of confusion counts ``c`` of shape ``(..., K, K)``.

    ``values`` are the :math:`K` grades (rows: first judge, columns: second). NaN where the
    chance disagreement is 0.

    >>> kappa_from_counts(np.array([[20, 5], [10, 15]]), [0, 1])  # Cohen 1960's 2 x 2 form
    array(0.4)
    """
    c = np.asarray(c, dtype=np.float64)
    w = _weights(np.asarray(values, dtype=np.float64), Weighting(weighting))
    n = c.sum(axis=(-2, -1))
    rows, cols = c.sum(axis=-1), c.sum(axis=-2)
    observed = (c * w).sum(axis=(-2, -1))
    expected = np.einsum("...i,ij,...j->...", rows, w, cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1.0 - n * observed / np.where(expected > 0, expected, 1.0),
                        np.nan)


def _delta(values: np.ndarray, n_c: np.ndarray, level: Level) -> np.ndarray:
    """The metric ``delta[..., c, k]`` (module docstring); ``n_c`` of shape ``(..., K)``."""
    K = len(values)
    if level is Level.nominal:
        return np.broadcast_to(1.0 - np.eye(K), n_c.shape[:-1] + (K, K))
    if level is Level.interval:
        d = values[:, None] - values[None, :]
        return np.broadcast_to(d * d, n_c.shape[:-1] + (K, K))
    s = np.cumsum(n_c, axis=-1)
    lo = np.minimum.outer(np.arange(K), np.arange(K))
    hi = np.maximum.outer(np.arange(K), np.arange(K))
    prev = np.concatenate([np.zeros(n_c.shape[:-1] + (1,)), s[..., :-1]], axis=-1)
    between = s[..., hi] - prev[..., lo]                    # sum of n_g for g in [c, k]
    half = (n_c[..., :, None] + n_c[..., None, :]) / 2.0
    return (between - half) ** 2


def alpha_from_coincidences(o: np.ndarray, values, level: Level | str = Level.ordinal
                            ) -> np.ndarray:
    r"""Krippendorff's alpha of coincidence matrices ``o`` of shape ``(..., K, K)``.

    NaN where the expected disagreement is 0 (a single category used).

    >>> o = np.array([[10.0, 2.0], [2.0, 6.0]])
    >>> round(float(alpha_from_coincidences(o, [0, 1], "nominal")), 6)  # 1 - 19*4/(12*8*2)
    0.604167
    """
    o = np.asarray(o, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    delta = _delta(values, n_c, Level(level))
    observed = (o * delta).sum(axis=(-2, -1))
    expected = np.einsum("...i,...ij,...j->...", n_c, delta, n_c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0,
                        1.0 - (n - 1.0) * observed / np.where(expected > 0, expected, 1.0),
                        np.nan)


def _category_index(labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index of each label among ``values`` (-1 for NaN); an off-scale label is an error."""
    idx = np.full(labels.shape, -1, dtype=np.intp)
    ok = ~np.isnan(labels)
    pos = np.searchsorted(values, labels[ok])
    pos = np.minimum(pos, len(values) - 1)
    if (values[pos] != labels[ok]).any():
        bad = labels[ok][values[pos] != labels[ok]][0]
        raise IRStabError(f"labels: {bad:g} is not one of the categories {values.tolist()}")
    idx[ok] = pos
    return idx


def coincidences(idx: np.ndarray, K: int, groups: np.ndarray | None = None,
                 n_groups: int = 1) -> np.ndarray:
    r"""Coincidence matrices of category indices ``idx`` (judges x units, -1 = missing),
    summed within ``groups`` (one per unit, e.g. its topic): shape ``(n_groups, K, K)``."""
    J, U = idx.shape
    counts = np.zeros((U, K))
    for j in range(J):  # judges, not units or resamples
        ok = idx[j] >= 0
        np.add.at(counts, (np.flatnonzero(ok), idx[j][ok]), 1.0)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts, m = counts[keep], m[keep]
    per = (counts[:, :, None] * counts[:, None, :]
           - counts[:, :, None] * np.eye(K)[None]) / (m - 1.0)[:, None, None]
    g = np.zeros(U, dtype=np.intp) if groups is None else np.asarray(groups, dtype=np.intp)
    out = np.zeros((n_groups, K * K))
    np.add.at(out, g[keep], per.reshape(-1, K * K))
    return out.reshape(n_groups, K, K)


def _confusions(ia: np.ndarray, ib: np.ndarray, K: int, groups: np.ndarray,
                n_groups: int) -> np.ndarray:
    flat = (groups * K + ia) * K + ib
    return np.bincount(flat, minlength=n_groups * K * K).reshape(n_groups, K, K).astype(float)


# ---------------------------------------------------------------- plain entry points


def _values(a, b, grades) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise IRStabError(f"a, b: expected two label vectors of one length, got shapes "
                          f"{a.shape}, {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise IRStabError("a, b: labels must be finite (pairs without a label are left out "
                          "before)")
    values = np.unique(np.concatenate([a, b])) if grades is None else \
        np.unique(np.asarray(list(grades), dtype=np.float64))
    return a, b, values


def confusion_matrix(a, b, grades=None) -> pd.DataFrame:
    """Counts of each (grade of ``a``, grade of ``b``); rows ``a``, columns ``b``.

    >>> confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2]).to_numpy().tolist()
    [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    """
    a, b, values = _values(a, b, grades)
    K = len(values)
    c = _confusions(_category_index(a, values), _category_index(b, values), K,
                    np.zeros(len(a), dtype=np.intp), 1)[0]
    labels = [int(v) if float(v).is_integer() else float(v) for v in values]
    return pd.DataFrame(c.astype(np.int64), index=pd.Index(labels, name="a"),
                        columns=pd.Index(labels, name="b"))


def cohen_kappa(a, b, weighting: Weighting | str = Weighting.none, grades=None) -> float:
    """Cohen's kappa of two label vectors (module docstring); ``grades``: the scale
    (default the labels seen).

    >>> cohen_kappa([0, 1, 1, 0], [0, 1, 0, 0])  # p_o = 3/4, p_e = 1/2 * 3/4 + 1/2 * 1/4
    0.5
    """
    a, b, values = _values(a, b, grades)
    K = len(values)
    c = _confusions(_category_index(a, values), _category_index(b, values), K,
                    np.zeros(len(a), dtype=np.intp), 1)[0]
    return float(kappa_from_counts(c, values, weighting))


def krippendorff_alpha(labels, level: Level | str = Level.ordinal, grades=None) -> float:
    """Krippendorff's alpha of ``labels`` (judges x units, NaN = missing; module docstring).

    >>> krippendorff_alpha([[1, 2, 3, 3], [1, 2, 3, 3]], "interval")
    1.0
    >>> round(krippendorff_alpha([[0, 0, 1, None], [0, 1, 1, 1]], "nominal"), 6)  # 1 - 5*2/18
    0.444444
    """
    x = np.array(labels, dtype=np.float64)
    if x.ndim != 2:
        raise IRStabError(f"labels: expected judges x units, got shape {x.shape}")
    values = np.unique(x[~np.isnan(x)]) if grades is None else \
        np.unique(np.asarray(list(grades), dtype=np.float64))
    if len(values) == 0:
        raise IRStabError("labels: no label given")
    o = coincidences(_category_index(x, values), len(values))[0]
    return float(alpha_from_coincidences(o, values, level))


# ---------------------------------------------------------------- judge sets


_KAPPAS = {"cohen_kappa": Weighting.none, "cohen_kappa_linear": Weighting.linear,
           "cohen_kappa_quadratic": Weighting.quadratic}
_ALPHAS = {f"krippendorff_alpha_{lv.value}": lv for lv in Level}


@dataclass(frozen=True, eq=False)
class Agreement:
    """Agreement of judge sets (:func:`agreement`).

    ``pairs``: one row per pair of judges with shared (topic, document) pairs: ``judge_a,
    judge_b, n_topics, n_pairs, exact`` (share of identical grades), the kappas and alphas,
    each with ``_low``/``_high``. ``binarised``: one row per pair and level: ``level,
    n_pairs, relevant_a, relevant_b, relevant_both, cohen_kappa, krippendorff_alpha`` with
    intervals. ``overall``: Krippendorff's alpha of every judge at once (missing labels
    allowed) per metric and per binarised level. ``confusion``: ``{(a, b): DataFrame}``.
    """

    judges: tuple[str, ...]
    grades: tuple[int, ...]
    pairs: pd.DataFrame
    binarised: pd.DataFrame
    overall: pd.DataFrame
    confusion: dict = field(repr=False)
    confidence: float
    n_resamples: int

    def to_frame(self) -> pd.DataFrame:
        return self.pairs.copy()

    def to_dict(self) -> dict:
        return {
            "judges": list(self.judges), "grades": list(self.grades),
            "confidence": self.confidence, "n_resamples": self.n_resamples,
            "pairs": json_records(self.pairs), "binarised": json_records(self.binarised),
            "overall": json_records(self.overall),
            "confusion": [{"judge_a": a, "judge_b": b, "grades": list(self.grades),
                           "counts": c.to_numpy().tolist()}
                          for (a, b), c in self.confusion.items()],
        }


def _draw_weights(rng: np.random.Generator, B: int, T: int) -> np.ndarray:
    idx = rng.integers(0, T, size=(B, T))
    return np.bincount((idx + T * np.arange(B)[:, None]).ravel(),
                       minlength=B * T).reshape(B, T).astype(np.float64)


def _interval(draws: np.ndarray, confidence: float) -> tuple[float, float]:
    ok = draws[np.isfinite(draws)]
    if len(ok) == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(ok, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def _binarise(K: int, level_index: int) -> np.ndarray:
    """``(K, 2)`` indicator: category ``c`` goes to 1 when ``c >= level_index``."""
    m = np.zeros((K, 2))
    m[:level_index, 0] = 1.0
    m[level_index:, 1] = 1.0
    return m


def _stats(row: dict, name: str, point, draws, confidence: float) -> None:
    row[name] = float(point)
    row[f"{name}_low"], row[f"{name}_high"] = _interval(draws, confidence) if draws is not None \
        else (float("nan"), float("nan"))


def _check(n_resamples, confidence) -> tuple[int, float]:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 0:
        raise IRStabError(f"n_resamples: expected an integer >= 0, got {n_resamples!r}")
    if not 0 < confidence < 1:
        raise IRStabError(f"confidence: must be in (0, 1), got {confidence!r}")
    from .._numeric import check_allocation

    check_allocation(8.0 * n_resamples * 64, f"n_resamples: {n_resamples} resamples")
    return int(n_resamples), float(confidence)


def agreement(sets: JudgeSets, *, n_resamples: int = 1000, confidence: float = 0.95,
              seed=0) -> Agreement:
    """Agreement of every pair of judge sets on the (topic, document) pairs both labelled,
    and of all of them at once (module docstring for the statistics).

    Parameters
    ----------
    sets : JudgeSets
        From :func:`irstab.judges.labels.read_judge_sets`.
    n_resamples : int
        Bootstrap resamples over the topics (0: no intervals).
    confidence : float
        Level of the percentile intervals.
    seed : int, Generator or None
        Seeds the resamples.

    Examples
    --------
    >>> import pandas as pd
    >>> from irstab.io import Qrels
    >>> from irstab.judges.labels import judge_sets
    >>> g = Qrels("gold.txt", pd.DataFrame({"topic": ["1", "1", "2", "2"],
    ...       "docid": ["a", "b", "c", "d"], "grade": [0, 2, 1, 2]}))
    >>> o = Qrels("llm.txt", g.frame.assign(grade=[0, 2, 1, 1]))
    >>> r = agreement(judge_sets(g, {"llm": o}), n_resamples=0)
    >>> r.pairs[["judge_a", "judge_b", "n_pairs", "exact"]].values.tolist()
    [['gold', 'llm', 4, 0.75]]
    """
    B, confidence = _check(n_resamples, confidence)
    rng = check_seed(seed)
    values = np.asarray(sets.grades, dtype=np.float64)
    K = len(values)
    idx = _category_index(sets.labels, values)
    tcode, tnames = sets.topic_codes()
    T = len(tnames)
    levels = list(range(1, K))
    rows, brows, confusion, undefined = [], [], {}, []
    J = len(sets.judges)
    for a, b in combinations(range(J), 2):
        both = (idx[a] >= 0) & (idx[b] >= 0)
        if not both.any():
            continue
        used, g = np.unique(tcode[both], return_inverse=True)
        C = _confusions(idx[a][both], idx[b][both], K, g, len(used))       # (T', K, K)
        total = C.sum(axis=0)
        W = _draw_weights(rng, B, len(used)) if B else None
        Cb = (W @ C.reshape(len(used), K * K)).reshape(B, K, K) if B else None
        O, Ob = total + total.T, (Cb + Cb.transpose(0, 2, 1)) if B else None
        na, nb = sets.judges[a], sets.judges[b]
        row = {"judge_a": na, "judge_b": nb, "n_topics": len(used),
               "n_pairs": int(both.sum()), "exact": float(np.trace(total) / total.sum())}
        for name, w in _KAPPAS.items():
            _stats(row, name, kappa_from_counts(total, values, w),
                   kappa_from_counts(Cb, values, w) if B else None, confidence)
        for name, lv in _ALPHAS.items():
            _stats(row, name, alpha_from_coincidences(O, values, lv),
                   alpha_from_coincidences(Ob, values, lv) if B else None, confidence)
        if np.isnan(row["cohen_kappa"]) or np.isnan(row["krippendorff_alpha_nominal"]):
            undefined.append(f"{na} - {nb}")
        rows.append(row)
        confusion[(na, nb)] = pd.DataFrame(total.astype(np.int64), index=list(sets.grades),
                                           columns=list(sets.grades))
        for L in levels:
            M = _binarise(K, L)
            c2 = M.T @ total @ M
            c2b = np.einsum("ki,bkl,lj->bij", M, Cb, M) if B else None
            v2 = np.array([0.0, 1.0])
            br = {"judge_a": na, "judge_b": nb, "level": int(sets.grades[L]),
                  "n_pairs": int(c2.sum()), "relevant_a": int(c2[1].sum()),
                  "relevant_b": int(c2[:, 1].sum()), "relevant_both": int(c2[1, 1])}
            _stats(br, "cohen_kappa", kappa_from_counts(c2, v2),
                   kappa_from_counts(c2b, v2) if B else None, confidence)
            _stats(br, "krippendorff_alpha", alpha_from_coincidences(c2 + c2.T, v2, "nominal"),
                   alpha_from_coincidences(c2b + c2b.transpose(0, 2, 1), v2, "nominal")
                   if B else None, confidence)
            brows.append(br)
    if not rows:
        raise IRStabError("judges: no two judge sets label a common (topic, document) pair; "
                          "nothing to compare")
    if undefined:
        warnings.warn(f"agreement undefined (one grade only, no chance disagreement) for "
                      f"{len(undefined)} pair(s): {', '.join(undefined[:5])}; reported as NaN",
                      IRStabWarning, stacklevel=2)
    # every judge at once: coincidences per topic, resampled the same way
    Ot = coincidences(idx, K, tcode, T)                                   # (T, K, K)
    Wt = _draw_weights(rng, B, T) if B else None
    Otb = (Wt @ Ot.reshape(T, K * K)).reshape(B, K, K) if B else None
    O = Ot.sum(axis=0)
    orows = []
    for lv in Level:
        r = {"judges": J, "metric": lv.value, "level": None,
             "n_values": float(O.sum())}
        _stats(r, "krippendorff_alpha", alpha_from_coincidences(O, values, lv),
               alpha_from_coincidences(Otb, values, lv) if B else None, confidence)
        orows.append(r)
    for L in levels:
        M = _binarise(K, L)
        r = {"judges": J, "metric": "binary", "level": int(sets.grades[L]),
             "n_values": float(O.sum())}
        _stats(r, "krippendorff_alpha",
               alpha_from_coincidences(M.T @ O @ M, [0, 1], "nominal"),
               alpha_from_coincidences(np.einsum("ki,bkl,lj->bij", M, Otb, M), [0, 1],
                                       "nominal") if B else None, confidence)
        orows.append(r)
    return Agreement(judges=sets.judges, grades=sets.grades, pairs=pd.DataFrame(rows),
                     binarised=pd.DataFrame(brows), overall=pd.DataFrame(orows),
                     confusion=confusion, confidence=confidence, n_resamples=B)
