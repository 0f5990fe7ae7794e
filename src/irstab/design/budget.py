r"""The best split of a judging budget over topics, pool depth and assessors.

A design :math:`(n_t, d, n_a)` judges the pool of depth :math:`d` of :math:`n_t` topics,
each document :math:`n_a` times, and may pay :math:`c` judgments' worth for making a topic
(writing it, running the systems, training the assessor). Its cost is

.. math:: C(n_t, d, n_a) = n_t\,(c + n_a P_d),

with :math:`P_d` the mean pool size per topic at depth :math:`d` (:mod:`irstab.design.depth`).
For a budget :math:`J`, every (depth, assessors) pair affords
:math:`n_t = \lfloor J / (c + n_a P_d) \rfloor` topics, and since both objectives improve
with every topic, that many. The objective is measured with the variance components of the
scores *at that depth* (a shallow pool changes the measure, not only its noise):

* ``phi``: the dependability coefficient :math:`\Phi(n_t, n_a)` of the G-study (two facets
  without assessor qrels, :math:`n_a = 1`; with them the three-facet
  :meth:`~irstab.stability.FacetGStudy.phi`), to maximise;
* ``mdd``: the minimum detectable difference of the paired t-test at :math:`n_t` topics
  (:func:`irstab.design.power.ttest_min_difference`), to minimise, with the per-topic
  variance of a paired difference :math:`\sigma_d^2 = 2\sigma^2_{res}` (two facets) or
  :math:`2 n_t \sigma^2(\delta)(n_t, n_a)` (three facets: nested,
  :math:`2(\sigma^2_{st} + \sigma^2_{sa:t}/n_a)`).

A shallow pool is cheap but measures something else: its system ranking may differ from the
one the full qrels give (the depth study's Kendall :math:`\tau`). ``min_tau`` excludes the
depths whose ranking agrees less than that with the full qrels.

Topic counts are integers of at most :data:`~irstab.design.power.MAX_TOPICS` (10 million):
a budget that pays for more topics than that at some depth is an error naming it, never a
count wrapped round to -9223372036854775808.

The chosen design is the best feasible one (:math:`n_t \ge 2`, and :math:`\tau \ge`
``min_tau`` when given); ties go to the cheaper,
then the shallower, then the one with fewer assessors. The *frontier* is the best objective
as a function of the budget, over a grid of budgets around :math:`J`, with the design that
reaches it. Both are computed in closed form, vectorised over (budget, depth, assessors);
tests/design/test_budget.py recomputes them by brute force over every
:math:`(n_t, d, n_a)`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pandas as pd

from .._numeric import check_allocation, checked_count
from .._repr import short_repr
from ..errors import IRStabError
from .depth import DepthStudy
from .power import MAX_TOPICS, check_alpha_beta, ttest_min_difference

__all__ = ["BudgetPlan", "Objective", "budget_plan", "check_designs", "design_values"]


class Objective(str, Enum):
    """What the budget is spent to optimise (module docstring)."""

    phi = "phi"
    mdd = "mdd"


@short_repr
@dataclass(frozen=True, eq=False)
class BudgetPlan:
    """Result of :func:`budget_plan`.

    ``designs``: one row per (depth, assessors) at the budget, columns ``depth, n_assessors,
    judgments_per_topic, coverage, tau_full, n_topics, cost, phi, mdd, feasible, chosen``.
    ``chosen``: that row of the chosen design as a dict. ``frontier``: one row per budget of
    the grid, columns ``budget, depth, n_assessors, n_topics, cost, phi, mdd``.
    ``current``: the collection itself (its topics, judgments, cost with the cost per topic,
    Phi and detectable difference with the full qrels).
    """

    measure: str
    budget: float
    cost_per_topic: float
    objective: Objective
    alpha: float
    beta: float
    facet: bool
    min_tau: float | None
    designs: pd.DataFrame = field(repr=False)
    chosen: dict = field(repr=False)
    frontier: pd.DataFrame = field(repr=False)
    current: dict = field(repr=False)

    def _summary(self) -> str:
        c = self.chosen
        return (f"{self.measure}: budget {self.budget:g} judgments -> {c['n_topics']} topics at "
                f"depth {c['depth']} x {c['n_assessors']} assessor(s), Phi {c['phi']:.3f}, "
                f"detectable difference {c['mdd']:.4f}")

    def to_dict(self) -> dict:
        def records(f):
            return f.astype(object).where(f.notna(), None).to_dict(orient="records")

        return {
            "measure": self.measure, "budget": self.budget,
            "cost_per_topic": self.cost_per_topic, "objective": self.objective.value,
            "min_tau": self.min_tau,
            "alpha": self.alpha, "beta": self.beta, "assessor_facet": self.facet,
            "chosen": self.chosen, "current": self.current,
            "designs": records(self.designs), "frontier": records(self.frontier),
        }


def _phi2(g, n_t):
    """Two-facet Phi at ``n_t`` topics, array-valued (0 when there is no system variance)."""
    s, t, r = g.components
    with np.errstate(divide="ignore", invalid="ignore"):
        den = s + (t + r) / n_t
        return np.where(den > 0, s / np.where(den > 0, den, 1.0), 0.0)


def design_values(study: DepthStudy, measure: str, n_topics, depth_index, n_assessors,
                  alpha: float = 0.05, beta: float = 0.20, mdd: bool = True):
    """Phi and (with ``mdd``) the detectable difference of designs, elementwise.

    ``n_topics``, ``depth_index`` (into ``study.levels``) and ``n_assessors`` broadcast;
    designs with fewer than 2 topics, or a depth without a G-study, get NaN.
    """
    n_t, di, n_a = np.broadcast_arrays(np.asarray(n_topics, float), np.asarray(depth_index),
                                       np.asarray(n_assessors, float))
    phi = np.full(n_t.shape, np.nan)
    var = np.full(n_t.shape, np.nan)
    ok = n_t >= 2
    for k, lv in enumerate(study.levels):  # a handful of depths; every design of one at once
        sel = ok & (di == k)
        if not sel.any():
            continue
        if lv.facets is not None:
            g = lv.facets.get(measure)
            if g is None:
                continue
            phi[sel] = g.phi(n_t[sel], n_a[sel])
            var[sel] = 2.0 * n_t[sel] * g.errors(n_t[sel], n_a[sel])[0]
        else:
            g = lv.gstudies.get(measure)
            if g is None:
                continue
            phi[sel] = _phi2(g, n_t[sel])
            var[sel] = 2.0 * max(g.var_residual, 0.0)
    out_mdd = np.full(n_t.shape, np.nan)
    if mdd:
        sel = np.isfinite(var)
        if sel.any():
            out_mdd[sel] = np.atleast_1d(ttest_min_difference(n_t[sel], var[sel], alpha, beta))
    return phi, out_mdd


def _pick(value, cost, depth, n_a, feasible, objective: Objective) -> int:
    """Index of the best feasible design (module docstring's tie rule), -1 if none."""
    idx = np.flatnonzero(feasible & np.isfinite(value))
    if idx.size == 0:
        return -1
    key = -value[idx] if objective is Objective.phi else value[idx]
    order = np.lexsort((n_a[idx], depth[idx], cost[idx], key))
    return int(idx[order[0]])


#: Budgets of the frontier's default grid (49 geometric steps and the budget itself).
GRID_SIZE = 50


def check_designs(n_depths: int, max_assessors: int, n_budgets: int = GRID_SIZE) -> None:
    """Refuse a number of designs whose arrays cannot fit, naming ``max_assessors``.

    Every (budget, depth, assessors) of the frontier, and of the budget itself, holds
    about a dozen float64 values at once (topics, costs, Phi, detectable difference and
    their temporaries).
    """
    check_allocation(8.0 * 12 * (n_budgets + 1) * n_depths * max_assessors,
                     f"max_assessors: {max_assessors} assessors per document x {n_depths} "
                     f"depths x {n_budgets + 1} budgets")


def _topics_text(n: float) -> str:
    return f"{n:.3g}" if math.isfinite(n) else f"more than {sys.float_info.max:.3g}"


def budget_plan(
    study: DepthStudy,
    measure: str | None = None,
    budget: float | None = None,
    *,
    cost_per_topic: float = 0.0,
    objective: Objective | str = Objective.phi,
    max_assessors: int | None = None,
    alpha: float = 0.05,
    beta: float = 0.20,
    budgets: Sequence[float] | None = None,
    min_tau: float | None = None,
) -> BudgetPlan:
    """Spend ``budget`` judgments on topics x depth x assessors (module docstring).

    Parameters
    ----------
    study : DepthStudy
        :func:`irstab.design.depth.depth_study` of a past collection.
    measure : str, optional
        One of the study's measures (default: its first).
    budget : float, optional
        Judgments to spend; default what the collection's qrels hold on its topics.
    cost_per_topic : float
        Cost of making one topic, in judgments (default 0).
    objective : {"phi", "mdd"}
    max_assessors : int, optional
        Largest number of assessors per document considered (only with an assessor facet;
        default 3). Without assessor qrels it is 1.
    alpha, beta : float
        Of the t-test behind ``mdd``.
    budgets : sequence of float, optional
        Budgets of the frontier; default 49 geometric steps from ``budget/16`` to
        ``4 * budget`` and ``budget`` itself.
    min_tau : float, optional
        Leave out the depths whose system ranking has Kendall's tau below this with the
        ranking of the full qrels.
    """
    check_alpha_beta(alpha, beta)
    try:
        objective = Objective(objective)
    except ValueError:
        raise IRStabError(f"objective: expected 'phi' or 'mdd', got {objective!r}") from None
    measure = study.measures[0] if measure is None else measure
    if measure not in study.measures:
        raise IRStabError(f"measure: {measure!r} is not in the depth study {study.measures}")
    budget = float(study.judgments if budget is None else budget)
    if not (math.isfinite(budget) and budget > 0):
        raise IRStabError(f"budget: must be a finite number of judgments > 0, got {budget!r}")
    if not (math.isfinite(cost_per_topic) and cost_per_topic >= 0):
        raise IRStabError(f"cost_per_topic: must be a finite number >= 0, got {cost_per_topic!r}")
    facet = study.levels[0].facets is not None
    if max_assessors is None:
        max_assessors = 3 if facet else 1
    if not isinstance(max_assessors, (int, np.integer)) or max_assessors < 1:
        raise IRStabError(f"max_assessors: must be an integer >= 1, got {max_assessors!r}")
    if not facet and max_assessors > 1:
        raise IRStabError("max_assessors: more than one assessor per document needs assessor "
                          "qrels (--assessor-qrels) to estimate the assessor variance")
    # the frontier reaches 4 x the budget, short of overflow (1e308 judgments: refused below
    # by the topics they pay for, not by an inf in the grid)
    with np.errstate(over="ignore"):  # geomspace's 10**x near float max; its ends are exact
        grid = (np.unique(np.r_[np.geomspace(budget / 16, min(budget * 4, sys.float_info.max),
                                             49), budget])
                if budgets is None else np.asarray(budgets, dtype=float))
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
        raise IRStabError("budgets: give positive finite numbers")

    if min_tau is not None and not (-1 <= min_tau <= 1):
        raise IRStabError(f"min_tau: must be in [-1, 1], got {min_tau!r}")
    levels = study.levels
    tau = np.array([lv.tau.get(measure, math.nan) for lv in levels])
    depth_ok = np.ones(len(levels), bool) if min_tau is None else tau >= min_tau
    per_topic = np.array([lv.judgments_per_topic for lv in levels])
    depth = np.array([lv.depth for lv in levels])
    D, A = len(levels), int(max_assessors)
    check_designs(D, A, len(grid))
    di, aa = np.meshgrid(np.arange(D), np.arange(1, A + 1), indexing="ij")  # (D, A)
    unit = cost_per_topic + aa * per_topic[di]  # judgments per topic of each design
    if np.any(unit <= 0):
        raise IRStabError("a design costs nothing per topic (empty pool and no topic cost)")
    cheapest = float(unit.min())
    at = int(depth[np.unravel_index(np.argmin(unit), unit.shape)[0]])
    for what, spend in (("budget", budget), ("budgets", float(grid.max()))):
        if spend / cheapest > MAX_TOPICS:  # a count of topics is an integer: never wrapped
            stretch = float(grid.max()) / budget if what == "budgets" else 1.0
            raise IRStabError(
                f"{what}: {spend:g} judgments"
                + (" (the frontier's largest budget)" if what == "budgets" else "")
                + f" pay for {_topics_text(spend / cheapest)} topics at depth {at}, beyond the "
                f"{MAX_TOPICS:,} topics a design is counted to; give a budget of at most "
                f"{MAX_TOPICS * cheapest / stretch:.4g}"
            )

    # Every budget of the frontier at once: (B, D, A).
    n_t = np.floor(grid[:, None, None] / unit[None] * (1 + 1e-12))
    phi, mdd = design_values(study, measure, n_t, di[None], aa[None], alpha, beta,
                             mdd=objective is Objective.mdd)
    value = phi if objective is Objective.phi else mdd
    cost = n_t * unit[None]
    feasible = (n_t >= 2) & depth_ok[di][None]
    flat = (lambda a: np.broadcast_to(a, n_t.shape).reshape(len(grid), -1))
    best = [
        _pick(flat(value)[b], flat(cost)[b], flat(depth[di][None])[b], flat(aa[None])[b],
              flat(feasible)[b], objective)
        for b in range(len(grid))  # one argmin per budget of the figure's grid
    ]
    rows = []
    for b, k in enumerate(best):
        if k < 0:
            rows.append({"budget": grid[b], "depth": None, "n_assessors": None,
                         "n_topics": None, "cost": None, "phi": math.nan, "mdd": math.nan})
            continue
        d_i, a_i = np.unravel_index(k, (D, A))
        rows.append({"budget": float(grid[b]), "depth": int(depth[d_i]),
                     "n_assessors": int(a_i + 1),
                     "n_topics": checked_count(n_t[b, d_i, a_i], "budgets: topics", MAX_TOPICS),
                     "cost": float(cost[b, d_i, a_i]), "phi": float(phi[b, d_i, a_i]),
                     "mdd": math.nan})
    frontier = pd.DataFrame(rows)
    ok = frontier["n_topics"].notna()
    if ok.any():
        frontier.loc[ok, "mdd"] = np.atleast_1d(design_values(
            study, measure, frontier.loc[ok, "n_topics"].to_numpy(float),
            np.searchsorted(depth, frontier.loc[ok, "depth"].to_numpy(int)),
            frontier.loc[ok, "n_assessors"].to_numpy(float), alpha, beta)[1])

    # The designs at the budget itself.
    n_b = np.floor(budget / unit * (1 + 1e-12))
    phi_b, mdd_b = design_values(study, measure, n_b, di, aa, alpha, beta)
    val_b = phi_b if objective is Objective.phi else mdd_b
    cost_b = n_b * unit
    feas_b = (n_b >= 2) & depth_ok[di]
    k = _pick(val_b.ravel(), cost_b.ravel(), depth[di].ravel(), aa.ravel(), feas_b.ravel(),
              objective)
    if k < 0 and not depth_ok.any():
        raise IRStabError(f"min_tau: no depth's ranking has Kendall tau >= {min_tau:g} with "
                          f"the full qrels (best {np.nanmax(tau):.3f})")
    if k < 0:
        raise IRStabError(
            f"budget: {budget:g} judgments do not pay for 2 topics at any depth "
            f"(the cheapest topic costs {unit.min():.6g} judgments)"
        )
    designs = pd.DataFrame({
        "depth": depth[di].ravel(), "n_assessors": aa.ravel(),
        "judgments_per_topic": per_topic[di].ravel(),
        "coverage": np.array([lv.coverage for lv in levels])[di].ravel(),
        "tau_full": tau[di].ravel(),
        "n_topics": checked_count(n_b.ravel(), "budget: topics of a design", MAX_TOPICS),
        "cost": cost_b.ravel(),
        "phi": phi_b.ravel(), "mdd": mdd_b.ravel(), "feasible": feas_b.ravel(),
    })
    designs["chosen"] = np.arange(len(designs)) == k
    chosen = {key: (v.item() if hasattr(v, "item") else v)
              for key, v in designs.iloc[k].to_dict().items()}
    full = study.full[measure]
    current = {
        "n_topics": study.n_topics, "judgments": study.judgments,
        "cost": study.judgments + study.n_topics * float(cost_per_topic),
        "phi": float(full.phi()),
        "mdd": float(ttest_min_difference(study.n_topics, 2.0 * max(full.var_residual, 0.0),
                                          alpha, beta)),
    }
    return BudgetPlan(measure=measure, budget=budget, cost_per_topic=float(cost_per_topic),
                      objective=objective, alpha=float(alpha), beta=float(beta), facet=facet,
                      min_tau=None if min_tau is None else float(min_tau),
                      designs=designs, chosen=chosen, frontier=frontier, current=current)
