"""`irstab compare` through ``irstab.cli.main`` (the module registers itself on import).

Expected values come from the library (irstab.compare, tested against its own oracles in
tests/compare) or are counts stated in the comments.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import irstab.cli
import irstab.cli.compare  # noqa: F401  (registers the command until cli/__init__ imports it)
from irstab.simulate import simulate_collection


@pytest.fixture(scope="module")
def coll_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=6, n_topics=10, depth=20, seed=3).write(d)
    return d


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def args(d, *extra):
    return ["compare", d / "qrels.txt", d / "runs", "-m", "nDCG@10", "-m", "AP",
            "--bootstrap", "200", "--swap-trials", "50", *extra]


def test_table(capsys, coll_dir):
    code, out, err = cli(capsys, *args(coll_dir))
    assert code == 0, err
    assert "nDCG@10" in out and "AP" in out
    assert "Kendall's tau" in out and "tau_AP (symmetric" in out
    assert "B=200 samples shared by all pairs and measures, seed 0" in out


def test_json_contract_and_reproducibility(capsys, coll_dir):
    code, out, err = cli(capsys, *args(coll_dir, "-f", "json", "--seed", "7"))
    assert code == 0, err
    recs = json.loads(out)
    assert [r["measure"] for r in recs] == ["nDCG@10", "AP"]
    for r in recs:
        assert {"measure", "discriminative_power", "n_pairs", "asl", "kendall_tau", "tau_ap",
                "swap_rate"} <= set(r)
        assert r["n_pairs"] == 15 == len(r["asl"]) == len(r["pairs"])  # 6 systems: 6*5/2
        assert all(0.0 <= a <= 1.0 for a in r["asl"])
        assert r["discriminative_power"] == pytest.approx(
            sum(a < 0.05 for a in r["asl"]) / 15
        )
        assert {"overall", "min_difference", "bins"} <= set(r["swap_rate"])
    assert set(recs[0]["kendall_tau"]) == {"AP"} and set(recs[1]["tau_ap"]) == {"nDCG@10"}
    # the table is symmetric: tau(nDCG, AP) = tau(AP, nDCG)
    assert recs[0]["kendall_tau"]["AP"] == recs[1]["kendall_tau"]["nDCG@10"]
    code, again, _ = cli(capsys, *args(coll_dir, "-f", "json", "--seed", "7"))
    assert again == out


def test_top_tukey_ttest_and_plot(capsys, coll_dir, tmp_path):
    fig = tmp_path / "cmp.png"
    code, out, err = cli(
        capsys, *args(coll_dir, "--top", "4", "--tukey", "--ttest", "holm", "--plot", fig, "-f", "json")
    )
    assert code == 0, err
    recs = json.loads(out)
    assert recs[0]["n_pairs"] == 6  # 4 systems
    assert recs[0]["ttest"]["correction"] == "holm" and "disagreements" in recs[0]["ttest"]
    assert len(recs[0]["tukey"]["p_values"]) == 6
    assert fig.read_bytes()[:4] == b"\x89PNG" and f"wrote {fig}" in err


def test_csv(capsys, coll_dir):
    code, out, _ = cli(capsys, *args(coll_dir, "-f", "csv"))
    assert code == 0
    assert out.splitlines()[0].startswith("measure,n_systems,n_pairs,n_significant,discriminative_power")


def test_ttest_is_a_choice(capsys, coll_dir):
    # a fixed set is a choice: click's usage error lists the choices
    code, out, err = cli(capsys, *args(coll_dir, "--ttest", "sidak"))
    assert code == 2
    assert "sidak" in err and "bonferroni" in err and "holm" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--plot", "x.xyz"], "unsupported figure format"),
        (["--top-by", "P@5"], "--top-by: P@5 is not one of the measures"),
        (["--top", "40"], "top: must be between 2 and the number of systems (6)"),
        (["-m", "nDCG@x"], "nDCG@x"),
    ],
)
def test_errors_exit_1_with_message(capsys, coll_dir, extra, message):
    code, out, err = cli(capsys, *args(coll_dir, *extra))
    assert code == 1
    assert message in err and err.startswith("irstab: error:")


def test_single_topic_and_identical_runs(capsys, tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 b 0\n")
    run = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n"
    (tmp_path / "runs" / "r1").write_text(run)
    (tmp_path / "runs" / "r2").write_text(run.replace("a 1 2.0", "a 1 0.5"))
    code, _, err = cli(capsys, "compare", tmp_path / "qrels.txt", tmp_path / "runs", "-m", "AP")
    assert code == 1 and "at least 2 topics, got 1" in err
    # two topics, r1 and r3 identical: ASL 1 with a warning naming the pair
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n")
    r1 = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 2.0 r\n2 Q0 x 2 1.0 r\n"
    (tmp_path / "runs" / "r1").write_text(r1)
    (tmp_path / "runs" / "r2").write_text("1 Q0 b 1 2.0 r\n1 Q0 a 2 1.0 r\n2 Q0 d 1 2.0 r\n")
    (tmp_path / "runs" / "r3").write_text(r1)
    code, out, err = cli(capsys, "compare", tmp_path / "qrels.txt", tmp_path / "runs", "-m", "AP",
                         "-f", "json")
    assert code == 0, err
    assert "identical scores on every topic" in err and "r1/r3" in err
    rec = json.loads(out)[0]
    assert rec["asl"][rec["pairs"].index(["r1", "r3"])] == 1.0


def test_dl2019_top10(capsys, dl2019_dir):
    code, out, err = cli(capsys, "compare", dl2019_dir / "qrels.txt", dl2019_dir / "runs",
                         "-m", "nDCG@10", "-m", "nDCG(discount=zipf)@10", "--top", "10", "-f", "json")
    assert code == 0, err
    recs = json.loads(out)
    assert recs[0]["n_pairs"] == 45 and recs[0]["n_topics"] == 43
    assert -1.0 <= recs[0]["kendall_tau"]["nDCG(discount=zipf)@10"] <= 1.0


def test_score_files_give_the_same_comparison_as_the_runs(capsys, coll_dir, tmp_path):
    # --scores reads the matrices that -m computes; with the same seed every number agrees
    # (the matrices are written with full float precision by pandas).
    coll = irstab.Collection.from_files(coll_dir / "qrels.txt", coll_dir / "runs", depth=1000)
    files = []
    for name, measure in (("ndcg10", "nDCG@10"), ("ap", "AP")):
        frame = irstab.score_matrix(coll, measure)
        frame.index.name = "system"
        frame.to_csv(tmp_path / f"{name}.csv", float_format="%.17g")
        files += ["-s", tmp_path / f"{name}.csv"]
    common = ["--bootstrap", "200", "--swap-trials", "50", "--seed", "4", "-f", "json"]
    code, out_runs, err = cli(capsys, *args(coll_dir, "--seed", "4", "-f", "json"))
    assert code == 0, err
    code, out_files, err = cli(capsys, "compare", *files, *common)
    assert code == 0, err
    by_runs, by_files = json.loads(out_runs), json.loads(out_files)
    assert [r["measure"] for r in by_files] == ["ndcg10", "ap"]
    for a, b in zip(by_runs, by_files):
        assert a["asl"] == b["asl"] and a["pairs"] == b["pairs"]
        assert a["swap_rate"] == b["swap_rate"]
        assert list(a["kendall_tau"].values()) == list(b["kendall_tau"].values())


def test_scores_and_runs_together_exit_1(capsys, coll_dir, tmp_path):
    code, _, err = cli(capsys, "compare", coll_dir / "qrels.txt", coll_dir / "runs",
                       "-s", tmp_path / "x.csv")
    assert code == 1 and "not both" in err


# --informativeness: the maximum entropy method; expected numbers from the library's
# irstab.compare.informativeness (tested against its oracles in tests/compare).

INFO = ["--informativeness", "--min-relevant", "2", "--min-top", "1"]


def test_informativeness_json_matches_library(capsys, coll_dir):
    import warnings

    import irstab
    from irstab.compare import informativeness

    code, out, err = cli(capsys, *args(coll_dir, *INFO, "-f", "json"))
    assert code == 0, err
    recs = {r["measure"]: r for r in json.loads(out)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.from_files(coll_dir / "qrels.txt", coll_dir / "runs")
    lib = informativeness(coll, ["nDCG@10", "AP"], min_relevant=2, min_top=1, seed=0).summary()
    for row in lib.itertuples():
        got = recs[row.measure]["informativeness"][f"rel>={row.level}"]
        assert got["mean_rms"] == pytest.approx(row.mean_rms, abs=1e-12)
        assert got["n_cells"] == row.n_cells
    code, out, err = cli(capsys, *args(coll_dir, *INFO))
    assert code == 0 and "inform. RMS rel>=1" in out and "maximum-entropy PR curve" in out


@pytest.mark.parametrize("extra, message", [
    (["-m", "ERR"], "no expected value under a product distribution"),
    (["--min-relevant", "100000"], "min_relevant"),
])
def test_informativeness_refusals(capsys, coll_dir, extra, message):
    code, out, err = cli(capsys, *args(coll_dir, *INFO, *extra))
    assert code == 1 and message in err and out == ""


def test_informativeness_needs_runs(capsys, tmp_path):
    f = tmp_path / "AP.csv"
    f.write_text("system,1,2\na,0.1,0.2\nb,0.3,0.1\n")
    code, out, err = cli(capsys, "compare", "--scores", f, "--informativeness")
    assert code == 1 and "needs the ranked lists" in err


# ----------------------------------------------------------------- compare --baseline


@pytest.fixture(scope="module")
def score_files(tmp_path_factory):
    """Three wide score files (30 systems x 40 topics): a baseline, a sharper and a noisier
    measure sharing system and topic effects (sds .15, .20; residual .25, .10, .40)."""
    import numpy as np
    import pandas as pd

    d = tmp_path_factory.mktemp("scores")
    rng = np.random.default_rng(4)
    effect = rng.normal(0, 0.15, (30, 1)) + rng.normal(0, 0.2, (1, 40))
    files = {}
    for name, sd in (("base", 0.25), ("sharp", 0.10), ("noisy", 0.40)):
        frame = pd.DataFrame(effect + rng.normal(0, sd, (30, 40)),
                             index=[f"sys{i}" for i in range(30)],
                             columns=[f"t{j}" for j in range(40)]).rename_axis("system")
        frame.to_csv(d / f"{name}.csv")
        files[name] = (d / f"{name}.csv", frame)
    return files


def test_baseline_gives_the_library_verdict(capsys, score_files):
    from irstab.verdict import verdict

    paths = [a for name in ("base", "sharp", "noisy") for a in ("--scores", score_files[name][0])]
    code, out, err = cli(capsys, "compare", *paths, "--baseline", "base", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    want = verdict({n: score_files[n][1] for n in ("base", "sharp", "noisy")}, "base").to_dict()
    assert got["recommended"] == want["recommended"] == "sharp"
    assert got["interval"] == "jackknife"
    assert got["measures"] == json.loads(json.dumps(want["measures"]))
    code, out, err = cli(capsys, "compare", *paths, "--baseline", "base")
    assert code == 0, err
    first, *rest = out.splitlines()
    assert first.startswith("verdict: use sharp instead of base: Phi +")
    assert "two-facet jackknife of the G-study" in out
    assert "simultaneous over the 2 candidates" in out
    assert "read the intervals as less sure" not in out  # 30 systems: no caveat


def test_baseline_candidates_csv_and_interval(capsys, score_files):
    import io

    import pandas as pd

    paths = [a for name in ("base", "sharp", "noisy") for a in ("--scores", score_files[name][0])]
    code, out, err = cli(capsys, "compare", *paths, "--baseline", "base", "--candidate", "noisy",
                         "--interval", "bootstrap", "-B", "200", "-f", "csv")
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert frame["role"].tolist() == ["baseline", "context", "candidate"]
    assert frame["interval_kind"].tolist() == ["baseline", "marginal", "simultaneous"]
    assert not frame["recommended"].any()  # noisy is the only candidate: keep base


@pytest.mark.parametrize(("extra", "message"), [
    (("--baseline", "zzz"), "--baseline: zzz is not one of the measures compared"),
    (("--baseline", "base", "--candidate", "zzz"), "--candidate: zzz is not one of"),
    (("--baseline", "base", "--candidate", "base"), "candidates: the baseline"),
    (("--baseline", "base", "--tukey"), "--tukey: not used with --baseline"),
    (("--baseline", "base", "--interval", "pivots"), "interval: expected one of"),
    (("--candidate", "sharp",), "--candidate: only used with --baseline"),
    (("--baseline", "base", "--target", "1.5"), "target"),
])
def test_baseline_errors_exit_1(capsys, score_files, extra, message):
    paths = [a for name in ("base", "sharp") for a in ("--scores", score_files[name][0])]
    code, out, err = cli(capsys, "compare", *paths, *extra)
    assert code == 1 and message in err, err


def test_score_files_after_one_scores_get_a_hint(capsys, score_files):
    # `--scores a.csv b.csv`: the second file lands among QRELS RUNS; the error says what to do
    a, b = score_files["base"][0], score_files["sharp"][0]
    code, out, err = cli(capsys, "compare", "--scores", a, b, "--baseline", "base")
    assert code == 1
    assert f"each score file needs its own --scores: --scores {a} --scores {b}" in err


def test_baseline_on_runs(capsys, coll_dir):
    # QRELS RUNS -m: the baseline may be spelled as trec_eval does
    code, out, err = cli(capsys, "compare", coll_dir / "qrels.txt", coll_dir / "runs", "-m",
                         "nDCG@10,nDCG@20,AP", "--baseline", "ndcg_cut.10", "--candidate",
                         "nDCG@20", "-B", "200")
    assert code == 0, err
    assert out.startswith("verdict: ")
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[2:5]}
    assert rows == {"nDCG@10": "baseline", "nDCG@20": "candidate", "AP": "context"}


def test_baseline_reads_score_files_in_the_orientation_given(tmp_path, capsys):
    # gt4ireval's layout (topics in rows, first header cell `id`, no word to go by) with
    # --systems columns: 8 systems x 12 topics, as `stability --systems columns` reads it
    import json

    from irstab.cli import main

    rng = np.random.default_rng(3)
    e = rng.normal(0, 1, (8, 1))
    for name in ("cols_a", "cols_b"):
        x = e + rng.normal(0, 1, (8, 12))
        header = "id," + ",".join(f"s{i}" for i in range(8))
        rows = [f"t{t}," + ",".join(f"{x[s, t]:.6f}" for s in range(8)) for t in range(12)]
        (tmp_path / f"{name}.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    code = main(["compare", "-s", str(tmp_path / "cols_a.csv"), "-s", str(tmp_path / "cols_b.csv"),
                 "--systems", "columns", "--baseline", "cols_a", "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = {m["measure"]: m for m in json.loads(out)["measures"]}
    assert "a guess" not in err
    # the same file through `stability --systems columns` (8 systems x 12 topics) gives the Phi
    # compare reports; read as rows (12 systems) its system variance is negative and Phi is 0
    assert main(["stability", "-s", str(tmp_path / "cols_a.csv"), "--systems", "columns",
                 "-f", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["n_systems"], row["n_topics"]) == (8, 12)
    assert got["cols_a"]["phi"] == pytest.approx(row["phi"], rel=1e-12)
    assert got["cols_a"]["sig_pairs"] <= 8 * 7 // 2


def test_baseline_alone_is_refused(capsys, coll_dir):
    code, out, err = cli(capsys, "compare", coll_dir / "qrels.txt", coll_dir / "runs", "-m",
                         "nDCG@10", "--baseline", "nDCG@10")
    assert code == 1 and "is the only measure" in err, err
