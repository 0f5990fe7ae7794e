r"""Maximum-entropy probability-at-rank distributions (Aslam, Yilmaz & Pavlu, SIGIR 2005).

For one cell (a system on a topic) with ``N`` ranks and outcomes ``a = 0..c``
(the grade at a rank; 0 = non-relevant), find the product distribution
``P[n, a]`` of maximum entropy ``H = -sum_{n,a} P_na log P_na`` subject to

* ``sum_n P_na = R_a`` for every grade (the list's count of each grade), and
* ``E_P[M] = v`` (the measure's value on the actual list),

with ranks past the end of the run fixed to outcome 0 (they hold no
document). Robertson, Kanoulas & Yilmaz (SIGIR 2010, §4.1, Fig. 1) pose
this for GAP and nDCG; :mod:`irstab.informativeness.product_expectation` gives
``E_P[M]`` for every supported measure.

Dual
----
The Lagrangian's stationarity condition gives, per rank, a softmax over the
outcomes: ``P_na = exp(lambda_a + mu G_na) / Z_n`` with ``G = dE[M]/dP``, so
each cell has ``c + 2`` multipliers (one per grade and ``mu``). For a measure
linear in ``P`` (nDCG, P@k, RBP) ``G`` is constant and the multipliers
minimise the convex dual ``D = sum_n log Z_n - sum_a lambda_a R_a - mu v``;
Newton's method with an Armijo backtracking line search solves it (gradient:
the constraint residuals; Hessian: the per-rank covariances of the features
``(1[a], G_na)``). Every step is cut so that no logit ``lambda_a + mu G_na``
moves by more than a per-cell radius (a trust region: far from the solution
the Newton step can overshoot by orders of magnitude); the radius starts at
20, grows fourfold when a cut step is accepted whole and falls back when the
line search backtracks, so that ``mu`` can reach the 1e6-1e9 of lists whose
value is within 1e-5 of the largest the counts allow (RBP(p=0.8) of a list
with 40 relevant documents on top).

For the AP family ``E[M]`` is quadratic in ``P``, so ``G`` depends on ``P``.
AP, GAP and eGAP are solved by Newton's method on the whole stationarity
system (:mod:`.maxent_newton`: the logits, ``lambda`` and ``mu``; exact for
one threshold, with a rank-one coupling of the thresholds otherwise; a median
of 8 iterations for AP and 15 for GAP on DL-2019). Cells it leaves after 40
iterations, and xGAP, take the linearised path: one Newton step on the dual
of the problem linearised at the current ``P`` (a fixed point is a KKT point
of the original problem), then re-linearise; a cell whose ``mu`` swings back
and forth has its steps halved (down to 1/256) and regrown by 1.25 when it
moves on, and the radius stays at 20 (a longer step leaves the region where
the linearisation holds).

Grades the measure cannot tell apart (P@k, RBP, AP on graded judgements) are
merged into one outcome before the solve and split after, exactly
(:mod:`.maxent_outcomes`). Cells are solved in blocks of 64 (arrays
``outcomes x cells x ranks`` that stay in the CPU caches; ranks past every
list of a block are dropped), on forked worker processes when cores are free;
converged cells leave the iteration. The workers do not change a cell's
solution, and its block changes it at most by rounding (grade 0 is kept off a
run's ranks when the run holds no non-relevant document, so a short run poses
the same problem whatever the block's depth).

Convergence: constraints to ``tol`` (absolute, counts and value) and, for
the quadratic measures, stationarity (``|mu| max |G(P) - G_used|``, or the
largest logit residual of ``z = lambda + mu G(P)``) ``<= tol``. Cells that
miss it after ``max_iter`` iterations, or whose residual has not fallen by 1%
in 30 iterations (100 on the linearised path of the AP family), or, for a
linear measure, whose line search finds no decrease five times running (the
dual's rounding at a huge ``mu``), are retried one by one with
:func:`scipy.optimize.root` (:mod:`.maxent_scipy`), from where the iteration
stopped and then from the uniform start, accepted at ``10 tol``; cells that
still fail are reported (``converged`` False), never silently used.

Conventions: a grade absent from the list has ``P_na = 0`` (its multiplier is
``-inf``). One outcome per cell (the grade the run holds most) is the reference
(``lambda = 0``) so the Hessian is non-singular; a measure that is constant
given the counts (e.g. P@N) has a zero ``mu`` direction, handled by a
pseudo-inverse, and returns the uniform ``P_na = R_a / N``. A value at the
edge of the feasible range given the counts (e.g. AP = 1, or every relevant
document on top) drives ``mu`` to infinity: for measures monotone in rank and
grade such cells are detected first and given the limit in closed form, the
maximum-entropy distribution on the optimal face (the sorted list, shuffled
uniformly within blocks of ranks the measure weighs alike and within grades
it cannot tell apart; ``mu = +-inf``, ``lam`` NaN).
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._workers import one_blas_thread, process_pool, start_method
from .maxent_family import entropy, feasible_mask, reference, run_counts, softmax
from .maxent_newton import solve_full_newton, supports_full_newton
from .maxent_outcomes import merge_outcomes
from .maxent_scipy import solve_cell_scipy
from .product_expectation import ProductForm

__all__ = ["MaxEntSolution", "solve_maxent", "entropy", "feasible_mask"]

_ARMIJO = 1e-4
_MAX_LOGIT_STEP = 20.0
_STALL = 5
_BACKTRACK = 20  # halvings of a step before the line search gives up
_MAX_RADIUS = 1e12
_NO_PROGRESS = 30
_FULL_NEWTON_ITER = 40
_BLOCK = 64  # cells solved together


@dataclass(frozen=True, eq=False)
class MaxEntSolution:
    """Maximum-entropy distributions of ``C`` cells.

    Attributes
    ----------
    P : ndarray (C, N, A)
        ``P[c, n, a]``: probability that rank ``n`` holds grade ``a``.
    lam : ndarray (C, A)
        Grade multipliers (``-inf`` for grades the run does not hold; NaN for
        cells at the edge of the feasible range).
    mu : ndarray (C,)
        Multiplier of the measure constraint.
    converged : ndarray (C,) bool
    iterations : ndarray (C,) int
        Vectorised Newton iterations used, full and linearised (the SciPy
        retry not counted).
    fallback : ndarray (C,) bool
        The cell was solved (or attempted) by the per-cell SciPy retry.
    residual : ndarray (C,)
        Largest absolute constraint residual at the end (for AP, GAP and
        eGAP also the stationarity residual, when larger).
    """

    P: np.ndarray
    lam: np.ndarray
    mu: np.ndarray
    converged: np.ndarray
    iterations: np.ndarray
    fallback: np.ndarray
    residual: np.ndarray

    @property
    def entropy(self) -> np.ndarray:
        return entropy(self.P)


def _dual(logZ, lam, mu, counts, vlin):
    lam0 = np.where(counts > 0, lam, 0.0)
    return logZ.sum(axis=1) - (lam0 * counts).sum(axis=1) - mu * vlin


def _newton_direction(P, G, grad, ref, present):
    """Newton direction on the dual for every cell (A + 1 multipliers)."""
    A, C, _ = P.shape
    PG = P * G
    Gbar = PG.sum(axis=0)
    H = np.empty((C, A + 1, A + 1))
    Pc = P.transpose(1, 0, 2)
    H[:, :A, :A] = -np.matmul(Pc, P.transpose(1, 2, 0))
    idx = np.arange(A)
    H[:, idx, idx] += P.sum(axis=2).T
    H[:, :A, A] = (PG.sum(axis=2) - (P * Gbar).sum(axis=2)).T
    H[:, A, :A] = H[:, :A, A]
    H[:, A, A] = (PG * G).sum(axis=(0, 2)) - (Gbar * Gbar).sum(axis=1)
    # fixed multipliers: the reference grade and grades absent from the list
    fixed = np.zeros((C, A + 1), dtype=bool)
    fixed[:, :A] = ~present
    fixed[np.arange(C), ref] = True
    g = np.where(fixed, 0.0, grad)
    H = np.where(fixed[:, :, None] | fixed[:, None, :], 0.0, H)
    H[:, np.arange(A + 1), np.arange(A + 1)] += fixed
    # Jacobi scaling: the mu direction can be many orders smaller near the boundary
    d = np.sqrt(np.abs(np.diagonal(H, axis1=1, axis2=2)))
    with np.errstate(all="ignore"):
        d = np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 1.0)
        Hs = H * d[:, :, None] * d[:, None, :]
        rhs = d * g
        finite = np.isfinite(Hs).all(axis=(1, 2)) & np.isfinite(rhs).all(axis=1)
        Hs[~finite], rhs[~finite] = np.eye(A + 1), 0.0
        out = -d * (np.linalg.pinv(Hs, rcond=1e-14, hermitian=True) @ rhs[:, :, None])[:, :, 0]
    out[~finite] = np.nan  # the caller stays put: underflowed variances, no direction
    return out


def _boundary(form: ProductForm, counts, free, target, tol):
    """Cells whose value is the largest (or smallest) the grade counts allow.

    There ``mu`` is infinite and the solution is the maximum-entropy
    distribution on the optimal face: the sorted list (grades descending for
    the maximum, ascending for the minimum), shuffled uniformly within blocks
    of ranks the measure weighs alike and within grades it cannot tell apart.
    Only for monotone measures (weights non-increasing in rank, values
    non-decreasing in grade), where the sorted lists are the extremes.
    Returns ``(cells, P (k, N, A), mu (k,))`` with ``mu`` = +inf at the
    maximum, -inf at the minimum, 0 when both coincide (a constant measure).
    """
    C, N = free.shape
    A = counts.shape[1]
    u = form.u
    monotone = (
        np.all(np.diff(form.rank_weight[:N]) <= 0) and np.all(np.diff(form.h[:N]) <= 0)
        and np.all(np.diff(form.outcome_value) >= 0) and np.all(form.alpha >= 0)
        and np.all(form.scale >= 0)
    )
    if not monotone:
        return np.zeros(0, dtype=np.int64), np.zeros((0, N, A)), np.zeros(0)
    # u non-decreasing over the grades present in each cell (a grade nobody judged may break it)
    mono_cell = np.ones(C, dtype=bool)
    present = counts > 0
    present[:, 0] = True
    uc = np.broadcast_to(u, (C,) + u.shape[1:])
    for a in range(A):
        for b in range(a + 1, A):
            both = present[:, a] & present[:, b]
            mono_cell &= ~both | np.all(uc[:, :, b] >= uc[:, :, a] - 1e-15, axis=1)
    # outcome classes: grades with the same coefficients in every cell
    sig = np.concatenate([np.broadcast_to(form.outcome_value, (1, A)),
                          u.reshape(-1, A), (np.arange(A)[None, :] >= form.thresholds[:, None])])
    _, cls = np.unique(sig.T, axis=0, return_inverse=True)
    cls = cls.ravel()
    n_cls = cls.max() + 1
    rank = np.arange(N)
    length = free.sum(axis=1)
    n_cells = np.arange(C)[:, None]
    extremes = []
    for descending in (True, False):
        # sorted list: grade a occupies ranks [start_a, start_a + R_a) among the free ranks
        order = np.arange(A)[::-1] if descending else np.arange(A)
        free_counts = counts.copy()
        free_counts[:, 0] -= N - length
        start = np.zeros((C, A))
        start[:, order] = np.cumsum(free_counts[:, order], axis=1) - free_counts[:, order]
        grade = np.zeros((C, N), dtype=np.int64)
        for a in range(A):
            grade[(rank >= start[:, a, None]) & (rank < start[:, a, None] + free_counts[:, a, None])] = a
        onehot = np.zeros((C, N, A))
        onehot[n_cells, rank, grade] = 1.0
        onehot[:, :, 0] = np.where(free, onehot[:, :, 0], 1.0)
        extremes.append(onehot)
    v_hi, v_lo = form.value(extremes[0]), form.value(extremes[1])
    at_hi, at_lo = (target >= v_hi - tol) & mono_cell, (target <= v_lo + tol) & mono_cell
    cells = np.flatnonzero(at_hi | at_lo)
    if cells.size == 0:
        return cells, np.zeros((0, N, A)), np.zeros(0)
    L = np.where(at_hi[cells, None, None], extremes[0][cells], extremes[1][cells])
    # rank blocks: equal (w, h), split where the run ends
    key = np.stack([form.rank_weight[:N], form.h[:N]])
    change = np.concatenate([[True], np.any(np.diff(key, axis=1) != 0, axis=0)])
    block = np.cumsum(change)[None, :] * 2 + (~free[cells]).astype(np.int64)
    # per-rank block extent (blocks are contiguous runs of equal ids)
    newb = np.concatenate([np.ones((len(cells), 1), bool), np.diff(block, axis=1) != 0], axis=1)
    first = np.maximum.accumulate(np.where(newb, rank, 0), axis=1)
    lastb = np.concatenate([np.diff(block, axis=1) != 0, np.ones((len(cells), 1), bool)], axis=1)
    last = np.minimum.accumulate(np.where(lastb, rank, N - 1)[:, ::-1], axis=1)[:, ::-1]
    klass = np.zeros((len(cells), N, n_cls))
    for k in range(n_cls):
        klass[:, :, k] = L[:, :, cls == k].sum(axis=2)
    cs = np.concatenate([np.zeros((len(cells), 1, n_cls)), np.cumsum(klass, axis=1)], axis=1)
    idx = np.arange(len(cells))[:, None]
    mean = (cs[idx, last + 1] - cs[idx, first]) / (last - first + 1)[:, :, None]
    cnt = counts[cells]
    cls_count = np.stack([cnt[:, cls == k].sum(axis=1) for k in range(n_cls)], axis=1)
    share = np.divide(cnt, cls_count[:, cls], out=np.zeros_like(cnt), where=cls_count[:, cls] > 0)
    P = mean[:, :, cls] * share[:, None, :]
    P[:, :, 0] = np.where(free[cells], P[:, :, 0], 1.0)
    P[:, :, 1:] *= free[cells][:, :, None]
    ok = np.abs(form.take(cells).value(P) - target[cells]) <= tol
    ok &= np.abs(P.sum(axis=1) - cnt).max(axis=1) <= tol
    hi, lo = at_hi[cells], at_lo[cells]
    mu = np.select([hi & lo, hi, lo], [0.0, np.inf, -np.inf])
    return cells[ok], P[ok], mu[ok]


def _newton_step(P, logZ, G, lam, mu, counts, vlin, mask, present, ref, damp, radius, grow):
    """One damped Newton step on the dual; ``(lam, mu, P, log Z, radius, step)`` at the new point.

    ``damp`` (per cell, <= 1) shortens the step of cells whose true residual
    stopped falling (the re-linearised iteration can cycle). ``radius`` (per
    cell) is the trust region: the largest move of any logit in one step. It
    grows by ``grow`` when a step it cut is accepted whole (near the edge of the
    feasible range ``mu`` must travel to 1e6 and beyond) and shrinks back
    towards ``_MAX_LOGIT_STEP`` when the line search has to backtrack.
    """
    A = counts.shape[1]
    grad = np.concatenate([P.sum(axis=2).T - counts,
                           ((P * G).sum(axis=(0, 2)) - vlin)[:, None]], axis=1)
    d = _newton_direction(P, G, grad, ref, present) * damp[:, None]
    lost = ~np.isfinite(d).all(axis=1)
    d[lost] = 0.0
    d_lam, d_mu = np.where(present, d[:, :A], 0.0), d[:, A]
    # trust region: no logit moves by more than ``radius`` in one step
    dz = d_mu[:, None] * G
    dz += d_lam.T[:, :, None]
    reach = np.where(np.isfinite(mask), np.abs(dz), 0.0).max(axis=(0, 2))
    shrink = np.minimum(1.0, radius / np.where(reach > 0, reach, 1.0))
    d_lam, d_mu = d_lam * shrink[:, None], d_mu * shrink
    D0 = _dual(logZ, lam, mu, counts, vlin)
    slope = (np.where(present, grad[:, :A], 0.0) * d_lam).sum(axis=1) + grad[:, A] * d_mu
    step = np.ones(len(mu))
    newP, newZ = softmax(lam + d_lam, mu + d_mu, G, mask)
    slack = 1e-13 * (1.0 + np.abs(D0))  # rounding of D, a sum over ranks, near the optimum
    for _ in range(_BACKTRACK):
        trial = _dual(newZ, lam + step[:, None] * d_lam, mu + step * d_mu, counts, vlin)
        bad = ~(trial <= D0 + _ARMIJO * step * np.minimum(slope, 0.0) + slack)
        if not bad.any():
            break
        step[bad] *= 0.5
        b = np.flatnonzero(bad)
        newP[:, b], newZ[b] = softmax(lam[b] + step[b, None] * d_lam[b], mu[b] + step[b] * d_mu[b],
                                       G[:, b], mask[:, b])
    else:  # no decrease found: stay (the cell is reported if it never converges)
        step[bad] = 0.0
        b = np.flatnonzero(bad)
        newP[:, b], newZ[b] = P[:, b], logZ[b]
    step[lost] = 0.0
    radius = np.where(step < 1.0, np.maximum(radius * 0.5, _MAX_LOGIT_STEP),
                      np.where(shrink < 1.0, np.minimum(radius * grow, _MAX_RADIUS), radius))
    return lam + step[:, None] * d_lam, mu + step * d_mu, newP, newZ, radius, step


def solve_maxent(
    form: ProductForm,
    counts: np.ndarray,
    free: np.ndarray,
    target: np.ndarray,
    *,
    tol: float = 1e-9,
    max_iter: int = 500,
    fallback: bool = True,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
) -> MaxEntSolution:
    """Maximum-entropy product distributions of all cells of ``form``.

    Parameters
    ----------
    form : ProductForm
        ``E[M]`` of the measure on ``C`` cells.
    counts : ndarray (C, A)
        Documents of each grade in the list (outcome 0 includes the ranks past
        the run's end, which ``free`` marks False).
    free : ndarray (C, N) bool
        Ranks that hold a retrieved document.
    target : ndarray (C,)
        The measure's value ``v`` per cell.
    tol : float
        Absolute tolerance on every constraint (and on stationarity).
    max_iter : int
        Vectorised Newton iterations.
    fallback : bool
        Retry non-converged cells one by one with :func:`scipy.optimize.root`.
    progress : callable, optional
        ``progress(converged_cells, total_cells)`` after each block of 64 cells.
    workers : int, optional
        Processes that solve blocks of cells (each cell's solution does not
        depend on it); default: the cores the load average leaves free, up to
        the number of cores, for 128 cells or more.

    Returns
    -------
    MaxEntSolution
    """
    counts = np.asarray(counts, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    free = np.asarray(free, dtype=bool)
    return _solve_blocks(form, counts, free, target, merge_outcomes(form, counts, free), tol,
                         max_iter, fallback, progress, workers)


_POOL_JOB: tuple | None = None  # (form, counts, free, target, merged, options), for forked workers


def _pool_solve(block: np.ndarray) -> MaxEntSolution:
    return _solve_block(_POOL_JOB, block)


def _solve_block(job: tuple, block: np.ndarray) -> MaxEntSolution:
    """One block: merged grades, trimmed ranks, solved, split back."""
    form, counts, free, target, merged, options = job
    if merged is None:
        return _solve_trimmed(form, counts, free, target, block, options)
    sol = _solve_trimmed(merged.form, merged.counts, free, target, block, options)
    P, lam = merged.split(sol.P, sol.lam, free[block], counts[block], block)
    return MaxEntSolution(P, lam, sol.mu, sol.converged, sol.iterations, sol.fallback, sol.residual)


def _solve_trimmed(form, counts, free, target, block, options) -> MaxEntSolution:
    """A block on the ranks that hold a document in at least one of its lists."""
    tol, max_iter, fallback = options
    f, cnt, fr = form.take(block), counts[block], free[block]
    N = fr.shape[1]
    L = max(1, int(fr.sum(axis=1).max(initial=0)))
    silent = (form.outcome_value[0] == 0 or not np.any(form.scale != 0)) and not np.any(
        form.u[:, :, 0]) and np.all(form.thresholds >= 1)
    if L == N or not silent:
        return _solve_batch(f, cnt, fr, target[block], tol=tol, max_iter=max_iter,
                            fallback=fallback)
    # ranks past every list of the block hold outcome 0, which adds nothing to E[M]: drop them
    cnt = cnt.copy()
    cnt[:, 0] -= N - L
    sol = _solve_batch(f, cnt, fr[:, :L], target[block], tol=tol, max_iter=max_iter,
                       fallback=fallback)
    P = np.zeros((len(block), N, cnt.shape[1]))
    P[:, :L], P[:, L:, 0] = sol.P, 1.0
    return MaxEntSolution(P, sol.lam, sol.mu, sol.converged, sol.iterations, sol.fallback,
                          sol.residual)


def auto_workers(n_cells: int) -> int:
    """Processes for :func:`solve_maxent`: more than one only for 128 cells and a free core."""
    cores = os.cpu_count() or 1
    if n_cells < 2 * _BLOCK or cores < 2 or "fork" not in mp.get_all_start_methods():
        return 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # not on this platform
        return 1
    # one unit of the load is usually this process itself, busy until now
    return max(1, min(cores, int(cores - max(load - 1.0, 0.0) + 0.5)))


def _solve_blocks(form, counts, free, target, merged, tol, max_iter, fallback, progress, workers):
    """Solve the cells in blocks of ``_BLOCK``, on ``workers`` forked processes or in turn.

    Blocks, not one batch: a block's arrays stay in the CPU caches, which
    made GAP on DL-2019 1.6x faster than one batch of all 1591 cells.
    """
    global _POOL_JOB
    C = len(target)
    n = auto_workers(C) if workers is None else max(1, int(workers))
    blocks = np.array_split(np.arange(C), max(1, -(-C // _BLOCK)))
    job = (form, counts, free, target, merged, (tol, max_iter, fallback))
    parts, done = [], 0

    # one BLAS thread, set before forking so the workers inherit it: BLAS threads on the
    # (cells, 5, 5) products cost more than they save, and the processes fill the cores
    with one_blas_thread():
        if n > 1 and len(blocks) > 1 and start_method() == "fork":
            outer, _POOL_JOB = _POOL_JOB, job  # read by the forked workers
            try:
                # an error ends the pool at once: no more blocks after it
                with process_pool(min(n, len(blocks)), method="fork") as pool:
                    for sol in pool.map(_pool_solve, blocks):
                        parts.append(sol)
                        done += int(sol.converged.sum())
                        if progress is not None:
                            progress(done, C)
            finally:
                _POOL_JOB = outer
        else:
            for block in blocks:
                parts.append(_solve_block(job, block))
                done += int(parts[-1].converged.sum())
                if progress is not None:
                    progress(done, C)
    if len(parts) == 1:
        return parts[0]
    return MaxEntSolution(*(np.concatenate([getattr(p, k) for p in parts]) for k in (
        "P", "lam", "mu", "converged", "iterations", "fallback", "residual")))


def _solve_batch(
    form: ProductForm,
    counts: np.ndarray,
    free: np.ndarray,
    target: np.ndarray,
    *,
    tol: float = 1e-9,
    max_iter: int = 500,
    fallback: bool = True,
    progress: Callable[[int, int], None] | None = None,
    full_newton: bool = True,
) -> MaxEntSolution:
    """:func:`solve_maxent` on the grades as given, all cells in one vectorised batch.

    ``full_newton=False`` keeps the AP family on the linearised path (the
    independent route the full Newton iteration is tested against).
    """
    counts = np.asarray(counts, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    C, N = free.shape
    A = counts.shape[1]
    allowed = feasible_mask(free, counts)
    mask = np.where(np.moveaxis(allowed, 2, 0), 0.0, -np.inf)
    present, ref, lam = reference(counts, free)
    mu = np.zeros(C)
    linear = form.is_linear
    # the trust region grows only for linear measures: for the AP family a long step
    # lands where the linearisation no longer holds and the iteration cycles
    grow = 4.0 if linear else 1.0

    P_out = np.zeros((A, C, N))
    lam_out, mu_out = lam.copy(), mu.copy()
    done = np.zeros(C, dtype=bool)
    iters = np.zeros(C, dtype=np.int64)
    resid = np.full(C, np.inf)

    edge, P_edge, mu_edge = _boundary(form, counts, free, target, tol)
    if edge.size:
        P_out[:, edge] = np.moveaxis(P_edge, 2, 0)
        lam_out[edge], resid[edge], done[edge] = np.nan, 0.0, True
        mu_out[edge] = mu_edge
    active = np.flatnonzero(~done)
    f = form.take(active)
    if active.size == 0:
        return MaxEntSolution(np.ascontiguousarray(np.moveaxis(P_out, 0, 2)), lam_out, mu_out, done,
                              iters, np.zeros(C, dtype=bool), resid)
    lam, mu, counts_a, free_a = lam[active], mu[active], counts[active], free[active]
    mask, present, ref, target_a = mask[:, active], present[active], ref[active], target[active]
    if full_newton and not linear and supports_full_newton(f):
        # full Newton first (quadratic convergence near the solution); the cells it does not
        # bring home in _FULL_NEWTON_ITER iterations restart on the linearised path below
        P_n, lam_n, mu_n, res_n, it_n, ok_n = solve_full_newton(
            f, counts_a, target_a, mask, present, ref, lam, mu, tol,
            min(max_iter, _FULL_NEWTON_ITER))
        sel = active[ok_n]
        P_out[:, sel], lam_out[sel], mu_out[sel] = P_n[:, ok_n], lam_n[ok_n], mu_n[ok_n]
        resid[sel], iters[active], done[sel] = res_n[ok_n], it_n, True
        newton_iters = it_n[~ok_n]  # counted in with the linearised path's below
        if progress is not None:
            progress(int(done.sum()), C)
        rest = ~ok_n
        active, f = active[rest], f.take(np.flatnonzero(rest))
        lam, mu, counts_a, free_a = lam[rest], mu[rest], counts_a[rest], free_a[rest]
        mask, present, ref, target_a = mask[:, rest], present[rest], ref[rest], target_a[rest]
        if active.size == 0:
            return _finish(form, counts, free, target, P_out, lam_out, mu_out, done, iters, resid,
                           active, fallback, tol)
    else:
        newton_iters = np.zeros(len(active), dtype=np.int64)
    first = active.copy()
    # features at the uniform start P = R_a / N (ranks past the run: outcome 0)
    P, logZ = softmax(lam, mu, np.zeros((A, len(active), N)), mask)
    G = f.value_and_gradient_t(P)[1]
    lamc, muc, cnt, msk, tgt, prs, rf = lam, mu, counts_a, mask, target_a, present, ref
    damp = np.ones(len(active))
    radius = np.full(len(active), _MAX_LOGIT_STEP)
    stall = np.zeros(len(active), dtype=np.int64)  # consecutive steps without any decrease
    best = np.full(len(active), np.inf)  # smallest residual so far ...
    since = np.zeros(len(active), dtype=np.int64)  # ... and iterations since it fell by 1%
    mu_prev = mu_prev2 = mu.copy()
    stuck: list = []
    for it in range(max_iter + 1):
        E, Gnew = f.value_and_gradient_t(P, gradient=not linear)
        res = np.maximum(np.abs(P.sum(axis=2).T - cnt).max(axis=1), np.abs(E - tgt))
        if not linear and it > 0:  # halve the step of cells whose mu swings back, regrow it otherwise
            swing = np.sign(muc - mu_prev) * np.sign(mu_prev - mu_prev2) < 0
            damp = np.where(swing, np.maximum(damp * 0.5, 1.0 / 256), np.minimum(damp * 1.25, 1.0))
        if linear:
            ok = res <= tol
            merit = res
        else:
            stat = np.abs(muc) * np.abs(Gnew - G).max(axis=(0, 2))
            ok = (res <= tol) & (stat <= tol)
            merit = np.maximum(res, stat)
        improved = merit < 0.99 * best
        best = np.where(improved, merit, best)
        since = np.where(improved, 0, since + 1)
        iters[active] = it
        if it == max_iter:
            break
        # a cell whose line search found no decrease _STALL times running is stuck at the
        # rounding of its dual (mu of 1e9 near the edge of the feasible range): it leaves for
        # the SciPy retry instead of idling to max_iter
        out = ok | (since >= (_NO_PROGRESS if linear else 100)) | (linear & (stall >= _STALL))
        if out.any():
            sel = active[out]
            P_out[:, sel], lam_out[sel], mu_out[sel], resid[sel] = (
                P[:, out], lamc[out], muc[out], merit[out])
            done[active[ok]] = True
            stuck.extend(active[out & ~ok])
            keep = ~out
            active = active[keep]
            if progress is not None:
                progress(int(done.sum()), C)
            if active.size == 0:
                break
            f = f.take(np.flatnonzero(keep))
            (lamc, muc, cnt, tgt, prs, rf, logZ, E, damp, radius, stall, best, since, mu_prev,
             mu_prev2) = (x[keep] for x in (lamc, muc, cnt, tgt, prs, rf, logZ, E, damp, radius,
                                            stall, best, since, mu_prev, mu_prev2))
            P, G, msk = P[:, keep], G[:, keep], msk[:, keep]
            if not linear:
                Gnew = Gnew[:, keep]
        if linear:
            vlin = tgt
        else:  # linearise E[M] at P: Gnew . P' = v - E(P) + Gnew . P
            G = Gnew
            vlin = tgt - E + (P * G).sum(axis=(0, 2))
            P, logZ = softmax(lamc, muc, G, msk)
        mu_prev2, mu_prev = mu_prev, muc
        lamc, muc, P, logZ, radius, step = _newton_step(P, logZ, G, lamc, muc, cnt, vlin, msk, prs,
                                                        rf, damp, radius, grow)
        stall = np.where(step == 0.0, stall + 1, 0)
    if active.size:
        P_out[:, active], lam_out[active], mu_out[active], resid[active] = P, lamc, muc, merit
    iters[first] += newton_iters
    return _finish(form, counts, free, target, P_out, lam_out, mu_out, done, iters, resid,
                   np.concatenate([active, np.asarray(stuck, dtype=np.int64)]), fallback, tol)


def _finish(form, counts, free, target, P_out, lam_out, mu_out, done, iters, resid, unsolved,
            fallback, tol):
    """Retry ``unsolved`` cells with SciPy (when ``fallback``) and pack the solution."""
    C = len(done)
    unsolved = np.sort(unsolved)
    held = run_counts(counts, free) > 0  # grades the run does not hold report -inf
    lam_out = np.where(held | np.isnan(lam_out), lam_out, -np.inf)
    used_fallback = np.zeros(C, dtype=bool)
    P_out = np.ascontiguousarray(np.moveaxis(P_out, 0, 2))
    if fallback and unsolved.size:

        for c in unsolved:
            used_fallback[c] = True
            cell = form.take(np.array([c]))
            sol = solve_cell_scipy(cell, counts[c], free[c], target[c], lam_out[c], mu_out[c], tol)
            if sol is None:  # from where the iteration stopped, then from the uniform start
                sol = solve_cell_scipy(cell, counts[c], free[c], target[c],
                                       np.zeros(counts.shape[1]), 0.0, tol)
            if sol is not None:
                P_out[c], lam_out[c], mu_out[c], resid[c] = sol
                done[c] = True
    return MaxEntSolution(P_out, lam_out, mu_out, done, iters, used_fallback, resid)
