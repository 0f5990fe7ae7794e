"""`irstab.trust.card.calibrate_collection`: error rates of the tests, verdict and topics
needed on collections simulated like the user's.

Oracles: the t-test's nominal level where theory gives it (normal scores: the differences
of two systems sharing a margin under an exchangeable Gaussian copula are symmetric, so
the paired t-test is at its level); the published pattern on TREC data (Urbano, Lima &
Hanjalic, SIGIR 2019: the t-test near nominal on real collections) for DL-2019; the
per-collection tests of irstab.systems.significance (themselves checked against scipy,
statsmodels and ranx) for the batched entry point; irstab.gstudy for the vectorised
G-studies; the planted truths of the simulator (to 1e-9).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from irstab.cli import main
from irstab.systems.significance import batched_p_values, run_test
from irstab.trust.card import calibrate_collection
from irstab.trust.checks import _gstudy_needed
from irstab.trust.paired_tests import (
    CORRECTIONS, PAIRED_TESTS, _layout, _levels, default_replicates,
)
from irstab.trust.result import cluster_rate
from irstab.errors import IRStabError
from irstab.simulate import fit_collection
from irstab.stability import gstudy

DL = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec-dl-2019-passage"
TESTS = ("t", "permutation", "bootstrap", "wilcoxon", "sign", "tukey")


def normal_scores(S=30, T=30, seed=0):
    """Normal random-effects scores, far enough from 0 and 1 that nothing is clipped."""
    rng = np.random.default_rng(seed)
    x = 0.5 + rng.normal(0, 0.04, (S, 1)) + rng.normal(0, 0.08, (1, T)) \
        + rng.normal(0, 0.08, (S, T))
    assert ((x > 0) & (x < 1)).all()
    return pd.DataFrame(x, index=[f"s{i:02d}" for i in range(S)],
                        columns=[f"t{j:02d}" for j in range(T)])


@pytest.fixture(scope="module")
def normal_card():
    return calibrate_collection(normal_scores(), n_replicates=240, n_resamples=200,
                                verdict_replicates=0, gtheory_replicates=200,
                                fit_collections=0, seed=3)


def test_t_test_at_its_nominal_level_on_normal_scores(normal_card):
    row = normal_card.row("t")
    # 240 collections x 5 null pairs: binomial error sqrt(.05 * .95 / 1200) = 0.0063
    assert row.n_null == 240 * 5
    assert 0.0 < row.type_i_se < 0.012
    assert abs(row.type_i - 0.05) <= 3 * row.type_i_se, (row.type_i, row.type_i_se)
    # and corrections only lower it: Holm <= BH <= none on the same p-values
    assert normal_card.row("t", "holm").type_i <= normal_card.row("t", "bh").type_i \
        <= row.type_i


def test_power_grows_with_delta_and_wrong_signs_are_rare(normal_card):
    row = normal_card.row("t")
    powers = [row.power[k][0] for k in ("0.01", "0.02", "0.05")]
    assert powers == sorted(powers) and powers[-1] > powers[0] + 0.3
    for k in ("0.01", "0.02", "0.05"):
        rate, se = row.type_iii[k]
        assert rate <= row.type_i / 2 + 3 * se  # a wrong sign needs a type I error's tail


def test_every_test_with_every_correction_and_tukey(normal_card):
    keys = {(r.test, r.correction) for r in normal_card.tests}
    expected = {(t.value, c.value) for t in PAIRED_TESTS for c in CORRECTIONS} | {
        ("tukey", "none")}
    assert keys == expected
    text = " ".join(normal_card.card())
    for name in ("t-test", "permutation test", "bootstrap test", "Wilcoxon test", "sign test",
                 "Tukey HSD", "Holm", "Benjamini-Hochberg"):
        assert name in text


def test_json_shape(normal_card):
    d = json.loads(json.dumps(normal_card.to_dict()))
    assert set(d) >= {"model", "fit", "tests", "verdict", "topics_needed"}
    row = d["tests"][0]
    assert set(row) >= {"test", "correction", "alpha", "n_topics", "type_i", "type_i_se",
                        "power", "type_iii"}
    assert row["test"] in TESTS and row["correction"] in ("none", "holm", "bh")
    assert set(row["power"]) == {"0.01", "0.02", "0.05"} == set(row["type_iii"])
    assert row["n_topics"] == 30 and row["alpha"] == 0.05
    assert d["verdict"] is None  # left out with verdict_replicates=0


def test_topics_needed_reach_the_true_phi_on_average(normal_card):
    t = normal_card.topics_needed
    # the G-theory model's truth is the collection's G-study (tested in tests/simulate)
    g = gstudy(normal_scores())
    assert t.true_needed == g.topics_needed(0.95).n
    d = t.to_dict()
    assert 0.0 <= d["reaches_target"] <= 1.0
    assert d["phi_reached_q05"] <= d["phi_reached_median"] <= 1.0


def test_vectorised_gstudies_equal_irstab_gstudy():
    rng = np.random.default_rng(5)
    x = rng.beta(2, 3, (6, 7, 12)) + rng.normal(0, 0.1, (6, 7, 1))
    x[0] = 0.3 + 0.0 * x[0] + rng.normal(0, 1e-3, (7, 12))  # a nearly flat collection too
    got = _gstudy_needed(x, 0.95)
    want = [gstudy(xr).topics_needed(0.95).n for xr in x]
    np.testing.assert_array_equal(got, want)


def test_batched_p_values_equal_one_collection_at_a_time():
    rng = np.random.default_rng(2)
    x = rng.beta(2, 3, (3, 5, 20))
    I, J = np.triu_indices(5, 1)
    for test in TESTS:
        got = batched_p_values(test, x, I, J, n_resamples=300, seed=7)
        # the same resamples for every collection of the call, so one seed reproduces each
        want = np.stack([run_test(test, xr, I, J, n_resamples=300, seed=7).p_value
                         for xr in x])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=test)


def test_planted_layout_has_its_truths():
    model = fit_collection(normal_scores(12, 20))
    levels = _levels((0.01, 0.02, 0.05))
    planted, a, b, truth, level = _layout(model, levels, 1, np.random.default_rng(0))
    assert len(a) == 4 and len(set(a) | set(b)) == 8  # disjoint pairs
    diff = planted.means[a] - planted.means[b]
    np.testing.assert_allclose(diff, truth, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(np.abs(truth), level)
    assert (level == 0).sum() == 2  # levels cycle 0, d1, 0, d2, ... from the shift


def test_cluster_rate_closed_form():
    # p = 6/30; deviations (1-2, 2-2, 3-2) = (-1, 0, 1); se = sqrt(3/2 * 2) / 30
    p, se = cluster_rate([1, 2, 3], [10, 10, 10])
    assert p == pytest.approx(0.2) and se == pytest.approx(math.sqrt(3.0) / 30)
    assert cluster_rate([2, 2], [10, 10])[1] == 0.0
    assert all(math.isnan(v) for v in cluster_rate([0], [0]))


def test_default_replicates_aim_at_0005():
    for S in (2, 7, 12, 37, 100):
        R = default_replicates(S)
        nulls = R * max(1, S // 3) / 2
        assert math.sqrt(0.05 * 0.95 / nulls) <= 0.005 + 1e-12
        assert R % 10 == 0


@pytest.mark.parametrize("kwargs, name", [
    (dict(alpha=1.5), "alpha"), (dict(alpha=[]), "alpha"), (dict(deltas=[0.0]), "delta"),
    (dict(deltas=[float("nan")]), "delta"), (dict(n_topics=1), "n_topics"),
    (dict(n_replicates=0), "n_replicates"), (dict(n_resamples=0), "n_resamples"),
    (dict(target=1.0), "target"), (dict(copula="t"), "copula"),
])
def test_bad_parameters_are_named(kwargs, name):
    with pytest.raises(IRStabError, match=name):
        calibrate_collection(normal_scores(6, 10), **kwargs)


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True).filter(lambda v: not v > 0
                                                                       or math.isinf(v)),
                 st.text(max_size=3), st.booleans()))
def test_garbage_deltas_are_refused(delta):
    with pytest.raises(IRStabError, match="delta"):
        calibrate_collection(normal_scores(6, 10), deltas=[delta])


def test_bad_scores_are_named():
    x = normal_scores(6, 10)
    x.iloc[2, 3] = np.nan
    with pytest.raises(IRStabError):
        calibrate_collection(x)
    with pytest.raises(IRStabError, match="topic"):
        calibrate_collection(normal_scores(6, 5))


# ---------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def score_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("calibrate") / "nDCG@10.csv"
    normal_scores(9, 16, seed=4).rename_axis("system").to_csv(path)
    return path


def test_cli_json(score_file, capsys):
    code = main(["calibrate", "--scores", str(score_file), "-R", "20", "-B", "100",
                 "--verdict-replicates", "20", "--delta", "0.03", "--alpha", "0.01,0.05",
                 "-f", "json"])
    out = capsys.readouterr().out
    assert code == 0
    d = json.loads(out)
    assert d["model"]["measure"] == "nDCG@10" and d["model"]["n_topics"] == 16
    assert {r["alpha"] for r in d["tests"]} == {0.01, 0.05}
    assert len(d["tests"]) == 2 * 16 and set(d["tests"][0]["power"]) == {"0.03"}
    assert set(d["verdict"]) >= {"coverage", "coverage_se", "wrong_change", "power"}
    assert d["fit"]["statistics"][0]["statistic"] == "mean"


def test_cli_table_and_csv(score_file, capsys, tmp_path):
    code = main(["calibrate", "--scores", str(score_file), "-R", "10", "-B", "50",
                 "--verdict-replicates", "0", "--topics", "25"])
    out = capsys.readouterr().out
    assert code == 0 and "At 25 topics and alpha 0.05" in out and "tukey" in out
    target = tmp_path / "card.csv"
    assert main(["calibrate", "--scores", str(score_file), "-R", "10", "-B", "50",
                 "--verdict-replicates", "0", "-f", "csv", "-o", str(target)]) == 0
    frame = pd.read_csv(target)
    assert len(frame) == 16 and {"type_i", "type_i_se", "power_at_delta_0.02"} <= set(frame.columns)


@pytest.mark.parametrize("args, message", [
    (["--alpha", "1.5"], "alpha"),
    (["--delta", "-0.1"], "delta"),
    (["--copula", "clayton"], "copula"),
])
def test_cli_bad_input(score_file, capsys, args, message):
    code = main(["calibrate", "--scores", str(score_file), "-R", "10", *args])
    err = capsys.readouterr().err
    assert code != 0 and message in err and "Traceback" not in err


def test_cli_two_measures_and_bad_matrix(tmp_path, capsys):
    bad = tmp_path / "AP.csv"
    bad.write_text("system,t1,t2\na,0.1,x\n")
    code = main(["calibrate", "--scores", str(bad)])
    err = capsys.readouterr().err
    assert code == 1 and "AP.csv" in err and "Traceback" not in err
    qrels = Path(__file__).resolve().parents[2] / "data" / "example" / "qrels.txt"
    code = main(["calibrate", str(qrels), str(qrels.parent / "runs"), "-m", "nDCG@10,AP"])
    err = capsys.readouterr().err
    assert code == 1 and "one measure" in err


# ---------------------------------------------------------------- cluster and real data


def test_on_a_dask_cluster_the_same_numbers(score_file):
    distributed = pytest.importorskip("distributed")
    x = pd.read_csv(score_file, index_col=0)
    kw = dict(n_replicates=30, n_resamples=100, block_size=10, verdict_replicates=0,
              gtheory_replicates=50, fit_collections=0, seed=9)
    local = calibrate_collection(x, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as lc, distributed.Client(lc) as c:
        remote = calibrate_collection(x, client=c, **kw)
    pd.testing.assert_frame_equal(local.to_frame(), remote.to_frame())


@pytest.mark.skipif(not (DL / "qrels.txt").is_file(), reason="DL-2019 data not present")
def test_dl2019_ndcg10_t_test_type_i_at_43_topics():
    import irstab

    coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
    x = irstab.score_matrix(coll, "nDCG@10")
    card = calibrate_collection(x, measure="nDCG@10", verdict_replicates=0,
                                gtheory_replicates=200, fit_collections=0, seed=0)
    row = card.row("t")
    assert card.n_topics == 43 and row.n_topics == 43
    assert 0.03 <= row.type_i <= 0.07, (row.type_i, row.type_i_se)
    assert row.type_i_se < 0.01
    assert {(r.test, r.correction) for r in card.tests} >= {
        (t, c) for t in TESTS[:5] for c in ("none", "holm", "bh")} | {("tukey", "none")}
