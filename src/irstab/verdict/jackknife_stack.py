r"""The verdict's jackknife interval of many collections at once (the calibration's replicates).

:func:`jackknife_differences_stack` is :func:`irstab.verdict.paired.phi_differences` with the
jackknife interval (:func:`irstab.verdict.jackknife.jackknife_differences`) applied to a stack
of collections ``(R, M, S, T)``: the same steps, each on every collection in one numpy call
instead of one call per collection. A calibration (:func:`irstab.verdict.calibration.calibrate`)
runs the verdict on thousands of small collections (the trust card: 37 x 43 scores, two
measures), where the per-call overhead of some fifty numpy calls a collection is most of the
cost.

The rule: every element of the result is the per-collection one. Element-wise steps are the
same operations on the same numbers; the reductions run over the same (last) axes in the same
order; each contrast's weights are one ``+1`` and one ``-1`` (candidate minus baseline), so
its sum over the measures is one exact subtraction in any order. Tested equal to the bit on
DL-2019 draws (two and three measures) and on generated cubes of two to four measures.
"""

from __future__ import annotations

import numpy as np

from .._numeric import PHI_ATOL, ZERO_RTOL, spread_exponent
from ..errors import IRStabError
from ..stability.coefficients import Coefficient, coef_from_psi, needed_from_psi, psi_of
from ..stability.designs.crossed import scaled_components
from .jackknife import HEAVY_TAILS, _mean_squares, contrast_kurtosis, facet_df, phi_gradient

__all__ = ["jackknife_differences_stack"]


def _loo_mean_squares(x: np.ndarray):
    """:func:`~irstab.verdict.jackknife.leave_one_out_mean_squares` of ``x (R, M, S, T)``."""
    S, T = x.shape[-2:]
    x2 = x * x
    rs, cs = x.sum(axis=-1), x.sum(axis=-2)  # (R, M, S), (R, M, T)
    g, q = rs.sum(axis=-1), x2.sum(axis=(-2, -1))
    r2, c2 = (rs * rs).sum(axis=-1), (cs * cs).sum(axis=-1)
    qi, qj = x2.sum(axis=-1), x2.sum(axis=-2)
    rx = np.einsum("rms,rmst->rmt", rs, x)
    cx = np.einsum("rmt,rmst->rms", cs, x)
    full = _mean_squares(q, g, r2, c2, S, T)
    e1 = (lambda a: a[..., None])
    by_system = _mean_squares(e1(q) - qi, e1(g) - rs, e1(r2) - rs * rs,
                              e1(c2) - 2.0 * cx + qi, S - 1, T)
    by_topic = _mean_squares(e1(q) - qj, e1(g) - cs, e1(r2) - 2.0 * rx + qj,
                             e1(c2) - cs * cs, S, T - 1)
    e2 = (lambda a: a[..., None, None])
    by_cell = _mean_squares(
        e2(q) - qi[..., :, None] - qj[..., None, :] + x2,
        e2(g) - rs[..., :, None] - cs[..., None, :] + x,
        (e1(r2) - 2.0 * rx + qj)[..., None, :] - (rs[..., :, None] - x) ** 2,
        (e1(c2) - 2.0 * cx + qi)[..., :, None] - (cs[..., None, :] - x) ** 2,
        S - 1, T - 1,
    )
    return full, by_system, by_topic, by_cell


def _weigh(w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``w @ v`` for each collection: ``w (K, M)``, ``v (R, M, ...)`` -> ``(R, K, ...)``."""
    return np.einsum("km,rm...->rk...", w, v)


def _centred(p: np.ndarray, axes) -> np.ndarray:
    return p - p.mean(axis=axes, keepdims=True)


def _gram(a: np.ndarray) -> np.ndarray:
    """``a @ a.T`` of each collection's ``(K, n)`` matrix, as the per-collection product."""
    return np.stack([c @ c.T for c in a])


def _system_kurtosis(x: np.ndarray) -> np.ndarray:
    return contrast_kurtosis(x.mean(axis=-1))  # system_kurtosis over (..., M, S, T)


def _affine_twins(y: np.ndarray, constant: np.ndarray, reference: int) -> np.ndarray:
    """:func:`~irstab._numeric.affine_twins` of each collection of ``y (R, M, S, T)``.

    ``y`` is the scores at unit spread (constant matrices 0), which ``affine_twins`` would
    make of them again to the bit, and ``constant`` which matrices are constant.
    """
    centred = y - y.mean(axis=(-2, -1), keepdims=True)
    spread = np.ptp(y.reshape(*y.shape[:-2], -1), axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = centred / np.where(spread > 0, spread, 1.0)[..., None, None]
        noise = ZERO_RTOL * np.abs(y).max(axis=(-2, -1)) / np.where(spread > 0, spread, 1.0)
    tol = noise + noise[:, reference, None] + ZERO_RTOL
    zr = z[:, reference, None]
    gap = np.minimum(np.abs(z - zr).max(axis=(-2, -1)), np.abs(z + zr).max(axis=(-2, -1)))
    c_ref = constant[:, reference, None]
    twins = (gap <= tol) & ~constant & ~c_ref
    return np.where(c_ref, constant, twins)


def jackknife_differences_stack(cubes: np.ndarray, baseline: int, candidates: np.ndarray, *,
                                confidence: float, target: float | None = None
                                ) -> dict[str, np.ndarray]:
    """The jackknife's ``phi``, ``diff``, ``lower``, ``upper``, ``sd`` of each of ``cubes``.

    ``cubes`` is ``(R, M, S, T)``: R collections of M measures, S systems, T topics.

    Each ``(R, M)`` array is, row by row, what
    :func:`irstab.verdict.paired.phi_differences` gives that collection with the jackknife
    interval (the fields of :class:`~irstab.verdict.draws.PhiDifferences` of the same
    names); ``candidates`` is the boolean mask of the simultaneous family. With ``target``,
    ``needed`` is :func:`irstab.verdict.decision.topics_needed` of each collection (the
    topics for Phi = ``target``), from the same G-study as ``phi``. Needs at least
    3 systems and 3 topics, as the per-collection function does.
    """
    from scipy.special import stdtrit

    R, M, S, T = cubes.shape
    if S < 3 or T < 3:
        raise IRStabError(
            f"the verdict's interval needs at least 3 systems and 3 topics, got {S} systems x "
            f"{T} topics"
        )
    # phi_differences: scale-free (unit_spread, its two steps kept for `constant`)
    k, constant = spread_exponent(cubes)
    cube = np.where(constant[..., None, None], 0.0, np.ldexp(cubes, -k[..., None, None]))
    others = np.array([k for k in range(M) if k != baseline], dtype=int)
    w = np.zeros((len(others), M))
    w[np.arange(len(others)), others] = 1.0
    w[:, baseline] = -1.0
    # phi_contrasts(cube, w), each step over the stack; its unit_spread(cube) is cube itself
    # (the spread is already in [1/2, 1), constant matrices already 0)
    y = cube - cube.mean(axis=(-2, -1), keepdims=True)
    full, by_s, by_t, by_c = _loo_mean_squares(y)
    _, grad = phi_gradient(full, S, T, T)  # (3, R, M)
    lin = (lambda ms: np.einsum("frm,frm...->rm...", grad, ms))
    by_s_lin = _weigh(w, lin(by_s))  # (R, K, S)
    heavy = np.einsum("km,rm->rk", (np.abs(w) > 0).astype(float),
                      (_system_kurtosis(y) >= HEAVY_TAILS).astype(float)) > 0
    exact_s = _weigh(w, phi_gradient(by_s, S - 1, T, T)[0])
    exact_t = _weigh(w, phi_gradient(by_t, S, T - 1, T)[0])
    by_s_used = np.where(heavy[..., None], exact_s, by_s_lin) if heavy.any() else by_s_lin
    p0, pt, pc = _weigh(w, lin(full)), _weigh(w, lin(by_t)), _weigh(w, lin(by_c))
    K = len(others)
    b = _centred(pt, -1)
    psi = p0[..., None, None] - by_s_lin[..., :, None] - pt[..., None, :] + pc
    psi = _centred(psi, (-2, -1)).reshape(R, K, -1)
    a = _centred(by_s_used, -1)
    diag = (lambda c: np.diagonal(c, axis1=-2, axis2=-1))
    v_s = diag((S - 1) / S * _gram(a))
    v_t = diag((T - 1) / T * _gram(b))
    v_st = diag((S - 1) * (T - 1) / (S * T) * _gram(psi))
    p_s, p_t, p_st = np.maximum(v_s - v_st, 0.0), np.maximum(v_t - v_st, 0.0), v_st
    variance = p_s + p_t + p_st
    cdf = facet_df(v_s, v_t, v_st, S, T, contrast_kurtosis(exact_s), contrast_kurtosis(exact_t))
    estimate = _weigh(w, coef_from_psi(psi_of(scaled_components(y)[0], Coefficient.phi), T))
    # jackknife_differences' assembly
    diff, sd, df = np.zeros((R, M)), np.zeros((R, M)), np.full((R, M), np.inf)
    diff[:, others], sd[:, others], df[:, others] = estimate, np.sqrt(variance), cdf
    twins = _affine_twins(cube, constant, baseline)
    diff[twins], sd[twins], df[twins] = 0.0, 0.0, np.inf
    diff[np.abs(diff) <= PHI_ATOL] = 0.0
    live = sd > PHI_ATOL
    gamma = 1.0 - confidence
    q = np.zeros((R, M))
    with np.errstate(invalid="ignore"):
        q[live] = stdtrit(df[live], 1.0 - gamma / 2.0)
    fam = np.asarray(candidates, dtype=bool)[None, :] & live
    fam[:, baseline] = False
    level = gamma / (2.0 * np.maximum(fam.sum(axis=1), 1))
    if fam.any():
        q[fam] = -stdtrit(df[fam], np.broadcast_to(level[:, None], (R, M))[fam])
    lo = np.maximum(diff - q * sd, -1.0)
    hi = np.minimum(diff + q * sd, 1.0)
    # Phi of every measure, and the topics each needs for Phi = target: the G-study's, of
    # cube (unit_spread of cubes: the same components as the scores themselves)
    psi = psi_of(scaled_components(cube)[0], Coefficient.phi)
    phi = coef_from_psi(psi, T)
    phi = np.where(twins, phi[:, baseline, None], phi)
    out = {"phi": phi, "diff": diff, "lower": lo, "upper": hi, "sd": sd}
    if target is not None:
        out["needed"] = needed_from_psi(psi, target)
    return out
