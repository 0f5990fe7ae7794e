"""Effects of a design, their D-study divisors and which error each belongs to.

The effects (variance components) of each design, in Brennan's notation, the
residual last; which of them make up the relative and the absolute error of a
D-study, and the sample sizes each is divided by (Brennan 2001, §4.1-4.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from ..._numeric import negligible
from ...errors import IRStabError

__all__ = ["Design", "Effect", "effects_of", "clean_components", "coefficient_weights",
           "divisors", "FACETS"]

FACETS = ("s", "t", "a")


class Design(str, Enum):
    """Design of a three-facet G-study (systems x topics x assessors)."""

    crossed = "crossed"  # s x t x a: every assessor judged every topic
    nested = "nested"  # s x (a:t): each topic has its own assessors


@dataclass(frozen=True)
class Effect:
    """One variance component: its Brennan label and the facets indexing it."""

    label: str
    facets: frozenset[str]

    @property
    def is_object(self) -> bool:
        """The universe-score effect (systems)."""
        return self.facets == frozenset("s")


def _effects(*labels: str) -> tuple[Effect, ...]:
    return tuple(Effect(lab, frozenset(lab.replace(":", "").replace(",e", ""))) for lab in labels)


_EFFECTS = {
    (Design.crossed, 2): _effects("s", "t", "st"),
    (Design.crossed, 3): _effects("s", "t", "a", "st", "sa", "ta", "sta"),
    (Design.nested, 3): _effects("s", "t", "a:t", "st", "sa:t"),
}


def effects_of(design: Design | str, n_facets: int = 3) -> tuple[Effect, ...]:
    """Effects of a design, the residual last (``n_facets`` 2 or 3)."""
    try:
        return _EFFECTS[(Design(design), n_facets)]
    except (ValueError, KeyError):
        raise IRStabError(
            f"design: expected 'crossed' (2 or 3 facets) or 'nested' (3 facets), "
            f"got {design!r} with {n_facets} facets"
        ) from None


def clean_components(comps: np.ndarray) -> np.ndarray:
    """Components negligible against the sum of their absolute values set to exactly 0.

    The same rule as the two-facet G-study (:func:`irstab._numeric.negligible`):
    a difference of two equal mean squares is rounding noise, neither a
    negative variance nor a signal.
    """
    comps = np.asarray(comps, dtype=float)
    scale = np.abs(comps).sum(axis=-1, keepdims=True)
    return np.where(negligible(comps, scale), 0.0, comps)


def coefficient_weights(design: Design | str, n_facets: int = 3):
    """Masks over the effects: ``(object, relative_error, absolute_error)``.

    Relative error :math:`\\sigma^2(\\delta)` sums the effects that contain
    ``s`` (but are not ``s``), absolute error :math:`\\sigma^2(\\Delta)` every
    effect but ``s``; each divided by the D-study sample sizes of its other
    facets (:func:`divisors`).
    """
    effects = effects_of(design, n_facets)
    obj = np.array([e.is_object for e in effects])
    rel = np.array([("s" in e.facets) and not e.is_object for e in effects])
    return obj, rel, ~obj


def divisors(design: Design | str, n_topics, n_assessors=1, n_facets: int = 3) -> np.ndarray:
    """D-study divisor of each effect, ``[..., n_effects]``: product of n' of its facets but s."""
    n_t = np.asarray(n_topics, dtype=float)[..., None]
    n_a = np.asarray(n_assessors, dtype=float)[..., None]
    effects = effects_of(design, n_facets)
    has_t = np.array(["t" in e.facets for e in effects])
    has_a = np.array(["a" in e.facets for e in effects])
    return np.where(has_t, n_t, 1.0) * np.where(has_a, n_a, 1.0)
