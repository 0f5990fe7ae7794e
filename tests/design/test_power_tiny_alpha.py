"""Topic counts and critical values at any significance level float64 holds, down to 2.2e-308.

An inverse CDF at ``1 - alpha/2`` rounds to the quantile at 1 (``inf``) once ``alpha`` is
below 1.1e-16, which made every count "more than 10,000,000 topics". The oracles here:

1. closed forms of the critical values: Student's t with 1 degree of freedom (Cauchy,
   :math:`w = \\cot(\\pi\\alpha/2)`) and 2 (:math:`w^2 = 2(1-\\alpha)^2/(\\alpha(2-\\alpha))`),
   F with 2 numerator degrees of freedom (:math:`P(F > w) = (1 + 2w/\\phi_E)^{-\\phi_E/2}`);
   ``scipy.stats.t.isf`` where it is accurate (many degrees of freedom);
2. the paired t-test's power from ``scipy.stats.nct`` at ``scipy.stats.t.isf``'s critical
   value (not the library's bisection): the count ``n`` reaches power ``1 - beta`` and
   ``n - 1`` does not;
3. the normal closed form as a bracket: :math:`n_z = ((z_{\\alpha/2}+z_\\beta)/\\Delta)^2
   \\le n \\le n_z + z_{\\alpha/2}^2/2 + 3` (the t-test needs more topics than the z-test;
   Sakai's correction :math:`z_{\\alpha/2}^2/2` is what the heavier tails cost);
4. the one-way ANOVA against its chi-square limit (``anova_noncentrality``), which it
   approaches when the error degrees of freedom are many.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from irstab.design import anova_topics, ci_topics, power_plan, ttest_min_difference, ttest_topics
from irstab.design.power import (
    MIN_ALPHA,
    _f_crit,
    _t_crit,
    anova_noncentrality,
    ttest_power,
)
from irstab.errors import IRStabError

LOG_ALPHA = st.floats(min_value=-300.0, max_value=-1.0)


@given(LOG_ALPHA)
@settings(max_examples=60, deadline=None)
def test_t_critical_values_equal_the_closed_forms(log_alpha):
    alpha = 10.0**log_alpha
    cauchy = 1.0 / math.tan(math.pi * alpha / 2.0)
    two = math.sqrt(2.0 * (1.0 - alpha) ** 2 / (alpha * (2.0 - alpha)))
    assert float(_t_crit(1.0, alpha)) == pytest.approx(cauchy, rel=1e-13)
    assert float(_t_crit(2.0, alpha)) == pytest.approx(two, rel=1e-13)


@pytest.mark.parametrize("df", [30.0, 100.0, 1e3, 1e5, 1e7])
@pytest.mark.parametrize("alpha", [0.5, 0.05, 1e-5, 1e-15, 1e-20, 1e-100, 1e-300, MIN_ALPHA])
def test_t_critical_values_equal_scipy_t_isf(df, alpha):
    # the old stdtrit(df, 1 - alpha/2) is inf from 1e-16 down
    assert float(_t_crit(df, alpha)) == pytest.approx(stats.t.isf(alpha / 2.0, df), rel=1e-10)


@given(LOG_ALPHA, st.sampled_from([2.0, 10.0, 1e3, 1e6]))
@settings(max_examples=60, deadline=None)
def test_f_critical_values_equal_the_closed_form(log_alpha, pe):
    alpha = 10.0**log_alpha
    want = pe / 2.0 * math.expm1(-2.0 / pe * math.log(alpha))
    assert float(_f_crit(2.0, pe, alpha)) == pytest.approx(want, rel=1e-12)


def _power_oracle(n, effect, alpha):
    df, nc = n - 1.0, math.sqrt(n) * effect
    w = stats.t.isf(alpha / 2.0, df)
    # the lower tail P(T' < -w); where scipy's noncentral t gives NaN (it does, now and then,
    # at thousands of df), E[Phi(-w sqrt(V/df) - nc)] over V ~ chi2(df), by quadrature
    lower = float(stats.nct.cdf(-w, df, nc))
    if math.isnan(lower):
        from scipy import integrate

        lo, hi = stats.chi2.ppf([1e-15, 1 - 1e-15], df)
        lower = integrate.quad(lambda v: stats.chi2.pdf(v, df) * special.ndtr(
            -w * math.sqrt(v / df) - nc), lo, hi, epsabs=1e-14, limit=200)[0]
    return stats.nct.sf(w, df, nc) + lower


@given(LOG_ALPHA, st.sampled_from([0.05, 0.25, 1.0]), st.sampled_from([0.2, 0.05]))
@settings(max_examples=40, deadline=None)
def test_ttest_topics_at_a_tiny_alpha_meet_the_noncentral_t_oracle(log_alpha, effect, beta):
    alpha = 10.0**log_alpha
    n = float(ttest_topics(effect, 1.0, alpha, beta))
    assert math.isfinite(n)
    za, zb = -special.ndtri(alpha / 2.0), -special.ndtri(beta)
    normal = ((za + zb) / effect) ** 2
    assert normal <= n <= normal + za**2 / 2.0 + 3.0
    assert _power_oracle(n, effect, alpha) >= 1.0 - beta
    assert _power_oracle(n - 1.0, effect, alpha) < 1.0 - beta
    # the library's own power agrees with the oracle's at the count
    assert float(ttest_power(n, effect, alpha)) == pytest.approx(
        _power_oracle(n, effect, alpha), abs=1e-9)


@given(LOG_ALPHA)
@settings(max_examples=30, deadline=None)
def test_sakais_method_is_warning_free_and_within_a_topic_or_two(log_alpha):
    alpha = 10.0**log_alpha
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "invalid value encountered" leaked here
        sakai = float(ttest_topics(0.05, 0.04, alpha, 0.2, "sakai"))
        exact = float(ttest_topics(0.05, 0.04, alpha, 0.2))
        ci = float(ci_topics(0.025, 0.04, alpha, "sakai"))
        anova = float(anova_topics(0.05, 0.02, 8, alpha, 0.2, "sakai"))
    assert abs(sakai - exact) <= 2 and math.isfinite(ci) and math.isfinite(anova)


@pytest.mark.parametrize("alpha", [1e-20, 1e-100, 1e-300, MIN_ALPHA])
def test_anova_topics_approach_the_chi_square_limit(alpha):
    # 8 systems, Delta = D^2 / (2 sigma^2) = 0.0625: thousands of topics, so phi_E is tens of
    # thousands and the F-test is within a percent of the chi-square test with 7 df
    delta, m = 0.05**2 / (2 * 0.02), 8
    n = float(anova_topics(0.05, 0.02, m, alpha, 0.2))
    lam = float(anova_noncentrality(m - 1, alpha, 0.2))
    assert lam <= n * delta <= 1.01 * lam + delta


def test_the_counts_grow_as_alpha_shrinks():
    alphas = 10.0 ** -np.arange(1.0, 308.0, 7.0)
    counts = np.asarray(ttest_topics(0.05, 0.04, alphas, 0.2))
    assert np.all(np.isfinite(counts)) and np.all(np.diff(counts) > 0)
    mdd = np.asarray(ttest_min_difference(20, 0.04, alphas, 0.2))
    assert np.all(np.isfinite(mdd)) and np.all(np.diff(mdd) > 0)


def test_a_subnormal_alpha_is_an_error_naming_the_smallest_usable_one():
    x = np.random.default_rng(0).random((6, 30))
    for alpha in (5e-324, MIN_ALPHA / 2):
        with pytest.raises(IRStabError, match=r"^alpha: .* smallest usable alpha is "
                                              r"2\.2250738585072014e-308$"):
            power_plan(x, alpha=alpha)
    assert power_plan(x, alpha=MIN_ALPHA).topics_ttest < 10**6
