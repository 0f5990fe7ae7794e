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

import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..errors import IRStabWarning, MeasureError
from .base import Measure, register
from .dcg import _ideal_gains, gain_matrix
from .gains import Gain, GainKind

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
    name: ClassVar[str] = "RBP"
    summary: ClassVar[str] = "Rank-biased precision (binary relevance, grade >= rel); see RBP.residual"
    formula: ClassVar[str] = "(1-p) sum_r rel_r p^(r-1)"

    def compute(self, collection) -> np.ndarray:
        n = collection.stored(self._n(collection))  # past every run: no relevant document
        return (collection.grades_to(n) >= self.rel) @ self._weights(n)


@register
@dataclass(frozen=True)
class RBPResidual(_RBPBase):
    name: ClassVar[str] = "RBP.residual"
    summary: ClassVar[str] = "RBP's residual: the weight of unjudged ranks and of the ranks past the run's end (or @k)"
    formula: ClassVar[str] = "(1-p) sum_{r<=n, unjudged} p^(r-1) + p^n, n = min(run length, k)"

    def compute(self, collection) -> np.ndarray:
        k = self._n(collection)
        length = np.minimum(collection.run_length, k)
        n = collection.stored(k)  # no run is longer: no unjudged rank within a run past it
        unjudged = ~collection.judged_to(n) & (np.arange(n) < length[:, :, None])
        return unjudged @ self._weights(n) + self.p**length


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
        if (R == 0).any():  # pragma: no cover - the topic set guarantees R >= 1
            warnings.warn(f"{self}: topics without relevant documents score 0", IRStabWarning)
        return np.divide(total, R, out=np.zeros_like(total), where=R > 0)
