"""One run at a time: a run's rows of the Collection arrays, in worker processes.

:func:`reduce_run` turns one run (``topic, docid, rank, score``) into its rows
``grades[t, r]``, ``judged[t, r]``, ``run_length[t]`` against a
:class:`~irstab.collection.index.QrelsIndex`; its document ids do not outlive
the call. :func:`reduce_files` does that for run files in parallel worker
processes; on a Dask cluster :func:`reduce_batch` is what the workers map
(:mod:`irstab.collection.cluster`).

Order within a topic: score descending, ties by docid descending (string
comparison), as trec_eval 10 (scores compared as doubles); ``order="score32"``
compares them in single precision, as trec_eval 9 and pytrec_eval (their ``float
sim``), so scores equal as 32-bit floats tie; ``order="rank"`` sorts by the
file's rank column (ties by line order); ``order="file"`` keeps the order of the
lines.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._numeric import runs_of
from .._workers import process_pool
from ..errors import IRStabError, IRStabWarning
from ..io import RunColumns, arrow_strings, read_run_columns, table_runs, tables
from ..io.textfiles import text_size
from .batches import topic_parts
from .index import QrelsIndex

if TYPE_CHECKING:  # pandas is imported where a frame is made: a run file is reduced without one
    import pandas as pd

__all__ = ["RunArrays", "reduce_run", "reduce_columns", "reduce_file", "reduce_batch",
           "reduce_files", "default_workers", "top_documents", "WORKER_MIN_BYTES"]


@dataclass(frozen=True, eq=False)
class RunArrays:
    """One run reduced: its rows of the Collection arrays, ``D_run`` ranks deep."""

    grades: np.ndarray  # (T, D_run) int8
    judged: np.ndarray  # (T, D_run) bool
    run_length: np.ndarray  # (T,) int64
    unknown_topics: tuple[str, ...] = ()  # in the run, not in the qrels
    tag: str | None = None
    name: str | None = None  # set for runs of tables (Parquet, Arrow): their own name
    tied: float = 0.0  # share of the kept ranks whose score another document of the topic shares
    top: pd.DataFrame | None = None  # with keep > 0: the run's first documents (top_documents)
    part: tuple[int, int] | None = None  # topics lo..hi of the index only (a run split by size)


def _order_within_topics(group: np.ndarray, score: np.ndarray, rank: np.ndarray | None,
                         docids, order: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Row permutation: grouped by topic code, then in the chosen order within a topic;
    None when the rows are in that order already (a run file usually is). Also, for the
    score orders, ``tie[i]``: rows ``i`` and ``i + 1`` of that order share their topic and
    score (None for the others).

    ``score`` float64; ``rank`` (read for ``order="rank"`` only); ``docids`` pyarrow
    strings (compared only within blocks of tied scores)."""
    if order == "rank":
        return np.lexsort((rank, group)), None
    if order == "file":
        return np.argsort(group, kind="stable"), None
    score = _order_scores(score, order)
    n = len(group)
    same = group[1:] == group[:-1]
    grouped = n < 2 or bool(((group[1:] > group[:-1]) | (same & (score[1:] <= score[:-1]))).all())
    if grouped:  # files are usually sorted
        perm, g, s = None, group, score
    else:
        perm = np.lexsort((-score, group))
        g, s = group[perm], score[perm]
        same = g[1:] == g[:-1]
    tie = same & (s[1:] == s[:-1])
    if not tie.any():
        return perm, tie
    # Blocks of equal (topic, score): docid descending, by string comparison.
    perm = np.arange(n) if perm is None else perm
    in_tie = np.zeros(len(perm), dtype=bool)
    in_tie[1:] |= tie
    in_tie[:-1] |= tie
    block = np.cumsum(np.r_[True, ~tie])
    idx = np.flatnonzero(in_tie)
    sub = perm[idx]
    import pyarrow.compute as pc

    doc_rank = pc.rank(arrow_strings(docids.take(sub)), tiebreaker="first").to_numpy()
    perm[idx] = sub[np.lexsort((-doc_rank.astype(np.int64), block[idx]))]
    return perm, tie  # the same scores in the same places: ``tie`` holds


def _take(values, rows):
    """``values[rows]``; ``values`` itself when ``rows`` is None (every row, in order)."""
    return values if rows is None else values[rows]


def _order_scores(score: np.ndarray, order: str) -> np.ndarray:
    """The scores as the order compares them: float64, or float32 for ``score32``."""
    if order == "score32":  # trec_eval 9 holds scores as C floats: equal in single precision tie
        with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as a C float cast gives
            return score.astype(np.float32)
    return score


def _frame_columns(frame: pd.DataFrame):
    """A run frame's topic codes (first appearance order), their names (object array), its
    document ids (pyarrow strings), scores as float64 and as stored."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(arrow_strings(frame["topic"], large=True))
    tcode = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    tnames = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    stored = frame["score"].to_numpy()
    return (tcode, tnames, arrow_strings(frame["docid"], large=True),
            np.asarray(stored, dtype=np.float64), stored)


def top_documents(frame: pd.DataFrame, depth: int, order: str = "score") -> pd.DataFrame:
    """The first ``depth`` documents of every topic of one run, in the Collection's order.

    Columns ``topic, docid, rank, score``: ``rank`` is 1-based, the position
    :func:`reduce_run` gives the document, and ``score`` the run's; what a pool of depth
    ``depth`` takes from this run, and a run truncated to ``depth`` that ranks the same in
    every order.

    >>> import pandas as pd
    >>> f = pd.DataFrame({"topic": ["1", "1", "1", "2"], "docid": ["a", "b", "c", "d"],
    ...                   "rank": [1, 2, 3, 1], "score": [1.0, 3.0, 3.0, 0.5]})
    >>> top_documents(f, 2).values.tolist()  # score descending, ties by docid descending
    [['1', 'c', 1, 3.0], ['1', 'b', 2, 3.0], ['2', 'd', 1, 0.5]]
    """
    import pandas as pd

    if len(frame) == 0:
        return pd.DataFrame({"topic": pd.Series([], dtype=object),
                             "docid": pd.Series([], dtype=object),
                             "rank": np.zeros(0, np.int64), "score": np.zeros(0)})
    tcode, _, docids, score, _ = _frame_columns(frame)
    rank = frame["rank"].to_numpy() if order == "rank" else None
    perm, _ = _order_within_topics(tcode, score, rank, docids, order)
    perm = np.arange(len(tcode)) if perm is None else perm
    _, _, pos = runs_of(tcode[perm])
    keep = perm[pos < depth]
    return pd.DataFrame({"topic": frame["topic"].to_numpy()[keep],
                         "docid": frame["docid"].to_numpy()[keep],
                         "rank": pos[pos < depth] + 1,
                         "score": frame["score"].to_numpy()[keep]})


def reduce_run(frame: pd.DataFrame, index: QrelsIndex, depth: int, order: str = "score",
               tag: str | None = None, name: str | None = None,
               keys: np.ndarray | None = None, keep: int = 0) -> RunArrays:
    """Reduce one run (columns ``topic, docid, rank, score``) to its Collection rows.

    Rows of topics outside the index are dropped (their names are returned in
    ``unknown_topics`` when the qrels do not know them at all); each topic
    keeps its first ``depth`` documents in the chosen order. ``keys``: the rows'
    ``(topic, docid)`` keys (:attr:`irstab.io.Run.keys`), if the reader hashed them;
    else the kept rows are hashed here. With ``keep > 0``,
    ``top`` also holds the first ``keep`` documents of each of the index's topics,
    :func:`top_documents` of those rows, from the same sort (for a study that reads the
    documents again, e.g. the pools of :mod:`irstab.design.depth`).
    """
    tcode, tnames, docids, score, stored = _frame_columns(frame)
    rank = frame["rank"].to_numpy() if order == "rank" else None
    return _reduce(tcode, tnames, docids, score, stored, rank, index, depth, order, tag, name,
                   keys, keep)


def reduce_columns(run: RunColumns, index: QrelsIndex, depth: int, order: str = "score",
                   keep: int = 0, part: tuple[int, int] | None = None) -> RunArrays:
    """:func:`reduce_run` of a run read as arrays (:func:`irstab.io.read_run_columns`): the
    same rows, with the reader's topic codes and keys, no frame. ``part``: the topic range
    ``index`` is a :meth:`~irstab.collection.index.QrelsIndex.part` of, recorded in the
    result."""
    tnames = np.asarray(run.topics.to_pylist(), dtype=object)
    arrays = _reduce(run.topic_codes, tnames, run.docids, run.score, run.score, run.rank, index,
                     depth, order, run.tag, None, run.keys, keep)
    return arrays if part is None else replace(arrays, part=part)


def _reduce(tcode, tnames, docids, score, stored, rank, index, depth, order, tag, name, keys,
            keep) -> RunArrays:
    """:func:`reduce_run` on arrays: topic codes into ``tnames``, document ids (pyarrow),
    scores as float64 (``score``) and as given (``stored``, for ``top``), ranks."""
    t_of = index.topic_codes(tnames)
    unknown = tuple(str(x) for x, k in zip(tnames, t_of) if k < 0 and x not in index.known_topics)
    T = index.n_topics
    if (t_of < 0).any():
        rows = np.flatnonzero(t_of[tcode] >= 0)
        tcode, docids, score, stored = tcode[rows], docids.take(rows), score[rows], stored[rows]
        rank = None if rank is None else rank[rows]
        keys = None if keys is None else keys[rows]
    perm, tie = _order_within_topics(tcode, score, rank, docids, order)
    g = _take(tcode, perm)
    starts, sizes, pos = runs_of(g)
    # the rows kept, in order (None: all of them, as usual at the default depth)
    within = None if sizes.max(initial=0) <= depth else np.flatnonzero(pos < depth)
    run_length = np.zeros(T, dtype=np.int64)
    run_length[t_of[g[starts]]] = np.minimum(sizes, depth)
    D = int(min(depth, sizes.max(initial=0))) or 1
    t = t_of[_take(g, within)].astype(np.int64, copy=False)
    kept = within if perm is None else _take(perm, within)  # rows of the input
    grade, found = index.lookup(t, docids, None if keys is None else _take(keys, kept), rows=kept)
    cell = t * D + _take(pos, within)  # flat (topic, rank): one index, not two
    grades = np.zeros(T * D, dtype=np.int8)
    judged = np.zeros(T * D, dtype=bool)
    grades[cell] = grade
    judged[cell] = found
    top = None
    if keep > 0:
        import pandas as pd

        first = pos < keep
        rows = np.flatnonzero(first) if perm is None else perm[first]
        top = pd.DataFrame({"topic": tnames[tcode[rows]],
                            "docid": docids.take(rows).to_numpy(zero_copy_only=False),
                            "rank": pos[first] + 1,
                            "score": stored[rows]})
    return RunArrays(grades.reshape(T, D), judged.reshape(T, D), run_length, unknown, tag, name,
                     _tied_share(tie, within), top)


def _tied_share(tie: np.ndarray | None, within: np.ndarray | None) -> float:
    """Share of the kept ranks (``within``; None: all) whose score equals a neighbour's in
    the same topic (``tie``, :func:`_order_within_topics`; None: not a score order): ranks
    that the tie-break (docid descending), not the run, put where they are."""
    if tie is None:
        return 0.0
    tied = np.zeros(len(tie) + 1, dtype=bool)
    tied[1:] |= tie
    tied[:-1] |= tie
    kept = _take(tied, within)
    return float(kept.mean()) if len(kept) else 0.0


def reduce_file(path: str, index: QrelsIndex, depth: int, order: str = "score", keep: int = 0,
                max_bytes: int | None = None) -> tuple[list[RunArrays], list[str]]:
    """Read and reduce one run file; also the messages of warnings raised meanwhile.

    A TREC file holds one run; a Parquet/Arrow file with a run column holds
    one run per value (named by it), reduced one after the other. ``keep`` as
    :func:`reduce_run`. With ``max_bytes``, a TREC run whose grade tensor (``2 x
    topics x`` the ranks of its deepest topic, at most ``depth``) exceeds it is reduced
    in :func:`~irstab.collection.batches.topic_parts`, one :class:`RunArrays` each (its
    ``part`` set), from the one reading of the file.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if tables.is_table_source(path):
            arrays = [reduce_run(r.frame, index, depth, order, tag=r.tag, name=r.name, keep=keep)
                      for r in table_runs(path)]
        else:
            columns = read_run_columns(path)
            large = len(columns) >= _RELEASE_ROWS
            parts = _parts(columns, index, depth, max_bytes)
            arrays = ([reduce_columns(columns, index, depth, order, keep=keep)] if parts is None
                      else [reduce_columns(columns, index.part(lo, hi), depth, order, keep=keep,
                                           part=(lo, hi)) for lo, hi in parts])
            del columns
            if large:
                _release_arrow_memory()
    return arrays, [str(w.message) for w in caught]


def _parts(run: RunColumns, index: QrelsIndex, depth: int, max_bytes: int | None
           ) -> list[tuple[int, int]] | None:
    """Topic ranges of the index to reduce ``run`` in, None for the whole run at once: its
    grade tensor, ``2 x topics x`` the most rows of any indexed topic (at most
    ``depth``), exceeds ``max_bytes``."""
    if max_bytes is None or len(run) == 0:
        return None
    counts = np.bincount(run.topic_codes, minlength=len(run.topics))
    indexed = index.topic_codes(run.topics.to_pylist()) >= 0
    need = 2 * index.n_topics * max(1, min(depth, int(counts[indexed].max(initial=0))))
    return topic_parts(need, index.n_topics, max_bytes) if need > max_bytes else None


#: lines of a run file from which its parse memory is handed back once it is reduced
_RELEASE_ROWS = 1_000_000


def _release_arrow_memory() -> None:
    """Hand the memory pyarrow's allocator kept from a file's parse back to the system.

    The allocator keeps freed pages for reuse (130 MB after a 2e6-line file); a worker
    then reduced the next file, or scored its batch, beside them. The next parse pays the
    page faults of fresh memory instead: about a tenth of the reducer's CPU on files of
    200,000 lines, which keep little, so only files of :data:`_RELEASE_ROWS` lines or more
    are released."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def reduce_batch(files: Sequence[str], index: QrelsIndex, depth: int, order: str, keep: int = 0
                 ) -> list[tuple[list[RunArrays], list[str]]]:
    """:func:`reduce_file` of each file, in this process (the unit a Dask worker runs)."""
    return [reduce_file(f, index, depth, order, keep) for f in files]


# ---------------------------------------------------------------- parallel driver

_WORKER_INDEX: QrelsIndex | None = None


def _init_worker(index: QrelsIndex) -> None:
    """A worker process: the qrels index, and memory freed kept for reuse (for pyarrow's
    arrays too: they come from the C heap, the system pool, rather than mimalloc, which
    hands freed pages back and faults them in again, about 0.5 s of system CPU over 100
    files of 200,000 lines; the calling process's pool is left as its user set it)."""
    global _WORKER_INDEX
    _WORKER_INDEX = index
    if _reuse_freed_memory():
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())


#: mallopt parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _reuse_freed_memory() -> bool:
    """Let this process's C allocator reuse the memory it frees rather than hand it back.

    Reducing a run allocates and frees arrays of a few MB to tens of MB (8 bytes a row);
    glibc maps every block above its mmap threshold afresh and trims its heap's top, so
    each run paid the page faults of zeroed new memory again (a quarter to a third of the
    reducer's CPU on 200,000-row runs). Blocks up to 32 MiB (4 million rows of 8 bytes;
    glibc's largest threshold on 64-bit systems) now come from the heap, and up to 32 MiB
    of free heap top is kept; larger blocks are still mapped and unmapped, so what a
    process holds beyond its live data stays small. A run 10,000 deep (2 million rows,
    streamed) keeps its columns joined at 16 MB each: at a threshold of 8 MiB, 20 such
    runs faulted in 164,000 fresh pages (1.5 s of system CPU of 8.8 s); at 32 MiB,
    105,000 (1.2 s of 8.2 s), the peak RSS 437 against 434 MB.
    Set once per process (``mallopt``); a C library without ``mallopt``: nothing is done.
    True if the allocator was set so.
    """
    global _REUSING
    if _REUSING is None:
        _REUSING = False
        try:
            import ctypes

            mallopt = ctypes.CDLL(None).mallopt
        except (OSError, AttributeError):
            return False
        _REUSING = bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(
            mallopt(_M_TRIM_THRESHOLD, 32 << 20))
    return _REUSING


_REUSING: bool | None = None


def _reduce_in_worker(args):
    path, depth, order, keep, max_bytes = args
    return reduce_file(path, _WORKER_INDEX, depth, order, keep, max_bytes)


#: Text bytes of run files below which they are read in this process (:func:`default_workers`)
WORKER_MIN_BYTES = 128 * 2**20
#: Mean text bytes a run file above which the files are read in this process: files larger
#: than this are streamed in batches (``irstab.io.trec``'s read-whole limit, 64 MiB)
WORKER_MAX_FILE_BYTES = 64 * 2**20


def default_workers(n_files: int, total_bytes: int) -> int:
    """Worker processes for ``n_files`` files of ``total_bytes`` of text
    (:func:`~irstab.io.textfiles.text_size`): one per core, none below
    :data:`WORKER_MIN_BYTES` (128 MiB) and none where the files average over
    :data:`WORKER_MAX_FILE_BYTES` (64 MiB).

    A pool costs CPU that a small input does not win back: forking, the workers' first
    touches of the inherited memory, their results sent back. TREC DL 2019's 37 runs (69 MB,
    1.6e6 lines) take 0.2-0.3 s more CPU seconds with 2 workers than in this process (of
    about 2.2 s for ``irstab evaluate``), for at most the second core's share of the wall
    time; 100 runs of 200 topics x 1,000 (0.9 GB, files read whole, on all cores) keep one
    worker per core: the same CPU, less wall time. Files over 64 MiB are streamed, and
    one process handles them faster: 20 runs of 200 topics x 10,000 (1.8 GB) took 16.0 s
    of CPU in this process against 17.4 s with 2 workers, the same wall time (29.8 and
    29.5 s, 2 cores, load 3), and 486 against 1,318 MiB (the process tree's RSS).
    ``IRSTAB_WORKERS`` overrides (0 or 1: reduce in this process).
    """
    env = os.environ.get("IRSTAB_WORKERS")
    if env is not None:
        try:
            return max(int(env), 0)
        except ValueError:
            raise IRStabError(f"IRSTAB_WORKERS must be an integer, got {env!r}") from None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if n_files < 2 or total_bytes < WORKER_MIN_BYTES:  # a pool costs more than it saves
        return 0
    if total_bytes > WORKER_MAX_FILE_BYTES * n_files:  # streamed files: one process is faster
        return 0
    return min(cores or 1, n_files)


def reduce_files(files: Sequence[Path], index: QrelsIndex, depth: int, order: str,
                 workers: int | None = None,
                 advance: Callable[[], None] | None = None, keep: int = 0,
                 max_bytes: int | None = None) -> Iterable[tuple[int, list[RunArrays]]]:
    """Yield ``(position, [RunArrays of its runs])`` of every file, reduced in worker processes.

    Worker warnings are re-issued here; an error in any file is raised here
    (the first in file order) and the remaining work is cancelled. ``keep`` as
    :func:`reduce_run`, ``max_bytes`` as :func:`reduce_file`.
    """
    if workers is None:
        workers = default_workers(len(files), sum(text_size(f) for f in files))
    jobs = [(str(f), depth, order, keep, max_bytes) for f in files]
    if workers <= 1:
        _reuse_freed_memory()
        yield from _report(enumerate(reduce_file(*job[:1], index, *job[1:]) for job in jobs),
                           advance)
        return
    with process_pool(workers, _init_worker, (index,)) as pool:
        yield from _report(enumerate(pool.map(_reduce_in_worker, jobs)), advance)


def _report(results, advance):
    """Re-issue each file's warnings here, count it, pass its arrays on."""
    for s, (arrays, messages) in results:
        for m in messages:
            warnings.warn(m, IRStabWarning, stacklevel=4)
        if advance is not None:
            advance()
        yield s, arrays
