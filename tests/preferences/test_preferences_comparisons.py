"""The data model: DCG of both sides against a naive loop, agreement against a brute-force count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import IRStabError
from irstab.preferences.comparisons import (
    Comparisons,
    ScoredComparisons,
    agreement_counts,
    agreement_rate,
)


def _naive_dcg(grades, gain, discount):
    total = 0.0
    for r, g in enumerate(grades):
        if g >= 0:
            total += gain[g] * discount[r]
    return total


@st.composite
def comparisons(draw):
    n = draw(st.integers(1, 12))
    depth = draw(st.integers(1, 6))
    max_grade = draw(st.integers(0, 3))
    grade = st.integers(-1, max_grade)
    ga = np.array(draw(st.lists(st.lists(grade, min_size=depth, max_size=depth), min_size=n, max_size=n)))
    gb = np.array(draw(st.lists(st.lists(grade, min_size=depth, max_size=depth), min_size=n, max_size=n)))
    pref = np.array(draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=n, max_size=n)), np.int8)
    topics = np.array([f"t{draw(st.integers(0, 3))}" for _ in range(n)])
    return Comparisons(topics, pref, ga, gb), max_grade, depth


@settings(max_examples=60, deadline=None)
@given(comparisons(), st.data())
def test_dcg_equals_a_naive_loop(case, data):
    c, max_grade, depth = case
    gain = data.draw(st.lists(st.floats(0, 10), min_size=max_grade + 1, max_size=max_grade + 1))
    discount = data.draw(st.lists(st.floats(0, 1), min_size=depth, max_size=depth))
    got = c.dcg(gain, discount)
    want = [[_naive_dcg(c.grades_a[i], gain, discount), _naive_dcg(c.grades_b[i], gain, discount)]
            for i in range(c.n)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _brute_rate(diff, pref, ties="exclude"):
    agree = counted = 0.0
    for d, p in zip(diff, pref):
        if p == 0:
            continue
        if d == 0:
            if ties == "half":
                agree, counted = agree + 0.5, counted + 1
            elif ties == "disagree":
                counted += 1
            continue
        counted += 1
        agree += (d > 0) == (p > 0)
    return agree / counted if counted else float("nan")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-0.5, -0.1, 0.0, 0.1, 0.7]), st.sampled_from([-1, 0, 1])),
                min_size=1, max_size=30), st.sampled_from(["exclude", "half", "disagree"]))
def test_agreement_rate_equals_a_brute_force_count(rows, ties):
    diff = [d for d, _ in rows]
    pref = [p for _, p in rows]
    got = agreement_rate(diff, pref, ties=ties)
    want = _brute_rate(diff, pref, ties)
    if np.isnan(want):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(want, abs=1e-15)
    c = agreement_counts(diff, pref)
    assert int(c["agree"] + c["disagree"] + c["tie"] + c["no_preference"]) == len(rows)


def test_agreement_rate_is_vectorised_over_measures():
    diff = np.array([[0.3, -0.3], [-0.1, 0.0], [0.0, 0.2]])
    pref = np.array([1, 1, -1])
    # measure 0: agree (row 0), disagree (row 1), tie (row 2) -> 1/2
    # measure 1: disagree (row 0), tie (row 1), disagree (row 2) -> 0/2
    np.testing.assert_array_equal(agreement_rate(diff, pref), [0.5, 0.0])


def test_shapes_are_checked_and_named():
    with pytest.raises(IRStabError, match="grades_b"):
        Comparisons(np.array(["q"]), np.array([1], np.int8), np.zeros((1, 3), int), np.zeros((1, 2), int))
    with pytest.raises(IRStabError, match="preferred"):
        Comparisons(np.array(["q"]), np.array([2], np.int8), np.zeros((1, 3), int), np.zeros((1, 3), int))
    c = Comparisons(np.array(["q"]), np.array([1], np.int8), np.array([[3, 0]]), np.array([[0, 0]]))
    with pytest.raises(IRStabError, match="gain"):
        c.dcg([0, 1], [1, 0.5])
    with pytest.raises(IRStabError, match="discount"):
        c.dcg([0, 1, 2, 3], [1])
    with pytest.raises(IRStabError, match="ties"):
        agreement_rate([0.1], [1], ties="ignore")
    with pytest.raises(IRStabError, match="scores"):
        ScoredComparisons(np.array(["q"]), np.array([1], np.int8), ("m",), np.zeros((1, 2, 2)))
