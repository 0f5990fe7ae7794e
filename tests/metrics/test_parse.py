"""Canonical measure strings: round trip, and errors that name what is wrong.

Source of the expected strings: the canonical syntax of DESIGN.md ("Measures are
immutable value objects with a canonical string that the parser reads back") and
issue 2, item 4 (measure names and parameters).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import MeasureError
from irstab.io import Qrels, Run
from irstab.metrics import REGISTRY, parse_measure
from irstab.metrics.base import Measure

# Strings already canonical: str(parse_measure(s)) == s.
CANONICAL = [
    "nDCG",
    "nDCG@10",
    "nDCG@1",
    "DCG@5",
    "DCG",
    "nDCG(gain=exp)@10",
    "nDCG(discount=zipf)@20",
    "nDCG(gain=exp,discount=zipf)@20",
    "nDCG(gain=(0,1,3,7),discount=(1,0.6,0.5))@3",
    "nDCG(gain=(0,1,3,7),discount=(1,0.6,0.5))",
    "nDCG(gain=(0,1,3,7))",
    "nDCG(gain=(0,0.5,2.25,1e-07))@10",
    "nDCG(gain=(0,1e+20,3))",
    "nDCG(discount=log(base=10))@10",
    "nDCG(discount=log(base=2))",
    "nDCG(discount=log(base=2.5))@7",
    "nDCG(discount=linear)@10",
    "nDCG(discount=flat)",
    "nDCG(discount=flat)@100",
    "nDCG(discount=(1,0))",
    "DCG(gain=exp,discount=(0.5,0.25,0.125))@3",
    "AP",
    "AP@100",
    "AP(rel=2)",
    "P@10",
    "P(rel=2)@10",
    "R-prec",
    "R-prec(rel=3)",
    "Recall",
    "Recall@1000",
    "Recall(rel=2)@100",
    "RR",
    "RR@10",
    "RR(rel=2)",
    "bpref",
    "bpref(rel=2)",
    "RBP(p=0.95)",
    "RBP(p=0.5,rel=2)",
    "RBP(p=0.95)@100",
    "RBP.residual(p=0.9)",
    "RBP.residual(p=0.5)@10",
    "ERR",
    "ERR@20",
    "Q-measure",
    "Q-measure(beta=0.5)",
    "Q-measure(gain=exp)",
    "Q-measure(beta=2,gain=(0,1,2,3))",
]

# Accepted spellings and their canonical form (defaults dropped, whitespace removed, floats
# in shortest form, integral floats as integers).
SPELLINGS = {
    "nDCG( gain = exp , discount = zipf ) @ 20": "nDCG(gain=exp,discount=zipf)@20",
    "nDCG(discount=log2)": "nDCG",
    "nDCG(gain=linear)@10": "nDCG@10",
    "nDCG(gain=linear,discount=log2)@10": "nDCG@10",
    "nDCG(discount=zipf,gain=exp)@20": "nDCG(gain=exp,discount=zipf)@20",
    "nDCG(gain=(0.0,1.0,3.0,7.0))": "nDCG(gain=(0,1,3,7))",
    "nDCG(gain=(0,1,3,7,))": "nDCG(gain=(0,1,3,7))",
    "nDCG(discount=(1.0,.5))": "nDCG(discount=(1,0.5))",
    "nDCG(discount=log(base=10.0))": "nDCG(discount=log(base=10))",
    "AP(rel=1)": "AP",
    "RBP(rel=1,p=0.95)": "RBP(p=0.95)",
    "Q-measure(beta=1.0)": "Q-measure",
    "Q-measure(beta=1)": "Q-measure",
    "RBP(p=9.5e-1)": "RBP(p=0.95)",
}


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_round_trip(text):
    m = parse_measure(text)
    assert str(m) == text
    assert parse_measure(str(m)) == m
    assert hash(parse_measure(str(m))) == hash(m)
    assert parse_measure(m) is m  # a Measure passes through


@pytest.mark.parametrize("text, canonical", list(SPELLINGS.items()))
def test_spellings_normalise(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(canonical) == m


def test_rbp_canonical_string_shows_p():
    """DESIGN.md lists ``RBP(p=0.8)`` among the canonical strings; p is RBP's defining
    parameter (papers use 0.5, 0.8, 0.95), so an output table must not print a bare ``RBP``."""
    assert str(parse_measure("RBP(p=0.8)")) == "RBP(p=0.8)"


def test_measures_are_immutable_and_hashable():
    m = parse_measure("nDCG(gain=exp)@10")
    with pytest.raises(AttributeError):
        m.cutoff = 20  # type: ignore[misc]
    assert len({m, parse_measure("nDCG(gain=exp)@10"), parse_measure("nDCG@10")}) == 2


def test_constructed_objects_print_canonically():
    assert str(irstab.nDCG(cutoff=10, gain="exp", discount="zipf")) == "nDCG(gain=exp,discount=zipf)@10"
    assert str(irstab.nDCG(gain=(0, 1, 3, 7))) == "nDCG(gain=(0,1,3,7))"
    assert str(irstab.AP(rel=2)) == "AP(rel=2)"
    assert str(irstab.Precision(cutoff=5)) == "P@5"
    assert str(irstab.RBP(p=0.95)) == "RBP(p=0.95)"
    assert str(irstab.QMeasure(beta=0.5)) == "Q-measure(beta=0.5)"
    assert irstab.nDCG(cutoff=10, gain="exp") == parse_measure("nDCG(gain=exp)@10")


def test_every_registered_measure_parses_by_its_name():
    for name, cls in REGISTRY.items():
        text = f"{name}@10" if cls.cutoff_required else name
        m = parse_measure(text)
        assert type(m) is cls
        assert str(m).startswith(name)
        assert parse_measure(str(m)) == m


# ------------------------------------------------------------------ Hypothesis round trips

finite = st.floats(min_value=0, max_value=1e30, allow_nan=False, allow_infinity=False)
gains = st.lists(finite, min_size=1, max_size=6).map(lambda v: (0.0, *v))
discounts = st.lists(finite, min_size=1, max_size=8).map(tuple)
cutoffs = st.one_of(st.none(), st.integers(1, 10_000))
probabilities = st.floats(min_value=0, max_value=1, exclude_min=True, exclude_max=True)


def _at(k):
    return "" if k is None else f"@{k}"


@settings(max_examples=150, deadline=None)
@given(gain=gains, discount=discounts, k=cutoffs)
def test_gain_discount_tuples_round_trip(gain, discount, k):
    if k is not None:
        k = len(discount)  # a cutoff given with a weight tuple must match it
    m = irstab.nDCG(cutoff=k, gain=gain, discount=discount)
    text = str(m)
    again = parse_measure(text)
    assert again == m
    assert str(again) == text
    # the values survive exactly (shortest repr of a float round-trips)
    assert again.gain.values == tuple(float(v) for v in gain)
    assert again.discount.values == tuple(float(v) for v in discount)


@settings(max_examples=150, deadline=None)
@given(p=probabilities, rel=st.integers(1, 5), k=cutoffs, residual=st.booleans())
def test_rbp_p_round_trip(p, rel, k, residual):
    cls = irstab.RBPResidual if residual else irstab.RBP
    m = cls(cutoff=k, p=p, rel=rel)
    again = parse_measure(str(m))
    assert again == m and again.p == p
    assert str(again) == str(m)


@settings(max_examples=100, deadline=None)
@given(base=st.floats(min_value=1, max_value=1e6, exclude_min=True), k=cutoffs,
       beta=st.floats(min_value=0, max_value=1e6))
def test_log_base_and_beta_round_trip(base, k, beta):
    m = parse_measure(f"nDCG(discount=log(base={base!r})){_at(k)}")
    assert m.discount.base == base
    assert parse_measure(str(m)) == m
    q = irstab.QMeasure(beta=beta)
    assert parse_measure(str(q)) == q


@settings(max_examples=100, deadline=None)
@given(
    name=st.sampled_from(["AP", "Recall", "RR", "P", "R-prec", "bpref"]),
    rel=st.integers(1, 9),
    k=st.integers(1, 5000),
)
def test_binary_rel_round_trip(name, rel, k):
    cls = REGISTRY[name]
    cutoff = k if cls.cutoff_allowed else None
    m = cls(cutoff=cutoff, rel=rel)
    assert parse_measure(str(m)) == m


# ------------------------------------------------------------------ errors naming the parameter


def _error(text) -> str:
    with pytest.raises(MeasureError) as info:
        parse_measure(text)
    return str(info.value)


@pytest.mark.parametrize(
    "text, suggestion",
    [("nDGC@10", "nDCG"), ("recal@10", "Recall"), ("APP", "AP"), ("ERRR@20", "ERR")],
)
def test_unknown_measure_suggests(text, suggestion):
    message = _error(text)
    assert "unknown measure" in message
    assert f"did you mean {suggestion}" in message


# One grammar: what -m and parse_measures read, parse_measure reads (one measure each).
@pytest.mark.parametrize(
    "text, canonical",
    [
        ("ndcg_cut_10", "nDCG@10"), ("ndcg", "nDCG"), ("NDCG@10", "nDCG@10"), ("map", "AP"),
        ("P_10", "P@10"), ("recip_rank", "RR"), ("Rprec", "R-prec"), ("recall_100", "Recall@100"),
        ("err@20", "ERR@20"), ("R@1000", "Recall@1000"), ("Bpref", "bpref"),
        ("iP@0.5", "IPrec(recall=0.5)"), ("IPrec@0.5", "IPrec(recall=0.5)"),
        ("NumRet(rel=1)", "NumRelRet"), ("mine=nDCG@20", "mine=nDCG@20"),
        # ranx's relevance suffix: rel=N for binary measures, grades below N gain 0 for nDCG
        ("ndcg@10-l2", "nDCG(gain=levels(g1=0))@10"), ("map@100-l2", "AP(rel=2)@100"),
        ("precision@10-l3", "P(rel=3)@10"), ("mrr-l2", "RR(rel=2)"), ("ndcg@10-l1", "nDCG@10"),
    ],
)
def test_parse_measure_reads_every_spelling_parse_measures_reads(text, canonical):
    m = parse_measure(text)
    assert m.canonical() == canonical
    assert irstab.parse_measures(text) == [m]
    assert irstab.parse_measure(text) == m


def test_parse_measure_refuses_a_list_and_names_the_reader_of_lists():
    message = _error("P.5,10")
    assert "stands for 2 measures" in message and "parse_measures" in message


def test_ranx_level_on_exponential_gain_is_refused_with_the_spelling_to_use():
    message = _error("ndcg_burges@10-l2")
    assert "'ndcg_burges@10-l2'" in message and "gain=(" in message


def test_unknown_measure_points_to_the_list():
    message = _error("Frobnicate@10")
    assert "'Frobnicate'" in message and "irstab measures" in message


@pytest.mark.parametrize(
    "text, words",
    [
        ("nDCG(foo=1)", ("foo", "discount", "gain")),
        ("AP(p=0.5)", ("'p'", "rel")),
        ("ERR(rel=2)", ("'rel'",)),
        ("RBP(beta=1)", ("'beta'", "p", "rel")),
    ],
)
def test_unknown_parameter_named_with_the_known_ones(text, words):
    message = _error(text)
    assert "no parameter" in message
    for w in words:
        assert w in message


@pytest.mark.parametrize(
    "text, words",
    [
        # P needs a cutoff
        ("P", ("P", "cutoff", "P@10")),
        ("P(rel=2)", ("cutoff",)),
        # linear discount needs the k of (k+1-r)/k
        ("nDCG(discount=linear)", ("linear", "cutoff")),
        ("DCG(discount=linear)", ("linear", "cutoff")),
        # gain[0] is the gain of non-relevant/unjudged documents
        ("nDCG(gain=(1,1,3))", ("gain[0]", "must be 0")),
        ("Q-measure(gain=(2,1))", ("gain[0]",)),
        # negative values
        ("nDCG(gain=(0,-1,3))", ("gain", ">= 0")),
        ("nDCG(discount=(1,-0.5))", ("discount", ">= 0")),
        ("RBP(p=-0.5)", ("p", "-0.5")),
        ("AP(rel=-1)", ("rel", "-1")),
        ("Q-measure(beta=-1)", ("beta",)),
        # out of range
        ("RBP(p=0)", ("p",)),
        ("RBP(p=1)", ("p",)),
        ("RBP(p=1.5)", ("p", "1.5")),
        ("RBP.residual(p=2)", ("p",)),
        ("AP(rel=0)", ("rel",)),
        ("nDCG(discount=log(base=1))", ("base", "> 1")),
        ("nDCG(discount=log(base=0.5))", ("base",)),
        ("nDCG(discount=log(b=2))", ("base",)),
        # wrong types
        ("AP(rel=1.5)", ("rel", "integer")),
        ("AP(rel=two)", ("rel",)),
        ("RBP(p=high)", ("p", "number")),
        ("nDCG(gain=huge)", ("gain", "linear", "exp")),
        ("nDCG(discount=steep)", ("discount", "zipf")),
        # cutoffs
        ("nDCG@0", ("cutoff",)),
        ("nDCG@-1", ("cutoff",)),
        ("nDCG@1.5", ("cutoff",)),
        ("R-prec@10", ("R-prec", "cutoff")),
        ("bpref@5", ("bpref", "cutoff")),
        ("Q-measure@10", ("cutoff",)),
        ("nDCG(discount=(1,0.5))@3", ("discount", "2 weights", "@3")),
        ("nDCG(discount=(1,0.5,0.2,0.1))@3", ("discount", "4 weights", "@3")),  # not cut silently
        # syntax
        ("nDCG(gain=exp", ("position",)),
        ("nDCG(gain=exp))", ("position",)),
        ("nDCG(gain=exp,gain=linear)", ("gain", "twice")),
        ("nDCG(gain=())", ("position",)),
        ("nDCG(gain=(0,1,nan))", ("nan",)),
        ("nDCG(gain=(0,1,inf))", ("inf",)),
        ("nDCG@10 extra", ("extra",)),
        ("nDCG$10", ("'$'",)),
    ],
)
def test_bad_values_name_the_parameter(text, words):
    message = _error(text)
    for w in words:
        assert w in message, (w, message)


@pytest.mark.parametrize("value", ["", "   ", None, 10])
def test_not_a_measure_string(value):
    message = _error(value)
    assert "non-empty string" in message


def test_measure_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_measure("nope")


# ------------------------------------------------------------------ errors that need the data


def _tiny_collection(max_grade=3, depth=1000):
    grades = list(range(max_grade + 1))
    qrels = Qrels(
        path="<mem>",
        frame=pd.DataFrame(
            {
                "topic": ["1"] * len(grades),
                "docid": [f"d{g}" for g in grades],
                "grade": np.array(grades, dtype=np.int64),
            }
        ),
    )
    run = Run(
        "r", "<mem>", "r",
        frame=pd.DataFrame(
            {"topic": ["1", "1"], "docid": ["d1", "d2"], "rank": [1.0, 2.0], "score": [2.0, 1.0]}
        ),
    )
    return irstab.Collection.build(qrels, [run], depth=depth)


@pytest.mark.parametrize(
    "measure", ["nDCG(gain=(0,1))", "nDCG(gain=(0,1,2,3,4))", "Q-measure(gain=(0,1,3))"]
)
def test_gain_length_must_match_the_grades(measure):
    c = _tiny_collection(max_grade=3)  # grades 0..3: 4 gains
    with pytest.raises(MeasureError) as info:
        irstab.evaluate(c, None, [measure])
    message = str(info.value)
    assert "gain" in message and "0..3" in message and "4 values" in message


def test_gain_of_the_right_length_is_accepted():
    c = _tiny_collection(max_grade=3)
    frame = irstab.evaluate(c, None, ["nDCG(gain=(0,1,3,7))"])
    assert frame["value"].between(0, 1).all()


@pytest.mark.parametrize(
    "measure, k",
    [("nDCG@20", 20), ("P@11", 11), ("nDCG(discount=(1,1,1,1,1,1,1,1,1,1,1))", 11),
     ("RBP@50", 50), ("ERR@1000", 1000)],
)
def test_cutoff_beyond_depth(measure, k):
    c = _tiny_collection(depth=10)
    with pytest.raises(MeasureError) as info:
        irstab.evaluate(c, None, [measure])
    message = str(info.value)
    assert str(k) in message and "depth" in message and "10" in message


def test_cutoff_at_depth_is_fine():
    c = _tiny_collection(depth=10)
    assert len(irstab.evaluate(c, None, ["nDCG@10", "P@10"])) == 2


def test_errors_are_raised_before_any_work(monkeypatch):
    """A bad measure in a list fails the whole call; nothing is computed for the good one."""
    c = _tiny_collection()
    calls = []
    original = irstab.nDCG.compute

    def spy(self, collection):
        calls.append(str(self))
        return original(self, collection)

    monkeypatch.setattr(irstab.nDCG, "compute", spy)
    with pytest.raises(MeasureError):
        irstab.evaluate(c, None, ["nDCG@10", "Judged"])  # Judged needs @k
    assert calls == []


def test_measure_base_rejects_non_integer_cutoff():
    with pytest.raises(MeasureError, match="cutoff"):
        irstab.nDCG(cutoff=2.5)
    with pytest.raises(MeasureError, match="cutoff"):
        irstab.nDCG(cutoff=True)
    assert isinstance(irstab.nDCG(cutoff=np.int64(3)), Measure)
    assert math.isclose(irstab.RBP(p=0.5).p, 0.5)
