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

Parsing is vectorised: a multithreaded pyarrow reader handles well-formed files
(single spaces, the usual case); anything it rejects goes through the pandas C
engine with whitespace splitting, which also locates the offending line.
Nothing is dropped silently. :mod:`irstab.io.sources` turns the frames into
:class:`~irstab.io.Qrels` and :class:`~irstab.io.Run` objects;
:mod:`irstab.io.trecwrite` writes such files.
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
import pandas as pd

from .._paths import special_file
from ..errors import InputFormatError
from .keys import KeySet, pair_keys
from .textfiles import (
    LineBound, check_not_archive, compression, declared_text_size, gzip_error,
    invalid_utf8_line, open_binary, physical_line, size_text,
)

if TYPE_CHECKING:  # pyarrow is imported where it is used: it is slow to import
    import pyarrow as pa

__all__ = ["QRELS", "RUN", "RESERVED_TOPIC", "MAX_FIELD_BYTES", "read_table", "read_keyed_table",
           "read_run_columns", "RunColumns", "arrow_strings", "reserved_topic"]

PathLike = str | os.PathLike
_Keyed = tuple[pd.DataFrame, np.ndarray]  # a file's rows and their (topic, docid) keys


@dataclass(frozen=True)
class _Spec:
    """Column layout of one TREC file type."""

    kind: str
    columns: tuple[str, ...]
    string_columns: tuple[str, ...]
    float_columns: tuple[str, ...] = ()
    integer_columns: tuple[str, ...] = ()
    exact_columns: tuple[str, ...] = ()  # float columns kept as int64 when all are integers
    optional_last: bool = False  # the last column may be absent on every line


QRELS = _Spec(
    kind="qrels",
    columns=("topic", "iteration", "docid", "grade"),
    string_columns=("topic", "iteration", "docid"),
    integer_columns=("grade",),
)
RUN = _Spec(
    kind="run",
    columns=("topic", "q0", "docid", "rank", "score", "tag"),
    string_columns=("topic", "q0", "docid", "tag"),
    float_columns=("rank", "score"),
    exact_columns=("rank",),
    optional_last=True,
)

#: The topic id trec_eval's ``-q`` output (and ``irstab evaluate``'s) gives the mean over
#: the topics: a topic of that name could not be told from the means (``-q -f csv``, and
#: ``--scores`` reading such a file back, which skips the means). Runs, qrels and score
#: matrices refuse it, naming the file and line.
RESERVED_TOPIC = "all"


def reserved_topic(topic: str) -> str:
    """The message for a topic named :data:`RESERVED_TOPIC`."""
    return (f"topic {topic!r} is reserved: trec_eval -q (and irstab evaluate) print the mean "
            "over the topics as topic 'all', so its scores could not be told from the means; "
            "rename the topic")


_INTEGER = re.compile(r"[+-]?\d+")
_GRADE_RANGE = (-128, 127)  # grades are stored as int8
_EXACT_FLOAT = 2.0**53  # beyond it float64 no longer tells neighbouring integers apart


# ---------------------------------------------------------------- reading

_BLOCK_BYTES = 1 << 21  # text per batch of the streaming reader (2 MiB)
#: The longest field (topic, document id, tag, iteration) a TREC line may hold, in bytes;
#: a line may be at most :data:`LINE_FIELDS` times as long. Both bound the memory one line
#: can take while the file is streamed (a compressed file can expand to one endless token).
MAX_FIELD_BYTES = 1 << 20
LINE_FIELDS = 8
_CHUNK_LINES = 1 << 17  # lines per chunk of the careful reader


class _Located(Exception):
    """A problem found at a row of the current batch (its position in the batch)."""

    def __init__(self, row: int, message: str):
        super().__init__(row, message)
        self.row, self.message = row, message

    def __reduce__(self):  # picklable (tblib, which dask installs, pickles exception chains)
        return (type(self), (self.row, self.message))


class _Batch:
    """One batch of a file's rows as arrays: text columns as pyarrow string arrays (one
    chunk each), the others as numpy arrays; ``arrow``, the parsed batch itself (None for
    the careful reader's rows). What the checks read: no frame is built per batch."""

    __slots__ = ("columns", "n", "arrow")

    def __init__(self, columns: dict, n: int, arrow=None):
        self.columns, self.n, self.arrow = columns, n, arrow

    @classmethod
    def of_arrow(cls, table, spec: _Spec) -> _Batch:
        """A parsed pyarrow table or record batch (its chunks joined: a copy of a few MB)."""
        columns = {}
        for name, col in zip(table.schema.names, table.columns):
            if hasattr(col, "combine_chunks"):
                col = col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
            columns[name] = col if name in spec.string_columns else col.to_numpy()
        return cls(columns, table.num_rows, table)

    @classmethod
    def of_frame(cls, frame: pd.DataFrame, spec: _Spec) -> _Batch:
        return cls({c: arrow_strings(frame[c], large=True) if c in spec.string_columns
                    else frame[c].to_numpy() for c in frame.columns}, len(frame))

    def __len__(self) -> int:
        return self.n

    def __contains__(self, column: str) -> bool:
        return column in self.columns

    def __getitem__(self, column: str):
        return self.columns[column]

    def pairs(self, rows: np.ndarray) -> pd.DataFrame:
        """The ``topic, docid`` of some rows (few: those a repeat is confirmed on)."""
        return pd.DataFrame({c: self.columns[c].take(rows).to_pylist() for c in ("topic", "docid")})


class _StreamCheck:
    """The checks of :func:`_first_problem`, batch by batch, so that a bad file stops early.

    Within a batch every check runs at once, vectorised. Every row's ``(topic, docid)``
    is hashed once (:func:`~irstab.io.keys.pair_keys`); the keys find repeats within
    the batch and, from the second batch on, across batches: they go into one
    :class:`~irstab.io.keys.KeySet`, looked up and inserted together, so the whole
    file costs time linear in its rows, whatever the order of its topics (nothing seen
    is sorted or scanned again). A key found again is confirmed against the rows' text
    (64-bit keys can collide). A file of duplicates stops at its first batch instead of
    being read whole; a file read in one batch builds no key set at all. The keys are
    kept (:attr:`keys`): the qrels lookup matches the same keys; so are the batches'
    topic codes (:attr:`topics`, ``dictionary_encode`` of each batch's topics).
    """

    def __init__(self, spec: _Spec, batches: int | None = None):
        self.spec = spec
        self.batches = batches  # how many batches the file will give, if known (plain text)
        self.tag = None
        self.checked: list[_Batch] = []  # the batches checked so far (kept anyway: the result)
        self.keys: list[np.ndarray] = []  # their row keys
        self.topics: list = []  # their topics, dictionary-encoded
        self.seen: KeySet | None = None

    def check(self, batch: _Batch) -> None:
        import pyarrow.compute as pc

        problems = []
        within, keys, topics = _first_problem(batch, self.spec)
        if within is not None:
            problems.append(within)
        if "tag" in batch and len(batch):
            tags = batch["tag"]
            self.tag = tags[0].as_py() if self.tag is None else self.tag
            other = pc.not_equal(tags, self.tag)
            if pc.any(other).as_py():
                i = int(np.flatnonzero(other.to_numpy(zero_copy_only=False))[0])
                problems.append((i, f"a second run tag {tags[i].as_py()!r} (the file began with "
                                    f"{self.tag!r}); a run file must hold one run"))
        if self.checked:
            again = self._seen_before(batch, keys)
            if again is not None:
                problems.append(again)
        if problems:
            raise _Located(*min(problems))
        self.checked.append(batch)
        self.keys.append(keys)
        self.topics.append(topics)

    def _seen_before(self, batch: _Batch, keys: np.ndarray) -> tuple[int, str] | None:
        """The first row of ``batch`` whose (topic, docid) an earlier batch held, if any."""
        if self.seen is None:  # a second batch: only now do the first one's keys go in
            rows = sum(map(len, self.keys)) + len(batch)
            if self.batches:  # sized for the whole file: no doubling and re-inserting
                rows = max(rows, self.batches * len(self.keys[0]))
            self.seen = KeySet(2 * rows)
            for k in self.keys:
                self.seen.add(k)
        candidates = self.seen.add(keys)  # almost always none, or real repeats
        if not len(candidates):
            return None
        wanted = pd.Series(keys[candidates]).unique()
        earlier = [b.pairs(np.flatnonzero(pd.Series(k).isin(wanted).to_numpy()))
                   for b, k in zip(self.checked, self.keys)]
        first = _first_repeat(pd.concat([*earlier, batch.pairs(candidates)], ignore_index=True))
        n_earlier = sum(map(len, earlier))
        if first is None or first < n_earlier:
            return None
        i = int(candidates[first - n_earlier])
        return i, _twice(batch, i)

    def topic_codes(self) -> tuple[np.ndarray, pa.Array]:
        """Every row's topic code (int64) and the topics they index, in order of appearance:
        the batches' codes mapped to one dictionary (each batch's is its own)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if len(self.topics) == 1:
            only = self.topics[0]
            return only.indices.to_numpy(zero_copy_only=False).astype(np.int64), only.dictionary
        if not self.topics:
            return np.zeros(0, np.int64), pa.array([], pa.string())
        merged = pc.dictionary_encode(pa.concat_arrays([t.dictionary for t in self.topics]))
        to_merged = merged.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        start = np.cumsum([0] + [len(t.dictionary) for t in self.topics[:-1]])
        codes = np.concatenate([to_merged[s + t.indices.to_numpy(zero_copy_only=False)]
                                for s, t in zip(start, self.topics)])
        return codes, merged.dictionary


def _frame_keys(batch: _Batch, encoded_topics=None) -> np.ndarray:
    """The rows' ``(topic, docid)`` keys (:func:`~irstab.io.keys.pair_keys`)."""
    return pair_keys(batch["topic"], batch["docid"], encoded_topics)


def _first_repeat(pairs: pd.DataFrame) -> int | None:
    """Position of the first row whose (topic, docid) an earlier row holds, if any."""
    dup = pairs.duplicated(["topic", "docid"]).to_numpy()
    return int(np.flatnonzero(dup)[0]) if dup.any() else None


def _twice(batch: _Batch, i: int) -> str:
    return (f"document {batch['docid'][i].as_py()!r} appears twice for topic "
            f"{batch['topic'][i].as_py()!r}")


_SMALL_BYTES = 1 << 26  # text read at once rather than in batches (64 MiB)


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

    Batches of about 2 MiB are parsed and checked (:class:`_StreamCheck`) as they
    come; a problem raises :class:`_Located` at once. A file whose text is known to be
    small (:func:`_known_small`) is parsed whole, on all cores, then checked: its memory
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
        read_options=pacsv.ReadOptions(column_names=list(names), block_size=_BLOCK_BYTES),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
        convert_options=pacsv.ConvertOptions(
            column_types={c: t for c, t in (types | override).items() if c in names},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
        ),
    )
    with (open_binary(path, kind) if python or not native else
          pa.input_stream(str(path), compression=kind)) as source:
        # a file known to be small is parsed at once, on all cores (a gzip held to the size
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
            if any(_has_empty(batch[c]) for c in spec.string_columns if c in names):
                return None  # an empty field: a doubled space; let the careful reader judge
            try:
                check.check(batch)
            except _Located as exc:
                exc.row += rows  # a row of the whole file (non-blank lines)
                raise
            rows += len(batch)
    if not check.checked:
        return None
    check.seen = None  # the whole file is read: its key set (16-32 bytes a row) is done with
    return _Parsed(check)


def _has_empty(text: pa.Array) -> bool:
    """Whether a string array (no nulls) holds an empty string (from its offsets)."""
    import pyarrow as pa

    width = np.int64 if text.type == pa.large_string() else np.int32
    offsets = np.frombuffer(text.buffers()[1], dtype=width)[text.offset:text.offset + len(text) + 1]
    return bool((offsets[1:] == offsets[:-1]).any())


class _Parsed:
    """A file's rows as checked (:class:`_StreamCheck`): the batches, their keys and topics;
    as one frame (:meth:`frame`) or as the arrays a run is reduced from (:meth:`run_columns`)."""

    def __init__(self, check: _StreamCheck, frames: list[pd.DataFrame] | None = None):
        self.check = check
        self.frames = frames  # the careful reader's (line numbers as index); else None

    def keys(self) -> np.ndarray:
        return np.concatenate(self.check.keys)

    def frame(self) -> pd.DataFrame:
        if self.frames is not None:
            frame = pd.concat(self.frames)
            frame.index.name = "line"
            return frame
        import pyarrow as pa

        tables = [b.arrow if isinstance(b.arrow, pa.Table) else pa.Table.from_batches([b.arrow])
                  for b in self.check.checked]
        return (tables[0] if len(tables) == 1 else pa.concat_tables(tables)).to_pandas()

    def run_columns(self) -> RunColumns:
        import pyarrow as pa

        batches = self.check.checked
        codes, topics = self.check.topic_codes()
        rank = np.concatenate([b["rank"] for b in batches])
        docids = [b["docid"] for b in batches]
        return RunColumns(
            topic_codes=codes, topics=topics, keys=self.keys(), rank=rank,
            docids=docids[0] if len(docids) == 1 else pa.chunked_array(docids),
            score=np.concatenate([b["score"] for b in batches]).astype(np.float64, copy=False),
            tag=self.check.tag)


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
    """
    n = len(spec.columns)
    check = _StreamCheck(spec)
    state: dict = {}
    frames = []
    stack = ExitStack()
    try:
        source = LineBound(stack.enter_context(open_binary(path, kind)), path,
                           LINE_FIELDS * MAX_FIELD_BYTES, f"{spec.kind} line")
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
        line = int(m.group(1)) if m else None
        found = f", found {m.group(2)}" if m else ""
        raise InputFormatError(
            path, f"expected {n} fields ({' '.join(spec.columns)}){found}", line
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


def _careful_chunk(path: Path, spec: _Spec, raw: pd.DataFrame, state: dict):
    """One chunk of :func:`_careful_read` as the run's columns (None: only blank lines)."""
    n = len(spec.columns)
    counts = raw.notna().sum(axis=1).to_numpy()
    raw = raw[counts > 0]
    counts = counts[counts > 0]
    if len(raw) == 0:
        return None
    allowed = {n, n - 1} if spec.optional_last else {n}
    if "expected" not in state:  # the first line decides whether the tag column is there
        state["expected"] = counts[0] if counts[0] in allowed else n
    expected = state["expected"]
    bad = np.flatnonzero(counts != expected)
    if len(bad):
        line = int(raw.index[bad[0]])
        got = int(counts[bad[0]])
        what = f"expected {expected} fields ({' '.join(spec.columns[:expected])}), found {got}"
        if spec.optional_last and got in allowed:
            what += " (the tag column must be present on every line or on none)"
        raise InputFormatError(path, what, line)
    frame = raw.iloc[:, :expected].copy()
    frame.columns = list(spec.columns[:expected])
    for col in spec.integer_columns:
        text = frame[col]
        ok = text.str.fullmatch(_INTEGER.pattern).to_numpy(dtype=bool)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise InputFormatError(
                path, f"{col} {text.iloc[i]!r} is not an integer", int(frame.index[i])
            )
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
            what = "NaN; it must be finite" if text.lstrip("+-").lower() == "nan" else "not a number"
            raise InputFormatError(path, f"{col} {text!r} is {what}", int(frame.index[i]))
        frame[col] = values
    return frame


def _to_int64(path: Path, frame: pd.DataFrame, col: str, too_large: str) -> np.ndarray:
    """int64 values of a column of integer strings; an error names the first that overflows."""
    text = frame[col]
    digits = text.str.lstrip("+-").str.lstrip("0").str.len().to_numpy()
    big = np.flatnonzero(digits >= 19)  # 2**63 has 19 digits: check those exactly
    for i in big:
        if not -(2**63) <= int(text.iloc[i]) < 2**63:
            raise InputFormatError(path, f"{col} {text.iloc[i]!r} {too_large}", int(frame.index[i]))
    return text.astype(np.int64).to_numpy()


def _first_problem(batch: _Batch, spec: _Spec):
    """The first row (0-based position) with a semantic problem and the message (or None),
    the rows' ``(topic, docid)`` keys (:func:`_frame_keys`, hashed once) and their topics,
    dictionary-encoded."""
    import pyarrow.compute as pc

    problems: list[tuple[int, str]] = []
    long = _long_field(batch, spec)
    if long is not None:
        problems.append(long)
    for col in spec.float_columns:
        if col in batch:
            values = batch[col].astype(np.float64, copy=False)
            bad = ~np.isfinite(values)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append((i, f"{col} is {float(values[i])!r}; it must be finite"))
    for col in spec.exact_columns:
        values = batch[col] if col in batch else np.zeros(0, np.int64)
        if values.dtype.kind == "f":
            bad = np.abs(values) > _EXACT_FLOAT
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append(
                    (i, f"{col} {float(values[i])!r} cannot be compared exactly: give integer "
                        "ranks, or ranks below 2**53 in magnitude")
                )
    for col in spec.integer_columns:
        values = batch[col]
        lo, hi = _GRADE_RANGE
        bad = (values < lo) | (values > hi)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problems.append((i, f"{col} {int(values[i])} is outside {lo}..{hi}"))
    topic_dict = pc.dictionary_encode(batch["topic"])
    reserved = topic_dict.dictionary.index(RESERVED_TOPIC).as_py()
    if reserved >= 0:
        codes = topic_dict.indices.to_numpy(zero_copy_only=False)
        i = int(np.flatnonzero(codes == reserved)[0])
        problems.append((i, reserved_topic(RESERVED_TOPIC)))
    keys = _frame_keys(batch, topic_dict)
    again = pd.Series(keys).duplicated().to_numpy()
    if again.any():  # a key seen before: a repeat, unless 64-bit keys collide
        rows = np.flatnonzero(pd.Series(keys).isin(keys[again]).to_numpy())
        first = _first_repeat(batch.pairs(rows))
        if first is not None:
            problems.append((int(rows[first]), _twice(batch, int(rows[first]))))
    return (min(problems) if problems else None), keys, topic_dict


def _text_bytes(text: pa.Array) -> int:
    """Bytes of text of a pyarrow string or large_string array (from its offsets, O(1))."""
    import pyarrow as pa

    width = np.int64 if text.type == pa.large_string() else np.int32
    offsets = np.frombuffer(text.buffers()[1], dtype=width)
    return int(offsets[text.offset + len(text)] - offsets[text.offset])


def _long_field(batch: _Batch, spec: _Spec) -> tuple[int, str] | None:
    """The first row with a text field longer than :data:`MAX_FIELD_BYTES`, if any."""
    import pyarrow.compute as pc

    found = []
    for col in spec.string_columns:
        if col in batch and len(batch):
            text = batch[col]
            if _text_bytes(text) <= MAX_FIELD_BYTES:
                continue  # no field can be longer than the column's whole text
            lengths = pc.binary_length(text)
            if pc.max(lengths).as_py() > MAX_FIELD_BYTES:
                i = int(np.flatnonzero(lengths.to_numpy(zero_copy_only=False) > MAX_FIELD_BYTES)[0])
                found.append((i, f"{col} of {size_text(int(lengths[i].as_py()))}: a field may "
                                 f"hold at most {size_text(MAX_FIELD_BYTES)}"))
    return min(found) if found else None


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


def read_keyed_table(path: PathLike, spec: _Spec) -> _Keyed:
    """:func:`read_table` and the rows' ``(topic, docid)`` keys
    (:func:`~irstab.io.keys.pair_keys`), hashed once for the duplicate check."""
    parsed = _read_parsed(path, spec)
    frame = parsed.frame()
    if frame.index.name == "line":
        frame = frame.reset_index(drop=True)
    return frame, parsed.keys()


def read_run_columns(path: PathLike) -> RunColumns:
    """A TREC run file's rows as arrays (:class:`RunColumns`), read and checked as
    :func:`~irstab.io.read_run` reads them, but with no frame built: the topics as codes
    (encoded once, by the duplicate check), the document ids as parsed."""
    return _read_parsed(path, RUN).run_columns()


def arrow_strings(values, large: bool = False) -> pa.Array:
    """Ids (a pandas column, numpy or list, any dtype) as one pyarrow string array.

    Zero-copy for pandas' pyarrow-backed string columns when ``large`` (a
    ``large_string`` array, as pandas holds them, is returned as is); else they are
    copied to ``string``.
    """
    import pyarrow as pa

    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(
        values if isinstance(values, (pd.Series, pd.Index, np.ndarray)) else list(values))
    if isinstance(arr, pa.ChunkedArray):  # one chunk (a pandas column): no copy
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    if arr.type != pa.string() and not (large and arr.type == pa.large_string()):
        arr = arr.cast(pa.string())
    return arr
