"""Design arithmetic at the edges: integer counts from floats, huge requirements, powers.

Oracles: closed forms (a budget J at a cost c per topic pays for floor(J / c) topics; a
paired t-test needs at least 2 topics, and a difference of a billion standard deviations is
detected with those 2 with power 1; a two-sided test at level alpha rejects with
probability alpha at a difference of 0, so its power is never below alpha), and the
library's own plans on the bundled example collection (12 runs x 30 topics).
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab._numeric import checked_count
from irstab.design import (
    anova_topics, budget_plan, ci_topics, depth_study, power_plan, ttest_power, ttest_topics,
)
from irstab.design import residual_variance
from irstab.design.power import (
    MAX_TOPICS, anova_min_range, anova_power, check_alpha_beta, ci_half_width,
    ttest_min_difference,
)
from irstab.errors import IRStabError
from irstab.stability.facets import check_max_assessors

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"


@pytest.fixture(scope="module")
def study():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return depth_study(EXAMPLE / "qrels.txt", EXAMPLE / "runs", ["nDCG@10"], (5, 20))


# ---------------------------------------------------------------- integer counts


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_count_is_never_negative_or_wrapped(v):
    # any float: a non-negative int no larger than the float, or an error naming the count
    try:
        n = checked_count(np.floor(v) if math.isfinite(v) else v, "topics")
    except IRStabError as exc:
        assert str(exc).startswith("topics: ")
        assert not math.isfinite(v) or v < 0 or v >= 2**63 - 1024
        return
    assert isinstance(n, int) and 0 <= n <= v


def test_checked_count_arrays_and_limits():
    assert checked_count(np.array([0.0, 3.0, 1e7]), "n", 1e7).tolist() == [0, 3, 10_000_000]
    with pytest.raises(IRStabError, match=r"^n: 1e\+30 is beyond 1e\+07$"):
        checked_count(np.array([2.0, 1e30]), "n", 1e7)
    with pytest.raises(IRStabError, match=r"^n: -1 is below 0$"):
        checked_count(-1.0, "n")


@settings(max_examples=40, deadline=None)
@given(st.floats(1.0, 1e300))
def test_budget_plans_never_wrap_their_topic_counts(study, budget):
    # every budget: integer topic counts in [0, MAX_TOPICS] (floor(J / cost) when J pays
    # for at least 2 topics), or an error naming the budget
    try:
        plan = budget_plan(study, "nDCG@10", budget)
    except IRStabError as exc:
        assert str(exc).startswith(("budget: ", "budgets: "))
        cheapest = min(lv.judgments_per_topic for lv in study.levels)
        assert budget / cheapest < 2 or 4 * budget / cheapest > MAX_TOPICS
        return
    n = plan.designs["n_topics"].to_numpy()
    assert n.dtype.kind == "i" and n.min() >= 0 and n.max() <= MAX_TOPICS
    unit = plan.designs["judgments_per_topic"].to_numpy()
    np.testing.assert_array_equal(n, np.floor(budget / unit * (1 + 1e-12)))
    f = plan.frontier["n_topics"].dropna().to_numpy(dtype=float)
    assert f.min() >= 2 and f.max() <= MAX_TOPICS


def test_the_largest_budget_is_named(study):
    cheapest = min(lv.judgments_per_topic for lv in study.levels)
    ok = MAX_TOPICS * cheapest / 4  # the frontier reaches 4 x the budget
    budget_plan(study, "nDCG@10", ok * 0.999)
    with pytest.raises(IRStabError, match=r"the frontier's largest budget.*at most"):
        budget_plan(study, "nDCG@10", ok * 1.01)
    with pytest.raises(IRStabError, match=r"^budget: 1e\+30 judgments pay for"):
        budget_plan(study, "nDCG@10", 1e30, budgets=[100.0, 200.0])


def test_the_largest_float_budget_is_refused_without_a_numpy_warning(study):
    # before: geomspace up to 4 x 1e308 overflowed ("invalid value encountered in multiply")
    # and the message was a false "budgets: give positive finite numbers"
    cheapest = min(lv.judgments_per_topic for lv in study.levels) + 1e-308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for budget in (1e308, 1.7976931348623157e308):
            with pytest.raises(IRStabError) as info:
                budget_plan(study, "nDCG@10", budget, cost_per_topic=1e-308)
            assert str(info.value).startswith(f"budget: {budget:g} judgments pay for ")
            assert str(info.value).endswith(f"give a budget of at most {MAX_TOPICS * cheapest:.4g}")


# ---------------------------------------------------------------- huge requirements


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-3, 1e300), st.sampled_from(["exact", "sakai"]))
def test_any_finite_requirement_gives_counts_or_a_named_error(d, method):
    x = np.random.default_rng(1).random((8, 20))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning reaches the user
        try:
            p = power_plan(x, min_diff=d, method=method)
        except IRStabError as exc:
            assert str(exc).startswith("min_diff: ") and "standard deviations" in str(exc)
            assert d / math.sqrt(p_var(x) * 2) > 1e150
            return
    for n in (p.topics_ttest, p.topics_anova, p.topics_ci):
        assert n == math.inf or (n >= 2 and n == int(n) and n <= MAX_TOPICS)
    assert 0.0 <= p.power_ttest <= 1.0 and 0.0 <= p.power_anova <= 1.0
    if d / math.sqrt(2 * p.variance.variance) > 1e3:  # a thousand sd: 2 topics, power 1
        assert p.topics_ttest == p.topics_anova == p.topics_ci == 2
        assert p.power_ttest == p.power_anova == 1.0


# a tiny collection: 6 systems x 8 topics
TINY = np.random.default_rng(4).random((6, 8))


@pytest.mark.parametrize("kwargs, name, bound", [
    ({"min_diff": 1e-200}, "min_diff", lambda v: ttest_min_difference(MAX_TOPICS, v.var_diff)),
    ({"min_diff": 1e-320}, "min_diff", lambda v: ttest_min_difference(MAX_TOPICS, v.var_diff)),
    ({"half_width": 1e-300}, "half_width", lambda v: ci_half_width(MAX_TOPICS, v.var_diff)),
    ({"min_range": 1e-6}, "min_range", lambda v: anova_min_range(MAX_TOPICS, v.variance, 6)),
])
def test_a_requirement_beyond_the_largest_count_is_refused_with_its_bound(kwargs, name, bound):
    # before: a divide-by-zero or overflow warning, then "inf" topics. Oracle of the bound:
    # the inverse function at MAX_TOPICS topics; just above it the count is a number
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(IRStabError) as info:
            power_plan(TINY, **kwargs)
        v = residual_variance(TINY)
        low = float(bound(v))
        assert str(info.value).startswith(f"{name}: ")
        assert "needs more than 10,000,000 topics" in str(info.value)
        assert str(info.value).endswith(f"the smallest usable {name} is {low:.4g}")
        p = power_plan(TINY, **{"min_diff": 0.05, "min_range": 0.05, "half_width": 0.025,
                                name: low * 1.01})
        assert max(p.topics_ttest, p.topics_anova, p.topics_ci) <= MAX_TOPICS


def test_too_many_systems_for_the_anova_are_refused_with_the_largest_m():
    # the count grows like sqrt(m): 1e14 systems need more than MAX_TOPICS topics at a range
    # of 0.05 (before: inf, an empty CSV cell). Oracle of "at most N": anova_topics itself,
    # a number at N systems and inf at N + 1
    v = residual_variance(TINY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(IRStabError) as info:
            power_plan(TINY, min_diff=0.05, m=10**14)
    msg = str(info.value)
    assert msg.startswith("m (the systems the ANOVA compares): the one-way ANOVA over "
                          "100,000,000,000,000 systems needs more than 10,000,000 topics")
    most = int(re.search(r"at most ([\d,]+) systems", msg).group(1).replace(",", ""))
    assert math.isfinite(anova_topics(0.05, v.variance, most))
    assert anova_topics(0.05, v.variance, most + 1) == math.inf
    p = power_plan(TINY, min_diff=0.05, m=most)
    assert 0.5 * MAX_TOPICS < p.topics_anova <= MAX_TOPICS
    low = float(anova_min_range(MAX_TOPICS, v.variance, 10**14))
    assert msg.endswith(f"or 100,000,000,000,000 systems at a range of {low:.4g}")


def p_var(x):
    from irstab.design import residual_variance

    return residual_variance(x).variance


def test_the_power_functions_take_infinite_and_huge_effects():
    # closed form: an effect without bound is detected surely at 2 topics
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(anova_power(2, 5, np.inf)) == 1.0
        assert float(anova_power(2, 5, 1e300)) == 1.0
        assert float(anova_power(2, 5, 1e300, method="sakai")) == 1.0
        assert float(ttest_power(2, 1e300)) == 1.0
        assert float(ttest_topics(1e300, 0.01)) == 2.0
        assert float(anova_topics(1e300, 0.01, 5)) == 2.0
        assert float(ci_topics(1e300, 0.01)) == 2.0


@settings(max_examples=60, deadline=None)
@given(st.floats(0.001, 0.999), st.floats(0.001, 0.999))
def test_a_power_not_above_alpha_is_refused(alpha, beta):
    if 1.0 - beta <= alpha or beta >= 1.0 - alpha:  # power <= alpha under either rounding
        with pytest.raises(IRStabError, match="^beta: the power asked for"):
            check_alpha_beta(alpha, beta)
    else:
        check_alpha_beta(alpha, beta)
        x = np.random.default_rng(2).random((6, 15))
        p = power_plan(x, alpha=alpha, beta=beta)
        assert p.mdd_ttest > 0  # never the -0.0000 of a power of 0 %


def test_a_power_equal_to_alpha_up_to_rounding_is_refused():
    # 1 - 0.95 is 0.050000000000000044 > 0.05 in floating point: before, accepted, and the
    # plan said power 5 %, 2 topics, detectable difference 0.0000
    assert 1.0 - 0.95 > 0.05
    for alpha, beta in ((0.05, 0.95), (0.1, 0.9), (0.3, 0.7), (0.01, 0.99)):
        with pytest.raises(IRStabError, match="^beta: the power asked for"):
            check_alpha_beta(alpha, beta)
    check_alpha_beta(0.05, np.nextafter(0.95, 0.0))  # one ulp below: power above alpha


@pytest.mark.parametrize("method", ["exact", "sakai"])
def test_a_tiny_beta_is_computed_not_saturated(method):
    # 1 - beta is exactly 1.0 below 2**-53: before, "power 100%" and the count where power
    # saturated (beta 1e-20: 1446 topics). Oracle: Sakai's normal closed form for the paired
    # t-test, ((z_{alpha/2} + z_beta) / Delta)^2 + z_{alpha/2}^2 / 2, which the exact count
    # meets within a topic at these sizes (z from scipy.special.ndtri)
    from scipy.special import ndtri

    assert 1.0 - 1e-20 == 1.0
    var, d = 0.0343, 0.05
    za = -ndtri(0.025)
    counts = []
    for beta in (1e-10, 1e-16, 1e-20, 1e-40, 1e-100):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            n = ttest_topics(d, var, 0.05, beta, method)
        closed = ((za - ndtri(beta)) / (d / math.sqrt(var))) ** 2 + za**2 / 2
        assert abs(n - closed) <= 1.0, (beta, n, closed)
        counts.append(n)
    assert counts == sorted(counts) and len(set(counts)) == len(counts)  # never saturated
    assert anova_topics(d, var / 2, 6, 0.05, 1e-20, method) > anova_topics(d, var / 2, 6, 0.05,
                                                                            1e-16, method)


# ---------------------------------------------------------------- measures and designs


def test_depth_study_reads_named_and_saved_measures(tmp_path):
    opt = "nDCG(gain=(0,1,3.25,7.5),discount=(1,0.631,0.5))@3"
    (tmp_path / "opt.json").write_text(json.dumps({"measure": opt}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        named = depth_study(EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                            [f"@{tmp_path / 'opt.json'}", "mine=nDCG@10"], (5,))
        plain = depth_study(EXAMPLE / "qrels.txt", EXAMPLE / "runs", [opt, "nDCG@10"], (5,))
    assert named.measures == ("opt", "mine")
    assert named.full["opt"].phi() == plain.full[opt].phi()
    assert named.levels[0].gstudies["mine"].phi() == plain.levels[0].gstudies["nDCG@10"].phi()


def test_assessor_designs_are_checked_against_memory():
    assert check_max_assessors(10) == 10
    with pytest.raises(IRStabError, match=r"^max_assessors: 10000000000 designs .* of memory"):
        check_max_assessors(10**10)
    with pytest.raises(IRStabError, match="must be an integer >= 1"):
        check_max_assessors(0)
