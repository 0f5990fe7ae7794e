r"""The within-system variance that the power designs need, estimated from a past collection.

Sakai ("Topic set size design", Information Retrieval Journal 19, 2016) estimates the
population variance of one system's scores over topics, *with the topic effects removed*, by
the residual mean square of the two-way ANOVA without replication (systems x topics, one
score per cell):

.. math::

    \hat\sigma^2 = V_E = \frac{\sum_{s,t}(x_{st} - \bar x_{s\cdot} - \bar x_{\cdot t} + \bar x)^2}
                              {(n_s-1)(n_t-1)},

the same :math:`MS_{res}` as the G-study's :math:`\hat\sigma^2_{res}`
(:class:`irstab.stability.GStudy`). Several matrices (collections, or rounds of one) are
pooled by their degrees of freedom, :math:`\sum SS_{res} / \sum df_{res}`, as Sakai pools
his TREC and NTCIR data.

Under that model a paired difference of two systems on one topic is
:math:`a_i - a_j + e_{it} - e_{jt}`: the topic effect cancels and two independent residuals
remain, so the variance of the per-topic differences that the t-test and interval designs
need is :math:`\hat\sigma_d^2 = 2\hat\sigma^2` (:data:`PAIR_FACTOR`). The ANOVA design uses
:math:`\hat\sigma^2` itself.

A residual variance at rounding-noise level (every system differing from every other by the
same amount on every topic) is an error, never a count of 2 topics from noise
(:func:`irstab._numeric.negligible`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._numeric import check_varies, negligible
from ..errors import DegenerateDataError, IRStabError
from ..stability.designs.crossed import sums_of_squares, validate_scores

__all__ = ["PAIR_FACTOR", "ResidualVariance", "pooled_variance", "residual_variance"]

#: :math:`\sigma_d^2 = 2\sigma^2`: variance of a paired difference under the two-way model.
PAIR_FACTOR = 2.0


@dataclass(frozen=True)
class ResidualVariance:
    """:math:`V_E` of one or more score matrices (module docstring).

    ``ss`` and ``df`` are the pooled residual sum of squares and degrees of freedom;
    ``n_systems`` and ``n_topics`` those of the first matrix (the collection the plan
    speaks of).
    """

    variance: float
    ss: float
    df: int
    n_systems: int
    n_topics: int
    n_matrices: int = 1

    @property
    def var_diff(self) -> float:
        """:math:`\\hat\\sigma_d^2 = 2\\hat\\sigma^2`, variance of a paired per-topic difference."""
        return PAIR_FACTOR * self.variance


def _one(scores, name: str | None) -> tuple[float, int, int, int]:
    x, _, _ = validate_scores(scores)
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise DegenerateDataError(
            f"{name + ': ' if name else ''}a residual variance needs at least 2 systems and 2 "
            f"topics, got {x.shape[0]} x {x.shape[1]}"
        )
    check_varies(x, name or "scores", then="power and topics needed are undefined")
    ss_s, ss_t, ss_r = (float(v) for v in sums_of_squares(x))
    total = ss_s + ss_t + ss_r
    if negligible(ss_r, total):
        raise DegenerateDataError(
            f"{name + ': ' if name else ''}the residual variance of the systems x topics ANOVA "
            "is 0 (every system differs from every other by the same amount on every topic, "
            "or all scores are equal): power and topics needed are undefined"
        )
    return ss_r, (x.shape[0] - 1) * (x.shape[1] - 1), x.shape[0], x.shape[1]


def residual_variance(scores, *, name: str | None = None) -> ResidualVariance:
    """:math:`V_E` of one systems x topics score matrix (DataFrame or array; not modified).

    Raises
    ------
    irstab.errors.DegenerateDataError
        Fewer than 2 systems or topics, a missing or non-finite score (named), or a residual
        variance of 0.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    >>> v = residual_variance(x)
    >>> round(v.variance, 4), v.df, round(v.var_diff, 4)  # the G-study's MS_res: 0.0225
    (0.0225, 6, 0.045)
    """
    ss, df, s, t = _one(scores, name)
    return ResidualVariance(variance=ss / df, ss=ss, df=df, n_systems=s, n_topics=t)


def pooled_variance(matrices: Sequence, *, name: str | None = None) -> ResidualVariance:
    r"""Pooled :math:`V_E = \sum SS_{res}/\sum df_{res}` of several score matrices."""
    matrices = list(matrices)
    if not matrices:
        raise IRStabError("matrices: give at least one score matrix")
    parts = [_one(m, name) for m in matrices]
    ss = sum(p[0] for p in parts)
    df = sum(p[1] for p in parts)
    return ResidualVariance(variance=ss / df, ss=ss, df=df, n_systems=parts[0][2],
                            n_topics=parts[0][3], n_matrices=len(parts))


def pair_differences(x: np.ndarray):
    """Row pairs ``(i, j)``, ``i < j``, and their per-topic differences ``x[i] - x[j]``."""
    i, j = np.triu_indices(x.shape[0], k=1)
    return i, j, x[i] - x[j]
