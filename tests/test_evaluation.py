"""irstab.evaluate: input forms, long-form layout, means, depth errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irstab
from irstab.errors import MeasureError

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"


def test_directory_inside_a_list_reads_every_run():
    # data/example/runs holds 12 run files (data/example/README.md)
    frame = irstab.evaluate(EXAMPLE / "qrels.txt", [EXAMPLE / "runs"], "nDCG@10", depth=100)
    assert sorted(frame["run"]) == [f"sim{i:02d}" for i in range(1, 13)]


def test_long_form_and_mean_over_topics():
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=6, depth=30, seed=3)
    frame = irstab.evaluate(sim.qrels, sim.runs, ["nDCG@10", "AP"], per_topic=True, depth=30)
    assert list(frame.columns) == ["run", "measure", "topic", "value"]
    # 4 runs x 2 measures x (6 topics + 'all')
    assert len(frame) == 4 * 2 * 7
    per_topic = frame[frame.topic != "all"].groupby(["run", "measure"])["value"].mean()
    means = frame[frame.topic == "all"].set_index(["run", "measure"])["value"]
    np.testing.assert_allclose(per_topic.sort_index(), means.sort_index(), rtol=0, atol=1e-15)


def test_same_result_from_paths_objects_and_collection():
    qrels = irstab.read_qrels(EXAMPLE / "qrels.txt")
    runs = irstab.read_runs(EXAMPLE / "runs")
    coll = irstab.Collection.build(qrels, runs, depth=100)
    a = irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", "AP", depth=100)
    b = irstab.evaluate(qrels, runs, "AP", depth=100)
    c = irstab.evaluate(coll, None, "AP")
    assert a.equals(b) and b.equals(c)


def test_cutoff_beyond_depth_is_an_error_naming_both():
    with pytest.raises(MeasureError, match=r"nDCG@200 reads 200 ranks .* depth is 100"):
        irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", "nDCG@200", depth=100)


def test_topic_missing_from_a_run_scores_zero():
    sim = irstab.simulate.simulate_collection(n_systems=2, n_topics=3, depth=10, seed=1)
    run = sim.runs[0]
    first_topic = run.frame["topic"].iloc[0]
    cut = irstab.Run(run.name, run.path, run.tag, run.frame[run.frame.topic != first_topic])
    frame = irstab.evaluate(sim.qrels, [cut, sim.runs[1]], ["nDCG@10", "RR", "bpref"],
                            per_topic=True, depth=10)
    missing = frame[(frame.run == run.name) & (frame.topic == first_topic)]
    assert len(missing) == 3 and (missing["value"] == 0).all()  # trec_eval -c convention
