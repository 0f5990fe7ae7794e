"""TREC qrels and run files: streamed, checked, line-numbered parsing.

Formats
-------
qrels
    ``topic iteration docid grade``, whitespace separated, one judgment per
    line. ``grade`` is an integer and may be negative (TREC Web spam = -2).
run
    ``topic Q0 docid rank score tag``. The tag may be missing on every line
    of a file (5 fields); then the run is named after its file.

Both may be gzip-compressed (``.gz``). Blank lines are allowed and skipped;
every other problem is an :class:`~irstab.errors.InputFormatError` naming the
file and the 1-based line (a truncated or corrupt ``.gz`` names the line the
decompression reached; an unreadable file, a directory or a broken symbolic
link is named too). Compressed or not, a file is streamed, never read whole
unless its text is known to be small: a field (topic, document id, tag) longer
than :data:`MAX_FIELD_BYTES` (1 MiB), or a line longer than 8 MiB, is refused
with its line as soon as it is read, so a small compressed file that expands to
one endless token costs megabytes, not gigabytes.

Ranks are kept exactly: integer ranks as int64 (a rank beyond the 64-bit
range is an error), other ranks as float64 only while every one is below
2**53 in magnitude, where doubles still tell neighbouring integers apart.

Parsing is vectorised: pyarrow's reader, on the calling thread, handles well-formed files
(single spaces, the usual case); anything it rejects goes through the pandas C
engine with whitespace splitting, which also locates the offending line. A refused
line's fields are counted as the line has them, and the error says what the line looks
like (:mod:`irstab.io.treclines`: a run given as qrels, a run without its Q0 column,
qrels without the iteration column), computed on that error path only.
Nothing is dropped silently. :mod:`irstab.io.sources` turns the frames into
:class:`~irstab.io.Qrels` and :class:`~irstab.io.Run` objects;
:mod:`irstab.io.trecwrite` writes such files; the checks every batch of rows passes
(and the two layouts) are in :mod:`irstab.io.trecbatch`.
"""

from __future__ import annotations

import lzma
import os
import re
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._paths import special_file
from ..errors import InputFormatError
from .trecbatch import (
    _GRADE_RANGE, _INTEGER, LINE_FIELDS, MAX_FIELD_BYTES, QRELS, RESERVED_TOPIC, RUN, _Batch,
    _has_empty, _Located, _require_utf8, _Spec, _StreamCheck, arrow_strings, reserved_topic,
)
from .treclines import hint, line_at
from .textfiles import (
    LineBound, arrow_input, check_not_archive, compression, declared_text_size, gzip_error,
    invalid_utf8_line, open_binary, physical_line,
)

if TYPE_CHECKING:  # pyarrow and pandas are imported where they are used: they are slow to
    import pandas as pd  # import, and a well-formed file is read without pandas
    import pyarrow as pa

__all__ = ["QRELS", "RUN", "RESERVED_TOPIC", "MAX_FIELD_BYTES", "read_table", "read_keyed_table",
           "read_keyed_rows", "read_run_columns", "RunColumns", "arrow_strings", "reserved_topic"]

PathLike = str | os.PathLike


# ---------------------------------------------------------------- reading

_BLOCK_BYTES = 1 << 22  # text per batch of the streaming reader (4 MiB: fewer batches than
# 2 MiB cost 10-20 % less CPU a row on runs of 10,000 ranks a topic, measured in [speed-2])
_CHUNK_LINES = 1 << 17  # lines per chunk of the careful reader


_SMALL_BYTES = 1 << 26  # text read at once rather than in batches (64 MiB)

#: Files are parsed on the calling thread, not on pyarrow's thread pool. On 2 cores the pool
#: won no wall time (DL-2019's 37 gzipped runs, ten runs of 9 MB, one of 64 MB, runs of 90 MB
#: streamed in 4 MiB batches) and cost CPU and memory, each parse thread allocating from its
#: own arena: DL-2019's ``evaluate`` 0.73 against 0.86 s CPU and 158 against 204 MB; 100
#: runs of 9 MB in a pool of two workers, the same CPU and 322 against 446 MB (the tree's
#: PSS; benchmarks/README.md, "the parse on the calling thread").
_PARSE_THREADS = False


class _NotSmall(Exception):
    """A compressed file holds more text than it declared."""


def _declared_whole(source):
    """The whole text of a compressed file that declared it is small, in one bounded read.

    The gzip trailer speaks for the last member only: a file of several members can hold
    far more. At most :data:`_SMALL_BYTES` + 1 bytes are read; more raises :class:`_NotSmall`.
    """
    data = source.read_buffer(_SMALL_BYTES + 1)
    if data.size > _SMALL_BYTES:
        raise _NotSmall(data.size)
    return data


def _known_small(path: Path, kind: str | None) -> bool:
    """Whether the file's text is declared to be at most :data:`_SMALL_BYTES`.

    Plain: its size. Gzip: the size its trailer records (:func:`declared_text_size`),
    which speaks for the last member only; the reader holds it to that
    (:func:`_declared_whole`). Other compressions record no size: not known.
    """
    size = declared_text_size(path, kind)
    return size is not None and size <= _SMALL_BYTES


def _fast_read(path: Path, spec: _Spec, kind: str | None, python: bool) -> _Parsed | None:
    """Streaming pyarrow reader for single-space separated files; None if it cannot parse.

    Batches of about 4 MiB are parsed and checked (:class:`_StreamCheck`) as they
    come; a problem raises :class:`_Located` at once. A file whose text is known to be
    small (:func:`_known_small`) is parsed whole, then checked: its memory
    is bounded anyway. ``python`` decompresses with Python's modules (gzip padded with
    zeros after its last member).
    """
    import pyarrow as pa

    layouts = (spec.columns, spec.columns[:-1]) if spec.optional_last else (spec.columns,)
    # Exact columns (rank) as int64 first: float64 would merge ranks beyond 2**53.
    exact = [{c: pa.int64() for c in spec.exact_columns}, {}] if spec.exact_columns else [{}]
    small = not python and _known_small(path, kind)
    for names, override in ((n, o) for n in layouts for o in exact):
        try:
            return _stream(path, spec, kind, python, names, override, small)
        except _NotSmall:  # a gzip of several members, larger than its trailer said
            return _stream_any(path, spec, kind, python, layouts, exact)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            continue
    return None


def _stream_any(path, spec, kind, python, layouts, exact) -> _Parsed | None:
    """:func:`_stream` in batches under each layout in turn; None if none parses."""
    import pyarrow as pa

    for names, override in ((n, o) for n in layouts for o in exact):
        try:
            return _stream(path, spec, kind, python, names, override, small=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            continue
    return None


def _stream(path, spec, kind, python, names, override, small) -> _Parsed | None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    types = {c: pa.string() for c in spec.string_columns}
    types.update({c: pa.float64() for c in spec.float_columns})
    types.update({c: pa.int64() for c in spec.integer_columns})
    # a plain file gives about one batch per block (the key set is sized by it)
    check = _StreamCheck(spec, -(-path.stat().st_size // _BLOCK_BYTES) if kind is None else None)
    rows = 0
    native = kind is None or kind in ("gzip", "bz2", "zstd") and pa.Codec.is_available(kind)
    options = dict(
        read_options=pacsv.ReadOptions(column_names=list(names), block_size=_BLOCK_BYTES,
                                       use_threads=_PARSE_THREADS),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
        convert_options=pacsv.ConvertOptions(
            column_types={c: t for c, t in (types | override).items() if c in names},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
            check_utf8=False,  # checked per batch, ASCII at one pass (_require_utf8)
        ),
    )
    with (open_binary(path, kind) if python or not native else
          arrow_input(path, kind)) as source:
        # a file known to be small is parsed at once (a gzip held to the size
        # its trailer declares); others in batches
        if small and native:
            if kind:  # held to the size its trailer declared (one bounded read)
                source = pa.BufferReader(_declared_whole(source))
            reader = [pacsv.read_csv(source, **options)]
        else:
            reader = pacsv.open_csv(source, **options)
        for parsed in reader:
            if parsed.num_rows == 0:
                continue
            batch = _Batch.of_arrow(parsed, spec)
            text = [batch[c] for c in spec.string_columns if c in names]
            for column in text:
                _require_utf8(column)  # not UTF-8: pyarrow.ArrowInvalid, as the parser's check
            if any(map(_has_empty, text)):
                return None  # an empty field: a doubled space; let the careful reader judge
            try:
                check.check(batch)
            except _Located as exc:
                exc.row += rows  # a row of the whole file (non-blank lines)
                raise
            rows += len(batch)
    if not check.checked:
        return None
    check.seen = check.spans = None  # the whole file is read: its key set (16-32 bytes a
    # row) and its blocks are done with
    return _Parsed(check)


class _Parsed:
    """A file's rows as checked (:class:`_StreamCheck`): the batches, their keys and topics;
    as one frame (:meth:`frame`) or as the arrays a run is reduced from (:meth:`run_columns`)."""

    def __init__(self, check: _StreamCheck, frames: list[pd.DataFrame] | None = None):
        self.check = check
        self.frames = frames  # the careful reader's (line numbers as index); else None

    def keys(self) -> np.ndarray:
        return _joined(self.check.keys)

    def frame(self) -> pd.DataFrame:
        if self.frames is not None:
            import pandas as pd

            frame = pd.concat(self.frames)
            frame.index.name = "line"
            return frame
        return self.table().to_pandas()

    def table(self) -> pa.Table:
        """The rows of a file the streaming reader read (not the careful reader's), as one
        pyarrow Table: no pandas."""
        import pyarrow as pa

        tables = [b.arrow if isinstance(b.arrow, pa.Table) else pa.Table.from_batches([b.arrow])
                  for b in self.check.checked]
        return tables[0] if len(tables) == 1 else pa.concat_tables(tables)

    def run_columns(self) -> RunColumns:
        import pyarrow as pa

        batches = self.check.checked
        codes, topics = self.check.topic_codes()
        rank = _joined([b["rank"] for b in batches])
        docids = [b["docid"] for b in batches]
        return RunColumns(
            topic_codes=codes, topics=topics, keys=self.keys(), rank=rank,
            docids=docids[0] if len(docids) == 1 else pa.chunked_array(docids),
            score=_joined([b["score"] for b in batches]).astype(np.float64, copy=False),
            tag=self.check.tag)


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The batches' arrays as one: the only one itself (a file read at once), no copy."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


@dataclass(frozen=True, eq=False)
class RunColumns:
    """A TREC run file's rows as arrays (:func:`read_run_columns`), in file order.

    ``topic_codes[i]`` indexes ``topics`` (pyarrow strings, in order of first appearance);
    ``docids`` is a pyarrow string array (or chunked array), ``rank`` int64 or float64 as
    :class:`~irstab.io.Run`'s, ``score`` float64, ``keys`` the rows' ``(topic, docid)``
    keys (:func:`~irstab.io.keys.pair_keys`).
    """

    topic_codes: np.ndarray
    topics: pa.Array
    docids: object
    rank: np.ndarray
    score: np.ndarray
    keys: np.ndarray
    tag: str | None

    def __len__(self) -> int:
        return len(self.topic_codes)


def _careful_read(path: Path, spec: _Spec, kind: str | None) -> _Parsed:
    """Whitespace-split reader that keeps line numbers; raises on any malformed line.

    Reads chunks of 131,072 lines, each checked as it comes (the checks of
    :class:`_StreamCheck` included), so a bad file stops at its first bad chunk.
    Only this reader imports pandas (its C engine splits on any whitespace).
    """
    import pandas as pd

    n = len(spec.columns)
    check = _StreamCheck(spec)
    state: dict = {}
    frames = []
    stack = ExitStack()
    try:
        source = LineBound(stack.enter_context(open_binary(path, kind)), path,
                           LINE_FIELDS * MAX_FIELD_BYTES, f"{spec.kind} line",
                           field_limit=MAX_FIELD_BYTES, columns=spec.columns)
        chunks = pd.read_csv(
            source,
            sep=r"\s+",
            header=None,
            names=range(n + 1),
            dtype=str,
            engine="c",
            skip_blank_lines=False,
            keep_default_na=False,
            na_values=[""],
            quoting=3,  # csv.QUOTE_NONE: quotes are ordinary characters
            chunksize=_CHUNK_LINES,
        )
        offset = 0
        for raw in chunks:
            if not isinstance(raw.index, pd.RangeIndex):
                # pandas took the first fields of a first line longer than the columns as
                # the index (and dropped them): count that line from the text
                raise _field_count_error(path, kind, spec, 1, None)
            raw.index = np.arange(offset + 1, offset + len(raw) + 1)  # 1-based line numbers
            offset += len(raw)
            frame = _careful_chunk(path, spec, raw, state)
            if frame is None:
                continue
            try:
                check.check(_Batch.of_frame(frame, spec))
            except _Located as exc:
                raise InputFormatError(path, exc.message, int(frame.index[exc.row])) from None
            frames.append(frame)
    except pd.errors.EmptyDataError:
        raise InputFormatError(path, f"empty file: no {spec.kind} lines") from None
    except pd.errors.ParserError as exc:
        m = re.search(r"line (\d+), saw (\d+)", str(exc))
        if m is None:
            raise InputFormatError(path, f"expected {n} fields ({' '.join(spec.columns)})"
                                   ) from None
        raise _field_count_error(path, kind, spec, int(m.group(1)), state.get("expected")
                                 ) from None
    except UnicodeDecodeError as exc:
        located = invalid_utf8_line(path)
        line, reason = located if located is not None else (None, exc.reason)
        raise InputFormatError(path, f"not UTF-8 text ({reason})", line) from None
    finally:
        stack.close()
    if not frames:
        raise InputFormatError(path, f"empty file: no {spec.kind} lines")
    return _Parsed(check, frames)


def _field_count_error(path: Path, kind: str | None, spec: _Spec, line: int,
                       expected: int | None) -> InputFormatError:
    """The error for a line of too many fields for the careful reader's columns, its fields
    counted from the text (an error path: the line is read again) and a hint."""
    n = expected or len(spec.columns)
    read = line_at(path, kind, line)
    fields, first = read if read is not None else (None, False)
    found = f", found {len(fields)}" if fields is not None else ""
    return InputFormatError(
        path, f"expected {n} fields ({' '.join(spec.columns[:n])}){found}"
        + (hint(fields, spec.kind, first) if fields is not None else ""), line)


def _row_hint(spec: _Spec, raw: pd.DataFrame, line: int, state: dict) -> str:
    """:func:`~irstab.io.treclines.hint` for a refused row of the careful reader (its fields
    are all in ``raw``: a row of more fields is a parser error)."""
    fields = [v for v in raw.loc[line].tolist() if isinstance(v, str)]
    return hint(fields, spec.kind, first=line == state.get("first"))


def _careful_chunk(path: Path, spec: _Spec, raw: pd.DataFrame, state: dict):
    """One chunk of :func:`_careful_read` as the run's columns (None: only blank lines)."""
    import pandas as pd

    n = len(spec.columns)
    counts = raw.notna().sum(axis=1).to_numpy()
    raw = raw[counts > 0]
    counts = counts[counts > 0]
    if len(raw) == 0:
        return None
    allowed = {n, n - 1} if spec.optional_last else {n}
    if "expected" not in state:  # the first line decides whether the tag column is there
        state["expected"] = int(counts[0]) if counts[0] in allowed else n
        state["first"] = int(raw.index[0])  # the first non-blank line (hints judge the file)
    expected = state["expected"]
    bad = np.flatnonzero(counts != expected)
    if len(bad):
        line = int(raw.index[bad[0]])
        got = int(counts[bad[0]])
        what = f"expected {expected} fields ({' '.join(spec.columns[:expected])}), found {got}"
        if spec.optional_last and got in allowed:
            what += " (the tag column must be present on every line or on none)"
        raise InputFormatError(path, what + _row_hint(spec, raw, line, state), line)
    frame = raw.iloc[:, :expected].copy()
    frame.columns = list(spec.columns[:expected])
    for col in spec.integer_columns:
        text = frame[col]
        ok = text.str.fullmatch(_INTEGER.pattern).to_numpy(dtype=bool)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            line = int(frame.index[i])
            raise InputFormatError(path, f"{col} {text.iloc[i]!r} is not an integer"
                                   + _row_hint(spec, raw, line, state), line)
        lo, hi = _GRADE_RANGE
        frame[col] = _to_int64(path, frame, col, f"is outside {lo}..{hi}")
    for col in spec.exact_columns:
        if col in frame and frame[col].str.fullmatch(_INTEGER.pattern).all():
            frame[col] = _to_int64(path, frame, col, "is beyond the 64-bit integer range")
    for col in spec.float_columns:
        if col not in frame or pd.api.types.is_numeric_dtype(frame[col]):
            continue
        values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            text = frame[col].iloc[i]
            line = int(frame.index[i])
            what = ("NaN; it must be finite" if text.lstrip("+-").lower() == "nan"
                    else "not a number" + _row_hint(spec, raw, line, state))
            raise InputFormatError(path, f"{col} {text!r} is {what}", line)
        frame[col] = values
    return frame


def _to_int64(path: Path, frame: pd.DataFrame, col: str, too_large: str) -> np.ndarray:
    """int64 values of a column of integer strings; an error names the first that overflows."""
    text = frame[col]  # (the careful reader's: pandas is imported)
    digits = text.str.lstrip("+-").str.lstrip("0").str.len().to_numpy()
    big = np.flatnonzero(digits >= 19)  # 2**63 has 19 digits: check those exactly
    for i in big:
        if not -(2**63) <= int(text.iloc[i]) < 2**63:
            raise InputFormatError(path, f"{col} {text.iloc[i]!r} {too_large}", int(frame.index[i]))
    return text.astype(np.int64).to_numpy()


def _check_readable(path: Path, kind: str) -> None:
    """Raise a located error unless ``path`` is a regular file this process can open."""
    if not path.exists():
        if path.is_symlink():
            raise InputFormatError(path, f"broken symbolic link (to {os.readlink(path)})")
        raise InputFormatError(path, f"no such {kind} file")
    if path.is_dir():
        raise InputFormatError(path, f"is a directory, not a {kind} file")
    if not path.is_file():  # a FIFO would block the open, a pipe be read empty
        raise InputFormatError(path, f"is {special_file(path) or 'a special file'}, not a regular "
                               f"file; give a {kind} file")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise InputFormatError(path, f"cannot read: {exc.strerror or exc}") from None


def _parse_table(path: Path, spec: _Spec, kind: str | None, python: bool = False) -> _Parsed:
    """The file's rows as checked (line numbers as the frame's index when read carefully);
    located errors."""
    try:
        parsed, located = _fast_read(path, spec, kind, python), None
    except _Located as exc:
        parsed, located = None, exc
    if located is not None:  # (outside the except block: the error carries no chain)
        # The careful reader words the problem as the text has it (a rank '9223372036854775808',
        # not its float) and numbers lines exactly; it stops at the same chunk.
        _careful_read(path, spec, kind)
        raise InputFormatError(path, located.message, physical_line(path, located.row))
    if parsed is None:  # slow path: exact line numbers (blank lines, irregular spacing)
        return _careful_read(path, spec, kind)
    return parsed


def _read_parsed(path: PathLike, spec: _Spec) -> _Parsed:
    path = Path(path)
    _check_readable(path, spec.kind)
    if path.stat().st_size == 0:
        raise InputFormatError(path, f"empty file: no {spec.kind} lines")
    check_not_archive(path, spec.kind)
    kind = compression(path)
    try:
        return _parse_table(path, spec, kind)
    except (OSError, EOFError, lzma.LZMAError) as exc:  # a broken compressed stream
        if kind != "gzip":
            what = f"corrupt {kind} data" if kind else "cannot read"
            raise InputFormatError(path, f"{what}: {exc}") from None
        error = gzip_error(path)
        if error is not None:
            raise error from None
        return _parse_table(path, spec, kind, python=True)  # e.g. zero padding after the end


def read_table(path: PathLike, spec: _Spec) -> pd.DataFrame:
    """A TREC file's rows as a frame, every problem an :class:`InputFormatError` with its line.

    The file may be compressed whatever its name (:mod:`.textfiles` reads the magic
    bytes); a zip archive is refused, naming its members.
    """
    return read_keyed_table(path, spec)[0]


def read_keyed_table(path: PathLike, spec: _Spec) -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`read_table` and the rows' ``(topic, docid)`` keys
    (:func:`~irstab.io.keys.pair_keys`), hashed once for the duplicate check."""
    import pyarrow as pa

    rows, keys = read_keyed_rows(path, spec)
    return (rows.to_pandas() if isinstance(rows, pa.Table) else rows), keys


def read_keyed_rows(path: PathLike, spec: _Spec) -> tuple[pa.Table | pd.DataFrame, np.ndarray]:
    """:func:`read_keyed_table` without a frame where none was made: the rows as one pyarrow
    Table when the streaming reader read the file (``to_pandas()`` of it is
    :func:`read_keyed_table`'s frame), else the careful reader's frame (pandas parsed it),
    its index reset; and the rows' keys."""
    parsed = _read_parsed(path, spec)
    if parsed.frames is None:
        return parsed.table(), parsed.keys()
    return parsed.frame().reset_index(drop=True), parsed.keys()


def read_run_columns(path: PathLike) -> RunColumns:
    """A TREC run file's rows as arrays (:class:`RunColumns`), read and checked as
    :func:`~irstab.io.read_run` reads them, but with no frame built: the topics as codes
    (encoded once, by the duplicate check), the document ids as parsed."""
    return _read_parsed(path, RUN).run_columns()
