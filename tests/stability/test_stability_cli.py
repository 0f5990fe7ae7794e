"""``irstab stability`` and ``irstab topics`` end to end (through irstab.cli.main)."""

from __future__ import annotations

import json
import warnings
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from brennan_data import SYNTHETIC_1, SYNTHETIC_4

import irstab.cli.stability  # noqa: F401  (registers the commands)
from irstab.cli import main
from irstab.errors import IRStabWarning
from irstab.stability import gstudy

DL2019 = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "trec-dl-2019-passage"

JSON_KEYS = [
    "measure",
    "definition",  # the full measure string; null for a score file
    "n_systems",
    "n_topics",
    "var_system",
    "var_topic",
    "var_residual",
    "erho2",
    "erho2_ci",
    "phi",
    "phi_ci",
    "topics_needed_phi",
    "topics_needed_phi_ci",  # the interval the table shows
    "topics_needed_erho2",
    "topics_needed_erho2_ci",
]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def score_files(tmp_path):
    paths = []
    for name, x in (("brennan1", SYNTHETIC_1), ("brennan4", SYNTHETIC_4)):
        frame = pd.DataFrame(
            x, index=[f"p{i}" for i in range(10)], columns=[f"i{j}" for j in range(12)]
        )
        frame.index.name = "system"
        p = tmp_path / f"{name}.csv"
        frame.to_csv(p)
        paths.append(p)
    return paths


def test_stability_json_keys_values_and_order(capsys, score_files):
    code, out, err = run(
        capsys, "stability", "--scores", score_files[1], "--scores", score_files[0], "-f", "json"
    )
    assert code == 0, err
    rows = json.loads(out)
    assert [list(r) for r in rows] == [JSON_KEYS, JSON_KEYS]
    # sorted by Phi: Brennan No. 1 (Phi .773) before No. 4 (Phi .672), values from
    # Brennan (2001) as in test_gstudy_oracles.py
    assert [r["measure"] for r in rows] == ["brennan1", "brennan4"]
    assert [r["definition"] for r in rows] == [None, None]
    assert round(rows[0]["phi"], 3) == 0.773 and round(rows[0]["erho2"], 3) == 0.844
    g = gstudy(SYNTHETIC_4)
    assert rows[1]["phi_ci"] == pytest.approx(list(g.phi_interval()))
    assert rows[1]["erho2_ci"] == pytest.approx(list(g.erho2_interval()))
    assert rows[1]["topics_needed_phi"] == g.topics_needed(0.95, "phi").n
    assert rows[1]["topics_needed_erho2"] == g.topics_needed(0.95, "erho2").n
    need = g.topics_needed(0.95, "phi")
    assert rows[1]["topics_needed_phi_ci"] == [need.lower, need.upper]  # as the table shows it
    assert all(isinstance(v, int) for v in [need.n, need.lower, need.upper])


def test_stability_table_and_tsv(capsys, score_files, tmp_path):
    code, out, _ = run(
        capsys, "stability", "-s", score_files[0], "--target", "0.9", "--confidence", "0.8"
    )
    assert code == 0
    assert "brennan1" in out and "topics Phi>=0.9" in out and "80% two-sided" in out
    out_file = tmp_path / "res.tsv"
    code, _, err = run(capsys, "stability", "-s", score_files[0], "-f", "tsv", "-o", out_file)
    assert code == 0 and "wrote" in err
    frame = pd.read_csv(out_file, sep="\t")
    assert frame.loc[0, "n_systems"] == 10 and round(frame.loc[0, "var_system"], 4) == 0.0574
    assert frame.loc[0, "pct_system"] + frame.loc[0, "pct_topic"] + frame.loc[
        0, "pct_residual"
    ] == pytest.approx(100)


def test_stability_drop_worst(capsys, score_files):
    code, out, _ = run(
        capsys, "stability", "-s", score_files[1], "--drop-worst", "0.3", "-f", "json"
    )
    assert code == 0
    # Synthetic No. 4 person means: the 2nd and 3rd lowest are tied (3.9167), so
    # floor(0.3 * 10) = 3 drops exactly 3 (arithmetic on the table)
    assert json.loads(out)[0]["n_systems"] == 7


def test_stability_bootstrap_is_seeded(capsys, score_files):
    argv = [
        "stability",
        "-s",
        score_files[1],
        "-f",
        "json",
        "--interval",
        "bootstrap",
        "--resamples",
        "300",
    ]
    a = run(capsys, *argv, "--seed", "3")[1]
    b = run(capsys, *argv, "--seed", "3")[1]
    c = run(capsys, *argv, "--seed", "4")[1]
    assert a == b and a != c
    assert json.loads(a)[0]["phi"] == json.loads(c)[0]["phi"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["stability"], "give QRELS and at least one RUN"),
        (["stability", "qrels.txt", "run1", "-m", "nope"], "unknown measure"),  # before reading
        (["stability", "qrels.txt", "--scores", "x.csv"], "not both"),
        (["stability", "--scores", "nope.csv"], "nope.csv: no such file"),
        (["topics", "--scores", "nope.csv", "-n", "0"], "--topics"),
    ],
)
def test_usage_errors_exit_1(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert message in err and "Traceback" not in err


def test_score_files_must_give_distinct_names(capsys, tmp_path):
    # two files named x (the measure name of a file without a measure column)
    for sub, sep in (("a", ","), ("b", "\t")):
        (tmp_path / sub).mkdir()
        text = f"system{sep}t1{sep}t2\np{sep}0.5{sep}0.1\nq{sep}0.2{sep}0.3\n"
        (tmp_path / sub / ("x.csv" if sep == "," else "x.tsv")).write_text(text)
    code, out, err = run(capsys, "stability", "-s", tmp_path / "a/x.csv", "-s", tmp_path / "b/x.tsv")
    assert code == 1 and out == "" and "distinct measure names" in err


def test_degenerate_scores_exit_1(capsys, tmp_path):
    p = tmp_path / "const.csv"
    p.write_text("system,t1,t2\na,0.5,0.5\nb,0.5,0.5\n")
    code, _, err = run(capsys, "stability", "-s", p)
    assert code == 1 and "all 4 scores are equal" in err
    p.write_text("system,t1,t2\na,0.5,\nb,0.5,0.1\n")
    code, _, err = run(capsys, "stability", "-s", p)
    assert code == 1 and "line 2: (system 'a', topic 't2')" in err


def test_negative_component_warning_on_stderr(capsys, tmp_path):
    p = tmp_path / "neg.csv"
    p.write_text("system,t1,t2\na,1,0\nb,0,1\n")
    code, out, err = run(capsys, "stability", "-s", p, "-f", "json")
    assert code == 0 and "irstab: warning: neg: negative variance" in err
    assert json.loads(out)[0]["var_system"] == -0.5
    assert json.loads(out)[0]["topics_needed_phi"] is None


def test_topics_outputs(capsys, score_files):
    code, out, _ = run(
        capsys,
        "topics",
        "-s",
        score_files[1],
        "-n",
        "12",
        "-n",
        "50",
        "--target",
        "0.8",
        "-f",
        "json",
    )
    assert code == 0
    data = json.loads(out)
    assert [r["n_topics"] for r in data["curve"]] == [12, 50]
    assert data["curve"][0]["phi"] == pytest.approx(gstudy(SYNTHETIC_4).phi(12))
    assert [(r["coefficient"], r["target"]) for r in data["topics_needed"]] == [
        ("phi", 0.8),
        ("erho2", 0.8),
    ]
    code, out, _ = run(capsys, "topics", "-s", score_files[1], "--needed", "-f", "csv")
    frame = pd.read_csv(StringIO(out))
    assert list(frame.columns) == [
        "measure",
        "coefficient",
        "target",
        "topics_needed",
        "lower",
        "upper",
    ]
    assert sorted(set(frame["target"])) == [0.8, 0.9, 0.95]
    code, out, _ = run(capsys, "topics", "-s", score_files[1])
    assert code == 0 and "# topics needed" in out
    default_sizes = {1, 5, 10, 20, 50, 100, 200, 12}
    code, out, _ = run(capsys, "topics", "-s", score_files[1], "-f", "csv")
    assert set(pd.read_csv(StringIO(out))["n_topics"]) == default_sizes


def test_topics_figure(capsys, score_files, tmp_path):
    png = tmp_path / "d.png"
    code, _, err = run(
        capsys,
        "topics",
        "-s",
        score_files[0],
        "-s",
        score_files[1],
        "--figure",
        png,
        "--coefficient",
        "both",
    )
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(capsys, "topics", "-s", score_files[0], "--figure", tmp_path / "d.xyz")
    assert code == 1 and "unsupported figure format" in err
    assert not (tmp_path / "d.xyz").exists()


def test_stability_on_dl2019_runs(capsys):
    if not (DL2019 / "qrels.txt").is_file():
        pytest.skip(f"TREC DL 2019 data not found at {DL2019}")
    from irstab.collection import Collection
    from irstab.metrics import parse_measure

    code, out, err = run(
        capsys,
        "stability",
        DL2019 / "qrels.txt",
        DL2019 / "runs",
        "-m",
        "nDCG@10",
        "-m",
        "P@10",
        "-f",
        "json",
    )
    assert code == 0, err
    rows = {r["measure"]: r for r in json.loads(out)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        coll = Collection.from_files(DL2019 / "qrels.txt", DL2019 / "runs", depth=1000)
    for m in ("nDCG@10", "P@10"):
        g = gstudy(parse_measure(m).compute(coll))
        assert (
            rows[m]["n_systems"] == 37 and rows[m]["n_topics"] == 43
        )  # DESIGN.md: 37 runs, 43 topics
        assert rows[m]["phi"] == pytest.approx(g.phi(), rel=1e-12)
        assert rows[m]["var_residual"] == pytest.approx(g.var_residual, rel=1e-12)
    assert np.all(np.diff([r["phi"] for r in json.loads(out)]) <= 0)
