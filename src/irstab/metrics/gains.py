"""Gain functions (grade -> value) and discount functions (rank -> weight) of DCG.

Both are immutable value objects with a canonical string, used as parameters
of :class:`~irstab.metrics.dcg.nDCG` and built explicitly as vectors.

Gains, for grade ``g`` (grades <= 0 always gain 0: unjudged documents share
grade 0)

=====================  ==================================================
``linear``             ``g`` (trec_eval's default)
``exp``                ``2**g - 1`` (Burges et al. 2005)
``(v0,..)``            one value per grade 0..max grade; ``v0`` must be 0
``levels(g1=v1,..)``   trec_eval's ``rel_level=gain`` pairs (``-m
                       ndcg.1=3.5,2=9``): the grades listed gain the value
                       given, every other grade its own value. DCG and nDCG
                       take values >= 0 and none for grade 0; trec_eval's
                       G, nDCG-rel, RnDCG and RBP take any.
=====================  ==================================================

Discounts, for rank ``r = 1, 2, ...`` and cutoff ``k``

================  =======================================================
``log2``          ``1 / log2(r + 1)`` (Burges et al.; trec_eval)
``log(base=b)``   ``1 / max(1, log_b r)``: Jarvelin & Kekalainen (2002);
                  no discount before rank b. (``1/log_b(r+1)`` would be a
                  rescaled ``log2`` and leave nDCG unchanged.)
``zipf``          ``1 / r``
``linear``        ``(k + 1 - r) / k``; needs a cutoff
``flat``          ``1`` (cumulative gain, no discount)
``(d1,..,dn)``    one weight per rank; ranks past n weigh 0 (a cutoff
                  given with it must be n)
================  =======================================================
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from ..errors import MeasureError

__all__ = ["Gain", "Discount", "GainKind", "DiscountKind"]


class GainKind(str, Enum):
    LINEAR = "linear"
    EXP = "exp"
    CUSTOM = "custom"
    LEVELS = "levels"


class DiscountKind(str, Enum):
    LOG2 = "log2"
    LOG = "log"
    ZIPF = "zipf"
    LINEAR = "linear"
    FLAT = "flat"
    CUSTOM = "custom"


def _as_tuple(what: str, values) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise MeasureError(f"{what} must be a tuple of numbers, got {values!r}") from None
    if not out:
        raise MeasureError(f"{what} must not be empty")
    if not all(math.isfinite(v) and v >= 0 for v in out):
        raise MeasureError(f"{what} values must be finite and >= 0, got {values!r}")
    return out


@dataclass(frozen=True)
class Gain:
    """A gain function; see the module docstring."""

    kind: GainKind = GainKind.LINEAR
    values: tuple[float, ...] = ()
    levels: tuple[tuple[int, float], ...] = ()  # (grade, gain) of kind LEVELS, by grade

    @classmethod
    def of(cls, spec) -> Gain:
        """From ``"linear"``, ``"exp"``, a sequence of values, ``("levels", {"g1": v, ...})``
        (what the parser reads from ``levels(g1=v,...)``), or a Gain."""
        if isinstance(spec, Gain):
            return spec
        if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "levels" \
                and isinstance(spec[1], dict):
            return cls.from_levels(_level_pairs(spec[1]))
        if isinstance(spec, str):
            try:
                kind = GainKind(spec)
            except ValueError:
                kind = None
            if kind is None or kind in (GainKind.CUSTOM, GainKind.LEVELS):
                raise MeasureError(f"gain must be linear, exp, a tuple of values or "
                                   f"levels(g1=v1,...), got {spec!r}")
            return cls(kind)
        values = _as_tuple("gain", spec)
        if values[0] != 0:
            raise MeasureError(
                f"gain[0] is the gain of grade 0 (non-relevant and unjudged) and must be 0, "
                f"got {values[0]!r}"
            )
        return cls(GainKind.CUSTOM, values)

    @classmethod
    def from_levels(cls, pairs) -> Gain:
        """trec_eval's ``rel_level=gain`` pairs (``{1: 3.5, 2: 9.0}``): listed grades gain
        the value given, the others their grade."""
        levels = tuple(sorted((int(g), float(v)) for g, v in dict(pairs).items()))
        if not levels:
            raise MeasureError("gain=levels(...) needs at least one grade, e.g. levels(g1=3)")
        for g, v in levels:
            if g < 0 or not math.isfinite(v):
                raise MeasureError(f"gain=levels(...): grade {g} gain {v}: grades must be >= 0 "
                                   "and gains finite")
        return cls(GainKind.LEVELS, levels=levels)

    def check_unsigned(self, measure: str) -> None:
        """Refuse a negative gain or a gain for grade 0 (which unjudged documents share in
        DCG's kernel); :class:`MeasureError` names the measure."""
        bad = [(g, v) for g, v in self.levels if v < 0 or (g == 0 and v != 0)]
        if bad:
            raise MeasureError(
                f"{measure}: gain={self.canonical()} gives grade {bad[0][0]} gain {bad[0][1]:g}; "
                "DCG and nDCG take gains >= 0 and 0 for grade 0 (unjudged documents share it)"
            )

    def vector(self, max_grade: int) -> np.ndarray:
        """Gains of grades ``0..max_grade`` as a float64 vector."""
        if self.kind is GainKind.LEVELS:
            g = np.arange(max_grade + 1, dtype=np.float64)
            for grade, value in self.levels:
                if grade <= max_grade:
                    g[grade] = value
            return g
        if self.kind is GainKind.CUSTOM:
            if len(self.values) != max_grade + 1:
                raise MeasureError(
                    f"gain={self.canonical()} has {len(self.values)} values but the qrels "
                    f"have grades 0..{max_grade} ({max_grade + 1} values needed)"
                )
            return np.array(self.values, dtype=np.float64)
        g = np.arange(max_grade + 1, dtype=np.float64)
        return _GAIN_FUNCTIONS[self.kind](g)

    def canonical(self) -> str:
        from .base import format_value

        if self.kind is GainKind.LEVELS:
            return "levels(" + ",".join(f"g{g}={format_value(v)}" for g, v in self.levels) + ")"
        return format_value(self.values) if self.kind is GainKind.CUSTOM else self.kind.value

    def __str__(self) -> str:
        return self.canonical()


def _level_pairs(params: dict) -> dict[int, float]:
    out = {}
    for key, value in params.items():
        m = re.fullmatch(r"g(\d+)", key)
        if m is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            raise MeasureError(f"gain=levels(...) takes gGRADE=VALUE pairs (levels(g1=3.5,g2=9)), "
                               f"got {key}={value!r}")
        out[int(m.group(1))] = float(value)
    return out


_GAIN_FUNCTIONS: dict[GainKind, Callable[[np.ndarray], np.ndarray]] = {
    GainKind.LINEAR: lambda g: g,
    GainKind.EXP: lambda g: np.exp2(g) - 1.0,
}


@dataclass(frozen=True)
class Discount:
    """A discount function; see the module docstring."""

    kind: DiscountKind = DiscountKind.LOG2
    base: float = 2.0
    values: tuple[float, ...] = ()

    @classmethod
    def of(cls, spec) -> Discount:
        """From a name, ``("log", {"base": b})``, a sequence of weights, or a Discount."""
        if isinstance(spec, Discount):
            return spec
        if isinstance(spec, str):
            try:
                kind = DiscountKind(spec)
            except ValueError:
                kind = None
            if kind is None or kind is DiscountKind.CUSTOM:
                raise MeasureError(
                    "discount must be log2, log(base=b), zipf, linear, flat or a tuple of "
                    f"weights, got {spec!r}"
                )
            return cls(kind)
        if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "log" and isinstance(spec[1], dict):
            params = spec[1]
            if set(params) != {"base"}:
                raise MeasureError(f"discount log takes exactly one parameter, base; got {params}")
            base = params["base"]
            if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 1 \
                    or not math.isfinite(base):
                raise MeasureError(f"discount log: base must be a number > 1, got {base!r}")
            return cls(DiscountKind.LOG, base=float(base))
        return cls(DiscountKind.CUSTOM, values=_as_tuple("discount", spec))

    @property
    def length(self) -> int | None:
        """Number of weights of a custom discount (its implied cutoff), else None."""
        return len(self.values) if self.kind is DiscountKind.CUSTOM else None

    def vector(self, n: int, cutoff: int | None = None) -> np.ndarray:
        """Weights of ranks ``1..n`` (float64); ``cutoff`` is the k of ``linear``."""
        r = np.arange(1, n + 1, dtype=np.float64)
        if self.kind is DiscountKind.CUSTOM:
            out = np.zeros(n)
            m = min(n, len(self.values))
            out[:m] = self.values[:m]
            return out
        if self.kind is DiscountKind.LINEAR:
            if cutoff is None:
                raise MeasureError("discount=linear needs a cutoff, e.g. nDCG(discount=linear)@20")
            return np.clip((cutoff + 1 - r) / cutoff, 0.0, None)
        if self.kind is DiscountKind.LOG:
            return 1.0 / np.maximum(1.0, np.log(r) / np.log(self.base))
        return _DISCOUNT_FUNCTIONS[self.kind](r)

    def canonical(self) -> str:
        from .base import format_value

        if self.kind is DiscountKind.CUSTOM:
            return format_value(self.values)
        if self.kind is DiscountKind.LOG:
            return f"log(base={format_value(self.base)})"
        return self.kind.value

    def __str__(self) -> str:
        return self.canonical()


_DISCOUNT_FUNCTIONS: dict[DiscountKind, Callable[[np.ndarray], np.ndarray]] = {
    DiscountKind.LOG2: lambda r: 1.0 / np.log2(r + 1.0),
    DiscountKind.ZIPF: lambda r: 1.0 / r,
    DiscountKind.FLAT: np.ones_like,
}
