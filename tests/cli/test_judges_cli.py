"""``irstab judges`` through ``irstab.cli.main``: formats, the answer first, qrels told from
runs, one stderr line and exit 1 for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irstab.cli
from irstab.io import write_qrels
from irstab.simulate import simulate_collection


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """A simulated collection: gold qrels, two noisy judge sets (one in a directory), runs."""
    d = tmp_path_factory.mktemp("judged")
    sim = simulate_collection(n_systems=6, n_topics=8, depth=20, seed=3)
    f = sim.qrels.frame
    gold = d / "nist-qrels.txt"
    write_qrels(gold, f.topic, f.docid, f.grade)
    rng = np.random.default_rng(0)
    (d / "judges").mkdir()
    for name, frac in (("crowd", 0.5), ("llm", 0.8)):
        part = f[f.topic.isin(sorted(f.topic.unique())[:6])].sample(frac=frac, random_state=2)
        g = np.clip(part.grade.to_numpy() + rng.integers(-1, 2, len(part)), 0, f.grade.max())
        write_qrels(d / "judges" / f"{name}-qrels.txt", part.topic, part.docid, g)
    runs = d / "runs"
    runs.mkdir()
    for r in sim.runs:
        fr = r.frame
        (runs / r.name).write_text("".join(
            f"{t} Q0 {doc} {rank} {score} {r.name}\n"
            for t, doc, rank, score in zip(fr.topic, fr.docid, fr["rank"], fr.score)))
    return d, gold


def test_json_has_agreement_and_survival(capsys, judged):
    d, gold = judged
    code, out, err = cli(capsys, "judges", gold, d / "runs", d / "judges", "-m",
                         "nDCG@10,AP", "-f", "json", "-B", "50")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["judges"] == ["nist", "crowd", "llm"]
    first = doc["agreement"][0]
    for key in ("judge_a", "judge_b", "n_pairs", "cohen_kappa", "krippendorff_alpha_ordinal"):
        assert key in first
    assert (first["judge_a"], first["judge_b"]) == ("nist", "crowd")
    assert {(r["measure"], r["judge_b"]) for r in doc["survival"]} == {
        (m, j) for m in ("nDCG@10", "AP") for j in ("crowd", "llm")}
    assert doc["answer"].startswith("Agreement with nist over 2 judge set(s)")


def test_json_agreement_equals_the_library(capsys, judged):
    from irstab.judges.agreement import agreement
    from irstab.judges.labels import read_judge_sets

    d, gold = judged
    code, out, _ = cli(capsys, "judges", gold, d / "judges", "-f", "json", "-B", "0")
    assert code == 0
    lib = agreement(read_judge_sets(gold, [d / "judges"]), n_resamples=0)
    got = pd.DataFrame(json.loads(out)["agreement"])
    np.testing.assert_allclose(got["cohen_kappa"], lib.pairs["cohen_kappa"], rtol=0, atol=1e-12)
    assert json.loads(out)["survival"] == []  # no runs: agreement only


def test_table_answer_first_and_flat_formats(capsys, judged):
    d, gold = judged
    code, out, err = cli(capsys, "judges", gold, d / "judges", d / "runs", "-B", "20")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("# Agreement with nist") and "most robust" in lines[0]
    assert "do conclusions survive?" in out
    assert "# confusion: pairs by nist's grade" in out
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        code, out, _ = cli(capsys, "judges", gold, d / "judges", d / "runs", "-f", fmt,
                           "-B", "0")
        assert code == 0
        header = out.splitlines()[0].split(sep)
        assert header[0] == "section"
        sections = {line.split(sep)[0] for line in out.splitlines()[1:]}
        assert sections == {"agreement", "binarised", "all_judges", "survival"}


@pytest.mark.parametrize("case, message", [
    ("one judge", "only one judge set"),
    ("other topics", "none of its"),
    ("unknown grade", "grade 9 is not on the scale"),
    ("not trec", "neither a qrels line"),
    ("missing", "no such file"),
])
def test_bad_input_one_line_exit_1(capsys, judged, tmp_path, case, message):
    d, gold = judged
    args = {
        "one judge": [gold, d / "runs"],
        "other topics": [gold, tmp_path / "other.txt"],
        "unknown grade": [gold, tmp_path / "bad.txt"],
        "not trec": [gold, tmp_path / "notes.txt", d / "judges"],
        "missing": [gold, tmp_path / "nope.txt"],
    }[case]
    (tmp_path / "other.txt").write_text("zzz 0 d1 1\n")
    t = pd.read_csv(gold, sep=" ", header=None).iloc[0, 0]
    (tmp_path / "bad.txt").write_text(f"{t} 0 d1 1\n{t} 0 d2 9\n")
    (tmp_path / "notes.txt").write_text("these are my notes\n")
    code, out, err = cli(capsys, "judges", *args)
    assert code == 1 and out == ""
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 1 and message in lines[0], err
    if case == "unknown grade":
        assert "bad.txt:2:" in lines[0]
