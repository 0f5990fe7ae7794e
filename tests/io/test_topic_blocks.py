"""The duplicate check across a streamed file's batches, topic block by topic block.

A run lists its topics in blocks; a ``(topic, docid)`` pair can repeat across batches only
within a topic an earlier batch held too. These tests generate files in blocks (a block cut
by the batches' boundaries, a topic listed twice, repeats planted at every distance) and
hold the reader to the oracle of ``assert_read_as_a_set_finds`` (a Python set over the
whole file: the first line whose pair an earlier line holds, the same message naming the
file and line); and they check that a file in blocks builds no key set of all its rows,
the cost that grew with the depth of the runs.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from run_oracles import assert_read_as_a_set_finds

import irstab
from irstab.errors import InputFormatError
from irstab.io import keys, trec, trecbatch


def _write(path, rows, sep=" "):
    path.write_text("".join(sep.join([str(t), "Q0", f"d{d}", str(i + 1), f"{1000 - i}", "r"])
                            + "\n" for i, (t, d) in enumerate(rows)))


@st.composite
def blocked_rows(draw):
    """Rows ``(topic, docid number)`` in topic blocks: each block's documents distinct,
    topics possibly listed again in a later block, then some rows replaced by an earlier
    row's pair (a repeat within a block, across a block cut by a batch, or across two blocks
    of one topic)."""
    blocks = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 30)), min_size=1,
                           max_size=8))
    rows, start = [], {}
    for topic, size in blocks:
        first = start.get(topic, 0)  # a topic listed again: new documents, unless a repeat
        rows += [(topic, first + k) for k in range(size)]
        start[topic] = first + size
    for _ in range(draw(st.integers(0, 2))):
        if len(rows) < 2:
            break
        j = draw(st.integers(1, len(rows) - 1))
        i = draw(st.integers(0, j - 1))
        rows[j] = (rows[j][0], rows[i][1]) if rows[i][0] == rows[j][0] else rows[i]
    return rows


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=blocked_rows(), block_bytes=st.sampled_from([64, 200, 1000]),
       block_rows=st.sampled_from([1, 4, 64]), tabs=st.booleans())
def test_repeats_in_blocked_files_are_found_as_by_a_set(tmp_path, rows, block_bytes, block_rows,
                                                       tabs):
    # oracle: a Python set over the whole file (assert_read_as_a_set_finds). Batches of 64 to
    # 1,000 bytes (1-25 lines) cut the blocks everywhere; _BLOCK_ROWS 1 keeps every batch on
    # the topic blocks' route, 64 hands small batches to the key set (both routes, and the
    # switch from one to the other within a file); tabs take the careful reader (chunks of
    # 3 lines)
    path = tmp_path / "run"
    _write(path, rows, "\t" if tabs else " ")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(trec, "_BLOCK_BYTES", block_bytes)
        mp.setattr(trec, "_SMALL_BYTES", 0)
        mp.setattr(trec, "_CHUNK_LINES", 3)
        mp.setattr(trecbatch, "_BLOCK_ROWS", block_rows)
        assert_read_as_a_set_finds(path, rows)


@pytest.mark.parametrize("case, lines, first", [
    # a block cut by a batch: line 2,999 repeats line 1 of topic 1 (1,000 lines a topic)
    ("cut block", [(t, d) for t in range(3) for d in range(1000)][:2998] + [(2, 0)], 2999),
    # topic 0 listed again after topic 1, repeating its document 5
    ("topic twice", [(0, d) for d in range(1000)] + [(1, d) for d in range(1000)]
     + [(0, d) for d in range(1000, 1500)] + [(0, 5)], 2501),
])
def test_a_repeat_across_batches_names_the_file_and_line(tmp_path, monkeypatch, case, lines,
                                                         first):
    # the message as before the topic blocks (document, topic, file:line); batches of 4 KiB
    # (about 130 lines) put the two rows in different batches
    monkeypatch.setattr(trec, "_BLOCK_BYTES", 4096)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 0)
    path = tmp_path / "run"
    _write(path, lines)
    t, d = lines[first - 1]
    with pytest.raises(InputFormatError,
                       match=rf"^{path}:{first}: document 'd{d}' appears twice for topic '{t}'$"):
        irstab.read_run(path)


def test_a_file_in_blocks_builds_no_key_set_and_tests_only_cut_blocks(tmp_path, monkeypatch):
    # 20 topics x 1,000 documents in batches of 16 KiB (about 530 lines): every batch
    # boundary cuts a block. The key set of every row (what grew with depth: its table no
    # longer fits a cache) is never built; the rows tested against earlier batches are those
    # of the blocks that continue a topic of the previous batch, at most one block a batch
    monkeypatch.setattr(trec, "_BLOCK_BYTES", 16384)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 0)
    added, tested = [], []
    monkeypatch.setattr(keys.KeySet, "add", lambda self, k: added.append(len(k)))
    real = trecbatch._StreamCheck._in_blocks

    def spy(self, k, topics, heads):
        found = real(self, k, topics, heads)
        tested.append(self.tested)
        return found

    monkeypatch.setattr(trecbatch._StreamCheck, "_in_blocks", spy)
    path = tmp_path / "run"
    _write(path, [(t, d) for t in range(20) for d in range(1000)])
    run = irstab.read_run(path)
    assert len(run) == 20_000 and len(tested) > 20  # many batches
    assert added == []  # no key set
    # each batch tests at most the part of its first block that an earlier batch held (< 1,000
    # rows); over the file, fewer rows than it has
    assert all(b - a < 1000 for a, b in zip([0] + tested, tested)) and tested[-1] < 20_000


def test_a_file_not_in_blocks_still_uses_one_key_set(tmp_path, monkeypatch):
    # topics alternating row by row: no blocks, so every row goes into the key set once (the
    # linear route), and a repeat 5,000 lines apart is still found
    monkeypatch.setattr(trec, "_BLOCK_BYTES", 4096)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 0)
    added = []
    real_add = keys.KeySet.add
    monkeypatch.setattr(keys.KeySet, "add",
                        lambda self, k: added.append(len(k)) or real_add(self, k))
    rows = [(i % 2, i) for i in range(10_000)]
    path = tmp_path / "run"
    _write(path, rows)
    assert len(irstab.read_run(path)) == 10_000
    assert sum(added) == 10_000
    _write(path, rows + [(0, 4000)])
    with pytest.raises(InputFormatError, match=r"run:10001: document 'd4000' appears twice"):
        irstab.read_run(path)


def test_one_deep_topic_cut_by_many_batches_hands_over_to_the_key_set(tmp_path, monkeypatch):
    # one topic of 20,000 lines in ~150 batches: testing each batch against all the earlier
    # rows of its topic would be quadratic; past twice the rows read the key set takes over
    # (linear), and the repeat of line 3 on the last line is found
    monkeypatch.setattr(trec, "_BLOCK_BYTES", 4096)
    monkeypatch.setattr(trec, "_SMALL_BYTES", 0)
    checks = []
    real = trecbatch._StreamCheck._in_key_set
    monkeypatch.setattr(trecbatch._StreamCheck, "_in_key_set",
                        lambda self, b, k: checks.append(len(k)) or real(self, b, k))
    rows = [(7, d) for d in range(20_000)]
    path = tmp_path / "run"
    _write(path, rows)
    assert len(irstab.read_run(path)) == 20_000
    assert checks and sum(checks) < 20_000  # handed over part-way
    _write(path, rows + [(7, 2)])
    with pytest.raises(InputFormatError, match=r"run:20001: document 'd2' appears twice"):
        irstab.read_run(path)
