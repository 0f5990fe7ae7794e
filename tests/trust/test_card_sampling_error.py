"""The card's coverage error between collections like the user's (issue 45, item 3).

A candidate's coverage on the card is measured in the user's collection's universe; its
Monte-Carlo error says how well that one universe is known, not how far the coverage moves
to another collection of the same population. ``coverage_sampling_se`` estimates that from
bootstrap resamples of the collection (:func:`irstab.trust.result.between_collections_sd`).
Oracles: the one-way random-effects ANOVA's between-group variance written out for a small
case (closed form); a Monte-Carlo of binomial counts with a known spread of the true rates
(the estimator's mean against the planted variance); the library's own calibration of each
resample's universe, redrawn here with the same stream. Real data: TREC DL 2019, scored in
place. Whether the error is right in size on real data is
``benchmarks/bench_card_candidates.py``'s question (docs/trust-card.md), too slow for a test.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from irstab.trust.checks import _candidate_checks, _varied_resample
from irstab.trust.result import CandidateCheck, _between_variance, between_collections_sd
from irstab.verdict.calibration import calibrate
from irstab.verdict.universes import resampled_universe


def test_between_collections_sd_closed_form():
    # rates 0.9 and 1.0 over 11 collections each: s^2 = 0.005; Monte-Carlo part
    # mean(0.09, 0) / 10 = 0.0045; between = sqrt(0.0005)
    assert between_collections_sd([0.9, 1.0], 11) == pytest.approx(math.sqrt(0.0005))
    # a spread smaller than the Monte-Carlo error's is no spread
    assert between_collections_sd([0.9, 0.91], 11) == 0.0
    assert math.isnan(between_collections_sd([0.9], 100))
    assert math.isnan(between_collections_sd([0.9, 0.8], 1))


@pytest.mark.parametrize("spread", [0.0, 0.03])
def test_between_variance_is_unbiased_monte_carlo(spread):
    # 200,000 cards of 10 resamples x 100 collections; the resamples' true coverages drawn
    # around 0.94 with sd `spread`: the estimator's mean is the planted variance. The
    # estimator is written out here, vectorised over cards, and the library's function
    # checked against it on the first 2,000. The divisor M instead of M - 1 (the
    # Monte-Carlo part's plug-in) is biased by about 6e-6 here: 10 of the test's errors
    # where the spread is 0, 4.9 where it is 0.03 (its own noise is larger there)
    rng = np.random.default_rng(7)
    p = np.clip(0.94 + spread * rng.standard_normal((200_000, 10)), 0, 1)
    truth = float(np.mean(np.var(p, axis=1, ddof=1)))  # after the clip
    rates = rng.binomial(100, p) / 100
    mc = np.mean(rates * (1 - rates), axis=1)
    est = np.var(rates, axis=1, ddof=1) - mc / 99
    np.testing.assert_allclose([_between_variance(r, 100) for r in rates[:2000]], est[:2000],
                               rtol=1e-12, atol=1e-15)
    se = est.std(ddof=1) / math.sqrt(len(est))
    assert abs(est.mean() - truth) < 4 * se
    plug_in = np.var(rates, axis=1, ddof=1) - mc / 100
    if spread == 0.0:
        assert abs(plug_in.mean() - truth) > 8 * se  # the test tells the two divisors apart


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1) | st.just(math.nan), min_size=0, max_size=30),
       st.integers(-3, 500))
@example([0.0, 1.0], 2)  # the widest spread: s^2 = 0.5, no Monte-Carlo part to remove
def test_between_collections_sd_is_nan_or_a_nonnegative_number(rates, m):
    v = between_collections_sd(rates, m)
    finite = [r for r in rates if math.isfinite(r)]
    n = len(finite)
    if n < 2 or m < 2:
        assert math.isnan(v)
    else:
        # n numbers in [0, 1] have a variance (divisor n - 1) of at most n / (4 (n - 1)):
        # half at 0, half at 1
        assert 0.0 <= v <= math.sqrt(n / (4 * (n - 1))) + 1e-12


def test_candidate_check_reports_it_and_says_it():
    covered = np.r_[np.ones(180, bool), np.zeros(20, bool)]
    rec = np.zeros(200, bool)
    c = CandidateCheck("m", -0.01, False, covered, rec,
                       resampled_coverage=np.array([0.9, 1.0]), resampled_replicates=11)
    d = c.to_dict()
    assert d["coverage_sampling_se"] == pytest.approx(math.sqrt(0.0005))
    assert d["sampling_resamples"] == 2 and json.loads(json.dumps(d)) == d
    both = math.hypot(math.sqrt(0.9 * 0.1 / 200), math.sqrt(0.0005))  # 0.0307...
    assert f"(+- {both:.1%} with the variation between collections like this one)" in \
        c.sentence(43)
    plain = CandidateCheck("m", -0.01, False, covered, rec).to_dict()
    assert plain["coverage_sampling_se"] is None and plain["sampling_resamples"] == 0
    assert "between collections" not in CandidateCheck("m", -0.01, False, covered,
                                                       rec).sentence(43)


def test_resamples_are_comparable_collections():
    # two of three systems identical: a third of resamples draw one score row only
    x = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [0.5, 0.4, 0.9]])
    # systems that differ on one topic only: a resample without it has nothing to compare
    y = np.array([[0.5, 0.5, 0.5, 0.9], [0.5, 0.5, 0.5, 0.1], [0.5, 0.5, 0.5, 0.5]])
    rng = np.random.default_rng(0)
    for m in ((x,), (y,), (x[:, :3], y[:, :3] + x[:, :3])):
        for _ in range(200):
            s, t = _varied_resample(m, rng)
            assert all(np.ptp(a[np.ix_(s, t)].mean(axis=1)) > 0 for a in m)
    # nothing to draw: the collection itself
    s, t = _varied_resample((np.full((3, 4), 0.5),), rng)
    assert s.tolist() == [0, 1, 2] and t.tolist() == [0, 1, 2, 3]


def test_resampled_coverage_is_the_calibration_of_each_resamples_universe(dl2019):
    import irstab

    sc = irstab.score_matrices(dl2019, ["nDCG@10", "nDCG@100"])
    x, y = sc["nDCG@10"].to_numpy(), sc["nDCG@100"].to_numpy()
    alone, = _candidate_checks(x, {"nDCG@100": y}, 43, 40, 0.95, 3, None)
    got, = _candidate_checks(x, {"nDCG@100": y}, 43, 40, 0.95, 3, None, 3, 20)
    # the card itself is the same with or without its resamples (a stream of their own)
    np.testing.assert_array_equal(got.covered, alone.covered)
    np.testing.assert_array_equal(got.recommended, alone.recommended)
    # the oracle: each resample's own universe, calibrated with the same stream
    stream = np.random.default_rng(3).spawn(1)[0]
    want = []
    for _ in range(3):
        s, t = _varied_resample((x, y), stream)
        u = resampled_universe("r", {"b": x[np.ix_(s, t)], "c": y[np.ix_(s, t)]}, "b", 37, 43)
        want.append(calibrate(u, n_replicates=20, seed=stream).covered[:, 0].mean())
    np.testing.assert_array_equal(got.resampled_coverage, want)
    assert got.resampled_replicates == 20
    assert got.to_dict()["coverage_sampling_se"] == between_collections_sd(want, 20)
