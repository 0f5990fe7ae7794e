"""Degenerate data and odd parameters on the command line: exit code, message, files.

Each test reproduces one case found by an audit of bad inputs (identical systems, a
preset under which the systems do not differ, no relevant document within the cutoff,
negative seeds, ...) from ``data/example`` (12 simulated runs x 30 topics, grades 0-3).
Expected numbers state their source next to them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irstab.cli.compare  # noqa: F401  (registers the commands)
import irstab.cli.optimize  # noqa: F401
import irstab.cli.report  # noqa: F401
import irstab.cli.stability  # noqa: F401
from irstab.cli import main

REPO = Path(__file__).resolve().parents[2]
D = REPO / "data" / "example"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _trec_eval_ndcg10(qrels: Path, run: Path) -> np.ndarray:
    """Per-topic nDCG@10 by trec_eval (pytrec_eval ``ndcg_cut_10``), in qrels topic order."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    q: dict[str, dict[str, int]] = {}
    for line in qrels.read_text().splitlines():
        t, _, d, g = line.split()
        q.setdefault(t, {})[d] = int(g)
    r: dict[str, dict[str, float]] = {}
    for line in run.read_text().splitlines():
        t, _, d, _, s, _ = line.split()
        r.setdefault(t, {})[d] = float(s)
    res = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut"}).evaluate(r)
    topics = [t for t in q if any(g > 0 for g in q[t].values())]
    return np.array([res.get(t, {}).get("ndcg_cut_10", 0.0) for t in topics])


# ----------------------------------------------------------------- identical systems


@pytest.fixture()
def identical_runs(tmp_path):
    """Four copies of sim01 under four names (the audit's case)."""
    runs = tmp_path / "id"
    runs.mkdir()
    text = (D / "runs" / "sim01").read_text()
    for i in range(1, 5):
        (runs / f"c{i}").write_text(text.replace(" sim01\n", f" c{i}\n"))
    return runs


def test_identical_systems_have_zero_erho2_and_phi(identical_runs, capsys):
    code, out, err = run(capsys, "stability", D / "qrels.txt", identical_runs,
                         "-m", "nDCG@10", "-m", "P@10", "-f", "json")
    assert code == 0
    rows = {r["measure"]: r for r in json.loads(out)}
    for m in ("nDCG@10", "P@10"):
        r = rows[m]
        # Identical rows: SS_sys = SS_res = 0 in exact arithmetic, so sigma2_sys = 0 and
        # Erho2 = Phi = 0 by the documented convention (not 0.963 from rounding noise).
        assert r["var_system"] == 0 and r["var_residual"] == 0
        assert r["erho2"] == 0 and r["phi"] == 0
        assert r["erho2_ci"] == [0, 0] and r["phi_ci"] == [0, 0]
        assert r["topics_needed_phi"] is None and r["topics_needed_erho2"] is None
        assert f"{m}: all systems have the same score on every topic" in err
    assert "negative variance" not in err
    # sigma2_topic = MS_topic / n_s = the sample variance (ddof 1) of the one row; the row is
    # sim01's per-topic nDCG@10 by trec_eval.
    expected = np.var(_trec_eval_ndcg10(D / "qrels.txt", D / "runs" / "sim01"), ddof=1)
    assert rows["nDCG@10"]["var_topic"] == pytest.approx(expected, rel=1e-9)


def test_identical_rows_of_a_score_file(tmp_path, capsys):
    """``--scores`` with identical rows: Phi CI [0, 0], no 'negative variance' of noise."""
    row = np.random.default_rng(0).random(30)
    frame = pd.DataFrame([row] * 3, index=pd.Index(["a", "b", "c"], name="system"),
                         columns=[f"t{i}" for i in range(30)])
    path = tmp_path / "same.csv"
    frame.to_csv(path)
    code, out, err = run(capsys, "stability", "--scores", path, "-f", "json")
    assert code == 0
    (r,) = json.loads(out)
    assert r["phi"] == 0 and r["phi_ci"] == [0, 0] and r["erho2_ci"] == [0, 0]
    assert r["var_topic"] == pytest.approx(np.var(row, ddof=1), rel=1e-12)  # as above
    assert "negative variance" not in err
    code, out, err = run(capsys, "topics", "--scores", path, "--interval", "bootstrap",
                         "--resamples", "50", "-f", "json")
    assert code == 0
    # every resample has identical rows too: both limits 0 at every size
    curve = json.loads(out)["curve"]
    assert all(c["phi_lower"] == c["phi_upper"] == 0 for c in curve)


# ----------------------------------------------------------------- optimizer


def test_optimize_with_zero_phi_presets_prints_no_nan(capsys):
    # the audit's crash: "cannot convert float NaN to integer" with presets at Phi = 0
    code, out, err = run(capsys, "optimize", "discount", D / "qrels.txt", D / "runs" / "sim05",
                         D / "runs" / "sim06", "-k", "5")
    assert code == 0
    assert "nan" not in out.lower()
    table = out.split("# starts")[0]
    assert " inf " in table  # topics needed of a Phi = 0 preset: never
    code, out, _ = run(capsys, "optimize", "discount", D / "qrels.txt", D / "runs" / "sim05",
                       D / "runs" / "sim06", "-k", "5", "-f", "json")
    presets = json.loads(out)["presets"]
    assert any(p["phi"] == 0 and p["topics_needed"] is None for p in presets)
    for argv in (("joint", "-k", "5"), ("minimax", "-k", "5", "-k", "10")):
        code, out, err = run(capsys, "optimize", argv[0], D / "qrels.txt", D / "runs" / "sim05",
                             D / "runs" / "sim06", *argv[1:], "--starts", "1")
        assert code == 0 and "nan" not in out.lower()


@pytest.fixture()
def tiny(tmp_path):
    """Two topics, one relevant document each, retrieved at rank 2 by both runs (the audit's)."""
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 2\n")
    a = "1 Q0 x 1 3 A\n1 Q0 a 2 2 A\n2 Q0 y 1 3 A\n2 Q0 b 2 2 A\n"
    (tmp_path / "A").write_text(a)
    (tmp_path / "B").write_text(a.replace(" A\n", " B\n"))
    return tmp_path


def test_optimize_with_nothing_relevant_in_the_cutoff_is_a_clear_error(tiny, capsys):
    code, out, err = run(capsys, "optimize", "discount", tiny / "q", tiny / "A", tiny / "B",
                         "-k", "1")
    assert code == 1 and out == ""
    assert "cutoff 1: no run ranks a relevant document in its top 1" in err
    assert err.count("\n") == 1


def test_optimize_when_every_system_ties_reports_zero_not_nan(tiny, capsys):
    # at k = 2 both runs are identical: every nDCG is 1/log2(3) on both topics, every preset
    # and the optimum tie the systems, so Phi = Erho2 = 0 and tau is undefined (n/a)
    code, out, err = run(capsys, "optimize", "discount", tiny / "q", tiny / "A", tiny / "B",
                         "-k", "2")
    assert code == 0
    assert "nan" not in out.lower() and "n/a" in out
    assert "every system scores" in err and "Phi and Erho2 are 0" in err


# ----------------------------------------------------------------- seeds


@pytest.mark.parametrize(
    "argv",
    [
        ("stability", D / "qrels.txt", D / "runs", "-m", "P@10", "--interval", "bootstrap"),
        ("topics", D / "qrels.txt", D / "runs", "-m", "P@10", "--interval", "bootstrap"),
        ("optimize", "discount", D / "qrels.txt", D / "runs", "-k", "5"),
        ("optimize", "joint", D / "qrels.txt", D / "runs", "-k", "5"),
        ("optimize", "minimax", D / "qrels.txt", D / "runs", "-k", "5", "-k", "10"),
        ("optimize", "pareto", D / "qrels.txt", D / "runs", "-k", "5", "-k", "10"),
        ("compare", D / "qrels.txt", D / "runs", "-m", "P@10", "-m", "AP"),
        ("report", D / "qrels.txt", D / "runs"),
        ("assessors", D / "qrels.txt", D / "runs", "-a", D / "qrels.txt"),
    ],
    ids=lambda a: " ".join(str(x) for x in a[:2] if not isinstance(x, Path)),
)
def test_negative_seed_is_one_line_error(argv, capsys, tmp_path):
    extra = ("-o", tmp_path / "rep") if argv[0] == "report" else ()
    code, out, err = run(capsys, *argv, *extra, "--seed", "-1")
    assert code == 1 and out == ""
    assert err == "irstab: error: --seed: must be an integer >= 0, got -1\n"
    assert list(tmp_path.iterdir()) == []  # nothing written


# ----------------------------------------------------------------- huge weights, long discounts


def _evaluate_csv(capsys, *measures):
    args = [a for m in measures for a in ("-m", m)]
    code, out, err = run(capsys, "evaluate", D / "qrels.txt", D / "runs", *args, "-f", "csv",
                         "--per-topic")
    assert code == 0, err
    frame = pd.read_csv(pd.io.common.StringIO(out), dtype={"topic": str})
    return frame.pivot_table(index=["run", "topic"], columns="measure", values="value")


def test_huge_gains_give_the_scale_free_ndcg(capsys):
    """nDCG is scale-free: gain 1e308 per grade is gain 1 per grade, which is trec_eval's
    ndcg_cut_3 on the qrels with every positive grade set to 1."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    huge = "nDCG(gain=(0,1e+308,1e+308,1e+308))@3"  # canonical form
    table = _evaluate_csv(capsys, huge)
    assert len(table) == 12 * 31  # every run, every topic and 'all': no row lost
    assert table[huge].notna().all()
    qrels: dict[str, dict[str, int]] = {}
    for line in (D / "qrels.txt").read_text().splitlines():
        t, _, d, g = line.split()
        qrels.setdefault(t, {})[d] = int(int(g) > 0)
    for name in ("sim01", "sim07"):
        r: dict[str, dict[str, float]] = {}
        for line in (D / "runs" / name).read_text().splitlines():
            t, _, d, _, s, _ = line.split()
            r.setdefault(t, {})[d] = float(s)
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.3"}).evaluate(r)
        for t, v in ref.items():
            assert table.loc[(name, t), huge] == pytest.approx(v["ndcg_cut_3"], abs=1e-12)


def test_huge_discounts_give_the_flat_discount(capsys):
    huge = "nDCG(discount=(1e+308,1e+308,1e+308))@3"
    table = _evaluate_csv(capsys, huge, "nDCG(discount=flat)@3")
    assert len(table) == 12 * 31 and table.notna().all().all()
    # scale-free in the discount: equal weights of any size are the flat discount
    np.testing.assert_allclose(table[huge], table["nDCG(discount=flat)@3"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("measure", ["nDCG(gain=(0,5e-324,1e308,1e308))@3",
                                     "nDCG(gain=(0,1e-200,1,1),discount=(1e-200,1,1))@3",
                                     "DCG_UL(gain=(0,5e-324,1e308,1e308))@3"])
def test_weights_beyond_the_float_range_are_an_error_not_a_zero(capsys, measure):
    # 5e-324 / 1e308 is 0 in floating point: topics 04 and 06 (only grade-1 documents)
    # got IDCG 0, so nDCG 0 with a warning, although their nDCG is well defined.
    code, out, err = run(capsys, "evaluate", D / "qrels.txt", D / "runs", "-m", measure)
    assert code == 1 and out == ""
    assert "weights span more than the floating-point range" in err
    assert err.startswith("irstab: error: ") and err.count("\n") == 1


def test_small_but_representable_gain_is_exact(capsys):
    """gain=(0,1e-300,1,1) within the float range: on topics 04 and 06 (grade 1 is their only
    relevant grade, data/example/qrels.txt) nDCG is scale-free, so it equals the binary
    nDCG (0,1,1,1); elsewhere the 1e-300 terms change DCG and IDCG by a relative 1e-300, so
    it equals (0,0,1,1) there."""
    small, binary, top = ("nDCG(gain=(0,1e-300,1,1))@3", "nDCG(gain=(0,1,1,1))@3",
                          "nDCG(gain=(0,0,1,1))@3")
    table = _evaluate_csv(capsys, small, binary, top).drop(index="all", level="topic")
    grade1 = table.index.get_level_values("topic").isin(["04", "06"])
    assert grade1.sum() == 24 and (table.loc[grade1, small] > 0).any()
    np.testing.assert_allclose(table.loc[grade1, small], table.loc[grade1, binary], atol=1e-12)
    np.testing.assert_allclose(table.loc[~grade1, small], table.loc[~grade1, top], atol=1e-12)


def test_overflowing_dcg_is_an_error_not_nan(capsys):
    code, out, err = run(capsys, "evaluate", D / "qrels.txt", D / "runs",
                         "-m", "DCG(gain=(0,1e308,1e308,1e308))@3", "-m", "P@10")
    assert code == 1 and out == ""
    assert "DCG(gain=(0,1e+308,1e+308,1e+308))@3: " in err and "not finite" in err
    assert "warning" not in err  # one message, not numpy's RuntimeWarnings


def test_discount_longer_than_the_cutoff_is_rejected_as_in_optimize(capsys):
    code, out, err = run(capsys, "evaluate", D / "qrels.txt", D / "runs",
                         "-m", "nDCG(discount=(1,0.5,0.2,0.1))@3")
    assert code == 1 and out == ""
    assert "discount has 4 weights but the cutoff is @3" in err
    code, out, err = run(capsys, "optimize", "discount", D / "qrels.txt", D / "runs", "-k", "3",
                         "--discount", "(1,0.5,0.2,0.1)")
    assert code == 1 and "has 4 weights but the cutoff is 3" in err


# ----------------------------------------------------------------- stability / topics


def test_one_constant_measure_does_not_abort_the_others(capsys):
    code, out, err = run(capsys, "stability", D / "qrels.txt", D / "runs",
                         "-m", "nDCG@10", "-m", "AP(rel=99)", "-f", "json")
    assert code == 0
    assert [r["measure"] for r in json.loads(out)] == ["nDCG@10"]
    # no grade reaches 99: every one of 12 x 30 AP scores is 0
    assert "AP(rel=99): scores: all 360 scores are equal (0)" in err and "left out" in err
    code, out, err = run(capsys, "stability", D / "qrels.txt", D / "runs",
                         "-m", "P(rel=99)@10", "-m", "AP(rel=99)")
    assert code == 1 and out == ""
    assert "irstab: error: no measure has a G-study: P(rel=99)@10: " in err
    assert "; AP(rel=99): " in err


def test_topics_figure_samples_a_huge_curve(capsys, tmp_path):
    from irstab.cli.stability import _figure_grid

    grid = _figure_grid(10**9)
    assert {1, 10**9} <= grid and len(grid) <= 600  # sampled, not 10^9 sizes
    assert _figure_grid(30) == set(range(1, 31))  # small curves: every size
    fig = tmp_path / "f.png"
    code, out, err = run(capsys, "topics", D / "qrels.txt", D / "runs", "-m", "nDCG@10",
                         "-n", "1000000000", "-n", "10", "--figure", fig, "-f", "json")
    assert code == 0 and f"wrote {fig}" in err
    assert fig.stat().st_size > 10_000
    curve = json.loads(out)["curve"]
    assert [c["n_topics"] for c in curve] == [10, 10**9]  # the table keeps the asked sizes
    assert curve[1]["phi"] == pytest.approx(1.0, abs=1e-6)  # n psi / (1 + n psi) -> 1


# ----------------------------------------------------------------- one seed, one set of splits


def test_compare_seed_uses_the_documented_topic_splits(capsys):
    """``compare --seed 0`` swap counts = a per-trial, per-pair loop over the splits that
    irstab.compare.consistency documents for seed 0 (trial k: row k of
    default_rng(0).permuted(tile(arange(T), (K, 1)), axis=1), halves Q_k | Q'_k; differences
    within 1e-12 of the largest |score| are ties) = the API's swap_rates(seed=0)."""
    import irstab
    from irstab.compare import compare_measures, swap_rates

    K = 60
    code, out, err = run(capsys, "compare", D / "qrels.txt", D / "runs", "-m", "P@10",
                         "-m", "nDCG@10", "--seed", "0", "--swap-trials", K, "-B", "20",
                         "-f", "json")
    assert code == 0
    cli = {r["measure"]: r["swap_rate"] for r in json.loads(out)}
    coll = irstab.Collection.from_files(D / "qrels.txt", [D / "runs"])
    frames = irstab.score_matrices(coll, ["P@10", "nDCG@10"])
    api = swap_rates(frames, n_trials=K, seed=0)
    both = compare_measures(frames, n_bootstrap=20, swap_trials=K, seed=0).swap
    for m, frame in frames.items():
        x = frame.to_numpy()
        S, T = x.shape
        c = T // 2
        split = np.random.default_rng(0).permuted(np.tile(np.arange(T), (K, 1)), axis=1)
        tol = 1e-12 * np.abs(x).max()
        swaps = 0
        for k in range(K):
            a, b = x[:, split[k, :c]].mean(axis=1), x[:, split[k, c:2 * c]].mean(axis=1)
            for i in range(S):
                for j in range(i + 1, S):
                    da, db = a[i] - a[j], b[i] - b[j]
                    swaps += abs(da) > tol and abs(db) > tol and da * db < 0
        got = sum(b["swaps"] for b in cli[m]["bins"])
        assert sum(b["comparisons"] for b in cli[m]["bins"]) == K * S * (S - 1) // 2
        row = api.measures.index(m)
        assert got == swaps == int(api.swaps[row].sum()) == int(both.swaps[row].sum()) > 0
