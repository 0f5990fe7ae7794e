r"""SciPy backend: SLSQP (default) or trust-constr with analytic gradients.

The paper used MATLAB's ``fmincon``, an active-set SQP (Kanoulas & Aslam, CIKM 2009, §2.2);
SLSQP (Kraft 1988) is its SciPy counterpart. The variables are the simplex
coordinates ``y`` of :mod:`irstab.optimizer.parametrisation`, so the constraints are
linear: bounds ``0 <= y <= 1`` and one equality ``sum(y_b) = 1`` per block.

Working set
-----------
SLSQP's quadratic subproblem is dense (its cost grows like :math:`n^3`),
while the optimal discounts are sparse in ``y`` (a few steps: Kanoulas & Aslam, CIKM 2009
Fig. 2 and ``docs/dl2019-study.md``). So above :data:`FULL_MAX` variables the
solver

1. when the start has more than :data:`FULL_MAX` non-zero coordinates, first
   runs L-BFGS-B on the bound-constrained problem ``y >= 0`` without the
   equalities (nDCG, hence Phi, is invariant to scaling each block; the
   minimax objective is replaced by the smooth soft-minimum
   :math:`-\tau\log\sum_j e^{-\Phi_j/\tau}`, :math:`\tau` = 1e-3), and
   drops the tiny coordinates it leaves (at a cost of at most 1e-7 in Phi);
2. runs SLSQP on a working set ``W`` of coordinates (the rest fixed at 0):
   the support of the current point plus the coordinates that violate the
   optimality conditions most;
3. checks first-order optimality on the *full* problem with the Frank-Wolfe
   gap (:meth:`irstab.optimizer.task.Task.gap`), adds the violating
   coordinates and the gap's vertex to ``W`` and repeats.

With a constraint (the Pareto sweeps) step 1 is replaced by a staircase start:
a monotone discount with more than :data:`FULL_MAX` non-zero increments (the
log2 prior) becomes its means over :data:`_STEPS` log-spaced rank segments
(:func:`_coarsen`), when that point satisfies the constraint. On DL-2019 at
k = 100 the front against log2 is the same to 1e-12 as with SLSQP on all 100
coordinates, 5x faster; at k = 1000, where SLSQP on all coordinates did not
finish a point in 10 minutes, the 5-point front takes seconds.

It stops with status ``optimal`` when the gap is at most ``tol`` (or
``time_limit`` once a ``deadline`` has passed: the SciPy solvers are stopped at
their next iteration and the best point so far is returned); every
accepted SLSQP point is at least as good as the one before, and a final
point below the start is replaced by the start, so a start never ends below
where it began.
"""

from __future__ import annotations

import time
from enum import Enum

import numpy as np

from .task import Task
from .result import LocalSolution, Status

__all__ = ["FULL_MAX", "Method", "solve"]

#: Up to this many variables SLSQP works on all of them; above, on a working set.
FULL_MAX = 60
_SOFTMIN_TAU = 1e-3
_MAX_ROUNDS = 40
_EXTRA = 20  # violating coordinates added to the working set per round
_STEPS = 40  # segments of a coarsened start (:func:`_coarsen`)


class Method(str, Enum):
    """SciPy method of the SciPy backend."""

    slsqp = "SLSQP"
    trust_constr = "trust-constr"


def _stopper(deadline: float | None):
    """A SciPy callback that ends the solve (``StopIteration``) once ``deadline`` has passed."""
    if deadline is None:
        return None

    def callback(intermediate_result):
        if time.perf_counter() > deadline:
            raise StopIteration

    return callback


def _late(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() > deadline


class _Memo:
    """Values and Jacobian of the task at the last ``y`` (SciPy asks for them separately)."""

    def __init__(self, task: Task):
        self.task = task
        self.key = None
        self.out = None

    def __call__(self, y: np.ndarray):
        key = y.tobytes()
        if key != self.key:
            vals, jac = self.task.problem.values_and_jac(y)
            h = hj = None
            if self.task.constraint is not None:
                h, hj = self.task.constraint.value_and_jac(y)
            self.key, self.out = key, (vals, jac, h, hj)
        return self.out


def _reduce(
    task: Task, y: np.ndarray, max_iter: int, deadline: float | None = None
) -> tuple[np.ndarray, int, str]:
    """L-BFGS-B on ``y >= 0`` (scale-free objective): a sparse point near an optimum.

    ``maxcor=30``: from log2 at k = 1000 on DL-2019, 137 iterations instead of 348.
    """
    from scipy.optimize import Bounds, minimize

    memo = _Memo(task)

    def fun(z):
        vals, jac, _, _ = memo(z)
        if not task.maximin:
            return -vals[0], -jac[0]
        w = np.exp(-(vals - vals.min()) / _SOFTMIN_TAU)
        w /= w.sum()
        soft = vals.min() - _SOFTMIN_TAU * np.log(np.exp(-(vals - vals.min()) / _SOFTMIN_TAU).sum())
        return -soft, -(w @ jac)

    res = minimize(
        fun,
        y,
        jac=True,
        method="L-BFGS-B",
        bounds=Bounds(0.0, np.inf),
        options={"maxiter": max(1, max_iter), "ftol": 1e-12, "gtol": 1e-10, "maxcor": 30},
        callback=_stopper(deadline),
    )
    return task.param.project(res.x), int(res.nit), f"L-BFGS-B: {res.message}"


def _trim(task: Task, y: np.ndarray, slack: float = 1e-7) -> np.ndarray:
    """Drop the small coordinates L-BFGS-B leaves behind, at a merit cost of at most ``slack``.

    Keeps SLSQP's working set small (its cost grows like its size cubed); the
    full-problem optimality check afterwards adds back any coordinate that matters,
    and the final point is compared with the start.
    """
    base = task.merit(y)
    out = y
    for tau in np.geomspace(1e-9, 1e-2, 8):  # coarser and coarser thresholds
        z = y.copy()
        for b in task.param.blocks:
            blk = z[b]
            blk[blk < tau * blk.max()] = 0.0
            z[b] = blk
        z = task.param.project(z)
        if task.merit(z) < base - slack:
            break
        out = z
    return out


def _coarsen(task: Task, y: np.ndarray) -> np.ndarray | None:
    """A start on few coordinates near ``y`` for a constrained solve, or None.

    A monotone discount block is replaced by its means over :data:`_STEPS`
    log-spaced segments of the ranks (every rank alone at the top), a staircase
    whose increments are non-zero only at the segments' ends: the L2-closest such
    staircase, so it stays inside a ball around ``y`` that ``y`` is well inside.
    None when nothing is coarsened or the staircase breaks the constraint.
    """
    param = task.param
    if not (param.monotone and param.varies_discount) or param.cutoff <= FULL_MAX:
        return None
    g, d = param.vectors(y)
    k = param.cutoff
    ends = np.unique(np.round(np.geomspace(1, k, _STEPS)).astype(np.int64))
    seg = np.repeat(np.arange(len(ends)), np.diff(np.r_[0, ends]))
    means = np.bincount(seg, weights=d) / np.bincount(seg)
    z = param.project(param.variables(g, means[seg], check=False))
    return z if task.merit(z) > -np.inf else None


def _restricted(
    task: Task, y: np.ndarray, work: np.ndarray, method: Method, max_iter: int,
    deadline: float | None = None,
) -> tuple[np.ndarray, int, bool, str]:
    """Optimise over the coordinates ``work`` (others fixed at 0) from ``y``.

    Returns ``(y_new, iterations, hit_iteration_limit, message)``.
    """
    from scipy.optimize import (
        BFGS,
        Bounds,
        LinearConstraint,
        NonlinearConstraint,
        minimize,
    )

    n = len(y)
    m = len(work)
    memo = _Memo(task)
    full = np.zeros(n)

    def expand(z):
        full[:] = 0.0
        full[work] = z[:m]
        return full.copy()

    epigraph = task.maximin
    n_z = m + (1 if epigraph else 0)
    a_eq = np.zeros((len(task.param.blocks), n_z))
    for i, b in enumerate(task.param.blocks):
        inb = (work >= b.start) & (work < b.stop)
        a_eq[i, :m][inb] = 1.0

    if epigraph:
        def objective(z):
            g = np.zeros(n_z)
            g[-1] = -1.0
            return -z[-1], g
    else:
        def objective(z):
            vals, jac, _, _ = memo(expand(z))
            return -vals[0], -jac[0][work]

    def ineq(z):
        vals, _, h, _ = memo(expand(z))
        out = []
        if epigraph:
            out.append(vals - z[-1])
        if h is not None:
            out.append([h])
        return np.concatenate(out)

    def ineq_jac(z):
        _, jac, _, hj = memo(expand(z))
        rows = []
        if epigraph:
            rows.append(np.hstack([jac[:, work], -np.ones((jac.shape[0], 1))]))
        if hj is not None:
            r = hj[work]
            rows.append((np.r_[r, 0.0] if epigraph else r)[None, :])
        return np.vstack(rows)

    has_ineq = epigraph or task.constraint is not None
    z0 = y[work]
    lo, hi = np.zeros(n_z), np.ones(n_z)
    if epigraph:
        z0 = np.r_[z0, task.problem.values(y).min()]
        lo[-1], hi[-1] = -np.inf, np.inf

    if method is Method.slsqp:
        cons = [{"type": "eq", "fun": lambda z: a_eq @ z - 1.0, "jac": lambda z: a_eq}]
        if has_ineq:
            cons.append({"type": "ineq", "fun": ineq, "jac": ineq_jac})
        res = minimize(
            objective,
            z0,
            jac=True,
            method="SLSQP",
            bounds=list(zip(lo, hi)),
            constraints=cons,
            options={"maxiter": max(1, max_iter), "ftol": 1e-14},
            callback=_stopper(deadline),
        )
        hit = res.status == 9
    else:
        # trust-constr is an interior-point method: start strictly inside the bounds
        z0 = z0.copy()
        z0[:m] = (1.0 - 1e-6) * z0[:m] + 1e-6 * (a_eq[:, :m].T @ (1.0 / a_eq[:, :m].sum(axis=1)))
        cons = [LinearConstraint(a_eq, 1.0, 1.0)]
        if has_ineq:
            cons.append(NonlinearConstraint(ineq, 0.0, np.inf, jac=ineq_jac, hess=BFGS()))
        res = minimize(
            objective,
            z0,
            jac=True,
            hess=BFGS(),
            method="trust-constr",
            bounds=Bounds(lo, hi),
            constraints=cons,
            options={
                "maxiter": max(1, max_iter),
                "gtol": 1e-10,
                "xtol": 1e-12,
                # a small barrier and radius keep the solve local to its start
                "initial_barrier_parameter": 1e-6,
                "initial_tr_radius": 0.1,
            },
            callback=_stopper(deadline),
        )
        hit = res.status == 0  # trust-constr: 0 = iteration limit
    y_new = task.param.project(expand(res.x))
    if method is Method.trust_constr:
        # interior points never reach 0 exactly: keep the sparse version when it is no worse
        sparse = task.param.project(np.where(y_new < 1e-9, 0.0, y_new))
        if task.merit(sparse) >= task.merit(y_new):
            y_new = sparse
    return y_new, int(res.nit), hit, f"{method.value}: {res.message}"


def _violators(task: Task, y: np.ndarray, vertex: np.ndarray, tol: float) -> np.ndarray:
    """Coordinates outside the support that would raise the objective, best first."""
    vals, jac = task.problem.values_and_jac(y)
    gr = jac[int(np.argmin(vals))]
    reduced = np.empty_like(y)
    for b in task.param.blocks:  # a handful of blocks
        reduced[b] = gr[b] - gr[b] @ y[b]
    outside = y <= 0
    cand = np.flatnonzero(outside & ((reduced > tol) | (vertex > 0)))
    return cand[np.argsort(-reduced[cand])]


def solve(
    task: Task,
    y0: np.ndarray,
    *,
    method: Method | str = Method.slsqp,
    max_iter: int = 1000,
    tol: float = 1e-4,
    deadline: float | None = None,
) -> LocalSolution:
    """One local solve from ``y0`` (see the module docstring).

    Parameters
    ----------
    task : Task
    y0 : numpy.ndarray
        Feasible start (projected onto the simplices first).
    method : {"SLSQP", "trust-constr"}
    max_iter : int
        Limit on the solver iterations, summed over the phases.
    tol : float
        Frank-Wolfe gap at which the point counts as optimal.
    deadline : float, optional
        ``time.perf_counter()`` value after which the solve stops with status
        ``time_limit`` and the best point found.

    Returns
    -------
    LocalSolution
    """
    method = Method(method)
    t0 = time.perf_counter()
    param = task.param
    y = param.project(y0)
    initial = task.merit(y)
    best = initial
    n = len(y)
    nit = 0
    messages: list[str] = []
    status = None

    if n > FULL_MAX and np.count_nonzero(y) > FULL_MAX and task.constraint is None:
        y_red, it, msg = _reduce(task, y, max_iter // 2, deadline)
        nit += it
        messages.append(msg)
        if task.merit(y_red) >= best:
            y, best = _trim(task, y_red), task.merit(y_red)

    elif n > FULL_MAX and np.count_nonzero(y) > FULL_MAX:
        # SLSQP's subproblem is dense: start a constrained solve from a staircase instead
        z = _coarsen(task, y)
        if z is not None:
            y, best = z, task.merit(z)
            messages.append(f"coarsened start ({np.count_nonzero(z)} steps)")

    full_set = n <= FULL_MAX
    work = np.arange(n) if full_set else np.zeros(0, dtype=np.int64)
    gap, vertex = task.gap(y)
    status = Status.max_iter
    for _ in range(_MAX_ROUNDS):
        previous = work
        if not full_set:
            extra = _violators(task, y, vertex, tol / 10)
            support = np.flatnonzero(y > 0)
            # the gap's vertex always: with a constraint its coordinates need not be
            # among those that raise the objective most (they lead along the constraint)
            work = np.union1d(np.union1d(support, extra[:_EXTRA]), np.flatnonzero(vertex > 0))
        y_new, it, hit, msg = _restricted(task, y, work, method, max_iter - nit, deadline)
        nit += it
        messages.append(msg)
        v_new = task.merit(y_new)
        improved = v_new > best
        if v_new >= best:
            y, best = y_new, v_new
        gap, vertex = task.gap(y)
        if gap <= tol:
            status = Status.optimal
            break
        if _late(deadline):
            status = Status.time_limit
            messages.append("time limit reached")
            break
        if nit >= max_iter:
            status = Status.max_iter
            break
        if not improved and np.array_equal(previous, work):
            status = Status.max_iter if hit else Status.failed
            messages.append("no progress")
            break
    y = task.sparsify(y)
    best = task.merit(y)
    if best < initial:  # a trimmed pre-phase that SLSQP could not recover: keep the start
        y, best = param.project(y0), initial
        messages.append("no improvement over the start")
    last = messages[-1] if messages else ""
    message = f"{last}; gap {gap:.3g}" + ("" if full_set else f"; working set {len(work)}/{n}")
    return LocalSolution(
        y=y,
        value=best,
        initial=initial,
        iterations=nit,
        status=status,
        message=message,
        gap=float(gap),
        seconds=time.perf_counter() - t0,
    )
