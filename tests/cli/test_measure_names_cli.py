"""trec_eval names, -l, default measures and named measures on the command line.

Oracle for the DL-2019 figures: trec_eval 9 through pytrec_eval with relevance_level=2
(``trec_eval -l 2 -m ndcg_cut.10 -m map -m P.10``), per run and topic, against irstab's
``--trec-eval 9``.
"""

from __future__ import annotations

import json

import pytest

import irstab.cli


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_trec_eval_names_with_l2_equal_trec_eval_on_dl2019(dl2019_dir, capsys):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    code, out, err = cli(
        capsys, "evaluate", dl2019_dir / "qrels.txt", dl2019_dir / "runs",
        "-m", "ndcg_cut.10,map,P.10", "-l", "2", "-q", "-f", "json", "--trec-eval", "9",
    )
    assert code == 0, err
    rows = json.loads(out)
    got = {(r["run"], r["measure"], r["topic"]): r["value"] for r in rows}
    assert {r["measure"] for r in rows} == {"nDCG@10", "AP(rel=2)", "P(rel=2)@10"}

    from test_trec_eval_oracle import _plain_qrels, _plain_run  # tests/ is on sys.path

    qrels = _plain_qrels(dl2019_dir / "qrels.txt")
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "P.10"}, relevance_level=2)
    keys = {"nDCG@10": "ndcg_cut_10", "AP(rel=2)": "map", "P(rel=2)@10": "P_10"}
    worst, n = 0.0, 0
    for path in sorted((dl2019_dir / "runs").glob("*.gz")):
        tag, run = _plain_run(path)
        for topic, values in ev.evaluate(run).items():
            for ours, trec in keys.items():
                worst = max(worst, abs(got[(tag, ours, topic)] - values[trec]))
                n += 1
    assert n == 37 * 43 * 3
    assert worst <= 1e-9


@pytest.fixture
def files(tmp_path):
    # topic 1: a (grade 2), b (grade 1), c (0), d (3, never retrieved);
    # run t ranks b, a, c; run u ranks a, c, b
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d 3\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "t").write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 c 3 1 t\n")
    (runs / "u").write_text("1 Q0 a 1 3 u\n1 Q0 c 2 2 u\n1 Q0 b 3 1 u\n")
    return q, runs


def test_rel_level_changes_binary_measures(files, capsys):
    q, runs = files
    _, out1, _ = cli(capsys, "evaluate", q, runs, "-m", "recip_rank", "-f", "json")
    _, out2, _ = cli(capsys, "evaluate", q, runs, "-m", "recip_rank", "-l", "2", "-f", "json")
    # -l 1: b (t) and a (u) are relevant at rank 1 -> RR 1, 1; -l 2: only a: t has it at 2
    assert [r["value"] for r in json.loads(out1)] == [1.0, 1.0]
    assert [(r["measure"], r["value"]) for r in json.loads(out2)] == [("RR(rel=2)", 0.5),
                                                                     ("RR(rel=2)", 1.0)]
    code, _, err = cli(capsys, "evaluate", q, runs, "-l", "0")
    assert code == 2 and "--rel" in err


def test_default_measures_without_m(files, capsys):
    q, runs = files
    code, out, _ = cli(capsys, "evaluate", q, runs, "-f", "json")
    assert code == 0
    shown = list(dict.fromkeys(r["measure"] for r in json.loads(out)))
    assert shown == list(irstab.metrics.DEFAULT_MEASURES)


def test_named_measure_short_in_tables_full_in_json(files, capsys, tmp_path):
    q, runs = files
    opt = "nDCG(gain=(0,1,3.25,7.5),discount=(1,0.631,0.5))@3"
    (tmp_path / "opt.json").write_text(json.dumps({"measure": opt}))
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", f"@{tmp_path / 'opt.json'}",
                       "-m", "mine=nDCG(gain=exp)@2")
    assert code == 0
    header = out.splitlines()[0].split()
    assert header == ["run", "topic", "opt", "mine"]  # issue 13 item 5: no 358-char column
    code, out, _ = cli(capsys, "evaluate", q, runs, "-m", f"@{tmp_path / 'opt.json'}",
                       "-f", "json")
    rows = json.loads(out)
    assert {r["measure"] for r in rows} == {"opt"}
    assert {r["definition"] for r in rows} == {opt}


def test_named_measure_in_stability_and_compare_json(dl2019_dir, capsys):
    args = [dl2019_dir / "qrels.txt", dl2019_dir / "runs", "-m", "mine=nDCG(gain=exp)@10,map"]
    code, out, err = cli(capsys, "stability", *args, "-f", "json")
    assert code == 0, err
    rows = {r["measure"]: r for r in json.loads(out)}
    assert rows["mine"]["definition"] == "nDCG(gain=exp)@10"
    assert rows["AP"]["definition"] == "AP"
    fast = ["-B", "50", "--swap-trials", "20", "-f", "json"]
    code, out, err = cli(capsys, "compare", *args, *fast, "--top", "20", "--top-by", "mine")
    assert code == 0, err
    rows = {r["measure"]: r for r in json.loads(out)}
    assert rows["mine"]["definition"] == "nDCG(gain=exp)@10"
    code, _, err = cli(capsys, "compare", *args, *fast, "--top", "20", "--top-by", "MAP")
    assert code == 0, err  # any spelling of a compared measure


def test_scores_and_measures_are_exclusive(files, capsys, tmp_path):
    q, runs = files
    s = tmp_path / "s.csv"
    s.write_text("system,t1,t2\na,0.1,0.2\nb,0.3,0.1\n")
    code, _, err = cli(capsys, "stability", "--scores", s, "-l", "2")
    assert code == 1 and "either --scores" in err
