"""The multi-start search of one problem, assembled into a result; :func:`optimize`.

Every local solve starts from the presets and from seeded random points
(:mod:`.starts`); for few grades a grid over the gains checks the local optima
(:mod:`.grid`); the best final objective wins, and the result carries the
figures of the optimum and of the presets from the evaluate kernel
(:mod:`.stats`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .._numeric import negligible
from ..collection import Collection
from ..errors import IRStabError, IRStabWarning
from .objectives import Objective, Vary, as_enum
from .problem import Problem
from .result import (
    ConvergenceError,
    GridCheck,
    LocalSolution,
    OptimizationResult,
    StartRecord,
    Status,
    warn_if_disagree,
)
from .scenario import Scenario
from .task import Task
from .grid import GRID_MAX_FREE, grid_check
from .starts import Backend, ProgressCallback, check_options, method_name, run_starts, start_points
from .stats import kernel_objective, scenario_stats

__all__ = [
    "Backend",
    "optimize",
    "optimize_discount",
    "optimize_gain",
    "optimize_joint",
    "solve_problem",
]


def assemble(
    problem: Problem,
    solutions: Sequence[tuple[str, LocalSolution]],
    *,
    grid: GridCheck | None,
    backend: Backend,
    method: str | None,
    solver: str | None,
    seconds: float,
    strict: bool,
    objective: Objective,
    time_limit: float | None = None,
    skipped: int = 0,
) -> OptimizationResult:
    """The result of the best start; raise or warn when it did not converge.

    A run stopped by its time limit is never an error: it warns and returns the
    best point found, with status ``time_limit``.
    """
    name, best = max(solutions, key=lambda p: p[1].value)
    g, d = problem.param.vectors(best.y)
    g = g / g[1:].sum()
    d = d / d.sum()
    stats = tuple(scenario_stats(s, g, d) for s in problem.scenarios)
    # the optimizer's objective must be what the kernel reports
    reported = min(
        kernel_objective(s, st, g, d, objective) for s, st in zip(problem.scenarios, stats)
    )
    warn_if_disagree(best.value, reported, "optimum")
    records = tuple(
        StartRecord(
            start=n,
            initial=s.initial,
            final=s.value,
            iterations=s.iterations,
            status=s.status,
            message=s.message,
            seconds=s.seconds,
            gap=s.gap,
        )
        for n, s in solutions
    )
    result = OptimizationResult(
        vary=problem.param.vary.value,
        objective=objective.value,
        monotone=problem.param.monotone,
        cutoff=problem.param.cutoff,
        gain=tuple(float(v) for v in g),
        discount=tuple(float(v) for v in d),
        value=float(best.value),
        scenarios=stats,
        starts=records,
        grid=grid,
        iterations=best.iterations,
        seconds=seconds,
        backend=backend.value,
        method=method_name(backend, method, solver),
        status=best.status,
        message=f"best start {name}: {best.message}",
    )
    if negligible(best.value, 1.0):  # Phi = sigma2_sys / total: sigma2_sys is 0
        warnings.warn(
            f"every start ends at {objective.value} = 0 (no system variance left): the gradient "
            "vanishes there, so 'optimal' only means no direction improves it locally; "
            "the systems may not differ on these topics",
            IRStabWarning,
            stacklevel=3,
        )
    stopped = any(s.status is Status.time_limit for _, s in solutions) or skipped
    if stopped:
        proven = best.status is Status.optimal
        warnings.warn(
            f"time limit of {time_limit:g} s reached: {len(solutions)} start(s) run"
            + (f", {skipped} skipped" if skipped else "")
            + f"; the best point found has {objective.value} = {best.value:.6f}"
            + ("" if proven else " but is not proven optimal (status time_limit)")
            + "; raise --time-limit to search further",
            IRStabWarning,
            stacklevel=3,
        )
        if not proven:
            return replace(result, status=Status.time_limit)
    if best.status is not Status.optimal:
        text = (
            f"optimizer did not converge (status {best.status.value}): {best.message}; "
            "raise max_iter (--max-iter) or loosen tol (--tol)"
        )
        if strict:
            raise ConvergenceError(text, best.status, result)
        warnings.warn(text, IRStabWarning, stacklevel=3)
    return result


def solve_problem(
    problem: Problem,
    *,
    gain,
    discount,
    backend: Backend,
    method: str | None,
    starts: int,
    seed,
    max_iter: int,
    tol: float,
    grid: bool,
    strict: bool,
    solver: str | None,
    objective: Objective,
    progress: ProgressCallback | None,
    preset_starts: bool = True,
    workers: int | None = 1,
    time_limit: float | None = None,
) -> OptimizationResult:
    """Multi-start solve of a (single or minimax) problem, grid check, result."""
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    task = Task(problem)
    if not preset_starts and starts < 1:
        raise IRStabError("starts: without the preset starts give at least one random start")
    points = start_points(problem, gain, discount, starts, seed, presets=preset_starts)
    do_grid = grid and problem.param.varies_gain and problem.param.n_grades - 1 <= GRID_MAX_FREE
    total = len(points) + (1 if do_grid else 0)
    sols = run_starts(
        task, points, backend, method=method, max_iter=max_iter, tol=tol, solver=solver,
        progress=progress, total=total, workers=workers, deadline=deadline,
    )
    skipped = len(points) - len(sols)
    check = None
    if do_grid:
        _, y_best = max(sols, key=lambda p: p[1].value)
        best = y_best.value
        found = grid_check(problem, problem.param.vectors(y_best.y)[1])
        if found is not None:
            check, y_grid = found
            improved = False
            if check.best > best + 1e-9:
                (extra,) = run_starts(
                    task, [("grid", y_grid)], backend, method=method, max_iter=max_iter,
                    tol=tol, solver=solver,
                )
                sols.append(extra)
                improved = extra[1].value > best + 1e-9
            check = GridCheck(check.points, check.resolution, check.best, check.gain, improved)
        if progress is not None:
            progress("grid", total, total)
    return assemble(
        problem, sols, grid=check, backend=backend, method=method, solver=solver,
        seconds=time.perf_counter() - t0, strict=strict, objective=objective,
        time_limit=time_limit, skipped=skipped,
    )


# ----------------------------------------------------------------- entry points


def optimize(
    collection: Collection,
    cutoff: int,
    *,
    vary: Vary | str = Vary.discount,
    gain="linear",
    discount="log2",
    objective: Objective | str = Objective.phi,
    monotone: bool = True,
    backend: Backend | str = Backend.scipy,
    method: str | None = None,
    starts: int = 4,
    seed: int | np.random.Generator | None = 0,
    max_iter: int = 1000,
    tol: float = 1e-4,
    grid: bool = True,
    topics: Sequence[int] | None = None,
    strict: bool = True,
    solver: str | None = None,
    progress: ProgressCallback | None = None,
    preset_starts: bool = True,
    design=None,
    workers: int | None = None,
    time_limit: float | None = None,
) -> OptimizationResult:
    r"""The stability-optimal gain and/or discount of nDCG@k (Kanoulas & Aslam, CIKM 2009, §2.2).

    Maximises Phi (or Erho2) at one topic of the systems x topics nDCG@k
    matrix over the discount (gain fixed), the gain (discount fixed) or both,
    with each vector normalised to sum 1, ``g_0 = 0``, and, with ``monotone``,
    a non-increasing discount and non-decreasing gain (Kanoulas & Aslam, CIKM 2009, Fig. 1;
    without: Fig. 3).

    Parameters
    ----------
    collection : irstab.Collection
    cutoff : int
        ``k``, at most the collection's depth.
    vary : {"discount", "gain", "joint"}
    gain, discount : str, tuple or Gain/Discount
        The fixed vector of the block that does not vary (``linear`` gain,
        ``log2`` discount by default, as in Kanoulas & Aslam, CIKM 2009); a vector that is not a
        preset is also used as a start.
    objective : {"phi", "erho2"}
    monotone : bool
    backend : {"scipy", "cvxpy"}
    method : {"SLSQP", "trust-constr"}, optional
        SciPy method (default SLSQP).
    starts : int
        Seeded random starts besides the presets (Dirichlet(1), Dirichlet(0.1)
        and flat-top-j mixtures in turn; module docstring).
    seed : int or numpy.random.Generator
    max_iter : int
        Iteration limit of each local solve.
    tol : float
        Frank-Wolfe gap below which a start counts as converged.
    grid : bool
        Global grid check of the gains (at most 5 grades).
    topics : sequence of int, optional
        Topic indices to use (default all).
    strict : bool
        Raise :class:`~irstab.optimizer.ConvergenceError` when the best
        start did not converge (else warn and return it with its status).
    solver : str, optional
        CVXPY solver of the cvxpy backend.
    progress : callable, optional
        ``progress(start_name, done, total)`` after every start.
    preset_starts : bool
        Start from the presets (and a given vector) too; ``False``: random
        starts only.
    design : optional
        Maximise the coefficient of another design instead, e.g. an
        :class:`irstab.stability.objective.FacetObjective` over a collection
        whose topics are (topic, assessor) cells
        (:func:`irstab.optimizer.optimize_assessors`); ``objective`` and
        ``topics`` are then the design's.
    workers : int, optional
        Processes that solve the starts in parallel; ``None`` (default)
        decides by the problem's size and the idle cores
        (:func:`auto_workers`); 1: in this process.
    time_limit : float, optional
        Seconds for the whole multi-start (scipy backend): then the running
        solve stops, further starts are skipped, and the best point found is
        returned with status ``time_limit`` and a warning (never an error).

    Returns
    -------
    OptimizationResult

    Raises
    ------
    irstab.errors.IRStabError
        A cutoff beyond the depth, fewer than 2 systems or topics, a gain
        vector of the wrong length, bad options (the message names the
        parameter); :class:`~irstab.optimizer.ConvergenceError` as above.

    Examples
    --------
    >>> from irstab.simulate import simulate_collection
    >>> from irstab.evaluation import as_collection
    >>> sim = simulate_collection(n_systems=8, n_topics=10, depth=20, seed=5)
    >>> coll = as_collection(sim.qrels, sim.runs, depth=20)
    >>> res = optimize(coll, 5, starts=1)
    >>> res.status.value, len(res.discount), round(sum(res.discount), 12)
    ('optimal', 5, 1.0)
    >>> res.phi1 >= max(p.phi1 for p in res.presets if p.gain == "linear") - 1e-9
    True
    >>> str(res).startswith("nDCG(gain=(0,")
    True

    References
    ----------
    E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
    discount function for nDCG. CIKM 2009.
    """
    backend = check_options(backend, method, max_iter, tol, starts, seed)
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1
    ):
        raise IRStabError(f"workers: must be a positive integer or None (automatic), got {workers!r}")
    if time_limit is not None and not (
        isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool) and time_limit > 0
    ):
        raise IRStabError(f"time_limit: must be a positive number of seconds, got {time_limit!r}")
    objective = as_enum(Objective, objective, "objective")
    scenario = Scenario(collection, cutoff, topics=topics, objective=objective, design=design)
    problem = Problem.build([scenario], vary=vary, monotone=monotone, gain=gain, discount=discount)
    return solve_problem(
        problem, gain=gain, discount=discount, backend=backend, method=method, starts=starts,
        seed=seed, max_iter=max_iter, tol=tol, grid=grid, strict=strict, solver=solver,
        objective=objective, progress=progress, preset_starts=preset_starts, workers=workers,
        time_limit=time_limit,
    )


def optimize_discount(collection: Collection, cutoff: int, **kwargs) -> OptimizationResult:
    """:func:`optimize` with ``vary="discount"`` (gain fixed, linear by default)."""
    return optimize(collection, cutoff, vary=Vary.discount, **kwargs)


def optimize_gain(collection: Collection, cutoff: int, **kwargs) -> OptimizationResult:
    """:func:`optimize` with ``vary="gain"`` (discount fixed, log2 by default)."""
    return optimize(collection, cutoff, vary=Vary.gain, **kwargs)


def optimize_joint(collection: Collection, cutoff: int, **kwargs) -> OptimizationResult:
    """:func:`optimize` with ``vary="joint"`` (gain and discount together)."""
    return optimize(collection, cutoff, vary=Vary.joint, **kwargs)
