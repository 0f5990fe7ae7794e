"""``irstab report`` and ``irstab demo`` end to end through ``irstab.cli.main``.

The demo runs on the bundled data/example/ collection in a temporary directory; its
wall time is printed (speed is a benchmark matter, never a timed assertion).
"""

from __future__ import annotations

import json
import time

import pytest

import irstab.cli.report  # noqa: F401  (registers `irstab report` and `irstab demo`)
from irstab.cli import main
from irstab.cli.report import example_dir
from irstab.report.study import DISPLAY_MAX
from irstab.simulate import simulate_collection


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=6, n_topics=10, depth=30, seed=8).write(d)
    return d / "qrels.txt", d / "runs"


def test_demo_end_to_end(capsys, tmp_path):
    if not (example_dir() / "qrels.txt").is_file():
        pytest.skip(f"example data not found at {example_dir()}")
    out_dir = tmp_path / "demo"
    t0 = time.perf_counter()
    code, out, err = run(capsys, "demo", "-o", out_dir)
    seconds = time.perf_counter() - t0
    with capsys.disabled():
        print(f"\nirstab demo wall time: {seconds:.1f} s")
    assert code == 0, err
    for name in ("report.html", "report.md", "report.json"):
        assert (out_dir / name).is_file()
        assert str(out_dir / name) in out
    report = json.loads((out_dir / "report.json").read_text())
    assert report["collection"] == {**report["collection"], "n_systems": 12, "n_topics": 30,
                                    "depth": 100}
    assert report["cutoffs"] == [10, 20, 100]
    assert report["settings"]["n_bootstrap"] == 200
    rec = report["recommendation"]
    first = out.splitlines()[0]
    assert first.startswith("verdict: use " if rec["change"] else "verdict: keep nDCG@10")
    assert (rec["measure"] if len(rec["measure"]) <= DISPLAY_MAX else "nDCG@") in first
    for c in rec["closest"]:  # each closest candidate's interval is printed as in report.json
        (row,) = [r for r in report["candidates"] if r["measure"] == c]
        lo, hi = row["phi_diff_ci"]
        assert f"[{lo:+.3f}, {hi:+.3f}]" in out
    assert report["minimax"] is not None


def test_demo_without_the_data_directory_simulates_the_example(capsys, tmp_path, monkeypatch):
    # A non-editable install has no data/example/: the demo draws the same seeded
    # collection (tests/test_simulate.py shows it equals the files). Light settings.
    monkeypatch.setattr(irstab.cli.report, "example_dir", lambda: tmp_path / "missing")
    monkeypatch.setattr(irstab.cli.report, "DEMO_CUTOFFS", (10,))
    monkeypatch.setattr(irstab.cli.report, "DEMO_SETTINGS",
                        {**irstab.cli.report.DEMO_SETTINGS, "starts": 0, "n_bootstrap": 30})
    code, out, err = run(capsys, "demo", "-o", tmp_path / "demo")
    assert code == 0, err
    assert "simulated example collection" in err
    report = json.loads((tmp_path / "demo" / "report.json").read_text())
    assert report["collection"] == {**report["collection"], "n_systems": 12, "n_topics": 30}


def test_report_command(capsys, files, tmp_path):
    q, runs = files
    out_dir = tmp_path / "rep"
    code, out, err = run(capsys, "report", q, runs, "--cutoffs", "5,10", "-o", out_dir,
                         "--starts", "0", "--bootstrap", "30", "--seed", "2", "--depth", "30")
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert report["cutoffs"] == [5, 10]
    assert report["settings"] == {**report["settings"], "starts": 0, "n_bootstrap": 30, "seed": 2}
    assert "verdict: " in out and "report written to" in out
    assert (out_dir / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert report["baseline"] == "nDCG@10"
    assert "asl" not in report["comparison"]["records"][0]


def test_report_baseline_and_full(capsys, files, tmp_path):
    q, runs = files
    out_dir = tmp_path / "rep"
    code, out, err = run(capsys, "report", q, runs, "--cutoffs", "5,10", "-o", out_dir,
                         "--starts", "0", "--bootstrap", "30", "--depth", "30",
                         "--baseline", "nDCG@5", "--full")
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert report["baseline"] == "nDCG@5" and "nDCG@5" in out.splitlines()[0]
    assert "asl" in report["comparison"]["records"][0]
    code, out, err = run(capsys, "report", q, runs, "-o", tmp_path / "bad", "--depth", "30",
                         "--cutoffs", "5", "--baseline", "nDCG@500")
    assert code == 1 and "baseline" in err


@pytest.mark.parametrize(
    ("cutoffs", "needle"),
    [("10,x", "--cutoffs"), ("0,10", "--cutoffs"), ("10,500", "cutoffs")],
)
def test_report_bad_cutoffs_exit_1(capsys, files, tmp_path, cutoffs, needle):
    q, runs = files
    code, out, err = run(capsys, "report", q, runs, "--cutoffs", cutoffs, "-o", tmp_path / "x",
                         "--depth", "30")
    assert code == 1
    assert needle in err
    assert not (tmp_path / "x" / "report.json").exists()


def test_report_missing_qrels_exit_1(capsys, files, tmp_path):
    _, runs = files
    code, _, err = run(capsys, "report", tmp_path / "nope.txt", runs, "-o", tmp_path / "x")
    assert code == 1 and "nope.txt" in err


def test_help_lists_the_commands(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "report" in out and "demo" in out


def test_loading_warnings_reach_the_report(capsys, tmp_path):
    # A qrels topic without a relevant document is dropped while loading; the report
    # must say so, not only stderr.
    d = tmp_path / "sim"
    simulate_collection(n_systems=4, n_topics=6, depth=20, seed=4).write(d)
    lines = (d / "qrels.txt").read_text().splitlines()
    first = lines[0].split()[0]
    (d / "qrels.txt").write_text("\n".join(
        " ".join(f.split()[:3] + ["0"]) if f.split()[0] == first else f for f in lines) + "\n")
    code, out, err = run(capsys, "report", d / "qrels.txt", d / "runs", "--cutoffs", "10",
                         "-o", tmp_path / "rep", "--starts", "0", "--bootstrap", "20",
                         "--depth", "20")
    assert code == 0, err
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert any("without a relevant document" in w for w in report["warnings"])
    assert "without a relevant document" in (tmp_path / "rep" / "report.md").read_text()
