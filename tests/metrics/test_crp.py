"""CRP: the seed's worked example, indicators derived by hand, and a literal reference.

Oracles
1. Seed 001, Sec. 2.1: pool of 20 (3 hr, 3 fr, 4 pr, 10 nr; R = 10, N = 20), runs A and B,
   their RP vectors, CRP(r_A, 20) = -11 and CRP(r_B, 20) = +3. The worst case and every
   indicator are derived by hand in the comments.
2. A literal implementation of eq. 2-5 (relevance supports of an explicit ideal vector) and
   of the indicator definitions, in plain Python, on random pools and on TREC DL 2019.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import irstab
from irstab.errors import IRStabError
from irstab.io import Qrels, Run
from irstab.metrics import crp_curve, crp_indicators, parse_measure
from irstab.metrics.crp import ideal_intervals, relative_positions, worst_case_grades

INF = math.inf


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


# Seed 001's example: hr = 3, fr = 2, pr = 1, nr = 0.
HR, FR, PR = ["h1", "h2", "h3"], ["f1", "f2", "f3"], ["p1", "p2", "p3", "p4"]
NR = [f"n{i}" for i in range(1, 11)]
UNJUDGED = ["x1", "x2", "x3"]
SEED_QRELS = {"1": {**{d: 3 for d in HR}, **{d: 2 for d in FR}, **{d: 1 for d in PR}, **{d: 0 for d in NR}}}
# r_A = [hr, hr, fr, nr, pr, fr, nr, nr, nr, pr, hr, nr, ..., nr]: 20 documents; the pool has
# only 10 nr, so the last three are unjudged (treated as nr, as the seed's vector shows).
RUN_A = ["h1", "h2", "f1", "n1", "p1", "f2", "n2", "n3", "n4", "p2", "h3", *NR[4:], *UNJUDGED]
# r_B = [hr, hr, pr, nr, fr, pr, nr, nr, fr, pr, fr, nr, hr, pr, nr, ..., nr]
RUN_B = ["h1", "h2", "p1", "n1", "f1", "p2", "n2", "n3", "f2", "p3", "f3", "n4", "h3", "p4", *NR[4:]]
IDEAL = [*HR, *FR, *PR, *NR]


@pytest.fixture(scope="module")
def seed():
    return build(SEED_QRELS, {"A": {"1": RUN_A}, "B": {"1": RUN_B}, "ideal": {"1": IDEAL}}, depth=20)


# ---------------------------------------------------------------- literal reference


def literal_curve(run_grades, judged_grades, N):
    """RP and CRP by seed eq. 2-5 on an explicit ideal vector of length max(N, R + 1)."""
    run = [max(g, 0) for g in run_grades][:N] + [0] * max(0, N - len(run_grades))
    relevant = sorted((g for g in judged_grades if g > 0), reverse=True)
    ideal = relevant + [0] * (max(N, len(relevant) + 1) - len(relevant))
    support = {}  # RS(i, rel) as in eq. 2, 1-based
    for j, g in enumerate(ideal, 1):
        support.setdefault(g, []).append(j)
    rp = []
    for j, g in enumerate(run, 1):
        lo, hi = min(support[g]), max(support[g])
        rp.append(j - lo if j < lo else (j - hi if j > hi else 0))
    crp = list(np.cumsum(rp))
    return rp, crp


def literal_indicators(crp, worst_crp, R, N):
    """The indicator definitions of the crp module docstring, one scalar at a time."""
    Rn = min(R, N)
    head = crp[:Rn]
    min_value = min(head)
    min_rank = max(j for j in range(1, Rn + 1) if crp[j - 1] == min_value)

    def balance(curve):
        return next((j for j in range(Rn, N + 1) if curve[j - 1] >= 0), INF)

    b_r, b_w = balance(crp), balance(worst_crp)
    rho = Rn / b_r if b_r != INF else 0.0
    if b_r == INF:
        b_ratio = 0.0
    elif b_w == INF:
        b_ratio = 1.0
    else:
        b_ratio = min(max(1 - b_r / b_w, 0.0), 1.0)
    wmin = worst_crp[min_rank - 1]
    min_ratio = min(max(1 - min_value / wmin, 0.0), 1.0) if wmin < 0 else float(min_value == 0)
    a, w = abs(crp[-1]), abs(worst_crp[-1])
    n_ratio = min(max(1 - a / w, 0.0), 1.0) if w > 0 else float(a == 0)
    return {"loss": crp[Rn - 1], "min_rank": min_rank, "min_value": min_value, "balance_point": b_r,
            "rho": rho, "balance_ratio": b_ratio, "min_ratio": min_ratio, "N_ratio": n_ratio,
            "crp_at_N": crp[-1], "worst_balance_point": b_w}


def literal_worst(judged_grades, N):
    """Seed: nr first, then the relevant documents in increasing grade (reversed ideal)."""
    relevant = sorted(g for g in judged_grades if g > 0)
    full = [0] * max(0, N - len(relevant)) + relevant
    return full[:N]


# ------------------------------------------------------------- the seed's example


def test_seed_rp_vectors_and_loss_at_20(seed):
    # Seed 001, Sec. 2.1, verbatim.
    rp_a = [0, 0, -1, -7, -2, 0, -4, -3, -2, 0, +8] + [0] * 9
    rp_b = [0, 0, -4, -7, 0, -1, -4, -3, +3, 0, +5, 0, +10, +4] + [0] * 6
    a, b, ideal = (crp_curve(seed, s, "1") for s in ("A", "B", "ideal"))
    assert a.rp.tolist() == rp_a and b.rp.tolist() == rp_b
    assert ideal.rp.tolist() == [0] * 20 and ideal.crp.tolist() == [0] * 20  # RP(i, j) = 0
    assert a.crp[-1] == -11 and b.crp[-1] == +3  # CRP(r_A, 20) = -11, CRP(r_B, 20) = +3
    np.testing.assert_array_equal(parse_measure("CRP@20").compute(seed)[:, 0], [-11, 3, 0])
    np.testing.assert_array_equal(parse_measure("CRP").compute(seed)[:, 0], [-11, 3, 0])  # N = depth = 20
    # Intervals of the seed: hr [1,3], fr [4,6], pr [7,10], nr [11, 20 (never exceeded)].
    lo, hi = ideal_intervals(seed.grade_counts)
    assert lo[0].tolist() == [11, 7, 4, 1] and hi[0, 1:].tolist() == [10, 6, 3]


def test_seed_worst_case(seed):
    # w = [nr x 10, pr x 4, fr x 3, hr x 3]. RP(w): ranks 1..10 nr: j - 11 = -10..-1;
    # 11..14 pr: j - 10 = 1..4; 15..17 fr: j - 6 = 9..11; 18..20 hr: j - 3 = 15..17.
    c = crp_curve(seed, "A", "1")
    assert c.worst_grades.tolist() == [0] * 10 + [1] * 4 + [2] * 3 + [3] * 3
    assert c.worst_rp.tolist() == [-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 9, 10, 11, 15, 16, 17]
    # CRP(w): -55 at R = 10, back to 0 at rank 18 (-15 + 15), CRP(w, 20) = -55 + 10 + 30 + 48 = 33.
    assert c.worst_crp[9] == -55 and c.worst_crp[17] == 0 and c.worst_crp[-1] == 33
    assert c.indicators["worst_balance_point"] == 18  # b_w = 18
    assert c.indicators["worst_rho"] == pytest.approx(10 / 18)  # rho_w = R / b_w


def test_seed_indicators_run_a(seed):
    # CRP(r_A) = 0, 0, -1, -8, -10, -10, -14, -17, -19, -19, -11, -11, ..., -11.
    ind = crp_curve(seed, "A", "1").indicators
    assert ind["loss"] == -19  # CRP(r_A, R = 10)
    assert ind["min_rank"] == 10 and ind["min_value"] == -19  # -19 at ranks 9 and 10: the last, 10
    assert ind["balance_point"] == INF  # ends at -11 < 0: never balanced (3 relevant docs missing)
    assert ind["rho"] == 0.0 and ind["balance_ratio"] == 0.0  # conventions for b_r = inf
    assert ind["min_ratio"] == pytest.approx(1 - (-19) / (-55))  # CRP(w, 10) = -55: 36/55
    assert ind["N_ratio"] == pytest.approx(1 - 11 / 33)  # |CRP(r,N)| / |CRP(w,N)| = 11/33: 2/3


def test_seed_indicators_run_b(seed):
    # CRP(r_B) = 0, 0, -4, -11, -11, -12, -16, -19, -16, -16, -11, -11, -1, +3, +3, ..., +3.
    ind = crp_curve(seed, "B", "1").indicators
    assert ind["loss"] == -16  # CRP(r_B, 10)
    assert ind["min_rank"] == 8 and ind["min_value"] == -19
    assert ind["balance_point"] == 14  # -1 at 13, +3 at 14: first rank >= R with CRP >= 0
    assert ind["rho"] == pytest.approx(10 / 14)  # R / b_r = 5/7
    assert ind["balance_ratio"] == pytest.approx(1 - 14 / 18)  # 1 - b_r / b_w = 2/9
    # CRP(w, 8) = sum_{j<=8} (j - 11) = 36 - 88 = -52: 1 - 19/52 = 33/52
    assert ind["min_ratio"] == pytest.approx(1 - 19 / 52)
    assert ind["N_ratio"] == pytest.approx(1 - 3 / 33)  # 10/11


def test_seed_ideal_run(seed):
    # Perfect ranking: min = R (seed: "CRP_min = 1 ... means R = min"), rho = 1, CRP_N = 1,
    # balance ratio 1 - R / b_w = 1 - 10/18.
    ind = crp_curve(seed, "ideal", "1").indicators
    assert ind["min_rank"] == 10 and ind["min_value"] == 0 and ind["balance_point"] == 10
    assert ind["rho"] == 1.0 and ind["min_ratio"] == 1.0 and ind["N_ratio"] == 1.0
    assert ind["balance_ratio"] == pytest.approx(1 - 10 / 18)


def test_seed_measures_and_rho_avg(seed):
    # The measures read the same indicators; rho_avg (eq. 10) is evaluate's topic mean.
    want = {
        "CRP.rho": [0.0, 10 / 14, 1.0],
        "CRP.balance_ratio": [0.0, 1 - 14 / 18, 1 - 10 / 18],
        "CRP.min_ratio": [1 - 19 / 55, 1 - 19 / 52, 1.0],
        "CRP.N_ratio": [1 - 11 / 33, 1 - 3 / 33, 1.0],
    }
    frame = irstab.evaluate(seed, None, list(want))
    for m, values in want.items():
        got = frame[frame.measure == m].set_index("run")["value"]
        np.testing.assert_allclose(got[["A", "B", "ideal"]].to_numpy(), values, atol=1e-15)
    ind = crp_indicators(seed)
    np.testing.assert_allclose(ind.rho_avg()[["A", "B", "ideal"]].to_numpy(), [0.0, 10 / 14, 1.0])
    assert set(ind.to_frame().columns) >= {"system", "topic", "R", "rho", "balance_point"}


# ------------------------------------------------------------------ conventions


def test_crp_before_r_can_be_positive():
    # The seed's "CRP <= 0 before R" fails: ideal [fr, pr, pr], run [pr, pr, fr]:
    # RP = 1-2, 2 in [2,3] -> 0, 3 - 1 = +2 -> CRP = -1, -1, +1 at R = 3. The balance point is
    # searched from R on, so b_r = 3 and rho = 1 (not 3/2 for a return to 0 before R).
    c = build({"1": {"f": 2, "p": 1, "q": 1}}, {"r": {"1": ["p", "q", "f"]}}, depth=3)
    curve = crp_curve(c, "r", "1")
    assert curve.crp.tolist() == [-1, -1, 1]
    assert curve.indicators["balance_point"] == 3 and curve.indicators["rho"] == 1.0
    assert curve.indicators["min_rank"] == 2  # last rank of the minimum -1 within 1..R


def test_short_run_and_missing_topic_are_padded_with_nr(seed):
    # A run of 2 documents on the seed topic, another lacking it: ranks past the end are nr.
    c = build({**SEED_QRELS, "2": {"z": 1}}, {"short": {"1": ["h1", "h2"], "2": ["z"]},
                                                "other": {"2": ["z"]}}, depth=20)
    short, missing = crp_curve(c, "short", "1"), crp_curve(c, "other", "1")
    # short: ranks 3..10 nr: j - 11 = -8..-1 -> loss -36; never balances.
    assert short.crp[9] == -36 and short.indicators["balance_point"] == INF
    # missing: 20 nr: CRP(10) = -55, equal to the worst case at every rank <= 10 -> CRP_min = 0;
    # |CRP(r,N)| = 55 > 33 -> CRP_N clipped to 0; rho = 0.
    ind = missing.indicators
    assert missing.run_length == 0 and ind["loss"] == -55 and ind["crp_at_N"] == -55
    assert ind["min_ratio"] == 0.0 and ind["N_ratio"] == 0.0 and ind["rho"] == 0.0


def test_unjudged_and_negative_grades_are_nr():
    # An unjudged document (and a grade -2 spam document) at rank 1 on the seed topic: 1 - 11 = -10.
    qrels = {"1": {**SEED_QRELS["1"], "spam": -2}}
    c = build(qrels, {"u": {"1": ["x9", *IDEAL[:-1]]}, "s": {"1": ["spam", *IDEAL[:-1]]}}, depth=20)
    assert crp_curve(c, "u", "1").rp[0] == -10 and crp_curve(c, "s", "1").rp[0] == -10
    np.testing.assert_array_equal(crp_curve(c, "u", "1").rp, crp_curve(c, "s", "1").rp)


def test_list_length_below_r(seed):
    # N = 5 < R = 10: R is capped at N; the ideal run still has rho = 1; the worst case is the
    # first 5 of the reversed ideal list of length R: the pr documents, then one fr.
    ind = crp_indicators(seed, 5)
    assert ind.n == 5 and ind.R.tolist() == [5]
    assert ind.rho[2, 0] == 1.0 and ind.min_ratio[2, 0] == 1.0
    assert worst_case_grades(seed.ideal, seed.num_relevant(1), 5).tolist() == [[1, 1, 1, 1, 2]]
    np.testing.assert_array_equal(parse_measure("CRP.rho@5").compute(seed)[:, 0], ind.rho[:, 0])


def test_crp_curve_errors(seed):
    with pytest.raises(IRStabError, match=r"topic '9' is not in the collection"):
        crp_curve(seed, "A", "9")
    with pytest.raises(IRStabError, match=r"system 'Z'"):
        crp_curve(seed, "Z", "1")
    with pytest.raises(IRStabError, match="out of range"):
        crp_curve(seed, 7, 0)


# -------------------------------------------------------- vs the literal reference


@pytest.mark.parametrize("seed_", range(40))
def test_random_pools_match_literal(seed_):
    rng = np.random.default_rng(seed_)
    n_judged = int(rng.integers(2, 12))
    grades = rng.integers(-1, 4, size=n_judged)
    grades[0] = int(rng.integers(1, 4))
    qrels = {"1": {f"d{i}": int(g) for i, g in enumerate(grades)}}
    pool = list(qrels["1"]) + ["u1", "u2"]
    runs = {f"r{s}": {"1": list(rng.permutation(pool)[: int(rng.integers(0, len(pool) + 1))])}
            for s in range(5)}
    runs = {k: v for k, v in runs.items() if v["1"]} or {"r": {"1": pool}}
    N = int(rng.integers(1, 16))
    c = build(qrels, runs, depth=N)
    ind = crp_indicators(c)
    R = int((grades > 0).sum())
    worst = literal_worst(list(grades), N)
    _, worst_crp = literal_curve(worst, list(grades), N)
    for s, name in enumerate(c.systems):
        ranked = [qrels["1"].get(d, 0) for d in runs[name]["1"]]
        rp, crp = literal_curve(ranked, list(grades), N)
        curve = crp_curve(c, name, "1")
        assert curve.rp.tolist() == rp and curve.crp.tolist() == crp
        assert curve.worst_grades.tolist() == worst and curve.worst_crp.tolist() == worst_crp
        want = literal_indicators(crp, worst_crp, R, N)
        for key, value in want.items():
            got = curve.indicators[key]
            assert got == pytest.approx(value, abs=1e-12), (key, got, value)
            arr = np.asarray(ind.values[key])
            assert (arr[0] if arr.ndim == 1 else arr[s, 0]) == pytest.approx(value, abs=1e-12)
        # After R the curve never decreases (seed 001, Sec. 2.2), so min is found in 1..R.
        assert all(b >= a for a, b in zip(crp[R - 1:], crp[R:]))


def test_dl2019_matches_literal_on_a_sample(dl2019, dl2019_dir):
    # Vectorised indicators of all 37 x 43 pairs against the literal reference on 4 runs x 6 topics.
    qrels = pd.read_csv(dl2019_dir / "qrels.txt", sep=" ", header=None, names=["t", "i", "d", "g"],
                        dtype={"t": str, "d": str})
    ind = crp_indicators(dl2019)
    N = dl2019.depth
    lo, hi = ideal_intervals(dl2019.grade_counts)
    full_rp = relative_positions(dl2019.grades_to(N), lo, hi)
    for t in (0, 7, 14, 21, 28, 42):
        judged = qrels[qrels.t == dl2019.topics[t]].g.tolist()
        R = sum(1 for g in judged if g > 0)
        _, worst_crp = literal_curve(literal_worst(judged, N), judged, N)
        for s in (0, 11, 22, 36):
            ranked = dl2019.grades[s, t, : dl2019.run_length[s, t]].tolist()
            rp, crp = literal_curve(ranked, judged, N)
            assert full_rp[s, t].tolist() == rp
            for key, value in literal_indicators(crp, worst_crp, R, N).items():
                got = np.asarray(ind.values[key])
                got = got[t] if got.ndim == 1 else got[s, t]
                assert got == pytest.approx(value, abs=1e-12), (key, s, t)
    for key in ("rho", "balance_ratio", "min_ratio", "N_ratio"):
        v = ind.values[key]
        assert v.min() >= 0 and v.max() <= 1


def test_canonical_strings():
    for text in ("CRP", "CRP@10", "CRP.rho", "CRP.balance_ratio@100", "CRP.min_ratio", "CRP.N_ratio"):
        assert str(parse_measure(text)) == text


def test_min_ratio_where_the_worst_case_is_not_below_zero():
    """CRP_min when CRP(w, min) >= 0 (N = R = 3): 1 if CRP(r, min) = 0, else 0 (the documented
    rule; eq. 8 literally would divide by 0 on topic 1 and give clip(1 + 2/1) = 1 on topic 2).

    Hand derivation with the intervals of the module docstring, every min rank is 3 (the last
    rank of the minimum over 1..R):
    topic 1, binary, R = 3: worst case = the 3 relevant documents, RP 0, 0, 0 -> CRP(w, 3) = 0.
      perfect [a, b, c]: CRP 0, 0, 0 -> 1.   late [n, a, b]: RP -3, 0, 0 -> CRP(r, min) = -3 -> 0.
    topic 2, grades (2, 1, 1): hr [1, 1], pr [2, 3], nr from 4; worst [pr, pr, hr]: RP -1, 0, +2
      -> CRP -1, -1, +1, so CRP(w, 3) = +1.
      perfect [h, p, q]: CRP 0, 0, 0 -> 1.   late [p, q, n]: RP -1, 0, -1 -> CRP -1, -1, -2 -> 0.
    """
    c = build({"1": {"a": 1, "b": 1, "c": 1, "n": 0}, "2": {"h": 2, "p": 1, "q": 1, "n": 0}},
              {"perfect": {"1": ["a", "b", "c"], "2": ["h", "p", "q"]},
               "late": {"1": ["n", "a", "b"], "2": ["p", "q", "n"]}}, depth=3)
    ind = crp_indicators(c, 3)
    late, perfect = c.systems.index("late"), c.systems.index("perfect")
    assert ind.min_rank.tolist() == [[3, 3], [3, 3]]
    assert ind.worst_min_value[late].tolist() == [0, 1]
    assert ind.min_value[late].tolist() == [-3, -2] and ind.min_value[perfect].tolist() == [0, 0]
    assert ind.min_ratio[perfect].tolist() == [1.0, 1.0]
    assert ind.min_ratio[late].tolist() == [0.0, 0.0]
    np.testing.assert_array_equal(parse_measure("CRP.min_ratio@3").compute(c), ind.min_ratio)
