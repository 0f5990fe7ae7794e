"""Batches of run files: jobs balanced over workers, and runs too large for one batch.

:func:`plan` cuts a list of run files into the jobs of the out-of-core paths
(:mod:`irstab.collection.outofcore`, the optimizer's linear forms): contiguous groups
of whole files, at least two per worker, and topic partitions of a table source whose
runs, at the depth kept, exceed a batch. It reads no file: where the depth kept does
not bound a run's grade tensor within a batch, the reader closes batches by the
tensors it actually builds (:func:`irstab.collection.outofcore.batch_result`) and
splits a run larger than a batch into :func:`topic_parts` of its one reading.
:func:`pack` is the balancing itself (the linear partition problem).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["plan", "pack", "topic_parts", "TEXT_PER_TENSOR"]


#: Bytes of run text a job reads per byte of its batch budget. A TREC run line of
#: about 40 bytes becomes 2 bytes of grade tensor, so a job of ``20 x max_bytes`` of
#: text holds about one batch of dense rankings: jobs stay many enough for an even
#: load and a progress bar that moves (a 2e8-entry collection, 8 GB of text, makes 13
#: jobs at the default 32 MiB), whatever the depth.
TEXT_PER_TENSOR = 20


def topic_parts(need: int, n_topics: int, max_bytes: int) -> list[tuple[int, int]]:
    """Even topic ranges ``[(lo, hi)]`` of a run whose grade tensor of ``need`` bytes (the
    same ranks in every topic: ``need / n_topics`` a topic) exceeds ``max_bytes``, none
    holding more topics than the budget allows (``max_bytes x n_topics // need``, at least
    one); the single range ``[(0, n_topics)]`` if it fits.

    >>> topic_parts(1200, 12, 500)  # 5 topics a range at most: 3 ranges of 4
    [(0, 4), (4, 8), (8, 12)]
    """
    per = max(1, int(max_bytes) * int(n_topics) // max(1, int(need)))
    k = max(1, -(-int(n_topics) // per))
    edges = np.linspace(0, n_topics, k + 1).round().astype(int)
    return [(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:])]


def pack(need: np.ndarray, max_bytes: int, jobs: int = 1,
         breaks: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Contiguous groups ``[(start, end)]`` of items weighing ``need`` bytes: each within
    ``max_bytes`` (an item heavier than that alone), at least ``jobs`` of them where
    there are that many items, and balanced: the heaviest group is as light as
    ``max(jobs, groups max_bytes forces)`` contiguous groups allow.

    Greedy packing under a cap ``c`` gives the fewest groups of weight <= c; the
    smallest ``c`` (bisection) whose greedy packing needs no more groups than wanted
    minimises the heaviest group (the linear partition problem). A group never spans
    an item with ``breaks[i]`` true before it (it starts a group). With fewer groups
    than ``jobs`` (items of equal weight fill fewer), the heaviest groups of several
    items are halved by weight until there are ``jobs``.

    >>> pack(np.array([2, 2, 2, 2, 2, 2]), 10)  # greedy: 10 + 2; balanced: 6 + 6
    [(0, 3), (3, 6)]
    >>> pack(np.array([1] * 8), 100, jobs=4)
    [(0, 2), (2, 4), (4, 6), (6, 8)]
    """
    need = np.asarray(need, dtype=np.int64)
    n = len(need)
    if n == 0:
        return []
    cum = np.r_[0, np.cumsum(need)]
    # end of the segment each item is in: the next break after it, or n
    starts = np.flatnonzero(breaks) if breaks is not None else np.zeros(0, np.int64)
    starts = np.union1d(starts[starts > 0], [n])
    seg_end = starts[np.searchsorted(starts, np.arange(n), side="right")]

    def greedy(cap: int) -> list[tuple[int, int]]:
        groups, start = [], 0
        while start < n:  # one step per group: bisection of the running sums
            end = int(np.searchsorted(cum, cum[start] + cap, side="right")) - 1
            end = min(max(end, start + 1), int(seg_end[start]))
            groups.append((start, end))
            start = end
        return groups

    want = max(min(jobs, n), len(greedy(max_bytes)))
    fits = need[need <= max_bytes]  # a heavier item is alone whatever the cap
    lo = int(fits.max(initial=1))
    hi = max(int(max_bytes), lo)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if len(greedy(mid)) <= want else (mid + 1, hi)
    groups = greedy(lo)
    while len(groups) < want:  # equal items: halve the heaviest group of several
        k = max((g for g in range(len(groups)) if groups[g][1] - groups[g][0] > 1),
                key=lambda g: cum[groups[g][1]] - cum[groups[g][0]])
        a, b = groups[k]
        mid = int(np.searchsorted(cum, (cum[a] + cum[b]) / 2, side="left"))
        mid = min(max(mid, a + 1), b - 1)
        groups[k:k + 1] = [(a, mid), (mid, b)]
    return groups


def plan(files: Sequence[Path], n_topics: int, depth: int, max_bytes: int, workers: int = 1
         ) -> list[tuple[list[str], tuple[int, int] | None]]:
    """Jobs ``(files, topic range or None)`` in file order, without reading a file.

    There are at least ``2 x workers`` jobs where there are that many files, so that
    no worker waits while another reads the tail of the list, and they are even
    (:func:`pack`: 100 runs of equal size on 2 workers make 4 jobs of 25 runs).

    - When a run of ``depth`` ranks in every topic fits ``max_bytes`` (a grade tensor of
      ``2 x topics x depth`` bytes: the usual depth 1,000), the files are packed by that
      bound: every job is one batch.
    - Otherwise the depth kept says nothing useful of a run's tensor (``-f trec`` keeps
      every rank): the files are packed by their text (:func:`~irstab.io.textfiles.text_size`),
      at most :data:`TEXT_PER_TENSOR` ``x max_bytes`` of it a job, and the job closes a
      batch whenever the next run's tensor, as built, would exceed ``max_bytes``; a run
      larger than a batch alone is reduced in :func:`topic_parts` of its one reading.
      A table source (Parquet, Arrow: several runs a file) is split into topic
      partitions at the depth kept, each job reading the file and keeping its topics.

    Memory follows the batch budget whatever the depth, and no TREC file is read twice.
    A table source is the exception: its runs are not known before it is read, so each
    partition is sized for one run and holds all of the file's, and each reads the file.
    """
    from ..io import tables
    from ..io.textfiles import text_size

    names = [str(f) for f in files]
    n = len(names)
    if n == 0:
        return []
    balance = min(n, 2 * max(1, int(workers or 1)))
    nominal = 2 * n_topics * max(1, depth)
    if nominal <= max_bytes:
        groups = pack(np.full(n, nominal, dtype=np.int64), max_bytes, balance)
        return [(names[a:b], None) for a, b in groups]
    split = np.array([tables.is_table_source(Path(f)) for f in names], dtype=bool)
    whole = np.flatnonzero(~split)
    parts = topic_parts(nominal, n_topics, max_bytes)
    # a group of whole files never spans a split one: files keep their order (runs are
    # named in it)
    breaks = np.r_[False, np.diff(whole) > 1] if len(whole) else None
    text = np.array([max(1, text_size(Path(names[i]))) for i in whole], dtype=np.int64)
    groups = pack(text, TEXT_PER_TENSOR * max_bytes,
                  max(1, balance - len(parts) * int(split.sum())), breaks)
    jobs: list[tuple[int, list[str], tuple[int, int] | None]] = [
        (int(whole[a]), [names[i] for i in whole[a:b]], None) for a, b in groups]
    jobs += [(int(f), [names[f]], part) for f in np.flatnonzero(split) for part in parts]
    jobs.sort(key=lambda j: j[0])  # stable: a file's partitions stay in topic order
    return [(fs, part) for _, fs, part in jobs]
