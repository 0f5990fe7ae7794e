"""Every measure that carries an ir_measures name equals ir_measures on TREC DL 2019.

Oracle: ir_measures itself (MacAvaney, Macdonald & Ounis, ECIR 2022) and the tools it runs:
trec_eval (pytrec_eval) for AP, P, R, Rprec, RR, Bpref, nDCG, Success, IPrec, Set*, infAP,
NumRet/NumRel/NumRelRet and ``judged_only``; gdeval for ``ERR@k`` and
``nDCG(dcg='exp-log2')@k`` (five printed decimals); its own Judged provider for
``Judged@k``; cwl_eval for ``RBP(rel=1)``. The same string goes to both tools: the point is
that an ir_measures user's measure means the same thing here (with ``trec_eval=9``, the
trec_eval that pytrec_eval is: its rounding of IPrec's recall levels).

The tools break ties between equal scores differently (trec_eval: docid descending;
ir_measures' Judged: docid ascending; cwl_eval: file order), which is not what a measure
means; so every run is first made tie-free (scores replaced by n - position in trec_eval's
order), and both tools read the same tie-free rankings. The 37 runs go to ir_measures as one
run whose query ids are ``topic`` + two digits of the run (gdeval wants numeric ids), so each
tool runs once. gdeval and cwl_eval (a Perl process and a Python loop over every line) get
each ranking's top 100 only: ERR@20 and nDCG@20 read no deeper, and RBP's weight beyond rank
100 is p^100 <= 2e-10, below the tolerance.
"""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest

import irstab

ir_measures = pytest.importorskip("ir_measures")

#: ir_measures strings; irstab reads each one itself
MEASURES = [
    "AP", "AP(rel=2)", "AP@100", "P@10", "P(rel=2)@10", "R@100", "R(rel=2)@1000", "Rprec",
    "Rprec(rel=2)", "RR", "RR(rel=2)", "RR@10", "Bpref", "Bpref(rel=2)", "nDCG", "nDCG@10",
    "nDCG@20", "Success@10", "Success(rel=2)@5", "IPrec@0.5", "IPrec@0.2", "SetP", "SetR", "SetF",
    "SetF(beta=0.5)", "SetAP", "SetRelP",
    "infAP", "NumRet", "NumRel", "NumRelRet", "NumRet(rel=2)", "nDCG(judged_only=True)@100",
    "AP(judged_only=True)", "P(judged_only=True)@100",
    "nDCG(dcg='exp-log2')@20", "ERR@20",
    "Judged@10", "Judged@100",
]
CWL = ["RBP(p=0.8,rel=1)", "RBP(p=0.5,rel=2)"]  # needs the cwl-eval package
GDEVAL = {"nDCG(dcg='exp-log2')@20", "ERR@20"}  # printed with %.5f


def _tie_free(dl2019_dir):
    """``{run: {topic: {doc: score}}}`` with scores n - position in trec_eval's order."""
    runs = {}
    for path in sorted((dl2019_dir / "runs").glob("*.gz")):
        topics = {}
        with gzip.open(path, "rt") as fh:
            for line in fh:
                topic, _, doc, _, score, tag = line.split()
                topics.setdefault(topic, []).append((np.float32(score), doc))
        runs[tag] = {t: {d: float(len(docs) - i) for i, (_, d) in
                         enumerate(sorted(docs, reverse=True))} for t, docs in topics.items()}
    return runs


def _qrels(dl2019_dir):
    out = {}
    with open(dl2019_dir / "qrels.txt") as fh:
        for line in fh:
            topic, _, doc, grade = line.split()
            out.setdefault(topic, {})[doc] = int(grade)
    return out


@pytest.fixture(scope="module")
def both(dl2019_dir):
    runs, qrels = _tie_free(dl2019_dir), _qrels(dl2019_dir)
    names = list(runs)
    measures = MEASURES + (CWL if _has_cwl() else [])
    # ir_measures runs trec_eval 9 (pytrec_eval): its rounding of recall levels (IPrec)
    ours = irstab.evaluate(qrels, runs, measures, per_topic=True, trec_eval=9)
    ours = ours[ours["topic"] != "all"].set_index(["run", "measure", "topic"])["value"]
    # one ir_measures run: query id = topic + run number
    joint_qrels = {f"{t}{i:02d}": docs for i in range(len(names)) for t, docs in qrels.items()}
    joint_run = {f"{t}{i:02d}": docs for i, n in enumerate(names) for t, docs in runs[n].items()}
    top = {q: dict(sorted(docs.items(), key=lambda kv: -kv[1])[:100]) for q, docs in joint_run.items()}
    theirs = {}
    shallow = GDEVAL | set(CWL)
    # pytrec_eval keeps trec_eval's judged-docs-only flag in a global that the last evaluator
    # built sets, so in one call (in an order that follows string hashing) NumRet could count
    # judged documents only: judged_only measures go to ir_measures in a call of their own
    judged = {m for m in measures if "judged_only=True" in m}
    for group, run in (([m for m in measures if m not in shallow | judged], joint_run),
                       ([m for m in measures if m in judged], joint_run),
                       ([m for m in measures if m in shallow], top)):
        parsed = {ir_measures.parse_measure(m): m for m in group}
        for metric in ir_measures.iter_calc(list(parsed), joint_qrels, run):
            qid = metric.query_id
            theirs[(names[int(qid[-2:])], parsed[metric.measure], qid[:-2])] = metric.value
    return measures, ours, theirs


def _has_cwl() -> bool:
    try:
        import cwl  # noqa: F401
    except ImportError:
        return False
    return True


def test_every_ir_measures_name_means_the_same(both):
    measures, ours, theirs = both
    shown = {m: str(irstab.metrics.resolve_measures(m, version=9)[0]) for m in measures}
    worst = {}  # measure -> (largest difference, run, topic, irstab's value, ir_measures')
    for (run, measure, topic), value in theirs.items():
        key = (run, shown[measure], topic)
        if key not in ours.index:  # a qrels topic outside irstab's topic set (none on DL-2019)
            continue
        diff = abs(ours[key] - value)
        if measure not in worst or diff > worst[measure][0]:
            worst[measure] = (diff, run, topic, ours[key], value)
    assert set(worst) == set(measures)
    # every measure over its tolerance, each with the cell and both sides' values
    failed = [f"{m}: irstab differs from ir_measures by {d:.3g} (run {r}, topic {t}: irstab "
              f"{a!r}, ir_measures {b!r})" for m, (d, r, t, a, b) in worst.items()
              if d > (0.5e-5 + 1e-12 if m in GDEVAL else 1e-9)]
    assert not failed, "\n".join(failed)
    n_cells = sum(1 for (_, m, _) in theirs if m == "AP")
    assert n_cells == 37 * 43


def test_conventions_that_differ_are_named_parameters(both):
    """The other conventions stay reachable: ERR on the qrels' scale, Judged over k."""
    _, ours, theirs = both
    err = [v for (r, m, t), v in theirs.items() if m == "ERR@20"]
    assert math.isclose(np.mean(err), ours.xs("ERR@20", level="measure").mean(), abs_tol=1e-5)
    assert str(irstab.metrics.parse_measure("ERR(max_grade=qrels)@20")) == "ERR(max_grade=qrels)@20"
    assert str(irstab.metrics.parse_measure("Judged(denominator=cutoff)@10")) == \
        "Judged(denominator=cutoff)@10"


@pytest.mark.parametrize("text, reason", [
    ("alpha_nDCG@10", "subtopic qrels"), ("ERR_IA@20", "subtopic qrels"),
    ("NumQ", "count of topics"), ("Compat(p=0.8)", "ideal ranking"),
    ("nDCG(gains={0:0,1:1})@10", "gain=(g0,g1,...)"), ("Bpref(judged_only=True)", "no judged_only"),
])
def test_what_irstab_lacks_is_said(text, reason):
    with pytest.raises(irstab.errors.MeasureError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        irstab.metrics.resolve_measures(text)
