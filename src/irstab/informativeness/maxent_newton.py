r"""Full Newton steps for the maximum-entropy problem of the average-precision family.

For AP, GAP and eGAP ``E[M]`` is quadratic in the probability-at-rank
distribution ``P`` (:mod:`.product_expectation`), so the
stationarity condition of the maximum-entropy problem is a fixed point,
``z = lambda + mu G(P(z))`` with ``P_n = softmax(z_n)``. Linearising ``G``
and solving the dual of the linearised problem (the generic path of
:func:`.maxent.solve_maxent`) ignores how ``G`` moves with ``P``: the step
overshoots along ``mu`` and the iteration converges linearly, in 50-100
iterations. Here the whole system (logits ``z``, multipliers ``lambda`` and
``mu``) is solved by Newton's method.

Linear algebra
--------------
For one threshold ``t``, with ``e(a) = 1[a >= t]``, ``S_n = sum_a e(a) P_na`` and
``G_na = alpha e(a) (h_n (1 + Q_{n-1}) + sum_{m>n} h_m S_m)``, the Jacobian of
``G`` in ``P`` is ``K = alpha (e e^T) (x) H'`` with ``H'_nm = h_max(n,m)`` off
the diagonal and 0 on it. Every Newton system needs ``y = (I - mu K D)^{-1} b``
(``D``: the per-rank softmax covariance) for a few right-hand sides. Since
``K`` only sees ``X_n = Cov_n(e, y)``, this reduces to one scalar per rank,

.. math::  X - \mu \alpha V \odot (H' X) = \beta,
           \qquad V_n = S_n (1 - S_n), \quad \beta_n = \mathrm{Cov}_n(e, b),

and ``H = U diag(delta) U^T`` (``U`` upper-triangular ones, ``delta_n = h_n -
h_{n+1}``) has the tridiagonal inverse ``T = U^{-T} diag(1/delta) U^{-1}``.
With ``Phi = H X``: ``(T - diag(b)) Phi = a``, ``a = beta / (1 + mu alpha V h)``,
``b = mu alpha V / (1 + mu alpha V h)``, then ``X = a + b Phi`` and
``H'X = Phi - h X``: one tridiagonal solve over all cells and ranks at once
(LAPACK ``ptsv``, Cholesky; ``gtsv`` with pivoting when that fails), and ``X``
is recovered without differencing ``Phi``. Ranks past a cutoff (``h = 0``)
are uncoupled (identity rows).

With several thresholds (GAP or eGAP on graded judgements) the outcome factor
is ``W = sum_k alpha_k e_k e_k^T`` and the reduction needs one unknown per
threshold and rank, a block-tridiagonal system. Its best rank-one
approximation ``w w^T`` (:func:`coupling`; the second eigenvalue of ``W`` is
0.13 of the first for GAP's default ``g`` on four grades) keeps the scalar
tridiagonal solve: the step is then an approximate Newton step, and the
iteration converges linearly near the solution (a median of 15 iterations for
GAP on DL-2019 against 8 for AP).

The Newton step on ``(lambda, mu)`` then uses the dual Hessian
``F^T D (I - mu K D)^{-1} F`` (``F``: the features, one indicator per grade
and ``G``): the linearised Hessian plus ``mu alpha sum_n beta^(j)_n (H'X^(l))_n``.
A cell whose tridiagonal system is singular takes the linearised step.
Globalisation: no logit moves by more than a per-cell radius in one step;
the radius doubles after a step that lowered the residual and halves after
one that did not.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

from .product_expectation import ProductForm

__all__ = ["supports_full_newton", "solve_full_newton"]

_RADIUS0 = 20.0
_MAX_RADIUS = 1e12


def supports_full_newton(form: ProductForm) -> bool:
    """Quadratic terms whose per-rank weights are the threshold indicators (AP, GAP, eGAP)."""
    if form.alpha.shape[1] == 0 or np.any(form.scale != 0):
        return False
    A = form.outcome_value.shape[0]
    E = (np.arange(A)[None, :] >= form.thresholds[:, None]).astype(np.float64)
    h = form.h[form.h > 0]
    return bool(np.all(form.u == E[None])) and bool(np.all(np.diff(h) < 0))


def coupling(form: ProductForm) -> np.ndarray:
    """``w`` (C, A) with ``w w^T`` the outcome factor of ``dG/dP`` (exact for one threshold).

    ``dG/dP = W (x) H'`` with ``W = sum_k alpha_k e_k e_k^T``; with several
    thresholds (GAP on graded judgements) ``W`` is replaced by its best
    rank-one approximation, and the Newton step becomes an approximate one.
    """
    A = form.outcome_value.shape[0]
    E = (np.arange(A)[None, :] >= form.thresholds[:, None]).astype(np.float64)  # (K, A)
    if E.shape[0] == 1:
        return np.sqrt(np.maximum(form.alpha[:, :1], 0.0)) * E
    W = np.einsum("ck,ka,kb->cab", form.alpha, E, E)
    val, vec = np.linalg.eigh(W)
    return vec[:, :, -1] * np.sqrt(np.maximum(val[:, -1:], 0.0))


def _tridiagonal(h: np.ndarray, N: int):
    """Diagonal and off-diagonal of ``T = H^{-1}`` on the ranks with ``h > 0`` (identity beyond)."""
    h = h[:N]
    kc = int((h > 0).sum())
    d = np.ones(N)
    off = np.zeros(N)  # off[n] = T[n, n + 1]
    if kc:
        delta = h[:kc] - np.append(h[1:kc], 0.0)
        inv = 1.0 / delta
        d[:kc] = inv
        d[1:kc] += inv[:kc - 1]
        off[:kc - 1] = -inv[:kc - 1]
    return d, off, kc


def _resolvent(beta, V, mu, h, d, off, kc, cholesky=None):
    """``H'X`` for ``X - mu V (H'X) = beta`` with ``beta`` (k, C, N): (k, C, N) and solved cells."""
    k, C, N = beta.shape
    denom = 1.0 + mu[:, None] * V * h[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero denominator: the cell drops
        b = mu[:, None] * V / denom
        a = beta / denom
    b[:, kc:] = 0.0
    a[:, :, kc:] = 0.0
    diag = d[None, :] - b
    du = np.broadcast_to(off, (C, N)).copy()
    du[:, -1] = 0.0  # no coupling across cells
    ok = np.ones(C, dtype=bool)
    # usually positive definite (T is, and b is small beside it): Cholesky, no pivoting,
    # until it fails once for these cells (``cholesky``: a one-element list of the state)
    info = 1
    if cholesky is None or cholesky[0]:
        _, _, phi, info = lapack.dptsv(diag.ravel(), du.ravel()[:-1],
                                       a.reshape(k, C * N).T.copy(order="F"), overwrite_b=1)
    if info == 0 and np.isfinite(phi).all():
        phi = phi.T.reshape(k, C, N)
    else:
        if cholesky is not None:
            cholesky[0] = False
        phi = _pivoted(a, diag, du, ok)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = beta / denom  # ranks past a cutoff: X = beta
    X = a + b * phi
    X *= h
    out = phi - X
    out[:, ~ok] = 0.0
    return out, ok


def _pivoted(a, diag, du, ok):
    """The tridiagonal solve with partial pivoting; cells that stay singular drop out of ``ok``."""
    k, C, N = a.shape
    for _ in range(4):
        dd = np.where(ok[:, None], diag, 1.0)
        up = np.where(ok[:, None], du, 0.0).ravel()[:-1]
        rhs = np.where(ok[:, None], a, 0.0).reshape(k, C * N).T  # Fortran order: no copy
        _, _, _, phi, info = lapack.dgtsv(up, dd.ravel(), up.copy(), rhs, overwrite_b=1)
        if info == 0:
            phi = phi.T.reshape(k, C, N)
            good = np.isfinite(phi).all(axis=(0, 2))
            if good.all():
                return phi
            ok &= good
            continue
        ok[(info - 1) // N] = False  # singular for this cell: it takes the linearised step
    ok[:] = False
    return np.zeros((k, C, N))


def solve_full_newton(form, counts, target, mask, present, ref, lam, mu, tol, max_iter):
    """Newton's method on ``(z, lambda, mu)`` for all cells of ``form``.

    Arguments as in :func:`.maxent.solve_maxent` (``mask`` outcome-major
    (A, C, N), 0 or -inf); ``lam``, ``mu`` the starting multipliers.
    Returns ``(P (A, C, N), lam, mu, residual, iterations, converged)``.
    """
    A, C, N = mask.shape
    alpha = coupling(form)  # (C, A)
    h = form.h[:N]
    d, off, kc = _tridiagonal(form.h, N)
    allowed = np.isfinite(mask)
    idx = np.arange(C)
    fixed = np.zeros((C, A + 1), dtype=bool)
    fixed[:, :A] = ~present
    fixed[idx, ref] = True

    lam = np.where(present, lam, 0.0)
    z = np.where(allowed, lam.T[:, :, None], -np.inf)
    P_out = np.zeros((A, C, N))
    lam_out, mu_out = lam.copy(), mu.copy()
    res_out = np.full(C, np.inf)
    iters = np.zeros(C, dtype=np.int64)
    conv = np.zeros(C, dtype=bool)
    radius = np.full(C, _RADIUS0)
    active = np.arange(C)
    f = form
    cnt, tgt, msk, alw, fx, al = counts, target, mask, allowed, fixed, alpha
    prev = None
    cholesky = [True]
    for it in range(max_iter + 1):
        zmax = np.max(z, axis=0)
        P = np.exp(z - zmax)
        P /= P.sum(axis=0)
        E, G = f.value_and_gradient_t(P)
        r = np.concatenate([P.sum(axis=2).T - cnt, (E - tgt)[:, None]], axis=1)
        rho = z - lam.T[:, :, None]
        rho -= mu[:, None] * G
        rho[~alw] = 0.0
        # per-rank shifts do not change P
        np.subtract(rho, np.einsum("acn,acn->cn", P, rho), out=rho, where=alw)
        stat = np.abs(rho).max(axis=(0, 2))
        res = np.abs(r).max(axis=1)
        merit = np.maximum(res, stat)
        if prev is not None:
            radius = np.where(merit < prev, np.minimum(radius * 2.0, _MAX_RADIUS),
                              np.maximum(radius * 0.5, 1e-3))
        prev = merit
        ok = (res <= tol) & (stat <= tol)
        iters[active] = it
        done_now = ok | (it == max_iter)
        if done_now.any():
            sel = active[done_now]
            P_out[:, sel], lam_out[sel], mu_out[sel] = P[:, done_now], lam[done_now], mu[done_now]
            res_out[sel] = merit[done_now]
            conv[sel] = ok[done_now]
            keep = ~done_now
            if not keep.any():
                break
            active = active[keep]
            f = f.take(np.flatnonzero(keep))
            P, z, G, rho, r = P[:, keep], z[:, keep], G[:, keep], rho[:, keep], r[keep]
            lam, mu, cnt, tgt, al = lam[keep], mu[keep], cnt[keep], tgt[keep], al[keep]
            msk, alw, fx, radius = msk[:, keep], alw[:, keep], fx[keep], radius[keep]
            prev = prev[keep]
        z, lam, mu = _step(P, z, G, rho, r, lam, mu, al, h, d, off, kc, alw, fx, radius,
                           cholesky)
    lam_out = np.where(present, lam_out, -np.inf)  # grades absent from the list
    return P_out, lam_out, mu_out, res_out, iters, conv


def _step(P, z, G, rho, r, lam, mu, w, h, d, off, kc, allowed, fixed, radius, cholesky=None):
    A, C, N = P.shape
    e = w.T[:, :, None]  # (A, C, 1)
    Pe = P * e
    S = Pe.sum(axis=0)
    V = (Pe * e).sum(axis=0) - S * S
    PG = P * G
    Gbar = PG.sum(axis=0)
    Prho = (P * rho).sum(axis=0)
    # beta_n = Cov_n(w, b) for b = indicator of each grade, G and rho
    beta = np.empty((A + 2, C, N))
    np.multiply(P, e - S, out=beta[:A])
    beta[A] = np.einsum("acn,acn->cn", Pe, G) - S * Gbar
    beta[A + 1] = np.einsum("acn,acn->cn", Pe, rho) - S * Prho
    W, _ = _resolvent(beta, V, mu, h, d, off, kc, cholesky)
    # linearised dual Hessian: covariances of the features (indicators, G)
    H = np.empty((C, A + 1, A + 1))
    Pt = P.transpose(1, 0, 2)
    H[:, :A, :A] = -np.matmul(Pt, P.transpose(1, 2, 0))
    H[:, np.arange(A), np.arange(A)] += P.sum(axis=2).T
    H[:, :A, A] = (PG.sum(axis=2) - np.einsum("acn,cn->ac", P, Gbar)).T
    H[:, A, :A] = H[:, :A, A]
    H[:, A, A] = np.einsum("acn,acn->c", PG, G) - np.einsum("cn,cn->c", Gbar, Gbar)
    # F^T D rho
    FDrho = np.empty((C, A + 1))
    FDrho[:, :A] = (np.einsum("acn,acn->ac", P, rho) - np.einsum("acn,cn->ac", P, Prho)).T
    FDrho[:, A] = np.einsum("acn,acn->c", PG, rho) - np.einsum("cn,cn->c", Gbar, Prho)
    # resolvent corrections: mu alpha sum_n beta_j W_l
    corr = np.matmul(beta[:A + 1].transpose(1, 0, 2), W.transpose(1, 2, 0)) * mu[:, None, None]
    Hx = H + corr[:, :, :A + 1]
    rhs = -r + FDrho + corr[:, :, A + 1]
    Hx = np.where(fixed[:, :, None] | fixed[:, None, :], 0.0, Hx)
    Hx[:, np.arange(A + 1), np.arange(A + 1)] += fixed
    rhs = np.where(fixed, 0.0, rhs)
    with np.errstate(all="ignore"):
        sc = np.sqrt(np.abs(np.diagonal(Hx, axis1=1, axis2=2)))
        sc = np.where(sc > 0, 1.0 / np.where(sc > 0, sc, 1.0), 1.0)
        Hs = Hx * sc[:, :, None] * sc[:, None, :]
        good = np.isfinite(Hs).all(axis=(1, 2)) & np.isfinite(rhs).all(axis=1)
        Hs[~good], rhs[~good] = np.eye(A + 1), 0.0
        inv = np.linalg.pinv(Hs, rcond=1e-14, hermitian=True)
        dth = sc * (inv @ (sc * rhs)[:, :, None])[:, :, 0]
    dth[~good] = 0.0
    dth = np.where(fixed, 0.0, dth)
    dlam, dmu = dth[:, :A], dth[:, A]
    # dz = F dtheta - rho + mu alpha e (x) (sum_j dtheta_j W_j - W_rho)
    Wt = np.einsum("jcn,cj->cn", W[:A + 1], dth) - W[A + 1]
    dz = dmu[:, None] * G
    dz += dlam.T[:, :, None]
    dz -= rho
    dz += (mu[:, None] * Wt)[None] * e
    # per-rank shifts are free: centre so that the trust region measures real moves (P is 0
    # where an outcome is not allowed, and dz is set to 0 there)
    mean = np.einsum("acn,acn->cn", P, dz)
    np.subtract(dz, mean, out=dz, where=allowed)
    dz[~allowed] = 0.0
    reach = np.abs(dz).max(axis=(0, 2))
    s = np.minimum(1.0, radius / np.where(reach > 0, reach, 1.0))
    return z + s[None, :, None] * dz, lam + s[:, None] * dlam, mu + s * dmu
