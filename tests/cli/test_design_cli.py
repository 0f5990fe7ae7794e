"""``irstab design power|budget``: outputs in every format equal the library's numbers, the
figures are written, bad input is one line on stderr with exit code 1 and no output file."""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

import irstab.cli
from irstab.design import budget_plan, depth_study, power_study
from irstab.evaluation import score_runs

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
QRELS, RUNS = EXAMPLE / "qrels.txt", EXAMPLE / "runs"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = irstab.cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_power_json_equals_the_library():
    code, out, err = run("design", "power", QRELS, RUNS, "-m", "nDCG@10", "-m", "AP",
                         "--min-diff", "0.08", "-f", "json")
    assert code == 0, err
    got = json.loads(out)["plans"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mats = score_runs(QRELS, RUNS, ["nDCG@10", "AP"]).matrices()
    want = power_study(mats, min_diff=0.08).to_dict()["plans"]
    assert [g["measure"] for g in got] == ["nDCG@10", "AP"]
    for g, w in zip(got, want):
        for key in ("variance", "topics_ttest", "topics_anova", "topics_ci", "mdd_ttest"):
            assert g[key] == pytest.approx(w[key], rel=1e-12), key


def test_power_table_csv_pairs_and_figure(tmp_path):
    fig = tmp_path / "topics.png"
    code, out, err = run("design", "power", QRELS, RUNS, "-m", "nDCG@10", "--figure", fig)
    assert code == 0, err
    assert "t-test D=0.05" in out and "nDCG@10" in out and fig.stat().st_size > 10_000
    code, out, _ = run("design", "power", QRELS, RUNS, "-m", "AP", "-f", "csv", "--method",
                       "sakai")
    frame = pd.read_csv(io.StringIO(out))
    assert frame.loc[0, "method"] == "sakai" and frame.loc[0, "topics_ttest"] >= 2
    code, out, _ = run("design", "power", QRELS, RUNS, "-m", "AP", "--pairs", "-f", "tsv")
    pairs = pd.read_csv(io.StringIO(out), sep="\t")
    assert len(pairs) == 12 * 11 // 2  # 12 systems
    assert pairs["achieved_power"].between(0, 1).all()


def test_power_from_a_score_matrix(tmp_path):
    scores = tmp_path / "ap.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mat = score_runs(QRELS, RUNS, ["AP"]).matrices()["AP"]
    mat.to_csv(scores)
    code, out, err = run("design", "power", "--scores", scores, "--n-systems", "4", "-f", "json")
    assert code == 0, err
    plan = json.loads(out)["plans"][0]
    assert plan["measure"] == "ap" and plan["m"] == 4
    assert plan["topics_anova"] == power_study({"ap": mat}, m=4).plans[0].topics_anova


def test_budget_table_json_frontier_and_figure(tmp_path):
    fig = tmp_path / "budget.png"
    code, out, err = run("design", "budget", QRELS, RUNS, "-m", "nDCG@10", "--depths",
                         "5,10,20", "--figure", fig, "--cost-per-topic", "5")
    assert code == 0, err
    assert "# chosen (*):" in out and "# this collection: 30 topics" in out
    assert fig.stat().st_size > 10_000
    code, out, err = run("design", "budget", QRELS, RUNS, "-m", "nDCG@10", "--depths",
                         "5,10,20", "--cost-per-topic", "5", "-f", "json")
    got = json.loads(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = depth_study(QRELS, RUNS, ["nDCG@10"], (5, 10, 20))
    want = budget_plan(study, "nDCG@10", cost_per_topic=5)
    assert got["plans"][0]["chosen"]["n_topics"] == want.chosen["n_topics"]
    assert got["plans"][0]["chosen"]["depth"] == want.chosen["depth"]
    assert got["depth_study"]["judgments"] == study.judgments
    code, out, _ = run("design", "budget", QRELS, RUNS, "--depths", "5,10", "--frontier",
                       "-f", "csv")
    fr = pd.read_csv(io.StringIO(out))
    assert {"budget", "depth", "n_topics", "phi", "mdd", "measure"} <= set(fr.columns)


def test_budget_with_assessor_qrels(dl2019_dir, tmp_path):
    judges = dl2019_dir.parent / "trec-dl-2019-reannotation" / "main"
    if not judges.is_dir():
        pytest.skip("re-annotation data not found")
    code, out, err = run("design", "budget", dl2019_dir / "qrels.txt", dl2019_dir / "runs",
                         "-a", judges, "--depths", "5,10", "--cost-per-topic", "1000",
                         "-f", "json")
    assert code == 0, err
    designs = json.loads(out)["plans"][0]["designs"]
    assert sorted({d["n_assessors"] for d in designs}) == [1, 2, 3]


@pytest.fixture(scope="module")
def cheap_qrels(tmp_path_factory):
    """The example's qrels with every grade moved by U{-1, 0, 1} (seeded), clipped to 0-3."""
    rng = np.random.default_rng(0)
    q = pd.read_csv(QRELS, sep=r"\s+", header=None, names=["t", "z", "d", "g"], dtype=str)
    q["g"] = np.clip(q["g"].astype(int).to_numpy() + rng.integers(-1, 2, len(q)), 0, 3)
    p = tmp_path_factory.mktemp("cheap") / "llm-qrels.txt"
    q.to_csv(p, sep=" ", header=False, index=False)
    return p


def test_budget_with_a_cheap_judge_equals_the_library(cheap_qrels):
    from irstab.design.cheap import pilot_plans

    code, out, err = run("design", "budget", QRELS, RUNS, "-m", "nDCG@10", "--depths", "5,10",
                         "--cheap-qrels", cheap_qrels, "--objective", "mdd", "--cheap-cost",
                         "0.05", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    (c,) = got["cheap"]
    want = pilot_plans(QRELS, cheap_qrels, RUNS, ["nDCG@10"], cheap_cost=0.05,
                       budget=got["plans"][0]["budget"], objective="width")[0]
    assert c["chosen"]["n_gold"] == want.n_gold and c["chosen"]["n_topics"] == want.n_topics
    assert c["chosen"]["half_width"] == pytest.approx(want.half_width, rel=1e-12)
    assert c["chosen"]["cost"] <= got["plans"][0]["budget"]
    # the noisy judge still correlates: it beats gold only at the same budget
    assert c["chosen"]["half_width"] < c["gold_only"]["half_width"]
    code, out, err = run("design", "budget", QRELS, RUNS, "--depths", "5,10", "--cheap-qrels",
                         cheap_qrels, "--cheap-width", "0.03")
    assert code == 0, err
    assert "# cheap judge llm-qrels.txt (0.01 per label), nDCG@10, least cost for half-width " \
        "0.03:" in out


@pytest.mark.parametrize("argv,message", [
    (["budget", QRELS, RUNS, "--cheap-width", "0.1"], "--cheap-width: needs --cheap-qrels"),
    (["budget", QRELS, RUNS, "--cheap-qrels", "absent.txt"], "--cheap-qrels"),
    (["budget", QRELS, RUNS, "--cheap-qrels", QRELS, "--cheap-cost", "-1"], "--cheap-cost"),
    (["budget", QRELS, RUNS, "--cheap-qrels", QRELS, "--cheap-width", "0"], "--cheap-width"),
    (["power", QRELS, RUNS, "-m", "AP", "--alpha", "1.5"], "alpha"),
    (["power", QRELS, RUNS, "-m", "AP", "--min-diff", "0"], "min_diff"),
    (["power", QRELS, RUNS, "-m", "AP", "--figure", "x.nope"], "unsupported figure format"),
    (["budget", QRELS, RUNS, "--depths", "0,5"], "--depths"),
    (["budget", QRELS, RUNS, "--max-assessors", "2"], "--assessor-qrels"),
    (["budget", QRELS, RUNS, "--budget", "-3"], "--budget"),
    (["budget", QRELS, RUNS, "--budget", "20"], "budget"),
    (["budget", QRELS, RUNS, "--objective", "tau"], "--objective"),
    (["budget", QRELS, RUNS, "--depths", "5000"], "depths"),
])
def test_bad_input_is_one_line_and_exit_1(tmp_path, argv, message):
    # (a value outside an option's choices or range is click's usage error: test below)
    target = tmp_path / "out.txt"
    code, out, err = run("design", *argv, "-o", target)
    assert code == 1, (out, err)
    assert err.startswith("irstab: error:") and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not target.exists()


@pytest.mark.parametrize("argv, message", [
    (["budget", QRELS, RUNS, "-m", "nDCG@10", "--budget", "1e308", "--cost-per-topic", "1e-308"],
     "budget: 1e+308 judgments pay for "),
    (["power", QRELS, RUNS, "-m", "AP", "--half-width", "1e-300"],
     "half_width: 1e-300 needs more than 10,000,000 topics for the paired interval"),
    (["power", QRELS, RUNS, "-m", "AP", "--min-diff", "1e-200"],
     "min_diff: 1e-200 needs more than 10,000,000 topics for the paired t-test"),
    (["power", QRELS, RUNS, "-m", "AP", "--n-systems", "100000000000000", "-f", "csv"],
     "m (the systems the ANOVA compares): the one-way ANOVA over 100,000,000,000,000 systems"),
    (["power", QRELS, RUNS, "-m", "AP", "--beta", "0.95"],
     "beta: the power asked for, 1 - beta = 0.05, is not above alpha = 0.05"),
    # min_diff / 2, the default half_width, is 0.0: it was reported as a half_width problem
    (["power", QRELS, RUNS, "-m", "AP", "--min-diff", "5e-324"],
     "min_diff: 4.94066e-324 needs more than 10,000,000 topics for the paired t-test"),
    (["power", QRELS, RUNS, "-m", "AP", "--alpha", "5e-324", "--method", "sakai"],
     "alpha: 5e-324 is subnormal in floating point (below 2.225e-308)"),
])
def test_extreme_requirements_are_one_named_error_without_numpy_warnings(tmp_path, argv, message):
    # before: numpy's "divide by zero" / "invalid value" warnings, then inf counts, "power
    # 100%" or "power 5%" printed as a plan
    target = tmp_path / "out.txt"
    code, out, err = run("design", *argv, "-o", target)
    assert code == 1 and out == "" and not target.exists()
    lines = err.splitlines()
    assert lines[-1].startswith("irstab: error: " + message)
    assert not any("encountered" in ln for ln in lines)
    assert all(ln.startswith(("irstab: warning: ", "irstab: error: ")) for ln in lines)
    assert "inf" not in lines[-1].split()


def test_a_tiny_beta_is_shown_and_computed():
    # 1 - 1e-20 is 1.0 in floating point: before, "power 100%" and saturated counts; the
    # counts equal the library's (whose oracle is tests/design/test_design_numerics.py)
    code, out, err = run("design", "power", QRELS, RUNS, "-m", "AP", "--beta", "1e-20")
    assert code == 0, err
    assert "(alpha 0.05, power 1 - 1e-20, exact)" in out and "100%" not in out
    code, out, err = run("design", "power", QRELS, RUNS, "-m", "AP", "--beta", "1e-20", "-f",
                         "json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mats = score_runs(QRELS, RUNS, ["AP"]).matrices()
    want = power_study(mats, beta=1e-20).to_dict()["plans"][0]
    got = json.loads(out)["plans"][0]
    assert got["topics_ttest"] == want["topics_ttest"] > power_study(mats, beta=1e-16).plans[0].topics_ttest


@pytest.mark.parametrize("method", ["exact", "sakai"])
@pytest.mark.parametrize("alpha", ["1e-20", "1e-300"])
def test_a_tiny_alpha_gives_counts_without_numpy_warnings(tmp_path, method, alpha):
    # 1 - alpha/2 is 1.0 below 1.1e-16: before, "min_diff: 0.05 needs more than 10,000,000
    # topics ... the smallest usable min_diff is 1.043e+57" and, with sakai, numpy's "invalid
    # value" warnings; the counts equal the library's (oracle: tests/design/test_power_tiny_alpha.py)
    rng = np.random.default_rng(1)
    x = rng.random((8, 20)) * 0.5 + rng.random((8, 1)) * 0.3
    frame = pd.DataFrame(x, index=[f"s{i}" for i in range(8)],
                         columns=[f"t{j}" for j in range(20)]).rename_axis("system")
    frame.to_csv(tmp_path / "base.csv")
    code, out, err = run("design", "power", "-s", tmp_path / "base.csv", "--alpha", alpha,
                         "--method", method, "-f", "json")
    assert code == 0 and err == "", err
    got = json.loads(out)["plans"][0]
    want = power_study({"base": frame}, alpha=float(alpha), method=method).plans[0]
    assert got["topics_ttest"] == want.topics_ttest
    # the normal closed form brackets the t-test's count: (z_a/2 + z_b)^2 sigma_d^2 / D^2 <= n
    # <= that + z_a/2^2 / 2 + 3 (Sakai's correction for the t's heavier tails)
    za, zb = -special.ndtri(float(alpha) / 2), -special.ndtri(0.2)
    normal = (za + zb) ** 2 * got["var_diff"] / 0.05**2
    assert normal <= got["topics_ttest"] <= normal + za**2 / 2 + 3


def test_constant_measure_is_left_out_with_a_warning():
    code, out, err = run("design", "power", QRELS, RUNS, "-m", "AP", "-m", "AP(rel=99)")
    assert code == 0
    assert "left out" in err and "AP(rel=99)" not in out.split("#")[0]


@pytest.mark.parametrize("argv,option", [
    (["power", QRELS, RUNS, "-m", "AP", "--method", "normal"], "--method"),
    (["power", QRELS, RUNS, "-m", "AP", "--n-systems", "1"], "--n-systems"),
    (["budget", QRELS, RUNS, "--depths", "five"], "--depths"),
])
def test_a_value_outside_the_choices_is_a_usage_error(argv, option):
    # the one grammar of every command (tests/cli/test_option_grammar.py): choices and
    # ranges are click's, exit 2 with the option named
    code, out, err = run("design", *argv)
    assert code == 2 and option in err and "Traceback" not in err


def test_budget_reads_measure_lists_in_every_spelling():
    # `-m ERR@10,P@5` is two measures as for every other command, and trec_eval's names are
    # accepted: the plans come back in the order given, under irstab's names
    code, out, err = run("design", "budget", QRELS, RUNS, "-m", "ERR@10,P_5", "--depths", "5,10",
                         "-f", "json")
    assert code == 0, err
    assert [p["measure"] for p in json.loads(out)["plans"]] == ["ERR@10", "P@5"]
