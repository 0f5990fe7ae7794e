"""The report's informativeness panel, alone and through `irstab report --informativeness`.

Expected numbers come from :func:`irstab.compare.informativeness` (tested against its own
oracles in tests/compare/test_informativeness.py).
"""

from __future__ import annotations

import json
import warnings

import pytest

import irstab
import irstab.cli.report  # noqa: F401  (registers `irstab report`)
from irstab.cli import main
from irstab.compare import informativeness
from irstab.report.informativeness_panel import informativeness_panel
from irstab.simulate import simulate_collection


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=5, n_topics=8, depth=30, seed=8).write(d)
    return d / "qrels.txt", d / "runs"


def test_panel_skips_unsupported_and_matches_library(files):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.from_files(*files)
    panel = informativeness_panel(coll, ["nDCG@10", "ERR", "AP", "AP"], min_relevant=2, min_top=1)
    assert panel.result.measures == ("nDCG@10", "AP")
    lib = informativeness(coll, ["nDCG@10", "AP"], min_relevant=2, min_top=1, seed=0).summary()
    assert panel.result.summary()["mean_rms"].tolist() == pytest.approx(lib["mean_rms"].tolist())
    md = panel.markdown_for("figs")
    assert "## Informativeness" in md and "figs/informativeness.png" in md
    assert f"{lib['mean_rms'][0]:.3f}" in md
    assert panel.figure_png.startswith(b"\x89PNG") and "<table>" in panel.html
    assert panel.data["measures"] == ["nDCG@10", "AP"]


def test_report_with_informativeness(capsys, files, tmp_path):
    q, runs = files
    out_dir = tmp_path / "rep"
    code = main([str(a) for a in ("report", q, runs, "--cutoffs", "5,10", "-o", out_dir,
                                  "--starts", "0", "--bootstrap", "40", "--depth", "30",
                                  "--informativeness")])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert "AP" in report["informativeness"]["measures"]
    assert (out_dir / "figures" / "informativeness.png").is_file()
    assert "## Informativeness (maximum entropy method)" in (out_dir / "report.md").read_text()
    assert "Informativeness (maximum entropy method)" in (out_dir / "report.html").read_text()


def test_report_selection_options(capsys, files, tmp_path):
    # --min-relevant / --min-top reach the panel (report.json records the selection used)
    q, runs = files
    out_dir = tmp_path / "sel"
    code = main([str(a) for a in ("report", q, runs, "--cutoffs", "5", "-o", out_dir,
                                  "--starts", "0", "--bootstrap", "40", "--depth", "30",
                                  "--informativeness", "--min-relevant", "2", "--min-top", "1")])
    out, err = capsys.readouterr()
    assert code == 0, err
    info = json.loads((out_dir / "report.json").read_text())["informativeness"]
    assert (info["min_relevant"], info["min_top"]) == (2, 1)
    # a negative threshold is refused before the study runs: exit 1, nothing written
    bad = tmp_path / "bad"
    code = main([str(a) for a in ("report", q, runs, "-o", bad, "--informativeness",
                                  "--min-top", "-1")])
    out, err = capsys.readouterr()
    assert code == 1 and "--min-top" in err and "Traceback" not in err
    assert not bad.exists()


def test_one_topic_gives_no_interval_and_a_warning(files):
    # the interval resamples topics: lists from a single topic cannot give one, and the
    # panel says so instead of printing NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.from_files(*files)
    with pytest.warns(irstab.errors.IRStabWarning, match="fewer than 2 topics"):
        panel = informativeness_panel(coll, ["AP"])  # 5 and 5: one topic on this collection
    s = panel.result.summary()
    assert (s["n_topics"] == 1).all() and s["ci_low"].isna().all()
    assert "no interval: one topic" in panel.markdown and "nan" not in panel.markdown
