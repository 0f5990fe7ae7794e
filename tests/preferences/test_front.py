"""The front of stability and agreement (irstab.preferences.front).

Oracles: the dominance mask against a pairwise brute force (Hypothesis); every point's Phi
against the optimizer's Scenario.value (Phi at one topic, proved equal to evaluate's kernel in
tests/optimizer) and its agreement against AgreementForms (brute-forced in test_fit.py); the
sweep's constraint read back from the points' labels. The preferences are SIMULATED
(tests/preferences/pref_data.py), none real.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pref_data import Comps, simulated_users, small_collection

from irstab.errors import IRStabError
from irstab.optimizer.scenario import Scenario
from irstab.preferences.fit import AgreementForms
from irstab.preferences.front import agreement_front, non_dominated


@pytest.fixture(scope="module")
def coll():
    return small_collection()


@pytest.fixture(scope="module")
def front(coll):
    return agreement_front(coll, simulated_users(coll, cutoff=5), 5, points=5, starts=0)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=25))
def test_non_dominated_is_the_brute_force_mask(pts):
    x, y = np.array(pts).T
    want = [not any((a >= xi and b >= yi) and (a > xi or b > yi) for a, b in pts)
            for xi, yi in pts]
    got = non_dominated(x, y)
    assert got.tolist() == want
    assert got.any()  # a finite set always has a maximal point


def test_front_is_non_dominated_and_dominates_the_rest(front):
    pts = front.points
    phi = np.array([p.phi for p in pts])
    rate = np.array([p.agreement.key(front.ties)[0] for p in pts])
    for p in front.front:
        r = p.agreement.key(front.ties)[0]
        assert not np.any((phi >= p.phi) & (rate >= r) & ((phi > p.phi) | (rate > r)))
    for p in pts:
        if not p.on_front:  # someone on the front beats it
            assert any(q.phi >= p.phi and front.rate(q) >= front.rate(p)
                       for q in front.front)
    assert [p.phi for p in front.front] == sorted((p.phi for p in front.front), reverse=True)


def test_ends_and_presets(front, coll):
    kinds = [p.kind for p in front.points]
    assert kinds[0] == "most stable" and kinds.count("preset") == 8
    stable = front.points[0]
    agreeing = next(p for p in front.points if p.kind == "most agreeing")
    scenario = Scenario(coll, 5)
    for p in front.points:  # Phi and agreement recomputed from the vectors
        g, d = np.asarray(p.gain), np.asarray(p.discount)
        assert p.phi == pytest.approx(scenario.value(g, d), abs=1e-9)
    assert all(stable.phi >= p.phi - 1e-7 for p in front.points)  # the most stable end
    # the most agreeing end beats every preset's agreement (the fit's guarantee)
    assert all(front.rate(agreeing) >= front.rate(p) for p in front.presets)
    assert front.simulated and front.shared_topics == front.preference_topics == coll.n_topics


def test_sweep_points_meet_their_constraint(front):
    for p in front.points:
        if p.kind == "sweep":
            eps = float(p.label.split("at least")[1])
            assert p.phi >= eps - 1e-4  # label rounded to 4 significant digits


def test_agreement_counts_are_the_forms(front, coll):
    prefs = simulated_users(coll, cutoff=5)
    forms = AgreementForms(prefs.topic, prefs.preferred, prefs.grades_a, prefs.grades_b,
                           cutoff=5, max_grade=coll.max_grade)
    for p in front.points:
        assert p.agreement == forms.agreement(np.asarray(p.gain), np.asarray(p.discount))
    assert front.n_comparisons == forms.n
    d = front.to_dict()
    assert d["simulated"] is True and len(d["points"]) == len(front.points)


def test_front_by_the_sanderson_rate(coll):
    fr = agreement_front(coll, simulated_users(coll, cutoff=5), 5, points=3, starts=0,
                         ties="exclude")
    rate = np.array([p.agreement.key("exclude")[0] for p in fr.points])
    phi = np.array([p.phi for p in fr.points])
    assert [p.on_front for p in fr.points] == non_dominated(phi, rate).tolist()
    agreeing = next(p for p in fr.points if p.kind == "most agreeing")
    assert all(agreeing.agreement.rate >= p.agreement.rate for p in fr.presets)


def test_preferences_on_some_topics_only(coll):
    prefs = simulated_users(coll, cutoff=5, topics=[0, 1, 2, 3])
    fr = agreement_front(coll, prefs, 5, points=3, starts=0)
    assert fr.preference_topics == fr.shared_topics == 4
    assert any(p.on_front for p in fr.points)


def test_bad_arguments_are_named(coll):
    prefs = simulated_users(coll, cutoff=5)
    hi = Comps(prefs.topic, prefs.preferred, prefs.grades_a + 5, prefs.grades_b)
    with pytest.raises(IRStabError, match="exceeds the collection's largest grade"):
        agreement_front(coll, hi, 5, starts=0)
    with pytest.raises(IRStabError, match="points"):
        agreement_front(coll, prefs, 5, points=1)
    with pytest.raises(IRStabError, match="tau"):
        agreement_front(coll, prefs, 5, tau=0.0)
    with pytest.raises(IRStabError, match="ties"):
        agreement_front(coll, prefs, 5, ties="kendall")
    with pytest.raises(IRStabError, match="cutoff"):
        agreement_front(coll, prefs, 8, starts=0)  # rankings shown are 5 deep
