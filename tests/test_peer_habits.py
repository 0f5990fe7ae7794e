"""Peers' objects, layouts and habits, read by the API and the CLI.

Oracles: the real ranx and ir_measures packages (their objects, and ranx's own scores on
TREC DL 2019 runs without score ties), irstab's reading of the same data from TREC files,
and pandas/pyarrow reading back what irstab wrote.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import irstab
import irstab.cli

from jit_warmup import RANX_METRICS

ir_measures = pytest.importorskip("ir_measures")
# ranx: the session fixture of tests/conftest.py (its JIT warmed outside the tests' deadlines)

# runs whose top 100 holds no score tie: every tool orders them alike
UNTIED = ["ICT-BERT2", "TUA1-1", "bm25base_rm3_p", "idst_bert_p1"]


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def dl(dl2019_dir, ranx):
    qrels = ranx.Qrels.from_file(str(dl2019_dir / "qrels.txt"), kind="trec")
    runs, frames = [], {}
    for n in UNTIED:
        f = irstab.read_run(dl2019_dir / "runs" / f"{n}.gz").frame
        frames[n] = f
        f = f.assign(topic=f["topic"].astype(str).astype(object),
                     docid=f["docid"].astype(str).astype(object))
        run = ranx.Run.from_df(f, q_id_col="topic", doc_id_col="docid", score_col="score")
        run.name = n
        runs.append(run)
    return qrels, runs, frames


def _means(frame):
    return frame[frame["topic"] == "all"].set_index(["run", "measure"])["value"]


def test_ranx_objects_evaluate_as_the_trec_files(dl, dl2019_dir):
    qrels, runs, _ = dl
    ours = irstab.evaluate(qrels, runs, ["nDCG@10", "AP"])
    files = irstab.evaluate(dl2019_dir / "qrels.txt",
                            [dl2019_dir / "runs" / f"{n}.gz" for n in UNTIED], ["nDCG@10", "AP"])
    pd.testing.assert_series_equal(_means(ours), _means(files), rtol=1e-12)
    assert list(dict.fromkeys(ours["run"])) == UNTIED  # each ranx Run keeps its name


@pytest.mark.parametrize("ranx_name", RANX_METRICS)
def test_ranx_names_and_relevance_suffix_score_as_ranx(dl, ranx, ranx_name):
    qrels, runs, _ = dl
    ours = _means(irstab.evaluate(qrels, runs, [ranx_name], depth=1000))
    for run in runs:
        ref = ranx.evaluate(qrels, run, ranx_name, make_comparable=True)
        assert ours[(run.name, str(irstab.parse_measure(ranx_name)))] == pytest.approx(ref, abs=1e-9)


def test_ir_measures_objects_are_measures(dl, dl2019_dir):
    qrels, runs, _ = dl
    objs = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5, ir_measures.RR(rel=2) @ 10,
            ir_measures.IPrec @ 0.5, ir_measures.Judged @ 10, ir_measures.Bpref]
    ours = irstab.evaluate(qrels, runs, objs)
    texts = irstab.evaluate(qrels, runs, ["nDCG@10", "P(rel=2)@5", "RR(rel=2)@10",
                                          "IPrec(recall=0.5)", "Judged@10", "bpref"])
    pd.testing.assert_series_equal(_means(ours), _means(texts))
    assert irstab.parse_measure(ir_measures.AP(rel=2)) == irstab.parse_measure("AP(rel=2)")
    # and what ir_measures computes for them, on runs without ties (pytrec_eval provider)
    ref = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5],
                                     ir_measures.read_trec_qrels(str(dl2019_dir / "qrels.txt")),
                                     ir_measures.read_trec_run(str(dl2019_dir / "runs"
                                                                   / "ICT-BERT2.gz")))
    m = _means(ours)
    assert m[("ICT-BERT2", "nDCG@10")] == pytest.approx(ref[ir_measures.nDCG @ 10], abs=1e-6)
    assert m[("ICT-BERT2", "P(rel=2)@5")] == pytest.approx(ref[ir_measures.P(rel=2) @ 5],
                                                          abs=1e-6)


def test_q_id_doc_id_columns_and_pyterrier_name_column(dl, tmp_path):
    qrels, runs, frames = dl
    both = pd.concat([runs[0].to_dataframe().assign(name=UNTIED[0]),
                      runs[1].to_dataframe().assign(name=UNTIED[1])])
    assert {"q_id", "doc_id", "score"} <= set(both.columns)  # ranx's column names
    ours = irstab.evaluate(qrels, both, ["nDCG@10"])
    ref = irstab.evaluate(qrels, runs[:2], ["nDCG@10"])
    pd.testing.assert_series_equal(_means(ours), _means(ref))
    # PyTerrier's result frame: qid, docno, score, rank and the experiment's name column
    pt = both.rename(columns={"q_id": "qid", "doc_id": "docno"})
    pd.testing.assert_series_equal(_means(irstab.evaluate(qrels, pt, ["nDCG@10"])), _means(ref))


def test_the_cli_reads_q_id_doc_id_and_name_columns_from_parquet(capsys, dl, dl2019_dir,
                                                                  tmp_path):
    _, runs, _ = dl
    both = pd.concat([runs[0].to_dataframe().assign(name=UNTIED[0]),
                      runs[1].to_dataframe().assign(name=UNTIED[1])])
    both.to_parquet(tmp_path / "runs.parquet")
    code, out, err = cli(capsys, "evaluate", dl2019_dir / "qrels.txt", tmp_path / "runs.parquet",
                         "-m", "ndcg@10", "-f", "json")
    assert code == 0, err
    got = {r["run"]: r["value"] for r in json.loads(out)}
    ref = _means(irstab.evaluate(dl2019_dir / "qrels.txt",
                                 [dl2019_dir / "runs" / f"{n}.gz" for n in UNTIED[:2]],
                                 ["nDCG@10"]))
    assert got == pytest.approx({n: ref[(n, "nDCG@10")] for n in UNTIED[:2]}, abs=1e-12)


# ---------------------------------------------------------------- gt4ireval's matrix


R_WRITE_CSV = '"sysA","sysB","sysC"\n0.5,0.1,0.3\n0.6,0.2,0.35\n0.7,0.1,0.2\n0.4,0.3,0.3\n0.55,0.25,0.1\n'


def test_gt4ireval_matrix_reads_in_the_cli_as_gstudy_reads_the_frame(capsys, tmp_path):
    path = tmp_path / "ap.csv"
    path.write_text(R_WRITE_CSV)  # R: write.csv(m, row.names = FALSE), topics in rows
    g = irstab.gstudy(pd.read_csv(path), systems="columns", name="ap")
    code, out, err = cli(capsys, "stability", "--scores", path, "--systems", "columns",
                         "-f", "json")
    assert code == 0, err
    row = json.loads(out)[0]
    assert (row["n_systems"], row["n_topics"]) == (3, 5)
    assert row["var_system"] == pytest.approx(g.var_system, rel=1e-12)
    assert row["phi"] == pytest.approx(g.phi, rel=1e-12)
    frame = irstab.read_score_matrix(path, systems="columns")
    assert list(frame.index) == ["sysA", "sysB", "sysC"] and frame.shape == (3, 5)


def test_gt4ireval_matrix_with_systems_rows_is_refused_with_the_fix(capsys, tmp_path):
    path = tmp_path / "ap.csv"
    path.write_text(R_WRITE_CSV)
    code, out, err = cli(capsys, "stability", "--scores", path, "--systems", "rows")
    assert code == 1 and "no label column" in err and "--systems columns" in err


# ---------------------------------------------------------------- CLI habits


def test_ir_measures_argument_order_gets_a_hint(capsys, dl2019_dir):
    code, out, err = cli(capsys, "evaluate", dl2019_dir / "qrels.txt",
                         dl2019_dir / "runs" / "p_bert.gz", "nDCG@10 P@5")
    assert code == 1 and out == ""
    assert "nDCG@10 P@5: no such run file" in err and "-m 'nDCG@10 P@5'" in err


def test_parquet_output_is_parquet(capsys, dl2019_dir, tmp_path):
    out_file = tmp_path / "results.parquet"
    code, out, err = cli(capsys, "evaluate", dl2019_dir / "qrels.txt",
                         dl2019_dir / "runs" / "p_bert.gz", "-m", "nDCG@10,AP", "-q",
                         "-o", out_file)
    assert code == 0, err
    code, csv, err = cli(capsys, "evaluate", dl2019_dir / "qrels.txt",
                         dl2019_dir / "runs" / "p_bert.gz", "-m", "nDCG@10,AP", "-q", "-f", "csv")
    got = pd.read_parquet(out_file)
    ref = pd.read_csv(__import__("io").StringIO(csv), dtype={"topic": str})
    assert list(got.columns) == ["run", "measure", "topic", "value"] and len(got) == 2 * 44
    np.testing.assert_allclose(got["value"], ref["value"], atol=5e-7)  # csv prints 6 digits


@pytest.mark.parametrize("command", [
    ["stability", "-m", "AP"], ["evaluate", "-f", "trec"], ["systems", "-m", "AP"]])
def test_text_commands_refuse_a_parquet_name_and_write_nothing(capsys, dl2019_dir, tmp_path,
                                                                command):
    out_file = tmp_path / "x.parquet"
    code, out, err = cli(capsys, command[0], dl2019_dir / "qrels.txt",
                         dl2019_dir / "runs" / "p_bert.gz", *command[1:], "-o", out_file)
    assert code == 1 and "Parquet" in err
    assert not out_file.exists()


def test_tied_runs_are_named_with_their_share_and_order_rank_silences_it(capsys, dl2019_dir):
    runs = [dl2019_dir / "runs" / f"{n}.gz" for n in ("test1", "UNH_bm25", "p_bert")]
    code, out, err = cli(capsys, "evaluate", dl2019_dir / "qrels.txt", *runs, "-m", "RR")
    assert code == 0
    # shares counted in the files: 96 % and 70 % of ranks sit in a block of equal scores
    assert "2 run(s) give many documents the same score" in err
    assert "test1 (96% of ranks tied)" in err and "UNH_bm25 (70% of ranks tied)" in err
    assert "p_bert" not in err
    code, out, err = cli(capsys, "evaluate", dl2019_dir / "qrels.txt", *runs, "-m", "RR",
                         "--order", "rank")
    assert code == 0 and "same score" not in err


def test_every_command_that_reads_runs_has_the_shared_order_option():
    import inspect

    import irstab.cli.program as program
    from irstab.cli._common import ORDER_OPTION

    apps = [program.app, *(g.typer_instance for g in program.app.registered_groups)]
    commands = {c.name or c.callback.__name__: c.callback
                for a in apps for c in a.registered_commands}
    readers = {n for n, f in commands.items()
               if {"runs", "run"} & set(inspect.signature(f).parameters)}
    assert readers == {"evaluate", "stability", "topics", "crp", "compare", "report",
                       "assessors", "explore", "judges", "systems", "calibrate", "discount",
                       "gain", "joint", "minimax", "pareto", "power", "budget", "preferences"}
    for name in readers:
        param = inspect.signature(commands[name]).parameters.get("order")
        assert param is not None and param.default is ORDER_OPTION, name
