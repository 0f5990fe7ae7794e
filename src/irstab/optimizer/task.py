r"""What one local solve maximises: a problem, optionally under a constraint.

One scenario: its objective. Several: the smallest objective (minimax, in
epigraph form in the solvers). The Frank-Wolfe gap at a point is the
solvers' common convergence measure.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .constraints import PhiConstraint, PriorConstraint
from .parametrisation import Parametrisation
from .problem import Problem

__all__ = ["Task"]


@dataclass(frozen=True, eq=False)
class Task:
    """What one local solve maximises.

    One scenario: its objective. Several: the smallest objective (minimax,
    epigraph form in the solvers). An optional ``constraint`` ``h(y) >= 0``
    (:class:`PhiConstraint` or :class:`PriorConstraint`) for the
    epsilon-constraint sweep of :func:`irstab.optimizer.pareto`.
    """

    problem: Problem
    constraint: PhiConstraint | PriorConstraint | None = None
    feasibility_tol: float = 1e-9

    @property
    def maximin(self) -> bool:
        return self.problem.n_scenarios > 1

    @property
    def param(self) -> Parametrisation:
        return self.problem.param

    def merit(self, y: np.ndarray) -> float:
        """Objective (smallest over scenarios); ``-inf`` where the constraint is violated."""
        if self.constraint is not None and self.constraint.value_and_jac(y)[0] < -self.feasibility_tol:
            return -np.inf
        return float(self.problem.values(y).min())

    def sparsify(self, y: np.ndarray, rel: float = 1e-10) -> np.ndarray:
        """Zero the coordinates below ``rel`` x the block's largest when that costs nothing.

        Solvers leave round-off mass (1e-17) where the optimum has exact zeros;
        dropping it gives exact steps in the vectors (and shorter measure
        strings). Kept only if the merit does not drop by more than 1e-15.
        """
        z = np.asarray(y, dtype=float).copy()
        for b in self.param.blocks:
            blk = z[b]
            blk[blk < rel * blk.max()] = 0.0
            z[b] = blk
        z = self.param.project(z)
        return z if self.merit(z) >= self.merit(y) - 1e-15 else y

    def gap(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        r"""Frank-Wolfe gap at ``y`` and the maximising vertex ``y'`` of the linearisation.

        .. math:: \max_{y' \in P} \min_j [f_j + \nabla f_j (y' - y)] - \min_j f_j

        over the feasible polytope :math:`P` (with the constraint linearised).
        It is 0 exactly at first-order (KKT) points and does not depend on the
        parametrisation of the polytope; the solvers report it as the
        convergence measure.
        """
        vals, jac = self.problem.values_and_jac(y)
        if not self.maximin and self.constraint is None:
            gr = jac[0]
            best = np.zeros_like(y)
            gap = 0.0
            for b in self.param.blocks:  # a handful of blocks
                i = b.start + int(np.argmax(gr[b]))
                best[i] = 1.0
                gap += float(gr[i] - gr[b] @ y[b])
            return max(gap, 0.0), best
        from scipy.optimize import linprog

        n = len(y)
        m = self.problem.n_scenarios
        lo = float(vals.min())
        # variables (y', s): maximise s subject to f_j + J_j (y' - y) >= lo + s
        a_ub = np.hstack([-jac, np.ones((m, 1))])
        b_ub = vals - jac @ y - lo
        if self.constraint is not None:
            h, hj = self.constraint.value_and_jac(y)
            a_ub = np.vstack([a_ub, np.r_[-hj, 0.0]])
            b_ub = np.r_[b_ub, h - hj @ y]
        a_eq = np.zeros((len(self.param.blocks), n + 1))
        for i, b in enumerate(self.param.blocks):
            a_eq[i, b] = 1.0
        res = linprog(
            np.r_[np.zeros(n), -1.0],
            A_ub=a_ub,
            b_ub=b_ub,
            A_eq=a_eq,
            b_eq=np.ones(len(self.param.blocks)),
            bounds=[(0.0, 1.0)] * n + [(None, None)],
            method="highs",
        )
        if res.status != 0:
            return np.inf, y.copy()
        return max(float(-res.fun), 0.0) + 0.0, res.x[:n]  # + 0.0: no -0.0
