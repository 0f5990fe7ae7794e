"""Do conclusions survive the change of qrels: rank correlations, top-k swaps, significant
pairs kept; the combination rule (B's labels where given, A's elsewhere, B's topics)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import irstab.io as io
from irstab.collection import Collection
from irstab.compare.correlation import kendall_tau, tau_ap
from irstab.errors import IRStabError, IRStabWarning
from irstab.evaluation import score_matrix
from irstab.judges.survival import judge_survival, survival_from_scores, top_k_swaps
from irstab.simulate import simulate_collection
from irstab.systems.table import compare_systems


def _long(cubes: dict[str, np.ndarray], measure="m") -> pd.DataFrame:
    rows = []
    for j, x in cubes.items():
        S, T = x.shape
        for s, t in itertools.product(range(S), range(T)):
            rows.append((measure, f"s{s:02d}", f"t{t}", j, float(x[s, t])))
    return pd.DataFrame(rows, columns=["measure", "system", "topic", "assessor", "score"])


def test_top_k_swaps_closed_form():
    # a's top 3: items 0, 1, 2; b reverses (0, 1) only; b's top 3 are 3, 0, 1
    assert top_k_swaps([0.9, 0.8, 0.7, 0.1], [0.8, 0.9, 0.7, 0.95], 3) == (1, 3, 2)
    # a tie in b is not a swap
    assert top_k_swaps([3, 2, 1], [1, 1, 0], 3) == (0, 3, 3)
    assert top_k_swaps([3, 2, 1], [1, 2, 3], 3) == (3, 3, 3)


def test_rank_correlations_equal_compare_and_scipy():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(4)
    a = rng.normal(size=(12, 8))
    b = a + rng.normal(scale=0.3, size=a.shape)
    r = survival_from_scores(_long({"A": a, "B": b}), "A", top_k=5)
    row = r.rows.iloc[0]
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    assert row.kendall_tau == pytest.approx(kendalltau(ma, mb)[0], abs=1e-12)
    assert row.kendall_tau == pytest.approx(kendall_tau(ma, mb), abs=1e-15)
    assert row.tau_ap == pytest.approx(tau_ap(ma, mb), abs=1e-15)  # A the reference
    swaps, _, overlap = top_k_swaps(ma, mb, 5)
    assert (row.top_k_swaps, row.top_k_overlap) == (swaps, overlap)


def test_significant_pairs_kept_reversed_gained_by_hand():
    rng = np.random.default_rng(7)
    a = np.array([0.8, 0.5, 0.2])[:, None] + rng.normal(scale=0.02, size=(3, 10))
    b = a.copy()
    b[[0, 1]] = b[[1, 0]]  # B swaps the top two: their difference is significant both ways
    b[2] += 0.299          # and brings the third level with the (new) second: not significant
    r = survival_from_scores(_long({"A": a, "B": b}), "A", top_k=3).rows.iloc[0]
    ca = compare_systems(pd.DataFrame(a, index=["s00", "s01", "s02"])).pairs
    cb = compare_systems(pd.DataFrame(b, index=["s00", "s01", "s02"])).pairs
    sa, sb = ca.significant.to_numpy(), cb.significant.to_numpy()
    same = np.sign(ca.difference.to_numpy()) == np.sign(cb.difference.to_numpy())
    assert r.significant_a == sa.sum() == 3
    assert r.kept == (sa & sb & same).sum()
    assert r.reversed == (sa & sb & ~same).sum() == 1  # (s00, s01)
    assert r.kept_share == pytest.approx(r.kept / 3)
    assert r.gained == (~sa & sb).sum()


def test_topics_are_those_of_b():
    rng = np.random.default_rng(1)
    a = rng.random((5, 6))
    b = a[:, :3] + 0.0
    f = _long({"A": a, "B": b})
    f = f[~((f.assessor == "B") & f.topic.isin(["t3", "t4", "t5"]))]
    r = survival_from_scores(f, "A").rows.iloc[0]
    assert r.n_topics == 3 and r.kendall_tau == 1.0 and r.top_k_swaps == 0


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(3, 10)),
              elements=st.floats(0, 1, allow_nan=False, width=32)))
def test_a_judge_set_equal_to_gold_keeps_every_conclusion(x):
    if np.ptp(x.mean(axis=1)) == 0 or np.ptp(x) < 1e-6:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        r = survival_from_scores(_long({"A": x, "B": x.copy()}), "A", top_k=3).rows.iloc[0]
    assert r.top_k_swaps == 0 and r.reversed == 0 and r.gained == 0
    assert r.significant_a == r.significant_b == r.kept
    if len(np.unique(x.mean(axis=1))) == len(x):  # no ties: both correlations are 1
        assert r.kendall_tau == pytest.approx(1.0) and r.tau_ap == pytest.approx(1.0)


def test_bad_arguments():
    f = _long({"A": np.eye(3), "B": np.eye(3)})
    with pytest.raises(IRStabError, match="top_k"):
        survival_from_scores(f, "A", top_k=1)
    with pytest.raises(IRStabError, match="gold: no assessor named 'Z'"):
        survival_from_scores(f, "Z")
    with pytest.raises(IRStabError, match="only the gold"):
        survival_from_scores(f[f.assessor == "A"], "A")
    with pytest.raises(IRStabError, match="columns"):
        survival_from_scores(f.drop(columns="assessor"), "A")


def test_combination_rule_equals_a_collection_built_by_hand():
    """B's labels where B judged, A's elsewhere, on B's topics: the survival's scores for B
    equal nDCG@10 of a Collection built from that merged qrels directly."""
    sim = simulate_collection(n_systems=6, n_topics=8, depth=30, seed=2)
    gold = io.Qrels("nist-qrels.txt", sim.qrels.frame)
    f = sim.qrels.frame
    rng = np.random.default_rng(5)
    mine = f[f.topic.isin(sorted(f.topic.unique())[:5])]
    mine = mine.sample(frac=0.4, random_state=1)  # part of each topic's pool
    mine = mine.assign(grade=np.clip(mine.grade.to_numpy() + rng.integers(-1, 2, len(mine)), 0, 3))
    other = {"llm": io.Qrels("llm.txt", mine)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        r = judge_survival(gold, other, sim.runs, ["nDCG@10"], top_k=3)
        topics = sorted(mine.topic.unique())
        key = mine.topic + "\x1f" + mine.docid
        rest = f[f.topic.isin(topics) & ~(f.topic + "\x1f" + f.docid).isin(set(key))]
        merged = io.Qrels("merged", pd.concat([rest, mine], ignore_index=True))
        xb = score_matrix(Collection.build(merged, sim.runs, depth=30), "nDCG@10")
        xa = score_matrix(Collection.build(gold, sim.runs, depth=30), "nDCG@10")[xb.columns]
    row = r.rows.iloc[0]
    assert row.judge_a == "nist" and row.judge_b == "llm" and row.n_topics == xb.shape[1]
    assert row.kendall_tau == pytest.approx(kendall_tau(xa.mean(axis=1), xb.mean(axis=1)),
                                            abs=1e-12)
    assert row.tau_ap == pytest.approx(tau_ap(xa.mean(axis=1), xb.mean(axis=1)), abs=1e-12)
    assert r.missing == "base" and r.test == "t" and r.correction == "holm"


def test_missing_unjudged_counts_only_b_labels():
    """--missing unjudged: the scores under B are those of B's own labels alone."""
    sim = simulate_collection(n_systems=5, n_topics=6, depth=30, seed=4)
    f = sim.qrels.frame
    gold = io.Qrels("nist-qrels.txt", f)
    mine = f[f.topic.isin(sorted(f.topic.unique())[:4])].sample(frac=0.6, random_state=3)
    other = {"crowd": io.Qrels("crowd.txt", mine)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        r = judge_survival(gold, other, sim.runs, ["nDCG@10"], missing="unjudged", top_k=3)
        xb = score_matrix(Collection.build(io.Qrels("own", mine), sim.runs, depth=30), "nDCG@10")
        xa = score_matrix(Collection.build(gold, sim.runs, depth=30), "nDCG@10")[xb.columns]
    row = r.rows.iloc[0]
    assert r.missing == "unjudged" and row.n_topics == xb.shape[1]
    assert row.kendall_tau == pytest.approx(kendall_tau(xa.mean(axis=1), xb.mean(axis=1)),
                                            abs=1e-12)


def test_constant_means_warn_and_give_nan():
    a = np.array([[0.5, 0.1, 0.3], [0.2, 0.2, 0.2], [0.9, 0.8, 0.7]])
    b = np.full_like(a, 0.4)
    with pytest.warns(IRStabWarning, match="same mean under B"):
        r = survival_from_scores(_long({"A": a, "B": b}), "A", top_k=2).rows.iloc[0]
    assert np.isnan(r.kendall_tau) and np.isnan(r.tau_ap)
    assert r.significant_b == 0 and r.kept == 0  # nothing varies under B: nothing testable


def test_paired_rank_correlations_equal_the_kernels_row_by_row():
    from irstab._numeric import kendall_matrix, tau_ap_matrix
    from irstab.judges.survival import paired_rank_correlations

    rng = np.random.default_rng(9)
    ma = rng.integers(0, 6, size=(40, 9)).astype(float)  # ties included
    mb = ma + rng.integers(-2, 3, size=ma.shape)
    mb[0] = 1.0  # a constant row: NaN as the kernels
    tau, tap = paired_rank_correlations(ma, mb)
    for r in range(len(ma)):
        both = np.stack([ma[r], mb[r]])
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(tau[r], kendall_matrix(both)[0, 1], atol=1e-12)
            np.testing.assert_allclose(tap[r], tau_ap_matrix(both)[0, 1], atol=1e-12)


def test_correlation_intervals_are_a_paired_bootstrap_over_topics():
    from irstab._numeric import check_seed
    from irstab.judges.survival import _correlation_intervals

    rng = np.random.default_rng(2)
    a = rng.random((8, 6))
    b = a + rng.normal(scale=0.2, size=a.shape)
    got = _correlation_intervals(a, b, 200, 0.9, check_seed(5))
    draw = check_seed(5).integers(0, 6, size=(200, 6))  # the same draws, one by one
    taus = [kendall_tau(a[:, d].mean(axis=1), b[:, d].mean(axis=1)) for d in draw]
    taps = [tau_ap(a[:, d].mean(axis=1), b[:, d].mean(axis=1)) for d in draw]
    np.testing.assert_allclose(got, [*np.quantile(taus, [0.05, 0.95]),
                                     *np.quantile(taps, [0.05, 0.95])], atol=1e-12)
    r = survival_from_scores(_long({"A": a, "B": b}), "A", n_bootstrap=100).rows.iloc[0]
    assert r.kendall_tau_low <= r.kendall_tau <= r.kendall_tau_high
    assert np.isnan(survival_from_scores(_long({"A": a, "B": b}), "A", n_bootstrap=0)
                    .rows.iloc[0].tau_ap_low)
