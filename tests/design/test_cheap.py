"""Planning with a cheap judge (irstab.design.cheap): closed forms, brute force, errors.

Oracles: the Cauchy-Schwarz optimum of  A/n + B/N  under  alpha N + beta n = J  written out
here (n* = J sqrt(A/beta)/S, N* = J sqrt(B/alpha)/S, V* = S^2/J, S = sqrt(A beta) +
sqrt(B alpha)); a brute force over every integer design; the PPI variance of the pilot
recomputed from the per-target correlations.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from irstab.design.cheap import CheapVariances, cheap_plan, cheap_variances, ppi_variance
from irstab.errors import IRStabError

Z = stats.norm.ppf(0.975)


def brute_budget(A, B, J, alpha, beta):
    best = (math.inf, None)
    for n in range(2, int(J / beta) + 1):
        for N in range(n, int((J - beta * n) / alpha) + 1 if alpha > 0 else n + 1):
            if alpha * N + beta * n <= J * (1 + 1e-12):
                v = A / n + B / N
                if v < best[0] - 1e-15:
                    best = (v, (n, N))
    return best


def test_budget_matches_the_closed_form_and_brute_force():
    A, B, pool, c_cheap, c_topic, J = 0.02, 0.06, 50.0, 0.05, 10.0, 3000.0
    plan = cheap_plan(CheapVariances(A, B, "pairs"), budget=J, pool=pool, cheap_cost=c_cheap,
                      topic_cost=c_topic)
    alpha, beta = c_topic + c_cheap * pool, pool
    S = math.sqrt(A * beta) + math.sqrt(B * alpha)
    assert plan.continuous["variance"] == pytest.approx(S * S / J, rel=1e-12)
    assert plan.continuous["n_gold"] == pytest.approx(J * math.sqrt(A / beta) / S, rel=1e-12)
    assert plan.continuous["n_topics"] == pytest.approx(J * math.sqrt(B / alpha) / S, rel=1e-12)
    # the integer optimum is no better than the continuous one, and close to it
    assert plan.variance >= S * S / J - 1e-15
    assert plan.variance <= 1.1 * S * S / J
    v, (n, N) = brute_budget(A, B, J, alpha, beta)
    assert plan.variance == pytest.approx(v, rel=1e-12)
    assert (plan.n_gold, plan.n_topics) == (n, N)
    assert plan.cost <= J
    assert plan.half_width == pytest.approx(Z * math.sqrt(v), rel=1e-12)
    # gold only with the same budget: n = J / (c_topic + pool) topics
    n_go = int(J // (c_topic + pool))
    assert plan.gold_only["n_topics"] == n_go
    assert plan.gold_only["variance"] == pytest.approx((A + B) / n_go, rel=1e-12)
    assert not plan.uses_gold_only and plan.cheap_labels == N * pool
    d = plan.to_dict()
    assert d["chosen"]["n_gold"] == n and d["chosen"]["gold_labels"] == n * pool


def test_target_matches_the_closed_form_least_cost():
    A, B, pool, c_cheap = 0.01, 0.09, 40.0, 0.02
    v0 = 0.0025
    plan = cheap_plan(CheapVariances(A, B, "pairs"), target=Z * math.sqrt(v0), pool=pool,
                      cheap_cost=c_cheap)
    alpha, beta = c_cheap * pool, pool
    S = math.sqrt(A * beta) + math.sqrt(B * alpha)
    assert plan.continuous["cost"] == pytest.approx(S * S / v0, rel=1e-12)
    assert plan.variance <= v0 * (1 + 1e-12)
    assert S * S / v0 - 1e-9 <= plan.cost <= S * S / v0 + alpha + beta + 1e-9
    # brute force: the cheapest integer design with A/n + B/N <= v0
    best = min((alpha * N + beta * n, n, N) for n in range(2, 200) for N in range(n, 3000)
               if A / n + B / N <= v0 * (1 + 1e-12))
    assert plan.cost == pytest.approx(best[0], rel=1e-12)
    # gold only needs (A + B) / v0 topics
    assert plan.gold_only["n_topics"] == math.ceil((A + B) / v0)


def test_useless_cheap_judge_falls_back_to_gold_only():
    plan = cheap_plan(CheapVariances(0.05, 0.0, "runs"), budget=1000, pool=20, cheap_cost=0.1)
    assert plan.uses_gold_only and plan.n_gold == plan.n_topics == 50
    assert plan.cheap_labels == 0


def test_phi_target_for_gold_only_is_the_dstudy():
    """No cheap information: Phi = s2 / (s2 + total / n), the two-facet D-study at n topics."""
    var = CheapVariances(0.04, 0.0, "runs", system=0.01)
    plan = cheap_plan(var, target=0.9, objective="phi", pool=10, cheap_cost=0.01)
    n = math.ceil(0.04 * 0.9 / (0.01 * 0.1))  # s2 (1 - g) / g >= total / n
    assert plan.n_gold == n and plan.phi == pytest.approx(0.01 / (0.01 + 0.04 / n))
    # a good cheap judge reaches it with fewer gold topics
    good = cheap_plan(CheapVariances(0.004, 0.036, "runs", system=0.01), target=0.9,
                      objective="phi", pool=10, cheap_cost=0.01)
    assert good.n_gold < n and good.phi >= 0.9 - 1e-12 and good.cost < plan.cost


@settings(max_examples=40, deadline=None)
@given(st.floats(0.001, 0.1), st.floats(0.0, 0.1), st.floats(5, 100), st.floats(0.0, 0.5),
       st.floats(0, 20), st.floats(500, 20000))
def test_budget_invariants(A, B, pool, c_cheap, c_topic, J):
    var = CheapVariances(A, B, "pairs")
    try:
        plan = cheap_plan(var, budget=J, pool=pool, cheap_cost=c_cheap, topic_cost=c_topic)
    except IRStabError as e:
        assert "budget" in str(e) or "cheap_cost, topic_cost" in str(e)
        return
    assert plan.cost <= J * (1 + 1e-9)
    assert plan.n_topics >= plan.n_gold >= 2
    assert plan.variance <= plan.gold_only["variance"] + 1e-15  # never worse than gold only
    alpha, beta = c_topic + c_cheap * pool, pool
    S = math.sqrt(A * beta) + math.sqrt(B * alpha)
    if not plan.uses_gold_only:  # never better than the continuous optimum (gold only pays
        assert plan.variance >= S * S / J * (1 - 1e-9)  # no cheap labels: not bound by it)
    more = cheap_plan(var, budget=2 * J, pool=pool, cheap_cost=c_cheap, topic_cost=c_topic)
    assert more.variance <= plan.variance + 1e-15


def test_cheap_variances_from_a_pilot():
    rng = np.random.default_rng(1)
    topics = [f"t{i}" for i in range(30)]
    gold = pd.DataFrame(rng.uniform(size=(4, 30)), index=list("abcd"), columns=topics)
    cheap = gold * 0.5 + rng.normal(0, 0.05, size=(4, 30))
    v = cheap_variances(gold, cheap, "runs")
    y, f = gold.to_numpy(), cheap.to_numpy()
    r2 = np.array([np.corrcoef(y[s], f[s])[0, 1] ** 2 for s in range(4)])
    vy = y.var(axis=1, ddof=1)
    assert v.rect == pytest.approx(np.mean((1 - r2) * vy), rel=1e-10)
    assert v.cheap == pytest.approx(np.mean(r2 * vy), rel=1e-10)
    assert v.system is not None and v.system >= 0
    p = cheap_variances(gold, cheap)  # pairs by default: 6 differences
    assert p.targets == "pairs" and p.total > 0
    assert ppi_variance(v.rect, v.cheap, 10, 10) == pytest.approx(v.total / 10)
    # cheap == gold: everything is borrowed
    same = cheap_variances(gold, gold, "runs")
    assert same.rect == pytest.approx(0.0, abs=1e-15)
    # the fixed-lambda rectifier used below 10 gold topics: Var(Y - f/2), averaged
    assert v.rect_fixed == pytest.approx(np.mean((y - f / 2).var(axis=1, ddof=1)), rel=1e-10)
    assert v.rect_fixed >= v.rect  # the tuned lambda minimises the rectifier's variance
    assert same.rect_fixed == pytest.approx(np.mean(y.var(axis=1, ddof=1)) / 4, rel=1e-10)
    # below 10 gold topics the plan's variance is the fixed-lambda interval's
    assert ppi_variance(v.rect, v.cheap, 9, 30, v.rect_fixed) == pytest.approx(
        v.rect_fixed / 9 + (v.total - v.rect_fixed) / 30, rel=1e-12)
    assert ppi_variance(v.rect, v.cheap, 10, 30, v.rect_fixed) == pytest.approx(
        v.rect / 10 + v.cheap / 30, rel=1e-12)


def _v(A, B, rf, n, N):
    return (rf / n + (A + B - rf) / N) if n < 10 else A / n + B / N


@pytest.mark.parametrize("budget", [300.0, 400.0, 1500.0])
def test_plans_below_ten_gold_topics_use_the_fixed_lambda_variance(budget):
    """Brute force over every integer design, the variance switching to the fixed-lambda
    interval's below 10 gold topics (module docstring)."""
    A, B, rf, pool, c_cheap = 0.01, 0.05, 0.012, 40.0, 0.05
    alpha, beta = c_cheap * pool, pool
    var = CheapVariances(A, B, "pairs", rect_fixed=rf)
    plan = cheap_plan(var, budget=budget, pool=pool, cheap_cost=c_cheap)
    best = min((_v(A, B, rf, n, N), n, N) for n in range(2, int(budget / beta) + 1)
               for N in range(n, int((budget - beta * n) / alpha) + 1)
               if alpha * N + beta * n <= budget * (1 + 1e-12))
    assert plan.variance == pytest.approx(best[0], rel=1e-12)
    assert (plan.n_gold, plan.n_topics) == best[1:]
    if budget < 420:  # every affordable design has fewer than 10 gold topics (42 a topic)
        assert plan.n_gold < 10
    for v0 in (best[0] * 1.5, best[0]):
        t = cheap_plan(var, target=Z * math.sqrt(v0), pool=pool, cheap_cost=c_cheap)
        cheapest = min((alpha * N + beta * n, n, N) for n in range(2, 200) for N in range(n, 3000)
                       if _v(A, B, rf, n, N) <= v0 * (1 + 1e-12))
        assert t.cost == pytest.approx(cheapest[0], rel=1e-12)


@pytest.mark.parametrize("kwargs, where", [
    (dict(budget=100, target=0.1), "budget, target"),
    (dict(), "budget, target"),
    (dict(budget=-1), "budget"),
    (dict(budget=1000, pool=0), "pool"),
    (dict(budget=1000, cheap_cost=math.nan), "cheap_cost"),
    (dict(budget=1000, topic_cost=-1), "topic_cost"),
    (dict(budget=1000, objective="power"), "objective"),
    (dict(budget=1000, confidence=1.5), "confidence"),
    (dict(target=0.9, objective="phi"), "variances"),
    (dict(budget=10), "budget"),
    (dict(budget=1000, cheap_cost=0.0), "cheap_cost, topic_cost"),
])
def test_bad_input_names_the_parameter(kwargs, where):
    args = dict(pool=20, cheap_cost=0.1) | kwargs
    with pytest.raises(IRStabError, match=where):
        cheap_plan(CheapVariances(0.01, 0.02, "pairs"), **args)


def test_bad_variances_and_pilot():
    with pytest.raises(IRStabError, match="rect"):
        CheapVariances(-1.0, 0.1, "runs")
    with pytest.raises(IRStabError, match="rect, cheap"):
        CheapVariances(0.0, 0.0, "runs")
    g = pd.DataFrame(np.ones((2, 3)))
    with pytest.raises(IRStabError, match="targets"):
        cheap_variances(g, g, "topics")
    with pytest.raises(IRStabError, match="cheap"):
        cheap_variances(g, g.iloc[:, :2])
    with pytest.raises(IRStabError, match="gold"):
        cheap_variances(g.to_numpy(), g)
