"""The qrels as a lookup table: ``(topic, docid) -> grade`` for the evaluated topics.

Built once per collection (:meth:`QrelsIndex.from_qrels`); every run is
reduced against it (:mod:`irstab.collection.reduce`). Each judgment's
``(topic, docid)`` has a 64-bit key (:func:`irstab.io.keys.pair_keys`) in one hash
table; a run's documents are found by their keys (those its reader computed for
the duplicate check) and confirmed against the judged id.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

import numpy as np

from ..errors import IRStabError, IRStabWarning
from ..io import Qrels, arrow_strings
from ..io.keys import pair_keys, row_keys, string_hashes

if TYPE_CHECKING:  # pandas is imported only for topic_index, kept for its callers
    import pandas as pd

__all__ = ["QrelsIndex", "sort_topics", "short_list"]


def sort_topics(topics: Iterable[str]) -> list[str]:
    topics = list(topics)
    if all(t.lstrip("-").isdigit() for t in topics):
        return sorted(topics, key=int)
    return sorted(topics)


def short_list(items: Sequence) -> str:
    return f"{list(items[:10])}{' ...' if len(items) > 10 else ''}"


def _warn_trec_eval_stops(names: list[str], codes: np.ndarray, qgrade: np.ndarray,
                          path: str) -> None:
    """Warn where trec_eval 10.0 itself stops: when the first qrels topic it evaluates (in
    byte order, ``get_qrels.c`` sorts by ``strcmp``) holds only negative grades, its
    ``form_res_rels.c`` asks ``te_chk_and_malloc`` for ``max_rel + 1 = 0`` grade counters
    before any were allocated, gets NULL and fails: ``trec_eval: Can't calculate measure``,
    exit 4, nothing printed. (A later such topic reuses the counters and is evaluated.)
    ``names``: the qrels' topics, ``codes`` each row's topic (into ``names``)."""
    at = min(range(len(names)), key=lambda i: names[i].encode("utf-8", "surrogatepass"))
    first = names[at]
    if qgrade[codes == at].max() < 0:
        warnings.warn(
            f"{path}: trec_eval 10.0 stops on these qrels (\"Can't calculate measure\", exit "
            f"4): its first topic in byte order, {first!r}, holds only negative grades; "
            "irstab evaluates it as trec_eval evaluates such a topic elsewhere",
            IRStabWarning, stacklevel=4)


@dataclass(frozen=True, eq=False)
class QrelsIndex:
    """Qrels as a lookup table ``(topic, docid) -> grade`` for the evaluated topics.

    Each judgment is keyed by the 64-bit hash of its pair
    (:func:`irstab.io.keys.pair_keys`, the key the readers compute for their
    duplicate check, so a run read from a file is not hashed again). The keys
    (``table``, unique) are looked up in the keys sorted once, by the bucket of their
    top bits (:meth:`_rows_of`), after a bitmap of those bits has ruled out most
    unjudged documents, and every hit is confirmed against the stored topic code and
    document id, so the lookup is exact.
    It pickles small (no per-run data): it is what worker processes receive.
    """

    path: str
    topics: tuple[str, ...]
    known_topics: frozenset
    table: np.ndarray = field(repr=False)  # the judgments' keys (uint64), unique
    key_topics: np.ndarray = field(repr=False)
    key_grades: np.ndarray = field(repr=False)
    docids: object = field(repr=False)  # pyarrow string array, the judgments' document ids
    grade_counts: np.ndarray = field(repr=False)
    ideal: np.ndarray = field(repr=False)
    max_grade: int = 1
    offset: int = 0  # code of topics[0] in the whole index (a topic partition's start)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @property
    def topic_index(self) -> pd.Index:
        """The topics as a pandas Index (``get_indexer`` gives :meth:`topic_codes`)."""
        import pandas as pd

        return pd.Index(self.topics)

    def topic_codes(self, names) -> np.ndarray:
        """Each of ``names``' position in :attr:`topics` (int64), -1 for a topic not there."""
        where = self.__dict__.get("_where")
        if where is None:
            where = {t: i for i, t in enumerate(self.topics)}
            object.__setattr__(self, "_where", where)
        return np.fromiter((where.get(x, -1) for x in names), dtype=np.int64, count=len(names))

    @classmethod
    def from_qrels(cls, qrels: Qrels, every_topic: bool = False) -> QrelsIndex:
        """Index the qrels; warns about topics without a relevant document.

        The topics are those with a relevant document (grade > 0), irstab's topic set;
        ``every_topic`` keeps every topic the qrels name, whatever its grades (only 0,
        only -1: pooled but unjudged), as trec_eval 10 evaluates them (``get_qrels.c``
        makes one topic of every qid; ``trec_eval.c`` evaluates each). The warning names
        those topics either way.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        qtopic, qdocs, qgrade = qrels.columns()
        encoded = pc.dictionary_encode(qtopic)  # topics in order of first appearance
        names = encoded.dictionary.to_pylist()
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        known = frozenset(names)
        relevant = sort_topics(pc.unique(qtopic.filter(pa.array(qgrade > 0))).to_pylist())
        topics = sort_topics(known) if every_topic else relevant
        if not topics:
            raise IRStabError(f"{qrels.path}: no topic has a relevant document (grade > 0)")
        dropped = sorted(known - set(relevant))
        if every_topic:
            _warn_trec_eval_stops(names, codes, qgrade, qrels.path)
        if dropped:
            fate = ("are evaluated, as trec_eval evaluates every qrels topic (irstab's other "
                    "layouts leave them out)" if every_topic else "are not evaluated")
            warnings.warn(
                f"{len(dropped)} qrels topic(s) without a relevant document {fate}: "
                f"{short_list(dropped)}",
                IRStabWarning,
                stacklevel=3,
            )
        position = {x: i for i, x in enumerate(topics)}
        t = np.array([position.get(x, -1) for x in names], dtype=np.int64)[codes]
        keep = np.flatnonzero(t >= 0)
        t, grade = t[keep], qgrade[keep]
        docs = qdocs.take(keep)
        keys = (qrels.keys[keep] if qrels.keys is not None
                else pair_keys(qtopic.take(keep), docs))
        table = np.asarray(keys, dtype=np.uint64)
        if len(pc.unique(pa.array(table))) < len(table):  # two judgments share a 64-bit key:
            # astronomically rare
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
            table=table, key_topics=t,
            key_grades=grade.astype(np.int8), docids=docs, grade_counts=grade_counts,
            ideal=ideal, max_grade=max_grade,
        )

    def part(self, lo: int, hi: int) -> QrelsIndex:
        """The index of topics ``lo..hi-1`` only (a topic partition of large run files).

        Runs reduced against it keep those topics' rows; the other qrels
        topics are still known (not reported as unknown).
        """
        if (lo, hi) == (0, self.n_topics):
            return self
        keep = np.flatnonzero((self.key_topics >= self.offset + lo)
                              & (self.key_topics < self.offset + hi))
        return QrelsIndex(
            path=self.path, topics=self.topics[lo:hi], known_topics=self.known_topics,
            table=self.table[keep],
            key_topics=self.key_topics[keep], key_grades=self.key_grades[keep],
            docids=self.docids.take(keep), grade_counts=self.grade_counts[lo:hi],
            ideal=self.ideal[lo:hi], max_grade=self.max_grade, offset=self.offset + lo,
        )

    def _filter(self) -> tuple[int, np.ndarray]:
        """``filled[k >> (64 - bits)]`` is True for every judged key ``k`` (16 entries or more a
        key: other keys pass with probability 1/16 at most). Built on first use in a process,
        not pickled."""
        cached = self.__dict__.get("_filled")
        if cached is None:
            bits = max(10, (16 * len(self.table) - 1).bit_length())
            filled = np.zeros(1 << bits, dtype=bool)
            filled[self.table >> np.uint64(64 - bits)] = True
            cached = (bits, filled)
            object.__setattr__(self, "_filled", cached)
        return cached

    def _buckets(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """The bits of a bucket (``bits``: 4-8 buckets a judgment), the judged keys
        sorted (``sorted``), the judgment each one is (``order``), and where each bucket
        of top bits starts among them (``start``, one entry past the last bucket): the
        keys of bucket ``b`` are ``sorted[start[b]:start[b + 1]]``. 28-44 bytes a
        judgment. Built on first use in a process, not pickled.

        Fewer buckets probe longer: for 33,282 judgments and 38,583 keys looked up,
        1.09 ms at one bucket a judgment or less (at most 5 keys in a bucket), 0.67 ms at
        4-8 (at most 3), 0.56 ms at 16-32; ``index_in`` 0.66-0.73 ms warm, 1.7 ms at each
        run of a 2e7 evaluation (its hash table built anew)."""
        cached = self.__dict__.get("_sorted")
        if cached is None:
            n = len(self.table)
            bits = n.bit_length() + 2  # 2 ** bits in (4n, 8n]
            order = np.argsort(self.table, kind="stable")
            ordered = self.table[order]
            counts = np.bincount((ordered >> np.uint64(64 - bits)).astype(np.int64),
                                 minlength=1 << bits)
            start = np.zeros(len(counts) + 1, dtype=np.int32 if n < 2**31 else np.int64)
            np.cumsum(counts, out=start[1:])
            cached = (bits, ordered, order.astype(start.dtype), start)
            object.__setattr__(self, "_sorted", cached)
        return cached

    def _rows_of(self, keys: np.ndarray) -> np.ndarray:
        """The judgment (position in :attr:`table`) holding each key, -1 for none.

        A key's bucket is its top bits (:meth:`_buckets`: a quarter of a judged key a
        bucket or less, on average); the bucket's keys are compared one position at a time,
        every key still unmatched at once, for as many positions as the fullest bucket
        holds. Sorted keys sit in their buckets' order (the top bits lead), so no table
        is probed and nothing is hashed again, where ``pyarrow.compute.index_in`` hashed
        the judgments anew at every lookup."""
        bits, ordered, order, start = self._buckets()
        bucket = (keys >> np.uint64(64 - bits)).view(np.int64)
        first, stop = np.take(start, bucket), np.take(start, bucket + 1)
        rows = np.full(len(keys), -1, dtype=np.int64)
        todo = np.flatnonzero(first < stop)
        at = first[todo]
        while len(todo):
            hit = np.take(ordered, at) == keys[todo]
            rows[todo[hit]] = np.take(order, at[hit])
            at += 1
            more = ~hit & (at < stop[todo])
            todo, at = todo[more], at[more]
        return rows

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_sorted", None)
        state.pop("_filled", None)
        state.pop("_where", None)
        return state

    def lookup(self, t: np.ndarray, docids, keys: np.ndarray | None = None,
               rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Grades and judged flags of documents retrieved for topic codes ``t``.

        The i-th document is ``docids[rows[i]]`` (``rows`` omitted: ``docids[i]``), with
        ``keys[i]`` its ``(topic, docid)`` key (:func:`irstab.io.keys.pair_keys`) if the
        caller has it, else it is hashed here. Only the documents whose key is judged
        are compared with the judged id.
        """
        import pyarrow.compute as pc

        grade = np.zeros(len(t), dtype=np.int8)
        found = np.zeros(len(t), dtype=bool)
        if len(t) == 0:
            return grade, found
        import pyarrow as pa

        # a chunked array (a file read in batches) is taken from, never joined whole
        docs = docids if isinstance(docids, pa.ChunkedArray) else arrow_strings(docids, large=True)
        if keys is None:
            topic_hashes = string_hashes(list(self.topics))
            keys = row_keys(topic_hashes[t], string_hashes(docs if rows is None
                                                           else docs.take(rows)))
        # most documents are unjudged: a bitmap of the judged keys' top bits rules out all
        # but about 1 in 16 of those, and only the rest is looked up by its bucket
        bits, filled = self._filter()
        cand = np.flatnonzero(np.take(filled, (keys >> np.uint64(64 - bits)).view(np.int64)))
        at = self._rows_of(keys[cand])
        cand, at = cand[at >= 0], at[at >= 0]
        same = self.key_topics[at] == t[cand] + self.offset
        judged = self.docids.take(at)
        mine = arrow_strings(docs.take(cand if rows is None else rows[cand]), large=True)
        same &= pc.equal(mine, judged).to_numpy(zero_copy_only=False)
        found[cand[same]] = True
        grade[cand[same]] = self.key_grades[at[same]]
        return grade, found
