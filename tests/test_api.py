"""Issue 13, items 2, 3 and 9: the Python API as a notebook user meets it.

* the subpackages are attributes of ``irstab`` after ``import irstab`` (lazily: a fresh
  interpreter shows which heavy modules a bare import loads);
* ``help(irstab)`` is the curated overview, not every dataclass (was 2,562 lines);
* result objects print one line and render HTML;
* a notebook-style session: DataFrames in, evaluate, G-study, D-study, optimise, evaluate
  the optimum, with no file opened by irstab. Figures checked against trec_eval
  (pytrec_eval, -l 2) and against the same calls on the files.
"""

from __future__ import annotations

import builtins
import io
import os
import pydoc
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irstab

SRC = str(Path(irstab.__file__).parents[1])
HEAVY = ("scipy", "statsmodels", "cvxpy", "matplotlib")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SRC), timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_subpackages_reachable_and_lazy():
    loaded = _modules_after("import irstab")
    for name in HEAVY + ("irstab.optimizer", "irstab.compare", "irstab.report"):
        assert name not in loaded, f"import irstab loads {name}"
    assert not set(HEAVY) & _modules_after("import irstab.cli")  # irstab --help stays light
    # issue 13 item 3: `import irstab; irstab.optimizer.optimize` was an AttributeError
    loaded = _modules_after("import irstab; irstab.optimizer.optimize; irstab.stability.gstudy;"
                            "irstab.compare.compare_measures; irstab.report")
    assert {"irstab.optimizer", "irstab.stability", "irstab.compare", "irstab.report"} <= loaded
    assert irstab.gstudy is irstab.stability.gstudy
    assert irstab.optimize is irstab.optimizer.optimize
    assert irstab.compare_measures is irstab.compare.compare_measures
    assert {"stability", "optimizer", "gstudy"} <= set(dir(irstab))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        irstab.nope  # noqa: B018


def test_every_public_room_is_an_attribute_in_a_fresh_process():
    # issue 22: irstab.assessors raised AttributeError until irstab.optimizer was touched;
    # each name resolves on its own, from `import irstab` alone
    # (_modules_after asserts the process succeeded: an AttributeError fails it)
    for name, attr, module in (
        ("assessors", "assessor_collection", "irstab.collection.assessors"),
        ("informativeness", "informativeness", "irstab.informativeness.maxent"),
        ("scorematrix", "read_score_matrix", "irstab.io.scorematrix"),
        ("layouts", "to_trec_eval", "irstab.io.layouts"),
        ("simulate", "simulate_collection", "irstab.simulate"),
        ("io", "read_qrels", "irstab.io.sources"),
        ("evaluation", "score_runs", "irstab.collection.outofcore"),
        ("judges", "judge_study", "irstab.judges.study"),  # issue 42: the judges room
        ("preferences", "preference_agreement", "irstab.preferences.agreement"),  # issue 43
    ):
        assert module in _modules_after(f"import irstab; irstab.{name}.{attr}"), name
    assert irstab.assessors.assessor_collection.__module__ == "irstab.collection.assessors"


def test_help_is_curated():
    text = pydoc.render_doc(irstab, renderer=pydoc.plaintext)
    assert len(text.splitlines()) < 600  # was 2,562 lines of dataclass members
    for word in ("evaluate(", "gstudy(", "optimize(", "compare_measures(", "irds:", "ndcg_cut"):
        assert word in text
    assert "class Collection" not in text and "__eq__" not in text


def _data(dl2019_dir):
    qrels = pd.read_csv(dl2019_dir / "qrels.txt", sep=" ", dtype={0: str, 2: str},
                        names=["query_id", "iteration", "doc_id", "relevance"])
    runs = pd.concat(
        pd.read_csv(p, sep=r"\s+", names=["query_id", "Q0", "doc_id", "rank", "score", "run"],
                    dtype={"query_id": str, "doc_id": str})
        for p in sorted((dl2019_dir / "runs").glob("*.gz"))
    )
    return qrels, runs


class _NoDataFiles:
    """open()/os.open() of anything but installed code and metadata fails the test.

    The memory limits the allocation checks read (cgroup files) are the system's, not data."""

    def __init__(self, monkeypatch):
        allowed = tuple({sys.prefix, sys.base_prefix, os.path.dirname(np.__file__).rsplit(
            "site-packages", 1)[0], "/sys/fs/cgroup/"})
        self.opened: list[str] = []

        def guard(orig):
            def wrapped(file, *args, **kwargs):
                if not isinstance(file, int) and not os.fspath(file).startswith(allowed):
                    self.opened.append(os.fspath(file))
                    raise AssertionError(f"irstab opened {file}")
                return orig(file, *args, **kwargs)
            return wrapped

        monkeypatch.setattr(builtins, "open", guard(builtins.open))
        monkeypatch.setattr(io, "open", guard(io.open))
        monkeypatch.setattr(os, "open", guard(os.open))


def test_notebook_session_without_files(dl2019_dir, monkeypatch):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, runs = _data(dl2019_dir)
    # warm up lazy imports (scipy, the optimizer) on a simulation before files are forbidden
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=6, depth=20, seed=1)
    warm = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
    irstab.gstudy(irstab.score_matrix(warm, "nDCG@10")).dstudy([5])
    irstab.optimize(warm, 5, starts=1, seed=0, grid=False)

    guard = _NoDataFiles(monkeypatch)
    frame = irstab.evaluate(qrels, runs, "ndcg_cut.10,map,P.10", per_topic=True, rel=2)
    coll = irstab.Collection.build(irstab.read_qrels(qrels), irstab.read_runs(runs), depth=100)
    g = irstab.gstudy(irstab.score_matrix(coll, "nDCG@10"), name="nDCG@10")
    d = g.dstudy([10, 50, 100])
    result = irstab.optimize(coll, 10, starts=1, seed=0)
    optimum = irstab.evaluate(coll, None, [result.measure, "nDCG@10"])
    monkeypatch.undo()
    assert guard.opened == []

    # evaluate on DataFrames = trec_eval -l 2 (pytrec_eval on the same frames as dicts)
    q = {t: dict(zip(g_.doc_id, g_.relevance)) for t, g_ in qrels.groupby("query_id")}
    ev = pytrec_eval.RelevanceEvaluator(q, {"map", "P.10", "ndcg_cut.10"}, relevance_level=2)
    got = frame.set_index(["run", "measure", "topic"])["value"]
    one = runs[runs["run"] == "TUA1-1"]
    r = {t: dict(zip(g_.doc_id, g_.score.astype(float))) for t, g_ in one.groupby("query_id")}
    for topic, v in ev.evaluate(r).items():
        assert got[("TUA1-1", "AP(rel=2)", topic)] == pytest.approx(v["map"], abs=1e-9)
        assert got[("TUA1-1", "P(rel=2)@10", topic)] == pytest.approx(v["P_10"], abs=1e-9)
        assert got[("TUA1-1", "nDCG@10", topic)] == pytest.approx(v["ndcg_cut_10"], abs=1e-9)
    # G-study as from the files (tests/stability: 22.1% system variance, Phi 0.924 on DL-2019)
    from_files = irstab.gstudy(irstab.score_matrix(
        irstab.Collection.from_files(dl2019_dir / "qrels.txt", dl2019_dir / "runs", depth=100),
        "nDCG@10"))
    assert g.phi() == pytest.approx(from_files.phi(), abs=1e-12)
    assert (g.n_systems, g.n_topics) == (37, 43)
    assert d.phi[0] < d.phi[1] < d.phi[2]  # Phi grows with topics
    # the optimiser never ends below its log2 start (Phi of nDCG@10 at 43 topics)
    assert result.phi >= g.phi() - 1e-9
    means = optimum.groupby("measure")["value"].mean()
    assert set(means.index) == {str(result.measure), "nDCG@10"}


def test_results_print_short_and_render_html(dl2019):
    g = irstab.gstudy(irstab.score_matrix(dl2019, "nDCG@10"), name="nDCG@10")
    text = repr(g)
    # values as tests/stability/test_stability_cli prints them for DL-2019 nDCG@10
    assert text.startswith("<GStudy nDCG@10: 37 systems x 43 topics") and "Phi 0.924" in text
    assert len(text) < 200 and "array(" not in text
    html = g._repr_html_()
    assert html.startswith("<p><b>GStudy</b>") and "<table" in html and "residual" in html
    d = g.dstudy([10, 100], targets=(0.95,))
    assert "phi>=0.95: 68 topics" in repr(d)
    assert repr(dl2019) == "<Collection 37 systems x 43 topics, depth 1000, grades up to 3>"
    cmp = irstab.compare_measures(irstab.score_matrices(dl2019, ["nDCG@10", "AP"]),
                                  n_bootstrap=50, swap_trials=10, seed=0)
    assert repr(cmp).startswith("<MeasureComparison 2 measures, 37 systems, 43 topics")
    assert len(repr(cmp)) < 300 and "<table" in cmp._repr_html_()
    assert repr(cmp.bootstrap).startswith("<PairwiseTests paired bootstrap, 666 pairs")
