"""Agreement between judge sets: closed forms, scikit-learn and krippendorff on DL-2019's
re-annotation to 1e-9, and invariants (Hypothesis)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import IRStabError, IRStabWarning
from irstab.io import Qrels
from irstab.judges.agreement import (
    agreement, alpha_from_coincidences, cohen_kappa, confusion_matrix, kappa_from_counts,
    krippendorff_alpha,
)
from irstab.judges.labels import judge_sets, read_judge_sets

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
REANNOTATION = SHARED / "trec-dl-2019-reannotation"
NIST = SHARED / "trec-dl-2019-passage" / "qrels.txt"
#: Three LLM judge sets of the LLMJudge challenge (TREC DL 2023 passages; data/llmjudge-dl2023)
LLM = Path(__file__).resolve().parents[2] / "data" / "llmjudge-dl2023"


# ---------------------------------------------------------------- closed forms


def test_kappa_closed_form_2x2():
    # Cohen (1960): p_o = (20 + 15) / 50 = 0.7; p_e = (25*30 + 25*20) / 50^2 = 0.5
    assert kappa_from_counts(np.array([[20, 5], [10, 15]]), [0, 1]) == pytest.approx(0.4)


def test_weighted_kappa_closed_form_3x3():
    # labels a = (0, 1, 2, 2), b = (0, 2, 2, 1): linear disagreements 0+1+0+1 = 2 over n = 4,
    # margins a (1, 1, 2), b (1, 1, 2); expected sum_ck |c-k| a_c b_k / n^2 =
    # (0*1 + 1*1 + 2*2 + 1*1 + 0 + 1*2 + 2*2 + 1*2 + 0) / 16 = 14 / 16
    # kappa_lin = 1 - (2/4) / (14/16) = 3/7
    assert cohen_kappa([0, 1, 2, 2], [0, 2, 2, 1], "linear") == pytest.approx(3 / 7)
    # quadratic: observed (1 + 1) / 4; expected (1 + 4*2 + 1 + 2 + 4*2 + 2) / 16 = 22/16
    assert cohen_kappa([0, 1, 2, 2], [0, 2, 2, 1], "quadratic") == pytest.approx(1 - 0.5 / (22 / 16))


def test_alpha_closed_form_nominal_with_missing():
    # units: (0,0) (0,1) (1,1) (-,1): the last has one label and is not pairable.
    # coincidences o = [[2, 1], [1, 2]], n_c = (3, 3), n = 6:
    # alpha = 1 - 5 * 2 / (3*3*2) = 1 - 10/18 = 4/9
    a = krippendorff_alpha([[0, 0, 1, np.nan], [0, 1, 1, 1]], "nominal")
    assert a == pytest.approx(4 / 9)
    # the same from the coincidence matrix directly
    assert alpha_from_coincidences(np.array([[2.0, 1.0], [1.0, 2.0]]), [0, 1], "nominal") \
        == pytest.approx(4 / 9)


def test_ordinal_metric_closed_form():
    # Krippendorff (2004): ordinal delta_ck = (sum_{g=c}^k n_g - (n_c + n_k)/2)^2.
    # o = diag(2, 2, 2) + one (0,2) and (2,0) coincidence: n = (3, 2, 3)
    o = np.array([[2.0, 0, 1], [0, 2, 0], [1, 0, 2]])
    # delta_02 = (3 + 2 + 3 - 3)^2 = 25, delta_01 = (5 - 2.5)^2 = 6.25, delta_12 = 6.25
    # observed = 2 * 25 = 50; expected = 2 (3*2*6.25 + 3*3*25 + 2*3*6.25) = 2 * 300 = 600
    assert alpha_from_coincidences(o, [0, 1, 2], "ordinal") == pytest.approx(1 - 7 * 50 / 600)


def test_confusion_matrix_rows_are_the_first_judge():
    c = confusion_matrix([0, 0, 2], [1, 0, 2], grades=[0, 1, 2])
    assert c.to_numpy().tolist() == [[1, 1, 0], [0, 0, 0], [0, 0, 1]]


def test_undefined_is_nan_with_a_warning():
    g = Qrels("gold.txt", pd.DataFrame({"topic": ["1", "1"], "docid": ["a", "b"],
                                        "grade": [1, 1]}))
    o = Qrels("other.txt", g.frame)
    with pytest.warns(IRStabWarning, match="undefined"):
        r = agreement(judge_sets(g, {"other": o}, grades=[0, 1]), n_resamples=10)
    assert np.isnan(r.pairs.loc[0, "cohen_kappa"])
    assert r.to_dict()["pairs"][0]["cohen_kappa"] is None  # null in JSON


def test_bad_parameters_are_named():
    g = Qrels("gold.txt", pd.DataFrame({"topic": ["1"], "docid": ["a"], "grade": [1]}))
    s = judge_sets(g, {"o": Qrels("o.txt", g.frame)})
    with pytest.raises(IRStabError, match="n_resamples"):
        agreement(s, n_resamples=-1)
    with pytest.raises(IRStabError, match="confidence"):
        agreement(s, confidence=1.5)
    with pytest.raises(IRStabError, match="labels"):
        cohen_kappa([0, 1], [0, 7], grades=[0, 1])


# ---------------------------------------------------------------- reference implementations


def _real(kind: str):
    if kind == "llm":
        files = sorted(LLM.glob("*-qrels.txt"))
        return read_judge_sets(files[0], files[1:])
    if not (REANNOTATION / kind).is_dir() or not NIST.is_file():
        pytest.skip("DL-2019 re-annotation data not found")
    return read_judge_sets(NIST, [REANNOTATION / kind])


@pytest.mark.parametrize("kind", ["main", "agreement-round", "llm"])
def test_pairs_equal_sklearn_and_krippendorff(kind):
    sk = pytest.importorskip("sklearn.metrics")
    kr = pytest.importorskip("krippendorff")
    sets = _real(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = agreement(sets, n_resamples=0)
        checked = 0
        for _, row in r.pairs.iterrows():
            a = sets.labels[sets.judges.index(row.judge_a)]
            b = sets.labels[sets.judges.index(row.judge_b)]
            m = ~np.isnan(a) & ~np.isnan(b)
            assert m.sum() == row.n_pairs
            if row.n_pairs < 2:
                continue
            for w, name in [(None, "cohen_kappa"), ("linear", "cohen_kappa_linear"),
                            ("quadratic", "cohen_kappa_quadratic")]:
                ref = sk.cohen_kappa_score(a[m], b[m], weights=w, labels=[0, 1, 2, 3])
                assert row[name] == pytest.approx(ref, abs=1e-9), (row.judge_a, row.judge_b, w)
            for lv in ["nominal", "ordinal", "interval"]:
                ref = kr.alpha(np.stack([a[m], b[m]]), level_of_measurement=lv,
                               value_domain=[0, 1, 2, 3])
                assert row[f"krippendorff_alpha_{lv}"] == pytest.approx(ref, abs=1e-9)
            for _, br in r.binarised[(r.binarised.judge_a == row.judge_a)
                                     & (r.binarised.judge_b == row.judge_b)].iterrows():
                x, y = a[m] >= br.level, b[m] >= br.level
                if len(set(x) | set(y)) < 2:
                    continue
                assert br.cohen_kappa == pytest.approx(sk.cohen_kappa_score(x, y), abs=1e-9)
                assert br.krippendorff_alpha == pytest.approx(
                    kr.alpha(np.stack([x, y]).astype(float), level_of_measurement="nominal"),
                    abs=1e-9)
            checked += 1
    assert checked >= 8 if kind == "main" else checked == {"agreement-round": 36, "llm": 3}[kind]


@pytest.mark.parametrize("kind", ["main", "agreement-round", "llm"])
def test_all_judges_alpha_equals_krippendorff(kind):
    kr = pytest.importorskip("krippendorff")
    sets = _real(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = agreement(sets, n_resamples=0)
    overall = r.overall.set_index(["metric", "level"], drop=False)
    for lv in ["nominal", "ordinal", "interval"]:
        ref = kr.alpha(sets.labels, level_of_measurement=lv, value_domain=[0, 1, 2, 3])
        got = r.overall[r.overall.metric == lv]["krippendorff_alpha"].item()
        assert got == pytest.approx(ref, abs=1e-9)
    for L in (1, 2, 3):
        x = np.where(np.isnan(sets.labels), np.nan, (sets.labels >= L).astype(float))
        ref = kr.alpha(x, level_of_measurement="nominal")
        got = overall[(overall.metric == "binary") & (overall.level == L)]
        assert got["krippendorff_alpha"].item() == pytest.approx(ref, abs=1e-9)


def test_bootstrap_interval_brackets_the_estimate_and_is_seeded():
    sets = _real("main")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r1 = agreement(sets, n_resamples=200, seed=3)
        r2 = agreement(sets, n_resamples=200, seed=3)
    pd.testing.assert_frame_equal(r1.pairs, r2.pairs)
    p = r1.pairs[r1.pairs.n_topics >= 5]
    for name in ["cohen_kappa", "krippendorff_alpha_ordinal"]:
        assert (p[f"{name}_low"] <= p[f"{name}_high"]).all()
        # a percentile interval over 200 resamples of >= 5 topics holds the full-data value
        # here (it need not in general; on these data every one does)
        assert ((p[f"{name}_low"] <= p[name] + 1e-12) & (p[name] <= p[f"{name}_high"] + 1e-12)).all()


def test_bootstrap_matches_a_loop_over_resamples():
    # the vectorised weights W @ C equal recomputing each resample from its drawn topics
    rng = np.random.default_rng(0)
    topics = np.repeat([f"t{i}" for i in range(6)], 7)
    a = rng.integers(0, 4, len(topics))
    b = np.clip(a + rng.integers(-1, 2, len(topics)), 0, 3)
    g = Qrels("g.txt", pd.DataFrame({"topic": topics, "docid": [f"d{i}" for i in range(len(a))],
                                     "grade": a}))
    o = Qrels("o.txt", g.frame.assign(grade=b))
    sets = judge_sets(g, {"o": o})
    r = agreement(sets, n_resamples=50, seed=11, confidence=0.5)
    from irstab._numeric import check_seed
    from irstab.judges.agreement import _draw_weights

    W = _draw_weights(check_seed(11), 50, 6)
    ka = sets.labels[0]
    kb = sets.labels[1]
    tcode, _ = sets.topic_codes()
    draws = []
    for w in W:  # the slow way: repeat each topic's pairs as often as it was drawn
        reps = w[tcode].astype(int)
        draws.append(cohen_kappa(np.repeat(ka, reps), np.repeat(kb, reps), grades=[0, 1, 2, 3]))
    lo, hi = np.quantile(draws, [0.25, 0.75])
    assert r.pairs.loc[0, "cohen_kappa_low"] == pytest.approx(lo, abs=1e-12)
    assert r.pairs.loc[0, "cohen_kappa_high"] == pytest.approx(hi, abs=1e-12)


# ---------------------------------------------------------------- invariants

labels_st = st.lists(st.integers(0, 3), min_size=2, max_size=40)


@settings(max_examples=60, deadline=None)
@given(labels_st)
def test_kappa_of_a_judge_with_itself_is_one(a):
    if len(set(a)) < 2:
        return
    for w in ("none", "linear", "quadratic"):
        assert cohen_kappa(a, a, w) == pytest.approx(1.0)
    for lv in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha([a, a], lv) == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_kappa_and_alpha_are_symmetric(data):
    a = data.draw(labels_st)
    b = data.draw(st.lists(st.integers(0, 3), min_size=len(a), max_size=len(a)))
    for w in ("none", "linear", "quadratic"):
        x, y = cohen_kappa(a, b, w, grades=range(4)), cohen_kappa(b, a, w, grades=range(4))
        assert (np.isnan(x) and np.isnan(y)) or x == pytest.approx(y, abs=1e-12)
    for lv in ("nominal", "ordinal", "interval"):
        x, y = krippendorff_alpha([a, b], lv), krippendorff_alpha([b, a], lv)
        assert (np.isnan(x) and np.isnan(y)) or x == pytest.approx(y, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_alpha_unchanged_by_permuting_judges_and_units(data):
    J = data.draw(st.integers(2, 5))
    U = data.draw(st.integers(2, 15))
    cells = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=J * U,
                               max_size=J * U))
    x = np.array([np.nan if c is None else c for c in cells], dtype=float).reshape(J, U)
    pj = data.draw(st.permutations(range(J)))
    pu = data.draw(st.permutations(range(U)))
    for lv in ("nominal", "ordinal", "interval"):
        try:
            a = krippendorff_alpha(x, lv, grades=range(4))
        except IRStabError:
            return
        b = krippendorff_alpha(x[list(pj)][:, list(pu)], lv, grades=range(4))
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_alpha_equals_the_reference_on_generated_data(data):
    kr = pytest.importorskip("krippendorff")
    J = data.draw(st.integers(2, 4))
    U = data.draw(st.integers(3, 12))
    cells = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=J * U,
                               max_size=J * U))
    x = np.array([np.nan if c is None else c for c in cells], dtype=float).reshape(J, U)
    pairable = (~np.isnan(x)).sum(axis=0) >= 2
    if len(np.unique(x[:, pairable][~np.isnan(x[:, pairable])])) < 2:
        return
    for lv in ("nominal", "ordinal", "interval"):
        ref = kr.alpha(x, level_of_measurement=lv, value_domain=[0, 1, 2, 3])
        assert krippendorff_alpha(x, lv, grades=range(4)) == pytest.approx(ref, abs=1e-9)
