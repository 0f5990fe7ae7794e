r"""Phi (or Erho2) of a three-facet design as a function of the scores, with its gradient.

The optimizer's objective is the dependability of whichever design is given;
:class:`FacetObjective` is the one of s x t x a and s x (a:t). The scores are a
matrix ``x[s, c]`` over systems and (topic, assessor) cells, every system
scored on every cell. The components are Henderson's method 1
(:mod:`irstab.stability.designs`), which equals the EMS solution on balanced
data, so the same object serves balanced and unbalanced designs.

Gradient. With :math:`T_e = \sum_l y_{l\cdot}^2/n_l` the method solves
:math:`K\,(\mu^2, \sigma^2)^\top = T` for a matrix :math:`K` that depends on
the design only, so :math:`\sigma^2 = A\,T` with :math:`A` the last rows of
:math:`K^{-1}`, and

.. math::

    \frac{\partial T_e}{\partial y_i} = 2\,\bar y_{l_e(i)}, \qquad
    \frac{\partial \sigma^2_j}{\partial y_i} = \sum_e A_{je}\, 2\,\bar y_{l_e(i)},

where :math:`\bar y_{l_e(i)}` is the mean of the level of effect :math:`e`
that holds score :math:`i`. With :math:`E = \sum_{e \ne s} \sigma^2_e / d_e`
(the absolute error of the D-study at ``n_topics``, ``n_assessors``;
relative error for Erho2), :math:`\Phi = \sigma^2_s/(\sigma^2_s + E)`,
:math:`\partial\Phi/\partial\sigma^2_s = E/(\sigma^2_s+E)^2`,
:math:`\partial\Phi/\partial\sigma^2_e = -\sigma^2_s/(d_e(\sigma^2_s+E)^2)`.
As in the G-study a negative component counts as 0 and has no gradient;
:math:`0/0 = 0`.

The default sizes ``n_topics = n_assessors = 1`` make Phi the share of the
system component in one score, the three-facet analogue of the two-facet
:math:`\Phi(1)` of Kanoulas & Aslam (CIKM 2009, §2.2). Unlike there, the
ordering of measures can change with the D-study sizes (assessor terms are
divided by :math:`n_a`, topic terms by :math:`n_t`), so the sizes are a
parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._numeric import unit_spread
from ..errors import DegenerateDataError, IRStabError
from .designs import Design, clean_components, coefficient_weights, divisors, effects_of
from .coefficients import Coefficient

__all__ = ["FacetObjective"]

_FACETS = ("s", "t", "a")


@dataclass(frozen=True, eq=False)
class FacetObjective:
    """Coefficient of a three-facet design over a systems x cells score matrix.

    Parameters
    ----------
    design : {"nested", "crossed"}
    topic, assessor : array of int, one per cell
        Codes of each cell's topic and assessor (for ``nested`` the assessor
        code may repeat across topics: it is read within the topic).
    coefficient : {"phi", "erho2"}
    n_topics, n_assessors : float
        D-study sizes of the coefficient (default 1 and 1).
    """

    design: Design
    topic: np.ndarray = field(repr=False)
    assessor: np.ndarray = field(repr=False)
    coefficient: Coefficient = Coefficient.phi
    n_topics: float = 1.0
    n_assessors: float = 1.0

    def __post_init__(self):
        try:
            object.__setattr__(self, "design", Design(self.design))
            object.__setattr__(self, "coefficient", Coefficient(self.coefficient))
        except ValueError as exc:
            raise IRStabError(f"FacetObjective: {exc}") from None
        t = np.asarray(self.topic, dtype=np.int64).reshape(-1)
        a = np.asarray(self.assessor, dtype=np.int64).reshape(-1)
        if len(t) != len(a) or len(t) == 0:
            raise IRStabError("FacetObjective: topic and assessor codes need one value per cell")
        if not (self.n_topics >= 1 and self.n_assessors >= 1):
            raise IRStabError("FacetObjective: n_topics and n_assessors must be >= 1")
        if len(np.unique(t * (a.max() + 1) + a)) != len(t):
            raise IRStabError("FacetObjective: two cells have the same (topic, assessor)")
        object.__setattr__(self, "topic", t)
        object.__setattr__(self, "assessor", a)
        object.__setattr__(self, "_cache", {})

    @classmethod
    def from_cells(cls, cells: pd.DataFrame, design: Design | str = Design.nested, **kwargs):
        """From a frame with one row per cell and columns ``topic, assessor`` (labels)."""
        t = pd.factorize(cells["topic"])[0]
        a = pd.factorize(cells["assessor"])[0]
        return cls(design, t, a, **kwargs)

    @property
    def n_cells(self) -> int:
        return len(self.topic)

    # ------------------------------------------------------------ setup

    def _setup(self, n_s: int):
        """Level codes of every effect over the flattened ``x[s, c]`` and the matrix ``A``."""
        hit = self._cache.get(n_s)
        if hit is not None:
            return hit

        C = self.n_cells
        codes = {
            "s": np.repeat(np.arange(n_s), C),
            "t": np.tile(self.topic, n_s),
            "a": np.tile(self.assessor, n_s),
        }
        sizes = {f: int(c.max()) + 1 for f, c in codes.items()}
        effects = effects_of(self.design)
        sets = [frozenset()] + [e.facets for e in effects]
        levels = {}
        for fs in sets:
            code = np.zeros(n_s * C, dtype=np.int64)
            for f in _FACETS:
                if f in fs:
                    code = code * sizes[f] + codes[f]
            _, code = np.unique(code, return_inverse=True)
            levels[fs] = (code, np.bincount(code).astype(float))
        k = len(effects)
        K = np.zeros((k + 1, k + 1))
        N = float(n_s * C)
        for i, fs in enumerate(sets):
            code, cnt = levels[fs]
            K[i, 0] = N
            for j, e in enumerate(effects):
                ucode, ucnt = levels[fs | e.facets]
                K[i, j + 1] = np.sum(ucnt[ucode] / cnt[code])
        if np.linalg.cond(K) > 1e10:
            raise DegenerateDataError(
                "FacetObjective: the design's effects cannot be separated with these cells "
                "(too few systems, topics or assessors)"
            )
        A = np.linalg.inv(K)[1:]
        out = (sets, levels, A, effects)
        self._cache[n_s] = out
        return out

    # ------------------------------------------------------------ evaluation

    def _scaled_components(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Components of ``x * 2**-k`` (unit spread; a constant matrix gives 0), and ``k``.

        The crossed G-study's rule (:func:`irstab._numeric.unit_spread`): no scale
        of the scores overflows a square, and rounding noise is no variance.
        """
        x = np.asarray(x, dtype=float)
        if x.shape[-1] != self.n_cells:
            raise IRStabError(
                f"scores: expected {self.n_cells} cells in the last axis, got {x.shape[-1]}"
            )
        batch = x.shape[:-2]
        n_s = x.shape[-2]
        sets, levels, A, _ = self._setup(n_s)
        y, k = unit_spread(x.reshape((-1, 1, n_s * self.n_cells)))
        y = y[:, 0, :]
        y = y - y.mean(axis=1, keepdims=True)
        T = np.empty((len(y), len(sets)))
        for i, fs in enumerate(sets):  # a handful of effects; every batch row at once
            code, cnt = levels[fs]
            sums = _group_sums(y, code, len(cnt))
            T[:, i] = (np.square(sums) / cnt).sum(axis=1)
        comps = clean_components(T @ A.T)
        return comps.reshape(batch + (A.shape[0],)), np.reshape(k, batch)

    def components(self, x: np.ndarray) -> np.ndarray:
        """Raw components ``[..., n_effects]`` of ``x[..., s, c]`` (batch allowed), score units."""
        comps, k = self._scaled_components(x)
        with np.errstate(over="ignore"):
            return np.ldexp(comps, 2 * np.asarray(k)[..., None])

    def _weights(self):
        _, rel, ab = coefficient_weights(self.design)
        d = divisors(self.design, self.n_topics, self.n_assessors)
        mask = rel if self.coefficient is Coefficient.erho2 else ab
        return np.where(mask, 1.0 / d, 0.0)

    def values(self, x: np.ndarray) -> np.ndarray:
        """The coefficient of every matrix of a batch ``x[..., s, c]`` (no gradient, scale-free)."""
        c = np.maximum(self._scaled_components(x)[0], 0.0)
        err = c @ self._weights()
        total = c[..., 0] + err
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, c[..., 0] / np.where(total > 0, total, 1.0), 0.0)

    def value_and_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """The coefficient of ``x[s, c]`` and its gradient by every score (module docstring)."""
        x = np.asarray(x, dtype=float)
        n_s = x.shape[0]
        sets, levels, A, _ = self._setup(n_s)
        raw = self.components(x)
        c = np.maximum(raw, 0.0)
        w = self._weights()
        err = float(c @ w)
        total = c[0] + err
        if total <= 0:
            return 0.0, np.zeros_like(x)
        value = c[0] / total
        d_sigma = -c[0] * w / total**2
        d_sigma[0] = err / total**2
        d_sigma = d_sigma * (raw > 0)
        coef_t = d_sigma @ A  # dvalue / dT_e
        y = (x - x.mean()).reshape(-1)
        grad = np.zeros_like(y)
        for i, fs in enumerate(sets):
            if coef_t[i] == 0:
                continue
            code, cnt = levels[fs]
            mean = np.bincount(code, weights=y, minlength=len(cnt)) / cnt
            grad += coef_t[i] * 2.0 * mean[code]
        return float(value), grad.reshape(x.shape)


def _group_sums(y: np.ndarray, code: np.ndarray, n_levels: int) -> np.ndarray:
    """Row-wise sums of ``y[b, i]`` over the levels ``code[i]``: ``[b, n_levels]``."""
    b = y.shape[0]
    flat = (np.arange(b)[:, None] * n_levels + code[None, :]).reshape(-1)
    return np.bincount(flat, weights=y.reshape(-1), minlength=b * n_levels).reshape(b, n_levels)
