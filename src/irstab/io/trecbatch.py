"""One batch of a TREC file's rows, and the checks every batch passes.

The layouts of the two file types (:data:`QRELS`, :data:`RUN`), the batch the readers of
:mod:`irstab.io.trec` hand over (:class:`_Batch`: text columns as pyarrow strings, the
others as numpy arrays), and the checks run on it, vectorised within a batch and linear
over a file (:class:`_StreamCheck`): finite scores, exact ranks, grades in -128..127, no
field longer than :data:`MAX_FIELD_BYTES`, no topic named :data:`RESERVED_TOPIC`, one run
tag per file, and no ``(topic, docid)`` twice, found through 64-bit keys hashed once per
row (:func:`~irstab.io.keys.pair_keys`) and confirmed against the text. A problem is
raised as :class:`_Located` (the row within its batch); the reader turns it into an
:class:`~irstab.errors.InputFormatError` naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .keys import KeySet, array_source, pair_keys
from .keys import string_offsets as _offsets
from .textfiles import size_text

if TYPE_CHECKING:  # pyarrow is imported where it is used: it is slow to import; pandas
    import pandas as pd  # only by the careful reader (irstab.io.trec), whose frames these take
    import pyarrow as pa

__all__ = ["QRELS", "RUN", "RESERVED_TOPIC", "MAX_FIELD_BYTES", "LINE_FIELDS", "arrow_strings",
           "reserved_topic"]

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


#: A file's batches are checked against each other through its topic blocks while a
#: batch's blocks average at least this many rows; otherwise through one key set
#: (:class:`_StreamCheck`).
_BLOCK_ROWS = 64

#: The longest field (topic, document id, tag, iteration) a TREC line may hold, in bytes;
#: a line may be at most :data:`LINE_FIELDS` times as long. Both bound the memory one line
#: can take while the file is streamed (a compressed file can expand to one endless token).
MAX_FIELD_BYTES = 1 << 20
LINE_FIELDS = 8


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

    def head(self, n: int) -> _Batch:
        """The first ``n`` rows (views: pyarrow slices, numpy slices)."""
        return _Batch({c: v.slice(0, n) if hasattr(v, "slice") else v[:n]
                       for c, v in self.columns.items()}, min(n, self.n),
                      None if self.arrow is None else self.arrow.slice(0, n))

    def __contains__(self, column: str) -> bool:
        return column in self.columns

    def __getitem__(self, column: str):
        return self.columns[column]

    def pairs(self, rows: np.ndarray) -> tuple[pa.Array, pa.Array]:
        """The ``topic, docid`` of some rows (few: those a repeat is confirmed on)."""
        return self.columns["topic"].take(rows), self.columns["docid"].take(rows)


class _StreamCheck:
    """The checks of :func:`_first_problem`, batch by batch, so that a bad file stops early.

    Within a batch every check runs at once, vectorised. Every row's ``(topic, docid)``
    is hashed once (:func:`~irstab.io.keys.pair_keys`); the keys find repeats within
    the batch, and across batches by one of two routes:

    - **Topic blocks.** A file lists its topics in blocks, usually (a TREC run groups a
      topic's lines): a pair can only repeat across batches within a topic that an
      earlier batch held too, and such a topic is a block cut by the batches' boundary
      or a block of a topic seen before (a file listing its topics twice). Only the rows
      of those blocks are tested, one vectorised ``isin`` per batch against the earlier
      rows of the same topics (their positions are kept per topic: nothing is searched).
      A batch whose blocks average fewer than :data:`_BLOCK_ROWS` rows, or rows tested
      against more than twice the rows read so far (one topic of a million lines cut by
      many batches), hands over to the second route for the rest of the file: the work
      stays linear in the rows.
    - **One key set.** Every row's key goes into one :class:`~irstab.io.keys.KeySet`,
      looked up and inserted together, linear in the rows whatever the order of the
      topics; the set is built when first needed from the keys kept so far.

    A key found again is confirmed against the rows' text (64-bit keys can collide); the
    row reported is the first whose pair an earlier row holds, by either route. A file
    of duplicates stops at its first batch instead of being read whole; a file read in
    one batch builds no key set and keeps no blocks. The keys are kept (:attr:`keys`):
    the qrels lookup matches the same keys; so are the batches' topic codes
    (:attr:`topics`, ``dictionary_encode`` of each batch's topics).
    """

    def __init__(self, spec: _Spec, batches: int | None = None):
        self.spec = spec
        self.batches = batches  # how many batches the file will give, if known (plain text)
        self.tag = None
        self.checked: list[_Batch] = []  # the batches checked so far (kept anyway: the result)
        self.keys: list[np.ndarray] = []  # their row keys
        self.topics: list = []  # their topics, dictionary-encoded
        self.seen: KeySet | None = None
        # topic -> (batch, start, stop) of its blocks so far; None: the key set's route
        self.spans: dict[str, list[tuple[int, int, int]]] | None = {}
        self.rows = 0  # rows checked, this batch included (the blocks' budget)
        self.tested = 0  # earlier rows the blocks' route has tested against

    def check(self, batch: _Batch) -> None:
        import pyarrow.compute as pc

        long = _long_field(batch, self.spec)
        if long is not None:  # the file is refused: only the rows before it are checked
            if long[0]:  # (a field of a megabyte is never hashed: that took seconds a field)
                self.check(batch.head(long[0]))
            raise _Located(*long)
        problems = []
        within, keys, topics, heads = _first_problem(batch, self.spec)
        if within is not None:
            problems.append(within)
        if "tag" in batch and len(batch):
            tags = batch["tag"]
            self.tag = tags[0].as_py() if self.tag is None else self.tag
            other = None if _all_equal(tags, self.tag) else pc.not_equal(tags, self.tag)
            if other is not None and pc.any(other).as_py():
                i = int(np.flatnonzero(other.to_numpy(zero_copy_only=False))[0])
                problems.append((i, f"a second run tag {tags[i].as_py()!r} (the file began with "
                                    f"{self.tag!r}); a run file must hold one run"))
        again = self._seen_before(batch, keys, topics, heads)
        if again is not None:
            problems.append(again)
        if problems:
            raise _Located(*min(problems))
        self.checked.append(batch)
        self.keys.append(keys)
        self.topics.append(topics)

    def _seen_before(self, batch: _Batch, keys: np.ndarray, topics,
                     heads) -> tuple[int, str] | None:
        """The first row of ``batch`` whose (topic, docid) an earlier batch held, if any."""
        self.rows += len(batch)
        candidates = None
        if self.spans is not None:
            candidates = self._in_blocks(keys, topics, heads)
            if candidates is None:
                self.spans = None  # the key set's route from now on
        if candidates is None:
            if not self.checked:
                return None  # a first batch: a key set is built if a second one comes
            candidates = self._in_key_set(batch, keys)
        if not len(candidates):
            return None
        wanted = np.unique(keys[candidates])
        earlier = [b.pairs(np.flatnonzero(np.isin(k, wanted)))
                   for b, k in zip(self.checked, self.keys)]
        first = _first_repeat([*earlier, batch.pairs(candidates)])
        n_earlier = sum(len(topics) for topics, _ in earlier)
        if first is None or first < n_earlier:
            return None
        i = int(candidates[first - n_earlier])
        return i, _twice(batch, i)

    def _in_key_set(self, batch: _Batch, keys: np.ndarray) -> np.ndarray:
        """Rows of ``batch`` whose key the key set holds (inserting them); the set is built
        from the earlier batches' keys when first needed."""
        if self.seen is None:  # only now do the earlier batches' keys go in
            rows = sum(map(len, self.keys)) + len(batch)
            if self.batches:  # sized for the whole file: no doubling and re-inserting
                rows = max(rows, self.batches * len(self.keys[0]))
            self.seen = KeySet(2 * rows)
            for k in self.keys:
                self.seen.add(k)
        return self.seen.add(keys)  # almost always none, or real repeats

    def _in_blocks(self, keys: np.ndarray, topics, heads) -> np.ndarray | None:
        """Rows whose key an earlier batch's row of the same topic has (sorted), through
        the topic blocks (the class docstring); None where the key set must take over.

        The current batch's blocks are recorded under their topics, so the next batch
        finds them."""
        n = len(keys)
        if heads is None or len(heads) * _BLOCK_ROWS > n:
            return None
        names = topics.dictionary.to_pylist()
        codes = topics.indices.to_numpy(zero_copy_only=False)[heads].tolist()
        bounds = np.r_[heads, n].tolist()
        b = len(self.checked)  # this batch's index once checked
        again: dict[str, list[tuple[int, int]]] = {}  # topics held before: this batch's blocks
        for code, start, stop in zip(codes, bounds[:-1], bounds[1:]):
            name = names[code]
            spans = self.spans.get(name)
            if spans is None:
                self.spans[name] = [(b, start, stop)]
                continue
            if spans[0][0] < b:
                again.setdefault(name, []).append((start, stop))
            spans.append((b, start, stop))
        if not again:
            return np.zeros(0, dtype=np.int64)
        earlier = [(c, s, e) for name in again for c, s, e in self.spans[name] if c < b]
        self.tested += sum(e - s for _, s, e in earlier)
        if self.tested > 2 * self.rows:
            return None
        held = np.concatenate([self.keys[c][s:e] for c, s, e in earlier])
        rows = np.concatenate([np.arange(s, e) for blocks in again.values() for s, e in blocks])
        rows.sort()
        return rows[_held(keys[rows], held)]

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


def _held(values: np.ndarray, held: np.ndarray) -> np.ndarray:
    """``numpy.isin(values, held)`` for 64-bit keys: ``held`` sorted, ``values`` found in it
    by binary search. Half the CPU of ``isin`` (which sorts both sides, and ``values`` twice:
    1.0 against 2.0 ms for 10,000 of each), the cost of a run 10,000 deep whose topics the
    batches cut."""
    ordered = np.sort(held)
    at = np.searchsorted(ordered, values)
    at[at == len(ordered)] = 0  # past the largest: compared with any held key, unequal
    return ordered[at] == values if len(ordered) else np.zeros(len(values), dtype=bool)


def _frame_keys(batch: _Batch, encoded_topics=None) -> np.ndarray:
    """The rows' ``(topic, docid)`` keys (:func:`~irstab.io.keys.pair_keys`)."""
    return pair_keys(batch["topic"], batch["docid"], encoded_topics)


def _repeated_rows(keys: np.ndarray, blocks: np.ndarray | None = None) -> np.ndarray | None:
    """The rows (in order) whose key another row has, or None.

    Screened on the keys' low 32 bits first: a sort of 4-byte integers takes about 40 % of
    the CPU of one of 8-byte integers (numpy's vectorised sort; itself a third of a hash
    table's ``duplicated``, 200,000 rows), and neighbours are compared. Keys are mixed, so
    distinct keys share their low 32 bits by chance only: about n^2 / 2^33 pairs (5 at
    200,000 rows). Only the rows holding a shared value (found by one comparison per
    value, for at most :data:`_SCREENED` values; else the keys are sorted whole) are
    compared on all 64 bits.

    ``blocks``: the first row of each block of rows that no row outside it can share a key
    with, as a run's topic blocks when each topic has one block (its keys hash the topic).
    Then the low bits are sorted block by block, as the rows of one padded array
    (:func:`_shared_in_blocks`). Rows whose keys are equal only across blocks (64-bit
    collisions of different pairs) are then not returned: a caller that confirms the
    repeats on the text (:func:`_first_problem`) finds none among them either way."""
    if len(keys) < 2:
        return None
    low = keys.astype(np.uint32)  # the low 32 bits
    found = None if blocks is None else _shared_in_blocks(low, blocks)
    if found is None:  # one sort of every row
        ordered = np.sort(low)
        same = ordered[1:] == ordered[:-1]
        if not same.any():
            return None
        shared = np.unique(ordered[1:][same])
        if len(shared) > _SCREENED:  # many: comparing every row with each costs more than a sort
            cand = None
        else:
            hit = low == shared[0]
            for value in shared[1:]:  # at most _SCREENED vectorised passes over the rows
                hit |= low == value
            cand = np.flatnonzero(hit)
    elif len(found) == 0:
        return None
    else:
        cand = found
    full = keys if cand is None else keys[cand]
    ordered = np.sort(full)
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return None
    rows = np.flatnonzero(np.isin(full, ordered[1:][same]))
    return rows if cand is None else cand[rows]


def _shared_in_blocks(low: np.ndarray, blocks: np.ndarray) -> np.ndarray | None:
    """The rows (in order) whose low bits another row of their block has; None where the
    blocks cannot be sorted as one array or share too many values (then every row is
    sorted, :func:`_repeated_rows`).

    The blocks are the rows of one ``(blocks, longest)`` array, the shorter ones padded
    with the largest value, sorted along the rows: a fifth of the CPU of one sort of every
    row (1.2 against 5.5 ms for 200 blocks of 1,000 rows: each row's sort stays in cache).
    The first ``size`` values of a padded row, sorted, are its block's values whatever they
    are (the padding is not below any of them), so only neighbours there are compared."""
    n = len(low)
    starts = np.asarray(blocks, dtype=np.int64)
    sizes = np.diff(np.r_[starts, n])
    width = int(sizes.max())
    if width * len(starts) > 2 * n:  # uneven blocks: the padding would outweigh the rows
        return None
    padded = not (sizes == width).all()
    if padded:
        grid = np.full((len(starts), width), np.iinfo(np.uint32).max, dtype=np.uint32)
        block = np.repeat(np.arange(len(starts)), sizes)
        grid[block, np.arange(n) - starts[block]] = low
    else:
        grid = low.reshape(len(starts), width)
    ordered = np.sort(grid, axis=1)
    same = ordered[:, 1:] == ordered[:, :-1]
    if padded:
        same &= np.arange(1, width) < sizes[:, None]
    b, j = np.nonzero(same)
    if len(b) > _SCREENED:
        return None
    hits = [starts[k] + np.flatnonzero(grid[k, :sizes[k]] == ordered[k, i + 1])
            for k, i in zip(b.tolist(), j.tolist())]  # at most _SCREENED passes over a block
    return np.unique(np.concatenate(hits)) if hits else np.zeros(0, dtype=np.int64)


#: Low-32-bit values shared by several keys up to which :func:`_repeated_rows` finds their
#: rows by comparisons (about n^2 / 2^33 of them for n distinct keys: 16 at 370,000 rows)
_SCREENED = 16


def _first_repeat(pairs) -> int | None:
    """Position of the first row whose (topic, docid) an earlier row holds, if any.

    ``pairs``: ``(topics, docids)`` string arrays (:meth:`_Batch.pairs`), or a list of
    such, whose rows are taken one after the other. Exact: the strings are compared as
    bytes (each column dictionary-encoded, a row's pair one integer code); the first row
    whose code an earlier row has, as ``pandas.DataFrame.duplicated`` finds it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = [pairs] if isinstance(pairs, tuple) else list(pairs)
    codes = []
    for c in range(2):
        column = [p[c] for p in parts]
        if len({a.type for a in column}) > 1:  # string and large_string: one type to join
            column = [a.cast(pa.large_string()) for a in column]
        encoded = pc.dictionary_encode(pa.chunked_array(column, column[0].type)).combine_chunks()
        codes.append(encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64))
    topic, docid = codes
    if len(topic) < 2:
        return None
    pair = topic * (int(docid.max()) + 1) + docid
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    repeat = np.flatnonzero(first[inverse.reshape(-1)] != np.arange(len(pair)))
    return int(repeat[0]) if len(repeat) else None


def _twice(batch: _Batch, i: int) -> str:
    return (f"document {batch['docid'][i].as_py()!r} appears twice for topic "
            f"{batch['topic'][i].as_py()!r}")


def _all_equal(text: pa.Array, value: str) -> bool:
    """Whether every string of ``text`` (no nulls) is ``value``: from the offsets (each
    string as long as ``value``) and one comparison of the bytes, with no string compared
    on its own (a run's tag column, one tag repeated on every line). False may also mean
    "not known": the caller then compares the strings."""
    raw = value.encode("utf-8", "surrogatepass")
    n, size = len(text), len(raw)
    offsets = _offsets(text)
    if n == 0 or size == 0 or offsets[-1] - offsets[0] != n * size:
        return False
    if not (np.diff(offsets) == size).all():
        return False
    # one memcmp of the bytes against the value repeated: a tenth of the CPU of comparing
    # them as an (n, size) array (0.1 against 1.1 ms for 200,000 tags of 6 bytes)
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    return data.tobytes() == raw * n


def _require_utf8(text: pa.Array) -> None:
    """Raise ``pyarrow.ArrowInvalid`` unless a string array's bytes are UTF-8, as the CSV
    reader's own check does (:func:`~irstab.io.trec._stream` parses with it off).

    The bytes are first tested for ASCII, one numpy pass over the data buffer (about 1 ms
    for 200,000 document ids); only text holding a byte of 0x80 or more is validated by
    pyarrow (``validate(full=True)``). The parser's check costs about 13 % of its CPU
    (TREC runs, 4 text columns of 6), whatever the bytes."""
    offsets = _offsets(text)
    if len(text) == 0 or offsets[-1] == offsets[0]:
        return
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    if data.max() >= 0x80:
        text.validate(full=True)


def _has_empty(text: pa.Array) -> bool:
    """Whether a string array (no nulls) holds an empty string (from its offsets)."""
    offsets = _offsets(text)
    return bool((offsets[1:] == offsets[:-1]).any())


def _first_problem(batch: _Batch, spec: _Spec):
    """The first row (0-based position) with a semantic problem and the message (or None),
    the rows' ``(topic, docid)`` keys (:func:`_frame_keys`, hashed once), their topics,
    dictionary-encoded, and the first row of each topic block (:func:`_topic_blocks`)."""
    problems: list[tuple[int, str]] = []  # (a field past the limit: _StreamCheck.check)
    for col in spec.float_columns:
        if col in batch and batch[col].dtype.kind not in "iub":  # integers are finite
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
    topic_dict, heads = _topic_blocks(batch["topic"])
    reserved = topic_dict.dictionary.index(RESERVED_TOPIC).as_py()
    if reserved >= 0:
        codes = topic_dict.indices.to_numpy(zero_copy_only=False)
        i = int(np.flatnonzero(codes == reserved)[0])
        problems.append((i, reserved_topic(RESERVED_TOPIC)))
    keys = _frame_keys(batch, topic_dict)
    # each topic in one block: a key (it hashes the topic) is repeated within its block only
    one_each = heads is not None and len(topic_dict.dictionary) == len(heads)
    rows = _repeated_rows(keys, heads if one_each else None)
    if rows is not None:  # repeats, unless 64-bit keys collide: confirmed on the text
        first = _first_repeat(batch.pairs(rows))
        if first is not None:
            problems.append((int(rows[first]), _twice(batch, int(rows[first]))))
    return (min(problems) if problems else None), keys, topic_dict, heads


def _encode_topics(topics: pa.Array) -> pa.DictionaryArray:
    """``pyarrow.compute.dictionary_encode(topics)``: the same dictionary (in order of first
    appearance) and indices (:func:`_topic_blocks`)."""
    return _topic_blocks(topics)[0]


def _topic_blocks(topics: pa.Array) -> tuple[pa.DictionaryArray, np.ndarray | None]:
    """``pyarrow.compute.dictionary_encode(topics)`` and the first row of each block of
    equal neighbouring topics (None when the rows are not in blocks).

    A run lists its topics in blocks, usually: then only the first topic of each block is
    hashed, found by comparing each row with the one before (a cheaper pass than hashing
    every row); otherwise (more than one block in 8 rows) every row is hashed and the
    blocks are not returned. The dictionary is in order of first appearance either way."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(topics)  # no nulls: the readers parse none (a null would take its block's code)
    if n < 2:
        return pc.dictionary_encode(topics), np.zeros(n, dtype=np.int64)
    change = pc.not_equal(topics.slice(1), topics.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    heads = np.flatnonzero(np.r_[True, change])
    if len(heads) > n // 8:  # not in blocks: hashing every row is as cheap
        return pc.dictionary_encode(topics), None
    first = pc.dictionary_encode(topics.take(heads))
    codes = np.repeat(first.indices.to_numpy(zero_copy_only=False), np.diff(np.r_[heads, n]))
    return pa.DictionaryArray.from_arrays(pa.array(codes, type=first.indices.type),
                                          first.dictionary), heads


def _text_bytes(text: pa.Array) -> int:
    """Bytes of text of a pyarrow string or large_string array (from its offsets, O(1))."""
    offsets = _offsets(text)
    return int(offsets[-1] - offsets[0])


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


def arrow_strings(values, large: bool = False) -> pa.Array:
    """Ids (a pandas column, numpy or list, any dtype) as one pyarrow string array.

    Zero-copy for pandas' pyarrow-backed string columns when ``large`` (a
    ``large_string`` array, as pandas holds them, is returned as is); else they are
    copied to ``string``.
    """
    import pyarrow as pa

    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(
        array_source(values))
    if isinstance(arr, pa.ChunkedArray):  # one chunk (a pandas column): no copy
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    if arr.type != pa.string() and not (large and arr.type == pa.large_string()):
        arr = arr.cast(pa.string())
    return arr
