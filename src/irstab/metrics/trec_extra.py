"""trec_eval's remaining per-topic measures: 11-point average, relative precision, unjudged
fraction, utility and the relevance string.

Definitions of trec_eval 10.0 (``m_11pt_avg.c``, ``m_rel_P.c``, ``m_unjudged.c``,
``m_utility.c``, ``m_relstring.c``). Relevance is binary at ``rel`` (trec_eval ``-l``);
``R`` is the topic's number of documents of grade >= ``rel``, ``n`` the number the run
retrieved (0 when it lacks the topic). "Unjudged" is trec_eval's: not in the qrels, or
judged with a negative grade. Validated against trec_eval 10.0's output on TREC DL 2019.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import MeasureError
from .base import Aggregate, Measure, register
from .binary import _Binary
from .trec import _Interpolated, interpolated_precision
from .trec_gain import retrieved_unjudged

__all__ = ["IPrecAvg", "RelP", "Unjudged", "Utility", "RelString"]

ELEVEN_POINTS = tuple(i / 10 for i in range(11))


@register
@dataclass(frozen=True)
class IPrecAvg(_Interpolated):
    """Interpolated precision averaged over recall levels (trec_eval ``11pt_avg``).

    The mean of :class:`~irstab.metrics.IPrec` over ``levels`` (default the 11 points
    0, 0.1, ..., 1), summed from the highest level down as trec_eval sums them;
    ``trec_eval=9`` takes trec_eval 9's rounding of the levels. An obsolete summary of
    the recall-precision curve (Buckley & Voorhees, in TREC: Experiment and Evaluation
    in Information Retrieval, MIT Press, 2005).
    """

    name: ClassVar[str] = "IPrecAvg"
    summary: ClassVar[str] = "Interpolated precision averaged over recall levels (trec_eval 11pt_avg)"
    formula: ClassVar[str] = "(1/L) sum_l IPrec(recall=l)"

    levels: tuple = ELEVEN_POINTS

    def _validate(self) -> None:
        super()._validate()
        try:
            levels = tuple(float(x) for x in self.levels)
        except (TypeError, ValueError):
            raise MeasureError(f"IPrecAvg: levels must be a tuple of recall levels, "
                               f"got {self.levels!r}") from None
        if not levels or not all(0.0 <= x <= 1.0 for x in levels):
            raise MeasureError(f"IPrecAvg: levels must be recall levels in [0, 1], got {self.levels!r}")
        object.__setattr__(self, "levels", levels)

    def recall_levels(self) -> tuple[float, ...]:
        return self.levels

    def compute(self, collection) -> np.ndarray:
        self._num_relevant(collection)  # warns of topics without relevant documents
        at = interpolated_precision(collection, self.rel, self.levels, self.trec_eval)
        return np.cumsum(at[:, :, ::-1], axis=2)[:, :, -1] / len(self.levels)


@register
@dataclass(frozen=True)
class RelP(_Binary):
    """Relative precision at k (trec_eval ``relative_P``): ``|relevant in top k| / min(k, R)``.

    Precision while ``k <= R``, recall after; 0 when ``R = 0``. Ranks past the run's
    end count as non-relevant.
    """

    name: ClassVar[str] = "RelP"
    summary: ClassVar[str] = "Relative precision at k: relevant in top k / min(k, R) (trec_eval relative_P)"
    formula: ClassVar[str] = "|relevant in top k| / min(k, R)"
    cutoff_required: ClassVar[bool] = True

    def compute(self, collection) -> np.ndarray:
        hits = self._relevant(collection, self.cutoff).sum(axis=2)
        R = self._num_relevant(collection)
        return self._divide(hits, np.minimum(R, self.cutoff))


@register
@dataclass(frozen=True)
class Unjudged(Measure):
    """Unjudged fraction at k (trec_eval ``unj``, 10.0): ``|unjudged in top k| / k``.

    Unjudged: not in the qrels, or of negative grade; ranks past the run's end count
    as judged. A "red flag" for a run the judgments cover poorly.
    """

    name: ClassVar[str] = "Unjudged"
    summary: ClassVar[str] = "Fraction of the top k that is unjudged, ranks past the run's end judged (trec_eval unj)"
    formula: ClassVar[str] = "|unjudged in top min(k, n)| / k"
    cutoff_required: ClassVar[bool] = True

    def compute(self, collection) -> np.ndarray:
        k = collection.stored(self.cutoff)
        inside = np.arange(k) < np.minimum(collection.run_length, self.cutoff)[:, :, None]
        return (retrieved_unjudged(collection, k) & inside).sum(axis=2) / self.cutoff


@register
@dataclass(frozen=True)
class Utility(_Binary):
    """Set utility (trec_eval ``utility``): ``a TP + b FP + c FN + d TN``.

    From the contingency table of the retrieved set: ``TP`` relevant retrieved, ``FP``
    non-relevant retrieved, ``FN`` relevant not retrieved, ``TN = docs - TP - FP - FN``
    with ``docs`` the collection's size (trec_eval ``-N``, default 0 as there). A topic
    the run lacks scores 0, as in trec_eval ``-c``. Default ``a=1, b=-1, c=0, d=0``.
    """

    name: ClassVar[str] = "Utility"
    summary: ClassVar[str] = "Set utility a TP + b FP + c FN + d TN (trec_eval utility)"
    formula: ClassVar[str] = "a TP + b FP + c FN + d (docs - TP - FP - FN)"
    cutoff_allowed: ClassVar[bool] = False

    a: float = 1.0
    b: float = -1.0
    c: float = 0.0
    d: float = 0.0
    docs: int = 0

    def _validate(self) -> None:
        super()._validate()
        for key in "abcd":
            self._check_number(self.name, key, getattr(self, key), -np.inf, np.inf,
                               lo_open=True, hi_open=True)
        self._check_number(self.name, "docs", self.docs, 0, np.inf, hi_open=True)

    def compute(self, collection) -> np.ndarray:
        tp = self._relevant(collection).sum(axis=2).astype(np.float64)
        n = collection.run_length.astype(np.float64)
        R = self._num_relevant(collection).astype(np.float64)[None, :]
        value = (self.a * tp + self.b * (n - tp) + self.c * (R - tp)
                 + self.d * (self.docs + tp - n - R))  # trec_eval's order of operations
        return np.where(collection.run_length > 0, value, 0.0)


_DIGITS = "0123456789>-.<"  # trec_eval's characters: grade 0-9, above 9, not pooled, unjudged
_MAX_LENGTH = 13  # 16**13 = 2**52: every code is an exact double


@register
@dataclass(frozen=True)
class RelString(Measure):
    """The judgments of the first ``length`` documents as a string (trec_eval ``relstring``).

    One character per rank: the grade if 0-9, ``>`` above 9, ``-`` not in the qrels,
    ``.`` judged with a negative grade (trec_eval's pooled but unjudged). A string, not
    a score: ``compute`` packs each string into a float (one base-16 digit per
    character, so at most 13 characters), :meth:`decode` unpacks it; ``evaluate -f
    trec`` prints the strings, the other layouts leave the measure out. It has no
    summary over topics.
    """

    name: ClassVar[str] = "RelString"
    summary: ClassVar[str] = "The first `length` judgments as a string (trec_eval relstring; -f trec only)"
    formula: ClassVar[str] = "grade of each of the first `length` documents, - if unjudged"
    cutoff_allowed: ClassVar[bool] = False
    aggregate: ClassVar[Aggregate] = Aggregate.NONE

    length: int = 10

    def _validate(self) -> None:
        self._check_number(self.name, "length", self.length, 0, _MAX_LENGTH)

    def params(self) -> dict[str, Any]:
        return {"length": self.length} if self.length != 10 else {}

    def compute(self, collection) -> np.ndarray:
        L = max(collection.stored(self.length), 1)
        grades, judged = collection.grades_to(L).astype(np.int64), collection.judged_to(L)
        code = np.where(~judged, 11, np.where(grades < 0, 12, np.minimum(grades, 10)))
        shown = np.minimum(collection.run_length, self.length)[:, :, None]
        r = np.arange(L)
        weight = np.where(r < shown, 16.0 ** np.maximum(shown - 1 - r, 0), 0.0)
        return 16.0 ** shown[:, :, 0] + ((code + 1) * weight).sum(axis=2)  # leading 1: the length

    @staticmethod
    def decode(value: float) -> str:
        """The string ``compute`` packed into ``value``."""
        digits = []
        code = int(value)
        while code >= 16:
            code, d = divmod(code, 16)
            digits.append(_DIGITS[d - 1])
        return "".join(reversed(digits))
