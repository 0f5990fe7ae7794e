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
  comparison), as trec_eval; like trec_eval, scores are compared in single
  precision (its ``float sim``), so scores equal as float32 are ties. ``order="rank"`` sorts by the file's rank column
  (ties by line order); ``order="file"`` keeps the order of the lines.
* Topic set: the qrels topics with at least one document of grade > 0,
  ordered numerically when every topic id is an integer, else as strings.
  Topics only in runs are dropped with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pandas as pd

from .errors import IRStabError, IRStabWarning
from .io import PathLike, Qrels, Run, read_qrels, read_runs

__all__ = ["Collection", "RankOrder"]


class RankOrder(str, Enum):
    """How documents of one topic are ordered within a run."""

    SCORE = "score"  # score desc, docid desc (trec_eval)
    RANK = "rank"  # the file's rank column, ties by line order
    FILE = "file"  # the order of the lines


def _sort_topics(topics: Iterable[str]) -> list[str]:
    topics = list(topics)
    if all(t.lstrip("-").isdigit() for t in topics):
        return sorted(topics, key=int)
    return sorted(topics)


def _break_ties_by_docid(
    perm: np.ndarray, group: np.ndarray, score: np.ndarray, doc: np.ndarray
) -> np.ndarray:
    """Reorder blocks of equal (group, score) in ``perm`` by docid code descending."""
    g, s = group[perm], score[perm]
    tie = (g[1:] == g[:-1]) & (s[1:] == s[:-1])
    if not tie.any():
        return perm
    in_tie = np.zeros(len(perm), dtype=bool)
    in_tie[1:] |= tie
    in_tie[:-1] |= tie
    block = np.cumsum(np.r_[True, ~tie])
    idx = np.flatnonzero(in_tie)
    sub = perm[idx]
    perm = perm.copy()
    perm[idx] = sub[np.lexsort((-doc[sub], block[idx]))]
    return perm


@dataclass(frozen=True, eq=False)
class Collection:
    """Dense per-rank arrays of a set of runs judged by one qrels file.

    Build it with :meth:`Collection.build` (or :meth:`from_files`); every
    array is read-only.
    """

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    depth: int
    grades: np.ndarray = field(repr=False)
    judged: np.ndarray = field(repr=False)
    run_length: np.ndarray = field(repr=False)
    ideal: np.ndarray = field(repr=False)
    grade_counts: np.ndarray = field(repr=False)
    max_grade: int = 1

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
        """Judged documents with grade < ``rel`` per topic (negative grades included)."""
        return self.grade_counts[:, : max(rel, 1)].sum(axis=1)

    def grades_to(self, k: int) -> np.ndarray:
        """``grades[:, :, :k]``, padded with zeros when ``k`` exceeds the stored ranks."""
        g = self.grades
        if k <= g.shape[2]:
            return g[:, :, :k]
        pad = np.zeros(g.shape[:2] + (k - g.shape[2],), dtype=g.dtype)
        return np.concatenate([g, pad], axis=2)

    def judged_to(self, k: int) -> np.ndarray:
        """``judged[:, :, :k]``, padded with False like :meth:`grades_to`."""
        j = self.judged
        if k <= j.shape[2]:
            return j[:, :, :k]
        pad = np.zeros(j.shape[:2] + (k - j.shape[2],), dtype=bool)
        return np.concatenate([j, pad], axis=2)

    def ideal_to(self, k: int) -> np.ndarray:
        """``ideal[:, :k]``, padded with zeros."""
        i = self.ideal
        if k <= i.shape[1]:
            return i[:, :k]
        return np.concatenate([i, np.zeros((i.shape[0], k - i.shape[1]), i.dtype)], axis=1)

    # ------------------------------------------------------------ building

    @classmethod
    def from_files(
        cls,
        qrels: PathLike,
        runs: PathLike | Iterable[PathLike],
        depth: int = 1000,
        order: RankOrder | str = RankOrder.SCORE,
    ) -> Collection:
        """Read a qrels file and run files/directories, then :meth:`build`."""
        return cls.build(read_qrels(qrels), read_runs(runs), depth=depth, order=order)

    @classmethod
    def build(
        cls,
        qrels: Qrels,
        runs: Sequence[Run],
        depth: int = 1000,
        order: RankOrder | str = RankOrder.SCORE,
    ) -> Collection:
        """Build the arrays, in vectorised passes over all runs at once."""
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise IRStabError(f"depth must be a positive integer, got {depth!r}")
        try:
            order = RankOrder(order)
        except ValueError:
            raise IRStabError(
                f"order must be one of {[o.value for o in RankOrder]}, got {order!r}"
            ) from None
        runs = list(runs)
        if not runs:
            raise IRStabError("no runs given")
        names = [r.name for r in runs]
        if len(set(names)) != len(names):
            raise IRStabError(f"run names must be unique, got {names}")

        q = qrels.frame
        qgrade = q["grade"].to_numpy(dtype=np.int64)
        relevant_topics = pd.unique(q["topic"].to_numpy()[qgrade > 0])
        topics = _sort_topics(relevant_topics)
        if not topics:
            raise IRStabError(f"{qrels.path}: no topic has a relevant document (grade > 0)")
        dropped = sorted(set(q["topic"].unique()) - set(topics))
        if dropped:
            warnings.warn(
                f"{len(dropped)} qrels topic(s) without a relevant document are not "
                f"evaluated: {dropped[:10]}{' ...' if len(dropped) > 10 else ''}",
                IRStabWarning,
                stacklevel=2,
            )
        topic_index = pd.Index(topics)
        T, S = len(topics), len(runs)

        # All runs stacked. Each (run, topic) group gets a code in file order, so the
        # sort key below is already nearly sorted for the usual grouped run files.
        local = [pd.factorize(r.frame["topic"]) for r in runs]
        n_groups = np.array([len(u) for _, u in local])
        offsets = np.r_[0, np.cumsum(n_groups)[:-1]]
        gcode = np.concatenate([c.astype(np.int64) + o for (c, _), o in zip(local, offsets)])
        gtopic = pd.Index(np.concatenate([np.asarray(u, dtype=object) for _, u in local]))
        g_t_idx = topic_index.get_indexer(gtopic)
        g_run_idx = np.repeat(np.arange(S), n_groups)
        run_doc = pd.concat([r.frame["docid"] for r in runs], ignore_index=True)
        qtopic_known = set(q["topic"].unique())
        only_in_runs = sorted(set(gtopic) - qtopic_known)
        if only_in_runs:
            warnings.warn(
                f"{len(only_in_runs)} topic(s) appear in runs but not in the qrels and are "
                f"dropped: {only_in_runs[:10]}{' ...' if len(only_in_runs) > 10 else ''}",
                IRStabWarning,
                stacklevel=2,
            )
        keep = g_t_idx[gcode] >= 0
        qcode, qvalues = pd.factorize(q["topic"])
        qkeep = topic_index.get_indexer(qvalues)[qcode]
        # One docid factorisation for qrels and runs, sorted: codes order like the strings.
        all_docs = pd.concat([run_doc[keep], q["docid"][qkeep >= 0]], ignore_index=True)
        codes, uniques = pd.factorize(all_docs, sort=True)
        n_keep = int(keep.sum())
        doc_code = codes[:n_keep].astype(np.int64)
        gcode = gcode[keep]
        group = gcode.astype(np.float64)

        # Stable sorts on a complex key sort by (real, imag) lexicographically and
        # run in near-linear time on files that are already grouped and sorted.
        if order is RankOrder.SCORE:
            score = pd.concat([r.frame["score"] for r in runs], ignore_index=True).to_numpy()[keep]
            # trec_eval holds scores as C floats: scores equal in single precision tie.
            score = score.astype(np.float32).astype(np.float64)
            perm = np.argsort(group - 1j * score, kind="stable")
            perm = _break_ties_by_docid(perm, group, score, doc_code)
        elif order is RankOrder.RANK:
            rank = pd.concat([r.frame["rank"] for r in runs], ignore_index=True).to_numpy()[keep]
            perm = np.argsort(group + 1j * rank, kind="stable")
        else:
            perm = np.argsort(group, kind="stable")
        gcode, doc_code = gcode[perm], doc_code[perm]
        run_idx, t_idx = g_run_idx[gcode], g_t_idx[gcode]

        # Position of each row within its (run, topic) group.
        group = gcode
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        pos = np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))
        run_length = np.zeros((S, T), dtype=np.int64)
        counts = np.bincount(group, minlength=len(gtopic))
        valid = g_t_idx >= 0
        run_length[g_run_idx[valid], g_t_idx[valid]] = np.minimum(counts[valid], depth)
        D = int(min(depth, run_length.max(initial=0))) or 1
        within = pos < depth
        run_idx, t_idx, doc_code, pos = run_idx[within], t_idx[within], doc_code[within], pos[within]

        # Grade lookup: sorted (topic, doc) keys of the qrels, binary search.
        qt = qkeep[qkeep >= 0].astype(np.int64)
        qdoc = codes[n_keep:].astype(np.int64)
        qg = qgrade[qkeep >= 0]
        n_docs = len(uniques) + 1
        qkey = qt * n_docs + qdoc
        qorder = np.argsort(qkey)
        qkey, qg_sorted = qkey[qorder], qg[qorder]
        maybe = np.zeros(n_docs, dtype=bool)
        maybe[qdoc] = True
        cand = np.flatnonzero(maybe[doc_code])  # only documents judged for some topic
        key = t_idx[cand] * n_docs + doc_code[cand]
        at = np.minimum(np.searchsorted(qkey, key), len(qkey) - 1)
        hit = qkey[at] == key
        found = np.zeros(len(doc_code), dtype=bool)
        found[cand[hit]] = True
        grade = np.zeros(len(doc_code), dtype=np.int64)
        grade[cand[hit]] = qg_sorted[at[hit]]

        grades = np.zeros((S, T, D), dtype=np.int8)
        judged = np.zeros((S, T, D), dtype=bool)
        grades[run_idx, t_idx, pos] = grade
        judged[run_idx, t_idx, pos] = found

        max_grade = max(int(qgrade.max()), 1)
        G = max_grade + 1
        grade_counts = np.zeros((T, G), dtype=np.int64)
        np.add.at(grade_counts, (qt[qg >= 0], qg[qg >= 0]), 1)  # negative grades: not counted
        n_rel = grade_counts[:, 1:].sum(axis=1)
        J = int(n_rel.max())
        # ideal[t, j]: positive grades sorted decreasing (from the per-grade counts).
        ideal = np.zeros((T, J), dtype=np.int8)
        j = np.arange(J)
        upper = np.cumsum(grade_counts[:, ::-1][:, :-1], axis=1)  # counts of grades >= g, g = max..1
        level = (j[None, :, None] < upper[:, None, :]).argmax(axis=2)  # first grade band covering j
        ideal[:] = np.where(j[None, :] < n_rel[:, None], max_grade - level, 0)

        for a in (grades, judged, run_length, ideal, grade_counts):
            a.setflags(write=False)
        return cls(
            systems=tuple(names),
            topics=tuple(topics),
            depth=int(depth),
            grades=grades,
            judged=judged,
            run_length=run_length,
            ideal=ideal,
            grade_counts=grade_counts,
            max_grade=max_grade,
        )
