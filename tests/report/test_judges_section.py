"""Issue 42, item 7: with two or more judge sets, the report's "Who judged?" section opens with
the agreement of the judge sets and the survival of the conclusions (irstab.judges), answer
first, before the assessor facet; its numbers are the judges room's."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from assessor_data import noisy_qrels

import irstab.io as io
from irstab.collection.assessors import assessor_collection
from irstab.errors import IRStabWarning
from irstab.judges import agreement, read_judge_sets, survival_from_scores
from irstab.report.assessor_section import assessor_section
from irstab.report.judges_section import judge_study_for_report
from irstab.simulate import simulate_collection


@pytest.fixture(scope="module")
def judged():
    sim = simulate_collection(n_systems=6, n_topics=8, depth=20, seed=9)
    f = sim.qrels.frame
    gold = io.Qrels("nist.txt", f)
    judges = noisy_qrels(f, ("ann", "bob"), seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        ac = assessor_collection(gold, sim.runs, judges)
    return read_judge_sets(gold, judges), ac


def test_section_opens_with_agreement_and_survival(judged):
    sets, ac = judged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        study = judge_study_for_report(sets, ac, ["nDCG@10", "AP"], n_resamples=50, seed=1)
        sec = assessor_section(ac, ["nDCG@10", "AP"], n_resamples=0, judges=study)
    md = sec.markdown
    # answer first: the judges' answer is the section's first paragraph, the facet after
    body = md.split("\n", 1)[1].lstrip()
    assert body.startswith("Agreement with nist over 2 judge set(s)")
    assert md.index("Do the conclusions survive?") < md.index("The assessor facet")
    assert "## Who judged? Agreement, survival and the assessor facet" in md
    assert "<h2>Who judged? Agreement, survival" in sec.html
    # the numbers are the library's: kappa and ordinal alpha with the gold set, per pair
    lib = agreement(sets, n_resamples=50, seed=1)
    got = sec.data["judges"]["agreement"]
    assert [(r["judge_a"], r["judge_b"]) for r in got] == list(
        zip(lib.pairs["judge_a"], lib.pairs["judge_b"]))
    np.testing.assert_allclose([r["cohen_kappa"] for r in got], lib.pairs["cohen_kappa"],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose([r["krippendorff_alpha_ordinal_low"] for r in got],
                               lib.pairs["krippendorff_alpha_ordinal_low"], rtol=0, atol=1e-12)
    for r in lib.pairs[lib.pairs["judge_a"] == "nist"].itertuples():
        assert f"{r.cohen_kappa:.3f} [{r.cohen_kappa_low:.3f}, {r.cohen_kappa_high:.3f}]" \
            in sec.html
    # survival per measure: tau, top-10 swaps, significant pairs kept, as survival_from_scores
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        sv = survival_from_scores(ac.scores(["nDCG@10", "AP"]), "nist", seed=1,
                                  judges=ac.assessors, n_bootstrap=0)
    rows = {(r["measure"], r["judge_b"]): r for r in sec.data["judges"]["survival"]}
    assert set(rows) == {(m, j) for m in ("nDCG@10", "AP") for j in ("ann", "bob")}
    for r in sv.rows.itertuples():
        assert rows[(r.measure, r.judge_b)]["kendall_tau"] == pytest.approx(r.kendall_tau,
                                                                             abs=1e-12)
        assert rows[(r.measure, r.judge_b)]["kept"] == r.kept
    by = sec.data["judges"]["survival_by_measure"]
    assert [b["measure"] for b in by] == list(sv.by_measure()["measure"])
    assert ("| measure | mean over | Kendall tau | tau\\_AP | top-10 pairs swapped "
            "| significant pairs kept |") in md


def test_without_judges_the_section_is_the_facet_alone(judged):
    _, ac = judged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        sec = assessor_section(ac, ["AP"], n_resamples=0)
    assert "judges" not in sec.data and "Do the conclusions survive?" not in sec.markdown
    assert "## Who judged? The assessor facet" in sec.markdown


def test_report_command_shows_agreement_and_survival(capsys, tmp_path):
    """Two judge sets (the base qrels and one assessor's) are enough for the section."""
    from irstab.cli import main
    from irstab.io import write_qrels

    d = tmp_path / "sim"
    sim = simulate_collection(n_systems=6, n_topics=10, depth=30, seed=8)
    sim.write(d)
    f = sim.qrels.frame
    rng = np.random.default_rng(5)
    g = np.clip(f["grade"].to_numpy() + rng.integers(-1, 2, len(f)), 0, 3)
    write_qrels(tmp_path / "ann-qrels.txt", f["topic"], f["docid"], g)
    out_dir = tmp_path / "rep"
    code = main([str(a) for a in (
        "report", d / "qrels.txt", d / "runs", "--cutoffs", "5", "-o", out_dir, "--starts",
        "0", "--bootstrap", "40", "--depth", "30", "-a", tmp_path / "ann-qrels.txt")])
    err = capsys.readouterr().err
    assert code == 0, err
    judges = json.loads((out_dir / "report.json").read_text())["assessors"]["judges"]
    assert [(r["judge_a"], r["judge_b"]) for r in judges["agreement"]] == [("qrels", "ann")]
    assert {r["judge_b"] for r in judges["survival"]} == {"ann"}
    html = (out_dir / "report.html").read_text()
    assert "Do the conclusions survive?" in html and "significant pairs kept" in html
