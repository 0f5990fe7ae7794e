"""Binary-relevance measures with trec_eval's definitions.

A document is relevant when its grade is >= ``rel`` (trec_eval ``-l``,
default 1); ``R`` is the number of relevant judged documents of the topic.
All kernels are cumulative sums over the rank axis of the Collection arrays.
A topic with R = 0 at the chosen ``rel`` scores 0 (trec_eval's convention),
with an :class:`~irstab.errors.IRStabWarning`.

Validated against trec_eval 9 (pytrec_eval) on TREC DL 2019 to 1e-9:
``map``, ``P_k``, ``Rprec``, ``recall_k``, ``recip_rank``, ``bpref``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import IRStabWarning
from .base import Measure, register

__all__ = ["AP", "Precision", "RPrecision", "Recall", "RR", "Bpref"]


@dataclass(frozen=True)
class _Binary(Measure):
    rel: int = 1

    def _validate(self) -> None:
        self._check_number(self.name, "rel", self.rel, 1, np.inf)

    def _relevant(self, collection, k: int | None = None) -> np.ndarray:
        return collection.grades_to(collection.stored(k)) >= self.rel

    def _num_relevant(self, collection) -> np.ndarray:
        R = collection.num_relevant(self.rel)
        if (R == 0).any():
            topics = [collection.topics[i] for i in np.flatnonzero(R == 0)]
            warnings.warn(
                f"{self}: {len(topics)} topic(s) have no document of grade >= {self.rel} "
                f"and score 0: {topics[:10]}",
                IRStabWarning,
                stacklevel=3,
            )
        return R

    @staticmethod
    def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        num = np.asarray(num, dtype=np.float64)
        den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
        return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


@register
@dataclass(frozen=True)
class AP(_Binary):
    name: ClassVar[str] = "AP"
    summary: ClassVar[str] = "Average precision (trec_eval map; @k: map_cut)"
    formula: ClassVar[str] = "(1/R) sum_{r<=k, rel_r} P@r"

    def compute(self, collection) -> np.ndarray:
        rel = self._relevant(collection, self.cutoff)
        ranks = np.arange(1, rel.shape[2] + 1)
        prec = np.cumsum(rel, axis=2) / ranks
        return self._divide((prec * rel).sum(axis=2), self._num_relevant(collection))


@register
@dataclass(frozen=True)
class Precision(_Binary):
    name: ClassVar[str] = "P"
    summary: ClassVar[str] = "Precision at k (trec_eval P_k); missing ranks count as non-relevant"
    formula: ClassVar[str] = "|relevant in top k| / k"
    cutoff_required: ClassVar[bool] = True

    def compute(self, collection) -> np.ndarray:
        return self._relevant(collection, self.cutoff).sum(axis=2) / self.cutoff


@register
@dataclass(frozen=True)
class Recall(_Binary):
    name: ClassVar[str] = "Recall"
    summary: ClassVar[str] = "Recall at k (trec_eval recall_k); no @k: the whole ranking"
    formula: ClassVar[str] = "|relevant in top k| / R"

    def compute(self, collection) -> np.ndarray:
        hits = self._relevant(collection, self.cutoff).sum(axis=2)
        return self._divide(hits, self._num_relevant(collection))


@register
@dataclass(frozen=True)
class RPrecision(_Binary):
    name: ClassVar[str] = "R-prec"
    summary: ClassVar[str] = "Precision at rank R (trec_eval Rprec)"
    formula: ClassVar[str] = "|relevant in top R| / R"
    cutoff_allowed: ClassVar[bool] = False

    def compute(self, collection) -> np.ndarray:
        R = self._num_relevant(collection)
        rel = self._relevant(collection, max(int(R.max()), 1))
        within = np.arange(rel.shape[2])[None, None, :] < R[None, :, None]
        return self._divide((rel & within).sum(axis=2), R)


@register
@dataclass(frozen=True)
class RR(_Binary):
    name: ClassVar[str] = "RR"
    summary: ClassVar[str] = "Reciprocal rank of the first relevant document (trec_eval recip_rank)"
    formula: ClassVar[str] = "1 / rank of the first relevant document (0 if none in top k)"

    def compute(self, collection) -> np.ndarray:
        rel = self._relevant(collection, self.cutoff)
        first = rel.argmax(axis=2)
        return np.where(rel.any(axis=2), 1.0 / (first + 1.0), 0.0)


@register
@dataclass(frozen=True)
class Bpref(_Binary):
    name: ClassVar[str] = "bpref"
    summary: ClassVar[str] = "Binary preference (Buckley & Voorhees 2004; trec_eval bpref)"
    formula: ClassVar[str] = "(1/R) sum_{relevant r} 1 - min(n_r, R) / min(N, R); n_r judged non-relevant above r, N all judged non-relevant"
    cutoff_allowed: ClassVar[bool] = False

    def compute(self, collection) -> np.ndarray:
        grades, judged = collection.grades, collection.judged
        rel = judged & (grades >= self.rel)
        nonrel_above = np.cumsum(judged & (grades >= 0) & (grades < self.rel), axis=2)
        R = self._num_relevant(collection)[None, :, None]
        N = collection.num_nonrelevant(self.rel)[None, :, None]
        denom = np.minimum(N, R)
        penalty = self._divide(np.minimum(nonrel_above, R), denom)
        return self._divide(np.where(rel, 1.0 - penalty, 0.0).sum(axis=2), R[:, :, 0])
