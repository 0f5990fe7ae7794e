"""The out-of-core batch plan and its batches: jobs balanced over workers, batches closed at
the budget by the tensors built, runs larger than a batch split by topics.

Oracles: closed-form job and batch sizes (equal runs split evenly, tensor bytes ``2 x
topics x ranks`` computed here from how the files were written), a dynamic program for
the linear partition problem (the lightest possible heaviest group), and the scores of
the whole Collection built at once.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import irstab
from irstab.collection.batches import topic_parts
from irstab.collection.outofcore import pack, plan
from irstab.evaluation import score_runs


def write_run(path: Path, n_topics: int, docs: int, first_topic: int = 0) -> Path:
    """A TREC run of ``n_topics`` topics of ``docs`` documents each (scores descending)."""
    with open(path, "w") as fh:
        for t in range(first_topic, first_topic + n_topics):
            fh.writelines(f"q{t} Q0 d{t}_{r} {r + 1} {1000 - r} x\n" for r in range(docs))
    return path


def flat(jobs) -> list[str]:
    """The files of the jobs in order, a file's topic partitions counted once."""
    return [f for f, _ in itertools.groupby(f for fs, _ in jobs for f in fs)]


def test_equal_runs_are_spread_evenly_over_twice_the_workers(tmp_path):
    """100 runs, a budget for 84 of them, 2 workers: 4 jobs of 25 (not 84 + 16)."""
    files = [write_run(tmp_path / f"r{i:03d}", 4, 3) for i in range(100)]
    nominal = 2 * 4 * 1000  # 4 topics x depth 1000 x 2 bytes: an upper bound, fits 84 a job
    jobs = plan(files, 4, 1000, 84 * nominal, workers=2)
    assert [len(fs) for fs, _ in jobs] == [25, 25, 25, 25]
    assert all(p is None for _, p in jobs)
    assert flat(jobs) == [str(f) for f in files]
    jobs = plan(files, 4, 1000, 84 * nominal, workers=1)  # 2 jobs a worker: 50 + 50
    assert [len(fs) for fs, _ in jobs] == [50, 50]
    jobs = plan(files[:3], 4, 1000, 84 * nominal, workers=2)  # fewer files than 2 x workers
    assert [len(fs) for fs, _ in jobs] == [1, 1, 1]


def write_qrels(path: Path, n_topics: int) -> Path:
    """Each topic's first two documents judged (grades 2 and 1)."""
    path.write_text("".join(f"q{t} 0 d{t}_{r} {2 - r}\n" for t in range(n_topics) for r in (0, 1)))
    return path


def recorded_batches(files, n_topics, depth, max_bytes, tmp_path):
    """:func:`batch_result` of all ``files`` as one job: each piece's topic range, its runs'
    files and the grade-tensor bytes of the Collection it scored (2 per cell: grades and
    judged flags)."""
    from irstab.collection.index import QrelsIndex
    from irstab.collection.outofcore import batch_result

    index = QrelsIndex.from_qrels(irstab.read_qrels(write_qrels(tmp_path / "qrels", n_topics)))
    pieces, _ = batch_result([str(f) for f in files], index, depth, "score",
                             lambda c: c.grades.nbytes + c.judged.nbytes, max_bytes=max_bytes)
    return [(part, [Path(f).name for f, _, _ in labels], nbytes)
            for part, labels, nbytes, *_ in pieces]


def test_deep_runs_close_batches_at_the_budget_by_the_tensors_built(tmp_path):
    """At depth 10,000 a run of 3 topics may need 2 x 3 x 10,000 = 60,000 bytes, more than a
    budget of 50,000: the plan packs the files by their text, and the job closes a batch
    before the run that would take it past the budget. These runs are 2,000 deep: 2 x 3 x
    2,000 = 12,000 bytes each, 4 a batch (48,000)."""
    files = [write_run(tmp_path / f"r{i}", 3, 2000) for i in range(8)]
    jobs = plan(files, 3, 10_000, 50_000, workers=1)
    assert [len(fs) for fs, _ in jobs] == [4, 4] and all(p is None for _, p in jobs)
    jobs = plan(files, 3, 10_000, 50_000, workers=2)  # 2 x 2 workers: 4 jobs of 2
    assert [len(fs) for fs, _ in jobs] == [2, 2, 2, 2]
    assert flat(jobs) == [str(f) for f in files]
    got = recorded_batches(files, 3, 10_000, 50_000, tmp_path)
    assert [(p, names, n) for p, names, n in got] == [
        (None, [f"r{i}" for i in range(4)], 48_000), (None, [f"r{i}" for i in range(4, 8)], 48_000)]
    # capped by the depth kept: 2 x 3 x 500 = 3,000 bytes a run, all 8 in one batch
    assert [n for _, _, n in recorded_batches(files, 3, 500, 50_000, tmp_path)] == [24_000]


def test_a_run_larger_than_a_batch_is_split_by_topics_from_one_reading(tmp_path, monkeypatch):
    """12 topics; a 5-deep run needs 2 x 12 x 5 = 120 bytes, a 50-deep run 1,200. Under a
    budget of 500 only the deep run is split, into ceil(1,200 / 500) = 3 topic ranges of
    2 x 4 x 50 = 400 bytes, and every file is read once (formerly once per range)."""
    import irstab.collection.reduce as reduce_module

    shallow = [write_run(tmp_path / f"s{i}", 12, 5) for i in range(4)]
    deep = write_run(tmp_path / "deep", 12, 50)
    files = shallow[:2] + [deep] + shallow[2:]
    assert all(p is None for _, p in plan(files, 12, 1000, 500, workers=1))  # nothing read
    reads = []
    real = reduce_module.read_run_columns
    monkeypatch.setattr(reduce_module, "read_run_columns",
                        lambda path: reads.append(Path(path).name) or real(path))
    got = recorded_batches(files, 12, 1000, 500, tmp_path)
    assert got == [(None, ["s0", "s1"], 240), ((0, 4), ["deep"], 400), ((4, 8), ["deep"], 400),
                   ((8, 12), ["deep"], 400), (None, ["s2", "s3"], 240)]
    assert reads == ["s0", "s1", "deep", "s2", "s3"]
    # under a budget of 1,200 the deep run fits whole, alone: 2 x 3 x 12 x 50 would not
    got = recorded_batches(files, 12, 1000, 1200, tmp_path)
    assert got == [(None, ["s0", "s1"], 240), (None, ["deep"], 1200), (None, ["s2", "s3"], 240)]


def test_the_plan_reads_no_file_and_balances_text(tmp_path, monkeypatch):
    """Past the budget at the depth kept, files are packed by their text without being read:
    a gzip counts the size its trailer declares (400), a plain file its size. Texts of 400,
    100, 100 and 200 bytes on one worker: 2 jobs, 400 + 400 (the lightest heaviest job);
    under a budget of 10 a job reads at most 20 x 10 = 200 bytes of text (the gzip alone)."""
    import gzip

    import pyarrow.csv

    from irstab.collection.batches import TEXT_PER_TENSOR

    def refuse(*args, **kwargs):
        raise AssertionError("the plan parsed a file")

    monkeypatch.setattr(pyarrow.csv, "open_csv", refuse)
    monkeypatch.setattr(pyarrow.csv, "read_csv", refuse)
    packed = tmp_path / "a.gz"
    packed.write_bytes(gzip.compress(b"x" * 400))
    plain = [tmp_path / "b", tmp_path / "c", tmp_path / "d"]
    for f, n in zip(plain, (100, 100, 200)):
        f.write_bytes(b"y" * n)
    files = [packed] + plain
    every = np.iinfo(np.int64).max // 100
    assert plan(files, 5, every, 1000, workers=1) == [([str(packed)], None),
                                                      ([str(f) for f in plain], None)]
    assert TEXT_PER_TENSOR == 20
    assert plan(files, 5, every, 10, workers=1) == [
        ([str(packed)], None), ([str(plain[0]), str(plain[1])], None), ([str(plain[2])], None)]


def test_a_table_source_is_split_by_topics_at_the_depth_kept(tmp_path):
    """A Parquet file may hold several runs: at depth 100 it is sized 2 x 5 x 100 = 1,000
    bytes, split under a budget of 500 into 2 topic ranges, 0..2 and 2..5 (linspace(0, 5, 3)
    rounded half to even); the text files beside it stay whole."""
    import pandas as pd

    table = tmp_path / "runs.parquet"
    pd.DataFrame({"run": ["a"], "topic": ["q0"], "docid": ["d0_0"], "rank": [1],
                  "score": [1.0]}).to_parquet(table)
    text = [write_run(tmp_path / f"t{i}", 5, 3) for i in range(2)]
    assert plan([text[0], table, text[1]], 5, 100, 500, workers=1) == [
        ([str(text[0])], None), ([str(table)], (0, 2)), ([str(table)], (2, 3)),
        ([str(table)], (3, 5)), ([str(text[1])], None)]
    # 200 bytes a topic under a budget of 500: 2 topics a range at most, so 3 ranges
    assert topic_parts(1000, 5, 500) == [(0, 2), (2, 3), (3, 5)]
    assert topic_parts(400, 5, 500) == [(0, 5)]
    assert topic_parts(10**9, 5, 1) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]  # a topic each


@given(st.integers(1, 60), st.integers(1, 500), st.integers(1, 50_000))
def test_topic_parts_cover_the_topics_each_within_the_budget(n_topics, ranks, max_bytes):
    # oracle: a range of h topics needs 2 x h x ranks bytes; it fits unless a single topic
    # alone exceeds the budget; the ranges cover 0..n_topics in order, without gaps
    need = 2 * n_topics * ranks
    parts = topic_parts(need, n_topics, max_bytes)
    assert parts[0][0] == 0 and parts[-1][1] == n_topics
    assert all(a < b for a, b in parts) and all(
        parts[i][1] == parts[i + 1][0] for i in range(len(parts) - 1))
    assert all(2 * (b - a) * ranks <= max_bytes or b - a == 1 for a, b in parts)
    if need <= max_bytes:
        assert parts == [(0, n_topics)]


def test_a_split_table_warns_about_its_tied_runs_by_name(tmp_path):
    """A Parquet file of 3 runs, split by the plan into topic partitions: the run ranked by
    ties (q, all scores equal) is named in the warning, and only it, as when the whole
    Collection is built at once (the oracle)."""
    import warnings

    import pandas as pd

    n_topics = 6
    write_qrels(tmp_path / "qrels", n_topics)
    frames = [pd.DataFrame({"run": name, "topic": f"q{t}", "docid": [f"d{t}_{r}" for r in range(20)],
                            "rank": np.arange(1, 21),
                            "score": np.ones(20) if name == "q" else 20.0 - np.arange(20)})
              for name in ("p", "q", "r") for t in range(n_topics)]
    (tmp_path / "runs").mkdir()
    pd.concat(frames).to_parquet(tmp_path / "runs" / "m.parquet")
    write_run(tmp_path / "runs" / "z", n_topics, 20)

    def tied_warning(**kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if kwargs:
                score_runs(tmp_path / "qrels", tmp_path / "runs", ["AP"], depth=100, **kwargs)
            else:
                irstab.Collection.from_files(tmp_path / "qrels", tmp_path / "runs", depth=100)
        return [str(w.message) for w in caught if "same score" in str(w.message)]

    budget = 2 * n_topics * 100 // 3  # the table sized at depth 100: 3 partitions
    assert len(plan([tmp_path / "runs" / "m.parquet"], n_topics, 100, budget)) == 3
    got, want = tied_warning(max_batch_bytes=budget, workers=0), tied_warning()
    assert got == want and len(got) == 1 and "q (100% of ranks tied)" in got[0]
    assert "p (" not in got[0] and "r (" not in got[0]


def partition_optimum(w: list[int], k: int) -> int:
    """Lightest heaviest group of ``w`` cut into at most ``k`` contiguous groups (DP)."""
    n = len(w)
    cum = np.r_[0, np.cumsum(w)]
    best = {(0, 0): 0}
    for j in range(1, k + 1):
        for i in range(1, n + 1):
            best[(i, j)] = min(max(best.get((m, j - 1), np.inf), cum[i] - cum[m])
                               for m in range(i))
    return int(min(best[(n, j)] for j in range(1, k + 1)))


@given(st.lists(st.integers(1, 50), min_size=1, max_size=9), st.integers(1, 120),
       st.integers(1, 5))
def test_pack_is_contiguous_within_budget_balanced(w, cap, jobs):
    groups = pack(np.array(w), cap, jobs)
    assert groups[0][0] == 0 and groups[-1][1] == len(w)
    assert all(a < b for a, b in groups) and all(
        groups[g][1] == groups[g + 1][0] for g in range(len(groups) - 1))
    weights = [sum(w[a:b]) for a, b in groups]
    assert all(x <= cap or b - a == 1 for x, (a, b) in zip(weights, groups))
    assert len(groups) >= min(jobs, len(w))
    # no more groups than the budget or the balance asks for, and the heaviest is the
    # lightest any cut into that many contiguous groups achieves
    fewest = len(pack(np.array(w), cap))
    assert len(groups) == max(fewest, min(jobs, len(w)))
    assert max(weights) == partition_optimum(w, len(groups))


def test_pack_never_spans_a_break():
    w = np.ones(10, dtype=np.int64)
    breaks = np.zeros(10, dtype=bool)
    breaks[3] = True
    groups = pack(w, 100, 1, breaks)
    assert groups == [(0, 3), (3, 10)]


@pytest.fixture(scope="module")
def deep_collection(tmp_path_factory):
    """6 simulated runs of 5 topics, 1,500 deep (deeper than the former nominal 1,000)."""
    root = tmp_path_factory.mktemp("deep")
    irstab.simulate.write_simulated(root, n_systems=6, n_topics=5, depth=1500, seed=4)
    return root


@pytest.mark.parametrize("max_bytes, workers", [
    (2 * 5 * 1500 * 6, 0),  # one budget holds all
    (2 * 5 * 1500 * 2, 2),  # 4 jobs (2 x 2 workers) of 1-2 runs, in a pool
    (2 * 5 * 1500 // 2, 1),  # every run split into 2 topic ranges
    (2 * 5 * 1500 // 2, 2),
])
def test_scores_equal_whole_collection_whatever_budget_and_workers(deep_collection, max_bytes,
                                                                   workers):
    measures = ["nDCG@10", "nDCG@1500", "AP", "R-prec", "bpref"]
    coll = irstab.Collection.from_files(deep_collection / "qrels.txt", deep_collection / "runs",
                                        depth=1500)
    scored = score_runs(deep_collection / "qrels.txt", deep_collection / "runs", measures,
                        depth=1500, max_batch_bytes=max_bytes, workers=workers)
    assert scored.systems == coll.systems and scored.topics == coll.topics
    for m in measures:
        np.testing.assert_allclose(scored.matrix(str(irstab.parse_measure(m))).to_numpy(),
                                   irstab.score_matrix(coll, m).to_numpy(), rtol=0, atol=1e-12)


def test_in_memory_runs_are_batched_by_their_depth():
    """7 runs of 9 topics 25 deep at depth 10,000: 2 x 9 x 25 = 450 bytes a run, so a
    budget of 900 makes batches of 2 (sized at 10,000 ranks, each run would be its own)."""
    sim = irstab.simulate.simulate_collection(n_systems=7, n_topics=9, depth=25, seed=3)
    coll = irstab.Collection.build(sim.qrels, sim.runs, depth=10_000)
    calls = []
    scored = score_runs(sim.qrels, sim.runs, ["nDCG@10", "AP"], depth=10_000,
                        max_batch_bytes=900, progress=calls.append)
    assert calls == [2, 2, 2, 1]
    for m in ("nDCG@10", "AP"):
        np.testing.assert_allclose(scored.matrix(m).to_numpy(),
                                   irstab.score_matrix(coll, m).to_numpy(), rtol=0, atol=1e-12)
