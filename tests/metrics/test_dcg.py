"""DCG / nDCG with any gain and any discount, against three independent oracles.

1. trec_eval (pytrec_eval) on TREC DL 2019 with custom gain maps.
2. A naive pure-Python reference written below (plain loops over ranked lists built
   from the run rows, independent of irstab's Collection arrays and numpy kernels).
3. Closed forms on a hand-made list, with the arithmetic in the comments, and
   Hypothesis invariants (score <= ideal, ideal run = 1, scale invariance, ...).

Definitions used by the reference (issue 2, item 4; gains.py module docstring):
gain linear = grade, exp = 2^grade - 1, tuple = one value per grade, grades <= 0 gain 0;
discount log2 = 1/log2(r+1), log(base=b) = Jarvelin & Kekalainen (2002): no discount
before rank b, 1/log_b(r) from rank b on; zipf = 1/r; linear = (k+1-r)/k; flat = 1;
tuple = one weight per rank, 0 past its end. Without @k the run is read to the
evaluation depth and the ideal list holds every relevant judged document (trec_eval ndcg).
"""

from __future__ import annotations

import gzip
import math
import warnings
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import irstab
from irstab.collection import Collection
from irstab.errors import IRStabWarning, MeasureError
from irstab.io import Qrels, Run
from irstab.metrics import parse_measure

# ====================================================================== naive reference


def naive_gain(spec, grade: int) -> float:
    if grade <= 0:
        return 0.0
    if spec == "linear":
        return float(grade)
    if spec == "exp":
        return 2.0**grade - 1.0
    return float(spec[grade])


def naive_weight(spec, r: int, k: int | None) -> float:
    """Discount weight of 1-based rank r."""
    if spec == "log2":
        return 1.0 / math.log2(r + 1)
    if isinstance(spec, tuple) and spec and spec[0] == "log":
        b = spec[1]
        # Jarvelin & Kekalainen 2002, DCG[i] = CG[i] for i < b, DCG[i-1] + G[i]/log_b(i) else
        return 1.0 if r < b else 1.0 / (math.log(r) / math.log(b))
    if spec == "zipf":
        return 1.0 / r
    if spec == "linear":
        return max(k + 1 - r, 0) / k
    if spec == "flat":
        return 1.0
    return float(spec[r - 1]) if r <= len(spec) else 0.0


def discount_text(spec) -> str:
    if isinstance(spec, tuple) and spec and spec[0] == "log":
        return f"log(base={spec[1]!r})"
    if isinstance(spec, tuple):
        return "(" + ",".join(repr(float(v)) for v in spec) + ")"
    return spec


def gain_text(spec) -> str:
    if isinstance(spec, tuple):
        return "(" + ",".join(repr(float(v)) for v in spec) + ")"
    return spec


def measure_text(gain, discount, k, name="nDCG") -> str:
    return f"{name}(gain={gain_text(gain)},discount={discount_text(discount)})" + (
        "" if k is None else f"@{k}"
    )


def naive_ranking(rows, depth):
    """{topic: [docid, ...]} ordered by score desc, ties by docid desc (trec_eval), cut at depth."""
    by_topic = defaultdict(list)
    for topic, docid, score in rows:
        by_topic[topic].append((score, docid))
    return {t: [d for _, d in sorted(v, reverse=True)][:depth] for t, v in by_topic.items()}


def naive_dcg_ndcg(qrels_rows, ranked, gain, discount, k):
    """(DCG, nDCG) of one ranked list for one topic; qrels_rows: {docid: grade}."""
    if k is None and isinstance(discount, tuple) and discount[0] != "log":
        k = len(discount)  # a custom discount tuple implies its length as the cutoff
    run_part = ranked if k is None else ranked[:k]
    dcg = 0.0
    for r, doc in enumerate(run_part, start=1):
        dcg += naive_gain(gain, qrels_rows.get(doc, 0)) * naive_weight(discount, r, k)
    ideal = sorted((naive_gain(gain, g) for g in qrels_rows.values() if g > 0), reverse=True)
    if k is not None:
        ideal = ideal[:k]
    idcg = 0.0
    for r, g in enumerate(ideal, start=1):
        idcg += g * naive_weight(discount, r, k)
    return dcg, (dcg / idcg if idcg > 0 else 0.0)


class Case:
    """A small collection as plain rows, plus the irstab Collection built from it."""

    def __init__(self, qrels_rows, runs_rows, depth=1000):
        self.qrels_rows = qrels_rows  # [(topic, docid, grade)]
        self.runs_rows = runs_rows  # {name: [(topic, docid, score)]}
        self.depth = depth
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
        runs = []
        for name, rows in runs_rows.items():
            frame = pd.DataFrame(
                {
                    "topic": pd.Series([t for t, _, _ in rows], dtype=str),
                    "docid": pd.Series([d for _, d, _ in rows], dtype=str),
                    "rank": np.arange(1, len(rows) + 1, dtype=np.float64),
                    "score": np.array([s for _, _, s in rows], dtype=np.float64),
                }
            )
            runs.append(Run(name, "<mem>", name, frame=frame))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)
            self.collection = irstab.Collection.build(qrels, runs, depth=depth)
        judged = defaultdict(dict)
        for t, d, g in qrels_rows:
            judged[t][d] = g
        self.judged = dict(judged)
        self.topics = [t for t in self.collection.topics]
        self.ranked = {n: naive_ranking(rows, depth) for n, rows in runs_rows.items()}

    def irstab(self, measure: str) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)
            return irstab.score_matrix(self.collection, measure).to_numpy()

    def naive(self, gain, discount, k, normalised=True) -> np.ndarray:
        out = np.zeros((len(self.runs_rows), len(self.topics)))
        for s, name in enumerate(self.runs_rows):
            for t, topic in enumerate(self.topics):
                ranked = self.ranked[name].get(topic, [])  # a missing topic: empty list
                dcg, ndcg = naive_dcg_ndcg(self.judged[topic], ranked, gain, discount, k)
                out[s, t] = ndcg if normalised else dcg
        return out


# ====================================================================== random collections


@st.composite
def cases(draw, max_grade=None, min_depth=1):
    G = draw(st.integers(1, 3)) if max_grade is None else max_grade
    n_topics = draw(st.integers(1, 3))
    qrels_rows, pools = [], {}
    for t in range(1, n_topics + 1):
        topic = str(t)
        grades = draw(st.lists(st.integers(-1, G), min_size=1, max_size=7))
        if t == 1:
            grades[0] = G  # the qrels' maximum grade is G, and topic 1 is evaluated
        docs = [f"j{t}_{i}" for i in range(len(grades))]
        qrels_rows += [(topic, d, g) for d, g in zip(docs, grades)]
        pools[topic] = docs + [f"u{t}_{i}" for i in range(draw(st.integers(0, 3)))]
    runs_rows = {}
    for s in range(draw(st.integers(1, 3))):
        rows = []
        for topic, pool in pools.items():
            if not draw(st.booleans()) and draw(st.booleans()):
                continue  # about one topic in four missing from the run
            chosen = draw(st.permutations(pool))[: draw(st.integers(1, len(pool)))]
            scores = draw(st.lists(st.integers(0, 4), min_size=len(chosen), max_size=len(chosen)))
            rows += [(topic, d, float(sc)) for d, sc in zip(chosen, scores)]  # ties included
        if not rows:
            rows = [("1", pools["1"][0], 1.0)]
        runs_rows[f"sys{s}"] = rows
    depth = draw(st.integers(min_depth, 12))
    return Case(qrels_rows, runs_rows, depth)


def monotone_gains(G):
    """Non-decreasing gains with gain[0] = 0 and gain[1] > 0."""
    return st.lists(
        st.floats(0.01, 100, allow_nan=False), min_size=G, max_size=G
    ).map(lambda v: (0.0, *sorted(v)))


def any_gains(G):
    return st.lists(st.floats(0.01, 100, allow_nan=False), min_size=G, max_size=G).map(
        lambda v: (0.0, *v)
    )


def decreasing_discounts(n_max=12):
    return st.lists(st.floats(0.001, 10, allow_nan=False), min_size=1, max_size=n_max).map(
        lambda v: tuple(sorted(v, reverse=True))
    )


NAMED_DISCOUNTS = ["log2", "zipf", "flat", "linear", ("log", 2.0), ("log", 3.0), ("log", 10.0),
                   ("log", 2.5)]
FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ====================================================================== naive reference tests


@FAST
@given(case=cases(), data=st.data())
def test_ndcg_equals_naive_reference_named_discounts(case, data):
    G = case.collection.max_grade
    gain = data.draw(st.one_of(st.sampled_from(["linear", "exp"]), monotone_gains(G)))
    discount = data.draw(st.sampled_from(NAMED_DISCOUNTS))
    k = data.draw(st.one_of(st.none(), st.integers(1, case.depth)))
    if discount == "linear" and k is None:
        k = case.depth
    for name, normalised in (("nDCG", True), ("DCG", False)):
        got = case.irstab(measure_text(gain, discount, k, name))
        want = case.naive(gain, discount, k, normalised)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@FAST
@given(case=cases(), data=st.data())
def test_ndcg_equals_naive_reference_tuple_discounts(case, data):
    G = case.collection.max_grade
    gain = data.draw(st.one_of(st.sampled_from(["linear", "exp"]), monotone_gains(G)))
    discount = data.draw(
        st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 10)), min_size=1, max_size=case.depth)
        .map(tuple)
    )  # any shape, not only decreasing (weights near the float range: see the overflow test)
    k = data.draw(st.one_of(st.none(), st.just(len(discount))))  # a cutoff must match the tuple
    for name, normalised in (("nDCG", True), ("DCG", False)):
        got = case.irstab(measure_text(gain, discount, k, name))
        want = case.naive(gain, discount, k, normalised)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_rising_discount_can_exceed_one_and_says_so():
    # Ranking by grade puts the grade-1 document at rank 1 (weight 1) and nothing at rank 2
    # (weight 10); a run with the relevant document at rank 2 scores 10 / 1 = 10.
    qrels = Qrels("q", pd.DataFrame({"topic": ["t"] * 2, "docid": ["a", "b"], "grade": [1, 0]}))
    run = Run("r", "r", "r", pd.DataFrame({"topic": ["t", "t"], "docid": ["b", "a"],
                                           "rank": [1, 2], "score": [2.0, 1.0]}))
    coll = Collection.build(qrels, [run], depth=2)
    with pytest.warns(IRStabWarning, match=r"nDCG reaches 10 > 1 on 1 cell"):
        x = parse_measure("nDCG(discount=(1,10))@2").compute(coll)
    assert x[0, 0] == pytest.approx(10.0)
    # weights 1e310 apart (beyond the float range) are an error, never a silent inf or 0
    with pytest.raises(MeasureError, match="span more than the floating-point range"):
        parse_measure("nDCG(discount=(1e-300,1e10))@2").compute(coll)


@FAST
@given(case=cases(max_grade=3), data=st.data())
def test_ndcg_non_monotone_gains_equal_naive_reference(case, data):
    """Gains need not grow with the grade; the ideal list is then sorted by gain, and the
    cutoff applies to that list (the top k gains, not the gains of the top k grades)."""
    gain = data.draw(any_gains(3))
    discount = data.draw(st.sampled_from(["log2", "zipf", "flat"]))
    k = data.draw(st.one_of(st.none(), st.integers(1, case.depth)))
    got = case.irstab(measure_text(gain, discount, k))
    np.testing.assert_allclose(got, case.naive(gain, discount, k), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "gain, discount, k",
    [("linear", "log2", 10), ("exp", "zipf", 20), ((0, 1, 3, 7), "flat", 5),
     ("exp", "linear", 15), ((0, 0.5, 2, 2.5), ("log", 2.0), None), ("linear", ("log", 10.0), 30),
     ("exp", (1.0, 0.9, 0.3, 0.3, 0.2, 0.05, 0.0, 0.01), None), ("linear", "zipf", None)],
)
def test_ndcg_equals_naive_reference_on_simulated_collection(seed, gain, discount, k):
    from irstab.simulate import simulate_collection

    sim = simulate_collection(n_systems=4, n_topics=6, depth=30, seed=seed)
    qrels_rows = list(sim.qrels.frame[["topic", "docid", "grade"]].itertuples(index=False))
    runs_rows = {
        r.name: list(r.frame[["topic", "docid", "score"]].itertuples(index=False)) for r in sim.runs
    }
    case = Case([tuple(x) for x in qrels_rows],
                {n: [tuple(x) for x in rows] for n, rows in runs_rows.items()}, depth=30)
    got = case.irstab(measure_text(gain, discount, k))
    np.testing.assert_allclose(got, case.naive(gain, discount, k), rtol=1e-12, atol=1e-12)


# ====================================================================== closed forms

# One topic, judged: a=3, b=2, c=1, d=0, e=2 (e is never retrieved), so the ideal grade list
# is [3, 2, 2, 1]. The run ranks c, d, a, x (unjudged), b: grades [1, 0, 3, 0, 2].
HAND_QRELS = [("1", "a", 3), ("1", "b", 2), ("1", "c", 1), ("1", "d", 0), ("1", "e", 2)]
HAND_RUN = {"run": [("1", "c", 5.0), ("1", "d", 4.0), ("1", "a", 3.0), ("1", "x", 2.0),
                    ("1", "b", 1.0)]}
L2, L3, L5, L6 = math.log2(3), math.log2(4), math.log2(5), math.log2(6)

CLOSED_FORMS = {
    # log2, linear gain, @5: DCG = 1/log2 2 + 3/log2 4 + 2/log2 6; ideal 3 + 2/log2 3 + 2/2 + 1/log2 5
    "nDCG@5": (1 + 3 / 2 + 2 / L6) / (3 + 2 / L2 + 2 / 2 + 1 / L5),
    # zipf @3: DCG = 1/1 + 0/2 + 3/3 = 2; IDCG = 3 + 2/2 + 2/3 = 14/3; nDCG = 3/7
    "nDCG(discount=zipf)@3": Fraction(3, 7),
    # flat (CG) @3: DCG = 1 + 0 + 3 = 4; IDCG = 3 + 2 + 2 = 7
    "nDCG(discount=flat)@3": Fraction(4, 7),
    # linear @3: weights (3/3, 2/3, 1/3); DCG = 1 + 0 + 3/3 = 2; IDCG = 3 + 4/3 + 2/3 = 5
    "nDCG(discount=linear)@3": Fraction(2, 5),
    # tuple (1, 0.5, 0.25), k = 3 implied: DCG = 1 + 0 + 0.75; IDCG = 3 + 1 + 0.5 = 4.5 -> 7/18
    "nDCG(discount=(1,0.5,0.25))": Fraction(7, 18),
    # J&K log base 3 @5: weights 1, 1, 1 (log_3 3 = 1), 1/log_3 4, 1/log_3 5
    # DCG = 1 + 0 + 3 + 0 + 2 ln3/ln5; IDCG = 3 + 2 + 2 + 1 * ln3/ln4
    "nDCG(discount=log(base=3))@5": (4 + 2 * math.log(3) / math.log(5))
    / (7 + math.log(3) / math.log(4)),
    # exp gain (1, 3, 7 for grades 1..3), zipf @5: DCG = 1 + 7/3 + 3/5 = 59/15;
    # ideal gains [7, 3, 3, 1]: IDCG = 7 + 3/2 + 3/3 + 1/4 = 39/4; nDCG = 236/585
    "nDCG(gain=exp,discount=zipf)@5": Fraction(236, 585),
    # zipf, no cutoff: DCG = 1 + 3/3 + 2/5 = 12/5; IDCG = 3 + 2/2 + 2/3 + 1/4 = 59/12
    "nDCG(discount=zipf)": Fraction(144, 295),
    # unnormalised DCG@2 = 1/log2(2) + 0 = 1; DCG(zipf)@5 = 12/5
    "DCG@2": 1.0,
    "DCG(discount=zipf)@5": Fraction(12, 5),
    # gain tuple (0,1,3,7) == exp; log2 without cutoff:
    # DCG = 1 + 7/log2 4 + 3/log2 6; IDCG = 7 + 3/log2 3 + 3/log2 4 + 1/log2 5
    "nDCG(gain=(0,1,3,7))": (1 + 7 / 2 + 3 / L6) / (7 + 3 / L2 + 3 / 2 + 1 / L5),
    # @1: the run's first document has grade 1, the ideal's grade 3 -> 1/3 (any discount)
    "nDCG@1": Fraction(1, 3),
    "nDCG(discount=zipf)@1": Fraction(1, 3),
    # non-monotone gains (0,3,1,2): run gains [3,0,2,0,1]; ideal gains sorted [3,2,1,1];
    # zipf @5: DCG = 3 + 2/3 + 1/5 = 58/15; IDCG = 3 + 2/2 + 1/3 + 1/4 = 55/12 -> 232/275
    "nDCG(gain=(0,3,1,2),discount=zipf)@5": Fraction(232, 275),
}


@pytest.fixture(scope="module")
def hand():
    return Case(HAND_QRELS, HAND_RUN)


@pytest.mark.parametrize("measure", list(CLOSED_FORMS))
def test_closed_forms(hand, measure):
    got = hand.irstab(measure)[0, 0]
    assert got == pytest.approx(float(CLOSED_FORMS[measure]), rel=1e-12, abs=1e-15)


def test_non_monotone_gain_cutoff_uses_the_top_gains():
    """gain=(0,3,1,2): grade 1 is worth most. Judged grades 3, 2, 2, 1 -> gains 2, 1, 1, 3.
    The run e (grade 1), a (grade 3) has gains [3, 2]: it *is* the ideal top 2, so nDCG@2 = 1.
    (Cutting the ideal list by grade first, [3, 2] -> gains [2, 1], gives 1.62 > 1.)"""
    case = Case([("1", "a", 3), ("1", "b", 2), ("1", "c", 2), ("1", "e", 1)],
                {"r": [("1", "e", 2.0), ("1", "a", 1.0)]})
    assert case.irstab("nDCG(gain=(0,3,1,2))@2")[0, 0] == pytest.approx(1.0, rel=1e-12)
    assert case.irstab("nDCG(gain=(0,3,1,2),discount=zipf)@1")[0, 0] == pytest.approx(1.0)


def test_trec_eval_ndcg_by_hand():
    """trec_eval's own example style: qrels a=1, b=2, c=3, d=0; run d, a, b, c (scores 4..1).
    DCG = 0 + 1/log2 3 + 2/log2 4 + 3/log2 5; IDCG = 3 + 2/log2 3 + 1/log2 4.
    pytrec_eval gives 0.6138273133441086 for this input (checked when writing the test)."""
    case = Case([("1", "a", 1), ("1", "b", 2), ("1", "c", 3), ("1", "d", 0)],
                {"r": [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 1.0), ("1", "d", 4.0)]})
    want = (1 / L2 + 2 / 2 + 3 / L5) / (3 + 2 / L2 + 1 / 2)
    assert want == pytest.approx(0.6138273133441086, rel=1e-15)
    assert case.irstab("nDCG")[0, 0] == pytest.approx(want, rel=1e-12)


def test_missing_topic_scores_zero(hand):
    """A topic the run lacks scores 0 on every DCG variant (trec_eval -c)."""
    case = Case(HAND_QRELS + [("2", "z", 1)], {"run": HAND_RUN["run"]})
    assert case.topics == ["1", "2"]
    for m in ["nDCG@5", "nDCG", "DCG@3", "nDCG(gain=exp,discount=zipf)@5",
              "nDCG(discount=(1,0.5))", "nDCG(discount=linear)@4", "nDCG(discount=log(base=3))"]:
        got = case.irstab(m)
        assert got[0, 1] == 0.0
        assert got[0, 0] == pytest.approx(hand.irstab(m)[0, 0], rel=1e-12)


def test_ideal_dcg_zero_gives_zero_and_warns():
    """Every relevant grade of topic 2 gets gain 0: IDCG = 0, nDCG = 0 there, with a warning
    naming the topic (DESIGN.md: IDCG = 0 -> nDCG = 0 and the topic is reported)."""
    case = Case([("1", "a", 2), ("2", "b", 1)], {"r": [("1", "a", 1.0), ("2", "b", 1.0)]})
    with pytest.warns(IRStabWarning, match="'2'"):
        got = irstab.score_matrix(case.collection, "nDCG(gain=(0,0,1))").to_numpy()
    np.testing.assert_array_equal(got, [[1.0, 0.0]])
    assert not np.isnan(got).any()


def test_tuple_discount_equals_named_discount(hand):
    for k in (1, 3, 5, 8):
        zipf = tuple(1 / r for r in range(1, k + 1))
        log2 = tuple(1 / math.log2(r + 1) for r in range(1, k + 1))
        assert hand.irstab(measure_text("linear", zipf, None))[0, 0] == pytest.approx(
            hand.irstab(f"nDCG(discount=zipf)@{k}")[0, 0], rel=1e-12)
        assert hand.irstab(measure_text("exp", log2, k))[0, 0] == pytest.approx(
            hand.irstab(f"nDCG(gain=exp)@{k}")[0, 0], rel=1e-12)


def test_log_base_2_discount_is_not_log2():
    """log(base=2) is J&K's: rank 1 and 2 weigh 1, rank 3 1/log2 3; log2 is 1/log2(r+1)."""
    case = Case([("1", "a", 1), ("1", "b", 1), ("1", "c", 1)],
                {"r": [("1", "x", 3.0), ("1", "y", 2.0), ("1", "a", 1.0)]})
    # only the 3rd document is relevant: DCG(log(base=2))@3 = 1/log2 3, DCG@3 = 1/log2 4 = 1/2
    assert case.irstab("DCG(discount=log(base=2))@3")[0, 0] == pytest.approx(1 / L2)
    assert case.irstab("DCG@3")[0, 0] == pytest.approx(0.5)


# ====================================================================== Hypothesis invariants


@FAST
@given(case=cases(), data=st.data())
def test_ndcg_between_zero_and_one(case, data):
    """score <= ideal for any gains when the discount does not increase with the rank."""
    G = case.collection.max_grade
    gain = data.draw(st.one_of(st.sampled_from(["linear", "exp"]), monotone_gains(G)))
    discount = data.draw(
        st.one_of(st.sampled_from(NAMED_DISCOUNTS), decreasing_discounts(case.depth))
    )
    k = data.draw(st.one_of(st.none(), st.integers(1, case.depth)))
    if discount == "linear" and k is None:
        k = case.depth
    if isinstance(discount, tuple) and discount[0] != "log" and k is not None:
        k = len(discount)  # a cutoff given with a weight tuple must match it
    got = case.irstab(measure_text(gain, discount, k))
    assert np.all(got >= 0)
    assert np.all(got <= 1 + 1e-12)


@FAST
@given(case=cases(), data=st.data())
def test_ideal_run_scores_one(case, data):
    """A run listing each topic's judged documents by decreasing gain scores 1.
    (Monotone gains here; non-monotone gains have their own tests above.)"""
    G = case.collection.max_grade
    gain = data.draw(st.one_of(st.sampled_from(["linear", "exp"]), monotone_gains(G)))
    discount = data.draw(st.one_of(st.sampled_from(NAMED_DISCOUNTS), decreasing_discounts()))
    k = data.draw(st.one_of(st.none(), st.integers(1, 12)))
    if discount == "linear" and k is None:
        k = 12
    if isinstance(discount, tuple) and discount[0] != "log" and k is not None:
        k = len(discount)  # a cutoff given with a weight tuple must match it
    rows = []
    for topic, judged in case.judged.items():
        order = sorted(judged, key=lambda d: naive_gain(gain, judged[d]), reverse=True)
        rows += [(topic, d, float(len(order) - i)) for i, d in enumerate(order)]
    ideal = Case(case.qrels_rows, {"ideal": rows}, depth=1000)
    got = ideal.irstab(measure_text(gain, discount, k))
    np.testing.assert_allclose(got, 1.0, rtol=1e-12)


@FAST
@given(
    case=cases(),
    data=st.data(),
    c=st.floats(1e-3, 1e3, allow_nan=False),
)
def test_ndcg_invariant_to_scaling_gain_or_discount(case, data, c):
    G = case.collection.max_grade
    gain = data.draw(monotone_gains(G))
    discount = data.draw(decreasing_discounts(case.depth))
    k = data.draw(st.one_of(st.none(), st.just(len(discount))))  # a cutoff must match the tuple
    base = case.irstab(measure_text(gain, discount, k))
    scaled_gain = case.irstab(measure_text(tuple(c * g for g in gain), discount, k))
    scaled_discount = case.irstab(measure_text(gain, tuple(c * d for d in discount), k))
    np.testing.assert_allclose(scaled_gain, base, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(scaled_discount, base, rtol=1e-9, atol=1e-12)
    # and DCG itself scales linearly with either
    dcg = case.irstab(measure_text(gain, discount, k, "DCG"))
    np.testing.assert_allclose(
        case.irstab(measure_text(tuple(c * g for g in gain), discount, k, "DCG")), c * dcg,
        rtol=1e-9, atol=1e-12)


@FAST
@given(case=cases(), data=st.data())
def test_named_discount_scaled_as_a_tuple_is_the_same_measure(case, data):
    """nDCG(discount=c*zipf-weights)@k == nDCG(discount=zipf)@k: scale invariance of the
    named discounts, through the tuple form."""
    k = data.draw(st.integers(1, case.depth))
    c = data.draw(st.floats(0.01, 100))
    name = data.draw(st.sampled_from(["log2", "zipf", "flat", "linear", ("log", 3.0)]))
    weights = tuple(c * naive_weight(name, r, k) for r in range(1, k + 1))
    np.testing.assert_allclose(
        case.irstab(measure_text("exp", weights, None)),
        case.irstab(measure_text("exp", name, k)), rtol=1e-9, atol=1e-12)


@FAST
@given(case=cases(), data=st.data())
def test_dcg_monotone_in_k(case, data):
    gain = data.draw(st.sampled_from(["linear", "exp"]))
    discount = data.draw(st.sampled_from(["log2", "zipf", "flat", ("log", 2.0)]))
    previous = np.zeros((case.collection.n_systems, case.collection.n_topics))
    for k in range(1, case.depth + 1):
        now = case.irstab(measure_text(gain, discount, k, "DCG"))
        assert np.all(now >= previous - 1e-12)
        previous = now
    assert np.all(case.irstab(measure_text(gain, discount, None, "DCG")) >= previous - 1e-12)


@FAST
@given(case=cases())
def test_topic_missing_from_a_run_scores_zero(case):
    col = case.collection
    missing = col.run_length == 0
    assume(missing.any())
    k = case.depth
    for m in ["nDCG", f"nDCG@{k}", f"DCG(gain=exp,discount=zipf)@{k}", "nDCG(discount=flat)"]:
        assert np.all(case.irstab(m)[missing] == 0.0)


# ====================================================================== trec_eval on DL 2019


def _plain_runs(run_dir):
    """{run name: {topic: {docid: score}}} with a plain Python parser (not irstab.io)."""
    runs, tags = {}, {}
    for path in sorted(run_dir.iterdir()):
        if path.name.startswith("."):
            continue
        run, tag = {}, None
        with gzip.open(path, "rt") if path.suffix == ".gz" else open(path) as fh:
            for line in fh:
                fields = line.split()
                if not fields:
                    continue
                run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
                tag = fields[5]
        runs[path], tags[path] = run, tag
    unique = sum(1 for t in tags.values() if list(tags.values()).count(t) == 1) == len(tags)
    assert unique, "DL 2019 run tags are unique"
    return {tags[p]: r for p, r in runs.items()}


def _plain_qrels(path):
    qrels = {}
    with open(path) as fh:
        for line in fh:
            topic, _, doc, grade = line.split()
            qrels.setdefault(topic, {})[doc] = int(grade)
    return qrels


@pytest.fixture(scope="module")
def dl2019_plain(dl2019_dir):
    return _plain_qrels(dl2019_dir / "qrels.txt"), _plain_runs(dl2019_dir / "runs")


# Gain maps with integer gains (trec_eval sorts gain levels with an int-truncating
# comparator): exponential, non-monotone (grade 1 worth most), and grade 1 worth nothing.
DL_GAINS = [(0, 1, 3, 7), (0, 3, 1, 2), (0, 0, 1, 5)]


@pytest.mark.parametrize("gains", DL_GAINS, ids=lambda g: "-".join(map(str, g)))
def test_dl2019_custom_gains_equal_trec_eval_gain_parameters(dl2019_te9, dl2019_plain, gains):
    """trec_eval's ndcg takes a gain map as measure parameters, e.g. ``ndcg.1=1,2=3,3=7``
    (levels not listed gain their own value; grade 0 gains 0). pytrec_eval's Python wrapper
    only forwards numeric parameters, so the C extension is called directly. trec_eval
    rewrites that parameter string in place on the first evaluation (a second evaluate() on
    the same evaluator fails with "malformed pair parameters" and then segfaults), so each
    run gets a fresh evaluator. pytrec_eval is trec_eval 9: the Collection orders scores as
    it does, in single precision."""
    pytest.importorskip("pytrec_eval")
    ext = pytest.importorskip("pytrec_eval_ext")
    qrels, runs = dl2019_plain
    measure = "ndcg." + ",".join(f"{g}={gains[g]}" for g in range(1, len(gains)))
    ours = irstab.score_matrix(dl2019_te9, f"nDCG(gain={gain_text(gains)})")
    assert set(ours.index) == set(runs)
    for name, run in runs.items():
        evaluator = ext.RelevanceEvaluator(
            query_relevance=qrels, measures={measure}, relevance_level=1,
            judged_docs_only_flag=False,
        )
        theirs = evaluator.evaluate(run)
        for topic in dl2019_te9.topics:
            want = theirs[topic]["ndcg"] if topic in theirs else 0.0  # trec_eval -c
            assert ours.loc[name, topic] == pytest.approx(want, abs=1e-9), (name, topic)


@pytest.mark.parametrize("gains", DL_GAINS, ids=lambda g: "-".join(map(str, g)))
def test_dl2019_custom_gains_equal_trec_eval_on_remapped_qrels(dl2019_te9, dl2019_plain, gains):
    """Second route, public pytrec_eval API only: trec_eval's default gain is the grade, so
    qrels whose grades are replaced by their gains give nDCG with that gain map."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, runs = dl2019_plain
    remapped = {t: {d: gains[g] if g > 0 else g for d, g in docs.items()}
                for t, docs in qrels.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(remapped, {"ndcg"})
    ours = irstab.score_matrix(dl2019_te9, f"nDCG(gain={gain_text(gains)})")
    worst = 0.0
    for name, run in runs.items():
        theirs = evaluator.evaluate(run)
        for topic in dl2019_te9.topics:
            want = theirs[topic]["ndcg"] if topic in theirs else 0.0
            worst = max(worst, abs(ours.loc[name, topic] - want))
    assert worst <= 1e-9
