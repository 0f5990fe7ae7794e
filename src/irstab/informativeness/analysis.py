r"""Informativeness of measures by the maximum entropy method.

How well does a measure's value summarise the ranked list it was computed
from? Aslam, Yilmaz & Pavlu (SIGIR 2005) answer with the maximum entropy
method, which Robertson, Kanoulas & Yilmaz (SIGIR 2010, §4.1, Fig. 1-2) use
to compare GAP with nDCG and to choose GAP's thresholding probabilities.

For each (system, topic) cell, given only the measure's value ``v``, the list
length and the number of documents of each grade in the list, find the
maximum-entropy product distribution ``P[n, a]`` (probability that rank ``n``
holds grade ``a``) with ``E_P[M] = v`` and ``sum_n P[n, a] = R_a``
(:func:`irstab.informativeness.maxent.solve_maxent`). Infer the precision-recall
curve from it and compare it with the list's actual curve.

Inference used
--------------
At relevance level ``t`` (a document is relevant when its grade is >= t) the
probability that rank ``n`` is relevant is ``q_n = sum_{a >= t} P[n, a]``.
Following Aslam et al., the inferred curve is that of the expected counts:
``E(r) = sum_{n <= r} q_n`` relevant documents in the top ``r``, recall
``E(r) / R_t`` (``R_t``: the topic's judged relevant documents at level t),
precision ``E(r) / r``. The error is computed at the recall levels where the
actual curve changes, ``k / R_t`` for ``k = 1..K`` (``K`` relevant retrieved;
Robertson et al.: "calculated at the points where recall changes"): the
actual precision there is ``k / r_k`` (``r_k``: rank of the k-th relevant
document) and the inferred one is ``k / r*_k`` with ``r*_k`` the rank where
``E`` reaches ``k`` (``E`` linear between integer ranks). Since the count
constraint makes ``E(N) = K``, every level is reached. Comparing at equal
recall (rather than at equal rank) is what comparing two precision-recall
curves means; it also keeps the error of a list inferred exactly at 0.

``RMS = sqrt(mean_k (k / r_k - k / r*_k)^2)`` per cell and level. The two
levels of Robertson et al. are ``t = 1`` (any relevant grade) and ``t = c``
(the highest grade); their graded PR curves are not used.

Selection (Aslam et al.; Robertson et al.): only cells whose list holds at
least ``min_relevant`` documents of grade >= 1 and ``min_top`` of the highest
grade (5 and 5). The mean RMS error per measure and level comes with a
percentile interval from a bootstrap over topics (cells of one topic share
their qrels, so topics are the independent units). Cells whose solve did not
converge are left out of the mean and counted in ``n_unsolved``.

References
----------
J. A. Aslam, E. Yilmaz, V. Pavlu. The maximum entropy method for analyzing
retrieval measures. SIGIR 2005.
S. E. Robertson, E. Kanoulas, E. Yilmaz. Extending average precision to
graded relevance judgments. SIGIR 2010.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._numeric import check_allocation, check_resamples
from ..errors import DegenerateDataError, IRStabError, IRStabWarning
from ..evaluation import parse_measures
from .maxent import MaxEntSolution, solve_maxent
from .product_expectation import product_form

__all__ = ["Informativeness", "informativeness", "pr_curve_rms", "cell_inputs", "CellCurves",
           "cell_curves"]


def cell_inputs(collection):
    """``(grades (C, N), onehot P (C, N, A), counts (C, A), free (C, N))`` of every cell.

    Cells are system-major (``s * n_topics + t``); grades are clipped to 0..c.
    """
    N = collection.grades.shape[2]
    A = collection.max_grade + 1
    grades = np.clip(collection.grades, 0, collection.max_grade).reshape(-1, N).astype(np.int64)
    onehot = np.zeros(grades.shape + (A,))
    np.put_along_axis(onehot, grades[:, :, None], 1.0, axis=2)
    free = np.arange(N)[None, :] < collection.run_length.reshape(-1)[:, None]
    return grades, onehot, onehot.sum(axis=1), free


def pr_curve_rms(grades: np.ndarray, P: np.ndarray, level: int) -> np.ndarray:
    """RMS error between actual and inferred precision at the recall levels of the list.

    Parameters
    ----------
    grades : ndarray (C, N)
        The actual lists (grades 0..c).
    P : ndarray (C, N, A)
        Inferred probability-at-rank distributions.
    level : int
        Relevant means grade >= ``level``.

    Returns
    -------
    ndarray (C,)
        NaN where the list holds no relevant document at this level.
    """
    C, N = grades.shape
    rel = grades >= level
    K = rel.sum(axis=1)
    E = np.cumsum(P[:, :, level:].sum(axis=2), axis=1)  # E(r), r = 1..N
    cell, pos = np.nonzero(rel)  # row-major: the k-th relevant of each cell in order
    k = np.arange(1, len(cell) + 1) - np.repeat(np.cumsum(K) - K, K)
    # r*_k: first rank with E(r) >= k (searched in one flat, offset array)
    span = N + 2.0
    flat = (E + span * np.arange(C)[:, None]).ravel()
    j = np.searchsorted(flat, k - 1e-7 + span * cell) - cell * N
    j = np.minimum(j, N - 1)
    e_hi = E[cell, j]
    e_lo = np.where(j > 0, E[cell, np.maximum(j - 1, 0)], 0.0)
    frac = np.clip(np.divide(k - e_lo, e_hi - e_lo, out=np.ones_like(e_hi), where=e_hi > e_lo), 0, 1)
    r_star = j + frac  # j is 0-based: rank j + frac in (j, j + 1]
    r_star = np.maximum(r_star, 1e-12)
    err2 = (k / (pos + 1.0) - k / r_star) ** 2
    total = np.bincount(cell, weights=err2, minlength=C)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(K > 0, np.sqrt(total / np.maximum(K, 1)), np.nan)


@dataclass(frozen=True, eq=False)
class Informativeness:
    """Result of :func:`informativeness`.

    Attributes
    ----------
    measures : tuple of str
    levels : tuple of int
        Relevance levels (grade >= level) of the PR curves.
    cells : pandas.DataFrame
        One row per measure, selected cell and level: ``measure, system,
        topic, level, rms, converged, fallback, iterations, entropy``.
    confidence : float
    n_bootstrap : int
    summary_frame : pandas.DataFrame
        See :meth:`summary`.
    min_relevant, min_top : int
        The selection used.
    """

    measures: tuple[str, ...]
    levels: tuple[int, ...]
    cells: pd.DataFrame
    confidence: float
    n_bootstrap: int
    summary_frame: pd.DataFrame
    min_relevant: int = 5
    min_top: int = 5

    def summary(self) -> pd.DataFrame:
        """Per measure and level: ``mean_rms, ci_low, ci_high, n_cells, n_topics, n_unsolved``."""
        return self.summary_frame.copy()

    def to_frame(self) -> pd.DataFrame:
        return self.summary()

    def to_dict(self) -> dict:
        s = self.summary_frame.astype(object).where(self.summary_frame.notna(), None)
        return {
            "measures": list(self.measures),
            "levels": list(self.levels),
            "confidence": self.confidence,
            "n_bootstrap": self.n_bootstrap,
            "min_relevant": self.min_relevant,
            "min_top": self.min_top,
            "summary": s.to_dict("records"),
        }


def _topic_bootstrap(values, topic, n_topics, n_bootstrap, confidence, rng):
    """Percentile interval of the mean over cells, resampling topics."""
    sums = np.bincount(topic, weights=values, minlength=n_topics)
    counts = np.bincount(topic, minlength=n_topics).astype(np.float64)
    used = counts > 0
    sums, counts = sums[used], counts[used]
    T = len(sums)
    if T < 2:
        return np.nan, np.nan
    check_allocation(16.0 * n_bootstrap * T, f"n_bootstrap: {n_bootstrap} resamples of {T} topics")
    w = rng.multinomial(T, np.full(T, 1.0 / T), size=n_bootstrap).astype(np.float64)
    means = (w @ sums) / np.maximum(w @ counts, 1e-300)
    a = (1.0 - confidence) / 2.0
    return float(np.quantile(means, a)), float(np.quantile(means, 1.0 - a))


def _check_args(min_relevant, min_top, n_bootstrap, confidence):
    for name, v in (("min_relevant", min_relevant), ("min_top", min_top)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise IRStabError(f"{name} must be a non-negative integer, got {v!r}")
    if not 0.0 < float(confidence) < 1.0:
        raise IRStabError(f"confidence must be in (0, 1), got {confidence!r}")
    check_resamples(n_bootstrap, confidence, "n_bootstrap")


def informativeness(
    collection,
    measures: Iterable,
    *,
    min_relevant: int = 5,
    min_top: int = 5,
    levels: tuple[int, ...] | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed=None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Informativeness:
    """Mean RMS error of maximum-entropy PR curves, per measure (lower: more informative).

    Parameters
    ----------
    collection : Collection
    measures : iterable of measure or str
        Measures with a product-distribution expectation: AP, GAP, xGAP,
        eGAP, nDCG/DCG (any gain, discount, cutoff), P@k, Recall, RBP.
    min_relevant, min_top : int
        Selection: cells whose list holds at least this many documents of
        grade >= 1 / of the highest grade (Aslam et al.: 5 and 5).
    levels : tuple of int, optional
        Relevance levels of the PR curves; default ``(1, c)`` (``(1,)`` on
        binary qrels).
    n_bootstrap, confidence, seed
        Topic bootstrap of the mean's interval.
    progress : callable, optional
        ``progress(measure, converged_cells, total_cells)``.

    Returns
    -------
    Informativeness

    Examples
    --------
    >>> import irstab
    >>> from irstab.compare import informativeness
    >>> sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=6, depth=30, seed=3)
    >>> coll = irstab.Collection.build(sim.qrels, sim.runs, depth=30)
    >>> res = informativeness(coll, ["AP", "P@10"], min_relevant=1, min_top=0, levels=(1,), seed=0)
    >>> list(res.summary()["measure"])
    ['AP', 'P@10']
    """
    _check_args(min_relevant, min_top, n_bootstrap, confidence)
    ms = parse_measures(measures)
    if not ms:
        raise IRStabError("informativeness needs at least one measure")
    c = collection.max_grade
    levels = tuple(sorted({1, c})) if levels is None else tuple(int(x) for x in levels)
    if any(not 1 <= t <= c for t in levels):
        raise IRStabError(f"levels must be grades in 1..{c}, got {levels!r}")
    grades, onehot, counts, free = cell_inputs(collection)
    selected = ((grades >= 1).sum(axis=1) >= min_relevant) & ((grades >= c).sum(axis=1) >= min_top)
    cells = np.flatnonzero(selected)
    if cells.size == 0:
        raise DegenerateDataError(
            f"no (system, topic) list holds >= {min_relevant} relevant and >= {min_top} "
            f"documents of grade {c}; lower min_relevant / min_top"
        )
    T = collection.n_topics
    sys_idx, top_idx = np.divmod(cells, T)
    rng = np.random.default_rng(seed)
    rows, summary, thin = [], [], []
    for m in ms:
        form = product_form(m, collection).take(cells)
        target = form.value(onehot[cells])
        report = None if progress is None else (lambda d, n, name=str(m): progress(name, d, n))
        sol: MaxEntSolution = solve_maxent(form, counts[cells], free[cells], target, progress=report)
        ent = sol.entropy
        for t in levels:
            rms = pr_curve_rms(grades[cells], sol.P, t)
            rows.append(pd.DataFrame({
                "measure": str(m), "system": np.asarray(collection.systems)[sys_idx],
                "topic": np.asarray(collection.topics)[top_idx], "level": t, "rms": rms,
                "converged": sol.converged, "fallback": sol.fallback,
                "iterations": sol.iterations, "entropy": ent,
            }))
            use = sol.converged & np.isfinite(rms)
            lo, hi = _topic_bootstrap(rms[use], top_idx[use], T, n_bootstrap, confidence, rng)
            n_top = np.unique(top_idx[use]).size
            if n_top < 2:
                thin.append(f"{m} at grade >= {t}" + (" (no list solved)" if n_top == 0 else ""))
            summary.append({
                "measure": str(m), "level": t,
                "mean_rms": float(rms[use].mean()) if use.any() else np.nan,
                "ci_low": lo, "ci_high": hi, "n_cells": int(use.sum()),
                "n_topics": int(n_top),
                "n_unsolved": int((~sol.converged).sum()),
            })
    if thin:  # the bootstrap resamples topics: one topic gives no interval (ci NaN)
        warnings.warn(IRStabWarning(
            f"informativeness: the selected lists come from fewer than 2 topics, so there is no "
            f"interval (and no mean where no list was solved) for {', '.join(thin)}; lower "
            f"min_relevant / min_top (now {min_relevant} / {min_top})"))
    return Informativeness(tuple(str(m) for m in ms), levels, pd.concat(rows, ignore_index=True),
                           float(confidence), int(n_bootstrap), pd.DataFrame(summary),
                           int(min_relevant), int(min_top))


@dataclass(frozen=True, eq=False)
class CellCurves:
    """Actual and inferred PR curves of one (system, topic) for one measure.

    ``recall`` / ``precision``: the actual curve at the ranks of its relevant
    documents; ``inferred_recall`` / ``inferred_precision``: ``E(r)/R`` and
    ``E(r)/r`` for every rank ``r``; ``rms`` as in :func:`pr_curve_rms`.
    """

    measure: str
    system: str
    topic: str
    level: int
    value: float
    recall: np.ndarray
    precision: np.ndarray
    inferred_recall: np.ndarray
    inferred_precision: np.ndarray
    rms: float
    converged: bool


def cell_curves(collection, measure, system: str, topic: str, level: int = 1) -> CellCurves:
    """Solve one cell and return its actual and inferred PR curves (for figures)."""
    (m,) = parse_measures([measure])
    try:
        s, t = collection.systems.index(system), collection.topics.index(topic)
    except ValueError:
        raise IRStabError(f"no system {system!r} / topic {topic!r} in the collection") from None
    if not 1 <= level <= collection.max_grade:
        raise IRStabError(f"level must be a grade in 1..{collection.max_grade}, got {level!r}")
    grades, onehot, counts, free = cell_inputs(collection)
    cell = np.array([s * collection.n_topics + t])
    form = product_form(m, collection).take(cell)
    v = form.value(onehot[cell])
    sol = solve_maxent(form, counts[cell], free[cell], v)
    R = float(collection.num_relevant(level)[t])
    rel = grades[cell[0]] >= level
    ranks = np.flatnonzero(rel) + 1.0
    k = np.arange(1, len(ranks) + 1)
    E = np.cumsum(sol.P[0, :, level:].sum(axis=1))
    r = np.arange(1, len(E) + 1)
    return CellCurves(str(m), system, topic, level, float(v[0]), k / R, k / ranks, E / R, E / r,
                      float(pr_curve_rms(grades[cell], sol.P, level)[0]), bool(sol.converged[0]))
