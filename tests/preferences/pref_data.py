"""Small comparisons for the preferences tests: random arrays and SIMULATED users.

Every preference here is simulated (a hidden gain and discount plus logistic noise, or random
draws); none is a real user's judgment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irstab.evaluation import as_collection
from irstab.preferences.simulated import simulated_comparisons
from irstab.simulate import simulate_collection


@dataclass(frozen=True)
class Comps:
    """The fields of irstab.preferences.comparisons.Comparisons (duck typing)."""

    topic: np.ndarray
    preferred: np.ndarray
    grades_a: np.ndarray
    grades_b: np.ndarray
    judge: np.ndarray | None = None


def random_comparisons(seed: int, n: int = 40, n_topics: int = 6, depth: int = 5,
                       max_grade: int = 3) -> Comps:
    """Uniformly random grades (-1 .. max_grade) and preferences (-1, 0, +1)."""
    rng = np.random.default_rng(seed)
    topic = np.array([f"t{i}" for i in rng.integers(0, n_topics, size=n)])
    return Comps(topic, rng.integers(-1, 2, size=n).astype(np.int8),
                 rng.integers(-1, max_grade + 1, size=(n, depth)),
                 rng.integers(-1, max_grade + 1, size=(n, depth)))


def small_collection(seed: int = 3, n_systems: int = 8, n_topics: int = 10, depth: int = 10):
    sim = simulate_collection(n_systems=n_systems, n_topics=n_topics, depth=depth, n_grades=4,
                              seed=seed)
    return as_collection(sim.qrels, sim.runs, depth=depth)


def simulated_users(collection, cutoff: int = 5, per_topic: int = 12, seed: int = 4, **kw):
    """SIMULATED preferences over the collection's runs (a hidden exp/zipf user)."""
    return simulated_comparisons(collection, cutoff, per_topic=per_topic, seed=seed, **kw)
