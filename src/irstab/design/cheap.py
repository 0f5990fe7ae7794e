r"""Planning with a cheap judge: how many topics, gold labels and cheap labels.

A design labels the pools of :math:`N` topics with a cheap judge (an LLM, a crowd) and the
pools of :math:`n \le N` of them, drawn at random, with the gold judge too; the runs' means
and differences are then estimated by prediction-powered inference
(:mod:`irstab.judges.ppi`). With the power-tuning parameter at its optimum the estimate's
variance is, per target (a run's mean or a pair's difference; Angelopoulos, Duchi & Zrnic,
PPI++, 2023, in the super-population form of :mod:`irstab.judges.ppi`),

.. math::

    V(n, N) = \frac{\sigma^2_{rect}}{n} + \frac{\sigma^2_{cheap}}{N},\qquad
    \sigma^2_{rect} = (1-\rho^2)\,\sigma^2_Y,\quad \sigma^2_{cheap} = \rho^2\,\sigma^2_Y,

with :math:`\sigma^2_Y` the variance over topics of the target's gold score and :math:`\rho`
the correlation of its gold and cheap scores over topics (averaged over targets:
:class:`CheapVariances`). Gold only (:math:`N = n`, no cheap label) gives
:math:`\sigma^2_Y / n`.

**Cost** in units of one gold judgment: a pool holds :math:`P` documents per topic, a cheap
label costs :math:`c_{cheap}`, making a topic :math:`c_{topic}`:

.. math:: C(n, N) = N\,(c_{topic} + c_{cheap} P) + n P .

Writing :math:`\alpha = c_{topic} + c_{cheap} P` and :math:`\beta = P`, the continuous optimum
for a budget :math:`J` is :math:`n^* = J\sqrt{\sigma^2_{rect}/\beta}\,/\,S`,
:math:`N^* = J\sqrt{\sigma^2_{cheap}/\alpha}\,/\,S` with
:math:`S = \sqrt{\sigma^2_{rect}\beta} + \sqrt{\sigma^2_{cheap}\alpha}`, and
:math:`V^* = S^2/J` (Cauchy-Schwarz; the allocation of stratified sampling, Cochran 1977,
§5.5); the least cost reaching :math:`V \le V_0` is :math:`S^2/V_0`. The planner searches the
integers exactly (every :math:`n`, the largest or smallest :math:`N` that goes with it), with
:math:`2 \le n \le N`, and compares with gold only; tests/design/test_cheap.py checks it
against the closed forms and a brute force over every :math:`(n, N)`.

**Fewer than 10 gold topics.** There the interval irstab computes fixes :math:`\lambda = 1/2`
instead of tuning it (:mod:`irstab.judges.ppi`), so the plan uses that interval's variance,
:math:`V = \sigma^2_{1/2}/n + (\sigma^2_Y - \sigma^2_{1/2})/N` with
:math:`\sigma^2_{1/2} = \mathrm{Var}(Y - f/2)` (:class:`CheapVariances` ``rect_fixed``), for
every :math:`n` below :data:`~irstab.judges.ppi.TUNED_MIN_GOLD_TOPICS`; the continuous optimum
above stays the tuned one's.

**Targets.** ``width``: the half-width :math:`z_{1-\alpha/2}\sqrt{V}` of the interval of a
pair's difference (``targets="pairs"``) or a run's mean (``"runs"``), normal approximation as
in planning; ``phi``: the dependability coefficient of the runs' means,
:math:`\Phi = \sigma^2_s / (\sigma^2_s + V)` with :math:`V` the runs' (:math:`\sigma^2_s`
from the two-facet G-study of the gold scores), which for gold only is the D-study's Phi at
:math:`n` topics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import IRStabError
from ..judges.ppi import SMALL_SAMPLE_LAMBDA, TUNED_MIN_GOLD_TOPICS

__all__ = ["CheapVariances", "CheapPlan", "cheap_variances", "cheap_plan", "ppi_variance",
           "pilot_plans"]


def _pos(name, v, allow_zero=True) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise IRStabError(f"{name}: must be a finite number {'>=' if allow_zero else '>'} 0, "
                          f"got {v!r}")
    return float(v)


def ppi_variance(rect, cheap, n_gold, n_topics, rect_fixed=None):
    r""":math:`\sigma^2_{rect}/n + \sigma^2_{cheap}/N` (module docstring), broadcast.

    With ``rect_fixed`` (:math:`\sigma^2_{1/2}`), gold counts below
    ``TUNED_MIN_GOLD_TOPICS`` take the fixed-lambda interval's
    :math:`\sigma^2_{1/2}/n + (\sigma^2_{rect} + \sigma^2_{cheap} - \sigma^2_{1/2})/N`.
    """
    n = np.asarray(n_gold, float)
    r = np.asarray(rect, float)
    c = np.asarray(cheap, float)
    if rect_fixed is not None:
        small = n < TUNED_MIN_GOLD_TOPICS
        c = np.where(small, r + c - rect_fixed, c)
        r = np.where(small, float(rect_fixed), r)
    return r / n + c / np.asarray(n_topics, float)


@dataclass(frozen=True)
class CheapVariances:
    """Per-topic variance components of PPI planning, averaged over the targets.

    ``rect`` = mean of :math:`(1-\\rho^2)\\sigma^2_Y`, ``cheap`` = mean of
    :math:`\\rho^2\\sigma^2_Y` over the targets (``runs`` or ``pairs``); ``system`` the
    two-facet :math:`\\sigma^2_s` of the gold scores (for Phi), ``None`` if not estimated;
    ``rect_fixed`` the mean of :math:`\\mathrm{Var}(Y - f/2)`, the rectifier of the interval
    used below 10 gold topics (module docstring), ``None``: plan those with ``rect`` too.
    """

    rect: float
    cheap: float
    targets: str
    system: float | None = None
    rect_fixed: float | None = None

    def __post_init__(self):
        _pos("rect", self.rect)
        _pos("cheap", self.cheap)
        if self.rect + self.cheap <= 0:
            raise IRStabError("rect, cheap: the gold scores do not vary over topics")
        if self.system is not None:
            _pos("system", self.system)
        if self.rect_fixed is not None:
            _pos("rect_fixed", self.rect_fixed)

    @property
    def total(self) -> float:
        """:math:`\\sigma^2_Y`, the gold-only per-topic variance."""
        return self.rect + self.cheap

    def to_dict(self) -> dict:
        return {"rect": self.rect, "cheap": self.cheap, "total": self.total,
                "targets": self.targets, "system": self.system, "rect_fixed": self.rect_fixed}


def cheap_variances(gold, cheap, targets: str = "pairs") -> CheapVariances:
    r"""Estimate :class:`CheapVariances` from a pilot: both judges on the same topics.

    ``system``: the two-facet G-study's :math:`\sigma^2_s` of ``gold``, truncated at 0, or
    ``None`` when the G-study is degenerate.

    ``gold``, ``cheap``: systems x topics DataFrames (same systems and topics; e.g. a past
    collection's official qrels and an LLM's labels of its pools). ``targets``: ``runs`` (each
    run's scores) or ``pairs`` (every pair's per-topic differences). Per target, the PPI++
    optimum :math:`\\lambda = \\mathrm{Cov}(Y, f)/\\mathrm{Var}(f)` gives
    :math:`\\sigma^2_{rect} = \\mathrm{Var}(Y - \\lambda f)`.
    """
    from ..stability import gstudy

    if targets not in ("runs", "pairs"):
        raise IRStabError(f"targets: expected 'runs' or 'pairs', got {targets!r}")
    for name, x in (("gold", gold), ("cheap", cheap)):
        if not isinstance(x, pd.DataFrame):
            raise IRStabError(f"{name}: expected a systems x topics DataFrame, "
                              f"got {type(x).__name__}")
    if set(gold.index) != set(cheap.index) or set(gold.columns) != set(cheap.columns):
        raise IRStabError("cheap: its systems and topics must be gold's (a pilot labelled by "
                          "both judges)")
    c = cheap.loc[gold.index, gold.columns].to_numpy(float)
    g = gold.to_numpy(float)
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(c))):
        raise IRStabError("gold, cheap: missing or non-finite scores")
    if g.shape[0] < 2 or g.shape[1] < 3:
        raise IRStabError(f"gold: a pilot needs at least 2 systems and 3 topics, got "
                          f"{g.shape[0]} x {g.shape[1]}")
    if targets == "pairs":
        i, j = np.triu_indices(g.shape[0], 1)
        y, f = g[i] - g[j], c[i] - c[j]
    else:
        y, f = g, c
    yc = y - y.mean(axis=1, keepdims=True)
    fc = f - f.mean(axis=1, keepdims=True)
    var_y = (yc * yc).sum(axis=1) / (y.shape[1] - 1)
    var_f = (fc * fc).sum(axis=1) / (y.shape[1] - 1)
    cov = (yc * fc).sum(axis=1) / (y.shape[1] - 1)
    ok = var_f > 0
    rho2 = np.where(ok & (var_y > 0), cov ** 2 / np.where(ok, var_f, 1.0)
                    / np.where(var_y > 0, var_y, 1.0), 0.0)
    rho2 = np.clip(rho2, 0.0, 1.0)
    rect = float(np.mean((1 - rho2) * var_y))
    ch = float(np.mean(rho2 * var_y))
    lam = SMALL_SAMPLE_LAMBDA
    rect_fixed = float(np.mean(np.maximum(var_y - 2 * lam * cov + lam * lam * var_f, 0.0)))
    import warnings

    system = None
    try:
        with warnings.catch_warnings():  # a negative estimate is truncated at 0 here
            warnings.simplefilter("ignore")
            system = max(float(gstudy(gold).var_system), 0.0)
    except IRStabError:
        system = None
    return CheapVariances(rect=rect, cheap=ch, targets=targets, system=system,
                          rect_fixed=rect_fixed)


@dataclass(frozen=True)
class CheapPlan:
    """Result of :func:`cheap_plan`.

    ``n_gold``, ``n_topics``: the chosen design (gold topics, topics with cheap labels; equal
    and ``cheap_labels`` 0 when gold only is better); ``cost`` its cost; ``variance``,
    ``half_width``, ``phi`` its figures. ``gold_only``: the best gold-only design for the
    same budget or target, as a dict. ``continuous``: the closed-form optimum (real
    numbers). ``designs``: every ``n`` searched with its best ``N``.
    """

    mode: str  # "budget" or "target"
    objective: str
    budget: float | None
    target: float | None
    pool: float
    cheap_cost: float
    topic_cost: float
    confidence: float
    variances: CheapVariances
    n_gold: int
    n_topics: int
    cost: float
    variance: float
    half_width: float
    phi: float | None
    gold_only: dict = field(repr=False)
    continuous: dict = field(repr=False)
    designs: pd.DataFrame = field(repr=False)
    measure: str | None = None

    @property
    def gold_labels(self) -> float:
        return self.n_gold * self.pool

    @property
    def cheap_labels(self) -> float:
        return 0.0 if self.uses_gold_only else self.n_topics * self.pool

    @property
    def uses_gold_only(self) -> bool:
        return bool(self.gold_only.get("chosen", False))

    def to_frame(self) -> pd.DataFrame:
        return self.designs.copy()

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "mode": self.mode, "objective": self.objective, "budget": self.budget,
            "target": self.target, "pool": self.pool, "cheap_cost": self.cheap_cost,
            "topic_cost": self.topic_cost, "confidence": self.confidence,
            "variances": self.variances.to_dict(),
            "chosen": {"n_gold": self.n_gold, "n_topics": self.n_topics,
                       "gold_labels": self.gold_labels, "cheap_labels": self.cheap_labels,
                       "cost": self.cost, "variance": self.variance,
                       "half_width": self.half_width, "phi": self.phi,
                       "gold_only": self.uses_gold_only},
            "gold_only": self.gold_only, "continuous": self.continuous,
        }


#: Largest number of gold topics searched (one float row each).
MAX_SEARCH = 10_000_000
#: Largest number of topics with cheap labels a design counts (a near-free cheap judge).
MAX_CHEAP_TOPICS = 1e12


def cheap_plan(
    variances: CheapVariances,
    *,
    budget: float | None = None,
    target: float | None = None,
    objective: str = "width",
    pool: float,
    cheap_cost: float,
    topic_cost: float = 0.0,
    confidence: float = 0.95,
    measure: str | None = None,
) -> CheapPlan:
    """Best (gold topics, cheap topics) for a budget, or the cheapest reaching a target.

    Parameters
    ----------
    variances : CheapVariances
        From :func:`cheap_variances` (or given).
    budget : float
        Gold-judgment units to spend (exactly one of ``budget`` and ``target``).
    target : float
        ``objective="width"``: the largest half-width of the interval;
        ``objective="phi"``: the smallest Phi (needs ``variances.system`` and runs targets).
    objective : {"width", "phi"}
        What is minimised (half-width) or maximised (Phi) for a budget; what ``target`` is.
    pool : float
        Documents judged per topic (the pool size, gold and cheap alike).
    cheap_cost : float
        Cost of one cheap label in gold judgments (e.g. 0.01 for an LLM).
    topic_cost : float
        Cost of making a topic, in gold judgments.
    confidence : float
        Of the interval whose half-width is planned.

    Examples
    --------
    A cheap judge carrying three quarters of the per-topic variance, at 1 % of a gold
    judgment per label, pools of 100 documents, 5,000 gold judgments to spend:

    >>> v = CheapVariances(rect=0.01, cheap=0.03, targets="pairs")
    >>> p = cheap_plan(v, budget=5000, pool=100, cheap_cost=0.01)
    >>> p.n_gold, p.n_topics, round(p.half_width, 4)
    (43, 700, 0.0325)
    >>> p.gold_only["n_topics"], round(p.gold_only["half_width"], 4)
    (50, 0.0554)
    """
    from scipy import stats

    if not isinstance(variances, CheapVariances):
        raise IRStabError(f"variances: expected CheapVariances, got {type(variances).__name__}")
    if (budget is None) == (target is None):
        raise IRStabError("budget, target: give exactly one")
    if objective not in ("width", "phi"):
        raise IRStabError(f"objective: expected 'width' or 'phi', got {objective!r}")
    pool = _pos("pool", pool, allow_zero=False)
    cheap_cost = _pos("cheap_cost", cheap_cost)
    topic_cost = _pos("topic_cost", topic_cost)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) \
            or not 0 < confidence < 1:
        raise IRStabError(f"confidence: must be in (0, 1), got {confidence!r}")
    if objective == "phi":
        if variances.system is None or variances.system <= 0:
            raise IRStabError("variances: Phi needs the system variance (variances.system > 0)")
        if variances.targets != "runs":
            raise IRStabError("variances: Phi is of the runs' means; estimate the variances "
                              "with targets='runs'")
    if topic_cost + cheap_cost * pool <= 0:
        raise IRStabError("cheap_cost, topic_cost: both 0 make topics with cheap labels free "
                          "(as many as wanted); give a cost to either")
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    A, B, s2 = variances.rect, variances.cheap, variances.system
    rf = variances.rect_fixed

    def parts(n):
        """Per-topic rectifier and cheap parts of the interval used at n gold topics."""
        if rf is None:
            return np.full_like(n, A), np.full_like(n, B)
        small = n < TUNED_MIN_GOLD_TOPICS
        return np.where(small, rf, A), np.where(small, A + B - rf, B)

    alpha, beta = topic_cost + cheap_cost * pool, pool

    def figures(v):
        v = np.asarray(v, float)
        phi = None if s2 is None else s2 / (s2 + v)
        return z * np.sqrt(v), phi

    if target is not None:
        target = _pos("target", target, allow_zero=False)
        if objective == "phi":
            if target >= 1:
                raise IRStabError(f"target: Phi must be in (0, 1), got {target!r}")
            v0 = s2 * (1 - target) / target
        else:
            v0 = (target / z) ** 2
        # gold only: the fewest topics with (A + B) / n <= v0
        n_go = max(2, math.ceil((A + B) / v0 * (1 - 1e-12)))
        go_cost = n_go * (topic_cost + pool)
        # with the cheap judge: every n with A / n < v0, the fewest N that reaches v0
        n_min = max(2, math.floor(A / v0) + 1) if A > 0 else 2
        n_hi = max(n_min, n_go)
        if n_hi - n_min > MAX_SEARCH:
            raise IRStabError(f"target: {target:g} needs more than {MAX_SEARCH:,} gold topics "
                              "to search")
        n = np.arange(n_min, n_hi + 1, dtype=float)
        if rf is not None:  # the fixed-lambda interval's gold counts too
            n = np.union1d(np.arange(2, min(TUNED_MIN_GOLD_TOPICS, n_hi + 1), dtype=float), n)
        r_n, c_n = parts(n)
        room = v0 - r_n / n
        with np.errstate(divide="ignore", invalid="ignore"):
            N = np.where(c_n > 0, np.ceil(c_n / np.where(room > 0, room, np.nan)
                                          * (1 - 1e-12)),
                         np.where(c_n / n <= room, n, np.nan))
        N = np.maximum(N, n)
        cost = alpha * N + beta * n
        k = int(np.nanargmin(cost))
        S = math.sqrt(A * beta) + math.sqrt(B * alpha)
        cont = {"cost": S * S / v0,
                "n_gold": (S / v0) * math.sqrt(A / beta),
                "n_topics": (S / v0) * math.sqrt(B / alpha) if alpha > 0 else math.inf}
        chosen_go = go_cost <= cost[k]
        mode = "target"
    else:
        budget = _pos("budget", budget, allow_zero=False)
        n_go = math.floor(budget / (topic_cost + pool) * (1 + 1e-12))
        go_cost = n_go * (topic_cost + pool)
        n_max = math.floor(budget / (alpha + beta) * (1 + 1e-12))  # N >= n: n pays for both
        if n_max < 2 and n_go < 2:
            raise IRStabError(f"budget: {budget:g} does not pay for 2 gold topics "
                              f"(a topic costs {topic_cost + pool:g} gold judgments)")
        if n_max > MAX_SEARCH:
            raise IRStabError(f"budget: {budget:g} pays for more than {MAX_SEARCH:,} gold "
                              "topics to search")
        n = np.arange(2, max(n_max, 2) + 1, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # topics with cheap labels counted up to MAX_CHEAP_TOPICS (a near-free judge)
            N = np.minimum(np.floor((budget - beta * n) / alpha * (1 + 1e-12)),
                           MAX_CHEAP_TOPICS)
        N = np.where(N >= n, N, np.nan)
        cost = alpha * N + beta * n
        S = math.sqrt(A * beta) + math.sqrt(B * alpha)
        cont = {"variance": S * S / budget,
                "n_gold": budget * math.sqrt(A / beta) / S if S > 0 else math.nan,
                "n_topics": (budget * math.sqrt(B / alpha) / S) if alpha > 0 and S > 0
                else math.inf}
        v = ppi_variance(A, B, n, N, rf)
        v = np.where(np.isfinite(v), v, np.inf)
        k = int(np.argmin(v)) if np.isfinite(v).any() else -1
        v_go = (A + B) / n_go if n_go >= 2 else math.inf
        chosen_go = k < 0 or v_go <= v[k]
        mode = "budget"
    v_all = ppi_variance(A, B, n, N, rf)
    hw, ph = figures(v_all)
    designs = pd.DataFrame({"n_gold": n.astype(int), "n_topics": N, "cost": cost,
                            "variance": v_all, "half_width": hw})
    if ph is not None:
        designs["phi"] = ph
    v_go = (A + B) / n_go if n_go >= 2 else math.inf
    hw_go, ph_go = figures(v_go)
    gold_only = {"n_topics": int(n_go), "cost": float(go_cost), "variance": float(v_go),
                 "half_width": float(hw_go), "phi": None if ph_go is None else float(ph_go),
                 "chosen": bool(chosen_go)}
    if chosen_go:
        n_g, n_t, c, v = int(n_go), int(n_go), float(go_cost), float(v_go)
    else:
        n_g, n_t, c, v = int(n[k]), int(N[k]), float(cost[k]), float(v_all[k])
    hw_c, ph_c = figures(v)
    return CheapPlan(mode=mode, objective=objective, budget=budget, target=target, pool=pool,
                     cheap_cost=cheap_cost, topic_cost=topic_cost, confidence=float(confidence),
                     variances=variances, n_gold=n_g, n_topics=n_t, cost=c, variance=v,
                     half_width=float(hw_c), phi=None if ph_c is None else float(ph_c),
                     gold_only=gold_only, continuous=cont, designs=designs, measure=measure)


def pilot_plans(qrels, cheap_qrels, runs, measures, *, budget=None, target=None,
                objective: str = "width", cheap_cost: float, topic_cost: float = 0.0,
                pool: float | None = None, depth: int = 1000, order: str = "score",
                confidence: float = 0.95) -> list[CheapPlan]:
    """:func:`cheap_plan` per measure from a pilot: the runs scored under both judges.

    ``qrels`` is the gold judge, ``cheap_qrels`` the cheap judge's labels of the same pools;
    the topics are the gold qrels' evaluated topics (a topic the cheap judge found nothing
    relevant in scores 0 under it; a topic it did not label at all is an error naming its
    file). ``pool``: documents per topic, default the gold qrels' judgments per topic.
    ``objective="width"`` plans the interval of pairs' differences, ``"phi"`` the runs'
    Phi. Budget and costs in gold judgments (:func:`cheap_plan`).
    """
    import warnings

    from ..errors import IRStabWarning
    from ..evaluation import score_runs
    from ..io import read_qrels

    gq = qrels if hasattr(qrels, "frame") else read_qrels(qrels)
    cq = cheap_qrels if hasattr(cheap_qrels, "frame") else read_qrels(cheap_qrels)
    names = [str(m) for m in measures]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        gold = score_runs(gq, runs, measures, depth=depth, order=order).matrices()
        cheap = score_runs(cq, runs, measures, depth=depth, order=order,
                           every_topic=True).matrices()
    frame = gq.frame
    topics = sorted(set(frame.loc[frame["grade"] > 0, "topic"]))
    unlabelled = sorted(set(topics) - set(cq.frame["topic"]))
    if unlabelled:
        raise IRStabError(f"{cq.path}: the cheap judge labels no document of {len(unlabelled)} "
                          f"topic(s) of the gold qrels, e.g. {unlabelled[:5]}")
    if pool is None:
        pool = float(frame["topic"].isin(topics).sum()) / len(topics)
    targets = "runs" if objective == "phi" else "pairs"
    plans = []
    for name in names:
        g = gold[name]
        c = cheap[name].reindex(columns=g.columns, fill_value=0.0).loc[g.index]
        v = cheap_variances(g, c, targets)
        plans.append(cheap_plan(v, budget=budget, target=target, objective=objective,
                                pool=pool, cheap_cost=cheap_cost, topic_cost=topic_cost,
                                confidence=confidence, measure=name))
    return plans
