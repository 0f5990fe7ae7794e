"""The explorer page in Chromium: its numbers are the library's, its controls work, offline.

Oracles: the library itself on the configuration the page reports (its canonical string is
parsed back, scored by :func:`irstab.evaluation.score_matrix`, i.e. the nDCG kernel of
``evaluate``, and studied by :func:`irstab.stability.gstudy`): Phi, Erho2 and the variance
components to 1e-9, every nDCG to 1e-12, the topics needed exactly; Kendall's tau by
:func:`irstab.compare.correlation.kendall_tau` on the library's means (means within 1e-12 of each
other count as tied, as the page documents); the difference in Phi and its interval by
:func:`irstab.verdict.paired_comparison` (its default, the two-facet jackknife: no draws, so
the page's ends, standard deviation and degrees of freedom equal the library's to 1e-9) on the
same systems and topics; Student's t quantile by ``scipy.stats.t.ppf`` and the closed forms at
1 and 2 degrees of freedom. Data: TREC DL 2019 (37 runs x 43 topics) at cutoffs up to 100, and
matrices drawn by Hypothesis for the interval module alone. Every page here runs with the
network blocked (tests/report/conftest.py). Update times are measured by
benchmarks/bench_explorer.py, not asserted here.
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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import irstab
from irstab.verdict import paired_comparison
from irstab.compare.correlation import kendall_tau
from irstab._numeric import min_resamples
from irstab.stability.dstudy import crossed_phi
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
    assert_interval_is_the_verdicts(st, sub_of(dl, st, lib["scores"]))
    return lib


def sub_of(dl, st: dict, x):
    """The candidate's and the baseline's scores on the systems and topics the page keeps."""
    rows, cols = st["_systems_kept"], st["_topics_kept"]
    return x.loc[rows, cols], dl.base.loc[rows, cols]


def verdict(cand, base, confidence=0.95):
    """The verdict's interval of Phi(cand) - Phi(base): paired_comparison, one candidate."""
    r = paired_comparison({"candidate": cand, "baseline": base}, "baseline",
                          candidates=["candidate"], confidence=confidence,
                          n_bootstrap=min_resamples(confidence))  # B: the pairs' draws only
    assert r.interval == "jackknife"  # the default the page mirrors
    return r, r.index("candidate")


def assert_interval_is_the_verdicts(st: dict, sub, confidence=0.95) -> None:
    """The page's difference in Phi and its interval are paired_comparison's, to 1e-9."""
    cand, base = sub
    S, T = cand.shape
    if S < 3 or T < 3:  # the jackknife has no interval: the library refuses, the page says so
        with pytest.raises(IRStabError, match="at least 3 systems and 3 topics"):
            verdict(cand, base, confidence)
        assert st["phi_diff_lower"] is None and st["phi_diff_upper"] is None
        assert any("no interval of the difference" in n for n in st["notes"])
        return
    r, k = verdict(cand, base, confidence)
    for key, lib in (("phi_diff", r.phi_diff[k]), ("phi_diff_lower", r.phi_diff_lower[k]),
                     ("phi_diff_upper", r.phi_diff_upper[k]), ("phi_diff_sd", r.phi_diff_sd[k])):
        assert abs(st[key] - lib) <= 1e-9, (key, st["measure"], st[key], lib)
    assert st["phi_diff_lower"] <= st["phi_diff"] <= st["phi_diff_upper"]
    assert st["phi_diff_level"] == pytest.approx(r.level, abs=1e-15)  # (1 - c) / 2: one candidate
    if st["phi_diff_twin"]:  # Phi cannot tell an affine twin from the baseline: exactly 0
        assert st["phi_diff"] == st["phi_diff_lower"] == st["phi_diff_upper"] == 0
        assert r.phi_diff[k] == r.phi_diff_lower[k] == r.phi_diff_upper[k] == 0
        return
    df = r.phi_diff_df[k]
    if math.isfinite(df):
        assert abs(st["phi_diff_df"] - df) <= 1e-9 * df, (st["phi_diff_df"], df)
    else:
        assert st["phi_diff_df"] is None
    infl = r.system_influence[k]
    if math.isnan(infl):
        assert st["phi_diff_system_influence"] is None
    else:
        assert abs(st["phi_diff_system_influence"] - infl) <= 1e-9


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


# ----------------------------------------------------------------- what a change did unasked


ADJUSTED = """() => { const e = document.getElementById('adjusted'), r = e.getBoundingClientRect();
  return {text: e.hidden ? null : e.textContent, visible: r.width > 0 && r.height > 0,
          byCutoff: e.closest('.block').contains(document.getElementById('cutoff'))}; }"""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _ranks(a: int, b: int) -> str:
    return f"rank {a}" if a == b else f"ranks {a}-{b}"


def assert_adjusted_shown(page, state: dict) -> None:
    """The page shows ``state["adjusted"]`` under the cutoff control, or nothing."""
    shown = page.page.evaluate(ADJUSTED)
    assert shown["byCutoff"]
    if state["adjusted"]:
        assert shown["text"] == "; ".join(state["adjusted"]) and shown["visible"]
    else:
        assert shown["text"] is None and not shown["visible"]


def test_a_discount_vector_that_sets_the_cutoff_says_so(browser_page):
    """Issue 41: set({discount: [1, 0.8, 0.5, 0.2]}) at cutoff 10 made it 4 without a word."""
    assert browser_page.set({"preset": "nDCG@10"})["adjusted"] == []
    st_ = browser_page.set({"discount": [1, 0.8, 0.5, 0.2]})
    assert st_["measure"] == "nDCG(discount=(1,0.8,0.5,0.2))@4"
    assert st_["adjusted"] == ["cutoff set to 4 (was 10): the discount vector has 4 weights"]
    assert browser_page.state()["adjusted"] == st_["adjusted"]
    assert_adjusted_shown(browser_page, st_)
    st_ = browser_page.set({"cutoff": 6})  # free points extended with their last weight
    assert st_["measure"] == "nDCG(discount=(1,0.8,0.5,0.2,0.2,0.2))@6"
    assert st_["adjusted"] == ["discount extended from 4 weights to 6: ranks 5-6 take the last "
                               "weight, 0.2"]
    assert_adjusted_shown(browser_page, st_)
    st_ = browser_page.set({"gain": "exp"})  # nothing unasked: nothing said
    assert st_["adjusted"] == []
    assert_adjusted_shown(browser_page, st_)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(start=st.integers(1, CUTOFF), weights=st.lists(_weights, min_size=1, max_size=CUTOFF),
       named=st.booleans(), then=st.integers(1, CUTOFF))
def test_every_cutoff_or_discount_change_nobody_asked_for_is_said(browser_page, start, weights,
                                                                  named, then):
    """The cutoff a discount vector sets, and free points cut or extended to a new cutoff."""
    assert browser_page.set({"preset": "nDCG@10", "cutoff": start})["adjusted"] == []
    n = len(weights)
    spec = {"discount": weights, **({"cutoff": n} if named else {})}
    st_ = browser_page.set(spec)
    assert parse_measure(st_["measure"]).cutoff == n
    assert st_["adjusted"] == ([] if named or n == start else [
        f"cutoff set to {n} (was {start}): the discount vector has {_plural(n, 'weight')}"])
    assert_adjusted_shown(browser_page, st_)
    st_ = browser_page.set({"cutoff": then})
    assert parse_measure(st_["measure"]).cutoff == then
    if then == n:
        assert st_["adjusted"] == []
    elif then < n:
        assert st_["adjusted"] == [f"discount cut from {_plural(n, 'weight')} to {then}: the "
                                   f"weights of {_ranks(then + 1, n)} are dropped"]
    else:  # the last weight as JavaScript prints it: read back, it is the same double
        (said,) = st_["adjusted"]
        head = (f"discount extended from {_plural(n, 'weight')} to {then}: {_ranks(n + 1, then)} "
                f"{'takes' if then == n + 1 else 'take'} the last weight, ")
        assert said.startswith(head) and float(said[len(head):]) == weights[-1]
    assert_adjusted_shown(browser_page, st_)


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
    st.tuples(st.just("topics_out"), st.one_of(st.just("19335"), st.just(["no such topic"]))),
    st.tuples(st.just("preset"), st.just("no such preset")),
    st.tuples(st.sampled_from(["gains", "Cutoff", "measure", "seed", "draws"]),
              st.integers(-99, 99)),  # seed and draws: the interval has none
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(garbage=_GARBAGE)
def test_garbage_is_refused_by_name_and_changes_nothing(browser_page, garbage):
    from playwright.sync_api import Error as BrowserError

    key, value = garbage
    before = browser_page.set({"preset": "nDCG@10"})
    with pytest.raises(BrowserError, match=rf"irstabExplorer\.set: {key}: "):
        browser_page.set({key: value})
    after = browser_page.state()
    assert {k: v for k, v in after.items() if k != "update_ms"} == \
        {k: v for k, v in before.items() if k != "update_ms"}


# ----------------------------------------------------------------- the interval


@pytest.mark.parametrize("spec", [
    {"gain": "exp", "discount": "zipf", "cutoff": 20},
    {"preset": "optimal joint @10", "systems_out": 7, "topics_out": 1},
    {"preset": "optimal discount @100", "systems_out": 34},  # 3 systems: the fewest it takes
    {"gain": [0, 2, 4, 6], "discount": "log2", "cutoff": 10},  # nDCG@10 itself: gain x 2
    {"preset": "jk", "systems_out": 35},  # 2 systems: no interval
    {"gain": "exp", "discount": "flat", "cutoff": 5, "topics_out": 41},  # 2 topics: none
], ids=["exp-zipf@20", "optimal-joint@10-30-systems", "optimal-discount@100-3-systems",
        "twin-of-the-baseline", "2-systems", "2-topics"])
def test_interval_is_the_verdicts_to_1e9(dl, browser_page, spec):
    from scipy import stats

    spec = dict(spec, systems_out=list(dl.coll.systems[: spec.get("systems_out", 0)]),
                topics_out=list(dl.coll.topics[: spec.get("topics_out", 0)]))
    state = kept(browser_page, browser_page.set(spec))
    x = score_matrix(dl.coll, parse_measure(state["measure"]))
    assert_interval_is_the_verdicts(state, sub_of(dl, state, x))
    assert state["phi_diff_method"].startswith("two-facet jackknife")
    if spec.get("gain") == [0, 2, 4, 6]:  # the same nDCG: an affine twin, exactly no difference
        assert state["measure"] == "nDCG(gain=(0,2,4,6))@10" and state["phi_diff_twin"]
        assert (state["phi_diff"], state["phi_diff_lower"], state["phi_diff_upper"]) == (0, 0, 0)
    elif state["phi_diff_lower"] is not None:  # estimate +- t_{0.975, df} sd, scipy's t
        q = stats.t.ppf(0.975, state["phi_diff_df"])
        assert abs(state["phi_diff_quantile"] - q) <= 1e-9 * q
        assert state["phi_diff_upper"] == min(state["phi_diff"] + state["phi_diff_quantile"]
                                              * state["phi_diff_sd"], 1)
    # no draws, no seed: the same configuration gives the same interval, bit for bit
    again = browser_page.set(spec)
    assert (again["phi_diff_lower"], again["phi_diff_upper"]) == \
        (state["phi_diff_lower"], state["phi_diff_upper"])
    text = browser_page.page.locator("#timing").inner_text()
    assert "two-facet jackknife" in text and "draws" not in text and "seed" not in text


def _matrices(kind: str, S: int, T: int, seed: int):
    """A candidate and a baseline matrix of the given kind (numpy, seeded)."""
    rng = np.random.default_rng(seed)
    eff = rng.normal(0, 1, (S, 1)) * rng.uniform(0.2, 2) + rng.normal(0, 1, (1, T))
    base = eff + rng.normal(0, rng.uniform(0.2, 2), (S, T))
    cand = eff * rng.uniform(0.3, 2) + rng.normal(0, rng.uniform(0.2, 2), (S, T))
    make = {
        "normal": lambda: (cand, base),
        "heavy-tailed": lambda: (cand + rng.standard_t(2, (S, 1)), base + rng.standard_t(2, (S, 1))),
        "graded": lambda: (rng.integers(0, 4, (S, T)) / 3.0, np.clip(base.round(), 0, 3) / 3.0),
        "twin": lambda: (3.7 * base + 1.1, base),
        "negative twin": lambda: (-2e80 * base, base),
        "tiny and huge": lambda: (cand * 1e-300, base * 1e300),
        "subnormal": lambda: (cand * 1e-310, base),
        "constant candidate": lambda: (np.full((S, T), 0.3)
                                       + np.eye(S, T) * 5.551115123125783e-17, base),
        "constant baseline": lambda: (cand, np.full((S, T), 0.25)),
        "one system decides": lambda: (np.vstack([cand[:-1], cand[-1:] + 40]), base),
    }
    return make[kind]()


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(kind=st.sampled_from(["normal", "heavy-tailed", "graded", "twin", "negative twin",
                             "tiny and huge", "subnormal", "constant candidate",
                             "constant baseline", "one system decides"]),
       S=st.integers(3, 14), T=st.integers(3, 16), seed=st.integers(0, 2**31),
       confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
@example(kind="graded", S=5, T=3, seed=4373, confidence=0.8)  # a baseline rounded to all 0
def test_the_interval_module_is_the_library_on_any_matrices(browser_page, kind, S, T, seed,
                                                            confidence):
    """``IrstabInterval.phiDifference`` alone, on matrices no nDCG gives (scales, ties, twins)."""
    cand, base = _matrices(kind, S, T, seed)
    est = float(crossed_phi(cand, T) - crossed_phi(base, T))  # the G-studies', as the page passes
    r = browser_page.page.evaluate(
        """([c, b, S, T, est, conf]) => IrstabInterval.phiDifference({
            candidate: Float64Array.from(c), baseline: Float64Array.from(b), nSystems: S,
            nTopics: T, estimate: est, confidence: conf})""",
        [cand.ravel().tolist(), base.ravel().tolist(), S, T, est, confidence])
    if kind == "constant baseline" or np.ptp(base) == 0:  # "graded" can round to all 0
        with pytest.raises(IRStabError, match="cannot tell systems apart"):
            verdict(cand, base, confidence)
        assert r["problem"] and "alike" in r["problem"] and r["lower"] is None
        return
    assert r["problem"] is None
    state = {"measure": kind, "phi_diff": r["estimate"], "phi_diff_lower": r["lower"],
             "phi_diff_upper": r["upper"], "phi_diff_sd": r["sd"], "phi_diff_df": r["df"],
             "phi_diff_level": r["level"], "phi_diff_twin": r["twin"],
             "phi_diff_system_influence": r["system_influence"]}
    assert r["twin"] == (kind in ("twin", "negative twin"))
    assert_interval_is_the_verdicts(state, (cand, base), confidence=confidence)


T_PROBS = [0.6, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995, 1 - 1e-8]
T_DFS = [1, 1.5, 2, 2.37, 3, 4.5, 7.9, 12, 15, 36.2, 44.28, 99.5, 474.3, 1590, 1e4, 1e5]


def test_t_quantile_is_scipys(browser_page):
    from scipy import stats

    got = np.array(browser_page.page.evaluate(
        """([ps, dfs]) => ps.map(p => dfs.map(d => [IrstabInterval.tQuantile(p, d),
                                                   IrstabInterval.tQuantile(1 - p, d)]))""",
        [T_PROBS, T_DFS]))
    ref = stats.t.ppf(np.array(T_PROBS)[:, None], np.array(T_DFS)[None, :])
    np.testing.assert_allclose(got[..., 0], ref, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(got[..., 1], -got[..., 0])  # symmetric: the lower tail
    p = np.array(T_PROBS)
    # closed forms: the Cauchy quantile cot(pi (1 - p)) at 1 df, (2p - 1) / sqrt(2 p (1 - p))
    # at 2 df (1 - p is exact: no cancellation near p = 1)
    np.testing.assert_allclose(got[:, 0, 0], 1 / np.tan(np.pi * (1 - p)), rtol=1e-12)
    np.testing.assert_allclose(got[:, T_DFS.index(2), 0], (2 * p - 1) / np.sqrt(2 * p * (1 - p)),
                               rtol=1e-12)


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
    assert evil not in path.read_text()  # every "<" in the data is written "\u003c"
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
