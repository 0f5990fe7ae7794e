"""Assessor qrels as a facet: names, the rule for unjudged documents, scores vs trec_eval."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from irstab.collection.assessors import (
    MissingJudgment,
    assessor_collection,
    assessor_name,
    assessor_scores,
    read_assessor_qrels,
)
from irstab.errors import IRStabError, IRStabWarning
from irstab.io import write_qrels
from irstab.simulate import simulate_collection

pytrec_eval = pytest.importorskip("pytrec_eval")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """Base qrels of 6 topics and two assessors who re-judge part of the pool of some."""
    d = tmp_path_factory.mktemp("assessors")
    sim = simulate_collection(n_systems=4, n_topics=6, depth=30, seed=11)
    base = sim.qrels.frame
    topics = sorted(base["topic"].unique())
    rng = np.random.default_rng(3)
    (d / "judges").mkdir()
    own = {}
    for name, tset in (("ann", topics[:4]), ("bob", topics[2:])):
        part = base[base["topic"].isin(tset)]
        part = part.sample(frac=0.5, random_state=int(rng.integers(1000)))
        grades = rng.integers(0, 4, size=len(part))
        grades[:len(tset)] = 3  # at least one relevant document somewhere
        write_qrels(d / "judges" / f"{name}-qrels.txt", part["topic"], part["docid"], grades)
        own[name] = {(t, doc): int(g) for t, doc, g in zip(part["topic"], part["docid"], grades)}
    write_qrels(d / "nist.txt", base["topic"], base["docid"], base["grade"])
    basemap = {(t, doc): int(g) for t, doc, g in zip(base["topic"], base["docid"], base["grade"])}
    return d, sim, basemap, own, topics


def _trec(qrels: dict, runs) -> dict:
    q: dict = {}
    for (t, doc), g in qrels.items():
        q.setdefault(t, {})[doc] = g
    out = {}
    ev = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"})
    for r in runs:
        run: dict = {}
        for t, doc, s in zip(r.frame["topic"], r.frame["docid"], r.frame["score"]):
            run.setdefault(t, {})[doc] = float(s)
        for t, m in ev.evaluate(run).items():
            out[(r.name, t)] = m["ndcg_cut_10"]
    return out


@pytest.mark.parametrize("missing", ["base", "unjudged"])
def test_scores_equal_trec_eval_of_merged_qrels(setup, missing):
    d, sim, basemap, own, topics = setup
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        s = assessor_scores(d / "nist.txt", sim.runs, d / "judges", "nDCG@10", missing=missing)
    assert set(s["assessor"]) == {"nist", "ann", "bob"}
    for name, judged in own.items():
        covered = {t for t, _ in judged}
        if missing == "base":
            # oracle: the base grades of the assessor's topics, overridden by theirs
            merged = {k: v for k, v in basemap.items() if k[0] in covered}
            merged.update(judged)
        else:
            merged = dict(judged)
        ref = _trec(merged, sim.runs)
        got = s[s["assessor"] == name]
        assert set(got["topic"]) <= covered
        for r in got.itertuples():
            assert r.score == pytest.approx(ref.get((r.system, r.topic), 0.0), abs=1e-9)
    ref = _trec(basemap, sim.runs)
    for r in s[s["assessor"] == "nist"].itertuples():
        assert r.score == pytest.approx(ref.get((r.system, r.topic), 0.0), abs=1e-9)


def test_topics_and_design(setup):
    d, sim, _, own, topics = setup
    ac = assessor_collection(d / "nist.txt", sim.runs, d / "judges")
    per_topic = ac.cells.groupby("topic")["assessor"].nunique()
    # topics 0-1: nist + ann, 2-3: all three, 4-5: nist + bob
    assert per_topic.to_dict() == {t: 2 + (t in topics[2:4]) for t in topics}
    assert ac.missing is MissingJudgment.base
    no_base = assessor_collection(d / "nist.txt", sim.runs, d / "judges", include_base=False)
    assert set(no_base.cells["assessor"]) == {"ann", "bob"}


def test_names():
    assert assessor_name("x/froebe-qrels.txt") == "froebe"
    assert assessor_name("x/qrels.txt") == "qrels"
    assert assessor_name("x/eugene_qrels.gz") == "eugene"
    assert assessor_name("a.b.qrels") == "a.b"


def test_bad_inputs(setup, tmp_path):
    d, sim, *_ = setup
    with pytest.raises(IRStabError, match="no such assessor"):
        read_assessor_qrels(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(IRStabError, match="no qrels files"):
        read_assessor_qrels(tmp_path / "empty")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x-qrels.txt").write_text("1 0 d 1\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.txt").write_text("1 0 d 1\n")
    with pytest.raises(IRStabError, match="already taken"):
        read_assessor_qrels([tmp_path / "a", tmp_path / "b"])
    with pytest.raises(IRStabError, match="missing"):
        assessor_collection(d / "nist.txt", sim.runs, d / "judges", missing="maybe")
    other = tmp_path / "other-qrels.txt"
    other.write_text("nosuchtopic 0 d 1\n")
    with pytest.raises(IRStabError, match="same collection"):
        assessor_collection(d / "nist.txt", sim.runs, [other])
    bad = tmp_path / "bad-qrels.txt"
    bad.write_text("1 0 d one\n")
    with pytest.raises(IRStabError, match=r"bad-qrels.txt:1"):
        read_assessor_qrels(bad)
