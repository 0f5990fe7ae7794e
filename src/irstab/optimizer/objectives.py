r"""What the optimizer maximises, as a function of the systems x topics score matrix.

Objective and gradient
----------------------
The variance components come from the same ANOVA kernel as the G-study
(:func:`irstab.stability.gstudy._components`). With row, column and grand
means :math:`\bar x_s, \bar x_t, \bar x` and residual
:math:`e_{st} = x_{st} - \bar x_s - \bar x_t + \bar x`,

.. math::

    \frac{\partial SS_{sys}}{\partial x_{st}} = 2(\bar x_s - \bar x), \quad
    \frac{\partial SS_{top}}{\partial x_{st}} = 2(\bar x_t - \bar x), \quad
    \frac{\partial SS_{res}}{\partial x_{st}} = 2 e_{st}

(the cross terms vanish because deviations from a mean sum to zero), and
through :math:`MS = SS/df` and the expected-mean-square equations
:math:`\sigma^2_{sys} = (MS_s - MS_r)/n_t`,
:math:`\sigma^2_{top} = (MS_t - MS_r)/n_s`, :math:`\sigma^2_{res} = MS_r`.
With :math:`V = \sigma^2_{sys} + \sigma^2_{top} + \sigma^2_{res}`,
:math:`\Phi(1) = \sigma^2_{sys}/V` has
:math:`\partial\Phi/\partial\sigma^2_{sys} = (\sigma^2_{top}+\sigma^2_{res})/V^2`
and :math:`\partial\Phi/\partial\sigma^2_{top} =
\partial\Phi/\partial\sigma^2_{res} = -\sigma^2_{sys}/V^2`
(:math:`E\rho^2(1) = \sigma^2_{sys}/(\sigma^2_{sys}+\sigma^2_{res})` likewise).
As in the G-study a negative component counts as 0 (and then contributes no
gradient); :math:`0/0 = 0`. Finally, with :math:`G = \partial\Phi/\partial x`,

.. math::

    \frac{\partial\Phi}{\partial N_{st}} = \frac{G_{st}}{D_t}, \qquad
    \frac{\partial\Phi}{\partial D_t} = -\sum_s \frac{G_{st}\,x_{st}}{D_t},

and the linear forms give the gradients in :math:`d` and :math:`g`. A topic
with :math:`D_t = 0` scores 0 (the nDCG convention) and has no gradient.

Optimising :math:`\Phi(1)` optimises :math:`\Phi(n')` for every :math:`n'`:
:math:`\Phi(n') = n'\Phi(1)/(1 + (n'-1)\Phi(1))` is increasing in
:math:`\Phi(1)` (Kanoulas & Aslam, CIKM 2009, §2.2).

References
----------
E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009.
R. L. Brennan (2001). *Generalizability Theory*. Springer, ch. 3.
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from ..errors import IRStabError
from ..stability.designs.crossed import crossed_components, scaled_components

__all__ = ["Vary", "Objective", "as_enum", "stability_and_gradient", "objective_and_gradient",
           "objective_batch", "stability_batch", "OBJECTIVE_FUNCTIONS"]


class Vary(str, Enum):
    """Which vectors are unknowns."""

    discount = "discount"
    gain = "gain"
    joint = "joint"


class Objective(str, Enum):
    """What is maximised: a function of the systems x topics nDCG matrix.

    ``phi`` and ``erho2``: the coefficient at one topic;
    ``discrimination``: the smooth share of significant system pairs
    (:mod:`irstab.optimizer.discrimination`).
    """

    phi = "phi"
    erho2 = "erho2"
    discrimination = "discrimination"


def as_enum(cls, value, name: str):
    """``cls(value)`` or an :class:`~irstab.errors.IRStabError` naming the parameter."""
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise IRStabError(f"{name}: expected one of {choices}, got {value!r}") from None


def _coefficient_grad(comps: np.ndarray, objective: Objective) -> tuple[float, np.ndarray]:
    """Coefficient at one topic and its derivative by the raw components."""
    c = np.maximum(comps, 0.0)
    active = comps > 0
    sys_, top, res = c
    noise = res if objective is Objective.erho2 else top + res
    total = sys_ + noise
    if total <= 0:
        return 0.0, np.zeros(3)
    value = sys_ / total
    d = np.array([noise, -sys_, -sys_]) / total**2
    if objective is Objective.erho2:
        d[1] = 0.0
    return float(value), d * active


def stability_and_gradient(
    x: np.ndarray, objective: Objective | str = Objective.phi
) -> tuple[float, np.ndarray]:
    r"""Phi(1) (or Erho2(1)) of a score matrix and its gradient by every cell.

    Parameters
    ----------
    x : numpy.ndarray, shape (n_systems, n_topics)
    objective : {"phi", "erho2"}

    Returns
    -------
    value : float
        The coefficient at one topic from the G-study's components
        (negative components count as 0; ``0/0 = 0``).
    grad : numpy.ndarray, shape of ``x``
        :math:`\partial value / \partial x_{st}` (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    >>> v, g = stability_and_gradient(x)
    >>> round(v, 4)  # gstudy(x).phi(1): 0.035 / (0.035 + 0.01 + 0.0225)
    0.5185
    >>> g.shape
    (4, 3)
    """
    objective = as_enum(Objective, objective, "objective")
    n_s, n_t = x.shape
    comps = crossed_components(x)
    value, dc = _coefficient_grad(comps, objective)
    if not dc.any():
        return value, np.zeros_like(x)
    add = np.add.reduce  # np.mean's reductions without its wrapper (small, many calls)
    grand = add(x, axis=None) / x.size
    rows = add(x, axis=1, keepdims=True) / n_t
    cols = add(x, axis=0, keepdims=True) / n_s
    d_ms_s = 2.0 * (rows - grand) / (n_s - 1)
    d_ms_t = 2.0 * (cols - grand) / (n_t - 1)
    d_ms_r = 2.0 * (x - rows - cols + grand) / ((n_s - 1) * (n_t - 1))
    grad = (
        dc[0] * (d_ms_s - d_ms_r) / n_t
        + dc[1] * (d_ms_t - d_ms_r) / n_s
        + dc[2] * d_ms_r
    )
    return value, grad


def _discrimination(x: np.ndarray) -> tuple[float, np.ndarray]:
    from .discrimination import discrimination_and_gradient

    return discrimination_and_gradient(x)


#: ``objective -> f(x) = (value, d value / d x)`` for a systems x topics score matrix ``x``.
#: Everything above the score matrix (nDCG's linear forms, the parametrisations, the
#: backends) is shared, so a new objective is one entry here and one in ``_BATCH``.
OBJECTIVE_FUNCTIONS = {
    Objective.phi: lambda x: stability_and_gradient(x, Objective.phi),
    Objective.erho2: lambda x: stability_and_gradient(x, Objective.erho2),
    Objective.discrimination: _discrimination,
}


def objective_and_gradient(x: np.ndarray, objective: Objective | str) -> tuple[float, np.ndarray]:
    """The objective of a score matrix ``x`` (systems x topics) and its gradient by every cell."""
    return OBJECTIVE_FUNCTIONS[as_enum(Objective, objective, "objective")](x)


def objective_batch(x: np.ndarray, objective: Objective | str) -> np.ndarray:
    """The objective for a batch ``x[..., s, t]`` (no gradient)."""
    objective = as_enum(Objective, objective, "objective")
    if objective is Objective.discrimination:
        from .discrimination import discrimination_batch

        return discrimination_batch(x)
    return stability_batch(x, objective)


def stability_batch(x: np.ndarray, objective: Objective | str = Objective.phi) -> np.ndarray:
    """The coefficient at one topic for a batch ``x[..., s, t]`` (no gradient)."""
    objective = Objective(objective)
    c = np.maximum(scaled_components(x)[0], 0.0)  # scale-free; a constant matrix gives 0
    noise = c[..., 2] if objective is Objective.erho2 else c[..., 1] + c[..., 2]
    total = c[..., 0] + noise
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, c[..., 0] / total, 0.0)
