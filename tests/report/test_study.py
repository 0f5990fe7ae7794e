"""``run_study`` and ``report.json``: every number equals the library call that defines it.

Data: a seeded simulated collection (8 systems x 12 topics, grades 0-3, depth 30), studied
at cutoffs 5 and 20 (so the reference nDCG@10 is scored as an extra candidate). Each test
recomputes a representative set of numbers independently from ``irstab.score_matrix``,
``irstab.stability.gstudy``, ``irstab.optimizer``, ``irstab.compare`` and
``scipy.stats.kendalltau`` and compares them with ``report.json`` as written to disk.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import kendalltau

import irstab
from irstab.compare import discriminative_power
from irstab.errors import IRStabError
from irstab.optimizer import minimax, optimize, scenarios_by_cutoff
from irstab.report.render import write_report
from irstab.report.study import REFERENCE, display_name, metric_set, preset_set, run_study
from irstab.stability import gstudy

CUTOFFS = (5, 20)
SETTINGS = {"starts": 1, "n_bootstrap": 100, "seed": 3, "tol": 1e-3}


@pytest.fixture(scope="module")
def coll():
    sim = irstab.simulate.simulate_collection(n_systems=8, n_topics=12, depth=30, seed=11)
    return irstab.Collection.build(sim.qrels, sim.runs, depth=30)


@pytest.fixture(scope="module")
def study(coll):
    return run_study(coll, CUTOFFS, **SETTINGS)


@pytest.fixture(scope="module")
def report(study, tmp_path_factory):
    files = write_report(study, tmp_path_factory.mktemp("report"))
    return json.loads(files.json.read_text())


def cand(report, measure):
    (c,) = [c for c in report["candidates"] if c["measure"] == measure]
    return c


def close(a, b, tol=1e-12):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def test_candidates_are_the_presets_metrics_optima_and_reference(report):
    names = [c["measure"] for c in report["candidates"]]
    canon = [str(irstab.parse_measure(m)) for m in preset_set(CUTOFFS) + metric_set(CUTOFFS)]
    assert names[: len(canon)] == canon
    assert len(set(names)) == len(names)
    fams = {c["family"] for c in report["candidates"]}
    assert {"preset", "metric", "optimal discount", "optimal gain", "optimal joint", "minimax",
            "reference"} <= fams
    assert cand(report, REFERENCE)["family"] == "reference"  # 10 is not a study cutoff
    for m in ("AP", "GAP", "xGAP", "eGAP", "RBP(p=0.8)", "CRP.rho", "ERR@5",
              "DCG_UL(version=2)@20", "SP_UL(version=2)@5"):
        assert m in names


@pytest.mark.parametrize(
    "measure",
    ["nDCG@20", "nDCG(gain=exp,discount=zipf)@5", "AP", "GAP", "RBP(p=0.8)", "CRP.rho",
     "DCG_UL(version=2)@5", REFERENCE],
)
def test_gstudy_figures_equal_an_independent_gstudy(report, coll, measure):
    g = gstudy(irstab.score_matrix(coll, measure), name=measure)
    c = cand(report, measure)
    assert close(c["phi"], g.phi()) and close(c["phi1"], g.phi(1)) and close(c["erho2"], g.erho2())
    assert c["phi_ci"] == pytest.approx(list(g.phi_interval()), abs=1e-12)
    assert c["topics_needed_090"] == g.topics_needed(0.90).n
    assert c["topics_needed_095"] == g.topics_needed(0.95).n
    assert close(report["gstudies"][measure]["var_system"], g.var_system)


def test_phi_by_hand_for_ndcg_at_20(report, coll):
    # two-way ANOVA without replication, written out here
    x = irstab.score_matrix(coll, "nDCG@20").to_numpy()
    s, t = x.shape
    m = x.mean()
    ms_s = t * ((x.mean(1) - m) ** 2).sum() / (s - 1)
    ms_t = s * ((x.mean(0) - m) ** 2).sum() / (t - 1)
    res = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + m
    ms_e = (res**2).sum() / ((s - 1) * (t - 1))
    vs, vt, ve = max((ms_s - ms_e) / t, 0), max((ms_t - ms_e) / s, 0), ms_e
    phi = vs / (vs + (vt + ve) / t)
    assert cand(report, "nDCG@20")["phi"] == pytest.approx(phi, abs=1e-12)


@pytest.mark.parametrize("kind", ["discount", "gain", "joint"])
@pytest.mark.parametrize("k", CUTOFFS)
def test_optimizer_results_equal_an_independent_run(report, coll, kind, k):
    res = optimize(coll, k, vary=kind, starts=SETTINGS["starts"], seed=SETTINGS["seed"],
                   tol=SETTINGS["tol"], strict=False)
    (entry,) = [o for o in report["optima"] if o["kind"] == kind and o["cutoff"] == k]
    assert entry["measure"] == res.measure_string
    assert close(entry["phi1"], res.phi1) and close(entry["phi"], res.phi)
    assert entry["gain"] == list(res.gain) and entry["discount"] == list(res.discount)
    # the candidate of that optimum is the G-study of the evaluated measure string
    c = cand(report, str(irstab.parse_measure(res.measure_string)))
    assert c["family"] == f"optimal {kind}"
    g = gstudy(irstab.score_matrix(coll, res.measure_string))
    assert c["phi1"] == pytest.approx(g.phi(1), abs=1e-12)
    assert c["phi1"] == pytest.approx(res.phi1, abs=1e-9)


def test_minimax_equals_an_independent_run(report, coll):
    res = minimax(scenarios_by_cutoff(coll, CUTOFFS), starts=SETTINGS["starts"],
                  seed=SETTINGS["seed"], tol=SETTINGS["tol"], strict=False)
    assert close(report["minimax"]["value"], res.value)
    assert report["minimax"]["measure"] == res.measure_string
    mm = [c for c in report["candidates"] if c["family"] == "minimax"]
    assert {c["cutoff"] for c in mm} <= set(CUTOFFS) and mm
    assert min(c["phi1"] for c in mm) == pytest.approx(res.value, abs=1e-9)


def test_discriminative_power_equals_the_library(report, coll):
    measures = [REFERENCE, "AP", "nDCG(gain=exp)@20"]
    scores = {m: irstab.score_matrix(coll, m) for m in measures}
    dp = discriminative_power(scores, n_bootstrap=SETTINGS["n_bootstrap"], seed=SETTINGS["seed"])
    for i, m in enumerate(measures):
        c = cand(report, m)
        assert c["discriminative_power"] == pytest.approx(float(dp.discriminative_power[i]), abs=0)
        assert c["n_significant"] == int(dp.n_significant[i])


@pytest.mark.parametrize("measure", ["AP", "nDCG@20", "ERR@5", "SP_UL(version=2)@20"])
def test_kendall_tau_with_reference_equals_scipy(report, coll, measure):
    a = irstab.score_matrix(coll, measure).mean(axis=1)
    b = irstab.score_matrix(coll, REFERENCE).mean(axis=1)
    tau = kendalltau(a.to_numpy(), b.loc[a.index].to_numpy()).statistic
    assert cand(report, measure)["kendall_tau_reference"] == pytest.approx(tau, abs=1e-12)
    rec = next(r for r in report["comparison"]["records"] if r["measure"] == measure)
    assert rec["kendall_tau"][REFERENCE] == pytest.approx(tau, abs=1e-12)


def test_recommendation_is_the_most_stable_ndcg(report, study):
    ndcg = [c for c in report["candidates"] if c["family"] != "metric" and c["phi"] is not None]
    best = max(ndcg, key=lambda c: c["phi"])
    rec = report["recommendation"]
    assert rec["measure"] == best["measure"]
    assert rec["topics_needed_095"] == best["topics_needed_095"]
    assert rec["kendall_tau_reference"] == best["kendall_tau_reference"]
    assert display_name(study.candidate(rec["measure"])) in rec["text"] and REFERENCE in rec["text"]
    assert all(best["phi"] >= c["phi"] for c in ndcg)
    assert best["phi"] >= cand(report, REFERENCE)["phi"]
    assert rec["most_stable_overall"] == max(
        (c for c in report["candidates"] if c["phi"] is not None), key=lambda c: c["phi"]
    )["measure"]
    # the measure string is one that evaluate accepts
    assert irstab.parse_measure(rec["measure"]).canonical() == rec["measure"]


def test_json_is_the_study_to_dict(report, study, coll):
    from irstab.report.render import to_json

    assert report == json.loads(to_json(study.to_dict()))
    assert report["collection"]["n_systems"] == 8 and report["collection"]["n_topics"] == 12
    assert report["settings"]["seed"] == 3 and report["cutoffs"] == list(CUTOFFS)
    for c, obj in zip(report["candidates"], study.candidates, strict=True):
        assert c["measure"] == obj.measure
    for m in ("AP", "nDCG@20"):
        mean = float(np.mean(irstab.score_matrix(coll, m).to_numpy()))
        assert cand(report, m)["mean"] == pytest.approx(mean, abs=1e-12)


def test_single_cutoff_has_no_minimax(coll):
    st = run_study(coll, (5,), starts=0, n_bootstrap=20, seed=1, tol=1e-3)
    assert st.minimax is None and st.to_dict()["minimax"] is None
    assert [k for _, k, _ in st.optima] == [5, 5, 5]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"cutoffs": (5, 50)}, "cutoffs"),
        ({"cutoffs": (5, 5)}, "distinct"),
        ({"cutoffs": ()}, "cutoffs"),
        ({"cutoffs": ("a",)}, "cutoffs"),
        ({"cutoffs": (5,), "starts": -1}, "starts"),
        ({"cutoffs": (5,), "n_bootstrap": 0}, "n_bootstrap"),
        ({"cutoffs": (5,), "alpha": 1.5}, "alpha"),
        ({"cutoffs": (5,), "seed": None}, "seed"),
    ],
)
def test_bad_arguments_name_the_parameter(coll, kwargs, needle):
    with pytest.raises(IRStabError, match=needle):
        run_study(coll, **kwargs)


def test_not_a_collection():
    with pytest.raises(IRStabError, match="collection"):
        run_study("qrels.txt")


def test_recommendation_text_quotes_the_table(study):
    # Every figure in the plain-language text is the candidate's, formatted as shown.
    rec = study.recommendation
    best, ref = rec.best, rec.reference
    for figure in (f"Phi = {best.phi:.3f}", f"plain {REFERENCE}: {ref.phi:.3f}",
                   f"Kendall tau = {best.kendall_tau:.3f}",
                   f"{best.discriminative_power:.0%} of system pairs"):
        assert figure in rec.text
    for n in (best.topics_90, best.topics_95, ref.topics_90, ref.topics_95):
        assert f"{int(n)} topics" in rec.text
    # the interval sentence appears exactly when the reference's Phi lies inside it
    inside = best.measure != ref.measure and best.phi_lower <= ref.phi
    sentence = f"{REFERENCE}'s Phi ({ref.phi:.3f}) lies inside the 95 % interval"
    assert (sentence in rec.text) == inside
    assert "nearly as dependable" not in rec.text


def test_identical_systems_are_not_recommended_on(tmp_path):
    # Two runs with the same documents in the same order: sigma2_system = 0 for every
    # measure, so Phi = 0 everywhere; the study must refuse, not recommend "Phi = 0.000".
    sim = irstab.simulate.simulate_collection(n_systems=2, n_topics=6, depth=20, seed=5)
    run = sim.runs[0]
    twin = type(run)(name="twin", path=run.path, tag="twin", frame=run.frame)
    coll = irstab.Collection.build(sim.qrels, [run, twin], depth=20)
    with pytest.raises(IRStabError, match="do not differ"):
        run_study(coll, (10,), starts=0, n_bootstrap=20)


def test_cutoff_beyond_the_longest_run_warns(coll):
    # coll's runs are 30 deep; a collection built to depth 40 accepts @40 but ranks 31-40 are empty
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=6, depth=30, seed=2)
    deep = irstab.Collection.build(sim.qrels, sim.runs, depth=40)
    st = run_study(deep, (10, 40), starts=0, n_bootstrap=20, tol=1e-3)
    assert any("exceed the longest run (30 documents)" in w for w in st.warnings)


def test_json_is_strict(report, study, tmp_path):
    # no NaN/Infinity tokens: report.json parses with a strict parser
    text = write_report(study, tmp_path).json.read_text()

    def reject(token):
        raise AssertionError(f"non-standard JSON constant {token}")

    json.loads(text, parse_constant=reject)


def test_a_failed_write_leaves_no_new_file(study, tmp_path):
    # report.html is a directory: nothing may be written, not even report.json or figures
    (tmp_path / "report.html").mkdir()
    with pytest.raises(IRStabError, match="report.html"):
        write_report(study, tmp_path)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
