"""Stability-optimal gain and discount vectors of nDCG (Kanoulas & Aslam 2009).

Entry points
------------
:func:`optimize` (and :func:`optimize_discount`, :func:`optimize_gain`,
:func:`optimize_joint`) for one collection and cutoff; :func:`minimax` for
several scenarios sharing one gain and one discount; :func:`pareto` for the
front between two objectives. Each returns a typed result whose optimum is a
measure that :func:`irstab.evaluate` accepts.

Rooms, bottom up: :mod:`.objectives` (Phi, Erho2 or the discrimination surrogate of a
score matrix, with the gradient by every cell), :mod:`.forms` (the optimizer's input from
run files without the grade tensor: :func:`linear_forms`, batch by batch or on Dask),
:mod:`.scenario` (nDCG@k as linear forms in the gain and discount), :mod:`.parametrisation`
(simplex coordinates), :mod:`.problem` and :mod:`.constraints` and :mod:`.task` (what a
local solve maximises), the backends :mod:`.scipy_backend` (SLSQP / trust-constr) and
:mod:`.cvxpy_backend` (sequential convex programming; cvxpy is imported only there),
:mod:`.starts`, :mod:`.grid`, :mod:`.stats` (the figures reported with an optimum),
:mod:`.driver`, and the entry points :mod:`.minimax`, :mod:`.pareto`, :mod:`.facets`,
:mod:`.robust_crossfit` (the judge-robust nDCG, cross-fitted over topics, with the agreement
objective of :mod:`.robustness`).

May import: :mod:`irstab.compare` (Kendall's tau of the reported figures), the stability
designs and every floor below; never the report or the CLI.
"""

from .crossfit import CrossFit, cross_fit, cross_fitted_measures, topic_folds
from .driver import Backend, optimize, optimize_discount, optimize_gain, optimize_joint
from .facets import optimize_assessors
from .forms import LinearForms, linear_forms
from .minimax import minimax, scenarios_by_cutoff, scenarios_by_topic_split
from .pareto import pareto
from .robust_crossfit import JudgeRobust, judge_robust, judge_robust_from_assessors
from .robustness import Agreement, JudgeAgreement
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
    "Agreement", "JudgeAgreement", "JudgeRobust", "judge_robust", "judge_robust_from_assessors",
    "CrossFit", "cross_fit", "cross_fitted_measures", "topic_folds",
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
