"""The third audit's numerical cases from the command line: the verdict, Phi, design arithmetic.

Each test reproduces a case that gave a wrong answer, a traceback or an unbounded allocation,
and asserts the exit code, the message on stderr (the parameter or measure named, never a
traceback, never a numpy warning) and the numbers. Expected numbers come from closed forms
stated beside them: a matrix with the same score in every cell has no system variance, so
its Phi is 0 and it needs infinitely many topics ("never"); Phi does not change under
x -> a x + b (a > 0), so such a twin of the baseline differs from it by exactly 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irstab.cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "warning" not in err.lower() or "irstab: warning" in err  # no raw numpy warning
    return code, out, err


def write_matrix(path: Path, x: np.ndarray, systems=None, topics=None) -> Path:
    systems = systems if systems is not None else [f"s{i}" for i in range(x.shape[0])]
    topics = topics if topics is not None else [f"t{j}" for j in range(x.shape[1])]
    frame = pd.DataFrame(x, index=pd.Index(systems, name="system"), columns=topics)
    frame.to_csv(path, float_format="%.17g")
    return path


def baseline_scores(seed: int = 0, n_systems: int = 12, n_topics: int = 43) -> np.ndarray:
    """A two-way model with a real system effect (Phi about 0.9 at 43 topics)."""
    rng = np.random.default_rng(seed)
    return (0.4 + rng.normal(0, 0.1, (n_systems, 1)) + rng.normal(0, 0.1, (1, n_topics))
            + rng.normal(0, 0.1, (n_systems, n_topics)))


def verdict_json(capsys, *files, baseline, extra=()):
    args = ["compare", *(a for f in files for a in ("-s", f)), "--baseline", baseline,
            "-f", "json", *extra]
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    assert "warning" not in err.lower()
    return json.loads(out)


def row(doc: dict, measure: str) -> dict:
    return next(r for r in doc["measures"] if r["measure"] == measure)


def write_p10_collection(root: Path, n_systems: int = 12, n_topics: int = 43, seed: int = 0):
    """Qrels and runs on which every run has exactly 3 relevant documents in its top 10.

    P@10 is 3/10 for every run and topic (closed form); nDCG@10 is not constant, because
    better runs retrieve higher grades.
    """
    rng = np.random.default_rng(seed)
    qrels = root / "qrels.txt"
    qrels.write_text(
        "".join(f"{t} 0 r{d} {1 + d % 3}\n" for t in range(n_topics) for d in range(30))
        + "".join(f"{t} 0 n{d} 0\n" for t in range(n_topics) for d in range(30)))
    runs = root / "runs"
    runs.mkdir()
    grade = 1 + np.arange(30) % 3
    for s in range(n_systems):
        lines = []
        for t in range(n_topics):
            w = np.exp(s / 3.0 * grade + rng.normal(0, 1.5, 30))
            rel = rng.choice(30, 3, replace=False, p=w / w.sum())
            docs = [f"r{d}" for d in rel] + [f"n{d}" for d in rng.choice(30, 7, replace=False)]
            docs = [docs[i] for i in rng.permutation(10)]
            lines += [f"{t} Q0 {d} {r + 1} {10 - r} sys{s}\n" for r, d in enumerate(docs)]
        (runs / f"sys{s}").write_text("".join(lines))
    return qrels, runs


# ---------------------------------------------------------------- item 1: rounding noise


def test_a_constant_candidate_is_never_recommended(capsys, tmp_path):
    # k is 0.3 in every cell (12 x 43): its "variance components" were rounding noise of
    # about 1e-30 whose ratios gave Phi 0.98 and "use k instead of r"
    r = write_matrix(tmp_path / "r.csv", baseline_scores())
    k = write_matrix(tmp_path / "k.csv", np.full((12, 43), 0.3))
    doc = verdict_json(capsys, r, k, baseline="r")
    assert doc["change"] is False and doc["use"] == "r"
    kr = row(doc, "k")
    assert kr["phi"] == 0.0 and kr["topics_needed"] is None  # closed form: no variance
    assert kr["reliably_more_stable"] is False and kr["phi_diff_upper"] < 0


def test_a_constant_p10_from_qrels_and_runs_is_never_more_stable(capsys, tmp_path):
    # the audit's case: P@10 = 0.3 for every run and topic was "reliably more stable" than
    # nDCG@10, with an interval [+0.02, +0.14] and "use P@10 instead of nDCG@10"
    qrels, runs = write_p10_collection(tmp_path)
    code, out, err = cli(capsys, "compare", qrels, runs, "-m", "nDCG@10", "-m", "P@10",
                         "--baseline", "nDCG@10", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["change"] is False
    p10 = row(doc, "P@10")
    assert p10["phi"] == 0.0 and p10["reliably_more_stable"] is False
    assert p10["phi_diff_lower"] <= p10["phi_diff"] <= p10["phi_diff_upper"] < 0
    # the same constant measure is refused by the G-study, with the figure
    code, out, err = cli(capsys, "stability", qrels, runs, "-m", "P@10")
    assert code == 1 and "all 516 scores are equal (0.3)" in err


@pytest.mark.parametrize(("a", "b"), [(3.7, 1.1), (1e-7, 0.5), (2.0**40, -3.0), (0.1, 0.2)])
def test_an_affine_twin_differs_by_exactly_zero(capsys, tmp_path, a, b):
    # Phi(a x + b) = Phi(x) for a > 0 (closed form): the difference is 0 with interval
    # [0, 0], never +-1e-15 and "reliably more stable: yes"
    x = baseline_scores(3)
    r = write_matrix(tmp_path / "r.csv", x)
    twin = write_matrix(tmp_path / "twin.csv", a * x + b)
    doc = verdict_json(capsys, r, twin, baseline="r")
    t = row(doc, "twin")
    assert (t["phi_diff"], t["phi_diff_lower"], t["phi_diff_upper"]) == (0.0, 0.0, 0.0)
    assert t["reliably_more_stable"] is False and doc["change"] is False
    assert t["sig_diff"] == 0 and t["topics_needed"] == row(doc, "r")["topics_needed"]


# ---------------------------------------------------------------- item 2: scale


@pytest.mark.parametrize("scale", [1e80, 1e-90, 1e-300, 1e300])
def test_scaled_scores_give_the_unscaled_answers(capsys, tmp_path, scale):
    # Phi, its intervals and the paired t-tests are scale-free: the same verdict, the same
    # numbers (the scaling by a power of two inside is exact), no numpy warning
    rng = np.random.default_rng(5)
    x = baseline_scores(5)
    c = x + rng.normal(0, 0.05, x.shape)
    plain = verdict_json(capsys, write_matrix(tmp_path / "r.csv", x),
                         write_matrix(tmp_path / "c.csv", c), baseline="r")
    scaled = verdict_json(capsys, write_matrix(tmp_path / "rs.csv", x * scale),
                          write_matrix(tmp_path / "cs.csv", c * scale), baseline="rs")
    assert scaled["change"] == plain["change"]
    for key in ("phi", "phi_diff", "phi_diff_lower", "phi_diff_upper", "sig_pairs"):
        assert row(scaled, "cs")[key] == pytest.approx(row(plain, "c")[key], abs=1e-9)
    assert row(scaled, "cs")["topics_needed"] == row(plain, "c")["topics_needed"]


def test_a_baseline_with_a_tiny_spread_is_not_called_constant(capsys, tmp_path):
    # scores times 1e-60 spread by about 1e-61: below 1e-12, but not constant; refused
    # before with "every score is 4.7e-61"
    x = baseline_scores(6)
    c = x + np.random.default_rng(6).normal(0, 0.05, x.shape)
    plain = verdict_json(capsys, write_matrix(tmp_path / "r.csv", x),
                         write_matrix(tmp_path / "c.csv", c), baseline="r")
    tiny = verdict_json(capsys, write_matrix(tmp_path / "rt.csv", x * 1e-60),
                        write_matrix(tmp_path / "ct.csv", c * 1e-60), baseline="rt")
    assert row(tiny, "ct")["phi_diff"] == pytest.approx(row(plain, "c")["phi_diff"], abs=1e-9)
    # a baseline that is constant up to rounding is refused with what it holds
    noisy = np.full((12, 43), 0.3)
    noisy[::2] = 0.1 + 0.2  # 0.30000000000000004: one unit in the last place
    code, _, err = cli(capsys, "compare", "-s", write_matrix(tmp_path / "n.csv", noisy),
                       "-s", tmp_path / "c.csv", "--baseline", "n")
    assert code == 1
    assert "equal within rounding noise (0.29999999999999999 to 0.30000000000000004" in err


@pytest.mark.parametrize("scale", [1e140, 1e149, 1e-149])
def test_large_and_small_scores_in_the_gstudy_give_no_warning(capsys, tmp_path, scale):
    # the F interval of Phi (Arteaga et al.) squared mean squares of 1e280 (OverflowError)
    x = baseline_scores(7)
    plain = tmp_path / "r.csv"
    write_matrix(plain, x)
    code, out, err = cli(capsys, "stability", "-s", plain, "-f", "json")
    want = json.loads(out)[0]
    code, out, err = cli(capsys, "stability", "-s", write_matrix(tmp_path / "rs.csv", x * scale),
                         "-f", "json")
    assert code == 0 and err == ""
    got = json.loads(out)[0]
    for key in ("phi", "erho2"):
        assert got[key] == pytest.approx(want[key], rel=1e-9)


# ---------------------------------------------------------------- item 3: draws


def test_too_few_draws_for_twenty_candidates_are_refused_with_the_minimum(capsys, tmp_path):
    # 20 candidates, 30 systems: each tail of each interval needs a draw at the Bonferroni
    # level, B >= 2 x 20 / (1 - c'), c' = 0.95918 (t with 29 df): 980 (closed form)
    rng = np.random.default_rng(8)
    e = rng.normal(0, 1, (30, 1))
    files = [write_matrix(tmp_path / f"m{k}.csv", e + rng.normal(0, 1, (30, 40)))
             for k in range(21)]
    args = ["compare", *(a for f in files for a in ("-s", f)), "--baseline", "m0",
            "--interval", "parametric"]  # the Wishart draws; the jackknife draws none for Phi
    code, out, err = cli(capsys, *args, "-B", "40")
    assert code == 1 and out == ""
    assert "n_bootstrap: 40 draws cannot resolve the 20 candidates'" in err
    assert "use at least 980" in err
    code, out, err = cli(capsys, *args, "-B", "980", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["measures"][0]["measure"] == "m0"


# ---------------------------------------------------------------- item 4: integers


def test_a_huge_budget_is_an_error_not_a_wrapped_count(capsys):
    # 1e30 judgments used to print -9223372036854775808 topics with exit code 0
    code, out, err = cli(capsys, "design", "budget", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         "--budget", "1e30")
    assert code == 1 and out == ""
    assert "budget: 1e+30 judgments pay for" in err and "10,000,000 topics" in err
    assert "-9223372036854775808" not in err


@pytest.mark.parametrize("option", [("--min-diff", "1e200"), ("--min-range", "1e300"),
                                    ("--half-width", "1e300")])
def test_requirements_beyond_float_range_are_clear_errors(capsys, option):
    # OverflowError tracebacks before; the message names the option and the figure
    code, out, err = cli(capsys, "design", "power", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         "-m", "nDCG@10", *option)
    assert code == 1 and out == ""
    name = option[0][2:].replace("-", "_")
    assert err.startswith(f"irstab: error: {name}: {float(option[1]):g} is ")
    assert "standard deviations" in err and "overflows" in err


def test_a_huge_but_finite_requirement_needs_two_topics(capsys):
    # a difference of 1e100 when the scores' sd is 0.16: detected surely with the fewest
    # topics a t-test allows (2) and power 1, without numpy warnings
    code, out, err = cli(capsys, "design", "power", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         "-m", "nDCG@10", "--min-diff", "1e100", "-f", "json")
    assert code == 0 and "warning" not in err
    plan = json.loads(out)["plans"][0]
    assert plan["topics_ttest"] == plan["topics_anova"] == plan["topics_ci"] == 2
    assert plan["power_ttest"] == plan["power_anova"] == 1.0


# ---------------------------------------------------------------- item 5: memory


@pytest.fixture(scope="module")
def hundred_thousand_systems(tmp_path_factory):
    root = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(9)
    return [write_matrix(root / f"{m}.csv", rng.random((100_000, 5))) for m in ("a", "b")]


@pytest.mark.parametrize("case", ["compare", "baseline", "power pairs"])
def test_pairs_of_a_hundred_thousand_systems_are_refused_before_allocating(
        capsys, hundred_thousand_systems, case):
    # 1e5 systems make 5e9 pairs: the systems x systems arrays (9.3 GiB and more) were
    # allocated before any check; now the check counts them (5e9 pairs x 5 topics x 8 bytes
    # x 2 arrays = 400 GB at least) and refuses at once
    a, b = hundred_thousand_systems
    argv = {"compare": ["compare", "-s", a, "-s", b],
            "baseline": ["compare", "-s", a, "-s", b, "--baseline", "a"],
            "power pairs": ["design", "power", "-s", a, "--pairs"]}[case]
    code, out, err = cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "100000 systems" in err and "5e+09 pairs" in err and "of memory" in err


def test_ten_million_assessors_per_document_are_refused_before_the_study(capsys):
    # design budget --max-assessors 10^7: (budgets x depths x assessors) float arrays of
    # 51 x 2 x 10^7 cells, a dozen of them: 98 GB, refused before any run is read
    code, out, err = cli(capsys, "design", "budget", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         "--depths", "5,10", "-a", EXAMPLE / "qrels.txt",
                         "--max-assessors", "10000000")
    assert code == 1 and out == ""
    assert err.startswith("irstab: error: max_assessors: 10000000 assessors per document")


def test_draws_whose_count_arrays_cannot_fit_are_refused(capsys, tmp_path):
    # -B 10^8: the (B + 1) x topics counts of the significant pairs alone are 8 x 10^8 x 43
    # bytes = 344 GB, which the old check left out
    x = baseline_scores(10)
    files = [write_matrix(tmp_path / "r.csv", x), write_matrix(tmp_path / "c.csv", x ** 2)]
    code, out, err = cli(capsys, "compare", "-s", files[0], "-s", files[1], "--baseline", "r",
                         "-B", "100000000")
    assert code == 1 and out == ""
    assert "n_bootstrap: 100000000 draws of 2 measures x 12 systems x 43 topics need" in err


def test_a_hundred_million_assessor_designs_are_refused_before_the_study(capsys, tmp_path):
    # assessors --max-assessors 10^8: eight float64 arrays of 10^8 designs (6.4 GB) and a
    # table of as many rows, computed after the whole study; now refused before reading
    code, out, err = cli(capsys, "assessors", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         "-a", EXAMPLE / "qrels.txt", "--max-assessors", "10000000000")
    assert code == 1 and out == ""
    assert err.startswith("irstab: error: max_assessors: 10000000000 designs")


# ---------------------------------------------------------------- item 6: unclear


def test_a_power_of_zero_is_refused_naming_beta(capsys):
    # --beta 0.9999999 (power 0 %) printed a detectable difference of -0.0000
    for beta in ("0.9999999", "0.96"):
        code, out, err = cli(capsys, "design", "power", EXAMPLE / "qrels.txt",
                             EXAMPLE / "runs", "-m", "nDCG@10", "--beta", beta)
        assert code == 1 and out == ""
        assert "beta: the power asked for" in err and "is not above alpha = 0.05" in err


def test_design_reads_the_measures_every_command_reads(capsys, tmp_path):
    # -m @opt.json and named measures were "unknown measure 'opt'" in design power|budget
    opt = "nDCG(gain=(0,1,3.25,7.5),discount=(1,0.631,0.5))@3"
    (tmp_path / "opt.json").write_text(json.dumps({"measure": opt}))
    ms = ["-m", f"@{tmp_path / 'opt.json'}", "-m", "mine=nDCG(gain=exp)@10"]
    code, out, err = cli(capsys, "design", "power", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         *ms, "-f", "json")
    assert code == 0, err
    named = {p["measure"]: p for p in json.loads(out)["plans"]}
    code, out, err = cli(capsys, "design", "power", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         "-m", opt, "-m", "nDCG(gain=exp)@10", "-f", "json")
    plain = {p["measure"]: p for p in json.loads(out)["plans"]}
    assert named["opt"]["variance"] == plain[opt]["variance"]  # the same scores
    assert named["mine"]["variance"] == plain["nDCG(gain=exp)@10"]["variance"]
    code, out, err = cli(capsys, "design", "budget", EXAMPLE / "qrels.txt", EXAMPLE / "runs",
                         *ms, "--depths", "5,10", "-f", "json")
    assert code == 0, err
    assert [p["measure"] for p in json.loads(out)["plans"]] == ["opt", "mine"]


def test_score_files_in_another_order_are_the_same_data(capsys, tmp_path):
    # the same systems and topics in another order "differ"ed; now aligned by label, with
    # the verdict of the files in one order
    rng = np.random.default_rng(11)
    x = baseline_scores(11)
    c = x + rng.normal(0, 0.05, x.shape)
    sys_, top = [f"s{i}" for i in range(12)], [f"t{j}" for j in range(43)]
    rs, rt = rng.permutation(12), rng.permutation(43)
    r = write_matrix(tmp_path / "r.csv", x, sys_, top)
    same = verdict_json(capsys, r, write_matrix(tmp_path / "c.csv", c, sys_, top), baseline="r")
    moved = verdict_json(capsys, r, write_matrix(tmp_path / "c.csv", c[rs][:, rt],
                                                 [sys_[i] for i in rs], [top[j] for j in rt]),
                         baseline="r")
    got, want = row(moved, "c"), row(same, "c")
    assert got.keys() == want.keys()
    for key, value in want.items():  # the same up to the order of the sums (1e-15)
        assert got[key] == (pytest.approx(value, abs=1e-12) if isinstance(value, float)
                            else value), key
    # a real difference is named: a topic only in one file
    write_matrix(tmp_path / "c.csv", c, sys_, top[:-1] + ["t99"])
    code, out, err = cli(capsys, "compare", "-s", r, "-s", tmp_path / "c.csv",
                         "--baseline", "r")
    assert code == 1
    assert "topics only in 'c': 't99'; topics only in 'r': 't42'" in err
