"""The paired topic bootstrap of a difference in agreement (irstab.preferences.paired).

Oracles: the point difference against the two rates counted by hand; every resample against a
naive loop that rebuilds the resampled comparison list topic by topic from the same multinomial
weights (the same generator, seeded alike); invariants with Hypothesis (a configuration against
itself differs by exactly 0; swapping the two negates the difference and mirrors the interval).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pref_data import simulated_users, small_collection

from irstab.errors import IRStabError
from irstab.preferences.fit import TIE_RULES, Agreement, cross_fit_agreement
from irstab.preferences.paired import _rates, against_preset, paired_difference

outcomes = st.lists(st.tuples(st.integers(0, 5), st.sampled_from([-1, 0, 1]),
                              st.sampled_from([-1, 0, 1])), min_size=2, max_size=40)


def _rate(o, ties):
    a = Agreement(int(np.sum(o > 0)), int(np.sum(o == 0)), int(np.sum(o < 0)))
    return a.value(ties)


@settings(max_examples=40, deadline=None)
@given(outcomes, st.sampled_from(TIE_RULES))
def test_difference_and_resamples_are_the_naive_ones(rows, ties):
    t, a, b = (np.array(x) for x in zip(*rows))
    if ties == "exclude" and (not np.any(a != 0) or not np.any(b != 0)):
        return
    d = paired_difference(a, b, t, ties=ties, n_resamples=100, seed=3)
    assert d.difference == pytest.approx(_rate(a, ties) - _rate(b, ties), abs=1e-12)
    topics, codes = np.unique(t, return_inverse=True)
    w = np.random.default_rng(3).multinomial(len(topics), np.full(len(topics), 1 / len(topics)),
                                             size=100)
    naive = []
    for weights in w:  # the resampled comparisons, topic by topic
        idx = np.concatenate([np.flatnonzero(codes == j) for j, k in enumerate(weights)
                              for _ in range(k)])
        naive.append(_rate(a[idx], ties) - _rate(b[idx], ties))
    naive = np.array(naive)
    ok = np.isfinite(naive)
    assert d.undefined == int((~ok).sum())
    lo, hi = np.percentile(naive[ok], [2.5, 97.5])
    assert (d.lower, d.upper) == pytest.approx((lo, hi), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(outcomes)
def test_itself_differs_by_zero_and_swapping_mirrors(rows):
    t, a, b = (np.array(x) for x in zip(*rows))
    same = paired_difference(a, a, t, n_resamples=200, seed=1)
    assert same.difference == same.lower == same.upper == 0.0
    ab = paired_difference(a, b, t, n_resamples=200, seed=1)
    ba = paired_difference(b, a, t, n_resamples=200, seed=1)
    assert ba.difference == -ab.difference
    assert (ba.lower, ba.upper) == pytest.approx((-ab.upper, -ab.lower), abs=1e-12)


def test_rates_of_counts():
    assert _rates(np.array([3, 2, 1]), "half") == 4 / 6
    assert _rates(np.array([3, 2, 1]), "exclude") == 3 / 4
    assert _rates(np.array([3, 2, 1]), "disagree") == 3 / 6


def test_against_the_best_preset_of_a_cross_fit():
    users = simulated_users(small_collection(), cutoff=5, per_topic=12)
    cf = cross_fit_agreement(users, folds=3, starts=0, taus=(4.0,))
    d = against_preset(cf, seed=0, n_resamples=500)
    name, best = cf.best_preset
    assert d.difference == pytest.approx(cf.cross_fitted.half_rate - best.half_rate, abs=1e-12)
    assert d.lower <= d.difference <= d.upper and d.n_topics == 10
    with pytest.raises(IRStabError, match="preset"):
        against_preset(cf, "nDCG@10")


def test_bad_arguments_are_named():
    with pytest.raises(IRStabError, match="outcomes_a"):
        paired_difference([1, 2], [1, 1], ["a", "b"])
    with pytest.raises(IRStabError, match="lengths"):
        paired_difference([1], [1, 1], ["a", "b"])
    with pytest.raises(IRStabError, match="n_resamples"):
        paired_difference([1, 1], [1, 1], ["a", "b"], n_resamples=10)
    with pytest.raises(IRStabError, match="level"):
        paired_difference([1, 1], [1, 1], ["a", "b"], level=1.5)
    with pytest.raises(IRStabError, match="ties"):
        paired_difference([0, 0], [1, 1], ["a", "b"], ties="exclude")
