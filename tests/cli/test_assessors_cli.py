"""``irstab assessors`` and ``irstab stability --design`` through ``irstab.cli.main``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irstab.cli
from irstab.io import write_qrels
from irstab.simulate import simulate_collection

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stability"))
from brennan_data import SYNTHETIC_4  # noqa: E402

# Brennan (2001), Synthetic Data Set No. 4 (raw data Table 3.2) as p x (r:t): published
# G-study components (also quoted in issue 15).
BRENNAN_NESTED = {"s": 0.4731, "t": 0.3252, "a:t": 0.6475, "st": 0.5596, "sa:t": 2.3802}


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def brennan_csv(tmp_path_factory):
    x = SYNTHETIC_4.reshape(10, 3, 4)
    rows = [
        (f"p{s}", f"t{t}", f"r{4 * t + a}", x[s, t, a])
        for s in range(10)
        for t in range(3)
        for a in range(4)
    ]
    p = tmp_path_factory.mktemp("brennan") / "brennan4.csv"
    pd.DataFrame(rows, columns=["system", "topic", "assessor", "score"]).to_csv(p, index=False)
    return p


def test_stability_design_nested_reproduces_brennan(capsys, brennan_csv):
    code, out, err = cli(capsys, "stability", "--scores", brennan_csv, "--design", "nested",
                         "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["design"] == "nested" and row["method"] == "ems"
    for src, published in BRENNAN_NESTED.items():
        assert row["variance"][src] == pytest.approx(published, abs=5e-4)
    # Brennan (2001) D-study at n'_t = 3, n'_r = 4 (closed form, see test_facets_oracles)
    assert round(row["phi"], 3) == 0.464 and round(row["erho2"], 3) == 0.551
    assert row["phi_ci"] is None  # intervals only with --interval bootstrap


def test_stability_design_bootstrap_and_formats(capsys, brennan_csv, tmp_path):
    crossed = tmp_path / "crossed.csv"
    frame = pd.read_csv(brennan_csv)
    frame.assign(assessor="r" + (frame["assessor"].str[1:].astype(int) % 4).astype(str)).to_csv(
        crossed, index=False
    )
    code, out, err = cli(capsys, "stability", "-s", crossed, "--design", "crossed",
                         "--interval", "bootstrap", "--resamples", "100")
    assert code == 0, err
    assert " sta " in out and "bootstrap" in out
    code, out, err = cli(capsys, "stability", "-s", crossed, "--design", "crossed", "-f", "json",
                         "--interval", "bootstrap", "--resamples", "50", "--confidence", "0.5")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["bootstrap"]["confidence"] == 0.5 and row["bootstrap"]["n_resamples"] == 50
    code, _, err = cli(capsys, "stability", "-s", crossed, "--design", "crossed",
                       "--drop-worst", "0.2")
    assert code == 1 and "--drop-worst" in err
    # the nested file read as crossed: each rater judged one task, a and ta confounded
    code, _, err = cli(capsys, "stability", "-s", brennan_csv, "--design", "crossed")
    assert code == 1 and "cannot be separated" in err
    code, out, _ = cli(capsys, "stability", "-s", brennan_csv, "--design", "nested", "-f", "csv")
    head = out.splitlines()[0].split(",")
    assert head[:2] == ["measure", "design"] and "var_sa:t" in head


def test_stability_design_unbalanced(capsys, brennan_csv, tmp_path):
    # rater r3 of task t0 removed: 3 raters there, 4 elsewhere -> Henderson's method 1
    p = tmp_path / "unbalanced.csv"
    frame = pd.read_csv(brennan_csv)
    frame[frame["assessor"] != "r3"].to_csv(p, index=False)
    code, out, err = cli(capsys, "stability", "-s", p, "--design", "nested", "-f", "json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["method"] == "henderson1"
    assert all(c["df"] is None and c["ms"] is None for c in row["components"])
    # harmonic mean of (3, 4, 4) raters per task (Brennan 2001, §7.2)
    assert row["n_assessors"] == pytest.approx(3 / (1 / 3 + 2 / 4))
    code, out, err = cli(capsys, "stability", "-s", p, "--design", "nested")
    assert code == 0, err
    assert "<NA>" not in out and "nan" not in out.lower()


def test_stability_design_bad_file(capsys, tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("system,topic,assessor,score\nA,t1,x,0.5\nA,t1,x,0.7\n")
    code, _, err = cli(capsys, "stability", "-s", p, "--design", "nested")
    assert code == 1 and "bad.csv:3" in err and "duplicate" in err
    p.write_text("system,topic,score\nA,t1,0.5\n")
    code, _, err = cli(capsys, "stability", "-s", p, "--design", "nested")
    assert code == 1 and "bad.csv:1" in err and "assessor" in err
    p.write_text("system,topic,assessor,score\nA,t1,x,abc\n")
    code, _, err = cli(capsys, "stability", "-s", p, "--design", "nested")
    assert code == 1 and "bad.csv:2" in err and "not a number" in err


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    sim = simulate_collection(n_systems=6, n_topics=8, depth=30, seed=5)
    sim.write(d)
    base = sim.qrels.frame
    rng = np.random.default_rng(2)
    (d / "judges").mkdir()
    for name in ("ann", "bob", "cy"):
        g = np.clip(base["grade"].to_numpy() + rng.integers(-1, 2, size=len(base)), 0, 3)
        write_qrels(d / "judges" / f"{name}-qrels.txt", base["topic"], base["docid"], g)
    return d


def test_assessors_command(capsys, collection, tmp_path):
    d = collection
    fig = tmp_path / "phi.png"
    code, out, err = cli(capsys, "assessors", d / "qrels.txt", d / "runs", "-a", d / "judges",
                         "-m", "nDCG@10", "-m", "P@10", "--design", "crossed",
                         "--resamples", "50", "--figure", fig, "-f", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert {r["measure"] for r in rows} == {"nDCG@10", "P@10"}
    assert rows[0]["phi"] >= rows[1]["phi"]  # sorted by Phi
    r = rows[0]
    assert r["design"] == "crossed" and r["n_assessors"] == 4  # qrels + ann, bob, cy
    assert [c["source"] for c in r["components"]] == ["s", "t", "a", "st", "sa", "ta", "sta"]
    assert sum(r["percent"].values()) == pytest.approx(100.0)
    assert r["phi_ci"][0] <= r["phi"] <= r["phi_ci"][1]
    assert fig.stat().st_size > 10_000
    code, out, err = cli(capsys, "assessors", d / "qrels.txt", d / "runs", "-a", d / "judges",
                         "-m", "nDCG@10", "-m", "P@10", "-m", "AP", "--rank-by", "interaction",
                         "--resamples", "0", "-f", "json")
    assert code == 0, err
    shares = [r["percent"]["sa:t"] for r in json.loads(out)]
    assert len(shares) == 3 and shares == sorted(shares)
    code, out, err = cli(capsys, "assessors", d / "qrels.txt", d / "runs", "-a", d / "judges",
                         "--rank-by", "interaction", "--resamples", "0")
    assert code == 0 and "# sorted by the system x assessor share" in out
    code, out, err = cli(capsys, "assessors", d / "qrels.txt", d / "runs", "-a", d / "judges",
                         "--no-base", "--resamples", "0", "--missing", "unjudged")
    assert code == 0, err
    assert "nDCG@10" in out and "a:t" in out


def test_assessors_bad_input(capsys, collection, tmp_path):
    d = collection
    code, _, err = cli(capsys, "assessors", d / "qrels.txt", d / "runs")
    assert code == 1 and "--assessor-qrels" in err
    code, _, err = cli(capsys, "assessors", d / "qrels.txt", d / "runs", "-a", tmp_path / "no")
    assert code == 1 and "no such assessor" in err
    code, _, err = cli(capsys, "assessors", d / "qrels.txt", d / "runs", "-a", d / "judges",
                       "--figure", tmp_path / "x.nope", "--resamples", "0")
    assert code == 1 and "unsupported figure format" in err
    assert not (tmp_path / "x.nope").exists()
