"""irstab.systems.significance and compare_systems against independent oracles.

Oracles: scipy.stats (ttest_rel, wilcoxon, binomtest), statsmodels' multipletests,
ranx's compare (its t-test and Fisher's randomisation test) on TREC DL 2019, full
enumeration of the 2**T sign flips for the randomisation test, and invariants
(Hypothesis). Monte-Carlo p-values are compared within 5 standard errors of the
difference of two independent estimates, sqrt(2 p (1 - p) / B), plus 2 / B for the
(1 + count) / (1 + B) convention.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as st_h
from hypothesis.extra.numpy import arrays

import irstab
from irstab.systems.significance import (adjust, batched_p_values, benjamini_hochberg,
                                         bootstrap_test,
                                         effect_sizes, holm, paired_t, permutation_test,
                                         randomised_tukey_hsd, run_test, sign_test,
                                         wilcoxon_test)
from irstab.systems.table import compare_systems, system_labels
from irstab.errors import IRStabError


@pytest.fixture(scope="module")
def dl_ndcg(dl2019):
    return irstab.score_matrix(dl2019, "nDCG@10")


def _pairs(S):
    return np.triu_indices(S, 1)


# ---------------------------------------------------------------- scipy on DL-2019


@pytest.mark.parametrize("measure", ["nDCG@10", "AP"])
def test_paired_t_equals_scipy_on_every_pair_of_dl2019(dl2019, measure):
    x = irstab.score_matrix(dl2019, measure).to_numpy()
    i, j = _pairs(len(x))
    ours = paired_t(x[i] - x[j])
    ref = st.ttest_rel(x[i], x[j], axis=1)
    np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.p_value, ref.pvalue, rtol=1e-9, atol=1e-15)


def test_wilcoxon_equals_scipy_with_the_method_it_chose_on_dl2019(dl_ndcg):
    x = dl_ndcg.to_numpy()
    i, j = _pairs(len(x))
    d = x[i] - x[j]
    ours = wilcoxon_test(d)
    n_exact = 0
    for k in range(len(d)):
        nz = d[k][d[k] != 0]
        if len(nz) == 0:
            assert ours.p_value[k] == 1.0
            continue
        ties = len(np.unique(np.abs(nz))) < len(nz)
        method = "exact" if not ties and len(nz) <= 50 else "asymptotic"
        n_exact += method == "exact"
        ref = st.wilcoxon(nz, method=method)
        assert ours.statistic[k] == pytest.approx(ref.statistic, abs=1e-9)
        assert ours.p_value[k] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-14), k
    assert 0 < n_exact < len(d)  # both branches were checked on real data


def test_sign_test_equals_scipy_binomtest_on_dl2019(dl_ndcg):
    x = dl_ndcg.to_numpy()
    i, j = _pairs(len(x))
    d = x[i] - x[j]
    ours = sign_test(d)
    for k in range(0, len(d), 7):
        pos, n = int((d[k] > 0).sum()), int((d[k] != 0).sum())
        ref = st.binomtest(pos, n, 0.5).pvalue if n else 1.0
        assert ours.p_value[k] == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_holm_and_bh_equal_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    for m in (1, 2, 7, 50):
        p = rng.uniform(0, 0.2, m) ** 2
        np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1], rtol=1e-12)
        np.testing.assert_allclose(benjamini_hochberg(p),
                                   multipletests(p, method="fdr_bh")[1], rtol=1e-12)


def test_effect_interval_is_the_t_interval_of_the_mean_difference(dl_ndcg):
    x = dl_ndcg.to_numpy()
    d = x[0] - x[5]
    e = effect_sizes(d[None])
    ref = st.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert e.difference_low[0] == pytest.approx(ref.low, rel=1e-10)
    assert e.difference_high[0] == pytest.approx(ref.high, rel=1e-10)
    assert e.effect[0] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


# ---------------------------------------------------------------- Monte-Carlo tests


def _mc_close(ours, ref, B):
    se = np.sqrt(2 * np.clip(ref, 1e-4, 1) * (1 - np.clip(ref, 0, 1 - 1e-4)) / B)
    return np.abs(np.asarray(ours) - np.asarray(ref)) <= 5 * se + 2.0 / B


def test_permutation_agrees_with_full_enumeration_of_sign_flips():
    rng = np.random.default_rng(11)
    d = np.round(rng.normal(0.05, 0.2, size=(6, 10)), 3)
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=10)))  # all 1024
    exact = (np.abs(d @ flips.T) / 10 >= np.abs(d.mean(axis=1))[:, None] - 1e-12).mean(axis=1)
    B = 20_000
    ours = permutation_test(d, B, seed=3).p_value
    assert _mc_close(ours, exact, B).all(), (ours, exact)


def test_bootstrap_shift_agrees_with_its_definition_resample_by_resample():
    rng = np.random.default_rng(2)
    d = rng.normal(0.03, 0.1, size=(3, 15))
    B = 4000
    ours = bootstrap_test(d, B, seed=5).p_value
    draws = np.random.default_rng(9).integers(0, 15, size=(B, 15))
    means = d[:, draws].mean(axis=2)  # (3, B): a naive loop-free reference with other draws
    ref = (np.abs(means - d.mean(axis=1)[:, None]) >= np.abs(d.mean(axis=1))[:, None]).mean(1)
    assert _mc_close(ours, ref, B).all()


@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
def test_tests_of_systems_count_as_the_tests_of_their_differences(dl_ndcg, test):
    # run_test and batched_p_values take the systems and sum each system's resamples once
    # (x_i W - x_j W); the oracle is the same test on the pairs' differences (d W), with the
    # same seed: the counts must be the same. The collections hold identical systems
    # (p = 1), a pair differing by 1e-9 on one topic (below the rounding the shared sums
    # can decide, so it keeps its own product) and pairs tied on some topics.
    fn = {"permutation": permutation_test, "bootstrap": bootstrap_test}[test]
    x = dl_ndcg.to_numpy()
    I, J = _pairs(len(x))
    single = run_test(test, x, I, J, 1500, seed=4).p_value
    assert np.array_equal(single, fn(x[I] - x[J], 1500, seed=4).p_value)
    rng = np.random.default_rng(8)
    stack = np.clip(x[None] + rng.normal(0.0, 0.05, size=(6,) + x.shape), 0.0, 1.0)
    stack[:, 1] = stack[:, 0]
    stack[:, 3] = stack[:, 2]
    stack[:, 3, 5] += 1e-9
    stack[:, 5, :10] = stack[:, 4, :10]
    ours = batched_p_values(test, stack, I, J, 1200, seed=np.random.default_rng(1))
    by_pair = stack.transpose(1, 0, 2)
    ref = fn(by_pair[I] - by_pair[J], 1200, np.random.default_rng(1)).p_value.T
    assert np.array_equal(ours, ref)
    assert (ours[:, 0] == 1.0).all()  # systems 0 and 1 are one system


# ---------------------------------------------------------------- ranx on DL-2019


@pytest.fixture(scope="module")
def ranx_dl(dl2019_dir, ranx):  # ranx: tests/conftest.py's, its JIT warmed before the test
    # runs without score ties in their top 11 on any topic: ranx orders ties by an unstable
    # sort, so a run with a tie at ranks 10-11 (TUA1-1, p_bert) has a different top 10 from
    # one ranx call to the next, and its nDCG@10 with it
    names = ["ICT-BERT2", "ICT-CKNRM_B", "bm25base_p", "bm25base_rm3_p", "bm25tuned_rm3_p",
             "idst_bert_p1", "srchvrs_ps_run2", "runid3"]
    qrels = ranx.Qrels.from_file(str(dl2019_dir / "qrels.txt"), kind="trec")
    runs = []
    for n in names:
        f = irstab.read_run(dl2019_dir / "runs" / f"{n}.gz").frame
        f = f.assign(topic=f["topic"].astype(str).astype(object),
                     docid=f["docid"].astype(str).astype(object))
        run = ranx.Run.from_df(f, q_id_col="topic", doc_id_col="docid", score_col="score")
        run.name = n
        runs.append(run)
    for r in runs:  # make_comparable adds the topics a run lacks: once, before any scoring
        ranx.evaluate(qrels, r, "ndcg@10", make_comparable=True)
    # ranx's own per-topic scores, in the order its compare pairs them: both tools test
    # the same numbers
    per_topic = {r.name: ranx.evaluate(qrels, r, "ndcg@10", return_mean=False,
                                       make_comparable=True) for r in runs}
    return ranx, qrels, runs, pd.DataFrame(per_topic).T


def _ranx_p(report, a, b):
    return report.comparisons[frozenset([a, b])]["ndcg@10"]["p_value"]


def test_t_test_reproduces_ranx_compare_on_dl2019(ranx_dl, dl_ndcg):
    ranx, qrels, runs, x = ranx_dl
    report = ranx.compare(qrels, runs, ["ndcg@10"], stat_test="student", make_comparable=True)
    ours = dl_ndcg.loc[list(x.index)]  # irstab's own nDCG@10 of the same runs
    for name in x.index:  # the same measure: ranx's means equal irstab's
        assert report.results[name]["ndcg@10"] == pytest.approx(ours.loc[name].mean(), abs=1e-12)
    for scores in (x, ours):
        r = compare_systems(scores, test="t", correction="none")
        ref = [_ranx_p(report, a, b) for a, b in zip(r.pairs["a"], r.pairs["b"])]
        np.testing.assert_allclose(r.pairs["p_value"], ref, rtol=1e-7, atol=1e-15)


def test_randomisation_test_reproduces_ranx_fisher_within_monte_carlo_error(ranx_dl):
    ranx, qrels, runs, x = ranx_dl
    B = 10_000
    report = ranx.compare(qrels, runs, ["ndcg@10"], stat_test="fisher", n_permutations=B,
                          make_comparable=True)
    r = compare_systems(x, test="permutation", correction="none", n_resamples=B, seed=1)
    ref = np.array([_ranx_p(report, a, b) for a, b in zip(r.pairs["a"], r.pairs["b"])])
    assert _mc_close(r.pairs["p_value"], ref, B).all(), np.c_[r.pairs["p_value"], ref]
    assert (ref < 0.01).any() and (ref > 0.2).any()  # small and large p-values both compared


def test_marks_are_the_pairs_found_significant(dl_ndcg):
    r = compare_systems(dl_ndcg)
    labels = dict(zip(r.systems["system"], r.systems["label"]))
    sig = r.pairs[r.pairs["significant"]]
    for system, marks in r.marks().items():
        beaten = {labels[b] for a, b, d in zip(sig["a"], sig["b"], sig["difference"])
                  if a == system and d > 0}
        beaten |= {labels[a] for a, b, d in zip(sig["a"], sig["b"], sig["difference"])
                   if b == system and d < 0}
        assert set(filter(None, marks.split(","))) == beaten
    assert len(r.pairs) == 37 * 36 // 2
    assert r.correction == "holm" and r.test == "t"


def test_baseline_gives_each_system_minus_the_baseline(dl_ndcg):
    r = compare_systems(dl_ndcg, baseline="bm25base_p")
    assert len(r.pairs) == 36 and set(r.pairs["b"]) == {"bm25base_p"}
    means = dl_ndcg.mean(axis=1)
    np.testing.assert_allclose(r.pairs["difference"],
                               means[r.pairs["a"]].to_numpy() - means["bm25base_p"], atol=1e-12)


def test_tukey_controls_the_family_itself(dl_ndcg):
    r = compare_systems(dl_ndcg.iloc[:6], test="tukey", n_resamples=2000)
    assert r.correction == "none"
    t = compare_systems(dl_ndcg.iloc[:6], test="t", correction="none")
    # the range of S means is at least any one difference: Tukey's p is never the smaller
    # beyond Monte-Carlo error of a permutation p
    perm = compare_systems(dl_ndcg.iloc[:6], test="permutation", correction="none",
                           n_resamples=2000)
    assert (r.pairs["p_value"] >= perm.pairs["p_value"] - 0.05).all()
    assert t.pairs["p_value"].min() < 0.05
    with pytest.raises(IRStabError, match="family-wise"):
        compare_systems(dl_ndcg.iloc[:6], test="tukey", correction="holm")


def test_holm_over_many_pairs_gets_enough_resamples_to_find_any_pair(dl_ndcg):
    x = dl_ndcg.iloc[:20]  # 190 pairs: Holm's first threshold is 0.05 / 190
    # 1/(B + 1) <= 0.05/190 needs B >= 190/0.05 - 1 = 3799 (closed form); below it no pair
    # can be significant whatever the data, so the count is refused with the minimum
    with pytest.raises(IRStabError, match=r"n_resamples: 3799 resamples .* at least 3800 "
                                          r"\(without it: 38000\)"):
        compare_systems(x, test="permutation", n_resamples=3799)
    assert compare_systems(x, test="permutation", correction="bh",
                           n_resamples=3799).n_resamples == 3799  # BH's largest step is alpha
    r = compare_systems(x, test="permutation")  # the default: 10 m / alpha = 38000
    t = compare_systems(x, test="t")
    assert r.n_resamples == 38000 and compare_systems(x, test="tukey").n_resamples == 10_000
    # pairs the t-test finds with Holm-adjusted p < 0.005 have raw p < 2.6e-5: the
    # randomisation test (p at its floor 1/38001 there) finds every one of them
    strong = t.pairs["p_adjusted"] < 0.005
    assert strong.sum() > 20 and r.pairs["significant"][strong].all()


@pytest.mark.parametrize("kwargs, message", [
    ({"baseline": "nope"}, "baseline: no system named 'nope'"),
    ({"test": "ttest"}, "test: expected one of"),
    ({"correction": "bonferroni"}, "correction: expected one of"),
    ({"alpha": 1.5}, "alpha"),
    ({"n_resamples": 0, "test": "permutation"}, "n_resamples"),
])
def test_bad_parameters_are_named(dl_ndcg, kwargs, message):
    with pytest.raises(IRStabError, match=message):
        compare_systems(dl_ndcg.iloc[:4], **kwargs)


def test_one_topic_and_non_finite_scores_are_refused():
    with pytest.raises(IRStabError, match="at least 2 topics"):
        compare_systems(pd.DataFrame([[0.1], [0.2]], index=["a", "b"]))
    with pytest.raises(IRStabError, match="non-finite"):
        compare_systems(pd.DataFrame([[0.1, np.nan], [0.2, 0.3]], index=["a", "b"]))


def test_constant_difference_has_no_effect_size_and_says_so():
    x = pd.DataFrame([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6]], index=["a", "b"])
    with pytest.warns(irstab.errors.IRStabWarning, match="same on every topic"):
        r = compare_systems(x)
    assert math.isnan(r.pairs["effect"][0]) and r.pairs["p_value"][0] == 0.0
    assert r.to_dict()["pairs"][0]["effect"] is None


def test_labels_run_on_past_z():
    assert system_labels(3) == ["a", "b", "c"]
    assert system_labels(53)[25:28] == ["z", "aa", "ab"] and system_labels(53)[-1] == "ba"


# ---------------------------------------------------------------- invariants


_diffs = arrays(np.float64, st_h.tuples(st_h.integers(1, 4), st_h.integers(2, 12)),
                elements=st_h.sampled_from([-0.5, -0.2, -0.1, 0.0, 0.05, 0.1, 0.3, 0.7]))


@settings(max_examples=60, deadline=None)
@given(d=_diffs)
def test_every_p_value_is_in_0_1_symmetric_and_1_for_no_difference(d):
    for test in ("t", "permutation", "bootstrap", "wilcoxon", "sign"):
        x = np.concatenate([d, np.zeros_like(d)])
        i, j = np.arange(len(d)), np.arange(len(d), 2 * len(d))
        p = run_test(test, x, i, j, 300, seed=0).p_value
        q = run_test(test, x, j, i, 300, seed=0).p_value  # b - a: the same two-sided p
        assert ((0 <= p) & (p <= 1)).all()
        np.testing.assert_allclose(p, q, atol=1e-12)
        none = (d == 0).all(axis=1)
        assert (p[none] == 1).all()


@settings(max_examples=60, deadline=None)
@given(p=arrays(np.float64, st_h.integers(1, 30), elements=st_h.floats(0, 1)))
def test_adjusted_p_values_are_at_least_raw_at_most_1_and_keep_their_order(p):
    for method in ("holm", "bh"):
        a = adjust(p, method)
        assert (a >= p - 1e-15).all() and (a <= 1).all()
        order = np.argsort(p, kind="stable")
        assert (np.diff(a[order]) >= -1e-15).all()
    np.testing.assert_array_equal(adjust(p, "none"), p)


@settings(max_examples=25, deadline=None)
@given(x=arrays(np.float64, st_h.tuples(st_h.integers(2, 5), st_h.integers(2, 8)),
                elements=st_h.floats(0, 1)))
def test_tukey_p_values_are_in_0_1_and_seeded(x):
    S = len(x)
    i, j = _pairs(S)
    a = randomised_tukey_hsd(x, i, j, 200, seed=4).p_value
    b = randomised_tukey_hsd(x, i, j, 200, seed=4).p_value
    assert ((0 < a) & (a <= 1)).all()
    np.testing.assert_array_equal(a, b)


def _tukey_counted_by_comparison(x, i, j, B, seed):
    """The randomised Tukey HSD's p-values counted the way the test first did: every
    pair's |mean difference| against each of the B ranges (same permutations, same seed)."""
    from irstab.systems.significance import _TIE_RTOL

    rng = np.random.default_rng(seed)
    x3 = np.asarray(x, dtype=float).reshape(-1, *np.shape(x)[-2:])
    C, S, T = x3.shape
    diff = x3[:, i].mean(axis=2) - x3[:, j].mean(axis=2)
    observed = np.abs(diff) - _TIE_RTOL * np.abs(x3).max(axis=(1, 2))[:, None]
    perm = rng.permuted(np.broadcast_to(np.arange(S), (B, T, S)), axis=2)
    g = x3[:, perm, np.arange(T)[None, :, None]]          # (C, B, T, S)
    means = np.add.reduce(g, axis=2) / T
    ranges = means.max(axis=2) - means.min(axis=2)         # (C, B)
    count = (ranges[:, None, :] >= observed[:, :, None]).sum(axis=2)
    return (1.0 + count) / (1.0 + B)


@settings(max_examples=40, deadline=None)
@given(st_h.integers(2, 6), st_h.integers(2, 7), st_h.integers(1, 3), st_h.integers(1, 60),
       st_h.integers(0, 2**32 - 1), st_h.booleans())
def test_tukey_counts_by_binary_search_equal_every_comparison(S, T, C, B, seed, coarse):
    # the counts of ranges at least each observed difference, found by a binary search in the
    # sorted ranges, are those of comparing every pair with every range (coarse scores on a
    # grid of 1/4 give many equal ranges and equal differences)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, (C, S, T)) / 4.0 if coarse else rng.random((C, S, T))
    i, j = _pairs(S)
    got = randomised_tukey_hsd(x, i, j, B, seed=seed).p_value
    # the reference draws its permutations with the same generator calls: a block of B
    assert np.array_equal(got, _tukey_counted_by_comparison(x, i, j, B, seed))


def test_the_sign_tests_binomial_cdf_is_scipy_stats_own_doubles(monkeypatch):
    # oracle: scipy.stats.binom.cdf, every k of every n up to 400 (enumeration), equal as
    # doubles; and the fallback when scipy.special lacks the private function
    import builtins

    from irstab.systems.significance import _binom_cdf

    n = np.arange(1, 401)[:, None]
    k = np.minimum(np.arange(0, 401)[None, :], n)
    want = st.binom.cdf(k, n, 0.5)
    assert np.array_equal(_binom_cdf(k, n), want)
    real = builtins.__import__

    def no_private(name, *args, **kwargs):
        if name == "scipy.special._ufuncs":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_private)
    assert np.array_equal(_binom_cdf(k[:40, :40], n[:40]), want[:40, :40])
