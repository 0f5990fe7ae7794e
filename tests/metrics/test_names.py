"""The measure-name layer: trec_eval names, aliases, lists, -l, named measures, @file.

Expected mappings come from trec_eval 9's measure names (``trec_eval -h -m all_trec``:
``P_10`` is precision at 10, ``P`` alone prints P_5 ... P_1000, ``iprec_at_recall`` the
11 levels 0.0 ... 1.0) and pytrec_eval's ``supported_nicknames["official"]``.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import MeasureError
from irstab.metrics import Named, parse_measure, resolve_measures, trec_eval_request
from irstab.metrics.names import split_measure_list


def names(*specs, rel=None):
    return [str(m) for m in resolve_measures(list(specs), rel)]


@pytest.mark.parametrize(
    "text, canonical",
    [
        # issue 13, item 1: each of these was "unknown measure"
        ("ndcg_cut.10", "nDCG@10"), ("ndcg_cut_10", "nDCG@10"), ("map", "AP"), ("MAP", "AP"),
        ("P.10", "P@10"), ("P_10", "P@10"), ("recip_rank", "RR"), ("Rprec", "R-prec"),
        ("recall.100", "Recall@100"), ("recall_100", "Recall@100"), ("bpref", "bpref"),
        ("ndcg", "nDCG"), ("ndcg@10", "nDCG@10"), ("NDCG@10", "nDCG@10"), ("nDCG@10", "nDCG@10"),
        ("ap", "AP"), ("mrr", "RR"), ("R@100", "Recall@100"), ("r-prec", "R-prec"),
        ("map_cut.100", "AP@100"), ("success.10", "Success@10"), ("num_ret", "NumRet"),
        ("num_rel", "NumRel"), ("num_rel_ret", "NumRelRet"), ("set_P", "SetP"),
        ("set_recall", "SetR"), ("set_F", "SetF"), ("infAP", "infAP"), ("INFAP", "infAP"),
        ("iprec_at_recall_0.10", "IPrec(recall=0.1)"), ("IPrec@0.5", "IPrec(recall=0.5)"),
        ("NDCG_CUT_20", "nDCG@20"), ("p.5", "P@5"), ("rbp(p=0.9)", "RBP(p=0.9)"),
        ("ndcg(gain=exp,discount=zipf)@20", "nDCG(gain=exp,discount=zipf)@20"),
    ],
)
def test_spellings_map_to_the_canonical_measure(text, canonical):
    assert names(text) == [canonical]


def test_trec_eval_parameter_lists_and_bare_families():
    assert names("P.5,10,20") == ["P@5", "P@10", "P@20"]
    # trec_eval -m P prints P_5 ... P_1000; -m iprec_at_recall the 11 levels
    assert names("P") == [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert names("iprec_at_recall") == [f"IPrec(recall={x / 10:g})" for x in range(11)]
    assert names("success") == ["Success@1", "Success@5", "Success@10"]
    # the canonical Recall (whole ranking) stays itself
    assert names("Recall") == ["Recall"]


def test_comma_lists_split_only_at_top_level():
    assert split_measure_list("nDCG@10, AP,nDCG(gain=exp,discount=zipf)@20") == [
        "nDCG@10", "AP", "nDCG(gain=exp,discount=zipf)@20"]
    assert split_measure_list("P.5,10,ndcg_cut.10") == ["P.5,10", "ndcg_cut.10"]
    assert names("nDCG@10,AP", "RR") == ["nDCG@10", "AP", "RR"]
    # duplicates by meaning are dropped, order kept
    assert names("map,AP,ap,nDCG@10,ndcg_cut_10") == ["AP", "nDCG@10"]
    with pytest.raises(MeasureError, match="empty"):
        resolve_measures("nDCG@10,,AP")


def test_official_is_trec_eval_default_set():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    got = names("official")
    # pytrec_eval's nickname lists trec_eval's default measures; runid and num_q are lines of
    # the -f trec layout, not measures
    trec = set(pytrec_eval.supported_nicknames["official"]) - {"runid", "num_q"}
    want = [str(m) for name in sorted(trec) for m in resolve_measures(name)]
    assert sorted(got) == sorted(want)
    assert "GMAP" in got  # gm_map: AP's geometric mean over topics
    assert len(got) == 3 + 5 + 11 + 9  # counts, map/gm_map/Rprec/bpref/recip_rank, iprec, P


def test_all_trec_is_trec_eval_10s_set():
    # trec_eval 10.0's measures.c: all_trec adds rbp, rbp_resid and unj to trec_eval 9's set
    got = trec_eval_request("all_trec")
    printed = set(got.printed.values())
    assert got.display == {"runid", "num_q"}
    assert {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20", "gm_map", "gm_bpref", "11pt_avg",
            "relstring", "utility", "binG", "G", "Rndcg", "ndcg_rel", "set_map",
            "set_relative_P", "num_nonrel_judged_ret", "Rprec_mult_1.00", "Rprec"} <= printed
    assert len(got.measures) == len(printed) == 98
    with pytest.raises(MeasureError, match="num_q, runid are lines"):
        resolve_measures("runid,num_q")


def test_rel_sets_binary_measures_that_leave_it_unset():
    assert names("ndcg_cut.10,map,P.10", rel=2) == ["nDCG@10", "AP(rel=2)", "P(rel=2)@10"]
    assert names("AP(rel=3)", "RBP(p=0.8)", rel=2) == ["AP(rel=3)", "RBP(p=0.8,rel=2)"]
    for bad in (0, -1, True, 1.5):
        with pytest.raises(MeasureError, match="rel"):
            resolve_measures("AP", rel=bad)


def test_default_set_when_none_given():
    assert [str(m) for m in resolve_measures(None)] == list(irstab.metrics.DEFAULT_MEASURES)
    with pytest.raises(MeasureError, match="no measure"):
        resolve_measures([])


def test_named_measure_shows_its_name_and_keeps_its_definition(dl2019):
    (m,) = resolve_measures("mine=nDCG(gain=exp,discount=zipf)@20")
    assert isinstance(m, Named) and str(m) == "mine"
    assert m.definition == "nDCG(gain=exp,discount=zipf)@20"
    assert resolve_measures(m.canonical()) == [m]  # the canonical form reads back
    same = parse_measure("nDCG(gain=exp,discount=zipf)@20").compute(dl2019)
    assert (m.compute(dl2019) == same).all()
    frame = irstab.evaluate(dl2019, None, ["mine=nDCG(gain=exp,discount=zipf)@20", "AP"])
    assert list(dict.fromkeys(frame["measure"])) == ["mine", "AP"]


def test_two_measures_under_one_name_is_an_error():
    with pytest.raises(MeasureError, match="two measures are named 'x'"):
        resolve_measures(["x=nDCG@10", "x=AP"])
    with pytest.raises(MeasureError, match="name"):
        resolve_measures("1x=AP")


def test_saved_optimizer_result_is_a_measure(tmp_path):
    # the shape `irstab optimize --save` writes: the measure string under "measure"
    text = "nDCG(gain=(0,1,3.5,7),discount=(1,0.61,0.5))@3"
    (tmp_path / "opt.json").write_text(json.dumps({"measure": text, "phi": 0.9}))
    (m,) = resolve_measures(f"@{tmp_path / 'opt.json'}")
    assert str(m) == "opt" and m.definition == text
    (m2,) = resolve_measures(f"short=@{tmp_path / 'opt.json'}")
    assert str(m2) == "short" and m2.definition == text
    (tmp_path / "front.json").write_text(json.dumps({"points": []}))
    with pytest.raises(MeasureError, match="front.json.*measure"):
        resolve_measures(f"@{tmp_path / 'front.json'}")
    with pytest.raises(MeasureError, match="cannot read"):
        resolve_measures(f"@{tmp_path / 'missing.json'}")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(MeasureError, match="not a JSON"):
        resolve_measures(f"@{tmp_path / 'bad.json'}")


def test_saved_result_in_a_comma_list(tmp_path):
    text = "nDCG(gain=(0,1,3.5,7),discount=(1,0.61,0.5))@3"
    (tmp_path / "opt.json").write_text(json.dumps({"measure": text}))
    got = resolve_measures(f"@{tmp_path / 'opt.json'},ndcg_cut.10,map")
    assert [str(m) for m in got] == ["opt", "nDCG@10", "AP"]
    assert got[0].definition == text
    # a file whose name holds a comma is still one item when it exists
    (tmp_path / "a,b.json").write_text(json.dumps({"measure": text}))
    (m,) = resolve_measures(f"@{tmp_path / 'a,b.json'}")
    assert str(m) == "a_b" and m.definition == text


@pytest.mark.parametrize(
    "text, words",
    [("ideal_dcg", "not supported"), ("ndcg_10", "ndcg_cut"),
     ("Frobnicate@10", "unknown measure"), ("P.10.5", "cutoff"), ("map_cut", None),
     ("utility.1,2", "4 coefficients"), ("P.10,10", "duplicate"), ("rbp_resid.1=2", "no parameter")],
)
def test_clear_errors(text, words):
    if words is None:  # map_cut alone is a family: trec_eval's nine cutoffs
        assert len(resolve_measures(text)) == 9
        return
    with pytest.raises(MeasureError, match=words):
        resolve_measures(text)


CANONICAL = ["nDCG@10", "AP", "RR", "P@10", "R-prec", "bpref", "Recall@100", "ERR@20",
             "RBP(p=0.9)", "Success@5", "infAP", "SetF", "NumRelRet"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CANONICAL), st.lists(st.booleans(), min_size=20, max_size=20))
def test_any_case_of_a_canonical_name_is_the_same_measure(text, flips):
    # names are case-insensitive; parameter names and values are not (p= is RBP's p)
    name = re.match(r"[A-Za-z_.\-]+", text).group()
    cased = "".join(c.swapcase() if f else c for c, f in zip(name, flips))
    assert resolve_measures(cased + text[len(name):]) == resolve_measures(text)


@pytest.mark.parametrize("text, want", [
    # ir_measures: space-separated lists, its spellings and parameters (ir_measures.parse_measure)
    ("nDCG@10 P@5  Judged@10", ["nDCG@10", "P@5", "Judged@10"]),
    ("iP@0.5", ["IPrec(recall=0.5)"]),
    ("nDCG(dcg=exp-log2)@10", ["nDCG(gain=exp)@10"]),
    ("nDCG(dcg='exp-log2')@10", ["nDCG(gain=exp)@10"]),
    ("nDCG(dcg=log2)@10", ["nDCG@10"]),
    ("nDCG(judged_only=True)@10", ["nDCG(judged_only=true)@10"]),
    ("NumRet(rel=2)", ["NumRelRet(rel=2)"]),
    ("RPrec Bpref", ["R-prec", "bpref"]),
    # ranx spellings
    ("r-precision", ["R-prec"]), ("hit_rate@10", ["Success@10"]),
    ("ndcg_burges@10", ["nDCG(gain=exp)@10"]),
    # blanks that do not separate measures
    ("mine = nDCG@10", ["mine"]), ("P.5, 10", ["P@5", "P@10"]), ("nDCG @ 10", ["nDCG@10"]),
])
def test_peer_spellings(text, want):
    assert names(text) == want


def test_judged_only_round_trips_and_condenses():
    from irstab.metrics import parse_measure

    m = resolve_measures("AP(rel=2,judged_only=True)")[0]
    assert str(m) == "AP(rel=2,judged_only=true)" and parse_measure(str(m)) == m
    assert resolve_measures("nDCG(judged_only=false)@10")[0] == parse_measure("nDCG@10")


@pytest.mark.timeout(30)  # opening the FIFO would wait for a writer for ever
@pytest.mark.parametrize("spec", ["@{p}", "mine=@{p}", "P@5,@{p}", "@{q}"])
def test_a_saved_result_that_is_a_fifo_is_refused_before_it_is_opened(tmp_path, spec):
    p, q = tmp_path / "opt.json", tmp_path / "a,b.json"  # q: a comma in the name, kept whole
    os.mkfifo(p)
    os.mkfifo(q)
    path = q if "{q}" in spec else p
    with pytest.raises(MeasureError, match=re.escape(
            f"-m @{path}: is a FIFO (named pipe), not a regular file; give the JSON file that "
            "`irstab optimize --save` wrote")):
        resolve_measures(spec.format(p=p, q=q))


def test_a_saved_result_in_a_pipe_is_called_a_pipe_and_left_unread():
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd")
    text = json.dumps({"measure": "nDCG@10"}).encode()
    r, w = os.pipe()
    os.write(w, text)
    os.close(w)
    try:
        with pytest.raises(MeasureError, match=re.escape(f"-m @/proc/self/fd/{r}: is a pipe")):
            resolve_measures(f"@/proc/self/fd/{r}")
        assert os.read(r, 1 << 16) == text
    finally:
        os.close(r)
