"""The verdict (irstab.verdict.paired, .decision) on constructed collections with a known answer.

Score matrices are built from a two-way model x[s, t] = mu_s + tau_t + e[s, t] with chosen
variances, so which measure is more stable is known by construction: Phi(n) =
var(mu) / (var(mu) + (var(tau) + var(e)) / n) (Brennan 2001, eq. 4.10 with n' = n).
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import irstab
from irstab.verdict import PhiInterval, decide, paired_comparison, verdict
from irstab.verdict.decision import topics_needed
from irstab.verdict.paired import (
    expanded_confidence, min_draws, phi_differences, simultaneous_percentile,
)
from irstab.errors import DegenerateDataError, IRStabError, IRStabWarning
from irstab.stability import gstudy

S, T = 20, 40


def model(rng, effect, noise, topic_sd=0.0):
    """effect (systems, 1) + topic effect (1, T) + residual noise."""
    return effect + rng.normal(0, topic_sd, (1, T)) + rng.normal(0, noise, (len(effect), T))


def needed(scores):
    with warnings.catch_warnings():  # negative topic components: set to 0, as documented
        warnings.simplefilter("ignore", IRStabWarning)
        return {m: gstudy(x).topics_needed(0.95, "phi").n for m, x in scores.items()}


def test_planted_stable_measure_is_recommended():
    # base: residual sd 2 (true Phi(40) = 1 / (1 + 4/40) = 0.909); "planted": sd 0.7
    # (Phi(40) = 0.988, topics for 0.95 = ceil(19 * 0.49) = 10 against 76): a change that is
    # real and material. Five more candidates are exactly as noisy as the baseline. 40
    # systems: the difference is about 1 - Phi_base, known to the precision of the system
    # variance (relative sd sqrt(2 / (S - 1))): with 20 it is about 3 sd above 0, where the
    # simultaneous t of 5 candidates on 19 df needs 2.86.
    rng = np.random.default_rng(7)
    effect = rng.normal(0, 1, (40, 1))
    x = {"base": model(rng, effect, 2.0)}
    for m in ("a", "b", "planted", "c", "d"):
        x[m] = model(rng, effect, 0.7 if m == "planted" else 2.0)
    v = verdict(x, "base", seed=1)
    assert v.change and v.recommended == "planted" and v.use == "planted"
    r = v.comparison
    k = r.index("planted")
    assert r.phi_diff_lower[k] > 0 and r.interval == "jackknife"
    assert v.topics_needed["planted"] < 0.9 * v.topics_needed["base"]
    assert "planted" not in v.closest and len(v.closest) == 3


def test_equal_measures_keep_the_baseline():
    # Monte-Carlo of the rule's false-change rate: the baseline and 8 candidates share the
    # same system effect and the same noise (all true Phi equal). The simultaneous intervals
    # hold the chance of *any* false "reliably more stable" near 2.5 %; over 30 collections
    # at most 4 false changes (binomial(30, 0.05): P(X >= 5) = 0.016). B is the fewest draws
    # that resolve 8 candidates at S = 20 (2 x 8 / (1 - c'), c' = 0.9637: 441).
    changes = 0
    B = min_draws(8, S)
    assert B == 441
    for seed in range(30):
        rng = np.random.default_rng(100 + seed)
        effect = rng.normal(0, 1, (S, 1))
        x = {m: model(rng, effect, 2.0, 0.5) for m in ["base", *"abcdefgh"]}
        v = verdict(x, "base", n_bootstrap=B, seed=seed)
        changes += v.change
        if not v.change:
            assert v.recommended is None and v.use == "base"
    assert changes <= 4


def test_equal_measures_keep_on_one_collection_with_closest_listed():
    rng = np.random.default_rng(3)
    effect = rng.normal(0, 1, (S, 1))
    x = {m: model(rng, effect, 2.0) for m in ["base", "a", "b", "c", "d"]}
    r = paired_comparison(x, "base", n_bootstrap=500, seed=0)
    v = decide(r, needed(x))
    assert not v.change and v.use == "base"
    # the closest are the largest observed differences, in order
    order = sorted("abcd", key=lambda m: -r.phi_diff[r.index(m)])
    assert list(v.closest) == order[:3]


def test_identical_candidate_has_a_zero_interval_and_is_kept():
    rng = np.random.default_rng(5)
    effect = rng.normal(0, 1, (S, 1))
    base = model(rng, effect, 1.0)
    x = {"base": base, "twin": base.copy(), "other": model(rng, effect, 1.0)}
    for method in PhiInterval:
        r = paired_comparison(x, "base", n_bootstrap=300, seed=2, interval=method)
        k = r.index("twin")
        assert (r.phi_diff[k], r.phi_diff_lower[k], r.phi_diff_upper[k]) == (0.0, 0.0, 0.0)
        assert (r.sig_diff[k], r.sig_diff_lower[k], r.sig_diff_upper[k]) == (0, 0.0, 0.0)
        assert decide(r, needed(x), pool=["twin"]).change is False


def test_a_small_saving_is_not_material():
    # planted is reliably more stable, but if it saved only 2 of 68 topics (< 10 %) the
    # rule keeps the baseline; 8 of 68 (>= 6.8) is material.
    rng = np.random.default_rng(7)
    effect = rng.normal(0, 1, (S, 1))
    # residual sd 3 against 0.7 at 20 x 40: Phi about 0.82 against 0.99
    x = {"base": model(rng, effect, 3.0), "planted": model(rng, effect, 0.7)}
    r = paired_comparison(x, "base", n_bootstrap=500, seed=1)
    assert r.phi_diff_lower[r.index("planted")] > 0
    assert not decide(r, {"base": 68, "planted": 66}).change
    assert decide(r, {"base": 68, "planted": 60}).change
    assert decide(r, {"base": math.inf, "planted": 60}).change  # baseline never reaches it
    assert not decide(r, {"base": 68, "planted": 60}, min_saving=0.2).change


def test_the_parametric_interval_is_the_expanded_percentile_of_its_pivots():
    # Rebuilt from the library's parts on the same random stream: the pivots of every
    # measure's Phi, then the k-th and (B+1-k)-th order statistics of the difference at the
    # level of Student's t with S - 1 df (one candidate: 2(k-1) <= (1 - c') B).
    from irstab.verdict.paired import _parametric_draws

    rng = np.random.default_rng(11)
    effect = rng.normal(0, 1, (S, 1))
    x = {"base": model(rng, effect, 2.0), "c": model(rng, effect, 1.5)}
    r = paired_comparison(x, "base", interval="parametric", n_bootstrap=400, seed=4)
    cube = np.stack([x["base"], x["c"]])
    draws = _parametric_draws(cube, 400, np.random.default_rng(4))
    d = np.sort(draws[1] - draws[0])
    c = expanded_confidence(0.95, S)
    # closed form of the level: z at c' equals t(0.975, 19) = 2.093 -> c' = 0.9637
    assert c == pytest.approx(1 - 2 * stats.norm.sf(stats.t.ppf(0.975, S - 1)), abs=1e-12)
    assert c == pytest.approx(0.9637, abs=5e-4)
    k = math.floor((1 - c) * 400 / 2) + 1
    assert r.level == pytest.approx(k / 400)
    assert r.phi_diff_lower[1] == d[k - 1] and r.phi_diff_upper[1] == d[400 - k]


@pytest.mark.filterwarnings("ignore::irstab.errors.IRStabWarning")  # negative components
def test_bootstrap_interval_is_the_percentile_interval_of_recomputed_gstudies():
    # The kept "bootstrap" method: with a single candidate the interval is the k-th and
    # (B+1-k)-th order statistics with 2(k-1) <= 0.05 B, here B = 400: k = 11, recomputed one
    # resample at a time with the G-study (independent of the vectorised path).
    rng = np.random.default_rng(11)
    effect = rng.normal(0, 1, (S, 1))
    x = {"base": model(rng, effect, 2.0), "c": model(rng, effect, 1.5)}
    r = paired_comparison(x, "base", n_bootstrap=400, seed=4, interval="bootstrap")
    assert r.level == pytest.approx(11 / 400)
    g = np.random.default_rng(4)
    rows = g.integers(0, S, size=(400, S))
    cols = g.integers(0, T, size=(400, T))
    full = np.sort(np.array([
        gstudy(x["c"][rw][:, cl]).phi() - gstudy(x["base"][rw][:, cl]).phi()
        for rw, cl in zip(rows, cols)
    ]))
    assert r.phi_diff_lower[1] == pytest.approx(full[10], abs=1e-12)
    assert r.phi_diff_upper[1] == pytest.approx(full[400 - 11], abs=1e-12)


def test_candidates_are_simultaneous_and_the_rest_marginal():
    # The same draws (same seed): a measure's marginal interval (context) lies inside its
    # simultaneous one (family of 6), and equals its interval when it is the only candidate.
    rng = np.random.default_rng(12)
    effect = rng.normal(0, 1, (S, 1))
    x = {m: model(rng, effect, 1.5, 0.3) for m in ["base", *"abcdef"]}
    family = paired_comparison(x, "base", n_bootstrap=800, seed=3)
    alone = paired_comparison(x, "base", candidates=["a"], n_bootstrap=800, seed=3)
    assert alone.candidates == ("a",) and family.candidates == tuple("abcdef")
    assert family.level < alone.level  # a more extreme tail for six at once
    for m in "bcdef":
        k = family.index(m)
        assert alone.interval_kind(m) == "marginal" and family.interval_kind(m) == "simultaneous"
        assert family.phi_diff_lower[k] <= alone.phi_diff_lower[k]
        assert alone.phi_diff_upper[k] <= family.phi_diff_upper[k]
    only = {m: x[m] for m in ("base", "a")}
    single = paired_comparison(only, "base", n_bootstrap=800, seed=3)
    # draws of "a" differ with the other measures present (joint Wishart draws), so compare
    # the rule, not the numbers: the level of a single interval is the marginal one
    assert single.level == alone.level


def test_simultaneous_percentile_is_exact_for_normal_draws():
    # Monte-Carlo oracle of the construction itself: estimates N(0, C) and draws
    # estimate + N(0, C) (an exact pivot) give simultaneous coverage 0.95 for 6 correlated
    # candidates; 600 collections, binomial sd 0.009.
    rng = np.random.default_rng(1)
    K = 6
    c = 0.5 * np.ones((K, K)) + 0.5 * np.eye(K)
    chol = np.linalg.cholesky(c)
    hits = 0
    for _ in range(600):
        est = chol @ rng.standard_normal(K)
        lo, hi, _ = simultaneous_percentile(est[:, None] + chol @ rng.standard_normal((K, 1000)),
                                            0.95)
        hits += bool(np.all((lo <= 0) & (0 <= hi)))
    assert 0.92 <= hits / 600 <= 0.98


def test_significant_pairs_equal_scipy_paired_t_tests():
    rng = np.random.default_rng(2)
    effect = rng.normal(0, 0.5, (8, 1))
    x = {"base": effect + rng.normal(0, 1, (8, 15)), "c": effect + rng.normal(0, 0.6, (8, 15))}
    r = paired_comparison(x, "base", n_bootstrap=120, seed=0)
    for m in x:
        n = sum(
            stats.ttest_rel(x[m][i], x[m][j]).pvalue < 0.05
            for i in range(8) for j in range(i + 1, 8)
        )
        assert r.sig_pairs[r.index(m)] == n
    assert r.n_pairs == 28


def test_stability_and_discriminative_power_can_disagree():
    # base: large topic effect (sd 3), small residual (0.5): Phi counts the topic variance as
    # noise (low Phi) while the paired t-test removes it (many significant pairs).
    # cand: no topic effect, residual 1.5: higher Phi (noise 2.25 vs 9.25), fewer significant
    # pairs (residual 3x larger). Opposite signs: the verdict must say they disagree.
    rng = np.random.default_rng(9)
    effect = rng.normal(0, 0.5, (S, 1))
    x = {"base": model(rng, effect, 0.5, 3.0), "cand": model(rng, effect, 1.5)}
    r = paired_comparison(x, "base", n_bootstrap=400, seed=0)
    k = r.index("cand")
    assert r.phi_diff[k] > 0 and r.sig_diff[k] < 0
    v = decide(r, needed(x))
    assert "cand" in v.disagreements


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"baseline": "nope"}, "baseline"),
        ({"n_bootstrap": 0}, "n_bootstrap"),
        ({"confidence": 1.0}, "confidence"),
        ({"interval": "systems"}, "interval"),
        ({"alpha": 0.0}, "alpha"),
        ({"candidates": ["zzz"]}, "candidates"),
        ({"candidates": ["base"]}, "candidates"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs, needle):
    rng = np.random.default_rng(0)
    x = {"base": rng.random((4, 5)), "c": rng.random((4, 5))}
    with pytest.raises(IRStabError, match=needle):
        paired_comparison(x, **{"baseline": "base", **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [({"target": 1.0}, "target"), ({"min_saving": 1.0}, "min_saving"),
     ({"n_closest": -1}, "n_closest")],
)
def test_verdict_bad_arguments(kwargs, needle):
    rng = np.random.default_rng(0)
    x = {"base": rng.random((4, 5)), "c": rng.random((4, 5))}
    with pytest.raises(IRStabError, match=needle):
        verdict(x, "base", **kwargs)


def test_a_constant_baseline_is_refused():
    # no system variance at all: nothing to compare with, never "everything is better"
    rng = np.random.default_rng(0)
    x = {"base": np.full((5, 6), 0.3), "c": rng.random((5, 6))}
    with pytest.raises(DegenerateDataError,
                       match=r"baseline: 'base': all 30 scores are equal \(0.3\)"):
        verdict(x, "base")


def test_decide_needs_topics_of_every_pool_measure():
    rng = np.random.default_rng(0)
    x = {"base": rng.random((4, 5)), "c": rng.random((4, 5))}
    r = paired_comparison(x, "base", interval="parametric")  # 4 systems: 1370 draws (t, 3 df)
    assert r.n_bootstrap == 1370
    with pytest.raises(IRStabError, match="topics_needed"):
        decide(r, {"base": 10})
    with pytest.raises(IRStabError, match="min_saving"):
        decide(r, {"base": 10, "c": 5}, min_saving=1.5)


def test_same_seed_same_answer_and_pairing():
    rng = np.random.default_rng(0)
    x = {"base": rng.random((6, 9)), "c": rng.random((6, 9))}
    a = paired_comparison(x, "base", n_bootstrap=200, seed=3)
    b = paired_comparison(x, "base", n_bootstrap=200, seed=3)
    assert np.array_equal(a.phi_diff_lower, b.phi_diff_lower)
    assert np.array_equal(a.sig_diff_upper, b.sig_diff_upper)


@pytest.mark.filterwarnings("ignore::irstab.errors.IRStabWarning")  # negative components
def test_topics_needed_equal_the_gstudy():
    rng = np.random.default_rng(6)
    effect = rng.normal(0, 1, (S, 1))
    cube = np.stack([model(rng, effect, sd, 0.4) for sd in (0.5, 1.0, 2.0, 4.0)])
    got = topics_needed(cube, 0.95)
    assert got.tolist() == [gstudy(m).topics_needed(0.95, "phi").n for m in cube]


def test_verdict_result_frames_and_json():
    rng = np.random.default_rng(4)
    effect = rng.normal(0, 0.15, (30, 1)) + rng.normal(0, 0.2, (1, 40))
    x = {"ndcg": effect + rng.normal(0, 0.25, (30, 40)),
         "sharp": effect + rng.normal(0, 0.10, (30, 40)),
         "noisy": effect + rng.normal(0, 0.40, (30, 40))}
    v = verdict(x, "ndcg", candidates=["sharp"])
    f = v.to_frame()
    assert f["measure"].tolist() == ["ndcg", "sharp", "noisy"]
    assert f["role"].tolist() == ["baseline", "candidate", "context"]
    assert f["interval_kind"].tolist() == ["baseline", "simultaneous", "marginal"]
    assert f["recommended"].tolist() == [False, True, False]
    assert f.loc[2, "topics_needed"] == gstudy(x["noisy"]).topics_needed(0.95, "phi").n
    d = json.loads(json.dumps(v.to_dict()))
    assert d["recommended"] == "sharp" and d["interval"] == "jackknife"
    assert [m["measure"] for m in d["measures"]] == ["ndcg", "sharp", "noisy"]
    assert "measures" not in v.to_dict(measures=False)
    text = repr(v)
    assert text.startswith("<Verdict use sharp instead of ndcg: Phi +") and len(text) < 200
    assert "candidate" in repr(v.comparison)


def test_dl2019_keeps_ndcg10(dl2019):
    # TREC DL 2019 (37 runs x 43 topics): the presets closest to nDCG@10 in Phi (0.924;
    # zipf@20 0.925, nDCG@20 0.918, exp gain @10 0.911, from irstab stability) are not
    # reliably more stable: zipf@20's and nDCG@20's intervals contain 0, and so does the exp
    # gain's (its Phi is 0.013 lower and its scores move with nDCG@10's, so the difference
    # is precise; the jackknife's upper end is +0.007). The verdict keeps nDCG@10.
    ms = ["nDCG@10", "nDCG(discount=zipf)@20", "nDCG@20", "nDCG(gain=exp)@10"]
    x = irstab.score_matrices(dl2019, ms)
    v = verdict(x, "nDCG@10", n_bootstrap=1000, seed=0)
    r = v.comparison
    assert r.phi[r.index("nDCG@10")] == pytest.approx(0.924, abs=5e-4)
    for m in ms[1:3]:
        k = r.index(m)
        assert r.phi_diff_lower[k] < 0 < r.phi_diff_upper[k]
    k = r.index("nDCG(gain=exp)@10")
    assert r.phi_diff[k] == pytest.approx(0.911 - 0.924, abs=1e-3)
    assert r.phi_diff_lower[k] < -0.02 and 0 < r.phi_diff_upper[k] < 0.01
    assert not v.change and v.use == "nDCG@10"
    assert v.closest[0] == "nDCG(discount=zipf)@20"


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 8), st.integers(3, 10), st.integers(0, 2**31 - 1),
       st.sampled_from(list(PhiInterval)))
def test_intervals_contain_the_estimate_and_are_ordered(n_s, n_t, seed, method):
    # any data: lower <= upper, the baseline's row is exactly 0, a finite result; the
    # percentile intervals of pivots or resamples need not contain the estimate, but the
    # difference is within [-1, 1] as Phi is in [0, 1]
    rng = np.random.default_rng(seed)
    x = {m: pd.DataFrame(rng.random((n_s, n_t))) for m in ("b", "c", "d")}
    d = phi_differences(np.stack([v.to_numpy() for v in x.values()]), 0,
                        np.array([False, True, True]), interval=method, n_bootstrap=60,
                        rng=np.random.default_rng(seed))
    assert np.all(d.lower <= d.upper)
    assert (d.diff[0], d.lower[0], d.upper[0]) == (0.0, 0.0, 0.0)
    assert np.all(np.isfinite(d.lower)) and np.all(np.abs(d.upper) <= 1.0 + 1e-12)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(-5, 5), st.floats(0.2, 5))
def test_verdict_invariants(seed, shift, scale):
    # Phi ignores a shift and a positive scale of a measure's scores: the point estimates are
    # unchanged; a shift leaves the mean products, so every draw and interval, unchanged too.
    # Whatever the data, the recommendation is None or a candidate whose interval is above 0.
    rng = np.random.default_rng(seed)
    effect = rng.normal(0, 1, (10, 1))
    x = {m: effect + rng.normal(0, sd, (10, 12)) for m, sd in (("b", 1.0), ("c", 0.5),
                                                               ("d", 2.0))}
    v = verdict(x, "b", candidates=["c", "d"], n_bootstrap=200, seed=1)
    moved = verdict({**x, "c": x["c"] + shift}, "b", candidates=["c", "d"], n_bootstrap=200,
                    seed=1)
    scaled = verdict({**x, "c": x["c"] * scale}, "b", candidates=["c", "d"], n_bootstrap=200,
                     seed=1)
    a, m, s = v.comparison, moved.comparison, scaled.comparison
    assert np.allclose(m.phi_diff, a.phi_diff, atol=1e-9)
    assert np.allclose(m.phi_diff_lower, a.phi_diff_lower, atol=1e-9)
    assert np.allclose(s.phi_diff, a.phi_diff, atol=1e-9)
    assert v.recommended in (None, "c", "d")
    if v.recommended is not None:
        assert a.phi_diff_lower[a.index(v.recommended)] > 0


def test_too_few_draws_are_refused_and_two_systems_are_refused():
    # two measures from one distribution (no true difference), 30 x 40: with B = 1 the one
    # draw made a zero-width interval above 0 and a "change"; one candidate read at the
    # t level with 29 df (c' = 0.95918) needs B >= 2 / (1 - c') = 48.98, so 49 (closed form)
    rng = np.random.default_rng(7)
    e = rng.normal(0, 1, (30, 1))
    x = {"a": e + rng.normal(0, 1, (30, 40)), "b": e + rng.normal(0, 1, (30, 40))}
    assert 2 / (1 - expanded_confidence(0.95, 30)) == pytest.approx(48.98, abs=0.01)
    for B in (1, 2, 40, 48):
        with pytest.raises(IRStabError, match="use at least 49"):
            verdict(x, "a", interval="parametric", n_bootstrap=B)
    assert verdict(x, "a", interval="parametric", n_bootstrap=49).recommended is None
    # the jackknife draws only the significant pairs' topic resamples: 2 / 0.05 = 40
    with pytest.raises(IRStabError, match="use at least 40"):
        verdict(x, "a", n_bootstrap=39)
    assert verdict(x, "a", n_bootstrap=40).recommended is None
    # 2 systems: the t level with 1 df is 1 - 6e-37, which float64 rounds to 1: no number of
    # draws resolves its tails (the range of the draws used to stand in for it); the
    # jackknife cannot leave one of two systems out
    two = {k: v[:2] for k, v in x.items()}
    with pytest.raises(IRStabError, match="more than this machine can hold"):
        paired_comparison(two, "a", interval="parametric", n_bootstrap=200, seed=1)
    with pytest.raises(IRStabError, match="at least 3 systems and 3 topics"):
        paired_comparison(two, "a", seed=1)


@pytest.mark.parametrize("n, few", [(3, True), (19, True), (20, False), (500, False)])
def test_the_few_systems_caveat_follows_the_calibrated_settings(n, few):
    # the caveat below 20 systems, as decision.few_systems_text states it: fewer systems make
    # the system part's variance the least sure (docs/calibration.md's 12 x 20 settings)
    from irstab.verdict.decision import few_systems_text

    assert bool(few_systems_text(n)) is few
    if few:
        assert few_systems_text(n).startswith(f"With {n} systems, read the intervals as less")
