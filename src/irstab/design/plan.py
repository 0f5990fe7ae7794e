r"""Topic set size by power, per measure: the three designs and their inverses on a collection.

:func:`power_study` takes the score matrices of a past collection (one per measure),
estimates each measure's within-system variance :math:`\hat\sigma^2 = V_E`
(:mod:`irstab.design.variance`) and answers, per measure,

* **forward** (the next collection): topics for the paired t-test to detect ``min_diff``
  (with :math:`\hat\sigma_d^2 = 2\hat\sigma^2`), topics for the one-way ANOVA over ``m``
  systems to detect a range ``min_range`` (with :math:`\hat\sigma^2`), and topics for the
  expected half-width of the paired interval to be at most ``half_width``;
* **inverse** (this collection, :math:`n` = its topics): the smallest difference the t-test
  detects, the smallest range the ANOVA detects, the expected half-width, and the power of
  each test at ``min_diff`` / ``min_range``;
* **per pair** (optional): the achieved power of every pair's paired t-test at its observed
  effect size, next to its p-value.

All with the same ``alpha`` (two-sided for the t-test and the interval) and ``beta``
(power :math:`1-\beta`); formulas in :mod:`irstab.design.power`.

The achieved power of a pair is the power the test had to detect the observed difference
:math:`\bar d/s_d`; it is a monotone function of the p-value (an observed p of ``alpha`` is a
power of about 0.5) and says nothing the p-value does not: it is reported because Sakai's
tools and reviewers ask for it, and the table says so.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._repr import short_repr
from ..errors import DegenerateDataError, IRStabError, IRStabWarning
from .._numeric import check_allocation, pair_tolerance
from ..stability.designs.crossed import validate_scores
from .power import (
    MAX_TOPICS,
    Method,
    anova_min_range,
    anova_power,
    anova_topics,
    check_alpha_beta,
    ci_half_width,
    ci_topics,
    ttest_min_difference,
    ttest_power,
    ttest_topics,
)
from .variance import ResidualVariance, pair_differences, residual_variance

__all__ = ["PowerPlan", "PowerStudy", "pair_power", "power_plan", "power_study"]


def _count(v: float) -> int | None:
    return None if not math.isfinite(v) else int(v)


@short_repr
@dataclass(frozen=True)
class PowerPlan:
    """One measure's topic set sizes and detectable differences (module docstring).

    Counts are integer-valued floats; a requirement no count up to
    :data:`power.MAX_TOPICS` meets is refused by :func:`power_plan`, naming its usable bound.
    """

    measure: str | None
    variance: ResidualVariance
    alpha: float
    beta: float
    method: Method
    min_diff: float
    min_range: float
    half_width: float
    m: int
    topics_ttest: float
    topics_anova: float
    topics_ci: float
    mdd_ttest: float
    mdr_anova: float
    ci_half_width: float
    power_ttest: float
    power_anova: float

    @property
    def n_topics(self) -> int:
        return self.variance.n_topics

    @property
    def n_systems(self) -> int:
        return self.variance.n_systems

    def _summary(self) -> str:
        c = _count
        return (
            f"{self.measure or 'scores'}: sigma2 = {self.variance.variance:.5f}; topics for "
            f"t-test D={self.min_diff:g}: {c(self.topics_ttest)}, ANOVA m={self.m} "
            f"D={self.min_range:g}: {c(self.topics_anova)}, CI +-{self.half_width:g}: "
            f"{c(self.topics_ci)}; at {self.n_topics} topics the t-test detects "
            f"{self.mdd_ttest:.4f}"
        )

    def to_dict(self) -> dict:
        """JSON-ready dict (unreachable counts ``None``)."""
        return {
            "measure": self.measure,
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            "variance": self.variance.variance,
            "var_diff": self.variance.var_diff,
            "df_residual": self.variance.df,
            "alpha": self.alpha,
            "beta": self.beta,
            "method": self.method.value,
            "min_diff": self.min_diff,
            "min_range": self.min_range,
            "half_width": self.half_width,
            "m": self.m,
            "topics_ttest": _count(self.topics_ttest),
            "topics_anova": _count(self.topics_anova),
            "topics_ci": _count(self.topics_ci),
            "mdd_ttest": self.mdd_ttest,
            "mdr_anova": self.mdr_anova,
            "ci_half_width": self.ci_half_width,
            "power_ttest": self.power_ttest,
            "power_anova": self.power_anova,
        }


@short_repr
@dataclass(frozen=True)
class PowerStudy:
    """Result of :func:`power_study`: one :class:`PowerPlan` per measure, optional pairs."""

    plans: tuple[PowerPlan, ...]
    pairs: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    def _summary(self) -> str:
        return "; ".join(p._summary() for p in self.plans)

    def plan(self, measure: str) -> PowerPlan:
        for p in self.plans:
            if p.measure == measure:
                return p
        raise IRStabError(f"measure: {measure!r} is not in this study")

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: the keys of :meth:`PowerPlan.to_dict`."""
        return pd.DataFrame([p.to_dict() for p in self.plans])

    def to_dict(self) -> dict:
        out = {"plans": [p.to_dict() for p in self.plans]}
        if self.pairs is not None:
            out["pairs"] = self.pairs.to_dict(orient="records")
        return out

    def curve(self, differences: Sequence[float], design: str = "ttest") -> pd.DataFrame:
        """Topics needed against the detectable difference, per measure (the figure's data).

        ``design``: ``ttest`` (difference), ``anova`` (range, ``m`` systems) or ``ci``
        (half-width). Columns ``measure, difference, topics``; one vectorised call per measure.
        """
        d = np.asarray(differences, dtype=float)
        if d.ndim != 1 or d.size == 0 or not np.all(np.isfinite(d) & (d > 0)):
            raise IRStabError("differences: give positive finite numbers")
        fns = {
            "ttest": lambda p: ttest_topics(d, p.variance.var_diff, p.alpha, p.beta, p.method),
            "anova": lambda p: anova_topics(d, p.variance.variance, p.m, p.alpha, p.beta,
                                            p.method),
            "ci": lambda p: ci_topics(d, p.variance.var_diff, p.alpha, p.method),
        }
        try:
            fn = fns[design]
        except KeyError:
            raise IRStabError(f"design: expected ttest, anova or ci, got {design!r}") from None
        frames = [pd.DataFrame({"measure": p.measure, "difference": d,
                                "topics": np.atleast_1d(fn(p))}) for p in self.plans]
        return pd.concat(frames, ignore_index=True)


def _check_requirement(name: str, v: float) -> float:
    if not (isinstance(v, (int, float, np.integer, np.floating)) and math.isfinite(v) and v > 0):
        raise IRStabError(f"{name}: must be a finite number > 0, got {v!r}")
    return float(v)


def _check_effect(what: str, value: float, sd: float, name: str | None) -> None:
    """Refuse a requirement so many standard deviations away that its square overflows.

    Power and topics are functions of the effect size (the requirement over the standard
    deviation it is measured against) and of its square; beyond 1e150 standard deviations
    float64 cannot hold the square, and such a requirement is not on the scores' scale.
    """
    if value / sd > 1e150:
        raise IRStabError(
            f"{what}: {value:g} is {value / sd:.3g} standard deviations of "
            f"{name or 'the scores'} (sd {sd:.3g}): its square overflows floating point; give "
            "a requirement on the scores' scale"
        )


def _largest_m(ok, m: int) -> int:
    r"""Largest integer in ``[2, m)`` with ``ok`` (monotone; ``ok(2)`` true, ``ok(m)`` false).

    Bisection at the geometric midpoint (a count grows like the square root of the
    systems): about :math:`\log_2 m` scalar topic searches.
    """
    lo, hi = 2, m
    while hi - lo > 1:
        mid = min(hi - 1, max(lo + 1, math.isqrt(lo * hi)))
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def _reachable_counts(v, alpha, beta, min_diff, min_range, half_width, m, method):
    r"""The three topic counts, or an error naming the requirement none of
    :data:`~irstab.design.power.MAX_TOPICS` topics meets, with its usable bound.

    A count beyond ``MAX_TOPICS`` is ``inf`` in :mod:`irstab.design.power`; in a plan it
    would print as ``inf`` (or an empty CSV cell) without a reason. The bound is the
    requirement met by exactly ``MAX_TOPICS`` topics (the inverse functions), or, for the
    ANOVA over more systems than it can compare at that range, the largest such ``m``
    (the count grows like :math:`\sqrt m`).
    """
    limit = f"more than {MAX_TOPICS:,} topics"
    # min_diff first: the default half_width is derived from it (min_diff / 2 is 0.0 for
    # the smallest subnormal), so a min_diff out of reach is reported as such
    t = float(ttest_topics(min_diff, v.var_diff, alpha, beta, method))
    if math.isinf(t):
        low = float(ttest_min_difference(MAX_TOPICS, v.var_diff, alpha, beta, method))
        raise IRStabError(
            f"min_diff: {min_diff:g} needs {limit} for the paired t-test (variance of the "
            f"differences {v.var_diff:.4g}); the smallest usable min_diff is {low:.4g}")
    a = float(anova_topics(min_range, v.variance, m, alpha, beta, method))
    c = float(ci_topics(half_width, v.var_diff, alpha, method))
    if math.isinf(c):
        low = float(ci_half_width(MAX_TOPICS, v.var_diff, alpha, method))
        raise IRStabError(
            f"half_width: {half_width:g} needs {limit} for the paired interval (variance of "
            f"the differences {v.var_diff:.4g}); the smallest usable half_width is {low:.4g}")
    if math.isinf(a):
        low = float(anova_min_range(MAX_TOPICS, v.variance, m, alpha, beta, method))
        usable = 2 < m and math.isfinite(anova_topics(min_range, v.variance, 2, alpha, beta,
                                                      method))
        if usable:
            most = _largest_m(lambda k: math.isfinite(anova_topics(
                min_range, v.variance, k, alpha, beta, method)), m)
            raise IRStabError(
                f"m (the systems the ANOVA compares): the one-way ANOVA over {m:,} systems needs {limit} per system to detect "
                f"a range of {min_range:g} (sigma2 {v.variance:.4g}); it can compare at most "
                f"{most:,} systems at that range, or {m:,} systems at a range of {low:.4g}")
        raise IRStabError(
            f"min_range: {min_range:g} needs {limit} per system for the one-way ANOVA over "
            f"{m:,} systems (sigma2 {v.variance:.4g}); the smallest usable min_range is "
            f"{low:.4g}")
    return t, a, c


def power_plan(
    scores,
    *,
    name: str | None = None,
    alpha: float = 0.05,
    beta: float = 0.20,
    min_diff: float = 0.05,
    min_range: float | None = None,
    half_width: float | None = None,
    m: int | None = None,
    method: Method | str = Method.exact,
) -> PowerPlan:
    r"""Topic set sizes and detectable differences of one measure (module docstring).

    Parameters
    ----------
    scores : DataFrame or ndarray
        Systems x topics scores of a past collection (not modified).
    name : str, optional
        The measure.
    alpha, beta : float
        Significance level (two-sided t-test and interval) and Type II error; power is
        ``1 - beta``.
    min_diff : float
        Minimum detectable difference of the paired t-test (:math:`minD_t`).
    min_range : float, optional
        Minimum detectable range of the ANOVA (best minus worst of ``m``); default ``min_diff``.
    half_width : float, optional
        Cap on the expected half-width of the interval; default ``min_diff / 2`` (an interval
        as wide as the difference the t-test is asked to detect, Sakai's :math:`\delta`).
    m : int, optional
        Systems of the ANOVA; default the matrix's.
    method : {"exact", "sakai"}
        :mod:`irstab.design.power`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(0.4, 0.05, (8, 1)) + rng.normal(0, 0.1, (1, 50)) + rng.normal(0, 0.1, (8, 50))
    >>> p = power_plan(x, min_diff=0.05)
    >>> round(p.variance.variance, 4), int(p.topics_ttest), int(p.topics_anova), int(p.topics_ci)
    (0.0104, 67, 120, 130)
    """
    check_alpha_beta(alpha, beta)
    method = Method(method) if isinstance(method, str) and method in ("exact", "sakai") else method
    if not isinstance(method, Method):
        raise IRStabError(f"method: expected 'exact' or 'sakai', got {method!r}")
    min_diff = _check_requirement("min_diff", min_diff)
    min_range = _check_requirement("min_range", min_diff if min_range is None else min_range)
    # a derived half_width is checked with min_diff (_reachable_counts), not as the user's
    half_width = min_diff / 2 if half_width is None else _check_requirement("half_width",
                                                                            half_width)
    v = residual_variance(scores, name=name)
    for what, value, sd in (("min_diff", min_diff, math.sqrt(v.var_diff)),
                            ("min_range", min_range, math.sqrt(2.0 * v.variance)),
                            ("half_width", half_width, math.sqrt(v.var_diff))):
        _check_effect(what, value, sd, name)
    m = v.n_systems if m is None else m
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or m < 2:
        raise IRStabError(f"m: the ANOVA compares at least 2 systems, got {m!r}")
    n = v.n_topics
    counts = _reachable_counts(v, alpha, beta, min_diff, min_range, half_width, int(m), method)
    return PowerPlan(
        measure=name,
        variance=v,
        alpha=float(alpha),
        beta=float(beta),
        method=method,
        min_diff=min_diff,
        min_range=min_range,
        half_width=half_width,
        m=int(m),
        topics_ttest=counts[0],
        topics_anova=counts[1],
        topics_ci=counts[2],
        mdd_ttest=float(ttest_min_difference(n, v.var_diff, alpha, beta, method)),
        mdr_anova=float(anova_min_range(n, v.variance, m, alpha, beta, method)),
        ci_half_width=float(ci_half_width(n, v.var_diff, alpha, method)),
        power_ttest=float(ttest_power(n, min_diff / math.sqrt(v.var_diff), alpha, method)),
        power_anova=float(anova_power(n, m, (min_range / math.sqrt(2 * v.variance)) ** 2, alpha,
                                      method)),
    )


def pair_power(scores, *, name: str | None = None, alpha: float = 0.05,
               method: Method | str = Method.exact) -> pd.DataFrame:
    r"""Every pair's paired t-test and its achieved power at the observed effect size.

    Columns ``measure, system_a, system_b, mean_diff, sd_diff, effect_size, t, p_value,
    significant, achieved_power``, one row per pair ``a < b`` (row order of the matrix).
    ``effect_size`` is :math:`\bar d/s_d` (:math:`s_d` with ``ddof = 1``); a pair whose
    differences are all equal has ``sd_diff = 0``: effect ``inf``, p 0 and power 1 when
    :math:`\bar d \ne 0`; effect 0, p 1 and power ``alpha`` when the systems are identical.
    Vectorised over pairs and topics.
    """
    from scipy import special

    check_alpha_beta(alpha)
    x, systems, _ = validate_scores(scores)
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise DegenerateDataError("pairs: need at least 2 systems and 2 topics")
    i, j, d = pair_differences(x)
    n = x.shape[1]
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    # the paired tests' rule (irstab._numeric.pair_tolerance): equal within the pair's own
    # rounding noise; identical pairs are no evidence (p = 1), a constant difference is
    tol = pair_tolerance(x, i, j)
    identical = (np.abs(d) <= tol[:, None]).all(axis=1)
    flat = identical | (sd <= tol)
    mean = np.where(identical, 0.0, mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(flat, np.where(mean != 0, np.inf, 0.0), np.abs(mean) / sd)
        t = np.where(flat, np.where(mean != 0, np.sign(mean) * np.inf, 0.0),
                     mean / (sd / math.sqrt(n)))
    p = np.where(np.isinf(t), 0.0,
                 2 * special.stdtr(n - 1, -np.abs(np.where(np.isinf(t), 0, t))))
    p = np.where(identical, 1.0, p)
    power = np.where(np.isinf(effect), 1.0,
                     ttest_power(n, np.where(np.isinf(effect), 0.0, effect), alpha, method))
    sys = np.asarray(systems, dtype=object)
    return pd.DataFrame({
        "measure": name, "system_a": sys[i], "system_b": sys[j], "mean_diff": mean,
        "sd_diff": sd, "effect_size": effect, "t": t, "p_value": p,
        "significant": p < alpha, "achieved_power": power,
    })


def power_study(
    matrices,
    *,
    alpha: float = 0.05,
    beta: float = 0.20,
    min_diff: float = 0.05,
    min_range: float | None = None,
    half_width: float | None = None,
    m: int | None = None,
    method: Method | str = Method.exact,
    pairs: bool = False,
) -> PowerStudy:
    """:func:`power_plan` (and with ``pairs``, :func:`pair_power`) for every measure.

    ``matrices`` is ``{measure: scores}`` or a sequence of ``(measure, scores)``. A measure
    whose residual variance is 0 is left out with a warning naming it (an error when it is
    the only one).
    """
    items = list(matrices.items()) if isinstance(matrices, dict) else list(matrices)
    if not items:
        raise IRStabError("give at least one score matrix")
    if pairs:
        for name, scores in items:
            S, T = np.shape(scores)[:2] if np.ndim(scores) == 2 else (0, 0)
            P = S * (S - 1) / 2.0
            # per pair: its indices, its differences on every topic (and their deviations),
            # and the ten columns of the table
            check_allocation(8.0 * P * (2.0 + 2.0 * T + 10.0),
                             f"pairs: {S} systems of {name or 'the scores'} make {P:.3g} pairs "
                             f"on {T} topics, whose table and differences")
    plans, tables, failed = [], [], []
    for name, scores in items:
        try:
            plan = power_plan(scores, name=name, alpha=alpha, beta=beta, min_diff=min_diff,
                              min_range=min_range, half_width=half_width, m=m, method=method)
        except DegenerateDataError as exc:
            if len(items) == 1:
                raise
            failed.append(str(exc))
            warnings.warn(f"{exc}; left out", IRStabWarning, stacklevel=2)
            continue
        plans.append(plan)
        if pairs:
            tables.append(pair_power(scores, name=name, alpha=alpha, method=plan.method))
    if not plans:
        raise DegenerateDataError(f"no measure has a residual variance: {'; '.join(failed)}")
    return PowerStudy(tuple(plans), pd.concat(tables, ignore_index=True) if pairs else None)
