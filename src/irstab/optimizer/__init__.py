"""Stability-optimal gain and discount vectors of nDCG (Kanoulas & Aslam 2009).

Entry points
------------
:func:`optimize` (and :func:`optimize_discount`, :func:`optimize_gain`,
:func:`optimize_joint`) for one collection and cutoff; :func:`minimax` for
several scenarios sharing one gain and one discount; :func:`pareto` for the
front between two objectives. Each returns a typed result whose optimum is a
measure that :func:`irstab.evaluate` accepts.

Building blocks: :class:`Scenario` (nDCG@k as linear forms in the gain and
discount), :class:`Problem` (Phi and its analytic gradient over a
parametrisation), and the backends :mod:`~irstab.optimizer.scipy_backend`
(SLSQP / trust-constr) and :mod:`~irstab.optimizer.cvxpy_backend`
(sequential convex programming). cvxpy is imported only by its backend.
:func:`linear_forms` gives the optimizer's input from run files without the
grade tensor (batch by batch, or on a Dask cluster).
"""

from .driver import Backend, optimize, optimize_discount, optimize_gain, optimize_joint
from .facets import optimize_assessors
from .forms import LinearForms, linear_forms
from .minimax import minimax, scenarios_by_cutoff, scenarios_by_topic_split
from .pareto import pareto
from .objectives import Objective, stability_and_gradient, Vary
from .parametrisation import Parametrisation
from .problem import Problem
from .scenario import Scenario
from .task import Task
from .result import (
    ConvergenceError,
    InfeasibleError,
    MeasureStats,
    OptimizationResult,
    OptimizerError,
    ParetoPoint,
    ParetoResult,
    ScenarioStats,
    StartRecord,
    Status,
)

__all__ = [
    "Backend",
    "ConvergenceError",
    "InfeasibleError",
    "LinearForms",
    "MeasureStats",
    "Objective",
    "OptimizationResult",
    "OptimizerError",
    "Parametrisation",
    "ParetoPoint",
    "ParetoResult",
    "Problem",
    "Scenario",
    "ScenarioStats",
    "StartRecord",
    "Status",
    "Task",
    "Vary",
    "linear_forms",
    "minimax",
    "optimize",
    "optimize_discount",
    "optimize_gain",
    "optimize_joint",
    "optimize_assessors",
    "pareto",
    "scenarios_by_cutoff",
    "scenarios_by_topic_split",
    "stability_and_gradient",
]
