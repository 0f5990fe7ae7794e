"""A run file reduced from its arrays (read_run_columns, reduce_columns: the path of
reduce_file) gives what the frame path gives (read_run, reduce_run), also when the file
is streamed in many batches, each with its own topic dictionary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irstab
from irstab.collection.index import QrelsIndex
from irstab.collection.reduce import reduce_columns, reduce_run
from irstab.io import read_run_columns, trec


def _files(tmp_path):
    # topics interleaved (not grouped), scores tied within topics, one topic ("9") the qrels
    # do not know, one ("3") judged without a relevant document
    rng = np.random.default_rng(4)
    lines = []
    for i in range(3000):
        t = ["1", "2", "9", "3"][i % 4]
        lines.append(f"{t} Q0 d{i // 4} {i} {rng.integers(0, 20) / 4} tag\n")
    run = tmp_path / "run"
    run.write_text("".join(lines))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d{d} {g}\n" for t in "12" for d, g in
                             zip(range(0, 750, 7), [2, 0, 1] * 40)) + "3 0 d1 0\n")
    return run, qrels


@pytest.mark.parametrize("block", [None, 4096])
@pytest.mark.parametrize("order", ["score", "score32", "rank", "file"])
def test_columns_reduce_as_the_frame(tmp_path, monkeypatch, block, order):
    if block:  # streamed in batches of about 4 kB: about 20 batches
        monkeypatch.setattr(trec, "_BLOCK_BYTES", block)
        monkeypatch.setattr(trec, "_SMALL_BYTES", 0)
    run, qrels = _files(tmp_path)
    with pytest.warns(irstab.IRStabWarning, match="without a relevant document"):
        index = QrelsIndex.from_qrels(irstab.read_qrels(qrels))
    frame_run = irstab.read_run(run)
    columns = read_run_columns(run)
    assert len(columns) == len(frame_run) == 3000
    assert block is None or columns.docids.num_chunks > 10  # streamed: one chunk a batch
    assert (columns.keys == frame_run.keys).all()
    # oracle: the frame path, which encodes the topics itself from the frame's text
    want = reduce_run(frame_run.frame, index, 100, order, tag="tag", keys=frame_run.keys, keep=5)
    got = reduce_columns(columns, index, 100, order, keep=5)
    assert got.tag == "tag" and got.unknown_topics == want.unknown_topics == ("9",)
    assert (got.grades == want.grades).all() and (got.judged == want.judged).all()
    assert (got.run_length == want.run_length).all() and got.tied == want.tied
    pd.testing.assert_frame_equal(got.top, want.top)
    assert got.judged.sum() > 0 and (got.grades == 2).sum() > 0  # the check can fail


def test_ties_go_by_docid_descending(tmp_path):
    # trec_eval 10's order (the module docstring of irstab.collection.reduce): score
    # descending, equal scores by docid descending as strings ("d9" > "d10" > "d1")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d10 2 2.0 r\n1 Q0 d9 3 2.0 r\n1 Q0 d5 4 3.0 r\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d5 1\n1 0 d9 2\n1 0 d10 3\n1 0 d1 4\n")
    index = QrelsIndex.from_qrels(irstab.read_qrels(qrels))
    got = reduce_columns(read_run_columns(run), index, 10)
    assert got.grades.tolist() == [[1, 2, 3, 4]]  # d5, then d9, d10, d1
    assert got.tied == 0.75  # three of the four ranks share their score


def test_the_allocator_takes_both_thresholds():
    # mallopt returns 0 for a value it refuses (past the documented largest threshold,
    # 32 MiB on 64-bit systems, in some glibc versions): the reducer would then run with
    # the allocator's defaults, silently. A fresh process: the setting is made once
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt's thresholds are glibc's")
    out = subprocess.run([sys.executable, "-c", "from irstab.collection import reduce; "
                          "print(reduce._reuse_freed_memory())"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "True"
