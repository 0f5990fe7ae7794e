"""The G-theory simulator with its systems resampled (fit_gtheory(resample_systems=True)).

Issue 45, item 4: the trust card's spread of topics needed held its systems fixed. Oracles:
irstab.stability.gstudy on the source collection (the resampled universe must have its
estimated components exactly, as the fixed one does); the expected mean squares of a
two-way random design drawn from a finite population of rows (module docstring), checked by
Monte-Carlo (the mean of the G-study estimates over R collections within 4.5 standard
errors); the bootstrap's closed form for the share of distinct rows,
1 - (1 - 1/S)^S (Efron & Tibshirani, An Introduction to the Bootstrap, 1993, §10.4's
0.632); Phi's invariance under affine changes of the scores (Hypothesis).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from irstab.errors import IRStabError
from irstab.simulate import fit_gtheory
from irstab.stability import gstudy

from irstab.trust.checks import _components as anova_components  # the vectorised ANOVA


@pytest.mark.parametrize("which", ["dl", "trec3"])
@pytest.mark.parametrize("shrink", [True, False])
def test_the_resampled_universe_has_the_collections_components(which, shrink, request):
    scores = (request.getfixturevalue("dl_scores")["nDCG@10"] if which == "dl"
              else request.getfixturevalue("trec3"))
    x = np.asarray(scores, dtype=float)
    g = gstudy(scores)
    model = fit_gtheory(scores, resample_systems=True, shrink=shrink)
    truth = model.components
    S = x.shape[0]
    # shrunk: the G-study's estimate; observed means: their variance with divisor S
    want = g.var_system if shrink else x.mean(axis=1).var(ddof=0)
    assert truth.system == pytest.approx(want, rel=1e-10)
    assert truth.topic == pytest.approx(g.var_topic, rel=1e-10)
    assert truth.residual == pytest.approx(g.var_residual, rel=1e-10)
    if shrink:  # the same truth as the fixed-systems universe: the card's "true 68" stays
        fixed = fit_gtheory(scores).components
        assert truth.topics_needed(0.95) == fixed.topics_needed(0.95) \
            == g.topics_needed(0.95).n
    assert model.resample_systems and model.to_dict()["resample_systems"] is True
    assert "37 resampled systems" in repr(model) or S != 37


def test_g_studies_of_resampled_collections_are_unbiased_for_the_truth(trec3):
    model = fit_gtheory(trec3, resample_systems=True)
    truth = model.components
    x = model.draw(3000, 15, rng=np.random.default_rng(4))
    est = anova_components(x)
    mean = est.mean(axis=0)
    se = est.std(axis=0, ddof=1) / math.sqrt(len(est))
    target = np.array([truth.system, truth.topic, truth.residual])
    assert np.all(np.abs(mean - target) < 4.5 * se), (mean, target, se)
    # the same truth as with fixed systems, but the system component now errs by which
    # systems a collection holds too: its sd grows (TREC-3 at 15 topics: 0.0027 against
    # 0.0019; the sd of an sd from 3000 draws errs by well under 5 %)
    fixed = anova_components(fit_gtheory(trec3).draw(3000, 15, rng=np.random.default_rng(4)))
    assert est[:, 0].std() > 1.25 * fixed[:, 0].std()


def test_systems_are_a_bootstrap_of_the_collections(trec3):
    # every simulated row is one fitted system, its mean and its own residuals on the
    # collection's topics: two draws of a system give equal rows, two systems (TREC-3 has
    # no duplicate) different ones; so the share of distinct rows is the share of distinct
    # systems drawn, the bootstrap's 1 - (1 - 1/S)^S in expectation
    model = fit_gtheory(trec3, resample_systems=True)
    S = len(model.systems)
    x = model.draw(4000, 3, rng=np.random.default_rng(9))
    distinct = np.array([len(np.unique(r.round(12), axis=0)) for r in x]) / S
    want = 1.0 - (1.0 - 1.0 / S) ** S
    se = distinct.std(ddof=1) / math.sqrt(len(distinct))
    assert abs(distinct.mean() - want) < 4.5 * se, (distinct.mean(), want, se)
    fixed = fit_gtheory(trec3).draw(50, 3, rng=1)
    assert all(len(np.unique(r.round(12), axis=0)) == S for r in fixed)


def test_fixed_draws_are_unchanged_and_the_stream_is_shared(trec3):
    # the fixed-systems universe draws exactly what it drew before the option existed
    a = fit_gtheory(trec3).draw(5, 10, rng=3)
    b = fit_gtheory(trec3, resample_systems=True)
    np.testing.assert_array_equal(a, fit_gtheory(trec3, resample_systems=False).draw(5, 10,
                                                                                     rng=3))
    # the systems come from a child generator: the caller's stream after a draw is the
    # same for both kinds of model (what the card draws next does not move), and one
    # seed reproduces a resampled draw
    g1, g2 = np.random.default_rng(8), np.random.default_rng(8)
    fit_gtheory(trec3).draw(5, 10, rng=g1)
    b.draw(5, 10, rng=g2)
    assert g1.random() == g2.random()
    np.testing.assert_array_equal(b.draw(5, 10, rng=4), b.draw(5, 10, rng=4))


scores = st.integers(0, 2**31 - 1).map(
    lambda s: np.clip(np.random.default_rng(s).beta(2, 3, (6, 1))
                      + np.random.default_rng(s + 1).normal(0, 0.1, (1, 9))
                      + np.random.default_rng(s + 2).normal(0, 0.08, (6, 9)), 0.0, 1.0))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(x=scores, b=st.floats(0.2, 1.0), a=st.floats(0.0, 1.0))
def test_topics_needed_are_invariant_to_affine_scores(x, b, a):
    # Phi is a ratio of variances: a + b x gives the same components times b^2, the same
    # draws up to a + b (the same seed), so the same counts and the same true Phi
    from irstab.trust.checks import _topics_needed_check

    if np.ptp(x.mean(axis=0)) == 0 or np.ptp(x.mean(axis=1)) == 0:
        return
    a = a * (1.0 - b)
    one = _topics_needed_check(x, 40, 9, 0.95, np.random.default_rng(1))
    two = _topics_needed_check(a + b * x, 40, 9, 0.95, np.random.default_rng(1))
    np.testing.assert_array_equal(one.needed, two.needed)
    np.testing.assert_allclose(one.phi_reached, two.phi_reached, rtol=1e-9)
    assert one.true_needed == two.true_needed


def test_bad_option():
    with pytest.raises(IRStabError, match="resample_systems: expected True or False"):
        fit_gtheory(np.random.default_rng(0).random((4, 8)), resample_systems="yes")
