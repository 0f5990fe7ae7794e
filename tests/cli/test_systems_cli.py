"""`irstab systems` through ``irstab.cli.main``.

Expected numbers come from the library (irstab.systems.table, checked against scipy,
statsmodels and ranx in tests/systems/test_significance.py); the LaTeX is compiled by
pdflatex where it is installed (Debian's texlive-latex-base), else that check skips.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import irstab
import irstab.cli
from irstab.systems.table import compare_systems
from irstab.simulate import simulate_collection


@pytest.fixture(scope="module")
def coll_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=5, n_topics=15, depth=20, seed=3).write(d)
    return d


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_json_is_the_library_result(capsys, coll_dir):
    code, out, err = cli(capsys, "systems", coll_dir / "qrels.txt", coll_dir / "runs",
                         "-m", "nDCG@10", "--test", "permutation", "-B", "2000", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    x = irstab.score_matrix(irstab.Collection.from_files(coll_dir / "qrels.txt",
                                                         coll_dir / "runs"), "nDCG@10")
    ref = compare_systems(x, test="permutation", n_resamples=2000, seed=0)
    assert got["test"] == "permutation" and got["correction"] == "holm"
    assert got["n_resamples"] == 2000 and len(got["pairs"]) == 10
    np.testing.assert_allclose([p["p_adjusted"] for p in got["pairs"]], ref.pairs["p_adjusted"])
    assert [s["better_than"] for s in got["systems"]] == list(ref.systems["better_than"])


def test_table_marks_and_pairs_on_dl2019(capsys, dl2019_dir):
    code, out, err = cli(capsys, "systems", dl2019_dir / "qrels.txt", dl2019_dir / "runs",
                         "-m", "nDCG@10", "--baseline", "bm25base_p")
    assert code == 0, err
    assert out.startswith("# nDCG@10 over 43 topics; each system against bm25base_p (36 pairs), "
                          "paired t-test, Holm's adjustment")
    # idst_bert_p1 (label u) beats the BM25 baseline (label n): t = 7.0 on 42 df
    assert any(line.split()[:3] == ["u", "idst_bert_p1", "0.7645ⁿ"] for line in out.splitlines())
    assert "test1 (96% of ranks tied)" in err  # the tied runs are named


def test_csv_has_one_row_per_pair(capsys, coll_dir):
    code, out, err = cli(capsys, "systems", coll_dir / "qrels.txt", coll_dir / "runs",
                         "-m", "AP", "--test", "wilcoxon", "--correction", "bh", "-f", "csv")
    assert code == 0, err
    frame = pd.read_csv(__import__("io").StringIO(out))
    assert len(frame) == 10
    assert (frame["p_adjusted"] >= frame["p_value"] - 1e-15).all()


def test_markdown_marks_with_sup(capsys, coll_dir):
    code, out, err = cli(capsys, "systems", coll_dir / "qrels.txt", coll_dir / "runs",
                         "-m", "nDCG@10", "-f", "markdown")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "| | system | nDCG@10 |" and len(lines) == 2 + 5 + 2
    assert "paired t-test" in lines[-1]


def test_latex_compiles(capsys, coll_dir, tmp_path):
    code, out, err = cli(capsys, "systems", coll_dir / "qrels.txt", coll_dir / "runs",
                         "-m", "nDCG(gain=exp)@10", "-f", "latex")
    assert code == 0, err
    assert r"\begin{tabular}{llr}" in out and r"\caption{" in out
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (Debian: texlive-latex-base)")
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                   + out + "\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 0


def test_score_file_in_gt4ireval_layout(capsys, tmp_path):
    x = pd.DataFrame({"sysA": [0.5, 0.6, 0.7, 0.4], "sysB": [0.1, 0.2, 0.1, 0.3]})
    x.to_csv(tmp_path / "ap.csv", index=False)  # R's write.csv(m, row.names = FALSE)
    code, out, err = cli(capsys, "systems", "--scores", tmp_path / "ap.csv",
                         "--systems", "columns", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["measure"] == "ap" and [s["system"] for s in got["systems"]] == ["sysA", "sysB"]
    assert got["pairs"][0]["p_value"] == pytest.approx(0.035791, abs=1e-6)  # scipy ttest_rel


@pytest.mark.parametrize("extra, message", [
    (["-m", "nDCG@10", "--baseline", "nope"], "baseline: no system named 'nope'"),
    (["-m", "nDCG@10", "--test", "tukey", "--correction", "holm"], "family-wise"),
    (["-m", "nDCG@10,AP"], "one measure, got 2"),
    ([], "give the measure"),
    # 10 pairs under Holm: 1/(B + 1) must fall below 0.05/10, so B >= 10/0.05 = 200
    (["-m", "AP", "--test", "bootstrap", "-B", "199"], "give at least 200"),
])
def test_errors_exit_1_with_message(capsys, coll_dir, extra, message):
    code, out, err = cli(capsys, "systems", coll_dir / "qrels.txt", coll_dir / "runs", *extra)
    assert code == 1
    assert err.startswith("irstab: error:") and message in err, err
    assert out == ""
