r"""A smooth surrogate of discriminative power: the share of significant system pairs.

Sakai (SIGIR 2006) counts the pairs of systems that a paired test on the
per-topic scores separates at level :math:`\alpha`; Kanoulas & Aslam (CIKM
2009, §3.5) measured it for their optima but set optimising it aside as "not a
trivial optimization". Its count is a step function of the scores, so it is
replaced by a smooth step of each pair's paired t statistic.

For systems :math:`a < b` with per-topic differences
:math:`z_t = x_{at} - x_{bt}` (:math:`t = 1..T`), mean :math:`m`, variance
:math:`v = \sum_t (z_t - m)^2 / (T - 1)` and :math:`u = t^2 = T m^2 / v`,

.. math::

    D(x) = \frac{1}{P} \sum_{a<b} \sigma\!\left(\frac{u_{ab} - c^2}{2 c \tau}\right),
    \qquad \sigma(s) = \frac{1}{1 + e^{-s}},

where :math:`c = t_{1-\alpha/2,\,T-1}` is the two-sided critical value of the
paired t test and :math:`P` the number of pairs. Near :math:`|t| = c` the
argument is :math:`\approx (|t| - c)/\tau`, so :math:`\tau` (default
:data:`TAU` = 0.5) is the width of the step in units of t. Working with
:math:`t^2` keeps :math:`D` smooth where :math:`t` changes sign. As
:math:`\tau \to 0`, :math:`D` tends to the share of pairs with
:math:`|t| > c` (the paired t tests of :func:`irstab.compare.paired_t_tests`).

Gradient
--------
With :math:`r_t = z_t - m`,

.. math::

    \frac{\partial u}{\partial z_t} = \frac{2m}{v} - \frac{2 T m^2 r_t}{(T-1) v^2},

and :math:`\partial z_t / \partial x_{at} = 1`, :math:`\partial z_t /
\partial x_{bt} = -1`; :math:`\sigma' = \sigma(1-\sigma)`. All pairs are
computed at once (arrays of shape pairs x topics); no Python loop runs over
pairs or topics.

Conventions, the paired tests' (:mod:`irstab.compare.discriminative`): a pair
whose differences are all equal has :math:`v = 0`; it counts as separated
(:math:`\sigma = 1`, no gradient) when :math:`m \ne 0` and not at all (0, no
gradient) when the two systems tie on every topic. "Equal" and "tie" allow
the same rounding tolerance as those tests, 1e-12 times the larger of the two
systems' largest absolute score (:func:`irstab._numeric.pair_tolerance`): two
runs whose scores differ by 1e-16 on every topic tie, so rounding noise never
counts as separation.

References
----------
T. Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR 2006.
E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009.
"""

from __future__ import annotations

import numpy as np

from .._numeric import pair_tolerance

__all__ = ["ALPHA", "TAU", "critical_value", "discrimination_and_gradient", "discrimination_batch"]

#: Significance level of the paired test whose count the surrogate smooths.
ALPHA = 0.05
#: Width of the smooth step, in units of the t statistic.
TAU = 0.5

_CRIT: dict[tuple[int, float], float] = {}


def critical_value(n_topics: int, alpha: float = ALPHA) -> float:
    """Two-sided critical value :math:`t_{1-\\alpha/2, T-1}` (Student's t quantile)."""
    key = (int(n_topics), float(alpha))
    if key not in _CRIT:
        from scipy.special import stdtrit  # scipy.special: lighter than scipy.stats

        _CRIT[key] = float(stdtrit(n_topics - 1, 1.0 - alpha / 2.0))
    return _CRIT[key]


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, k=1)


def _statistic(z: np.ndarray, tol: np.ndarray):
    """``u = t^2``, mean, centred differences, variance, degenerate masks (last axis: topics).

    ``tol``: each pair's largest difference of two equal scores (module docstring).
    """
    T = z.shape[-1]
    m = z.mean(axis=-1)
    r = z - m[..., None]
    v = (r * r).sum(axis=-1) / (T - 1)
    tie = (np.abs(z) <= tol[..., None]).all(axis=-1)
    flat = tie | (v <= tol * tol)
    safe = np.where(flat, 1.0, v)
    u = np.where(flat, 0.0, T * m * m / safe)
    return u, m, r, safe, flat, tie


def _step(u, flat, tie, c: float, tau: float):
    s = 0.5 * (1.0 + np.tanh((u - c * c) / (4.0 * c * tau)))  # the logistic, without overflow
    return np.where(flat, np.where(tie, 0.0, 1.0), s)


#: Pairs x topics differences at most computed at once by :func:`discrimination_batch`.
_CHUNK = 1 << 18


def discrimination_batch(x: np.ndarray, alpha: float = ALPHA, tau: float = TAU) -> np.ndarray:
    """:math:`D` for a batch ``x[..., s, t]`` (no gradient).

    One matrix with more than :data:`_CHUNK` differences is taken a block of pairs at
    a time (each pair's statistic is its own, so the value is the same to the last
    bit): the block stays in cache, where all pairs at once (19,900 x 1,000 for 200
    systems) pass 160 MB arrays through memory, 10x slower.
    """
    x = np.asarray(x, dtype=float)
    S, T = x.shape[-2:]
    ia, ib = _pairs(S)
    tol = pair_tolerance(x, ia, ib)
    c = critical_value(T, alpha)
    if x.ndim > 2 or len(ia) * T <= _CHUNK:
        z = x[..., ia, :] - x[..., ib, :]
        u, _, _, _, flat, tie = _statistic(z, tol)
        return _step(u, flat, tie, c, tau).mean(axis=-1)
    step = np.empty(len(ia))
    rows = max(1, _CHUNK // T)
    for lo in range(0, len(ia), rows):  # blocks of pairs, not single pairs
        sl = slice(lo, lo + rows)
        u, _, _, _, flat, tie = _statistic(x[ia[sl]] - x[ib[sl]], tol[sl])
        step[sl] = _step(u, flat, tie, c, tau)
    return step.mean()


def discrimination_and_gradient(
    x: np.ndarray, alpha: float = ALPHA, tau: float = TAU
) -> tuple[float, np.ndarray]:
    r"""The surrogate :math:`D(x)` of the share of significant pairs and its gradient.

    Parameters
    ----------
    x : numpy.ndarray, shape (n_systems, n_topics)
    alpha : float
        Level of the two-sided paired t test.
    tau : float
        Width of the smooth step in units of t.

    Returns
    -------
    value : float
        In [0, 1]: the mean over system pairs of the smooth step (module docstring).
    grad : numpy.ndarray, shape of ``x``

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.9, 0.8, 0.7, 0.9], [0.1, 0.2, 0.1, 0.3], [0.5, 0.4, 0.6, 0.5]])
    >>> v, g = discrimination_and_gradient(x, tau=0.01)
    >>> round(v, 6)  # all 3 pairs have |t| far above t_{0.975,3} = 3.18
    1.0
    """
    x = np.asarray(x, dtype=float)
    S, T = x.shape
    c = critical_value(T, alpha)
    ia, ib = _pairs(S)
    z = x[ia] - x[ib]
    u, m, r, v, flat, tie = _statistic(z, pair_tolerance(x, ia, ib))
    s = _step(u, flat, tie, c, tau)
    value = float(s.mean())
    ds = np.where(flat, 0.0, s * (1.0 - s)) / (2.0 * c * tau) / len(ia)
    du = (2.0 * m / v)[:, None] - (2.0 * T * m * m / ((T - 1) * v * v))[:, None] * r
    gz = ds[:, None] * du  # dD/dz, (pairs, topics)
    grad = np.zeros_like(x)
    np.add.at(grad, ia, gz)
    np.add.at(grad, ib, -gz)
    return value, grad
