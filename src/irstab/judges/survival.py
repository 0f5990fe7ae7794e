r"""Do the conclusions survive the change of qrels? The same runs under judge set A and B.

For every measure and every other judge set B, the runs are scored under the gold set A and
under B, and three conclusions a reader draws from an evaluation are compared:

* **the ranking of systems** by mean score: Kendall's :math:`\tau_b` and the AP rank
  correlation :math:`\tau_{AP}` with A's ranking the reference and B's the one walked
  (Yilmaz, Aslam & Robertson, SIGIR 2008; Urbano & Marrero's :math:`\tau_{AP,b}` for ties;
  the kernels of :mod:`irstab.compare.correlation`), each with the percentiles of its values
  over topics resampled with replacement, the same topics under A and B (a paired bootstrap:
  how far the correlation moves with other topics of the same kind). These are *not*
  calibrated intervals: a resample repeats some topics, its means are noisier than the
  sample's, and tau on it is biased low (on DL-2019 the estimate sits near the top of its
  bootstrap distribution), so the lower end overstates how low tau could be; the CLI's table
  leaves them out, JSON and CSV carry them as ``*_low``/``*_high``;
* **the top of the ranking**: of the :math:`k(k-1)/2` pairs of A's top :math:`k` systems
  (``top_k``, default 10), how many B orders the other way (``top_k_swaps``, and their
  share ``top_k_swap_rate``; a pair B ties is not a swap), and how many of A's top
  :math:`k` are in B's (``top_k_overlap``);
* **the significant differences**: every pair of systems is tested under A and under B with
  the test and correction of ``irstab systems`` (:func:`irstab.systems.table.compare_systems`:
  paired t-test and Holm by default); ``kept_share`` is the share of A's significant pairs that
  are significant under B *in the same direction*, ``reversed`` those significant under both
  in opposite directions, ``gained`` those significant under B only.

Which topics, which labels
--------------------------
A re-annotator, a crowd or an LLM often labels only some topics, and of a topic only part of
the pool (the DL-2019 re-annotators judged about 40% of the NIST pool of 9-15 topics each).
The comparison is made on **the topics B labelled** (B's evaluated cells), where A is
restricted to the same topics, so a difference is never a difference of topic sets. Within a
topic, documents B did not label keep A's grade (``missing="base"``, the default, as
``irstab assessors --missing base``): a score then differs from A's only through the
documents B judged differently, and B's sample size is not mistaken for disagreement.
``missing="unjudged"`` counts B's own labels only (everything else unjudged). Scores come
from one (topic, judge) :class:`~irstab.collection.Collection`
(:func:`irstab.collection.assessors.assessor_collection`), built once: the same kernels as
``irstab evaluate``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._numeric import kendall_matrix, tau_ap_matrix
from ..errors import IRStabError, IRStabWarning
from ..systems.table import compare_systems

__all__ = ["Survival", "survival_from_scores", "judge_survival", "top_k_swaps",
           "paired_rank_correlations"]


@dataclass(frozen=True, eq=False)
class Survival:
    """Per measure and judge set B: how A's conclusions fare under B (module docstring).

    ``rows`` columns: ``measure, judge_a, judge_b, n_topics, n_systems, kendall_tau`` (with
    ``_low``/``_high``: a paired bootstrap over topics), ``tau_ap`` (the same), ``top_k, top_k_swaps, top_k_swap_rate, top_k_overlap, significant_a, significant_b, kept,
    kept_share, reversed, gained``. ``kept_share`` is NaN (``null`` in JSON) where A has no
    significant pair (nothing to keep); the correlations are NaN, with a warning, where one
    judge set gives every system the same mean. Pairs cannot be tested where a judge set's
    scores do not vary (every count 0 then).
    """

    gold: str
    rows: pd.DataFrame
    test: str
    correction: str
    alpha: float
    top_k: int
    missing: str

    def to_frame(self) -> pd.DataFrame:
        return self.rows.copy()

    def to_dict(self) -> dict:
        recs = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
                for r in self.rows.to_dict(orient="records")]
        return {"gold": self.gold, "test": self.test, "correction": self.correction,
                "alpha": self.alpha, "top_k": self.top_k, "missing": self.missing,
                "rows": recs}

    def by_measure(self) -> pd.DataFrame:
        """Mean over the judge sets B of each measure's figures, most robust first (highest
        mean tau_AP): which measure's conclusions depend least on who judged."""
        cols = ["kendall_tau", "tau_ap", "top_k_swap_rate", "kept_share"]
        out = self.rows.groupby("measure", sort=False)[cols].mean().reset_index()
        return out.sort_values("tau_ap", ascending=False, kind="stable").reset_index(drop=True)


def top_k_swaps(a, b, k: int) -> tuple[int, int, int]:
    """``(swaps, pairs, overlap)``: of the pairs of ``a``'s top ``k`` items (ties in ``a``
    broken by position), how many ``b`` orders strictly the other way, how many pairs there
    are, and how many of ``a``'s top ``k`` are in ``b``'s top ``k``.

    >>> top_k_swaps([0.9, 0.8, 0.7, 0.1], [0.8, 0.9, 0.7, 0.95], 3)  # 1 of 3 pairs; 2 shared
    (1, 3, 2)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    k = min(int(k), len(a))
    top_a = np.argsort(-a, kind="stable")[:k]
    top_b = np.argsort(-b, kind="stable")[:k]
    x, y = a[top_a], b[top_a]
    sa = np.sign(x[:, None] - x[None, :])
    sb = np.sign(y[:, None] - y[None, :])
    swaps = int(np.triu(sa * sb < 0, 1).sum())
    return swaps, k * (k - 1) // 2, len(set(top_a.tolist()) & set(top_b.tolist()))


_BLOCK_CELLS = 2**22  # floats of one block of resampled sign matrices


def paired_rank_correlations(ma, mb) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b and directed tau_AP (``ma`` the reference) of each row pair of ``ma``
    and ``mb`` (shape ``(R, S)``: R rankings of S systems), vectorised over the rows; the same
    numbers as :func:`irstab._numeric.kendall_matrix` and :func:`~irstab._numeric.tau_ap_matrix`
    row by row, NaN where those are.

    >>> tau, tap = paired_rank_correlations([[4, 3, 2, 1]], [[3, 4, 2, 1]])
    >>> round(float(tau[0]), 4), round(float(tap[0]), 4)
    (0.6667, 0.3333)
    """
    ma = np.atleast_2d(np.asarray(ma, dtype=np.float64))
    mb = np.atleast_2d(np.asarray(mb, dtype=np.float64))
    R, S = ma.shape
    tau, tap = np.empty(R), np.empty(R)
    step = max(1, _BLOCK_CELLS // max(1, S * S))
    for r0 in range(0, R, step):  # blocks of rows bound the (rows, S, S) arrays
        a, b = ma[r0:r0 + step], mb[r0:r0 + step]
        sa = np.sign(a[:, :, None] - a[:, None, :])
        sb = np.sign(b[:, :, None] - b[:, None, :])
        num = (sa * sb).sum(axis=(1, 2))
        den = np.sqrt((sa * sa).sum(axis=(1, 2)) * (sb * sb).sum(axis=(1, 2)))
        with np.errstate(invalid="ignore", divide="ignore"):
            tau[r0:r0 + step] = np.clip(np.where(den > 0, num / np.where(den > 0, den, 1.0),
                                                 np.nan), -1.0, 1.0)
        above_a = sa < 0  # above[r, i, j]: j strictly above i
        above_b = sb < 0
        g = above_b.sum(axis=2)
        c = (above_a & above_b).sum(axis=2)
        counted = g > 0
        n = counted.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(counted, c / np.where(counted, g, 1), 0.0).sum(axis=1)
            tap[r0:r0 + step] = np.where(n > 0, 2.0 * ratio / np.where(n > 0, n, 1) - 1.0,
                                         np.nan)
    return tau, tap


def _correlation_intervals(A: np.ndarray, B: np.ndarray, n_bootstrap: int, confidence: float,
                           rng) -> tuple[float, float, float, float]:
    """Percentile intervals of tau-b and tau_AP over topics resampled with replacement, the
    same topics for A and B (a paired bootstrap; ``A``, ``B``: systems x topics)."""
    nan4 = (float("nan"),) * 4
    if not n_bootstrap:
        return nan4
    T = A.shape[1]
    idx = rng.integers(0, T, size=(n_bootstrap, T))
    W = np.bincount((idx + T * np.arange(n_bootstrap)[:, None]).ravel(),
                    minlength=n_bootstrap * T).reshape(n_bootstrap, T) / T
    tau, tap = paired_rank_correlations(W @ A.T, W @ B.T)
    q = [(1 - confidence) / 2, (1 + confidence) / 2]
    out = []
    for x in (tau, tap):
        x = x[np.isfinite(x)]
        out += list(np.quantile(x, q)) if len(x) else [float("nan")] * 2
    return tuple(float(v) for v in out)


def _significance(x: pd.DataFrame, test, correction, alpha, n_resamples, seed):
    """``(significant, difference)`` of all pairs (a before b), or None if not testable."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)  # effect sizes: not reported here
            r = compare_systems(x, test=test, correction=correction, alpha=alpha,
                                n_resamples=n_resamples, seed=seed)
    except IRStabError as exc:
        if "no system differs" in str(exc) or "at least 2 topics" in str(exc):
            return None
        raise
    return r.pairs["significant"].to_numpy(), r.pairs["difference"].to_numpy(), r


def _row(measure, ga, gb, A: pd.DataFrame, B: pd.DataFrame, top_k, sig_a, test, correction,
         alpha, n_resamples, seed, n_bootstrap, confidence, rng) -> dict:
    ma, mb = A.mean(axis=1).to_numpy(), B.mean(axis=1).to_numpy()
    both = np.stack([ma, mb])
    with np.errstate(all="ignore"):
        tau = float(kendall_matrix(both)[0, 1])
        tap = float(tau_ap_matrix(both)[0, 1])
    if np.isnan(tau) or np.isnan(tap):
        flat = ga if np.ptp(ma) == 0 else gb
        warnings.warn(f"{measure}: every system has the same mean under {flat} on the "
                      f"{A.shape[1]} topic(s) {gb} judged; the rank correlations are undefined "
                      "(NaN)", IRStabWarning, stacklevel=4)
    swaps, npairs, overlap = top_k_swaps(ma, mb, top_k)
    t_lo, t_hi, a_lo, a_hi = _correlation_intervals(A.to_numpy(float), B.to_numpy(float),
                                                    n_bootstrap, confidence, rng)
    row = {"measure": measure, "judge_a": ga, "judge_b": gb, "n_topics": A.shape[1],
           "n_systems": A.shape[0], "kendall_tau": tau, "kendall_tau_low": t_lo,
           "kendall_tau_high": t_hi, "tau_ap": tap, "tau_ap_low": a_lo, "tau_ap_high": a_hi,
           "top_k": min(top_k, A.shape[0]), "top_k_swaps": swaps,
           "top_k_swap_rate": swaps / npairs if npairs else float("nan"),
           "top_k_overlap": overlap}
    sig_b = _significance(B, test, correction, alpha, n_resamples, seed)
    if sig_a is None or sig_b is None:
        row.update(significant_a=0 if sig_a is None else int(sig_a[0].sum()),
                   significant_b=0 if sig_b is None else int(sig_b[0].sum()),
                   kept=0, kept_share=float("nan"), reversed=0, gained=0)
        return row
    (sa, da, _), (sb, db, _) = sig_a, sig_b
    same = np.sign(da) == np.sign(db)
    kept = int((sa & sb & same).sum())
    row.update(significant_a=int(sa.sum()), significant_b=int(sb.sum()), kept=kept,
               kept_share=kept / int(sa.sum()) if sa.any() else float("nan"),
               reversed=int((sa & sb & ~same).sum()), gained=int((~sa & sb).sum()))
    return row


def survival_from_scores(scores: pd.DataFrame, gold: str, *, top_k: int = 10,
                         test="t", correction=None, alpha: float = 0.05,
                         n_resamples: int | None = None, seed=0, missing: str = "base",
                         judges: Iterable[str] | None = None, n_bootstrap: int = 1000,
                         confidence: float = 0.95,
                         progress: Callable[[int], None] | None = None) -> Survival:
    """The survival table from a long table ``measure, system, topic, assessor, score``
    (:meth:`irstab.collection.assessors.AssessorCollection.scores`), ``gold`` naming the
    assessor A. Each other assessor B is compared with A on the topics both have; rows in the
    order of ``judges`` (default: as the assessors first appear in ``scores``). The rank
    correlations get percentile intervals at ``confidence`` over ``n_bootstrap`` resamples of
    the topics (0: none), the same resampled topics under A and B, seeded by ``seed``.

    Examples
    --------
    >>> import itertools
    >>> rows = [("m", s, t, j, v + (0.1 * (j == "b") * (s == "s2")))  # b swaps s1 and s2
    ...         for (s, v), t, j in itertools.product(
    ...             [("s1", 0.5), ("s2", 0.45), ("s3", 0.2)], ["1", "2", "3"], ["a", "b"])]
    >>> f = pd.DataFrame(rows, columns=["measure", "system", "topic", "assessor", "score"])
    >>> f.loc[f.topic == "2", "score"] += 0.1
    >>> r = survival_from_scores(f, "a", top_k=2)
    >>> r.rows[["judge_b", "kendall_tau", "top_k_swaps"]].values.tolist()
    [['b', 0.3333333333333333, 1]]
    """
    need = {"measure", "system", "topic", "assessor", "score"}
    if not need <= set(scores.columns):
        raise IRStabError(f"scores: expected columns {sorted(need)}, got {list(scores.columns)}")
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 2:
        raise IRStabError(f"top_k: expected an integer >= 2, got {top_k!r}")
    seen = list(dict.fromkeys(scores["assessor"]))
    judges = seen if judges is None else [j for j in judges if j in set(seen)]
    if gold not in judges:
        raise IRStabError(f"gold: no assessor named {gold!r} among {judges}")
    others = [j for j in judges if j != gold]
    if not others:
        raise IRStabError("judges: only the gold judge set has scores; give another judge set")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) \
            or n_bootstrap < 0:
        raise IRStabError(f"n_bootstrap: expected an integer >= 0, got {n_bootstrap!r}")
    if not 0 < confidence < 1:
        raise IRStabError(f"confidence: must be in (0, 1), got {confidence!r}")
    from .._numeric import check_seed

    rng = check_seed(seed)
    rows, sig_cache = [], {}
    for measure, fm in scores.groupby("measure", sort=False):
        wide = {j: f.pivot(index="system", columns="topic", values="score")
                for j, f in fm.groupby("assessor", sort=False)}
        A_all = wide[gold]
        for j in others:
            if j not in wide:
                continue
            Bj = wide[j]
            topics = [t for t in Bj.columns if t in A_all.columns]
            if len(topics) < 1:
                continue
            A = A_all.loc[Bj.index, topics]
            B = Bj[topics]
            key = (measure, tuple(topics))
            if key not in sig_cache:
                sig_cache[key] = _significance(A, test, correction, alpha, n_resamples, seed)
            sig_a = sig_cache[key]
            rows.append(_row(measure, gold, j, A, B, int(top_k), sig_a, test, correction, alpha,
                             n_resamples, seed, int(n_bootstrap), float(confidence), rng))
            if progress is not None:
                progress(1)
    if not rows:
        raise IRStabError("judges: no other judge set shares a topic with the gold set")
    some = next((s for s in sig_cache.values() if s is not None), None)
    test_name = some[2].test if some else str(getattr(test, "value", test))
    corr_name = some[2].correction if some else str(getattr(correction, "value", correction))
    return Survival(gold=gold, rows=pd.DataFrame(rows), test=test_name, correction=corr_name,
                    alpha=float(alpha), top_k=int(top_k), missing=str(missing))


def judge_survival(gold, others: Mapping | Iterable, runs, measures, *, missing="base",
                   depth: int = 1000, order="score", top_k: int = 10, test="t",
                   correction=None, alpha: float = 0.05, n_resamples: int | None = None,
                   seed=0, n_bootstrap: int = 1000, confidence: float = 0.95, client=None,
                   progress: Callable[[int], None] | None = None) -> Survival:
    """Score ``runs`` under the gold qrels and each other judge set and compare the
    conclusions (module docstring).

    Parameters
    ----------
    gold : path or Qrels
        Judge set A (e.g. NIST's qrels).
    others : paths, directories or ``{name: Qrels}``
        The judge sets B, named after their files.
    runs : paths or Runs
        The systems.
    measures : measures or strings
        One row per measure and judge set B.
    missing : {"base", "unjudged"}
        Documents B did not label on a topic it labelled: A's grade, or unjudged.
    top_k, test, correction, alpha, n_resamples, seed
        As in the module docstring and :func:`irstab.systems.table.compare_systems`.
    n_bootstrap, confidence
        Percentile intervals of the rank correlations over resampled topics
        (:func:`survival_from_scores`).
    client : distributed.Client, optional
        Read and reduce the run files on this Dask cluster's workers
        (:func:`irstab.collection.assessors.assessor_collection`).
    """
    from ..collection.assessors import assessor_collection, assessor_name
    from ..io import read_qrels

    if not hasattr(gold, "frame"):
        gold = read_qrels(gold)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*cell\\(s\\) without a relevant document",
                                category=IRStabWarning)
        ac = assessor_collection(gold, runs, others, missing=missing, include_base=True,
                                 depth=depth, order=order, client=client)
    long = ac.scores(measures)
    return survival_from_scores(long, assessor_name(gold.path), top_k=top_k, test=test,
                                correction=correction, alpha=alpha, n_resamples=n_resamples,
                                seed=seed, missing=getattr(missing, "value", missing),
                                judges=ac.assessors, n_bootstrap=n_bootstrap,
                                confidence=confidence, progress=progress)
