"""The second audit's cases from the command line (issue 26), one test per class.

Every case asserts the exit code, the message on stderr (the parameter, file or line
named; never a traceback) and the files left behind. Expected numbers: the example
collection's nDCG@10 of sim01, 0.4707, is what ``irstab evaluate`` gives on the
unmodified file (and trec_eval: tests/test_trec_eval_oracle.py).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab.cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"
QRELS = EXAMPLE / "qrels.txt"
RUNS = EXAMPLE / "runs"
SIM01 = RUNS / "sim01"


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---------------------------------------------------------------- item 2: magnitudes


@pytest.mark.parametrize("command", ["stability", "compare", "topics"])
def test_scores_whose_squares_overflow_are_refused(capsys, tmp_path, command):
    p = tmp_path / "sc.csv"
    p.write_text("system,t1,t2,t3\na,1e200,2e200,0.3\nb,0.2,0.3,0.5\nc,0.4,0.1,0.2\n")
    code, out, err = cli(capsys, command, "--scores", p)
    assert code == 1 and out == ""
    assert "2e+200 (system 'a', topic 't2')" in err and "overflows" in err
    assert "same score" not in err  # never "all systems have the same score"


# ---------------------------------------------------------------- item 6: resamples


def test_one_bootstrap_resample_is_refused_with_the_minimum(capsys):
    code, out, err = cli(capsys, "stability", QRELS, RUNS, "-m", "nDCG@10",
                         "--interval", "bootstrap", "--resamples", "1")
    assert code == 1 and out == ""
    assert "use at least 40" in err  # closed form: 2 / (1 - 0.95)
    code, out, err = cli(capsys, "stability", QRELS, RUNS, "-m", "nDCG@10",
                         "--interval", "bootstrap", "--resamples", "40")
    assert code == 0, err


# ---------------------------------------------------------------- item 3: integers


def _integer_options():
    """(command path, option) of every integer option of every command (but seeds)."""
    import typing

    from irstab.cli.program import app, command

    list(command().commands.values())  # builds every command: each is built when asked for
    out = []

    def walk(typer_app, prefix):
        for info in typer_app.registered_commands:
            name = info.name or info.callback.__name__.replace("_", "-")
            hints = typing.get_type_hints(info.callback)
            for pname, hint in hints.items():
                leaves = (hint, *typing.get_args(hint),
                          *[a for arg in typing.get_args(hint) for a in typing.get_args(arg)])
                if int in leaves and bool not in leaves and pname != "seed":
                    out.append((prefix + [name], pname))
        for group in typer_app.registered_groups:
            walk(group.typer_instance, prefix + [group.name])

    walk(app, [])
    return out


def test_every_integer_option_is_parsed_by_the_bounded_parser():
    # the class: each integer option of every command gets the range check (not Typer's int)
    import inspect

    from irstab.cli.program import INT_LIMIT, app
    from typer.models import ParameterInfo

    options = _integer_options()
    assert len(options) >= 10
    seen = 0

    names = {o for _, o in options}

    def walk(typer_app):
        nonlocal seen
        for info in typer_app.registered_commands:
            for pname, param in inspect.signature(info.callback).parameters.items():
                if pname in names and isinstance(param.default, ParameterInfo):
                    parser = param.default.parser
                    assert parser is not None and parser.__qualname__.startswith("_int_parser"), pname
                    assert parser(str(INT_LIMIT)) == INT_LIMIT
                    seen += 1
        for group in typer_app.registered_groups:
            walk(group.typer_instance)

    walk(app)
    assert seen >= len(options)


@pytest.mark.parametrize("value", [str(10**30), str(-(10**30)), str(2**63), str(2**53 + 1)])
def test_integers_past_the_limit_are_refused(capsys, value):
    code, out, err = cli(capsys, "topics", QRELS, RUNS, "-m", "nDCG@10", "-n", value)
    assert code == 1 and out == ""
    assert err.startswith("irstab: error: --topics/-n:") and "out of range" in err
    code, out, err = cli(capsys, "evaluate", QRELS, RUNS, "-m", "nDCG@10", "--depth", value)
    assert code == 1 and "--depth" in err and "out of range" in err


def test_a_seed_may_be_any_integer(capsys):
    # numpy's default_rng takes any integer >= 0
    code, out, err = cli(capsys, "compare", QRELS, RUNS, "-m", "nDCG@10", "-B", "100",
                         "--swap-trials", "20", "--seed", str(10**30))
    assert code == 0, err


# ---------------------------------------------------------------- items 11, 12: memory


def test_a_deep_cutoff_reads_only_the_ranks_present(monkeypatch):
    # nDCG@10^7 at depth 10^7 on runs of 100 documents allocated S x T x 10^7 (26.8 GiB on
    # DL-2019); the arrays are now sized by the deepest ranking present. Closed forms: past
    # every run and every ideal list nothing is added, so each @10^7 value equals the
    # value without cutoff; P@k = |relevant retrieved| / k; Judged@k divides by min(k, n),
    # ir_measures' convention, so Judged@10^7 = Judged@100 on runs of 100 documents.
    import numpy as np

    import irstab
    from irstab.collection import Collection

    coll = irstab.Collection.from_files(QRELS, RUNS, depth=10**7)
    real = Collection.grades_to

    def no_padding(self, k):
        assert k <= self.grades.shape[2], f"padded to {k} ranks"
        return real(self, k)

    monkeypatch.setattr(Collection, "grades_to", no_padding)
    deep = irstab.score_matrices(coll, ["nDCG@10000000", "RBP(p=0.8)@10000000",
                                        "ERR@10000000", "AP@10000000", "P@10000000",
                                        "RBP.residual(p=0.8)@10000000", "Judged@10000000"])
    plain = irstab.score_matrices(coll, ["nDCG", "RBP(p=0.8)", "ERR", "AP", "P@100",
                                         "RBP.residual(p=0.8)", "Judged@100"])
    for (a, x), (b, y) in zip(deep.items(), plain.items()):
        scale = 100 / 10**7 if a.startswith("P@") else 1.0
        np.testing.assert_allclose(x.to_numpy(), y.to_numpy() * scale, rtol=1e-12, atol=1e-15,
                                   err_msg=a)


def test_a_list_length_that_cannot_fit_is_refused(capsys):
    # CRP reads N ranks per run (the ranks past a run count: Angelini et al. 2012);
    # N = 10^9 for 12 runs x 30 topics would need 3.2 TB; the batch plan scores them in
    # jobs (two of 6 runs on a 2-core machine), and the first job's need is named
    code, out, err = cli(capsys, "evaluate", QRELS, RUNS, "-m", "CRP@1000000000",
                         "--depth", "1000000000")
    assert code == 1
    assert re.search(r"1000000000 ranks for (\d+) runs x 30 topics need", err), err
    assert 1 <= int(re.search(r"for (\d+) runs", err).group(1)) <= 12
    assert "of memory" in err


@pytest.mark.parametrize("args, expected", [
    (["compare", "-m", "nDCG@10", "-B", "1000000000"],
     "n_bootstrap: 1000000000 bootstrap samples of 30 topics need 480 GB"),  # 16 B x T
    (["optimize", "discount", "-k", "10", "--starts", "1000000000"],
     "starts: 1000000000 random starts of 14 variables need 448 GB"),  # 32 B x (G + k)
    (["stability", "-m", "nDCG@10", "--interval", "bootstrap", "--resamples", "10000000000"],
     "n_resamples: 10000000000 resamples of 12 systems x 30 topics need"),
    (["compare", "-m", "nDCG@10", "--swap-trials", "1000000000"],
     "n_trials: 1000000000 random splits of 30 topics need"),
])
def test_counts_that_cannot_fit_are_refused_with_the_figure(capsys, args, expected):
    code, out, err = cli(capsys, args[0], *([args[1]] if args[0] == "optimize" else []),
                         QRELS, RUNS, *(args[2:] if args[0] == "optimize" else args[1:]))
    assert code == 1 and out == ""
    assert expected in err and "more than half of this machine's" in err


def test_an_optimizer_cutoff_past_every_ranking_is_refused(capsys):
    # the example runs hold 100 documents; the deepest ideal list is the largest number of
    # relevant documents of a topic, counted here from the qrels
    from collections import Counter

    rows = [line.split() for line in QRELS.read_text().splitlines()]
    J = max(Counter(t for t, _, _, g in rows if int(g) > 0).values())
    deepest = max(100, J)
    code, out, err = cli(capsys, "optimize", "discount", QRELS, RUNS, "-k", "100000",
                         "--depth", "100000")
    assert code == 1
    assert f"no rank past {deepest} holds a document" in err and f"at most {deepest}" in err


# ---------------------------------------------------------------- items 7, 9, 22: outputs


@pytest.mark.parametrize("args", [
    ["evaluate", QRELS, SIM01, "-m", "nDCG@10", "-o"],
    ["stability", QRELS, SIM01, RUNS / "sim02", "-m", "nDCG@10", "-o"],
    ["topics", QRELS, SIM01, RUNS / "sim02", "-m", "nDCG@10", "--figure"],
])
def test_an_output_path_ending_in_a_slash_is_no_file(capsys, tmp_path, args):
    target = tmp_path / "newdir_x"
    code, out, err = cli(capsys, *args, f"{target}/")
    assert code == 1 and "names a directory (it ends with '/')" in err
    assert not target.exists()


def test_a_report_directory_may_end_in_a_slash(capsys, tmp_path):
    code, _, err = cli(capsys, "report", QRELS, RUNS, "-k", "5", "--starts", "0", "-B", "40",
                       "--depth", "30", "-o", f"{tmp_path / 'rep'}/")
    assert code == 0, err
    assert (tmp_path / "rep" / "report.json").is_file()


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "qrels"])
def test_an_output_naming_an_input_is_refused(capsys, tmp_path, how):
    run = tmp_path / "in1"
    run.write_bytes(SIM01.read_bytes())
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS.read_bytes())
    out = {"same": run, "qrels": qrels, "symlink": tmp_path / "link",
           "hardlink": tmp_path / "hard"}[how]
    if how == "symlink":
        out.symlink_to(run)
    elif how == "hardlink":
        os.link(run, out)
    before = (run.read_bytes(), qrels.read_bytes())
    code, _, err = cli(capsys, "evaluate", qrels, run, "-m", "nDCG@10", "-o", out)
    assert code == 1 and "is an input of this command" in err and str(out) in err
    assert (run.read_bytes(), qrels.read_bytes()) == before


def test_an_output_naming_a_file_of_an_input_directory_is_refused(capsys, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("sim01", "sim02"):
        (runs / name).write_bytes((RUNS / name).read_bytes())
    code, _, err = cli(capsys, "evaluate", QRELS, runs, "-m", "nDCG@10", "-o", runs / "sim02")
    assert code == 1 and "is an input of this command" in err
    assert (runs / "sim02").read_bytes() == (RUNS / "sim02").read_bytes()
    # after the command, the same file is an ordinary output again (nothing lingers)
    code, _, err = cli(capsys, "evaluate", QRELS, runs / "sim01", "-m", "nDCG@10", "-o",
                       runs / "sim02")
    assert code == 0, err


def test_a_full_device_names_the_file(capsys, tmp_path):
    # a character device like /dev/full (1, 7), made here: every write fails with ENOSPC;
    # irstab writes devices in place, and the error names the output the user gave
    full = tmp_path / "full.png"
    try:
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("mknod needs root")
    code, _, err = cli(capsys, "topics", QRELS, SIM01, RUNS / "sim02", "-m", "nDCG@10",
                       "--figure", full)
    assert code == 1 and f"{full}" in err and "No space left on device" in err


def test_a_disk_that_fills_while_a_figure_is_written_names_the_file(capsys, tmp_path,
                                                                      monkeypatch):
    # fault injection: the temporary file's writes fail with ENOSPC after 1 kB
    import errno
    import io

    from irstab.io import atomicfile

    real_fdopen = os.fdopen

    class Filling(io.BufferedWriter):
        written = 0

        def write(self, b):
            Filling.written += len(b)
            if Filling.written > 1000:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return super().write(b)

    def fdopen(fd, mode="r", *a, **k):
        if "b" in mode and "w" in mode:
            return Filling(io.FileIO(fd, "w"))
        return real_fdopen(fd, mode, *a, **k)

    monkeypatch.setattr(atomicfile.os, "fdopen", fdopen)
    fig = tmp_path / "curve.png"
    code, _, err = cli(capsys, "topics", QRELS, SIM01, RUNS / "sim02", "-m", "nDCG@10",
                       "--figure", fig)
    assert code == 1 and str(fig) in err and "No space left on device" in err
    assert list(tmp_path.iterdir()) == []  # no half figure, no temporary file


# ---------------------------------------------------------------- item 8: run directories


def test_a_subdirectory_of_runs_is_named(capsys, tmp_path):
    nest = tmp_path / "nest"
    (nest / "sub").mkdir(parents=True)
    (nest / "sim02").write_bytes((RUNS / "sim02").read_bytes())
    (nest / "sub" / "sim01").write_bytes(SIM01.read_bytes())
    code, out, err = cli(capsys, "evaluate", QRELS, nest, "-m", "nDCG@10", "-f", "tsv")
    assert code == 0
    assert "holds 1 subdirectory (sub/)" in err and str(nest / "sub") in err
    assert [line.split("\t")[0] for line in out.splitlines()[1:]] == ["sim02"]
    only = tmp_path / "only"
    (only / "a").mkdir(parents=True)
    code, _, err = cli(capsys, "evaluate", QRELS, only, "-m", "nDCG@10")
    assert code == 1 and "holds no run files (only subdirectories)" in err


# ---------------------------------------------------------------- item 24: formulas


FORMULAS = ["=cmd|'/C!calc'!A0", "+SUM(A1)", "-2+3", "@SUM(A1)", "=1+1"]  # TREC tags: no blanks


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_text_cells_that_spreadsheets_run_are_defused(capsys, tmp_path, fmt):
    import csv

    runs = tmp_path / "runs"
    runs.mkdir()
    for i, tag in enumerate(FORMULAS):
        rows = [line.split() for line in SIM01.read_text().splitlines()]
        (runs / f"r{i}").write_text("".join(f"{t} Q0 {d} {r} {s} {tag}\n"
                                            for t, _, d, r, s, _ in rows))
    code, out, err = cli(capsys, "evaluate", QRELS, runs, "-m", "nDCG@10", "-q", "-f", fmt)
    assert code == 0, err
    rows = list(csv.reader(out.splitlines(), delimiter="," if fmt == "csv" else "\t"))
    for row in rows[1:]:
        assert not row[0].startswith(("=", "+", "-", "@", "\t")), row[0]  # OWASP's rule
        float(row[3])  # numbers untouched
    names = {r[0] for r in rows[1:]}
    assert "'=cmd|'/C!calc'!A0" in names and "'@SUM(A1)" in names


@settings(max_examples=50, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_defusing_keeps_numbers_and_neutralises_every_formula(text):
    from irstab._repr import csv_cell as _defuse

    out = _defuse(text)
    try:
        float(text)
        assert out == text
    except ValueError:
        assert not out.startswith(("=", "+", "-", "@", "\t", "\r"))
        assert out in (text, "'" + text)


# ---------------------------------------------------------------- items 10, 14, 19-21: inputs


COMPRESSORS = {
    "plain": lambda b: b,
    "gzip": __import__("gzip").compress,
    "bz2": __import__("bz2").compress,
    "xz": __import__("lzma").compress,
}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(COMPRESSORS)), st.sampled_from(["run", "run.gz", "run.bz2", "r.txt"]),
       st.booleans())
def test_compressed_runs_are_read_by_their_bytes_not_their_names(tmp_path_factory, kind, name,
                                                                  padded):
    # issue 26, item 20 (the class): bz2 named `run`, gzip without .gz, ...; and item 21:
    # gzip padded with zeros after its last member (Python's gzip reads it). Oracle: the
    # uncompressed file's nDCG@10 (0.4707, module docstring).
    import io
    from contextlib import redirect_stderr, redirect_stdout

    d = tmp_path_factory.mktemp("c")
    data = COMPRESSORS[kind](SIM01.read_bytes())
    if padded and kind == "gzip":
        data += bytes(512)
    (d / name).write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = irstab.cli.main(["evaluate", str(QRELS), str(d / name), "-m", "nDCG@10",
                                "-f", "tsv"])
    assert code == 0, err.getvalue()
    assert float(out.getvalue().splitlines()[1].split("\t")[3]) == pytest.approx(0.4707,
                                                                                 abs=5e-5)


def test_compressed_standard_input_and_its_errors_name_stdin(capsys, monkeypatch):
    import bz2
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bz2.compress(
        SIM01.read_bytes()))))
    code, out, err = cli(capsys, "evaluate", QRELS, "-", "-m", "nDCG@10", "-f", "tsv")
    assert code == 0 and "0.4707" in out, err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 Q0 d 1 x t\n")))
    code, out, err = cli(capsys, "evaluate", QRELS, "-", "-m", "nDCG@10")
    assert code == 1 and err.startswith("irstab: error: <stdin>:1: score 'x' is not a number")


def test_a_zip_archive_is_named_with_its_members(capsys, tmp_path):
    import zipfile

    z = tmp_path / "runs.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("a", SIM01.read_text())
        f.writestr("b", SIM01.read_text())
    code, _, err = cli(capsys, "evaluate", QRELS, z, "-m", "nDCG@10")
    assert code == 1 and "is a zip archive (2 member(s): a, b)" in err


def test_a_byte_that_is_not_utf8_is_located(capsys, tmp_path):
    lines = SIM01.read_bytes().split(b"\n")
    lines[45123 % len(lines)] = lines[45123 % len(lines)].replace(b"Q0", b"Q\xff")
    bad = tmp_path / "bad"
    bad.write_bytes(b"\n".join(lines))
    code, _, err = cli(capsys, "evaluate", QRELS, bad, "-m", "nDCG@10")
    # closed form: the byte sits on line (45123 mod the file's line count) + 1
    assert code == 1 and f"{bad}:{45123 % len(lines) + 1}: not UTF-8 text" in err


def test_duplicates_stop_the_read_early_in_bounded_memory(tmp_path):
    # item 10: a small gzip expanding to ~150 MB of one repeated line; the reader stops at
    # its first batch. Before, the whole file was parsed first (12-16 GB for 2 GiB).
    import gzip
    import subprocess
    import sys

    line = b"1 Q0 D00001 1 2.5 evil\n"
    path = tmp_path / "dups.gz"
    with gzip.open(path, "wb", compresslevel=1) as fh:
        block = line * 100_000
        for _ in range(65):
            fh.write(block)
    # VmHWM: the peak of this process's own memory (ru_maxrss would keep the pytest
    # process's size, which the child inherits at fork, across exec)
    script = ("import sys\n"
              "from irstab.cli import main\n"
              f"code = main(['evaluate', {str(QRELS)!r}, {str(path)!r}, '-m', 'nDCG@10'])\n"
              "print([l.split()[1] for l in open('/proc/self/status') if "
              "l.startswith('VmHWM')][0])\n"
              "sys.exit(code)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(Path(irstab.__file__).parents[1])))
    assert proc.returncode == 1
    assert f"{path}:2: document 'D00001' appears twice for topic '1'" in proc.stderr
    peak_kb = int(proc.stdout.split()[-1])  # the command's own peak resident set
    assert peak_kb < 600_000, f"peak RSS {peak_kb / 1e3:.0f} MB for a file read to line 2"


def test_a_duplicate_across_batches_is_found(tmp_path, monkeypatch):
    # the cross-batch check: the streaming reader's batches made tiny so that topic 1's
    # documents span batches and its 3rd document comes back after the first batch
    from irstab.io import trec

    monkeypatch.setattr(trec, "_BLOCK_BYTES", 64)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 0)  # stream even this small file
    monkeypatch.setattr(trec, "_CHUNK_LINES", 3)
    rows = [f"1 Q0 d{i} {i} {10 - i}.0 r\n" for i in range(1, 9)] + ["1 Q0 d3 9 1.0 r\n"]
    p = tmp_path / "r"
    p.write_text("".join(rows))
    with pytest.raises(irstab.InputFormatError, match=r"r:9: document 'd3' appears twice"):
        irstab.read_run(p)


# ---------------------------------------------------------------- items 16, 18


def test_a_deeply_nested_measure_file_is_refused(capsys, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    code, _, err = cli(capsys, "evaluate", QRELS, SIM01, "-m", f"@{deep}")
    assert code == 1 and "nested too deeply" in err


def test_multiindex_columns_are_named(tmp_path):
    import pandas as pd

    import irstab

    q = pd.DataFrame({("a", "query_id"): ["1"], ("a", "doc_id"): ["d"], ("a", "relevance"): [1]})
    r = pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "score": [1.0]})
    with pytest.raises(irstab.IRStabError, match="columns are a MultiIndex"):
        irstab.evaluate(q, r, ["P@1"])
