r"""Simulated side-by-side preferences over a collection's runs: for tests and demos only.

No public data set pairs runs for a G-study with users' side-by-side preferences over the same
topics (see ``docs/preferences-front.md``). To exercise the front of stability and agreement end to
end, :func:`simulated_comparisons` draws pairs of runs of a collection, shows their top ``k``
of one topic side by side, and lets a *simulated* user choose: the user prefers side A with
probability :math:`\sigma(\beta\,(A - B) / (A + B))`, where :math:`A, B` are the DCG@k of a
hidden gain and discount (no preference when both are 0). Everything that reports on such data
must say that the preferences are simulated; :class:`SimulatedComparisons` carries
``simulated = True`` and the hidden configuration so that it can.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._numeric import check_seed
from ..errors import IRStabError
from ..optimizer.scenario import discount_vector, gain_vector

__all__ = ["SimulatedComparisons", "simulated_comparisons"]


@dataclass(frozen=True)
class SimulatedComparisons:
    """Comparisons with the fields of :class:`irstab.preferences.comparisons.Comparisons`.

    ``systems`` holds the two runs shown (indices into the collection's systems); ``user``
    the hidden configuration, as a measure string.
    """

    topic: np.ndarray
    preferred: np.ndarray
    grades_a: np.ndarray
    grades_b: np.ndarray
    judge: np.ndarray | None
    systems: np.ndarray
    user: str
    simulated: bool = True

    def dcg(self, gain, discount) -> np.ndarray:
        """``(n, 2)`` DCG of both sides (gain of grades ``0..``; ``-1``: no document)."""
        g = np.asarray(gain, dtype=float)
        d = np.asarray(discount, dtype=float)
        out = []
        for side in (self.grades_a, self.grades_b):
            s = side[:, : len(d)]
            out.append(np.where(s > 0, g[np.clip(s, 0, len(g) - 1)], 0.0) @ d[: s.shape[1]])
        return np.stack(out, axis=1)


def simulated_comparisons(collection, cutoff: int, *, per_topic: int = 20,
                          topics=None, gain="exp", discount="zipf", beta: float = 8.0,
                          seed=0) -> SimulatedComparisons:
    """Simulated preferences between pairs of ``collection``'s runs (module docstring).

    Parameters
    ----------
    collection : irstab.Collection
    cutoff : int
        Ranks shown per side.
    per_topic : int
        Comparisons per topic (pairs of distinct runs drawn at random).
    topics : sequence of int, optional
        Topic indices to draw comparisons for (default: all).
    gain, discount
        The simulated user's hidden configuration.
    beta : float
        Decisiveness of the user (larger: closer to the sign of the hidden DCG difference).
    seed : int or numpy.random.Generator

    Examples
    --------
    >>> import irstab
    >>> sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=5, depth=10, seed=1)
    >>> coll = irstab.Collection.build(sim.qrels, sim.runs, depth=10)
    >>> c = simulated_comparisons(coll, 5, per_topic=4, seed=2)
    >>> c.grades_a.shape, c.simulated
    ((20, 5), True)
    """
    if collection.n_systems < 2:
        raise IRStabError("collection: simulated comparisons need at least 2 runs")
    k = int(cutoff)
    if not 1 <= k <= collection.stored(k):
        raise IRStabError(f"cutoff: expected 1..{collection.stored()}, got {cutoff!r}")
    rng = check_seed(seed)
    idx = np.arange(collection.n_topics) if topics is None else np.asarray(topics, np.int64)
    t = np.repeat(idx, per_topic)
    s1 = rng.integers(0, collection.n_systems, size=len(t))
    s2 = (s1 + rng.integers(1, collection.n_systems, size=len(t))) % collection.n_systems
    grades = np.asarray(collection.grades_to(k), dtype=np.int64)
    ga, gb = grades[s1, t], grades[s2, t]
    g = gain_vector(gain, max(int(collection.max_grade), 1))
    d = discount_vector(discount, k)
    a = np.where(ga > 0, g[np.clip(ga, 0, len(g) - 1)], 0.0) @ d
    b = np.where(gb > 0, g[np.clip(gb, 0, len(g) - 1)], 0.0) @ d
    total = a + b
    rel = np.divide(a - b, total, out=np.zeros_like(total), where=total > 0)
    p_a = 1.0 / (1.0 + np.exp(-beta * rel))
    pref = np.where(rng.random(len(t)) < p_a, 1, -1).astype(np.int8)
    pref[total == 0] = 0
    topic_ids = np.asarray(collection.topics, dtype=str)[t]
    from ..metrics import Discount, Gain, nDCG

    user = nDCG(gain=Gain.of(gain), discount=Discount.of(discount), cutoff=k).canonical()
    return SimulatedComparisons(topic_ids, pref, ga, gb, None, np.stack([s1, s2], axis=1), user)
