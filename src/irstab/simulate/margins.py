r"""A system's score distribution over topics: one tabulated form for every fitted family.

Every margin the simulator fits (:mod:`.families`) is stored as what it simulates: a
distribution on the measure's range :math:`[lo, hi]` whose quantile function is
piecewise linear between knots :math:`(F_k, x_k)`, :math:`k = 0..K`, with
:math:`0 = F_0 \le F_1 \le \dots \le F_K = 1` and :math:`x_0 \le \dots \le x_K`:

.. math:: Q(u) = x_{k-1} + \frac{u - F_{k-1}}{F_k - F_{k-1}}\,(x_k - x_{k-1}),
          \qquad F_{k-1} < u \le F_k.

A continuous family is its CDF at 2,049 equally spaced points of the range (the
density is then uniform within each of the 2,048 cells); a point mass ``p`` at
``v`` is a cell of width 0 (:math:`x_{k-1} = x_k = v`, :math:`F_k - F_{k-1} = p`);
a lattice measure (P@k, RR) is all point masses. Because the tabulated form *is*
the simulated distribution, its moments are exact, not approximations of it:

.. math:: E[X] = \sum_k \Delta F_k \frac{x_{k-1} + x_k}{2}, \qquad
          E[X^2] = \sum_k \Delta F_k \frac{x_{k-1}^2 + x_{k-1} x_k + x_k^2}{3},

and :math:`P(X = v)` is the mass of the zero-width cells at ``v``.

Planted means
-------------
:meth:`Margin.with_mean` moves a margin to a target mean by composing its CDF with a
Beta CDF, :math:`F'(x) = I_{F(x)}(e^{\theta}, e^{-\theta})` (the regularised
incomplete beta function), as Urbano & Nagler do to give simulated systems a
prescribed expected value ("Stochastic Simulation of Test Collections: Evaluation
Scores", SIGIR 2018, §3.4). On the knots this is :math:`F_k \mapsto
I_{F_k}(e^{\theta}, e^{-\theta})`, so the result is again a tabulated margin on the
same values (a lattice stays a lattice, point masses stay point masses, with new
masses), and since the map is increasing the copula of the systems is unchanged.
:math:`\theta = 0` is the identity, and Beta :math:`(e^{\theta}, e^{-\theta})` grows
in the likelihood-ratio order with :math:`\theta`, so the mean is increasing in
:math:`\theta`: it is solved for by Brent's method on the exact mean above, to
:math:`10^{-12}`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import optimize, special

from .._repr import short_repr
from ..errors import IRStabError

__all__ = ["Margin", "stack_quantiles", "GRID_CELLS"]

#: Cells of the tabulated CDF of a continuous family over the measure's range.
GRID_CELLS = 2048
#: |theta| of the mean-shifting Beta(e^theta, e^-theta) is searched within this bound;
#: beyond it the Beta has all but 1e-9 of its mass within 1e-9 of an end.
_THETA_MAX = 20.0
#: A planted mean is reached to this absolute error (it is solved to 1e-12).
MEAN_ATOL = 1e-9


@short_repr
@dataclass(frozen=True, eq=False)
class Margin:
    r"""One system's score distribution, tabulated as a piecewise-linear quantile function.

    Attributes
    ----------
    family : str
        The fitted family (:class:`irstab.simulate.families.Family` value), with
        ``"shifted"`` appended once :meth:`with_mean` has moved it.
    params : tuple of (str, float)
        The family's fitted parameters on the unit range (``a, b`` of a beta,
        ``mu, sigma`` of a truncated normal, the bandwidth of a kernel, ``p_lo, p_hi``
        the point masses at the ends of a continuous family, ``theta`` of a shift).
    u, x : numpy.ndarray
        The knots :math:`(F_k, x_k)` (read-only; module docstring).
    bounds : (float, float)
        The measure's range.
    loglik, df : float
        Log-likelihood of the data the family was fitted to (on the measure's scale)
        and its degrees of freedom (effective ones for a kernel); NaN if not fitted.
    n : int
        Scores the fit saw (0 if not fitted).
    candidates : tuple of (str, float, float, float)
        Every family tried: ``(family, loglik, df, bic)``, best first.
    """

    family: str
    params: tuple[tuple[str, float], ...]
    u: np.ndarray = field(repr=False)
    x: np.ndarray = field(repr=False)
    bounds: tuple[float, float] = (0.0, 1.0)
    loglik: float = math.nan
    df: float = math.nan
    n: int = 0
    candidates: tuple[tuple[str, float, float, float], ...] = ()

    def __post_init__(self):
        for name in ("u", "x"):
            a = np.array(getattr(self, name), dtype=np.float64)
            a.setflags(write=False)
            object.__setattr__(self, name, a)

    # ---------------------------------------------------------------- moments

    @property
    def bic(self) -> float:
        r"""Schwarz's criterion of the fit, :math:`-2\ell + \mathrm{df}\,\log n`."""
        if self.n <= 0:
            return math.nan
        return -2.0 * self.loglik + self.df * math.log(self.n)

    @property
    def mean(self) -> float:
        """Expected score (exact for the tabulated distribution)."""
        return float(_mean(self.u, self.x))

    @property
    def var(self) -> float:
        """Variance of the score (exact for the tabulated distribution)."""
        du, x0, x1 = np.diff(self.u), self.x[:-1], self.x[1:]
        m = self.mean
        # centred, so that a small variance of a large mean keeps its digits
        c0, c1 = x0 - m, x1 - m
        return float(max(du @ ((c0 * c0 + c0 * c1 + c1 * c1) / 3.0), 0.0))

    def mass(self, value: float) -> float:
        """Probability of exactly ``value`` (the point mass there, 0 if none)."""
        du = np.diff(self.u)
        at = (self.x[:-1] == value) & (self.x[1:] == value)
        return float(du[at].sum())

    @property
    def p_lo(self) -> float:
        """Probability of the range's lower end (a score of 0 on most measures)."""
        return self.mass(self.bounds[0])

    @property
    def p_hi(self) -> float:
        """Probability of the range's upper end."""
        return self.mass(self.bounds[1])

    def ppf(self, q) -> np.ndarray:
        """The quantile function at ``q`` (array-like in [0, 1]), vectorised."""
        q = np.asarray(q, dtype=np.float64)
        return stack_quantiles((self,), q.reshape(-1, 1)).reshape(q.shape)

    def cdf(self, v) -> np.ndarray:
        """P(X <= v), vectorised (right-continuous at point masses)."""
        v = np.asarray(v, dtype=np.float64)
        # the last knot at or below v: F there, plus the linear part of a cell it cuts
        k = np.searchsorted(self.x, v, side="right")
        out = np.where(k >= len(self.x), 1.0, 0.0)
        inside = (k > 0) & (k < len(self.x))
        kk = np.clip(k, 1, len(self.x) - 1)
        x0, x1, f0, f1 = self.x[kk - 1], self.x[kk], self.u[kk - 1], self.u[kk]
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.where(x1 > x0, (v - x0) / np.where(x1 > x0, x1 - x0, 1.0), 1.0)
        return np.where(inside, f0 + w * (f1 - f0), out)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` independent scores (inverse transform of ``rng.random``)."""
        return self.ppf(rng.random(n))

    # ---------------------------------------------------------------- planting

    def with_mean(self, target: float, *, name: str = "margin") -> Margin:
        r"""This margin moved to expected value ``target`` (module docstring, *Planted means*).

        Parameters
        ----------
        target : float
            The new mean; strictly between the smallest and the largest score the
            margin gives positive probability (the ends are reached only by point
            masses of everything).
        name : str
            How errors name the margin (e.g. the system).

        Only the knots' probabilities move, so a continuous part needs knots inside
        it (every fitted family has 2,049); a margin of one cell cannot be moved.

        Returns
        -------
        Margin
            Family ``"<family>, shifted"``, params with ``theta`` appended, the same
            values ``x`` and the knots' probabilities mapped by the Beta CDF; its
            :attr:`mean` equals ``target`` to :data:`MEAN_ATOL`.

        Raises
        ------
        IRStabError
            ``target`` is not a finite number inside the margin's reach.

        Examples
        --------
        >>> import numpy as np
        >>> grid = np.linspace(0.0, 1.0, 257)
        >>> m = Margin("uniform", (), u=grid, x=grid)   # uniform on [0, 1], mean 0.5
        >>> round(m.with_mean(0.6).mean, 12)
        0.6
        """
        if not isinstance(target, (int, float, np.floating, np.integer)) or isinstance(target, bool) \
                or not math.isfinite(target):
            raise IRStabError(f"{name}: target mean must be a finite number, got {target!r}")
        target = float(target)
        if abs(target - self.mean) <= MEAN_ATOL:
            return self
        # a margin is immutable: its extreme shifts and each mean it was moved to are kept
        # (a simulation plants the same systems at the same differences again and again)
        memo = self.__dict__.setdefault("_moved", {})
        if target in memo:
            return memo[target]
        lo, hi = self._reach()
        theta_lo, theta_hi = -_THETA_MAX, _THETA_MAX
        if "reach" not in memo:
            memo["reach"] = self._shifted_mean(theta_lo), self._shifted_mean(theta_hi)
        m_lo, m_hi = memo["reach"]
        if not m_lo + MEAN_ATOL < target < m_hi - MEAN_ATOL:
            raise IRStabError(
                f"{name}: target mean {target:.6g} is out of reach: the margin's scores lie in "
                f"[{lo:.6g}, {hi:.6g}] and a shift of its distribution reaches means in "
                f"({m_lo:.6g}, {m_hi:.6g}) only; ask for a smaller difference"
            )
        # brentq starts at the bracket's ends, whose means the memo holds: the same numbers
        # without two of its dozen Beta CDFs over every knot

        def gap(t: float) -> float:
            mean = m_lo if t == theta_lo else m_hi if t == theta_hi else self._shifted_mean(t)
            return mean - target

        theta = optimize.brentq(gap, theta_lo, theta_hi,
                                xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)
        u = _shift(self.u, theta)
        mean = float(_mean(u, self.x))
        if abs(mean - target) > MEAN_ATOL:  # the solve failed to resolve it: never silently off
            raise IRStabError(f"{name}: could not reach the mean {target:.6g} (got {mean:.6g})")
        family = self.family if self.family.endswith(", shifted") else f"{self.family}, shifted"
        memo[target] = replace(self, family=family, params=self.params + (("theta", float(theta)),),
                               u=u)
        return memo[target]

    def _reach(self) -> tuple[float, float]:
        du = np.diff(self.u)
        pos = np.flatnonzero(du > 0)
        return float(self.x[pos[0]]), float(self.x[pos[-1] + 1])

    def _shifted_mean(self, theta: float) -> float:
        return float(_mean(_shift(self.u, theta), self.x))

    # ---------------------------------------------------------------- presentation

    def _summary(self) -> str:
        params = ", ".join(f"{k}={v:.4g}" for k, v in self.params)
        return (f"{self.family}({params}) on [{self.bounds[0]:g}, {self.bounds[1]:g}]: "
                f"mean {self.mean:.4f}, sd {math.sqrt(self.var):.4f}, "
                f"P(lo) {self.p_lo:.3f}, P(hi) {self.p_hi:.3f}")

    def to_dict(self) -> dict:
        """Family, parameters, moments and fit criteria (plain Python types)."""
        return {
            "family": self.family,
            "params": {k: float(v) for k, v in self.params},
            "bounds": [float(self.bounds[0]), float(self.bounds[1])],
            "mean": self.mean,
            "sd": math.sqrt(self.var),
            "p_lo": self.p_lo,
            "p_hi": self.p_hi,
            "loglik": _json_float(self.loglik),
            "df": _json_float(self.df),
            "bic": _json_float(self.bic),
            "n": int(self.n),
            "candidates": [
                {"family": f, "loglik": _json_float(ll), "df": _json_float(df),
                 "bic": _json_float(b)} for f, ll, df, b in self.candidates
            ],
        }


def _json_float(v: float):
    return float(v) if math.isfinite(v) else None


def _mean(u: np.ndarray, x: np.ndarray) -> float:
    return np.diff(u) @ ((x[:-1] + x[1:]) * 0.5)


def _shift(u: np.ndarray, theta: float) -> np.ndarray:
    """Knot probabilities mapped by the Beta(e^theta, e^-theta) CDF (ends kept exact)."""
    if theta == 0.0:
        return u
    out = special.betainc(math.exp(theta), math.exp(-theta), u)
    out[0], out[-1] = 0.0, 1.0
    return np.maximum.accumulate(out)


def stack_quantiles(margins, q: np.ndarray) -> np.ndarray:
    r"""Every margin's quantile function at once: ``out[:, s] = margins[s].ppf(q[:, s])``.

    One ``searchsorted`` over all systems' knots, offset by :math:`2s` so that they
    form one increasing array (the offsets cost at most 7 of float64's 53 bits below
    256 systems), then the linear interpolation of the module docstring. No Python
    loop over systems or draws.

    Parameters
    ----------
    margins : sequence of Margin
        ``S`` margins.
    q : numpy.ndarray, shape (N, S)
        Probabilities in [0, 1].

    Returns
    -------
    numpy.ndarray, shape (N, S)
    """
    S = len(margins)
    if q.ndim != 2 or q.shape[1] != S:
        raise IRStabError(f"stack_quantiles: expected probabilities of shape (N, {S}), "
                          f"got {q.shape}")
    sizes = np.array([len(m.u) for m in margins])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    offset = 2.0 * np.arange(S)
    flat_u = np.concatenate([m.u + 2.0 * s for s, m in enumerate(margins)])
    flat_x = np.concatenate([m.x for m in margins])
    qq = np.clip(q, 0.0, 1.0) + offset
    k = np.searchsorted(flat_u, qq, side="left")
    # q = 0 lands on a margin's first knot: use its first cell of positive mass instead
    k = np.clip(k, starts + 1, starts + sizes - 1)
    f0, f1 = flat_u[k - 1], flat_u[k]
    x0, x1 = flat_x[k - 1], flat_x[k]
    span = f1 - f0
    w = np.where(span > 0, (qq - f0) / np.where(span > 0, span, 1.0), 1.0)
    return x0 + np.clip(w, 0.0, 1.0) * (x1 - x0)
