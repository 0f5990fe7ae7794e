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
        # with runs the judge facet is on by default (issue 42 item 3)
        assert sections == {"agreement", "binarised", "all_judges", "survival", "facet",
                            "facet_dstudy"}


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


# ------------------------------------------------- issue 42 items 3, 4, 7: facet and PPI


@pytest.mark.parametrize("design", ["crossed", "nested"])
def test_facet_json_equals_irstab_assessors(capsys, judged, tmp_path, design):
    """The facet of ``irstab judges -f json`` is ``irstab assessors -f json``'s G-study on the
    same input (the same components, Erho2, Phi), to 1e-12 (issue 42 item 3)."""
    d, gold = judged
    judges = d / "judges"
    if design == "nested":  # each judge on its own topics, as a re-annotation study
        judges = tmp_path / "nested"
        judges.mkdir()
        f = pd.read_csv(gold, sep=" ", header=None, dtype=str)
        topics = sorted(f[0].unique())
        rng = np.random.default_rng(1)
        for name, part in (("ann", topics[:4]), ("bob", topics[4:])):
            g = f[f[0].isin(part)]
            grades = np.clip(g[3].astype(int) + rng.integers(-1, 2, len(g)), 0, 3)
            write_qrels(judges / f"{name}-qrels.txt", g[0], g[2], grades)
    code, out, err = cli(capsys, "judges", gold, judges, d / "runs", "-m", "nDCG@10,AP",
                         "-f", "json", "-B", "0")
    assert code == 0, err
    facet = json.loads(out)["facet"]
    # crossed: both judges label the same 6 of the 8 topics, and nist is counted there
    assert [m["design"] for m in facet["measures"]] == [design, design]
    assert facet["judges"][0] == "nist" and len(facet["judges"]) == 3
    code, out, err = cli(capsys, "assessors", gold, d / "runs", "-a", judges, "-m",
                         "nDCG@10,AP", "-f", "json", "-B", "0", "--design", design)
    assert code == 0, err
    ref = {m["measure"]: m for m in json.loads(out)}
    assert [m["measure"] for m in facet["measures"]] == ["nDCG@10", "AP"]
    for m in facet["measures"]:
        r = ref[m["measure"]]
        assert m["variance"].keys() == r["variance"].keys()
        assert (m["n_systems"], m["n_topics"], m["method"]) == (
            r["n_systems"], r["n_topics"], r["method"])
        np.testing.assert_allclose(list(m["variance"].values()), list(r["variance"].values()),
                                   rtol=0, atol=1e-12)
        for key in ("erho2", "phi", "n_assessors"):
            assert m[key] == pytest.approx(r[key], abs=1e-12)
    # and a D-study grid, with the observed topics among its sizes
    sizes = {row["n_topics"] for row in facet["dstudy"]}
    assert facet["measures"][0]["n_topics"] in sizes


def test_no_facet_and_no_runs_leave_it_out(capsys, judged):
    d, gold = judged
    for args in ((d / "judges", d / "runs", "--no-facet"), (d / "judges",)):
        code, out, err = cli(capsys, "judges", gold, *args, "-f", "json", "-B", "0")
        assert code == 0, err
        assert json.loads(out)["facet"] is None and json.loads(out)["ppi"] is None


def _ppi_args(d, gold, *more):
    return ("judges", gold, d / "judges", d / "runs", "-B", "0", "--cheap", "llm", *more)


def test_ppi_json_equals_the_library(capsys, judged):
    """``--gold-topics 4 --seed 5``: the gold topics drawn as :func:`choose_gold_topics` draws
    them, the intervals :func:`ppi_scores` gives on the same score matrices."""
    from irstab.judges.labels import read_judge_sets
    from irstab.judges.ppi import ppi_score_matrices, ppi_scores
    from irstab.judges.study import choose_gold_topics
    from irstab.io import read_qrels

    d, gold = judged
    code, out, err = cli(capsys, *_ppi_args(d, gold, "--gold-topics", "4", "--seed", "5",
                                             "-f", "json"))
    assert code == 0, err
    doc = json.loads(out)["ppi"]
    assert doc["cheap"] == "llm" and doc["gold"] == "nist"
    (res,) = doc["results"]
    sets = read_judge_sets(gold, [d / "judges"])
    topics = sets.judged_topics("llm")
    chosen = choose_gold_topics(topics, 4, 5)
    assert res["gold_topics"] == chosen and res["n_gold"] == 4 and res["n_topics"] == 6
    llm = read_qrels(d / "judges" / "llm-qrels.txt")
    g, c = ppi_score_matrices(gold, llm, sorted((d / "runs").iterdir()), ["nDCG@10"],
                              gold_topics=chosen)["nDCG@10"]
    # 6 runs, top --top-k 10: every pair of runs
    pairs = [(a["system"], a["other"]) for a in res["intervals"]
             if a["kind"] == "pair" and a["method"] == "gold"]
    assert len(pairs) == 15
    lib = ppi_scores(g, c, pairs=pairs).frame
    got = pd.DataFrame(res["intervals"])
    np.testing.assert_allclose(got["lower"].astype(float), lib["lower"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["upper"].astype(float), lib["upper"], rtol=0, atol=1e-12)
    assert list(got["method"][:3]) == ["ppi++", "ppi", "gold"]
    assert "PPI++ intervals of nDCG@10" in json.loads(out)["answer"]


def test_ppi_fraction_file_baseline_and_formats(capsys, judged, tmp_path):
    d, gold = judged
    sets_topics = sorted(pd.read_csv(d / "judges" / "llm-qrels.txt", sep=" ",
                                     header=None, dtype=str)[0].unique())
    listing = tmp_path / "gold-topics.txt"
    listing.write_text("# drawn at random\n" + " ".join(sets_topics[:3]) + "\n"
                       + sets_topics[3] + "\n")
    runs = sorted(p.name for p in (d / "runs").iterdir())
    code, out, err = cli(capsys, *_ppi_args(d, gold, "--gold-topics-file", listing,
                                             "--baseline", runs[0], "-f", "json"))
    assert code == 0, err
    res = json.loads(out)["ppi"]["results"][0]
    assert res["gold_topics"] == sets_topics[:4]
    assert {(r["system"], r["other"]) for r in res["intervals"] if r["kind"] == "pair"} == {
        (r, runs[0]) for r in runs[1:]}
    # a fraction: round(0.5 * 6) = 3 topics
    code, out, err = cli(capsys, *_ppi_args(d, gold, "--gold-topics", "0.5", "-f", "json"))
    assert code == 0, err
    assert json.loads(out)["ppi"]["results"][0]["n_gold"] == 3
    code, out, err = cli(capsys, *_ppi_args(d, gold, "--gold-topics", "0.5"))
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("# Agreement with nist") and "PPI++" in first
    assert "# PPI, nDCG@10, each run's mean: nist's labels on 3 of 6 topics" in out
    assert "# PPI, nDCG@10, each pair's difference" in out
    assert "# judges as a G-study facet" in out and "# D-study" in out
    code, out, err = cli(capsys, *_ppi_args(d, gold, "--gold-topics", "0.5", "-f", "csv"))
    assert code == 0, err
    frame = pd.read_csv(__import__("io").StringIO(out))
    ppi = frame[frame["section"] == "ppi"]
    assert len(ppi) == 3 * (6 + 15) and set(ppi["method"]) == {"ppi++", "ppi", "gold"}


@pytest.mark.parametrize("more, message", [
    (("--gold-topics", "x"), "--gold-topics: expected a count (10) or a fraction (0.2)"),
    (("--gold-topics", "2"), "--gold-topics: 2 gives 2 gold topic(s) of the 6"),
    (("--gold-topics", "99"), "PPI++ needs 3 to 6"),
    (("--gold-topics", "1.5"), "--gold-topics: expected a count >= 3 or a fraction"),
    (("--gold-topics", "3", "--gold-topics-file", "FILE"), "give one of them, not both"),
    (("--gold-topics-file", "FILE"), "topics.txt:2: topic 'nope' is not among the topics llm"),
    (("--gold-topics-file", "MISSING"), "--gold-topics-file: cannot read"),
    (("--gold-topics", "3", "--baseline", "nope"), "--baseline: no run named 'nope'"),
    (("--cheap", "nobody", "--gold-topics", "3"), "--cheap: no judge set named 'nobody'"),
    (("--baseline", "x", "--cheap", None), "--baseline: the pairs of the PPI intervals"),
    (("--gold-topics", "3", "--cheap", None), "--cheap: several judge sets (crowd, llm)"),
    (("--gold-topics", "3", "NORUNS"), "--gold-topics: PPI intervals are of runs' scores"),
])
def test_ppi_bad_options_one_line_exit_1(capsys, judged, tmp_path, more, message):
    d, gold = judged
    first = sorted(pd.read_csv(d / "judges" / "llm-qrels.txt", sep=" ", header=None,
                               dtype=str)[0].unique())[0]
    (tmp_path / "topics.txt").write_text(f"{first}\nnope\n")
    args = ["judges", gold, d / "judges", d / "runs", "-B", "0", "--cheap", "llm"]
    more = list(more)
    if "NORUNS" in more:
        more.remove("NORUNS")
        args.remove(d / "runs")
    if None in more:  # no --cheap at all
        more = [m for m in more if m not in ("--cheap", None)]
        args = args[:-2]
    more = [tmp_path / "topics.txt" if m == "FILE" else tmp_path / "none.txt"
            if m == "MISSING" else m for m in more]
    if "--cheap" in more:
        args = args[:-2]
    code, out, err = cli(capsys, *args, *more)
    assert code == 1 and out == "", err
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 1 and message in lines[0], err
