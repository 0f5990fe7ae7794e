"""How many worker processes read run files by default: none below 128 MiB of text.

Oracles: the file sizes written here (a gzip file's declared size is that of the text
compressed), the cores of this process (``os.sched_getaffinity``) and the threshold's
constant.
"""

from __future__ import annotations

import gzip
import os

import pytest

from irstab.collection.reduce import WORKER_MIN_BYTES, default_workers
from irstab.io.textfiles import text_size
from irstab.errors import IRStabError


@pytest.fixture(autouse=True)
def _no_override(monkeypatch):
    monkeypatch.delenv("IRSTAB_WORKERS", raising=False)


def test_small_inputs_are_read_in_this_process_large_ones_by_one_worker_per_core():
    cores = len(os.sched_getaffinity(0))
    assert WORKER_MIN_BYTES == 128 * 2**20
    # TREC DL 2019: 37 runs, 69,217,992 bytes of text
    assert default_workers(37, 69_217_992) == 0
    assert default_workers(100, 900_450_476) == min(cores, 100)
    assert default_workers(3, WORKER_MIN_BYTES) == min(cores, 3)
    assert default_workers(1, 10 * WORKER_MIN_BYTES) == 0  # one file: nothing to share


def test_files_streamed_in_batches_are_read_in_this_process():
    # [speed-2]: files over the reader's read-whole limit (64 MiB) are streamed, and one
    # process read 20 runs of 200 topics x 10,000 (90 MB each) with less CPU than two
    # workers and in the same wall time. Oracle: the two constants, and the sizes given.
    from irstab.collection.reduce import WORKER_MAX_FILE_BYTES
    from irstab.io import trec

    cores = len(os.sched_getaffinity(0))
    assert WORKER_MAX_FILE_BYTES == trec._SMALL_BYTES == 64 * 2**20
    assert default_workers(20, 20 * 90_000_000) == 0
    assert default_workers(100, 100 * 90_000_000) == 0
    assert default_workers(20, 20 * WORKER_MAX_FILE_BYTES) == min(cores, 20)


def test_the_environment_overrides(monkeypatch):
    monkeypatch.setenv("IRSTAB_WORKERS", "3")
    assert default_workers(37, 1000) == 3
    monkeypatch.setenv("IRSTAB_WORKERS", "two")
    with pytest.raises(IRStabError, match="IRSTAB_WORKERS must be an integer, got 'two'"):
        default_workers(37, 1000)


def test_a_gzip_run_counts_its_text_not_its_compressed_size(tmp_path):
    text = b"".join(b"1 Q0 d%d %d %d x\n" % (r, r + 1, 1000 - r) for r in range(5000))
    plain = tmp_path / "plain"
    plain.write_bytes(text)
    packed = tmp_path / "packed"
    packed.write_bytes(gzip.compress(text))
    assert packed.stat().st_size < len(text) // 3
    assert text_size(plain) == text_size(packed) == len(text)
    assert text_size(tmp_path / "missing") == 0


def test_a_fifo_is_not_opened_to_size_it(tmp_path):
    # opening a FIFO waits for a writer: the count of workers must not (the reader then
    # refuses it with its name); pytest-timeout would end a hang here
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    assert text_size(fifo) == 0


def _pool_name(_):
    import pyarrow as pa

    return pa.default_memory_pool().backend_name


def test_workers_give_pyarrow_the_c_heap_and_leave_this_process_alone():
    # a worker's pyarrow allocates from the C heap (glibc, set to keep what it frees);
    # the calling process keeps the pool it had. Oracle: pyarrow's own pool names.
    import platform

    import pyarrow as pa

    from irstab._workers import process_pool
    from irstab.collection.reduce import _init_worker

    before = pa.default_memory_pool().backend_name
    with process_pool(1, _init_worker, (None,)) as pool:
        got = list(pool.map(_pool_name, [0]))
    assert pa.default_memory_pool().backend_name == before
    if platform.libc_ver()[0] == "glibc":
        assert got == ["system"]
    else:
        assert got == [before]
