"""irstab equals trec_eval (via pytrec_eval) on all 37 TREC DL 2019 runs, per run and topic.

Oracle: pytrec_eval-terrier wraps trec_eval 9's C code, so irstab follows trec_eval 9 here
(``trec_eval=9``: scores compared in single precision). The run dictionaries are built
from the files with a plain Python parser, independent of irstab.io. trec_eval 10.0 itself
is the oracle of ``tests/trec_eval10/``.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import irstab

pytrec_eval = pytest.importorskip("pytrec_eval")

# irstab measure -> trec_eval measure, at relevance level 1 (trec_eval default)
LEVEL1 = {
    "nDCG@10": "ndcg_cut_10",
    "nDCG@20": "ndcg_cut_20",
    "nDCG@100": "ndcg_cut_100",
    "nDCG": "ndcg",
    "AP": "map",
    "P@10": "P_10",
    "RR": "recip_rank",
    "R-prec": "Rprec",
    "bpref": "bpref",
    "Recall@100": "recall_100",
    "Recall@1000": "recall_1000",
}
# binary measures again at trec_eval -l 2 (the track's relevance threshold)
LEVEL2 = {
    "AP(rel=2)": "map",
    "P(rel=2)@10": "P_10",
    "RR(rel=2)": "recip_rank",
    "R-prec(rel=2)": "Rprec",
    "bpref(rel=2)": "bpref",
    "Recall(rel=2)@100": "recall_100",
    "Recall(rel=2)@1000": "recall_1000",
}
TREC_MEASURES = {"ndcg_cut.10,20,100", "ndcg", "map", "P.10", "recip_rank", "Rprec", "bpref",
                 "recall.100,1000"}


def _plain_qrels(path):
    qrels = {}
    with open(path) as fh:
        for line in fh:
            topic, _, doc, grade = line.split()
            qrels.setdefault(topic, {})[doc] = int(grade)
    return qrels


def _plain_run(path):
    run, tag = {}, None
    with gzip.open(path, "rt") as fh:
        for line in fh:
            topic, _, doc, _, score, tag = line.split()
            run.setdefault(topic, {})[doc] = float(score)
    return tag, run


@pytest.fixture(scope="module")
def oracle(dl2019_dir):
    qrels = _plain_qrels(dl2019_dir / "qrels.txt")
    evaluators = {
        level: pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=level)
        for level in (1, 2)
    }
    out = {}
    for path in sorted((dl2019_dir / "runs").glob("*.gz")):
        tag, run = _plain_run(path)
        out[tag] = {level: ev.evaluate(run) for level, ev in evaluators.items()}
    return out


@pytest.fixture(scope="module")
def ours(dl2019_dir):
    frame = irstab.evaluate(
        dl2019_dir / "qrels.txt", dl2019_dir / "runs", [*LEVEL1, *LEVEL2], per_topic=True,
        trec_eval=9,
    )
    return frame.set_index(["run", "measure", "topic"])["value"].sort_index()


@pytest.mark.parametrize(
    "measure, trec, level",
    [(m, t, 1) for m, t in LEVEL1.items()] + [(m, t, 2) for m, t in LEVEL2.items()],
)
def test_equals_trec_eval_per_run_and_topic(oracle, ours, measure, trec, level):
    assert len(oracle) == 37
    worst = 0.0
    for run, by_level in oracle.items():
        results = by_level[level]
        for topic, values in results.items():
            worst = max(worst, abs(ours[(run, measure, topic)] - values[trec]))
        # topics the run lacks: trec_eval -c scores them 0, so must we
        topics = ours.loc[(run, measure)].index.drop("all")
        for topic in set(topics) - set(results):
            assert ours[(run, measure, topic)] == 0.0
    assert worst <= 1e-9, f"{measure}: max |irstab - trec_eval| = {worst}"


def test_mean_over_topics_matches_readme_sanity_figures(ours):
    # ../shared/data/trec-dl-2019-passage/README.md, trec_eval 9's default settings (4
    # decimals); trec_eval 10.0 prints map 0.4724 (tests/trec_eval10/full.json.xz)
    assert ours[("TUA1-1", "nDCG@10", "all")] == pytest.approx(0.7314, abs=5e-5)
    assert ours[("TUA1-1", "nDCG", "all")] == pytest.approx(0.6629, abs=5e-5)
    assert ours[("TUA1-1", "AP", "all")] == pytest.approx(0.4723, abs=5e-5)
    assert ours[("TUA1-1", "AP(rel=2)", "all")] == pytest.approx(0.4571, abs=5e-5)
    best = ours.xs(("nDCG@10", "all"), level=("measure", "topic")).idxmax()
    assert best == "idst_bert_p1"
    assert ours[(best, "nDCG@10", "all")] == pytest.approx(0.7645, abs=5e-5)


def test_trec_eval_10_reads_scores_as_doubles(dl2019_dir):
    # TUA1-1's topics 148538 and 156493 hold scores that single precision merges: trec_eval 9
    # breaks the tie by docid, trec_eval 10 keeps the order of the doubles, which moves a
    # relevant document on 148538 (on 156493 the tied documents are equally judged). map of
    # TUA1-1 is 0.4724 in trec_eval 10.0's output and 0.4723 in trec_eval 9's (pytrec_eval)
    run = dl2019_dir / "runs" / "TUA1-1.gz"
    ten = irstab.evaluate(dl2019_dir / "qrels.txt", run, "map", per_topic=True)
    nine = irstab.evaluate(dl2019_dir / "qrels.txt", run, "map", per_topic=True, trec_eval=9)
    ten, nine = (f.set_index("topic")["value"] for f in (ten, nine))
    assert (round(ten["all"], 4), round(nine["all"], 4)) == (0.4724, 0.4723)
    assert set(ten.index[ten != nine]) == {"148538", "all"}


def test_collection_shape(dl2019):
    # README of the data: 37 runs, 43 judged topics, grades 0-3, depth 1000
    assert dl2019.grades.shape == (37, 43, 1000)
    assert dl2019.max_grade == 3
    # 9,260 qrels lines: 5158 + 1601 + 1804 + 697 by grade (counted with awk)
    assert dl2019.grade_counts.sum(axis=0).tolist() == [5158, 1601, 1804, 697]
    assert np.all(dl2019.run_length <= 1000)
