"""DCG and nDCG with any gain and any discount.

Kernel
------
For gain vector ``g`` (by grade) and discount vector ``d`` (by rank)::

    DCG@k(s, t)  = sum_{r=1..k} g[grade(s, t, r)] * d[r]
    IDCG@k(t)    = sum_{r=1..k} gi(t, r) * d[r]     gi: the topic's judged gains,
                                                     sorted decreasing
    nDCG@k(s, t) = DCG@k(s, t) / IDCG@k(t)

Without ``@k`` DCG runs over the whole ranking (up to the collection depth)
and the ideal list over every relevant document, as trec_eval's ``ndcg``.
A custom discount tuple of length n implies ``k = n`` when no cutoff is given.

Conventions: grades <= 0 gain 0; nDCG rescales the gain and the discount
to a largest weight of 1 before use (it is scale-free, and huge weights would
overflow DCG); weights whose products would underflow (spanning more than
the floating-point range, :func:`scale_free`) are an error, not a 0; IDCG = 0
(e.g. every relevant grade given gain 0) gives nDCG = 0 with an :class:`~irstab.errors.IRStabWarning` naming the
topics. IDCG is the DCG of the ranking by grade, as in trec_eval; with a custom
discount that rises somewhere, that ranking is not the best one and nDCG can
exceed 1 (a warning says where; an overflow is an error). The kernel is linear
in ``g`` for fixed ``d`` and in ``d`` for fixed ``g``, which the optimizer
relies on (:func:`gain_matrix`).

References: Jarvelin & Kekalainen, ACM TOIS 20(4), 2002; Burges et al.,
ICML 2005; trec_eval ``m_ndcg.c`` / ``m_ndcg_cut.c``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..errors import IRStabWarning, MeasureError
from .base import Measure, register
from .gains import Discount, DiscountKind, Gain

__all__ = [
    "DCG", "nDCG", "dcg_scores", "ideal_dcg", "gain_matrix", "ideal_gain_matrix", "scale_free",
]


def gain_matrix(grades: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Gains at each rank: ``gain[max(grade, 0)]`` (float64, same shape as ``grades``)."""
    return np.take(gain, np.clip(grades, 0, None))


def ideal_gain_matrix(ideal: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Each topic's gains in decreasing order of gain (not of grade), shape ``(T, J)``."""
    gi = np.take(gain, ideal)
    if np.any(np.diff(gain) < 0):  # non-monotone gains: the ideal list sorts by gain
        gi = -np.sort(-gi, axis=1)
    return gi


def dcg_scores(grades: np.ndarray, gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """DCG of every (system, topic): ``gain[grades] @ discount`` over the last axis."""
    return gain_matrix(grades, gain) @ discount[: grades.shape[-1]]


def ideal_dcg(ideal: np.ndarray, gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """IDCG of every topic from the ideal grade lists."""
    return ideal_gain_matrix(ideal, gain) @ discount[: ideal.shape[-1]]


def unit_max(v: np.ndarray) -> np.ndarray:
    """``v / max(v)`` (``v`` when its max is 0): the same nDCG without overflowing DCG.

    nDCG is scale-free in the gain and in the discount; DCG with weights near
    the floating-point limit (``gain=(0,1e308,...)``) would overflow to inf and
    give NaN, so the normalised measures rescale both vectors to a largest
    weight of 1 first.
    """
    top = v.max(initial=0.0)
    return v / top if top > 0 else v


def scale_free(measure, gain: np.ndarray, discount: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`unit_max` of both vectors, or an error if a gain x discount term would underflow.

    Every positive term ``gain[j] * discount[r]`` must stay a normal float
    (>= 2.2e-308) once the largest weight of each vector is 1: else a small
    weight beside a huge one (``gain=(0,5e-324,1e308,1e308)``) vanishes, or keeps a
    few bits, and the topics that only it reaches get nDCG 0 or a ratio of rounding
    noise instead of their well-defined value. Tested in log space, so the test
    itself cannot underflow.
    """
    with np.errstate(divide="ignore"):
        span = [np.log(v[v > 0]).min() - np.log(v.max()) for v in (gain, discount)
                if (v > 0).any()]
    if len(span) == 2 and sum(span) < np.log(np.finfo(np.float64).tiny):
        raise MeasureError(
            f"{measure}: the gain and discount weights span more than the floating-point range "
            "(smallest positive gain x discount below 1e-308 of the largest); give weights "
            "within a factor 1e300 of each other"
        )
    return unit_max(gain), unit_max(discount)


def _ideal_gains(collection, gain: np.ndarray, k: int) -> np.ndarray:
    """Each topic's top-``k`` gains: all relevant documents sorted by gain, then cut (T, k)."""
    gi = ideal_gain_matrix(collection.ideal, gain)[:, :k]
    if gi.shape[1] < k:
        gi = np.concatenate([gi, np.zeros((gi.shape[0], k - gi.shape[1]))], axis=1)
    return gi


@dataclass(frozen=True)
class DCG(Measure):
    """Discounted cumulative gain (unnormalised)."""

    name: ClassVar[str] = "DCG"
    summary: ClassVar[str] = "Discounted cumulative gain, any gain and discount"
    formula: ClassVar[str] = "sum_{r<=k} gain(grade_r) * discount(r)"

    gain: Gain = field(default_factory=Gain)
    discount: Discount = field(default_factory=Discount)

    def _validate(self) -> None:
        if not isinstance(self.gain, Gain) or not isinstance(self.discount, Discount):
            object.__setattr__(self, "gain", Gain.of(self.gain))
            object.__setattr__(self, "discount", Discount.of(self.discount))
        self.gain.check_unsigned(self.name)
        if self.discount.kind is DiscountKind.LINEAR and self.cutoff is None:
            raise MeasureError(f"{self.name}(discount=linear) needs a cutoff, e.g. @20")
        L = self.discount.length
        if L is not None and self.cutoff is not None and L != self.cutoff:
            raise MeasureError(
                f"{self.name}: discount has {L} weights but the cutoff is @{self.cutoff}; give "
                f"one weight per rank (or drop @{self.cutoff}: a weight tuple sets the cutoff)"
            )

    def params(self) -> dict[str, Any]:
        out = {}
        if self.gain != Gain():
            out["gain"] = self.gain
        if self.discount != Discount():
            out["discount"] = self.discount
        return out

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        return Gain.of(value) if key == "gain" else Discount.of(value)

    @property
    def k(self) -> int | None:
        """The effective cutoff: ``@k``, else a custom discount's length, else None."""
        return self.cutoff if self.cutoff is not None else self.discount.length

    def depth_needed(self) -> int | None:
        return self.k

    def vectors(self, collection) -> tuple[np.ndarray, np.ndarray, int, int]:
        """``(gain, discount, k_run, k_ideal)`` for this collection."""
        gain = self.gain.vector(collection.max_grade)
        k = self.k
        k_run = collection.stored(k)  # past the deepest ranking every gain is 0
        k_ideal = collection.ideal.shape[1] if k is None else min(k, collection.ideal.shape[1])
        discount = self.discount.vector(max(k_run, k_ideal), self.cutoff)
        return gain, discount, k_run, k_ideal

    def compute(self, collection) -> np.ndarray:
        gain, discount, k_run, _ = self.vectors(collection)
        return dcg_scores(collection.grades_to(k_run), gain, discount)


@register
@dataclass(frozen=True)
class nDCG(DCG):  # noqa: N801 - the measure's name
    """Normalised DCG: DCG / IDCG of the topic (0 where IDCG = 0, with a warning)."""

    name: ClassVar[str] = "nDCG"
    summary: ClassVar[str] = "Normalised DCG (trec_eval ndcg / ndcg_cut with the defaults)"
    formula: ClassVar[str] = "DCG@k / IDCG@k; gain=linear|exp|(g0..gc), discount=log2|log(base=b)|zipf|linear|flat|(d1..dk)"

    def compute(self, collection) -> np.ndarray:
        gain, discount, k_run, k_ideal = self.vectors(collection)
        gain, discount = scale_free(self, gain, discount)
        dcg = dcg_scores(collection.grades_to(k_run), gain, discount)
        idcg = _ideal_gains(collection, gain, k_ideal) @ discount[:k_ideal]
        zero = idcg <= 0
        named = zero & (collection.num_relevant(1) > 0)  # none relevant: named with the topic set
        if named.any():
            topics = [collection.topics[i] for i in np.flatnonzero(named)]
            warnings.warn(
                f"{self}: ideal DCG is 0 on {len(topics)} topic(s) {topics[:10]}; "
                "nDCG is 0 there",
                IRStabWarning,
                stacklevel=2,
            )
        with np.errstate(over="ignore"):
            out = np.divide(dcg, idcg, out=np.zeros_like(dcg), where=~zero)
        top = out.max(initial=0.0)
        if top > 1 + 1e-9:  # only a discount that rises somewhere can do this
            if not np.isfinite(top):
                raise MeasureError(
                    f"{self}: nDCG overflows (ideal DCG {idcg[~zero].min():.3g} on some topic): "
                    "the discount weights span more than the floating-point range"
                )
            warnings.warn(
                f"{self}: nDCG reaches {top:.4g} > 1 on {int((out > 1 + 1e-9).sum())} cell(s): "
                "the discount is not non-increasing, so the ranking by grade (the ideal list) "
                "is not the best ranking",
                IRStabWarning,
                stacklevel=2,
            )
        return out


register(DCG)
