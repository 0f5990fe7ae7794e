r"""Minimax: one gain and one discount that maximise the worst stability over scenarios.

Kanoulas & Aslam, CIKM 2009 (§3.3) used MATLAB's ``minimax`` to find "the discount and gain
functions that maximize the worst case value of nDCG stability". Here the
scenarios are explicit: several collections, several cutoffs of one
collection, or several topic subsets, all sharing one gain vector and one
discount vector. The discount is defined on the largest cutoff ``K`` and a
scenario at cutoff ``k`` uses its first ``k`` weights (nDCG is scale-free, so
the truncated vector need not be renormalised). The problem

.. math::

    \max_{g, d} \min_i \Phi_i(g, d)

is solved in epigraph form, :math:`\max t` subject to :math:`\Phi_i \ge t`,
by both backends (SLSQP with the constraints and their analytic Jacobians;
SCP with every :math:`\Phi_i` linearised).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._numeric import check_seed
from ..collection import Collection
from ..errors import IRStabError
from .driver import solve_problem
from .starts import Backend, ProgressCallback, check_options
from .objectives import Objective, Vary
from .problem import Problem
from .scenario import Scenario
from .result import OptimizationResult

__all__ = ["minimax", "scenarios_by_cutoff", "scenarios_by_topic_split"]


def scenarios_by_cutoff(
    collection: Collection, cutoffs: Sequence[int], objective: Objective | str = Objective.phi
) -> list[Scenario]:
    """One scenario per cutoff of one collection (named ``@k``)."""
    cutoffs = list(cutoffs)
    if len(set(cutoffs)) != len(cutoffs) or not cutoffs:
        raise IRStabError(f"cutoffs: give distinct cutoffs, got {cutoffs}")
    return [Scenario(collection, k, objective=objective) for k in cutoffs]


def scenarios_by_topic_split(
    collection: Collection,
    cutoff: int,
    n_splits: int = 2,
    seed: int | np.random.Generator | None = 0,
    objective: Objective | str = Objective.phi,
) -> list[Scenario]:
    """The topics split at random into ``n_splits`` disjoint, near-equal subsets.

    Each subset needs at least 2 topics. Named ``topics 1/2`` etc.
    """
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
        raise IRStabError(f"n_splits: must be an integer >= 2, got {n_splits!r}")
    if collection.n_topics < 2 * n_splits:
        raise IRStabError(
            f"n_splits: {n_splits} subsets of at least 2 topics need {2 * n_splits} topics, "
            f"the collection has {collection.n_topics}"
        )
    rng = check_seed(seed)
    perm = rng.permutation(collection.n_topics)
    parts = np.array_split(perm, n_splits)
    return [
        Scenario(collection, cutoff, topics=tuple(sorted(int(t) for t in p)), objective=objective,
                 name=f"topics {i + 1}/{n_splits}")
        for i, p in enumerate(parts)
    ]


def minimax(
    scenarios: Sequence[Scenario],
    *,
    vary: Vary | str = Vary.joint,
    gain="linear",
    discount="log2",
    monotone: bool = True,
    backend: Backend | str = Backend.scipy,
    method: str | None = None,
    starts: int = 4,
    seed: int | np.random.Generator | None = 0,
    max_iter: int = 1000,
    tol: float = 1e-4,
    grid: bool = True,
    strict: bool = True,
    solver: str | None = None,
    progress: ProgressCallback | None = None,
) -> OptimizationResult:
    r"""Maximise :math:`\min_i \Phi_i` over scenarios sharing one gain and one discount.

    Parameters
    ----------
    scenarios : sequence of Scenario
        At least two; same grade scale; same objective.
    vary : {"joint", "discount", "gain"}
        Default joint (Kanoulas & Aslam, CIKM 2009's multi-objective optimisation).
    gain, discount, monotone, backend, method, starts, seed, max_iter, tol, grid,
    strict, solver, progress
        As in :func:`irstab.optimizer.optimize`.

    Returns
    -------
    OptimizationResult
        ``value`` is the worst scenario's objective; ``scenarios`` has each
        scenario's figures; the top-level figures are the largest cutoff's.

    Examples
    --------
    >>> from irstab.simulate import simulate_collection
    >>> from irstab.evaluation import as_collection
    >>> sim = simulate_collection(n_systems=8, n_topics=10, depth=20, seed=5)
    >>> coll = as_collection(sim.qrels, sim.runs, depth=20)
    >>> res = minimax(scenarios_by_cutoff(coll, [3, 6]), vary="discount", starts=0)
    >>> abs(res.value - min(s.optimum.phi1 for s in res.scenarios)) < 1e-9
    True
    """
    backend = check_options(backend, method, max_iter, tol, starts, seed)
    scenarios = tuple(scenarios)
    if len(scenarios) < 2:
        raise IRStabError(f"scenarios: minimax needs at least 2, got {len(scenarios)}")
    objectives = {s.objective for s in scenarios}
    if len(objectives) != 1:
        raise IRStabError("scenarios: all must maximise the same objective (phi or erho2)")
    objective = objectives.pop()
    problem = Problem.build(scenarios, vary=vary, monotone=monotone, gain=gain, discount=discount)
    return solve_problem(
        problem, gain=gain, discount=discount, backend=backend, method=method, starts=starts,
        seed=seed, max_iter=max_iter, tol=tol, grid=grid, strict=strict, solver=solver,
        objective=objective, progress=progress,
    )
