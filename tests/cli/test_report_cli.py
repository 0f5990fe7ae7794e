"""``irstab report`` and ``irstab demo`` end to end through ``irstab.cli.main``.

The demo on the bundled data/example/ collection is its --help example ``irstab demo -o
demo-report``, run and its report read in tests/cli/test_help_examples.py (one run of it
in the suite, not two); here the demo without the data directory, on light settings.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import pytest

import irstab.cli.report  # noqa: F401  (registers `irstab report` and `irstab demo`)
from irstab.cli import main
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


def test_demo_without_the_data_directory_simulates_the_example(capsys, tmp_path, monkeypatch):
    # A non-editable install has no data/example/: the demo draws the same seeded
    # collection (tests/test_simulate.py shows it equals the files). Light settings.
    monkeypatch.setattr(irstab.cli.report, "example_dir", lambda: tmp_path / "missing")
    monkeypatch.setattr(irstab.cli.report, "DEMO_CUTOFFS", (10,))
    monkeypatch.setattr(irstab.cli.report, "DEMO_SETTINGS",
                        {**irstab.cli.report.DEMO_SETTINGS, "starts": 0, "n_bootstrap": 40})
    code, out, err = run(capsys, "demo", "-o", tmp_path / "demo")
    assert code == 0, err
    assert "simulated example collection" in err
    report = json.loads((tmp_path / "demo" / "report.json").read_text())
    assert report["collection"] == {**report["collection"], "n_systems": 12, "n_topics": 30}


REPORT = ("--cutoffs", "5,10", "--starts", "0", "--bootstrap", "40", "--seed", "2",
          "--depth", "30")


@pytest.fixture(scope="module")
def reported(files, tmp_path_factory):
    """``irstab report`` on the simulated files, once for the module: (code, out, err, dir)."""
    q, runs = files
    out_dir = tmp_path_factory.mktemp("reported") / "rep"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in ("report", q, runs, *REPORT, "-o", out_dir)])
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue(), out_dir


def test_report_command(reported):
    code, out, err, out_dir = reported
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert report["cutoffs"] == [5, 10]
    assert report["settings"] == {**report["settings"], "starts": 0, "n_bootstrap": 40, "seed": 2}
    assert "verdict: " in out and "report written to" in out
    assert (out_dir / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert report["baseline"] == "nDCG@10"
    assert "asl" not in report["comparison"]["records"][0]


def test_report_baseline_and_full(capsys, files, tmp_path):
    q, runs = files
    out_dir = tmp_path / "rep"
    code, out, err = run(capsys, "report", q, runs, "--cutoffs", "5,10", "-o", out_dir,
                         "--starts", "0", "--bootstrap", "40", "--depth", "30",
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
    [("0,10", "--cutoff"), ("10,500", "cutoff")],
)
def test_report_bad_cutoffs_exit_1(capsys, files, tmp_path, cutoffs, needle):
    """Out-of-range cutoffs are the library's error (exit 1); a non-integer is click's
    usage error for an integer option (exit 2, see test_report_non_integer_cutoff)."""
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
                         "-o", tmp_path / "rep", "--starts", "0", "--bootstrap", "40",
                         "--depth", "20")
    assert code == 0, err
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert any("without a relevant document" in w for w in report["warnings"])
    assert "without a relevant document" in (tmp_path / "rep" / "report.md").read_text()


EVIL = "<img src=x onerror=alert(1)>"


def test_report_escapes_run_names_and_topics(capsys, tmp_path):
    # A run file named like an HTML payload (no tag column: the file name is the run's
    # name) and a qrels topic with Markdown/HTML syntax that no run retrieves (it is named
    # in a warning of the report): report.md must show both as text, never as markup.
    d = tmp_path / "sim"
    simulate_collection(n_systems=4, n_topics=6, depth=20, seed=4).write(d)
    first = sorted((d / "runs").iterdir())[0]
    lines = [" ".join(line.split()[:5]) for line in first.read_text().splitlines()]
    (d / "runs" / EVIL).write_text("\n".join(lines) + "\n")
    first.unlink()
    topic = "<b>t</b>_*x*"
    with (d / "qrels.txt").open("a") as fh:
        fh.write(f"{topic} 0 nowhere 2\n")
    code, out, err = run(capsys, "report", d / "qrels.txt", d / "runs", "--cutoffs", "10",
                         "-o", tmp_path / "rep", "--starts", "0", "--bootstrap", "40",
                         "--depth", "20")
    assert code == 0, err
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    assert EVIL not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "<b>t</b>" not in md and r"&lt;b&gt;t&lt;/b&gt;\_\*x\*" in md
    assert EVIL not in html and "<b>t</b>" not in html


def test_report_with_nothing_relevant_in_the_cutoff_is_a_clear_error(capsys, tmp_path):
    # the audit's UFuncOutputCastingError: every run ranks the one relevant document at 2
    # (3 runs and 3 topics: the least the verdict's jackknife takes)
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 2\n3 0 c 1\n")
    a = "".join(f"{t} Q0 x{t} 1 3 A\n{t} Q0 {d} 2 2 A\n" for t, d in ((1, "a"), (2, "b"), (3, "c")))
    runs = []
    for tag in "ABC":
        (tmp_path / tag).write_text(a.replace(" A\n", f" {tag}\n"))
        runs.append(tmp_path / tag)
    code, out, err = run(capsys, "report", tmp_path / "q", *runs,
                         "--cutoffs", "1,2", "-o", tmp_path / "rep")
    assert code == 1 and out == ""
    assert err == ("irstab: error: cutoff 1: no run ranks a relevant document in its top 1 on "
                   "any of the 3 topics, so every nDCG@1 is 0 and Phi is undefined; raise the "
                   "cutoff\n")
    assert not (tmp_path / "rep").exists()


def test_report_removes_a_killed_runs_temporary_files(capsys, files, reported, tmp_path):
    # A killed report leaves .<name>.<pid>.irstab-tmp* files; the next report into the
    # directory removes every one whose writer is gone, also of names it does not write
    # this time (the assessor figure), and keeps a live writer's and other hidden files.
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, timeout=60).stdout.strip()
    q, runs = files
    assert reported[0] == 0
    # the report the killed writer was replacing: a copy of the module's (its manifest names
    # its files by relative name, so the copy is an earlier report as much as the original)
    out_dir = shutil.copytree(reported[3], tmp_path / "rep")
    argv = ("report", q, runs, "--cutoffs", "5", "-o", out_dir, "--starts", "0", "--bootstrap",
            "40", "--depth", "30")
    stale = [out_dir / f".report.md.{dead}.irstab-tmpa1", out_dir / f".report.json.{dead}.irstab-tmpb2",
             out_dir / "figures" / f".assessors.png.{dead}.irstab-tmpc3"]
    kept = [out_dir / ".report.md.1.irstab-tmpd4",  # pid 1 runs as long as the machine
            out_dir / ".notes", out_dir / "figures" / ".assessors.png.1.irstab-tmpe5"]
    for p in stale + kept:
        p.write_text("half")
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    assert [p.name for p in stale if p.exists()] == []
    assert all(p.exists() for p in kept)
    assert (out_dir / "report.md").read_text().startswith("#")


def test_report_non_integer_cutoff(capsys, files, tmp_path):
    q, runs = files
    code, out, err = run(capsys, "report", q, runs, "-k", "10,x", "-o", tmp_path / "x")
    assert code == 2 and "'--cutoff'" in err and "integer" in err
    assert not (tmp_path / "x").exists()
