"""Bounded-memory Collection build: runs reduced one at a time against a qrels index.

The qrels become a :class:`QrelsIndex` once: the evaluated topics, the judged
document ids (a hash index) and a sorted array of ``(topic, document)`` keys
with their grades. Each run is then reduced on its own by
:func:`reduce_run` to its rows of the Collection's arrays (``grades[t, r]``,
``judged[t, r]``, ``run_length[t]``); its document ids do not outlive that
call. Peak memory is the final arrays (2 bytes per ranked entry) plus one run
in flight per worker, never all runs' strings at once.

Run files are parsed and reduced in parallel worker processes
(:func:`reduce_files`); on a Dask cluster the same per-file function is what
the workers map (:mod:`irstab.cluster`).

The conventions are those of :mod:`irstab.collection` and give the same arrays
bit for bit as reducing all runs at once would (tested on TREC DL 2019, the
example collection and fixtures with ties, shared tags, ranks from 0 and runs
missing topics).
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputFormatError, IRStabError, IRStabWarning
from .io import Qrels, Run, arrow_strings, read_run

__all__ = ["QrelsIndex", "RunArrays", "reduce_run", "reduce_file", "assemble", "name_runs"]


def _sort_topics(topics: Iterable[str]) -> list[str]:
    topics = list(topics)
    if all(t.lstrip("-").isdigit() for t in topics):
        return sorted(topics, key=int)
    return sorted(topics)


def _short(items: Sequence) -> str:
    return f"{list(items[:10])}{' ...' if len(items) > 10 else ''}"


_MIX = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)


def _words(arr, width: int) -> np.ndarray:
    """Ids padded with NUL bytes to ``8 * width`` bytes, as ``(n, width)`` uint64 words."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(arr) == 0:
        return np.zeros((0, width), dtype=np.uint64)
    fixed = pc.ascii_rpad(arr, width=8 * width, padding="\0").cast(pa.binary(8 * width))
    buf = np.frombuffer(fixed.buffers()[1], dtype=np.uint64)
    return buf[fixed.offset * width:(fixed.offset + len(fixed)) * width].reshape(-1, width)


def _key_hash(t: np.ndarray, words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit mix of (topic code, id bytes, id length); equal inputs give equal keys."""
    with np.errstate(over="ignore"):
        h = (t.astype(np.uint64) + np.uint64(1)) * _MIX ^ lengths.astype(np.uint64)
        for j in range(words.shape[1]):
            h = (h ^ words[:, j]) * _MIX2
            h ^= h >> np.uint64(31)
    return h


@dataclass(frozen=True, eq=False)
class QrelsIndex:
    """Qrels as a lookup table ``(topic, docid) -> grade`` for the evaluated topics.

    Each judgment is keyed by a 64-bit mix of its topic code and the bytes of
    its document id; ``keys`` are sorted, so a run's documents are found by
    binary search, and every hit is confirmed against the stored bytes
    (``words``, ``lengths``, ``key_topics``), so the lookup is exact. It pickles
    small (no per-run data): it is what worker processes receive.
    """

    path: str
    topics: tuple[str, ...]
    known_topics: frozenset
    topic_index: pd.Index = field(repr=False)
    keys: np.ndarray = field(repr=False)
    key_topics: np.ndarray = field(repr=False)
    key_grades: np.ndarray = field(repr=False)
    words: np.ndarray = field(repr=False)
    lengths: np.ndarray = field(repr=False)
    grade_counts: np.ndarray = field(repr=False)
    ideal: np.ndarray = field(repr=False)
    max_grade: int = 1
    offset: int = 0  # code of topics[0] in the whole index (a topic partition's start)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @classmethod
    def from_qrels(cls, qrels: Qrels) -> QrelsIndex:
        """Index the qrels; warns about topics without a relevant document."""
        import pyarrow.compute as pc

        q = qrels.frame
        qgrade = q["grade"].to_numpy(dtype=np.int64)
        qtopic = q["topic"].to_numpy()
        topics = _sort_topics(pd.unique(qtopic[qgrade > 0]))
        if not topics:
            raise IRStabError(f"{qrels.path}: no topic has a relevant document (grade > 0)")
        known = frozenset(pd.unique(qtopic).tolist())
        dropped = sorted(known - set(topics))
        if dropped:
            warnings.warn(
                f"{len(dropped)} qrels topic(s) without a relevant document are not "
                f"evaluated: {_short(dropped)}",
                IRStabWarning,
                stacklevel=3,
            )
        topic_index = pd.Index(topics)
        t = topic_index.get_indexer(qtopic)
        keep = np.flatnonzero(t >= 0)
        t, grade = t[keep].astype(np.int64), qgrade[keep]
        docs = arrow_strings(q["docid"]).take(keep)
        lengths = pc.binary_length(docs).to_numpy().astype(np.int64)
        width = max(1, -(-int(lengths.max()) // 8))
        words = _words(docs, width)
        key = _key_hash(t, words, lengths)
        order = np.argsort(key, kind="stable")
        key = key[order]
        if (key[1:] == key[:-1]).any():  # two judgments share a 64-bit key: astronomically rare
            raise IRStabError(f"{qrels.path}: document id hash collision; please report it")

        max_grade = max(int(qgrade.max()), 1)
        T, G = len(topics), max_grade + 1
        grade_counts = np.zeros((T, G), dtype=np.int64)
        np.add.at(grade_counts, (t[grade >= 0], grade[grade >= 0]), 1)  # negative: not counted
        n_rel = grade_counts[:, 1:].sum(axis=1)
        J = int(n_rel.max())
        # ideal[t, j]: positive grades sorted decreasing (from the per-grade counts).
        j = np.arange(J)
        upper = np.cumsum(grade_counts[:, ::-1][:, :-1], axis=1)  # counts of grades >= g
        level = (j[None, :, None] < upper[:, None, :]).argmax(axis=2)
        ideal = np.where(j[None, :] < n_rel[:, None], max_grade - level, 0).astype(np.int8)
        return cls(
            path=qrels.path, topics=tuple(topics), known_topics=known,
            topic_index=topic_index, keys=key, key_topics=t[order],
            key_grades=grade[order].astype(np.int8), words=words[order],
            lengths=lengths[order], grade_counts=grade_counts, ideal=ideal,
            max_grade=max_grade,
        )

    def part(self, lo: int, hi: int) -> QrelsIndex:
        """The index of topics ``lo..hi-1`` only (a topic partition of large run files).

        Runs reduced against it keep those topics' rows; the other qrels
        topics are still known (not reported as unknown).
        """
        if (lo, hi) == (0, self.n_topics):
            return self
        keep = (self.key_topics >= self.offset + lo) & (self.key_topics < self.offset + hi)
        return QrelsIndex(
            path=self.path, topics=self.topics[lo:hi], known_topics=self.known_topics,
            topic_index=pd.Index(self.topics[lo:hi]), keys=self.keys[keep],
            key_topics=self.key_topics[keep], key_grades=self.key_grades[keep],
            words=self.words[keep], lengths=self.lengths[keep],
            grade_counts=self.grade_counts[lo:hi], ideal=self.ideal[lo:hi],
            max_grade=self.max_grade, offset=self.offset + lo,
        )

    def lookup(self, t: np.ndarray, docids) -> tuple[np.ndarray, np.ndarray]:
        """Grades and judged flags of documents ``docids`` retrieved for topic codes ``t``."""
        import pyarrow.compute as pc

        grade = np.zeros(len(t), dtype=np.int8)
        found = np.zeros(len(t), dtype=bool)
        if len(t) == 0:
            return grade, found
        docs = arrow_strings(docids)
        lengths = pc.binary_length(docs).to_numpy().astype(np.int64)
        width = self.words.shape[1]
        cand = np.flatnonzero(lengths <= 8 * width)  # longer ids are judged nowhere
        if len(cand) < len(docs):
            docs = docs.take(cand)
        words = _words(docs, width)
        t = t + self.offset  # keys hold the codes of the whole index
        key = _key_hash(t[cand], words, lengths[cand])
        order = np.argsort(key)  # sorted needles: numpy's binary search reuses the last bound
        at = np.empty(len(key), dtype=np.int64)
        at[order] = np.searchsorted(self.keys, key[order])
        np.minimum(at, len(self.keys) - 1, out=at)
        hit = self.keys[at] == key
        hit &= self.key_topics[at] == t[cand]
        hit &= self.lengths[at] == lengths[cand]
        hit &= (self.words[at] == words).all(axis=1)
        found[cand[hit]] = True
        grade[cand[hit]] = self.key_grades[at[hit]]
        return grade, found


@dataclass(frozen=True, eq=False)
class RunArrays:
    """One run reduced: its rows of the Collection arrays, ``D_run`` ranks deep."""

    grades: np.ndarray  # (T, D_run) int8
    judged: np.ndarray  # (T, D_run) bool
    run_length: np.ndarray  # (T,) int64
    unknown_topics: tuple[str, ...] = ()  # in the run, not in the qrels
    tag: str | None = None
    name: str | None = None  # set for runs of tables (Parquet, Arrow): their own name


def _order_within_topics(group: np.ndarray, frame: pd.DataFrame, order: str) -> np.ndarray:
    """Row permutation: grouped by topic code, then in the chosen order within a topic."""
    if order == "rank":
        return np.lexsort((frame["rank"].to_numpy(), group))
    if order == "file":
        return np.argsort(group, kind="stable")
    # trec_eval holds scores as C floats: scores equal in single precision tie.
    with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as a C float cast gives
        score = frame["score"].to_numpy(dtype=np.float64).astype(np.float32)
    n = len(group)
    grouped = n < 2 or bool(((group[1:] > group[:-1])
                             | ((group[1:] == group[:-1]) & (score[1:] <= score[:-1]))).all())
    perm = np.arange(n) if grouped else np.lexsort((-score, group))  # files are usually sorted
    g, s = group[perm], score[perm]
    tie = (g[1:] == g[:-1]) & (s[1:] == s[:-1])
    if not tie.any():
        return perm
    # Blocks of equal (topic, score): docid descending, by string comparison.
    in_tie = np.zeros(len(perm), dtype=bool)
    in_tie[1:] |= tie
    in_tie[:-1] |= tie
    block = np.cumsum(np.r_[True, ~tie])
    idx = np.flatnonzero(in_tie)
    sub = perm[idx]
    import pyarrow.compute as pc

    doc_rank = pc.rank(arrow_strings(frame["docid"]).take(sub), tiebreaker="first").to_numpy()
    perm[idx] = sub[np.lexsort((-doc_rank.astype(np.int64), block[idx]))]
    return perm


def reduce_run(frame: pd.DataFrame, index: QrelsIndex, depth: int, order: str = "score",
               tag: str | None = None, name: str | None = None) -> RunArrays:
    """Reduce one run (columns ``topic, docid, rank, score``) to its Collection rows.

    Rows of topics outside the index are dropped (their names are returned in
    ``unknown_topics`` when the qrels do not know them at all); each topic
    keeps its first ``depth`` documents in the chosen order.
    """
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(arrow_strings(frame["topic"]))
    tcode = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    tnames = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    t_of = index.topic_index.get_indexer(tnames)
    unknown = tuple(str(x) for x, k in zip(tnames, t_of) if k < 0 and x not in index.known_topics)
    T = index.n_topics
    if (t_of < 0).any():
        rows = np.flatnonzero(t_of[tcode] >= 0)
        frame = frame.iloc[rows]
        tcode = tcode[rows]
    perm = _order_within_topics(tcode, frame, order)
    g = tcode[perm]
    n = len(g)
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if n else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, n])
    pos = np.arange(n) - np.repeat(starts, sizes)
    within = np.flatnonzero(pos < depth)
    run_length = np.zeros(T, dtype=np.int64)
    run_length[t_of[g[starts]]] = np.minimum(sizes, depth)
    D = int(min(depth, sizes.max(initial=0))) or 1
    t = t_of[g[within]].astype(np.int64)
    docids = arrow_strings(frame["docid"]).take(perm[within])
    grade, found = index.lookup(t, docids)
    grades = np.zeros((T, D), dtype=np.int8)
    judged = np.zeros((T, D), dtype=bool)
    grades[t, pos[within]] = grade
    judged[t, pos[within]] = found
    return RunArrays(grades, judged, run_length, unknown, tag, name)


def reduce_file(path: str, index: QrelsIndex, depth: int, order: str = "score"
                ) -> tuple[list[RunArrays], list[str]]:
    """Read and reduce one run file; also the messages of warnings raised meanwhile.

    A TREC file holds one run; a Parquet/Arrow file with a run column holds
    one run per value (named by it), reduced one after the other.
    """
    from .io import tables
    from .io import table_runs

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if tables.is_table_source(path):
            arrays = [reduce_run(r.frame, index, depth, order, tag=r.tag, name=r.name)
                      for r in table_runs(path)]
        else:
            run = read_run(path)
            arrays = [reduce_run(run.frame, index, depth, order, tag=run.tag)]
    return arrays, [str(w.message) for w in caught]


def reduce_batch(files: Sequence[str], index: QrelsIndex, depth: int, order: str
                 ) -> list[tuple[list[RunArrays], list[str]]]:
    """:func:`reduce_file` of each file, in this process (the unit a Dask worker runs)."""
    return [reduce_file(f, index, depth, order) for f in files]


# ---------------------------------------------------------------- assembling


class Assembler:
    """Collects reduced runs into ``(S, T, D)`` arrays, widening D when a run is deeper.

    Room for ``n_systems`` runs is made up front (one per file); a table file
    holding several runs makes it grow. :meth:`add` appends; ``labels`` keep
    each run's ``(file, tag, name)`` for :func:`name_runs`.
    """

    def __init__(self, n_systems: int, n_topics: int):
        self.S, self.T = 0, n_topics
        self.grades = np.zeros((n_systems, n_topics, 1), dtype=np.int8)
        self.judged = np.zeros((n_systems, n_topics, 1), dtype=bool)
        self.run_length = np.zeros((n_systems, n_topics), dtype=np.int64)
        self.unknown: set[str] = set()
        self.labels: list[tuple[Path | None, str | None, str | None]] = []

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
            f"dropped: {_short(sorted(unknown))}",
            IRStabWarning,
            stacklevel=4,
        )


def warn_unretrieved(retrieved: np.ndarray, topics: Sequence[str]) -> None:
    """One warning listing the qrels topics that no run retrieves (they score 0: trec_eval -c)."""
    missing = np.flatnonzero(~retrieved)
    if len(missing):
        warnings.warn(
            f"{len(missing)} qrels topic(s) retrieved by no run score 0 for every run "
            f"(trec_eval -c): {_short([topics[t] for t in missing[:11]])}",
            IRStabWarning,
            stacklevel=4,
        )


def assemble(acc: Assembler, names: Sequence[str], index: QrelsIndex, depth: int,
             warn: bool = True):
    """The Collection of the runs collected in ``acc``, named ``names``."""
    from .collection import Collection

    acc.trim()
    if warn:
        warn_unknown(acc.unknown)
        warn_unretrieved(acc.run_length.sum(axis=0) > 0, index.topics)
    arrays = [acc.grades, acc.judged, acc.run_length, index.ideal, index.grade_counts]
    for a in arrays:
        a.setflags(write=False)
    return Collection(
        systems=tuple(names), topics=index.topics, depth=int(depth), grades=acc.grades,
        judged=acc.judged, run_length=acc.run_length, ideal=index.ideal,
        grade_counts=index.grade_counts, max_grade=index.max_grade,
    )


def name_runs(labels: Sequence[tuple[Path, str | None, str | None]]) -> list[str]:
    """Run names from ``(file, tag, name)``: a table run's own name, else the TREC tag,
    else the file name (also where several TREC files share a tag, with a warning)."""
    from .io import run_file_name

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


# ---------------------------------------------------------------- parallel driver

_WORKER_INDEX: QrelsIndex | None = None


def _init_worker(index: QrelsIndex) -> None:
    global _WORKER_INDEX
    _WORKER_INDEX = index


def _reduce_in_worker(args):
    path, depth, order = args
    return reduce_file(path, _WORKER_INDEX, depth, order)


def default_workers(n_files: int, total_bytes: int) -> int:
    """Worker processes for ``n_files`` files: one per core, none for small inputs.

    ``IRSTAB_WORKERS`` overrides (0 or 1: reduce in this process).
    """
    env = os.environ.get("IRSTAB_WORKERS")
    if env is not None:
        try:
            return max(int(env), 0)
        except ValueError:
            raise IRStabError(f"IRSTAB_WORKERS must be an integer, got {env!r}") from None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if n_files < 2 or total_bytes < 8_000_000:  # starting processes costs more than it saves
        return 0
    return min(cores or 1, n_files)


def reduce_files(files: Sequence[Path], index: QrelsIndex, depth: int, order: str,
                 workers: int | None = None,
                 advance: Callable[[], None] | None = None
                 ) -> Iterable[tuple[int, list[RunArrays]]]:
    """Yield ``(position, [RunArrays of its runs])`` of every file, reduced in worker processes.

    Worker warnings are re-issued here; an error in any file is raised here
    (the first in file order) and the remaining work is cancelled.
    """
    if workers is None:
        workers = default_workers(len(files), sum(_size(f) for f in files))
    jobs = [(str(f), depth, order) for f in files]
    if workers <= 1:
        results = (reduce_file(p, index, d, o) for p, d, o in jobs)
        pool = None
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context(method),
                                   initializer=_init_worker, initargs=(index,))
        results = pool.map(_reduce_in_worker, jobs)
    try:
        for s, (arrays, messages) in enumerate(results):
            for m in messages:
                warnings.warn(m, IRStabWarning, stacklevel=3)
            if advance is not None:
                advance()
            yield s, arrays
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def build_from_files(qrels: Qrels, files: Sequence[Path], depth: int, order: str,
                     workers: int | None = None, advance: Callable[[], None] | None = None,
                     client=None):
    """The Collection of run files, reduced one file at a time (in parallel).

    With a Dask ``client`` the files are reduced on its workers in batches
    (:func:`irstab.cluster.map_jobs`); each returns its runs' rows of the arrays.
    """
    index = QrelsIndex.from_qrels(qrels)
    acc = Assembler(len(files), index.n_topics)
    if client is None:
        results = reduce_files(files, index, depth, order, workers, advance)
    else:
        results = _reduce_on_cluster(client, files, index, depth, order, advance)
    for s, arrays in results:
        for a in arrays:
            acc.add(a, files[s])
    return assemble(acc, name_runs(acc.labels), index, depth)


def _reduce_on_cluster(client, files, index, depth, order, advance):
    from .cluster import map_jobs

    per_run = 2 * index.n_topics * min(depth, 1000)
    size = max(1, (32 * 2**20) // per_run)  # files per task: 32 MB of arrays
    batches = [[str(f) for f in files[i:i + size]] for i in range(0, len(files), size)]
    jobs = [dict(files=b, depth=depth, order=order) for b in batches]
    s = 0
    for batch in map_jobs(client, reduce_batch, jobs, index):
        for arrays, messages in batch:
            for m in messages:
                warnings.warn(m, IRStabWarning, stacklevel=3)
            if advance is not None:
                advance()
            yield s, arrays
            s += 1


def build_from_runs(qrels: Qrels, runs: Sequence[Run], depth: int, order: str):
    """The Collection of parsed runs, reduced one run at a time."""
    index = QrelsIndex.from_qrels(qrels)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise IRStabError(f"run names must be unique, got {names}")
    acc = Assembler(len(runs), index.n_topics)
    for r in runs:
        acc.add(reduce_run(r.frame, index, depth, order))
    return assemble(acc, names, index, depth)
