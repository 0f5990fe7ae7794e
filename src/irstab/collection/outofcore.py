"""Scores batch by batch: systems x topics matrices without the whole grade tensor.

Every measure reads one system's rows of the Collection arrays and the topics'
ideal lists and grade counts, nothing else, so a Collection of a *batch* of
runs (same topics, same qrels index) gives exactly those runs' scores. Here
run files are reduced in batches bounded in bytes (``max_batch_bytes`` of
grade tensor, default 32 MB), each batch is scored and dropped, and only the
float64 score rows are kept: ``8 x measures`` bytes per system and topic
instead of 2 bytes per ranked entry. The jobs (:func:`~.batches.plan`) are at
least two per worker and even, sized without reading a file: by the tensor a
run has at the depth kept when that fits a batch, else by their text, and then
each job closes a batch before the run whose tensor, as reduced, would take it
past the budget (:func:`batch_result`). A run whose grade tensor alone exceeds a
batch is reduced in topic partitions of its one reading, and the score columns
are joined (a Parquet or Arrow source, which may hold many runs, is split so by
the plan: each of its jobs reads the file and keeps a range of topics). On a
Dask cluster the jobs are what the workers map (:func:`score_batch`): each
receives file paths (and a topic range) and the qrels index, returns its score
rows; nothing else crosses the network.

Memory, per worker process: one batch tensor (at most ``max_batch_bytes``), the measure
kernels' float temporaries (about 6.5 times the tensor, the tensor included, for
nDCG@10, nDCG@100 and AP: 150 MB for 6 runs of 200 topics 10,000 deep, 23 MB of tensor),
and the reading of one file at a time, which follows the file, not the budget (about 180
bytes per line of a TREC run read and reduced: 0.35 GB above the interpreter's 0.15 GB
for a 2e6-line file of 10,000-deep rankings, measured with GNU time). Then the qrels
index and the scores.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._workers import process_pool
from ..errors import IRStabError, IRStabWarning
from ..io import expand_paths, in_memory_runs, read_qrels
from ..io.textfiles import text_size
from . import reduce as _reduce
from .batches import pack, plan
from .build import (Assembler, assemble, check_build_args, name_runs, warn_tied,
                    warn_unknown, warn_unretrieved)
from .cluster import map_jobs, worker_slots
from .collection import Collection
from .index import QrelsIndex
from .reduce import reduce_files, reduce_run

if TYPE_CHECKING:  # pandas is imported where a frame is made
    import pandas as pd

__all__ = ["ScoreSet", "score_runs", "score_batch", "batch_result", "gather", "plan", "pack",
           "DEFAULT_BATCH_BYTES"]

DEFAULT_BATCH_BYTES = 32 * 2**20


@dataclass(frozen=True, eq=False)
class ScoreSet:
    """Score matrices of several measures over the same systems and topics."""

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[str, ...]
    values: np.ndarray = field(repr=False)  # (S, M, T) float64

    def matrix(self, measure: str) -> pd.DataFrame:
        """Systems x topics DataFrame of one measure (its canonical string)."""
        import pandas as pd

        m = self.measures.index(measure)
        return pd.DataFrame(self.values[:, m, :], index=pd.Index(self.systems, name="system"),
                            columns=pd.Index(self.topics, name="topic"))

    def matrices(self) -> dict[str, pd.DataFrame]:
        return {m: self.matrix(m) for m in self.measures}


#: ``score(collection) -> values[s, m, t]``: the scores of every measure on a batch's
#: Collection (:func:`irstab.evaluation.score_runs` passes the measure kernels). It must
#: pickle: it travels to worker processes and Dask workers.
ScoreFunction = Callable[[Collection], np.ndarray]


def batch_result(files: Sequence[str], index: QrelsIndex, depth: int, order: str,
                 reduce: Callable, workers: int | None = 0, part: tuple[int, int] | None = None,
                 max_bytes: int | None = None):
    """Reduce one job's run files (topics ``part = (lo, hi)`` only, if given) to Collections,
    batch by batch, and return ``(pieces, warnings)``.

    Each piece is ``(topic range or None, labels, reduce(collection), unknown topics,
    retrieved (T_b,) bool, tied)`` for one batch, ``labels`` holding each run's ``(file,
    tag, name)`` and ``tied`` its share of tied ranks and its ranks kept (:func:`gather`
    warns once about the runs of every batch). With ``max_bytes`` (and no ``part``), a
    batch closes before the run whose grade tensor, as reduced, would take the batch's
    past ``max_bytes`` (``2 x runs x topics x`` the deepest ranking among them), and a
    run larger than that alone comes in topic partitions, one piece each
    (:func:`~irstab.collection.reduce.reduce_file`).
    """
    budget = max_bytes if part is None else None  # a plan's partition is sized already
    batch_index = index if part is None else index.part(*part)
    pieces: list = []
    pending: list = []  # (RunArrays, file) of the open batch
    T, deepest = batch_index.n_topics, 1

    def close(runs, idx, where):
        acc = Assembler(len(runs), idx.n_topics, max((a.grades.shape[1] for a, _ in runs),
                                                     default=1))
        runs.reverse()
        while runs:  # each run's arrays freed once copied: the batch is not held twice
            acc.add(*runs.pop())
        coll = Collection.of(assemble(acc, [f"r{i}" for i in range(acc.S)], idx, depth,
                                      warn=False))
        pieces.append((where, acc.labels, reduce(coll), sorted(acc.unknown),
                       acc.run_length.sum(axis=0) > 0,
                       list(zip(acc.tied, acc.run_length.sum(axis=1).tolist()))))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for s, arrays in reduce_files([Path(f) for f in files], batch_index, depth, order, workers,
                                      max_bytes=budget):
            for a in arrays:
                if a.part is not None:  # a run larger than a batch, in topic partitions
                    if pending:
                        close(pending, batch_index, part)
                    close([(a, Path(files[s]))], batch_index.part(*a.part), a.part)
                    continue
                deepest = max(deepest if pending else 1, a.grades.shape[1])
                if pending and budget is not None and 2 * (len(pending) + 1) * T * deepest > budget:
                    close(pending, batch_index, part)
                    deepest = a.grades.shape[1]
                pending.append((a, Path(files[s])))
        if pending or not pieces:
            close(pending, batch_index, part)
    return pieces, [str(w.message) for w in caught]


def score_batch(files: Sequence[str], index: QrelsIndex, depth: int, order: str,
                score: ScoreFunction, workers: int | None = 0,
                part: tuple[int, int] | None = None, max_bytes: int | None = None):
    """:func:`batch_result` with the score rows ``score(collection)``, ``(S_b, M, T_b)``, as
    payload.

    This is the unit of work of both paths: the local loop and a Dask worker
    (which passes ``workers=0``: its own process reduces the files).
    """
    return batch_result(files, index, depth, order, score, workers, part, max_bytes)


def gather(results, index: QrelsIndex, join: Callable,
           progress: Callable[[int], None] | None = None) -> tuple[list[str], list]:
    """Run names and ``(first run, payload)`` of every batch, from the jobs' results
    (:func:`batch_result`) in order; a file's topic partitions are joined by
    ``join([(lo, payload)])``.

    Re-issues the jobs' warnings, then warns once about runs ranked largely by score ties
    (a run split in topic partitions as one: its shares weighted by their ranks kept),
    unknown and unretrieved topics.
    """
    T = index.n_topics
    labels, payloads, unknown, retrieved = [], [], set(), np.zeros(T, dtype=bool)
    shares: list[float] = []
    parts: list = []  # topic partitions of one file, joined when complete
    tied_parts: list = []  # their runs' (share, ranks kept), a list a partition
    for pieces, messages in results:
        for m in messages:
            warnings.warn(m, IRStabWarning, stacklevel=3)
        for part, batch_labels, payload, batch_unknown, batch_retrieved, tied in pieces:
            unknown.update(batch_unknown)
            lo, hi = part or (0, T)
            retrieved[lo:hi] |= batch_retrieved
            if part is not None:
                parts.append((lo, payload))
                tied_parts.append(tied)
                if hi < T:
                    continue
                payload, parts = join(parts), []
                tied = [_pooled(run) for run in zip(*tied_parts)]  # each run over its parts
                tied_parts = []
            payloads.append((len(labels), payload))
            labels.extend(batch_labels)
            shares += [x for x, _ in tied]
            if progress is not None:
                progress(len(batch_labels))
    names = name_runs(labels)
    warn_tied(shares, names)
    warn_unknown(unknown)
    warn_unretrieved(retrieved, index.topics)
    return names, payloads


def _pooled(shares) -> tuple[float, int]:
    """One run's tied share over its topic partitions ``[(share, ranks kept)]``: weighted by
    the ranks kept; and those ranks."""
    kept = sum(n for _, n in shares)
    return (sum(x * n for x, n in shares) / kept if kept else 0.0), kept


def score_runs(
    qrels,
    runs,
    score: ScoreFunction,
    names: Sequence[str],
    depth: int = 1000,
    order: str = "score",
    *,
    max_batch_bytes: int = DEFAULT_BATCH_BYTES,
    workers: int | None = None,
    client=None,
    progress: Callable[[int], None] | None = None,
    every_topic: bool = False,
) -> ScoreSet:
    """Score runs batch by batch (out of core), locally or on a Dask cluster.

    Parameters
    ----------
    qrels, runs
        Any sources :meth:`irstab.Collection.from_files` takes.
    score : callable
        ``score(collection) -> values[s, m, t]`` for one batch's Collection; it must
        pickle (it runs in worker processes and on Dask workers).
    names : sequence of str
        The ``M`` measures' names, in the order of ``score``'s second axis.
    depth, order
        As for :class:`irstab.Collection`.
    max_batch_bytes : int
        Grade-tensor bytes per batch (2 per ranked entry kept: topics x the ranks of a
        run's deepest topic, at most ``depth``).
    workers : int, optional
        Local worker processes (see :func:`irstab.collection.reduce.default_workers`): the
        files are cut into at least two even batches per worker (where there are that
        many files), each reduced and scored by one worker; a single batch spreads its
        files over them.
    client : distributed.Client, optional
        Score the batches on this Dask cluster instead (:mod:`irstab.collection.cluster`).
    progress : callable, optional
        Called with the number of runs just scored.
    every_topic : bool
        Score every topic the qrels name, also those without a relevant document (as
        trec_eval does; :meth:`QrelsIndex.from_qrels`), not only irstab's topic set.

    Returns
    -------
    ScoreSet
        Identical (to rounding of sums over padded ranks, < 1e-15) to scoring
        the whole Collection at once.
    """
    depth, order_enum = check_build_args(depth, order)
    order = order_enum.value
    names = tuple(map(str, names))
    qrels = read_qrels(qrels)
    index = QrelsIndex.from_qrels(qrels, every_topic)
    T = index.n_topics
    parsed = in_memory_runs(runs)
    if parsed is not None:  # already in memory: score them in batches all the same
        runs_named = [r.name for r in parsed]
        if len(set(runs_named)) != len(runs_named):
            raise IRStabError(f"run names must be unique, got {runs_named}")
        # each run's tensor from its deepest topic, counted in its frame
        deepest = [int(r.frame["topic"].value_counts().max()) if len(r.frame) else 1
                   for r in parsed]
        need = 2 * T * np.clip(deepest, 1, depth)
        rows, unknown, retrieved, tied = [], set(), np.zeros(T, dtype=bool), []
        for a, b in pack(need, max_batch_bytes):
            acc = Assembler(b - a, T)
            for r in parsed[a:b]:
                acc.add(reduce_run(r.frame, index, depth, order, keys=r.keys))
            rows.append(score(Collection.of(assemble(acc, runs_named[a:b], index, depth,
                                                     warn=False))))
            tied += acc.tied
            unknown |= acc.unknown
            retrieved |= acc.run_length.sum(axis=0) > 0
            if progress is not None:
                progress(b - a)
        warn_tied(tied, runs_named)
        warn_unknown(unknown)
        warn_unretrieved(retrieved, index.topics)
        return ScoreSet(tuple(runs_named), index.topics, names, np.concatenate(rows, axis=0))
    files = expand_paths(runs)
    if not files:
        raise IRStabError("no runs given")
    if client is not None:
        jobs = plan(files, T, depth, max_batch_bytes, worker_slots(client))
        results = map_jobs(client, score_batch, [
            dict(files=f, depth=depth, order=order, score=score, part=p,
                 max_bytes=max_batch_bytes) for f, p in jobs], index)
    else:
        if workers is None:
            workers = _reduce.default_workers(len(files), sum(text_size(p) for p in files))
        jobs = plan(files, T, depth, max_batch_bytes, workers)
        results = _score_jobs(jobs, index, depth, order, score, workers, max_batch_bytes)
    runs_named, rows = gather(results, index,
                              lambda parts: np.concatenate([v for _, v in parts], axis=2),
                              progress)
    return ScoreSet(tuple(runs_named), index.topics, names,
                    np.concatenate([v for _, v in rows], axis=0))


def _score_job(args):
    files, depth, order, score, part, max_bytes = args
    return score_batch(files, _reduce._WORKER_INDEX, depth, order, score, 0, part, max_bytes)


def _score_jobs(jobs, index: QrelsIndex, depth: int, order: str, score: ScoreFunction,
                workers: int, max_bytes: int):
    """Results of :func:`score_batch` for every ``(files, part)`` job, in order.

    With several jobs and worker processes, each job is reduced *and scored* in one
    worker (one pool for all jobs), so reading and scoring overlap across batches
    instead of the main process scoring while the workers wait. A single job keeps
    its files spread over the workers.
    """
    if workers <= 1 or len(jobs) < 2:
        yield from (score_batch(f, index, depth, order, score, workers, p, max_bytes)
                    for f, p in jobs)
        return
    with process_pool(min(workers, len(jobs)), _reduce._init_worker, (index,)) as pool:
        yield from pool.map(_score_job, [(f, depth, order, score, p, max_bytes)
                                         for f, p in jobs])

