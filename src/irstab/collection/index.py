"""The qrels as a lookup table: ``(topic, docid) -> grade`` for the evaluated topics.

Built once per collection (:meth:`QrelsIndex.from_qrels`); every run is
reduced against it (:mod:`irstab.collection.reduce`). Document ids become
fixed-width words and a 64-bit key per judgment, so a run's documents are
found by a vectorised binary search and confirmed byte for byte.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import IRStabError, IRStabWarning
from ..io import Qrels, arrow_strings

__all__ = ["QrelsIndex", "sort_topics", "short_list"]


def sort_topics(topics: Iterable[str]) -> list[str]:
    topics = list(topics)
    if all(t.lstrip("-").isdigit() for t in topics):
        return sorted(topics, key=int)
    return sorted(topics)


def short_list(items: Sequence) -> str:
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
        topics = sort_topics(pd.unique(qtopic[qgrade > 0]))
        if not topics:
            raise IRStabError(f"{qrels.path}: no topic has a relevant document (grade > 0)")
        known = frozenset(pd.unique(qtopic).tolist())
        dropped = sorted(known - set(topics))
        if dropped:
            warnings.warn(
                f"{len(dropped)} qrels topic(s) without a relevant document are not "
                f"evaluated: {short_list(dropped)}",
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
