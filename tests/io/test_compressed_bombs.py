"""A compressed score matrix that expands past memory is refused after a bounded prefix.

The reader checks the cells it holds against the machine's memory every 16,384 records,
projected to the whole file. The projection used the size the file declares: a gzip
trailer speaks for its last member only, and bzip2 and xz declare none, so a bomb (8 MB of
gzip, 4 GiB of text) was read until memory ran short: 50 s and more, 16 GB of RSS. Now
the decompressor is fed 16 KiB at a time (:func:`irstab.io.textfiles.open_measured`) and
the projection also takes the file's size over the bytes of it consumed: the bomb shows
its ratio in its first piece. The tests count the text read before the refusal (never the
time), with the memory fixed at 4 GB so the threshold is the same on every machine.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

import irstab._numeric as numeric
from irstab.errors import IRStabError
from irstab.io import textfiles
from irstab.io.scorematrix import read_score_matrix

MiB = 1 << 20
BODY = b"sysA,t1,0.5\n" * (4 * MiB // 12)  # 4 MiB of one cell, 3 fields a record
COMPRESS = {"gzip": lambda b: gzip.compress(b, 6), "bz2": lambda b: bz2.compress(b, 9),
            "xz": lambda b: lzma.compress(b, preset=0)}


def _bomb(path: Path, kind: str, members: int = 512) -> int:
    """A long-layout score matrix of ``members`` x 4 MiB (2 GiB) of text, each 4 MiB one
    member or stream of ``kind`` (concatenated, as gzip, bzip2 and xz allow): a gzip
    trailer then declares 4 MiB, the last member's size. Returns the text's size."""
    compress = COMPRESS[kind]
    with open(path, "wb") as fh:
        fh.write(compress(b"system,topic,score\n" + BODY))
        rest = compress(BODY)
        for _ in range(members - 1):
            fh.write(rest)
    return members * len(BODY)


class _Counted(textfiles.LineBound):
    read_total = 0

    def readinto(self, buffer) -> int:
        try:
            return super().readinto(buffer)
        finally:
            _Counted.read_total = max(_Counted.read_total, self.total)


@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz"])
def test_a_score_matrix_bomb_is_refused_after_a_bounded_prefix(tmp_path, monkeypatch, kind):
    # 2 GiB of text, 537 million cells (100 bytes each as read): refused once the cells
    # held, projected by the ratio the first compressed piece shows, pass half of 4 GB.
    # Before, the projection trusted the declared size (gzip: 4 MiB, bz2 and xz: none) and
    # the file was read until 20 million cells were held: 80 MB of text here.
    monkeypatch.setattr(numeric, "_memory_bytes", lambda: 4 * 10**9)
    monkeypatch.setattr(textfiles, "LineBound", _Counted)
    _Counted.read_total = 0
    path = tmp_path / f"bomb.{kind}"
    text = _bomb(path, kind)
    with pytest.raises(IRStabError, match=r"score cells \(projected to the file's .* of it "
                                          r"read so far\) need .* of memory"):
        read_score_matrix(path)
    assert 0 < _Counted.read_total <= 16 * MiB < text // 100


def test_an_even_compressed_matrix_is_read_whole(tmp_path, monkeypatch):
    # the projection only underestimates a file of even density (the decompressor reads
    # ahead): 4 MiB of text (1 million cells, 100 MB as read) passes under 4 GB, whatever
    # the pieces consumed so far say
    monkeypatch.setattr(numeric, "_memory_bytes", lambda: 4 * 10**9)
    lines = "".join(f"s{i % 50},t{i // 50},{(i * 7919) % 1000 / 1000}\n" for i in range(350_000))
    path = tmp_path / "even.csv.gz"
    path.write_bytes(gzip.compress(("system,topic,score\n" + lines).encode()))
    frame = read_score_matrix(path)
    assert frame.shape == (50, 7000)
