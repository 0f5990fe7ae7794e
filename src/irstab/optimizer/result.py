"""Results of the optimizer: statuses, errors, and the typed result objects.

Every figure of a result is computed from the *reported* kernel: the
measure's nDCG matrix from :meth:`irstab.metrics.nDCG.compute` (what
``irstab evaluate`` prints) and the G-study of :func:`irstab.stability.gstudy`
(what ``irstab stability`` prints). The optimizer's own objective value is kept
as ``value``; the two agree (tests/optimizer/test_optimizer_dl2019.py and
test_optimizer_solve.py), and a disagreement is reported with a warning,
never hidden.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pandas as pd

from .._repr import short_repr
from ..errors import IRStabError, IRStabWarning

__all__ = [
    "ConvergenceError",
    "GridCheck",
    "InfeasibleError",
    "LocalSolution",
    "MeasureStats",
    "OptimizationResult",
    "OptimizerError",
    "ParetoPoint",
    "ParetoResult",
    "ScenarioStats",
    "StartRecord",
    "Status",
]

#: Two final objectives closer than this count as the same optimum (Phi(1) is in [0, 1];
#: the solvers stop at a Frank-Wolfe gap of 1e-4 but agree on Phi to ~1e-9).
SAME_VALUE = 1e-6


class Status(str, Enum):
    """Outcome of a local solve (and of the best start, for a result)."""

    optimal = "optimal"  # first-order optimality (Frank-Wolfe gap) within tolerance
    max_iter = "max_iter"  # iteration limit reached before the gap closed
    failed = "failed"  # the solver stopped without closing the gap (message says why)
    infeasible = "infeasible"  # the constraints cannot be met
    time_limit = "time_limit"  # stopped at the time limit with the best point found so far


class OptimizerError(IRStabError):
    """The optimizer could not return a trustworthy answer.

    Attributes
    ----------
    status : Status
    result : object or None
        The partial result (best point found), when there is one.
    """

    def __init__(self, message: str, status: Status, result=None):
        super().__init__(message)
        self.status = status
        self.result = result


class InfeasibleError(OptimizerError):
    """The constraints of the problem cannot be satisfied (message names the parameter)."""

    def __init__(self, message: str, result=None):
        super().__init__(message, Status.infeasible, result)


class ConvergenceError(OptimizerError):
    """No start reached first-order optimality within the limits (message names them)."""


# ----------------------------------------------------------------- local solves


@dataclass(frozen=True)
class LocalSolution:
    """One local solve from one start, in the optimizer's coordinates ``y``.

    ``value`` is the merit (the objective; the smallest objective for
    minimax); ``gap`` the Frank-Wolfe gap at ``y`` (0 at a KKT point).
    """

    y: np.ndarray = field(repr=False)
    value: float
    initial: float
    iterations: int
    status: Status
    message: str
    gap: float
    seconds: float = 0.0


@dataclass(frozen=True)
class StartRecord:
    """One start of a multi-start run: where it began and where it ended."""

    start: str
    initial: float
    final: float
    iterations: int
    status: Status
    message: str
    seconds: float
    gap: float

    def to_dict(self) -> dict:
        return {
            "start": self.start,
            "initial": self.initial,
            "final": self.final,
            "iterations": self.iterations,
            "status": self.status.value,
            "message": self.message,
            "seconds": self.seconds,
            "gap": self.gap,
        }


@dataclass(frozen=True)
class GridCheck:
    """Global check of the gain vector on a grid of the (monotone) gain simplex.

    ``best`` is the largest objective on the grid (``points`` vectors with
    step ``1/resolution`` in the optimizer's coordinates), ``gain`` its
    vector; ``improved`` says whether a local solve started there beat every
    other start (it is then one of the starts).
    """

    points: int
    resolution: int
    best: float
    gain: tuple[float, ...]
    improved: bool

    def to_dict(self) -> dict:
        return {
            "points": self.points,
            "resolution": self.resolution,
            "best": self.best,
            "gain": list(self.gain),
            "improved": self.improved,
        }


# ----------------------------------------------------------------- reported figures


def _json_count(v: float) -> int | None:
    return None if not math.isfinite(v) else int(v)


@dataclass(frozen=True)
class MeasureStats:
    """Stability figures of one measure on one scenario (from the G-study).

    ``gain`` and ``discount`` are vectors (tuples) for the optimum and preset
    names for the presets. ``phi1`` is Phi at one topic, ``phi`` and ``erho2``
    at the scenario's topic count, ``topics_needed`` the topics for
    Phi = 0.95 (``inf``: never), ``erho2_1`` Erho2 at one topic.
    """

    measure: str
    gain: tuple[float, ...] | str
    discount: tuple[float, ...] | str
    phi1: float
    phi: float
    erho2: float
    topics_needed: float
    erho2_1: float = float("nan")  # Erho2 at one topic (the erho2 objective)
    #: smooth share of significant system pairs (the discrimination objective)
    discrimination: float = float("nan")

    def to_dict(self) -> dict:
        def vec(v):
            return list(v) if isinstance(v, tuple) else v

        return {
            "measure": self.measure,
            "gain": vec(self.gain),
            "discount": vec(self.discount),
            "phi1": self.phi1,
            "phi": self.phi,
            "erho2": self.erho2,
            "topics_needed": _json_count(self.topics_needed),
            "discrimination": self.discrimination,
        }


@dataclass(frozen=True)
class ScenarioStats:
    """The optimum and the presets on one scenario, with Kendall's tau to each preset.

    ``kendall_tau`` pairs each preset's canonical measure with Kendall's
    tau-b between the system rankings by mean score under the optimum and
    under the preset (:func:`scipy.stats.kendalltau`).
    """

    name: str
    cutoff: int
    n_systems: int
    n_topics: int
    optimum: MeasureStats
    presets: tuple[MeasureStats, ...]
    kendall_tau: tuple[tuple[str, float], ...]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "cutoff": self.cutoff,
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            **self.optimum.to_dict(),
            "presets": [p.to_dict() for p in self.presets],
            "kendall_tau": dict(self.kendall_tau),
        }


def _stats_frame(s: ScenarioStats) -> pd.DataFrame:
    tau = dict(s.kendall_tau)
    rows = [dict(s.optimum.to_dict(), variant="optimal", kendall_tau=1.0)]
    for p in s.presets:
        rows.append(dict(p.to_dict(), variant="preset", kendall_tau=tau[p.measure]))
    frame = pd.DataFrame(rows)
    # from the stats, not the dicts: pandas turns the dicts' None (never) into NaN
    frame["topics_needed"] = [float(p.topics_needed) for p in (s.optimum, *s.presets)]
    frame.insert(0, "scenario", s.name)
    cols = ["scenario", "variant", "measure", "phi1", "phi", "erho2", "topics_needed",
            "discrimination", "kendall_tau"]
    return frame[cols]


@short_repr
@dataclass(frozen=True)
class OptimizationResult:
    r"""A stability-optimal nDCG: the vectors, how stable it is, and how it was found.

    The result *is* a measure: :attr:`measure` is the
    :class:`irstab.metrics.nDCG` with the optimal gain and discount, and its
    canonical string (:attr:`measure_string`) works in ``irstab evaluate``
    and ``irstab stability``. Vectors are normalised to sum 1 (the gain over
    grades ``1..max``; ``gain[0] = 0``).

    Attributes
    ----------
    vary : str
        ``discount``, ``gain`` or ``joint``.
    objective : str
        ``phi`` or ``erho2`` (at one topic).
    monotone : bool
        Whether the ordering constraints were imposed.
    cutoff : int
        Length of the discount (the largest cutoff for minimax).
    gain, discount : tuple of float
    value : float
        The optimizer's objective at the optimum (for minimax: the smallest
        objective over the scenarios).
    scenarios : tuple of ScenarioStats
        Figures of the optimum and the presets (gain linear/exp x discount
        log2/zipf/linear/flat) per scenario; one for a single problem.
    starts : tuple of StartRecord
        Every start: preset and seeded random starts, and the grid start.
    grid : GridCheck or None
        Global grid check of the gains (at most 5 grades).
    iterations : int
        Iterations of the best start.
    seconds : float
        Wall time of the whole run.
    backend, method : str
    status : Status
        Status of the best start.
    message : str

    The properties :attr:`phi1`, :attr:`phi`, :attr:`erho2`,
    :attr:`topics_needed`, :attr:`presets` and :attr:`kendall_tau` read the
    primary scenario: the one with the largest cutoff (the first of those).
    """

    vary: str
    objective: str
    monotone: bool
    cutoff: int
    gain: tuple[float, ...]
    discount: tuple[float, ...]
    value: float
    scenarios: tuple[ScenarioStats, ...]
    starts: tuple[StartRecord, ...]
    grid: GridCheck | None
    iterations: int
    seconds: float
    backend: str
    method: str
    status: Status
    message: str

    # ------------------------------------------------------------ measure

    @property
    def primary(self) -> ScenarioStats:
        return max(self.scenarios, key=lambda s: s.cutoff)

    @property
    def measure(self):
        """The optimal nDCG as an :class:`irstab.metrics.nDCG` at :attr:`cutoff`."""
        from ..metrics import Discount, Gain, nDCG

        return nDCG(gain=Gain.of(self.gain), discount=Discount.of(self.discount), cutoff=self.cutoff)

    @property
    def measure_string(self) -> str:
        return self.measure.canonical()

    def __str__(self) -> str:
        return self.measure_string

    def _summary(self) -> str:
        def vec(v):
            return "(" + ",".join(f"{x:.3g}" for x in v) + ")"

        return (
            f"nDCG@{self.cutoff} vary={self.vary} gain={vec(self.gain)} "
            f"discount={vec(self.discount)}; Phi {self.phi:.3f}, Erho2 {self.erho2:.3f}; "
            f"{self.status.value}; the measure: .measure, its string: str(result)"
        )

    # ------------------------------------------------------------ figures

    @property
    def phi1(self) -> float:
        return self.primary.optimum.phi1

    @property
    def phi(self) -> float:
        return self.primary.optimum.phi

    @property
    def erho2(self) -> float:
        return self.primary.optimum.erho2

    @property
    def topics_needed(self) -> float:
        return self.primary.optimum.topics_needed

    @property
    def presets(self) -> tuple[MeasureStats, ...]:
        return self.primary.presets

    @property
    def kendall_tau(self) -> dict[str, float]:
        return dict(self.primary.kendall_tau)

    @property
    def spread(self) -> float:
        """Largest minus smallest final objective over the starts."""
        finals = [s.final for s in self.starts]
        return float(max(finals) - min(finals)) if finals else 0.0

    @property
    def reached_best(self) -> int:
        """Starts whose final objective is within :data:`SAME_VALUE` of the best."""
        return sum(1 for s in self.starts if s.final >= self.value - SAME_VALUE)

    @property
    def starts_disagree(self) -> bool:
        """Whether some start ended more than :data:`SAME_VALUE` below the best (a local optimum)."""
        return self.reached_best < len(self.starts)

    def agreement(self) -> str:
        """One sentence on how many starts reached the best value and whether they disagree."""
        n, total = self.reached_best, len(self.starts)
        if not self.starts_disagree:
            return "the one start ended there" if total == 1 else (
                f"all {total} starts reached the best value"
            )
        low = min(s.final for s in self.starts)
        return (
            f"{n} of {total} starts reached the best value; the starts disagree (final values "
            f"from {low:.6f} to {self.value:.6f}): the objective has other local optima, and "
            "more starts (--starts) lower the risk of missing a better one"
        )

    # ------------------------------------------------------------ output

    def to_dict(self) -> dict:
        """JSON-ready dict.

        Keys ``measure, gain, discount, phi1, phi, erho2, topics_needed,
        presets, kendall_tau, seconds, backend, status`` (the contract of
        ``irstab optimize --format json``), then ``vary, objective, monotone,
        cutoff, value, method, message, iterations, spread, reached_best,
        starts_disagree, starts, grid, scenarios``.
        """
        p = self.primary
        return {
            "measure": self.measure_string,
            "gain": list(self.gain),
            "discount": list(self.discount),
            "phi1": p.optimum.phi1,
            "phi": p.optimum.phi,
            "erho2": p.optimum.erho2,
            "topics_needed": _json_count(p.optimum.topics_needed),
            "presets": [s.to_dict() for s in p.presets],
            "kendall_tau": dict(p.kendall_tau),
            "seconds": self.seconds,
            "backend": self.backend,
            "status": self.status.value,
            "vary": self.vary,
            "objective": self.objective,
            "monotone": self.monotone,
            "cutoff": self.cutoff,
            "value": self.value,
            "method": self.method,
            "message": self.message,
            "iterations": self.iterations,
            "spread": self.spread,
            "reached_best": self.reached_best,
            "starts_disagree": self.starts_disagree,
            "starts": [s.to_dict() for s in self.starts],
            "grid": None if self.grid is None else self.grid.to_dict(),
            "scenarios": [s.to_dict() for s in self.scenarios],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per (scenario, measure): the optimum, then the presets.

        Columns ``scenario, variant, measure, phi1, phi, erho2,
        topics_needed, kendall_tau`` (tau of the optimum with itself is 1).
        """
        return pd.concat([_stats_frame(s) for s in self.scenarios], ignore_index=True)

    def starts_frame(self) -> pd.DataFrame:
        """One row per start: ``start, initial, final, iterations, status, message, ...``."""
        return pd.DataFrame([s.to_dict() for s in self.starts])


# ----------------------------------------------------------------- Pareto


@dataclass(frozen=True)
class ParetoPoint:
    """One epsilon-constrained optimum on the front."""

    epsilon: float
    first: float
    second: float
    gain: tuple[float, ...]
    discount: tuple[float, ...]
    status: Status
    iterations: int

    def to_dict(self) -> dict:
        return {
            "epsilon": self.epsilon,
            "first": self.first,
            "second": self.second,
            "gain": list(self.gain),
            "discount": list(self.discount),
            "status": self.status.value,
            "iterations": self.iterations,
        }


@short_repr
@dataclass(frozen=True)
class ParetoResult:
    """Front between two objectives by an epsilon-constraint sweep.

    ``first`` is the maximised objective (of scenario ``first_name``: Phi(1),
    Erho2(1) or discrimination, as the scenario's objective);
    ``second`` is either the objective of a second scenario (constrained to be
    ``>= epsilon``; ``kind = "scenario"``) or the Euclidean distance of the
    normalised varying vectors to a prior such as log2 (constrained to be
    ``<= epsilon``; ``kind = "prior"``).
    """

    kind: str
    first_name: str
    second_name: str
    vary: str
    cutoff: int
    points: tuple[ParetoPoint, ...]
    backend: str
    seconds: float

    def to_frame(self) -> pd.DataFrame:
        """Columns ``epsilon, <first_name>, <second_name>, status, iterations``."""
        return pd.DataFrame(
            {
                "epsilon": [p.epsilon for p in self.points],
                self.first_name: [p.first for p in self.points],
                self.second_name: [p.second for p in self.points],
                "status": [p.status.value for p in self.points],
                "iterations": [p.iterations for p in self.points],
            }
        )

    def _summary(self) -> str:
        return (
            f"{len(self.points)} points, {self.first_name} against {self.second_name} "
            f"({self.kind}), nDCG@{self.cutoff} vary={self.vary}"
        )

    def measures(self) -> list[str]:
        """Canonical measure string of every point."""
        from ..metrics import Discount, Gain, nDCG

        return [
            nDCG(gain=Gain.of(p.gain), discount=Discount.of(p.discount), cutoff=self.cutoff).canonical()
            for p in self.points
        ]

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "first": self.first_name,
            "second": self.second_name,
            "vary": self.vary,
            "cutoff": self.cutoff,
            "backend": self.backend,
            "seconds": self.seconds,
            "points": [dict(p.to_dict(), measure=m) for p, m in zip(self.points, self.measures())],
        }


# ----------------------------------------------------------------- helpers


def warn_if_disagree(value: float, reported: float, what: str, tol: float = 1e-8) -> None:
    """Warn when the optimizer's objective and the reported kernel's differ."""
    if not (abs(value - reported) <= tol * max(1.0, abs(reported))):
        warnings.warn(
            f"{what}: the optimizer's objective {value:.10g} differs from the value "
            f"{reported:.10g} of the evaluate kernel; the reported figures are the kernel's",
            IRStabWarning,
            stacklevel=3,
        )


def as_pairs(mapping: Mapping[str, float] | Sequence[tuple[str, float]]) -> tuple:
    items = mapping.items() if isinstance(mapping, Mapping) else mapping
    return tuple((str(k), float(v)) for k, v in items)
