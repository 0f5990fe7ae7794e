"""The report's section "Planning the next collection": its numbers are the library's
(D-study, power plan, budget plan computed here independently of the section), its two
figures are written, and report.md / report.html / report.json carry it."""

from __future__ import annotations

import json
import warnings

import pytest

import irstab
from irstab.design import budget_plan, depth_study, power_plan
from irstab.report.design_section import MIN_DIFF, TITLE, design_section
from irstab.report.render import write_report
from irstab.report.study import run_study

SETTINGS = {"starts": 0, "n_bootstrap": 50, "tol": 1e-3, "seed": 0}


@pytest.fixture(scope="module")
def setup():
    sim = irstab.simulate.simulate_collection(n_systems=8, n_topics=12, depth=30, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.build(sim.qrels, sim.runs, depth=30)
        study = run_study(coll, (10, 20), **SETTINGS)
        sec = design_section(study, sim.qrels, sim.runs, depth=30)
    return sim, study, sec


def test_numbers_are_the_librarys(setup):
    sim, study, sec = setup
    measures = list(dict.fromkeys([study.recommendation.use.measure, study.baseline]))
    assert [m["measure"] for m in sec.data["measures"]] == measures
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = depth_study(sim.qrels, sim.runs, measures, (5, 10, 20), run_depth=30)
    for m, got in zip(measures, sec.data["measures"]):
        c = study.candidate(m)
        assert got["topics_phi_target"] == int(c.topics_95)
        assert got["topics_phi_target"] == study.gstudies[m].topics_needed(0.95).n
        p = power_plan(study.scores[m], name=m, min_diff=MIN_DIFF)
        assert got["power"]["topics_ttest"] == int(p.topics_ttest)
        assert got["power"]["mdd_ttest"] == pytest.approx(p.mdd_ttest, rel=1e-12)
        b = budget_plan(ds, m)
        assert got["budget"]["chosen"]["n_topics"] == b.chosen["n_topics"]
        assert got["budget"]["chosen"]["depth"] == b.chosen["depth"]
    assert sec.data["depths"] == [5, 10, 20]  # 50 and 100 exceed the runs' depth of 30


def test_section_is_in_every_report_file(setup, tmp_path):
    _, study, sec = setup
    files = write_report(study, tmp_path, (sec,))
    md = files.markdown.read_text()
    assert f"## {TITLE}" in md and "topics for t-test D = 0.05" in md
    assert "figures/design-topics-needed.png" in md and "figures/design-budget-frontier.png" in md
    page = files.html.read_text()
    assert f"<h2>{TITLE}</h2>" in page and page.count("data:image/png;base64,") >= 2
    data = json.loads(files.json.read_text())
    assert data["design"]["min_diff"] == MIN_DIFF
    for name in ("design-topics-needed", "design-budget-frontier"):
        png = tmp_path / "figures" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert png in files.figures
