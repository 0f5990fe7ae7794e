"""trec_eval's graded measures besides nDCG: G, nDCG-rel, RnDCG and binary G.

trec_eval (``m_G.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``, ``m_binG.c``, with
``gain_init.c``) defines these experimental measures of Buckley's. A ranked
document gains ``gain(grade)`` when it is judged with a grade >= 0 (trec_eval's
``rel_level=gain`` pairs are ``gain=levels(g1=...)``; by default a grade gains
itself) and 0 when it is not in the qrels or has a negative grade. The ideal list
of a topic holds the gains of its judged documents in decreasing order; only its
positive part matters. With ``d(i) = 1 / log2(i + 1)`` at rank ``i``:

``G``
    ``sum_i g_i / log2(2 + C_i - S_i)  /  sum of the positive ideal gains``, where
    ``S_i`` is the run's cumulative gain to rank ``i`` and ``C_i`` the cumulative
    cost of the ideal list, each ideal gain counting ``max(gain, 1)`` (past the list,
    1): a document is rewarded more when the documents above it already have most
    of the gain they could have.
``nDCG-rel``
    ``nDCG@i`` averaged over the ideal list's positive positions: at the rank of each
    retrieved document of positive gain, and, for each such document not retrieved,
    the nDCG at the run's end.
``RnDCG``
    ``nDCG@b`` averaged over the "R levels" ``b`` where the ideal gain changes value
    (after the last position of each gain, the last one where it drops to 0 or below),
    plus ``nDCG`` at the run's end when the run is longer than the positive ideal list
    by more than one document. 0 when the topic has no document of grade >= ``rel``.
``BinG``
    ``(1/R) sum_{relevant at rank i} 1 / log2(2 + non-relevant above i)``.

Sums run in trec_eval's order (cumulative sums along the ranks), so the values equal
its doubles, not just its printed digits. trec_eval sorts the gain levels with a
comparator that truncates gain differences to integers, so gains closer than 1 may be
ordered otherwise there (and its ideal list then is not sorted); here they are sorted
exactly. Validated against trec_eval 10.0's output on TREC DL 2019.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .base import Measure, register
from .binary import _Binary
from .gains import Gain

__all__ = ["G", "nDCGRel", "RnDCG", "BinG", "powers", "retrieved_unjudged", "rank_gains",
           "rbp_gains", "ideal_positive"]


def powers(p: float, n: int) -> np.ndarray:
    """``p**0 .. p**n`` as trec_eval forms them: repeated products (``cur_p *= p``)."""
    return np.cumprod(np.r_[1.0, np.full(n, p)])


def retrieved_unjudged(collection, n: int) -> np.ndarray:
    """``[s, t, r]``: the document at rank r is unjudged in trec_eval's sense (not in the
    qrels, or of negative grade); also true past the run's end (mask with its length)."""
    return ~collection.judged_to(n) | (collection.grades_to(n) < 0)


def rank_gains(collection, table: np.ndarray, n: int) -> np.ndarray:
    """Gain of the document at each of the first ``n`` ranks: ``table[grade]`` (or
    ``table[t, grade]`` per topic) for judged grades >= 0, else 0."""
    grades = collection.grades_to(n)
    ok = collection.judged_to(n) & (grades >= 0)
    index = np.clip(grades, 0, None).astype(np.intp)
    if table.ndim == 1:
        values = table[index]
    else:
        values = table[np.arange(table.shape[0])[None, :, None], index]
    return np.where(ok, values, 0.0)


def _top_grade(collection) -> np.ndarray:
    """Each topic's highest grade with a judged document (trec_eval's ``num_rel_levels - 1``)."""
    present = collection.grade_counts > 0
    return np.where(present, np.arange(present.shape[1]), 0).max(axis=1)


def rbp_gains(collection, gain: Gain) -> np.ndarray:
    """``[t, grade]``: trec_eval's ``rbp`` gains, rescaled per topic into [0, 1] (see RBP)."""
    vec = gain.vector(collection.max_grade)
    listed = np.array([v for _, v in gain.levels])
    in_list = np.arange(vec.size)[None, :] <= _top_grade(collection)[:, None]
    lo = np.where(in_list, vec, np.inf).min(axis=1)
    hi = np.where(in_list, vec, -np.inf).max(axis=1)
    if listed.size:
        lo, hi = np.minimum(lo, listed.min()), np.maximum(hi, listed.max())
    rescale = ((lo < 0) | (hi > 1))[:, None]
    span = (hi - lo)[:, None]
    scaled = np.divide(vec[None, :] - lo[:, None], span, out=np.zeros((lo.size, vec.size)),
                       where=span > 0)
    return np.where(rescale, scaled, vec[None, :])


def ideal_positive(collection, vec: np.ndarray) -> np.ndarray:
    """``[t, j]``: each topic's positive judged gains in decreasing order, padded with 0."""
    order = np.argsort(-vec, kind="stable")
    pos = order[vec[order] > 0]
    cum = np.cumsum(collection.grade_counts[:, pos], axis=1)  # (T, P)
    J = int(cum[:, -1].max()) if pos.size else 0
    k = (np.arange(J)[None, :, None] >= cum[:, None, :]).sum(axis=2)  # index into pos, P past it
    return np.r_[vec[pos], 0.0][k]


def _discounted(values: np.ndarray) -> np.ndarray:
    """Cumulative ``values_i / log2(i + 2)`` along the last axis, zero terms skipped as
    trec_eval skips them (adding 0.0 changes no sum)."""
    d = np.log2(np.arange(values.shape[-1]) + 2.0)
    return np.cumsum(np.where(values != 0, values / d, 0.0), axis=-1)


@dataclass(frozen=True)
class _Graded(Measure):
    cutoff_allowed: ClassVar[bool] = False

    gain: Gain = field(default_factory=Gain)

    def _validate(self) -> None:
        if not isinstance(self.gain, Gain):
            object.__setattr__(self, "gain", Gain.of(self.gain))

    def params(self) -> dict[str, Any]:
        out = super().params()
        if self.gain == Gain():
            out.pop("gain", None)
        return out

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        return Gain.of(value) if key == "gain" else super()._coerce(key, value)

    def _arrays(self, collection, extra: int = 0):
        """Run gains ``[s, t, i]`` and ideal gains ``[t, i]`` on ``K`` common positions
        (the deeper of the two lists, plus ``extra``), padded with 0."""
        vec = self.gain.vector(collection.max_grade)
        ideal = ideal_positive(collection, vec)
        D = collection.stored()
        K = max(D, ideal.shape[1]) + extra
        run = rank_gains(collection, vec, D)
        run = np.concatenate([run, np.zeros(run.shape[:2] + (K - D,))], axis=2)
        ideal = np.concatenate([ideal, np.zeros((ideal.shape[0], K - ideal.shape[1]))], axis=1)
        return run, ideal


@register
@dataclass(frozen=True)
class G(_Graded):
    """trec_eval's normalised gain ``G`` (Buckley, 2008); see the module docstring."""

    name: ClassVar[str] = "G"
    summary: ClassVar[str] = "trec_eval's G: gain / log2(2 + ideal cost so far - gain so far), normalised"
    formula: ClassVar[str] = "sum_i g_i / log2(2 + sum_{j<=i} max(ideal_j, 1) - sum_{j<=i} g_j) / sum ideal"

    def compute(self, collection) -> np.ndarray:
        run, ideal = self._arrays(collection)
        cost = np.cumsum(np.maximum(ideal, 1.0), axis=1)[None]
        gained = np.cumsum(run, axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):  # only where g_i = 0, masked
            terms = np.where(run != 0, run / np.log2(2 + cost - gained), 0.0)
        total = np.cumsum(terms, axis=2)[:, :, -1]
        best = np.cumsum(ideal, axis=1)[:, -1]
        return np.divide(total, best, out=np.zeros_like(total), where=best > 0)


@register
@dataclass(frozen=True)
class nDCGRel(_Graded):  # noqa: N801 - the measure's name
    """trec_eval's ``ndcg_rel``: nDCG averaged over the relevant documents (module docstring)."""

    name: ClassVar[str] = "nDCG-rel"
    summary: ClassVar[str] = "trec_eval's ndcg_rel: nDCG at each relevant document, averaged"
    formula: ClassVar[str] = "(1/Rg) [sum_{g_i>0} nDCG@i + (Rg - retrieved with g>0) nDCG]"

    def compute(self, collection) -> np.ndarray:
        run, ideal = self._arrays(collection)
        dcg, idcg = _discounted(run), _discounted(ideal)[None]
        positive = run > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            at_rel = np.where(positive, dcg / idcg, 0.0)
            n_pos = (ideal > 0).sum(axis=1)[None].astype(np.float64)
            missed = (n_pos - positive.sum(axis=2)) * dcg[:, :, -1] / idcg[:, :, -1]
        total = np.cumsum(at_rel, axis=2)[:, :, -1] + np.where(n_pos > 0, missed, 0.0)
        return np.divide(total, n_pos, out=np.zeros_like(total), where=total > 0)


@register
@dataclass(frozen=True)
class RnDCG(_Graded, _Binary):
    """trec_eval's ``Rndcg``: nDCG averaged at the R levels (module docstring)."""

    name: ClassVar[str] = "RnDCG"
    summary: ClassVar[str] = "trec_eval's Rndcg: nDCG at each change of the ideal gain, averaged"
    formula: ClassVar[str] = "mean of nDCG@b over the ranks b where the ideal gain changes"

    def _validate(self) -> None:
        _Binary._validate(self)
        _Graded._validate(self)

    def compute(self, collection) -> np.ndarray:
        run, ideal = self._arrays(collection, extra=1)
        dcg = np.concatenate([np.zeros(run.shape[:2] + (1,)), _discounted(run)], axis=2)
        idcg = np.r_["1", np.zeros((ideal.shape[0], 1)), _discounted(ideal)]  # @0 .. @K
        n_pos = (ideal > 0).sum(axis=1)
        b = np.arange(1, ideal.shape[1])  # position i where ideal[i] != ideal[i - 1]
        change = (ideal[:, 1:] != ideal[:, :-1]) & (b[None, :] <= n_pos[:, None])
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(change[None] & (idcg[None, :, 1:-1] > 0),
                             dcg[:, :, 1:-1] / idcg[None, :, 1:-1], 0.0)
            n = collection.run_length
            # trec_eval scores the run's end only when it passes the ideal list by 2 or more
            tail = (n > n_pos[None, :] + 1) & (idcg[None, :, -1] > 0)
            end = np.take_along_axis(dcg, n[:, :, None], axis=2)[:, :, 0] / idcg[None, :, -1]
        total = np.cumsum(terms, axis=2)[:, :, -1] + np.where(tail, end, 0.0)
        count = (change[None] & (idcg[None, :, 1:-1] > 0)).sum(axis=2) + tail
        out = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
        return np.where(self._num_relevant(collection)[None, :] > 0, out, 0.0)


@register
@dataclass(frozen=True)
class BinG(_Binary):
    """trec_eval's ``binG``: ``(1/R) sum_{relevant at rank i} 1 / log2(2 + non-relevant above)``."""

    name: ClassVar[str] = "BinG"
    summary: ClassVar[str] = "trec_eval's binG: binary G, 1/log2(2 + non-relevant above) per relevant"
    formula: ClassVar[str] = "(1/R) sum_{relevant i} 1 / log2(2 + |non-relevant above i|)"
    cutoff_allowed: ClassVar[bool] = False

    def compute(self, collection) -> np.ndarray:
        rel = self._relevant(collection)
        nonrel_above = np.arange(rel.shape[2]) + 1 - np.cumsum(rel, axis=2)  # 3 + i - rel_so_far - 1
        terms = np.where(rel, 1.0 / np.log2(2.0 + nonrel_above), 0.0)
        return self._divide(np.cumsum(terms, axis=2)[:, :, -1], self._num_relevant(collection))
