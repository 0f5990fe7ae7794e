"""Bounded-memory Collection build: runs reduced one at a time, assembled into arrays.

The qrels become a :class:`~irstab.collection.index.QrelsIndex` once: the evaluated topics, the judged
document ids (a hash index) and a sorted array of ``(topic, document)`` keys
with their grades. Each run is then reduced on its own by
:func:`~irstab.collection.reduce.reduce_run` to its rows of the Collection's arrays (``grades[t, r]``,
``judged[t, r]``, ``run_length[t]``); its document ids do not outlive that
call. Peak memory is the final arrays (2 bytes per ranked entry) plus one run
in flight per worker, never all runs' strings at once.

Run files are parsed and reduced in parallel worker processes
(:func:`~irstab.collection.reduce.reduce_files`); on a Dask cluster the same
per-file function is what the workers map (:mod:`irstab.collection.cluster`).
A build returns :class:`CollectionArrays`; :class:`~irstab.collection.Collection`
composes them, so this module knows nothing of it.

The conventions are those of :mod:`irstab.collection.collection` and give the same arrays
bit for bit as reducing all runs at once would (tested on TREC DL 2019, the
example collection and fixtures with ties, shared tags, ranks from 0 and runs
missing topics).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np

from .._repr import escape_name
from ..errors import InputFormatError, IRStabError, IRStabWarning
from ..io import Qrels, Run, run_file_name
from .index import QrelsIndex, short_list
from .batches import pack
from .cluster import map_jobs, worker_slots
from .reduce import RunArrays, reduce_batch, reduce_files, reduce_run

__all__ = ["RankOrder", "CollectionArrays", "Assembler", "assemble", "name_runs", "warn_tied", "tied_message",
           "TIED_SHARE_WARNING",
           "build_from_files", "build_keeping", "build_from_runs", "check_build_args"]


class RankOrder(str, Enum):
    """How documents of one topic are ordered within a run."""

    SCORE = "score"  # score desc, docid desc (trec_eval 10: scores as doubles)
    SCORE32 = "score32"  # the same with scores as 32-bit floats (trec_eval 9, pytrec_eval)
    RANK = "rank"  # the file's rank column, ties by line order
    FILE = "file"  # the order of the lines


def check_build_args(depth, order) -> tuple[int, RankOrder]:
    """``(depth, RankOrder)``, or an error naming the parameter."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise IRStabError(f"depth must be a positive integer, got {depth!r}")
    try:
        return int(depth), RankOrder(order)
    except ValueError:
        raise IRStabError(
            f"order must be one of {[o.value for o in RankOrder]}, got {order!r}"
        ) from None


@dataclass(frozen=True, eq=False)
class CollectionArrays:
    """What a build returns: the fields of a :class:`~irstab.collection.Collection`."""

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    depth: int
    grades: np.ndarray = field(repr=False)
    judged: np.ndarray = field(repr=False)
    run_length: np.ndarray = field(repr=False)
    ideal: np.ndarray = field(repr=False)
    grade_counts: np.ndarray = field(repr=False)
    max_grade: int = 1


# ---------------------------------------------------------------- assembling


class Assembler:
    """Collects reduced runs into ``(S, T, D)`` arrays, widening D when a run is deeper.

    Room for ``n_systems`` runs ``ranks`` deep is made up front (one per file); a table
    file holding several runs, or a deeper run, makes it grow. :meth:`add` appends;
    ``labels`` keep each run's ``(file, tag, name)`` for :func:`name_runs`.
    """

    def __init__(self, n_systems: int, n_topics: int, ranks: int = 1):
        self.S, self.T = 0, n_topics
        self.grades = np.zeros((n_systems, n_topics, ranks), dtype=np.int8)
        self.judged = np.zeros((n_systems, n_topics, ranks), dtype=bool)
        self.run_length = np.zeros((n_systems, n_topics), dtype=np.int64)
        self.unknown: set[str] = set()
        self.labels: list[tuple[Path | None, str | None, str | None]] = []
        self.tied: list[float] = []
        self.tops: list = []  # each run's RunArrays.top (None unless kept)

    def add(self, arrays: RunArrays, file: Path | None = None) -> None:
        s, D = self.S, arrays.grades.shape[1]
        grow = max(0, s + 1 - self.grades.shape[0])
        if grow or D > self.grades.shape[2]:
            grow = max(grow, s) if grow else 0  # double the room: amortised growth
            pad = ((0, grow), (0, 0), (0, max(0, D - self.grades.shape[2])))
            self.grades = np.pad(self.grades, pad)
            self.judged = np.pad(self.judged, pad)
            self.run_length = np.pad(self.run_length, pad[:2])
        self.grades[s, :, :D] = arrays.grades
        self.judged[s, :, :D] = arrays.judged
        self.run_length[s] = arrays.run_length
        self.unknown.update(arrays.unknown_topics)
        self.labels.append((file, arrays.tag, arrays.name))
        self.tied.append(arrays.tied)
        self.tops.append(arrays.top)
        self.S = s + 1

    def trim(self) -> None:
        """Drop the room no run filled."""
        if self.grades.shape[0] != self.S:
            self.grades, self.judged = self.grades[:self.S], self.judged[:self.S]
            self.run_length = self.run_length[:self.S]


def warn_unknown(unknown) -> None:
    """One warning listing the run topics that the qrels do not know."""
    if unknown:
        warnings.warn(
            f"{len(unknown)} topic(s) appear in runs but not in the qrels and are "
            f"dropped: {short_list(sorted(unknown))}",
            IRStabWarning,
            stacklevel=4,
        )


def warn_unretrieved(retrieved: np.ndarray, topics: Sequence[str]) -> None:
    """One warning listing the qrels topics that no run retrieves (they score 0: trec_eval -c)."""
    missing = np.flatnonzero(~retrieved)
    if len(missing):
        warnings.warn(
            f"{len(missing)} qrels topic(s) retrieved by no run score 0 for every run "
            f"(trec_eval -c): {short_list([topics[t] for t in missing[:11]])}",
            IRStabWarning,
            stacklevel=4,
        )


#: A run with at least this share of its ranks in score ties is named in a warning: its
#: order there comes from the tie-break, and peers that break ties otherwise score it otherwise.
TIED_SHARE_WARNING = 0.10


def tied_message(tied: Sequence[float], names: Sequence[str]) -> str | None:
    """The warning about runs whose ranks are largely score ties, or None."""
    heavy = [(n, t) for n, t in zip(names, tied) if t >= TIED_SHARE_WARNING]
    if not heavy:
        return None
    shown = ", ".join(f"{escape_name(n)} ({t:.0%} of ranks tied)" for n, t in heavy[:10])
    more = f" and {len(heavy) - 10} more" if len(heavy) > 10 else ""
    return (f"{len(heavy)} run(s) give many documents the same score, so their order there is "
            f"trec_eval's tie-break (docid descending), which ranx and some of ir_measures' "
            f"providers do not follow: {shown}{more}; order 'rank' or 'file' (--order) keeps "
            "the run's own order")


def warn_tied(tied: Sequence[float], names: Sequence[str]) -> None:
    """One warning naming the runs with a share of tied ranks of at least
    :data:`TIED_SHARE_WARNING` (ranked by score: ``order="score"`` or ``"score32"``)."""
    message = tied_message(tied, names)
    if message is not None:
        warnings.warn(message, IRStabWarning, stacklevel=4)


def assemble(acc: Assembler, names: Sequence[str], index: QrelsIndex, depth: int,
             warn: bool = True) -> CollectionArrays:
    """The arrays of the runs collected in ``acc``, named ``names`` (read-only)."""
    acc.trim()
    if warn:
        warn_tied(acc.tied, names)
        warn_unknown(acc.unknown)
        warn_unretrieved(acc.run_length.sum(axis=0) > 0, index.topics)
    arrays = [acc.grades, acc.judged, acc.run_length, index.ideal, index.grade_counts]
    for a in arrays:
        a.setflags(write=False)
    return CollectionArrays(
        systems=tuple(names), topics=index.topics, depth=int(depth), grades=acc.grades,
        judged=acc.judged, run_length=acc.run_length, ideal=index.ideal,
        grade_counts=index.grade_counts, max_grade=index.max_grade,
    )


def name_runs(labels: Sequence[tuple[Path, str | None, str | None]]) -> list[str]:
    """Run names from ``(file, tag, name)``: a table run's own name, else the TREC tag,
    else the file name (also where several TREC files share a tag, with a warning)."""
    counts = Counter(t for _, t, n in labels if t is not None and n is None)
    shared = sorted(t for t, c in counts.items() if c > 1)
    if shared:
        warnings.warn(
            f"run tag(s) {shared} appear in several files; those runs are named by their "
            "file names",
            IRStabWarning,
            stacklevel=3,
        )
    names = [n if n is not None else run_file_name(Path(f)) if t is None or t in shared else t
             for f, t, n in labels]
    seen: dict[str, Path] = {}
    for (f, _, _), n in zip(labels, names):
        if n in seen:
            raise InputFormatError(f, f"two runs are both named {n!r}; rename one of the files")
        seen[n] = f
    return names


def build_from_files(qrels: Qrels, files: Sequence[Path], depth: int, order: str,
                     workers: int | None = None, advance: Callable[[], None] | None = None,
                     client=None) -> CollectionArrays:
    """The arrays of run files, reduced one file at a time (in parallel).

    With a Dask ``client`` the files are reduced on its workers in batches
    (:func:`irstab.collection.cluster.map_jobs`); each returns its runs' rows of the arrays.
    """
    index, acc = _reduce_all(qrels, files, depth, order, workers, advance, client, 0)
    return assemble(acc, name_runs(acc.labels), index, depth)


def build_keeping(qrels: Qrels, files: Sequence[Path], depth: int, order: str, keep: int,
                  workers: int | None = None, advance: Callable[[], None] | None = None,
                  client=None) -> tuple[CollectionArrays, list[Run]]:
    """:func:`build_from_files`, and every run cut to its first ``keep`` documents per topic.

    The runs (named as the arrays' systems) hold the Collection's topics only, each
    :func:`~irstab.collection.reduce.top_documents` at ``keep``, from the same read of
    each file: a later study of the same runs (the pools of :mod:`irstab.design.depth`)
    need not read them again.
    """
    index, acc = _reduce_all(qrels, files, depth, order, workers, advance, client, keep)
    names = name_runs(acc.labels)
    runs = [Run(name=n, path=str(f), tag=tag, frame=top)
            for n, (f, tag, _), top in zip(names, acc.labels, acc.tops)]
    return assemble(acc, names, index, depth), runs


def _reduce_all(qrels, files, depth, order, workers, advance, client, keep
                ) -> tuple[QrelsIndex, Assembler]:
    index = QrelsIndex.from_qrels(qrels)
    acc = Assembler(len(files), index.n_topics)
    if client is None:
        results = reduce_files(files, index, depth, order, workers, advance, keep)
    else:
        results = _reduce_on_cluster(client, files, index, depth, order, advance, keep)
    for s, arrays in results:
        for a in arrays:
            acc.add(a, files[s])
    return index, acc


def _reduce_on_cluster(client, files, index, depth, order, advance, keep=0):
    # tasks of at most 32 MB of arrays at the depth kept (every run comes back whole: the
    # bound is for the workers), at least two per worker
    need = np.full(len(files), 2 * index.n_topics * depth, dtype=np.int64)
    jobs = [dict(files=[str(f) for f in files[a:b]], depth=depth, order=order, keep=keep)
            for a, b in pack(need, 32 * 2**20, 2 * worker_slots(client))]
    s = 0
    for batch in map_jobs(client, reduce_batch, jobs, index):
        for arrays, messages in batch:
            for m in messages:
                warnings.warn(m, IRStabWarning, stacklevel=3)
            if advance is not None:
                advance()
            yield s, arrays
            s += 1


def build_from_runs(qrels: Qrels, runs: Sequence[Run], depth: int, order: str
                    ) -> CollectionArrays:
    """The arrays of parsed runs, reduced one run at a time."""
    index = QrelsIndex.from_qrels(qrels)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise IRStabError(f"run names must be unique, got {names}")
    acc = Assembler(len(runs), index.n_topics)
    for r in runs:
        acc.add(reduce_run(r.frame, index, depth, order, keys=r.keys))
    return assemble(acc, names, index, depth)
