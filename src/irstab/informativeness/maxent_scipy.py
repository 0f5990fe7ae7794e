"""The per-cell SciPy retry of :func:`.maxent.solve_maxent`.

Cells the vectorised iteration leaves unsolved are solved one by one with
:func:`scipy.optimize.root` (MINPACK ``hybr``) on the multipliers
``(lambda, mu)``: for given multipliers ``P`` is the fixed point of
``P = softmax(lambda + mu G(P))`` (a damped iteration; for a linear measure
one softmax), and the residuals are the count and value constraints.
"""

from __future__ import annotations

import numpy as np

from .maxent_family import feasible_mask, reference, softmax

__all__ = ["solve_cell_scipy"]


def _cell_softmax(lam, mu, G, allowed):
    P, _ = softmax(lam, mu, np.moveaxis(G, 2, 0), np.where(np.moveaxis(allowed, 2, 0), 0.0, -np.inf))
    return np.moveaxis(P, 0, 2)


def _fixed_point(form, lam, mu, allowed, iters=200, tol=1e-13):
    """``P = softmax(lam + mu G(P))`` for one cell (damped iteration)."""
    P0 = np.where(allowed, 1.0, 0.0)
    P0 /= P0.sum(axis=2, keepdims=True)
    _, G = form.value_and_gradient(P0)
    P = _cell_softmax(lam, mu, G, allowed)
    if form.is_linear:
        return P, G
    for _ in range(iters):
        _, Gn = form.value_and_gradient(P)
        Pn = _cell_softmax(lam, mu, 0.5 * (G + Gn), allowed)
        G = 0.5 * (G + Gn)
        if np.abs(Pn - P).max() < tol:
            return Pn, G
        P = Pn
    return P, G


def solve_cell_scipy(form, counts, free, target, lam0, mu0, tol):
    """One cell with :func:`scipy.optimize.root`; ``(P, lam, mu, residual)`` or None."""
    from scipy.optimize import root

    counts = counts[None]
    allowed = feasible_mask(free[None], counts)
    present, ref, _ = reference(counts, free[None])
    present, ref = present[0], int(ref[0])
    free_idx = [a for a in range(counts.shape[1]) if present[a] and a != ref]
    lam_base = np.where(present, 0.0, -np.inf)
    lam_base[0] = 0.0  # grade 0 fills the ranks past the run; the mask keeps it off the run

    def unpack(x):
        lam = lam_base.copy()
        lam[free_idx] = x[:-1]
        return lam[None], np.array([x[-1]])

    def residual(x):
        lam, mu = unpack(x)
        P, _ = _fixed_point(form, lam, mu, allowed)
        E = form.value(P)
        return np.concatenate([(P.sum(axis=1) - counts)[0, free_idx], E - target])

    start = np.concatenate([np.nan_to_num(lam0[free_idx] - (lam0[ref] if np.isfinite(lam0[ref]) else 0.0)), [mu0]])
    if not np.all(np.isfinite(start)):
        start = np.zeros(len(free_idx) + 1)
    try:
        out = root(residual, start, method="hybr", options={"xtol": 1e-14, "maxfev": 60 * len(start)})
    except (ValueError, FloatingPointError, np.linalg.LinAlgError):  # pragma: no cover - MINPACK guard
        return None
    lam, mu = unpack(out.x)
    P, G = _fixed_point(form, lam, mu, allowed)
    E = form.value(P)
    res = max(np.abs(P.sum(axis=1) - counts).max(), abs(float(E[0]) - target))
    if not np.isfinite(res) or res > tol * 10:
        return None
    return P[0], lam[0], float(mu[0]), res
