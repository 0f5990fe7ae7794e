"""The streaming reader parses text columns without pyarrow's UTF-8 check and checks each
batch itself (:func:`irstab.io.trecbatch._require_utf8`): the same files pass and fail.

The oracle is Python's own decoder (``bytes.decode("utf-8")``): a field is accepted exactly
when it decodes, and then read as the text it decodes to; a field that does not decode is
refused with its line, as the careful reader words it.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irstab.errors import InputFormatError
from irstab.io import trec
from irstab.io.trecbatch import _require_utf8

DL = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec-dl-2019-passage"
#: the first lines of a real run (TREC DL 2019, BM25 baseline)
LINES = gzip.decompress((DL / "runs" / "bm25base_p.gz").read_bytes()).split(b"\n")[:300]

# bytes a field may hold: no whitespace or control byte (those end or break a field);
# ASCII, UTF-8 text and arbitrary bytes alike
FIELD = st.one_of(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=12),
    st.text(st.characters(min_codepoint=0x21, exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"]),
            min_size=1, max_size=6),
).map(lambda t: t.encode("utf-8")) | st.binary(min_size=1, max_size=12).map(
    lambda b: bytes(c if c > 0x20 else 0x41 for c in b))


def _decodes(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(st.lists(FIELD, max_size=20), st.integers(0, 25), st.integers(0, 25))
def test_the_check_raises_exactly_when_some_string_of_the_slice_does_not_decode(
        values, start, length):
    arr = pa.array(values, pa.binary()).view(pa.string()).slice(start, length)
    inside = values[start:start + length]
    if all(map(_decodes, inside)):
        _require_utf8(arr)  # no raise, whatever the bytes outside the slice
    else:
        with pytest.raises(pa.ArrowInvalid):
            _require_utf8(arr)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(FIELD, st.integers(0, len(LINES) - 2), st.sampled_from([0, 2]))
def test_a_field_is_read_as_its_text_or_refused_on_its_line(tmp_path, raw, at, column):
    fields = LINES[at].split(b" ")
    fields[column] = b"x" + raw  # the prefix: never one of the run's own ids
    path = tmp_path / f"run{at}{column}.txt"
    path.write_bytes(b"\n".join(LINES[:at] + [b" ".join(fields)] + LINES[at + 1:]))
    if not _decodes(raw):
        with pytest.raises(InputFormatError, match="not UTF-8 text") as info:
            trec.read_run_columns(path)
        assert info.value.line == at + 1
        return
    got = trec.read_run_columns(path)
    text = (b"x" + raw).decode("utf-8")
    if column == 2:
        assert got.docids[at].as_py() == text
    else:
        assert got.topics[int(got.topic_codes[at])].as_py() == text


def test_a_later_batch_is_checked_too(tmp_path, monkeypatch):
    """A file read in batches: a byte that is not UTF-8 in a later batch is refused on its
    line; a valid two-byte letter there is read as pyarrow's checked parse reads it."""
    text = gzip.decompress((DL / "runs" / "bm25base_p.gz").read_bytes())
    monkeypatch.setattr(trec, "_BLOCK_BYTES", 1 << 16)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 1 << 16)
    lines = text.split(b"\n")
    at = 5_000  # far past the first batch (65,536 bytes hold about 1,500 lines)
    assert len(b"\n".join(lines[:at])) > 3 * (1 << 16)
    for raw, ok in ((b"\xc3\xa9", True), (b"\xc3", False), (b"\xff", False)):
        fields = lines[at].split(b" ")
        fields[2] = b"d" + raw
        path = tmp_path / "run.txt"
        path.write_bytes(b"\n".join(lines[:at] + [b" ".join(fields)] + lines[at + 1:]))
        if not ok:
            with pytest.raises(InputFormatError, match="not UTF-8 text") as info:
                trec.read_run_columns(path)
            assert info.value.line == at + 1
            continue
        got = trec.read_run_columns(path)
        assert got.docids[at].as_py() == "d\u00e9"
        import pyarrow.csv as pacsv

        checked = pacsv.read_csv(path, read_options=pacsv.ReadOptions(
            column_names=["topic", "q0", "docid", "rank", "score", "tag"]),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types={"docid": pa.string(), "topic": pa.string()}, check_utf8=True))
        assert [d.as_py() for d in got.docids] == checked["docid"].to_pylist()
