"""Power plans on generated score matrices (garbage included): a plan or a clear error, never
a NaN; the residual variance is the G-study's MS_res; pooled variances weigh by df."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from irstab.design import pair_power, pooled_variance, power_plan, residual_variance
from irstab.errors import DegenerateDataError, IRStabError
from irstab.stability import gstudy

matrices = st.tuples(st.integers(2, 6), st.integers(2, 9)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.floats(0, 1, width=32)))


@settings(max_examples=80, deadline=None)
@given(matrices)
def test_plan_or_degenerate_error_never_nan(x):
    try:
        p = power_plan(x, min_diff=0.1)
    except DegenerateDataError as exc:
        assert "residual variance" in str(exc) or "equal" in str(exc)
        return
    d = p.to_dict()
    for key in ("variance", "mdd_ttest", "mdr_anova", "ci_half_width", "power_ttest"):
        assert math.isfinite(d[key]), key
    assert d["topics_ttest"] is None or d["topics_ttest"] >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the G-study's negative-estimate warnings
        ms_res = gstudy(x).ms_residual
    assert p.variance.variance == pytest.approx(ms_res, rel=1e-9)
    pairs = pair_power(x)
    assert len(pairs) == x.shape[0] * (x.shape[0] - 1) // 2
    assert pairs["p_value"].between(0, 1).all() and pairs["achieved_power"].between(0, 1).all()


@pytest.mark.parametrize("x,message", [
    (np.array([[0.1, np.nan], [0.2, 0.3]]), "missing"),
    (np.array([[0.1, np.inf], [0.2, 0.3]]), "finite"),
    (np.ones((3, 4)), "equal"),
    (np.array([[0.1, 0.2, 0.3]]), "2 systems"),
    (np.array([[0.1, 0.5, 0.3], [0.2, 0.6, 0.4]]), "residual variance"),  # additive: no noise
])
def test_degenerate_matrices_are_named_errors(x, message):
    with pytest.raises(IRStabError, match=message):
        residual_variance(x)


def test_pooled_variance_weighs_by_degrees_of_freedom():
    rng = np.random.default_rng(5)
    a, b = rng.random((4, 10)), rng.random((6, 3))
    va, vb = residual_variance(a), residual_variance(b)
    pooled = pooled_variance([a, b])
    assert pooled.df == va.df + vb.df == 3 * 9 + 5 * 2
    assert pooled.variance == pytest.approx((va.ss + vb.ss) / (va.df + vb.df), rel=1e-12)
    assert pooled.n_matrices == 2


@pytest.mark.parametrize("kwargs,name", [
    ({"min_diff": 0}, "min_diff"), ({"min_range": -1}, "min_range"),
    ({"half_width": float("nan")}, "half_width"), ({"m": 1}, "m"), ({"alpha": 0}, "alpha"),
    ({"method": "nagata"}, "method"),
])
def test_bad_requirements(kwargs, name):
    x = np.random.default_rng(1).random((4, 6))
    with pytest.raises(IRStabError, match=f"^{name}"):
        power_plan(x, **kwargs)


def test_pairs_equal_up_to_rounding_noise_are_not_evidence():
    # two systems equal except for last-bit noise (the same scores summed in another order) are
    # identical under the paired tests' tolerance: p = 1 and power alpha, not a "significant"
    # difference from a zero standard deviation (closed form: no difference, no evidence)
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 1, 25)
    b = np.nextafter(a, 2.0)
    c = a + 0.2
    pairs = pair_power(np.vstack([a, b, c]), alpha=0.05)
    ab = pairs[(pairs.system_a == 0) & (pairs.system_b == 1)].iloc[0]
    assert ab.p_value == 1.0 and not ab.significant and ab.achieved_power == pytest.approx(0.05)
    ac = pairs[(pairs.system_a == 0) & (pairs.system_b == 2)].iloc[0]
    assert ac.significant and ac.achieved_power == 1.0  # constant non-zero difference
