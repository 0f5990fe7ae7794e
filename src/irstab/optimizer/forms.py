"""The optimizer's input without the grade tensor: sparse linear forms, built batch by batch.

nDCG@k of system ``s`` on topic ``t`` depends on the runs only through the
ranks ``r < k`` at which ``s`` retrieves a document of positive grade, and on
the qrels only through each topic's count of each grade (the ideal list; see
:mod:`irstab.optimizer.scenario`). :class:`LinearForms` keeps exactly that:
one ``(system, topic, rank, grade)`` entry per relevant retrieved document in
the top ``depth``, and the grade counts. :func:`linear_forms` builds it from
run files in batches (the same jobs as :func:`irstab.evaluation.score_runs`,
in local worker processes or on a Dask cluster: workers return their entries,
the caller concatenates them), so the systems x topics x depth grade tensor
never exists.

Memory: 11 bytes per relevant retrieved document within the depth (int32
system and topic, int16 rank, int8 grade), plus, while the optimizer runs,
the :class:`~irstab.optimizer.scenario.Scenario`'s int64 cell, rank and grade
(24 bytes per such document) and a few systems x topics float64 matrices.
On TREC DL 2019 (37 runs, 43 topics) at k = 100 the forms hold 53,046
documents, 0.58 MB, against 3.2 MB of grade and judged arrays at depth 1000 (and
0.32 MB cut at rank 100: a third of those top-100 entries are relevant, far
more than the 2 in 11 below which the forms are the smaller; on sparsely judged
query logs, with a relevant document or two per query, they are).

:class:`LinearForms` gives the same Scenario, hence the same optimum, as the
Collection it is extracted from (tested to 1e-12).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .._repr import short_repr
from ..errors import IRStabError

__all__ = ["LinearForms", "linear_forms"]


@short_repr
@dataclass(frozen=True, eq=False)
class LinearForms:
    """Positive grades of a set of runs in their top ``depth`` ranks, and the grade counts.

    Stands in for a :class:`~irstab.collection.Collection` wherever the
    optimizer takes one (:func:`irstab.optimizer.optimize`,
    :class:`~irstab.optimizer.scenario.Scenario`, minimax, Pareto fronts) for
    nDCG cutoffs up to ``depth``. Entries are ordered by system, topic, rank.
    """

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    depth: int
    system: np.ndarray = field(repr=False)  # (n,) int32
    topic: np.ndarray = field(repr=False)  # (n,) int32
    rank: np.ndarray = field(repr=False)  # (n,) int16 (0-based), or int32 past 32767
    grade: np.ndarray = field(repr=False)  # (n,) int8 > 0
    grade_counts: np.ndarray = field(repr=False)  # (T, G) judged documents per grade
    max_grade: int = 1

    def _summary(self) -> str:
        return (f"{self.n_systems} systems x {self.n_topics} topics, depth {self.depth}, "
                f"{len(self.grade)} relevant retrieved documents")

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.system, self.topic, self.rank, self.grade))

    @classmethod
    def from_collection(cls, collection, depth: int | None = None) -> LinearForms:
        """The forms of a Collection's top ``depth`` ranks (default: all it keeps)."""
        depth = collection.depth if depth is None else min(int(depth), collection.depth)
        s, t, r, g = _entries(collection, depth)
        return cls(collection.systems, collection.topics, depth, s, t, r, g,
                   np.asarray(collection.grade_counts), collection.max_grade)

    def positions(self, topics: np.ndarray, cutoff: int):
        """``(s, t', r, grade)`` in the top ``cutoff`` of ``topics`` (``t'``: position in it),
        ordered as ``np.nonzero`` orders a dense ``(S, len(topics), cutoff)`` tensor."""
        where = np.full(self.n_topics, -1, dtype=np.int64)
        where[topics] = np.arange(len(topics))
        t = where[self.topic]
        keep = (t >= 0) & (self.rank < cutoff)
        s, t, r, g = self.system[keep], t[keep], self.rank[keep], self.grade[keep]
        if len(topics) > 1 and (np.diff(topics) < 0).any():
            order = np.lexsort((r, t, s))
            s, t, r, g = s[order], t[order], r[order], g[order]
        return s.astype(np.int64), t, r.astype(np.int64), g.astype(np.int64)


def _entries(collection, depth: int):
    """``(s, t, r, grade)`` of the positive grades in the top ``depth``, np.nonzero's order."""
    grades = collection.grades_to(collection.stored(depth))
    s, t, r = np.nonzero(grades > 0)
    rank_type = np.int16 if depth <= np.iinfo(np.int16).max else np.int32
    return (s.astype(np.int32), t.astype(np.int32), r.astype(rank_type),
            grades[s, t, r].astype(np.int8))


def forms_batch(files: Sequence[str], index, depth: int, order: str,
                part: tuple[int, int] | None = None, max_bytes: int | None = None):
    """Reduce one job's run files (topics ``part`` only, if given) to the entries ``(s, t, r,
    grade)`` of each of its batches, ``s`` counted within the batch and ``t`` within its topic
    range (:func:`irstab.collection.outofcore.batch_result`, ``max_bytes`` the batch budget):
    the unit of work of a job, local or on a Dask worker."""
    from ..collection.outofcore import batch_result

    return batch_result(files, index, depth, order, partial(_entries, depth=depth), 0, part,
                        max_bytes)


_WORKER_INDEX = None  # the qrels index of a worker process (:func:`_init_worker`)


def _init_worker(index) -> None:
    """A worker process: the qrels index its jobs read."""
    global _WORKER_INDEX
    _WORKER_INDEX = index


def _forms_job(args):
    files, depth, order, part, max_bytes = args
    return forms_batch(files, _WORKER_INDEX, depth, order, part, max_bytes)


def _forms_jobs(jobs, index, depth: int, order: str, workers: int, max_bytes: int):
    """:func:`forms_batch` of every ``(files, part)`` job, in order: in ``workers`` processes
    (each reduces whole jobs, so only their entries travel back), else in this one."""
    if workers <= 1 or len(jobs) < 2:
        yield from (forms_batch(f, index, depth, order, p, max_bytes) for f, p in jobs)
        return
    from .._workers import process_pool

    with process_pool(min(workers, len(jobs)), _init_worker, (index,)) as pool:
        yield from pool.map(_forms_job, [(f, depth, order, p, max_bytes) for f, p in jobs])


def _join(parts):
    """One file's entries from its topic partitions ``[(lo, (s, t, r, g))]``, in s, t, r order."""
    s, t, r, g = (np.concatenate(a) for a in zip(*[(s, t + np.int32(lo), r, g)
                                                   for lo, (s, t, r, g) in parts]))
    order = np.lexsort((r, t, s))
    return s[order], t[order], r[order], g[order]


def linear_forms(
    qrels,
    runs,
    depth: int,
    order: str = "score",
    *,
    max_batch_bytes: int | None = None,
    client=None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> LinearForms:
    """The :class:`LinearForms` of run files to ``depth`` (the largest cutoff to optimise).

    Parameters
    ----------
    qrels, runs
        As for :meth:`irstab.Collection.from_files`; in-memory runs are
        reduced through a Collection of them.
    depth : int
        Ranks kept per topic: the largest nDCG cutoff the forms serve.
    max_batch_bytes : int, optional
        Grade-tensor bytes per batch of run files (default 32 MB); a run
        larger than that is split into topic partitions.
    client : distributed.Client, optional
        Reduce the batches on this Dask cluster (:mod:`irstab.collection.cluster`).
    workers : int, optional
        Local worker processes, each reducing whole batches (default: one per core for
        large inputs, as :func:`irstab.collection.reduce.default_workers` decides; 0 or 1:
        in this process). The forms do not depend on it.
    progress : callable, optional
        Called with the number of runs just reduced.
    """
    from ..collection.index import QrelsIndex
    from ..collection import Collection, check_build_args
    from ..io import expand_paths, in_memory_runs, read_qrels
    from ..io.textfiles import text_size
    from ..collection.outofcore import DEFAULT_BATCH_BYTES, gather, plan
    from ..collection import reduce as _reduce

    depth, order_enum = check_build_args(depth, order)
    qrels = read_qrels(qrels)
    parsed = in_memory_runs(runs)
    if parsed is not None:
        return LinearForms.from_collection(
            Collection.build(qrels, parsed, depth=depth, order=order_enum))
    files = expand_paths(runs)
    if not files:
        raise IRStabError("no runs given")
    index = QrelsIndex.from_qrels(qrels)
    T = index.n_topics
    if client is not None:
        from ..collection.cluster import map_jobs, worker_slots

        budget = max_batch_bytes or DEFAULT_BATCH_BYTES
        jobs = plan(files, T, depth, budget, worker_slots(client))
        results = map_jobs(client, forms_batch, [
            dict(files=f, depth=depth, order=order_enum.value, part=p, max_bytes=budget)
            for f, p in jobs], index)
    else:
        if workers is None:
            workers = _reduce.default_workers(len(files), sum(text_size(f) for f in files))
        budget = max_batch_bytes or DEFAULT_BATCH_BYTES
        jobs = plan(files, T, depth, budget, workers)
        results = _forms_jobs(jobs, index, depth, order_enum.value, workers, budget)
    names, pieces = gather(results, index, _join, progress)
    s, t, r, g = (np.concatenate(a) for a in zip(*[(s + np.int32(first), t, r, g)
                                                   for first, (s, t, r, g) in pieces]))
    return LinearForms(tuple(names), index.topics, depth, s, t, r, g, index.grade_counts,
                       index.max_grade)
