"""A field past the 1 MiB limit is refused as its bytes stream in, not after the work.

A 5 MB document id was refused only after about 15 s of CPU: the careful reader took the
line whole (it is under the 8 MiB line bound), and the duplicate check hashed the id eight
bytes a round (625,000 rounds) before the batch's field check could speak. Now the stream
(:class:`~irstab.io.textfiles.LineBound`) refuses a field once it passes the limit, the
batch check refuses a long field before hashing anything, and an id longer than 4 KiB is
hashed in one C call. The tests count the work (bytes read, bytes hashed, rounds), never
the time.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import InputFormatError
from irstab.io import keys, trec, trecbatch
from irstab.io.textfiles import LineBound

MiB = 1 << 20


def _gzip_token(path: Path, mib: int, kind: str = "run") -> None:
    """A gzip of a run (or qrels) whose line 2 holds a document id of ``mib`` MiB."""
    head, tail = ((b"1 Q0 d1 1 1.0 r\n1 Q0 ", b" 2 0.5 r\n") if kind == "run" else
                  (b"1 0 d1 1\n1 0 ", b" 1\n"))
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    with open(path, "wb") as fh:
        fh.write(z.compress(head))
        for _ in range(mib):
            fh.write(z.compress(b"x" * MiB))
        fh.write(z.compress(tail) + z.flush())


class _Counted(LineBound):
    """The reader's stream, remembering how many bytes it handed over."""

    read_total = 0

    def readinto(self, buffer) -> int:
        try:
            return super().readinto(buffer)
        finally:
            _Counted.read_total = max(_Counted.read_total, self.total)


@pytest.fixture
def counted(monkeypatch):
    _Counted.read_total = 0
    monkeypatch.setattr(trec, "LineBound", _Counted)
    hashed = []
    real = keys.string_hashes

    def hashes(values):
        arr = keys._strings(values)
        hashed.append(int(pa.compute.max(pa.compute.binary_length(arr)).as_py() or 0)
                      if len(arr) else 0)
        return real(values)

    monkeypatch.setattr(keys, "string_hashes", hashes)
    return hashed


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("compress", [False, True])
def test_a_long_id_is_refused_after_a_bounded_prefix(tmp_path, counted, kind, compress):
    # 5 MiB (plain) or 64 MiB (gzip) of one id: refused at line 2, naming the column, after
    # the limit (1 MiB) and at most one read block (the C parser asks for 256 KiB) of it,
    # and no field past the limit is ever hashed (it took 625,000 hashing rounds before)
    path = tmp_path / (f"{kind}.gz" if compress else kind)
    if compress:
        _gzip_token(path, 64, kind)
    else:
        head = "1 Q0 d1 1 1.0 r\n1 Q0 " if kind == "run" else "1 0 d1 1\n1 0 "
        path.write_text(head + "x" * (5 * MiB) + (" 2 0.5 r\n" if kind == "run" else " 1\n"))
    reader = irstab.read_run if kind == "run" else irstab.read_qrels
    with pytest.raises(InputFormatError, match=r":2: docid of more than 1 MiB: a field may "
                                               r"hold at most 1 MiB \(refused as it was read"):
        reader(path)
    assert 0 < _Counted.read_total <= MiB + 2 * 256 * 1024
    assert max(counted, default=0) <= trecbatch.MAX_FIELD_BYTES


def test_a_long_id_the_fast_reader_parses_is_not_hashed(tmp_path, counted):
    # 1.5 MiB fits in one 2 MiB block of the fast (pyarrow) reader: its batch check refuses
    # the field before the duplicate check hashes the batch; the careful reader then words
    # it as it streams
    path = tmp_path / "run"
    path.write_text("1 Q0 d1 1 1.0 r\n1 Q0 d2 2 0.9 r\n1 Q0 " + "y" * (3 * MiB // 2)
                    + " 3 0.5 r\n")
    with pytest.raises(InputFormatError, match=r"run:3: docid of more than 1 MiB"):
        irstab.read_run(path)
    assert max(counted, default=0) <= trecbatch.MAX_FIELD_BYTES


def test_an_id_at_the_limit_is_read_and_hashed_in_a_few_rounds(tmp_path, monkeypatch):
    # 1 MiB exactly is allowed; its key costs one BLAKE2b call, not 131,072 mixing rounds
    # (the rounds: calls of keys._mix, each a vectorised pass over the strings still long)
    rounds = []
    real = keys._mix
    monkeypatch.setattr(keys, "_mix", lambda h: (rounds.append(1), real(h))[1])
    path = tmp_path / "run"
    path.write_text("1 Q0 d1 1 1.0 r\n1 Q0 " + "z" * MiB + " 2 0.5 r\n")
    run = irstab.read_run(path)
    assert len(run) == 2 and len(run.frame["docid"].iloc[1]) == MiB
    assert len(rounds) < 1000


LONG = ["a" * 4096, "a" * 4097, "a" * 4097 + "\0", "b" * 5000, "b" * 4999 + "c",
        "é" * 3000, "x" * MiB]


def test_long_ids_hash_by_their_bytes_only():
    # oracle: each id hashed alone; in any array, slice or string type, beside short ids,
    # the same; different ids (a last byte, a trailing NUL) differently
    alone = np.array([keys.string_hashes([s])[0] for s in LONG], dtype=np.uint64)
    mixed = ["s", *LONG, "t" * 20]
    for values in (mixed, pa.array(mixed), pa.array(mixed, pa.large_string()),
                   pa.array(["pad", *mixed]).slice(1)):
        assert (keys.string_hashes(values)[1:-1] == alone).all()
    assert len(set(alone.tolist())) == len(LONG)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.lists(st.integers(1, 30), min_size=1, max_size=6), min_size=1,
                      max_size=8),
       limit=st.integers(1, 20), read=st.integers(1, 40),
       sep=st.sampled_from([" ", "\t", "  ", " \t"]))
def test_line_bound_refuses_exactly_the_first_long_field(lines, limit, read, sep):
    # oracle: the field lengths the text was made of. The first field (in reading order)
    # longer than the limit is refused, naming its line and its column, once the bytes read
    # reach its limit + 1st byte (plus what the last read brought): never the whole field
    columns = tuple(f"c{k}" for k in range(6))
    text = "\n".join(sep.join("f" * n for n in fields) for fields in lines) + "\n"
    stream = LineBound(io.BytesIO(text.encode()), "f", 10**6, "test line", field_limit=limit,
                       columns=columns)
    first, offset = None, 0  # (line, column, length, where it passes the limit)
    for number, fields in enumerate(lines, start=1):
        for k, n in enumerate(fields):
            if first is None and n > limit:
                first = (number, k, n, offset + limit + 1)
            offset += n + (len(sep) if k < len(fields) - 1 else 1)
    got = b""
    try:
        while chunk := stream.read(read):
            got += chunk
    except InputFormatError as exc:
        assert first is not None
        line, column, n, passing = first
        assert exc.line == line
        assert str(exc).startswith(f"f:{line}: c{column} of ")
        assert f"of {n:,} bytes" in str(exc) or "of more than" in str(exc)
        assert stream.total < passing + read
    else:
        assert first is None and got == text.encode()


def test_a_refused_field_keeps_its_exact_message_when_its_end_was_read(tmp_path, monkeypatch):
    # the whole line in one read: the size is known, as the batch check words it
    monkeypatch.setattr(trec, "MAX_FIELD_BYTES", 1000)
    monkeypatch.setattr(trecbatch, "MAX_FIELD_BYTES", 1000)
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(b"1\tQ0\td1\t1\t1.0\tr\n1\tQ0\t" + b"y" * 1001
                                   + b"\t2\t0.5\tr\n"))
    with pytest.raises(InputFormatError, match=r"r\.gz:2: docid of 1,001 bytes: a field may "
                                               r"hold at most 1,000 bytes"):
        irstab.read_run(path)
