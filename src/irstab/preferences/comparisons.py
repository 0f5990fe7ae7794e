r"""Side-by-side comparisons: the data model every part of :mod:`irstab.preferences` reads.

A *comparison* shows a user (a judge) two rankings for one topic, side A and side B, and
records which side the judge preferred, or that the judge had no preference. Two models:

* :class:`Comparisons`: the grade of the document at each rank of either side (from qrels),
  so any gain and discount can be applied (:meth:`Comparisons.dcg`);
* :class:`ScoredComparisons`: a measure's value per side for each of several measures
  (configurations), when the grades are not given, as in Urbano & Marrero's (ECIR 2015)
  ``crowd.csv``, which holds DCG per gain and discount.

Both agree on the preference code: ``+1`` side A preferred, ``-1`` side B, ``0`` no
preference. :func:`agreement_rate` is the rule that connects a measure to the preferences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from irstab.errors import IRStabError

__all__ = [
    "Comparisons",
    "ScoredComparisons",
    "agreement_rate",
    "agreement_counts",
    "agreement_terms",
    "TIE_ATOL",
    "TIE_RULES",
]

#: Two sides whose measure values differ by at most this much are tied for the measure.
TIE_ATOL = 1e-12


def _validate_common(topic, preferred, judge, satisfied, n: int) -> None:
    if topic.shape != (n,):
        raise IRStabError(f"topic: expected shape ({n},), got {topic.shape}")
    if preferred.shape != (n,):
        raise IRStabError(f"preferred: expected shape ({n},), got {preferred.shape}")
    if not np.isin(preferred, (-1, 0, 1)).all():
        raise IRStabError("preferred: every value must be +1 (side A), -1 (side B) or 0 (none)")
    if judge is not None and judge.shape != (n,):
        raise IRStabError(f"judge: expected shape ({n},), got {judge.shape}")
    if satisfied is not None:
        if satisfied.shape != (n,):
            raise IRStabError(f"satisfied: expected shape ({n},), got {satisfied.shape}")
        if not np.isin(satisfied, (-1, 0, 1)).all():
            raise IRStabError("satisfied: every value must be 1 (good), 0 (bad) or -1 (not asked)")


@dataclass(frozen=True)
class Comparisons:
    """Graded side-by-side comparisons.

    Attributes
    ----------
    topic : ndarray of str, shape (n,)
        The topic of each comparison.
    preferred : ndarray of int8, shape (n,)
        ``+1`` side A preferred, ``-1`` side B preferred, ``0`` no preference.
    grades_a, grades_b : ndarray of int, shape (n, depth)
        The grade of the document at each rank of side A (B); ``-1`` where the side has no
        document at that rank; an unjudged document has grade 0. Negative grades of the qrels
        (TREC Web's spam, -2) are read as 0: ``-1`` is reserved for "no document".
    judge : ndarray of str, shape (n,), or None
        Who judged each comparison, when known.
    satisfied : ndarray of int8, shape (n,), or None
        Where the judge had no preference and was asked whether both sides were good (1) or
        both bad (0), as in Urbano & Marrero (ECIR 2015); -1 where not asked.
    """

    topic: np.ndarray
    preferred: np.ndarray
    grades_a: np.ndarray
    grades_b: np.ndarray
    judge: np.ndarray | None = None
    satisfied: np.ndarray | None = field(default=None)

    def __post_init__(self):
        n = self.preferred.shape[0] if self.preferred.ndim == 1 else -1
        _validate_common(self.topic, self.preferred, self.judge, self.satisfied, n)
        if self.grades_a.ndim != 2 or self.grades_a.shape[0] != n:
            raise IRStabError(f"grades_a: expected shape ({n}, depth), got {self.grades_a.shape}")
        if self.grades_b.shape != self.grades_a.shape:
            raise IRStabError(
                f"grades_b: expected the shape of grades_a {self.grades_a.shape}, "
                f"got {self.grades_b.shape}"
            )
        if (self.grades_a < -1).any() or (self.grades_b < -1).any():
            raise IRStabError("grades: -1 (no document) is the smallest allowed value")

    @property
    def n(self) -> int:
        """The number of comparisons."""
        return int(self.preferred.shape[0])

    @property
    def depth(self) -> int:
        """The number of ranks of either side."""
        return int(self.grades_a.shape[1])

    @property
    def max_grade(self) -> int:
        """The largest grade on either side (0 when nothing is relevant)."""
        if self.grades_a.size == 0:
            return 0
        return int(max(self.grades_a.max(), self.grades_b.max(), 0))

    def dcg(self, gain, discount) -> np.ndarray:
        r"""DCG of both sides for one gain and one discount vector.

        .. math:: \mathrm{DCG} = \sum_{r=1}^{\text{depth}} \text{gain}[g_r]\,\text{discount}[r]

        where :math:`g_r` is the grade at rank :math:`r`; a rank without a document adds 0.

        Parameters
        ----------
        gain : array_like, shape (max_grade + 1,) or longer
            Gain of each grade, indexed by grade.
        discount : array_like, shape (depth,)
            Discount of each rank (rank 1 first).

        Returns
        -------
        ndarray, shape (n, 2)
            Column 0 side A, column 1 side B.

        Examples
        --------
        >>> c = Comparisons(np.array(["q"]), np.array([1], np.int8),
        ...                 np.array([[2, 0, -1]]), np.array([[0, 1, 1]]))
        >>> c.dcg([0.0, 1.0, 3.0], [1.0, 0.5, 0.25]).tolist()
        [[3.0, 0.75]]
        """
        gain = np.asarray(gain, dtype=float)
        discount = np.asarray(discount, dtype=float)
        if gain.ndim != 1 or gain.shape[0] < self.max_grade + 1:
            raise IRStabError(
                f"gain: expected a vector of at least {self.max_grade + 1} values "
                f"(grades 0..{self.max_grade}), got shape {gain.shape}"
            )
        if discount.shape != (self.depth,):
            raise IRStabError(
                f"discount: expected a vector of {self.depth} values (one per rank), "
                f"got shape {discount.shape}"
            )
        grades = np.stack([self.grades_a, self.grades_b], axis=1)  # (n, 2, depth)
        # -1 (no document) takes a gain of 0: index an extended gain vector at its end.
        extended = np.append(gain, 0.0)
        g = np.take(extended, np.where(grades < 0, gain.shape[0], grades))
        return np.einsum("nsr,r->ns", g, discount)


@dataclass(frozen=True)
class ScoredComparisons:
    """Side-by-side comparisons with a measure's value per side, for several measures.

    Attributes
    ----------
    topic, preferred, judge, satisfied
        As in :class:`Comparisons`.
    measures : tuple of str
        The name of each measure (configuration), e.g. ``"DCG(gain=l,discount=z)"``.
    scores : ndarray of float, shape (n, m, 2)
        The value of measure ``j`` on side A (``[..., 0]``) and side B (``[..., 1]``).
    factors : dict of str to tuple of str
        Optional labels of each measure by factor (e.g. ``{"gain": (...), "discount": (...)}``,
        each of length m), for an ANOVA of the measures' bias scores.
    """

    topic: np.ndarray
    preferred: np.ndarray
    measures: tuple[str, ...]
    scores: np.ndarray
    judge: np.ndarray | None = None
    satisfied: np.ndarray | None = None
    factors: dict = field(default_factory=dict)

    def __post_init__(self):
        n = self.preferred.shape[0] if self.preferred.ndim == 1 else -1
        _validate_common(self.topic, self.preferred, self.judge, self.satisfied, n)
        m = len(self.measures)
        if self.scores.shape != (n, m, 2):
            raise IRStabError(f"scores: expected shape ({n}, {m}, 2), got {self.scores.shape}")
        for name, labels in self.factors.items():
            if len(labels) != m:
                raise IRStabError(f"factors[{name!r}]: expected {m} labels, got {len(labels)}")

    @property
    def n(self) -> int:
        """The number of comparisons."""
        return int(self.preferred.shape[0])


def agreement_counts(diff, preferred, atol: float = TIE_ATOL) -> dict[str, np.ndarray]:
    """Count agreements of a measure with the judges' preferences.

    Parameters
    ----------
    diff : array_like, shape (n,) or (n, m)
        The measure's value on side A minus its value on side B (one column per measure).
    preferred : array_like, shape (n,)
        +1, -1 or 0, as :attr:`Comparisons.preferred`.
    atol : float
        A difference with ``|diff| <= atol`` is a tie of the measure.

    Returns
    -------
    dict with ``agree``, ``disagree``, ``tie`` (the measure ties where the judge preferred a
    side) and ``no_preference`` (comparisons without a preference), each of shape
    ``diff.shape[1:]``.
    """
    diff, pref, p, sign, judged = _signs(diff, preferred, atol)
    return {
        "agree": np.sum(judged & (sign == p), axis=0),
        "disagree": np.sum(judged & (sign == -p), axis=0),
        "tie": np.sum(judged & (sign == 0), axis=0),
        "no_preference": np.full(diff.shape[1:], int(np.sum(pref == 0))),
    }


def _signs(diff, preferred, atol):
    """``diff`` and ``preferred`` as arrays, the preference broadcast against ``diff``, the
    measure's sign (0 within ``atol``) and which comparisons have a preference."""
    diff = np.asarray(diff, dtype=float)
    pref = np.asarray(preferred)
    if pref.ndim != 1 or diff.shape[:1] != pref.shape:
        raise IRStabError(f"diff and preferred: expected {pref.shape[0]} rows in diff, got {diff.shape}")
    p = pref.reshape(pref.shape + (1,) * (diff.ndim - 1))
    sign = np.where(np.abs(diff) <= atol, 0, np.sign(diff))
    return diff, pref, p, sign, p != 0


#: How a tie of the measure counts where the judge preferred a side: left out (Sanderson et
#: al., SIGIR 2010), half an agreement, or a disagreement (Urbano & Marrero's b3: a tie never
#: agrees).
TIE_RULES = ("exclude", "half", "disagree")


def agreement_terms(diff, preferred, atol: float = TIE_ATOL,
                    ties: str = "exclude") -> tuple[np.ndarray, np.ndarray]:
    """Each comparison's part of the agreement rate: (numerator, denominator), float arrays
    of ``diff``'s shape; the rate is ``num.sum(0) / den.sum(0)`` (weighted: ``w @ num / w @ den``).

    A comparison without a preference contributes (0, 0); with one, an agreement (1, 1), a
    disagreement (0, 1) and a tie of the measure (0, 0), (0.5, 1) or (0, 1) by ``ties``.
    """
    if ties not in TIE_RULES:
        raise IRStabError(f"ties: expected one of {', '.join(TIE_RULES)}, got {ties!r}")
    diff, pref, p, sign, judged = _signs(diff, preferred, atol)
    tie = judged & (sign == 0)
    num = (judged & (sign == p)).astype(float) + (0.5 * tie if ties == "half" else 0.0)
    den = (judged & (sign != 0)).astype(float) + (tie if ties != "exclude" else 0.0)
    return num, den


def agreement_rate(diff, preferred, atol: float = TIE_ATOL,
                   ties: str = "exclude") -> np.ndarray | float:
    r"""The share of comparisons where the measure prefers the side the judge preferred.

    Following Sanderson, Paramita, Clough & Kanoulas (SIGIR 2010), only comparisons where the
    judge preferred a side *and* (by default) the measure separates the two sides count:

    .. math:: \text{agreement} = \frac{\#\{\operatorname{sign}\Delta = \text{pref}\}}
              {\#\{\text{pref} \ne 0,\ \Delta \ne 0\}}

    A judge without a preference is left out of both counts; a tie of the measure
    (``|diff| <= atol``) too with ``ties="exclude"``, or counts as half an agreement
    (``"half"``) or as a disagreement (``"disagree"``, as Urbano & Marrero's b3 does).
    :func:`agreement_counts` reports how many of each. When nothing counts the rate is NaN
    (no evidence either way).

    Parameters
    ----------
    diff : array_like, shape (n,) or (n, m)
        Measure on side A minus measure on side B (one column per measure).
    preferred : array_like, shape (n,)
        +1 side A preferred, -1 side B, 0 no preference.
    atol : float
        Tie tolerance of the measure.
    ties : {"exclude", "half", "disagree"}
        How a tie of the measure counts (:data:`TIE_RULES`).

    Returns
    -------
    float or ndarray of shape (m,)

    Examples
    --------
    >>> agreement_rate([0.3, -0.1, 0.0, 0.2], [1, 1, -1, 0])
    0.5
    >>> agreement_rate([0.3, -0.1, 0.0, 0.2], [1, 1, -1, 0], ties="half")
    0.5
    >>> agreement_rate([0.3, -0.1, 0.0, 0.2], [1, 1, -1, 0], ties="disagree")
    0.3333333333333333
    """
    num, den = agreement_terms(diff, preferred, atol, ties)
    a, c = num.sum(axis=0), den.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(c > 0, a / np.where(c > 0, c, 1), np.nan)
    return float(rate) if rate.ndim == 0 else rate
