"""Measures on condensed lists: unjudged documents removed before scoring (``judged_only``).

``nDCG(judged_only=true)@10`` scores each ranking with the unjudged documents
taken out and the rest moved up (Sakai's condensed lists, SIGIR 2007; trec_eval
``-J``; ir_measures' ``judged_only=True``, which calls trec_eval). Unjudged means
what trec_eval ``-J`` removes: a document absent from the qrels, or present
with a negative grade (pooled but not judged, the convention of trec_eval and of
:class:`~irstab.metrics.InfAP`); validated against pytrec_eval's
``judged_docs_only_flag`` on DL-2019 with grades rewritten to -1 and -2. The
ideal list, R and every other quantity of the topic are unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import MeasureError
from .base import Measure, format_value

__all__ = ["JudgedOnly", "condense", "build_measure", "CONDENSABLE"]

#: Measures that take ``judged_only`` (those ir_measures gives the parameter, and DCG).
CONDENSABLE = frozenset({"nDCG", "DCG", "AP", "P", "Recall", "RR", "Success", "IPrec", "SetP"})


def condense(collection):
    """The Collection with every ranking's unjudged documents removed (order kept).

    A stable sort of each ``[s, t]`` row that moves judged ranks (judged with a
    grade >= 0) first; the run length becomes the number of them retrieved.
    """
    judged = collection.judged & (collection.grades >= 0)  # grade < 0: pooled, unjudged
    order = np.argsort(~judged, axis=2, kind="stable")
    kept = np.take_along_axis(judged, order, axis=2)
    grades = np.where(kept, np.take_along_axis(collection.grades, order, axis=2), 0).astype(
        collection.grades.dtype)
    return dataclasses.replace(collection, grades=grades, judged=kept,
                               run_length=judged.sum(axis=2).astype(collection.run_length.dtype))


@dataclass(frozen=True)
class JudgedOnly(Measure):
    """A measure computed on condensed lists (see the module docstring).

    ``str()`` is the measure's own canonical string with ``judged_only=true``
    among its parameters, which :func:`irstab.metrics.parse_measure` reads back.
    """

    name: ClassVar[str] = "JudgedOnly"
    cutoff_allowed: ClassVar[bool] = False

    measure: Measure | None = None

    def _validate(self) -> None:
        if not isinstance(self.measure, Measure) or type(self.measure).name not in CONDENSABLE:
            raise MeasureError(
                "judged_only applies to " + ", ".join(sorted(CONDENSABLE)) + f", got {self.measure}"
            )

    def canonical(self) -> str:
        inner = self.measure
        params = [f"{k}={format_value(v)}" for k, v in inner.params().items()] + ["judged_only=true"]
        cutoff = f"@{inner.cutoff}" if inner.cutoff is not None else ""
        return f"{inner.name}({','.join(params)}){cutoff}"

    def compute(self, collection) -> np.ndarray:
        return self.measure.compute(condense(collection))

    def depth_needed(self) -> int | None:
        return self.measure.depth_needed()


_TRUE = {"true": True, "1": True, "false": False, "0": False}


def build_measure(cls: type[Measure], params: Mapping[str, Any], cutoff: int | None) -> Measure:
    """``cls.from_params(params, cutoff)``, reading ``judged_only`` (true/false) on the way."""
    if "judged_only" not in params:
        return cls.from_params(params, cutoff)
    params = dict(params)
    flag = _TRUE.get(str(params.pop("judged_only")).lower())
    if flag is None:
        raise MeasureError(f"{cls.name}: judged_only must be true or false")
    if cls.name not in CONDENSABLE:
        raise MeasureError(
            f"{cls.name} takes no judged_only (measures on condensed lists: "
            + ", ".join(sorted(CONDENSABLE)) + ")"
        )
    inner = cls.from_params(params, cutoff)
    return JudgedOnly(measure=inner) if flag else inner
