"""The reader's vectorised shortcuts ([speed-2]) and the qrels lookup against plain oracles:
the same rows, grades and verdicts as the slower routes they replace."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.collection.index import QrelsIndex
from irstab.io.trecbatch import _all_equal, _repeated_rows, _shared_in_blocks


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60))
def test_repeated_rows_are_the_rows_whose_key_another_row_has(values):
    # oracle: pandas' duplicated(keep=False), the rows whose key occurs more than once
    keys = np.array(values, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    want = np.flatnonzero(pd.Series(keys).duplicated(keep=False).to_numpy())
    got = _repeated_rows(keys)
    assert (got is None and len(want) == 0) or got.tolist() == want.tolist()


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 40)), max_size=200))
def test_repeated_rows_screened_on_low_bits_are_exact_on_all_64(pairs):
    # keys that share their low 32 bits but differ above them pass the screen and must
    # not count as repeats; 41 low values reach both routes (at most 16 shared values
    # compared one by one, more sorted whole). Oracle: pandas' duplicated(keep=False)
    keys = np.array([(hi << 32) | (lo * 2654435761 % 2**32) for hi, lo in pairs],
                    dtype=np.uint64)
    want = np.flatnonzero(pd.Series(keys).duplicated(keep=False).to_numpy())
    got = _repeated_rows(keys)
    assert (got is None and len(want) == 0) or got.tolist() == want.tolist()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 30)), min_size=1,
                         max_size=40), min_size=1, max_size=8), st.booleans())
def test_repeated_rows_in_blocks_are_the_repeats_within_each_block(blocks, cross):
    # A run's topic blocks: keys repeat within a block only, unless a 64-bit collision
    # makes two keys of different blocks equal (``cross``: the block id left out of the
    # keys, so that equal keys also stand in different blocks). Oracle: pandas'
    # duplicated(keep=False) within each block (every such row must be found) and over
    # all rows (nothing else may be returned). Equal sizes take the unpadded route,
    # uneven ones the padded one or the fallback; 31 low values reach the screen's limit.
    keys, block_of = [], []
    for b, rows in enumerate(blocks):
        for hi, lo in rows:
            top = hi if cross else (b << 8) | hi
            keys.append((top << 32) | (lo * 2654435761 % 2**32))
            block_of.append(b)
    keys = np.array(keys, dtype=np.uint64)
    frame = pd.DataFrame({"block": block_of, "key": keys})
    within = set(np.flatnonzero(frame.duplicated(keep=False).to_numpy()).tolist())
    anywhere = set(np.flatnonzero(frame["key"].duplicated(keep=False).to_numpy()).tolist())
    starts = np.cumsum([0] + [len(r) for r in blocks[:-1]])
    got = _repeated_rows(keys, starts)
    got = set() if got is None else set(got.tolist())
    assert within <= got <= anywhere
    if not cross:  # no equal keys across blocks: exactly the repeats within blocks
        assert got == within


def test_shared_in_blocks_pads_the_shorter_blocks_with_the_largest_value():
    # a padded block holding the padding value (2**32 - 1) once is no repeat, twice it is:
    # blocks of 3, 2, 1 and 2 rows, padded to 3 (enumerated by hand)
    top = 2**32 - 1
    low = np.array([7, top, 5, 9, 9, top, top, top], dtype=np.uint32)
    assert _shared_in_blocks(low, np.array([0, 3, 5, 6])).tolist() == [3, 4, 6, 7]
    assert _shared_in_blocks(low[:3], np.array([0])).tolist() == []


def test_shared_in_blocks_leaves_very_uneven_blocks_to_one_sort():
    low = np.arange(12, dtype=np.uint32)
    assert _shared_in_blocks(low, np.array([0, 10, 11])) is None  # 3 x 10 cells > 2 x 12


TAGS = ["ab", "a", "abc", "ba", "é", "e\u0301", ""]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(TAGS), min_size=1, max_size=30), st.sampled_from(TAGS),
       st.integers(0, 3), st.booleans())
def test_all_equal_never_says_equal_where_a_string_differs(values, value, skip, large):
    # oracle: Python string equality over the (sliced) array; False may also mean "not
    # known" (the caller then compares the strings), so True must be exact, and a column of
    # one non-empty tag repeated must be recognised
    arr = pa.array(values, pa.large_string() if large else pa.string()).slice(skip)
    exact = all(v == value for v in arr.to_pylist())
    got = _all_equal(arr, value)
    assert not got or exact
    if exact and value and len(arr):
        assert got


def _qrels_and_run(tmp_path, seed):
    rng = np.random.default_rng(seed)
    judged = {(str(t), f"d{d}"): int(rng.integers(0, 3))
              for t in range(1, 6) for d in rng.choice(5000, 600, replace=False)}
    (tmp_path / "q").write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in judged.items()))
    # judged pairs, unjudged ids, and judged ids under another topic
    retrieved = [(str(t), f"d{d}") for t in range(1, 6) for d in rng.choice(6000, 900, replace=False)]
    (tmp_path / "r").write_text("".join(f"{t} Q0 {d} {i + 1} {-i} r\n"
                                        for i, (t, d) in enumerate(retrieved)))
    return judged, retrieved


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lookup_of_many_keys_equals_a_dict_lookup(tmp_path, seed):
    # oracle: a Python dict {(topic, docid): grade} of the qrels text; 3,000 judged keys, so
    # that keys share the bitmap's entries and the hash table settles them
    judged, retrieved = _qrels_and_run(tmp_path, seed)
    index = QrelsIndex.from_qrels(irstab.read_qrels(tmp_path / "q"))  # 5 topics, all relevant
    run = irstab.read_run(tmp_path / "r")
    t = index.topic_index.get_indexer(run.frame["topic"].to_numpy())
    want_grade = [judged.get(p, 0) for p in retrieved]
    want_found = [p in judged for p in retrieved]
    for keys in (run.keys, None):
        grade, found = index.lookup(t, run.frame["docid"], keys)
        assert grade.tolist() == want_grade and found.tolist() == want_found
    # a key whose top bits (its bitmap entry) are a judged key's but whose other bits differ
    # is not that judged document, whatever its text says
    forged = run.keys ^ np.uint64(1)
    _, found = index.lookup(t, run.frame["docid"], forged)
    assert not found.any()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 20), max_size=40),
       st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 20), max_size=40))
def test_held_is_numpys_isin(values, held):
    # oracle: numpy.isin, on keys small and large (the largest key, keys past every held
    # one), repeated, and empty sides
    from irstab.io.trecbatch import _held

    v = np.array(values, dtype=np.uint64)
    h = np.array(held, dtype=np.uint64)
    assert _held(v, h).tolist() == np.isin(v, h).tolist()
