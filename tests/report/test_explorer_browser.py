"""The explorer page in Chromium: its numbers are the library's, its controls work, offline.

Oracles: the library itself on the configuration the page reports (its canonical string is
parsed back, scored by :func:`irstab.evaluation.score_matrix`, i.e. the nDCG kernel of
``evaluate``, and studied by :func:`irstab.stability.gstudy`): Phi, Erho2 and the variance
components to 1e-9, every nDCG to 1e-12, the topics needed exactly; Kendall's tau by
:func:`irstab.compare.correlation.kendall_tau` on the library's means (means within 1e-12 of each
other count as tied, as the page documents); the interval of the Phi difference by
:func:`irstab.compare.paired_comparison` (``interval="parametric"``) run with 24 seeds, whose
spread is the Monte-Carlo error of the method. Data: TREC DL 2019 (37 runs x 43 topics) at
cutoffs up to 100. Every page here runs with the network blocked (tests/report/conftest.py).
Update times are measured by benchmarks/bench_explorer.py, not asserted here.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab
from irstab.compare import paired_comparison
from irstab.compare.correlation import kendall_tau
from irstab.compare.paired import expanded_confidence
from irstab.errors import IRStabError
from irstab.evaluation import score_matrix
from irstab.metrics import parse_measure
from irstab.report.explorer import explorer_page, write_explorer
from irstab.stability import gstudy

CUTOFF = 100
PRESETS = ["nDCG(gain=exp,discount=zipf)@20", "jk=nDCG(discount=log(base=10))@50",
           "nDCG(gain=(0,1,5,6),discount=(1,0.9,0.5,0.2,0.1))"]


@pytest.fixture(scope="module")
def dl(dl2019, tmp_path_factory):
    page = explorer_page(dl2019, cutoff=CUTOFF, presets=PRESETS, optimize_at=(10, 100),
                         title="TREC DL 2019 passage")
    path = write_explorer(page, tmp_path_factory.mktemp("explorer") / "explore.html")
    base = score_matrix(dl2019, "nDCG@10")
    return SimpleNamespace(coll=dl2019, page=page, path=path, base=base)


@pytest.fixture(scope="module")
def browser_page(open_offline, dl):
    """One offline page on DL-2019 for the tests that only call the API."""
    p = open_offline(1400).open(dl.path)
    yield p
    assert p.errors == [] and p.dialogs == []


# ----------------------------------------------------------------- the library's answer


def _snap(means: np.ndarray) -> np.ndarray:
    """Means within 1e-12 of the larger of two neighbours made equal (the page's ties)."""
    out = means.copy()
    order = np.argsort(-means, kind="stable")
    for a, b in zip(order, order[1:]):
        if abs(out[a] - means[b]) <= 1e-12 * max(abs(out[a]), abs(means[b])):
            out[b] = out[a]
    return out


def library(dl, state: dict) -> dict | None:
    """The library's figures for the page's configuration and selection (None: undefined)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            x = score_matrix(dl.coll, parse_measure(state["measure"]))
        except IRStabError as exc:
            return {"error": str(exc)}
    topics_out = set(dl.coll.topics) - set(state["_topics_kept"])
    systems_kept = state["_systems_kept"]
    sub = x.loc[list(systems_kept), [t for t in dl.coll.topics if t not in topics_out]]
    base = dl.base.loc[sub.index, sub.columns]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            g = gstudy(sub)
        except IRStabError as exc:
            return {"error": str(exc), "scores": x}
        gb = gstudy(base)
    means, bmeans = sub.to_numpy().mean(axis=1), base.to_numpy().mean(axis=1)
    return {
        "scores": x, "phi": g.phi(), "erho2": g.erho2(), "var_system": g.var_system,
        "var_topic": g.var_topic, "var_residual": g.var_residual,
        "topics_needed_090": g.topics_needed(0.90).n, "topics_needed_095": g.topics_needed(0.95).n,
        "phi_diff": g.phi() - gb.phi(), "means": dict(zip(sub.index, means)),
        "kendall_tau_baseline": kendall_tau(_snap(means), _snap(bmeans)),
        "swapped": int(sum(np.sign(a - b) * np.sign(c - d) < 0
                           for i, (a, c) in enumerate(zip(_snap(means), _snap(bmeans)))
                           for b, d in zip(_snap(means)[i + 1:], _snap(bmeans)[i + 1:]))),
    }


def kept(page, st: dict) -> dict:
    """The state with the systems and topics the page keeps (read from the page)."""
    sel = page.page.evaluate("""() => ({
        topics: Array.from(document.querySelectorAll('#topics-list input')).map(i => i.checked),
        systems: Array.from(document.querySelectorAll('#systems-list input')).map(i => i.checked)})""")
    api = page.page.evaluate("() => ({t: window.irstabExplorer.topics, s: window.irstabExplorer.systems})")
    return dict(st, _topics_kept=[t for t, k in zip(api["t"], sel["topics"]) if k],
                _systems_kept=[s for s, k in zip(api["s"], sel["systems"]) if k])


def assert_equal_to_library(dl, page, st: dict) -> dict:
    st = kept(page, st)
    lib = library(dl, st)
    if "error" in lib:  # undefined for the library: the page says so and shows no number
        assert st["problem"], (st["measure"], lib["error"])
        assert st["phi"] is None and st["phi_diff"] is None
        return lib
    assert st["problem"] is None, (st["measure"], st["problem"])
    for key in ("phi", "erho2", "var_system", "var_topic", "var_residual", "phi_diff"):
        assert abs(st[key] - lib[key]) <= 1e-9, (key, st["measure"], st[key], lib[key])
    for key in ("topics_needed_090", "topics_needed_095"):
        assert st[key] == lib[key], (key, st["measure"])
    scores = np.array(page.page.evaluate("() => window.irstabExplorer.scores()"))
    np.testing.assert_allclose(scores, lib["scores"].to_numpy(), rtol=0, atol=1e-12)
    ranking = st["ranking"]
    assert sorted(ranking) == sorted(st["_systems_kept"])
    m = [lib["means"][s] for s in ranking]  # the page's order is the library's, ties aside
    assert all(a >= b - 1e-12 * max(abs(a), abs(b)) for a, b in zip(m, m[1:])), st["measure"]
    if math.isnan(lib["kendall_tau_baseline"]):
        assert st["kendall_tau_baseline"] is None
    else:
        assert abs(st["kendall_tau_baseline"] - lib["kendall_tau_baseline"]) <= 1e-12
    assert len(st["swapped_pairs"]) == lib["swapped"]
    return lib


# ----------------------------------------------------------------- presets and random configurations


def test_every_preset_equals_the_library(dl, browser_page):
    presets = browser_page.page.evaluate("() => window.irstabExplorer.presets()")
    labels = [p["label"] for p in presets]
    assert labels[0] == "nDCG@10" and "jk" in labels
    assert sum(label.startswith("optimal") for label in labels) == 6  # 3 kinds x 2 cutoffs
    for p in presets:
        st = browser_page.set({"preset": p["label"], "topics_out": [], "systems_out": []})
        assert st["measure"] == p["measure"]  # the page prints the preset's canonical string
        assert str(parse_measure(st["measure"])) == st["measure"]  # and the library reads it back
        assert_equal_to_library(dl, browser_page, st)
    base = browser_page.set({"preset": "nDCG@10"})
    assert (base["phi_diff"], base["phi_diff_lower"], base["phi_diff_upper"]) == (0, 0, 0)
    assert base["kendall_tau_baseline"] == 1 and base["swapped_pairs"] == []
    assert round(base["phi"], 3) == 0.924 and base["topics_needed_095"] == 68  # README's figures


def test_named_families_and_cutoffs(dl, browser_page):
    cases = [({"gain": "exp", "discount": "zipf", "cutoff": 20}, "nDCG(gain=exp,discount=zipf)@20"),
             ({"gain": "linear", "discount": "linear", "cutoff": 100}, "nDCG(discount=linear)@100"),
             ({"discount": "flat", "cutoff": 1}, "nDCG(discount=flat)@1"),
             ({"discount": "log(base=10)", "cutoff": 37}, "nDCG(discount=log(base=10))@37"),
             ({"discount": {"family": "zipf", "param": 1.5}, "cutoff": 3},
              "nDCG(discount=(1,0.35355339059327373,0.19245008972987526))@3"),
             ({"discount": {"family": "geometric", "param": 0.5}, "cutoff": 4},
              "nDCG(discount=(1,0.5,0.25,0.125))@4")]
    for spec, measure in cases:
        st = browser_page.set({"gain": "linear", "discount": "log2", **spec})
        assert st["measure"] == measure
        assert_equal_to_library(dl, browser_page, st)


_grades = st.floats(0, 10, allow_nan=False)
_weights = st.floats(0, 1, allow_nan=False)
_discounts = st.one_of(
    st.sampled_from(["log2", "zipf", "linear", "flat"]),
    st.builds(lambda b: {"family": "log", "param": b}, st.floats(1.1, 20)),
    st.builds(lambda a: {"family": "zipf", "param": a}, st.floats(0.1, 3)),
    st.builds(lambda p: {"family": "geometric", "param": p}, st.floats(0.05, 1)),
    st.lists(_weights, min_size=1, max_size=CUTOFF),
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(gain=st.one_of(st.sampled_from(["linear", "exp"]),
                      st.lists(_grades, min_size=3, max_size=3).map(lambda g: [0.0, *g])),
       discount=_discounts, cutoff=st.integers(1, CUTOFF),
       topics_out=st.lists(st.integers(0, 42), max_size=12, unique=True),
       systems_out=st.lists(st.integers(0, 36), max_size=20, unique=True))
def test_random_vectors_cutoffs_and_selections_equal_the_library(
        dl, browser_page, gain, discount, cutoff, topics_out, systems_out):
    spec = {"gain": gain, "discount": discount,
            "topics_out": [dl.coll.topics[i] for i in topics_out],
            "systems_out": [dl.coll.systems[i] for i in systems_out]}
    if not isinstance(discount, list):
        spec["cutoff"] = cutoff
    st_ = browser_page.set(spec)
    assert st_["n_topics"] == 43 - len(topics_out) and st_["n_systems"] == 37 - len(systems_out)
    assert_equal_to_library(dl, browser_page, st_)


# ----------------------------------------------------------------- garbage in


_GARBAGE = st.one_of(
    st.tuples(st.just("gain"), st.one_of(
        st.text(max_size=5).filter(lambda s: s not in ("linear", "exp")), st.integers(-99, 99),
        st.lists(_grades, max_size=6).filter(lambda v: len(v) != 4),
        st.lists(st.floats(-5, -1e-9), min_size=4, max_size=4),
        st.just([1, 1, 2, 3]), st.just([0, 1, float("inf"), 2]), st.just([0, float("nan"), 1, 2]))),
    st.tuples(st.just("discount"), st.one_of(
        st.text(max_size=6).filter(lambda s: s not in ("log2", "zipf", "linear", "flat")),
        st.just([]), st.lists(_weights, min_size=CUTOFF + 1, max_size=CUTOFF + 3),
        st.just([1, -0.5]), st.just({"family": "log", "param": 1}),
        st.just({"family": "geometric", "param": 1.5}), st.just({"family": "bogus"}))),
    st.tuples(st.just("cutoff"), st.one_of(st.integers(-2**40, 0), st.integers(CUTOFF + 1, 2**40),
                                           st.just(2.5), st.just("10"), st.none())),
    st.tuples(st.just("seed"), st.one_of(st.integers(-2**40, -1), st.just(2**32), st.just(0.5))),
    st.tuples(st.just("topics_out"), st.one_of(st.just("19335"), st.just(["no such topic"]))),
    st.tuples(st.just("preset"), st.just("no such preset")),
    st.tuples(st.sampled_from(["gains", "Cutoff", "measure"]), st.integers(-99, 99)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(garbage=_GARBAGE)
def test_garbage_is_refused_by_name_and_changes_nothing(browser_page, garbage):
    from playwright.sync_api import Error as BrowserError

    key, value = garbage
    before = browser_page.set({"preset": "nDCG@10", "seed": 0})
    with pytest.raises(BrowserError, match=rf"irstabExplorer\.set: {key}: "):
        browser_page.set({key: value})
    after = browser_page.state()
    assert {k: v for k, v in after.items() if k != "update_ms"} == \
        {k: v for k, v in before.items() if k != "update_ms"}


# ----------------------------------------------------------------- the interval


@pytest.mark.parametrize("spec", [
    {"gain": "exp", "discount": "zipf", "cutoff": 20},
    {"preset": "optimal joint @10", "systems_out": 7, "topics_out": 1},
], ids=["exp-zipf@20", "optimal-joint@10-30-systems"])
def test_interval_is_the_verdicts_within_monte_carlo_error(dl, browser_page, spec):
    seeds = range(24)
    page_ends = []
    spec = dict(spec, systems_out=list(dl.coll.systems[: spec.get("systems_out", 0)]),
                topics_out=list(dl.coll.topics[: spec.get("topics_out", 0)]))
    for s in seeds:
        state = browser_page.set({**spec, "seed": s})
        page_ends.append((state["phi_diff_lower"], state["phi_diff_upper"]))
    state = kept(browser_page, state)
    S = len(state["_systems_kept"])
    assert state["n_systems"] == S
    assert abs(state["phi_diff_level"] - expanded_confidence(0.95, S)) <= 1e-12
    x = score_matrix(dl.coll, parse_measure(state["measure"]))
    rows, cols = state["_systems_kept"], state["_topics_kept"]
    scores = {state["measure"]: x.loc[rows, cols], "nDCG@10": dl.base.loc[rows, cols]}
    lib_ends = []
    for s in seeds:
        r = paired_comparison(scores, "nDCG@10", candidates=[state["measure"]], seed=s)
        k = r.index(state["measure"])
        assert abs(r.phi_diff[k] - state["phi_diff"]) <= 1e-9
        lib_ends.append((r.phi_diff_lower[k], r.phi_diff_upper[k]))
    page_ends, lib_ends = np.array(page_ends), np.array(lib_ends)
    n = len(seeds)
    se = np.sqrt((page_ends.var(axis=0, ddof=1) + lib_ends.var(axis=0, ddof=1)) / n)
    gap = np.abs(page_ends.mean(axis=0) - lib_ends.mean(axis=0))
    assert (gap <= 4 * se).all(), (page_ends.mean(axis=0), lib_ends.mean(axis=0), se)
    # one seed's ends: within the library's own spread of single runs
    assert (np.abs(page_ends - lib_ends.mean(axis=0)) <= 5 * lib_ends.std(axis=0, ddof=1)).all()
    # the same seed gives the same interval: it does not flicker
    again = browser_page.set({**spec, "seed": 23})
    assert (again["phi_diff_lower"], again["phi_diff_upper"]) == tuple(page_ends[-1])


# ----------------------------------------------------------------- real controls


def _drag(page, selector: str, start: float, end: float, y: float = 0.5) -> None:
    """Press the mouse at the fraction ``start`` of the element's width, move, release."""
    box = page.page.locator(selector).bounding_box()
    yy = box["y"] + box["height"] * y
    page.page.mouse.move(box["x"] + box["width"] * start, yy)
    page.page.mouse.down()
    for f in np.linspace(start, end, 8)[1:]:
        page.page.mouse.move(box["x"] + box["width"] * f, yy)
    page.page.mouse.up()


def test_dragging_sliders_and_the_discount_curve_with_the_mouse(dl, offline):
    p = offline(1400).open(dl.path)
    start = p.state()
    _drag(p, "#gain-3", 3 / 7, 0.05)  # grade 3's gain from 3 down to about 0.35
    after = p.state()
    assert after["measure"].startswith("nDCG(gain=(0,1,2,") and after["phi"] != start["phi"]
    g3 = parse_measure(after["measure"]).gain.values[3]
    assert 0 <= g3 < 1.2
    assert_equal_to_library(dl, p, after)
    assert p.page.locator("#measure").inner_text() == after["measure"]
    assert p.page.locator("#phi").inner_text() == f"{after['phi']:.3f}"

    _drag(p, "#cutoff", 0.1, 0.5)  # the cutoff slider: 10 -> about 50
    cut = p.state()
    assert 40 <= parse_measure(cut["measure"]).cutoff <= 60
    assert_equal_to_library(dl, p, cut)

    p.set({"cutoff": 10})
    # draw on the discount plot: ranks 2..6 from weight ~0.9 down to ~0.1 (plot area 52..W-14 px)
    box = p.page.locator("#discount-plot").bounding_box()
    w, h = box["width"], box["height"]

    def at(rank, weight):
        return (box["x"] + 52 + (rank - 1) / 9 * (w - 66), box["y"] + 12 + (1 - weight) * (h - 52))

    p.page.mouse.move(*at(2, 0.9))
    p.page.mouse.down()
    for r, v in ((3, 0.7), (4, 0.5), (5, 0.3), (6, 0.1)):
        p.page.mouse.move(*at(r, v))
    p.page.mouse.up()
    drawn = p.state()
    d = parse_measure(drawn["measure"]).discount.values
    assert len(d) == 10 and drawn["measure"].endswith("@10")
    assert np.allclose(d[1:6], [0.9, 0.7, 0.5, 0.3, 0.1], atol=0.04), d
    assert p.page.locator("#discount-family").input_value() == "points"
    assert_equal_to_library(dl, p, drawn)
    assert p.errors == []


def test_checkboxes_leave_topics_and_systems_out(dl, offline):
    p = offline(1400).open(dl.path)
    p.page.locator("#topics-box summary").click()
    boxes = p.page.locator("#topics-list input")
    for i in (0, 5, 9):
        boxes.nth(i).click()
    p.page.locator("#systems-box summary").click()
    p.page.locator("#systems-list input").nth(2).click()
    st_ = p.state()
    assert st_["n_topics"] == 40 and st_["n_systems"] == 36
    assert dl.coll.systems[2] not in st_["ranking"]
    assert_equal_to_library(dl, p, st_)
    p.page.locator("#topics-all").click()
    assert p.state()["n_topics"] == 43


# ----------------------------------------------------------------- offline, self-contained


def test_the_page_asks_for_nothing_but_itself(dl, offline):
    p = offline(1400).open(dl.path)
    p.set({"gain": "exp", "discount": "zipf", "cutoff": 20})
    p.page.locator("#copy").click()
    assert p.requests == [dl.path.as_uri()]
    assert p.state()["phi"] is not None and p.errors == []
    page = dl.path.read_text()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?!#)""", page)  # no external resource
    assert "@import" not in page and "url(" not in page and "fetch(" not in page
    assert dl.page.nbytes < 3e6


def test_the_page_at_a_collection_with_odd_names(offline, tmp_path):
    """A run tagged like markup stays text: the embedded data cannot end its script element."""
    sim = irstab.simulate.simulate_collection(n_systems=5, n_topics=6, depth=20, seed=3)
    sim.write(tmp_path)
    first = sorted((tmp_path / "runs").iterdir())[0]
    evil = "</script><svg/onload=alert(1)>"
    lines = [" ".join(line.split()[:5] + [evil]) for line in first.read_text().splitlines()]
    first.write_text("\n".join(lines) + "\n")
    coll = irstab.Collection.from_files(tmp_path / "qrels.txt", tmp_path / "runs", depth=20)
    assert evil in coll.systems
    path = write_explorer(explorer_page(coll, cutoff=20, optimize_at=(), drop_worst=0.2),
                          tmp_path / "odd.html")
    assert evil not in path.read_text()  # every "</" inside the scripts is written "<\/"
    p = offline(800).open(path)
    assert p.state()["n_systems"] == 4  # one of five left out at the start (drop_worst)
    p.set({"systems_out": []})
    assert evil in p.state()["ranking"]
    assert evil in p.page.locator("#ranking").inner_text()
    assert p.page.locator("#ranking svg").count() == 0
    assert p.dialogs == [] and p.errors == []


# ----------------------------------------------------------------- what a person sees


LAYOUT = """() => {
  const de = document.documentElement;
  const boxes = sel => Array.from(document.querySelectorAll(sel)).map(e => e.getBoundingClientRect())
    .filter(r => r.width > 0 && r.height > 0);
  const overlaps = rs => { let n = 0; for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) {
    const a = rs[i], b = rs[j];
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) n++; }
    return n; };
  const charts = Array.from(document.querySelectorAll('svg.chart'));
  const series = Array.from(document.querySelectorAll('#dstudy-plot path.series')).map(p => {
    const s = getComputedStyle(p); return [s.stroke, s.strokeDasharray]; });
  return {width: de.clientWidth, scroll: de.scrollWidth,
    textOverlaps: charts.map(c => overlaps(Array.from(c.querySelectorAll('text')).map(t => t.getBoundingClientRect()))),
    cardOverlaps: overlaps(boxes('.card')), labelOverlaps: overlaps(boxes('.card .label, .card .value, .card .sub')),
    panes: overlaps(boxes('.controls, .readouts')), series: series,
    chartsInside: charts.every(c => c.getBoundingClientRect().right <= de.clientWidth + 1),
    controlsLeft: document.querySelector('.controls').getBoundingClientRect().left,
    readoutsLeft: document.querySelector('.readouts').getBoundingClientRect().left};
}"""


@pytest.mark.parametrize("width", [1400, 800])
def test_layout_and_screenshots(dl, offline, tmp_path, width):
    p = offline(width).open(dl.path)
    p.set({"preset": "nDCG(gain=exp,discount=zipf)@20", "topics_out": ["19335", "47923"]})
    r = p.page.evaluate(LAYOUT)
    assert r["scroll"] <= r["width"] == width and r["chartsInside"], r
    assert r["textOverlaps"] == [0, 0], r  # discount and D-study plots: no label over another
    assert r["cardOverlaps"] == 0 and r["labelOverlaps"] == 0 and r["panes"] == 0, r
    assert r["readoutsLeft"] > r["controlsLeft"]  # side by side at 800 px too: read-outs in view
    (cand_stroke, cand_dash), (base_stroke, base_dash) = r["series"]
    assert cand_stroke != base_stroke and cand_dash != base_dash  # colour and dashes
    shot = tmp_path / f"explorer-{width}.png"
    p.page.screenshot(path=str(shot), full_page=True)
    png = shot.read_bytes()
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == width
    keep = os.environ.get("IRSTAB_SCREENSHOTS")  # a folder to keep them in, to look at
    if keep:
        shutil.copy(shot, keep)
