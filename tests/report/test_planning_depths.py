"""The planning section's pool depths are checked before the long study.

``report`` used to abort after the whole study when pool depth 5 held no relevant document
(the depth study's Collection at that depth has no topic), with no option around it. Now the
depths are checked on the Collection first (:func:`irstab.design.depth.pool_depth_topics`):
among the defaults such a depth is left out with a note in the report, a depth named with
``--depths`` is an error before the study.

Oracles: the depth study's own count of topics at each depth (it re-evaluates the runs on the
qrels restricted to each pool) and its refusal of a depth with none; the constructed
collection's first relevant rank (closed form: no run ranks a relevant document above rank 8).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
import irstab.cli
from irstab.design.depth import depth_study, first_relevant_pool_rank, pool_depth_topics
from irstab.errors import DegenerateDataError

SHALLOWEST = 8  # the deep collection's first relevant document is at rank 8 in every run


def _write_deep(root: Path) -> tuple[Path, Path]:
    """6 topics, 5 runs of 25 documents: each run's first 7 are judged non-relevant, the
    relevant documents (grades 1-3) come from rank 8 on."""
    rng = np.random.default_rng(1)
    (root / "runs").mkdir(parents=True)
    qrels = root / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {int(rng.integers(1, 4)) if d >= 30 else 0}\n"
                             for t in range(1, 7) for d in range(40)))
    for s in range(5):
        lines = []
        for t in range(1, 7):
            top = [f"d{d}" for d in rng.permutation(30)[:7]]
            rest = [f"d{d}" for d in rng.permutation(np.r_[30:40, 20:28])]
            docs = list(dict.fromkeys(top + rest))
            lines += [f"{t} Q0 {d} {r} {100 - r} r{s}\n" for r, d in enumerate(docs, 1)]
        (root / "runs" / f"r{s}").write_text("".join(lines))
    return qrels, root / "runs"


@pytest.fixture(scope="module")
def deep(tmp_path_factory):
    return _write_deep(tmp_path_factory.mktemp("deep"))


def _collection(qrels, runs, depth=100):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstab.Collection.from_files(qrels, runs, depth=depth)


def test_the_counts_are_the_depth_studys(deep):
    qrels, runs = deep
    coll = _collection(qrels, runs)
    assert int(first_relevant_pool_rank(coll).min()) == SHALLOWEST
    counts = pool_depth_topics(coll, (1, 5, 7, 8, 10, 20))
    assert counts == {1: 0, 5: 0, 7: 0, 8: counts[8], 10: 6, 20: 6} and 1 <= counts[8] <= 6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = depth_study(qrels, runs, ["nDCG@10"], (8, 10, 20), run_depth=100)
        assert {lv.depth: lv.n_topics for lv in study.levels} == {8: counts[8], 10: 6, 20: 6}
        with pytest.raises(DegenerateDataError, match="pool depth 5: .*no topic has a relevant"):
            depth_study(qrels, runs, ["nDCG@10"], (5, 10), run_depth=100)


def test_the_counts_on_dl2019_are_the_depth_studys(dl2019, dl2019_dir):
    counts = pool_depth_topics(dl2019, (1, 2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = depth_study(dl2019_dir / "qrels.txt", dl2019_dir / "runs", ["P@10"], (1, 2, 3),
                            run_depth=1000)
    assert counts == {lv.depth: lv.n_topics for lv in study.levels} == {1: 43, 2: 43, 3: 43}


@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(st.integers(1, 12), min_size=3, max_size=3), min_size=2, max_size=4)
       .filter(lambda first: len({r for ranks in first for r in ranks}) > 1),  # RR not constant
       st.integers(0, 2**32 - 1))
def test_the_counts_equal_the_depth_study_on_generated_pools(tmp_path_factory, first, seed):
    # run s puts topic t's only relevant document at rank first[s][t] (12 documents); the
    # depth study, which re-evaluates the runs on the pooled qrels, counts the same topics
    rng = np.random.default_rng(seed)
    root = tmp_path_factory.mktemp("gen")
    (root / "runs").mkdir()
    depths = (1, 3, 6, 12)
    (root / "qrels").write_text("".join(
        f"{t} 0 rel{t} 2\n" + "".join(f"{t} 0 n{t}_{d} 0\n" for d in range(12))
        for t in range(3)))
    for s, ranks in enumerate(first):
        lines = []
        for t, r in enumerate(ranks):
            docs = [f"n{t}_{d}" for d in rng.permutation(12)[:11]]
            docs.insert(r - 1, f"rel{t}")
            lines += [f"{t} Q0 {d} {k} {100 - k} r{s}\n" for k, d in enumerate(docs, 1)]
        (root / "runs" / f"r{s}").write_text("".join(lines))
    coll = _collection(root / "qrels", root / "runs", depth=12)
    counts = pool_depth_topics(coll, depths)
    best = np.min(np.array(first), axis=0)
    assert counts == {d: int((best <= d).sum()) for d in depths}  # closed form
    usable = [d for d in depths if counts[d] > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = depth_study(root / "qrels", root / "runs", ["RR"], usable, run_depth=12)
    assert {lv.depth: lv.n_topics for lv in study.levels} == {d: counts[d] for d in usable}


def _cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


LIGHT = ("-k", "10,20", "--starts", "0", "-B", "50", "-M", "100")


def test_report_leaves_an_empty_default_depth_out_with_a_note(deep, tmp_path, capsys):
    qrels, runs = deep
    code, out, err = _cli(capsys, "report", qrels, runs, *LIGHT, "-o", tmp_path / "rep")
    assert code == 0, err
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    note = ("Planning the next collection: pool depth 5 left out of the budget design; no "
            f"topic has a relevant document in a pool that shallow (the shallowest with one is "
            f"{SHALLOWEST}; --depths chooses the pool depths)")
    assert note in data["warnings"] and f"irstab: warning: {note}" in err
    assert data["design"]["depths"] == [10, 20, 50, 100]
    assert "Planning the next collection" in (tmp_path / "rep" / "report.md").read_text()


def test_report_refuses_a_named_empty_depth_before_the_study(deep, tmp_path, capsys,
                                                            monkeypatch):
    import irstab.report.study as study

    qrels, runs = deep
    calls = []
    monkeypatch.setattr(study, "run_study", lambda *a, **k: calls.append(1))
    code, out, err = _cli(capsys, "report", qrels, runs, *LIGHT, "--depths", "5,10",
                          "-o", tmp_path / "rep")
    assert code == 1
    assert err == ("irstab: error: --depths: no topic has a relevant document in a pool of "
                   f"depth 5 (no run ranks one that high); the shallowest with one is "
                   f"{SHALLOWEST}\n")
    assert calls == [] and not (tmp_path / "rep").exists()  # before the study, nothing written


@pytest.mark.parametrize("depths, message", [
    ("0,10", "--depths: expected positive integers, got [0, 10]"),
    ("10,200", "--depths: [200] exceed the depth the runs are read to (--depth 100); raise "
               "--depth or drop them"),
])
def test_report_checks_named_depths_before_reading(deep, tmp_path, capsys, depths, message):
    qrels, runs = deep
    code, _, err = _cli(capsys, "report", qrels, runs, *LIGHT, "--depths", depths,
                        "-o", tmp_path / "rep")
    assert code == 1 and err == f"irstab: error: {message}\n"


# ---------------------------------------------------------------- one read of the runs


@pytest.mark.parametrize("order", ["score", "rank", "file"])
def test_kept_runs_are_the_top_documents_of_the_runs_read(deep, order):
    # oracle: each run file read again and cut by top_documents on the Collection's topics
    from irstab.collection.reduce import top_documents

    qrels, runs = deep
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll, kept = irstab.Collection.from_files_keeping(qrels, runs, 12, depth=100,
                                                          order=order)
        plain = irstab.Collection.from_files(qrels, runs, depth=100, order=order)
    assert np.array_equal(coll.grades, plain.grades) and coll.systems == plain.systems
    assert [r.name for r in kept] == list(coll.systems)
    for r in kept:
        f = irstab.read_run(r.path).frame
        f = f[f["topic"].isin(coll.topics)]
        ref = top_documents(f, 12, order)
        key = ["topic", "rank"]
        got = r.frame.sort_values(key, ignore_index=True)
        ref = ref.sort_values(key, ignore_index=True)
        assert got[["topic", "docid", "rank"]].astype(str).equals(
            ref[["topic", "docid", "rank"]].astype(str))
        assert np.array_equal(got["score"].to_numpy(float), ref["score"].to_numpy(float))


def test_depth_study_of_the_kept_runs_is_the_depth_study_of_the_files(dl2019_dir):
    # oracle: the depth study reading every run file itself (what the report did before)
    qrels, runs = dl2019_dir / "qrels.txt", dl2019_dir / "runs"
    measures, depths = ["nDCG@10", "nDCG(gain=exp,discount=zipf)@20"], (5, 10, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, kept = irstab.Collection.from_files_keeping(qrels, runs, 20)
        ours = depth_study(qrels, kept, measures, depths).to_frame()
        ref = depth_study(qrels, runs, measures, depths).to_frame()
    assert ours.equals(ref), (ours, ref)


def test_planning_keeps_the_ranks_its_measures_read():
    from irstab.report.design_section import report_planning

    plan = report_planning("q", "r", depth=1000)  # default pool depths 5..100
    assert plan.keep_depth((10, 20, 100), "nDCG@10") == 100
    assert plan.keep_depth((10, 20), "nDCG@10") == 100  # the deepest pool
    assert plan.keep_depth((10, 20, 300), "nDCG@10") == 300
    assert plan.keep_depth((10,), "AP") == 1000  # AP reads every rank
    assert plan.keep_depth((10,), "no such measure") == 1000  # the study names that error


def test_report_takes_named_depths_and_reads_each_run_file_once(deep, tmp_path, capsys,
                                                               monkeypatch):
    # --depths, repeated and comma-separated, are the pool depths of the planning section,
    # and its depth study pools and scores the runs the study read (one report for both)
    import irstab.collection.reduce as reduce
    import irstab.design.depth as depth

    qrels, runs = deep
    read = []
    real = reduce.read_run_columns
    monkeypatch.setattr(reduce, "read_run_columns", lambda p: read.append(p) or real(p))
    monkeypatch.setattr(depth, "read_runs", lambda *a: pytest.fail("run files read again"))
    monkeypatch.setenv("IRSTAB_WORKERS", "0")  # reduced in this process, where read is seen
    code, _, err = _cli(capsys, "report", qrels, runs, *LIGHT, "--depths", "8", "--depths",
                        "12,30", "-o", tmp_path / "rep")
    assert code == 0, err
    assert sorted(Path(p).name for p in read) == [f"r{s}" for s in range(5)]
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert data["design"]["depths"] == [8, 12, 30]
    assert not any("left out" in w for w in data["warnings"])
