"""The pyarrow-based TREC writers and the one-run-at-a-time simulated collection writer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.errors import IRStabError
from irstab.io import write_qrels, write_run
from irstab.simulate import simulate_collection, write_simulated


@pytest.mark.parametrize("compress", [False, True])
def test_write_simulated_equals_simulate_then_write(tmp_path, compress):
    params = dict(n_systems=4, n_topics=7, depth=30, seed=5, score_decimals=3)
    simulate_collection(**params).write(tmp_path / "a", compress=compress)
    calls = []
    write_simulated(tmp_path / "b", compress=compress, progress=lambda: calls.append(1), **params)
    a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert a == b and len(a) == 5 and len(calls) == 4
    for rel in a:  # byte for byte (gzip without time stamp or name)
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()


def test_write_simulated_rejects_unknown_parameters(tmp_path):
    with pytest.raises(IRStabError, match=r"unknown parameter\(s\) \['n_sytems'\]"):
        write_simulated(tmp_path, n_sytems=3)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=30))
def test_written_scores_read_back_exactly(tmp_path_factory, scores):
    """Shortest round-trip text: every double reads back bit for bit."""
    d = tmp_path_factory.mktemp("w")
    scores = sorted(scores, reverse=True)
    docs = [f"d{i}" for i in range(len(scores))]
    write_run(d / "r", "tag", ["1"] * len(scores), docs, scores)
    back = irstab.read_run(d / "r").frame
    np.testing.assert_array_equal(back["score"].to_numpy(), np.array(scores))
    np.testing.assert_array_equal(back["rank"].to_numpy(), np.arange(1, len(scores) + 1))
    assert back["docid"].tolist() == docs


def test_writers_refuse_what_cannot_be_read_back(tmp_path):
    with pytest.raises(IRStabError, match="rows must be grouped by topic"):
        write_run(tmp_path / "r", "t", ["1", "2", "1"], ["a", "b", "c"], [3.0, 2.0, 1.0])
    with pytest.raises(IRStabError, match="contains a line break"):
        write_qrels(tmp_path / "q", ["1"], ["a\nb"], [1])
    assert not (tmp_path / "q").exists() and not (tmp_path / "r").exists()


def test_qrels_written_and_read_back(tmp_path):
    write_qrels(tmp_path / "q.gz", ["1", "1", "2"], ["a", "b", "a"], [2, -2, 0])
    f = irstab.read_qrels(tmp_path / "q.gz").frame
    assert f.to_dict("list") == {"topic": ["1", "1", "2"], "docid": ["a", "b", "a"],
                                 "grade": [2, -2, 0]}
    assert isinstance(f, pd.DataFrame)
