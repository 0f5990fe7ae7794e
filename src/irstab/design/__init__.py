"""Planning the next test collection: topics by statistical power, judgments by budget.

How many topics, how deep a pool, how many assessors per document? Two answers beside the
D-study's topics for a target Phi (:mod:`irstab.stability`):

* by power (Sakai, "Topic set size design", Information Retrieval Journal 19, 2016; Webber,
  Moffat & Zobel, "Statistical power in retrieval experimentation", CIKM 2008): the topics a
  paired t-test, a one-way ANOVA or a confidence interval needs, from the within-system
  variance of a past collection, and the differences the present collection can detect;
* by budget: the split of a number of judgments over topics, pool depth and assessors that
  maximises Phi or minimises the detectable difference, with the scores re-evaluated at each
  pool depth.

Rooms, bottom up (each imports only those below it):

:mod:`.power`, :mod:`.variance`   power, topics needed, detectable differences (exact and
                                  Sakai's approximations); the residual variance they use
:mod:`.plan`, :mod:`.depth`       per-measure power plans and pair powers; the depth study
                                  (qrels restricted to each pool depth, re-evaluated)
:mod:`.budget`                    the budget frontier and the chosen design
:mod:`.cheap`                     a cheap judge as a resource: gold topics, cheap topics,
                                  by the variance of prediction-powered inference

May import: :mod:`irstab.stability`, :mod:`irstab.compare` (Kendall's tau),
:mod:`irstab.evaluation`, :mod:`irstab.collection`, :mod:`irstab.metrics`, :mod:`irstab.io`
and the small helpers; never :mod:`irstab.optimizer` (a sibling), the report or the CLI.
"""

from .budget import BudgetPlan, Objective, budget_plan
from .cheap import CheapPlan, CheapVariances, cheap_plan, cheap_variances
from .depth import DEFAULT_DEPTHS, DepthStudy, depth_study, pool_ranks
from .plan import PowerPlan, PowerStudy, pair_power, power_plan, power_study
from .power import (
    Method,
    anova_min_range,
    anova_power,
    anova_topics,
    ci_half_width,
    ci_topics,
    ttest_min_difference,
    ttest_power,
    ttest_topics,
)
from .variance import ResidualVariance, pooled_variance, residual_variance

__all__ = [
    "DEFAULT_DEPTHS",
    "BudgetPlan",
    "CheapPlan",
    "CheapVariances",
    "DepthStudy",
    "Method",
    "Objective",
    "PowerPlan",
    "PowerStudy",
    "ResidualVariance",
    "anova_min_range",
    "anova_power",
    "anova_topics",
    "budget_plan",
    "cheap_plan",
    "cheap_variances",
    "ci_half_width",
    "ci_topics",
    "depth_study",
    "pair_power",
    "pool_ranks",
    "pooled_variance",
    "power_plan",
    "power_study",
    "residual_variance",
    "ttest_min_difference",
    "ttest_power",
    "ttest_topics",
]
