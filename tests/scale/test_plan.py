"""The out-of-core batch plan: jobs sized from the runs' real depth and balanced over workers.

Oracles: closed-form job sizes (equal runs split evenly, tensor bytes ``2 x topics x
ranks`` computed here from how the files were written), a dynamic program for the
linear partition problem (the lightest possible heaviest group), and the scores of the
whole Collection built at once.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import irstab
from irstab.collection.batches import size_bound
from irstab.collection.outofcore import pack, plan, run_need
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


def test_deep_runs_are_sized_from_their_depth_not_a_nominal_thousand(tmp_path):
    """At depth 10,000, runs 2,000 deep: 3 topics x 2,000 ranks x 2 bytes = 12,000 bytes a
    run; a budget of 50,000 holds 4 (the former plan sized them at 1,000 ranks, 6,000
    bytes, and put 8 = 96,000 bytes in a job)."""
    files = [write_run(tmp_path / f"r{i}", 3, 2000) for i in range(8)]
    assert run_need(files[0], 3, 10_000) == 2 * 3 * 2000
    assert run_need(files[0], 3, 500) == 2 * 3 * 500  # capped by the depth kept
    jobs = plan(files, 3, 10_000, 50_000, workers=1)
    assert [len(fs) for fs, _ in jobs] == [4, 4]
    assert all(len(fs) * 12_000 <= 50_000 for fs, _ in jobs)
    jobs = plan(files, 3, 10_000, 50_000, workers=2)  # 2 x 2 workers: 4 jobs of 2
    assert [len(fs) for fs, _ in jobs] == [2, 2, 2, 2]
    assert flat(jobs) == [str(f) for f in files]


def test_shallow_wide_runs_are_read_once_deep_ones_split_by_topics(tmp_path):
    """12 topics; a 5-deep run needs 2 x 12 x 5 = 120 bytes, a 50-deep run 1,200. Under a
    budget of 500 only the deep run is split, into ceil(1,200 / 500) = 3 topic ranges;
    the nominal depth (1,000: 24,000 bytes) would have split all of them."""
    shallow = [write_run(tmp_path / f"s{i}", 12, 5) for i in range(4)]
    deep = write_run(tmp_path / "deep", 12, 50)
    files = shallow[:2] + [deep] + shallow[2:]
    jobs = plan(files, 12, 1000, 500, workers=1)
    assert jobs == [([str(shallow[0]), str(shallow[1])], None),
                    ([str(deep)], (0, 4)), ([str(deep)], (4, 8)), ([str(deep)], (8, 12)),
                    ([str(shallow[2]), str(shallow[3])], None)]
    # the same runs under a budget of 1,200: the deep one fits, nothing is split
    jobs = plan(files, 12, 1000, 1200, workers=1)
    assert all(p is None for _, p in jobs) and flat(jobs) == [str(f) for f in files]
    assert all(sum(run_need(Path(f), 12, 1000) for f in fs) <= 1200 for fs, _ in jobs)


def test_a_small_plain_run_is_bounded_by_its_size_and_not_counted(tmp_path, monkeypatch):
    """A plain text of b bytes ranks at most (b + 1) // 10 documents in a topic (a line takes
    at least 10 bytes: five 1-byte fields, four spaces, a newline). A run of 4 topics x 3
    lines (20 + 19 + 19 bytes: 232 bytes, at most 23 ranks) at depth "every rank" needs at
    most 2 x 4 x 23 = 184 bytes: within a budget of 200 it is planned without counting; the
    same run gzipped, whose size says nothing of its lines, is counted (3 ranks)."""
    import gzip

    import irstab.io.scan

    plain = write_run(tmp_path / "plain", 4, 3)
    assert plain.stat().st_size == 4 * (20 + 19 + 19)
    packed = tmp_path / "packed.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    counted = []
    real = irstab.io.scan.deepest_ranking
    monkeypatch.setattr(irstab.io.scan, "deepest_ranking",
                        lambda path: counted.append(Path(path).name) or real(path))
    every = np.iinfo(np.int64).max
    assert plan([plain], 4, every, 200) == [([str(plain)], None)]
    assert counted == []
    assert size_bound(plain, 4, every) == 2 * 4 * 23 >= run_need(plain, 4, every) == 2 * 4 * 3
    assert size_bound(plain, 4, 5) == 2 * 4 * 5  # capped by the depth kept
    counted.clear()
    assert size_bound(packed, 4, every) is None
    assert plan([packed], 4, every, 200) == [([str(packed)], None)]
    assert counted == ["packed.gz"]
    # a budget below the size's bound: the plain run is counted (3 ranks: 24 bytes, one job)
    counted.clear()
    assert plan([plain], 4, every, 100) == [([str(plain)], None)]
    assert counted == ["plain"]


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
