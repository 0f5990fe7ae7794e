"""``irstab optimize discount|gain|joint|minimax|pareto`` end to end through ``irstab.cli.main``.

Data: a seeded simulated collection written to a temporary directory (8 systems x 12
topics, grades 0-3, depth 30). Expected values come from the library (``irstab.optimizer``,
``irstab.evaluate``), which tests/optimizer checks against independent oracles; here the
contract is the command line: arguments, JSON keys, files written, exit codes.
"""

from __future__ import annotations

import json

import pytest

import irstab.cli.optimize  # noqa: F401  (registers `irstab optimize`)
from irstab.cli import main
from irstab.simulate import simulate_collection

JSON_KEYS = {"measure", "gain", "discount", "phi1", "phi", "erho2", "topics_needed", "presets",
             "kendall_tau", "seconds", "backend", "status"}
PRESET_KEYS = {"measure", "gain", "discount", "phi1", "phi", "erho2", "topics_needed",
               "discrimination"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=8, n_topics=12, depth=30, seed=11).write(d)
    return d / "qrels.txt", d / "runs"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_discount_json_has_the_contract_keys(files, capsys):
    q, runs = files
    code, out, _ = run(capsys, "optimize", "discount", q, runs, "-k", "10", "--starts", "1",
                       "--format", "json", "--depth", "30")
    assert code == 0
    d = json.loads(out)
    assert JSON_KEYS <= set(d)
    assert len(d["presets"]) == 8 and all(set(p) == PRESET_KEYS for p in d["presets"])
    assert set(d["kendall_tau"]) == {p["measure"] for p in d["presets"]}
    assert d["backend"] == "scipy" and d["status"] == "optimal"
    assert d["phi1"] >= max(p["phi1"] for p in d["presets"] if p["gain"] == "linear") - 1e-9


def test_saved_measure_works_in_evaluate_and_stability(files, capsys, tmp_path):
    q, runs = files
    save, plot = tmp_path / "opt.json", tmp_path / "opt.png"
    code, out, err = run(capsys, "optimize", "discount", q, runs, "-k", "10", "--starts", "0",
                         "--save", save, "--plot", plot, "--depth", "30")
    assert code == 0 and "optimal" in out and f"wrote {save}" in err
    assert plot.stat().st_size > 1000
    saved = json.loads(save.read_text())
    measure = saved["measure"]
    code, out, _ = run(capsys, "evaluate", q, runs, "-m", measure, "--format", "json",
                       "--depth", "30")
    assert code == 0
    rows = json.loads(out)
    assert {r["measure"] for r in rows} == {measure}
    import irstab.cli.stability  # noqa: F401

    code, out, _ = run(capsys, "stability", q, runs, "-m", measure, "--format", "json",
                       "--depth", "30")
    assert code == 0
    # `irstab stability` reports Phi at the observed 12 topics: the result's "phi"
    assert json.loads(out)[0]["phi"] == pytest.approx(saved["phi"], rel=1e-12)


@pytest.mark.parametrize("command, extra", [
    ("gain", ["--discount", "zipf"]),
    ("joint", ["--backend", "cvxpy"]),
    ("minimax", ["-k", "4", "--vary", "discount"]),
])
def test_other_commands(files, capsys, tmp_path, command, extra):
    q, runs = files
    plot = tmp_path / f"{command}.png"
    code, out, _ = run(capsys, "optimize", command, q, runs, "-k", "10", "--starts", "0",
                       "--depth", "30", "--plot", plot, "--format", "json", *extra)
    assert code == 0, out
    d = json.loads(out)
    assert JSON_KEYS <= set(d) and plot.is_file()
    if command == "minimax":
        assert [s["cutoff"] for s in d["scenarios"]] == [10, 4]


def test_minimax_header_names_minimax_and_phi1(files, capsys):
    q, runs = files
    code, out, _ = run(capsys, "optimize", "minimax", q, runs, "-k", "10", "-k", "4",
                       "--starts", "0", "--depth", "30", "--no-grid")
    assert code == 0
    head = out.splitlines()[0]
    assert head.startswith("# minimax joint over @10, @4: worst Phi1 = ")
    assert "optimal joint" not in head


def test_tsv_is_the_comparison_table(files, capsys):
    q, runs = files
    code, out, _ = run(capsys, "optimize", "gain", q, runs, "-k", "5", "--starts", "0",
                       "--format", "tsv", "--depth", "30", "--no-grid")
    assert code == 0
    lines = out.strip().split("\n")
    assert lines[0].split("\t")[:3] == ["scenario", "variant", "measure"]
    assert len(lines) == 1 + 9


def test_pareto_prior_and_two_cutoffs(files, capsys, tmp_path):
    q, runs = files
    code, out, _ = run(capsys, "optimize", "pareto", q, runs, "-k", "10", "--prior", "log2",
                       "--points", "3", "--starts", "0", "--depth", "30",
                       "--plot", tmp_path / "front.png")
    assert code == 0 and "distance to log2" in out and (tmp_path / "front.png").is_file()
    code, out, _ = run(capsys, "optimize", "pareto", q, runs, "-k", "5", "-k", "20",
                       "--points", "3", "--starts", "0", "--depth", "30", "--format", "json")
    assert code == 0
    assert len(json.loads(out)["points"]) == 3


def test_discrimination_objective_and_its_front_against_phi(files, capsys):
    q, runs = files
    code, out, _ = run(capsys, "optimize", "discount", q, runs, "-k", "10", "--starts", "1",
                       "--objective", "discrimination", "--depth", "30", "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["objective"] == "discrimination"
    # the optimizer's value is the surrogate the evaluate kernel's matrix gives, Phi beside it
    assert d["value"] == pytest.approx(d["scenarios"][0]["discrimination"], abs=1e-9)
    assert 0 < d["phi1"] < 1
    code, out, _ = run(capsys, "optimize", "discount", q, runs, "-k", "10", "--starts", "3",
                       "--random-only", "--depth", "30")
    assert code == 0 and "starts reached the best value" in out and "random-3" in out
    assert "log2 " not in out.split("# starts")[1]
    code, out, _ = run(capsys, "optimize", "pareto", q, runs, "-k", "10", "--objective",
                       "discrimination", "--versus", "phi", "--points", "3", "--starts", "0",
                       "--depth", "30", "--format", "json")
    front = json.loads(out)
    assert code == 0 and front["first"] == "discrimination @10" and front["second"] == "Phi1 @10"


@pytest.mark.parametrize("argv, message", [
    (["discount", "-k", "50"], "cutoff: 50 exceeds the collection depth 30"),
    (["discount", "-k", "5", "--gain", "(0,1,2)"], "gain=(0,1,2) has 3 values"),
    (["gain", "-k", "5", "--discount", "(1,0.5)"], "discount"),
    (["discount", "-k", "5", "--max-iter", "1", "--starts", "0"], "did not converge"),
    (["minimax", "-k", "5"], "at least two cutoffs"),
    (["pareto", "-k", "5"], "two cutoffs, or one cutoff and --prior"),
    (["pareto", "-k", "5", "--versus", "phi"], "--versus: phi is also the --objective"),
    (["pareto", "-k", "5", "-k", "10", "--versus", "erho2"], "--versus: give exactly one"),
    (["pareto", "-k", "5", "--versus", "erho2", "--prior", "log2"], "not both"),
    (["pareto", "-k", "3", "-k", "10", "--prior", "log2"], "--prior: give exactly one"),
])
def test_domain_errors_exit_1_with_a_message(files, capsys, argv, message):
    q, runs = files
    code, _, err = run(capsys, "optimize", argv[0], q, runs, *argv[1:], "--depth", "30")
    assert code == 1
    assert message in err and err.startswith("irstab: error:")


def test_one_system_is_an_error(files, capsys):
    q, runs = files
    one = min(runs.iterdir())
    code, _, err = run(capsys, "optimize", "discount", q, one, "-k", "5", "--depth", "30")
    assert code == 1 and "1 system(s)" in err


def test_help_lists_the_commands(capsys):
    code, out, _ = run(capsys, "optimize", "--help")
    assert code == 0
    for command in ("discount", "gain", "joint", "minimax", "pareto"):
        assert command in out


def test_save_and_plot_to_bad_paths_exit_1_after_printing_the_result(files, capsys, tmp_path):
    q, runs = files
    (tmp_path / "afile").write_text("")
    path = tmp_path / "afile" / "x.png"  # found only when written: its directory is a file
    code, out, err = run(capsys, "optimize", "discount", q, runs, "-k", "10", "--starts", "0",
                         "--depth", "30", "--plot", path)
    assert code == 1
    assert f"cannot write {path}" in err
    assert "# optimal discount @10" in out  # the result was printed before the failed write


def test_save_to_a_directory_is_refused_before_the_optimizer_runs(files, capsys, tmp_path):
    q, runs = files
    (tmp_path / "adir").mkdir()
    code, out, err = run(capsys, "optimize", "discount", q, runs, "-k", "10", "--starts", "0",
                         "--depth", "30", "--save", tmp_path / "adir")
    assert code == 1 and out == ""
    assert f"{tmp_path / 'adir'}: is a directory; this output is one file" in err
