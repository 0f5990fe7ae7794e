"""Qrels and runs from DataFrames, Parquet/Arrow, dicts and ir_datasets records.

Oracle: the same data read from TREC text files by the TREC reader (itself tested
against pytrec_eval), and pytrec_eval directly on the dicts it takes.
"""

from __future__ import annotations

import gzip
import sys
import types
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import InputFormatError, IRStabError

MEASURES = ["nDCG@10", "AP", "P@10", "RR", "bpref", "Recall@100"]


@pytest.fixture(scope="module")
def dl_small(dl2019_dir):
    """DL-2019 qrels and three runs as TREC files and as plain frames."""
    files = sorted((dl2019_dir / "runs").glob("*.gz"))[:3]
    q = pd.read_csv(dl2019_dir / "qrels.txt", sep=" ", header=None,
                    names=["topic", "iteration", "docid", "grade"], dtype=str)
    q["grade"] = q["grade"].astype(int)
    runs = {}
    for f in files:
        with gzip.open(f, "rt") as fh:
            r = pd.read_csv(fh, sep=" ", header=None,
                            names=["topic", "q0", "docid", "rank", "score", "tag"],
                            dtype={"topic": str, "docid": str, "tag": str})
        runs[r["tag"].iloc[0]] = r
    expected = irstab.evaluate(dl2019_dir / "qrels.txt", files, MEASURES, per_topic=True)
    return q, runs, expected


def _same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    key = ["run", "measure", "topic"]
    a = got.sort_values(key, ignore_index=True)
    b = expected.sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(a[key], b[key])
    np.testing.assert_allclose(a["value"], b["value"], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "names",
    [
        # ir_measures / ir_datasets
        {"topic": "query_id", "docid": "doc_id", "grade": "relevance"},
        # PyTerrier
        {"topic": "qid", "docid": "docno", "grade": "label"},
        # TREC
        {"topic": "topic", "docid": "docid", "grade": "grade"},
    ],
)
def test_dataframes_in_each_column_convention_equal_trec_files(dl_small, names):
    q, runs, expected = dl_small
    qdf = q.rename(columns=names)
    frames = {name: r.rename(columns=names)[[names["topic"], names["docid"], "score"]]
              for name, r in runs.items()}
    got = irstab.evaluate(qdf, frames, MEASURES, per_topic=True)
    _same(got, expected)


def test_one_dataframe_with_run_column_is_several_runs(dl_small):
    q, runs, expected = dl_small
    long = pd.concat([r.rename(columns={"tag": "run"}) for r in runs.values()])
    got = irstab.evaluate(q, long[["run", "topic", "docid", "score"]], MEASURES, per_topic=True)
    _same(got, expected)


def test_single_dataframe_run_via_top_level_evaluate(dl_small):
    q, runs, expected = dl_small
    name, r = next(iter(runs.items()))
    got = irstab.evaluate(q.rename(columns={"grade": "relevance"}),
                          r[["topic", "docid", "score"]], ["nDCG@10"])
    want = expected[(expected.run == name) & (expected.measure == "nDCG@10")
                    & (expected.topic == "all")]["value"].item()
    assert got["run"].tolist() == ["run"]
    assert got["value"].item() == pytest.approx(want, abs=1e-12)


def test_dicts_equal_pytrec_eval(dl_small):
    """pytrec_eval takes exactly these dicts: its values are the oracle."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    q, runs, _ = dl_small
    qd: dict = {}
    for t, d, g in zip(q["topic"], q["docid"], q["grade"]):
        qd.setdefault(t, {})[d] = int(g)
    name, r = next(iter(runs.items()))
    rd: dict = {}
    for t, d, s in zip(r["topic"], r["docid"], r["score"]):
        rd.setdefault(t, {})[d] = float(s)
    ours = irstab.evaluate(qd, rd, ["nDCG@10", "AP"], per_topic=True)
    trec = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10", "map"}).evaluate(rd)
    for m, key in (("nDCG@10", "ndcg_cut_10"), ("AP", "map")):
        per = ours[(ours.measure == m) & (ours.topic != "all")]
        for t, v in zip(per["topic"], per["value"]):
            assert v == pytest.approx(trec[t][key] if t in trec else 0.0, abs=1e-9)
    # {name: {topic: {docid: score}}} names the runs
    named = irstab.read_runs({"a": rd, "b": rd})
    assert [x.name for x in named] == ["a", "b"]


def test_ir_datasets_records_equal_trec_files(dl_small):
    formats = pytest.importorskip("ir_datasets.formats")
    q, runs, expected = dl_small
    qrecs = [formats.TrecQrel(t, d, int(g), "0")
             for t, d, g in zip(q["topic"], q["docid"], q["grade"])]
    name, r = next(iter(runs.items()))
    rrecs = [formats.GenericScoredDoc(t, d, float(s))
             for t, d, s in zip(r["topic"], r["docid"], r["score"])]
    got = irstab.evaluate(iter(qrecs), {name: iter(rrecs)}, MEASURES, per_topic=True)
    _same(got, expected[expected.run == name])


def test_irds_prefix_loads_through_ir_datasets(monkeypatch, dl_small):
    """A stand-in ir_datasets module: the tests never touch the network."""
    q, runs, expected = dl_small
    Qrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    Scored = namedtuple("GenericScoredDoc", "query_id doc_id score")
    name, r = next(iter(runs.items()))

    class Dataset:
        def qrels_iter(self):
            return (Qrel(t, d, int(g), "0") for t, d, g in zip(q["topic"], q["docid"], q["grade"]))

        def scoreddocs_iter(self):
            return (Scored(t, d, float(s)) for t, d, s in zip(r["topic"], r["docid"], r["score"]))

        def has_qrels(self):
            return True

        def has_scoreddocs(self):
            return True

    def load(ident):
        if ident != "msmarco-passage/trec-dl-2019/judged":
            raise KeyError(ident)
        return Dataset()

    monkeypatch.setitem(sys.modules, "ir_datasets", types.SimpleNamespace(load=load))
    qrels = irstab.read_qrels("irds:msmarco-passage/trec-dl-2019/judged")
    assert len(qrels) == len(q)
    got = irstab.evaluate(qrels, {name: "irds:msmarco-passage/trec-dl-2019/judged"}, MEASURES,
                          per_topic=True)
    _same(got, expected[expected.run == name])
    with pytest.raises(IRStabError, match="no dataset 'nope'"):
        irstab.read_qrels("irds:nope")


def test_irds_without_ir_datasets_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import fails
    with pytest.raises(IRStabError, match=r"pip install 'irstab\[irds\]'"):
        irstab.read_qrels("irds:msmarco-passage/dev")


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".feather"])
def test_parquet_and_arrow_files_equal_trec_files(tmp_path, dl_small, suffix):
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    q, runs, expected = dl_small
    write = pq.write_table if suffix == ".parquet" else feather.write_feather
    write(pa.Table.from_pandas(q.rename(columns={"topic": "query_id", "docid": "doc_id",
                                                 "grade": "relevance"})),
          tmp_path / f"qrels{suffix}")
    paths = []
    for name, r in runs.items():
        p = tmp_path / f"{name}{suffix}"
        write(pa.Table.from_pandas(r[["topic", "docid", "rank", "score", "tag"]]), p)
        paths.append(p)
    got = irstab.evaluate(tmp_path / f"qrels{suffix}", paths, MEASURES, per_topic=True)
    _same(got, expected)


def test_cli_reads_parquet_runs(tmp_path, dl_small, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from irstab.cli import main

    q, runs, expected = dl_small
    pq.write_table(pa.Table.from_pandas(q), tmp_path / "q.parquet")
    name, r = next(iter(runs.items()))
    pq.write_table(pa.Table.from_pandas(r[["topic", "docid", "score", "tag"]]),
                   tmp_path / "r.parquet")
    assert main(["evaluate", str(tmp_path / "q.parquet"), str(tmp_path / "r.parquet"),
                 "-m", "AP", "-f", "csv"]) == 0
    out = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    want = expected[(expected.run == name) & (expected.measure == "AP") & (expected.topic == "all")]
    assert out["run"].tolist() == [name]
    assert out["value"].item() == pytest.approx(want["value"].item(), abs=1e-6)


# ---------------------------------------------------------------- errors


QRELS = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"],
                      "relevance": [1, 0, 2]})
RUN = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                    "score": [3.0, 2.0, 1.0]})


@pytest.mark.parametrize(
    "frame, message",
    [
        (RUN.drop(columns="score"), r"no score column: expected one of \['score'\]"),
        (RUN.rename(columns={"doc_id": "x"}), r"no docid column: expected one of "
                                              r"\['doc_id', 'docno', 'docid'\]"),
        (RUN.assign(qid=RUN["query_id"]), r"columns \['query_id', 'qid'\] all name the topic"),
        (RUN.assign(score=[1.0, np.nan, 2.0]), r"row 1, column 'score': nan is not a finite"),
        (RUN.assign(score=[1.0, 2.0, np.inf]), r"row 2, column 'score': inf is not a finite"),
        (RUN.assign(score=["1", "x", "2"]), r"row 1, column 'score': 'x' is not a finite"),
        (RUN.assign(doc_id=["a", None, "c"]), r"row 1, column 'doc_id': missing value"),
        (RUN.assign(doc_id=["a", "", "c"]), r"row 1, column 'doc_id': empty id"),
        (RUN.assign(doc_id=["a", "a", "c"]), r"row 1, columns 'query_id'/'doc_id': document "
                                             r"'a' appears twice for topic '1'"),
        (RUN.iloc[:0], r"no run rows"),
    ],
)
def test_bad_run_frames_name_row_and_column(frame, message):
    with pytest.raises(InputFormatError, match=r"<run DataFrame>: " + message):
        irstab.read_run(frame)


@pytest.mark.parametrize(
    "frame, message",
    [
        (QRELS.assign(relevance=[1, 0.5, 2]), r"row 1, column 'relevance': grade 0.5 is not an "
                                              r"integer"),
        (QRELS.assign(relevance=[1, 0, 300]), r"row 2, column 'relevance': grade 300 is outside "
                                              r"-128..127"),
        (QRELS.assign(relevance=[1, None, 2]), r"row 1, column 'relevance': nan is not a finite"),
        (QRELS.drop(columns="relevance"), r"no grade column"),
    ],
)
def test_bad_qrels_frames_name_row_and_column(frame, message):
    with pytest.raises(InputFormatError, match=r"<qrels DataFrame>: " + message):
        irstab.read_qrels(frame)


def test_bad_parquet_names_the_file_row_and_column(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from irstab.cli import main

    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pandas(RUN.assign(score=[1.0, 2.0, np.nan])), bad)
    with pytest.raises(InputFormatError, match=r"bad\.parquet: row 2, column 'score'"):
        irstab.read_run(bad)
    pq.write_table(pa.Table.from_pandas(QRELS), tmp_path / "q.parquet")
    assert main(["evaluate", str(tmp_path / "q.parquet"), str(bad), "-m", "AP"]) == 1
    err = capsys.readouterr().err
    assert "bad.parquet: row 2, column 'score'" in err and "Traceback" not in err
    (tmp_path / "garbage.parquet").write_text("not parquet\n")
    with pytest.raises(InputFormatError, match=r"garbage\.parquet: not a readable Parquet"):
        irstab.read_run(tmp_path / "garbage.parquet")


def test_nested_dict_of_wrong_shape_is_named():
    with pytest.raises(InputFormatError, match=r"topic '1' maps to a int"):
        irstab.read_qrels({"1": 3})


def test_records_of_unknown_type_are_refused():
    with pytest.raises(InputFormatError, match=r"record 0 is a int"):
        irstab.read_run([1, 2, 3])


def test_integer_ids_become_strings():
    q = irstab.read_qrels(pd.DataFrame({"qid": [1, 1], "docno": [10, 11], "label": [1, 0]}))
    assert q.frame["topic"].tolist() == ["1", "1"] and q.frame["docid"].tolist() == ["10", "11"]


# ---------------------------------------------------------------- invariance


@pytest.mark.filterwarnings("ignore::irstab.IRStabWarning")
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.integers(0, 12),
                  st.sampled_from([0.5, 1.0, 1.5, 2.0, 2.0000001])),
        min_size=1, max_size=40, unique_by=lambda x: (x[0], x[1]),
    ),
    st.lists(st.tuples(st.integers(1, 3), st.integers(0, 12), st.integers(-1, 3)),
             min_size=1, max_size=30, unique_by=lambda x: (x[0], x[1])),
)
def test_dataframe_equals_trec_file(tmp_path_factory, run_rows, qrels_rows):
    """Any run as a DataFrame evaluates exactly as the same run written as TREC text."""
    if not any(g > 0 for _, _, g in qrels_rows):
        qrels_rows = qrels_rows + [(1, 99, 1)] if (1, 99) not in {(t, d) for t, d, _ in qrels_rows} \
            else qrels_rows
    if not any(g > 0 for _, _, g in qrels_rows):
        return
    d = tmp_path_factory.mktemp("inv")
    (d / "q").write_text("".join(f"{t} 0 d{x} {g}\n" for t, x, g in qrels_rows))
    (d / "r").write_text("".join(f"{t} Q0 d{x} {i} {s!r} tag\n"
                                 for i, (t, x, s) in enumerate(run_rows)))
    want = irstab.evaluate(d / "q", d / "r", ["nDCG@5", "AP", "bpref"], per_topic=True)
    qdf = pd.DataFrame(qrels_rows, columns=["qid", "docno", "label"]).assign(
        docno=lambda f: "d" + f["docno"].astype(str))
    rdf = pd.DataFrame(run_rows, columns=["qid", "docno", "score"]).assign(
        docno=lambda f: "d" + f["docno"].astype(str), run="tag")
    got = irstab.evaluate(qdf, rdf, ["nDCG@5", "AP", "bpref"], per_topic=True)
    _same(got, want)
