r"""Robustness to who judged: agreement of the system rankings under two judge sets, smooth.

The score matrix is ``x[s, c]`` over systems and (topic, judge) cells, as
:func:`irstab.collection.assessors.assessor_collection` builds it (each cell one topic under
one judge set, scored by the nDCG kernel of ``irstab evaluate``). For every other judge set
:math:`B` let :math:`T_B` be the topics it judged (within the allowed ``topics``, and where
the gold set :math:`A` has a cell too); the system means under both are

.. math::

    m^A_s = \frac{1}{|T_B|} \sum_{t \in T_B} x_{s,(t,A)}, \qquad
    m^B_s = \frac{1}{|T_B|} \sum_{t \in T_B} x_{s,(t,B)},

so A is always restricted to B's topics (as :mod:`irstab.judges.survival` compares them).
Both are standardised over the :math:`S` systems, :math:`z = (m - \bar m)/\sigma_m` with the
population standard deviation, which makes the agreement free of the scale of the scores (as
nDCG is free of the scale of the gain and the discount). The agreement of the pair is

* ``correlation``: Pearson's :math:`r = \frac{1}{S}\sum_s z^A_s z^B_s`;
* ``concordance`` (default): a smooth Kendall :math:`\tau`,

  .. math::

      \tilde\tau = \frac{1}{S(S-1)} \sum_{i \ne j} \tanh(\beta(z^A_i - z^A_j))\,
                   \tanh(\beta(z^B_i - z^B_j)),

  which tends to Kendall's :math:`\tau_a` as :math:`\beta \to \infty` and counts a pair
  less the closer its two systems are (in standard deviations of the system means): a swap
  of two systems that are nearly tied costs little, a swap of two far apart costs nearly 1.

The objective is the mean of the agreement over the judge sets :math:`B` (pooled over
re-annotators, each on its own topics). A pair where one judge set gives every system the
same mean has agreement 0 and no gradient.

Gradient. With :math:`g = \partial f/\partial z`,
:math:`\partial f/\partial m = (g - \bar g - z\,\overline{gz})/\sigma_m`; for the
correlation :math:`g^A = z^B/S`; for the concordance, with
:math:`D^A_{ij} = \tanh(\beta(z^A_i - z^A_j))`,
:math:`g^A_k = \frac{2\beta}{S(S-1)} \sum_j D^B_{kj}(1 - (D^A_{kj})^2)` (and symmetrically
for B); then :math:`\partial m_s/\partial x_{s,c} = 1/|T_B|` on B's cells. The optimizer takes
it through the linear forms of nDCG like any design (:class:`~.scenario.Scenario`,
``design=``), so what is optimised is the nDCG kernel's score (checked at every optimum by
:func:`~.stats.kernel_objective`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pandas as pd

from ..errors import IRStabError

__all__ = ["Agreement", "JudgeAgreement", "agreement_of_means"]

#: Default sharpness of the smooth concordance (in standard deviations of the system means).
DEFAULT_BETA = 4.0


class Agreement(str, Enum):
    """The agreement of two rankings of systems that is maximised (module docstring)."""

    concordance = "concordance"
    correlation = "correlation"


def _standardise(m: np.ndarray):
    """``(z, sd, ok)`` over the systems axis (-2) of ``m[..., S, P]``; z = 0 where sd = 0."""
    c = m - m.mean(axis=-2, keepdims=True)
    sd = np.sqrt((c * c).mean(axis=-2, keepdims=True))
    ok = sd > 1e-12 * np.maximum(1.0, np.abs(m).max(axis=-2, keepdims=True))
    z = np.divide(c, sd, out=np.zeros_like(c), where=ok)
    return z, np.where(ok, sd, 1.0), ok


def agreement_of_means(ma, mb, kind: Agreement | str = Agreement.concordance,
                       beta: float = DEFAULT_BETA, grad: bool = False):
    """The agreement of system means ``ma``, ``mb`` (shape ``(..., S, P)``: P pairs of
    rankings of S systems) for each pair, shape ``(..., P)``; with ``grad``, also its
    derivatives by ``ma`` and ``mb`` (module docstring).

    Examples
    --------
    >>> a = np.array([[0.5], [0.4], [0.1]])
    >>> round(float(agreement_of_means(a, a, "correlation")[0]), 12)
    1.0
    >>> round(float(agreement_of_means(a, a[::-1], "correlation")[0]), 4)
    -0.8462
    """
    kind = Agreement(kind)
    ma = np.asarray(ma, dtype=np.float64)
    mb = np.asarray(mb, dtype=np.float64)
    S = ma.shape[-2]
    za, sa, oka = _standardise(ma)
    zb, sb, okb = _standardise(mb)
    ok = (oka & okb)[..., 0, :]
    if kind is Agreement.correlation:
        value = (za * zb).mean(axis=-2)
        ga, gb = zb / S, za / S
    else:
        da = np.tanh(beta * (za[..., :, None, :] - za[..., None, :, :]))  # (..., S, S, P)
        db = np.tanh(beta * (zb[..., :, None, :] - zb[..., None, :, :]))
        n = S * (S - 1)
        value = (da * db).sum(axis=(-3, -2)) / n
        if grad:
            ga = 2.0 * beta / n * (db * (1.0 - da * da)).sum(axis=-2)
            gb = 2.0 * beta / n * (da * (1.0 - db * db)).sum(axis=-2)
    value = np.where(ok, value, 0.0)
    if not grad:
        return value

    def back(g, z, sd):
        return (g - g.mean(axis=-2, keepdims=True)
                - z * (g * z).mean(axis=-2, keepdims=True)) / sd

    keep = ok[..., None, :]
    return (value, np.where(keep, back(ga, za, sa), 0.0), np.where(keep, back(gb, zb, sb), 0.0))


@dataclass(frozen=True, eq=False)
class JudgeAgreement:
    """Mean agreement of the gold judge set with each other one, over (topic, judge) cells.

    A design objective of :class:`~irstab.optimizer.scenario.Scenario` (``design=``): it has
    ``value_and_grad(x)`` and ``values(x[..., s, c])`` over the systems x cells matrix of an
    assessor collection (module docstring for the rule).

    Parameters
    ----------
    topic, judge : arrays of labels, one per cell
        Each cell's topic and judge set (``AssessorCollection.cells``' columns).
    gold : str
        The judge set every other one is compared with.
    kind : {"concordance", "correlation"}
    beta : float
        Sharpness of the concordance.
    topics : iterable of topic labels, optional
        Use only these topics (the training topics of a fold); default all.
    judges : iterable of str, optional
        Compare the gold set with these judge sets only (default every other one).
    """

    topic: np.ndarray = field(repr=False)
    judge: np.ndarray = field(repr=False)
    gold: str
    kind: Agreement = Agreement.concordance
    beta: float = DEFAULT_BETA
    topics: tuple | None = None
    judges: tuple | None = None

    def __post_init__(self):
        try:
            object.__setattr__(self, "kind", Agreement(self.kind))
        except ValueError:
            raise IRStabError(f"agreement: expected concordance or correlation, got "
                              f"{self.kind!r}") from None
        if not (isinstance(self.beta, (int, float)) and np.isfinite(self.beta)
                and self.beta > 0):
            raise IRStabError(f"beta: expected a positive number, got {self.beta!r}")
        t = np.asarray(self.topic, dtype=object).reshape(-1)
        j = np.asarray(self.judge, dtype=object).reshape(-1)
        if len(t) != len(j) or not len(t):
            raise IRStabError("JudgeAgreement: topic and judge need one label per cell")
        allowed = None if self.topics is None else set(self.topics)
        others = [x for x in dict.fromkeys(j.tolist()) if x != self.gold]
        if self.judges is not None:
            others = [x for x in others if x in set(self.judges)]
        gold_cell = {tt: c for c, (tt, jj) in enumerate(zip(t, j)) if jj == self.gold}
        if not gold_cell:
            raise IRStabError(f"gold: no cell of the judge set {self.gold!r}")
        cols_a, cols_b, names = [], [], []
        for b in others:
            cb = [(c, gold_cell[tt]) for c, (tt, jj) in enumerate(zip(t, j))
                  if jj == b and tt in gold_cell and (allowed is None or tt in allowed)]
            if cb:
                cols_b.append([c for c, _ in cb])
                cols_a.append([a for _, a in cb])
                names.append(b)
        if not names:
            raise IRStabError(
                f"judges: no other judge set shares a topic with {self.gold!r}"
                + ("" if allowed is None else " among the given topics"))
        C, P = len(t), len(names)
        wa, wb = np.zeros((C, P)), np.zeros((C, P))
        for p, (ca, cb) in enumerate(zip(cols_a, cols_b)):
            wa[ca, p] = 1.0 / len(ca)
            wb[cb, p] = 1.0 / len(cb)
        object.__setattr__(self, "topic", t)
        object.__setattr__(self, "judge", j)
        object.__setattr__(self, "pair_judges", tuple(names))
        object.__setattr__(self, "_wa", wa)
        object.__setattr__(self, "_wb", wb)

    @classmethod
    def from_cells(cls, cells: pd.DataFrame, gold: str, **kwargs) -> JudgeAgreement:
        """From a frame with one row per cell and columns ``topic, assessor``."""
        return cls(cells["topic"].to_numpy(), cells["assessor"].to_numpy(), gold, **kwargs)

    @property
    def n_cells(self) -> int:
        return len(self.topic)

    def _check(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim < 2 or x.shape[-1] != self.n_cells:
            raise IRStabError(f"scores: expected {self.n_cells} cells in the last axis, got "
                              f"shape {x.shape}")
        return x

    def pair_values(self, x: np.ndarray) -> np.ndarray:
        """The agreement with each judge set of :attr:`pair_judges`, shape ``(..., P)``."""
        x = self._check(x)
        return agreement_of_means(x @ self._wa, x @ self._wb, self.kind, self.beta)

    def values(self, x: np.ndarray) -> np.ndarray:
        """The objective (mean agreement) of every matrix of a batch ``x[..., s, c]``."""
        return self.pair_values(x).mean(axis=-1)

    def value_and_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """The objective of one matrix ``x[s, c]`` and its gradient by every cell."""
        x = self._check(x)
        v, ga, gb = agreement_of_means(x @ self._wa, x @ self._wb, self.kind, self.beta,
                                       grad=True)
        P = v.shape[-1]
        return float(v.mean()), (ga @ self._wa.T + gb @ self._wb.T) / P
