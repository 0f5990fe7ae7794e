"""The budget's chosen design and frontier against brute force over every (topics, depth,
assessors), on DL-2019 (two facets) and on its re-annotation (three facets, nested).

The brute force walks n_t = 2, 3, ... for every depth and number of assessors while the
cost n_t (c + n_a P_d) stays within the budget, computes Phi and the detectable difference
from the variance components written out here (not the library's D-study), and keeps the
best under the documented tie rule (cheaper, shallower, fewer assessors).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from irstab.design import budget_plan, depth_study, ttest_min_difference
from irstab.errors import IRStabError

REANNOTATION = "trec-dl-2019-reannotation/main"


@pytest.fixture(scope="module")
def study2(dl2019_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return depth_study(dl2019_dir / "qrels.txt", dl2019_dir / "runs", ["nDCG@10", "AP"],
                           (5, 10, 20))


@pytest.fixture(scope="module")
def study3(dl2019_dir):
    judges = dl2019_dir.parent / REANNOTATION
    if not judges.is_dir():
        pytest.skip("re-annotation data not found")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return depth_study(dl2019_dir / "qrels.txt", dl2019_dir / "runs", ["nDCG@10"],
                           (5, 10), assessor_qrels=judges)


def _value(lv, measure, n, a, objective):
    if lv.facets is not None:
        c = dict(zip(lv.facets[measure].sources, lv.facets[measure].components))
        err = (c["t"] + c["st"]) / n + (c["a:t"] + c["sa:t"]) / (n * a)  # absolute, nested
        phi = c["s"] / (c["s"] + err)
        var = 2 * (c["st"] + c["sa:t"] / a)
    else:
        s, t, r = lv.gstudies[measure].components
        phi = s / (s + (t + r) / n)
        var = 2 * lv.gstudies[measure].var_residual
    if objective == "phi":
        return phi
    return float(ttest_min_difference(n, var))


def brute_force(study, measure, budget, c, objective, max_a, min_tau=None):
    best = None
    for lv in study.levels:
        if min_tau is not None and lv.tau[measure] < min_tau:
            continue
        for a in range(1, max_a + 1):
            unit = c + a * lv.judgments_per_topic
            n = 2
            while n * unit <= budget * (1 + 1e-12):
                v = _value(lv, measure, n, a, objective)
                key = (-v if objective == "phi" else v, n * unit, lv.depth, a)
                if best is None or key < best[0]:
                    best = (key, (n, lv.depth, a))
                n += 1
    return best[1] if best else None


def chosen(plan):
    c = plan.chosen
    return c["n_topics"], c["depth"], c["n_assessors"]


@pytest.mark.parametrize("measure", ["nDCG@10", "AP"])
@pytest.mark.parametrize("budget,c", [(9260, 0.0), (4000, 25.0), (20000, 60.0)])
def test_two_facet_choice_equals_brute_force(study2, measure, budget, c):
    plan = budget_plan(study2, measure, budget, cost_per_topic=c)
    assert chosen(plan) == brute_force(study2, measure, budget, c, "phi", 1)
    assert plan.chosen["cost"] <= budget


@pytest.mark.parametrize("budget,c", [(1500, 0.0), (2500, 40.0)])
def test_detectable_difference_choice_equals_brute_force(study2, budget, c):
    plan = budget_plan(study2, "AP", budget, cost_per_topic=c, objective="mdd")
    assert chosen(plan) == brute_force(study2, "AP", budget, c, "mdd", 1)


def test_min_tau_choice_equals_brute_force(study2):
    tau5 = study2.level(5).tau["AP"]
    plan = budget_plan(study2, "AP", 9260, min_tau=tau5 + 1e-6)
    assert plan.chosen["depth"] > 5
    assert chosen(plan) == brute_force(study2, "AP", 9260, 0.0, "phi", 1, min_tau=tau5 + 1e-6)


@pytest.mark.parametrize("budget,c", [(9260, 0.0), (3000, 100.0), (9260, 400.0)])
def test_three_facet_choice_equals_brute_force(study3, budget, c):
    plan = budget_plan(study3, "nDCG@10", budget, cost_per_topic=c, max_assessors=3)
    assert chosen(plan) == brute_force(study3, "nDCG@10", budget, c, "phi", 3)


def test_a_costly_topic_makes_second_assessors_worth_it(study3):
    # with topics costing far more than a pool, a second judgment per document is cheap
    # relative to a new topic; the brute force decides, the plan must agree either way
    plan = budget_plan(study3, "nDCG@10", 9260, cost_per_topic=2000, max_assessors=3)
    assert chosen(plan) == brute_force(study3, "nDCG@10", 9260, 2000, "phi", 3)


def test_frontier_rows_equal_brute_force(study2):
    plan = budget_plan(study2, "nDCG@10", 9260, cost_per_topic=10)
    for row in plan.frontier.iloc[::8].itertuples():
        if row.n_topics is None or (isinstance(row.n_topics, float) and math.isnan(row.n_topics)):
            assert brute_force(study2, "nDCG@10", row.budget, 10, "phi", 1) is None
            continue
        assert (int(row.n_topics), int(row.depth), int(row.n_assessors)) == brute_force(
            study2, "nDCG@10", row.budget, 10, "phi", 1)
    phis = plan.frontier["phi"].dropna().to_numpy()
    assert np.all(np.diff(phis) >= -1e-12)  # a bigger budget never buys less


def test_budget_errors(study2):
    with pytest.raises(IRStabError, match="^budget"):
        budget_plan(study2, "nDCG@10", 10)  # not 2 topics anywhere
    with pytest.raises(IRStabError, match="^max_assessors"):
        budget_plan(study2, "nDCG@10", max_assessors=2)
    with pytest.raises(IRStabError, match="^measure"):
        budget_plan(study2, "P@10")
    with pytest.raises(IRStabError, match="^objective"):
        budget_plan(study2, objective="tau")
    with pytest.raises(IRStabError, match="^min_tau"):
        budget_plan(study2, "AP", min_tau=0.999)
