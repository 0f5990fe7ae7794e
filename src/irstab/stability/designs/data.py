"""Input of the three-facet G-study: a long score table or a dense array, encoded.

Balanced or not: each score carries its system, topic and assessor codes, and
the estimators of :mod:`.estimators` read the codes (Henderson's method 1) or
the dense array they fill when every cell is present (expected mean squares).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import DegenerateDataError, IRStabError
from .effects import Design

__all__ = ["FacetData", "as_long", "from_array", "encode"]

_COLUMNS = ("system", "topic", "assessor", "score")
_MAX_NAMED = 5


def as_long(scores) -> pd.DataFrame:
    """Validate a long score table ``system, topic, assessor, score``."""
    if not isinstance(scores, pd.DataFrame):
        raise IRStabError(
            "scores: expected a DataFrame with columns system, topic, assessor, score "
            f"(or a 3-D array), got {type(scores).__name__}"
        )
    missing = [c for c in _COLUMNS if c not in scores.columns]
    if missing:
        raise IRStabError(f"scores: missing column(s) {', '.join(missing)}")
    frame = scores.loc[:, list(_COLUMNS)].copy()
    for c in _COLUMNS[:3]:
        frame[c] = frame[c].astype(str)
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce").astype(float)
    bad = ~np.isfinite(frame["score"].to_numpy())
    if bad.any():
        rows = frame[bad].head(_MAX_NAMED)
        named = ", ".join(f"({r.system!r}, {r.topic!r}, {r.assessor!r})" for r in rows.itertuples())
        raise DegenerateDataError(f"scores: {bad.sum()} missing or non-finite score(s): {named}")
    dup = frame.duplicated(list(_COLUMNS[:3]))
    if dup.any():
        r = frame[dup].iloc[0]
        raise IRStabError(
            f"scores: duplicate cell (system {r.system!r}, topic {r.topic!r}, "
            f"assessor {r.assessor!r}); one score per cell"
        )
    return frame


def from_array(x: np.ndarray) -> pd.DataFrame:
    x = np.asarray(x, dtype=float)
    if x.ndim != 3:
        raise IRStabError(f"scores: expected systems x topics x assessors (3-D), got {x.ndim}-D")
    s, t, a = np.meshgrid(*(np.arange(n) for n in x.shape), indexing="ij")
    return pd.DataFrame(
        {"system": s.ravel(), "topic": t.ravel(), "assessor": a.ravel(), "score": x.ravel()}
    )


@dataclass(frozen=True)
class FacetData:
    """Codes of a validated long table (kept for the bootstrap)."""

    y: np.ndarray
    s: np.ndarray
    t: np.ndarray
    a: np.ndarray  # global assessor code (crossed) or index within the topic (nested)
    n_assessors_per_topic: np.ndarray
    dense: np.ndarray | None  # x[s, t, a] when balanced


def encode(frame: pd.DataFrame, design: Design):
    s, systems = pd.factorize(frame["system"], sort=False)
    t, topics = pd.factorize(frame["topic"], sort=False)
    if design is Design.nested:
        # assessors are different people in different topics: code (topic, label) pairs
        pair, pairs = pd.factorize(pd.MultiIndex.from_arrays([t, frame["assessor"]]), sort=True)
        pair_topic = np.asarray(pairs.get_level_values(0))
        start = np.searchsorted(pair_topic, np.arange(len(topics)))
        a = pair - start[t]
        per_topic = np.bincount(pair_topic, minlength=len(topics))
        assessors = tuple(
            tuple(pairs.get_level_values(1)[start[i] : start[i] + per_topic[i]])
            for i in range(len(topics))
        )
    else:
        a, labels = pd.factorize(frame["assessor"], sort=False)
        per_topic = np.bincount(
            np.unique(t.astype(np.int64) * len(labels) + a) // len(labels), minlength=len(topics)
        )
        assessors = tuple(labels)
    n_s, n_t = len(systems), len(topics)
    n_a = int(a.max()) + 1  # assessor codes: within topic (nested) or global (crossed)
    dense = None
    if len(frame) == n_s * n_t * n_a and (per_topic == n_a).all():
        dense = np.full((n_s, n_t, n_a), np.nan)
        dense[s, t, a] = frame["score"].to_numpy()
        if np.isnan(dense).any():  # crossed with a topic missing some assessor
            dense = None
    data = FacetData(
        y=frame["score"].to_numpy(dtype=float),
        s=s.astype(np.int64),
        t=t.astype(np.int64),
        a=np.asarray(a, dtype=np.int64),
        n_assessors_per_topic=per_topic,
        dense=dense,
    )
    return data, tuple(systems), tuple(topics), assessors
