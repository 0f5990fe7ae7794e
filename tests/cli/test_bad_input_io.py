"""Bad inputs and awkward output paths, each from the command line.

Every case asserts the exit code, the message on stderr (file, line or parameter
named; never a traceback) and the files left behind. The collection is the
example one shipped in ``data/example`` (12 simulated runs, 30 topics), read in
place; the expected nDCG@10 of run sim01 (0.4707) is what ``irstab evaluate`` gives
on the unmodified file, and the modified inputs below must give the same value.
"""

from __future__ import annotations

import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import irstab.cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"
QRELS = EXAMPLE / "qrels.txt"
SIM01 = EXAMPLE / "runs" / "sim01"


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def ndcg10_tsv(capsys, *runs, extra=()):
    """{run: nDCG@10} from ``irstab evaluate -f tsv``."""
    code, out, err = cli(capsys, "evaluate", QRELS, *runs, "-m", "nDCG@10", "-f", "tsv", *extra)
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    return {r[0]: float(r[3]) for r in rows}, err


def test_reference_value_of_sim01(capsys):
    # The anchor of the comparisons below: sim01 read as shipped.
    values, _ = ndcg10_tsv(capsys, SIM01)
    assert values["sim01"] == pytest.approx(0.4707110830, abs=1e-9)


# ------------------------------------------------------------------ item 4: header-less --scores


def test_scores_without_header_is_refused_naming_line_1(tmp_path, capsys):
    f = tmp_path / "n.csv"
    f.write_text("s1,0.1,0.5,0.3\ns2,0.2,0.4,0.6\ns3,0.9,0.1,0.4\n")
    code, out, err = cli(capsys, "stability", "--scores", f)
    assert code == 1 and out == ""
    assert f"{f}:1: the first line holds scores (s1,0.1,0.5,0.3), not a header" in err


def test_scores_with_integer_topic_ids_in_the_header_are_read(tmp_path, capsys):
    # Integer topic ids are the usual header; the three systems must all be read.
    f = tmp_path / "h.csv"
    f.write_text("system,1,2,3\ns1,0.1,0.5,0.3\ns2,0.2,0.4,0.6\ns3,0.9,0.1,0.4\n")
    code, out, err = cli(capsys, "stability", "--scores", f, "-f", "tsv")
    assert code == 0, err
    header, row = out.splitlines()[:2]
    fields = dict(zip(header.split("\t"), row.split("\t")))
    assert fields["n_systems"] == "3" and fields["n_topics"] == "3"


# ------------------------------------------------------------------ item 5: broken symlink


def test_broken_symlink_in_run_directory_is_named(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(SIM01, runs / "sim01")
    (runs / "x").symlink_to(tmp_path / "nope")
    code, out, err = cli(capsys, "evaluate", QRELS, runs, "-m", "nDCG@10")
    assert code == 1 and out == ""
    assert f"{runs / 'x'}: broken symbolic link (to {tmp_path / 'nope'})" in err


def test_broken_symlink_given_as_run_is_named(tmp_path, capsys):
    link = tmp_path / "x"
    link.symlink_to(tmp_path / "nope")
    code, _, err = cli(capsys, "evaluate", QRELS, link, "-m", "nDCG@10")
    assert code == 1
    assert f"{link}: broken symbolic link" in err


# ------------------------------------------------------------------ item 7: ranks above 2**53


def _rewrite_ranks(src: Path, dst: Path, offset: int, reverse: bool) -> None:
    lines = []
    for line in src.read_text().splitlines():
        t, q0, d, r, s, tag = line.split()
        lines.append(f"{t} {q0} {d} {offset + int(r)} {s} {tag}")
    if reverse:  # lines out of rank order: equal (merged) ranks would fall back to line order
        lines.reverse()
    dst.write_text("\n".join(lines) + "\n")


def test_order_rank_compares_ranks_above_2_53_exactly(tmp_path, capsys):
    # sim01's ranks are 1..100 per topic, so ranking by rank equals its score order
    # (0.4707 above). 2**53 + r for r = 1..100 are distinct integers that float64
    # merges in pairs (2**53 + 1 rounds to 2**53): an inexact compare changes nDCG@10.
    shifted = tmp_path / "big"
    _rewrite_ranks(SIM01, shifted, 2**53, reverse=True)
    values, _ = ndcg10_tsv(capsys, shifted, extra=("--order", "rank"))
    assert values["sim01"] == pytest.approx(0.4707110830, abs=1e-9)


def test_rank_beyond_int64_is_a_located_error(tmp_path, capsys):
    run = tmp_path / "huge"
    _rewrite_ranks(SIM01, run, 2**63 - 1, reverse=False)  # line 1: 2**63 - 1 + 1 = 2**63
    code, out, err = cli(capsys, "evaluate", QRELS, run, "-m", "nDCG@10", "--order", "rank")
    assert code == 1 and out == ""
    assert f"{run}:1: rank '{2**63}' is beyond the 64-bit integer range" in err


def test_fractional_rank_above_2_53_is_a_located_error(tmp_path, capsys):
    lines = SIM01.read_text().splitlines()
    t, q0, d, _, s, tag = lines[2].split()
    lines[2] = f"{t} {q0} {d} 1e20 {s} {tag}"  # line 3: a float rank beyond 2**53
    run = tmp_path / "f"
    run.write_text("\n".join(lines) + "\n")
    code, _, err = cli(capsys, "evaluate", QRELS, run, "-m", "nDCG@10")
    assert code == 1
    assert f"{run}:3: rank 1e+20 cannot be compared exactly" in err


# ------------------------------------------------------------------ item 12: 23-digit grade


def test_23_digit_grade_is_a_located_error(tmp_path, capsys):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 99999999999999999999999\n")
    code, out, err = cli(capsys, "evaluate", q, SIM01, "-m", "nDCG@10")
    assert code == 1 and out == ""
    assert f"{q}:2: grade '99999999999999999999999' is outside -128..127" in err


# ------------------------------------------------------------------ item 14: broken .gz


def test_truncated_gz_names_file_and_line_reached(tmp_path, capsys):
    data = gzip.compress(SIM01.read_bytes())
    cut = data[: len(data) // 2]
    run = tmp_path / "sim01.gz"
    run.write_bytes(cut)
    # Independent count: what zlib recovers from the cut stream, in whole lines.
    recovered = zlib.decompressobj(wbits=31).decompress(cut)
    line = recovered.count(b"\n") + 1
    assert 1 < line < 3000
    code, out, err = cli(capsys, "evaluate", QRELS, run, "-m", "nDCG@10")
    assert code == 1 and out == ""
    assert f"{run}:{line}: truncated gzip file" in err


def test_plain_text_named_gz_is_read_as_what_it_is(tmp_path, capsys):
    # issue 26, item 20: the first bytes decide, not the name (it was "not a gzip file")
    run = tmp_path / "sim01.gz"
    shutil.copy(SIM01, run)
    values, err = ndcg10_tsv(capsys, run)
    assert values == {"sim01": pytest.approx(0.4707, abs=5e-5)}


def test_truncated_gz_qrels_is_named(tmp_path, capsys):
    q = tmp_path / "qrels.gz"
    q.write_bytes(gzip.compress(QRELS.read_bytes())[:-20])  # the trailer and some data cut
    code, _, err = cli(capsys, "evaluate", q, SIM01, "-m", "nDCG@10")
    assert code == 1
    assert f"{q}:" in err and "truncated gzip file" in err


# ------------------------------------------------------------------ item 18: unreadable input


@pytest.mark.parametrize("which", ["qrels", "run", "run directory", "scores"])
def test_unreadable_input_exit_1_one_line(tmp_path, which, irstab_process, unprivileged):
    target = tmp_path / "x"
    if which == "run directory":
        target.mkdir()
        shutil.copy(SIM01, target / "sim01")
    elif which == "scores":
        target = tmp_path / "x.csv"
        target.write_text("system,1,2\na,0.1,0.2\nb,0.3,0.5\nc,0.2,0.1\n")
    else:
        shutil.copy(QRELS if which == "qrels" else SIM01, target)
    target.chmod(0)
    argv = {
        "qrels": ["evaluate", target, SIM01, "-m", "nDCG@10"],
        "run": ["evaluate", QRELS, target, "-m", "nDCG@10"],
        "run directory": ["evaluate", QRELS, target, "-m", "nDCG@10"],
        "scores": ["stability", "--scores", target],
    }[which]
    proc = irstab_process(argv, unprivileged)
    target.chmod(0o700)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"irstab: error: {target}: ")
    assert "Permission denied" in lines[0]


# ------------------------------------------------------------------ inputs that are not files

SCORES = "system,t1,t2,t3\na,0.1,0.5,0.3\nb,0.2,0.4,0.6\nc,0.9,0.1,0.4\n"


@pytest.mark.timeout(60)  # opening a FIFO nobody writes waits for ever: each must be refused first
@pytest.mark.parametrize("case", ["stability -s", "compare -s", "compare --baseline",
                                  "systems -s", "design power -s", "stability --design",
                                  "evaluate -m @", "evaluate run", "evaluate qrels"])
def test_a_fifo_input_is_refused_at_once_naming_it(tmp_path, capsys, case):
    fifo = tmp_path / "f.csv"
    os.mkfifo(fifo)
    base = tmp_path / "base.csv"
    base.write_text(SCORES)
    argv = {
        "stability -s": ["stability", "-s", fifo],
        "compare -s": ["compare", "-s", fifo, "-s", base],
        "compare --baseline": ["compare", "-s", fifo, "-s", base, "--baseline", "base"],
        "systems -s": ["systems", "-s", fifo],
        "design power -s": ["design", "power", "-s", fifo],
        "stability --design": ["stability", "-s", fifo, "--design", "nested"],
        "evaluate -m @": ["evaluate", QRELS, SIM01, "-m", f"@{fifo}"],
        "evaluate run": ["evaluate", QRELS, fifo, "-m", "nDCG@10"],
        "evaluate qrels": ["evaluate", fifo, SIM01, "-m", "nDCG@10"],
    }[case]
    code, out, err = cli(capsys, *argv)
    assert code == 1 and out == "", err
    what = {"evaluate run": "give a run file", "evaluate qrels": "give a qrels file",
            "evaluate -m @": "give the JSON file that `irstab optimize --save` wrote"}.get(
        case, "save the matrix to a file and give that")
    named = f"-m @{fifo}" if case == "evaluate -m @" else str(fifo)
    assert f"irstab: error: {named}: is a FIFO (named pipe), not a regular file; {what}" in err
    assert len(err.strip().splitlines()) == 1, err


def test_scores_from_process_substitution_are_called_a_pipe(tmp_path):
    # bash's <(cat s.csv): the path is /dev/fd/N of the shell; the pipe holds the matrix, and
    # irstab said "empty file: expected a header line" (sniffing its compression took the bytes)
    if shutil.which("bash") is None or not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs bash and /proc")
    base = tmp_path / "base.csv"
    base.write_text(SCORES)
    irstab = shlex.join([sys.executable, "-c", "import sys, irstab.cli; sys.exit(irstab.cli.main())"])
    script = f"{irstab} stability -s <(cat {shlex.quote(str(base))})"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert proc.returncode == 1 and proc.stdout == "", proc.stderr
    assert re.fullmatch(r"irstab: error: /dev/fd/\d+: is a pipe \(process substitution <\(\.\.\.\) "
                        r"or a shell pipe\), not a regular file; save the matrix to a file and give "
                        r"that .*\n", proc.stderr), proc.stderr
    assert "empty" not in proc.stderr


@pytest.mark.parametrize("gz", [False, True])
def test_a_score_file_byte_that_is_not_utf8_is_named_by_its_line(tmp_path, capsys, gz):
    # line 4 of the file, after a run of blank lines that the reader cuts before decoding
    data = SCORES.encode().replace(b"\nb,", b"\n\n\nb\xff,")
    path = tmp_path / ("bad.csv.gz" if gz else "bad.csv")
    path.write_bytes(gzip.compress(data) if gz else data)
    code, out, err = cli(capsys, "stability", "-s", path)
    assert code == 1 and out == ""
    assert err == f"irstab: error: {path}:5: not a UTF-8 text file (invalid start byte)\n"


# ------------------------------------------------------------------ item 20: unretrieved topic


def test_topic_no_run_retrieves_warns_once_naming_it(tmp_path, capsys):
    runs = []
    for name in ("sim01", "sim02"):
        run = tmp_path / name
        text = (EXAMPLE / "runs" / name).read_text().splitlines()
        run.write_text("".join(f"{line}\n" for line in text if not line.startswith("05 ")))
        runs.append(run)
    code, out, err = cli(capsys, "evaluate", QRELS, *runs, "-m", "nDCG@10", "-m", "P@10")
    assert code == 0
    assert err.count("retrieved by no run") == 1
    assert "1 qrels topic(s) retrieved by no run score 0 for every run (trec_eval -c): ['05']" in err


def test_every_topic_retrieved_gives_no_warning(capsys):
    _, err = ndcg10_tsv(capsys, SIM01)
    assert "retrieved by no run" not in err


def test_dataframe_ranks_above_2_53_are_exact_and_float_ranks_beyond_are_refused():
    # The same run as a DataFrame (the other input path): int64 ranks 2**53 + r in reverse
    # line order must rank like the file (0.4707, above); float ranks beyond 2**53 cannot.
    import numpy as np
    import pandas as pd

    import irstab
    from irstab.errors import InputFormatError
    from irstab.evaluation import score_matrix
    from irstab.io import read_qrels, read_run
    from irstab.metrics import parse_measure

    fields = [line.split() for line in SIM01.read_text().splitlines()]
    frame = pd.DataFrame({
        "topic": [f[0] for f in fields], "docid": [f[2] for f in fields],
        "rank": np.array([2**53 + int(f[3]) for f in fields], dtype=np.int64),
        "score": [float(f[4]) for f in fields],
    }).iloc[::-1]
    coll = irstab.Collection.build(read_qrels(QRELS), [read_run(frame, name="x")], order="rank")
    got = score_matrix(coll, parse_measure("nDCG@10")).to_numpy().mean()
    assert got == pytest.approx(0.4707110830, abs=1e-9)
    with pytest.raises(InputFormatError, match="column 'rank': rank .* cannot be compared exactly"):
        read_run(frame.assign(rank=frame["rank"] * 1e5), name="y")
