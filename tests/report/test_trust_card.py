"""The report's trust card: ``run_study(trust_card=True)``, its section, figure and JSON.

Data: a seeded simulated collection (8 systems x 12 topics, grades 0-3, depth 30). The card's
numbers are irstab.trust.card's (tested in tests/trust/test_trust.py); here: the report
carries them unchanged (report.json equals ``TrustCalibration.to_dict`` of the baseline's
scores with the same settings), the section lists all five tests, the corrections and
Tukey HSD, the figure fits the page, and a collection too small for the simulator gets a
sentence saying why instead of a card.
"""

from __future__ import annotations

import io
import json

import pytest

import irstab
from irstab.cli import main
from irstab.trust.card import calibrate_collection
from irstab.report.render import write_report
from irstab.report.sections import sections
from irstab.report.study import run_study
from irstab.report.study_figures import DPI, MAX_WIDTH_IN, figures

SETTINGS = {"starts": 0, "n_bootstrap": 100, "seed": 3, "tol": 1e-3}


@pytest.fixture(scope="module")
def coll():
    sim = irstab.simulate.simulate_collection(n_systems=8, n_topics=12, depth=30, seed=11)
    return irstab.Collection.build(sim.qrels, sim.runs, depth=30)


@pytest.fixture(scope="module")
def study(coll):
    return run_study(coll, (5, 10), trust_card=True, trust_replicates=40, **SETTINGS)


def _report_candidates(study):
    """The verdict's pool as the report names its rows: every nDCG candidate but the
    baseline, optimised ones by their cross-fitted scores."""
    import math

    from irstab.report.candidates import display_name

    return {display_name(c): study.cross_fitted.get(c.measure, study.scores[c.measure])
            for c in study.candidates
            if c.is_ndcg and math.isfinite(c.phi) and c.measure != study.baseline}


@pytest.fixture(scope="module")
def written(study, tmp_path_factory):
    """The study's report, written once for the tests that read its files."""
    return write_report(study, tmp_path_factory.mktemp("report") / "r")


def test_report_json_carries_the_card(study, written):
    from irstab.report.trust_card import candidate_replicates

    files = written
    got = json.loads(files.json.read_text())["trust_card"]
    base = study.scores[study.baseline]
    cands = _report_candidates(study)
    # the report's card is calibrate_collection's with the report's settings, its fit
    # check and its candidates (issue 45 items 3 and 5), their coverage with its
    # Monte-Carlo error only (no bootstrap resamples of the collection)
    want = calibrate_collection(base, alpha=0.05, n_replicates=40, n_resamples=100,
                                candidates=cands,
                                candidate_replicates=candidate_replicates(len(cands)),
                                sampling_resamples=0, measure=study.baseline,
                                seed=3).to_dict()
    assert got["tests"] == json.loads(json.dumps(want["tests"]))
    assert got["card"] == want["card"] and got["model"]["n_topics"] == 12
    assert got["verdict"]["candidates"] == json.loads(json.dumps(want["verdict"]["candidates"]))
    assert [c["measure"] for c in got["verdict"]["candidates"]] == list(cands)
    assert {c["sampling_resamples"] for c in got["verdict"]["candidates"]} == {0}
    assert isinstance(got["fit"]["fails"], bool)


def test_section_lists_every_test_and_correction(written):
    md = written.markdown.read_text()
    part = md[md.index("## How far to trust the answers here"):]
    for name in ("t-test", "permutation test", "bootstrap test", "Wilcoxon test", "sign test",
                 "Tukey HSD", "Holm", "Benjamini-Hochberg", "figures/trust.png"):
        assert name in part, name
    assert "At 12 topics and alpha 0.05" in part


def test_one_figure_that_fits_the_page(study):
    figs = {f.name: f for f in figures(study)}
    from PIL import Image

    img = Image.open(io.BytesIO(figs["trust"].png))
    assert img.width <= MAX_WIDTH_IN * DPI + 1 and img.height < img.width
    names = [s.id for s in sections(study, list(figs.values()))]
    assert names.index("trust") == names.index("rule") + 1


def test_too_small_a_collection_says_why(coll):
    sim = irstab.simulate.simulate_collection(n_systems=5, n_topics=6, depth=20, seed=2)
    small = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
    st = run_study(small, (5,), trust_card=True, **SETTINGS)
    assert st.trust is None and "8 topics, the collection has 5 and 6" in st.trust_note
    sec = [s for s in sections(st, figures(st)) if s.id == "trust"]
    assert len(sec) == 1 and "no trust card" in sec[0].blocks[0].text


def test_no_card_unless_asked(coll):
    st = run_study(coll, (5,), **SETTINGS)
    assert st.trust is None and st.to_dict()["trust_card"] is None
    assert "trust" not in [s.id for s in sections(st, figures(st))]


def test_cli_report_without_the_card(tmp_path, capsys):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "data" / "example"
    code = main(["report", str(example / "qrels.txt"), str(example / "runs"), "-k", "5",
                 "--starts", "0", "-B", "40", "--depth", "20", "--no-trust-card",
                 "-o", str(tmp_path / "r")])
    capsys.readouterr()
    assert code == 0
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["trust_card"] is None
    assert "How far to trust" not in (tmp_path / "r" / "report.md").read_text()
