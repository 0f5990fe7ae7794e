"""The global grid check of the gains.

For at most 5 grades (4 free gains) every gain vector on a regular grid of
the gain simplex (monotone or not, as the problem) is evaluated at once
(vectorised over the grid); when the grid's best beats the local optima, a
local solve starts there too. For joint problems the grid varies the gains
with the discount fixed at the best local optimum (a block check).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .problem import Problem
from .result import (
    GridCheck,
)
from .scenario import _sum_by

__all__ = ["grid_values", "grid_check", "GRID_MAX_FREE"]

GRID_MAX_FREE = 4  # at most 5 grades
_GRID_RESOLUTION = {1: 1, 2: 200, 3: 60, 4: 30}
_GRID_CHUNK = 512


def _compositions(m: int, resolution: int) -> np.ndarray:
    """All points of the simplex in R^m with coordinates in multiples of 1/resolution."""
    if m == 1:
        return np.ones((1, 1))
    bars = np.array(list(combinations(range(resolution + m - 1), m - 1)))
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), resolution + m - 1)])
    return (np.diff(edges, axis=1) - 1) / resolution


def grid_values(problem: Problem, discount: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Merit (smallest objective over scenarios) of every gain grid point ``ys`` (rows).

    Vectorised: for fixed ``discount`` the DCG of every cell is ``C @ g`` and
    the ideal DCG ``E(order) @ g`` for the grade order of ``g``.
    """
    param = problem.param
    m = param.n_grades - 1
    # every point's gain vector at once: a cumulative sum along each row is the row's own
    # (the same additions in the same order as one point at a time)
    ys = np.asarray(ys, dtype=np.float64).reshape(len(ys), m)
    free = np.cumsum(ys / param._a_gain, axis=1) if param.monotone else ys
    gains = np.concatenate([np.zeros((len(ys), 1)), free], axis=1)
    G = m + 1
    merit = np.full(len(ys), np.inf)
    for s in problem.scenarios:  # a handful of scenarios
        d = discount[: s.cutoff]
        S, T = s.n_systems, s.n_topics
        c = _sum_by(s._cell * G + s._grade, d[s._rank], S * T * G).reshape(S, T, G)
        # group grid points by the grade order of their gains (at most m! groups)
        orders = np.argsort(-gains, axis=1, kind="stable")
        keys, inverse = np.unique(orders, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        values = np.empty(len(gains))
        cum = np.concatenate(([0.0], np.cumsum(d)))
        for key_idx in range(len(keys)):  # one pass per grade order
            sel = np.flatnonzero(inverse == key_idx)
            start, end = s._blocks_for_order(keys[key_idx])
            e = cum[end] - cum[start]  # (T, G): discount mass of each grade's ideal block
            for lo in range(0, len(sel), _GRID_CHUNK):  # memory: chunks of grid points
                idx = sel[lo : lo + _GRID_CHUNK]
                g = gains[idx]
                num = np.einsum("stj,pj->pst", c, g)
                den = g @ e.T  # (P, T)
                ok = den > 0
                x = np.divide(num, den[:, None, :], out=np.zeros_like(num), where=ok[:, None, :])
                values[idx] = s.stability_batch(x)
        merit = np.minimum(merit, values)
    return merit


def grid_check(problem: Problem, discount: np.ndarray) -> tuple[GridCheck, np.ndarray] | None:
    """Best gain on the grid (None when the gains do not vary or there are > 5 grades)."""
    param = problem.param
    m = param.n_grades - 1
    if not param.varies_gain or m > GRID_MAX_FREE:
        return None
    resolution = _GRID_RESOLUTION[m]
    ys = _compositions(m, resolution)
    values = grid_values(problem, discount, ys)
    i = int(np.argmax(values))
    g = np.r_[0.0, np.cumsum(ys[i] / param._a_gain)] if param.monotone else np.r_[0.0, ys[i]]
    check = GridCheck(
        points=len(ys),
        resolution=resolution,
        best=float(values[i]),
        gain=tuple(float(v) for v in g),
        improved=False,
    )
    y = param.variables(g, discount, check=False)
    return check, y
