"""Binary-relevance measures with trec_eval's definitions.

A document is relevant when its grade is >= ``rel`` (trec_eval ``-l``,
default 1); ``R`` is the number of relevant judged documents of the topic.
All kernels are cumulative sums over the rank axis of the Collection arrays.
A topic with R = 0 at the chosen ``rel`` scores 0 (trec_eval's convention),
with an :class:`~irstab.errors.IRStabWarning`.

Validated on TREC DL 2019 against trec_eval 10.0's output (byte for byte, with
``gm_map``, ``gm_bpref`` and ``Rprec_mult``) and trec_eval 9 (pytrec_eval, to 1e-9, on
rankings ordered as 9 orders them): ``map``, ``P_k``, ``Rprec``, ``recall_k``,
``recip_rank``, ``bpref``. AP and bpref add their terms rank by rank as trec_eval does, so
they are its doubles, not only its printed digits.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._numeric import runs_of
from ..errors import IRStabWarning, MeasureError
from .base import Aggregate, Measure, register

__all__ = ["AP", "Precision", "RPrecision", "Recall", "RR", "Bpref", "GMAP", "GMBpref"]


@dataclass(frozen=True)
class _Binary(Measure):
    rel: int = 1

    def _validate(self) -> None:
        self._check_number(self.name, "rel", self.rel, 1, np.inf)

    def _relevant(self, collection, k: int | None = None) -> np.ndarray:
        return collection.grades_to(collection.stored(k)) >= self.rel

    def _num_relevant(self, collection) -> np.ndarray:
        R = collection.num_relevant(self.rel)
        # a topic without any relevant document (evaluated as trec_eval evaluates it) was
        # named once where the topic set was formed: here only those this level empties
        named = (R == 0) & (collection.num_relevant(1) > 0)
        if named.any():
            topics = [collection.topics[i] for i in np.flatnonzero(named)]
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
        """``P@r = k / r`` at the rank ``r`` of each ranking's ``k``-th relevant document,
        from the relevant entries only (rank order within a ranking), then summed
        left to right as trec_eval sums, so the total is its double, not just its digits:
        the k-th term sits in row k of a zero-padded grid whose columns are summed
        sequentially (adding 0.0 changes no double)."""
        rel = self._relevant(collection, self.cutoff)
        S, T, D = rel.shape
        row, r = np.divmod(np.flatnonzero(rel), D)  # rankings' relevant ranks, rank order
        _, _, k = runs_of(row)  # k relevant documents before each one
        # the grid transposed, (k, ranking): a sum over its first axis adds row after row,
        # k = 0, 1, ... (numpy sums pairwise only along the contiguous axis), trec_eval's
        # order, at a tenth of the CPU of the last column of a cumsum along each ranking.
        # Two columns at least: one alone would be the contiguous axis, summed pairwise.
        terms = np.zeros((int(k.max(initial=-1)) + 2, max(S * T, 2)))  # a 0.0 row at least
        terms[k, row] = (k + 1) / (r + 1)
        total = terms.sum(axis=0)[:S * T].reshape(S, T)
        return self._divide(total, self._num_relevant(collection))


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
    """R-precision, and precision at a multiple of R (trec_eval ``Rprec``, ``Rprec_mult``).

    ``P@c`` with ``c = floor(mult * R + 0.9)`` (trec_eval's rounding in
    ``m_Rprec_mult.c``), counting ranks past the run's end as non-relevant; 0 when
    ``c = 0``. Without ``mult``, ``c = R``: ``R-prec(mult=1)`` has the same values, as
    trec_eval's ``Rprec_mult_1.00`` has those of ``Rprec``.
    """

    name: ClassVar[str] = "R-prec"
    summary: ClassVar[str] = "Precision at rank R (trec_eval Rprec); mult=x: at rank x R (Rprec_mult)"
    formula: ClassVar[str] = "|relevant in top c| / c, c = floor(mult R + 0.9)"
    cutoff_allowed: ClassVar[bool] = False

    mult: float | None = None

    def _validate(self) -> None:
        super()._validate()
        if self.mult is not None:
            if isinstance(self.mult, bool) or not isinstance(self.mult, (int, float)):
                raise MeasureError(f"R-prec: mult must be a number, got {self.mult!r}")
            object.__setattr__(self, "mult", float(self.mult))
            self._check_number(self.name, "mult", self.mult, 0.0, np.inf, lo_open=True)

    def compute(self, collection) -> np.ndarray:
        R = self._num_relevant(collection)
        c = R if self.mult is None else np.floor(self.mult * R + 0.9).astype(np.int64)
        rel = self._relevant(collection, max(int(c.max()), 1))
        within = np.arange(rel.shape[2])[None, None, :] < c[None, :, None]
        return self._divide((rel & within).sum(axis=2), c)


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
        total = np.cumsum(np.where(rel, 1.0 - penalty, 0.0), axis=2)[:, :, -1]  # trec_eval's order
        return self._divide(total, R[:, :, 0])


_MIN_GEO_MEAN = 1e-5  # trec_eval's MIN_GEO_MEAN (trec_eval.h)


@register
@dataclass(frozen=True)
class GMAP(AP):
    """AP summarised by its geometric mean over topics (trec_eval ``gm_map``).

    The per-topic score is ``max(AP, 1e-5)`` (trec_eval's floor, so one topic at 0 does
    not make the mean 0); the summary is ``exp(mean(log score))``. Rewards consistency
    across topics (Robertson, "On GMAP", CIKM 2006).
    """

    name: ClassVar[str] = "GMAP"
    summary: ClassVar[str] = "AP with a geometric mean over topics (trec_eval gm_map); per topic max(AP, 1e-5)"
    formula: ClassVar[str] = "exp(mean_t log max(AP_t, 1e-5))"
    cutoff_allowed: ClassVar[bool] = False
    aggregate: ClassVar[Aggregate] = Aggregate.GEOMETRIC

    def compute(self, collection) -> np.ndarray:
        return np.maximum(super().compute(collection), _MIN_GEO_MEAN)


@register
@dataclass(frozen=True)
class GMBpref(Bpref):
    """bpref summarised by its geometric mean over topics (trec_eval ``gm_bpref``).

    Per topic ``max(bpref, 1e-5)``; summary ``exp(mean(log score))``, as :class:`GMAP`.
    """

    name: ClassVar[str] = "GMbpref"
    summary: ClassVar[str] = "bpref with a geometric mean over topics (trec_eval gm_bpref)"
    formula: ClassVar[str] = "exp(mean_t log max(bpref_t, 1e-5))"
    aggregate: ClassVar[Aggregate] = Aggregate.GEOMETRIC

    def compute(self, collection) -> np.ndarray:
        return np.maximum(super().compute(collection), _MIN_GEO_MEAN)
