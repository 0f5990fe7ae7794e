"""Upper & lower bound (UL) normalisation: DCG_UL and SP_UL (Karmaker & Feng, 2022).

The lower bound of a measure ``A@k`` on a topic is its expected value
``RLB = E[A@k]`` under a uniformly random ranking of the topic's candidate
documents; the upper bound ``IUB`` is its value on the ideal ranking of the
same candidates (Karmaker & Feng 2022). Two normalisations (Karmaker & Feng 2022, eq. 5, 6)::

    V1 = (A / IUB) * (A / (A + RLB))                         in [0, 1]
    V2 = (A - RLB) / (IUB - RLB)   if A >= RLB               in [-1, 1]
       = (A - RLB) / RLB           otherwise                 (0 = random)

Candidates
----------
``candidates=judged`` (default): the topic's judged documents, as in the
paper's learning-to-rank setting where every candidate is labelled.
``candidates=retrieved``: the documents the run retrieved for the topic (up to
the collection depth; unjudged ones are non-relevant), so the bounds are per
run and topic. A run lacking the topic then has no candidates and scores 0.

Exact expectations
------------------
Draw a uniformly random ordering of ``n`` candidates, ``n_p`` of them relevant
(grade >= rel), mean gain ``mu``; ``m = min(k, n)`` ranks are filled.

* ``E[DCG@k] = mu * sum_{i<=m} d_i``: every filled rank holds a uniformly
  drawn candidate, and ranks past ``n`` hold nothing. The paper's eq. 7
  (``expectation=paper``) sums to ``k`` and so overstates the bound when
  ``n < k``; the two agree when ``n >= k``.
* ``E[SP@k] = sum_{i<=m} E[R_i C_i] / i = a H_m + b (m - H_m)`` with
  ``a = n_p / n``, ``b = n_p (n_p - 1) / (n (n - 1))`` (0 if n = 1) and
  ``H_m = 1 + 1/2 + ... + 1/m``: ``E[R_i C_i] = P(R_i) + sum_{l<i} P(R_l R_i)``,
  drawing without replacement.

The paper's ``E[SP@k] = k (n_p / n)^2`` (``expectation=paper``) multiplies
``E[Prec(i)]`` by ``E[R_i]`` as if they were independent; they are not
(a relevant document at rank i raises the precision there). Worked number:
one relevant and one non-relevant candidate, ``k = 2``: the orderings
``[R, N]`` and ``[N, R]`` have SP = 1 and 1/2, so ``E[SP@2] = 0.75``; the
paper's formula gives ``2 (1/2)^2 = 0.5``. The paper formula is also used
literally when ``k > n``.

Upper bounds
------------
DCG: the DCG@k of the candidates in decreasing gain (for judged candidates,
nDCG's IDCG@k). SP: ``iub=ideal`` (default) ``min(n_p, k)``, the SP@k of the
ideal ranking; ``iub=k`` the paper's bound (it normalises AP@k = SP@k / k).

Conventions: gains as :class:`~irstab.metrics.nDCG` (grades <= 0 gain 0);
default gain ``exp`` and discount ``log2`` as in the paper. Where the bounds
leave the normalisation undefined (IUB = 0; IUB <= RLB <= A, possible with no
spread in the candidates or with ``expectation=paper``), the score is 0 with
an :class:`~irstab.errors.IRStabWarning`.

References
----------
S. K. Karmaker ("Santu"), D. Feng. Joint upper & lower bound normalization
for IR evaluation. Preprint, September 2022.

Validated against the average over all permutations of up to 8 candidates
and a seeded Monte Carlo average on TREC DL 2019 (tests/metrics/test_expected.py).
"""

from __future__ import annotations

import warnings
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from ..errors import IRStabWarning, MeasureError
from .base import Measure, register
from .dcg import gain_matrix, ideal_dcg
from .dcg import scale_free as _scale_free_vectors
from .gains import Discount, Gain, GainKind

__all__ = [
    "DCG_UL", "SP_UL", "Candidates", "Expectation", "UpperBound",
    "expected_dcg", "expected_sp", "sum_of_precision", "ul_normalise",
]


class _Choice(str, Enum):
    """A named option of a measure; prints as its value."""

    def __str__(self) -> str:
        return self.value

    def canonical(self) -> str:
        return self.value

    @classmethod
    def of(cls, value: Any, owner: str, key: str) -> _Choice:
        try:
            return cls(value)
        except ValueError:
            allowed = "|".join(m.value for m in cls)
            raise MeasureError(f"{owner}: {key} must be {allowed}, got {value!r}") from None


class Candidates(_Choice):
    JUDGED = "judged"
    RETRIEVED = "retrieved"


class Expectation(_Choice):
    EXACT = "exact"
    PAPER = "paper"


class UpperBound(_Choice):
    IDEAL = "ideal"
    K = "k"


# ------------------------------------------------------------------ kernels


def expected_dcg(mean_gain, n, discount: np.ndarray, k: int, expectation: str = "exact") -> np.ndarray:
    """E[DCG@k] of a uniformly random ranking of ``n`` candidates with mean gain ``mean_gain``.

    Parameters
    ----------
    mean_gain, n : array_like
        Mean gain of the candidates and their number (broadcast together).
    discount : ndarray
        Discount weights of ranks 1..k (at least k values).
    k : int
        Cutoff.
    expectation : {"exact", "paper"}
        ``exact``: ``mu * sum_{i <= min(k, n)} d_i``; ``paper``: the paper's
        eq. 7, ``mu * sum_{i <= k} d_i``.

    Examples
    --------
    Two candidates of grades 0 and 1, exp gain, log2 discount, k = 3: the
    third rank stays empty.

    >>> import numpy as np
    >>> d = 1 / np.log2(np.arange(2, 5))
    >>> round(float(expected_dcg(0.5, 2, d, 3)), 6)  # 0.5 * (1 + 1/log2(3))
    0.815465
    >>> round(float(expected_dcg(0.5, 2, d, 3, "paper")), 6)  # + 0.5 * 1/log2(4)
    1.065465
    """
    expectation = Expectation.of(expectation, "expected_dcg", "expectation")
    cum = np.concatenate([[0.0], np.cumsum(np.asarray(discount, dtype=np.float64)[:k])])
    n = np.asarray(n, dtype=np.int64)
    m = np.full_like(n, k) if expectation is Expectation.PAPER else np.minimum(n, k)
    return np.asarray(mean_gain, dtype=np.float64) * cum[m]


def expected_sp(n_rel, n, k: int, expectation: str = "exact") -> np.ndarray:
    """E[SP@k] of a uniformly random ranking of ``n`` candidates, ``n_rel`` relevant.

    ``SP@k = sum_{i<=k} Prec(i) R_i`` (Karmaker & Feng 2022, eq. 4). ``exact``:
    ``a H_m + b (m - H_m)``, ``m = min(k, n)``; ``paper``: ``k (n_rel/n)^2``.
    Zero candidates give 0.

    Examples
    --------
    >>> float(expected_sp(1, 2, 2)), float(expected_sp(1, 2, 2, "paper"))
    (0.75, 0.5)
    """
    expectation = Expectation.of(expectation, "expected_sp", "expectation")
    n_rel = np.asarray(n_rel, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    a = np.divide(n_rel, n, out=np.zeros(np.broadcast(n_rel, n).shape), where=n > 0)
    if expectation is Expectation.PAPER:
        return k * a**2
    b = np.divide(n_rel * (n_rel - 1), n * (n - 1), out=np.zeros_like(a), where=n > 1)
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, k + 1))])
    m = np.minimum(n, k).astype(np.int64)
    H = harmonic[m]
    return a * H + b * (m - H)


def sum_of_precision(relevant: np.ndarray) -> np.ndarray:
    """SP over the last axis: ``sum_i Prec(i) R_i`` (AP's numerator; Karmaker & Feng 2022, eq. 4)."""
    ranks = np.arange(1, relevant.shape[-1] + 1)
    count = np.cumsum(relevant, axis=-1, dtype=np.int32)
    return np.where(relevant, count / ranks, 0.0).sum(axis=-1)


def ul_normalise(a: np.ndarray, rlb: np.ndarray, iub: np.ndarray, version: int) -> tuple[np.ndarray, np.ndarray]:
    """``(score, undefined)``: Karmaker & Feng 2022, eq. 5 (version 1) or eq. 6 (version 2); undefined cells are 0."""
    a, rlb, iub = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (a, rlb, iub)))
    zero = np.zeros_like(a)
    if version == 1:
        den = iub * (a + rlb)
        undefined = iub <= 0
        return np.divide(a * a, den, out=zero, where=den > 0), undefined
    above = a >= rlb
    spread = iub - rlb
    undefined = above & (spread <= 0)
    v_above = np.divide(a - rlb, spread, out=zero.copy(), where=spread > 0)
    v_below = np.divide(a - rlb, rlb, out=zero.copy(), where=rlb > 0)
    return np.where(above, v_above, v_below), undefined


# ----------------------------------------------------------------- measures


@dataclass(frozen=True)
class _UL(Measure):
    cutoff_required: ClassVar[bool] = True

    def params(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):
            if f.name == "cutoff":
                continue
            default = f.default if f.default is not MISSING else f.default_factory()
            value = getattr(self, f.name)
            if value != default:
                out[f.name] = value
        return out

    def _check_common(self) -> None:
        if isinstance(self.version, bool) or self.version not in (1, 2):
            raise MeasureError(f"{self.name}: version must be 1 (Karmaker & Feng 2022, eq. 5) or 2 (eq. 6), got {self.version!r}")
        object.__setattr__(self, "candidates", Candidates.of(self.candidates, self.name, "candidates"))
        object.__setattr__(self, "expectation", Expectation.of(self.expectation, self.name, "expectation"))

    def _warn_undefined(self, collection, undefined: np.ndarray) -> None:
        if undefined.any():
            pairs = int(undefined.sum())
            topics = [collection.topics[i] for i in np.flatnonzero(undefined.any(axis=0))]
            warnings.warn(
                f"{self}: the bounds leave the normalisation undefined (IUB = 0, or IUB <= RLB <= A) "
                f"on {pairs} run/topic pair(s), scored 0; topics {topics[:10]}",
                IRStabWarning,
                stacklevel=3,
            )

    def _candidate_counts(self, collection) -> np.ndarray:
        if self.candidates is Candidates.JUDGED:
            return collection.grade_counts.sum(axis=1)[None, :]
        return collection.run_length


@register
@dataclass(frozen=True)
class DCG_UL(_UL):  # noqa: N801 - the paper's name
    """DCG with joint upper & lower bound normalisation (Karmaker & Feng, 2022, eq. 5-7); see the module docstring.

    ``A = DCG@k`` with the same kernel as :class:`~irstab.metrics.nDCG`,
    ``IUB`` = DCG@k of the ideal ranking of the candidates, ``RLB = E[DCG@k]``.
    """

    name: ClassVar[str] = "DCG_UL"
    summary: ClassVar[str] = "DCG@k normalised by the ideal (IUB) and a random ranking of the candidates (RLB); Karmaker & Feng 2022"
    formula: ClassVar[str] = "V1 = (A/IUB)(A/(A+RLB)); V2 = (A-RLB)/(IUB-RLB) if A >= RLB else (A-RLB)/RLB; A = DCG@k, RLB = E[DCG@k]"

    version: int = 1
    gain: Gain = field(default_factory=lambda: Gain(GainKind.EXP))
    discount: Discount = field(default_factory=Discount)
    candidates: Candidates = Candidates.JUDGED
    expectation: Expectation = Expectation.EXACT

    def _validate(self) -> None:
        self._check_common()
        object.__setattr__(self, "gain", Gain.of(self.gain))
        object.__setattr__(self, "discount", Discount.of(self.discount))
        L = self.discount.length
        if L is not None and L != self.cutoff:
            raise MeasureError(
                f"{self.name}: discount has {L} weights but the cutoff is @{self.cutoff}; give "
                "one weight per rank"
            )

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        if key == "gain":
            return Gain.of(value)
        if key == "discount":
            return Discount.of(value)
        return super()._coerce(key, value)

    def bounds(self, collection, *, scale_free: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(A, RLB, IUB)``, each broadcastable to ``(n_systems, n_topics)``.

        ``scale_free``: with the gain and discount rescaled to a largest weight
        of 1 (every V is a ratio of these, so it is unchanged, and huge weights
        cannot overflow).
        """
        k = self.cutoff
        gain = self.gain.vector(collection.max_grade)
        discount = self.discount.vector(k, k)
        if scale_free:
            gain, discount = _scale_free_vectors(self, gain, discount)
        gains = gain_matrix(collection.grades_to(collection.stored(k)), gain)
        a = gains @ discount[: gains.shape[-1]]
        n = self._candidate_counts(collection)
        if self.candidates is Candidates.JUDGED:
            total = collection.grade_counts[:, 1:] @ gain[1:]
            iub = ideal_dcg(collection.ideal_to(k), gain, discount)[None, :]
        else:
            retrieved = gain_matrix(collection.grades, gain)  # zeros past the run's end
            total = retrieved.sum(axis=2)
            top = -np.sort(-retrieved, axis=2)[:, :, :k]
            iub = top @ discount[: top.shape[2]]
        mean = np.divide(total, n, out=np.zeros(np.broadcast(total, n).shape), where=n > 0)
        rlb = expected_dcg(mean, n, discount, k, self.expectation)
        return a, rlb, iub

    def compute(self, collection) -> np.ndarray:
        score, undefined = ul_normalise(*self.bounds(collection, scale_free=True), self.version)
        self._warn_undefined(collection, undefined)
        return score


@register
@dataclass(frozen=True)
class SP_UL(_UL):  # noqa: N801 - the paper's name
    """Sum of precision with joint upper & lower bound normalisation (Karmaker & Feng, 2022, MSP^UL).

    ``A = SP@k`` (AP@k's numerator, relevance = grade >= ``rel``),
    ``RLB = E[SP@k]``, ``IUB = min(n_p, k)`` (``iub=ideal``) or ``k`` (``iub=k``,
    the paper's).
    """

    name: ClassVar[str] = "SP_UL"
    summary: ClassVar[str] = "Sum of precision@k normalised by the ideal (IUB) and a random ranking of the candidates (RLB) (MSP^UL)"
    formula: ClassVar[str] = "V1/V2 as DCG_UL with A = sum_{i<=k} Prec(i) rel_i, RLB = E[SP@k] (exact or k (n_p/n)^2), IUB = min(n_p,k) or k"

    version: int = 1
    rel: int = 1
    iub: UpperBound = UpperBound.IDEAL
    candidates: Candidates = Candidates.JUDGED
    expectation: Expectation = Expectation.EXACT

    def _validate(self) -> None:
        self._check_common()
        self._check_number(self.name, "rel", self.rel, 1, np.inf)
        object.__setattr__(self, "iub", UpperBound.of(self.iub, self.name, "iub"))

    def bounds(self, collection) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(A, RLB, IUB)``, each broadcastable to ``(n_systems, n_topics)``."""
        k = self.cutoff
        a = sum_of_precision(collection.grades_to(collection.stored(k)) >= self.rel)
        n = self._candidate_counts(collection)
        if self.candidates is Candidates.JUDGED:
            n_rel = collection.num_relevant(self.rel)[None, :]
        else:
            n_rel = (collection.grades >= self.rel).sum(axis=2)
        rlb = expected_sp(n_rel, n, k, self.expectation)
        iub = np.minimum(n_rel, k) if self.iub is UpperBound.IDEAL else np.full(np.shape(n_rel), k)
        return a, rlb, iub.astype(np.float64)

    def compute(self, collection) -> np.ndarray:
        score, undefined = ul_normalise(*self.bounds(collection), self.version)
        self._warn_undefined(collection, undefined)
        return score
