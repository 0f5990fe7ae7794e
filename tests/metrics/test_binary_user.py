"""RBP (+ residual), ERR, Q-measure and the binary measures on hand-made lists.

Expected values are closed forms from the measures' papers, with the arithmetic in the
comments:

* RBP = (1 - p) * sum_r rel_r p^(r-1); residual = (1 - p) * sum_{unjudged r <= n} p^(r-1)
  + p^n for a ranking of n documents (Moffat & Zobel, TOIS 27(1) 2008, sections 4-5).
* ERR = sum_r (1/r) R_r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^g_max (Chapelle, Metzler,
  Zhang & Grinspan, CIKM 2009, eq. 4 and Algorithm 2).
* Q = (1/R) sum_{relevant r} (C(r) + beta cg(r)) / (r + beta cg*(r)) (Sakai, NTCIR-4 2004;
  Sakai & Kando, IR 11 2008): C(r) relevant documents in the top r, cg / cg* cumulative
  gain of the run / of the ideal list.
* AP, P@k, RR, R-prec, Recall@k, bpref: trec_eval 9 definitions (m_map.c, m_P.c,
  m_recip_rank.c, m_Rprec.c, m_recall.c, m_bpref.c).

Beyond the hand lists, naive pure-Python loops of the same formulas are compared with
the kernels on Hypothesis-generated small collections.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import IRStabWarning
from irstab.io import Qrels, Run


def build(qrels_rows, runs_rows, depth=1000):
    """Collection from [(topic, docid, grade)] and {name: [(topic, docid, score)]}."""
    qrels = Qrels(
        path="<mem>",
        frame=pd.DataFrame(
            {
                "topic": [t for t, _, _ in qrels_rows],
                "docid": [d for _, d, _ in qrels_rows],
                "grade": np.array([g for _, _, g in qrels_rows], dtype=np.int64),
            }
        ),
    )
    runs = [
        Run(name, "<mem>", name, frame=pd.DataFrame(
            {
                "topic": pd.Series([t for t, _, _ in rows], dtype=str),
                "docid": pd.Series([d for _, d, _ in rows], dtype=str),
                "rank": np.arange(1, len(rows) + 1, dtype=np.float64),
                "score": np.array([s for _, _, s in rows], dtype=np.float64),
            }
        ))
        for name, rows in runs_rows.items()
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        return irstab.Collection.build(qrels, runs, depth=depth)


def scores(collection, measure) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        return irstab.score_matrix(collection, measure).to_numpy()


# ====================================================================== the hand-made collection
#
# Topic 1: judged d1=3, d2=0, d3=1, d4=2, d5=0; the run ranks d1, d2, x (unjudged), d3.
#          grades by rank [3, 0, -, 1]; d4 (grade 2) is never retrieved.
# Topic 2: judged e1=1, e2=0, e3=2; the run ranks e2, u (unjudged), e3, e1.
#          grades by rank [0, -, 2, 1].
# Topic 3: judged f1=3, f2=0, f3=1; the run ranks f1, f2, f3: grades [3, 0, 1]
#          (the ERR example of the issue).
# Topic 4: judged g1=1; the run does not retrieve topic 4 at all.
# The qrels' maximum grade is 3 (ERR's g_max).
QRELS = [
    ("1", "d1", 3), ("1", "d2", 0), ("1", "d3", 1), ("1", "d4", 2), ("1", "d5", 0),
    ("2", "e1", 1), ("2", "e2", 0), ("2", "e3", 2),
    ("3", "f1", 3), ("3", "f2", 0), ("3", "f3", 1),
    ("4", "g1", 1),
]
RUN = {"run": [
    ("1", "d1", 4.0), ("1", "d2", 3.0), ("1", "x", 2.0), ("1", "d3", 1.0),
    ("2", "e2", 4.0), ("2", "u", 3.0), ("2", "e3", 2.0), ("2", "e1", 1.0),
    ("3", "f1", 3.0), ("3", "f2", 2.0), ("3", "f3", 1.0),
]}

HAND = {
    # ---------------------------------------------------------------- RBP (binary, grade >= rel)
    # t1 p=0.5: relevant at ranks 1, 4 -> 0.5 * (1 + 0.5^3) = 0.5625
    # t2 p=0.5: relevant at ranks 3, 4 -> 0.5 * (0.25 + 0.125) = 0.1875
    # t3 p=0.5: relevant at ranks 1, 3 -> 0.5 * (1 + 0.25) = 0.625
    "RBP(p=0.5)": (F(9, 16), F(3, 16), F(5, 8), 0),
    # t1 p=0.8: 0.2 * (1 + 0.8^3) = 0.2 * 1.512 = 0.3024; t2: 0.2 * (0.64 + 0.512) = 0.2304
    # t3: 0.2 * (1 + 0.64) = 0.328
    "RBP": (0.3024, 0.2304, 0.328, 0),
    # rel=2: t1 only rank 1 -> 0.5; t2 only rank 3 -> 0.5 * 0.25; t3 rank 1 -> 0.5
    "RBP(p=0.5,rel=2)": (F(1, 2), F(1, 8), F(1, 2), 0),
    # @2: t1 rank 1 -> 0.5; t2 nothing in the top 2; t3 rank 1 -> 0.5
    "RBP(p=0.5)@2": (F(1, 2), 0, F(1, 2), 0),
    # residual p=0.5: t1 unjudged rank 3 -> 0.5 * 0.25, plus 0.5^4 for the 4 ranks -> 0.1875
    # t2 unjudged rank 2 -> 0.5 * 0.5 = 0.25, plus 0.5^4 = 0.0625 -> 0.3125
    # t3 all judged, 3 ranks -> 0.5^3 = 0.125; t4 not retrieved -> p^0 = 1
    "RBP.residual(p=0.5)": (F(3, 16), F(5, 16), F(1, 8), 1),
    # p=0.8: t1 0.2 * 0.64 + 0.8^4 = 0.128 + 0.4096 = 0.5376; t2 0.2 * 0.8 + 0.4096 = 0.5696
    # t3 0.8^3 = 0.512
    "RBP.residual": (0.5376, 0.5696, 0.512, 1),
    # @2: t1 no unjudged in the top 2 -> 0.5^2 = 0.25; t2 rank 2 unjudged -> 0.25 + 0.25 = 0.5
    # t3 0.25; t4 1
    "RBP.residual(p=0.5)@2": (F(1, 4), F(1, 2), F(1, 4), 1),
    # ---------------------------------------------------------------- ERR, g_max = 3: R(g) = (2^g-1)/8
    # t1 grades [3,0,-,1]: R = 7/8, 0, 0, 1/8 -> 7/8 + (1/4)(1/8)(1)(1)(1/8) = 7/8 + 1/256
    # t2 grades [0,-,2,1]: R = 0, 0, 3/8, 1/8 -> (1/3)(3/8) + (1/4)(5/8)(1/8) = 1/8 + 5/256
    # t3 grades [3,0,1]: R = 7/8, 0, 1/8 -> 7/8 + 0 + (1/3)(1/8)(1/8) = 7/8 + 1/192
    "ERR(max_grade=qrels)": (F(7, 8) + F(1, 256), F(1, 8) + F(5, 256), F(7, 8) + F(1, 192), 0),
    # @3 drops rank 4: t1 7/8, t2 1/8, t3 unchanged
    "ERR(max_grade=qrels)@3": (F(7, 8), F(1, 8), F(7, 8) + F(1, 192), 0),
    "ERR(max_grade=qrels)@1": (F(7, 8), 0, F(7, 8), 0),
    # gdeval's scale (the default), g_max = 4: R(g) = (2^g-1)/16
    # t1 R = 7/16, 0, 0, 1/16 -> 7/16 + (1/4)(9/16)(1/16) = 7/16 + 9/1024
    # t2 R = 0, 0, 3/16, 1/16 -> (1/3)(3/16) + (1/4)(13/16)(1/16) = 1/16 + 13/1024
    # t3 R = 7/16, 0, 1/16 -> 7/16 + (1/3)(9/16)(1/16) = 7/16 + 3/256
    "ERR": (F(7, 16) + F(9, 1024), F(1, 16) + F(13, 1024), F(7, 16) + F(3, 256), 0),
    # ---------------------------------------------------------------- Q-measure, linear gain
    # t1: ideal gains [3,2,1] -> cg* = 3,5,6,6; R = 3
    #   r1 (g3): C=1, cg=3: (1+3)/(1+3) = 1;  r4 (g1): C=2, cg=4: (2+4)/(4+6) = 3/5
    #   Q = (1 + 3/5)/3 = 8/15
    # t2: ideal [2,1] -> cg* = 2,3,3,3; R = 2
    #   r3 (g2): C=1, cg=2: (1+2)/(3+3) = 1/2;  r4 (g1): C=2, cg=3: (2+3)/(4+3) = 5/7
    #   Q = (1/2 + 5/7)/2 = 17/28
    # t3: ideal [3,1] -> cg* = 3,4,4; r1: (1+3)/(1+3) = 1; r3: C=2, cg=4: (2+4)/(3+4) = 6/7
    #   Q = (1 + 6/7)/2 = 13/14
    "Q-measure": (F(8, 15), F(17, 28), F(13, 14), 0),
    # beta = 2: t1 r1 (1+6)/(1+6) = 1, r4 (2+8)/(4+12) = 5/8 -> 13/24
    #   t2 r3 (1+4)/(3+6) = 5/9, r4 (2+6)/(4+6) = 4/5 -> (5/9 + 4/5)/2 = 61/90
    #   t3 r1 1, r3 (2+8)/(3+8) = 10/11 -> 21/22
    "Q-measure(beta=2)": (F(13, 24), F(61, 90), F(21, 22), 0),
    # beta = 0 is AP: t1 (1 + 2/4)/3 = 1/2; t2 (1/3 + 2/4)/2 = 5/12; t3 (1 + 2/3)/2 = 5/6
    "Q-measure(beta=0)": (F(1, 2), F(5, 12), F(5, 6), 0),
    # exp gain (1, 3, 7): t1 ideal [7,3,1] -> cg* 7,10,11,11; r1 (1+7)/(1+7) = 1;
    #   r4 cg = 8: (2+8)/(4+11) = 2/3 -> (1 + 2/3)/3 = 5/9
    #   t2 ideal [3,1] -> cg* 3,4,4,4; r3 cg=3: (1+3)/(3+4) = 4/7; r4 cg=4: (2+4)/(4+4) = 3/4
    #   -> (4/7 + 3/4)/2 = 37/56
    #   t3 ideal [7,1] -> 7,8,8; r1 1; r3 cg=8: (2+8)/(3+8) = 10/11 -> 21/22
    "Q-measure(gain=exp)": (F(5, 9), F(37, 56), F(21, 22), 0),
    # ---------------------------------------------------------------- binary, rel = 1
    # R: t1 3 (d1,d3,d4), t2 2 (e1,e3), t3 2 (f1,f3), t4 1
    # AP t1: (1/1 + 2/4)/3 = 1/2; t2: (1/3 + 2/4)/2 = 5/12; t3: (1/1 + 2/3)/2 = 5/6
    "AP": (F(1, 2), F(5, 12), F(5, 6), 0),
    "AP@3": (F(1, 3), F(1, 6), F(5, 6), 0),  # map_cut: t1 1/3, t2 (1/3)/2, t3 unchanged
    "P@1": (1, 0, 1, 0),
    "P@2": (F(1, 2), 0, F(1, 2), 0),
    "P@4": (F(1, 2), F(1, 2), F(1, 2), 0),  # t3 has 3 documents: 2/4 (missing ranks count 0)
    "P@10": (F(2, 10), F(2, 10), F(2, 10), 0),
    "RR": (1, F(1, 3), 1, 0),
    "RR@2": (1, 0, 1, 0),
    # R-prec: t1 top 3 = d1 -> 1/3; t2 top 2 = e2, u -> 0; t3 top 2 = f1 -> 1/2
    "R-prec": (F(1, 3), 0, F(1, 2), 0),
    "Recall@2": (F(1, 3), 0, F(1, 2), 0),
    "Recall@4": (F(2, 3), 1, 1, 0),
    "Recall": (F(2, 3), 1, 1, 0),
    # bpref: N judged non-relevant: t1 2 (d2,d5), t2 1 (e2), t3 1 (f2)
    #   t1: d1 no non-relevant above -> 1; d3 one above (d2) -> 1 - min(1,3)/min(2,3) = 1/2
    #       -> (1 + 1/2)/3 = 1/2
    #   t2: e3, e1 both below e2 -> 1 - min(1,2)/min(1,2) = 0 each -> 0
    #   t3: f1 -> 1; f3 below f2 -> 1 - 1/1 = 0 -> 1/2
    "bpref": (F(1, 2), 0, F(1, 2), 0),
    # ---------------------------------------------------------------- binary, rel = 2
    # relevant: t1 d1, d4 (R=2); t2 e3 (R=1); t3 f1 (R=1); t4 none (R=0 -> 0)
    "AP(rel=2)": (F(1, 2), F(1, 3), 1, 0),
    "P(rel=2)@4": (F(1, 4), F(1, 4), F(1, 4), 0),
    "RR(rel=2)": (1, F(1, 3), 1, 0),
    "R-prec(rel=2)": (F(1, 2), 0, 1, 0),
    "Recall(rel=2)@3": (F(1, 2), 1, 1, 0),
    # bpref(rel=2): N: t1 d2,d3,d5 = 3, t2 e1,e2 = 2, t3 f2,f3 = 2
    #   t1: d1 -> 1 -> 1/2; t2: e3 below e2 -> 1 - min(1,1)/min(2,1) = 0; t3: f1 -> 1 -> 1
    "bpref(rel=2)": (F(1, 2), 0, 1, 0),
}


@pytest.fixture(scope="module")
def hand():
    return build(QRELS, RUN)


def test_hand_collection_layout(hand):
    assert hand.topics == ("1", "2", "3", "4")
    assert hand.max_grade == 3
    np.testing.assert_array_equal(hand.run_length, [[4, 4, 3, 0]])


@pytest.mark.parametrize("measure", list(HAND))
def test_closed_forms(hand, measure):
    got = scores(hand, measure)[0]
    want = [float(v) for v in HAND[measure]]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_err_max_grade_qrels_uses_the_qrels_max_grade():
    """With max_grade=qrels, g_max comes from the qrels: with grades 0..1 a grade-1 document
    stops the user with probability (2^1 - 1)/2^1 = 1/2; ERR of [1, 1] = 1/2 + (1/2)(1/2)(1/2)
    = 5/8. By default (gdeval's g_max = 4): 1/16 + (15/16)(1/2)(1/16) = 47/512."""
    c = build([("1", "a", 1), ("1", "b", 1)], {"r": [("1", "a", 2.0), ("1", "b", 1.0)]})
    assert scores(c, "ERR(max_grade=qrels)")[0, 0] == pytest.approx(5 / 8, rel=1e-12)
    assert scores(c, "ERR")[0, 0] == pytest.approx(47 / 512, rel=1e-12)
    # the same list under qrels with a grade-4 document elsewhere: R(1) = 1/16
    c4 = build([("1", "a", 1), ("1", "b", 1), ("2", "z", 4)],
               {"r": [("1", "a", 2.0), ("1", "b", 1.0)]})
    # 1/16 + (1/2)(15/16)(1/16) = 1/16 + 15/512 = 47/512
    assert scores(c4, "ERR(max_grade=qrels)")[0, 0] == pytest.approx(47 / 512, rel=1e-12)
    # a grade above max_grade would stop the user with probability > 1: an error, named
    c5 = build([("1", "a", 5)], {"r": [("1", "a", 1.0)]})
    with pytest.raises(irstab.errors.MeasureError, match="grade 5 above max_grade=4"):
        scores(c5, "ERR")


def test_err_single_top_grade_document():
    """One document of the maximum grade at rank 1: ERR = R_1 = (2^3 - 1)/2^3 = 7/8
    (Chapelle et al.: even a perfect document satisfies with probability < 1)."""
    c = build([("1", "a", 3)], {"r": [("1", "a", 1.0)]})
    assert scores(c, "ERR(max_grade=qrels)")[0, 0] == pytest.approx(7 / 8)


def test_q_measure_beta_zero_is_ap():
    """Sakai: with beta = 0 the blended ratio is precision, so Q-measure = AP (rel = 1)."""
    c = build(QRELS, RUN)
    np.testing.assert_allclose(scores(c, "Q-measure(beta=0)"), scores(c, "AP"), rtol=1e-12)


# ====================================================================== naive references


@st.composite
def cases(draw):
    G = draw(st.integers(1, 3))
    qrels_rows, pools = [], {}
    for t in range(1, draw(st.integers(1, 3)) + 1):
        grades = draw(st.lists(st.integers(0, G), min_size=1, max_size=7))
        if t == 1:
            grades[0] = G
        docs = [f"j{t}_{i}" for i in range(len(grades))]
        qrels_rows += [(str(t), d, g) for d, g in zip(docs, grades)]
        pools[str(t)] = docs + [f"u{t}_{i}" for i in range(draw(st.integers(0, 3)))]
    runs_rows = {}
    for s in range(draw(st.integers(1, 3))):
        rows = []
        for topic, pool in pools.items():
            if draw(st.integers(0, 4)) == 0:
                continue  # topic missing from this run
            chosen = draw(st.permutations(pool))[: draw(st.integers(1, len(pool)))]
            rows += [(topic, d, float(len(chosen) - i)) for i, d in enumerate(chosen)]
        runs_rows[f"s{s}"] = rows or [("1", pools["1"][0], 1.0)]
    depth = draw(st.integers(1, 12))
    return qrels_rows, runs_rows, depth


def lists_of(qrels_rows, runs_rows, depth, topics):
    """{run: {topic: [grade or None (unjudged) by rank]}} and {topic: {docid: grade}}."""
    judged = defaultdict(dict)
    for t, d, g in qrels_rows:
        judged[t][d] = g
    out = {}
    for name, rows in runs_rows.items():
        by_topic = defaultdict(list)
        for t, d, s in rows:
            by_topic[t].append((s, d))
        out[name] = {
            t: [judged[t].get(d) for _, d in sorted(by_topic[t], reverse=True)][:depth]
            for t in topics
        }
    return out, judged


def naive_rbp(grades, p, rel, k):
    n = len(grades) if k is None else min(k, len(grades))
    rbp = sum((1 - p) * p ** i for i, g in enumerate(grades[:n]) if g is not None and g >= rel)
    unjudged = sum((1 - p) * p ** i for i, g in enumerate(grades[:n]) if g is None)
    optimistic = sum((1 - p) * p ** i for i, g in enumerate(grades[:n])
                     if g is None or g >= rel)
    return rbp, unjudged + p ** n, optimistic


def naive_err(grades, g_max, k):
    err, reach = 0.0, 1.0
    for r, g in enumerate(grades[: k or len(grades)], start=1):
        stop = (2 ** max(g or 0, 0) - 1) / 2 ** g_max
        err += reach * stop / r
        reach *= 1 - stop
    return err


def naive_q(grades, judged_grades, beta):
    ideal = sorted((g for g in judged_grades if g > 0), reverse=True)
    R = len(ideal)
    total, count, cg = 0.0, 0, 0.0
    for r, g in enumerate(grades, start=1):
        g = g or 0
        cg += max(g, 0)
        if g >= 1:
            count += 1
            cg_ideal = sum(ideal[:r])
            total += (count + beta * cg) / (r + beta * cg_ideal)
    return total / R


FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(case=cases(), p=st.floats(0.05, 0.95), rel=st.integers(1, 3),
       k=st.one_of(st.none(), st.integers(1, 12)))
def test_rbp_and_residual_equal_naive_and_bound_the_optimistic_rbp(case, p, rel, k):
    qrels_rows, runs_rows, depth = case
    k = None if k is None else min(k, depth)
    c = build(qrels_rows, runs_rows, depth)
    ranked, _ = lists_of(qrels_rows, runs_rows, depth, c.topics)
    at = "" if k is None else f"@{k}"
    rbp = scores(c, f"RBP(p={p!r},rel={rel}){at}")
    residual = scores(c, f"RBP.residual(p={p!r},rel={rel}){at}")
    for s, name in enumerate(runs_rows):
        for t, topic in enumerate(c.topics):
            want_rbp, want_res, optimistic = naive_rbp(ranked[name][topic], p, rel, k)
            assert rbp[s, t] == pytest.approx(want_rbp, rel=1e-12, abs=1e-15)
            assert residual[s, t] == pytest.approx(want_res, rel=1e-12, abs=1e-15)
            # Moffat & Zobel: RBP <= RBP(every unjudged document relevant) <= RBP + residual
            assert rbp[s, t] <= optimistic + 1e-12
            assert optimistic <= rbp[s, t] + residual[s, t] + 1e-12
    assert np.all((rbp >= 0) & (rbp + residual <= 1 + 1e-12))


@FAST
@given(case=cases(), k=st.one_of(st.none(), st.integers(1, 12)))
def test_err_equals_naive_cascade(case, k):
    qrels_rows, runs_rows, depth = case
    k = None if k is None else min(k, depth)
    c = build(qrels_rows, runs_rows, depth)
    ranked, _ = lists_of(qrels_rows, runs_rows, depth, c.topics)
    got = scores(c, "ERR(max_grade=qrels)" if k is None else f"ERR(max_grade=qrels)@{k}")
    g_max = max(g for _, _, g in qrels_rows)
    for s, name in enumerate(runs_rows):
        for t, topic in enumerate(c.topics):
            assert got[s, t] == pytest.approx(naive_err(ranked[name][topic], g_max, k),
                                              rel=1e-12, abs=1e-15)
    assert np.all((got >= 0) & (got <= 1))


@FAST
@given(case=cases(), beta=st.sampled_from([0.0, 0.5, 1.0, 2.0, 10.0]))
def test_q_measure_equals_naive(case, beta):
    qrels_rows, runs_rows, depth = case
    c = build(qrels_rows, runs_rows, depth)
    ranked, judged = lists_of(qrels_rows, runs_rows, depth, c.topics)
    got = scores(c, f"Q-measure(beta={beta!r})")
    for s, name in enumerate(runs_rows):
        for t, topic in enumerate(c.topics):
            want = naive_q(ranked[name][topic], judged[topic].values(), beta)
            assert got[s, t] == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert np.all((got >= 0) & (got <= 1 + 1e-12))


def naive_binary(grades, judged_grades, rel, k):
    """trec_eval's AP, P@k, RR, R-prec, recall@k and bpref for one ranked list."""
    R = sum(1 for g in judged_grades if g >= rel)
    N = sum(1 for g in judged_grades if g < rel)
    isrel = [g is not None and g >= rel for g in grades]
    ap = sum(sum(isrel[: r + 1]) / (r + 1) for r, x in enumerate(isrel) if x) / R if R else 0.0
    p_k = sum(isrel[:k]) / k
    rr = next((1 / (r + 1) for r, x in enumerate(isrel) if x), 0.0)
    rprec = sum(isrel[:R]) / R if R else 0.0
    recall = sum(isrel[:k]) / R if R else 0.0
    bpref, nonrel = 0.0, 0
    for g in grades:
        if g is None:
            continue
        if g >= rel:
            bpref += 1.0 - (min(nonrel, R) / min(N, R) if nonrel else 0.0)
        else:
            nonrel += 1
    return {"AP": ap, "P": p_k, "RR": rr, "R-prec": rprec, "Recall": recall,
            "bpref": bpref / R if R else 0.0}


@FAST
@given(case=cases(), rel=st.integers(1, 3), k=st.integers(1, 12))
def test_binary_measures_equal_naive(case, rel, k):
    qrels_rows, runs_rows, depth = case
    k = min(k, depth)
    c = build(qrels_rows, runs_rows, depth)
    ranked, judged = lists_of(qrels_rows, runs_rows, depth, c.topics)
    got = {
        "AP": scores(c, f"AP(rel={rel})"), "P": scores(c, f"P(rel={rel})@{k}"),
        "RR": scores(c, f"RR(rel={rel})"), "R-prec": scores(c, f"R-prec(rel={rel})"),
        "Recall": scores(c, f"Recall(rel={rel})@{k}"), "bpref": scores(c, f"bpref(rel={rel})"),
    }
    for s, name in enumerate(runs_rows):
        for t, topic in enumerate(c.topics):
            want = naive_binary(ranked[name][topic], list(judged[topic].values()), rel, k)
            for m, value in want.items():
                assert got[m][s, t] == pytest.approx(value, rel=1e-12, abs=1e-15), (m, name, topic)
            # AP's terms added left to right, as trec_eval adds them: the same double
            assert got["AP"][s, t] == want["AP"], (name, topic)


def test_missing_topic_scores_zero_on_every_measure(hand):
    """Topic 4 is not in the run: 0 everywhere (trec_eval -c), except RBP.residual = 1
    (nothing of the ranking is known: all the weight is residual)."""
    for name in ["AP", "P@5", "Recall@5", "R-prec", "RR", "bpref", "RBP", "ERR@10",
                 "Q-measure", "nDCG", "nDCG@10", "DCG@5"]:
        assert scores(hand, name)[0, 3] == 0.0, name
    assert scores(hand, "RBP.residual")[0, 3] == 1.0


# ====================================================================== negative grades vs trec_eval


def test_bpref_with_negative_grades_equals_trec_eval():
    """DESIGN.md: grades may be negative (TREC Web spam = -2) and bpref's default equals
    trec_eval's. trec_eval's bpref counts as judged non-relevant only grades 0..rel-1;
    documents with a negative grade are skipped like unjudged ones (m_bpref.c; checked
    with pytrec_eval: 0.5 for this input). Qrels a=-2, b=1, c=0, d=1, e=-1, f=-2;
    ranking a, b, e, c, d. R = 2, N = 1 (c only).
    b: no judged non-relevant above -> 1;  d: c above -> 1 - min(1,2)/min(1,2) = 0.
    bpref = (1 + 0)/2 = 1/2. (Counting a, e, f as non-relevant, N = 4, gives 1/4.)"""
    c = build(
        [("1", "a", -2), ("1", "b", 1), ("1", "c", 0), ("1", "d", 1), ("1", "e", -1),
         ("1", "f", -2)],
        {"r": [("1", "a", 5.0), ("1", "b", 4.0), ("1", "e", 3.5), ("1", "c", 3.0),
               ("1", "d", 2.0)]},
    )
    assert scores(c, "bpref")[0, 0] == pytest.approx(0.5, rel=1e-12)


def test_negative_grades_equal_trec_eval_on_random_lists():
    """The trec_eval measures on small random collections whose qrels hold grades -2..3."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(20)
    trec = {"map": "AP", "P_5": "P@5", "Rprec": "R-prec", "recip_rank": "RR",
            "bpref": "bpref", "recall_5": "Recall@5"}
    mismatches = defaultdict(int)
    for _ in range(40):
        qrels = {}
        for t in range(1, 4):
            g = rng.integers(-2, 4, size=rng.integers(1, 8))
            g[0] = max(g[0], 1)
            qrels[str(t)] = {f"d{t}_{i}": int(x) for i, x in enumerate(g)}
        run = {}
        for t, docs in qrels.items():
            pool = list(docs) + [f"u{t}_{i}" for i in range(3)]
            rng.shuffle(pool)
            pool = pool[: rng.integers(1, len(pool) + 1)]
            run[t] = {d: float(len(pool) - i) for i, d in enumerate(pool)}
        c = build([(t, d, g) for t, docs in qrels.items() for d, g in docs.items()],
                  {"r": [(t, d, s) for t, docs in run.items() for d, s in docs.items()]})
        for level in (1, 2):
            theirs = pytrec_eval.RelevanceEvaluator(qrels, set(trec),
                                                    relevance_level=level).evaluate(run)
            for tm, im in trec.items():
                if level == 2:
                    im = im.replace("@", "(rel=2)@") if "@" in im else f"{im}(rel=2)"
                ours = scores(c, im)[0]
                for i, topic in enumerate(c.topics):
                    if abs(ours[i] - theirs[topic][tm]) > 1e-9:
                        mismatches[im] += 1
    assert dict(mismatches) == {}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 2), st.integers(1, 2), st.integers(1, 300), st.integers(0, 2**32 - 1))
def test_ap_sums_its_terms_left_to_right_as_trec_eval(n_runs, n_topics, depth, seed):
    """AP's double is trec_eval's: the terms ``k / r`` added in rank order (m_map.c),
    here on Python floats one at a time. Shapes include one ranking alone (a sum over one
    contiguous axis, which numpy would sum pairwise) and rankings of more than 128
    relevant documents (numpy's pairwise block)."""
    rng = np.random.default_rng(seed)
    qrels, runs, want = [], {}, {}
    for t in range(n_topics):
        rel = rng.random(depth) < rng.uniform(0.2, 1.0)
        qrels += [(f"t{t}", f"d{i}", int(rel[i])) for i in range(depth)]
        qrels.append((f"t{t}", "never", 1))  # one relevant document no run retrieves
    for s in range(n_runs):
        rows = []
        for t in range(n_topics):
            order = rng.permutation(depth)
            rows += [(f"t{t}", f"d{i}", float(depth - r)) for r, i in enumerate(order)]
            relevant = [q[2] for q in qrels if q[0] == f"t{t}" and q[1] != "never"]
            total, k = 0.0, 0
            for r, i in enumerate(order):
                if relevant[i]:
                    k += 1
                    total += k / (r + 1)
            want[(s, t)] = total / (sum(relevant) + 1)
        runs[f"r{s}"] = rows
    got = scores(build(qrels, runs, depth=depth), "AP")
    for (s, t), value in want.items():
        assert got[s, t] == value  # the same double
