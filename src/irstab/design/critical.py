r"""Critical values of Student's t and Fisher's F at any level float64 holds (down to 2.2e-308).

An inverse CDF evaluated at ``1 - alpha`` rounds to the quantile at 1 (``inf``) once
``alpha`` is below 1.1e-16, and scipy's inverse CDFs are wrong or infinite in the far tails
even when asked for ``alpha`` itself. Here scipy's answer is kept where the survival function
gives ``alpha`` back; elsewhere the tail probability is solved by bisection.
Validated in tests/design/test_power_tiny_alpha.py against closed forms (t with 1 and 2
degrees of freedom, F with 2 numerator degrees of freedom) and ``scipy.stats.t.isf``.
"""

from __future__ import annotations

import numpy as np

#: Bracket of the critical-value search, in log: 5e-324 .. 1.8e308 (every representable value).
_LOG_CRIT = (-745.0, 709.7)


def _upper_quantile(sf, alpha):
    r"""The ``w > 0`` with ``sf(w) = alpha`` (``sf`` decreasing), elementwise.

    Bisection on :math:`\log w` over every representable positive float (64 halvings of
    the bracket's 1455 units), then 12 in :math:`w` itself, which a log of up to 709 cannot
    resolve below a relative 1e-13: the result is within a few ulps of the root. Solving the
    tail probability itself keeps full precision for any ``alpha``, where an inverse CDF at
    ``1 - alpha`` rounds to the quantile at 1 (``inf``) below 1.1e-16.
    """
    alpha = np.asarray(alpha, dtype=float)
    lo = np.full(alpha.shape, _LOG_CRIT[0])
    hi = np.full(alpha.shape, _LOG_CRIT[1])
    w_lo, w_hi = np.exp(lo), np.exp(hi)
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        w = np.exp(mid)
        above = sf(w) > alpha  # the quantile lies above w
        lo, w_lo = np.where(above, mid, lo), np.where(above, w, w_lo)
        hi, w_hi = np.where(above, hi, mid), np.where(above, w_hi, w)
    for _ in range(12):
        w = 0.5 * (w_lo + w_hi)
        above = sf(w) > alpha
        w_lo, w_hi = np.where(above, w, w_lo), np.where(above, w_hi, w)
    return 0.5 * (w_lo + w_hi)


def _t_sf(df, w):
    r""":math:`P(|T_\phi| > w)`.

    :math:`I_x(\phi/2, 1/2)` with :math:`x = \phi/(\phi + w^2)`, from :math:`r = \sqrt\phi/w`
    so that :math:`w^2` never overflows (scipy's ``stdtr`` loses the tail beyond 1e154); the
    complement :math:`1 - I_{1-x}(1/2, \phi/2)` where :math:`x` is near 1; one degree of
    freedom (Cauchy) in closed form, as :math:`x` underflows there.
    """
    from scipy import special

    r2 = (np.sqrt(df) / w) ** 2
    x, y = r2 / (1.0 + r2), 1.0 / (1.0 + r2)
    tail = np.where(x < 0.5, special.betainc(df / 2.0, 0.5, x), special.betaincc(0.5, df / 2.0, y))
    return np.where(df == 1.0, np.arctan(1.0 / w) * (2.0 / np.pi), tail)


def _checked_quantile(guess, sf, alpha):
    """``guess`` where ``sf`` gives ``alpha`` back to 1e-12, else :func:`_upper_quantile`.

    scipy's inverse CDFs are right and fast for ordinary levels and wrong or infinite in the
    far tails; only the elements they fail are solved by bisection (``sf(w, sel)`` evaluates
    the elements ``sel``).
    """
    w = np.array(guess, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = np.isfinite(w) & (w > 0) & (np.abs(sf(w, ...) / alpha - 1.0) <= 1e-12)
    if not ok.all():
        bad = ~ok
        w[bad] = _upper_quantile(lambda v: sf(v, bad), alpha[bad])
    return w


def _t_crit(df, alpha):
    r"""Two-sided critical value :math:`t_{\alpha/2}(\phi)`: :math:`P(|T_\phi| > w) = \alpha`."""
    from scipy import special

    df, alpha = (np.array(v, dtype=float) for v in
                 np.broadcast_arrays(np.asarray(df, dtype=float), np.asarray(alpha, dtype=float)))
    return _checked_quantile(-special.stdtrit(df, alpha / 2.0),
                             lambda w, sel: _t_sf(df[sel], w), alpha)


def _f_crit(df_num, df_den, alpha):
    r"""Upper critical value :math:`F_\alpha(\phi_A, \phi_E)`: :math:`P(F > w) = \alpha`."""
    from scipy import special

    pa, pe, alpha = (np.array(v, dtype=float) for v in np.broadcast_arrays(
        np.asarray(df_num, dtype=float), np.asarray(df_den, dtype=float),
        np.asarray(alpha, dtype=float)))
    return _checked_quantile(special.fdtri(pa, pe, 1.0 - alpha),
                             lambda w, sel: special.fdtrc(pa[sel], pe[sel], w), alpha)
