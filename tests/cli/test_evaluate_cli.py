"""`irstab evaluate`, `irstab measures` and `irstab --help` through ``irstab.cli.main``.

Expected numbers come from the tiny collection below, computed by hand in the comments;
the long-form contract (columns run, measure, topic, value; topic "all" = mean) is issue 2,
items 6 and 7.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
import warnings

import pytest

import irstab.cli
from irstab.metrics import REGISTRY

# Topic 1: a=1, b=0, c=2 judged; topic 2: a=1.
# run "t" ranks a, b for topic 1 and lacks topic 2; run "u" ranks c for topic 1, a for topic 2.
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n"
RUN_T = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n"
RUN_U = "1 Q0 c 1 2.0 u\n2 Q0 a 1 1.0 u\n"

# P@1: t -> topic 1: a relevant -> 1; topic 2 missing -> 0; mean 1/2
#      u -> topic 1: c relevant -> 1; topic 2: a relevant -> 1; mean 1
# AP:  t -> topic 1: (1/1)/2 = 1/2 (R = 2: a, c); topic 2: 0; mean 1/4
#      u -> topic 1: (1/1)/2 = 1/2; topic 2: 1; mean 3/4
EXPECTED = {
    ("t", "P@1", "1"): 1.0, ("t", "P@1", "2"): 0.0, ("t", "P@1", "all"): 0.5,
    ("t", "AP", "1"): 0.5, ("t", "AP", "2"): 0.0, ("t", "AP", "all"): 0.25,
    ("u", "P@1", "1"): 1.0, ("u", "P@1", "2"): 1.0, ("u", "P@1", "all"): 1.0,
    ("u", "AP", "1"): 0.5, ("u", "AP", "2"): 1.0, ("u", "AP", "all"): 0.75,
}


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "t.run").write_text(RUN_T)
    (runs / "u.run").write_text(RUN_U)
    return q, runs


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def evaluate_args(files, *extra):
    q, runs = files
    return ("evaluate", q, runs, "-m", "P@1", "-m", "AP", *extra)


# ------------------------------------------------------------------ formats


def test_tsv_header_and_one_row_per_value(files, capsys):
    code, out, err = cli(capsys, *evaluate_args(files, "--format", "tsv"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "run\tmeasure\ttopic\tvalue"
    rows = [line.split("\t") for line in lines[1:]]
    assert all(len(r) == 4 for r in rows)
    # without --per-topic: one row per run and measure, topic "all"
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("t", "P@1", "all"), ("t", "AP", "all"), ("u", "P@1", "all"), ("u", "AP", "all")]
    for r in rows:
        assert float(r[3]) == pytest.approx(EXPECTED[(r[0], r[1], r[2])], abs=1e-12)


def test_tsv_per_topic(files, capsys):
    code, out, _ = cli(capsys, *evaluate_args(files, "-f", "tsv", "--per-topic"))
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert len(rows) == len(EXPECTED) == 2 * 2 * 3  # runs x measures x (2 topics + all)
    got = {(r[0], r[1], r[2]): float(r[3]) for r in rows}
    assert got.keys() == EXPECTED.keys()
    for key, value in EXPECTED.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    # order: run, measure, then topic with "all" last
    assert [r[2] for r in rows[:3]] == ["1", "2", "all"]


def test_per_topic_short_flag(files, capsys):
    a = cli(capsys, *evaluate_args(files, "-f", "tsv", "-q"))
    b = cli(capsys, *evaluate_args(files, "-f", "tsv", "--per-topic"))
    assert a == b


def test_csv(files, capsys):
    code, out, _ = cli(capsys, *evaluate_args(files, "-f", "csv", "--per-topic"))
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["run", "measure", "topic", "value"]
    assert {(r["run"], r["measure"], r["topic"]): float(r["value"]) for r in rows} == pytest.approx(
        EXPECTED)


def test_csv_quotes_measure_names_with_commas(files, capsys):
    q, runs = files
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", "nDCG(gain=exp,discount=zipf)@2",
                       "-f", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["measure"] for r in rows} == {"nDCG(gain=exp,discount=zipf)@2"}


def test_json_records(files, capsys):
    code, out, _ = cli(capsys, *evaluate_args(files, "-f", "json", "--per-topic"))
    assert code == 0
    records = json.loads(out)
    assert isinstance(records, list) and len(records) == len(EXPECTED)
    for rec in records:
        # definition: the full measure string (differs from measure only for a named one)
        assert list(rec) == ["run", "measure", "topic", "value", "definition"]
        assert rec["definition"] == rec["measure"]
        assert isinstance(rec["topic"], str) and isinstance(rec["value"], float)
        assert rec["value"] == pytest.approx(EXPECTED[(rec["run"], rec["measure"], rec["topic"])])


def test_json_keeps_names_that_contain_nan(tmp_path, capsys):
    """NaN -> null must touch values only, not a run named e.g. 'NaNet' or 'BaNaNa'."""
    q = tmp_path / "q"
    q.write_text(QRELS)
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2.0 NaNet\n")
    code, out, _ = cli(capsys, "evaluate", q, run, "-m", "AP", "-f", "json")
    assert code == 0
    assert [r["run"] for r in json.loads(out)] == ["NaNet"]


def test_table(files, capsys):
    code, out, _ = cli(capsys, *evaluate_args(files, "--per-topic"))  # table is the default
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["run", "topic", "P@1", "AP"]
    body = [line.split() for line in lines[1:]]
    assert len(body) == 6  # 2 runs x (2 topics + all)
    got = {(r[0], r[1]): (float(r[2]), float(r[3])) for r in body}
    assert got[("t", "all")] == (0.5, 0.25)
    assert got[("u", "all")] == (1.0, 0.75)
    assert got[("t", "2")] == (0.0, 0.0)


def test_tsv_values_round_trip_to_1e_9(files, capsys):
    """Printed values must carry the 1e-9 agreement with trec_eval; DCG is not bounded by 1."""
    q, runs = files
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", "DCG(gain=(0,1000.123456789,3e5))@2",
                       "-f", "tsv", "--per-topic")
    assert code == 0
    rows = {tuple(line.split("\t")[:3]): float(line.split("\t")[3])
            for line in out.splitlines()[1:]}
    # u, topic 1: c (grade 2) at rank 1: 3e5 / log2(2) = 300000 exactly
    # t, topic 1: a (grade 1) at rank 1, b (grade 0): 1000.123456789
    assert rows[("t", "DCG(gain=(0,1000.123456789,300000))@2", "1")] == pytest.approx(
        1000.123456789, abs=1e-9)
    assert math.isclose(rows[("u", "DCG(gain=(0,1000.123456789,300000))@2", "1")], 3e5)


def test_measure_given_twice_is_reported_once(files, capsys):
    q, runs = files
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", "AP", "-m", "AP(rel=1)", "-f", "tsv")
    assert code == 0
    assert [line.split("\t")[1] for line in out.splitlines()[1:]] == ["AP", "AP"]  # 2 runs


def test_depth_option(files, capsys):
    q, runs = files
    # depth 1: run t keeps only a -> AP topic 1 unchanged (1/2); P@1 unchanged
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", "AP", "--depth", "1", "-f", "tsv")
    assert code == 0
    code, out, err = cli(capsys, "evaluate", q, runs, "-m", "P@5", "--depth", "2", "-f", "tsv")
    assert code == 1 and "depth" in err


def test_run_files_and_directory_together(files, tmp_path, capsys):
    q, runs = files
    extra = tmp_path / "v.run"
    extra.write_text("1 Q0 b 1 2.0 v\n")
    code, out, _ = cli(capsys, "evaluate", q, runs, extra, "-m", "P@1", "-f", "tsv")
    assert code == 0
    assert [line.split("\t")[0] for line in out.splitlines()[1:]] == ["t", "u", "v"]


# ------------------------------------------------------------------ -o FILE


def test_output_file_is_written_atomically(files, tmp_path, capsys):
    target = tmp_path / "out" / "result.tsv"
    code, out, err = cli(capsys, *evaluate_args(files, "-f", "tsv", "-o", target))
    assert code == 0
    assert out == ""  # nothing on stdout
    assert str(target) in err
    assert target.read_text().splitlines()[0] == "run\tmeasure\ttopic\tvalue"
    assert os.listdir(target.parent) == ["result.tsv"]  # no temporary file left


def test_output_file_matches_stdout(files, tmp_path, capsys):
    target = tmp_path / "r.json"
    _, printed, _ = cli(capsys, *evaluate_args(files, "-f", "json"))
    code, _, _ = cli(capsys, *evaluate_args(files, "-f", "json", "--output", target))
    assert code == 0
    assert target.read_text() == printed


def test_output_file_replaces_existing(files, tmp_path, capsys):
    target = tmp_path / "r.csv"
    target.write_text("old contents\n")
    code, _, _ = cli(capsys, *evaluate_args(files, "-f", "csv", "-o", target))
    assert code == 0
    assert target.read_text().startswith("run,measure,topic,value\n")
    assert sorted(os.listdir(tmp_path)) == ["qrels.txt", "r.csv", "runs"]


def test_output_file_has_normal_permissions(files, tmp_path, capsys):
    """The temporary file of an atomic write is created 0600 by mkstemp; the result should get
    the mode an ordinary open() would give (0666 & ~umask), not stay private."""
    target = tmp_path / "r.tsv"
    code, _, _ = cli(capsys, *evaluate_args(files, "-f", "tsv", "-o", target))
    assert code == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize(
    "measure, words",
    [("Judged", ("Judged@10",)), ("nope", ("unknown measure",)), ("nDCG@2000", ("depth",)),
     ("nDCG(gain=(0,1))", ("gain",))],
)
def test_bad_measure_exit_1_and_writes_nothing(files, tmp_path, capsys, measure, words):
    q, runs = files
    outdir = tmp_path / "out"
    code, out, err = cli(capsys, "evaluate", q, runs, "-m", measure, "-o", outdir / "x.tsv")
    assert code == 1
    assert err.startswith("irstab: error:")
    for w in words:
        assert w in err
    assert not outdir.exists() or list(outdir.iterdir()) == []


def test_unwritable_output_exit_1_without_traceback_or_leftovers(files, tmp_path, capsys):
    """-o naming a directory: a clear one-line error and exit code 1, and the temporary file
    of the atomic write is removed."""
    target = tmp_path / "a-directory"
    target.mkdir()
    q, runs = files
    code = irstab.cli.main(["evaluate", str(q), str(runs), "-m", "AP", "-o", str(target)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in out + err
    assert str(target) in err
    assert sorted(os.listdir(tmp_path)) == ["a-directory", "qrels.txt", "runs"]


def test_usage_errors_exit_2(files, capsys):
    q, runs = files
    code, _, err = cli(capsys, "evaluate", q, runs, "-m", "AP", "-f", "xml")
    assert code == 2 and "xml" in err
    code, _, err = cli(capsys, "evaluate", q)
    assert code == 2


def test_main_leaves_warning_display_alone(files, capsys):
    """main() may print library warnings on stderr, but must not replace
    warnings.showwarning for the rest of the process (in-process callers, notebooks)."""
    before = warnings.showwarning
    cli(capsys, *evaluate_args(files, "-f", "tsv"))
    assert warnings.showwarning is before


# ------------------------------------------------------------------ measures, --help


def test_measures_lists_every_registered_measure(capsys):
    code, out, _ = cli(capsys, "measures")
    assert code == 0
    for name, cls in REGISTRY.items():
        assert any(line.startswith(name) for line in out.splitlines()), name
        assert cls.formula in out


@pytest.mark.parametrize("fmt", ["tsv", "csv", "json"])
def test_measures_machine_formats(capsys, fmt):
    code, out, _ = cli(capsys, "measures", "-f", fmt)
    assert code == 0
    if fmt == "json":
        names = [r["measure"] for r in json.loads(out)]
    else:
        reader = csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ",")
        names = [r["measure"] for r in reader]
    assert names == list(REGISTRY)


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--help"], ["measures", "--help"]])
def test_help(capsys, argv):
    code, out, err = cli(capsys, *argv)
    assert code == 0
    assert "Usage" in out
    if argv == ["--help"]:
        for command in ("evaluate", "measures", "demo"):
            assert command in out


def test_no_arguments_shows_help(capsys):
    code, out, err = cli(capsys)
    assert "Usage" in out + err
    assert code in (0, 2)
