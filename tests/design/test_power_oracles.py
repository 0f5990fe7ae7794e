"""Power, topics needed and detectable differences against three independent oracles.

1. statsmodels' power classes: the paired t-test as a one-sample test on the differences
   (``TTestPower``) and the one-way ANOVA (``FTestAnovaPower``, ``nobs = m n`` and Cohen's
   ``f = sqrt(Delta / m)``), on a grid of (alpha, beta, difference, variance).
2. A noncentral t / F computation written here with ``scipy.stats.nct`` / ``ncf`` and a
   linear scan over n (the library uses ``scipy.special`` and a bisection).
3. The CI count: Sakai's closed form iterated as he describes (start at
   ``4 z^2 sigma_d^2 / delta^2``, add one topic until the expected width is at most delta),
   written here with ``math.lgamma``.
Plus Hypothesis invariants and garbage input.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from irstab.design import (
    anova_min_range,
    anova_power,
    anova_topics,
    ci_half_width,
    ci_topics,
    ttest_min_difference,
    ttest_power,
    ttest_topics,
)
from irstab.design.power import MAX_TOPICS, anova_noncentrality
from irstab.errors import IRStabError

ALPHAS = (0.01, 0.05, 0.10)
BETAS = (0.10, 0.20, 0.30)
DIFFS = (0.02, 0.05, 0.10)
VARS = (0.01, 0.04, 0.10)  # variance of a paired difference (t-test, CI) / of a score (ANOVA)
GRID = list(itertools.product(ALPHAS, BETAS, DIFFS, VARS))


def _ceil_root(root: float) -> set[int]:
    """The integer count a continuous root stands for; both sides when it is within
    statsmodels' root-finding tolerance of an integer."""
    r = float(np.squeeze(root))
    near = round(r)
    if abs(r - near) < 1e-4 * max(1.0, r):
        return {near, near + 1}
    return {math.ceil(r)}


# ----------------------------------------------------------------- paired t-test


@pytest.mark.parametrize("alpha,beta,diff,var", GRID)
def test_ttest_topics_and_power_equal_statsmodels(alpha, beta, diff, var):
    effect = diff / math.sqrt(var)
    n = ttest_topics(diff, var, alpha, beta)
    # statsmodels: power at our count, and the continuous root of power = 1 - beta
    sm = TTestPower()
    assert ttest_power(n, effect, alpha) == pytest.approx(
        sm.power(effect, n, alpha, alternative="two-sided"), abs=1e-9)
    root = sm.solve_power(effect, None, alpha, 1 - beta, alternative="two-sided")
    assert int(n) in _ceil_root(root)


def _scan_ttest(effect, alpha, beta):
    """Independent: scipy.stats.nct, n = 2, 3, ... until the power reaches 1 - beta."""
    for n in range(2, 100_000):
        df = n - 1
        w = stats.t.ppf(1 - alpha / 2, df)
        nc = math.sqrt(n) * effect
        if stats.nct.sf(w, df, nc) + stats.nct.cdf(-w, df, nc) >= 1 - beta:
            return n
    raise AssertionError("not reached")


@pytest.mark.parametrize("alpha,beta,diff,var", GRID[::3])
def test_ttest_topics_equal_a_linear_scan_over_the_noncentral_t(alpha, beta, diff, var):
    assert ttest_topics(diff, var, alpha, beta) == _scan_ttest(diff / math.sqrt(var), alpha,
                                                               beta)


def test_ttest_vectorised_equals_elementwise():
    d = np.array(DIFFS)[:, None]
    v = np.array(VARS)[None, :]
    grid = ttest_topics(d, v, 0.05, 0.2)
    assert grid.shape == (3, 3)
    for i, j in itertools.product(range(3), range(3)):
        assert grid[i, j] == ttest_topics(DIFFS[i], VARS[j], 0.05, 0.2)


# ----------------------------------------------------------------- one-way ANOVA


@pytest.mark.parametrize("alpha,beta,diff,var", GRID)
@pytest.mark.parametrize("m", [2, 10])
def test_anova_topics_and_power_equal_statsmodels(alpha, beta, diff, var, m):
    delta = diff**2 / (2 * var)  # least favourable configuration of a range D
    f = math.sqrt(delta / m)  # Cohen's f with nobs = m n
    n = anova_topics(diff, var, m, alpha, beta)
    sm = FTestAnovaPower()
    assert anova_power(n, m, delta, alpha) == pytest.approx(
        sm.power(f, m * n, alpha, k_groups=m), abs=1e-9)
    root = sm.solve_power(effect_size=f, nobs=None, alpha=alpha, power=1 - beta, k_groups=m)
    assert int(n) in {math.ceil(r / m) for r in (float(np.squeeze(root)) * (1 - 1e-5),
                                                  float(np.squeeze(root)) * (1 + 1e-5))}


@pytest.mark.parametrize("alpha,beta,diff,var", GRID[::4])
def test_anova_topics_equal_a_linear_scan_over_the_noncentral_f(alpha, beta, diff, var):
    m = 5
    lam_per_topic = diff**2 / (2 * var)
    for n in range(2, 100_000):
        pa, pe = m - 1, m * (n - 1)
        if stats.ncf.sf(stats.f.ppf(1 - alpha, pa, pe), pa, pe, n * lam_per_topic) >= 1 - beta:
            break
    assert anova_topics(diff, var, m, alpha, beta) == n


def test_anova_with_two_systems_is_the_two_sample_t_test():
    # F(1, 2(n-1)) = t^2 of the two-sample test with n per group: statsmodels TTestIndPower
    from statsmodels.stats.power import TTestIndPower

    for n in (5, 20, 80):
        d = 0.4  # Cohen's d = D / sigma; Delta = d^2 / 2
        assert anova_power(n, 2, d**2 / 2) == pytest.approx(
            TTestIndPower().power(d, n, 0.05, ratio=1.0), abs=1e-9)


# ----------------------------------------------------------------- CI width


def _sakai_ci_count(half_width, var, alpha):
    """Sakai (IRJ 2016), CI-based design: n0 = 4 z^2 sigma^2 / delta^2 with delta = 2h,
    then n = n0, n0 + 1, ... until 2 t(n-1) E[s]/sqrt(n) <= delta, with
    E[s] = sigma sqrt(2/(n-1)) Gamma(n/2) / Gamma((n-1)/2)."""
    z = stats.norm.ppf(1 - alpha / 2)
    delta = 2 * half_width
    n = max(2, math.ceil(4 * z**2 * var / delta**2))
    while True:
        phi = n - 1
        es = math.sqrt(var) * math.sqrt(2 / phi) * math.exp(math.lgamma(n / 2) - math.lgamma(phi / 2))
        if 2 * stats.t.ppf(1 - alpha / 2, phi) * es / math.sqrt(n) <= delta:
            return n
        n += 1


@pytest.mark.parametrize("alpha,_,diff,var", GRID[::2])
def test_ci_topics_equal_sakais_iteration(alpha, _, diff, var):
    assert ci_topics(diff / 2, var, alpha) == _sakai_ci_count(diff / 2, var, alpha)


def test_ci_expected_half_width_is_the_mean_half_width_by_simulation():
    # Monte Carlo: normal differences with variance 0.04, n = 12, 200000 intervals; the mean
    # of t s / sqrt(n) has standard error < 1e-4 here
    rng = np.random.default_rng(3)
    n, var = 12, 0.04
    d = rng.normal(0, math.sqrt(var), (200_000, n))
    hw = stats.t.ppf(0.975, n - 1) * d.std(axis=1, ddof=1) / math.sqrt(n)
    assert ci_half_width(n, var) == pytest.approx(hw.mean(), abs=4e-4)


# ----------------------------------------------------------------- inverses and Sakai's method


def test_detectable_difference_is_the_inverse_of_the_topic_count():
    n = np.arange(3, 300)
    mdd = ttest_min_difference(n, 0.05)
    assert np.all(ttest_topics(mdd * (1 + 1e-6), 0.05) <= n)  # n topics suffice for it
    assert np.all(ttest_topics(mdd * (1 - 1e-3), 0.05) > n - 1)  # fewer do not for less
    assert ttest_power(n, mdd / math.sqrt(0.05)) == pytest.approx(0.8, abs=1e-9)
    rng = anova_min_range(n, 0.03, 8)
    assert anova_power(n, 8, rng**2 / 0.06) == pytest.approx(0.8, abs=1e-9)


def test_sakai_approximations_stay_close_to_the_exact_values():
    n = np.arange(5, 400, 7)[:, None]
    eff = np.array([0.1, 0.2, 0.35, 0.5])[None, :]
    gap = np.abs(ttest_power(n, eff, method="sakai") - ttest_power(n, eff))
    assert gap.max() < 0.015
    assert gap[n[:, 0] >= 30].max() < 2e-4
    delta = np.array([0.01, 0.05, 0.2])[None, :]
    for m in (2, 10):
        gap = np.abs(anova_power(n, m, delta, method="sakai") - anova_power(n, m, delta))
        assert gap.max() < 0.015
    for d, v in itertools.product(DIFFS, VARS):
        assert abs(ttest_topics(d, v, method="sakai") - ttest_topics(d, v)) <= 1
        exact = anova_topics(d, v, 10)
        assert abs(anova_topics(d, v, 10, method="sakai") - exact) <= max(2, 0.01 * exact)


def test_book_table_6_4_lambda_approximation():
    # Sakai, Laboratory Experiments in Information Retrieval (Springer 2018), Table 6.4:
    # Nagata's lambda(phi_A, inf; alpha, beta) ~ x1 + x2 sqrt(phi_A), all ten rows (values as
    # transcribed in jerome-white/sakai-book etc/table-6.4.csv). The exact noncentral
    # chi-square value agrees within 1 % from phi_A = 4 on; below, the linear form errs on
    # the safe side (a larger lambda, more topics) by at most 8 %.
    table = {(0.01, 0.1): (10.439, 5.213), (0.01, 0.2): (7.736, 4.551),
             (0.01, 0.3): (6.030, 4.077), (0.01, 0.4): (4.733, 3.675),
             (0.01, 0.5): (3.653, 3.302), (0.05, 0.1): (7.049, 4.244),
             (0.05, 0.2): (4.860, 3.584), (0.05, 0.3): (3.522, 3.112),
             (0.05, 0.4): (2.543, 2.712), (0.05, 0.5): (1.765, 2.341)}
    phi = np.array([1, 2, 4, 9, 19, 49, 99])
    for (a, b), (x1, x2) in table.items():
        ratio = (x1 + x2 * np.sqrt(phi)) / anova_noncentrality(phi, a, b)
        assert np.all(np.abs(ratio[phi >= 4] - 1) < 0.01), (a, b)
        assert np.all((ratio[phi < 4] > 1) & (ratio[phi < 4] < 1.08)), (a, b)
    # phi_A = 1: (z_{alpha/2} + z_beta)^2 up to the far tail P(chi < -z_{alpha/2} - ...) of
    # a squared normal (1e-7 here) and scipy's noncentral chi-square accuracy
    assert anova_noncentrality(1, 0.05, 0.2) == pytest.approx(
        (stats.norm.isf(0.025) + stats.norm.isf(0.2)) ** 2, rel=1e-5)


# ----------------------------------------------------------------- invariants, bad input


@settings(max_examples=60, deadline=None)
@given(st.floats(0.005, 0.5), st.floats(0.001, 0.5), st.sampled_from(ALPHAS),
       st.sampled_from(BETAS), st.sampled_from(["exact", "sakai"]))
def test_counts_move_the_right_way(diff, var, alpha, beta, method):
    n = ttest_topics(diff, var, alpha, beta, method)
    assert n >= 2
    assert ttest_topics(diff * 1.5, var, alpha, beta, method) <= n  # bigger effect
    assert ttest_topics(diff, var * 1.5, alpha, beta, method) >= n  # more noise
    assert ttest_topics(diff, var, alpha / 2, beta, method) >= n  # stricter level
    assert ttest_topics(diff, var, alpha, beta / 2, method) >= n  # more power
    a = anova_topics(diff, var, 6, alpha, beta, method)
    assert anova_topics(diff * 1.5, var, 6, alpha, beta, method) <= a
    assert anova_topics(diff, var * 1.5, 6, alpha, beta, method) >= a
    c = ci_topics(diff, var, alpha, method)
    assert ci_topics(diff / 2, var, alpha, method) >= c


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5000), st.floats(0, 3))
def test_power_is_a_probability_and_grows_with_topics(n, effect):
    p = ttest_power(n, effect)
    assert 0 <= p <= 1
    assert ttest_power(n + 10, effect) >= p - 1e-12
    assert p >= 0.05 - 1e-9  # a two-sided test's power is at least its level (closed form)
    if effect == 0:
        assert p == pytest.approx(0.05, abs=1e-9)


def test_unreachable_counts_are_infinite():
    assert ttest_topics(0.0, 0.05) == math.inf
    assert anova_topics(0.0, 0.05, 5) == math.inf
    assert ttest_topics(1e-6, 1.0) == math.inf  # beyond MAX_TOPICS
    assert MAX_TOPICS == 10**7


@pytest.mark.parametrize("call", [
    lambda: ttest_topics(0.05, 0.05, alpha=0),
    lambda: ttest_topics(0.05, 0.05, alpha=1.2),
    lambda: ttest_topics(0.05, 0.05, beta=float("nan")),
    lambda: ttest_topics(-0.05, 0.05),
    lambda: ttest_topics(0.05, float("inf")),
    lambda: ttest_topics(0.05, -1),
    lambda: anova_topics(0.05, 0.05, 1),
    lambda: ci_topics(0.0, 0.05),
    lambda: ttest_power(1, 0.5),
    lambda: ttest_power(10, 0.5, method="normal"),
    lambda: ci_half_width(1, 0.05),
])
def test_bad_requirements_are_errors_naming_the_parameter(call):
    with pytest.raises(IRStabError, match=r"^(alpha|beta|min_diff|var_diff|m|half_width|n|"
                                          r"method|variance|min_range)\b"):
        call()
