"""Files are parsed on the calling thread (``irstab.io.trec._PARSE_THREADS``), and the rows
are those of pyarrow's threaded parse.

The expected rows are the threaded parse's own, on real runs: TREC DL 2019 (gzip, read
whole) and a file over the streaming reader's batch size (read in batches).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irstab.io import trec

DL = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec-dl-2019-passage"


def _columns(path: Path, threads: bool, monkeypatch) -> trec.RunColumns:
    monkeypatch.setattr(trec, "_PARSE_THREADS", threads)
    return trec.read_run_columns(path)


def _same(a: trec.RunColumns, b: trec.RunColumns) -> None:
    np.testing.assert_array_equal(a.topic_codes, b.topic_codes)
    assert a.topics.equals(b.topics)
    assert list(a.docids) == list(b.docids)
    np.testing.assert_array_equal(a.rank, b.rank)
    np.testing.assert_array_equal(a.score, b.score)
    np.testing.assert_array_equal(a.keys, b.keys)
    assert a.tag == b.tag


@pytest.mark.parametrize("name", ["bm25base_p.gz", "idst_bert_p1.gz"])
def test_one_thread_reads_the_threaded_rows(name, monkeypatch):
    path = DL / "runs" / name
    assert trec._PARSE_THREADS is False  # what the reader does
    threaded = _columns(path, True, monkeypatch)
    assert len(threaded.score) > 10_000
    _same(_columns(path, False, monkeypatch), threaded)


def test_streamed_file_reads_the_threaded_rows(tmp_path, monkeypatch):
    """A plain file of more than one batch (the streaming reader's path: files over
    ``_SMALL_BYTES``, here made small, are parsed in batches of ``_BLOCK_BYTES``)."""
    import gzip

    text = gzip.decompress((DL / "runs" / "bm25base_p.gz").read_bytes())
    monkeypatch.setattr(trec, "_BLOCK_BYTES", 1 << 16)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 1 << 16)  # not read whole: in batches
    assert len(text) > 4 * (1 << 16)
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    threaded = _columns(path, True, monkeypatch)
    _same(_columns(path, False, monkeypatch), threaded)
