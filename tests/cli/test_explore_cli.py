"""``irstab explore`` end to end through ``irstab.cli.main``; the report and the demo write the page.

Oracles: the page's embedded data (read back as JSON) against the options given; bad input
exits 1 with the option named on stderr and nothing written (README's "Bad input" habits).
"""

from __future__ import annotations

import json
import re

import pytest

from irstab.cli import main
from irstab.simulate import simulate_collection


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _data(path) -> dict:
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="irstab-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=6, n_topics=10, depth=30, seed=8).write(d)
    return d / "qrels.txt", d / "runs"


def test_explore_writes_the_page(capsys, files, tmp_path):
    q, runs = files
    out = tmp_path / "explore.html"
    code, stdout, err = run(capsys, "explore", q, runs, "-o", out, "-k", "20", "--depth", "30",
                            "-m", "nDCG(gain=exp)@5,mine=nDCG(discount=zipf)@20",
                            "--baseline", "nDCG@5", "--confidence", "0.9",
                            "--drop-worst", "0.2")
    assert code == 0, err
    assert stdout.startswith(f"explorer written to {out} (") and "6 systems x 10 topics" in stdout
    data = _data(out)
    assert data["collection"]["cutoff_max"] == 20
    assert data["baseline"]["measure"] == "nDCG@5"
    labels = [p["label"] for p in data["presets"]]
    assert labels[:3] == ["nDCG@5", "nDCG(gain=exp)@5", "mine"]
    assert [p for p in labels if p.startswith("optimal")] == [
        f"optimal {k} @{c}" for c in (10, 20) for k in ("discount", "gain", "joint")]
    assert data["interval"] == {"confidence": 0.9}  # the jackknife: no draws, no seed
    assert len(data["collection"]["systems_out"]) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["explore.html"]


def test_explore_without_optima_reads_a_saved_optimum(capsys, files, tmp_path):
    q, runs = files
    saved = tmp_path / "opt.json"
    code, _, err = run(capsys, "optimize", "discount", q, runs, "-k", "10", "--starts", "0",
                       "--depth", "30", "--save", saved)
    assert code == 0, err
    code, _, err = run(capsys, "explore", q, runs, "-o", tmp_path / "e.html", "-k", "10",
                       "--depth", "30", "-m", f"@{saved}", "--no-optimize")
    assert code == 0, err
    data = _data(tmp_path / "e.html")
    assert [p["label"] for p in data["presets"]] == ["nDCG@10", "opt"]
    assert data["presets"][1]["measure"] == json.loads(saved.read_text())["measure"]


@pytest.mark.parametrize("args, needle", [
    (["-k", "50", "--depth", "30"], "--cutoff 50 is beyond --depth 30"),
    (["-k", "20", "--depth", "30", "--baseline", "nDCG@zz"], "nDCG@zz"),
    (["-k", "20", "--depth", "30", "-m", "AP"], "not an nDCG"),
    (["-k", "20", "--depth", "30", "--drop-worst", "1.5"], "drop_worst"),
    (["-k", "20", "--depth", "30", "--confidence", "1.5"], "confidence"),
])
def test_bad_input_exits_1_and_writes_nothing(capsys, files, tmp_path, args, needle):
    q, runs = files
    out = tmp_path / "e.html"
    code, _, err = run(capsys, "explore", q, runs, "-o", out, "--no-optimize", *args)
    assert code == 1 and needle in err and err.startswith("irstab: error:"), err
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", [["-B", "200"], ["--bootstrap", "200"], ["--seed", "3"]])
def test_explore_has_no_draws_and_no_seed(capsys, files, tmp_path, option):
    # the page's interval (the two-facet jackknife) draws nothing: the options are gone
    q, runs = files
    code, _, err = run(capsys, "explore", q, runs, "-o", tmp_path / "e.html", "--no-optimize",
                       "-k", "10", "--depth", "30", *option)
    assert code == 2 and "No such option" in err and option[0] in err
    assert list(tmp_path.iterdir()) == []


def test_explore_refuses_to_overwrite_its_input(capsys, files):
    q, runs = files
    code, _, err = run(capsys, "explore", q, runs, "-o", q, "--depth", "30", "-k", "10",
                       "--no-optimize")
    assert code == 1 and str(q.name) in err
    assert q.read_text().split()[0]  # the qrels are intact


def test_report_writes_and_links_the_explorer(capsys, files, tmp_path):
    q, runs = files
    out_dir = tmp_path / "rep"
    code, out, err = run(capsys, "report", q, runs, "--cutoffs", "5,10", "-o", out_dir,
                         "--starts", "0", "--bootstrap", "40", "--depth", "30")
    assert code == 0, err
    page = out_dir / "explore.html"
    assert f"  {page}" in out.splitlines()
    data = _data(page)
    assert data["collection"]["cutoff_max"] == 10 and data["interval"] == {"confidence": 0.95}
    report = json.loads((out_dir / "report.json").read_text())
    assert report["explorer"]["file"] == "explore.html"
    assert sum(p["family"] == "optimizer" for p in data["presets"]) == 6
    assert sum(p["family"] == "minimax" for p in data["presets"]) >= 1
    assert '<a href="explore.html">' in (out_dir / "report.html").read_text()
    assert "[explore.html](explore.html)" in (out_dir / "report.md").read_text()
