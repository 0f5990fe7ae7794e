"""Scores batch by batch: systems x topics matrices without the whole grade tensor.

Every measure reads one system's rows of the Collection arrays and the topics'
ideal lists and grade counts, nothing else, so a Collection of a *batch* of
runs (same topics, same qrels index) gives exactly those runs' scores. Here
run files are reduced in batches bounded in bytes (``max_batch_bytes`` of
grade tensor, default 32 MB: the measure kernels need float temporaries of
about 10-20 times that), each batch is scored and dropped, and only the
float64 score rows are kept: ``8 x measures`` bytes per system and topic
instead of 2 bytes per ranked entry. A run whose grade tensor alone exceeds
a batch is split into topic partitions (:func:`plan`): each job reads the file
and keeps its range of topics, and the score columns are joined. On a Dask
cluster the jobs are what the workers map (:func:`score_batch`): each
receives file paths (and a topic range) and the qrels index, returns its
score rows; nothing else crosses the network.

Memory: the qrels index, one batch tensor per worker process (at most
``max_batch_bytes`` unless a single run is larger), and the scores.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._workers import process_pool
from ..errors import IRStabError, IRStabWarning
from ..io import expand_paths, in_memory_runs, read_qrels, run_file_name
from . import reduce as _reduce
from .build import (Assembler, assemble, check_build_args, name_runs, tied_message, warn_tied,
                    warn_unknown, warn_unretrieved)
from .cluster import map_jobs
from .collection import Collection
from .index import QrelsIndex
from .reduce import reduce_files, reduce_run

__all__ = ["ScoreSet", "score_runs", "score_batch", "batch_result", "gather", "plan",
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
                 reduce: Callable, workers: int | None = 0, part: tuple[int, int] | None = None):
    """Reduce one batch of run files (topics ``part = (lo, hi)`` only, if given) to a
    Collection and return ``(labels, reduce(collection), unknown topics, retrieved (T_b,)
    bool, warnings)``, ``labels`` holding each run's ``(file, tag, name)``."""
    if part is not None:
        index = index.part(*part)
    acc = Assembler(len(files), index.n_topics)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for s, arrays in reduce_files([Path(f) for f in files], index, depth, order, workers):
            for a in arrays:
                acc.add(a, Path(files[s]))
        coll = Collection.of(assemble(acc, [f"r{i}" for i in range(acc.S)], index, depth,
                                      warn=False))
        payload = reduce(coll)
        tied = tied_message(acc.tied, [n or t or run_file_name(Path(f)) for f, t, n in acc.labels])
        if tied is not None:
            warnings.warn(tied, IRStabWarning)
    retrieved = acc.run_length.sum(axis=0) > 0
    return acc.labels, payload, sorted(acc.unknown), retrieved, [str(w.message) for w in caught]


def score_batch(files: Sequence[str], index: QrelsIndex, depth: int, order: str,
                score: ScoreFunction, workers: int | None = 0,
                part: tuple[int, int] | None = None):
    """:func:`batch_result` with the score rows ``score(collection)``, ``(S_b, M, T_b)``, as
    payload.

    This is the unit of work of both paths: the local loop and a Dask worker
    (which passes ``workers=0``: its own process reduces the files).
    """
    return batch_result(files, index, depth, order, score, workers, part)


def gather(jobs, results, index: QrelsIndex, join: Callable,
           progress: Callable[[int], None] | None = None) -> tuple[list[str], list]:
    """Run names and ``(first run, payload)`` of every batch, from :func:`plan`'s jobs and
    their results in order; a file's topic partitions are joined by ``join([(lo, payload)])``.

    Re-issues the jobs' warnings, then warns once about unknown and unretrieved topics.
    """
    T = index.n_topics
    labels, payloads, unknown, retrieved = [], [], set(), np.zeros(T, dtype=bool)
    parts: list = []  # topic partitions of one file, joined when complete
    for (_, part), (batch_labels, payload, batch_unknown, batch_retrieved, messages) in zip(
            jobs, results):
        for m in messages:
            warnings.warn(m, IRStabWarning, stacklevel=3)
        unknown.update(batch_unknown)
        lo, hi = part or (0, T)
        retrieved[lo:hi] |= batch_retrieved
        if part is not None:
            parts.append((lo, payload))
            if hi < T:
                continue
            payload, parts = join(parts), []
        payloads.append((len(labels), payload))
        labels.extend(batch_labels)
        if progress is not None:
            progress(len(batch_labels))
    names = name_runs(labels)
    warn_unknown(unknown)
    warn_unretrieved(retrieved, index.topics)
    return names, payloads


def plan(files: Sequence[Path], n_topics: int, depth: int, max_bytes: int
         ) -> list[tuple[list[str], tuple[int, int] | None]]:
    """Jobs ``(files, topic range or None)``: batches of whole files of about ``max_bytes``
    of grade tensor; a file whose run alone exceeds it is split into topic partitions
    (each job reads the file and keeps its topics).

    A run's tensor is ``2 x topics x ranks`` bytes, the ranks being those of its
    deepest topic. Nominally (``min(depth, 1000)`` ranks) a run of many topics needs
    partitions, and each partition reads the whole file: for such a TREC file the
    deepest topic is counted first (:func:`irstab.io.scan.deepest_ranking`, one pass
    over its topic column), so that a wide but shallow run (a million topics, one
    document each) is read once, not once per partition of a tensor it never fills.
    """
    from ..io import tables
    from ..io.scan import deepest_ranking

    per_run = 2 * n_topics * min(depth, 1000)
    if per_run <= max_bytes:
        size = max(1, max_bytes // per_run)
        return [([str(f) for f in files[i:i + size]], None) for i in range(0, len(files), size)]
    jobs: list[tuple[list[str], tuple[int, int] | None]] = []
    group: list[str] = []
    held = 0
    for f in files:
        deepest = None if tables.is_table_source(f) else deepest_ranking(f)
        need = per_run if deepest is None else 2 * n_topics * max(1, min(depth, deepest))
        if need <= max_bytes:
            if group and held + need > max_bytes:
                jobs.append((group, None))
                group, held = [], 0
            group.append(str(f))
            held += need
            continue
        if group:  # files keep their order: the runs are named in it
            jobs.append((group, None))
            group, held = [], 0
        k = -(-need // max_bytes)
        edges = np.linspace(0, n_topics, min(k, n_topics) + 1).round().astype(int)
        jobs += [([str(f)], (int(lo), int(hi))) for lo, hi in zip(edges[:-1], edges[1:])]
    if group:
        jobs.append((group, None))
    return jobs


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
        Grade-tensor bytes per batch (2 per ranked entry kept).
    workers : int, optional
        Local worker processes (see :func:`irstab.collection.reduce.default_workers`): with several
        batches each worker reduces and scores whole batches; a single batch spreads its
        files over them.
    client : distributed.Client, optional
        Score the batches on this Dask cluster instead (:mod:`irstab.collection.cluster`).
    progress : callable, optional
        Called with the number of runs just scored.

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
    index = QrelsIndex.from_qrels(qrels)
    T = index.n_topics
    per_run = 2 * T * min(depth, 1000)
    parsed = in_memory_runs(runs)
    if parsed is not None:  # already in memory: score them in batches all the same
        runs_named = [r.name for r in parsed]
        if len(set(runs_named)) != len(runs_named):
            raise IRStabError(f"run names must be unique, got {runs_named}")
        size = max(1, max_batch_bytes // per_run)
        rows, unknown, retrieved = [], set(), np.zeros(T, dtype=bool)
        for i in range(0, len(parsed), size):
            acc = Assembler(len(parsed[i:i + size]), T)
            for r in parsed[i:i + size]:
                acc.add(reduce_run(r.frame, index, depth, order, keys=r.keys))
            rows.append(score(Collection.of(assemble(acc, runs_named[i:i + size], index, depth,
                                                     warn=False))))
            warn_tied(acc.tied, runs_named[i:i + size])
            unknown |= acc.unknown
            retrieved |= acc.run_length.sum(axis=0) > 0
            if progress is not None:
                progress(len(parsed[i:i + size]))
        warn_unknown(unknown)
        warn_unretrieved(retrieved, index.topics)
        return ScoreSet(tuple(runs_named), index.topics, names, np.concatenate(rows, axis=0))
    files = expand_paths(runs)
    if not files:
        raise IRStabError("no runs given")
    jobs = plan(files, T, depth, max_batch_bytes)
    if client is not None:
        results = map_jobs(client, score_batch, [
            dict(files=f, depth=depth, order=order, score=score, part=p)
            for f, p in jobs], index)
    else:
        results = _score_jobs(jobs, index, depth, order, score, workers)
    runs_named, rows = gather(jobs, results, index,
                              lambda parts: np.concatenate([v for _, v in parts], axis=2),
                              progress)
    return ScoreSet(tuple(runs_named), index.topics, names,
                    np.concatenate([v for _, v in rows], axis=0))


def _score_job(args):
    files, depth, order, score, part = args
    return score_batch(files, _reduce._WORKER_INDEX, depth, order, score, 0, part)


def _score_jobs(jobs, index: QrelsIndex, depth: int, order: str, score: ScoreFunction,
                workers: int | None):
    """Results of :func:`score_batch` for every ``(files, part)`` job, in order.

    With several jobs and worker processes, each job is reduced *and scored* in one
    worker (one pool for all jobs), so reading and scoring overlap across batches
    instead of the main process scoring while the workers wait. A single job keeps
    its files spread over the workers.
    """
    if workers is None:
        paths = [Path(f) for fs, _ in jobs for f in fs]
        workers = _reduce.default_workers(len(paths), sum(_reduce._size(p) for p in paths))
    if workers <= 1 or len(jobs) < 2:
        yield from (score_batch(f, index, depth, order, score, workers, p) for f, p in jobs)
        return
    with process_pool(min(workers, len(jobs)), _reduce._init_worker, (index,)) as pool:
        yield from pool.map(_score_job, [(f, depth, order, score, p) for f, p in jobs])

