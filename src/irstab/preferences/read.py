r"""Read side-by-side preference files: CSV, TSV or JSON Lines, one comparison per row.

Layout
------
A header row (CSV/TSV) or the keys of each JSON object name the columns; names are matched
without regard to case, and each has a few accepted spellings:

==============  ============================================  ==================================
column          spellings                                     value
==============  ============================================  ==================================
topic           ``topic``, ``query``, ``qid``, ``query_id``   the topic (query) id; required
preferred       ``preferred``, ``preference``, ``answer``,    ``A`` / ``left`` / ``1`` / ``+1``,
                ``winner``, ``judgment``                      ``B`` / ``right`` / ``-1``, or no
                                                              preference: ``none``, ``0``,
                                                              ``tie``, ``equal``, ``neither``,
                                                              ``good`` (both sides satisfied),
                                                              ``bad`` (neither did); required
judge           ``judge``, ``worker``, ``assessor``,          who judged; optional
                ``user``, ``annotator``
side A, side B  ``ranking_a`` / ``ranking_b`` (also           document ids in rank order,
                ``docs_a``, ``docs_b``)                       separated by spaces, ``|``, ``,``
                                                              or ``;``, or a JSON array
                ``run_a`` / ``run_b`` (also ``system_a``,     a run name: its ranking for the
                ``system_b``)                                 row's topic (trec_eval's order:
                                                              score descending, docid
                                                              descending), from RUNS
                ``a:<measure>`` / ``b:<measure>``             the measure's value on that side
==============  ============================================  ==================================

A file in the layout of Urbano & Marrero's (ECIR 2015) ``crowd.csv`` (columns ``query``,
``answer`` and ``DCG<gain><discount>A`` / ``...B``, data/ecir2015-dcg/README.md) is read as
per-side scores of the 36 configurations ``DCG(gain=<g>,discount=<d>)`` with the factors
``gain`` and ``discount``; its answers ``good`` and ``bad`` are "no preference" with the sides'
satisfaction recorded.

Every malformed row raises :class:`~irstab.errors.InputFormatError` naming the file, the line
(1-based; a CSV record spanning lines is named by its first) and the column (1-based, with its
name): a wrong number of fields, an unknown preference, an empty ranking cell, a document twice
in one ranking, a run not given, a score that is not a finite number, invalid JSON.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from irstab.errors import InputFormatError, IRStabError

from .comparisons import Comparisons, ScoredComparisons

__all__ = ["PreferenceRows", "read_preference_rows", "read_preferences", "read_comparisons",
           "CROWD_GAINS", "CROWD_DISCOUNTS"]

_ALIASES = {
    "topic": ("topic", "query", "qid", "query_id"),
    "preferred": ("preferred", "preference", "answer", "winner", "judgment"),
    "judge": ("judge", "worker", "assessor", "user", "annotator"),
    "ranking_a": ("ranking_a", "docs_a"),
    "ranking_b": ("ranking_b", "docs_b"),
    "run_a": ("run_a", "system_a"),
    "run_b": ("run_b", "system_b"),
}

#: preference text -> (preferred, satisfied)
_PREFERENCE = {
    **{k: (1, -1) for k in ("a", "left", "1", "+1")},
    **{k: (-1, -1) for k in ("b", "right", "-1")},
    **{k: (0, -1) for k in ("none", "0", "tie", "equal", "neither", "no preference")},
    "good": (0, 1),
    "bad": (0, 0),
}

#: Gain and discount codes of crowd.csv (its README and src/common.R), in the authors' order.
CROWD_GAINS = ("b2", "b1", "e5", "e3", "e2", "l")
CROWD_DISCOUNTS = ("z", "l", "l2", "l3", "l5", "n")
_CROWD = re.compile(r"^dcg(b2|b1|e5|e3|e2|l)(z|l2|l3|l5|l|n)(a|b)$", re.IGNORECASE)
_SCORE = re.compile(r"^(a|b):(.+)$", re.IGNORECASE)
_SPLIT = re.compile(r"[\s|,;]+")


@dataclass(frozen=True)
class PreferenceRows:
    """A preference file as read: one entry per comparison, every value checked.

    ``rankings`` holds the two sides' document ids per row (None when the file gives run names
    or scores); ``runs`` the two run names per row (None unless given); ``scores`` an (n, m, 2)
    array of the file's per-side measure values (None unless given), named by ``measures`` and
    labelled by ``factors``.
    """

    path: str
    lines: np.ndarray
    topic: np.ndarray
    preferred: np.ndarray
    satisfied: np.ndarray
    judge: np.ndarray | None
    rankings: list | None = None
    runs: list | None = None
    measures: tuple[str, ...] = ()
    scores: np.ndarray | None = None
    factors: dict = field(default_factory=dict)
    run_columns: tuple[int, int] = (0, 0)

    @property
    def n(self) -> int:
        return int(self.preferred.shape[0])


def _open_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFormatError(path, f"cannot read: {exc.strerror or exc}") from exc
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFormatError(path, f"not UTF-8 text (byte {exc.start})", line) from exc


def _records(path: Path, text: str):
    """Yield ``(line, {column name: (column number, value)})`` per record; the header first."""
    name = path.name.lower().removesuffix(".gz")
    first = text.lstrip()[:1]
    if name.endswith((".jsonl", ".ndjson", ".json")) or first == "{":
        yield from _json_records(path, text)
        return
    delimiter = "\t" if name.endswith(".tsv") or (
        not name.endswith(".csv") and "\t" in text.split("\n", 1)[0]) else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header = None
    start = 1
    try:
        for fields in reader:
            line, start = start, reader.line_num + 1
            if not fields or fields == [""]:
                continue
            if header is None:
                header = [f.strip() for f in fields]
                twice = sorted({h for h in header if header.count(h) > 1})
                if twice:
                    raise InputFormatError(path, f"column {header.index(twice[0]) + 1}: the "
                                                 f"header names {twice[0]!r} twice", line)
                yield line, {h: (j + 1, h) for j, h in enumerate(header)}
                continue
            if len(fields) != len(header):
                raise InputFormatError(
                    path, f"expected {len(header)} fields (as the header), got {len(fields)}", line)
            yield line, {h: (j + 1, v) for j, (h, v) in enumerate(zip(header, fields))}
    except csv.Error as exc:
        raise InputFormatError(path, f"malformed {'TSV' if delimiter == chr(9) else 'CSV'}: "
                                     f"{exc}", start) from exc
    if header is None:
        raise InputFormatError(path, "empty file: expected a header row and one row per comparison")


def _json_records(path: Path, text: str):
    header = None
    for line, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputFormatError(path, f"column {exc.colno}: invalid JSON: {exc.msg}", line) from exc
        if not isinstance(obj, dict):
            raise InputFormatError(path, "column 1: expected a JSON object per line", line)
        keys = list(obj)
        if header is None:
            header = keys
            yield line, {k: (j + 1, k) for j, k in enumerate(keys)}
        yield line, {k: (j + 1, obj[k]) for j, k in enumerate(keys)}
    if header is None:
        raise InputFormatError(path, "empty file: expected one JSON object per comparison")


def _roles(path: Path, header: dict, line: int) -> dict:
    lower = {str(k).lower(): k for k in header}
    roles: dict = {}
    for role, names in _ALIASES.items():
        found = [lower[n] for n in names if n in lower]
        if len(found) > 1:
            raise InputFormatError(path, f"columns {found} both give the {role}", line)
        if found:
            roles[role] = found[0]
    scores: dict = {}
    crowd = {}
    for k in header:
        m = _CROWD.match(str(k))
        if m:
            crowd[(m.group(1).lower(), m.group(2).lower(), m.group(3).lower())] = k
            continue
        m = _SCORE.match(str(k))
        if m:
            scores.setdefault(m.group(2), {})[m.group(1).lower()] = k
    for name in ("topic", "preferred"):
        if name not in roles:
            raise InputFormatError(
                path, f"no {name} column (accepted names: {', '.join(_ALIASES[name])})", line)
    measures, factors = [], {"gain": [], "discount": []}
    for d in CROWD_DISCOUNTS:
        for g in CROWD_GAINS:
            if (g, d, "a") in crowd and (g, d, "b") in crowd:
                measures.append((f"DCG(gain={g},discount={d})", crowd[(g, d, "a")],
                                 crowd[(g, d, "b")]))
                factors["gain"].append(g)
                factors["discount"].append(d)
    if not measures:
        factors = {}
    for name, sides in scores.items():
        if set(sides) != {"a", "b"}:
            raise InputFormatError(path, f"measure {name!r}: a column for side A and one for "
                                         f"side B are needed (a:{name}, b:{name})", line)
        measures.append((name, sides["a"], sides["b"]))
    if factors and len(measures) != len(factors["gain"]):
        factors = {}
    sides = [("ranking_a" in roles) + ("ranking_b" in roles), ("run_a" in roles) + ("run_b" in roles)]
    if 1 in sides:
        raise InputFormatError(path, "side A and side B need the same kind of column "
                                     "(ranking_a with ranking_b, run_a with run_b)", line)
    if not measures and sides == [0, 0]:
        raise InputFormatError(path, "no sides: expected ranking_a/ranking_b (document ids), "
                                     "run_a/run_b (run names) or a:<measure>/b:<measure> columns",
                               line)
    roles["measures"] = measures
    roles["factors"] = factors
    return roles


def _ranking(path, line, record, key) -> tuple[str, ...]:
    column, value = record[key]
    where = f"column {column} ({key})"
    if isinstance(value, list):
        docs = value
    elif isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                docs = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputFormatError(path, f"{where}: invalid JSON array: {exc.msg}", line) from exc
            if not isinstance(docs, list):
                raise InputFormatError(path, f"{where}: expected a JSON array of ids", line)
        elif not text:
            raise InputFormatError(path, f"{where}: empty ranking (write [] for a side that "
                                         "retrieved nothing)", line)
        else:
            docs = _SPLIT.split(text)
    else:
        raise InputFormatError(path, f"{where}: expected document ids, got {type(value).__name__}",
                               line)
    if not all(isinstance(d, (str, int)) and not isinstance(d, bool) and str(d).strip()
               for d in docs):
        raise InputFormatError(path, f"{where}: every document id must be a non-empty string",
                               line)
    docs = tuple(str(d).strip() for d in docs)
    if len(set(docs)) != len(docs):
        seen = set()
        twice = next(d for d in docs if d in seen or seen.add(d))
        raise InputFormatError(path, f"{where}: document {twice!r} twice in one ranking", line)
    return docs


def _text(path, line, record, key, what) -> str:
    column, value = record[key]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputFormatError(path, f"column {column} ({key}): empty or missing {what}", line)
    return value.strip()


def _score(path, line, record, key) -> float:
    column, value = record[key]
    try:
        if isinstance(value, bool):
            raise ValueError
        x = float(value)
    except (TypeError, ValueError):
        raise InputFormatError(path, f"column {column} ({key}): not a number: {value!r}",
                               line) from None
    if not np.isfinite(x):
        raise InputFormatError(path, f"column {column} ({key}): not a finite number: {value!r}",
                               line)
    return x


def read_preference_rows(path) -> PreferenceRows:
    """Parse and check a preference file (module docstring); nothing is looked up yet.

    Raises
    ------
    InputFormatError
        Naming the file, the line and the column of the first malformed row.
    """
    path = Path(path)
    records = _records(path, _open_text(path))
    header_line, header = next(records)
    roles = _roles(path, header, header_line)
    measures = roles["measures"]
    lines, topics, preferred, satisfied, judges = [], [], [], [], []
    rankings, runs, scores = [], [], []
    for line, record in records:
        missing = [k for k in header if k not in record]
        if missing:  # JSON Lines: every object carries the first one's keys
            raise InputFormatError(path, f"missing key {missing[0]!r} (the first line has it)",
                                   line)
        lines.append(line)
        topics.append(_text(path, line, record, roles["topic"], "topic"))
        key = roles["preferred"]
        text = _text(path, line, record, key, "preference").lower()
        if text not in _PREFERENCE:
            raise InputFormatError(
                path, f"column {record[key][0]} ({key}): unknown preference {text!r} (expected "
                "A, B, none; or good/bad for no preference with both sides (un)satisfying)", line)
        p, s = _PREFERENCE[text]
        preferred.append(p)
        satisfied.append(s)
        if "judge" in roles:
            judges.append(_text(path, line, record, roles["judge"], "judge"))
        if "ranking_a" in roles:
            rankings.append((_ranking(path, line, record, roles["ranking_a"]),
                             _ranking(path, line, record, roles["ranking_b"])))
        if "run_a" in roles:
            runs.append((_text(path, line, record, roles["run_a"], "run name"),
                         _text(path, line, record, roles["run_b"], "run name")))
        if measures:
            scores.append([(_score(path, line, record, a), _score(path, line, record, b))
                           for _, a, b in measures])
    if not lines:
        raise InputFormatError(path, "no comparison: the file has a header and no row")
    run_columns = (header[roles["run_a"]][0], header[roles["run_b"]][0]) if runs else (0, 0)
    return PreferenceRows(
        path=str(path), lines=np.asarray(lines), topic=np.asarray(topics, dtype=str),
        preferred=np.asarray(preferred, dtype=np.int8),
        satisfied=np.asarray(satisfied, dtype=np.int8),
        judge=np.asarray(judges, dtype=str) if judges else None,
        rankings=rankings or None, runs=runs or None,
        measures=tuple(m for m, _, _ in measures),
        scores=np.asarray(scores, dtype=float).reshape(len(lines), len(measures), 2)
        if measures else None,
        factors={k: tuple(v) for k, v in roles["factors"].items()},
        run_columns=run_columns,
    )


def _ordered(frame, order: str):
    """A run's rows in ranking order within each topic (:class:`irstab.collection.RankOrder`):
    score descending with ties by docid descending (``score``; ``score32`` compares the scores
    as 32-bit floats), the rank column with ties by line order (``rank``), or line order
    (``file``)."""
    from irstab.collection import RankOrder

    order = RankOrder(order)
    frame = frame.assign(_line=np.arange(len(frame)))
    if order is RankOrder.FILE:
        keys, ascending = ["topic", "_line"], [True, True]
    elif order is RankOrder.RANK:
        keys, ascending = ["topic", "rank", "_line"], [True, True, True]
    else:
        if order is RankOrder.SCORE32:
            frame = frame.assign(score=frame["score"].astype(np.float32))
        keys, ascending = ["topic", "score", "docid"], [True, False, False]
    return frame.sort_values(keys, ascending=ascending, kind="stable")


def _run_rankings(rows: PreferenceRows, runs, depth: int, order: str = "score") -> list:
    """The two sides' rankings of every row, from the runs named in the file."""
    from irstab.io import read_runs

    parsed = {r.name: r for r in read_runs(runs)} if runs else {}
    cache: dict = {}

    def ranking(name: str, topic: str, line: int, column: int) -> tuple[str, ...]:
        if name not in parsed:
            known = ", ".join(sorted(parsed)[:8]) or "none given"
            raise InputFormatError(rows.path, f"column {column}: run {name!r} is not among the "
                                              f"runs ({known})", line)
        if name not in cache:
            frame = _ordered(parsed[name].frame, order)
            cache[name] = {t: tuple(g["docid"].astype(str))
                           for t, g in frame.groupby("topic", sort=False)}
        return cache[name].get(topic, ())[:depth]

    ca, cb = rows.run_columns
    out = [(ranking(a, t, ln, ca), ranking(b, t, ln, cb))
           for (a, b), t, ln in zip(rows.runs, rows.topic, rows.lines)]
    if order in ("score", "score32"):  # the Collection's warning, on the runs read here
        import warnings

        from irstab.collection.build import tied_message
        from irstab.errors import IRStabWarning

        names = sorted(cache)
        shares = [float(parsed[n].frame.duplicated(["topic", "score"], keep=False).mean())
                  for n in names]
        message = tied_message(shares, names)
        if message is not None:
            warnings.warn(message, IRStabWarning, stacklevel=3)
    return out


def _grades_lookup(qrels) -> dict:
    from irstab.io import read_qrels

    frame = read_qrels(qrels).frame
    return {(str(t), str(d)): int(g) for t, d, g in
            zip(frame["topic"], frame["docid"], frame["grade"])}


def read_comparisons(path, qrels, runs=None, depth: int | None = None,
                     order: str = "score") -> Comparisons:
    """Read a preference file with rankings (or run names) and grade both sides from qrels.

    Parameters
    ----------
    path : path
        The preference file (module docstring).
    qrels : path or any source :func:`irstab.io.read_qrels` reads
        The grades; a document not in the qrels has grade 0, a negative grade reads as 0.
    runs : path(s), optional
        The runs named in ``run_a`` / ``run_b``.
    depth : int, optional
        Ranks kept per side; default all of a ranking given in the file, and the top 10 of a
        ranking taken from a run (what a user sees side by side). The arrays are as deep as the
        longest side kept.
    order : {"score", "score32", "rank", "file"}
        How a run's documents are ordered within a topic (:class:`irstab.collection.RankOrder`;
        default trec_eval's: score descending, docid descending).

    Returns
    -------
    Comparisons
    """
    rows = read_preference_rows(path)
    return _graded(rows, qrels, runs, depth, order)


def _graded(rows: PreferenceRows, qrels, runs, depth, order="score"):
    if rows.rankings is None and rows.runs is None:
        raise IRStabError(f"{rows.path}: the file gives per-side scores, not rankings: no "
                          "grades to read (read_preferences reads the scores)")
    if depth is not None and depth < 1:
        raise IRStabError(f"depth: expected a positive number of ranks, got {depth}")
    if rows.runs is not None:
        rankings = _run_rankings(rows, runs, depth or 10, order)
    else:
        rankings = [(a[:depth], b[:depth]) for a, b in rows.rankings] if depth else rows.rankings
    width = max((max(len(a), len(b)) for a, b in rankings), default=1) or 1
    grades = _grades_lookup(qrels)
    out = np.full((rows.n, 2, width), -1, dtype=np.int64)
    for i, (topic, sides) in enumerate(zip(rows.topic, rankings)):
        for s, docs in enumerate(sides):
            out[i, s, :len(docs)] = [max(grades.get((topic, d), 0), 0) for d in docs]
    return Comparisons(topic=rows.topic, preferred=rows.preferred, grades_a=out[:, 0],
                       grades_b=out[:, 1], judge=rows.judge,
                       satisfied=rows.satisfied if (rows.satisfied >= 0).any() else None)


def read_preferences(path, qrels=None, runs=None, measures=None,
                     depth: int | None = None, order: str = "score") -> ScoredComparisons:
    """Read a preference file as per-side values of measures.

    A file with per-side scores (``a:<measure>`` / ``b:<measure>`` columns, or crowd.csv's
    ``DCG<g><d>A`` / ``B``) is read as it is; a file with rankings or run names needs
    ``qrels`` and is scored with ``measures`` (any irstab measure string; default
    :data:`irstab.preferences.agreement.DEFAULT_MEASURES`) on both sides
    (:func:`irstab.preferences.agreement.side_scores`).

    Returns
    -------
    ScoredComparisons
    """
    rows = read_preference_rows(path)
    satisfied = rows.satisfied if (rows.satisfied >= 0).any() else None
    if rows.scores is not None and rows.rankings is None and rows.runs is None \
            and measures is not None:
        raise IRStabError(f"{rows.path}: the file gives the measures' values per side "
                          f"({', '.join(rows.measures[:3])}...); measures are asked for only "
                          "for rankings (ranking_a/ranking_b or run_a/run_b)")
    if rows.scores is not None and measures is None:
        return ScoredComparisons(topic=rows.topic, preferred=rows.preferred,
                                 measures=rows.measures, scores=rows.scores, judge=rows.judge,
                                 satisfied=satisfied, factors=rows.factors)
    if qrels is None:
        raise IRStabError(f"{rows.path}: the sides are rankings: give the qrels to grade them")
    from .agreement import side_scores

    return side_scores(_graded(rows, qrels, runs, depth, order), qrels, measures)
