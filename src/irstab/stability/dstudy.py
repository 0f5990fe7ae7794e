"""Results of a D-study: coefficients projected to topic-set sizes, topics needed.

Also :func:`crossed_phi`, Phi of any stack of score matrices by the crossed design's rule
(scaled to unit spread before the squares, constant up to rounding is no variance:
:mod:`irstab._numeric`), which the verdict, its topics needed and the optimizer use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._repr import short_repr
from .coefficients import Coefficient, IntervalMethod, coef_from_psi, psi_of
from .designs.crossed import scaled_components

__all__ = ["DStudy", "TopicsNeeded", "json_number", "json_count", "crossed_psi", "crossed_phi",
           "topic_count"]


def crossed_psi(x: np.ndarray, coefficient: Coefficient | str = Coefficient.phi) -> np.ndarray:
    """Signal-to-noise ratio of one topic of every matrix ``x[..., s, t]`` (scale-free).

    From :func:`~irstab.stability.designs.crossed.scaled_components`, clipped at 0 as
    the G-study does; 0 for a matrix constant up to rounding.
    """
    return psi_of(scaled_components(x)[0], Coefficient(coefficient))


def crossed_phi(x: np.ndarray, n_topics) -> np.ndarray:
    """Phi at ``n_topics`` of every matrix ``x[..., s, t]`` (the G-study's point estimate).

    The one computation of Phi from scores: invariant under ``a x + b``
    (``a != 0``) at any scale; 0 for a matrix constant up to rounding
    (:mod:`irstab._numeric`, *Constant matrices and scale*).

    Examples
    --------
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    >>> round(float(crossed_phi(x, 3)), 4), round(float(crossed_phi(1e-300 * x + 7e-299, 3)), 4)
    (0.7636, 0.7636)
    >>> float(crossed_phi(np.full((5, 7), 0.3) + np.eye(5, 7) * 5.551115123125783e-17, 7))
    0.0
    """
    return coef_from_psi(crossed_psi(x, Coefficient.phi), n_topics)


def json_number(v: float) -> float | None:
    return None if not math.isfinite(v) else float(v)


def json_count(v: float) -> int | None:
    return None if not math.isfinite(v) else int(v)


def topic_count(v: float) -> int | float:
    """A number of topics as an ``int``; ``math.inf`` (unreachable) stays a float."""
    v = float(v)
    return int(v) if math.isfinite(v) and v.is_integer() else v


@dataclass(frozen=True)
class TopicsNeeded:
    """Topics needed for a target coefficient, with its interval.

    ``n``, ``lower`` and ``upper`` are ``int``; ``math.inf`` means the target is
    not reached by any number of topics (the system variance, or its confidence
    limit, is 0). ``lower`` comes from the upper limit of the coefficient and
    ``upper`` from its lower limit.
    """

    coefficient: Coefficient
    target: float
    n: int | float
    lower: int | float
    upper: int | float
    confidence: float
    interval: IntervalMethod

    def __post_init__(self):
        for name in ("n", "lower", "upper"):
            object.__setattr__(self, name, topic_count(getattr(self, name)))

    def to_dict(self) -> dict:
        """JSON-ready dict; unreachable counts become ``None``."""
        return {
            "coefficient": self.coefficient.value,
            "target": self.target,
            "topics_needed": json_count(self.n),
            "ci": [json_count(self.lower), json_count(self.upper)],
            "confidence": self.confidence,
            "interval": self.interval.value,
        }


@short_repr
@dataclass(frozen=True)
class DStudy:
    """Erho2 and Phi projected to topic-set sizes, with intervals.

    Every per-size field is a tuple aligned with ``n_topics``. Point estimates
    come from the G-study; intervals from ``interval`` at ``confidence``.
    """

    name: str | None
    n_systems: int
    n_topics_observed: int
    n_topics: tuple[float, ...]
    erho2: tuple[float, ...]
    erho2_lower: tuple[float, ...]
    erho2_upper: tuple[float, ...]
    phi: tuple[float, ...]
    phi_lower: tuple[float, ...]
    phi_upper: tuple[float, ...]
    topics_needed: tuple[TopicsNeeded, ...]
    confidence: float
    interval: IntervalMethod
    n_resamples: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "n_topics", tuple(topic_count(n) for n in self.n_topics))

    def to_frame(self) -> pd.DataFrame:
        """One row per topic-set size: ``measure, n_topics, erho2, erho2_lower, ...``."""
        n = len(self.n_topics)
        return pd.DataFrame(
            {
                "measure": [self.name] * n,
                "n_topics": list(self.n_topics),
                "erho2": list(self.erho2),
                "erho2_lower": list(self.erho2_lower),
                "erho2_upper": list(self.erho2_upper),
                "phi": list(self.phi),
                "phi_lower": list(self.phi_lower),
                "phi_upper": list(self.phi_upper),
            }
        )

    def _summary(self) -> str:
        needed = ", ".join(
            f"{t.coefficient.value}>={t.target:g}: "
            + ("unreachable" if math.isinf(t.n) else f"{int(t.n)} topics")
            for t in self.topics_needed
        )
        sizes = f"{min(self.n_topics):g}..{max(self.n_topics):g}" if self.n_topics else "none"
        return f"{self.name or 'scores'}: {self.n_systems} systems, topic-set sizes {sizes}" + (
            f"; {needed}" if needed else "")

    def topics_needed_frame(self) -> pd.DataFrame:
        """One row per (coefficient, target).

        Columns ``measure, coefficient, target, topics_needed, lower, upper``.
        """
        return pd.DataFrame(
            {
                "measure": [self.name] * len(self.topics_needed),
                "coefficient": [t.coefficient.value for t in self.topics_needed],
                "target": [t.target for t in self.topics_needed],
                "topics_needed": [t.n for t in self.topics_needed],
                "lower": [t.lower for t in self.topics_needed],
                "upper": [t.upper for t in self.topics_needed],
            }
        )

    def to_dict(self) -> dict:
        """JSON-ready dict (intervals as two-element lists)."""
        return {
            "measure": self.name,
            "n_systems": self.n_systems,
            "n_topics_observed": self.n_topics_observed,
            "confidence": self.confidence,
            "interval": self.interval.value,
            "n_resamples": self.n_resamples,
            "curve": [
                {
                    "n_topics": n,
                    "erho2": e,
                    "erho2_ci": [el, eu],
                    "phi": p,
                    "phi_ci": [pl, pu],
                }
                for n, e, el, eu, p, pl, pu in zip(
                    self.n_topics,
                    self.erho2,
                    self.erho2_lower,
                    self.erho2_upper,
                    self.phi,
                    self.phi_lower,
                    self.phi_upper,
                )
            ],
            "topics_needed": [t.to_dict() for t in self.topics_needed],
        }
