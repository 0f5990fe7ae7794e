"""Success, Judged, NumRet/NumRel/NumRelRet, IPrec, SetP/SetR/SetF and infAP.

Oracles: trec_eval 9 through pytrec_eval on all 37 TREC DL 2019 runs at -l 1 and
-l 2 (per run and topic, 1e-9), with irstab following trec_eval 9 (``trec_eval=9``:
scores compared in single precision, 9's rounding of recall levels); Judged@k (not in
trec_eval) against a plain-Python count; infAP's pooled-unjudged branch against the
formula of trec_eval m_infAP.c written out by hand on a three-document ranking; IPrec's
recall levels of trec_eval 10 and 9 by hand (``m_iprec_at_recall.c`` of both); negative
grades (pooled, not judged) against pytrec_eval on rewritten DL-2019 qrels and on
generated ones.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import MeasureError

pytrec_eval = pytest.importorskip("pytrec_eval")
from test_trec_eval_oracle import _plain_qrels, _plain_run  # noqa: E402 - tests/ is on sys.path

TREC = {
    "success.1,5,10", "num_ret", "num_rel", "num_rel_ret", "iprec_at_recall",
    "set_P", "set_recall", "set_F", "infAP",
}
# irstab measure (at -l level, spelled through the trec_eval names of irstab) -> trec_eval key
PAIRS = {
    "Success@1": "success_1", "Success@5": "success_5", "Success@10": "success_10",
    "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret",
    "SetP": "set_P", "SetR": "set_recall", "SetF": "set_F", "infAP": "infAP",
    **{f"IPrec(recall={x:g})": f"iprec_at_recall_{x:.2f}" for x in np.linspace(0, 1, 11).round(1)},
}


@pytest.fixture(scope="module")
def oracle(dl2019_dir):
    qrels = _plain_qrels(dl2019_dir / "qrels.txt")
    evaluators = {
        lv: pytrec_eval.RelevanceEvaluator(qrels, TREC, relevance_level=lv) for lv in (1, 2)
    }
    out = {}
    for path in sorted((dl2019_dir / "runs").glob("*.gz")):
        tag, run = _plain_run(path)
        out[tag] = {lv: ev.evaluate(run) for lv, ev in evaluators.items()}
    return out


@pytest.mark.parametrize("level", [1, 2])
def test_equal_trec_eval_on_dl2019(dl2019_dir, oracle, level):
    # the measures by their trec_eval names, with -l as trec_eval's relevance level
    spec = "success.1,5,10,num_ret,num_rel,num_rel_ret,iprec_at_recall,set_P,set_recall,set_F,infAP"
    request = irstab.metrics.trec_eval_request(spec, rel=level, version=9)
    frame = irstab.evaluate(dl2019_dir / "qrels.txt", dl2019_dir / "runs", spec, per_topic=True,
                            rel=level, trec_eval=9)
    got = frame.set_index(["run", "measure", "topic"])["value"]
    assert len(oracle) == 37
    assert sorted(request.printed.values()) == sorted(PAIRS.values())
    for measure, trec in request.printed.items():
        worst = 0.0
        for run, by_level in oracle.items():
            for topic, values in by_level[level].items():
                worst = max(worst, abs(got[(run, str(measure), topic)] - values[trec]))
        assert worst <= 1e-9, f"{measure} vs trec_eval {trec} at -l {level}: {worst}"


def test_set_f_weights_as_trec_eval_and_pytrec_eval(dl2019_dir, oracle):
    # trec_eval's set_F.x is (x + 1) P R / (x P + R): x weighs like van Rijsbergen's beta
    # squared. TUA1-1 at -l 1: 0.1089 in trec_eval 10.0's output (`trec_eval -m set_F.0.5`)
    qrels = _plain_qrels(dl2019_dir / "qrels.txt")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.5"})
    _, run = _plain_run(dl2019_dir / "runs" / "TUA1-1.gz")
    theirs = evaluator.evaluate(run)
    frame = irstab.evaluate(dl2019_dir / "qrels.txt", dl2019_dir / "runs" / "TUA1-1.gz",
                            "set_F.0.5", per_topic=True)
    got = frame.set_index("topic")["value"]
    assert list(frame["measure"].unique()) == ["SetF(beta=0.5)"]
    for topic, values in theirs.items():  # pytrec_eval names it set_F, whatever the x
        assert got[topic] == pytest.approx(values["set_F"], abs=1e-12)
    assert round(got["all"], 4) == 0.1089
    assert round(np.mean([v["set_F"] for v in theirs.values()]), 4) == 0.1089


def test_judged_against_a_plain_count(dl2019_dir, dl2019):
    qrels = _plain_qrels(dl2019_dir / "qrels.txt")
    frame = irstab.evaluate(dl2019, None, ["Judged@10", "Judged@100", "Judged(denominator=cutoff)@10"],
                            per_topic=True)
    got = frame.set_index(["run", "measure", "topic"])["value"]
    for path in sorted((dl2019_dir / "runs").glob("*.gz"))[:6]:
        tag, run = _plain_run(path)
        for topic in dl2019.topics:
            # trec_eval order: score descending, docid descending
            ranked = sorted(run.get(topic, {}).items(), key=lambda x: (x[1], x[0]), reverse=True)
            for k in (10, 100):
                # ir_measures: judged among the top min(k, n) retrieved; 0 for an empty ranking
                n = min(k, len(ranked))
                want = sum(d in qrels[topic] for d, _ in ranked[:k]) / n if n else 0.0
                assert got[(tag, f"Judged@{k}", topic)] == pytest.approx(want, abs=1e-12)
            # denominator=cutoff: ranks past the run's end count as unjudged
            want = sum(d in qrels[topic] for d, _ in ranked[:10]) / 10
            assert got[(tag, "Judged(denominator=cutoff)@10", topic)] == pytest.approx(want, abs=1e-12)


def _tiny(tmp_path, run_lines, qrels_lines):
    (tmp_path / "q").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "r").write_text("\n".join(run_lines) + "\n")
    return irstab.Collection.from_files(tmp_path / "q", [tmp_path / "r"], depth=10)


def test_infap_pooled_unjudged_branch_by_hand(tmp_path):
    # ranking: x (pooled, unjudged: grade -2), n (judged non-relevant), r (relevant);
    # r is at 0-based j = 2 with a = 0 relevant, b = 1 non-relevant, u = 1 unjudged above:
    # term = 1/3 + (0 + 1 + 1)/3 * (0 + 1e-5)/(0 + 1 + 2e-5); R = 1 (m_infAP.c)
    coll = _tiny(tmp_path, 
        ["1 Q0 x 1 3 r", "1 Q0 n 2 2 r", "1 Q0 r 3 1 r"],
        ["1 0 x -2", "1 0 n 0", "1 0 r 1"],
    )
    eps = 1e-5
    want = 1 / 3 + 2 / 3 * eps / (1 + 2 * eps)
    assert irstab.metrics.InfAP().compute(coll)[0, 0] == pytest.approx(want, rel=1e-12)


def test_iprec_and_set_measures_by_hand(tmp_path):
    # relevant at ranks 2 and 4 of 5 retrieved, R = 3 (one never retrieved):
    # precision at the relevant ranks 1/2 and 2/4. Relevant documents a level needs:
    # trec_eval 10 lround(3x), trec_eval 9 floor(3x + 0.9):
    # x=0 -> 0 (use 1): max(1/2, 2/4) = 0.5; x=0.5 -> 2 (both): 0.5;
    # x=0.8 -> 10: lround(2.4) = 2: 0.5; 9: floor(3.3) = 3 > 2 retrieved: 0.
    # set_P = 2/5, set_recall = 2/3, set_F = 2 PR/(P+R) = 2*(2/5)(2/3)/(2/5+2/3) = 0.5
    coll = _tiny(
        tmp_path,
        [f"1 Q0 d{i} {i} {10 - i} r" for i in range(1, 6)],
        ["1 0 d2 1", "1 0 d4 2", "1 0 z 1", "1 0 d1 0"],
    )
    m = irstab.metrics
    for version in (10, 9):
        assert m.IPrec(recall=0.0, trec_eval=version).compute(coll)[0, 0] == pytest.approx(0.5)
        assert m.IPrec(recall=0.5, trec_eval=version).compute(coll)[0, 0] == pytest.approx(0.5)
    assert m.IPrec(recall=0.8).compute(coll)[0, 0] == pytest.approx(0.5)
    assert m.IPrec(recall=0.8, trec_eval=9).compute(coll)[0, 0] == 0.0
    # x = 1/6: 3x = 0.5 rounds half away from zero to 1 in trec_eval 10 (C lround)
    assert m.IPrec(recall=1 / 6).compute(coll)[0, 0] == pytest.approx(0.5)
    assert m.SetP().compute(coll)[0, 0] == pytest.approx(2 / 5)
    assert m.SetR().compute(coll)[0, 0] == pytest.approx(2 / 3)
    assert m.SetF().compute(coll)[0, 0] == pytest.approx(0.5)
    # trec_eval's set_F.2: 3 PR / (2P + R) = 3 (4/15) / (4/5 + 2/3) = (4/5) / (22/15) = 6/11
    assert m.SetF(beta=2).compute(coll)[0, 0] == pytest.approx(6 / 11)
    assert m.NumRet().compute(coll)[0, 0] == 5
    assert m.NumRel().compute(coll)[0, 0] == 3
    assert m.NumRelRet().compute(coll)[0, 0] == 2
    assert m.Success(cutoff=1).compute(coll)[0, 0] == 0 and m.Success(cutoff=2).compute(coll)[0, 0] == 1
    # judged: d1, d2, d4 of the top 5 -> 3/5; of the top 10 (5 empty ranks) -> 3/10
    assert m.Judged(cutoff=5).compute(coll)[0, 0] == pytest.approx(3 / 5)
    # 5 retrieved: ir_measures divides by min(10, 5) = 5; denominator=cutoff by 10
    assert m.Judged(cutoff=10).compute(coll)[0, 0] == pytest.approx(3 / 5)
    assert m.Judged(cutoff=10, denominator="cutoff").compute(coll)[0, 0] == pytest.approx(3 / 10)


@pytest.mark.parametrize("text", ["Judged", "IPrec(recall=1.5)", "SetF(beta=0)", "NumRet@10",
                                  "SetP@10", "IPrec(recall=-0.1)", "IPrec(recall=0.5,trec_eval=8)"])
def test_bad_parameters_are_refused(text):
    with pytest.raises(MeasureError):
        irstab.parse_measure(text)


def test_canonical_strings_round_trip():
    for text in ["IPrec(recall=0.1)", "IPrec(recall=0)", "SetF(beta=0.5)", "infAP(rel=2)",
                 "Success@10", "Judged@20", "NumRelRet(rel=2)"]:
        m = irstab.parse_measure(text)
        assert str(m) == text
        assert irstab.parse_measure(str(m)) == m


# ---------------------------------------------------------------- negative grades: pooled, unjudged

# trec_eval name -> irstab measure; the judged-only ones against trec_eval -J
NEGATIVE = {"infAP": "infAP", "bpref": "bpref", "map": "AP", "ndcg_cut_10": "nDCG@10",
            "P_10": "P@10", "num_rel": "NumRel"}
CONDENSED = {"map": "AP(judged_only=true)", "ndcg_cut_10": "nDCG(judged_only=true)@10",
             "P_10": "P(judged_only=true)@10", "recip_rank": "RR(judged_only=true)"}


def _rewrite_negative(lines):
    """Every third grade-0 judgment becomes -1 and every seventh grade-1 one -2 (pooled,
    not judged): a deterministic stand-in for a sampled pool (infAP's use case)."""
    out = []
    for i, line in enumerate(lines):
        topic, it, doc, grade = line.split()
        grade = "-1" if grade == "0" and i % 3 == 0 else "-2" if grade == "1" and i % 7 == 0 else grade
        out.append(f"{topic} {it} {doc} {grade}")
    return out


@pytest.mark.parametrize("level", [1, 2])
def test_negative_grades_are_pooled_but_unjudged_as_trec_eval_takes_them(dl2019_dir, tmp_path, level):
    # Oracle: trec_eval 9 via pytrec_eval (and its -J for the condensed measures; irstab with
    # trec_eval=9, whose single-precision score ties pytrec_eval keeps) on the
    # DL-2019 qrels with grades rewritten to -1 and -2. Before, infAP took -1 as judged
    # non-relevant and differed on every topic (TUA1-1's mean: 0.474 against 0.494), and
    # the condensed lists kept negative-grade documents that trec_eval -J removes.
    lines = [ln for ln in (dl2019_dir / "qrels.txt").read_text().splitlines() if ln.strip()]
    rewritten = _rewrite_negative(lines)
    assert sum(ln.endswith(" -1") for ln in rewritten) > 1000  # the case is not vacuous
    qpath = tmp_path / "qrels-negative.txt"
    qpath.write_text("\n".join(rewritten) + "\n")
    qrels = _plain_qrels(qpath)
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(NEGATIVE), relevance_level=level)
    ev_j = pytrec_eval.RelevanceEvaluator(qrels, set(CONDENSED), relevance_level=level,
                                          judged_docs_only_flag=True)
    runs = sorted((dl2019_dir / "runs").glob("*.gz"))
    frame = irstab.evaluate(qpath, runs, [*NEGATIVE.values(), *CONDENSED.values()],
                            per_topic=True, rel=level, trec_eval=9)  # pytrec_eval is trec_eval 9
    got = frame.set_index(["run", "measure", "topic"])["value"]
    names = {m: str(irstab.metrics.resolve_measures(m, level)[0])
             for m in [*NEGATIVE.values(), *CONDENSED.values()]}
    checked = 0
    for path in runs:
        tag, run = _plain_run(path)
        for oracle, table in ((ev.evaluate(run), NEGATIVE), (ev_j.evaluate(run), CONDENSED)):
            for trec, ours in table.items():
                for topic, values in oracle.items():
                    assert got[(tag, names[ours], topic)] == pytest.approx(values[trec], abs=1e-9), \
                        (tag, ours, topic, level)
                    checked += 1
    assert checked == 37 * 43 * (len(NEGATIVE) + len(CONDENSED))


_GRADES = st.integers(-3, 3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(judged=st.lists(st.tuples(st.integers(0, 14), _GRADES), min_size=1, max_size=14,
                       unique_by=lambda x: x[0]),
       ranked=st.lists(st.integers(0, 19), min_size=1, max_size=15, unique=True),
       level=st.integers(1, 2))
def test_any_negative_grade_is_pooled_but_unjudged_property(tmp_path, judged, ranked, level):
    # Oracle: pytrec_eval on generated qrels (grades -3..3: 0 judged non-relevant, below 0
    # pooled but not judged) and a run over documents judged, negative or never judged.
    from hypothesis import assume

    assume(any(g >= level for _, g in judged))
    qrels = {"1": {f"d{d}": g for d, g in judged}}
    run = {"1": {f"d{d}": float(len(ranked) - i) for i, d in enumerate(ranked)}}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"infAP", "bpref"}, relevance_level=level)
    ev_j = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"}, relevance_level=level,
                                          judged_docs_only_flag=True)
    want, want_j = ev.evaluate(run)["1"], ev_j.evaluate(run)["1"]
    import pandas as pd
    import warnings

    q = pd.DataFrame([(t, d, g) for t, docs in qrels.items() for d, g in docs.items()],
                     columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame([(t, d, s) for t, docs in run.items() for d, s in docs.items()],
                     columns=["query_id", "doc_id", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = irstab.evaluate(q, r, ["infAP", "bpref", "AP(judged_only=true)",
                                     "nDCG(judged_only=true)@10"], rel=level)
    value = dict(zip(got["measure"], got["value"]))
    for ours, oracle in (("infAP", want["infAP"]), ("bpref", want["bpref"]),
                         ("AP(judged_only=true)", want_j["map"]),
                         ("nDCG(judged_only=true)@10", want_j["ndcg_cut_10"])):
        name = str(irstab.metrics.resolve_measures(ours, level)[0])
        assert value[name] == pytest.approx(oracle, abs=1e-9), ours


def test_judged_counts_a_negative_grade_as_a_judgment_like_ir_measures():
    # Judged@k is ir_measures' measure, not trec_eval's: any qrels entry is a judgment,
    # a pooled-unjudged -1 included (ir_measures gives 2/3 below: d1 and d2 of the top 3)
    ir_measures = pytest.importorskip("ir_measures")
    import pandas as pd

    qrels = [ir_measures.Qrel("q", "d1", 1), ir_measures.Qrel("q", "d2", -1),
             ir_measures.Qrel("q", "d3", 0)]
    run = [ir_measures.ScoredDoc("q", "d1", 3.0), ir_measures.ScoredDoc("q", "d2", 2.0),
           ir_measures.ScoredDoc("q", "d4", 1.0)]
    want = ir_measures.calc_aggregate([ir_measures.Judged @ 3], qrels, run)[ir_measures.Judged @ 3]
    got = irstab.evaluate(pd.DataFrame(qrels), pd.DataFrame(run), ["Judged@3"])["value"].iloc[0]
    assert want == pytest.approx(2 / 3) and got == pytest.approx(want, abs=1e-12)
