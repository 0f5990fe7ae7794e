"""Minimax and the Pareto sweep on a small simulated collection.

Oracles: the sandwich  min_i Phi_i(any start) <= minimax value <= min_i max Phi_i  (each
scenario's own optimum bounds its Phi); the two backends agree; the front's ends are the
single-objective optimum and the prior (whose Phi comes from gstudy on the kernel's scores).
"""

from __future__ import annotations

import numpy as np
import pytest

from irstab.errors import IRStabError
from irstab.evaluation import score_matrix
from irstab.optimizer import (
    InfeasibleError,
    Scenario,
    Status,
    minimax,
    optimize,
    pareto,
    scenarios_by_cutoff,
    scenarios_by_topic_split,
)
from irstab.stability import gstudy


@pytest.fixture(scope="module")
def mm(small):
    scen = scenarios_by_cutoff(small, [4, 12])
    return {b: minimax(scen, vary="joint", backend=b, starts=1) for b in ("scipy", "cvxpy")}


@pytest.fixture(scope="module")
def single_optima(small):
    return {k: optimize(small, k, vary="joint", starts=1).value for k in (4, 12)}


def test_minimax_value_is_the_worst_scenario(mm):
    for res in mm.values():
        assert res.status is Status.optimal
        assert res.value == pytest.approx(min(s.optimum.phi1 for s in res.scenarios), abs=1e-9)


def test_minimax_sandwich(small, mm, single_optima):
    res = mm["scipy"]
    upper = min(single_optima.values())
    assert res.value <= upper + 1e-7
    for s in res.starts:
        assert s.final >= s.initial - 1e-12
    # linear gain + log2 is a start: its worst Phi(1) over the two cutoffs (from gstudy on
    # the kernel's scores; log2 on 12 ranks truncated at 4 is log2 at 4) is a lower bound
    lower = min(gstudy(score_matrix(small, m)).phi(1) for m in ("nDCG@4", "nDCG@12"))
    assert res.value >= lower - 1e-12
    first = next(s for s in res.starts if s.start == "linear+log2")
    assert first.initial == pytest.approx(lower, rel=1e-10)


def test_minimax_backends_agree(mm):
    assert abs(mm["scipy"].value - mm["cvxpy"].value) <= 1e-4


def test_minimax_truncates_the_shared_discount(mm):
    res = mm["scipy"]
    assert res.cutoff == 12 and len(res.discount) == 12
    small_scenario = next(s for s in res.scenarios if s.cutoff == 4)
    d4 = np.array(res.discount[:4]) / sum(res.discount[:4])
    np.testing.assert_allclose(small_scenario.optimum.discount, d4, rtol=1e-12)
    assert res.primary.cutoff == 12 and res.phi1 == res.primary.optimum.phi1


def test_minimax_over_topic_splits(small):
    scen = scenarios_by_topic_split(small, 8, n_splits=2, seed=3)
    assert sorted(scen[0].topics + scen[1].topics) == list(range(small.n_topics))
    res = minimax(scen, vary="discount", starts=0)
    assert {s.n_topics for s in res.scenarios} == {6}
    assert res.value == pytest.approx(min(s.optimum.phi1 for s in res.scenarios), abs=1e-9)


def test_minimax_needs_two_scenarios(small):
    with pytest.raises(IRStabError, match="scenarios: minimax needs at least 2"):
        minimax([Scenario(small, 5)])
    with pytest.raises(IRStabError, match="n_splits"):
        scenarios_by_topic_split(small, 5, n_splits=7)
    with pytest.raises(IRStabError, match="cutoffs"):
        scenarios_by_cutoff(small, [5, 5])


# ----------------------------------------------------------------- Pareto


@pytest.mark.parametrize("backend", ["scipy", "cvxpy"])
def test_front_against_a_prior(small, backend):
    front = pareto(Scenario(small, 10), prior="log2", points=4, backend=backend, starts=1)
    first, second = [p.first for p in front.points], [p.second for p in front.points]
    # epsilon = 0: the prior itself, whose Phi(1) is the preset's
    assert second[0] == pytest.approx(0.0, abs=1e-12)
    assert first[0] == pytest.approx(gstudy(score_matrix(small, "nDCG@10")).phi(1), rel=1e-10)
    # the far end is the unconstrained optimum, and a looser constraint never lowers Phi
    assert first[-1] == pytest.approx(optimize(small, 10, starts=1).value, abs=1e-6)
    assert np.all(np.diff(first) >= -1e-9)
    assert all(p.second <= p.epsilon + 1e-6 for p in front.points)
    assert all(p.status is Status.optimal for p in front.points)


def test_front_between_two_cutoffs(small):
    a, b = Scenario(small, 3), Scenario(small, 12)
    front = pareto(a, b, points=4, starts=1)
    first = [p.first for p in front.points]
    # epsilon runs from B's optimum down: a looser constraint never lowers Phi_A
    assert np.all(np.diff(first) >= -1e-9)
    assert all(p.second >= p.epsilon - 1e-7 for p in front.points)
    frame = front.to_frame()
    assert list(frame.columns) == ["epsilon", "Phi1 @3", "Phi1 @12", "status", "iterations"]
    d = front.to_dict()
    assert d["kind"] == "scenario" and d["points"][0]["measure"].startswith("nDCG(")


def test_front_end_points_are_not_dominated(small):
    # Each end point maximises one objective among the optima of the other (a
    # lexicographic optimum), so the front from A to B is the front from B to A mirrored,
    # and no point has a neighbour at least as good on both objectives.
    a, b = Scenario(small, 3), Scenario(small, 12)
    ab = pareto(a, b, points=3, starts=1)
    ba = pareto(b, a, points=3, starts=1)
    ends_ab = [(p.first, p.second) for p in (ab.points[0], ab.points[-1])]
    ends_ba = [(p.second, p.first) for p in (ba.points[-1], ba.points[0])]
    np.testing.assert_allclose(ends_ab, ends_ba, atol=1e-6)
    pts = [(p.first, p.second) for p in ab.points]
    for i, (f1, s1) in enumerate(pts):
        for j, (f2, s2) in enumerate(pts):
            if i != j:
                assert not (f2 > f1 + 1e-6 and s2 >= s1 - 1e-9)


def test_front_is_one_point_when_one_vector_is_optimal_for_both(small):
    # If a discount is optimal at both cutoffs there is no trade-off: the front is that
    # point (its two values are the two single-scenario optima).
    a, b = Scenario(small, 3), Scenario(small, 12)
    front = pareto(a, b, points=3, starts=1)
    best_a = optimize(small, 3, starts=1).value
    best_b = optimize(small, 12, starts=1).value
    if len(front.points) == 1:
        (p,) = front.points
        assert p.first == pytest.approx(best_a, abs=1e-6)
        assert p.second == pytest.approx(best_b, abs=1e-6)
    else:  # a genuine trade-off: the end points attain each optimum
        assert front.points[0].second == pytest.approx(best_b, abs=1e-6)
        assert front.points[-1].first == pytest.approx(best_a, abs=1e-6)


def test_unreachable_epsilon_is_infeasible(small):
    with pytest.raises(InfeasibleError, match="epsilons: Phi1 of @12 cannot reach 0.99") as info:
        pareto(Scenario(small, 3), Scenario(small, 12), epsilons=[0.99], starts=0)
    assert info.value.status is Status.infeasible


def test_pareto_needs_exactly_one_second_objective(small):
    with pytest.raises(IRStabError, match="either a second scenario or a prior"):
        pareto(Scenario(small, 3))
    with pytest.raises(IRStabError, match="points"):
        pareto(Scenario(small, 3), prior="log2", points=1)
