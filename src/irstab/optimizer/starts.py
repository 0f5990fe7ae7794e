"""Starts of the multi-start search and the backends that solve from each.

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
  of :data:`~irstab.optimizer.parametrisation.RANDOM_KINDS` in turn: Dirichlet(1) and
  Dirichlet(0.1) over the increment simplex (uniform, and sparse anywhere in
  it) and mixtures of flat-top-j discounts with ``j`` uniform over the ranks
  (:meth:`~irstab.optimizer.parametrisation.Parametrisation.random`). With
  ``presets=False`` only these.

The best final objective wins; :attr:`OptimizationResult.reached_best` counts
the starts that ended there and :attr:`OptimizationResult.spread` how far
apart the starts ended (the objective is not concave: on DL-2019 at k = 1000
two local optima exist, Phi(1) = 0.2628 with an almost flat discount and
0.2303 with a top-heavy one).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from enum import Enum

import numpy as np

from .._numeric import check_allocation, check_seed
from .._workers import one_blas_thread, process_pool, start_method
from ..errors import IRStabError, MeasureError
from .objectives import Vary
from .parametrisation import DISCOUNT_PRESETS, GAIN_PRESETS, RANDOM_KINDS
from .problem import Problem
from .result import (
    LocalSolution,
)
from .scenario import discount_vector, gain_vector
from .task import Task

__all__ = ["Backend", "ProgressCallback", "check_options", "start_points", "auto_workers",
           "idle_cores", "run_starts", "method_name"]

ProgressCallback = Callable[[str, int, int], None]


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


def method_name(backend: Backend, method: str | None, solver: str | None) -> str:
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
    # each start keeps its point, its solution and its record: ~4 vectors of the variables
    check_allocation(32.0 * n_random * (G + K), f"starts: {n_random} random starts of "
                     f"{G + K} variables")
    for i in range(n_random):
        kind = RANDOM_KINDS[i % len(RANDOM_KINDS)]
        out.append((f"random-{i + 1} ({kind})", param.random(rng, kind)))
    return out


#: Entries of the linear forms (relevant retrieved documents within the cutoffs) from which
#: the starts are solved in parallel processes (:func:`auto_workers`).
LARGE_ENTRIES = 1_000_000


#: Seconds over which :func:`idle_cores` samples the machine's idle time.
IDLE_SAMPLE = 0.2


def idle_cores(seconds: float = IDLE_SAMPLE, windows: int = 1) -> float | None:
    """Cores idle over the next ``seconds`` (Linux's ``/proc/stat``; None where it is missing).

    Idle and I/O-wait time over all time of the machine's cores, times their count.
    This process sleeps meanwhile, so its own core counts as idle. With ``windows`` > 1,
    the most idle of that many consecutive windows, stopping at the first with every core
    idle: the kernel's freeing of a pool that just ended (this command's own reading of
    the runs) keeps half a core busy for a few tenths of a second, which one window takes
    for a busy core.
    """
    def sample() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as f:
            ticks = [int(v) for v in f.readline().split()[1:9]]  # user .. steal
        return ticks[3] + ticks[4], sum(ticks)

    cores = os.cpu_count() or 1
    best = None
    try:
        idle0, total0 = sample()
        for _ in range(max(1, windows)):
            time.sleep(seconds)
            idle1, total1 = sample()
            if total1 > total0:
                now = cores * (idle1 - idle0) / (total1 - total0)
                best = now if best is None else max(best, now)
                if best >= cores - 0.5:
                    break
            idle0, total0 = idle1, total1
    except (OSError, ValueError, IndexError):
        return None
    return best


def auto_workers(task: Task, n_starts: int) -> int:
    """Processes for the starts: 2 or more only where they pay (:func:`run_starts`).

    A pool costs a fork and a result transfer per start (tens of ms) and only
    helps when a core is idle: so one process unless the problem is large (a
    discount or gain block above 200 coordinates, or linear forms of at least
    :data:`LARGE_ENTRIES` entries, where one start takes seconds: 6-11 s each at
    200 systems x 1,000 topics x 100 ranks, 9.9 million entries), there are at
    least two starts and two cores, and a core is free besides this process's
    own (which the pool takes over while this process waits: one idle core on
    two gives two workers). Free cores are those idle now (:func:`idle_cores`,
    rounded), not the 1-minute load average, which still counts this command's
    own reading of the runs in worker processes a moment before (on two idle
    cores it left one worker for the starts); where the idle time cannot be read,
    the load average it is. The answer never depends on it: every start is solved
    the same way in either case.
    """
    cores = os.cpu_count() or 1
    entries = sum(s.n_entries for s in task.problem.scenarios)
    if n_starts < 2 or cores < 2 or (task.param.n_vars <= 200 and entries < LARGE_ENTRIES):
        return 1
    idle = idle_cores(windows=3)
    if idle is not None:
        return max(1, min(int(idle + 0.5), cores, n_starts))  # this process's core among them
    try:
        load = os.getloadavg()[0]
    except OSError:  # not on this platform
        return 1
    free = int(cores - load)  # idle cores; this process's own is counted in the load
    return max(1, min(free + 1, cores, n_starts))


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
    if n > 1 and start_method() == "fork":
        task.problem.prepare()
        _POOL_JOB = (solve, task, list(starts), (method, max_iter, tol, solver, deadline))
        try:
            with process_pool(n, method="fork") as pool:
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
