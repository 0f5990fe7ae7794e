r"""Side constraints of a local solve, for the epsilon-constraint sweep of :mod:`.pareto`.

Each is an inequality ``h(y) >= 0`` with its gradient by the variables ``y``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .parametrisation import Parametrisation
from .problem import Problem

__all__ = ["PhiConstraint", "PriorConstraint"]


@dataclass(frozen=True, eq=False)
class PhiConstraint:
    r"""``Phi_B(y) >= epsilon`` for a second problem over the same parametrisation."""

    problem: Problem
    epsilon: float

    def value_and_jac(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        """``h(y) = Phi_B(y) - epsilon`` and its gradient by ``y``."""
        v, j = self.problem.values_and_jac(y)
        return float(v[0] - self.epsilon), j[0]

    def natural_value_and_grad(self, v: np.ndarray) -> tuple[float, np.ndarray]:
        val, j = self.problem.natural_values_and_jac(v)
        return float(val[0] - self.epsilon), j[0]


@dataclass(frozen=True, eq=False)
class PriorConstraint:
    r"""``||v - p||_2 <= epsilon``: the varying vectors stay near a prior.

    ``v`` and ``p`` are natural coordinates (``g_1..g_m`` and/or
    ``d_1..d_k``, each block normalised to sum 1), e.g. the log2 discount.
    As a smooth inequality: :math:`h = \epsilon^2 - \lVert v - p\rVert^2 \ge 0`.
    """

    param: Parametrisation
    prior: np.ndarray
    epsilon: float

    def distance(self, y: np.ndarray) -> float:
        return float(np.linalg.norm(self.param.natural(y) - self.prior))

    def value_and_jac(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        g, d = self.param.vectors(y)
        v = self.param.natural(y)
        diff = v - self.prior
        h = self.epsilon**2 - float(diff @ diff)
        blocks = iter(self.param.blocks)
        gg = np.zeros_like(g)
        gd = np.zeros_like(d)
        if self.param.varies_gain:
            gg[1:] = -2.0 * diff[next(blocks)]
        if self.param.varies_discount:
            gd = -2.0 * diff[next(blocks)]
        return h, self.param.grad(gg, gd)
