"""User-model measures: RBP (with its residual), ERR and Sakai's Q-measure.

References
----------
Moffat & Zobel, "Rank-biased precision for measurement of retrieval
effectiveness", ACM TOIS 27(1), 2008.
Chapelle, Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded
relevance", CIKM 2009.
Sakai, "New performance metrics based on multigrade relevance", NTCIR-4, 2004;
Sakai & Kando, Information Retrieval 11, 2008 (Q-measure with ``beta``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..errors import MeasureError
from .base import Measure, register
from .dcg import _ideal_gains, gain_matrix
from .gains import Gain, GainKind
from .trec_gain import powers, rank_gains, rbp_gains, retrieved_unjudged

__all__ = ["RBP", "RBPResidual", "ERR", "QMeasure"]


@dataclass(frozen=True)
class _RBPBase(Measure):
    p: float = 0.8
    rel: int = 1

    def _validate(self) -> None:
        self._check_number(self.name, "p", self.p, 0.0, 1.0, lo_open=True, hi_open=True)
        self._check_number(self.name, "rel", self.rel, 1, np.inf)

    def params(self) -> dict[str, Any]:
        out = {"p": self.p}  # p defines RBP: always shown (DESIGN.md: RBP(p=0.8))
        if self.rel != 1:
            out["rel"] = self.rel
        return out

    def _weights(self, n: int) -> np.ndarray:
        return (1.0 - self.p) * self.p ** np.arange(n)

    def _n(self, collection) -> int:
        return collection.grades.shape[2] if self.cutoff is None else self.cutoff


@register
@dataclass(frozen=True)
class RBP(_RBPBase):
    """Rank-biased precision (Moffat & Zobel, ACM TOIS 27(1), 2008).

    Binary by default: ``(1-p) sum_r [grade_r >= rel] p^(r-1)``. With ``gain``
    (``RBP(p=0.9,gain=linear)`` is trec_eval 10's ``rbp``) the graded form of
    trec_eval's ``m_rbp.c``: each judged document gains ``gain(grade)``, rescaled per
    topic to ``(g - min) / (max - min)`` when a gain of the topic's list lies outside
    [0, 1] (the list: grades 0 to the topic's highest judged grade, and every grade
    ``levels(...)`` names); unjudged documents gain 0. ``rel`` does not apply then.
    trec_eval 10 leaves ``min`` and ``max`` uninitialised before that scan; this is the
    evident reading, which its binaries give (``rbp`` of TREC DL 2019 equals it).
    """

    name: ClassVar[str] = "RBP"
    summary: ClassVar[str] = ("Rank-biased precision (binary at grade >= rel; gain=...: graded as "
                              "trec_eval rbp); see RBP.residual")
    formula: ClassVar[str] = "(1-p) sum_r rel_r p^(r-1)"

    gain: Gain | None = None

    def _validate(self) -> None:
        super()._validate()
        if self.gain is not None:
            if not isinstance(self.gain, Gain):
                object.__setattr__(self, "gain", Gain.of(self.gain))
            if self.rel != 1:
                raise MeasureError("RBP: rel applies to binary RBP; with gain= the grades are "
                                   "gains (drop rel or gain)")

    def params(self) -> dict[str, Any]:
        out = super().params()
        if self.gain is not None:
            out["gain"] = self.gain
        return out

    @classmethod
    def takes_rel(cls, params) -> bool:
        return "gain" not in params

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        return Gain.of(value) if key == "gain" else super()._coerce(key, value)

    def compute(self, collection) -> np.ndarray:
        n = collection.stored(self._n(collection))  # past every run: no relevant document
        if self.gain is None:
            return (collection.grades_to(n) >= self.rel) @ self._weights(n)
        gains = rank_gains(collection, rbp_gains(collection, self.gain), n)
        # trec_eval's sums, in its order: sum += gain p^i (p^i by repeated products)
        total = np.cumsum(gains * powers(self.p, n)[:n], axis=2)[:, :, -1]
        return (1.0 - self.p) * total


@register
@dataclass(frozen=True)
class RBPResidual(_RBPBase):
    """RBP's residual: the RBP its unjudged documents and unseen ranks could still add.

    ``(1-p) sum_{r<=n, unjudged} p^(r-1) + p^n`` with ``n = min(run length, k)``.
    ``tail=unjudged`` is trec_eval 10's ``rbp_resid`` (``m_rbp_resid.c``): the same when
    a retrieved document is unjudged (not in the qrels, or of negative grade), else 0.
    """

    name: ClassVar[str] = "RBP.residual"
    summary: ClassVar[str] = ("RBP's residual: the weight of unjudged ranks and of the ranks past "
                              "the run's end (or @k); tail=unjudged: trec_eval's rbp_resid")
    formula: ClassVar[str] = "(1-p) sum_{r<=n, unjudged} p^(r-1) + p^n, n = min(run length, k)"

    tail: str = "always"

    def _validate(self) -> None:
        super()._validate()
        if self.tail not in _TAILS:
            raise MeasureError(f"RBP.residual: tail must be always or unjudged (trec_eval's "
                               f"rbp_resid), got {self.tail!r}")

    def params(self) -> dict[str, Any]:
        out = super().params()
        if self.tail != "always":
            out["tail"] = self.tail
        return out

    def compute(self, collection) -> np.ndarray:
        return _TAILS[self.tail](self, collection)


def _residual(m: RBPResidual, collection) -> np.ndarray:
    k = m._n(collection)
    length = np.minimum(collection.run_length, k)
    n = collection.stored(k)  # no run is longer: no unjudged rank within a run past it
    unjudged = ~collection.judged_to(n) & (np.arange(n) < length[:, :, None])
    return unjudged @ m._weights(n) + m.p**length


def _trec_residual(m: RBPResidual, collection) -> np.ndarray:
    k = m._n(collection)
    length = np.minimum(collection.run_length, k)
    n = collection.stored(k)
    unjudged = retrieved_unjudged(collection, n) & (np.arange(n) < length[:, :, None])
    pw = powers(m.p, n)
    total = np.cumsum(np.where(unjudged, pw[:n], 0.0), axis=2)[:, :, -1]  # trec_eval's order
    return np.where(unjudged.any(axis=2), pw[length] + (1.0 - m.p) * total, 0.0)


_TAILS = {"always": _residual, "unjudged": _trec_residual}


@register
@dataclass(frozen=True)
class ERR(Measure):
    """Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009).

    ``ERR@k = sum_{r<=k} (1/r) R_r prod_{i<r} (1 - R_i)`` with the stopping
    probability ``R = (2^g - 1) / 2^g_max`` of a document of grade ``g``
    (negative grades count as 0). By default ``g_max = 4``, as in gdeval
    (TREC Web track's ``gdeval.pl``, ``$MAX_JUDGMENT = 4``), which ir_measures
    runs for ``ERR@k``: the values equal ir_measures' and gdeval's.
    ``ERR(max_grade=qrels)`` takes ``g_max`` from the qrels (the largest grade
    judged: 3 on TREC DL, where it gives larger values), ``ERR(max_grade=G)``
    any scale. A grade above ``max_grade`` is an error (its stopping
    probability would exceed 1).

    Validated against ir_measures (gdeval) on TREC DL 2019, to gdeval's five
    printed decimals.
    """

    name: ClassVar[str] = "ERR"
    summary: ClassVar[str] = ("Expected reciprocal rank (cascade model, graded); max_grade=4 as gdeval "
                              "and ir_measures, max_grade=qrels for the qrels' largest grade")
    formula: ClassVar[str] = "sum_r (1/r) R_r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^max_grade"

    max_grade: int | str = 4

    def _validate(self) -> None:
        g = self.max_grade
        if g == "qrels":
            return
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or not 1 <= g <= 127:
            raise MeasureError(f"ERR: max_grade must be an integer in [1, 127] or qrels, got {g!r}")

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        if key == "max_grade" and isinstance(value, float) and value.is_integer():
            return int(value)
        return value if key == "max_grade" else super()._coerce(key, value)

    def compute(self, collection) -> np.ndarray:
        top = collection.max_grade if self.max_grade == "qrels" else int(self.max_grade)
        if collection.max_grade > top:
            raise MeasureError(
                f"{self}: the qrels have grade {collection.max_grade} above max_grade={top}; "
                f"use ERR(max_grade=qrels) or ERR(max_grade={collection.max_grade})"
            )
        n = collection.stored(self.cutoff)  # past every run: no stopping document
        g = np.clip(collection.grades_to(n), 0, None).astype(np.float64)
        stop = (np.exp2(g) - 1.0) / 2.0**top
        reach = np.cumprod(1.0 - stop, axis=2)
        reach = np.concatenate([np.ones(reach.shape[:2] + (1,)), reach[:, :, :-1]], axis=2)
        return (stop * reach) @ (1.0 / np.arange(1, n + 1))


@register
@dataclass(frozen=True)
class QMeasure(Measure):
    name: ClassVar[str] = "Q-measure"
    summary: ClassVar[str] = "Sakai's Q-measure: graded AP with blended ratio (gain as nDCG, default linear)"
    formula: ClassVar[str] = "(1/R) sum_{relevant r} (C(r) + beta cg(r)) / (r + beta cg*(r))"
    cutoff_allowed: ClassVar[bool] = False

    beta: float = 1.0
    gain: Gain = field(default_factory=lambda: Gain(GainKind.LINEAR))

    def _validate(self) -> None:
        self._check_number(self.name, "beta", self.beta, 0.0, np.inf)
        if not isinstance(self.gain, Gain):
            object.__setattr__(self, "gain", Gain.of(self.gain))

    def params(self) -> dict[str, Any]:
        out = {}
        if self.beta != 1.0:
            out["beta"] = self.beta
        if self.gain != Gain():
            out["gain"] = self.gain
        return out

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        return Gain.of(value) if key == "gain" else super()._coerce(key, value)

    def compute(self, collection) -> np.ndarray:
        gain = self.gain.vector(collection.max_grade)
        grades = collection.grades
        n = grades.shape[2]
        relevant = grades >= 1
        count = np.cumsum(relevant, axis=2)
        cg = np.cumsum(gain_matrix(grades, gain), axis=2)
        cg_ideal = np.cumsum(_ideal_gains(collection, gain, n), axis=1)[None]
        ranks = np.arange(1, n + 1)
        blended = (count + self.beta * cg) / (ranks + self.beta * cg_ideal)
        R = collection.num_relevant(1)
        total = np.where(relevant, blended, 0.0).sum(axis=2)
        # R = 0 only on a topic without any relevant document, evaluated as trec_eval
        # evaluates it (every_topic) and named once where the topic set was formed
        return np.divide(total, R, out=np.zeros_like(total), where=R > 0)
