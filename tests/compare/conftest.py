"""Fixtures shared by the comparison tests."""

from __future__ import annotations

import warnings

import pytest

import irstab


@pytest.fixture(scope="session")
def small():
    """4 simulated systems x 5 topics, depth 30, grades 0-3 (seed 7)."""
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=5, depth=30, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstab.Collection.build(sim.qrels, sim.runs, depth=30)
