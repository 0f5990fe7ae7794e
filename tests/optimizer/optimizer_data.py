"""Small simulated collections for the optimizer tests (seeded; built in milliseconds)."""

from __future__ import annotations

from irstab.evaluation import as_collection
from irstab.simulate import simulate_collection


def small_collection(seed: int = 11, n_systems: int = 8, n_topics: int = 12, depth: int = 30,
                     n_grades: int = 4):
    """A seeded simulated collection (default 8 systems x 12 topics, grades 0-3, depth 30)."""
    sim = simulate_collection(
        n_systems=n_systems, n_topics=n_topics, depth=depth, n_grades=n_grades, seed=seed
    )
    return as_collection(sim.qrels, sim.runs, depth=depth)
