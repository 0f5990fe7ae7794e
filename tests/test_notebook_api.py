"""Issue 24, point 8: the notebook API names what it offers and accepts what a user has at hand.

Oracles: a fresh interpreter for what ``import irstab`` exposes; pydoc's text for help();
the results of the explicit spelling (score_matrix, a list of sizes) for the shortcuts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import irstab

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(scope="module")
def coll():
    sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=10, depth=20, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstab.Collection.build(sim.qrels, sim.runs, depth=20)


def test_fresh_process_names_the_report_and_assessors():
    code = ("import irstab, pydoc; import irstab.report as r; "
            "print(sorted(n for n in dir(r) if not n.startswith('_'))); "
            "print(callable(irstab.assessors.assessor_collection)); "
            "t = pydoc.render_doc(irstab); print('run_study' in t and 'write_report' in t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=SRC), timeout=120).stdout.splitlines()
    assert out == ["['Study', 'run_study', 'write_report']", "True", "True"]


def test_study_repr_is_short_and_has_html(coll):
    from irstab.report import run_study

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = run_study(coll, (5, 10), starts=0, n_bootstrap=50, seed=1, tol=1e-3)
    text = repr(study)
    assert len(text) < 300 and "verdict: keep nDCG@10" in text and "6 systems x 10 topics" in text
    page = study._repr_html_()
    assert "<table" in page and len(page) < 20_000
    frame = study.to_frame()
    assert len(frame) == len(study.candidates) and frame["phi"].is_monotonic_decreasing


def test_gstudy_takes_what_the_user_has(coll):
    want = irstab.gstudy(irstab.score_matrix(coll, "nDCG@10")).phi()
    assert irstab.gstudy(coll, measure="nDCG@10").phi() == pytest.approx(want, abs=1e-15)
    long = irstab.evaluate(coll, None, ["nDCG@10", "AP"], per_topic=True)
    assert irstab.gstudy(long, measure="nDCG@10").phi() == pytest.approx(want, abs=1e-15)
    with pytest.raises(irstab.IRStabError, match="pass measure="):
        irstab.gstudy(long)
    with pytest.raises(irstab.IRStabError, match=r"irstab.gstudy\(collection, measure="):
        irstab.gstudy(coll)


def test_dstudy_takes_one_size(coll):
    g = irstab.gstudy(coll, measure="nDCG@10")
    one = g.dstudy(1000).to_frame()
    listed = g.dstudy([1000]).to_frame()
    assert one.equals(listed) and one["n_topics"].tolist() == [1000.0]


def test_compare_measures_takes_a_collection(coll):
    got = irstab.compare_measures(coll, ["nDCG@10", "AP"], n_bootstrap=50, swap_trials=20, seed=1)
    want = irstab.compare_measures(irstab.score_matrices(coll, ["nDCG@10", "AP"]), n_bootstrap=50,
                                   swap_trials=20, seed=1)
    assert got.to_frame().equals(want.to_frame())
    with pytest.raises(irstab.IRStabError, match="name the measures"):
        irstab.compare_measures(coll)


def test_optimize_on_paths_says_how(tmp_path):
    with pytest.raises(irstab.IRStabError, match=r"Collection.from_files\('qrels.txt', 'runs/'\)"):
        irstab.optimize("qrels.txt", 10)
