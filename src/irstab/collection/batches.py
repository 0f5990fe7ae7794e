"""Batches of run files: jobs sized from each run's grade tensor and balanced over workers.

:func:`plan` cuts a list of run files into the jobs of the out-of-core paths
(:mod:`irstab.collection.outofcore`, the optimizer's linear forms): contiguous
batches of whole files, each within a budget of grade-tensor bytes, at least two
per worker, and topic partitions of a file whose run alone exceeds the budget.
:func:`pack` is the balancing itself (the linear partition problem);
:func:`run_need` sizes one file's tensor from the depth of its deepest topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["plan", "pack", "run_need", "size_bound", "MIN_RUN_LINE_BYTES"]


#: The fewest bytes a line of a TREC run can take: five one-byte fields (the tag is optional),
#: four separators and the newline. A plain text of ``b`` bytes holds at most
#: ``(b + 1) // MIN_RUN_LINE_BYTES`` rankings (its last line may lack the newline).
MIN_RUN_LINE_BYTES = 10


def size_bound(path: Path, n_topics: int, depth: int) -> int | None:
    """An upper bound of :func:`run_need` from the file's size alone (no reading): ``2 x
    topics x`` the lines a plain text of that size can hold, capped by ``depth``; None for
    a compressed file or a table source (their size says nothing of their lines).

    One topic cannot list more documents than the file has lines, so a small file's
    tensor is bounded without counting its deepest topic.
    """
    from ..io import tables
    from ..io.textfiles import compression

    try:
        if tables.is_table_source(path) or compression(Path(path)) is not None:
            return None
        size = Path(path).stat().st_size
    except OSError:  # the reader says what is wrong with the file
        return None
    return 2 * n_topics * max(1, min(depth, (size + 1) // MIN_RUN_LINE_BYTES))


def run_need(path: Path, n_topics: int, depth: int) -> int:
    """Bytes of one run file's grade tensor, ``2 x topics x ranks``, the ranks being those
    of its deepest topic (:func:`irstab.io.scan.deepest_ranking`, one pass over the topic
    column) capped by ``depth``; ``depth`` itself for a table source (Parquet, Arrow,
    which may hold several runs) and for a text the count cannot parse."""
    from ..io import tables
    from ..io.scan import deepest_ranking

    deepest = None if tables.is_table_source(path) else deepest_ranking(path)
    return 2 * n_topics * max(1, min(depth, depth if deepest is None else deepest))


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
    """Jobs ``(files, topic range or None)`` in file order: balanced batches of whole
    files of at most ``max_bytes`` of grade tensor each; a file whose run alone
    exceeds it is split into topic partitions (each job reads the file and keeps its
    topics).

    A run's tensor is ``2 x topics x ranks`` bytes, the ranks being those of its
    deepest topic, at most ``depth`` (:func:`run_need`). There are at least
    ``2 x workers`` jobs where there are that many files, so that no worker waits
    while another reads the tail of the list, and the jobs are even
    (:func:`pack`): 100 runs of equal size on 2 workers make 4 jobs of 25 runs.

    The deepest topics are counted (one more pass over each file's topic column:
    0.3-0.4 s of CPU for a 91 MB text of 2e6 lines, 13 % of reading it; 35 % for
    gzip files as small as TREC DL 2019's) only when a run of ``depth`` ranks in
    every topic would exceed ``max_bytes``, and then only for a file whose size
    does not bound its tensor within ``max_bytes`` already (:func:`size_bound`: a
    plain text cannot rank more documents in a topic than it has lines; TREC DL
    2019's 37 runs of 1.9 MB each, read with ``depth`` "every rank" as ``-f
    trec`` reads them, are not counted): the count spares re-reading a file once
    per partition of a tensor it never fills (a wide but shallow run, a million
    topics of one document, is read once). Otherwise every run is sized by an
    upper bound (``2 x topics x depth``, or its size's bound): a job's tensor
    stays within ``max_bytes`` whatever the real depth, and the price of runs
    shallower than the bound is jobs holding fewer runs than they could, not a
    pass over every file.
    """
    names = [str(f) for f in files]
    n = len(names)
    if n == 0:
        return []
    balance = min(n, 2 * max(1, int(workers or 1)))
    nominal = 2 * n_topics * depth
    if nominal <= max_bytes:  # the upper bound splits no file: counting would only cost
        need = np.full(n, nominal, dtype=np.int64)
    else:  # counted only where the file's size does not already bound it within the budget
        bounds = [size_bound(Path(f), n_topics, depth) for f in names]
        need = np.array([b if b is not None and b <= max_bytes else
                         run_need(Path(f), n_topics, depth) for f, b in zip(names, bounds)],
                        dtype=np.int64)
    split = need > max_bytes
    whole = np.flatnonzero(~split)
    # a group of whole files never spans a split one: files keep their order (runs are
    # named in it)
    breaks = np.r_[False, np.diff(whole) > 1] if len(whole) else None
    parts = -(-need[split] // max_bytes)
    groups = pack(need[whole], max_bytes, max(1, balance - int(parts.sum())), breaks)
    jobs: list[tuple[int, list[str], tuple[int, int] | None]] = [
        (int(whole[a]), [names[i] for i in whole[a:b]], None) for a, b in groups]
    for f, k in zip(np.flatnonzero(split), parts):
        edges = np.linspace(0, n_topics, min(int(k), n_topics) + 1).round().astype(int)
        jobs += [(int(f), [names[f]], (int(lo), int(hi))) for lo, hi in zip(edges[:-1], edges[1:])]
    jobs.sort(key=lambda j: j[0])  # stable: a file's partitions stay in topic order
    return [(fs, part) for _, fs, part in jobs]
