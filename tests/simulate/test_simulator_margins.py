"""Tabulated margins (irstab.simulate.margins): exact moments, quantiles, planted means.

Oracles: closed forms (uniform and two-point distributions), scipy.stats' beta CDF for a
tabulated beta, Monte-Carlo means with their standard error stated beside each bound,
and Hypothesis for the invariants of the mean-shifting transform.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from irstab.errors import IRStabError
from irstab.simulate import Margin, fit_margin
from irstab.simulate.families import Lattice
from irstab.simulate.margins import MEAN_ATOL, stack_quantiles

GRID = np.linspace(0.0, 1.0, 1025)


def uniform() -> Margin:
    return Margin("uniform", (), u=GRID, x=GRID)


def test_moments_of_a_uniform_are_the_closed_forms():
    m = uniform()
    assert m.mean == pytest.approx(0.5, abs=1e-15)
    assert m.var == pytest.approx(1 / 12, abs=1e-15)  # piecewise-linear Q: exact for U(0, 1)
    assert m.p_lo == 0.0 and m.p_hi == 0.0


def test_moments_and_masses_of_a_two_point_distribution():
    # P(0) = 0.3, P(1) = 0.7: mean 0.7, variance 0.21
    m = Margin("two-point", (), u=[0.0, 0.3, 0.3, 1.0], x=[0.0, 0.0, 1.0, 1.0])
    assert m.mean == pytest.approx(0.7, abs=1e-15)
    assert m.var == pytest.approx(0.21, abs=1e-15)
    assert m.p_lo == pytest.approx(0.3) and m.p_hi == pytest.approx(0.7)
    assert set(m.ppf(np.random.default_rng(0).random(1000))) == {0.0, 1.0}


def test_tabulated_beta_matches_scipy():
    m = fit_margin(np.random.default_rng(4).beta(2.0, 5.0, 500), families=["beta"])
    a, b = dict(m.params)["a"], dict(m.params)["b"]
    v = np.linspace(0.01, 0.99, 50)
    # linear interpolation between knots 1/2048 apart: error O(h^2 f') < 1e-6
    assert np.max(np.abs(m.cdf(v) - stats.beta.cdf(v, a, b))) < 1e-6
    assert m.mean == pytest.approx(a / (a + b), abs=1e-6)
    assert m.var == pytest.approx(a * b / ((a + b) ** 2 * (a + b + 1)), rel=1e-4)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50))
def test_cdf_inverts_the_quantile_function(qs):
    m = fit_margin(np.random.default_rng(1).beta(0.8, 1.5, 200))
    q = np.array(qs)
    x = m.ppf(q)
    assert np.all(np.diff(m.ppf(np.sort(q))) >= 0)
    assert np.all((x >= 0) & (x <= 1))
    np.testing.assert_allclose(m.cdf(x), q, atol=1e-9)


def test_stack_quantiles_equals_each_margin_alone():
    rng = np.random.default_rng(2)
    margins = (uniform(), fit_margin(rng.beta(2, 3, 100)),
               Margin("two-point", (), u=[0.0, 0.3, 0.3, 1.0], x=[0.0, 0.0, 1.0, 1.0]))
    q = rng.random((500, 3))
    q[0] = [0.0, 0.0, 0.0]
    q[1] = [1.0, 1.0, 1.0]
    out = stack_quantiles(margins, q)
    for s, m in enumerate(margins):
        np.testing.assert_allclose(out[:, s], m.ppf(q[:, s]), atol=1e-13)  # offsets 2s: 2^-47
    assert out[0].tolist() == [0.0, margins[1].ppf(0.0), 0.0]


@settings(max_examples=60, deadline=None)
@given(st.floats(0.02, 0.98))
def test_with_mean_reaches_every_target_inside_the_range(target):
    m = uniform()
    shifted = m.with_mean(target)
    assert abs(shifted.mean - target) <= MEAN_ATOL
    assert shifted.u[0] == 0.0 and shifted.u[-1] == 1.0
    assert np.all(np.diff(shifted.u) >= 0)


def test_a_margin_moved_again_gives_the_first_solve_and_still_refuses_the_unreachable():
    # with_mean keeps what it solved: the second call is the first one's margin; a fresh
    # margin solving the same target afresh gives the same knots (the cache moves nothing)
    m = uniform()
    a = m.with_mean(0.61)
    assert m.with_mean(0.61) is a
    np.testing.assert_array_equal(uniform().with_mean(0.61).u, a.u)
    b = m.with_mean(0.4)
    assert abs(b.mean - 0.4) <= MEAN_ATOL and b is not a
    for _ in range(2):  # the kept extreme shifts still bound the reach
        with pytest.raises(IRStabError, match="out of reach"):
            m.with_mean(1.5)


def test_with_mean_moves_masses_and_keeps_the_values_of_a_lattice():
    lat = Lattice(tuple(np.arange(11) / 10), "regular")
    y = np.random.default_rng(3).binomial(10, 0.6, 80) / 10
    m = fit_margin(y, lattice=lat)
    up = m.with_mean(m.mean + 0.05)
    assert up.mean == pytest.approx(m.mean + 0.05, abs=MEAN_ATOL)
    np.testing.assert_array_equal(up.x, m.x)  # same levels
    draws = up.sample(2000, np.random.default_rng(0))
    assert set(np.round(draws * 10, 9)) <= set(range(11))


def test_a_planted_mean_is_reached_by_the_draws():
    # a fitted DL-2019-like margin moved by +0.03; 2e6 draws: standard error
    # sd / sqrt(2e6) = 0.25 / 1414 = 1.8e-4, so 4 SE (7e-4) is inside the 1e-3 asked for
    m = fit_margin(np.clip(np.random.default_rng(5).beta(2.3, 1.4, 43), 0, 1))
    up = m.with_mean(m.mean + 0.03)
    assert up.mean - m.mean == pytest.approx(0.03, abs=MEAN_ATOL)
    x = up.sample(2_000_000, np.random.default_rng(6))
    se = x.std() / math.sqrt(len(x))
    assert abs(x.mean() - (m.mean + 0.03)) < 4 * se < 1e-3


def test_a_target_out_of_reach_is_refused_with_the_name():
    with pytest.raises(IRStabError, match="system 'a'.*out of reach"):
        uniform().with_mean(1.0, name="system 'a'")
    with pytest.raises(IRStabError, match="finite"):
        uniform().with_mean(float("nan"))


def test_to_dict_is_plain():
    import json

    d = fit_margin(np.random.default_rng(0).beta(2, 3, 50)).to_dict()
    json.dumps(d)
    assert d["candidates"][0]["family"] == d["family"]


@settings(max_examples=20, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(-0.2, 0.2))
def test_a_solve_reads_the_bracket_ends_from_the_memo_and_gives_the_same_margin(first, second):
    # brentq starts at the bracket's ends, whose means the margin keeps: a solve evaluates
    # the Beta CDF over the knots only inside the bracket, and its knots are those of a
    # solve that recomputes the ends (the root finder sees the same numbers)
    from unittest import mock

    from scipy import optimize

    import irstab.simulate.margins as margins

    target = min(0.95, max(0.05, first + second))
    # both calls solve: at the margin's own mean (0.5) with_mean returns the margin itself
    # and fills no memo
    assume(target != first and abs(target - 0.5) > 10 * MEAN_ATOL)
    assume(abs(first - 0.5) > 10 * MEAN_ATOL)
    m = uniform()
    m.with_mean(first)  # the reach is in the memo now
    seen = []
    real = margins._shift
    with mock.patch.object(margins, "_shift",
                           side_effect=lambda u, t: seen.append(t) or real(u, t)):
        got = m.with_mean(target)
    assert seen and all(abs(t) < margins._THETA_MAX for t in seen)

    fresh = uniform()
    fresh.with_mean(first)
    fresh.__dict__["_moved"].pop("reach")  # recompute every mean brentq asks for
    theta = optimize.brentq(lambda t: fresh._shifted_mean(t) - target, -margins._THETA_MAX,
                            margins._THETA_MAX, xtol=1e-14, rtol=4 * np.finfo(float).eps,
                            maxiter=500)
    np.testing.assert_array_equal(got.u, margins._shift(m.u, theta))
