r"""Judge sets: several qrels of one collection, aligned on the (topic, document) pairs.

A *judge set* is one qrels file (TREC format ``topic iteration docid grade``, plain or
``.gz``): NIST's official judgments, a re-annotator's, a crowd's or an LLM's. Each is named
after its file as :func:`irstab.collection.assessors.assessor_name` names an assessor of
``irstab assessors`` (the stem, without ``.gz``, its last extension and a trailing
``-qrels``: ``froebe-qrels.txt`` is ``froebe``), so both commands speak of the same judges.

Rules (:func:`read_judge_sets`)
-------------------------------
* **The gold set** (the first) defines the topics and the grade scale: a topic of another
  set that the gold set does not have is left out with a warning (its pairs have nothing
  to be compared with); a set sharing no topic with the gold set is an error naming its
  file: it is of another collection, or of other topic ids.
* **The scale** is every integer from the gold set's smallest to its largest grade (0-3 for
  TREC DL), unless ``grades`` is given. A grade outside it is an error naming the file and
  the line: a 4 on a 0-3 scale, or a -1 where the gold set has none, is a typo or another
  scale, and any agreement computed with it would be meaningless. A grade that is no integer
  is the qrels reader's located error already.
* **At least two judge sets**: agreement needs a pair.
* Two files with the same name are an error naming both.

The aligned table has one column per judge and one row per (topic, document) pair that
some judge labelled (on the gold set's topics); a judge that did not label a pair has no
label there (NaN), which Krippendorff's alpha treats as missing and the pairwise statistics
skip (each pair of judges is compared on the pairs both labelled).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..collection.assessors import assessor_name, read_assessor_qrels
from ..errors import InputFormatError, IRStabError, IRStabWarning
from ..io import PathLike, Qrels, read_qrels

__all__ = ["JudgeSets", "read_judge_sets", "judge_sets"]


@dataclass(frozen=True, eq=False)
class JudgeSets:
    """Judge sets aligned on (topic, document) pairs (module docstring).

    Attributes
    ----------
    judges : tuple of str
        Names, the gold set first.
    paths : tuple of str
        Where each set was read from.
    topics, docids : arrays of str
        The aligned pairs, sorted by topic and document.
    labels : float array, shape (judges, pairs)
        Grades; NaN where a judge did not label the pair.
    grades : tuple of int
        The grade scale (every category a statistic may see), ascending.
    """

    judges: tuple[str, ...]
    paths: tuple[str, ...]
    topics: np.ndarray = field(repr=False)
    docids: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    grades: tuple[int, ...]

    @property
    def gold(self) -> str:
        return self.judges[0]

    def topic_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, names)``: each pair's topic as an index into the sorted topic names."""
        names, codes = np.unique(self.topics, return_inverse=True)
        return codes, names

    def judged_topics(self, judge: str) -> list[str]:
        """The topics where ``judge`` labelled at least one pair, sorted."""
        row = self.labels[self.judges.index(judge)]
        return sorted(set(self.topics[~np.isnan(row)].tolist()))

    def to_frame(self) -> pd.DataFrame:
        """Wide table ``topic, docid, <judge>...`` (nullable integers; <NA> = not labelled)."""
        out = pd.DataFrame({"topic": self.topics, "docid": self.docids})
        for name, row in zip(self.judges, self.labels):
            out[name] = pd.array(np.where(np.isnan(row), 0, row).astype(np.int64),
                                 dtype="Int64")
            out.loc[np.isnan(row), name] = pd.NA
        return out


def _bad_grade_line(path: str, bad: set[int]) -> int | None:
    """The first line of ``path`` whose grade (last field) is in ``bad``; None if unreadable."""
    from ..io.textfiles import compression, open_binary
    from ..io.treclines import split_fields
    import io

    try:
        with open_binary(Path(path), compression(Path(path))) as fh:
            text = io.TextIOWrapper(fh, encoding="utf-8", errors="replace", newline=None)
            for number, row in enumerate(text, start=1):
                fields = split_fields(row)
                if fields:
                    try:
                        if int(fields[-1]) in bad:
                            return number
                    except ValueError:
                        continue
    except (OSError, EOFError, ValueError):
        return None
    return None


def _short(values, n: int = 3) -> str:
    values = sorted(values)
    return ", ".join(map(str, values[:n])) + (" ..." if len(values) > n else "")


def judge_sets(gold: Qrels, others: Mapping[str, Qrels],
               grades: Iterable[int] | None = None) -> JudgeSets:
    """Align in-memory qrels (the gold set and ``{name: Qrels}``) by the module's rules.

    Examples
    --------
    >>> import pandas as pd
    >>> g = Qrels("nist-qrels.txt", pd.DataFrame({"topic": ["1", "1", "2"],
    ...                                           "docid": ["a", "b", "c"], "grade": [0, 2, 1]}))
    >>> o = Qrels("llm.txt", pd.DataFrame({"topic": ["1", "2"], "docid": ["b", "d"],
    ...                                    "grade": [1, 0]}))
    >>> j = judge_sets(g, {"llm": o})
    >>> j.judges, j.grades
    (('nist', 'llm'), (0, 1, 2))
    >>> j.labels.tolist()  # pairs (1,a) (1,b) (2,c) (2,d)
    [[0.0, 2.0, 1.0, nan], [nan, 1.0, nan, 0.0]]
    """
    gname = assessor_name(gold.path)
    if not others:
        raise IRStabError(f"judges: only one judge set ({gold.path}); agreement needs the gold "
                          "qrels and at least one other judge set")
    if gname in others:
        raise IRStabError(f"{gold.path}: the gold qrels' name {gname!r} is also another judge "
                          "set's name; rename one file")
    gf = gold.frame
    if gf.empty:
        raise InputFormatError(gold.path, "the gold qrels hold no judgment")
    g_grades = gf["grade"].to_numpy()
    if grades is None:
        scale = tuple(range(int(g_grades.min()), int(g_grades.max()) + 1))
    else:
        scale = tuple(sorted({int(g) for g in grades}))
        if not scale:
            raise IRStabError("grades: the scale is empty")
    gold_topics = set(gf["topic"].unique())
    frames = [gf.assign(judge=0)]
    for k, (name, q) in enumerate(others.items(), start=1):
        f = q.frame
        own = set(f["topic"].unique())
        if not own & gold_topics:
            raise IRStabError(
                f"{q.path}: none of its {len(own)} topic(s) ({_short(own)}) is a topic of the "
                f"gold qrels {gold.path} ({_short(gold_topics)}); is it of the same collection?")
        extra = own - gold_topics
        if extra:
            warnings.warn(f"{q.path}: {len(extra)} topic(s) not in the gold qrels are left out "
                          f"({_short(extra)})", IRStabWarning, stacklevel=3)
            f = f[f["topic"].isin(gold_topics)]
        frames.append(f.assign(judge=k))
    names = (gname, *others)
    paths = (str(gold.path), *(str(q.path) for q in others.values()))
    for name, path, f in zip(names, paths, frames):
        bad = set(np.unique(f["grade"].to_numpy()).tolist()) - set(scale)
        if bad:
            line = _bad_grade_line(path, bad) if Path(path).is_file() else None
            raise InputFormatError(
                path, f"grade {min(bad)} is not on the scale {scale[0]}..{scale[-1]} "
                f"{'given by grades' if grades is not None else 'of the gold qrels'} "
                f"(judge {name!r})", line)
    allf = pd.concat(frames, ignore_index=True)
    allf = allf.sort_values(["topic", "docid"], kind="stable")
    keys = pd.MultiIndex.from_frame(allf[["topic", "docid"]])
    pairs, item = np.unique(keys.codes[0].astype(np.int64) * (len(keys.levels[1]) + 1)
                            + keys.codes[1], return_inverse=True)
    labels = np.full((len(names), len(pairs)), np.nan)
    labels[allf["judge"].to_numpy(), item] = allf["grade"].to_numpy(dtype=np.float64)
    first = np.zeros(len(pairs), dtype=np.intp)
    first[item[::-1]] = np.arange(len(item))[::-1]  # the first row of each pair
    topics = allf["topic"].to_numpy(dtype=object)[first]
    docids = allf["docid"].to_numpy(dtype=object)[first]
    order = np.lexsort((docids.astype(str), topics.astype(str)))
    return JudgeSets(judges=names, paths=paths, topics=topics[order], docids=docids[order],
                     labels=labels[:, order], grades=scale)


def read_judge_sets(gold: PathLike | Qrels,
                    others: Mapping[str, Qrels] | PathLike | Iterable[PathLike],
                    grades: Iterable[int] | None = None) -> JudgeSets:
    """Read the gold qrels and the other judge sets (files and/or directories of qrels) and
    align them (module docstring for the rules and the errors).

    Parameters
    ----------
    gold : path or Qrels
        The reference judgments (e.g. NIST's): its topics and its grade scale.
    others : paths, directories, or ``{name: Qrels}``
        The other judge sets, each named after its file.
    grades : iterable of int, optional
        The grade scale; default every integer from the gold set's smallest grade to its
        largest.

    Raises
    ------
    IRStabError
        Only one judge set; a set sharing no topic with the gold set (naming its file);
        a grade off the scale (naming the file and line); two sets of the same name.
    """
    gold, others = load_judge_qrels(gold, others)
    return judge_sets(gold, others, grades)


def load_judge_qrels(gold: PathLike | Qrels,
                     others: Mapping[str, Qrels] | PathLike | Iterable[PathLike]
                     ) -> tuple[Qrels, Mapping[str, Qrels]]:
    """The gold :class:`~irstab.io.Qrels` and ``{judge: Qrels}`` of the others, read where
    given as files or directories (each judge named as ``irstab assessors`` names an
    assessor); an error if there is no other judge set."""
    if not isinstance(gold, Qrels):
        gold = read_qrels(gold)
    if isinstance(others, (str, Path)):
        others = [others]
    if not isinstance(others, Mapping):
        others = list(others)
        if not others:
            raise IRStabError(f"judges: only one judge set ({gold.path}); agreement needs the "
                              "gold qrels and at least one other judge set")
        others = read_assessor_qrels(others)
    return gold, others
