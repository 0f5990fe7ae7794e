"""The run-at-a-time build gives the same arrays as the all-at-once build it replaced.

Oracle: ``_reference.reference_arrays``, the previous implementation (every run
stacked, one docid factorisation, one sort), kept verbatim in the tests.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from _reference import reference_arrays

import irstab
from irstab.collection.index import QrelsIndex
from irstab.errors import InputFormatError

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
ARRAYS = ("grades", "judged", "run_length", "ideal", "grade_counts")


def _assert_same(coll: irstab.Collection, ref: dict) -> None:
    assert coll.systems == ref["systems"]
    assert coll.topics == ref["topics"]
    assert coll.max_grade == ref["max_grade"]
    for name in ARRAYS:
        got, want = getattr(coll, name), ref[name]
        assert got.shape == want.shape, name
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)


TIED = "give many documents the same score"  # the build's own warning, unknown to the reference


def _messages(caught, tied: bool = False) -> set[str]:
    return {str(w.message) for w in caught if issubclass(w.category, irstab.IRStabWarning)
            and (TIED in str(w.message)) == tied}


def _check(qrels_path, runs_path, depth=1000, order="score", workers=(0, 2)):
    with warnings.catch_warnings(record=True) as w_ref:
        warnings.simplefilter("always")
        qrels = irstab.read_qrels(qrels_path)
        runs = irstab.read_runs(runs_path)
        ref = reference_arrays(qrels, runs, depth=depth, order=order)
    tied = []
    for n in workers:
        with warnings.catch_warnings(record=True) as w_new:
            warnings.simplefilter("always")
            coll = irstab.Collection.from_files(qrels_path, runs_path, depth=depth, order=order,
                                                workers=n)
        _assert_same(coll, ref)
        assert _messages(w_new) == _messages(w_ref)
        tied.append(_messages(w_new, tied=True))
    # the tied-runs warning: the same in every process layout, and only where scores order
    assert all(t == tied[0] for t in tied) and len(tied[0]) <= 1
    if order not in ("score", "score32"):
        assert tied[0] == set()
    _assert_same(irstab.Collection.build(qrels, runs, depth=depth, order=order), ref)


@pytest.mark.parametrize("order, workers", [("score", (0, 2)), ("score32", (0,)), ("rank", (0,)),
                                            ("file", (0,))])
def test_dl2019_arrays_equal(dl2019_dir, order, workers):
    _check(dl2019_dir / "qrels.txt", dl2019_dir / "runs", order=order, workers=workers)


def test_dl2019_shallow_depth(dl2019_dir):
    _check(dl2019_dir / "qrels.txt", dl2019_dir / "runs", depth=20, workers=(2,))


@pytest.mark.parametrize("order", ["score", "rank"])
def test_example_collection_arrays_equal(order):
    _check(EXAMPLE / "qrels.txt", EXAMPLE / "runs", depth=100, order=order)


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.fixture
def tricky(tmp_path):
    """Ties (also in float32 only), shared tags, ranks from 0, missing and unknown topics."""
    _write(tmp_path / "qrels", [
        "1 0 a 1", "1 0 b 2", "1 0 c 0", "1 0 zz -2", "2 0 a 3", "2 0 x 1",
        "3 0 q 0",  # no relevant document: not evaluated
        "10 0 a 1",
    ])
    runs = tmp_path / "runs"
    # ties at 1.0 between b, a, c and (float32-equal) 2.0 / 2.00000001
    _write(runs / "r1", ["1 Q0 a 0 1.0 same", "1 Q0 b 1 1.0 same", "1 Q0 c 2 1.0 same",
                         "1 Q0 d 3 2.0 same", "1 Q0 zz 4 2.00000001 same",
                         "2 Q0 a 0 5 same", "2 Q0 x 1 5 same"])
    # the same tag again (named by file), topics out of order, a topic not in the qrels
    _write(runs / "r2", ["2 Q0 x 1 0.5 same", "10 Q0 a 1 3 same", "2 Q0 a 2 0.7 same",
                         "99 Q0 a 1 1 same", "3 Q0 q 1 1 same"])
    # no tag column, misses topics 2 and 10, ranks disagree with scores
    _write(runs / "r3.gz", [])
    import gzip

    (runs / "r3.gz").write_bytes(gzip.compress(b"1 Q0 c 5 0.1\n1 Q0 b 2 0.2\n1 Q0 a 9 0.3\n"))
    _write(runs / "r4", ["1 Q0 b 1 -1e300 deep"] + [f"1 Q0 n{i} {i + 2} {-i} deep"
                                                      for i in range(30)])
    return tmp_path


@pytest.mark.parametrize("order", ["score", "score32", "rank", "file"])
@pytest.mark.parametrize("depth", [1, 3, 1000])
def test_tricky_fixture_arrays_equal(tricky, order, depth):
    _check(tricky / "qrels", tricky / "runs", depth=depth, order=order)


def test_tricky_fixture_runs_names_and_ties(tricky):
    with pytest.warns(irstab.IRStabWarning):
        c = irstab.Collection.from_files(tricky / "qrels", tricky / "runs", workers=2)
    assert c.systems == ("r1", "r2", "r3", "deep")
    # r1, topic 1: zz (2.00000001) before d (2.0): as doubles, and as float32 ties broken by
    # docid descending; then the 1.0 tie c, b, a
    assert c.grades[0, 0, :5].tolist() == [-2, 0, 0, 2, 1]
    assert c.judged[0, 0, :5].tolist() == [True, False, True, True, True]
    # r3 misses topics 2 and 10
    assert c.run_length[2].tolist() == [3, 0, 0]
    # a float32-only tie the docids break the other way: y (1.00000001) before z (1.0) as
    # doubles; as float32 they tie and z comes first (trec_eval 9)
    _write(tricky / "runs2" / "t", ["1 Q0 y 1 1.00000001 t", "1 Q0 z 2 1.0 t"])
    _write(tricky / "q2", ["1 0 y 1", "1 0 z 2"])
    for order, first in (("score", 1), ("score32", 2)):
        c = irstab.Collection.from_files(tricky / "q2", tricky / "runs2", order=order)
        assert c.grades[0, 0, 0] == first


def test_bad_file_in_a_worker_is_named(tricky):
    _write(tricky / "runs" / "r5", ["1 Q0 a 1 1 x", "1 Q0 b 2 nan x"])
    for workers in (0, 2):
        with pytest.raises(InputFormatError, match=r"r5:2: score 'nan' is NaN"):
            irstab.Collection.from_files(tricky / "qrels", tricky / "runs", workers=workers)


def test_run_name_clash_is_an_error(tricky):
    _write(tricky / "runs" / "x", ["1 Q0 a 1 1 r1"])  # tag r1 = file name of another run
    with pytest.raises(InputFormatError, match="two runs are both named 'r1'"):
        irstab.Collection.from_files(tricky / "qrels", tricky / "runs", workers=0)


def test_qrels_index_lookup_is_exact():
    """Ids sharing 8-byte prefixes, lengths, NUL-padding and non-ASCII never collide."""
    import pandas as pd

    docs = ["abcdefgh", "abcdefghi", "abcdefgh\0", "é", "e", "a" * 40, "a" * 39, "Ω1"]
    q = irstab.read_qrels(pd.DataFrame({"topic": ["1"] * len(docs) + ["2"],
                                        "docid": docs + ["e"],
                                        "grade": list(range(1, len(docs) + 1)) + [9]}))
    index = QrelsIndex.from_qrels(q)
    probe = docs + ["abcdefg", "a" * 41, "Ω2", "e"]
    t = np.array([0] * (len(probe) - 1) + [1])
    grade, found = index.lookup(t, np.array(probe, dtype=object))
    assert grade.tolist() == list(range(1, len(docs) + 1)) + [0, 0, 0, 9]
    assert found.tolist() == [True] * len(docs) + [False, False, False, True]


def test_directory_with_multi_run_tables(tricky):
    """Parquet/Arrow files in a run directory, one holding two runs, stream like TREC files."""
    import pandas as pd

    runs = tricky / "runs"
    r1, deep = irstab.read_run(runs / "r1").frame, irstab.read_run(runs / "r4").frame
    both = pd.concat([r1.assign(system="pq1"), deep.assign(system="pq2")])
    both.rename(columns={"topic": "query_id", "docid": "doc_id"}).to_parquet(
        runs / "both.parquet")
    r1.rename(columns={"topic": "qid", "docid": "docno"}).reset_index(drop=True).to_feather(
        runs / "one.arrow")
    qrels = irstab.read_qrels(tricky / "qrels")
    parsed = [irstab.read_run(runs / f) for f in ("r1", "r2", "r3.gz", "r4")]
    parsed = [irstab.Run(n, r.path, r.tag, r.frame) for n, r in zip(("r1", "r2", "r3", "deep"),
                                                                  parsed)]
    tables = irstab.read_runs([runs / "both.parquet", runs / "one.arrow"])
    assert [r.name for r in tables] == ["pq1", "pq2", "one"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # files sorted by name: both.parquet, one.arrow, r1, r2, r3.gz, r4
        ref = reference_arrays(qrels, tables + parsed)
        for workers in (0, 2):
            _assert_same(irstab.Collection.from_files(qrels, runs, workers=workers), ref)
        _assert_same(irstab.Collection.build(qrels, irstab.read_runs(runs)), ref)
