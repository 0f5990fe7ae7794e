r"""Optimised configurations judged on topics they were not fitted to: cross-fitting over topics.

A configuration found by maximising Phi on some topics looks better on those topics than it
is: its in-sample difference to the baseline carries the search's optimism (on TREC DL
2019 an optimum that gains +0.006 in sample loses 0.012 on held-out halves;
``benchmarks/bench_crossfit.py``). :func:`cross_fit` gives the honest figure: the topics are
split into :math:`K` folds (seeded); for each fold the same problem is solved on the other
folds' topics (warm-started at the optimum of all topics, one local solve), and the held-out
fold is scored with the configuration found there. The cross-fitted matrix has, for every
topic, the scores of a configuration that never saw it; its Phi difference to the baseline
and the interval of that difference come from held-out scores only
(:func:`irstab.verdict.paired_comparison` on the cross-fitted matrix). The user still gets
the configuration optimised on all topics; the cross-fitted figure estimates its advantage
(slightly conservatively: each fold's optimum saw :math:`(K-1)/K` of the topics).

Cross-fitting is Chernozhukov et al.'s device for estimates that follow a fitted nuisance
(Econometrics Journal 21, 2018); here the nuisance is the configuration itself.

References
----------
Chernozhukov, V., Chetverikov, D., Demirer, M., Duflo, E., Hansen, C., Newey, W.,
Robins, J. (2018). Double/debiased machine learning for treatment and structural
parameters. The Econometrics Journal 21(1), C1-C68.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._numeric import check_seed
from ..errors import IRStabError
from .problem import Problem
from .scenario import Scenario
from .starts import Backend, run_starts
from .task import Task

__all__ = ["CrossFit", "cross_fit", "cross_fitted_measures", "topic_folds", "DEFAULT_FOLDS"]

#: Folds of topics when none are asked for.
DEFAULT_FOLDS = 5


@dataclass(frozen=True, eq=False)
class CrossFit:
    """The held-out scores of one optimised configuration (module docstring).

    Attributes
    ----------
    kind : str
        ``discount``, ``gain``, ``joint`` or ``minimax``.
    cutoff : int
        The cutoff the scores are nDCG at.
    scores : ndarray
        ``(systems, topics)``: every topic scored by the configuration optimised without its
        fold.
    folds : ndarray
        ``(topics,)`` the fold of every topic.
    gains, discounts : tuple of ndarray
        Each fold's configuration (the discount cut at ``cutoff``).
    """

    kind: str
    cutoff: int
    scores: np.ndarray
    folds: np.ndarray
    gains: tuple
    discounts: tuple

    @property
    def n_folds(self) -> int:
        return len(self.gains)


def topic_folds(n_topics: int, n_folds: int = DEFAULT_FOLDS, seed=0) -> np.ndarray:
    """``(n_topics,)`` fold indices: a seeded permutation cut into near-equal folds.

    Each training set (the other folds) keeps at least 2 topics.

    Examples
    --------
    >>> topic_folds(7, 3, seed=1).tolist()
    [0, 0, 1, 2, 1, 0, 2]
    """
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise IRStabError(f"folds: expected an integer >= 2, got {n_folds!r}")
    if n_topics - -(-n_topics // n_folds) < 2:
        raise IRStabError(
            f"folds: {n_folds} folds of {n_topics} topics leave fewer than 2 topics to "
            "optimise on; use fewer folds"
        )
    folds = np.empty(n_topics, dtype=np.int64)
    perm = check_seed(seed).permutation(n_topics)
    for k, part in enumerate(np.array_split(perm, n_folds)):
        folds[part] = k
    return folds


def cross_fit(
    collection,
    kind: str,
    cutoffs: Sequence[int],
    optimum,
    *,
    folds: int = DEFAULT_FOLDS,
    seed=0,
    topics: Sequence[int] | None = None,
    max_iter: int = 1000,
    tol: float = 1e-4,
) -> dict[int, CrossFit]:
    """Cross-fitted scores of ``optimum`` (an :class:`~irstab.optimizer.OptimizationResult`).

    Parameters
    ----------
    collection : irstab.Collection
    kind : {"discount", "gain", "joint", "minimax"}
        The problem ``optimum`` solved: one cutoff, or ``minimax`` over ``cutoffs``.
    cutoffs : sequence of int
        The problem's cutoff (one), or the minimax's cutoffs.
    optimum : OptimizationResult
        The optimum on all topics: each fold starts from it (and keeps its fixed block).
    folds : int
        Folds of topics (:func:`topic_folds`).
    seed : int or numpy.random.Generator
        Seed of the folds.
    topics : sequence of int, optional
        Cross-fit within these topics only (indices; default all): the folds split
        them, and ``scores`` has their columns, in this order.
    max_iter, tol
        Of each fold's local solve (scipy backend).

    Returns
    -------
    dict
        ``{cutoff: CrossFit}``: one entry, or one per cutoff for ``minimax``.

    Examples
    --------
    >>> import irstab
    >>> from irstab.optimizer import optimize
    >>> sim = irstab.simulate.simulate_collection(n_systems=8, n_topics=12, depth=20, seed=5)
    >>> coll = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
    >>> res = optimize(coll, 5, vary="joint", starts=0)
    >>> cf = cross_fit(coll, "joint", (5,), res, folds=3)[5]
    >>> cf.scores.shape, cf.n_folds, sorted(set(cf.folds.tolist()))
    ((8, 12), 3, [0, 1, 2])
    """
    ks = tuple(int(k) for k in cutoffs)
    vary = "joint" if kind == "minimax" else kind
    if kind not in ("discount", "gain", "joint", "minimax") or (kind != "minimax"
                                                                and len(ks) != 1):
        raise IRStabError(f"kind: expected discount, gain or joint with one cutoff, or minimax, "
                          f"got {kind!r} with cutoffs {list(ks)}")
    pool = (np.arange(collection.n_topics) if topics is None
            else np.asarray(topics, dtype=np.int64).reshape(-1))
    fold_of = topic_folds(len(pool), folds, seed)
    whole = {k: Scenario(collection, k, topics=tuple(int(t) for t in pool)) for k in ks}
    gain0, disc0 = np.asarray(optimum.gain, float), np.asarray(optimum.discount, float)
    out = {k: np.empty((collection.n_systems, len(pool))) for k in ks}
    gains, discounts = [], []
    for f in range(int(fold_of.max()) + 1):
        train = tuple(int(t) for t in pool[fold_of != f])
        test = np.flatnonzero(fold_of == f)
        problem = Problem.build([Scenario(collection, k, topics=train) for k in ks], vary=vary,
                                monotone=optimum.monotone, gain=gain0, discount=disc0)
        y0 = problem.param.variables(gain0, disc0, check=False)
        ((_, sol),) = run_starts(Task(problem), [("warm", y0)], Backend.scipy, method=None,
                                 max_iter=max_iter, tol=tol, workers=1)
        g, d = problem.param.vectors(sol.y)
        gains.append(np.asarray(g, float))
        discounts.append(np.asarray(d, float))
        for k in ks:
            out[k][:, test] = whole[k].ndcg(g, d[:k])[:, test]
    return {k: CrossFit(kind, k, out[k], fold_of, tuple(gains),
                        tuple(dd[:k] for dd in discounts)) for k in ks}


def cross_fitted_measures(collection, optima, minimax_result=None, cutoffs=(), *,
                          folds: int = DEFAULT_FOLDS, seed=0, tol: float = 1e-4) -> dict:
    """``{measure string: CrossFit}`` of every optimum of a study.

    ``optima`` is ``[(kind, cutoff, OptimizationResult), ...]`` (single problems);
    ``minimax_result`` the minimax over ``cutoffs`` (or None): its configuration at each
    cutoff is cross-fitted from one minimax solve per fold. The keys are the measure
    strings the study scores the optima under (the minimax one per cutoff).
    """
    out = {}
    for kind, k, res in optima:
        out.setdefault(res.measure_string,
                       cross_fit(collection, kind, (k,), res, folds=folds, seed=seed,
                                 tol=tol)[k])
    if minimax_result is not None:
        fits = cross_fit(collection, "minimax", cutoffs, minimax_result, folds=folds,
                         seed=seed, tol=tol)
        for sc in minimax_result.scenarios:
            out.setdefault(str(sc.optimum.measure), fits[sc.cutoff])
    return out
