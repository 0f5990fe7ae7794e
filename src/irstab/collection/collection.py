"""The Collection: qrels and runs turned into dense arrays once, read by every measure.

Arrays (S systems, T topics, D ranks, J ideal positions, G = max grade + 1)
--------------------------------------------------------------------------
``grades[s, t, r]``     int8, the qrels grade of the document run ``s``
                        ranks at position ``r`` (0-based) for topic ``t``;
                        0 where the document is unjudged or the run has
                        ended. Negative grades are kept.
``judged[s, t, r]``     bool, the document at that position is in the qrels.
``run_length[s, t]``    documents retrieved (at most D); 0 if the run
                        lacks the topic (it then scores 0 on every measure,
                        trec_eval ``-c``).
``ideal[t, j]``         int8, the topic's positive grades sorted decreasing,
                        padded with 0 to J = the largest count of relevant
                        documents of any topic.
``grade_counts[t, g]``  judged documents of grade ``g`` (0..max grade).
                        Negative grades (e.g. spam = -2) are not counted,
                        so bpref ignores them as trec_eval does; they
                        still count as non-relevant everywhere else.

Conventions (DESIGN.md)
-----------------------
* Order within a topic: score descending, ties by docid descending (string
  comparison), as trec_eval 10, which compares scores as doubles;
  ``order="score32"`` compares them in single precision as trec_eval 9 and
  pytrec_eval do (their ``float sim``), so scores equal as float32 are ties.
  ``order="rank"`` sorts by the file's rank column (ties by line order);
  ``order="file"`` keeps the order of the lines.
* Topic set: the qrels topics with at least one document of grade > 0,
  ordered numerically when every topic id is an integer, else as strings.
  Topics only in runs are dropped with a warning. (``irstab.evaluate(...,
  every_topic=True)``, which ``evaluate -f trec`` uses to print trec_eval's bytes, scores
  every qrels topic, as trec_eval does.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from .._numeric import check_allocation
from .._repr import short_repr
from ..errors import IRStabError
from ..io import Qrels, Run, expand_paths, in_memory_runs, read_qrels
from .build import (CollectionArrays, RankOrder, build_from_files, build_from_runs, build_keeping,
                    check_build_args)

__all__ = ["Collection", "RankOrder"]


@short_repr
@dataclass(frozen=True, eq=False)
class Collection(CollectionArrays):
    """Dense per-rank arrays of a set of runs judged by one qrels file.

    Build it with :meth:`Collection.build` (or :meth:`from_files`); every
    array is read-only.
    """

    def _summary(self) -> str:
        return (
            f"{self.n_systems} systems x {self.n_topics} topics, depth {self.depth}, "
            f"grades up to {self.max_grade}"
        )

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def num_relevant(self, rel: int = 1) -> np.ndarray:
        """Judged documents with grade >= ``rel`` per topic (``rel`` >= 1)."""
        return self.grade_counts[:, max(rel, 1):].sum(axis=1)

    def num_nonrelevant(self, rel: int = 1) -> np.ndarray:
        """Judged documents with grade 0 <= g < ``rel`` per topic (negative grades: pooled, unjudged)."""
        return self.grade_counts[:, : max(rel, 1)].sum(axis=1)

    def stored(self, k: int | None = None) -> int:
        """Ranks of ``grades`` that a cutoff ``k`` reads: ``min(k, D)`` (``D`` for None).

        ``D`` is the deepest ranking actually present (at most ``depth``): past it
        every run holds grade 0, unjudged, so the measures' arrays are sized by the
        data, never by a cutoff or depth asked for (``nDCG@10000000`` on runs of
        1,000 documents reads 1,000 ranks).
        """
        D = self.grades.shape[2]
        return D if k is None else min(int(k), D)

    def grades_to(self, k: int) -> np.ndarray:
        """``grades[:, :, :k]``, padded with zeros when ``k`` exceeds the stored ranks.

        Only measures whose value depends on the ranks past every run (CRP's list
        of length N) need the padding; the others read ``grades_to(stored(k))``.
        """
        g = self.grades
        if k <= g.shape[2]:
            return g[:, :, :k]
        check_allocation(9.0 * g.shape[0] * g.shape[1] * k,  # int8 plus float temporaries
                         f"{k} ranks for {g.shape[0]} runs x {g.shape[1]} topics")
        pad = np.zeros(g.shape[:2] + (k - g.shape[2],), dtype=g.dtype)
        return np.concatenate([g, pad], axis=2)

    def judged_to(self, k: int) -> np.ndarray:
        """``judged[:, :, :k]``, padded with False like :meth:`grades_to`."""
        j = self.judged
        if k <= j.shape[2]:
            return j[:, :, :k]
        check_allocation(9.0 * j.shape[0] * j.shape[1] * k,
                         f"{k} ranks for {j.shape[0]} runs x {j.shape[1]} topics")
        pad = np.zeros(j.shape[:2] + (k - j.shape[2],), dtype=bool)
        return np.concatenate([j, pad], axis=2)

    def ideal_to(self, k: int) -> np.ndarray:
        """``ideal[:, :k]``, clipped at the longest ideal list ``J`` (past it: grade 0)."""
        return self.ideal[:, :k]

    # ------------------------------------------------------------ building

    @classmethod
    def of(cls, arrays: CollectionArrays) -> Collection:
        """The Collection of a build's arrays (:mod:`irstab.collection.build`): the same
        fields, with the methods the measures read them through."""
        return cls(**{f.name: getattr(arrays, f.name) for f in fields(arrays)})

    @classmethod
    def from_files(
        cls,
        qrels,
        runs,
        depth: int = 1000,
        order: RankOrder | str = RankOrder.SCORE,
        *,
        workers: int | None = None,
        progress=None,
        client=None,
    ) -> Collection:
        """Read qrels and runs, reducing one run file at a time (see :mod:`irstab.collection.build`).

        Parameters
        ----------
        qrels : path or any qrels source
            A TREC qrels file, a :class:`~irstab.io.Qrels`, or any source
            :func:`~irstab.io.read_qrels` takes.
        runs : path(s)
            Run files and/or directories (every non-hidden file inside), or
            any source :func:`~irstab.io.read_runs` takes.
        workers : int, optional
            Worker processes for run files; default one per core for inputs
            over 128 MiB of text, none for smaller ones nor for files averaging over
            64 MiB (streamed: one process reads them faster)
            (:func:`~irstab.collection.reduce.default_workers`; ``IRSTAB_WORKERS`` overrides).
        progress : callable, optional
            Called once per run file reduced (for a progress bar).
        client : distributed.Client, optional
            Reduce the run files on this Dask cluster's workers instead
            (:mod:`irstab.collection.cluster`); they must read the files under the same
            paths. Each returns its runs' rows of the arrays; the Collection
            is assembled here.
        """
        depth, order = check_build_args(depth, order)
        qrels = read_qrels(qrels)
        parsed = in_memory_runs(runs)
        if parsed is not None:
            return cls.build(qrels, parsed, depth=depth, order=order)
        files = expand_paths(runs)
        if not files:
            raise IRStabError("no runs given")
        return cls.of(build_from_files(qrels, files, depth, order.value, workers, progress,
                                       client))

    @classmethod
    def from_files_keeping(
        cls,
        qrels,
        runs,
        keep: int,
        depth: int = 1000,
        order: RankOrder | str = RankOrder.SCORE,
        *,
        workers: int | None = None,
        progress=None,
        client=None,
    ) -> tuple[Collection, list[Run]]:
        """:meth:`from_files`, and the runs' first ``keep`` documents, from one read of each file.

        The runs come named as the Collection's systems, with the rows
        :func:`~irstab.collection.reduce.top_documents` keeps at ``keep`` on each of
        the Collection's topics (a topic only in a run is left out, as from the
        Collection); whatever they are studied with next ranks them as the whole runs
        read to ``keep`` in the same ``order``. Runs given in memory (see
        :meth:`from_files`) are returned as they are.
        """
        depth, order = check_build_args(depth, order)
        if isinstance(keep, bool) or not isinstance(keep, (int, np.integer)) or keep < 1:
            raise IRStabError(f"keep must be a positive integer, got {keep!r}")
        qrels = read_qrels(qrels)
        parsed = in_memory_runs(runs)
        if parsed is not None:
            return cls.build(qrels, parsed, depth=depth, order=order), list(parsed)
        files = expand_paths(runs)
        if not files:
            raise IRStabError("no runs given")
        arrays, kept = build_keeping(qrels, files, depth, order.value, int(keep), workers,
                                     progress, client)
        return cls.of(arrays), kept

    @classmethod
    def build(
        cls,
        qrels: Qrels,
        runs: Sequence[Run],
        depth: int = 1000,
        order: RankOrder | str = RankOrder.SCORE,
    ) -> Collection:
        """Build the arrays from parsed runs, one run at a time (see :mod:`irstab.collection.build`)."""
        depth, order = check_build_args(depth, order)
        runs = list(runs)
        if not runs:
            raise IRStabError("no runs given")
        return cls.of(build_from_runs(read_qrels(qrels), runs, depth, order.value))

