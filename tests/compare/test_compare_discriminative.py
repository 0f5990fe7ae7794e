"""Discriminative power: Sakai's paired bootstrap, randomised Tukey HSD, paired t-tests.

Oracles: a per-pair, per-sample loop of Sakai's (2006) algorithm on the same bootstrap
samples; brute-force enumeration of every within-topic permutation for Tukey HSD;
scipy.stats.ttest_rel; Holm / Bonferroni / BH written out below; hand counts.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from irstab.compare import (
    PairwiseTests,
    bootstrap_samples,
    compare_measures,
    discriminative_power,
    paired_t_tests,
    randomised_tukey_hsd,
)
from irstab.errors import DegenerateDataError, IRStabError, IRStabWarning

# --------------------------------------------------------------------------- oracles


def naive_asl(x: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """Sakai (2006), Fig. 1, one pair and one sample at a time, pairs i < j.

    Conventions as documented in discriminative_power: identical pairs 1, constant
    non-zero differences 0, a sample of equal differences has t* = inf (or 0 if they
    are all 0), and |t*| within 1e-10 (relative) of |t_obs| counts as extreme.
    """
    S, T = x.shape
    tol = 1e-12 * max(np.abs(x).max(), 1e-300)
    out = []
    for i, j in itertools.combinations(range(S), 2):
        z = x[i] - x[j]
        if np.all(np.abs(z) <= tol):
            out.append(1.0)
            continue
        sd = z.std(ddof=1)
        if sd <= tol:
            out.append(0.0)
            continue
        t_obs = abs(z.mean()) / (sd / math.sqrt(T))
        w = z - z.mean()
        wmax = np.abs(w).max()
        count = 0
        for idx in samples:
            wb = w[idx]
            m, s = wb.mean(), wb.std(ddof=1)
            if s <= 1e-6 * wmax:
                t = math.inf if abs(m) > 1e-9 * wmax else 0.0
            else:
                t = m / (s / math.sqrt(T))
            count += abs(t) >= t_obs * (1 - 1e-10)
        out.append(count / len(samples))
    return np.array(out)


def holm(p):
    """Holm step-down: sorted p_(k) -> max_{j<=k} min(1, (P - j + 1) p_(j)) (0-based j: P - j)."""
    p = np.asarray(p)
    order = np.argsort(p)
    adj = np.empty_like(p)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[idx]))
        adj[idx] = running
    return adj


def bh(p):
    """Benjamini-Hochberg step-up: min_{j>=k} P p_(j) / j, capped at 1."""
    p = np.asarray(p)
    order = np.argsort(p)
    adj = np.empty_like(p)
    running = 1.0
    for rank in range(len(p) - 1, -1, -1):
        idx = order[rank]
        running = min(running, len(p) * p[idx] / (rank + 1))
        adj[idx] = running
    return adj


# --------------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize(
    "seed, S, T, decimals",
    [(0, 7, 12, None), (1, 6, 20, 1), (2, 5, 3, 1), (3, 4, 2, None)],
)
def test_asl_equals_naive_loop_on_same_samples(seed, S, T, decimals):
    rng = np.random.default_rng(seed)
    x = rng.random((S, 1)) * 0.5 + rng.random((S, T)) * 0.5
    if decimals is not None:  # discrete scores (like P@10): exact ties, zero differences
        x = np.round(x, decimals)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        r = discriminative_power({"m": x}, n_bootstrap=400, seed=seed)
        # expected: the per-pair, per-sample loop above, on the result's own samples
        np.testing.assert_array_equal(r.asl[0], naive_asl(x, np.asarray(r.samples)))
    assert r.n_pairs == S * (S - 1) // 2
    np.testing.assert_allclose(r.mean_diff[0], [x[i].mean() - x[j].mean()
                                                for i, j in itertools.combinations(range(S), 2)],
                               atol=1e-12)


def test_asl_equals_naive_loop_on_dl2019(dl2019):
    import irstab

    scores = irstab.score_matrices(dl2019, ["nDCG@10", "AP"])
    r = discriminative_power(scores, n_bootstrap=300, top=9, seed=5)
    assert r.n_pairs == 36  # 9 systems -> 9*8/2
    for k, name in enumerate(r.measures):
        x = scores[name].loc[list(r.systems)].to_numpy()
        # expected: naive loop on the same (shared) samples
        np.testing.assert_array_equal(r.asl[k], naive_asl(x, np.asarray(r.samples)))


def test_samples_are_shared_and_reproducible():
    rng = np.random.default_rng(4)
    x = rng.random((6, 15))
    two = {"m": x, "m2": 2.0 * x + rng.random(15)}  # scaled + a topic effect
    a = discriminative_power(two, n_bootstrap=250, seed=9)
    b = discriminative_power(two, n_bootstrap=250, seed=9)
    np.testing.assert_array_equal(a.asl, b.asl)
    # the samples are bootstrap_samples(T, B, seed), one matrix for all pairs and measures
    np.testing.assert_array_equal(a.samples, bootstrap_samples(15, 250, seed=9))
    # the studentised t is invariant to scaling and to a per-topic shift: on shared
    # samples the two measures' ASLs are identical (closed form: same t statistics)
    np.testing.assert_array_equal(a.asl[0], a.asl[1])
    # passing the samples back gives the same result; another seed gives other samples
    c = discriminative_power(two, samples=a.samples)
    np.testing.assert_array_equal(a.asl, c.asl)
    d = discriminative_power(two, n_bootstrap=250, seed=10)
    assert not np.array_equal(d.samples, a.samples)


def test_identical_runs_get_asl_one_with_warning():
    rng = np.random.default_rng(0)
    x = rng.random((3, 10))
    x[2] = x[0]
    with pytest.warns(IRStabWarning, match=r"identical scores on every topic.*ASL = 1: 0/2"):
        r = discriminative_power({"m": x}, n_bootstrap=100, seed=1)
    assert r.asl[0, 1] == 1.0  # pair (0, 2)
    assert not r.significant[0, 1]


def test_constant_difference_gets_asl_zero_with_warning():
    x = np.array([[0.5, 0.6, 0.7, 0.4], [0.4, 0.5, 0.6, 0.3], [0.1, 0.9, 0.2, 0.8]])
    with pytest.warns(IRStabWarning, match="constant non-zero difference.*ASL = 0: 0/1"):
        r = discriminative_power({"m": x}, n_bootstrap=100, seed=1)
    assert r.asl[0, 0] == 0.0  # x0 - x1 = 0.1 on every topic: infinite t


def test_single_topic_and_single_system_are_degenerate():
    with pytest.raises(DegenerateDataError, match="at least 2 topics, got 1"):
        discriminative_power({"m": np.array([[0.1], [0.2]])}, seed=0)
    with pytest.raises(DegenerateDataError, match="at least 2"):
        discriminative_power({"m": np.array([[0.1, 0.2]])}, seed=0)
    with pytest.raises(DegenerateDataError, match="topics"):
        paired_t_tests({"m": np.array([[0.1], [0.2]])})
    with pytest.raises(DegenerateDataError, match="topics"):
        randomised_tukey_hsd({"m": np.array([[0.1], [0.2]])})


def test_top_keeps_the_best_systems_by_the_first_measure():
    x = np.array([[0.1, 0.2, 0.1], [0.9, 0.8, 0.7], [0.5, 0.4, 0.6], [0.3, 0.3, 0.2]])
    frame = pd.DataFrame(x, index=["w", "x", "y", "z"], columns=["t1", "t2", "t3"])
    r = discriminative_power({"m": frame, "rev": -frame}, n_bootstrap=50, seed=0, top=2)
    assert r.systems == ("x", "y")  # means 0.8, 0.5 are the two highest; input order kept
    assert r.n_pairs == 1
    r = discriminative_power({"m": frame, "rev": -frame}, n_bootstrap=50, seed=0, top=2, top_by="rev")
    assert r.systems == ("w", "z")
    tied = pd.DataFrame([[0.5, 0.6], [0.4, 0.6], [0.4, 0.6]], index=list("abc"))  # means .55 .5 .5
    with pytest.warns(IRStabWarning, match=r"tie in mean score at the cut"):
        r = discriminative_power({"m": tied}, n_bootstrap=20, seed=0, top=2)
    assert r.systems == ("a", "b")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"top": 1}, "top: must be between 2"),
        ({"top": 9}, "top: must be between 2"),
        ({"top": 2.5}, "top: expected an integer"),
        ({"top": 2, "top_by": "nope"}, "top_by"),
        ({"alpha": 1.5}, "alpha"),
        ({"n_bootstrap": 0}, "n_bootstrap"),
        ({"seed": "x"}, "seed"),
        ({"samples": np.zeros((3, 4), dtype=int)}, "samples: expected a"),
        ({"samples": np.full((3, 5), 7)}, "samples: expected integer topic indices"),
        ({"samples": np.zeros((3, 5), dtype=int), "seed": 1}, "either samples"),
    ],
)
def test_bad_parameters_are_named(kwargs, match):
    x = np.random.default_rng(0).random((3, 5))
    with pytest.raises(IRStabError, match=match):
        discriminative_power({"m": x}, **kwargs)


def test_input_validation():
    with pytest.raises(IRStabError, match="non-finite"):
        discriminative_power({"m": np.array([[0.1, np.nan], [0.2, 0.3]])})
    with pytest.raises(IRStabError, match="shape"):
        discriminative_power({"a": np.zeros((2, 3)), "b": np.zeros((3, 3))})
    a = pd.DataFrame(np.zeros((2, 2)), index=["x", "y"])
    with pytest.raises(IRStabError, match="systems only in 'b': 'q'; systems only in 'a': 'y'"):
        discriminative_power({"a": a, "b": a.rename(index={"y": "q"})})


def test_result_frames():
    x = np.random.default_rng(3).random((4, 8))
    r = discriminative_power({"m": pd.DataFrame(x, index=list("abcd"))}, n_bootstrap=100, seed=0)
    f = r.to_frame()
    assert list(f.columns) == ["measure", "system_a", "system_b", "mean_diff", "p_value",
                               "raw_p_value", "significant"]
    assert list(zip(f.system_a, f.system_b)) == list(itertools.combinations("abcd", 2))
    s = r.summary()
    assert s["n_pairs"].iloc[0] == 6
    assert s["discriminative_power"].iloc[0] == pytest.approx(r.n_significant[0] / 6)
    d = r.to_dict()
    assert d["pairs"][0] == ["a", "b"] and len(d["measures"]["m"]["p_values"]) == 6
    assert not r.asl.flags.writeable


# --------------------------------------------------------------------------- Tukey HSD


def exact_tukey_p(x: np.ndarray) -> np.ndarray:
    """Brute force: every combination of within-topic permutations (S!^T of them)."""
    S, T = x.shape
    perms = np.array(list(itertools.permutations(range(S))))  # (S!, S)
    combos = np.array(list(itertools.product(range(len(perms)), repeat=T)))  # (S!^T, T)
    p = perms[combos]  # (n, T, S)
    permuted = x.T[np.arange(T)[None, :, None], p]  # (n, T, S): x[p[n,t,s], t]
    means = permuted.mean(axis=1)
    ranges = means.max(axis=1) - means.min(axis=1)
    m = x.mean(axis=1)
    return np.array([(ranges >= abs(m[i] - m[j]) * (1 - 1e-10)).mean()
                     for i, j in itertools.combinations(range(S), 2)])


def test_tukey_hsd_approaches_the_exact_permutation_distribution():
    x = np.array([[0.9, 0.7, 0.8, 0.6, 0.75], [0.5, 0.6, 0.4, 0.55, 0.5], [0.45, 0.65, 0.5, 0.5, 0.4]])
    exact = exact_tukey_p(x)  # expected: enumeration of 6^5 = 7776 permutation sets
    r = randomised_tukey_hsd({"m": x}, n_trials=20000, seed=3)
    # Monte Carlo: sd <= sqrt(0.25 / 20000) = 0.0035; 0.015 is > 4 sd
    np.testing.assert_allclose(r.p_values[0], exact, atol=0.015)
    again = randomised_tukey_hsd({"m": x}, n_trials=20000, seed=3)
    np.testing.assert_array_equal(r.p_values, again.p_values)


def test_tukey_identical_systems_have_p_one_and_permutations_are_shared():
    rng = np.random.default_rng(8)
    x = rng.random((4, 9))
    x[3] = x[1]
    r = randomised_tukey_hsd({"a": x, "b": 3.0 * x}, n_trials=500, seed=2)
    assert r.p_values[0, 4] == 1.0  # pair (1, 3): difference 0, every range >= 0
    # same permutations for both measures; ranges scale by 3 exactly like the differences
    np.testing.assert_array_equal(r.p_values[0], r.p_values[1])


# --------------------------------------------------------------------------- t-tests


@pytest.mark.parametrize("correction, oracle", [
    ("none", lambda p: p),
    ("bonferroni", lambda p: np.minimum(1.0, len(p) * np.asarray(p))),
    ("holm", holm),
    ("bh", bh),
])
def test_paired_t_tests_equal_scipy_and_corrections(correction, oracle):
    rng = np.random.default_rng(6)
    x = rng.random((6, 1)) * 0.4 + rng.random((6, 14)) * 0.6
    r = paired_t_tests({"m": x}, correction=correction)
    # expected: scipy.stats.ttest_rel per pair, then the correction written out above
    raw = np.array([scipy.stats.ttest_rel(x[i], x[j]).pvalue
                    for i, j in itertools.combinations(range(6), 2)])
    np.testing.assert_allclose(r.raw_p_values[0], raw, rtol=1e-10)
    np.testing.assert_allclose(r.p_values[0], oracle(raw), rtol=1e-10)
    assert r.correction == correction


def test_paired_t_degenerate_pairs_and_bad_correction():
    x = np.array([[0.5, 0.6, 0.7], [0.5, 0.6, 0.7], [0.4, 0.5, 0.6]])
    with pytest.warns(IRStabWarning) as rec:
        r = paired_t_tests({"m": x}, correction="none")
    assert r.p_values[0].tolist()[:2] == [1.0, 0.0]  # identical; constant difference 0.1
    assert any("p = 1" in str(w.message) for w in rec)
    with pytest.raises(IRStabError, match="correction"):
        paired_t_tests({"m": x}, correction="sidak")


def test_disagreement_counts_by_hand():
    # 4 pairs; a significant on pairs 0, 1, 2; b on 1, 3; pair 2 both? no.
    # only_a: pairs 0, 2 -> 2; only_b: pair 3 -> 1; opposite: pair 1 has opposite signs -> 1
    r = PairwiseTests(
        test="paired t", measures=("a", "b"), systems=("s", "t", "u"),
        pairs=np.array([[0, 1], [0, 2], [1, 2], [0, 1]]),
        mean_diff=np.array([[0.1, 0.2, -0.1, 0.0], [0.1, -0.2, -0.1, 0.3]]),
        p_values=np.array([[0.01, 0.001, 0.04, 0.5], [0.2, 0.01, 0.3, 0.02]]),
        raw_p_values=np.zeros((2, 4)), alpha=0.05, correction="none", n_resamples=None, n_topics=5,
    )
    d = r.disagreements().iloc[0]
    assert (d.only_a, d.only_b, d.opposite, d.disagreements) == (2, 1, 1, 4)
    m = r.disagreement_matrix()
    assert m.loc["a", "b"] == m.loc["b", "a"] == 4 and m.loc["a", "a"] == 0


# --------------------------------------------------------------------------- compare_measures


def test_compare_measures_reproducible_and_equal_to_standalone_calls():
    rng = np.random.default_rng(12)
    q = rng.random((8, 1))
    scores = {"A": q * 0.5 + rng.random((8, 16)) * 0.5, "B": q * 0.3 + rng.random((8, 16)) * 0.7}
    c1 = compare_measures(scores, n_bootstrap=200, swap_trials=100, seed=4, top=6, tukey=True,
                          tukey_trials=200, ttest="holm")
    c2 = compare_measures(scores, n_bootstrap=200, swap_trials=100, seed=4, top=6, tukey=True,
                          tukey_trials=200, ttest="holm")
    np.testing.assert_array_equal(c1.bootstrap.asl, c2.bootstrap.asl)
    np.testing.assert_array_equal(c1.swap.swaps, c2.swap.swaps)
    np.testing.assert_array_equal(c1.tukey.p_values, c2.tukey.p_values)
    alone = discriminative_power(scores, n_bootstrap=200, seed=4, top=6)
    np.testing.assert_array_equal(c1.bootstrap.asl, alone.asl)
    assert c1.systems == alone.systems and len(c1.systems) == 6
    assert c1.correlation.systems == c1.swap.systems == c1.pad.systems == c1.systems
    recs = c1.to_records()
    assert [r["measure"] for r in recs] == ["A", "B"]
    for rec in recs:
        assert {"measure", "discriminative_power", "n_pairs", "asl", "kendall_tau", "tau_ap",
                "swap_rate", "tukey", "ttest"} <= set(rec)
        assert len(rec["asl"]) == rec["n_pairs"] == 15
    assert recs[0]["kendall_tau"] == {"B": pytest.approx(c1.correlation.kendall_tau[0, 1])}
    assert set(c1.summary().columns) >= {"tukey_significant", "ttest_significant"}
    with pytest.raises(DegenerateDataError, match="topics"):
        compare_measures({"A": np.array([[0.1], [0.2]])})


def test_top_by_without_top_is_an_error():
    x = np.random.default_rng(0).random((3, 4))
    with pytest.raises(IRStabError, match="top_by: only used with top"):
        discriminative_power({"m": x}, top_by="m", seed=0)
