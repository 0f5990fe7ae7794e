"""Measure objects, the registry, and canonical strings.

A measure is a frozen dataclass: hashable, comparable, and printed as a
canonical string that :func:`irstab.metrics.parse_measure` reads back to an
equal object, e.g. ``nDCG@10``, ``nDCG(gain=exp,discount=zipf)@20``,
``AP(rel=2)``, ``RBP(p=0.8)``. Parameters at their default are omitted.

Every measure computes a ``(n_systems, n_topics)`` float64 matrix from a
:class:`~irstab.collection.Collection` with :meth:`Measure.compute`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from ..errors import MeasureError

__all__ = ["Measure", "REGISTRY", "register", "format_value", "check_depth", "Aggregate",
           "aggregate"]

REGISTRY: dict[str, type[Measure]] = {}


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator adding a measure class to :data:`REGISTRY` under ``cls.name``."""
    if cls.name in REGISTRY:
        raise RuntimeError(f"measure {cls.name!r} registered twice")
    REGISTRY[cls.name] = cls
    return cls


def format_value(value: Any) -> str:
    """Canonical text of a parameter value; floats print in shortest round-trip form."""
    if hasattr(value, "canonical"):
        return value.canonical()
    if isinstance(value, tuple):
        return "(" + ",".join(format_value(v) for v in value) + ")"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        f = float(value)
        if f.is_integer() and abs(f) < 1e15:
            return str(int(f))
        return repr(f)
    return str(value)


class Aggregate(str, Enum):
    """How a measure's per-topic scores combine into its summary over topics (topic ``all``)."""

    MEAN = "mean"  # arithmetic mean: every measure but those below
    GEOMETRIC = "geometric"  # exp(mean(log x)): trec_eval's gm_map, gm_bpref
    NONE = "none"  # no summary: trec_eval's relstring, a per-topic string


def _geometric(values: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):  # a 0 score gives exp(-inf) = 0, as it should
        return np.exp(np.log(values).mean(axis=-1))


_AGGREGATES = {
    Aggregate.MEAN: lambda values: values.mean(axis=-1),
    Aggregate.GEOMETRIC: _geometric,
    Aggregate.NONE: None,
}


def aggregate(kind: Aggregate, values: np.ndarray) -> np.ndarray | None:
    """The summary of ``values[..., t]`` over topics (the last axis), or None (no summary)."""
    fn = _AGGREGATES[Aggregate(kind)]
    return None if fn is None else fn(values)


@dataclass(frozen=True)
class Measure:
    """Base class of all measures.

    Subclasses set ``name`` (registry key), ``formula`` and ``summary`` (shown
    by ``irstab measures``) and implement :meth:`compute`. ``cutoff`` is the
    ``@k`` of the canonical string (``None``: the whole ranking up to the
    collection's depth).
    """

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    formula: ClassVar[str] = ""
    cutoff_allowed: ClassVar[bool] = True
    cutoff_required: ClassVar[bool] = False
    #: the summary over topics (:class:`Aggregate`)
    aggregate: ClassVar[Aggregate] = Aggregate.MEAN

    cutoff: int | None = None

    def __post_init__(self) -> None:
        k = self.cutoff
        if k is not None:
            if not self.cutoff_allowed:
                raise MeasureError(f"{self.name} takes no @k cutoff")
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
                raise MeasureError(f"{self.name}: cutoff @k must be a positive integer, got {k!r}")
        elif self.cutoff_required:
            raise MeasureError(f"{self.name} needs a cutoff, e.g. {self.name}@10")
        self._validate()

    def _validate(self) -> None:
        """Check parameter values; raise :class:`MeasureError` naming the parameter."""

    # -------------------------------------------------------------- naming

    def params(self) -> dict[str, Any]:
        """Parameters that differ from their defaults, in declaration order."""
        out = {}
        for f in dataclasses.fields(self):
            if f.name == "cutoff":
                continue
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = value
        return out

    def canonical(self) -> str:
        params = self.params()
        text = self.name
        if params:
            text += "(" + ",".join(f"{k}={format_value(v)}" for k, v in params.items()) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def __str__(self) -> str:
        return self.canonical()

    @classmethod
    def from_params(cls, params: Mapping[str, Any], cutoff: int | None) -> Measure:
        """Build from parsed parameters; unknown names raise :class:`MeasureError`."""
        fields = {f.name for f in dataclasses.fields(cls)} - {"cutoff"}
        unknown = set(params) - fields
        if unknown:
            known = ", ".join(sorted(fields)) or "none"
            raise MeasureError(
                f"{cls.name} has no parameter {sorted(unknown)[0]!r} (parameters: {known})"
            )
        return cls(cutoff=cutoff, **{k: cls._coerce(k, v) for k, v in params.items()})

    @classmethod
    def takes_rel(cls, params: Mapping[str, Any]) -> bool:
        """Whether a relevance level (trec_eval ``-l``) applies, given the other parameters."""
        return "rel" in {f.name for f in dataclasses.fields(cls)}

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        """Convert a parsed value to the field's type (numbers, names, tuples)."""
        f = {f.name: f for f in dataclasses.fields(cls)}[key]
        default = f.default
        if isinstance(default, bool):
            raise MeasureError(f"{cls.name}: parameter {key} cannot be set")
        if isinstance(default, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            if not isinstance(value, int):
                raise MeasureError(f"{cls.name}: {key} must be an integer, got {value!r}")
            return value
        if isinstance(default, float):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise MeasureError(f"{cls.name}: {key} must be a number, got {value!r}")
            return float(value)
        return value

    # ------------------------------------------------------------- compute

    def compute(self, collection) -> np.ndarray:
        """Scores of every system on every topic, shape ``(n_systems, n_topics)``."""
        raise NotImplementedError(f"{type(self).__name__}.compute")

    def depth_needed(self) -> int | None:
        """Ranks this measure reads (``None``: all stored ranks)."""
        return self.cutoff

    @staticmethod
    def _check_number(name: str, key: str, value: float, lo: float, hi: float,
                      lo_open: bool = False, hi_open: bool = False) -> None:
        bad = (
            not math.isfinite(value)
            or (value <= lo if lo_open else value < lo)
            or (value >= hi if hi_open else value > hi)
        )
        if bad:
            lb = "(" if lo_open else "["
            rb = ")" if hi_open else "]"
            raise MeasureError(f"{name}: {key} must be in {lb}{lo}, {hi}{rb}, got {value!r}")


def check_depth(measures, depth: int) -> None:
    """Raise :class:`~irstab.errors.MeasureError` if a measure reads deeper than ``depth``."""
    for m in measures:
        k = m.depth_needed()
        if k is not None and k > depth:
            raise MeasureError(
                f"{m} reads {k} ranks but the evaluation depth is {depth}; raise --depth "
                "or lower the cutoff"
            )
