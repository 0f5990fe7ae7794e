"""Graded average precision: GAP, xGAP and eGAP.

A user population sets a relevance threshold: with probability ``g_j`` a user
regards grades ``j..c`` as relevant and the rest as non-relevant
(Robertson, Kanoulas & Yilmaz 2010). ``g = (g_1, ..., g_c)`` is a probability
vector over the positive grades; ``c`` is the highest grade of the qrels.

Notation (Ferrante, Ferro & Maistro 2014)
---------------------------------------------------
``r[n]``        grade of the document at rank ``n`` (grades <= 0 and unjudged: 0)
``RB(k)``       judged documents of grade >= k (the recall base at threshold k)
``tau``         ``max{k : RB(k) > 0}``; ``nu = min{k : g_k > 0}``
``G_i``         ``g_1 + ... + g_i`` (``G_0 = 0``)
``Delta(m,n)``  ``G_min(r[m], r[n])``
``delta_k(m,n)`` 1 if ``r[m] >= k`` and ``r[n] >= k``, else 0

Formulas (Ferrante, Ferro & Maistro, CLEF 2014, eq. 4, 5, 6)::

    GAP  = sum_n (1/n) sum_{m<=n} Delta(m,n)  /  sum_k R(k) G_k             (4)
    xGAP = sum_n (1/n) [sum_{k<=r[n]} g_k/RB(k)] / G_{r[n]} sum_{m<=n} Delta(m,n)  (5)
    eGAP = sum_n (1/n) sum_{k<=tau} g_k/RB(k) sum_{m<=n} delta_k(m,n) = sum_k g_k AP(k)  (6)

where ``R(k)`` counts judged documents of grade exactly k and ``AP(k)`` is
binary AP at threshold k (0 for k > tau).

Kernel
------
``sum_{m<=n} Delta(m,n) = sum_j g_j 1[r[n] >= j] C_j(n)`` with ``C_j(n)`` the
number of documents of grade >= j in the top n. So with the per-threshold
precisions ``P_j(n) = 1[r[n] >= j] C_j(n) / n`` (one cumulative sum per grade,
O(depth x grades)) and ``SP_j = sum_n P_j(n)`` (AP's numerator)::

    GAP  = sum_j g_j SP_j / sum_j g_j RB(j)
    xGAP = sum_n w(r[n]) sum_j g_j P_j(n),   w(i) = [sum_{k<=i} g_k/RB(k)] / G_i
    eGAP = sum_j g_j SP_j / RB(j)

Conventions
-----------
* ``nu > tau`` (no user finds any judged document relevant): the score is 0
  (Ferrante, Ferro & Maistro, CLEF 2014), with an :class:`~irstab.errors.IRStabWarning` naming the topics.
* A rank whose grade ``i`` has ``G_i = 0`` contributes 0 to xGAP (its
  ``0/0`` weight multiplies a zero sum anyway).
* ``g`` must be non-negative and sum to 1 within 1e-6; it is divided by its
  sum before use. Default: uniform over 1..c.
* ``@k`` truncates the ranking; the recall bases stay those of the whole
  qrels (like ``AP@k``, trec_eval ``map_cut``).
* xGAP and eGAP of the ideal ranking are ``sum_{k<=tau} g_k``, below 1 on a
  topic without documents of the grades that carry mass (AP(k) is 0 for
  k > tau, Ferrante, Ferro & Maistro, CLEF 2014); GAP's normalisation makes the ideal ranking score 1.
* With all mass of ``g`` on one grade t, all three equal ``AP(rel=t)``; on
  binary qrels all three equal AP.

References
----------
S. E. Robertson, E. Kanoulas, E. Yilmaz. Extending average precision to graded
relevance judgments. SIGIR 2010.
M. Ferrante, N. Ferro, M. Maistro. Rethinking how to extend average precision
to graded relevance. CLEF 2014.

Validated against literal double-loop implementations of eq. 4-6 and against
:class:`~irstab.metrics.AP` (tests/metrics/test_gap.py).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import IRStabWarning, MeasureError
from .base import Measure, register

__all__ = ["GAP", "XGAP", "EGAP", "UNIFORM", "graded_ap_kernels", "threshold_vector"]

_SUM_TOLERANCE = 1e-6


class _Uniform(tuple):
    """The default ``g``: uniform over the qrels' grades 1..c (an empty tuple that prints as ``uniform``)."""

    def __str__(self) -> str:
        return "uniform"

    __repr__ = __str__

    def canonical(self) -> str:
        return "uniform"


UNIFORM = _Uniform()


def threshold_vector(g: tuple[float, ...], max_grade: int, name: str = "GAP") -> np.ndarray:
    """The threshold probabilities ``g_1..g_c`` as a float64 vector summing to 1.

    ``g = ()`` gives the uniform vector over ``1..max_grade``.
    """
    if not g:
        return np.full(max_grade, 1.0 / max_grade)
    if len(g) != max_grade:
        raise MeasureError(
            f"{name}: g has {len(g)} values but the qrels have grades 1..{max_grade} "
            f"({max_grade} threshold probabilities needed)"
        )
    v = np.asarray(g, dtype=np.float64)
    return v / v.sum()


def _threshold_precisions(grades: np.ndarray, max_grade: int):
    """Yield ``(j, P_j)`` for j = 1..max_grade: precision at ranks of grade >= j, else 0."""
    inv_rank = 1.0 / np.arange(1, grades.shape[-1] + 1)
    for j in range(1, max_grade + 1):
        rel = grades >= j
        count = np.cumsum(rel, axis=-1, dtype=np.int32)
        yield j, np.where(rel, count * inv_rank, 0.0)


def graded_ap_kernels(
    grades: np.ndarray, g: np.ndarray, recall_base: np.ndarray, which: tuple[str, ...] = ("GAP", "xGAP", "eGAP")
) -> dict[str, np.ndarray]:
    """GAP, xGAP and eGAP of every (system, topic) in one pass over the grades.

    Parameters
    ----------
    grades : ndarray, shape (S, T, D)
        Grade at each rank (values <= 0 are non-relevant).
    g : ndarray, shape (c,)
        Threshold probabilities ``g_1..g_c`` (summing to 1).
    recall_base : ndarray, shape (T, c)
        ``RB(k)`` for k = 1..c: judged documents of grade >= k per topic.
    which : tuple of str
        The measures to return.

    Returns
    -------
    dict of str to ndarray, shape (S, T)

    Examples
    --------
    Ferrante, Ferro & Maistro, CLEF 2014's example: n documents of grade 1, then one of grade 2.

    >>> import numpy as np
    >>> n = 3
    >>> grades = np.array([[[1] * n + [2]]])
    >>> rb = np.array([[n + 1, 1]])
    >>> out = graded_ap_kernels(grades, np.array([0.5, 0.5]), rb)
    >>> round(float(out["eGAP"][0, 0]), 6)  # g1 + g2 / (n + 1)
    0.625
    """
    c = len(g)
    grades = np.clip(grades, 0, c)
    rb = np.asarray(recall_base, dtype=np.float64)  # T, c
    S, T, _ = grades.shape
    need_e = "xGAP" in which  # per-rank expected precision: only xGAP weights ranks
    sp = np.zeros((S, T, c))
    expected = np.zeros(grades.shape) if need_e else None
    for j, prec in _threshold_precisions(grades, c):
        sp[:, :, j - 1] = prec.sum(axis=-1)
        if need_e and g[j - 1] != 0.0:
            expected += g[j - 1] * prec
    out: dict[str, np.ndarray] = {}
    if "GAP" in which:
        den = rb @ g  # E[RB(K)] per topic
        num = sp @ g
        out["GAP"] = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    if "eGAP" in which:
        ap = np.divide(sp, rb[None], out=np.zeros_like(sp), where=rb[None] > 0)
        out["eGAP"] = ap @ g
    if "xGAP" in which:
        # w[t, i] = sum_{k<=i} g_k / RB(k) / G_i for i = 1..c, and w[t, 0] = 0.
        ratio = np.divide(g[None, :], rb, out=np.zeros_like(rb), where=rb > 0)
        cum_ratio = np.cumsum(ratio, axis=1)
        G = np.cumsum(g)
        w = np.zeros((T, c + 1))
        np.divide(cum_ratio, G[None, :], out=w[:, 1:], where=G[None, :] > 0)
        weight = w[np.arange(T)[None, :, None], grades]
        out["xGAP"] = np.einsum("std,std->st", weight, expected)
    return out


@dataclass(frozen=True)
class _GradedAP(Measure):
    """Shared parameter ``g`` and kernel of GAP, xGAP and eGAP."""

    g: tuple[float, ...] = UNIFORM

    def _validate(self) -> None:
        g = self.g
        if (isinstance(g, str) and g == "uniform") or (isinstance(g, tuple) and not g):
            object.__setattr__(self, "g", UNIFORM)
            return
        if isinstance(g, (int, float)) and not isinstance(g, bool):
            g = (g,)
        try:
            g = tuple(float(v) for v in g)
        except (TypeError, ValueError):
            raise MeasureError(
                f"{self.name}: g must be a tuple of probabilities or uniform, got {self.g!r}"
            ) from None
        if g:
            if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in g):
                raise MeasureError(f"{self.name}: g values must be probabilities in [0, 1], got {self.g!r}")
            total = math.fsum(g)
            if abs(total - 1.0) > _SUM_TOLERANCE:
                raise MeasureError(
                    f"{self.name}: g must sum to 1 (a probability vector over the grades 1..c), "
                    f"got sum {total!r} for g={self.g!r}"
                )
        object.__setattr__(self, "g", g)

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        if key == "g":
            return value if isinstance(value, (tuple, str)) else (value,)
        return super()._coerce(key, value)

    def compute(self, collection) -> np.ndarray:
        c = collection.max_grade
        g = threshold_vector(self.g, c, self.name)
        grades = collection.grades_to(collection.stored(self.cutoff))
        # RB(k) = judged documents of grade >= k, k = 1..c
        rb = np.cumsum(collection.grade_counts[:, :0:-1], axis=1)[:, ::-1]
        degenerate = rb @ g <= 0  # nu > tau: nobody finds a judged document relevant
        if degenerate.any():
            topics = [collection.topics[i] for i in np.flatnonzero(degenerate)]
            warnings.warn(
                f"{self}: on {len(topics)} topic(s) no judged document reaches a threshold "
                f"with g > 0 (nu > tau); they score 0: {topics[:10]}",
                IRStabWarning,
                stacklevel=2,
            )
        return graded_ap_kernels(grades, g, rb, (self.name,))[self.name]


@register
@dataclass(frozen=True)
class GAP(_GradedAP):
    """Graded average precision (Robertson, Kanoulas & Yilmaz 2010); see the module docstring."""

    name: ClassVar[str] = "GAP"
    summary: ClassVar[str] = "Graded average precision; g = P(user threshold = grade j), default uniform over 1..c"
    formula: ClassVar[str] = "sum_n (1/n) sum_{m<=n} G_min(r_m,r_n) / sum_k R(k) G_k, G_i = g_1+..+g_i"


@register
@dataclass(frozen=True)
class XGAP(_GradedAP):
    """Extended graded average precision (Ferrante, Ferro & Maistro, CLEF 2014, eq. 5); see the module docstring."""

    name: ClassVar[str] = "xGAP"
    summary: ClassVar[str] = "Extended GAP (Ferrante et al. 2014): a user is drawn first, then a document relevant to them"
    formula: ClassVar[str] = "sum_n (1/n) [sum_{k<=r_n} g_k/RB(k)] / G_{r_n} * sum_{m<=n} G_min(r_m,r_n)"


@register
@dataclass(frozen=True)
class EGAP(_GradedAP):
    """Expected graded average precision: ``E[AP(K)]`` (Ferrante, Ferro & Maistro, CLEF 2014, eq. 6)."""

    name: ClassVar[str] = "eGAP"
    summary: ClassVar[str] = "Expected GAP (Ferrante et al. 2014): E[AP(K)] over the user threshold K ~ g"
    formula: ClassVar[str] = "sum_k g_k AP(rel=k), AP(k) = 0 when no judged document has grade >= k"
