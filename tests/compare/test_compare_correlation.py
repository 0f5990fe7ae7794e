"""Rank correlation between measures: Kendall tau-b, tau_AP, Spearman, RMSE.

Oracles: scipy (kendalltau, spearmanr), a literal transcription of Yilmaz et al.'s
tau_AP sum and of Urbano & Marrero's tau_AP,b tie treatment (loops below), and
closed forms worked out in the comments.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.compare import (
    kendall_tau,
    rank_correlation,
    rmse,
    spearman_rho,
    tau_ap,
    tau_ap_symmetric,
)
from irstab.errors import DegenerateDataError, IRStabError, IRStabWarning


def naive_tau_ap(reference, estimate):
    """Yilmaz, Aslam & Robertson (2008), eq. 1, walking the ranking by ``estimate``.

    With ties, Urbano & Marrero's tau_AP,b one-directional term: compare item i only
    with items strictly above its tie group (p_i of them, skip p_i = 0), concordant
    when the reference also puts them strictly above; average C/p over counted items.
    """
    n = len(reference)
    total, counted = 0.0, 0
    for i in range(n):
        above = [j for j in range(n) if estimate[j] > estimate[i]]
        if not above:
            continue
        c = sum(1 for j in above if reference[j] > reference[i])
        total += c / len(above)
        counted += 1
    return 2.0 * total / counted - 1.0


def yilmaz_no_ties(reference, estimate):
    """The paper's sum over positions 2..n of the estimate's ranking (no ties)."""
    order = np.argsort(-np.asarray(estimate), kind="stable")
    n = len(order)
    s = 0.0
    for pos in range(1, n):
        i = order[pos]
        c = sum(1 for j in order[:pos] if reference[j] > reference[i])
        s += c / pos
    return 2.0 / (n - 1) * s - 1.0


@pytest.mark.parametrize("seed", range(6))
def test_kendall_equals_scipy_with_and_without_ties(seed):
    rng = np.random.default_rng(seed)
    x = rng.random(25)
    y = x + rng.normal(0, 0.3, 25)
    # expected: scipy.stats.kendalltau (variant b is its default)
    assert kendall_tau(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
    xt, yt = np.round(x, 1), np.round(y, 1)  # many ties
    assert kendall_tau(xt, yt) == pytest.approx(scipy.stats.kendalltau(xt, yt).statistic, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_spearman_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.random(30), 1)
    y = np.round(x + rng.normal(0, 0.2, 30), 1)
    # expected: scipy.stats.spearmanr (average ranks)
    assert spearman_rho(x, y) == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_tau_ap_equals_yilmaz_sum_without_ties(seed):
    rng = np.random.default_rng(seed)
    x = rng.random(20)
    y = x + rng.normal(0, 0.2, 20)
    # expected: the paper's positional sum, transcribed literally above
    assert tau_ap(x, y) == pytest.approx(yilmaz_no_ties(x, y), abs=1e-12)
    assert tau_ap(y, x) == pytest.approx(yilmaz_no_ties(y, x), abs=1e-12)
    assert tau_ap_symmetric(x, y) == pytest.approx((yilmaz_no_ties(x, y) + yilmaz_no_ties(y, x)) / 2)


@pytest.mark.parametrize("seed", range(6))
def test_tau_ap_with_ties_equals_naive_loop(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, 15).astype(float)
    y = rng.integers(0, 6, 15).astype(float)
    # expected: naive_tau_ap (Urbano & Marrero's tau_AP,b term, loop above)
    assert tau_ap(x, y) == pytest.approx(naive_tau_ap(x, y), abs=1e-12)


def test_tau_ap_closed_forms():
    ref = [4, 3, 2, 1]
    # identical ranking: every C(i) = i - 1 -> 2/3 * 3 - 1 = 1
    assert tau_ap(ref, ref) == 1.0
    # reversed: every C(i) = 0 -> -1
    assert tau_ap(ref, [1, 2, 3, 4]) == -1.0
    # swap at the top costs more than at the bottom (the point of tau_AP):
    # top swap: 2/3 (0/1 + 2/2 + 3/3) - 1 = 1/3; bottom swap: 2/3 (1 + 1 + 2/3) - 1 = 7/9
    assert tau_ap(ref, [3, 4, 2, 1]) == pytest.approx(1 / 3)
    assert tau_ap(ref, [4, 3, 1, 2]) == pytest.approx(7 / 9)
    # Kendall tau is 4/6 for both single adjacent swaps
    assert kendall_tau(ref, [3, 4, 2, 1]) == kendall_tau(ref, [4, 3, 1, 2]) == pytest.approx(4 / 6)
    # RMSE: differences (1, -1, 0, 0) -> sqrt(2 / 4)
    assert rmse(ref, [3, 4, 2, 1]) == pytest.approx(np.sqrt(0.5))


def test_tau_ap_ties_convention():
    # identical rankings with ties give 1 (tau_AP,b): items of the top group skipped,
    # every other item has all items above its group above it in the reference too.
    x = [3, 3, 2, 2, 1]
    assert tau_ap(x, x) == 1.0
    assert tau_ap_symmetric(x, x) == 1.0
    # reference ties count as not concordant: ref ties a and b, estimate puts a above b.
    # estimate ranking a > b > c; b: above {a}, ref a not strictly above b -> 0/1;
    # c: above {a, b}, both above c in ref -> 2/2. tau = 2/2 (0 + 1) - 1 = 0
    assert tau_ap([2, 2, 1], [3, 2, 1]) == pytest.approx(0.0)


def test_rank_correlation_matrices():
    rng = np.random.default_rng(11)
    base = rng.random(12)
    means = pd.DataFrame(
        {"A": base, "B": base + rng.normal(0, 0.1, 12), "C": rng.random(12)},
        index=[f"s{i}" for i in range(12)],
    )
    rc = rank_correlation(means)
    assert rc.measures == ("A", "B", "C")
    for a, b in itertools.product(range(3), repeat=2):
        x, y = means.iloc[:, a].to_numpy(), means.iloc[:, b].to_numpy()
        # expected: scipy for tau and rho; the pairwise functions for tau_AP; RMSE by definition
        assert rc.kendall_tau[a, b] == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
        assert rc.spearman[a, b] == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-12)
        assert rc.tau_ap_directed[a, b] == pytest.approx(yilmaz_no_ties(x, y), abs=1e-12)
        assert rc.rmse[a, b] == pytest.approx(np.sqrt(np.mean((x - y) ** 2)), abs=1e-15)
    np.testing.assert_allclose(rc.tau_ap, (rc.tau_ap_directed + rc.tau_ap_directed.T) / 2)
    np.testing.assert_allclose(np.diag(rc.kendall_tau), 1.0)
    frame = rc.to_frame()
    assert list(frame[["measure_a", "measure_b"]].itertuples(index=False, name=None)) == [
        ("A", "B"), ("A", "C"), ("B", "C")
    ]
    assert frame["tau_ap_ref_a"].iloc[0] == rc.tau_ap_directed[0, 1]
    assert rc.matrix("rmse").loc["A", "B"] == rc.rmse[0, 1]
    assert set(rc.to_dict()) >= {"measures", "kendall_tau", "tau_ap", "rmse"}
    with pytest.raises(IRStabError, match="statistic"):
        rc.matrix("pearson")
    assert not rc.kendall_tau.flags.writeable


def test_rank_correlation_from_score_matrices_averages_topics():
    rng = np.random.default_rng(2)
    a, b = rng.random((5, 7)), rng.random((5, 7))
    rc = rank_correlation({"a": a, "b": b})
    # expected: tau of the row means (scipy)
    assert rc.kendall_tau[0, 1] == pytest.approx(
        scipy.stats.kendalltau(a.mean(1), b.mean(1)).statistic
    )


def test_ties_warn_and_constant_measure_is_nan_with_warning():
    means = pd.DataFrame({"A": [0.3, 0.3, 0.1], "B": [0.5, 0.5, 0.5]}, index=list("xyz"))
    with pytest.warns(IRStabWarning) as rec:
        rc = rank_correlation(means)
    text = " ".join(str(w.message) for w in rec)
    assert "A: tied mean scores (x=y)" in text
    assert "B: every system has the same mean score" in text
    assert np.isnan(rc.kendall_tau[0, 1]) and np.isnan(rc.tau_ap[0, 1]) and np.isnan(rc.spearman[0, 1])
    assert rc.rmse[0, 1] == pytest.approx(np.sqrt((0.2**2 + 0.2**2 + 0.4**2) / 3))
    with pytest.warns(IRStabWarning, match="undefined"):
        assert np.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))


def test_degenerate_and_bad_input():
    with pytest.raises(DegenerateDataError, match="at least 2 systems"):
        kendall_tau([1.0], [2.0])
    with pytest.raises(IRStabError, match="equal length"):
        tau_ap([1, 2, 3], [1, 2])
    with pytest.raises(IRStabError, match="non-finite"):
        spearman_rho([1, np.nan], [1, 2])
    with pytest.raises(DegenerateDataError):
        rank_correlation(pd.DataFrame({"A": [0.1]}))
    with pytest.raises(IRStabError, match="means"):
        rank_correlation([1, 2, 3])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=12))
def test_tau_ap_properties(pairs):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        v = tau_ap(x, y)
        k = kendall_tau(x, y)
    if len(np.unique(y)) > 1:
        # bounded; naive loop agrees on arbitrary ties; x against itself is 1
        assert -1.0 - 1e-12 <= v <= 1.0 + 1e-12
        assert v == pytest.approx(naive_tau_ap(x, y), abs=1e-12)
        assert tau_ap(y, y) == 1.0
    else:
        assert np.isnan(v)
    if len(np.unique(x)) > 1 and len(np.unique(y)) > 1:
        assert k == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
