"""Issue 13, items 4 and 6: trec_eval and LaTeX layouts, compare --table, evaluate's csv read
back by --scores, and - (stdin) as a run.

Oracles: the same command's JSON (the layouts only re-print it), trec_eval's print format
(``%-22s\\t%s\\t%6.4f``, ``runid all <name>``; trec_eval 9 ``print_meas_*.c``), and the
stability/compare results computed from qrels + runs directly.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import irstab.cli
from irstab.errors import InputFormatError
from irstab.io.scorematrix import read_score_matrices, read_score_matrix


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def files(tmp_path):
    # two topics; run t: topic 1 a(rel) b, topic 2 missing; run u_1: topic 1 c(rel), topic 2 a(rel)
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "t").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    (runs / "u").write_text("1 Q0 c 1 2.0 u_1\n2 Q0 a 1 1.0 u_1\n")
    return q, runs


def test_trec_layout_is_trec_eval_q(files, capsys):
    q, runs = files
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", "AP,P@1,runid,num_q", "-q", "-f", "trec")
    assert code == 0
    lines = out.splitlines()
    line_re = re.compile(r"^(\S.{21})\t(\S+)\t(\S+)$")
    assert all(line_re.match(line) for line in lines)
    # per run: topic 1 (map, P_1), topic 2 (map, P_1), runid, num_q, all (map, P_1):
    # trec_eval -q order and names (runid and num_q as asked for, as trec_eval 10 prints them)
    assert [tuple(x.strip() for x in line.split("\t")[:2]) for line in lines[:8]] == [
        ("map", "1"), ("P_1", "1"), ("map", "2"), ("P_1", "2"), ("runid", "all"),
        ("num_q", "all"), ("map", "all"), ("P_1", "all")]
    assert lines[4].split("\t")[2] == "t"
    assert lines[5] == f"{'num_q':<22}\tall\t2"
    # AP of t: topic 1 (1/1)/2 = 0.5 (R = 2), topic 2 missing -> 0, mean 0.25
    assert lines[6] == f"{'map':<22}\tall\t0.2500"
    _, js, _ = cli(capsys, "evaluate", q, runs, "-m", "AP,P@1", "-q", "-f", "json")
    values = {(r["run"], r["measure"], r["topic"]): r["value"] for r in json.loads(js)}
    assert len(lines) == 2 * 8
    blocks = [lines[:8], lines[8:]]
    ours = {"map": "AP", "P_1": "P@1"}
    for block in blocks:  # each block's numbers are its run's JSON values at 4 decimals
        run = block[4].split("\t")[2]
        for line in block[:4] + block[6:]:
            m, t, v = (x.strip() for x in line.split("\t"))
            assert v == f"{values[(run, ours[m], t)]:.4f}"
    assert {b[4].split("\t")[2] for b in blocks} == {"t", "u_1"}


def test_latex_table(files, capsys):
    q, runs = files
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", "AP,P@1", "-f", "latex")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == r"\begin{tabular}{lrr}" and lines[-1] == r"\end{tabular}"
    assert lines[2] == r"Run & AP & P@1 \\"
    # means: t AP 0.25, P@1 0.5; u_1 AP (0.5 + 1)/2 = 0.75, P@1 1: u_1 best on both
    assert r"t & 0.2500 & 0.5000 \\" in lines
    assert r"u\_1 & \textbf{0.7500} & \textbf{1.0000} \\" in lines


def test_csv_of_evaluate_reads_back_as_scores(dl2019_dir, tmp_path, capsys):
    """Issue 13 item 4: evaluate -q -f csv -o s.csv; stability --scores s.csv (was: 'duplicate
    system'). The G-study from the file equals the one from qrels + runs."""
    s = tmp_path / "s.csv"
    base = [dl2019_dir / "qrels.txt", dl2019_dir / "runs"]
    code, _, err = cli(capsys, "evaluate", *base, "-m", "nDCG@10,map", "-q", "-f", "csv", "-o", s)
    assert code == 0, err
    code, from_file, err = cli(capsys, "stability", "--scores", s, "-f", "json")
    assert code == 0, err
    code, direct, _ = cli(capsys, "stability", *base, "-m", "nDCG@10,map", "-f", "json")
    a = {r["measure"]: r for r in json.loads(from_file)}
    b = {r["measure"]: r for r in json.loads(direct)}
    assert set(a) == set(b) == {"nDCG@10", "AP"}
    for m in a:
        assert (a[m]["n_systems"], a[m]["n_topics"]) == (37, 43)
        assert a[m]["phi"] == pytest.approx(b[m]["phi"], abs=1e-12)
        assert a[m]["var_system"] == pytest.approx(b[m]["var_system"], abs=1e-12)


def test_read_score_matrices_layouts(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("run,measure,topic,value\nA,AP,1,0.5\nA,AP,2,0.25\nA,AP,all,0.375\n"
                 "B,AP,1,0.1\nB,AP,2,0.2\nB,AP,all,0.15\nA,RR,1,1\nA,RR,2,0.5\nA,RR,all,0.75\n"
                 "B,RR,1,1\nB,RR,2,1\nB,RR,all,1\n")
    got = read_score_matrices(p)
    assert list(got) == ["AP", "RR"]
    assert got["AP"].loc["A"].tolist() == [0.5, 0.25] and list(got["AP"].columns) == ["1", "2"]
    with pytest.raises(InputFormatError, match="2 measures"):
        read_score_matrix(p)
    # any order and case of the long columns, run/value as synonyms, no measure column
    p2 = tmp_path / "t.tsv"
    p2.write_text("Topic\tValue\tRun\n1\t0.5\tA\n2\t0.25\tA\n1\t0.1\tB\n2\t0.2\tB\n")
    assert read_score_matrix(p2).loc["B"].tolist() == [0.1, 0.2]
    for short in ("A,AP,2", "A,AP"):  # a short line is an error, never skipped
        p.write_text(f"run,measure,topic,value\nA,AP,1,0.5\n{short}\n")
        with pytest.raises(InputFormatError, match=r"s.csv:3: expected 4 fields"):
            read_score_matrices(p)


def test_compare_pair_table(dl2019_dir, capsys):
    base = [dl2019_dir / "qrels.txt", dl2019_dir / "runs", "-m", "nDCG@10,AP", "-B", "200",
            "--swap-trials", "20", "--top", "6", "--ttest", "holm"]
    code, out, err = cli(capsys, "compare", *base, "--table", "-f", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 2 * 15  # two measures x C(6, 2) pairs
    for r in rows:
        assert r["significant"] == (r["asl"] < 0.05)
        assert r["ttest_significant"] == (r["ttest_p"] < 0.05)
    code, js, _ = cli(capsys, "compare", *base, "-f", "json")
    rec = {r["measure"]: r for r in json.loads(js)}
    for r in rows:  # the same ASLs and corrected p-values as the full JSON, pair by pair
        k = rec[r["measure"]]["pairs"].index([r["system_a"], r["system_b"]])
        assert r["asl"] == rec[r["measure"]]["asl"][k]
        assert r["ttest_p"] == rec[r["measure"]]["ttest"]["p_values"][k]
    code, table, _ = cli(capsys, "compare", *base, "--table")
    assert "holm correction" in table.splitlines()[0]


def test_stdin_run(files, tmp_path):
    q, runs = files
    env = dict(os.environ, PYTHONPATH=str(Path(irstab.cli.__file__).parents[2]))
    cmd = [sys.executable, "-c", "import sys, irstab.cli; sys.exit(irstab.cli.main())",
           "evaluate", str(q), str(runs / "t"), "-", "-m", "AP", "-f", "json"]
    done = subprocess.run(cmd, input=(runs / "u").read_bytes(), capture_output=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    got = {r["run"]: r["value"] for r in json.loads(done.stdout)}
    assert got == {"t": 0.25, "u_1": 0.75}  # as from the files (test_latex_table)
    done = subprocess.run(cmd, input=b"", capture_output=True, env=env, timeout=120)
    assert done.returncode == 1 and b"standard input is empty" in done.stderr


@pytest.mark.parametrize("command", [["stability", "-f", "json"], ["crp", "--topic", "1"]])
def test_stdin_run_on_other_commands(files, tmp_path, command):
    # - is a run wherever runs are read; its temporary copy is gone when the command ends
    q, runs = files
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, PYTHONPATH=str(Path(irstab.cli.__file__).parents[2]), TMPDIR=str(tmp))
    run = [sys.executable, "-c", "import sys, irstab.cli; sys.exit(irstab.cli.main())"]
    name, *opts = command
    with_files = [name, str(q), *([str(runs / "t")] if name != "crp" else []), str(runs / "u"),
                  *opts]
    with_stdin = [name, str(q), *([str(runs / "t")] if name != "crp" else []), "-", *opts]
    want = subprocess.run(run + with_files, capture_output=True, env=env, timeout=120)
    got = subprocess.run(run + with_stdin, input=(runs / "u").read_bytes(), capture_output=True,
                         env=env, timeout=120)
    assert want.returncode == 0, want.stderr
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout  # the same numbers as from the file
    assert list(tmp.iterdir()) == []
    if name == "crp":  # one run only: a second - is a usage error before anything is read
        return
    twice = subprocess.run(run + [name, str(q), "-", "-", *opts], input=b"x", capture_output=True,
                           env=env, timeout=120)
    assert twice.returncode == 1 and b"one run only" in twice.stderr
    assert b"Traceback" not in twice.stderr and list(tmp.iterdir()) == []


@pytest.mark.parametrize("fmt, words", [("json", "looks like JSON"), ("trec", "not a header")])
def test_other_layouts_as_scores_say_what_to_write(files, tmp_path, capsys, fmt, words):
    # --scores reads CSV/TSV; evaluate's json and trec outputs get an error that names the
    # file and says which output reads back (was "header has no topic columns" for json)
    q, runs = files
    s = tmp_path / f"s.{fmt}"
    code, _, err = cli(capsys, "evaluate", q, runs, "-m", "AP", "-q", "-f", fmt, "-o", s)
    assert code == 0, err
    code, out, err = cli(capsys, "stability", "--scores", s)
    assert code == 1 and out == ""
    assert str(s) in err and words in err
    if fmt == "json":
        assert "-f csv" in err
