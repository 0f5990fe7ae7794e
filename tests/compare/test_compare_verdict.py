"""The decision rule (irstab.compare.verdict) on constructed collections with a known answer.

Score matrices are built from a two-way model x[s, t] = mu_s + tau_t + e[s, t] with chosen
variances, so which measure is more stable is known by construction: Phi(n) =
var(mu) / (var(mu) + (var(tau) + var(e)) / n) (Brennan 2001, eq. 4.10 with n' = n).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from irstab.compare.verdict import decide, paired_bootstrap
from irstab.errors import IRStabError
from irstab.stability import gstudy

S, T = 20, 40


def model(rng, effect, noise, topic_sd=0.0):
    """effect (S, 1) + topic effect (1, T) + residual noise."""
    return effect + rng.normal(0, topic_sd, (1, T)) + rng.normal(0, noise, (S, T))


def needed(scores):
    return {m: gstudy(x).topics_needed(0.95, "phi").n for m, x in scores.items()}


def test_planted_stable_measure_is_recommended():
    # base: residual sd 2 (true Phi(40) = 1 / (1 + 4/40) = 0.909); "planted": sd 0.7
    # (Phi(40) = 0.988, topics for 0.95 = ceil(19 * 0.49) = 10 against 76): a change that is
    # real and material. Five more candidates are exactly as noisy as the baseline.
    rng = np.random.default_rng(7)
    effect = rng.normal(0, 1, (S, 1))
    x = {"base": model(rng, effect, 2.0)}
    for m in ("a", "b", "planted", "c", "d"):
        x[m] = model(rng, effect, 0.7 if m == "planted" else 2.0)
    r = paired_bootstrap(x, "base", n_bootstrap=1000, seed=1)
    v = decide(r, needed(x))
    assert v.change and v.recommended == "planted"
    k = r.index("planted")
    assert r.phi_diff_lower[k] > 0
    assert v.topics_needed["planted"] < 0.9 * v.topics_needed["base"]
    assert "planted" not in v.closest and len(v.closest) == 3


def test_equal_measures_keep_the_baseline():
    # Monte-Carlo of the rule's false-change rate: the baseline and 8 candidates share the
    # same system effect and the same noise (all true Phi equal). The simultaneous intervals
    # hold the chance of *any* false "reliably more stable" near 5 %; over 30 collections
    # at most 4 false changes (binomial(30, 0.05): P(X >= 5) = 0.016).
    changes = 0
    for seed in range(30):
        rng = np.random.default_rng(100 + seed)
        effect = rng.normal(0, 1, (S, 1))
        x = {m: model(rng, effect, 2.0, 0.5) for m in ["base", *"abcdefgh"]}
        r = paired_bootstrap(x, "base", n_bootstrap=400, seed=seed)
        v = decide(r, needed(x))
        changes += v.change
        if not v.change:
            assert v.recommended == "base"
    assert changes <= 4


def test_equal_measures_keep_on_one_collection_with_closest_listed():
    rng = np.random.default_rng(3)
    effect = rng.normal(0, 1, (S, 1))
    x = {m: model(rng, effect, 2.0) for m in ["base", "a", "b", "c", "d"]}
    r = paired_bootstrap(x, "base", n_bootstrap=500, seed=0)
    v = decide(r, needed(x))
    assert not v.change and v.recommended == "base"
    # the closest are the largest observed differences, in order
    order = sorted("abcd", key=lambda m: -r.phi_diff[r.index(m)])
    assert list(v.closest) == order[:3]


def test_identical_candidate_has_a_zero_interval_and_is_kept():
    rng = np.random.default_rng(5)
    effect = rng.normal(0, 1, (S, 1))
    base = model(rng, effect, 1.0)
    x = {"base": base, "twin": base.copy(), "other": model(rng, effect, 1.0)}
    r = paired_bootstrap(x, "base", n_bootstrap=300, seed=2)
    k = r.index("twin")
    assert (r.phi_diff[k], r.phi_diff_lower[k], r.phi_diff_upper[k]) == (0.0, 0.0, 0.0)
    assert (r.sig_diff[k], r.sig_diff_lower[k], r.sig_diff_upper[k]) == (0, 0.0, 0.0)
    assert decide(r, needed(x), pool=["twin"]).change is False


def test_a_small_saving_is_not_material():
    # planted is reliably more stable, but if it saved only 2 of 68 topics (< 10 %) the
    # rule keeps the baseline; 8 of 68 (>= 6.8) is material.
    rng = np.random.default_rng(7)
    effect = rng.normal(0, 1, (S, 1))
    x = {"base": model(rng, effect, 2.0), "planted": model(rng, effect, 0.7)}
    r = paired_bootstrap(x, "base", n_bootstrap=500, seed=1)
    assert r.phi_diff_lower[r.index("planted")] > 0
    assert not decide(r, {"base": 68, "planted": 66}).change
    assert decide(r, {"base": 68, "planted": 60}).change
    assert decide(r, {"base": math.inf, "planted": 60}).change  # baseline never reaches it
    assert not decide(r, {"base": 68, "planted": 60}, min_saving=0.2).change


@pytest.mark.filterwarnings("ignore::irstab.errors.IRStabWarning")  # negative components
def test_one_candidate_interval_is_the_percentile_interval():
    # With a single candidate the simultaneous interval is the ordinary percentile interval:
    # the k-th and (B+1-k)-th order statistics with 2(k-1) <= 0.05 B, here B = 400: k = 11.
    rng = np.random.default_rng(11)
    effect = rng.normal(0, 1, (S, 1))
    x = {"base": model(rng, effect, 2.0), "c": model(rng, effect, 1.5)}
    r = paired_bootstrap(x, "base", n_bootstrap=400, seed=4)
    assert r.level == pytest.approx(11 / 400)
    g = np.random.default_rng(4)
    rows = g.integers(0, S, size=(400, S))
    cols = g.integers(0, T, size=(400, T))
    # recomputed one resample at a time with the G-study (independent of the vectorised path)
    full = np.sort(np.array([
        gstudy(x["c"][rw][:, cl]).phi() - gstudy(x["base"][rw][:, cl]).phi()
        for rw, cl in zip(rows, cols)
    ]))
    assert r.phi_diff_lower[1] == pytest.approx(full[10], abs=1e-12)
    assert r.phi_diff_upper[1] == pytest.approx(full[400 - 11], abs=1e-12)


def test_significant_pairs_equal_scipy_paired_t_tests():
    rng = np.random.default_rng(2)
    effect = rng.normal(0, 0.5, (8, 1))
    x = {"base": effect + rng.normal(0, 1, (8, 15)), "c": effect + rng.normal(0, 0.6, (8, 15))}
    r = paired_bootstrap(x, "base", n_bootstrap=50, seed=0)
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
    r = paired_bootstrap(x, "base", n_bootstrap=400, seed=0)
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
        ({"resample": "systems"}, "resample"),
        ({"alpha": 0.0}, "alpha"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs, needle):
    rng = np.random.default_rng(0)
    x = {"base": rng.random((4, 5)), "c": rng.random((4, 5))}
    with pytest.raises(IRStabError, match=needle):
        paired_bootstrap(x, **{"baseline": "base", **kwargs})


def test_decide_needs_topics_of_every_pool_measure():
    rng = np.random.default_rng(0)
    x = {"base": rng.random((4, 5)), "c": rng.random((4, 5))}
    r = paired_bootstrap(x, "base", n_bootstrap=20)
    with pytest.raises(IRStabError, match="topics_needed"):
        decide(r, {"base": 10})
    with pytest.raises(IRStabError, match="min_saving"):
        decide(r, {"base": 10, "c": 5}, min_saving=1.5)


def test_same_seed_same_answer_and_pairing():
    rng = np.random.default_rng(0)
    x = {"base": rng.random((6, 9)), "c": rng.random((6, 9))}
    a = paired_bootstrap(x, "base", n_bootstrap=100, seed=3)
    b = paired_bootstrap(x, "base", n_bootstrap=100, seed=3)
    assert np.array_equal(a.phi_diff_lower, b.phi_diff_lower)
    assert np.array_equal(a.sig_diff_upper, b.sig_diff_upper)


def test_dl2019_keeps_ndcg10(dl2019):
    # TREC DL 2019 (37 runs x 43 topics): the presets closest to nDCG@10 in Phi (0.924;
    # zipf@20 0.925, nDCG@20 0.918, from irstab stability) are not reliably more stable:
    # every simultaneous interval contains 0 and the verdict keeps nDCG@10.
    import irstab

    ms = ["nDCG@10", "nDCG(discount=zipf)@20", "nDCG@20", "nDCG(gain=exp)@10"]
    x = irstab.score_matrices(dl2019, ms)
    r = paired_bootstrap(x, "nDCG@10", n_bootstrap=300, seed=0)
    assert r.phi[r.index("nDCG@10")] == pytest.approx(0.924, abs=5e-4)
    for m in ms[1:]:
        k = r.index(m)
        assert r.phi_diff_lower[k] < 0 < r.phi_diff_upper[k]
    v = decide(r, needed(x))
    assert not v.change and v.recommended == "nDCG@10"
    assert v.closest[0] == "nDCG(discount=zipf)@20"
