r"""The stability-optimal nDCG problem (Kanoulas & Aslam, CIKM 2009, §2.2, Fig. 1).

:class:`Problem`: one or several :class:`~.scenario.Scenario` (nDCG@k on a
collection, as linear forms in the gain ``g`` and discount ``d``) sharing one
gain and one discount over a :class:`~.parametrisation.Parametrisation`, with
the objective of :mod:`.objectives` and its analytic gradient.
What one local solve maximises is a :class:`~.task.Task` of it.

References
----------
E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009.
R. L. Brennan (2001). *Generalizability Theory*. Springer, ch. 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import IRStabError
from .objectives import Vary, as_enum
from .parametrisation import Parametrisation
from .scenario import Scenario, discount_vector, gain_vector

__all__ = ["Problem"]


@dataclass(frozen=True, eq=False)
class Problem:
    r"""Scenarios sharing one gain and one discount, over a :class:`Parametrisation`.

    One scenario is the problem of Kanoulas & Aslam, CIKM 2009, Fig. 1; several are the minimax
    problem (each scenario's discount is the shared one truncated at its
    cutoff). The objective values are ``values(y)``; the single-scenario
    objective is ``values(y)[0]``.

    Examples
    --------
    >>> import numpy as np
    >>> from irstab.simulate import simulate_collection
    >>> from irstab.evaluation import as_collection
    >>> sim = simulate_collection(n_systems=6, n_topics=8, depth=20, seed=3)
    >>> coll = as_collection(sim.qrels, sim.runs, depth=20)
    >>> p = Problem.build([Scenario(coll, 10)], vary="discount")
    >>> y = p.param.variables(p.param.gain, discount_vector("log2", 10))
    >>> v, jac = p.values_and_jac(y)
    >>> v.shape, jac.shape
    ((1,), (1, 10))
    """

    scenarios: tuple[Scenario, ...]
    param: Parametrisation

    @classmethod
    def build(
        cls,
        scenarios: Sequence[Scenario],
        *,
        vary: Vary | str = Vary.discount,
        monotone: bool = True,
        gain="linear",
        discount="log2",
    ) -> Problem:
        """Problem over shared vectors; the discount is defined on the largest cutoff."""
        scenarios = tuple(scenarios)
        if not scenarios:
            raise IRStabError("scenarios: give at least one")
        grades = {s.n_grades for s in scenarios}
        if len(grades) != 1:
            raise IRStabError(
                f"scenarios: collections have different grade scales {sorted(grades)}; one "
                "gain vector cannot serve them all"
            )
        k = max(s.cutoff for s in scenarios)
        G = grades.pop()
        if G < 2:
            raise IRStabError("gain: the qrels need at least one positive grade")
        param = Parametrisation(
            n_grades=G,
            cutoff=k,
            vary=as_enum(Vary, vary, "vary"),
            monotone=bool(monotone),
            gain=gain_vector(gain, G - 1),
            discount=discount_vector(discount, k),
        )
        return cls(scenarios, param)

    @property
    def n_scenarios(self) -> int:
        return len(self.scenarios)

    def values_of(self, gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
        """Objective of every scenario for full vectors (no gradient)."""
        return np.array(
            [
                s.stability(s._ndcg(gain, discount[: s.cutoff])[0])[0]
                for s in self.scenarios
            ]
        )

    def values(self, y: np.ndarray) -> np.ndarray:
        hit = self._recent().get(np.asarray(y, dtype=np.float64).tobytes())
        if hit is not None:  # the values of a point whose gradient was just taken
            return hit[0].copy()
        return self.values_of(*self.param.vectors(y))

    #: Points whose values and Jacobian are kept: a local solve's last point is evaluated
    #: again by the merit, the gap and the trimming that follow it.
    _RECENT = 8

    def _recent(self) -> dict:
        return self.__dict__.setdefault("_recent_points", {})

    def _full_grads(self, gain, discount):
        vals = np.empty(self.n_scenarios)
        K = self.param.cutoff
        gg = np.empty((self.n_scenarios, len(gain)))
        gd = np.zeros((self.n_scenarios, K))
        for i, s in enumerate(self.scenarios):  # loop over scenarios only (a handful)
            vals[i], gg[i], gd[i, : s.cutoff] = s._value_and_grad(
                gain, discount[: s.cutoff], gain_grad=self.param.varies_gain
            )
        return vals, gg, gd

    def prepare(self) -> None:
        """Build what every evaluation of a fixed gain shares (each scenario's sparse matrix,
        :meth:`Scenario._gain_matrix`) now: before worker processes fork, so that they
        share one copy instead of each building its own."""
        if not self.param.varies_gain:
            for s in self.scenarios:
                s._gain_matrix(self.param.gain)

    def values_and_jac(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Objective of every scenario and the Jacobian by ``y``, ``(n_scenarios, n_vars)``."""
        key = np.asarray(y, dtype=np.float64).tobytes()
        recent = self._recent()
        hit = recent.get(key)
        if hit is None:  # the same arithmetic at the same point gives the same numbers
            vals, gg, gd = self._full_grads(*self.param.vectors(y))
            hit = (vals, np.stack([self.param.grad(a, b) for a, b in zip(gg, gd)]))
            if len(recent) >= self._RECENT:
                del recent[next(iter(recent))]
            recent[key] = hit
        return hit[0].copy(), hit[1].copy()

    def natural_values_and_jac(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Objective of every scenario and the Jacobian by natural coordinates ``v``."""
        vals, gg, gd = self._full_grads(*self.param.from_natural(v))
        jac = np.stack([self.param.natural_grad(a, b) for a, b in zip(gg, gd)])
        return vals, jac

    def ndcg(self, y: np.ndarray, scenario: int = 0) -> np.ndarray:
        g, d = self.param.vectors(y)
        s = self.scenarios[scenario]
        return s._ndcg(g, d[: s.cutoff])[0]
