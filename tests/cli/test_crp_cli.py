"""`irstab crp` and the graded measures through the CLI (``irstab.cli.main``).

Expected numbers are seed 001's worked example (runs A and B on a pool of 20, N = 20);
the indicators are derived by hand in tests/metrics/test_crp.py.
"""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

import irstab.cli
import irstab.cli.crp  # noqa: F401 - registers the command until cli/__init__ imports it

HR, FR, PR = ["h1", "h2", "h3"], ["f1", "f2", "f3"], ["p1", "p2", "p3", "p4"]
NR = [f"n{i}" for i in range(1, 11)]
RUN_A = ["h1", "h2", "f1", "n1", "p1", "f2", "n2", "n3", "n4", "p2", "h3", *NR[4:], "x1", "x2", "x3"]
RUN_B = ["h1", "h2", "p1", "n1", "f1", "p2", "n2", "n3", "f2", "p3", "f3", "n4", "h3", "p4", *NR[4:]]


@pytest.fixture
def files(tmp_path):
    grades = [3] * 3 + [2] * 3 + [1] * 4 + [0] * 10
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"1 0 {d} {g}\n" for d, g in zip(HR + FR + PR + NR, grades)) + "2 0 h1 1\n")
    paths = {}
    for name, docs in (("A", RUN_A), ("B", RUN_B)):
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"1 Q0 {d} {i} {21 - i} {name}\n" for i, d in enumerate(docs, 1)))
        paths[name] = p
    return q, paths


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_json_reproduces_the_seed(capsys, files):
    q, runs = files
    code, out, _ = cli(capsys, "crp", q, runs["A"], "--topic", "1", "-M", "20", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["run"] == "A" and doc["N"] == 20 and doc["R"] == 10
    assert [row["rp"] for row in doc["curve"]] == [0, 0, -1, -7, -2, 0, -4, -3, -2, 0, 8] + [0] * 9
    assert doc["curve"][-1]["crp"] == -11 and doc["curve"][-1]["worst_crp"] == 33
    ind = doc["indicators"]
    assert ind["balance_point"] is None  # never balanced: inf, written as null
    assert ind["rho"] == 0.0 and ind["min_rank"] == 10
    assert ind["min_ratio"] == pytest.approx(36 / 55) and ind["N_ratio"] == pytest.approx(2 / 3)
    # rho_avg over the run's topics: topic 1 rho = 0; topic 2 (R = 1, run lacks it) never balances: 0
    assert ind["rho_avg"] == 0.0


def test_table_and_csv(capsys, files):
    q, runs = files
    code, out, _ = cli(capsys, "crp", q, runs["B"], "-t", "1", "-M", "20")
    assert code == 0
    assert "run B, topic 1: N = 20, R = 10" in out and "recovery value rho" in out
    assert "0.714286" in out  # rho = 10/14
    code, out, _ = cli(capsys, "crp", q, runs["B"], "-t", "1", "-M", "20", "-f", "csv", "--show", "curve")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 20 and rows[13]["crp"] == "3" and rows[12]["crp"] == "-1"
    code, out, _ = cli(capsys, "crp", q, runs["B"], "-t", "1", "-M", "20", "-f", "tsv", "--show", "indicators")
    values = {r["indicator"]: float(r["value"]) for r in csv.DictReader(io.StringIO(out), delimiter="\t")}
    assert values["balance_point"] == 14 and math.isclose(values["balance_ratio"], 2 / 9)


def test_figures_are_written(capsys, files, tmp_path):
    q, runs = files
    curve, para = tmp_path / "out" / "curve.png", tmp_path / "para.svg"
    code, _, err = cli(capsys, "crp", q, runs["B"], "-t", "1", "-M", "20", "--show", "indicators",
                       "--plot-curve", curve, "--plot-indicators", para, "--plot-ranks", "15")
    assert code == 0 and f"wrote {curve}" in err
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in para.read_bytes()[:500]
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_errors_exit_1(capsys, files, tmp_path):
    q, runs = files
    code, _, err = cli(capsys, "crp", q, runs["A"], "--topic", "99")
    assert code == 1 and "topic '99' is not in the collection" in err
    code, _, err = cli(capsys, "crp", q, runs["A"], "-t", "1", "--plot-curve", tmp_path / "x.nope")
    assert code == 1 and "unsupported figure format 'nope'" in err and not (tmp_path / "x.nope").exists()


@pytest.mark.parametrize("k", ["-1", "0"])
def test_plot_ranks_below_one_is_refused_by_name(capsys, files, tmp_path, k):
    # before: "max_rank must be a positive integer", the library's name, not the option's
    q, runs = files
    fig = tmp_path / "curve.png"
    code, out, err = cli(capsys, "crp", q, runs["A"], "-t", "1", "--plot-curve", fig,
                         "--plot-ranks", k)
    assert code == 1 and out == ""
    assert err == f"irstab: error: --plot-ranks: must be a positive integer, got {k}\n"
    assert not fig.exists()


NEW = ["GAP", "xGAP", "eGAP", "CRP", "CRP.rho", "CRP.balance_ratio", "CRP.min_ratio", "CRP.N_ratio",
       "DCG_UL", "SP_UL"]


def test_measures_lists_the_new_measures(capsys):
    code, out, _ = cli(capsys, "measures", "--format", "json")
    names = {row["measure"]: row for row in json.loads(out)}
    assert code == 0 and set(NEW) <= set(names)
    assert "candidates=judged" in names["DCG_UL"]["parameters"]
    assert names["SP_UL"]["cutoff"] == "required"


def test_evaluate_accepts_the_new_measures(capsys, files):
    q, runs = files
    measures = ["GAP", "xGAP(g=(0.2,0.3,0.5))", "eGAP@10", "CRP@20", "CRP.rho@20", "CRP.N_ratio@20",
                "DCG_UL(version=2)@10", "SP_UL(iub=k)@5"]
    args = ["evaluate", q, runs["A"], runs["B"], "-f", "json", "-q"]
    for m in measures:
        args += ["-m", m]
    code, out, _ = cli(capsys, *args)
    assert code == 0
    rows = json.loads(out)
    got = {(r["run"], r["measure"], r["topic"]): r["value"] for r in rows}
    assert {r["measure"] for r in rows} == set(measures)
    assert got[("A", "CRP@20", "1")] == -11 and got[("B", "CRP@20", "1")] == 3  # seed 001
    assert got[("B", "CRP.rho@20", "1")] == pytest.approx(10 / 14)
