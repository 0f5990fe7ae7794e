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

Memory: 8 bytes per slot, at most 2 slots per key (16-32 bytes per row).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["KeySet", "row_keys", "string_hashes"]

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = np.uint64(0)


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: every input bit reaches every output bit."""
    with np.errstate(over="ignore"):
        h = (h ^ (h >> np.uint64(30))) * _MIX1
        h = (h ^ (h >> np.uint64(27))) * _MIX2
        return h ^ (h >> np.uint64(31))


def string_hashes(values) -> np.ndarray:
    """64-bit hashes of strings (a pyarrow string array, pandas column or numpy array)."""
    import pyarrow as pa

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        values = values.to_numpy(zero_copy_only=False)
    return pd.util.hash_array(np.asarray(values, dtype=object), categorize=False)


def row_keys(*columns) -> np.ndarray:
    """One 64-bit key per row from the hashes of its fields (:func:`string_hashes` each)."""
    key = np.zeros(len(columns[0]), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for col in columns:
            key = _mix((key + _GOLDEN) ^ col)
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
        self._n = 0
        self._insert(old)

    def _insert(self, keys: np.ndarray) -> np.ndarray:
        table, mask = self._table, np.uint64(len(self._table) - 1)
        slot = (keys & mask).astype(np.int64)
        pending = np.arange(len(keys))
        present = []
        while pending.size:
            s = slot[pending]
            cur = table[s]
            found = cur == keys[pending]
            empty = cur == _EMPTY
            present.append(pending[found])
            # each empty slot goes to the first key that wants it this round (a hashed
            # duplicated(), not a sort); the others look at the same slot again next
            # round, where they find another key (probe on) or their own (a repeat)
            claim = np.flatnonzero(empty)
            claim = claim[~pd.Series(s[claim]).duplicated().to_numpy()]
            table[s[claim]] = keys[pending[claim]]
            won = np.zeros(len(pending), dtype=bool)
            won[claim] = True
            self._n += len(claim)
            move = ~found & ~empty  # a slot holding another key: probe the next one
            slot[pending[move]] = (slot[pending[move]] + 1) & int(mask)
            pending = pending[~found & ~won]
        return np.sort(np.concatenate(present)) if present else np.zeros(0, dtype=np.int64)
