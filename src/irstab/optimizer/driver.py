"""Multi-start driver, global grid check and result assembly; :func:`optimize`.

Starts
------
Every run starts from the presets of Kanoulas & Aslam, CIKM 2009, and from seeded random points:

* discount: ``log2``, ``zipf``, ``linear``, ``flat`` (the gain fixed);
* gain: ``linear``, ``exp``, ``flat`` (every relevant grade equal; the
  discount fixed);
* joint: linear gain with each discount preset, and exp and flat gains with
  log2;
* a given vector that is not a preset (``gain=`` / ``discount=``) is a start too;
* ``starts`` random points from ``numpy.random.default_rng(seed)``, the kinds
  of :data:`~irstab.optimizer.problem.RANDOM_KINDS` in turn: Dirichlet(1) and
  Dirichlet(0.1) over the increment simplex (uniform, and sparse anywhere in
  it) and mixtures of flat-top-j discounts with ``j`` uniform over the ranks
  (:meth:`~irstab.optimizer.problem.Parametrisation.random`). With
  ``presets=False`` only these.

The best final objective wins; :attr:`OptimizationResult.reached_best` counts
the starts that ended there and :attr:`OptimizationResult.spread` how far
apart the starts ended (the objective is not concave: on DL-2019 at k = 1000
two local optima exist, Phi(1) = 0.2628 with an almost flat discount and
0.2303 with a top-heavy one).

Grid check
----------
For at most 5 grades (4 free gains) every gain vector on a regular grid of
the gain simplex (monotone or not, as the problem) is evaluated at once
(vectorised over the grid); when the grid's best beats the local optima, a
local solve starts there too. For joint problems the grid varies the gains
with the discount fixed at the best local optimum (a block check).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from enum import Enum
from itertools import combinations

import numpy as np

from .._numeric import check_seed, negligible, one_blas_thread
from ..collection import Collection
from ..errors import DegenerateDataError, IRStabError, IRStabWarning, MeasureError
from .problem import (
    DISCOUNT_PRESETS,
    GAIN_PRESETS,
    RANDOM_KINDS,
    Objective,
    Problem,
    Scenario,
    Task,
    Vary,
    _sum_by,
    as_enum,
    discount_vector,
    gain_vector,
)
from .result import (
    ConvergenceError,
    GridCheck,
    LocalSolution,
    MeasureStats,
    OptimizationResult,
    ScenarioStats,
    StartRecord,
    Status,
    warn_if_disagree,
)

__all__ = [
    "PRESET_DISCOUNTS",
    "PRESET_GAINS",
    "Backend",
    "optimize",
    "optimize_discount",
    "optimize_gain",
    "optimize_joint",
]

#: Preset measures reported with every result: gain linear/exp x discount log2/zipf/linear/flat.
PRESET_GAINS: tuple[str, ...] = ("linear", "exp")
PRESET_DISCOUNTS: tuple[str, ...] = DISCOUNT_PRESETS

ProgressCallback = Callable[[str, int, int], None]

_GRID_MAX_FREE = 4  # at most 5 grades
_GRID_RESOLUTION = {1: 1, 2: 200, 3: 60, 4: 30}
_GRID_CHUNK = 512


#: The MeasureStats field that holds each objective as the evaluate kernel reports it.
_REPORTED = {
    Objective.phi: "phi1",
    Objective.erho2: "erho2_1",
    Objective.discrimination: "discrimination",
}


class Backend(str, Enum):
    """Optimizer backend."""

    scipy = "scipy"
    cvxpy = "cvxpy"


def _solve_scipy(task, y0, method, max_iter, tol, solver, deadline=None):
    from . import scipy_backend

    return scipy_backend.solve(
        task, y0, method=method or "SLSQP", max_iter=max_iter, tol=tol, deadline=deadline
    )


def _solve_cvxpy(task, y0, method, max_iter, tol, solver, deadline=None):
    from . import cvxpy_backend

    return cvxpy_backend.solve(task, y0, max_iter=max_iter, tol=tol, solver=solver)


_SOLVERS = {Backend.scipy: _solve_scipy, Backend.cvxpy: _solve_cvxpy}


def _method_name(backend: Backend, method: str | None, solver: str | None) -> str:
    if backend is Backend.scipy:
        from .scipy_backend import Method

        return Method(method or "SLSQP").value
    return f"SCP/{solver or 'CLARABEL'}"


def check_options(backend, method, max_iter, tol, starts, seed) -> Backend:
    """Validate the options shared by every entry point; return the Backend."""
    try:
        backend = Backend(backend)
    except ValueError:
        raise IRStabError(f"backend: expected scipy or cvxpy, got {backend!r}") from None
    if method is not None:
        if backend is not Backend.scipy:
            raise IRStabError("method: only the scipy backend takes a method (SLSQP, trust-constr)")
        from .scipy_backend import Method

        try:
            Method(method)
        except ValueError:
            raise IRStabError(f"method: expected SLSQP or trust-constr, got {method!r}") from None
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise IRStabError(f"max_iter: must be a positive integer, got {max_iter!r}")
    if not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise IRStabError(f"tol: must be in (0, 1), got {tol!r}")
    if isinstance(starts, bool) or not isinstance(starts, (int, np.integer)) or starts < 0:
        raise IRStabError(f"starts: must be an integer >= 0 (random starts), got {starts!r}")
    check_seed(seed)
    return backend


# ----------------------------------------------------------------- starts


def _spec_name(spec) -> str | None:
    return spec if isinstance(spec, str) else None


def start_points(
    problem: Problem, gain, discount, n_random: int, seed, presets: bool = True
) -> list[tuple[str, np.ndarray]]:
    """Named feasible starts (presets, a given vector, seeded random points)."""
    param = problem.param
    G, K = param.n_grades, param.cutoff
    out: list[tuple[str, np.ndarray]] = []

    def add(name, g, d):
        try:
            out.append((name, param.variables(g, d)))
        except MeasureError:
            what = "discount" if param.vary is Vary.discount else "gain"
            raise MeasureError(
                f"{what if name == 'given' else 'start ' + name}: breaks the ordering constraints "
                "(gain non-decreasing in the grade, discount non-increasing in the rank); "
                "pass monotone=False (--no-monotone) to optimise without them"
            ) from None

    if not presets:
        pass
    elif param.vary is Vary.discount:
        for name in DISCOUNT_PRESETS:
            add(name, param.gain, discount_vector(name, K))
        if _spec_name(discount) not in DISCOUNT_PRESETS:
            add("given", param.gain, discount_vector(discount, K))
    elif param.vary is Vary.gain:
        for name in GAIN_PRESETS:
            add(name, gain_vector(name, G - 1), param.discount)
        if _spec_name(gain) not in GAIN_PRESETS:
            add("given", gain_vector(gain, G - 1), param.discount)
    else:
        pairs = [("linear", d) for d in DISCOUNT_PRESETS] + [("exp", "log2"), ("flat", "log2")]
        for g_name, d_name in pairs:
            add(f"{g_name}+{d_name}", gain_vector(g_name, G - 1), discount_vector(d_name, K))
        if _spec_name(gain) not in GAIN_PRESETS or _spec_name(discount) not in DISCOUNT_PRESETS:
            add("given", gain_vector(gain, G - 1), discount_vector(discount, K))
    rng = check_seed(seed)
    for i in range(n_random):
        kind = RANDOM_KINDS[i % len(RANDOM_KINDS)]
        out.append((f"random-{i + 1} ({kind})", param.random(rng, kind)))
    return out


def auto_workers(task: Task, n_starts: int) -> int:
    """Processes for the starts: 2 or more only where they pay (:func:`run_starts`).

    A pool costs a fork and a result transfer per start (tens of ms) and only
    helps when a core is idle: so one process unless the problem is large (a
    discount or gain block above 200 coordinates, where one start takes
    seconds), there are at least two starts and two cores, and the 1-minute load
    average leaves a core free. The answer never depends on it: every start is
    solved the same way in either case.
    """
    cores = os.cpu_count() or 1
    if n_starts < 2 or cores < 2 or task.param.n_vars <= 200:
        return 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # not on this platform
        return 1
    free = int(cores - load)
    return max(1, min(free, cores, n_starts))


_POOL_JOB: tuple | None = None  # (solve, task, starts, options), inherited by forked workers


def _pool_solve(i: int) -> LocalSolution:
    solve, task, starts, (method, max_iter, tol, solver, deadline) = _POOL_JOB
    return solve(task, starts[i][1], method, max_iter, tol, solver, deadline)


def run_starts(
    task: Task,
    starts: Sequence[tuple[str, np.ndarray]],
    backend: Backend,
    *,
    method: str | None,
    max_iter: int,
    tol: float,
    solver: str | None = None,
    progress: ProgressCallback | None = None,
    total: int | None = None,
    done: int = 0,
    workers: int | None = 1,
    deadline: float | None = None,
) -> list[tuple[str, LocalSolution]]:
    """Solve from every start (results in the order of ``starts``) with the chosen backend.

    ``workers`` processes (``None``: :func:`auto_workers`) solve the starts in
    parallel, forked from this one so that the problem is shared, not copied;
    where ``fork`` is not available the starts run in this process. After
    ``deadline`` (a ``time.perf_counter()`` value; scipy backend) a running
    solve stops with status ``time_limit`` and, in this process, the starts
    not begun are skipped (the first always runs).
    """
    with one_blas_thread():
        return _run_starts(
            task, starts, backend, method=method, max_iter=max_iter, tol=tol, solver=solver,
            progress=progress, total=total, done=done, workers=workers, deadline=deadline,
        )


def _run_starts(
    task, starts, backend, *, method, max_iter, tol, solver, progress, total, done, workers,
    deadline,
):
    global _POOL_JOB
    solve = _SOLVERS[backend]
    total = total if total is not None else len(starts)
    n = auto_workers(task, len(starts)) if workers is None else int(workers)
    n = min(n, len(starts))
    if n > 1 and "fork" in mp.get_all_start_methods():
        from concurrent.futures import ProcessPoolExecutor

        _POOL_JOB = (solve, task, list(starts), (method, max_iter, tol, solver, deadline))
        try:
            with ProcessPoolExecutor(n, mp_context=mp.get_context("fork")) as pool:
                sols = []
                for i, sol in enumerate(pool.map(_pool_solve, range(len(starts)))):
                    sols.append(sol)
                    if progress is not None:
                        progress(starts[i][0], done + i + 1, total)
        finally:
            _POOL_JOB = None
        return [(name, sol) for (name, _), sol in zip(starts, sols)]
    out = []
    for i, (name, y0) in enumerate(starts):  # one local solve per start
        if out and deadline is not None and time.perf_counter() > deadline:
            break
        sol = solve(task, y0, method, max_iter, tol, solver, deadline)
        out.append((name, sol))
        if progress is not None:
            progress(name, done + i + 1, total)
    return out


# ----------------------------------------------------------------- grid


def _compositions(m: int, resolution: int) -> np.ndarray:
    """All points of the simplex in R^m with coordinates in multiples of 1/resolution."""
    if m == 1:
        return np.ones((1, 1))
    bars = np.array(list(combinations(range(resolution + m - 1), m - 1)))
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), resolution + m - 1)])
    return (np.diff(edges, axis=1) - 1) / resolution


def grid_values(problem: Problem, discount: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Merit (smallest objective over scenarios) of every gain grid point ``ys`` (rows).

    Vectorised: for fixed ``discount`` the DCG of every cell is ``C @ g`` and
    the ideal DCG ``E(order) @ g`` for the grade order of ``g``.
    """
    param = problem.param
    m = param.n_grades - 1
    gains = np.stack(
        [np.r_[0.0, np.cumsum(y / param._a_gain)] if param.monotone else np.r_[0.0, y] for y in ys]
    ) if len(ys) else np.zeros((0, m + 1))
    G = m + 1
    merit = np.full(len(ys), np.inf)
    for s in problem.scenarios:  # a handful of scenarios
        d = discount[: s.cutoff]
        S, T = s.n_systems, s.n_topics
        c = _sum_by(s._cell * G + s._grade, d[s._rank], S * T * G).reshape(S, T, G)
        # group grid points by the grade order of their gains (at most m! groups)
        orders = np.argsort(-gains, axis=1, kind="stable")
        keys, inverse = np.unique(orders, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        values = np.empty(len(gains))
        cum = np.r_[0.0, np.cumsum(d)]
        for key_idx in range(len(keys)):  # one pass per grade order
            sel = np.flatnonzero(inverse == key_idx)
            start, end = s._blocks_for_order(keys[key_idx])
            e = cum[end] - cum[start]  # (T, G): discount mass of each grade's ideal block
            for lo in range(0, len(sel), _GRID_CHUNK):  # memory: chunks of grid points
                idx = sel[lo : lo + _GRID_CHUNK]
                g = gains[idx]
                num = np.einsum("stj,pj->pst", c, g)
                den = g @ e.T  # (P, T)
                ok = den > 0
                x = np.divide(num, den[:, None, :], out=np.zeros_like(num), where=ok[:, None, :])
                values[idx] = s.stability_batch(x)
        merit = np.minimum(merit, values)
    return merit


def grid_check(problem: Problem, discount: np.ndarray) -> tuple[GridCheck, np.ndarray] | None:
    """Best gain on the grid (None when the gains do not vary or there are > 5 grades)."""
    param = problem.param
    m = param.n_grades - 1
    if not param.varies_gain or m > _GRID_MAX_FREE:
        return None
    resolution = _GRID_RESOLUTION[m]
    ys = _compositions(m, resolution)
    values = grid_values(problem, discount, ys)
    i = int(np.argmax(values))
    g = np.r_[0.0, np.cumsum(ys[i] / param._a_gain)] if param.monotone else np.r_[0.0, ys[i]]
    check = GridCheck(
        points=len(ys),
        resolution=resolution,
        best=float(values[i]),
        gain=tuple(float(v) for v in g),
        improved=False,
    )
    y = param.variables(g, discount, check=False)
    return check, y


# ----------------------------------------------------------------- figures


def _figures(scores: np.ndarray, measure: str, gain, discount) -> MeasureStats:
    from ..stability import gstudy
    from .discrimination import discrimination_batch

    if np.ptp(scores) == 0:
        warnings.warn(
            f"{measure}: every system scores {scores.flat[0]:g} on every topic; the systems do "
            "not differ, so its Phi and Erho2 are 0",
            IRStabWarning,
            stacklevel=3,
        )
        return MeasureStats(measure, gain, discount, 0.0, 0.0, 0.0, float("inf"), 0.0)
    try:
        g = gstudy(scores, name=measure)
    except DegenerateDataError as exc:
        warnings.warn(f"{measure}: {exc}; its figures are NaN", IRStabWarning, stacklevel=3)
        nan = float("nan")
        return MeasureStats(measure, gain, discount, nan, nan, nan, nan, nan)
    return MeasureStats(
        measure=measure,
        gain=gain,
        discount=discount,
        phi1=g.phi(1),
        phi=g.phi(),
        erho2=g.erho2(),
        topics_needed=g.topics_needed(0.95).n,
        erho2_1=g.erho2(1),
        discrimination=float(discrimination_batch(scores)),
    )


def _kendall(a: np.ndarray, b: np.ndarray) -> float:
    from ..compare.correlation import _kendall_matrix  # tau-b without importing scipy.stats

    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(_kendall_matrix(np.stack([a, b]))[0, 1])


def preset_measures(cutoff: int) -> list[tuple[str, str, str]]:
    """``(canonical string, gain name, discount name)`` of the 8 presets at ``cutoff``."""
    from ..metrics import Discount, Gain, nDCG

    out = []
    for g in PRESET_GAINS:
        for d in PRESET_DISCOUNTS:
            m = nDCG(gain=Gain.of(g), discount=Discount.of(d), cutoff=cutoff)
            out.append((m.canonical(), g, d))
    return out


def _ndcg_matrix(scenario: Scenario, measure) -> np.ndarray:
    """The nDCG@k matrix of ``measure`` on the scenario's topics: from the evaluate kernel
    on a Collection; from the linear forms (the same vectors, scaled to maximum 1 as the
    kernel scales them) on LinearForms, which hold no grade tensor."""
    coll = scenario.collection
    if isinstance(coll, Collection):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)  # IDCG = 0: reported by the figures
            return measure.compute(coll)[:, list(scenario.topics)]
    from ..metrics.dcg import unit_max

    k = scenario.cutoff
    gain = unit_max(measure.gain.vector(coll.max_grade))
    discount = unit_max(measure.discount.vector(k, measure.cutoff))
    return scenario.ndcg(gain, discount)


def scenario_stats(scenario: Scenario, gain: np.ndarray, discount: np.ndarray) -> ScenarioStats:
    """Figures of the optimum and the presets on one scenario, from the evaluate kernel."""
    from ..metrics import Discount, Gain, nDCG, parse_measure

    k = scenario.cutoff
    d = discount[:k] / discount[:k].sum()
    g = gain / gain[1:].sum()
    measure = nDCG(gain=Gain.of(tuple(g)), discount=Discount.of(tuple(d)), cutoff=k)
    x_opt = _ndcg_matrix(scenario, measure)
    top = float(x_opt.max(initial=0.0))
    if top > 1 + 1e-9:  # only possible without the ordering constraint
        warnings.warn(
            f"{scenario.name}: nDCG reaches {top:.3g} > 1 at the optimum. Without the ordering "
            "constraint the ideal ranking (documents by grade) is no longer the best ranking, "
            "and the optimum gains stability by weighting ranks where the ideal list is empty "
            "or weak; treat its Phi with care (keep the ordering constraint or lower the cutoff)",
            IRStabWarning,
            stacklevel=3,
        )
    opt = _figures(x_opt, measure.canonical(), tuple(float(v) for v in g), tuple(float(v) for v in d))
    presets, taus = [], []
    for text, g_name, d_name in preset_measures(k):
        x = _ndcg_matrix(scenario, parse_measure(text))
        presets.append(_figures(x, text, g_name, d_name))
        taus.append((text, _kendall(x_opt.mean(axis=1), x.mean(axis=1))))
    return ScenarioStats(
        name=scenario.name,
        cutoff=k,
        n_systems=scenario.n_systems,
        n_topics=scenario.n_topics,
        optimum=opt,
        presets=tuple(presets),
        kendall_tau=tuple(taus),
    )


def _kernel_objective(scenario: Scenario, stats: ScenarioStats, g, d, objective) -> float:
    """The scenario's objective at the optimum, from the nDCG kernel of ``evaluate``."""
    if scenario.design is None:
        return getattr(stats.optimum, _REPORTED[objective])
    from ..metrics import Discount, Gain, nDCG

    k = scenario.cutoff
    measure = nDCG(gain=Gain.of(tuple(g)), discount=Discount.of(tuple(d[:k] / d[:k].sum())),
                   cutoff=k)
    return float(scenario.design.values(_ndcg_matrix(scenario, measure)))


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
        _kernel_objective(s, st, g, d, objective) for s, st in zip(problem.scenarios, stats)
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
        method=_method_name(backend, method, solver),
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
    do_grid = grid and problem.param.varies_gain and problem.param.n_grades - 1 <= _GRID_MAX_FREE
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
