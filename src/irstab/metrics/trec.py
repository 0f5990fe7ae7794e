"""trec_eval's counting, set and sampling measures, and ir_measures' Judged@k.

Relevance is binary at ``rel`` (trec_eval ``-l``): a document is relevant
when its grade is >= ``rel``. ``R`` is the topic's number of judged relevant
documents, ``n`` the number of documents the run retrieved for the topic (at
most the collection depth, trec_eval ``-M``; 0 when the run lacks the topic).
Ratios with a zero denominator are 0, as trec_eval reports them; a topic with
R = 0 at ``rel`` also warns (see :mod:`irstab.metrics.binary`).

Validated against trec_eval 10.0 (its output, byte for byte, on TREC DL 2019 at
``-l 1``, ``-l 2`` and ``-l 3``, with ``-M`` and ``-J``) and trec_eval 9 (pytrec_eval;
``iprec_at_recall`` with ``trec_eval=9``): ``success``, ``num_ret``, ``num_rel``,
``num_rel_ret``, ``iprec_at_recall``, ``set_P``, ``set_recall``, ``set_F``, ``infAP``.
``Judged@k`` (not in trec_eval) against ir_measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import MeasureError
from .base import Measure, register
from .binary import _Binary

__all__ = ["Success", "Judged", "NumRet", "NumRel", "NumRelRet", "IPrec", "SetP", "SetR",
           "SetF", "SetAP", "SetRelP", "NumNonrelJudgedRet", "InfAP", "interpolated_precision"]

_INFAP_EPSILON = 0.00001  # trec_eval m_infAP.c


def _retrieved(collection, k: int | None = None) -> np.ndarray:
    """``[s, t, r]``: rank r (0-based) holds a document of the run (r < n)."""
    k = collection.grades.shape[2] if k is None else k
    return np.arange(k)[None, None, :] < collection.run_length[:, :, None]


@register
@dataclass(frozen=True)
class Success(_Binary):
    """Success@k: 1 when a relevant document is in the top k, else 0.

    trec_eval ``success.k`` (``success_1``, ``success_5``, ``success_10`` by
    default); without ``@k`` the whole ranking.
    """

    name: ClassVar[str] = "Success"
    summary: ClassVar[str] = "1 if a relevant document is in the top k, else 0 (trec_eval success_k)"
    formula: ClassVar[str] = "[ |relevant in top k| > 0 ]"

    def compute(self, collection) -> np.ndarray:
        return self._relevant(collection, self.cutoff).any(axis=2).astype(np.float64)


@register
@dataclass(frozen=True)
class Judged(Measure):
    """Judged@k: the fraction of the top k ranks that hold a judged document.

    ir_measures' ``Judged@k`` (MacAvaney, Macdonald & Ounis, ECIR 2022; from
    OpenNIR), by default: ``|judged in top k| / min(k, n)`` with ``n`` the
    documents the run retrieved, so a run returning 5 documents, all judged,
    scores 1 at @10; a run lacking the topic scores 0.
    ``Judged(denominator=cutoff)@k`` divides by ``k`` instead (ranks past the
    run's end count as unjudged). Any grade, negative included, is a
    judgment. Not in trec_eval.

    Validated against ir_measures on TREC DL 2019 (all 37 runs, 43 topics).
    """

    name: ClassVar[str] = "Judged"
    summary: ClassVar[str] = ("Fraction of the top min(k, retrieved) ranks that are judged (ir_measures "
                              "Judged@k); denominator=cutoff divides by k")
    formula: ClassVar[str] = "|judged in top k| / min(k, n)   (denominator=cutoff: / k)"
    cutoff_required: ClassVar[bool] = True

    denominator: str = "retrieved"

    def _validate(self) -> None:
        if self.denominator not in ("retrieved", "cutoff"):
            raise MeasureError(
                f"Judged: denominator must be retrieved (ir_measures: min(k, n)) or cutoff (k), "
                f"got {self.denominator!r}"
            )

    def compute(self, collection) -> np.ndarray:
        judged = collection.judged_to(collection.stored(self.cutoff)).sum(axis=2).astype(np.float64)
        if self.denominator == "cutoff":
            return judged / self.cutoff
        n = np.minimum(collection.run_length, self.cutoff)
        return np.divide(judged, n, out=np.zeros_like(judged), where=n > 0)


@register
@dataclass(frozen=True)
class NumRet(Measure):
    """NumRet: documents retrieved, n (trec_eval ``num_ret``; at most the depth)."""

    name: ClassVar[str] = "NumRet"
    summary: ClassVar[str] = "Documents retrieved for the topic (trec_eval num_ret)"
    formula: ClassVar[str] = "n"
    cutoff_allowed: ClassVar[bool] = False

    def compute(self, collection) -> np.ndarray:
        return collection.run_length.astype(np.float64)


@register
@dataclass(frozen=True)
class NumRel(_Binary):
    """NumRel: judged relevant documents of the topic, R (trec_eval ``num_rel``).

    The same for every system; R = 0 is a count here, not an error.
    """

    name: ClassVar[str] = "NumRel"
    summary: ClassVar[str] = "Judged relevant documents of the topic (trec_eval num_rel)"
    formula: ClassVar[str] = "R"
    cutoff_allowed: ClassVar[bool] = False

    def compute(self, collection) -> np.ndarray:
        R = collection.num_relevant(self.rel).astype(np.float64)
        return np.broadcast_to(R, (collection.n_systems, collection.n_topics)).copy()


@register
@dataclass(frozen=True)
class NumRelRet(_Binary):
    """NumRelRet: relevant documents retrieved (trec_eval ``num_rel_ret``)."""

    name: ClassVar[str] = "NumRelRet"
    summary: ClassVar[str] = "Relevant documents retrieved (trec_eval num_rel_ret)"
    formula: ClassVar[str] = "|relevant retrieved|"
    cutoff_allowed: ClassVar[bool] = False

    def compute(self, collection) -> np.ndarray:
        return self._relevant(collection).sum(axis=2).astype(np.float64)


def _lround(x: np.ndarray) -> np.ndarray:
    """C's ``lround`` of non-negative ``x``: the nearest integer, halves away from zero."""
    low = np.floor(x)
    return low + (x - low >= 0.5)


#: trec_eval version -> recall level x R relevant documents -> the number of them ``c``
#: (``m_iprec_at_recall.c``, ``m_11pt_avg.c``): 10.0 rounds, 9 added 0.9 and truncated
_RECALL_CUTOFF = {
    10: _lround,
    9: lambda x: np.floor(x + 0.9),
}


def interpolated_precision(collection, rel: int, levels, version: int = 10) -> np.ndarray:
    """Interpolated precision ``[s, t, l]`` at each recall level (trec_eval ``iprec_at_recall``).

    With ``c`` relevant documents for level ``x`` (``_RECALL_CUTOFF``: ``lround(x R)`` in
    trec_eval 10, ``floor(x R + 0.9)`` in 9) and ``rank_j`` the rank of the j-th relevant
    document retrieved: ``max_{j >= max(c, 1)} j / rank_j``, 0 when fewer than ``c`` are
    retrieved. That is trec_eval's maximum of the precision at every rank from ``rank_c``
    on (a non-relevant rank never beats the relevant rank before it).
    """
    relevant = collection.grades_to(collection.stored()) >= rel
    hits = np.cumsum(relevant, axis=2)
    precision = hits / np.arange(1, relevant.shape[2] + 1)
    # best precision at a relevant rank at or below each rank
    best = np.maximum.accumulate(np.where(relevant, precision, 0.0)[:, :, ::-1], axis=2)[:, :, ::-1]
    R = collection.num_relevant(rel).astype(np.float64)
    need = np.maximum(_RECALL_CUTOFF[version](np.multiply.outer(R, np.asarray(levels, float))), 1)
    S, T, D = hits.shape
    # rank index of the c-th relevant document (D if fewer): one sorted search over all rows,
    # each row's counts lifted above the previous row's (counts are at most D)
    lift = np.arange(S * T).reshape(S, T, 1) * (D + 2)
    need = np.minimum(need, D + 1).astype(np.int64)[None] + lift  # (S, T, L)
    at = np.searchsorted((hits + lift).ravel(), need.ravel()).reshape(need.shape) - lift // (D + 2) * D
    padded = np.concatenate([best, np.zeros(best.shape[:2] + (1,))], axis=2)
    return np.take_along_axis(padded, at, axis=2)


@dataclass(frozen=True)
class _Interpolated(_Binary):
    cutoff_allowed: ClassVar[bool] = False

    trec_eval: int = 10  # the recall-level rounding: trec_eval 10 (default) or 9

    def _validate(self) -> None:
        super()._validate()
        if self.trec_eval not in _RECALL_CUTOFF:
            raise MeasureError(f"{self.name}: trec_eval must be 10 (its rounding of recall "
                               f"levels, the default) or 9, got {self.trec_eval!r}")

    def recall_levels(self) -> tuple[float, ...]:
        raise NotImplementedError

    def trec_eval_undefined(self, num_ret, num_rel) -> np.ndarray:
        """Where trec_eval's value is 0 / 0 (it prints ``-nan``), from each ranking's
        documents retrieved and the topic's relevant count ``R`` (broadcast together).

        ``m_iprec_at_recall.c`` and ``m_11pt_avg.c`` (10.0; 9 alike) start from
        ``precision = num_rel_ret / num_ret`` and give it to every level whose count of
        relevant documents (``lround(level R)``; 9: ``(long) (level R + 0.9)``) is not above
        those retrieved; a level needing more keeps its 0. With nothing retrieved, which
        only ``-J`` gives (it counts the judged documents kept; a topic the run lacks is
        one unjudged document under ``-c``), that precision is NaN and reaches every level
        needing 0 relevant documents: all of them when ``R = 0``; ``11pt_avg`` sums its
        levels, so one such level makes it NaN.
        """
        levels = np.asarray(self.recall_levels(), dtype=np.float64)
        R = np.asarray(num_rel, dtype=np.float64)
        need = _RECALL_CUTOFF[self.trec_eval](np.multiply.outer(R, levels))
        return (np.asarray(num_ret) == 0) & (need == 0).any(axis=-1)


@register
@dataclass(frozen=True)
class IPrec(_Interpolated):
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall``).

    With ``c`` relevant documents for the level (trec_eval 10: ``lround(recall * R)``;
    ``trec_eval=9``: ``floor(recall * R + 0.9)``, trec_eval 9's and pytrec_eval's rounding)
    and ``rank_j`` the rank of the j-th relevant document retrieved::

        IPrec = max_{j >= max(c, 1)} j / rank_j      (0 if fewer than c are retrieved)

    i.e. the highest precision at any rank at or below the one where the
    run reaches ``c`` relevant documents. ``IPrec(recall=0)`` is the highest
    precision anywhere. The 11-point curve is ``recall = 0, 0.1, ..., 1``
    (``-m iprec_at_recall``); ir_measures writes ``IPrec@0.5``.
    """

    name: ClassVar[str] = "IPrec"
    summary: ClassVar[str] = "Interpolated precision at a recall level (trec_eval iprec_at_recall)"
    formula: ClassVar[str] = "max_{j >= lround(recall R)} j / rank of the j-th relevant retrieved"

    recall: float = 0.0

    def _validate(self) -> None:
        super()._validate()
        self._check_number(self.name, "recall", self.recall, 0.0, 1.0)

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"recall": self.recall}  # the level defines the measure: always shown
        if self.rel != 1:
            out["rel"] = self.rel
        if self.trec_eval != 10:
            out["trec_eval"] = self.trec_eval
        return out

    def recall_levels(self) -> tuple[float, ...]:
        return (self.recall,)

    def compute(self, collection) -> np.ndarray:
        self._num_relevant(collection)  # warns of topics without relevant documents
        return interpolated_precision(collection, self.rel, [self.recall], self.trec_eval)[:, :, 0]


@dataclass(frozen=True)
class _Set(_Binary):
    cutoff_allowed: ClassVar[bool] = False

    def _counts(self, collection) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(relevant retrieved, retrieved, R)`` per system and topic."""
        rel_ret = self._relevant(collection).sum(axis=2)
        return rel_ret, collection.run_length, self._num_relevant(collection)


@register
@dataclass(frozen=True)
class SetP(_Set):
    """Set precision: relevant retrieved / retrieved (trec_eval ``set_P``)."""

    name: ClassVar[str] = "SetP"
    summary: ClassVar[str] = "Precision of the retrieved set (trec_eval set_P)"
    formula: ClassVar[str] = "|relevant retrieved| / n"

    def compute(self, collection) -> np.ndarray:
        rel_ret, n, _ = self._counts(collection)
        return self._divide(rel_ret, n)


@register
@dataclass(frozen=True)
class SetR(_Set):
    """Set recall: relevant retrieved / R (trec_eval ``set_recall``)."""

    name: ClassVar[str] = "SetR"
    summary: ClassVar[str] = "Recall of the retrieved set (trec_eval set_recall)"
    formula: ClassVar[str] = "|relevant retrieved| / R"

    def compute(self, collection) -> np.ndarray:
        rel_ret, _, R = self._counts(collection)
        return self._divide(rel_ret, R)


@register
@dataclass(frozen=True)
class SetAP(_Set):
    """Set AP (trec_eval ``set_map``, ir_measures ``SetAP``): SetP x SetR.

    ``|relevant retrieved|^2 / (n R)``: AP of an unranked set, each relevant
    retrieved document at the set's precision and each one missed at 0.
    """

    name: ClassVar[str] = "SetAP"
    summary: ClassVar[str] = "Set AP: set precision x set recall (trec_eval set_map)"
    formula: ClassVar[str] = "|relevant retrieved|^2 / (n R)"

    def compute(self, collection) -> np.ndarray:
        rel_ret, n, R = self._counts(collection)
        a = rel_ret.astype(np.float64)
        return self._divide(a * a, n * R.astype(np.float64)[None, :])


@register
@dataclass(frozen=True)
class SetRelP(_Set):
    """Relative set precision (trec_eval ``set_relative_P``): ``|relevant retrieved| / min(n, R)``."""

    name: ClassVar[str] = "SetRelP"
    summary: ClassVar[str] = "Set precision relative to the best possible: rel. retrieved / min(n, R) (trec_eval set_relative_P)"
    formula: ClassVar[str] = "|relevant retrieved| / min(n, R)"

    def compute(self, collection) -> np.ndarray:
        rel_ret, n, R = self._counts(collection)
        return self._divide(rel_ret, np.minimum(n, R[None, :]))


@register
@dataclass(frozen=True)
class NumNonrelJudgedRet(_Set):
    """Judged non-relevant documents retrieved (trec_eval ``num_nonrel_judged_ret``).

    Retrieved documents judged with a grade in ``[0, rel)``; negative grades count as
    unjudged, as in trec_eval.
    """

    name: ClassVar[str] = "NumNonrelJudgedRet"
    summary: ClassVar[str] = "Judged non-relevant documents retrieved (trec_eval num_nonrel_judged_ret)"
    formula: ClassVar[str] = "|retrieved with 0 <= grade < rel|"

    def compute(self, collection) -> np.ndarray:
        D = collection.stored()
        grades = collection.grades_to(D)
        nonrel = collection.judged_to(D) & (grades >= 0) & (grades < self.rel)
        return (nonrel & _retrieved(collection, D)).sum(axis=2).astype(np.float64)


@register
@dataclass(frozen=True)
class SetF(_Set):
    """Set F-measure as trec_eval's ``set_F`` and ir_measures' ``SetF`` (beta = 1 by default).

    ``(1 + beta) P R / (beta P + R)`` with ``P`` = SetP, ``R`` = SetR; 0 when no
    relevant document is retrieved. trec_eval's parameter (``set_F.0.5``) is this
    ``beta``: van Rijsbergen's ``F_b`` (Information Retrieval, Butterworths, 1979)
    with ``b^2 = beta``, so ``SetF(beta=0.5)`` equals trec_eval 10's and pytrec_eval's
    ``set_F.0.5``.
    """

    name: ClassVar[str] = "SetF"
    summary: ClassVar[str] = "F-measure of set precision and recall (trec_eval set_F)"
    formula: ClassVar[str] = "(1 + beta) P R / (beta P + R)"

    beta: float = 1.0

    def _validate(self) -> None:
        super()._validate()
        self._check_number(self.name, "beta", self.beta, 0.0, np.inf, lo_open=True)

    def compute(self, collection) -> np.ndarray:
        rel_ret, n, R = self._counts(collection)
        p, r = self._divide(rel_ret, n), self._divide(rel_ret, R)
        x = self.beta
        return self._divide((x + 1.0) * p * r, x * p + r)  # trec_eval's order of operations


@register
@dataclass(frozen=True)
class InfAP(_Binary):
    """Inferred AP (Yilmaz & Aslam, CIKM 2006), exactly as trec_eval's ``infAP``.

    Documents absent from the qrels are outside the judged sample and skipped.
    A judgment with a negative grade (-1, -2, any grade below 0) marks a
    document that was pooled but not judged, as trec_eval 9 and 10 take it
    (their ``form_res_rels`` gives such a document ``RELVALUE_UNJUDGED``;
    pytrec_eval agrees for -1, -2, -3 and -5); a grade of 0 is judged
    non-relevant. For the
    relevant document at 0-based rank ``j`` with, above it, ``a`` relevant,
    ``b`` judged non-relevant and ``u`` pooled-unjudged documents::

        term_j = 1/(j+1) + (a + b + u)/(j+1) * (a + eps)/(a + b + 2 eps),  eps = 1e-5

    and ``infAP = sum_j term_j / R``. With complete judgments (every retrieved
    document judged with a grade >= 0) it equals AP. Validated against
    pytrec_eval on DL-2019 with some grades rewritten to -1 and -2.
    """

    name: ClassVar[str] = "infAP"
    summary: ClassVar[str] = "Inferred AP for sampled judgments (Yilmaz & Aslam 2006; trec_eval infAP)"
    formula: ClassVar[str] = "(1/R) sum_{rel j} 1/(j+1) + (a+b+u)/(j+1) (a+eps)/(a+b+2eps)"
    cutoff_allowed: ClassVar[bool] = False

    def compute(self, collection) -> np.ndarray:
        grades, judged = collection.grades, collection.judged
        inside = _retrieved(collection)
        unjudged = judged & (grades < 0) & inside  # pooled, not judged (trec_eval: any grade < 0)
        sampled = judged & ~unjudged & inside
        rel = sampled & (grades >= self.rel)
        nonrel = sampled & (grades >= 0) & (grades < self.rel)

        def above(mask):
            return np.cumsum(mask, axis=2) - mask

        a, b, u = above(rel), above(nonrel), above(unjudged)
        j1 = np.arange(1, grades.shape[2] + 1)
        eps = _INFAP_EPSILON
        term = 1.0 / j1 + (a + b + u) / j1 * (a + eps) / (a + b + 2 * eps)
        total = np.where(rel, term, 0.0).sum(axis=2)
        return self._divide(total, self._num_relevant(collection))
