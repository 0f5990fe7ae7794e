r"""Reliability coefficients of a D-study from the signal-to-noise ratio of one topic.

Erho2 and Phi at :math:`n'` topics are both :math:`n'\psi / (1 + n'\psi)` for a
signal-to-noise ratio :math:`\psi` of one topic (:math:`\sigma^2_{sys}/\sigma^2_{res}`
for Erho2, :math:`\sigma^2_{sys}/(\sigma^2_{top}+\sigma^2_{res})` for Phi); the
functions here work on :math:`\psi` arrays of any shape, with ``psi = inf`` giving 1
and ``psi = 0`` needing infinitely many topics. Also the option enums and the
validation shared by the G-study, its bootstrap and the three-facet study.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import Enum

import numpy as np

from ..errors import IRStabError

__all__ = ["Coefficient", "IntervalMethod", "Resample", "psi_of", "coef_from_psi",
           "needed_from_psi", "f_quantile", "safe_ratio", "check_confidence", "check_target",
           "check_coefficient", "CoefficientValue"]

_CEIL_TOL = 1e-9  # relative slack when rounding topics needed up


class Coefficient(str, Enum):
    """Reliability coefficient of a D-study."""

    erho2 = "erho2"
    phi = "phi"


class IntervalMethod(str, Enum):
    """How confidence intervals are computed."""

    f = "f"  # Feldt (Erho2) and Arteaga et al. (Phi), normal theory
    bootstrap = "bootstrap"  # percentile bootstrap, see irstab.stability.bootstrap


class Resample(str, Enum):
    """What the bootstrap resamples (with replacement)."""

    topics = "topics"
    systems = "systems"
    both = "both"


class CoefficientValue(float):
    """A coefficient at the observed number of topics (a float) that can also be called
    with another number of topics: ``g.phi`` is a number, ``g.phi(50)`` Phi for 50 topics.

    It keeps ``g.phi()`` and ``g.phi(n)`` working beside the attribute style of
    ``g.var_system``.
    """

    __slots__ = ("_at",)

    def __new__(cls, value: float, at: Callable[..., float]):
        obj = super().__new__(cls, value)
        obj._at = at
        return obj

    def __call__(self, *sizes, **named):
        return self._at(*sizes, **named)

    def __reduce__(self):  # pickles as the number it is
        return (float, (float(self),))


def safe_ratio(num, den):
    """``num / den`` with ``x/0 = inf`` for ``x > 0`` and ``0/0 = 0`` (no warnings)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out = np.where(den > 0, out, np.where(num > 0, np.inf, 0.0))
    return out


def psi_of(components: np.ndarray, coefficient: Coefficient) -> np.ndarray:
    """Signal-to-noise ratio of one topic from (clipped) components ``[..., 3]``."""
    c = np.maximum(components, 0.0)
    noise = c[..., 2] if coefficient is Coefficient.erho2 else c[..., 1] + c[..., 2]
    return safe_ratio(c[..., 0], noise)


def coef_from_psi(psi, n_topics) -> np.ndarray:
    """``n psi / (1 + n psi)``, written so that ``psi = inf`` gives 1."""
    with np.errstate(divide="ignore"):
        return 1.0 - 1.0 / (1.0 + np.multiply(n_topics, psi))


def needed_from_psi(psi, target: float) -> np.ndarray:
    """Smallest integer ``n >= 1`` with ``n psi / (1 + n psi) >= target`` (inf if psi = 0)."""
    psi = np.asarray(psi, dtype=float)
    with np.errstate(divide="ignore"):
        raw = target / ((1.0 - target) * psi)
    n = np.ceil(raw * (1.0 - _CEIL_TOL))
    return np.where(np.isfinite(raw), np.maximum(n, 1.0), np.where(psi > 0, 1.0, np.inf))


def f_quantile(q: float, dfn, dfd):
    """Quantile of the F distribution; ``dfd = inf`` gives chi2(dfn) / dfn."""
    from scipy import special  # lazy: keeps `irstab --help` fast

    if math.isinf(dfd):
        return special.chdtri(dfn, 1.0 - q) / dfn
    return special.fdtri(dfn, dfd, q)


def check_confidence(confidence: float) -> float:
    if not (0.0 < confidence < 1.0):
        raise IRStabError(f"confidence: must be in (0, 1), got {confidence!r}")
    return float(confidence)


def check_target(target: float) -> float:
    if not (0.0 < target < 1.0):
        raise IRStabError(f"target: must be in (0, 1), got {target!r}")
    return float(target)


def check_coefficient(coefficient) -> Coefficient:
    try:
        return Coefficient(coefficient)
    except ValueError:
        raise IRStabError(f"coefficient: expected 'phi' or 'erho2', got {coefficient!r}") from None
