"""Figures reported with every optimum: Phi, Erho2, topics needed, discrimination, Kendall's
tau against the presets, all from the nDCG kernel that ``irstab evaluate`` reports."""

from __future__ import annotations

import warnings

import numpy as np

from ..collection import Collection
from ..errors import DegenerateDataError, IRStabWarning
from .objectives import Objective
from .parametrisation import DISCOUNT_PRESETS
from .result import (
    MeasureStats,
    ScenarioStats,
)
from .scenario import Scenario

__all__ = ["PRESET_GAINS", "PRESET_DISCOUNTS", "preset_measures", "scenario_stats",
           "kernel_objective", "REPORTED"]

#: Preset measures reported with every result: gain linear/exp x discount log2/zipf/linear/flat.
PRESET_GAINS: tuple[str, ...] = ("linear", "exp")
PRESET_DISCOUNTS: tuple[str, ...] = DISCOUNT_PRESETS

#: The MeasureStats field that holds each objective as the evaluate kernel reports it.
REPORTED = {
    Objective.phi: "phi1",
    Objective.erho2: "erho2_1",
    Objective.discrimination: "discrimination",
}


def _figures(scores: np.ndarray, measure: str, gain, discount) -> MeasureStats:
    from ..stability import gstudy
    from .discrimination import discrimination_batch

    if np.ptp(scores) == 0:
        warnings.warn(
            f"{measure}: every system scores {scores.flat[0]:g} on every topic; the systems do "
            "not differ, so its Phi and Erho2 are 0",
            IRStabWarning,
            stacklevel=3,
        )
        return MeasureStats(measure, gain, discount, 0.0, 0.0, 0.0, float("inf"), 0.0)
    try:
        g = gstudy(scores, name=measure)
    except DegenerateDataError as exc:
        warnings.warn(f"{measure}: {exc}; its figures are NaN", IRStabWarning, stacklevel=3)
        nan = float("nan")
        return MeasureStats(measure, gain, discount, nan, nan, nan, nan, nan)
    return MeasureStats(
        measure=measure,
        gain=gain,
        discount=discount,
        phi1=g.phi(1),
        phi=g.phi(),
        erho2=g.erho2(),
        topics_needed=g.topics_needed(0.95).n,
        erho2_1=g.erho2(1),
        discrimination=float(discrimination_batch(scores)),
    )


def _kendall(a: np.ndarray, b: np.ndarray) -> float:
    from ..compare.correlation import _kendall_matrix  # tau-b without importing scipy.stats

    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(_kendall_matrix(np.stack([a, b]))[0, 1])


def preset_measures(cutoff: int) -> list[tuple[str, str, str]]:
    """``(canonical string, gain name, discount name)`` of the 8 presets at ``cutoff``."""
    from ..metrics import Discount, Gain, nDCG

    out = []
    for g in PRESET_GAINS:
        for d in PRESET_DISCOUNTS:
            m = nDCG(gain=Gain.of(g), discount=Discount.of(d), cutoff=cutoff)
            out.append((m.canonical(), g, d))
    return out


def _ndcg_matrix(scenario: Scenario, measure) -> np.ndarray:
    """The nDCG@k matrix of ``measure`` on the scenario's topics: from the evaluate kernel
    on a Collection; from the linear forms (the same vectors, scaled to maximum 1 as the
    kernel scales them) on LinearForms, which hold no grade tensor."""
    coll = scenario.collection
    if isinstance(coll, Collection):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)  # IDCG = 0: reported by the figures
            return measure.compute(coll)[:, list(scenario.topics)]
    from ..metrics.dcg import unit_max

    k = scenario.cutoff
    gain = unit_max(measure.gain.vector(coll.max_grade))
    discount = unit_max(measure.discount.vector(k, measure.cutoff))
    return scenario.ndcg(gain, discount)


def scenario_stats(scenario: Scenario, gain: np.ndarray, discount: np.ndarray) -> ScenarioStats:
    """Figures of the optimum and the presets on one scenario, from the evaluate kernel."""
    from ..metrics import Discount, Gain, nDCG, parse_measure

    k = scenario.cutoff
    d = discount[:k] / discount[:k].sum()
    g = gain / gain[1:].sum()
    measure = nDCG(gain=Gain.of(tuple(g)), discount=Discount.of(tuple(d)), cutoff=k)
    x_opt = _ndcg_matrix(scenario, measure)
    top = float(x_opt.max(initial=0.0))
    if top > 1 + 1e-9:  # only possible without the ordering constraint
        warnings.warn(
            f"{scenario.name}: nDCG reaches {top:.3g} > 1 at the optimum. Without the ordering "
            "constraint the ideal ranking (documents by grade) is no longer the best ranking, "
            "and the optimum gains stability by weighting ranks where the ideal list is empty "
            "or weak; treat its Phi with care (keep the ordering constraint or lower the cutoff)",
            IRStabWarning,
            stacklevel=3,
        )
    opt = _figures(x_opt, measure.canonical(), tuple(float(v) for v in g), tuple(float(v) for v in d))
    presets, taus = [], []
    for text, g_name, d_name in preset_measures(k):
        x = _ndcg_matrix(scenario, parse_measure(text))
        presets.append(_figures(x, text, g_name, d_name))
        taus.append((text, _kendall(x_opt.mean(axis=1), x.mean(axis=1))))
    return ScenarioStats(
        name=scenario.name,
        cutoff=k,
        n_systems=scenario.n_systems,
        n_topics=scenario.n_topics,
        optimum=opt,
        presets=tuple(presets),
        kendall_tau=tuple(taus),
    )


def kernel_objective(scenario: Scenario, stats: ScenarioStats, g, d, objective) -> float:
    """The scenario's objective at the optimum, from the nDCG kernel of ``evaluate``."""
    if scenario.design is None:
        return getattr(stats.optimum, REPORTED[objective])
    from ..metrics import Discount, Gain, nDCG

    k = scenario.cutoff
    measure = nDCG(gain=Gain.of(tuple(g)), discount=Discount.of(tuple(d[:k] / d[:k].sum())),
                   cutoff=k)
    return float(scenario.design.values(_ndcg_matrix(scenario, measure)))
