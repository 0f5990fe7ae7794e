"""Issue 5 acceptance on TREC DL 2019 (skips cleanly when the data are absent).

At k = 20 with linear gains: the optimal discount's Phi(1) is at least the best preset's,
no start ends below its own starting Phi, both backends agree to 1e-4, and the nDCG values
at the optimum equal ``irstab.evaluate`` with the result's measure string (round trip).
Expected numbers come from the evaluate kernel and gstudy (independent of the optimizer).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irstab
from irstab.evaluation import score_matrix
from irstab.optimizer import Scenario, Status, optimize, pareto
from irstab.stability import gstudy


@pytest.fixture(scope="module")
def dl_results(dl2019):
    return {
        backend: optimize(dl2019, 20, vary="discount", gain="linear", backend=backend, starts=2)
        for backend in ("scipy", "cvxpy")
    }


@pytest.mark.parametrize("backend", ["scipy", "cvxpy"])
def test_optimal_discount_beats_every_preset(dl_results, backend):
    res = dl_results[backend]
    assert res.status is Status.optimal
    assert res.phi1 >= max(p.phi1 for p in res.presets)
    assert res.topics_needed <= min(p.topics_needed for p in res.presets)


@pytest.mark.parametrize("backend", ["scipy", "cvxpy"])
def test_no_start_ends_below_its_start(dl_results, backend):
    for s in dl_results[backend].starts:
        assert s.final >= s.initial - 1e-12, s


def test_backends_agree(dl_results):
    assert abs(dl_results["scipy"].value - dl_results["cvxpy"].value) <= 1e-4


def test_round_trip_through_evaluate(dl2019, dl_results):
    res = dl_results["scipy"]
    frame = irstab.evaluate(dl2019, None, [res.measure_string], per_topic=True)
    assert set(frame["measure"]) == {res.measure_string}  # the string parses back to itself
    per_topic = frame[frame["topic"] != "all"].pivot(index="run", columns="topic", values="value")
    per_topic = per_topic.loc[list(dl2019.systems), list(dl2019.topics)]
    opt = Scenario(dl2019, 20).ndcg(np.array(res.gain), np.array(res.discount))
    np.testing.assert_allclose(per_topic.to_numpy(), opt, rtol=0, atol=1e-12)
    g = gstudy(pd.DataFrame(per_topic.to_numpy()))
    assert res.phi1 == pytest.approx(g.phi(1), rel=1e-12)
    assert res.value == pytest.approx(g.phi(1), abs=1e-12)


# Pareto front of Phi(1) against the distance to log2 at k = 100 (5 points): the values of the
# same sweep solved with SLSQP on all 100 coordinates from the log2 start (the solver before
# constrained solves started from a coarsened staircase); the first is log2's own Phi(1). They
# were solved on DL-2019 ranked as trec_eval 9 ranks it (scores in single precision), so the
# test reads that Collection.
FRONT_K100 = [0.180762247934, 0.202517006937, 0.217581298657, 0.226641325449, 0.230292267670]
# Phi(1) of the almost flat optimal discount at k = 1000, confirmed by an independent
# multi-start solver (tests/optimizer/test_optimizer_starts.py)
BETTER_OPTIMUM = 0.26282


def test_front_against_log2_at_k100_is_the_full_solve(dl2019_te9):
    front = pareto(Scenario(dl2019_te9, 100), prior="log2", points=5)
    assert all(p.status is Status.optimal for p in front.points)
    np.testing.assert_allclose([p.first for p in front.points], FRONT_K100, rtol=0, atol=1e-8)


def test_front_against_log2_at_k1000_converges(dl2019):
    # SLSQP on all 1000 coordinates did not finish a point in 10 minutes
    front = pareto(Scenario(dl2019, 1000), prior="log2", points=5)
    assert all(p.status is Status.optimal for p in front.points)
    first = [p.first for p in front.points]
    log2 = gstudy(score_matrix(dl2019, "nDCG@1000")).phi(1)  # linear gains, log2 discount
    assert first[0] == pytest.approx(log2, rel=1e-10)
    assert first[-1] == pytest.approx(BETTER_OPTIMUM, abs=1e-5)
    assert np.all(np.diff(first) >= -1e-9)  # a looser constraint never lowers Phi
    assert all(p.second <= p.epsilon + 1e-9 for p in front.points)
