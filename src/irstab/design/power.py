r"""Power, topics needed and detectable differences: paired t-test, one-way ANOVA, CI width.

The three topic-set-size designs of Sakai ("Topic set size design", Information Retrieval
Journal 19, 2016), after Nagata's sample size design, as pure vectorised functions of the
requirements. Every argument broadcasts (numpy), so a curve over a grid of differences is one
call, never a Python loop.

**Paired t-test** (two systems on the same :math:`n` topics, two-sided level :math:`\alpha`).
The test is a one-sample t-test on the per-topic differences, whose variance is
:math:`\sigma_d^2`. With effect size :math:`\Delta = D/\sigma_d` the statistic is noncentral
t with :math:`\phi = n-1` degrees of freedom and noncentrality :math:`\lambda = \sqrt n\,\Delta`:

.. math::

    1-\beta = P(T'_{\phi,\lambda} > t_{\alpha/2}(\phi)) + P(T'_{\phi,\lambda} < -t_{\alpha/2}(\phi)).

**One-way ANOVA** over :math:`m` systems with :math:`n` topics each (the systems are the
groups, the topics the replicates). If the best and the worst system differ by
:math:`D` (the *minimum detectable range*), the least favourable configuration puts the other
systems at the midpoint, so :math:`\sum_i a_i^2 \ge D^2/2` and
:math:`\Delta = \sum_i a_i^2/\sigma^2 \ge D^2/(2\sigma^2)`; the F statistic is noncentral F
with :math:`(m-1, m(n-1))` degrees of freedom and noncentrality :math:`\lambda = n\Delta`.
(Cohen's :math:`f^2 = \Delta/m`, the effect size of statsmodels' ``FTestAnovaPower`` with
``nobs = m n``.)

**Confidence interval** of the difference of two systems: the expected half-width of the
paired :math:`100(1-\alpha)\%` interval at :math:`n` topics is

.. math::

    E[h] = t_{\alpha/2}(\phi)\,\frac{E[s_d]}{\sqrt n}, \qquad
    E[s_d] = \sigma_d \sqrt{\frac{2}{\phi}}\,\frac{\Gamma(n/2)}{\Gamma(\phi/2)},

and the topics needed are the smallest :math:`n` with :math:`E[h] \le h` (Sakai 2016 states it
for the width :math:`\delta = 2h`). The search starts from the normal-theory count
:math:`z_{\alpha/2}^2\sigma_d^2/h^2` and goes up one topic at a time, as Sakai describes.

Two methods
-----------
``"exact"`` (default) uses scipy's noncentral t and F and the Gamma function above.
``"sakai"`` uses the approximations of Sakai's Excel tools (samplesizeTTEST2,
samplesizeANOVA2, samplesizeCI2; Nagata 2003): for the t-test

.. math::

    1-\beta \approx \Phi\!\left(\frac{-w(1-\tfrac{1}{4\phi})-\lambda}{\sqrt{1+w^2/(2\phi)}}\right)
    + 1 - \Phi\!\left(\frac{w(1-\tfrac{1}{4\phi})-\lambda}{\sqrt{1+w^2/(2\phi)}}\right),
    \quad w = t_{\alpha/2}(\phi);

for the ANOVA Patnaik's chi-square for the noncentral numerator and Fisher's
:math:`\sqrt{2\chi^2}` normal approximation, :math:`1-\beta \approx 1-\Phi(u)` with
:math:`w = F_\alpha(\phi_A,\phi_E)`, :math:`c_A = (\phi_A+2\lambda)/(\phi_A+\lambda)`,
:math:`\phi_A^* = (\phi_A+\lambda)^2/(\phi_A+2\lambda)` and

.. math::

    u = \frac{\sqrt{w/\phi_E}\sqrt{2\phi_E-1} - \sqrt{c_A/\phi_A}\sqrt{2\phi_A^*-1}}
             {\sqrt{c_A/\phi_A + w/\phi_E}};

for the CI :math:`E[s_d] \approx \sigma_d (1 - 1/(4\phi))`. They agree with the exact values within
0.015 in power from 5 topics on (0.0002 for the t-test from 30 topics on; tests/design), so the
topic counts differ by a topic or two (ANOVA: under 1 %).

Conventions
-----------
* Topics needed are the smallest integer :math:`n \ge 2` (a t-test needs two topics) meeting
  the requirement; ``inf`` when no number does (a difference of 0). Counts above
  :data:`MAX_TOPICS` are reported as ``inf`` too.
* ``alpha`` (two-sided for the t-test and the interval) and ``beta`` lie in (0, 1);
  powers and detectable differences are floats, arrays when any argument is one.

Validated (tests/design/test_power_oracles.py) against statsmodels' ``TTestPower`` and
``FTestAnovaPower`` on a grid of (alpha, beta, difference, variance), an independent
``scipy.stats.nct``/``ncf`` computation and the CI closed form iterated in the test.
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from ..errors import IRStabError
from .critical import _f_crit, _t_crit

__all__ = [
    "MAX_TOPICS",
    "MIN_ALPHA",
    "Method",
    "anova_min_range",
    "anova_noncentrality",
    "anova_power",
    "anova_topics",
    "check_alpha_beta",
    "power_text",
    "ci_half_width",
    "ci_topics",
    "ttest_min_difference",
    "ttest_power",
    "ttest_topics",
]

#: Largest topic count reported as a number (beyond it: ``inf``, "not reachable in practice").
MAX_TOPICS = 10**7

#: Smallest ``alpha`` accepted: the smallest normal float64 (2.2e-308). Below it ``alpha`` and
#: the tail probabilities it is compared with are subnormal, with fewer significant bits than
#: a critical value needs.
MIN_ALPHA = float(np.finfo(float).tiny)


class Method(str, Enum):
    """How power and expected widths are computed (module docstring)."""

    exact = "exact"
    sakai = "sakai"


def _method(method) -> Method:
    try:
        return Method(method)
    except ValueError:
        raise IRStabError(f"method: expected 'exact' or 'sakai', got {method!r}") from None


def check_alpha_beta(alpha=None, beta=None) -> None:
    """``alpha`` and ``beta`` (arrays allowed) in (0, 1), and a power ``1 - beta`` above ``alpha``.

    A test at level :math:`\alpha` rejects with probability :math:`\alpha` when there
    is no difference at all, so a power of :math:`\alpha` or less is met by every
    difference, 0 included: asking for it is an error, not a detectable difference of
    -0.0000. The comparison allows for rounding: ``beta = 0.95`` with ``alpha = 0.05`` is a
    power of 5 % (``1 - 0.95`` is 0.050000000000000044 in floating point), refused too.

    Any ``beta`` in (0, 1) is usable, however small: the searches compare the Type II error
    itself with ``beta`` (``1 - beta`` is exactly 1.0 below :math:`2^{-53}`). So is any
    ``alpha`` down to :data:`MIN_ALPHA`: the critical values solve the tail probability for
    ``alpha`` itself (never ``1 - alpha/2``, which is 1.0 below 1.1e-16); a subnormal
    ``alpha`` is refused, naming the smallest usable one.
    """
    for name, v in (("alpha", alpha), ("beta", beta)):
        if v is None:
            continue
        a = np.asarray(v, dtype=float)
        if not np.all((a > 0) & (a < 1)):
            raise IRStabError(f"{name}: must be in (0, 1), got {v!r}")
    if alpha is not None and np.any(np.asarray(alpha, dtype=float) < MIN_ALPHA):
        raise IRStabError(
            f"alpha: {alpha!r} is subnormal in floating point (below {MIN_ALPHA:.4g}), too few "
            "significant bits to solve a tail probability for it; the smallest usable alpha "
            f"is {MIN_ALPHA:.17g}"
        )
    if alpha is not None and beta is not None:
        a, b = np.broadcast_arrays(np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float))
        low = (1.0 - b <= a) | (b >= 1.0 - a)  # either rounding says power <= alpha
        if np.any(low):
            power, level = float((1.0 - b)[low].flat[0]), float(a[low].flat[0])
            raise IRStabError(
                f"beta: the power asked for, 1 - beta = {power:.4g}, is not above alpha = "
                f"{level:g}: a test at level alpha rejects with probability alpha when there "
                "is no difference, so every difference (0 included) would be detectable; "
                "use beta < 1 - alpha"
            )


def power_text(beta: float) -> str:
    """The power asked for, as text: a percentage, or ``1 - beta`` when it would round to 100 %.

    >>> power_text(0.2), power_text(1e-20)
    ('80%', '1 - 1e-20')
    """
    return f"{1 - beta:.0%}" if beta >= 0.005 else f"1 - {beta:g}"


def _positive(name: str, v, allow_zero: bool = False):
    a = np.asarray(v, dtype=float)
    ok = np.isfinite(a) & ((a >= 0) if allow_zero else (a > 0))
    if not np.all(ok):
        what = ">= 0" if allow_zero else "> 0"
        raise IRStabError(f"{name}: must be finite and {what}, got {v!r}")
    return a


# ----------------------------------------------------------------- power


#: Noncentralities beyond which scipy's noncentral t CDF is NaN (from ~1.3e5), slow, or both.
_NCT_FAR = 1e5
#: Beyond this noncentrality P(T' < -w) <= Phi(-nc) is below 1e-300: 0.
_LOWER_ZERO = 40.0


def _nct_two_sided(df, nc, w, miss: bool = False):
    r"""``P(T' > w) + P(T' < -w)`` for noncentral t (``nc >= 0``, ``w > 0``), or with
    ``miss`` its complement ``P(-w <= T' <= w)`` computed directly (no ``1 - power``, which
    is 0 below 1e-16).

    scipy's noncentral t CDF returns NaN far in its tails and for noncentralities beyond
    ~1.3e5 (a tiny ``alpha`` puts ``w``, and the noncentrality that reaches it, that far).
    The lower tail is below :math:`\Phi(-nc)`, taken as 0 beyond :data:`_LOWER_ZERO`; beyond
    :data:`_NCT_FAR` (or where scipy gives NaN) :math:`P(T' \le w)` is its limit for large
    :math:`nc`, where the normal numerator is dominated by :math:`nc`:
    :math:`P(\chi^2_\phi \ge \phi\,(nc/w)^2)` (there the normal's standard deviation, 1, is
    under 5 % of the chi's, :math:`nc/\sqrt{2\phi} \ge 22` for :math:`\phi \le 10^7`).
    """
    from scipy import special

    # scipy is asked only where it answers: at 1e7 one call takes 0.2 s and returns NaN
    far = nc > _NCT_FAR
    below_w = special.nctdtr(df, np.where(far, 0.0, nc), w)
    with np.errstate(over="ignore"):  # an infinite effect: the limit is 0, as it should
        limit = special.chdtrc(df, df * (nc / w) ** 2)
    below_w = np.where(far | np.isnan(below_w), limit, below_w)
    lower = special.nctdtr(df, np.minimum(nc, _LOWER_ZERO), -w)
    lower = np.where(np.isnan(lower) | (nc > _LOWER_ZERO), 0.0, lower)
    if miss:
        return np.clip(below_w - lower, 0.0, 1.0)
    return np.clip(1.0 - below_w + lower, 0.0, 1.0)


def ttest_power(n, effect, alpha=0.05, method: Method | str = Method.exact):
    r"""Power of the two-sided paired t-test with ``n`` topics and effect size ``effect``.

    ``effect`` is :math:`\Delta = D/\sigma_d` (difference over the standard deviation of the
    per-topic differences); ``n >= 2``. Broadcasts over all arguments.

    >>> round(float(ttest_power(34, 0.5)), 4)  # statsmodels TTestPower gives the same
    0.8078
    """
    return _ttest(n, effect, alpha, method, miss=False)


def _ttest_miss(n, effect, alpha, method):
    """Type II error of the paired t-test, ``1 - ttest_power`` computed without cancellation."""
    return _ttest(n, effect, alpha, method, miss=True)


def _ttest(n, effect, alpha, method, miss: bool):
    from scipy import special

    method = _method(method)
    check_alpha_beta(alpha)
    n = np.asarray(n, dtype=float)
    if np.any(n < 2):
        raise IRStabError(f"n: a paired t-test needs at least 2 topics, got {np.min(n):g}")
    effect = np.abs(np.asarray(effect, dtype=float))
    df = n - 1.0
    nc = np.sqrt(n) * effect
    w = _t_crit(df, alpha)
    if method is Method.exact:
        return _nct_two_sided(df, nc, w, miss)
    # numerator and denominator divided by w, which reaches 1e307 for a tiny alpha
    scale = np.sqrt(w**-2.0 + 1.0 / (2.0 * df))
    shrink = 1.0 - 1.0 / (4.0 * df)
    low, high = (-shrink - nc / w) / scale, (nc / w - shrink) / scale
    if miss:
        return np.clip(special.ndtr(-high) - special.ndtr(low), 0.0, 1.0)
    return special.ndtr(low) + special.ndtr(high)


def anova_power(n, m, delta, alpha=0.05, method: Method | str = Method.exact):
    r"""Power of the one-way ANOVA F-test over ``m`` systems with ``n`` topics each.

    ``delta`` is :math:`\Delta = \sum_i a_i^2/\sigma^2`; for a minimum detectable range
    :math:`D`, :math:`\Delta = D^2/(2\sigma^2)`. Broadcasts.

    >>> round(float(anova_power(20, 4, 0.25 ** 2 * 4)), 4)  # statsmodels: f = 0.25, nobs = 80
    0.4204
    """
    return _anova(n, m, delta, alpha, method, miss=False)


def _anova_miss(n, m, delta, alpha, method):
    """Type II error of the ANOVA F-test, ``1 - anova_power`` computed without cancellation."""
    return _anova(n, m, delta, alpha, method, miss=True)


def _anova(n, m, delta, alpha, method, miss: bool):
    from scipy import special

    method = _method(method)
    check_alpha_beta(alpha)
    n = np.asarray(n, dtype=float)
    m = np.asarray(m, dtype=float)
    if np.any(m < 2):
        raise IRStabError(f"m: an ANOVA compares at least 2 systems, got {np.min(m):g}")
    if np.any(n < 2):
        raise IRStabError(f"n: at least 2 topics per system, got {np.min(n):g}")
    delta = np.abs(np.asarray(delta, dtype=float))
    pa, pe = m - 1.0, m * (n - 1.0)
    huge = np.isinf(delta)  # an infinite effect is detected surely (power 1)
    delta = np.where(huge, 1.0, delta)
    with np.errstate(over="ignore"):
        lam = n * delta
    w = _f_crit(pa, pe, alpha)
    if method is Method.exact:
        # scipy's noncentral F returns NaN for noncentralities beyond ~1e20, where the
        # rejection is certain (the numerator's mean (pa + lam) / pa is far beyond w)
        below = special.ncfdtr(pa, pe, lam, w)
        below = np.where(np.isnan(below), np.where(lam > w * pa, 0.0, 1.0), below)
        if miss:
            return np.where(huge, 0.0, np.clip(below, 0.0, 1.0))
        return np.where(huge, 1.0, np.clip(1.0 - below, 0.0, 1.0))
    lam = np.minimum(lam, 1e150)  # the approximation's squares stay finite; power is 1 there
    ca = (pa + 2.0 * lam) / (pa + lam)
    pa_star = (pa + lam) ** 2 / (pa + 2.0 * lam)
    u = (np.sqrt(w / pe) * np.sqrt(2.0 * pe - 1.0) - np.sqrt(ca / pa) * np.sqrt(2.0 * pa_star - 1.0)) \
        / np.sqrt(ca / pa + w / pe)
    if miss:
        return np.where(huge, 0.0, special.ndtr(u))
    return np.where(huge, 1.0, special.ndtr(-u))


def ci_half_width(n, var_diff, alpha=0.05, method: Method | str = Method.exact):
    r"""Expected half-width of the paired :math:`100(1-\alpha)\%` interval of a difference.

    ``var_diff`` is :math:`\sigma_d^2`, the variance of the per-topic differences (module
    docstring for both methods). Broadcasts.

    >>> round(float(ci_half_width(50, 0.02)), 5)
    0.03999
    """
    from scipy import special

    method = _method(method)
    check_alpha_beta(alpha)
    n = np.asarray(n, dtype=float)
    if np.any(n < 2):
        raise IRStabError(f"n: an interval needs at least 2 topics, got {np.min(n):g}")
    sd = np.sqrt(_positive("var_diff", var_diff, allow_zero=True))
    df = n - 1.0
    t = _t_crit(df, alpha)
    if method is Method.exact:
        c4 = np.sqrt(2.0 / df) * np.exp(special.gammaln(n / 2.0) - special.gammaln(df / 2.0))
    else:
        c4 = 1.0 - 1.0 / (4.0 * df)
    return t * sd * c4 / np.sqrt(n)


# ----------------------------------------------------------------- integer search


def _smallest_n(ok, start) -> np.ndarray:
    r"""Smallest integer ``n >= 2`` with ``ok(n)`` (elementwise; ``ok`` monotone in ``n``).

    ``ok`` maps an integer-valued float array (the shape of ``start``) to booleans. Doubling
    from ``start`` brackets the answer (``n = 1`` counts as failing), bisection finds it in
    about :math:`\log_2` of the count steps; elements never met by :data:`MAX_TOPICS` are
    ``inf``. Vectorised: every step evaluates all elements at once.
    """
    start = np.maximum(np.ceil(np.asarray(start, dtype=float)), 2.0)
    start = np.where(np.isfinite(start), np.minimum(start, MAX_TOPICS), MAX_TOPICS)
    lo = np.full(start.shape, 1.0)  # ok(lo) is False by convention (n = 1 is not a design)
    hi = start.copy()
    good = ok(hi)
    # Bracket: move hi up until ok (or MAX_TOPICS), remembering the last failure in lo.
    while not np.all(good | (hi >= MAX_TOPICS)):
        grow = ~good & (hi < MAX_TOPICS)
        lo = np.where(grow, hi, lo)
        hi = np.where(grow, np.minimum(hi * 2.0, MAX_TOPICS), hi)
        good = ok(hi)
    unreachable = ~good
    while True:
        gap = (hi - lo > 1) & ~unreachable
        if not gap.any():
            break
        mid = np.floor((lo + hi) / 2.0)
        met = ok(np.where(gap, mid, hi))
        hi = np.where(gap & met, mid, hi)
        lo = np.where(gap & ~met, mid, lo)
    return np.where(unreachable, np.inf, hi)


def _z(q):
    """Upper ``q`` quantile of the standard normal."""
    from scipy import special

    return -special.ndtri(q)


def _scalar(a):
    a = np.asarray(a, dtype=float)
    return float(a) if a.ndim == 0 else a


def ttest_topics(min_diff, var_diff, alpha=0.05, beta=0.20,
                 method: Method | str = Method.exact):
    r"""Topics for the paired t-test to detect ``min_diff`` with power ``1 - beta``.

    ``var_diff`` is :math:`\sigma_d^2` (see :func:`irstab.design.variance.residual_variance`
    for the estimate from a past collection: :math:`2\hat\sigma^2_{res}`). The search starts
    from Sakai's normal approximation
    :math:`((z_{\alpha/2}+z_\beta)/\Delta)^2 + z_{\alpha/2}^2/2`. Broadcasts.

    >>> float(ttest_topics(0.10, 0.10))  # effect size 0.316
    81.0
    """
    method = _method(method)
    check_alpha_beta(alpha, beta)
    diff = _positive("min_diff", min_diff, allow_zero=True)
    var = _positive("var_diff", var_diff, allow_zero=True)
    alpha, beta = np.asarray(alpha, float), np.asarray(beta, float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # tiny effects: inf start
        effect = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), np.inf)
        za = _z(alpha / 2.0)
        start = ((za + _z(beta)) / effect) ** 2 + za**2 / 2.0
    shape = np.broadcast(effect, alpha, beta).shape
    effect, alpha, beta, start = (np.broadcast_to(v, shape) for v in (effect, alpha, beta, start))
    start = np.where(np.isfinite(start), start, 2.0)

    def ok(n):
        return _ttest_miss(n, np.where(np.isinf(effect), 1e6, effect), alpha, method) <= beta

    out = _smallest_n(ok, start)
    return _scalar(np.where(effect == 0, np.inf, out))


def anova_noncentrality(df_num, alpha=0.05, beta=0.20):
    r"""Noncentrality :math:`\lambda` giving power ``1 - beta`` to a chi-square test with
    ``df_num`` degrees of freedom (the ANOVA with :math:`\phi_E = \infty`).

    Sakai's ANOVA tool starts its search from :math:`n = \lambda/\Delta`, reading
    :math:`\lambda` from Nagata's linear approximation :math:`x_1 + x_2\sqrt{\phi_A}` (Sakai,
    *Laboratory Experiments in Information Retrieval*, 2018, Table 6.4); this is the exact
    value (tests/design compare the two).

    >>> round(float(anova_noncentrality(1)), 3)  # (z_0.025 + z_0.2)^2
    7.849
    """
    from scipy import special

    check_alpha_beta(alpha, beta)
    df, a, b = np.broadcast_arrays(np.asarray(df_num, float), np.asarray(alpha, float),
                                   np.asarray(beta, float))
    crit = special.chdtri(df, a)
    lam = _bisect_increasing(lambda lam: -special.chndtr(crit, df, lam), -b,
                             np.broadcast_to(_z(a) + _z(b), df.shape) ** 2)
    return _scalar(lam)


def anova_topics(min_range, variance, m, alpha=0.05, beta=0.20,
                 method: Method | str = Method.exact):
    r"""Topics per system for the one-way ANOVA over ``m`` systems to detect a range ``min_range``.

    ``variance`` is :math:`\sigma^2`, the within-system (residual) variance of one score;
    :math:`\Delta = D^2/(2\sigma^2)`. Broadcasts.

    >>> float(anova_topics(0.10, 0.05, 10))
    158.0
    """
    method = _method(method)
    check_alpha_beta(alpha, beta)
    d = _positive("min_range", min_range, allow_zero=True)
    var = _positive("variance", variance, allow_zero=True)
    m = np.asarray(m, dtype=float)
    if np.any(m < 2) or not np.all(np.isfinite(m)):
        raise IRStabError(f"m: an ANOVA compares at least 2 systems, got {m!r}")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        delta = np.where(var > 0, d**2 / (2.0 * np.where(var > 0, var, 1.0)), np.inf)
    alpha, beta = np.asarray(alpha, float), np.asarray(beta, float)
    shape = np.broadcast(delta, m, alpha, beta).shape
    delta, m, alpha, beta = (np.broadcast_to(v, shape) for v in (delta, m, alpha, beta))
    # Start from the one-degree-of-freedom chi-square noncentrality: a lower bound.
    lam0 = (_z(alpha) + _z(beta)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        start = np.where(delta > 0, lam0 / np.where(delta > 0, delta, 1.0), 2.0)
    start = np.where(np.isfinite(start), start, 2.0)

    def ok(n):
        return _anova_miss(n, m, np.where(np.isinf(delta), 1e6, delta), alpha, method) <= beta

    out = _smallest_n(ok, start)
    return _scalar(np.where(delta == 0, np.inf, out))


def ci_topics(half_width, var_diff, alpha=0.05, method: Method | str = Method.exact):
    r"""Topics for the expected half-width of the paired interval to be at most ``half_width``.

    Starts from :math:`z_{\alpha/2}^2\sigma_d^2/h^2` (Sakai's :math:`4z^2\sigma^2/\delta^2`
    with :math:`\delta = 2h`) and finds the smallest :math:`n` with :math:`E[h] \le h`
    (:func:`ci_half_width`). Broadcasts.

    >>> float(ci_topics(0.05, 0.02))
    33.0
    """
    method = _method(method)
    check_alpha_beta(alpha)
    h = _positive("half_width", half_width)
    var = _positive("var_diff", var_diff, allow_zero=True)
    alpha = np.asarray(alpha, float)
    shape = np.broadcast(h, var, alpha).shape
    h, var, alpha = (np.broadcast_to(v, shape) for v in (h, var, alpha))
    # h beyond 1e154: start from 2 topics; below 1e-154 (h**2 is 0): from MAX_TOPICS
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        start = _z(alpha / 2.0) ** 2 * var / h**2

    def ok(n):
        return ci_half_width(n, var, alpha, method) <= h

    return _scalar(_smallest_n(ok, start))


# ----------------------------------------------------------------- inverse: what n can detect


def _bisect_increasing(f, target, guess, iters: int = 60):
    """Smallest ``x > 0`` with ``f(x) >= target`` (``f`` increasing in ``x``), elementwise.

    Doubles from ``guess`` until the target is met (so the noncentral distributions are never
    asked about absurd noncentralities, where they lose precision), then bisects.
    """
    hi = np.array(guess, dtype=float)
    lo = np.zeros(hi.shape)
    met = f(hi) >= target
    for _ in range(200):
        if met.all():
            break
        lo = np.where(met, lo, hi)
        hi = np.where(met, hi, hi * 2.0)
        met = f(hi) >= target
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        ok = f(mid) >= target
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return hi


def ttest_min_difference(n, var_diff, alpha=0.05, beta=0.20,
                         method: Method | str = Method.exact):
    r"""Smallest difference the paired t-test detects with power ``1 - beta`` at ``n`` topics.

    :math:`D = \Delta^*\sigma_d`, where :math:`\Delta^*` solves power :math:`= 1-\beta`
    (bisection to machine precision). Broadcasts.

    >>> round(float(ttest_min_difference(81, 0.10)), 4)  # the inverse of ttest_topics
    0.0996
    """
    check_alpha_beta(alpha, beta)
    n = np.asarray(n, dtype=float)
    if np.any(n < 2):
        raise IRStabError(f"n: a paired t-test needs at least 2 topics, got {np.min(n):g}")
    sd = np.sqrt(_positive("var_diff", var_diff, allow_zero=True))
    alpha, beta = np.asarray(alpha, float), np.asarray(beta, float)
    shape = np.broadcast(n, sd, alpha, beta).shape
    n, sd, alpha, beta = (np.broadcast_to(v, shape) for v in (n, sd, alpha, beta))
    guess = (_z(alpha / 2.0) + _z(beta)) / np.sqrt(n - 1.0)
    effect = _bisect_increasing(lambda e: -_ttest_miss(n, e, alpha, method), -beta, guess)
    return _scalar(effect * sd)


def anova_min_range(n, variance, m, alpha=0.05, beta=0.20,
                    method: Method | str = Method.exact):
    r"""Smallest range (best minus worst system) the ANOVA detects with power ``1 - beta``.

    :math:`D = \sigma\sqrt{2\Delta^*}` where :math:`\Delta^*` solves power :math:`= 1-\beta`.
    Broadcasts.

    >>> round(float(anova_min_range(158, 0.05, 10)), 4)  # the inverse of anova_topics
    0.0998
    """
    check_alpha_beta(alpha, beta)
    n = np.asarray(n, dtype=float)
    var = _positive("variance", variance, allow_zero=True)
    m = np.asarray(m, dtype=float)
    alpha, beta = np.asarray(alpha, float), np.asarray(beta, float)
    shape = np.broadcast(n, var, m, alpha, beta).shape
    n, var, m, alpha, beta = (np.broadcast_to(v, shape) for v in (n, var, m, alpha, beta))
    guess = (_z(alpha) + _z(beta)) ** 2 / (n - 1.0)
    delta = _bisect_increasing(lambda d: -_anova_miss(n, m, d, alpha, method), -beta, guess)
    return _scalar(np.sqrt(2.0 * delta * var))
