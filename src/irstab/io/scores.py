"""The score matrices every analysis room reads: validation, selection, the bootstrap's counts.

``{measure: systems x topics}`` (or one matrix) as :mod:`irstab.compare`, :mod:`irstab.verdict`,
:mod:`irstab.systems` and :mod:`irstab.trust` take it: one validating function per entry point's
needs (:func:`as_scores`, :func:`check_alpha`, ...), and the topic counts of bootstrap samples
that the paired bootstrap and the verdict's draws share (:func:`sample_counts`).

It lives with the readers of score-matrix files (:mod:`.scorematrix`) on the floor that knows
nothing above it; it imports :mod:`irstab._numeric` and :mod:`irstab.errors` only.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._numeric import check_magnitude, check_seed, pair_tolerance
from ..errors import DegenerateDataError, IRStabError, IRStabWarning

__all__ = ["Scores", "as_scores", "check_seed", "check_positive_int", "check_alpha", "frozen",
           "sample_counts", "CACHE_CELLS", "not_among"]

# A resampled statistic within this relative distance of the observed one counts as "at least as
# extreme": exact ties in real arithmetic must not be decided by rounding noise.
TIE_RTOL = 1e-10
#: (resamples x pairs) cells of a slice whose arithmetic stays in cache (256 KB of float64)
CACHE_CELLS = 2**15


def not_among(what: str, value, names, kind: str = "the measures") -> str:
    """The message for a ``value`` that names none of ``names``; where its text is one of
    them (``1`` for ``'1'``), it says that the type differs and what to give.

    >>> print(not_among("baseline", 1, ["1", "2"]))  # doctest: +NORMALIZE_WHITESPACE
    baseline: 1 (of type int) is not among the measures ['1', '2'], whose names are
    strings: give '1'
    """
    names = list(names)
    text = str(value)
    if not isinstance(value, str) and text in names:
        return (f"{what}: {value!r} (of type {type(value).__name__}) is not among {kind} {names}, "
                f"whose names are strings: give {text!r}")
    return f"{what}: {value!r} is not among {kind} {names}"


def sample_counts(samples: np.ndarray, T: int) -> np.ndarray:
    """(B, T) how often each topic occurs in each sample (as float64, for matmul)."""
    B = samples.shape[0]
    flat = (samples + T * np.arange(B)[:, None]).ravel()
    return np.bincount(flat, minlength=B * T).reshape(B, T).astype(np.float64)


def frozen(a: np.ndarray) -> np.ndarray:
    """A read-only view (results never expose writable arrays)."""
    a = np.asarray(a)
    a = a.view()
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Scores:
    """Validated score matrices: ``cube[m, s, t]`` for measures x systems x topics."""

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    cube: np.ndarray

    @property
    def n_measures(self) -> int:
        return len(self.measures)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def means(self) -> np.ndarray:
        """(M, S) mean score of each system under each measure."""
        return self.cube.mean(axis=2)

    def pair_tolerance(self) -> np.ndarray:
        """(M, P) largest difference of two equal scores per measure and pair (``pairs()`` order):
        :func:`irstab._numeric.pair_tolerance`, the rounding noise of the pair's own magnitude."""
        i, j = self.pairs()
        return pair_tolerance(self.cube, i, j)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Index arrays ``(i, j)``, ``i < j``, in ``itertools.combinations`` order."""
        return np.triu_indices(self.n_systems, k=1)

    def require_topics(self, n: int, what: str) -> None:
        if self.n_topics < n:
            raise DegenerateDataError(
                f"{what} needs at least {n} topics, got {self.n_topics}"
                + (f" ({self.topics[0]!r})" if self.n_topics == 1 else "")
            )

    def select(self, top: int | None, by: str | None = None) -> Scores:
        """The ``top`` best systems by mean score of measure ``by`` (default: the first).

        Ties at the cut are broken by the systems' order (a warning names them);
        the kept systems stay in their original order.
        """
        if top is None:
            if by is not None:
                raise IRStabError(f"top_by: only used with top, got top_by={by!r} without top")
            return self
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)):
            raise IRStabError(f"top: expected an integer, got {top!r}")
        if not 2 <= top <= self.n_systems:
            raise IRStabError(
                f"top: must be between 2 and the number of systems ({self.n_systems}), got {top}"
            )
        if by is None:
            k = 0
        elif by in self.measures:
            k = self.measures.index(by)
        else:
            raise IRStabError(f"top_by: {by!r} is not one of the measures {list(self.measures)}")
        mean = self.means()[k]
        order = np.argsort(-mean, kind="stable")
        if top < self.n_systems and mean[order[top - 1]] == mean[order[top]]:
            tied = [self.systems[i] for i in order if mean[i] == mean[order[top - 1]]]
            warnings.warn(
                f"top {top} by {self.measures[k]}: systems {tied} tie in mean score at the cut; "
                "kept in input order",
                IRStabWarning,
                stacklevel=3,
            )
        keep = np.sort(order[:top])
        return Scores(
            self.measures,
            tuple(self.systems[i] for i in keep),
            self.topics,
            frozen(self.cube[:, keep, :]),
        )


def _matrix(name: str, value) -> tuple[np.ndarray, tuple[str, ...] | None, tuple[str, ...] | None]:
    if isinstance(value, pd.DataFrame):
        systems = tuple(str(s) for s in value.index)
        topics = tuple(str(t) for t in value.columns)
        try:
            arr = value.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise IRStabError(f"scores[{name!r}]: not numeric") from None
        return arr, systems, topics
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise IRStabError(f"scores[{name!r}]: not numeric") from None
    if arr.ndim != 2:
        raise IRStabError(
            f"scores[{name!r}]: expected a systems x topics matrix, got shape {arr.shape}"
        )
    return arr, None, None


def _duplicates(labels) -> list:
    index = pd.Index(labels)
    return list(index[index.duplicated()].unique())


def _aligned(name: str, first: str, arr: np.ndarray, labels: tuple[tuple, tuple],
             want: tuple[tuple, tuple]) -> np.ndarray:
    """``arr`` with its rows and columns in the order of ``want``, or an error naming the labels.

    Score files of the same systems and topics in another order are the same
    data; different labels are refused with what is in one and not the other.
    """
    if labels == want:
        return arr
    problems = []
    for what, have, need in (("systems", labels[0], want[0]), ("topics", labels[1], want[1])):
        only_here = [v for v in have if v not in set(need)]
        only_there = [v for v in need if v not in set(have)]
        if only_here:
            problems.append(f"{what} only in {name!r}: {_few(only_here)}")
        if only_there:
            problems.append(f"{what} only in {first!r}: {_few(only_there)}")
    if problems:
        raise IRStabError(f"scores[{name!r}]: the systems or topics differ from those of "
                          f"{first!r}: " + "; ".join(problems))
    rows = pd.Index(labels[0]).get_indexer(want[0])
    cols = pd.Index(labels[1]).get_indexer(want[1])
    return arr[np.ix_(rows, cols)]


def _few(values, k: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:k])
    return shown + (f" and {len(values) - k} more" if len(values) > k else "")


def as_scores(scores, *, min_systems: int = 2, scale_free: bool = False) -> Scores:
    """Validate ``{measure: systems x topics}`` matrices (DataFrames or arrays).

    A single DataFrame or array is one measure named ``"scores"``. All
    matrices must have the same systems and topics and finite values;
    DataFrames with the same labels in another order are aligned to the first
    one's order (labels that differ are named in the error), and a label
    repeated within a matrix is an error naming it.

    ``scale_free``: the caller computes only statistics that do not depend on
    the scores' scale (Phi, t statistics) and scales each matrix first
    (:func:`irstab._numeric.unit_spread`), so no magnitude is refused; otherwise
    scores whose squares float64 cannot hold are
    (:func:`irstab._numeric.check_magnitude`).
    """
    if isinstance(scores, Scores):
        return scores
    if isinstance(scores, (pd.DataFrame, np.ndarray)):
        scores = {"scores": scores}
    if not isinstance(scores, Mapping):
        raise IRStabError(
            "scores: expected a mapping {measure: systems x topics matrix} or one matrix, "
            f"got {type(scores).__name__}"
        )
    if not scores:
        raise IRStabError("scores: no measure given")
    names, mats = [], []
    systems = topics = None
    shape = None
    for name, value in scores.items():
        name = str(name)
        arr, sys_, top_ = _matrix(name, value)
        if sys_ is not None:
            for what, labels in (("system", sys_), ("topic", top_)):
                dup = _duplicates(labels)
                if dup:
                    raise IRStabError(f"scores[{name!r}]: {what} label(s) {_few(dup)} appear "
                                      "more than once; each must be one row (system) or "
                                      "column (topic)")
        if shape is None:
            shape = arr.shape
        elif arr.shape != shape:
            raise IRStabError(
                f"scores[{name!r}]: shape {arr.shape} differs from {shape} of {names[0]!r}"
            )
        if sys_ is not None:
            if systems is None:
                systems, topics = sys_, top_
            else:
                arr = _aligned(name, names[0], arr, (sys_, top_), (systems, topics))
        bad = ~np.isfinite(arr)
        if bad.any():
            s, t = np.argwhere(bad)[0]
            where = (f"system {systems[s]!r}, topic {topics[t]!r}" if sys_ is not None
                     else f"system {s}, topic {t}")
            raise IRStabError(f"scores[{name!r}]: non-finite value {arr[s, t]} ({where})")
        names.append(name)
        mats.append(arr)
    if not scale_free:
        for name, arr in zip(names, mats):
            check_magnitude(arr, f"scores[{name!r}]", (systems, topics) if systems else None)
    if len(set(names)) != len(names):
        raise IRStabError(f"scores: measure names must be unique, got {names}")
    S, T = shape
    systems = systems or tuple(str(i) for i in range(S))
    topics = topics or tuple(str(i) for i in range(T))
    if S < min_systems:
        raise DegenerateDataError(f"comparing systems needs at least {min_systems}, got {S}")
    if T < 1:
        raise DegenerateDataError("scores: no topic")
    return Scores(tuple(names), systems, topics, frozen(np.stack(mats)))


def check_positive_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise IRStabError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


def check_alpha(alpha, name: str = "alpha") -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not (
        0.0 < float(alpha) < 1.0
    ):
        raise IRStabError(f"{name}: expected a number in (0, 1), got {alpha!r}")
    return float(alpha)
