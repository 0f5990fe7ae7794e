"""Row keys of (topic, docid): one hash per string, shared by the reader and the qrels lookup."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.collection.index import QrelsIndex
from irstab.io.keys import KeySet, pair_keys, row_keys, string_hashes, string_offsets

#: TREC DL 2019's qrels, read once (an index whose table a test replaces)
_DL_QRELS = irstab.read_qrels(Path(__file__).resolve().parents[3] / "shared" / "data"
                              / "trec-dl-2019-passage" / "qrels.txt")

# ids sharing 8-byte prefixes, differing in length or trailing NULs only, non-ASCII, empty,
# and longer than one word
TRICKY = ["abcdefgh", "abcdefghi", "abcdefgh\0", "abcdefgh" + "\0" * 8, "é", "e", "Ω1", "",
          "a" * 39, "a" * 40, "a" * 41, "x" * 1000]


def test_a_string_hash_depends_on_its_bytes_only():
    # oracle: each id hashed alone; the same id must hash the same inside any array, slice,
    # chunking or string type (the reader sees batches, the qrels index whole columns)
    alone = np.array([string_hashes([s])[0] for s in TRICKY], dtype=np.uint64)
    arrays = [TRICKY, pa.array(TRICKY), pa.array(TRICKY, pa.large_string()),
              pd.Series(TRICKY, dtype="str"), np.array(TRICKY, dtype=object),
              pa.chunked_array([TRICKY[:5], TRICKY[5:]])]
    for values in arrays:
        assert (string_hashes(values) == alone).all()
    assert (string_hashes(pa.array(["pad"] + TRICKY).slice(1)) == alone).all()
    # distinct strings: 12 distinct 64-bit values (a collision here would be a broken hash)
    assert len(set(alone.tolist())) == len(TRICKY)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=40))
def test_equal_strings_hash_equal_and_different_ones_differently(values):
    # oracle: Python string equality
    h = string_hashes(values)
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            assert (h[i] == h[j]) == (a == b)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TRICKY[:6] + ["1", "10"]), st.sampled_from(TRICKY)),
                min_size=1, max_size=40))
def test_pair_keys_are_the_row_keys_of_topic_and_docid(pairs):
    # oracle: row_keys of the two columns' hashes, every row's topic hashed and mixed on its
    # own (pair_keys mixes each distinct topic once and takes it for the rows)
    topics, docids = map(list, zip(*pairs))
    want = row_keys(string_hashes(topics), string_hashes(docids))
    assert (pair_keys(topics, docids) == want).all()


def test_the_reader_keys_are_the_keys_of_the_pairs(tmp_path):
    # oracle: pair_keys of the frame the reader returns, recomputed from its strings
    path = tmp_path / "run"
    path.write_text("".join(f"{t} Q0 {d} {r} {10 - r} tag\n"
                            for r, (t, d) in enumerate([("1", "a"), ("1", "é"), ("2", "a"),
                                                        ("10", "abcdefghijk")])))
    run = irstab.read_run(path)
    assert run.keys is not None and len(run.keys) == 4
    assert (run.keys == pair_keys(run.frame["topic"], run.frame["docid"])).all()
    assert len(set(run.keys.tolist())) == 4  # ("1", "a") and ("2", "a") differ by topic


def test_lookup_with_the_reader_keys_equals_a_dict_lookup(tmp_path):
    # oracle: a Python dict {(topic, docid): grade} built from the qrels text
    qrels = [("1", "a", 2), ("1", "b", 0), ("2", "a", 1), ("2", "é", 3), ("3", "x" * 20, 1)]
    (tmp_path / "q").write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in qrels))
    retrieved = [("1", "a"), ("1", "é"), ("2", "a"), ("2", "é"), ("2", "b"), ("3", "x" * 20),
                 ("3", "x" * 19), ("1", "b")]
    (tmp_path / "r").write_text("".join(f"{t} Q0 {d} {i + 1} {9 - i} r\n"
                                        for i, (t, d) in enumerate(retrieved)))
    index = QrelsIndex.from_qrels(irstab.read_qrels(tmp_path / "q"))
    run = irstab.read_run(tmp_path / "r")
    t = index.topic_index.get_indexer(run.frame["topic"].to_numpy())
    judged = {(t_, d): g for t_, d, g in qrels}
    want_grade = [judged.get(p, 0) for p in retrieved]
    want_found = [p in judged for p in retrieved]
    for keys in (run.keys, None):  # the reader's keys, or hashed by the lookup
        grade, found = index.lookup(t, run.frame["docid"], keys)
        assert grade.tolist() == want_grade and found.tolist() == want_found


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(1, 60), max_size=50), min_size=1, max_size=8))
def test_key_set_reports_exactly_the_keys_seen_before(batches):
    # oracle: a Python set fed the same batches; small keys, so probes collide and wrap
    # (from 1: key 0 marks an empty slot and is stored as 1, a candidate callers confirm)
    s, seen = KeySet(16), set()
    for batch in batches:
        keys = np.array(batch, dtype=np.uint64)
        got = s.add(keys).tolist()
        want, mine = [], set()
        for i, k in enumerate(batch):
            if k in seen or k in mine:
                want.append(i)
            mine.add(k)
        seen |= mine
        # the positions reported: as many as the oracle's, each a key seen before it or in
        # the batch (which of a batch's equal keys counts as first is not specified)
        assert len(got) == len(want)
        assert sorted(set(keys[got].tolist())) == sorted(set(keys[want].tolist()))
        assert len(s) == len(seen)


@pytest.mark.parametrize("size", [1, 7, 8, 9, 64, 65])
def test_hashes_of_ids_of_every_word_count_match_alone(size):
    # oracle: the id hashed alone, against the same id among ids of other lengths
    ids = ["q" * size, "r" * (size + 3), "s"]
    assert string_hashes(ids)[0] == string_hashes(["q" * size])[0]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10", "q\u00e9", "", "1 "]),
                          st.integers(1, 30)), min_size=1, max_size=12),
       st.booleans(), st.integers(0, 3))
def test_topics_encoded_in_blocks_equal_dictionary_encode(blocks, shuffle, offset):
    # oracle: pyarrow's dictionary_encode of the same rows (dictionary in order of first
    # appearance, the same indices), in blocks (as runs list topics) or shuffled, sliced
    import pyarrow.compute as pc

    from irstab.io.trecbatch import _encode_topics

    rows = ["pad"] * offset + [t for t, n in blocks for _ in range(n)]
    if shuffle:
        rows[offset:] = np.random.default_rng(len(rows)).permutation(rows[offset:]).tolist()
    topics = pa.array(rows).slice(offset)
    got, want = _encode_topics(topics), pc.dictionary_encode(topics)
    assert got.dictionary.to_pylist() == want.dictionary.to_pylist()
    assert got.indices.to_pylist() == want.indices.to_pylist()


_M64 = (1 << 64) - 1


def _mix_int(h: int) -> int:
    # SplitMix64's finaliser, on Python integers (the published constants)
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & _M64
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & _M64
    return h ^ (h >> 31)


def _hash_by_the_definition(raw: bytes) -> int:
    """string_hashes' docstring, one string at a time on Python integers: the first 8-byte
    little-endian word (NUL-padded) xor (length + golden), mixed if longer than 8 bytes;
    each further word ``mix((h + golden) ^ word)``."""
    golden = 0x9E3779B97F4A7C15
    word = [int.from_bytes(raw[i:i + 8].ljust(8, b"\0"), "little")
            for i in range(0, max(len(raw), 1), 8)]
    h = word[0] ^ ((len(raw) + golden) & _M64)
    if len(raw) > 8:
        h = _mix_int(h)
    for w in word[1:]:
        h = _mix_int(((h + golden) & _M64) ^ w)
    return h


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=70), min_size=1, max_size=30), st.integers(0, 9))
def test_hashes_follow_the_definition_at_every_byte_offset(values, skip):
    # oracle: the definition on Python integers. Slicing off the first strings moves every
    # string to another byte offset in the data buffer (the words read are unaligned)
    arr = pa.array(["x" * k for k in range(skip)] + values).slice(skip)
    want = [_hash_by_the_definition(v.encode("utf-8")) for v in values]
    assert string_hashes(arr).tolist() == want


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 40)), min_size=1, max_size=60,
                unique=True),
       st.lists(st.tuples(st.integers(0, 6), st.integers(0, 41)), max_size=80),
       st.booleans())
def test_rows_of_keys_equal_a_dict_lookup(judged, asked, top):
    """Judged keys crowded into few buckets of top bits (several keys a bucket, and
    buckets at both ends), asked keys of the same buckets or others: the position of
    each in the table, -1 for none. Oracle: a Python dict {key: position}."""
    import dataclasses

    index = QrelsIndex.from_qrels(_DL_QRELS)
    high = 63 if top else 40  # the bucket bits lead, or keys agree on all of them

    def key(pair):
        return np.uint64(((pair[0] << high) | pair[1] * 7919) & ((1 << 64) - 1))

    table = np.array([key(p) for p in judged], dtype=np.uint64)
    index = dataclasses.replace(index, table=table)
    where = {int(k): i for i, k in enumerate(table.tolist())}
    keys = np.array([key(p) for p in asked], dtype=np.uint64)
    assert index._rows_of(keys).tolist() == [where.get(int(k), -1) for k in keys.tolist()]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=20), st.integers(0, 25), st.integers(0, 25),
       st.booleans())
def test_string_offsets_are_the_slices_utf8_lengths(values, a, b, large):
    # the definition: each string's offset is its predecessor's plus its UTF-8 length,
    # counted from the slice's first string, in a sliced string or large_string array
    arr = pa.array(values, pa.large_string() if large else pa.string())
    lo, hi = min(a, b, len(values)), min(max(a, b), len(values))
    part = arr.slice(lo, hi - lo)
    off = string_offsets(part)
    assert off.dtype == (np.int64 if large else np.int32)
    assert len(off) == len(part) + 1
    sizes = [len(v.encode("utf-8", "surrogatepass")) for v in values[lo:hi]]
    assert (np.diff(off) == sizes).all()
    data = part.buffers()[2]
    got = [bytes(data)[s:e].decode("utf-8", "surrogatepass")
           for s, e in zip(off[:-1], off[1:])] if data is not None else [""] * len(part)
    assert got == values[lo:hi]
