"""UL normalisation (seed 004): exact expectations, the seed's formulas, V1 and V2.

Oracles
1. Brute force: the average over all orderings of up to 8 candidates, in plain Python.
2. A seeded Monte Carlo average over random orderings of TREC DL 2019 candidates: the exact
   expectation lies within 3 standard errors; the seed's E[SP@k] = k (n_p/n)^2 does not.
3. Hand arithmetic for V1 / V2 (Karmaker & Feng 2022, eq. 5, 6) on two- and three-document topics.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import irstab
from irstab.errors import IRStabWarning, MeasureError
from irstab.io import Qrels, Run
from irstab.metrics import DCG, DCG_UL, SP_UL, Discount, Gain, nDCG, parse_measure
from irstab.metrics.expected import expected_dcg, expected_sp, ul_normalise


def build(qrels: dict, runs: dict, depth: int = 1000) -> irstab.Collection:
    """qrels {topic: {doc: grade}}, runs {name: {topic: [doc, ...]}} in rank order."""
    q = pd.DataFrame(
        [(t, d, g) for t, docs in qrels.items() for d, g in docs.items()],
        columns=["topic", "docid", "grade"],
    ).astype({"grade": np.int64})
    out = []
    for name, topics in runs.items():
        rows = [(t, d, float(i + 1), float(len(docs) - i)) for t, docs in topics.items()
                for i, d in enumerate(docs)]
        out.append(Run(name, name, name, frame=pd.DataFrame(rows, columns=["topic", "docid", "rank", "score"])))
    return irstab.Collection.build(Qrels("qrels", q), out, depth=depth)


# ------------------------------------------------------------ plain-Python references


def dcg_of(ranking, gain, discount, k):
    return sum(gain[max(g, 0)] * discount[i] for i, g in enumerate(ranking[:k]))


def sp_of(ranking, k, rel=1):
    hits, total = 0, 0.0
    for i, g in enumerate(ranking[:k], 1):
        if g >= rel:
            hits += 1
            total += hits / i
    return total


def brute_force(grades, f):
    perms = list(itertools.permutations(grades))
    return sum(f(list(p)) for p in perms) / len(perms)


CANDIDATES = [
    [1, 0],
    [2, 1, 0],
    [3, 3, 0, 0],
    [1, 1, 1, 0, 0],
    [2, 0, 1, 0, 3, -1],
    [1, 0, 0, 0, 0, 0, 2],
    [3, 2, 2, 1, 0, 0, 0, 1],  # 8! = 40320 orderings
    [1],
    [0, 0, 0],
]


@pytest.mark.parametrize("grades", CANDIDATES)
@pytest.mark.parametrize("gain_spec,discount_spec", [("exp", "log2"), ("linear", "zipf"),
                                                     ((0, 1, 5, 6), (1, 0.9, 0.5, 0.5, 0.1, 0.1, 0.1, 0.05, 0.05, 0.01))])
def test_expected_dcg_is_the_permutation_average(grades, gain_spec, discount_spec):
    gain = Gain.of(gain_spec).vector(3)
    n = len(grades)
    for k in sorted({1, 3, n, n + 2}):
        if isinstance(discount_spec, tuple) and k > len(discount_spec):
            continue
        discount = Discount.of(discount_spec).vector(k, k)
        want = brute_force(grades, lambda p: dcg_of(p, gain, discount, k))
        mean_gain = sum(gain[max(g, 0)] for g in grades) / n
        assert float(expected_dcg(mean_gain, n, discount, k)) == pytest.approx(want, rel=1e-12, abs=1e-12)
        paper = float(expected_dcg(mean_gain, n, discount, k, "paper"))
        if n >= k:  # seed eq. 7 is exact when every rank up to k is filled
            assert paper == pytest.approx(want, rel=1e-12, abs=1e-12)
        elif mean_gain > 0:  # it overstates the bound when n < k
            assert paper > want + 1e-9


@pytest.mark.parametrize("grades", CANDIDATES)
@pytest.mark.parametrize("rel", [1, 2])
def test_expected_sp_is_the_permutation_average(grades, rel):
    n, n_rel = len(grades), sum(g >= rel for g in grades)
    for k in sorted({1, 2, 3, n, n + 2}):
        want = brute_force(grades, lambda p: sp_of(p, k, rel))
        assert float(expected_sp(n_rel, n, k)) == pytest.approx(want, rel=1e-12, abs=1e-12)
        # The seed's formula, literally: k (n_p / n)^2.
        assert float(expected_sp(n_rel, n, k, "paper")) == pytest.approx(k * (n_rel / n) ** 2, rel=1e-15)


def test_worked_number_of_the_docstring():
    # One relevant, one non-relevant, k = 2: SP([R,N]) = 1, SP([N,R]) = 1/2 -> 0.75; seed: 0.5.
    assert brute_force([1, 0], lambda p: sp_of(p, 2)) == 0.75
    assert float(expected_sp(1, 2, 2)) == 0.75 and float(expected_sp(1, 2, 2, "paper")) == 0.5


def test_zero_candidates():
    assert float(expected_sp(0, 0, 5)) == 0.0
    assert float(expected_dcg(0.0, 0, np.ones(5), 5)) == 0.0


# ----------------------------------------------------------------- Monte Carlo


def _mc(grades: np.ndarray, k: int, rng, draws: int, gain, discount, rel=1):
    """Mean and standard error of DCG@k and SP@k over random orderings (vectorised sampling)."""
    order = rng.permuted(np.tile(grades, (draws, 1)), axis=1)[:, :k]
    dcg = gain[np.clip(order, 0, None)] @ discount[: order.shape[1]]
    relevant = order >= rel
    prec = np.cumsum(relevant, axis=1) / np.arange(1, order.shape[1] + 1)
    sp = (prec * relevant).sum(axis=1)
    se = lambda x: x.std(ddof=1) / math.sqrt(draws)  # noqa: E731
    return (dcg.mean(), se(dcg)), (sp.mean(), se(sp))


@pytest.mark.parametrize("k", [10, 100])
def test_dl2019_monte_carlo_judged_candidates(dl2019, dl2019_dir, k):
    # Candidates: each topic's judged documents (read from the file, not from the Collection).
    qrels = pd.read_csv(dl2019_dir / "qrels.txt", sep=" ", header=None, names=["t", "i", "d", "g"],
                        dtype={"t": str, "d": str})
    _, dcg_rlb, _ = DCG_UL(cutoff=k).bounds(dl2019)
    _, sp_rlb, _ = SP_UL(cutoff=k).bounds(dl2019)
    _, sp_paper, _ = SP_UL(cutoff=k, expectation="paper").bounds(dl2019)
    gain, discount = Gain.of("exp").vector(3), Discount().vector(k)
    rng = np.random.default_rng(20190)
    paper_outside = 0
    for t in range(0, 43, 6):  # 8 topics, 20000 orderings each
        grades = qrels[qrels.t == dl2019.topics[t]].g.to_numpy()
        (dm, ds), (sm, ss) = _mc(grades, k, rng, 20000, gain, discount)
        assert abs(dm - dcg_rlb[0, t]) <= 3 * ds, (t, dm, dcg_rlb[0, t], ds)
        assert abs(sm - sp_rlb[0, t]) <= 3 * ss, (t, sm, sp_rlb[0, t], ss)
        paper_outside += abs(sm - sp_paper[0, t]) > 3 * ss
    assert paper_outside == 8  # the seed's independence assumption is visibly wrong on every topic


def test_dl2019_monte_carlo_retrieved_candidates(dl2019):
    # Candidates: a run's retrieved documents (unjudged = grade 0), per (run, topic).
    k = 10
    _, rlb, _ = DCG_UL(cutoff=k, candidates="retrieved").bounds(dl2019)
    _, sp_rlb, _ = SP_UL(cutoff=k, candidates="retrieved", rel=2).bounds(dl2019)
    gain, discount = Gain.of("exp").vector(3), Discount().vector(k)
    rng = np.random.default_rng(7)
    for s, t in [(0, 0), (5, 12), (17, 30), (36, 42)]:
        grades = dl2019.grades[s, t, : dl2019.run_length[s, t]].astype(np.int64)
        (dm, ds), _ = _mc(grades, k, rng, 20000, gain, discount)
        _, (sm, ss) = _mc(grades, k, rng, 20000, gain, discount, rel=2)
        assert abs(dm - rlb[s, t]) <= 3 * ds
        assert abs(sm - sp_rlb[s, t]) <= 3 * ss


# ------------------------------------------------------------------- V1 and V2


@pytest.fixture(scope="module")
def two_docs():
    # Topic 1: d1 relevant (grade 1), d2 not; n = 2, n_p = 1. Runs: ideal [d1, d2], reversed [d2, d1].
    return build({"1": {"d1": 1, "d2": 0}}, {"ideal": {"1": ["d1", "d2"]}, "rev": {"1": ["d2", "d1"]}})


def test_sp_ul_by_hand(two_docs):
    # SP@2: ideal 1, reversed 1/2. RLB = E[SP@2] = 0.75; IUB (ideal) = min(1, 2) = 1; IUB (k) = 2.
    # V1 = (A/IUB)(A/(A+RLB)): ideal 1 * 1/1.75 = 4/7; reversed 1/2 * 0.5/1.25 = 0.2.
    # V2: ideal (1-0.75)/(1-0.75) = 1; reversed A < RLB: (0.5-0.75)/0.75 = -1/3.
    np.testing.assert_allclose(SP_UL(cutoff=2).compute(two_docs)[:, 0], [4 / 7, 0.2])
    np.testing.assert_allclose(SP_UL(cutoff=2, version=2).compute(two_docs)[:, 0], [1.0, -1 / 3])
    # iub=k (the seed's): V1 = (1/2)(1/1.75) = 2/7 and (1/4)(0.4) = 0.1; V2 = 0.25/1.25 = 0.2, -1/3.
    np.testing.assert_allclose(SP_UL(cutoff=2, iub="k").compute(two_docs)[:, 0], [2 / 7, 0.1])
    np.testing.assert_allclose(SP_UL(cutoff=2, iub="k", version=2).compute(two_docs)[:, 0], [0.2, -1 / 3])
    # expectation=paper: RLB = 2 (1/2)^2 = 0.5, so the reversed run is exactly "random": V2 = 0.
    np.testing.assert_allclose(SP_UL(cutoff=2, version=2, expectation="paper").compute(two_docs)[:, 0],
                               [1.0, 0.0])


def test_dcg_ul_by_hand():
    # Topic: grades 2, 1, 0; exp gain 3, 1, 0; log2 discount 1, 1/log2(3); k = 2.
    # RLB = mean gain 4/3 * (1 + 1/log2 3); IUB = 3 + 1/log2 3. Run [d3, d1]: A = 3/log2 3.
    c = build({"1": {"d1": 2, "d2": 1, "d3": 0}}, {"r": {"1": ["d3", "d1"]}})
    L = 1 / math.log2(3)
    a, rlb, iub = 3 * L, 4 / 3 * (1 + L), 3 + L
    assert DCG_UL(cutoff=2).compute(c)[0, 0] == pytest.approx((a / iub) * (a / (a + rlb)), rel=1e-12)
    want_v2 = (a - rlb) / (iub - rlb) if a >= rlb else (a - rlb) / rlb
    assert DCG_UL(cutoff=2, version=2).compute(c)[0, 0] == pytest.approx(want_v2, rel=1e-12)


def test_dcg_ul_uses_the_ndcg_kernel(dl2019):
    # A is DCG(gain=exp)@k and IUB is nDCG's IDCG@k (judged candidates): A / IUB = nDCG.
    for k in (5, 10, 100):
        m = DCG_UL(cutoff=k, discount="zipf")
        a, rlb, iub = m.bounds(dl2019)
        np.testing.assert_allclose(a, DCG(gain="exp", discount="zipf", cutoff=k).compute(dl2019), rtol=1e-13)
        np.testing.assert_allclose(a / iub, nDCG(gain="exp", discount="zipf", cutoff=k).compute(dl2019), rtol=1e-13)
        # Ideal run: V2 = 1 and V1 = IUB / (IUB + RLB).
        np.testing.assert_allclose(ul_normalise(iub, rlb, iub, 2)[0], 1.0)
        np.testing.assert_allclose(ul_normalise(iub, rlb, iub, 1)[0], iub / (iub + rlb))


@pytest.mark.parametrize("text", ["DCG_UL@10", "DCG_UL(version=2)@10", "SP_UL@10", "SP_UL(version=2)@10",
                                  "DCG_UL(candidates=retrieved)@20", "SP_UL(rel=2,iub=k)@5"])
def test_ranges_on_dl2019(dl2019, text):
    # Seed 004 Sec. 4.0.1: V1 in [0, 1], V2 in [-1, 1] (0 = random).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)  # retrieved: runs with no relevant document
        v = parse_measure(text).compute(dl2019)
    lo = -1.0 if "version=2" in text else 0.0
    assert v.min() >= lo - 1e-12 and v.max() <= 1.0 + 1e-12


def test_undefined_normalisation_warns_and_scores_zero():
    # Every candidate has the same grade: IUB = RLB = A for a run of the candidates -> V2 is 0/0.
    c = build({"1": {"a": 1, "b": 1}, "2": {"c": 1, "d": 0}}, {"r": {"1": ["a", "b"], "2": ["c", "d"]}})
    with pytest.warns(IRStabWarning, match=r"undefined.*1 run/topic pair.*'1'"):
        v = SP_UL(cutoff=2, version=2).compute(c)
    assert v[0, 0] == 0.0 and v[0, 1] == 1.0


def test_missing_topic_with_retrieved_candidates_scores_zero():
    c = build({"1": {"a": 1}, "2": {"b": 1}}, {"r": {"1": ["a"]}})
    with pytest.warns(IRStabWarning):
        v = DCG_UL(cutoff=3, candidates="retrieved").compute(c)
    assert v[0, 1] == 0.0 and v[0, 0] == pytest.approx(1 / (1 + 1))  # A = IUB = RLB = 1 -> 1 * 1/2


def test_retrieved_candidates_brute_force():
    # Candidates = the run's 5 retrieved documents (one unjudged); brute-force the expectation.
    qrels = {"1": {"a": 3, "b": 1, "c": 0, "d": 2, "e": 1, "f": 3}}
    run = ["c", "b", "x", "a", "d"]
    c = build(qrels, {"r": {"1": run}})
    gain, discount = Gain.of("exp").vector(3), Discount().vector(3)
    grades = [qrels["1"].get(d, 0) for d in run]
    a, rlb, iub = DCG_UL(cutoff=3, candidates="retrieved").bounds(c)
    assert rlb[0, 0] == pytest.approx(brute_force(grades, lambda p: dcg_of(p, gain, discount, 3)))
    assert iub[0, 0] == pytest.approx(dcg_of(sorted(grades, reverse=True), gain, discount, 3))
    _, sp_rlb, sp_iub = SP_UL(cutoff=3, candidates="retrieved").bounds(c)
    assert sp_rlb[0, 0] == pytest.approx(brute_force(grades, lambda p: sp_of(p, 3)))
    assert sp_iub[0, 0] == 3  # min(n_p = 3, k = 3)


# ------------------------------------------------------------------ parameters


@pytest.mark.parametrize("text", [
    "DCG_UL@10", "DCG_UL(version=2)@10", "DCG_UL(gain=linear,discount=zipf)@5",
    "DCG_UL(version=2,candidates=retrieved,expectation=paper)@20",
    "SP_UL@10", "SP_UL(version=2,rel=2,iub=k,candidates=retrieved,expectation=paper)@10",
])
def test_canonical_round_trip(text):
    m = parse_measure(text)
    assert str(m) == text and parse_measure(str(m)) == m


@pytest.mark.parametrize("text,match", [
    ("DCG_UL", r"needs a cutoff"),
    ("DCG_UL(version=3)@10", r"version must be 1 \(Karmaker & Feng 2022, eq\. 5\) or 2"),
    ("SP_UL(iub=max)@10", r"iub must be ideal\|k"),
    ("SP_UL(candidates=all)@10", r"candidates must be judged\|retrieved"),
    ("DCG_UL(expectation=mc)@10", r"expectation must be exact\|paper"),
    ("DCG_UL(discount=(1,0.5))@10", r"discount has 2 weights but the cutoff is @10"),
    ("SP_UL(rel=0)@10", r"rel must be in"),
    ("DCG_UL(iub=k)@10", r"no parameter 'iub'"),
])
def test_bad_parameters(text, match):
    with pytest.raises(MeasureError, match=match):
        parse_measure(text)


def test_measures_listing_shows_values_not_enum_names():
    # `irstab measures` prints str(default): the option's value, not "UpperBound.IDEAL".
    assert str(SP_UL(cutoff=1).iub) == "ideal" and str(SP_UL(cutoff=1).expectation) == "exact"
    assert str(DCG_UL(cutoff=1).candidates) == "judged"
