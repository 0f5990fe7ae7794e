r"""The variables of a local solve: gain and discount blocks on standard simplices.

Parametrisation
---------------
nDCG is scale-free in :math:`g` and in :math:`d`, so each is normalised to
sum 1 (Kanoulas & Aslam, CIKM 2009, §2.2). A monotone block (non-increasing :math:`d`,
non-decreasing :math:`g_1..g_m`) is written with non-negative increments,
and each increment is scaled by the mass it adds, so that every block lives on
a standard simplex :math:`y \ge 0, \sum y = 1`:

.. math::

    d_r = \sum_{i \ge r} y_i / i, \qquad
    g_j = \sum_{i \le j} y_i / (m - i + 1).

The ordering constraints then become bounds, which keeps SLSQP fast at large
:math:`k`. Without monotonicity :math:`y` is the vector itself.

References
----------
E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009.
R. L. Brennan (2001). *Generalizability Theory*. Springer, ch. 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import IRStabError, MeasureError
from ..metrics.dcg import unit_max
from .objectives import Vary, as_enum

__all__ = ["Parametrisation", "DISCOUNT_PRESETS", "GAIN_PRESETS", "RANDOM_KINDS"]


#: Discount presets of Kanoulas & Aslam, CIKM 2009 (Fig. 2) used as starts and for comparison.
DISCOUNT_PRESETS: tuple[str, ...] = ("log2", "zipf", "linear", "flat")
#: Gain presets of Kanoulas & Aslam, CIKM 2009 (Table 2); ``flat`` gives every relevant grade the same gain.
GAIN_PRESETS: tuple[str, ...] = ("linear", "exp", "flat")
#: Kinds of random start, used in turn (:meth:`Parametrisation.random`).
RANDOM_KINDS: tuple[str, ...] = ("dirichlet-1", "dirichlet-0.1", "flat-top")


def _normalise(v: np.ndarray, what: str) -> np.ndarray:
    v = unit_max(v)  # first: a sum of weights near 1e308 would overflow
    total = v.sum()
    if not total > 0:
        raise MeasureError(f"{what}: all weights are 0; nDCG is undefined")
    return v / total


@dataclass(frozen=True, eq=False)
class Parametrisation:
    r"""Map between optimisation variables ``y`` (a product of simplices) and (g, d).

    Parameters
    ----------
    n_grades : int
        Length of the gain vector (``max_grade + 1``).
    cutoff : int
        Length of the discount vector.
    vary : Vary
        Unknown blocks: discount, gain or both (joint).
    monotone : bool
        Non-increasing discount and non-decreasing gain (Kanoulas & Aslam, CIKM 2009, Fig. 1);
        without it only non-negativity (Kanoulas & Aslam, CIKM 2009, Fig. 3).
    gain, discount : numpy.ndarray
        Fixed vectors for the block that does not vary (normalised to sum 1).

    Notes
    -----
    Blocks are ordered gain first, then discount. See the module docstring
    for the increment coordinates.
    """

    n_grades: int
    cutoff: int
    vary: Vary
    monotone: bool
    gain: np.ndarray
    discount: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "vary", as_enum(Vary, self.vary, "vary"))
        m, k = self.n_grades - 1, self.cutoff
        # mass added by one unit of increment i
        object.__setattr__(self, "_a_gain", np.arange(m, 0, -1, dtype=float))
        object.__setattr__(self, "_a_disc", np.arange(1, k + 1, dtype=float))
        object.__setattr__(self, "gain", _normalise(np.asarray(self.gain, float), "gain"))
        object.__setattr__(self, "discount", _normalise(np.asarray(self.discount, float), "discount"))

    @property
    def varies_gain(self) -> bool:
        return self.vary is not Vary.discount

    @property
    def varies_discount(self) -> bool:
        return self.vary is not Vary.gain

    @property
    def blocks(self) -> tuple[slice, ...]:
        """Slices of ``y`` that each sum to 1."""
        m, k = self.n_grades - 1, self.cutoff
        out, at = [], 0
        if self.varies_gain:
            out.append(slice(at, at + m))
            at += m
        if self.varies_discount:
            out.append(slice(at, at + k))
        return tuple(out)

    @property
    def n_vars(self) -> int:
        return sum(b.stop - b.start for b in self.blocks)

    # -- one block each way

    def _gain_from(self, y: np.ndarray) -> np.ndarray:
        g = np.cumsum(y / self._a_gain) if self.monotone else y
        return np.concatenate(([0.0], g))  # np.r_'s index machinery costs more than the sum

    def _disc_from(self, y: np.ndarray) -> np.ndarray:
        return np.cumsum((y / self._a_disc)[::-1])[::-1] if self.monotone else y.copy()

    def _gain_to(self, g: np.ndarray) -> np.ndarray:
        g = g[1:]
        return np.diff(np.r_[0.0, g]) * self._a_gain if self.monotone else g.copy()

    def _disc_to(self, d: np.ndarray) -> np.ndarray:
        return -np.diff(np.r_[d, 0.0]) * self._a_disc if self.monotone else d.copy()

    def vectors(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(gain, discount)`` of ``y``; the fixed block is returned as given."""
        y = np.asarray(y, dtype=float)
        blocks = iter(self.blocks)
        g = self._gain_from(y[next(blocks)]) if self.varies_gain else self.gain
        d = self._disc_from(y[next(blocks)]) if self.varies_discount else self.discount
        return g, d

    def variables(self, gain: np.ndarray, discount: np.ndarray, check: bool = True) -> np.ndarray:
        """``y`` of full vectors (each normalised to sum 1 first).

        Raises :class:`~irstab.errors.MeasureError` when a vector violates the
        ordering constraints of a monotone parametrisation (with
        ``check=False`` the violation is clipped instead: for solver output
        that meets the constraints only to the solver's tolerance).
        """
        parts = []
        if self.varies_gain:
            g = np.asarray(gain, dtype=float)
            g = np.r_[0.0, _normalise(g[1:], "gain")]
            parts.append(self._gain_to(g))
        if self.varies_discount:
            parts.append(self._disc_to(_normalise(np.asarray(discount, float), "discount")))
        y = np.concatenate(parts) if parts else np.zeros(0)
        if check and np.any(y < -1e-12):
            raise MeasureError(
                "start: the vector breaks the ordering constraints (gain non-decreasing in the "
                "grade, discount non-increasing in the rank); use monotone=False"
            )
        return np.clip(y, 0.0, None)

    def grad(self, grad_gain: np.ndarray, grad_disc: np.ndarray) -> np.ndarray:
        """Chain rule from full-vector gradients to ``y``."""
        parts = []
        if self.varies_gain:
            gg = grad_gain[1:]
            if self.monotone:
                gg = np.cumsum(gg[::-1])[::-1] / self._a_gain
            parts.append(gg)
        if self.varies_discount:
            gd = np.cumsum(grad_disc) / self._a_disc if self.monotone else grad_disc
            parts.append(gd)
        return np.concatenate(parts)

    def project(self, y: np.ndarray) -> np.ndarray:
        """Clip to ``y >= 0`` and rescale each block to sum 1 (nDCG is scale-free)."""
        y = np.clip(np.asarray(y, dtype=float), 0.0, None)
        for b in self.blocks:
            s = y[b].sum()
            y[b] = y[b] / s if s > 0 else 1.0 / (b.stop - b.start)
        return y

    def random(
        self, rng: np.random.Generator, kind: str = "dirichlet-1", support: int = 32
    ) -> np.ndarray:
        r"""A random feasible point of one of the kinds in :data:`RANDOM_KINDS`.

        Every block (a simplex in the increment coordinates ``y``) is drawn
        independently:

        * ``dirichlet-1``: :math:`y \sim \mathrm{Dirichlet}(1, \dots, 1)`, uniform
          on the simplex;
        * ``dirichlet-0.1``: :math:`\mathrm{Dirichlet}(0.1, \dots, 0.1)`, mass on
          a few coordinates anywhere in the block;
        * ``flat-top``: a mixture (Dirichlet(1) weights) of one to three
          vertices :math:`e_j`, ``j`` uniform over the block: for a monotone
          discount a mixture of flat-top-``j`` discounts (weight on ranks
          ``1..j``, zero below).

        A Dirichlet draw on a block longer than ``support`` keeps only its
        ``support`` largest coordinates (renormalised): the shape of the
        discount is kept (the positions are still uniform over all ranks) while
        the local solver starts on a small working set instead of crawling
        from a thousand-step discount. Uniform coverage matters: on DL-2019 at
        k = 1000 the better of two local optima (an almost flat discount) is
        reached from discounts whose mass spreads to the deep ranks, and
        starts concentrated on the top ranks all end in the other one.
        """
        if kind not in RANDOM_KINDS:
            raise IRStabError(f"kind: expected one of {', '.join(RANDOM_KINDS)}, got {kind!r}")
        parts = []
        for b in self.blocks:  # one or two blocks
            n = b.stop - b.start
            y = np.zeros(n)
            if kind == "flat-top":
                idx = np.unique(rng.integers(0, n, size=int(rng.integers(1, 4))))
                y[idx] = rng.dirichlet(np.ones(len(idx)))
            else:
                alpha = 1.0 if kind == "dirichlet-1" else 0.1
                y = rng.dirichlet(np.full(n, alpha))
                if n > support:
                    y[np.argsort(y)[: n - support]] = 0.0
                    y /= y.sum()
            parts.append(y)
        return np.concatenate(parts)

    # -- natural coordinates: the varying vectors themselves (g_1..g_m, d_1..d_k)

    def natural(self, y: np.ndarray) -> np.ndarray:
        """``v``: the varying blocks of ``(g[1:], d)`` (each sums to 1)."""
        g, d = self.vectors(y)
        parts = ([g[1:]] if self.varies_gain else []) + ([d] if self.varies_discount else [])
        return np.concatenate(parts)

    def from_natural(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(gain, discount)`` of natural coordinates ``v``."""
        v = np.asarray(v, dtype=float)
        blocks = iter(self.blocks)
        g = np.r_[0.0, v[next(blocks)]] if self.varies_gain else self.gain
        d = v[next(blocks)] if self.varies_discount else self.discount
        return g, d

    def natural_to_y(self, v: np.ndarray) -> np.ndarray:
        """``y`` of natural coordinates, clipped and renormalised (solver tolerance)."""
        g, d = self.from_natural(np.clip(v, 0.0, None))
        return self.project(self.variables(g, d, check=False))

    def natural_grad(self, grad_gain: np.ndarray, grad_disc: np.ndarray) -> np.ndarray:
        parts = ([grad_gain[1:]] if self.varies_gain else []) + (
            [grad_disc] if self.varies_discount else []
        )
        return np.concatenate(parts)
