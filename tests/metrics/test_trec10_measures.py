"""trec_eval 10's measures that irstab lacked: hand-worked cases, pytrec_eval, invariants.

Oracles: (1) the definitions of trec_eval 10.0's ``m_*.c`` worked out by hand in the
comments on rankings of a few documents; (2) trec_eval 9's C code through pytrec_eval on
random small collections drawn by Hypothesis (``G``, ``binG``, ``Rndcg``, ``ndcg_rel``,
``11pt_avg``, ``utility``, ``relative_P``, ``Rprec_mult``, ``set_map``, ``set_relative_P``,
``num_nonrel_judged_ret``, ``gm_map``, ``gm_bpref``, unchanged from 9 to 10 but for 11pt_avg's
rounding, which ``trec_eval=9`` follows); (3) invariants. trec_eval 10.0's own output on
TREC DL 2019 is the oracle of ``tests/trec_eval10/`` (rbp, rbp_resid and unj are new in 10).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import MeasureError
from irstab.metrics import RelString, parse_measure

P = 0.9


def scores(qrels, ranking, measures, **kw):
    """``{measure: {topic: value}}`` of one run ranking ``ranking`` ({topic: [docs]})."""
    run = {"r": {t: {d: float(len(docs) - i) for i, d in enumerate(docs)}
                 for t, docs in ranking.items()}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # topics without relevant documents at a level
        frame = irstab.evaluate(qrels, run, measures, per_topic=True, **kw)
    out: dict = {}
    for m, t, v in zip(frame["measure"], frame["topic"], frame["value"]):
        out.setdefault(m, {})[t] = v
    return out


# topic 1 judges a (2), b (0), c (1) and d (0); x is unjudged. Topic 2 judges e (1).
QRELS = {"1": {"a": 2, "b": 0, "c": 1, "d": 0}, "2": {"e": 1}}
RANKING = {"1": ["x", "a", "b", "c"]}  # topic 2 missing: every measure scores it 0 (-c)


def test_graded_rbp_and_trec_eval_residual_by_hand():
    got = scores(QRELS, RANKING, ["rbp", "rbp_resid", "rbp.1=-1", "RBP.residual(p=0.9)"])
    # topic 1's gains 0..2 lie outside [0, 1]: rescaled g/2. Ranks x, a, b, c gain 0, 1, 0,
    # 0.5: (1 - p)(p + 0.5 p^3) = 0.1 (0.9 + 0.3645)
    assert got["RBP(p=0.9,gain=linear)"]["1"] == pytest.approx(0.1 * (0.9 + 0.5 * 0.729), abs=1e-15)
    # gains 0, -1, 2 (levels(g1=-1)): rescaled (g + 1)/3 -> 1/3, 0, 1: a 1, b 1/3, c 0
    assert got["RBP(p=0.9,gain=levels(g1=-1))"]["1"] == pytest.approx(
        0.1 * (0.9 + 0.81 / 3), abs=1e-15)
    # rbp_resid: x unjudged at rank 1: p^4 (the unseen ranks) + (1 - p) p^0
    resid = "RBP.residual(p=0.9,tail=unjudged)"
    assert got[resid]["1"] == pytest.approx(0.9**4 + 0.1, abs=1e-15)
    assert got[resid]["2"] == got["RBP(p=0.9,gain=linear)"]["2"] == 0.0
    # irstab's residual also counts the unseen ranks where nothing is unjudged: p^0 = 1 on a
    # topic the run lacks; trec_eval's is 0 there
    assert got["RBP.residual(p=0.9)"]["2"] == 1.0
    judged = scores(QRELS, {"1": ["a", "b"]}, ["rbp_resid", "RBP.residual(p=0.9)"])
    assert judged[resid]["1"] == 0.0  # nothing unjudged retrieved: trec_eval's residual is 0
    assert judged["RBP.residual(p=0.9)"]["1"] == pytest.approx(0.81)


def test_counting_and_set_measures_by_hand():
    got = scores(QRELS, RANKING, ["unj.1,2,10", "relative_P.1,2,3", "set_map", "set_relative_P",
                                  "num_nonrel_judged_ret", "utility", "utility.2,-1,-0.5,0.1",
                                  "Rprec_mult.0.2,0.5,2"])
    t = {m: v["1"] for m, v in got.items()}
    # unj: x unjudged at rank 1 -> 1/1, 1/2, 1/10 (ranks past the run's end count as judged)
    assert [t["Unjudged@1"], t["Unjudged@2"], t["Unjudged@10"]] == [1.0, 0.5, 0.1]
    # R = 2 (a, c at ranks 2 and 4): relative_P@k = relevant in top k / min(k, 2)
    assert [t["RelP@1"], t["RelP@2"], t["RelP@3"]] == [0.0, 0.5, 0.5]
    # 2 relevant of 4 retrieved, R = 2: set_map = 2^2 / (4 x 2), set_relative_P = 2 / min(4, 2)
    assert t["SetAP"] == 0.5 and t["SetRelP"] == 1.0
    assert t["NumNonrelJudgedRet"] == 1.0  # b (grade 0); x is unjudged, not non-relevant
    # utility: TP 2, FP 2, FN 0 -> 2 - 2 = 0; with 2,-1,-0.5,0.1 and -N 0: TN = 0 + 2 - 4 - 2
    assert t["Utility"] == 0.0
    assert t["Utility(a=2,c=-0.5,d=0.1)"] == pytest.approx(4 - 2 - 0 + 0.1 * (-4))
    assert got["Utility(a=2,c=-0.5,d=0.1)"]["2"] == 0.0  # a topic the run lacks: 0 (-c)
    # Rprec_mult: c = floor(x R + 0.9): 0.2 -> 1 (P@1 = 0), 0.5 -> 1, 2 -> 4 (P@4 = 1/2)
    assert [t["R-prec(mult=0.2)"], t["R-prec(mult=0.5)"], t["R-prec(mult=2)"]] == [0.0, 0.0, 0.5]
    both = scores(QRELS, RANKING, ["Rprec", "Rprec_mult.1"])
    assert both["R-prec"] == both["R-prec(mult=1)"]  # Rprec_mult_1.00 is Rprec, printed twice


def test_geometric_means_and_binary_g_by_hand():
    got = scores(QRELS, RANKING, ["gm_map", "gm_bpref", "binG", "G"])
    # AP of topic 1: (1/2 + 2/4) / 2 = 1/2; topic 2 (missing) 0, floored at 1e-5; summary
    # exp(mean(log)) = sqrt(0.5e-5)
    assert got["GMAP"]["1"] == 0.5 and got["GMAP"]["2"] == 1e-5
    assert got["GMAP"]["all"] == pytest.approx(math.sqrt(0.5 * 1e-5), rel=1e-12)
    # bpref: a has no judged non-relevant above -> 1; c has b above: 1 - 1/min(2, 2) = 1/2
    assert got["GMbpref"]["1"] == pytest.approx(0.75)
    # binG: a at rank 2 with 1 non-relevant above (x counts), c at rank 4 with 2 above:
    # (1/log2(3) + 1/log2(4)) / 2
    assert got["BinG"]["1"] == pytest.approx((1 / math.log2(3) + 0.5) / 2, rel=1e-15)
    # G: ideal gains 2, 1; costs max(gain, 1) cumulated: 2, 3, 4, 5; run gains 0, 2, 0, 1,
    # cumulated 0, 2, 2, 3: a at rank 2 adds 2/log2(2 + 3 - 2), c at rank 4 1/log2(2 + 5 - 3);
    # normalised by the ideal gain 3
    assert got["G"]["1"] == pytest.approx((2 / math.log2(3) + 1 / math.log2(4)) / 3, rel=1e-15)


def test_ndcg_rel_and_rndcg_by_hand():
    got = scores(QRELS, RANKING, ["ndcg_rel", "Rndcg"])
    d = [1 / math.log2(i + 1) for i in range(1, 6)]  # discounts of ranks 1..5
    dcg = [0, 2 * d[1], 2 * d[1], 2 * d[1] + d[3]]  # DCG@1..4 of x, a, b, c
    idcg = [2 * d[0], 2 * d[0] + d[1]]  # IDCG@1, @2 and beyond (ideal gains 2, 1)
    # ndcg_rel: nDCG at the ranks of a (2) and c (4), over the 2 ideal positions of gain > 0
    assert got["nDCG-rel"]["1"] == pytest.approx((dcg[1] / idcg[1] + dcg[3] / idcg[1]) / 2)
    # Rndcg: the ideal gain changes after ranks 1 (2 -> 1) and 2 (1 -> 0); the run (4 long)
    # passes the positive ideal list (2) by 2: also nDCG at its end, rank 4
    want = (dcg[0] / idcg[0] + dcg[1] / idcg[1] + dcg[3] / idcg[1]) / 3
    assert got["RnDCG"]["1"] == pytest.approx(want, rel=1e-15)
    # one document past the ideal list: trec_eval adds no end point (its loop has left)
    short = scores(QRELS, {"1": ["a", "c", "b"]}, ["Rndcg"])
    assert short["RnDCG"]["1"] == pytest.approx(1.0)


def test_eleven_point_average_and_relstring_by_hand():
    got = scores(QRELS, RANKING, ["11pt_avg", "11pt_avg.0.5", "relstring", "relstring.2"],
                 trec_eval=10)
    # relevant at ranks 2 and 4, R = 2: levels 0..0.5 need 1 relevant (lround(2x) <= 1;
    # 0 counts as 1): max(1/2, 2/4) = 1/2; 0.6..1 need 2: 2/4. All 11 points: 1/2
    assert got["IPrecAvg"]["1"] == pytest.approx(0.5)
    assert got["IPrecAvg(levels=(0.5))"]["1"] == pytest.approx(0.5)
    # x not in the qrels ('-'), a 2, b 0, c 1
    assert RelString.decode(got["RelString"]["1"]) == "-201"
    assert RelString.decode(got["RelString(length=2)"]["1"]) == "-2"
    assert RelString.decode(got["RelString"]["2"]) == ""
    assert "all" not in got["RelString"]  # a string: no summary over topics


def test_ndcg_gain_levels_are_sorted_exactly_unlike_trec_eval(dl2019):
    # trec_eval sorts its gain levels with a comparator that returns (int)(gain1 - gain2):
    # with ndcg.1=0.5,2=2,3=10 grade 1 (0.5) "equals" grade 0 (0), lands below it, and its
    # ideal list stops at grade 0's gain, leaving out every grade-1 document. trec_eval 10.0
    # -q prints 0.4576 for TUA1-1 on topic 1037798; irstab keeps them (0.4390).
    m = parse_measure("nDCG(gain=levels(g1=0.5,g2=2,g3=10))")
    s, t = dl2019.systems.index("TUA1-1"), dl2019.topics.index("1037798")
    gain = np.array([0.0, 0.5, 2.0, 10.0])
    dcg = gain[dl2019.grades[s, t]] @ (1 / np.log2(np.arange(2, 1002)))
    ideal = np.sort(gain[dl2019.ideal[t]])[::-1]
    disc = 1 / np.log2(np.arange(2, ideal.size + 2))
    assert round(m.compute(dl2019)[s, t], 4) == round(dcg / (ideal @ disc), 4) == 0.4390
    truncated = ideal[ideal >= 1]  # what trec_eval's ideal list holds
    assert round(dcg / (truncated @ disc[:truncated.size]), 4) == 0.4576


def test_parameters_are_checked():
    for text in ("Utility(docs=-1)", "IPrecAvg(levels=(0.5,2))", "RelString(length=14)",
                 "RBP(gain=linear,rel=2)", "RBP.residual(tail=never)", "R-prec(mult=0)",
                 "nDCG(gain=levels(g0=1))", "nDCG(gain=levels(g1=-1))", "Unjudged"):
        with pytest.raises(MeasureError):
            parse_measure(text)
    # the graded RBP is a different measure from the binary one; -l leaves it alone
    (m,) = irstab.metrics.resolve_measures("rbp", rel=2)
    assert str(m) == "RBP(p=0.9,gain=linear)"


# ---------------------------------------------------------------- against pytrec_eval

_PYTREC = ("G", "binG", "Rndcg", "ndcg_rel", "11pt_avg", "utility", "relative_P.2,5",
           "Rprec_mult.0.5,1.5", "set_map", "set_relative_P", "num_nonrel_judged_ret", "gm_map",
           "gm_bpref")


@st.composite
def collections(draw):
    """Small qrels (grades 0-3, some topics without relevant documents) and one run whose
    scores may tie, with unjudged documents and missing topics."""
    docs = [f"d{i}" for i in range(12)]
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True))
        qrels[str(t)] = {d: draw(st.integers(0, 3)) for d in judged}
        if draw(st.booleans()) or t == 0:
            ranked = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=12, unique=True))
            run[str(t)] = {d: float(draw(st.integers(0, 5))) for d in ranked}
    return qrels, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2]))
def test_equal_pytrec_eval_on_random_collections(data, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = data
    if not any(g > 0 for docs in qrels.values() for g in docs.values()):
        return  # no topic to evaluate (irstab's topic set: topics with a relevant document)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = irstab.evaluate(qrels, {"r": run}, list(_PYTREC), per_topic=True, rel=level,
                                trec_eval=9)
    ours = {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}
    names = irstab.metrics.trec_eval_request(list(_PYTREC), rel=level, version=9).printed
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(_PYTREC),
                                            relevance_level=level).evaluate(run)
    assert len(names) == len(_PYTREC) + 2  # relative_P and Rprec_mult give two each
    compared = 0
    for measure, printed in names.items():
        for topic in {t for (m, t) in ours if m == str(measure) and t != "all"}:
            if topic not in theirs:  # a topic the run lacks: irstab scores it 0 (-c)
                want = math.log(1e-5) if printed.startswith("gm_") else 0.0
            else:
                want = theirs[topic][printed]
            got = ours[(str(measure), topic)]
            if printed.startswith("gm_"):  # pytrec_eval gives trec_eval's per-topic log
                got = math.log(got)
            assert got == pytest.approx(want, abs=1e-12), (measure, topic)
            compared += 1
    assert compared >= len(names)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-2, 12), min_size=1, max_size=13))
def test_relstring_packs_and_unpacks_every_string(grades):
    # grades -2 (judged negative: '.'), -1 (not in the qrels: '-'), 0-9 and above 9 ('>')
    chars = "".join("." if g == -2 else "-" if g == -1 else ">" if g > 9 else str(g)
                    for g in grades)
    qrels = {"1": {f"d{i}": g for i, g in enumerate(grades) if g != -1} | {"rel": 1}}
    ranking = {"1": [f"d{i}" for i in range(len(grades))]}
    got = scores(qrels, ranking, [f"relstring.{len(grades)}"])
    (values,) = got.values()
    assert RelString.decode(values["1"]) == chars


_TREC_BASES = ["P", "ndcg", "ndcg_cut", "rbp", "rbp_resid", "utility", "11pt_avg", "set_F",
               "relstring", "Rprec_mult", "iprec_at_recall", "G", "unj", "map", "gm_map",
               "runid", "num_q", "ideal_dcg", "Rndcg"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_TREC_BASES), st.sampled_from([".", "_", ""]),
       st.text(alphabet="0123456789.,=-+pe ", max_size=14))
def test_trec_names_with_any_parameters_resolve_or_say_why(base, sep, args):
    # garbage after a trec_eval name: measures, or a MeasureError, never another exception
    try:
        found = irstab.metrics.trec_eval_request(base + sep + args)
    except MeasureError:
        return
    for m in found.measures:  # whatever resolves has a canonical string that reads back
        assert irstab.metrics.resolve_measures(m.canonical()) == [m]
