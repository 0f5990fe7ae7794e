"""Scores batch by batch equal the scores of the whole Collection.

Oracle: measures computed on the Collection built at once (its arrays are
tested equal to the previous build and its measures to pytrec_eval).
"""

from __future__ import annotations

import numpy as np
import pytest

import irstab
from irstab.evaluation import score_runs

MEASURES = ["nDCG@10", "nDCG@100", "AP", "bpref", "P(rel=2)@10", "RR", "ERR@20", "R-prec"]


@pytest.mark.parametrize("batch_runs, workers", [(1, 0), (5, 2), (100, 0)])
def test_dl2019_batches_equal_whole_collection(dl2019, dl2019_dir, batch_runs, workers):
    per_run = 2 * dl2019.n_topics * 1000
    scored = score_runs(dl2019_dir / "qrels.txt", dl2019_dir / "runs", MEASURES,
                        max_batch_bytes=batch_runs * per_run, workers=workers)
    assert scored.systems == dl2019.systems and scored.topics == dl2019.topics
    for m in MEASURES:
        want = irstab.score_matrix(dl2019, m).to_numpy()
        np.testing.assert_allclose(scored.matrix(str(irstab.parse_measure(m))).to_numpy(), want,
                                   rtol=0, atol=1e-12)


def test_in_memory_runs_in_batches():
    sim = irstab.simulate.simulate_collection(n_systems=7, n_topics=9, depth=25, seed=3)
    coll = irstab.Collection.build(sim.qrels, sim.runs, depth=25)
    calls = []
    scored = score_runs(sim.qrels, sim.runs, ["nDCG@10", "AP"], depth=25,
                        max_batch_bytes=2 * 2 * 9 * 25, progress=calls.append)
    assert calls == [2, 2, 2, 1]
    for m in ("nDCG@10", "AP"):
        np.testing.assert_allclose(scored.matrix(m).to_numpy(),
                                   irstab.score_matrix(coll, m).to_numpy(), rtol=0, atol=1e-12)


def test_measure_deeper_than_depth_is_refused(dl2019_dir):
    with pytest.raises(irstab.MeasureError, match="raise --depth"):
        score_runs(dl2019_dir / "qrels.txt", dl2019_dir / "runs", ["nDCG@100"], depth=10)


@pytest.mark.parametrize("workers", [0, 2])
def test_topic_partitions_of_large_runs_equal_whole_collection(dl2019, dl2019_dir, workers):
    """A run larger than a batch is reduced in topic ranges; the columns join back."""
    from irstab.collection.index import QrelsIndex
    from irstab.collection.outofcore import batch_result

    third = -(-2 * dl2019.n_topics * 1000 // 3)  # a third of a 1000-deep run's grade tensor
    index = QrelsIndex.from_qrels(irstab.read_qrels(dl2019_dir / "qrels.txt"))

    def parts(name):
        pieces, _ = batch_result([str(dl2019_dir / "runs" / name)], index, 1000, "score",
                                 lambda c: None, max_bytes=third)
        return [p[0] for p in pieces]

    # 1000 ranks a topic (2,000 bytes): 14 topics a part at most, so 4 parts of 43
    assert parts("TUA1-1.gz") == [(0, 11), (11, 22), (22, 32), (32, 43)]
    # ICT-BERT2 ranks 20 documents per topic: its tensor fits a batch, whole
    assert parts("ICT-BERT2.gz") == [None]
    scored = score_runs(dl2019_dir / "qrels.txt", dl2019_dir / "runs", MEASURES,
                        max_batch_bytes=third, workers=workers)
    assert scored.systems == dl2019.systems and scored.topics == dl2019.topics
    for m in MEASURES:
        want = irstab.score_matrix(dl2019, m).to_numpy()
        np.testing.assert_allclose(scored.matrix(str(irstab.parse_measure(m))).to_numpy(), want,
                                   rtol=0, atol=1e-12)


def test_partition_index_looks_up_only_its_topics(dl2019_dir):
    from irstab.collection.index import QrelsIndex

    index = QrelsIndex.from_qrels(irstab.read_qrels(dl2019_dir / "qrels.txt"))
    q = irstab.read_qrels(dl2019_dir / "qrels.txt").frame
    part = index.part(10, 20).part(2, 5)  # topics 12..14 of the whole index
    assert part.topics == index.topics[12:15]
    rows = q[q["topic"].isin(index.topics[10:16])]
    t = part.topic_index.get_indexer(rows["topic"].to_numpy())
    grade, found = part.lookup(np.maximum(t, 0), rows["docid"].to_numpy())
    inside = t >= 0  # judged documents of topics 12..14 are found with their grades
    assert found[inside].all() and (grade[inside] == rows["grade"].to_numpy()[inside]).all()


def _tied_run(path, tied_topics, n_topics=4, docs=5, tag="r"):
    """A run whose first ``tied_topics`` topics give every document the same score."""
    with open(path, "w") as fh:
        for t in range(n_topics):
            fh.writelines(f"q{t} Q0 d{t}_{r} {r + 1} {1 if t < tied_topics else 10 - r} {tag}\n"
                          for r in range(docs))
    return path


@pytest.mark.parametrize("max_bytes, workers", [(10**6, 0), (2 * 4 * 5, 0), (2 * 2 * 5, 2)])
def test_tied_runs_are_named_once_whatever_the_batches(tmp_path, max_bytes, workers):
    """Runs a (every topic tied: 100 %), b (2 topics of 4: 10 of 20 ranks, 50 %) and c (none)
    make one warning whether the runs share a batch, have one each or are cut into topic
    partitions of 2 topics (b's are 100 % and 0 % tied, 10 ranks each: 50 % together)."""
    (tmp_path / "runs").mkdir()
    with open(tmp_path / "qrels", "w") as fh:
        fh.writelines(f"q{t} 0 d{t}_0 1\n" for t in range(4))
    for name, tied in (("a", 4), ("b", 2), ("c", 0)):
        _tied_run(tmp_path / "runs" / name, tied, tag=name)
    with pytest.warns(irstab.IRStabWarning) as caught:
        scored = score_runs(tmp_path / "qrels", tmp_path / "runs", ["AP"], depth=5,
                            max_batch_bytes=max_bytes, workers=workers)
    assert scored.systems == ("a", "b", "c")
    tied = [str(w.message) for w in caught if "same score" in str(w.message)]
    assert len(tied) == 1
    assert "2 run(s)" in tied[0] and "a (100% of ranks tied), b (50% of ranks tied);" in tied[0]
