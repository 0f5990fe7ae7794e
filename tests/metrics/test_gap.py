"""GAP, xGAP and eGAP against three oracles.

1. Closed forms: seed 002's example (n documents of grade 1, then one of grade 2)
   for every n, and its limits GAP -> 1, xGAP -> 1 - g2^2, eGAP -> g1.
2. An independent implementation: seed 002 eq. 4, 5, 6 written literally below
   with double loops over ranks (m <= n), on random collections.
3. AP (trec_eval-validated): all three equal AP(rel=t) when g puts all its mass on
   grade t and on binary qrels, and eGAP = sum_k g_k AP(rel=k) (seed 002 eq. 6).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import irstab
from irstab.errors import IRStabWarning, MeasureError
from irstab.io import Qrels, Run
from irstab.metrics import AP, EGAP, GAP, XGAP, parse_measure

MEASURES = {"GAP": GAP, "xGAP": XGAP, "eGAP": EGAP}


# ------------------------------------------------------------------ helpers


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
        frame = pd.DataFrame(rows, columns=["topic", "docid", "rank", "score"])
        out.append(Run(name, name, name, frame=frame))
    return irstab.Collection.build(Qrels("qrels", q), out, depth=depth)


def random_collection(seed: int, n_topics: int = 6, n_runs: int = 4, max_grade: int = 3):
    """Random qrels (grades -1..max_grade, some topics lacking the top grade) and runs
    mixing judged and unjudged documents; returns (collection, qrels, runs)."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"r{s}": {} for s in range(n_runs)}
    for t in range(n_topics):
        top = max_grade if t % 3 else max_grade - 1  # every third topic lacks the top grade
        n_judged = int(rng.integers(3, 14))
        grades = rng.integers(-1, top + 1, size=n_judged)
        grades[0] = 1  # at least one relevant document
        qrels[str(t)] = {f"t{t}d{i}": int(g) for i, g in enumerate(grades)}
        pool = list(qrels[str(t)]) + [f"t{t}u{i}" for i in range(5)]
        for s in range(n_runs):
            k = int(rng.integers(1, len(pool) + 1))
            runs[f"r{s}"][str(t)] = list(rng.permutation(pool)[:k])
    return build(qrels, runs), qrels, runs


def literal(run_grades, judged_grades, g):
    """Seed 002 eq. 4, 5, 6 with the double sums over ranks, in plain Python."""
    c = len(g)
    r = [min(max(x, 0), c) for x in run_grades]
    R = [sum(1 for x in judged_grades if x == k) for k in range(c + 1)]
    RB = [sum(R[k:]) for k in range(c + 1)]
    tau = max((k for k in range(1, c + 1) if RB[k] > 0), default=0)
    nu = min(k for k in range(1, c + 1) if g[k - 1] > 0)
    if nu > tau:
        return 0.0, 0.0, 0.0

    def G(i):
        return sum(g[:i])

    N = len(r)
    delta_sums = [sum(G(min(r[m], r[n])) for m in range(n + 1)) for n in range(N)]
    gap = sum(delta_sums[n] / (n + 1) for n in range(N)) / sum(R[k] * G(k) for k in range(1, c + 1))
    xgap = 0.0
    for n in range(N):
        if G(r[n]) > 0:
            w = sum(g[k - 1] / RB[k] for k in range(1, r[n] + 1)) / G(r[n])
            xgap += w * delta_sums[n] / (n + 1)
    egap = 0.0
    for n in range(N):
        for k in range(1, tau + 1):
            both = sum(1 for m in range(n + 1) if r[m] >= k and r[n] >= k)
            egap += g[k - 1] / RB[k] * both / (n + 1)
    return gap, xgap, egap


def seed_example(n: int):
    """n documents of grade 1, then one of grade 2 (seed 002, Sec. 3 and 4)."""
    docs = [f"a{i}" for i in range(n)] + ["b"]
    qrels = {"1": {**{d: 1 for d in docs[:-1]}, "b": 2}}
    return build(qrels, {"run": {"1": docs}}, depth=n + 1)


# ------------------------------------------------- seed 002's example and limits


@pytest.mark.parametrize("g1,g2", [(0.5, 0.5), (0.1, 0.9), (0.9, 0.1), (0.3, 0.7)])
@pytest.mark.parametrize("n", [1, 2, 7, 50])
def test_seed_example_closed_forms(n, g1, g2):
    # Derived from eq. 4-6 with C_1(m) = m, C_2(m) = [m = n+1], RB(1) = n+1, RB(2) = 1:
    #   GAP  = (g1 (n+1) + g2/(n+1)) / (g1 (n+1) + g2)
    #   xGAP = g1 n/(n+1) + (g1/(n+1) + g2) (g1 (n+1) + g2) / (n+1)
    #   eGAP = g1 AP(1) + g2 AP(2) = g1 + g2/(n+1)
    c = seed_example(n)
    g = (g1, g2)
    expect = {
        "GAP": (g1 * (n + 1) + g2 / (n + 1)) / (g1 * (n + 1) + g2),
        "xGAP": g1 * n / (n + 1) + (g1 / (n + 1) + g2) * (g1 * (n + 1) + g2) / (n + 1),
        "eGAP": g1 + g2 / (n + 1),
    }
    for name, cls in MEASURES.items():
        assert cls(g=g).compute(c)[0, 0] == pytest.approx(expect[name], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("g1,g2", [(0.5, 0.5), (0.2, 0.8), (0.8, 0.2)])
def test_seed_example_limits(g1, g2):
    # Seed 002: as n grows, GAP -> 1, xGAP -> 1 - g2^2, eGAP -> 1 - g2 = g1.
    limits = {"GAP": 1.0, "xGAP": 1.0 - g2**2, "eGAP": g1}
    gaps = {name: [] for name in MEASURES}
    for n in (10, 100, 1000, 20000):
        c = seed_example(n)
        for name, cls in MEASURES.items():
            gaps[name].append(abs(cls(g=(g1, g2)).compute(c)[0, 0] - limits[name]))
    for name, d in gaps.items():
        assert all(b < a for a, b in zip(d, d[1:])), (name, d)  # converging monotonically
        assert d[-1] < 1e-3, (name, d)


# ------------------------------------------------------ literal equations 4-6


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("g", [(1 / 3, 1 / 3, 1 / 3), (0.2, 0.3, 0.5), (0.0, 0.4, 0.6), (0.0, 0.0, 1.0), (0.7, 0.0, 0.3)])
def test_matches_literal_equations(seed, g):
    c, qrels, runs = random_collection(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)  # g = (0,0,1) on topics without grade 3
        got = {name: cls(g=g).compute(c) for name, cls in MEASURES.items()}
    for s, name in enumerate(c.systems):
        for t, topic in enumerate(c.topics):
            judged = qrels[topic]
            ranked = [judged.get(d, 0) for d in runs[name][topic]]
            gap, xgap, egap = literal(ranked, list(judged.values()), g)
            assert got["GAP"][s, t] == pytest.approx(gap, abs=1e-12)
            assert got["xGAP"][s, t] == pytest.approx(xgap, abs=1e-12)
            assert got["eGAP"][s, t] == pytest.approx(egap, abs=1e-12)


def test_cutoff_truncates_the_ranking_only():
    # @k: the literal equations on the top k; recall bases from the whole qrels.
    c, qrels, runs = random_collection(3)
    g = (0.2, 0.3, 0.5)
    for name, cls in MEASURES.items():
        got = cls(g=g, cutoff=3).compute(c)
        for s, run in enumerate(c.systems):
            for t, topic in enumerate(c.topics):
                ranked = [qrels[topic].get(d, 0) for d in runs[run][topic][:3]]
                want = literal(ranked, list(qrels[topic].values()), g)[list(MEASURES).index(name)]
                assert got[s, t] == pytest.approx(want, abs=1e-12)


# ------------------------------------------------------------------- vs AP


@pytest.mark.parametrize("seed", range(4))
def test_all_mass_on_one_grade_is_ap(seed):
    # Seed 002 Sec. 6 / seed 000 Sec. 3: g = e_t gives AP with threshold t for all three.
    c, _, _ = random_collection(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        for t in (1, 2, 3):
            g = tuple(1.0 if j == t else 0.0 for j in (1, 2, 3))
            ap = AP(rel=t).compute(c)
            for cls in MEASURES.values():
                np.testing.assert_allclose(cls(g=g).compute(c), ap, rtol=0, atol=1e-12)
            ap10 = AP(rel=t, cutoff=5).compute(c)
            for cls in MEASURES.values():
                np.testing.assert_allclose(cls(g=g, cutoff=5).compute(c), ap10, rtol=0, atol=1e-12)


def test_binary_qrels_give_ap():
    # Binary qrels: c = 1, the default g = (1,), and GAP = xGAP = eGAP = AP.
    c, qrels, runs = random_collection(5, max_grade=1)
    assert c.max_grade == 1
    ap = AP().compute(c)
    for name, cls in MEASURES.items():
        np.testing.assert_allclose(cls().compute(c), ap, rtol=0, atol=1e-12)
        np.testing.assert_allclose(parse_measure(f"{name}(g=(1))").compute(c), ap, rtol=0, atol=1e-12)


def test_dl2019_single_grade_and_egap_decomposition(dl2019):
    # TREC DL 2019, 37 runs x 43 topics, depth 1000; AP is trec_eval-validated.
    with pytest.warns(IRStabWarning, match="7 topic"):  # 7 topics have no grade 3: AP(3) = 0
        aps = {k: AP(rel=k).compute(dl2019) for k in (1, 2, 3)}
    for t in (1, 2, 3):
        g = tuple(1.0 if j == t else 0.0 for j in (1, 2, 3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)
            for cls in MEASURES.values():
                np.testing.assert_allclose(cls(g=g).compute(dl2019), aps[t], rtol=0, atol=1e-12)
    for g in [(1 / 3, 1 / 3, 1 / 3), (0.2, 0.3, 0.5), (0.6, 0.4, 0.0)]:
        # seed 002 eq. 6: eGAP = E[AP(K)] = sum_k g_k AP(k)
        want = sum(gk * aps[k] for k, gk in zip((1, 2, 3), g))
        np.testing.assert_allclose(EGAP(g=g).compute(dl2019), want, rtol=0, atol=1e-12)
    # Sanity of ranges: all three in [0, 1].
    for cls in MEASURES.values():
        v = cls().compute(dl2019)
        assert v.min() >= 0 and v.max() <= 1 + 1e-12


def test_dl2019_matches_literal_on_a_sample(dl2019_dir):
    # The literal O(N^2) reference on three runs x five topics at depth 60.
    c = irstab.Collection.from_files(dl2019_dir / "qrels.txt", sorted((dl2019_dir / "runs").glob("*.gz"))[:3],
                                     depth=60)
    qrels = pd.read_csv(dl2019_dir / "qrels.txt", sep=" ", header=None, names=["t", "i", "d", "g"],
                        dtype={"t": str, "d": str})
    g = (0.2, 0.3, 0.5)
    got = {name: cls(g=g).compute(c) for name, cls in MEASURES.items()}
    for t in range(5):
        judged = qrels[qrels.t == c.topics[t]].g.tolist()
        for s in range(3):
            ranked = c.grades[s, t, : c.run_length[s, t]].tolist()
            want = literal(ranked, judged, g)
            for i, name in enumerate(MEASURES):
                assert got[name][s, t] == pytest.approx(want[i], abs=1e-12)


# -------------------------------------------------------------- conventions


def test_ideal_ranking_scores():
    # Ideal ranking: GAP = 1 (its normaliser is the ideal's sum); xGAP = eGAP =
    # sum_{k <= tau} g_k (seed 002: AP(k) = 0 for k > tau). Topic "2" lacks grade 3: tau = 2.
    qrels = {"1": {"a": 3, "b": 2, "c": 1, "d": 0}, "2": {"e": 2, "f": 1, "g": 1, "h": 0}}
    c = build(qrels, {"ideal": {"1": ["a", "b", "c", "d"], "2": ["e", "f", "g", "h"]}})
    g = (0.2, 0.3, 0.5)
    np.testing.assert_allclose(GAP(g=g).compute(c), [[1.0, 1.0]], atol=1e-15)
    np.testing.assert_allclose(XGAP(g=g).compute(c), [[1.0, 0.5]], atol=1e-15)
    np.testing.assert_allclose(EGAP(g=g).compute(c), [[1.0, 0.5]], atol=1e-15)


def test_nu_greater_than_tau_scores_zero_with_warning():
    # Topic "2" has no grade 3 and g puts all mass on grade 3: nu = 3 > tau = 2, score 0.
    qrels = {"1": {"a": 3, "b": 1}, "2": {"e": 2, "f": 1}}
    c = build(qrels, {"r": {"1": ["a", "b"], "2": ["e", "f"]}})
    for cls in MEASURES.values():
        with pytest.warns(IRStabWarning, match=r"nu > tau.*'2'"):
            v = cls(g=(0.0, 0.0, 1.0)).compute(c)
        assert v[0, 1] == 0.0 and v[0, 0] == 1.0


def test_default_g_is_uniform_over_the_qrels_grades():
    c, _, _ = random_collection(1)
    for name, cls in MEASURES.items():
        np.testing.assert_array_equal(cls().compute(c), cls(g=(1 / 3, 1 / 3, 1 / 3)).compute(c))
        # "uniform" is the default's name: it parses and is omitted from the canonical string.
        assert parse_measure(f"{name}(g=uniform)") == cls() and str(cls(g="uniform")) == name
        assert str(cls().g) == "uniform"  # what `irstab measures` lists


def test_negative_grades_and_unjudged_are_non_relevant():
    # Grades -2 (spam) and unjudged documents count as grade 0 in every measure.
    qrels = {"1": {"a": 2, "b": 1, "s": -2, "n": 0}}
    c1 = build(qrels, {"r": {"1": ["s", "a", "u", "b"]}})
    c2 = build(qrels, {"r": {"1": ["n", "a", "n2", "b"]}})
    for cls in MEASURES.values():
        assert cls().compute(c1)[0, 0] == pytest.approx(cls().compute(c2)[0, 0], abs=0)


# --------------------------------------------------------------- parameters


@pytest.mark.parametrize("text", ["GAP", "xGAP(g=(0.5,0.5))", "eGAP(g=(0.2,0.3,0.5))@10", "GAP(g=(1))"])
def test_canonical_round_trip(text):
    m = parse_measure(text)
    assert str(m) == text and parse_measure(str(m)) == m and hash(parse_measure(text)) == hash(m)


@pytest.mark.parametrize(
    "text,match",
    [
        ("GAP(g=(0.5,0.4))", r"g must sum to 1.*0\.9"),
        ("xGAP(g=(1.5,-0.5))", r"g values must be probabilities"),
        ("eGAP(g=exp)", r"g must be a tuple of probabilities or uniform"),
        ("GAP(g=(0.5,0.5),rel=2)", r"no parameter 'rel'"),
    ],
)
def test_bad_g_is_rejected(text, match):
    with pytest.raises(MeasureError, match=match):
        parse_measure(text)


def test_g_length_must_match_the_qrels_grades():
    c, _, _ = random_collection(0)
    with pytest.raises(MeasureError, match=r"GAP: g has 2 values but the qrels have grades 1\.\.3"):
        GAP(g=(0.5, 0.5)).compute(c)


def test_sum_tolerance_and_renormalisation():
    # Within 1e-6 of 1 is accepted and divided by its sum (so scores stay in [0, 1]).
    c = seed_example(3)
    a = GAP(g=(0.5, 0.5)).compute(c)
    b = GAP(g=(0.5, 0.5000004)).compute(c)
    assert math.isclose(a[0, 0], b[0, 0], rel_tol=1e-6)


def test_evaluate_api_and_registry():
    c, _, _ = random_collection(2)
    frame = irstab.evaluate(c, None, ["GAP", "xGAP(g=(0.2,0.3,0.5))@5", "eGAP"], per_topic=True)
    assert set(frame.measure) == {"GAP", "xGAP(g=(0.2,0.3,0.5))@5", "eGAP"}
    from irstab.metrics import REGISTRY

    for name in MEASURES:
        assert REGISTRY[name].summary and REGISTRY[name].formula
