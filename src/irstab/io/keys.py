"""Which ``(topic, docid)`` rows a streamed file has already shown: hashed keys in one table.

A run or qrels file read in batches must not repeat a ``(topic, docid)`` pair
across batches. :class:`KeySet` answers that in time linear in the rows: each
row is hashed once (:func:`row_keys`, 64 bits) and inserted into one
open-addressing table (linear probing, at most half full, doubled when it fills;
a doubling re-inserts what is there, which costs O(n) over the whole file). A
batch's rows are inserted together, vectorised: one round per probe step, each
round handling every key still looking for its slot. Nothing already inserted is
rescanned per batch.

Two different pairs may share a 64-bit key (about n^2 / 2^65 for n rows: 3e-6 at
1e7 rows); a key found again is therefore only a *candidate* duplicate, which the
caller confirms against the rows themselves.

Memory: 12 bytes per slot (the key and a 32-bit scratch position), at most 2 slots per
key (24-48 bytes per row).
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["KeySet", "pair_keys", "row_keys", "string_hashes", "string_offsets", "array_source"]

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = np.uint64(0)


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: every input bit reaches every output bit (``h`` is overwritten:
    in place, no temporaries of its size but one)."""
    with np.errstate(over="ignore"):
        t = h >> np.uint64(30)
        h ^= t
        h *= _MIX1
        np.right_shift(h, np.uint64(27), out=t)
        h ^= t
        h *= _MIX2
        np.right_shift(h, np.uint64(31), out=t)
        h ^= t
        return h


def array_source(values):
    """``values`` as ``pyarrow.array`` is given them: a numpy array, pandas column or index
    as it is, anything else as a list. pandas is not imported for the test: a pandas
    object exists only where pandas was imported."""
    pd = sys.modules.get("pandas")
    if isinstance(values, np.ndarray) or (pd is not None
                                          and isinstance(values, (pd.Series, pd.Index))):
        return values
    return list(values)


def _strings(values):
    """Values as one pyarrow string array (zero-copy for pyarrow-backed columns), nulls as ''."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = values
    if not isinstance(arr, (pa.Array, pa.ChunkedArray)):
        arr = pa.array(array_source(values))
    if isinstance(arr, pa.ChunkedArray):  # one chunk (a pandas column): no copy
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    if arr.type not in (pa.string(), pa.large_string()):
        arr = arr.cast(pa.string())
    if arr.null_count:
        arr = pc.fill_null(arr, "")
    return arr


#: MASKS[k] keeps the first k bytes of a little-endian 8-byte word
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
#: Strings longer than this many bytes are hashed one by one (BLAKE2b, in C), not word by word
_LONG = 4096


def string_offsets(text) -> np.ndarray:
    """The ``len(text) + 1`` offsets of a pyarrow string or large_string array into its
    data buffer (a view: int32 or int64), its slice offset applied."""
    import pyarrow as pa

    width = np.int64 if text.type == pa.large_string() else np.int32
    return np.frombuffer(text.buffers()[1], dtype=width)[text.offset:text.offset + len(text) + 1]


def string_hashes(values) -> np.ndarray:
    """64-bit hashes of strings (a pyarrow array, pandas column, numpy array or list).

    Vectorised over the bytes, never through Python objects: the j-th 8-byte word of
    every string at least ``8 j + 1`` bytes long is read straight from the array's
    data buffer (as a little-endian integer, the bytes past the string's end masked
    off) and mixed into its hash, which starts from its byte length (strings
    differing only in trailing NULs differ in length). A string of at most 8 bytes is
    not mixed: its first word and length are its hash (mixing, a bijection, would make
    no two of them differ that do not); :func:`row_keys` mixes every field it combines,
    so row keys are spread all the same. A string longer than :data:`_LONG` (4 KiB) is
    hashed on its own by BLAKE2b (8 bytes of digest): the words of a string are mixed in
    sequence, one vectorised round per word, so a single id of a megabyte took 131,072
    rounds (about 5 s) where one C call takes a millisecond; at most 512 rounds are left.
    A string's hash depends on its bytes only, not on the other strings of the array;
    the work is linear in the bytes. Other values are hashed as their text (pyarrow's
    cast to string), a null as the empty string.
    """
    arr = _strings(values)
    if len(arr) == 0:
        return np.zeros(0, dtype=np.uint64)
    data = arr.buffers()[2]
    offsets = string_offsets(arr).astype(np.int64)
    first, last = int(offsets[0]), int(offsets[-1])
    # the bytes as aligned 8-byte words, one word of NULs at least after the end
    words = np.zeros((last - first) // 8 + 2, dtype="<u8")
    text = words.view(np.uint8)
    if data is not None and last > first:
        text[:last - first] = np.frombuffer(data, dtype=np.uint8)[first:last]
    start = offsets[:-1] - first
    length = np.diff(offsets)
    with np.errstate(over="ignore"):
        h = _words_at(words, start)
        h &= np.take(_MASKS, np.minimum(length, 8))
        h ^= length.view(np.uint64) + _GOLDEN  # lengths are >= 0: the same bits
        rows = np.flatnonzero(length > 8)
        if len(rows):  # a short string's code is its bytes; :func:`row_keys` mixes it
            h[rows] = _mix(h[rows])
        long = rows[length[rows] > _LONG]
        if len(long):
            h[long] = _long_hashes(text, start[long], length[long])
            rows = rows[length[rows] <= _LONG]
        if not len(rows):
            return h
        for j in range(1, int(-(-length[rows].max() // 8))):  # further words: the longer ones
            rows = rows[length[rows] > 8 * j]
            w = _words_at(words, start[rows] + 8 * j) & np.take(_MASKS, np.minimum(
                length[rows] - 8 * j, 8))
            h[rows] = _mix((h[rows] + _GOLDEN) ^ w)
    return h


_SHIFT_LAST, _ONE = np.uint64(63), np.uint64(1)


def _words_at(words: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The little-endian 8-byte word at each byte position ``pos`` (int64) of the bytes
    ``words`` holds (aligned 8-byte words; a word follows the last position read).

    Two aligned gathers joined by shifts: ``(w[q] >> 8r) | (w[q + 1] << (64 - 8r))`` with
    ``q, r = divmod(pos, 8)``, the second shift done as ``<< (63 - 8r) << 1`` so that no
    shift reaches 64 (r = 0 takes ``w[q]`` whole). A gather from a view of unaligned
    words (strides of one byte) made numpy copy the whole view contiguous first: 8
    bytes for each byte of text, freshly mapped memory at every file of 200,000 ids."""
    with np.errstate(over="ignore"):
        r = ((pos & 7) << 3).view(np.uint64)
        q = pos >> 3
        word = np.take(words, q)
        word >>= r
        high = np.take(words, q + 1)
        r ^= _SHIFT_LAST  # 63 - 8r (8r <= 56)
        high <<= r
        high <<= _ONE
        word |= high
        return word


def _long_hashes(text: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """BLAKE2b (8 bytes, little-endian) of each ``text[start:start + length]``."""
    import hashlib

    out = np.empty(len(start), dtype=np.uint64)
    for k, (a, n) in enumerate(zip(start.tolist(), length.tolist())):
        digest = hashlib.blake2b(text[a:a + n], digest_size=8).digest()
        out[k] = int.from_bytes(digest, "little")
    return out


def row_keys(*columns) -> np.ndarray:
    """One 64-bit key per row from the hashes of its fields (:func:`string_hashes` each):
    from a key of 0, each field in turn is combined as ``key = mix((key + golden) ^ hash)``."""
    key = _first_field(columns[0])
    for col in columns[1:]:
        _next_field(key, col)
    return key


def _first_field(hashes) -> np.ndarray:
    """:func:`row_keys` of one field, a new array: ``mix((0 + golden) ^ hash)``."""
    with np.errstate(over="ignore"):
        return _mix(np.bitwise_xor(np.asarray(hashes, dtype=np.uint64), _GOLDEN))


def _next_field(key: np.ndarray, hashes) -> None:
    """:func:`row_keys`' step for a further field, in place: ``mix((key + golden) ^ hash)``."""
    with np.errstate(over="ignore"):
        key += _GOLDEN
        key ^= hashes
        _mix(key)


def pair_keys(topics, docids, encoded_topics=None) -> np.ndarray:
    """The row keys of ``(topic, docid)`` pairs: ``row_keys(string_hashes(topics),
    string_hashes(docids))``, each distinct topic hashed once.

    The same pair gets the same key in every file and table, so the keys a reader
    computes for its duplicate check are also those a qrels lookup matches
    (:class:`irstab.collection.index.QrelsIndex`). ``encoded_topics``, if given, is
    ``pyarrow.compute.dictionary_encode`` of ``topics`` (a caller that has it).
    """
    import pyarrow.compute as pc

    if encoded_topics is None:
        encoded_topics = pc.dictionary_encode(_strings(topics))
    codes = encoded_topics.indices.to_numpy(zero_copy_only=False)
    # row_keys' first step on each distinct topic once, then taken for the rows: the same
    # keys, since the step is elementwise
    key = np.take(_first_field(string_hashes(encoded_topics.dictionary)), codes)
    _next_field(key, string_hashes(docids))
    return key


class KeySet:
    """A set of 64-bit keys with vectorised insertion (see the module docstring).

    Examples
    --------
    >>> s = KeySet()
    >>> s.add(np.array([5, 7], dtype=np.uint64)).tolist()
    []
    >>> s.add(np.array([9, 7, 9], dtype=np.uint64)).tolist()  # 7 was there; the second 9 too
    [1, 2]
    >>> len(s)
    3
    """

    def __init__(self, capacity: int = 1 << 12):
        size = 1 << max(4, int(capacity - 1).bit_length())
        self._table = np.zeros(size, dtype=np.uint64)
        self._owner = np.empty(size, dtype=np.int32)  # scratch: which key claims a slot
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def add(self, keys: np.ndarray) -> np.ndarray:
        """Insert ``keys``; return the positions of those that were already present.

        A key repeated within ``keys`` counts as present from its second occurrence
        on (which one goes first is not specified).
        """
        keys = np.asarray(keys, dtype=np.uint64)
        keys = np.where(keys == _EMPTY, np.uint64(1), keys)  # 0 marks an empty slot
        while 2 * (self._n + len(keys)) > len(self._table):
            self._grow()
        return self._insert(keys)

    def _grow(self) -> None:
        old = self._table[self._table != _EMPTY]
        self._table = np.zeros(2 * len(self._table), dtype=np.uint64)
        self._owner = np.empty(len(self._table), dtype=np.int32)
        self._n = 0
        self._insert(old)

    def _insert(self, keys: np.ndarray) -> np.ndarray:
        table, owner, mask = self._table, self._owner, len(self._table) - 1
        slot = (keys & np.uint64(mask)).astype(np.int64)
        pending, keys = np.arange(len(keys)), keys.copy()
        present = []
        while pending.size:
            cur = table[slot]
            found = cur == keys
            empty = cur == _EMPTY
            if found.any():
                present.append(pending[found])
            # each empty slot goes to one of the keys that want it this round: they all
            # write their position to the scratch, and the one whose write stayed wins
            # (no hashing, no sort; written last to first, the first usually stays); the
            # others look at the same slot again next round, where they find another key
            # (probe on) or their own (a repeat)
            want = np.flatnonzero(empty)
            owner[slot[want[::-1]]] = want[::-1]
            won = want[owner[slot[want]] == want]
            table[slot[won]] = keys[won]
            self._n += len(won)
            stay = ~found
            stay[won] = False
            slot = np.where(empty, slot, (slot + 1) & mask)  # a slot of another key: next one
            pending, slot, keys = pending[stay], slot[stay], keys[stay]
        return np.sort(np.concatenate(present)) if present else np.zeros(0, dtype=np.int64)
