"""The depth study's pools and restricted qrels against a naive pure-Python pool, and its
invariants: a pool as deep as the runs judges what the qrels judge of them, so the scores
equal the full qrels' scores; coverage and cost grow with depth."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import irstab
from irstab.design import depth_study, pool_ranks
from irstab.design.depth import pool_qrels
from irstab.errors import IRStabError


@pytest.fixture(scope="module")
def sim():
    return irstab.simulate.simulate_collection(n_systems=5, n_topics=6, depth=30, seed=11)


def naive_pool(runs, depth):
    """{(topic, docid): best rank}: sort each topic's rows by score desc (as doubles, as
    trec_eval 10), ties by docid desc, keep the first `depth`."""
    best = {}
    for r in runs:
        rows = list(r.frame[["topic", "docid", "score"]].itertuples(index=False))
        for topic in {row.topic for row in rows}:
            mine = [row for row in rows if row.topic == topic]
            mine.sort(key=lambda row: row.docid, reverse=True)
            mine.sort(key=lambda row: -float(row.score))
            for k, row in enumerate(mine[:depth], start=1):
                best[(topic, row.docid)] = min(best.get((topic, row.docid), k), k)
    return best


@pytest.mark.parametrize("depth", [1, 3, 10, 30])
def test_pool_ranks_equal_a_naive_pool(sim, depth):
    got = pool_ranks(sim.runs, depth)
    assert dict(zip(zip(got["topic"], got["docid"]), got["pool_rank"])) == naive_pool(
        sim.runs, depth)


def test_pool_qrels_keep_exactly_the_pooled_judgments(sim):
    pool = pool_ranks(sim.runs, 5)
    q = pool_qrels(sim.qrels, pool, 3)
    inside = {k for k, v in naive_pool(sim.runs, 3).items()}
    expect = {(t, d) for t, d in zip(sim.qrels.frame["topic"], sim.qrels.frame["docid"])
              if (t, d) in inside}
    assert set(zip(q.frame["topic"], q.frame["docid"])) == expect


def test_full_depth_pool_is_the_qrels_of_retrieved_documents(sim):
    # runs of depth 30 read to depth 30: the deepest pool holds every retrieved document, so
    # its qrels are the judgments of documents some run retrieved (filtered here by hand)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = depth_study(sim.qrels, sim.runs, ["nDCG@10", "AP"], (2, 10, 30), run_depth=30)
        retrieved = {(t, d) for r in sim.runs for t, d in zip(r.frame["topic"], r.frame["docid"])}
        q = sim.qrels.frame
        keep = [(t, d) in retrieved for t, d in zip(q["topic"], q["docid"])]
        hand = irstab.io.Qrels(path="hand", frame=q[keep].reset_index(drop=True))
        coll = irstab.Collection.build(hand, sim.runs, depth=30)
    full = irstab.evaluation.score_matrices(coll, ["nDCG@10", "AP"])
    deepest = study.level(30)
    for m in ("nDCG@10", "AP"):
        assert list(deepest.scores[m].columns) == list(full[m].columns)
        assert np.allclose(deepest.scores[m], full[m], atol=1e-12)
    sizes = [lv.judgments_per_topic for lv in study.levels]
    assert sizes == sorted(sizes) and sizes[0] >= 2  # every run adds its top documents
    assert all(0 <= lv.coverage <= 1 for lv in study.levels)


def test_dl2019_depth_study_matches_its_official_pool(dl2019_dir):
    # NIST judged (at least) the top 10 of the runs: coverage 1 to depth 10, less below
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = depth_study(dl2019_dir / "qrels.txt", dl2019_dir / "runs", ["nDCG@10"],
                            (5, 10, 50))
    cov = {lv.depth: lv.coverage for lv in study.levels}
    assert cov[5] == 1.0 and cov[10] > 0.999 and cov[50] < 0.5
    assert study.n_topics == 43 and study.n_systems == 37
    assert study.judgments == 9260  # qrels rows of the 43 evaluated topics
    assert study.level(10).tau["nDCG@10"] > study.level(5).tau["nDCG@10"]


def test_depth_errors(sim):
    with pytest.raises(IRStabError, match="^depths"):
        depth_study(sim.qrels, sim.runs, ["AP"], (0, 5), run_depth=30)
    with pytest.raises(IRStabError, match="^depths"):
        depth_study(sim.qrels, sim.runs, ["AP"], (50,), run_depth=30)
    with pytest.raises(IRStabError, match="^measures"):
        depth_study(sim.qrels, sim.runs, [], (5,), run_depth=30)
