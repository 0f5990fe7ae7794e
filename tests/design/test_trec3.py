"""The TREC-3 AP matrix of data/trec3-adhoc (gt4ireval's adhoc3) against gt4ireval's
vignette (Urbano, gt4ireval 2.0, "Generalizability Theory for Information Retrieval
Evaluation"), and the power plan on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from irstab.design import power_plan
from irstab.io.scorematrix import read_score_matrix
from irstab.stability import gstudy

AP = Path(__file__).resolve().parents[2] / "data" / "trec3-adhoc" / "AP.csv"


def test_matrix_reproduces_the_gt4ireval_vignette():
    x = read_score_matrix(AP)
    assert x.shape == (40, 50)
    g = gstudy(x, drop_worst=0.25)  # gstudy(adhoc3, drop = .25): 30 systems, 50 queries
    assert g.n_systems == 30
    assert (round(g.var_system, 4), round(g.var_topic, 4), round(g.var_residual, 4)) == (
        0.0028, 0.0281, 0.0102)
    assert round(g.erho2(), 5) == 0.93265 and round(g.phi(), 5) == 0.78613
    assert [round(v, 5) for v in g.erho2_interval()] == [0.89311, 0.96287]
    assert [round(v, 5) for v in g.phi_interval()] == [0.66141, 0.88039]
    assert g.topics_needed(0.95, "erho2").n == 69 and g.topics_needed(0.95, "phi").n == 259


def test_power_plan_uses_the_residual_variance_of_all_40_systems():
    x = read_score_matrix(AP)
    p = power_plan(x, name="AP", min_diff=0.05)
    assert p.variance.variance == pytest.approx(gstudy(x).ms_residual, rel=1e-12)
    assert p.n_topics == 50 and p.m == 40
    assert p.topics_ttest > 2
