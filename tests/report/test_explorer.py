"""The explorer page as written (no browser): what it carries, its size, its refusals.

Oracles: the Collection's own arrays (the sparse counts decoded from the page rebuild its
positive grades rank by rank, and its grade counts), the library's score matrix (the baseline's
scores are carried bit for bit), the measure parser (every preset's string reads back to the
same measure), keep_mask (the systems left out by drop_worst). The browser tests
(test_explorer_browser.py) prove the page computes what the library computes.
"""

from __future__ import annotations

import base64
import json
import re
from importlib import resources

import numpy as np
import pytest

import irstab
from irstab.errors import IRStabError
from irstab.evaluation import score_matrix
from irstab.metrics import parse_measure
from irstab.report.explorer import explorer_page, preset, write_explorer
from irstab.stability.designs.crossed import keep_mask


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=9, depth=30, seed=11)
    return irstab.Collection.build(sim.qrels, sim.runs, depth=30)


def _data(page) -> dict:
    m = re.search(r'<script type="application/json" id="irstab-data">(.*?)</script>', page.html, re.S)
    return json.loads(m.group(1))  # "\u003c" is JSON for "<" (irstab.report.embed)


def _array(text: str, dtype: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=dtype)


@pytest.mark.parametrize("cutoff", [1, 7, 30])
def test_counts_rebuild_the_positive_grades_and_the_ideal(small, cutoff):
    page = explorer_page(small, cutoff=cutoff, optimize_at=())
    data = _data(page)
    assert data == page.data
    c = data["counts"]
    start, rank, grade = (_array(c["cell_start"], "<i4"), _array(c["rank"], "<u2"),
                          _array(c["grade"], "u1"))
    S, T = small.n_systems, small.n_topics
    dense = np.zeros((S, T, cutoff), dtype=int)
    for cell in range(S * T):
        ranks = rank[start[cell]:start[cell + 1]]
        assert (np.diff(ranks) > 0).all()  # ascending within a cell, each rank once
        dense[cell // T, cell % T, ranks] = grade[start[cell]:start[cell + 1]]
    expected = np.clip(small.grades_to(small.stored(cutoff)), 0, None)
    assert np.array_equal(dense[:, :, :expected.shape[2]], expected)
    assert (grade > 0).all() and len(grade) == c["n_entries"] == int((expected > 0).sum())
    assert c["grade_counts"] == small.grade_counts[:, : small.max_grade + 1].tolist()


def test_baseline_scores_are_carried_bit_for_bit(small):
    page = explorer_page(small, cutoff=20, baseline="AP", optimize_at=())
    data = _data(page)
    scores = _array(data["baseline"]["scores"], "<f8").reshape(small.n_systems, small.n_topics)
    assert np.array_equal(scores, score_matrix(small, "AP").to_numpy())
    # AP is compared with, not offered: the page starts at nDCG@10
    assert data["baseline"]["measure"] == "AP"
    assert data["presets"][0]["measure"] == "nDCG@10" and data["presets"][0]["family"] == "default"


@pytest.mark.parametrize("measure, family, expected", [
    ("nDCG@10", "log2", "nDCG@10"),
    ("nDCG(gain=exp,discount=zipf)@20", "zipf", "nDCG(gain=exp,discount=zipf)@20"),
    ("nDCG(discount=log(base=10))@5", "log", "nDCG(discount=log(base=10))@5"),
    ("nDCG(discount=linear)@30", "linear", "nDCG(discount=linear)@30"),
    ("nDCG(discount=flat)@3", "flat", "nDCG(discount=flat)@3"),
    ("nDCG(gain=(0,1,3,7),discount=(1,0.6,0.5))", "points", "nDCG(gain=(0,1,3,7),discount=(1,0.6,0.5))@3"),
])
def test_presets_keep_the_measure(small, measure, family, expected):
    p = preset(measure, small.max_grade, 30)
    assert p.config["discount"]["family"] == family and p.measure == expected
    assert parse_measure(p.measure) == parse_measure(expected)
    k = parse_measure(expected)
    assert p.config["cutoff"] == k.cutoff
    if family == "points":
        assert p.config["discount"]["points"] == [1.0, 0.6, 0.5]
        assert p.config["gain"] == {"kind": "custom", "values": [0.0, 1.0, 3.0, 7.0]}


@pytest.mark.parametrize("measure, needle", [
    ("AP", "not an nDCG"),
    ("nDCG", "give its cutoff"),
    ("nDCG@50", "beyond the page's largest cutoff 30"),
    ("nDCG(gain=(0,1))@10", "values"),
    ("DCG@10", "not an nDCG"),
])
def test_presets_that_are_no_configuration_are_refused(small, measure, needle):
    with pytest.raises(IRStabError, match=re.escape(needle)):
        preset(measure, small.max_grade, 30)


@pytest.mark.parametrize("kwargs, needle", [
    ({"cutoff": 0}, "cutoff: expected a positive integer"),
    ({"cutoff": 31}, "beyond the depth"),
    ({"cutoff": 2.5}, "cutoff"),
    ({"confidence": 1.0}, "confidence"),
    ({"confidence": 0.0}, "confidence"),
    ({"drop_worst": 1.0}, "drop_worst"),
    ({"baseline": "nDCG@zz"}, "baseline"),
    ({"baseline": "nDCG@31"}, "baseline"),
    ({"presets": ["AP"]}, "not an nDCG"),
    ({"optimize_at": (40,)}, "optimize_at"),
])
def test_bad_arguments_are_named(small, kwargs, needle):
    with pytest.raises(IRStabError, match=re.escape(needle)):
        explorer_page(small, **{"cutoff": 20, "optimize_at": (), **kwargs})


@pytest.mark.parametrize("gone", ["n_draws", "seed"])
def test_the_interval_takes_no_draws_and_no_seed(small, gone):
    # the two-facet jackknife has no random draws: the page carries only its confidence
    page = explorer_page(small, cutoff=10, optimize_at=(), confidence=0.9)
    assert page.data["interval"] == {"confidence": 0.9}
    with pytest.raises(TypeError, match=gone):
        explorer_page(small, cutoff=10, optimize_at=(), **{gone: 1})


def test_drop_worst_leaves_out_what_keep_mask_drops(small):
    page = explorer_page(small, cutoff=10, optimize_at=(), drop_worst=0.34)
    base = score_matrix(small, "nDCG@10").to_numpy()
    keep = keep_mask(base, 0.34)
    assert page.data["collection"]["systems_out"] == [
        s for s, k in zip(small.systems, keep) if not k]
    assert len(page.data["collection"]["systems_out"]) == 2


def test_optima_are_presets_with_their_canonical_strings(small):
    page = explorer_page(small, cutoff=10, optimize_at=(5, 10))
    labels = [p["label"] for p in page.data["presets"]]
    assert labels[0] == "nDCG@10"
    opt = [p for p in page.data["presets"] if p["label"].startswith("optimal")]
    assert [p["label"] for p in opt] == [f"optimal {k} @{c}" for c in (5, 10)
                                         for k in ("discount", "gain", "joint")]
    for p in opt:
        m = parse_measure(p["measure"])
        assert m.cutoff == p["config"]["cutoff"] and str(m) == p["measure"]


def test_page_is_self_contained_and_written_atomically(small, tmp_path):
    page = explorer_page(small, cutoff=10, optimize_at=())
    out = write_explorer(page, tmp_path / "e.html")
    text = out.read_text(encoding="utf-8")
    assert text == page.html and text.startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["e.html"]  # no temporary file left
    assert not re.search(r"<(?:script|link|img|iframe)[^>]*(?:src|href)=", text)
    assert text.count("<script") == 2  # the data and the page's own code, inline
    assets = resources.files("irstab.report").joinpath("explorer_assets")
    for name in ("core.js", "interval.js", "plot.js", "ui.js", "explorer.css", "page.html"):
        body = assets.joinpath(name).read_text(encoding="utf-8")  # package data, read as such
        assert body.strip().splitlines()[-1].strip() in text or name == "page.html"
    with pytest.raises(IRStabError, match="cannot write"):
        write_explorer(page, tmp_path / "e.html" / "inside")


def test_dl2019_page_is_small(dl2019):
    page = explorer_page(dl2019, cutoff=100, optimize_at=())
    assert page.data["counts"]["n_entries"] == 53046  # relevant retrieved in the top 100
    assert page.nbytes < 3e6
    assert page.nbytes < 0.5e6  # about 0.3 MB: ~4 bytes per entry once base64
