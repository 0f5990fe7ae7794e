"""`irstab preferences` through ``irstab.cli.main``.

Expected numbers: the ANOVA F values printed in data/ecir2015-dcg/anova.txt (Urbano & Marrero's
own output), and agreement rates counted by hand in the comments of the small file below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import irstab.cli

CROWD = Path(__file__).resolve().parents[2] / "data" / "ecir2015-dcg" / "crowd.csv"


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_crowd_json_has_the_anova_and_every_configuration(capsys, tmp_path):
    out_file = tmp_path / "p.json"
    code, out, err = cli(capsys, "preferences", CROWD, "-B", "100", "--no-bias-intervals",
                         "-f", "json", "-o", out_file)
    assert code == 0, err
    d = json.loads(out_file.read_text())
    f = {(r["score"], r["factor"]): r["f"] for r in d["anova"]}
    assert set(d["anova"][0]) == {"score", "factor", "df", "sum_sq", "f"}
    # output/anova.txt: F gain 139.445 / 647.68 / 268.89, discount 14.191 / 177.73 / 196.85
    assert [round(f[(b, "gain")], p) for b, p in (("b1", 3), ("b2", 2), ("b3", 2))] == \
        [139.445, 647.68, 268.89]
    assert [round(f[(b, "discount")], p) for b, p in (("b1", 3), ("b2", 2), ("b3", 2))] == \
        [14.191, 177.73, 196.85]
    assert len(d["measures"]) == 36
    row = d["measures"][0]
    assert row["measure"] == "DCG(gain=b2,discount=z)" and row["gain"] == "b2"
    assert row["agree"] + row["disagree"] + row["tie"] + row["no_preference"] == 4115
    assert row["agreement"] == pytest.approx(row["agree"] / (row["agree"] + row["disagree"]))
    assert d["n_topics"] == 432 and d["resampled"] == "topics"


def test_table_answers_first(capsys, tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 e1 1\n2 0 e2 3\n")
    prefs = tmp_path / "prefs.tsv"
    prefs.write_text("topic\tranking_a\tranking_b\tpreferred\n"
                     "1\td1 d2\td2 d1\tA\n"     # nDCG: A ahead, judge A: agree
                     "2\te2\te1\tA\n"           # A ahead, judge A: agree
                     "2\te1 e2\te2 e1\tA\n")    # B ahead, judge A: disagree
    code, out, err = cli(capsys, "preferences", prefs, qrels, "-m", "nDCG@10,P@1", "-B", "50")
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("# best agreement with the judges: ")
    # P@1: d1 vs d2 both relevant (tie), e2 vs e1 tie, e1 vs e2 tie: nothing counted
    assert "nDCG@10: 0.667" in first


def test_a_bad_row_is_one_located_line(capsys, tmp_path):
    prefs = tmp_path / "prefs.csv"
    prefs.write_text("topic,a:m,b:m,preferred\n1,0.1,0.2,A\n1,0.3,0.2,perhaps\n")
    code, out, err = cli(capsys, "preferences", prefs)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert f"{prefs}:3:" in lines[0] and "column 4 (preferred)" in lines[0]


def test_rankings_without_qrels_is_one_line(capsys, tmp_path):
    prefs = tmp_path / "prefs.csv"
    prefs.write_text("topic,ranking_a,ranking_b,preferred\n1,d1,d2,A\n")
    code, out, err = cli(capsys, "preferences", prefs)
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and "qrels" in err


def test_example_preferences_resample_judges(capsys):
    # data/example-preferences: 720 judgments by 6 simulated judges whose user model is an
    # exponential gain with a steep discount (its README): exp/zipf agrees more than nDCG@10
    root = CROWD.parents[1]
    code, out, err = cli(capsys, "preferences", root / "example-preferences" / "preferences.csv",
                         root / "example" / "qrels.txt", root / "example" / "runs",
                         "-m", "nDCG@10,nDCG(gain=exp,discount=zipf)@10", "-B", "200",
                         "--no-bias-intervals", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["resampled"] == "topics and judges" and d["n_judges"] == 6
    assert d["n_comparisons"] == 720 and d["n_topics"] == 30
    rates = {r["measure"]: r["agreement"] for r in d["measures"]}
    assert rates["nDCG(gain=exp,discount=zipf)@10"] > rates["nDCG@10"]
    assert d["best"] == "nDCG(gain=exp,discount=zipf)@10"
