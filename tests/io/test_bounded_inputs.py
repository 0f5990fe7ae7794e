"""Inputs that cost memory or time out of proportion, and the topic trec_eval reserves.

Compressed bombs (one endless token in a run or qrels, one endless line in a score
matrix, a gzip whose trailer understates it, a Parquet file of identical rows) must be
refused after the documented bound, naming file and line (or row), in bounded memory;
peak memory is the child process's own VmHWM. The bounds are module constants, lowered
here where a test needs a small case. A topic named ``all`` (trec_eval's name for the
means) is refused by every reader, naming where it is.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from run_oracles import assert_read_as_a_set_finds

import irstab
import irstab.cli
from irstab.errors import InputFormatError
from irstab.io import scorematrix, tables, trec, trecbatch
from irstab.io.textfiles import LineBound

REPO = Path(__file__).resolve().parents[2]
QRELS = REPO / "data" / "example" / "qrels.txt"


def _gzip_stream(path: Path, head: bytes, repeated: bytes, times: int, tail: bytes) -> None:
    """A gzip file of ``head + repeated * times + tail``, compressed as it is produced."""
    z = zlib.compressobj(1, zlib.DEFLATED, 31)  # wbits 31: gzip framing
    with open(path, "wb") as fh:
        fh.write(z.compress(head))
        for _ in range(times):
            fh.write(z.compress(repeated))
        fh.write(z.compress(tail))
        fh.write(z.flush())


def _peak_of(script: str) -> tuple[subprocess.CompletedProcess, int]:
    """Run ``script`` in a child; its stderr and its own peak resident set (kB, VmHWM)."""
    code = script + ("\nprint([l.split()[1] for l in open('/proc/self/status') "
                     "if l.startswith('VmHWM')][0])\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONPATH=str(REPO / "src")))
    return proc, int(proc.stdout.split()[-1])


# ---------------------------------------------------------------- endless tokens and lines


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("token", [True, False])
def test_one_endless_token_in_a_gzip_is_refused_in_bounded_memory(tmp_path, kind, token):
    # 400 MB of one document id (token), or of one-byte fields on one line, 0.4 MB compressed.
    # Before, the careful reader took the whole line at once (a 200 MB token: 750 MB peak and
    # growing with the token); now the token is refused once it passes the 1 MiB field limit
    # (as it streams in), the line of short fields once it passes 8 MiB (8 x the field
    # limit), naming line 2 and, for the token, its column (the third: docid).
    path = tmp_path / f"{kind}.gz"
    first, tail = ((b"1 Q0 d1 1 1.0 r\n1 Q0 ", b" 2 0.5 r\n") if kind == "run" else
                   (b"1 0 d1 1\n1 0 ", b" 1\n"))
    _gzip_stream(path, first, b"x" * (1 << 20) if token else b"x " * (1 << 19), 400, tail)
    assert path.stat().st_size < 2_000_000
    reader = "read_run" if kind == "run" else "read_qrels"
    proc, peak_kb = _peak_of(
        "import irstab\n"
        f"try:\n    irstab.io.{reader}({str(path)!r})\n"
        "except irstab.InputFormatError as exc:\n    print(exc)\n")
    said = ("docid of more than 1 MiB: a field may hold at most 1 MiB" if token
            else f"line longer than 8 MiB: not a {kind} line")
    assert f"{path}:2: {said}" in proc.stdout, proc.stderr
    assert peak_kb < 400_000, f"peak RSS {peak_kb / 1e3:.0f} MB for a line refused at 8 MiB"


@pytest.mark.parametrize("compress", ["plain", "gz", "bz2"])
@pytest.mark.parametrize("spacing", ["single", "tabs"])  # the fast reader and the careful one
def test_a_field_past_the_limit_is_refused_naming_its_line(tmp_path, monkeypatch, compress,
                                                           spacing):
    monkeypatch.setattr(trec, "MAX_FIELD_BYTES", 1000)  # the line bound of the reader
    monkeypatch.setattr(trecbatch, "MAX_FIELD_BYTES", 1000)  # the field check of each batch
    sep = " " if spacing == "single" else "\t"
    lines = [sep.join(["1", "Q0", f"d{i}", str(i), f"{10 - i}.0", "r"]) for i in range(1, 4)]
    lines.insert(2, sep.join(["1", "Q0", "y" * 1001, "9", "0.5", "r"]))  # line 3: one byte over
    text = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "r"
    path.write_bytes({"plain": text, "gz": gzip.compress(text), "bz2": bz2.compress(text)}[compress])
    with pytest.raises(InputFormatError, match=r"r:3: docid of 1,001 bytes: a field may hold "
                                               r"at most 1,000 bytes"):
        irstab.read_run(path)
    lines[2] = lines[2].replace("y" * 1001, "y" * 1000)  # at the limit: read
    path.write_bytes(("\n".join(lines) + "\n").encode())
    assert len(irstab.read_run(path)) == 4


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 40), min_size=1, max_size=30),
       limit=st.integers(1, 30), read=st.integers(1, 50), final_newline=st.booleans())
def test_line_bound_refuses_exactly_the_first_long_line(lengths, limit, read, final_newline):
    # oracle: the line lengths the text was made of; any read size
    import io

    text = b"\n".join(b"a" * n for n in lengths) + (b"\n" if final_newline else b"")
    stream = LineBound(io.BytesIO(text), "f", limit, "test line")
    too_long = [i for i, n in enumerate(lengths) if n > limit]
    got = b""
    try:
        while chunk := stream.read(read):
            got += chunk
    except InputFormatError as exc:
        assert too_long and exc.line == too_long[0] + 1
    else:
        assert not too_long and got == text


def test_a_gzip_larger_than_its_trailer_is_streamed(tmp_path, monkeypatch):
    # a gzip of two members: the trailer gives the last member's size only. The whole-file
    # read is for files known to be small; it is now held to the declared size, and the
    # file is streamed instead (a 200 MB first member: 2.2 GB peak before, in the child below)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 4096)
    good = [f"{t} Q0 d{t}-{r} {r} {100 - r}.0 r\n" for t in range(1, 40) for r in range(1, 30)]
    path = tmp_path / "two.gz"
    path.write_bytes(gzip.compress("".join(good[:-1]).encode()) + gzip.compress(good[-1].encode()))
    plain = tmp_path / "plain"
    plain.write_text("".join(good))
    pd.testing.assert_frame_equal(irstab.read_run(path).frame, irstab.read_run(plain).frame)
    dups = tmp_path / "dups.gz"
    dups.write_bytes(gzip.compress(b"1 Q0 D1 1 1.0 r\n" * 10_000) + gzip.compress(b"2 Q0 x 1 1 r\n"))
    with pytest.raises(InputFormatError, match=r"dups\.gz:2: document 'D1' appears twice"):
        irstab.read_run(dups)


def test_a_two_member_gzip_bomb_stays_in_bounded_memory(tmp_path):
    line = b"1 Q0 D00001 1 1.0 r\n"
    path = tmp_path / "bomb.gz"
    _gzip_stream(path, b"", line * 50_000, 200, b"")  # 200 MB of one line, then a tiny member
    with open(path, "ab") as fh:
        fh.write(gzip.compress(b"2 Q0 x 1 1.0 r\n"))
    proc, peak_kb = _peak_of(
        "import irstab\n"
        f"try:\n    irstab.read_run({str(path)!r})\n"
        "except irstab.InputFormatError as exc:\n    print(exc)\n")
    assert f"{path}:2: document 'D00001' appears twice for topic '1'" in proc.stdout, proc.stderr
    assert peak_kb < 600_000, f"peak RSS {peak_kb / 1e3:.0f} MB"


def test_an_endless_score_matrix_line_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(scorematrix, "MAX_LINE_BYTES", 1 << 20)
    path = tmp_path / "s.csv.gz"
    _gzip_stream(path, b"system,t1,t2\na,", b"0.5" * 100_000, 40, b"\n")  # 12 MB on line 2
    with pytest.raises(InputFormatError, match=r"s\.csv\.gz:2: line longer than 1 MiB: not a "
                                               r"score-matrix line"):
        scorematrix.read_score_matrix(path)


def test_score_matrix_cells_are_checked_against_memory_as_they_come(tmp_path, monkeypatch):
    # a gzip declaring 80 MB of text: its cells, projected from the first records, need more
    # than half of a (pretend) 16 MB machine: refused after the first check, naming the file
    from irstab import _numeric

    monkeypatch.setattr(_numeric, "_memory_bytes", lambda: 16 * 2**20)
    monkeypatch.setattr(scorematrix, "_CHECK_EVERY", 64)
    path = tmp_path / "s.csv.gz"
    _gzip_stream(path, b"system,topic,score\n", b"a,t,0.5\n", 10_000_000, b"")
    with pytest.raises(irstab.IRStabError, match=r"s\.csv\.gz: [\d,]+ score cells \(projected "
                                                 r"from the size the file declares\) need"):
        scorematrix.read_score_matrix(path)


def test_score_matrices_are_read_compressed_whatever_their_name(tmp_path):
    text = "system,t1,t2\na,0.5,0.25\nb,0.125,1\n"
    plain = tmp_path / "s.csv"
    plain.write_text(text)
    want = scorematrix.read_score_matrix(plain)
    for name, data in (("g.csv", gzip.compress(text.encode())),
                       ("b.csv.bz2", bz2.compress(text.encode()))):
        (tmp_path / name).write_bytes(data)
        pd.testing.assert_frame_equal(scorematrix.read_score_matrix(tmp_path / name), want)


# ---------------------------------------------------------------- Parquet


def _identical_rows_parquet(path: Path, batches: int, rows: int = 1 << 16) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"query_id": pa.array(["1"] * rows), "doc_id": pa.array(["d"] * rows),
                      "score": np.ones(rows)})
    with pq.ParquetWriter(path, table.schema, compression="zstd") as writer:
        for _ in range(batches):
            writer.write_table(table)


def test_a_parquet_file_of_identical_rows_stops_at_its_first_batch(tmp_path):
    # 2e7 identical rows in 0.3 MB: read whole before (40 s, 3.1 GB peak); now the first
    # batch of 65,536 rows shows the repeat
    path = tmp_path / "bomb.parquet"
    _identical_rows_parquet(path, 305)
    proc, peak_kb = _peak_of(
        "import irstab\n"
        f"try:\n    irstab.read_run({str(path)!r})\n"
        "except irstab.InputFormatError as exc:\n    print(exc)\n")
    assert (f"{path}: row 1, columns 'query_id'/'doc_id': document 'd' appears twice for "
            "topic '1'") in proc.stdout, proc.stderr
    assert peak_kb < 400_000, f"peak RSS {peak_kb / 1e3:.0f} MB"


def test_parquet_rows_are_checked_against_memory_before_they_are_read(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from irstab import _numeric

    n = 200_000
    pq.write_table(pa.table({"qid": [str(i) for i in range(n)], "docno": ["d"] * n,
                             "relevance": np.ones(n, dtype=np.int64)}), tmp_path / "q.parquet")
    monkeypatch.setattr(_numeric, "_memory_bytes", lambda: 8 * 2**20)
    with pytest.raises(irstab.IRStabError, match=r"q\.parquet: 200,000 rows \(qrels\) need"):
        irstab.read_qrels(tmp_path / "q.parquet")


def test_a_repeat_across_parquet_batches_names_its_row_and_run(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.setattr(tables, "PARQUET_BATCH_ROWS", 3)
    frame = pd.DataFrame({"run": ["a", "a", "b", "b", "a", "a"],
                          "qid": ["1", "1", "1", "1", "2", "1"],
                          "docno": ["x", "y", "x", "y", "x", "y"], "score": np.arange(6.0)})
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "r.parquet")
    with pytest.raises(InputFormatError, match=r"r\.parquet: row 5, columns 'qid'/'docno': "
                                               r"document 'y' appears twice for topic '1' in run 'a'"):
        irstab.read_runs(tmp_path / "r.parquet")
    frame.loc[5, "qid"] = "3"  # no repeat: every run read, in order
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "r.parquet")
    assert [r.name for r in irstab.read_runs(tmp_path / "r.parquet")] == ["a", "b"]


# ---------------------------------------------------------------- the topic "all"

RESERVED = re.escape("topic 'all' is reserved: trec_eval -q (and irstab evaluate) print the mean")


@pytest.mark.parametrize("spacing", [" ", "\t"])
def test_a_run_or_qrels_topic_named_all_is_refused_with_its_line(tmp_path, spacing):
    run = tmp_path / "r"
    run.write_text("".join(spacing.join(row) + "\n" for row in
                           [["1", "Q0", "a", "1", "2", "r"], ["all", "Q0", "b", "1", "1", "r"]]))
    with pytest.raises(InputFormatError, match=rf"r:2: {RESERVED}"):
        irstab.read_run(run)
    qrels = tmp_path / "q"
    qrels.write_text(f"all{spacing}0{spacing}a{spacing}1\n")
    with pytest.raises(InputFormatError, match=rf"q:1: {RESERVED}"):
        irstab.read_qrels(qrels)
    qrels.write_text("All 0 a 1\nALL 0 b 1\n")  # trec_eval's word is lower case: these are topics
    assert irstab.read_qrels(qrels).topics == ["ALL", "All"]


def test_a_table_topic_named_all_is_refused_with_its_row(tmp_path):
    run = pd.DataFrame({"qid": ["1", "all"], "docno": ["a", "b"], "score": [1.0, 0.5]})
    with pytest.raises(InputFormatError, match=rf"row 1, column 'qid': {RESERVED}"):
        irstab.read_run(run)
    run.to_parquet(tmp_path / "r.parquet")
    with pytest.raises(InputFormatError, match=rf"r\.parquet: row 1, column 'qid': {RESERVED}"):
        irstab.read_run(tmp_path / "r.parquet")
    with pytest.raises(InputFormatError, match=RESERVED):
        irstab.read_qrels({"all": {"d": 1}})


@pytest.mark.parametrize("text, line", [
    ("system,t1,all\na,0.5,0.25\nb,0.1,0.2\n", 1),              # wide, topics in the header
    ("topic,a,b\nt1,0.5,0.1\nall,0.25,0.2\n", 3),              # gt4ireval's layout: a row
    ("system,topic,score\na,t1,0.5\na,all,0.25\n", 3),         # long, no measure column
])
def test_a_score_matrix_topic_named_all_is_refused_with_its_line(tmp_path, text, line):
    path = tmp_path / "s.csv"
    path.write_text(text)
    with pytest.raises(InputFormatError, match=rf"s\.csv:{line}: {RESERVED}"):
        scorematrix.read_score_matrix(path)


def test_evaluate_refuses_a_run_topic_named_all_from_the_command_line(tmp_path, capsys):
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 2 r\nall Q0 d2 1 1 r\n")
    code = irstab.cli.main(["evaluate", str(QRELS), str(run), "-m", "P@1", "-q", "-f", "csv"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and "Traceback" not in err
    assert re.search(rf"irstab: error: {re.escape(str(run))}:2: {RESERVED}", err)


# ---------------------------------------------------------------- streaming checks: linear, exact


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9)), min_size=1, max_size=80),
       tabs=st.booleans())
def test_streamed_duplicate_check_equals_a_whole_file_reference(tmp_path, rows, tabs):
    # oracle: a Python set over the whole file gives the first repeated (topic, docid) line;
    # the reader sees the file in batches of 64 bytes (fast path) or 3 lines (careful path),
    # topics in any order, so repeats span batches in every way
    sep = "\t" if tabs else " "
    path = tmp_path / "run"
    path.write_text("".join(sep.join([str(t), "Q0", f"d{d}", str(i + 1), f"{100 - i}", "r"]) + "\n"
                            for i, (t, d) in enumerate(rows)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(trec, "_BLOCK_BYTES", 64)
        mp.setattr(trec, "_SMALL_BYTES", 0)
        mp.setattr(trec, "_CHUNK_LINES", 3)
        assert_read_as_a_set_finds(path, rows)


def test_each_row_is_hashed_once_and_nothing_is_rescanned(tmp_path, monkeypatch):
    # linear work: over a file streamed in many batches, the key set receives every row once
    # (the first batch when the second arrives), and no batch's keys are computed again
    from irstab.io import keys

    monkeypatch.setattr(trec, "_BLOCK_BYTES", 4096)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 0)
    hashed, added = [], []
    real_keys, real_add = trecbatch._frame_keys, keys.KeySet.add
    monkeypatch.setattr(trecbatch, "_frame_keys",
                        lambda f, *a: hashed.append(len(f)) or real_keys(f, *a))
    monkeypatch.setattr(keys.KeySet, "add", lambda self, k: added.append(len(k)) or real_add(self, k))
    path = tmp_path / "run"
    path.write_text("".join(f"{t} Q0 d{t} 1 1.0 r\n" for t in range(20_000)))
    run = irstab.read_run(path)
    assert len(run) == 20_000 and len(added) > 20  # many batches
    assert sum(hashed) == sum(added) == 20_000


def test_a_wide_shallow_run_is_read_once_not_once_per_partition(tmp_path, monkeypatch):
    # 100,000 topics with one document each: its grade tensor is 0.2 MB, but nominally
    # (1,000 ranks a topic) 200 MB, six 32 MB partitions, each reading the whole file: the
    # time grew with the square of the topics (1e6 topics: 192 s in the report, 492 s here
    # on a loaded machine). Now its tensor is sized from the rows read, and the run read once.
    from irstab.collection import reduce as reduce_module

    n = 100_000
    (tmp_path / "q").write_text("".join(f"{t} 0 d{t} 1\n" for t in range(n)))
    (tmp_path / "r").write_text("".join(f"{t} Q0 d{t} 1 1.0 r\n" for t in range(0, n, 2)))
    reads = []
    real = reduce_module.read_run_columns
    monkeypatch.setattr(reduce_module, "read_run_columns", lambda p: reads.append(p) or real(p))
    monkeypatch.setenv("IRSTAB_WORKERS", "0")
    with pytest.warns(irstab.IRStabWarning, match="50000 qrels topic.s. retrieved by no run"):
        frame = irstab.evaluate(tmp_path / "q", [tmp_path / "r"], ["P@1"], per_topic=True)
    assert len(reads) == 1
    # oracle: even topics retrieve their one relevant document (P@1 = 1), odd ones nothing
    p1 = frame[frame["topic"] != "all"].set_index("topic")["value"]
    assert p1.loc["0"] == 1.0 and p1.loc["1"] == 0.0 and p1.mean() == pytest.approx(0.5)


def _csv_records(stream, buffer: int, squeeze=None, delimiter: str = ","):
    """Non-blank records and the line each starts on, as the score-matrix reader keeps them."""
    import csv
    import io

    reader = csv.reader(io.TextIOWrapper(io.BufferedReader(stream, buffer), encoding="utf-8-sig",
                                         newline=""), delimiter=delimiter)
    out = []
    try:
        for row in reader:
            if row and any(c.strip() for c in row):
                # the line a record without quoted line breaks is on (an unterminated quote
                # at the end of the file makes the start of one with breaks ambiguous)
                line = None
                if not any("\n" in c or "\r" in c for c in row):
                    line = reader.line_num if squeeze is None else squeeze.line(reader.line_num)
                out.append(([c.strip() for c in row], line))
    except csv.Error as exc:
        out.append(("malformed", str(exc)))
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(parts=st.lists(st.sampled_from(["a", "1", ",", "\t", '"', '""', "\n", "\r", "\r\n", " ",
                                       "\n\n\n", " \t\r\n"]), max_size=60),
       bom=st.booleans(), buffer=st.sampled_from([1, 2, 3, 5, 8, 64, 1 << 16]),
       delimiter=st.sampled_from([",", "\t", None]))
@example(parts=["\n\n\n", "\t", '"'], bom=False, buffer=1, delimiter=",")  # Python 3.11.2's re
def test_cutting_blank_lines_changes_no_record_and_no_line_number(parts, bom, buffer, delimiter):
    # Oracle: the csv module on the uncut bytes (its records, its line numbers). Cutting runs
    # of blank lines must keep every record's cells (blank lines inside quotes included,
    # quotes opening only at a field's start as csv reads them) and map every line back.
    import io

    from irstab.io.textfiles import BlankLineSqueeze

    data = (b"\xef\xbb\xbf" if bom else b"") + "".join(parts).encode()
    text = data[3:].decode() if bom else data.decode()
    sep = delimiter or ("\t" if "\t" in re.split(r"\r\n|\r|\n", text, maxsplit=1)[0] else ",")
    want = _csv_records(io.BytesIO(data), buffer, delimiter=sep)
    squeeze = BlankLineSqueeze(io.BytesIO(data), delimiter)
    assert _csv_records(squeeze, buffer, squeeze, sep) == want


def test_a_billion_blank_lines_cost_the_decompressor_not_a_python_loop(tmp_path):
    # 256 MiB of blank lines (gzip: 250 KB): line by line in Python this was ~45 s of CPU on
    # the reference machine; cut in blocks it is the decompression's ~1 s
    import time

    path = tmp_path / "blank.csv.gz"
    _gzip_stream(path, b"system,t1,t2\na,0.1,0.2\n", b"\n" * (1 << 20), 256, b"b,0.3,x\n")
    start = time.process_time()
    with pytest.raises(InputFormatError, match=r"blank\.csv\.gz:268435459: .*'x' is not a number"):
        scorematrix.read_score_matrix(path)
    assert time.process_time() - start < 15


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.integers(1, 3), st.integers(1, 6)), min_size=1, max_size=30),
       bits=st.sampled_from([0, 2, 64]))
def test_repeats_are_found_whatever_the_keys_collide(tmp_path, monkeypatch, rows, bits):
    # the within-batch test looks at the keys' top 32 bits first, then the whole keys, then
    # the text: keys forced to share their top 32 bits (bits=64: every row's key equal;
    # bits=2: four keys) must neither hide a repeat nor invent one (the set oracle of
    # assert_read_as_a_set_finds).
    real = trecbatch._frame_keys

    def colliding(batch, *args):
        keys = real(batch, *args)
        if bits == 64:
            return np.full_like(keys, 12345)
        return (keys & np.uint64((1 << bits) - 1)) if bits else keys & np.uint64(0xFFFFFFFF)

    monkeypatch.setattr(trecbatch, "_frame_keys", colliding)
    path = tmp_path / "run"
    path.write_text("".join(f"{t} Q0 d{d} {i + 1} {100 - i}.0 r\n" for i, (t, d) in enumerate(rows)))
    assert_read_as_a_set_finds(path, rows)


def test_a_colliding_key_does_not_hide_an_earlier_repeat(tmp_path, monkeypatch):
    # d1 and d2 of topic 1 given one key (a 64-bit collision), and that key's real repeat
    # (d1 again, line 5) comes after the real repeat of another key (d3 of topic 2, line 4):
    # line 4 is the first repeat (the set oracle)
    rows = [(1, 1), (2, 3), (1, 2), (2, 3), (1, 1)]
    real = trecbatch._frame_keys

    def colliding(batch, *args):
        keys = real(batch, *args)
        docs = batch["docid"].to_pylist()
        return np.where(np.isin(docs, ["d1", "d2"]), np.uint64(7), keys)

    monkeypatch.setattr(trecbatch, "_frame_keys", colliding)
    path = tmp_path / "run"
    path.write_text("".join(f"{t} Q0 d{d} {i + 1} {100 - i}.0 r\n" for i, (t, d) in enumerate(rows)))
    with pytest.raises(InputFormatError, match=r"run:4: document 'd3' appears twice for topic '2'"):
        irstab.read_run(path)
    assert_read_as_a_set_finds(path, rows)


@pytest.mark.parametrize("data, want", [
    # oracle: the line breaks read by hand ("\r\n" one break, "\r" and "\n" one each); a run
    # of blank lines, up to its last break, becomes one "\n" (the class docstring), and the
    # blanks of the line with content after it stay
    (b'\n\n\n\t"', b'\n\t"'),
    (b'a\n \n\t\nb\r\r\n\r\n "', b'a\nb\n "'),
    (b"x\r\ny\r\n\r\n\t\r\nz", b"x\r\ny\nz"),
    (b"x\n\t\tx\n\n", b"x\n\t\tx\n"),
])
def test_a_run_of_blank_lines_keeps_the_blanks_of_the_next_line(data, want):
    # Python 3.11.2's re (Debian 12's python3) matched "\n\n\n\t" for the first case with
    # the atomic-group pattern this class used, cutting the tab of the line after the run
    from irstab.io.textfiles import BlankLineSqueeze

    assert BlankLineSqueeze(io.BytesIO(data), ",").read() == want
