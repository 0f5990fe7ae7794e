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
def report_text(study, tmp_path_factory):
    """report.json as written by ``write_report`` (once for the module)."""
    return write_report(study, tmp_path_factory.mktemp("report")).json.read_text()


@pytest.fixture(scope="module")
def report(report_text):
    return json.loads(report_text)


def cand(report, measure):
    """The row of ``measure``: its own, or the row it was merged into."""
    (c,) = [c for c in report["candidates"]
            if measure in [c["measure"], *(a["measure"] for a in c["aliases"])]]
    return c


def close(a, b, tol=1e-12):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def test_candidates_are_the_presets_metrics_optima_and_reference(report):
    rows = [c["measure"] for c in report["candidates"]]
    names = [m for c in report["candidates"] for m in [c["measure"], *(a["measure"] for a in
                                                                       c["aliases"])]]
    canon = [str(irstab.parse_measure(m)) for m in preset_set(CUTOFFS) + metric_set(CUTOFFS)]
    assert set(canon) <= set(names)
    # rows keep the study's order: presets, metrics, then optima
    assert [m for m in rows if m in canon] == [m for m in canon if m in rows]
    assert len(set(names)) == len(names)
    fams = {c["family"] for c in report["candidates"]} | {
        a["family"] for c in report["candidates"] for a in c["aliases"]}
    assert {"preset", "metric", "optimal discount", "optimal gain", "optimal joint", "minimax",
            "reference"} <= fams
    assert cand(report, REFERENCE)["measure"] == REFERENCE  # the baseline represents its group
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
    fams = [c["family"], *(a["family"] for a in c["aliases"])]
    assert f"optimal {kind}" in fams
    g = gstudy(irstab.score_matrix(coll, res.measure_string))
    assert c["phi1"] == pytest.approx(g.phi(1), abs=1e-12)
    assert c["phi1"] == pytest.approx(res.phi1, abs=1e-9)


def test_minimax_equals_an_independent_run(report, coll):
    res = minimax(scenarios_by_cutoff(coll, CUTOFFS), starts=SETTINGS["starts"],
                  seed=SETTINGS["seed"], tol=SETTINGS["tol"], strict=False)
    assert close(report["minimax"]["value"], res.value)
    assert report["minimax"]["measure"] == res.measure_string
    # rows of the minimax configuration, also where it was merged into an identical optimum
    mm = [c for c in report["candidates"]
          if "minimax" in [c["family"], *(a["family"] for a in c["aliases"])]]
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
def test_kendall_tau_with_reference_equals_scipy(report, study, coll, measure):
    a = irstab.score_matrix(coll, measure).mean(axis=1)
    b = irstab.score_matrix(coll, REFERENCE).mean(axis=1)
    tau = kendalltau(a.to_numpy(), b.loc[a.index].to_numpy()).statistic
    assert cand(report, measure)["kendall_tau_baseline"] == pytest.approx(tau, abs=1e-12)
    full = study.to_dict(full=True)  # the measure-by-measure taus are in the full JSON
    rec = next(r for r in full["comparison"]["records"]
               if r["measure"] == cand(report, measure)["measure"])
    assert rec["kendall_tau"][REFERENCE] == pytest.approx(tau, abs=1e-12)


def test_recommendation_follows_the_rule(report, study):
    # the recommendation is decide() on the paired comparison, recomputed here: the nDCG
    # configurations are the simultaneous family, the other metrics get marginal intervals
    from irstab.verdict import decide, paired_comparison
    from irstab.verdict.paired import min_draws

    rows = [c for c in report["candidates"] if c["phi"] is not None]
    ndcg = [c["measure"] for c in rows if c["family"] != "metric" and c["measure"] != REFERENCE]
    # the verdict's draws: the study's B raised to what its candidates' tails need
    draws = report["settings"]["verdict_draws"]
    assert draws == max(SETTINGS["n_bootstrap"],
                        min_draws(len(ndcg), len(study.systems), interval="jackknife"))
    # optimised rows are judged on their cross-fitted (held-out) scores
    assert study.cross_fitted and set(study.cross_fitted) <= set(ndcg)
    scores = {m: study.cross_fitted.get(m, x) for m, x in study.scores.items()}
    paired = paired_comparison(scores, REFERENCE, candidates=ndcg,
                               n_bootstrap=draws, seed=SETTINGS["seed"])
    needed = {c["measure"]: (c["topics_needed_095_cross_fitted"]
                             if c["verdict_uses"] == "cross-fitted" else c["topics_needed_095"])
              for c in rows}
    v = decide(paired, {m: math.inf if n is None else n for m, n in needed.items()}, pool=ndcg)
    rec = report["recommendation"]
    assert rec["change"] == v.change and rec["measure"] == v.use
    assert rec["interval"] == "jackknife" == report["settings"]["interval"]
    assert rec["closest"] == list(v.closest)
    for c in rows:
        k = paired.index(c["measure"])
        assert c["phi_diff_ci"] == pytest.approx(
            [paired.phi_diff_lower[k], paired.phi_diff_upper[k]], abs=1e-12)
        kind = ("baseline" if c["measure"] == REFERENCE else
                "simultaneous" if c["measure"] in ndcg else "marginal")
        assert c["phi_diff_interval"] == kind
    for c in rows:  # the in-sample figure beside the cross-fitted one, said which is which
        if c["verdict_uses"] == "cross-fitted":
            assert c["phi_diff_cross_fitted"] == c["phi_diff"]
            assert c["phi_diff_in_sample"] is not None
        else:
            assert c["phi_diff_cross_fitted"] is None
    if v.change:
        assert rec["phi_diff_ci"][0] > 0
        assert rec["topics_needed_095"] <= 0.9 * rec["baseline_topics_needed_095"]
    else:
        assert rec["measure"] == REFERENCE and rec["text"].startswith(f"Keep {REFERENCE}")
    # the text names the interval method
    assert "two-facet jackknife of the G-study" in rec["text"]
    # the measure string is one that evaluate accepts
    assert irstab.parse_measure(rec["measure"]).canonical() == rec["measure"]
    assert rec["most_stable_overall"] == max(rows, key=lambda c: c["phi"])["measure"]


def test_identical_configurations_are_one_row(study, coll):
    # every alias scores the same on every cell as its row (to 1e-6 of the largest score, the
    # merge tolerance); no two rows do
    from irstab.report.candidates import SAME_RTOL

    merged = 0
    for c in study.candidates:
        for a in c.aliases:
            x = irstab.score_matrix(coll, a.measure).to_numpy()
            assert np.abs(x - study.scores[c.measure].to_numpy()).max() <= SAME_RTOL
            merged += 1
    assert merged >= 1  # the minimax optimum truncated at two cutoffs, at least
    rows = [study.scores[c.measure].to_numpy() for c in study.candidates]
    for i in range(len(rows)):
        for j in range(i):
            assert np.abs(rows[i] - rows[j]).max() > SAME_RTOL * 1e-3


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
    st = run_study(coll, (5,), starts=0, n_bootstrap=40, seed=1, tol=1e-3)
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
    # every figure of the plain-language text is the candidate's, formatted as shown
    rec = study.recommendation
    base = rec.baseline
    if rec.change:
        use = rec.use
        assert f"Phi = {use.phi:.3f} against {base.phi:.3f}" in rec.text
        assert f"[{use.phi_diff_lower:+.3f}, {use.phi_diff_upper:+.3f}]" in rec.text
        saved = int(base.topics_95 - use.topics_95)
        assert f"saves {saved} of {int(base.topics_95)} topics" in rec.text
    else:
        assert rec.text.startswith(f"Keep {REFERENCE}: no candidate is reliably more stable "
                                   f"with these {len(study.topics)} topics")
        assert f"it needs {int(base.topics_95)} topics for Phi = 0.95" in rec.text
    for c in rec.closest:
        assert f"[{c.phi_diff_lower:+.3f}, {c.phi_diff_upper:+.3f}]" in rec.text


def test_baseline_option(coll):
    st = run_study(coll, (5,), starts=0, n_bootstrap=50, seed=1, tol=1e-3, baseline="AP")
    assert st.baseline == "AP" and st.candidate("AP").phi_diff == 0.0
    assert st.candidate("AP").kendall_tau == pytest.approx(1.0)
    assert "Keep AP" in st.recommendation.text or "instead of AP" in st.recommendation.text
    with pytest.raises(IRStabError, match="baseline"):
        run_study(coll, (5,), starts=0, n_bootstrap=40, baseline="nDCG@x")


def test_report_json_is_slim_unless_full(study):
    slim, full = study.to_dict(), study.to_dict(full=True)
    assert all("asl" not in r and "pairs" not in r for r in slim["comparison"]["records"])
    assert all("asl" in r for r in full["comparison"]["records"])
    assert [r["n_significant"] for r in slim["comparison"]["records"]] == [
        r["n_significant"] for r in full["comparison"]["records"]]


def test_identical_systems_are_not_recommended_on(tmp_path):
    # Two runs with the same documents in the same order: sigma2_system = 0 for every
    # measure, so Phi = 0 everywhere; the study must refuse, not recommend "Phi = 0.000".
    # (Two systems are refused before the study: the verdict's jackknife leaves one out.)
    sim = irstab.simulate.simulate_collection(n_systems=2, n_topics=6, depth=20, seed=5)
    run = sim.runs[0]
    twin = type(run)(name="twin", path=run.path, tag="twin", frame=run.frame)
    coll = irstab.Collection.build(sim.qrels, [run, twin], depth=20)
    with pytest.raises(IRStabError, match="do not differ|at least 3 systems"):
        run_study(coll, (10,), starts=0, n_bootstrap=40)


def test_cutoff_beyond_the_longest_run_warns(coll):
    # coll's runs are 30 deep; a collection built to depth 40 accepts @40 but ranks 31-40 are empty
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=6, depth=30, seed=2)
    deep = irstab.Collection.build(sim.qrels, sim.runs, depth=40)
    st = run_study(deep, (10, 40), starts=0, n_bootstrap=40, tol=1e-3)
    assert any("exceed the longest run (30 documents)" in w for w in st.warnings)


def test_json_is_strict(report_text):
    # no NaN/Infinity tokens: report.json parses with a strict parser
    text = report_text

    def reject(token):
        raise AssertionError(f"non-standard JSON constant {token}")

    json.loads(text, parse_constant=reject)


def test_a_failed_write_leaves_no_new_file(study, tmp_path):
    # report.html is a directory: nothing may be written, not even report.json or figures
    (tmp_path / "report.html").mkdir()
    with pytest.raises(IRStabError, match="report.html"):
        write_report(study, tmp_path)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


@pytest.mark.filterwarnings("ignore::irstab.errors.IRStabWarning")
def test_report_recommends_a_change_away_from_an_unstable_baseline():
    # The change branch end to end: P(rel=3)@1 reads one rank and only the top grade, so on a
    # 20 x 40 simulated collection its Phi (0.623) is far below nDCG@10's family (~0.92); the
    # rule must recommend an nDCG configuration and the text must quote the interval and the
    # topics saved exactly as the table has them.
    sim = irstab.simulate.simulate_collection(n_systems=20, n_topics=40, depth=20, seed=11)
    c = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
    st = run_study(c, (10,), starts=0, n_bootstrap=200, seed=1, tol=1e-3,
                   baseline="P(rel=3)@1")
    rec = st.recommendation
    assert rec.change and rec.use.family != "metric" and rec.use.phi_diff_lower > 0
    base = st.candidate("P(rel=3)@1")
    saved = int(base.topics_95 - rec.use.topics_95_verdict)  # cross-fitted: what the rule read
    assert saved >= 0.1 * base.topics_95
    assert rec.text.startswith(f"Use {display_name(rec.use)}")
    assert "instead of P(rel=3)@1: it is reliably more stable with these 40 topics" in rec.text
    assert f"saves {saved} of {int(base.topics_95)} topics for Phi = 0.95" in rec.text
    assert st.to_dict()["recommendation"]["change"] is True


def test_err_scale_follows_the_qrels_when_grades_exceed_gdevals():
    # ERR@k is on gdeval's scale 0..4 (ir_measures); qrels graded beyond 4 would make its
    # stopping probability exceed 1 (an error), so the study takes the qrels' own scale
    assert "ERR@10" in metric_set([10]) and "ERR@10" in metric_set([10], 4)
    assert "ERR(max_grade=qrels)@10" in metric_set([10], 5)
    assert not any(m.startswith("ERR@") for m in metric_set([10, 20], 6))
