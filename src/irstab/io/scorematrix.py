"""Reading score matrices (one score per system and topic) from CSV/TSV.

Two layouts, both with a header line (a first line of scores, every cell a
number and one at least not an integer, is refused rather than taken as
topic names):

wide
    ``system,t1,t2,...`` then one line per system: its name, then one score
    per topic. The first header cell names the system column (any text).
long
    a header naming the columns ``system`` (or ``run``), ``topic`` and
    ``score`` (or ``value``), in any order and case, then one line per cell.
    An optional ``measure`` column holds several measures in one file, as
    ``irstab evaluate -q -f csv`` writes it (its ``all`` rows, the means, are
    skipped; :func:`read_score_matrices` splits such a file by measure); a
    ``definition`` column is ignored.

A topic named ``all`` is refused (naming the line) in every other layout:
trec_eval's ``-q`` output and irstab's name the mean over the topics so, and
runs and qrels refuse it too, so an ``all`` row of a file with a measure column
is always a mean. Scores must be finite numbers: an ``inf`` cell is an error
naming the line, the system and the topic.

The delimiter is a tab for ``.tsv``/``.tab`` files, a comma for ``.csv``, and
otherwise a tab if the header line contains one, else a comma. Compressed files
(gzip, bzip2, xz, zstd, known by their first bytes) are decompressed as they are
streamed; a line longer than :data:`MAX_LINE_BYTES` (64 MiB) is refused with its
number, and the cells are checked against the machine's memory as they come.
Blank lines are skipped. Empty cells and ``NA``, ``NaN``,
``null`` are missing values; a long file may also simply omit a cell.

Every problem is an :class:`~irstab.errors.InputFormatError` that names the
file and, where there is one, the 1-based line. Missing cells are an error
naming the system and topic (and the line, in the wide layout) unless
``allow_missing=True``, which returns them as NaN.
"""

from __future__ import annotations

import csv
import io
import itertools
import lzma
import os
import re
from enum import Enum
from pathlib import Path

import numpy as np
import pandas as pd

from .._paths import special_file
from ..errors import InputFormatError
from .orientation import SYSTEM_WORDS, TOPIC_WORDS, orient
from .trec import RESERVED_TOPIC, reserved_topic

__all__ = ["Layout", "read_score_matrix", "read_score_matrices", "read_facet_scores", "orient",
           "SYSTEM_WORDS", "TOPIC_WORDS"]


_MISSING = frozenset({"", "na", "nan", "null"})
# long-layout column -> the header names that mean it (any case)
_LONG_COLUMNS = {
    "system": ("system", "run"),
    "topic": ("topic",),
    "score": ("score", "value"),
    "measure": ("measure",),
    "definition": ("definition",),
}
_LONG_REQUIRED = ("system", "topic", "score")
_FACET_HEADER = ["system", "topic", "assessor", "score"]
_MAX_NAMED = 5


class Layout(str, Enum):
    """Layout of a score-matrix file."""

    auto = "auto"
    wide = "wide"
    long = "long"


#: The longest line of a score matrix, in bytes: a wide file's line holds one score per
#: topic (a million topics at 20 characters each is 20 MB). It bounds the memory one
#: line takes while the file is streamed (a compressed file can expand to one endless line).
MAX_LINE_BYTES = 64 << 20
#: Memory one cell takes while the file is read (its text as a Python string in a list,
#: then its float), for the check against the machine's memory.
_CELL_BYTES = 100
_CHECK_EVERY = 1 << 14  # records between two memory checks
_BREAK = re.compile(r"\r\n|\r|\n")  # a line break, as the csv module counts lines


def _delimiter(path: Path, first_line: str | None) -> str | None:
    """The separator its suffix names, else a tab if the first line holds one, else a comma
    (``None`` while the first line is not known)."""
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".bz2", ".xz", ".zst")]
    last = suffixes[-1] if suffixes else ""
    if last in (".tsv", ".tab"):
        return "\t"
    if last == ".csv":
        return ","
    if first_line is None:
        return None
    return "\t" if "\t" in first_line else ","


def _records(path: Path) -> list[tuple[int, list[str]]]:
    """Non-blank records as ``(line, fields)``; ``line`` is where the record starts.

    The file (plain, or gzip/bzip2/xz/zstd by its first bytes) is streamed, never
    read whole: a line longer than :data:`MAX_LINE_BYTES` is refused with its
    number, and the cells read so far, projected to the whole file where its size
    is declared (:func:`~irstab.io.textfiles.declared_text_size`), are checked
    against the machine's memory as they come.
    """
    from .textfiles import (BlankLineSqueeze, LineBound, compression, declared_text_size,
                            invalid_utf8_line, open_measured)

    try:
        if not path.exists():
            raise FileNotFoundError(path)
        if path.is_dir():
            raise InputFormatError(path, "is a directory, not a score file")
        special = special_file(path)
        if special is not None:  # a FIFO would block the open; a pipe would be read empty
            raise InputFormatError(path, f"is {special}, not a regular file; save the matrix to a "
                                   "file and give that (a score file is opened twice: once to "
                                   "detect its compression, once to read it)")
        kind = compression(path)
        declared = declared_text_size(path, kind)
        size = path.stat().st_size
        with open_measured(path, kind) as (raw, consumed):
            bound = LineBound(raw, path, MAX_LINE_BYTES, "score-matrix line")
            squeezed = BlankLineSqueeze(bound, _delimiter(path, None))  # blank lines cut in C
            text = io.TextIOWrapper(io.BufferedReader(squeezed, 1 << 20), encoding="utf-8-sig",
                                    newline="")
            first = text.readline()
            if first.lstrip()[:1] in ("[", "{"):
                raise InputFormatError(
                    path,
                    "looks like JSON; score matrices are CSV/TSV (irstab evaluate -q -f csv writes "
                    "one that --scores reads back)",
                )
            reader = csv.reader(itertools.chain([first], text), delimiter=_delimiter(path, first))
            out, cells, end = [], 0, 0
            for row in filter(None, reader):
                if any(cell.strip() for cell in row):
                    # where the record starts: its last line, less the line breaks quoted in it
                    # (not before the line after the last record: a quote left open at the end
                    # of the file holds a break that starts no line)
                    start = squeezed.line(max(end + 1, reader.line_num - sum(
                        len(_BREAK.findall(c)) for c in row if "\n" in c or "\r" in c)))
                    out.append((start, [cell.strip() for cell in row]))
                    end = reader.line_num
                    cells += len(row)
                    if len(out) % _CHECK_EVERY == 0:
                        _check_cells(path, cells, max(1, bound.total), declared, size,
                                     max(1, consumed()))
    except FileNotFoundError:
        raise InputFormatError(path, "no such file") from None
    except EOFError:
        raise InputFormatError(path, "truncated compressed file") from None
    except (OSError, lzma.LZMAError) as exc:
        raise InputFormatError(path, f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except UnicodeDecodeError as exc:  # its offset is in the cut stream: scan the file again
        try:
            located = invalid_utf8_line(path, universal=True)
        except (OSError, EOFError, lzma.LZMAError):
            located = None
        line, reason = located if located is not None else (None, exc.reason)
        raise InputFormatError(path, f"not a UTF-8 text file ({reason})", line) from None
    except csv.Error as exc:
        raise InputFormatError(path, f"malformed CSV: {exc}", squeezed.line(reader.line_num)) from None
    if not out:
        raise InputFormatError(path, "empty file: expected a header line")
    return out


def _check_cells(path: Path, cells: int, read: int, declared: int | None, size: int,
                 consumed: int) -> None:
    """Refuse a file whose cells, projected to its whole text, need more than half the
    memory: ``cells`` from ``read`` bytes of text, the whole text taken as the size the
    file ``declared`` or as ``size / consumed`` (the file's bytes over those of it consumed
    so far) times ``read``, whichever is larger: a compressed bomb declares little or
    nothing, and shows its ratio after one piece of it
    (:func:`~irstab.io.textfiles.open_measured`)."""
    from .._numeric import check_allocation
    from .textfiles import size_text

    by_size, by_ratio = (declared or 0) / read, size / consumed
    expected = cells * max(1.0, by_size, by_ratio)
    how = ("" if max(by_size, by_ratio) <= 1.0
           else " (projected from the size the file declares)" if by_size >= by_ratio
           else f" (projected to the file's {size_text(size)} from the {size_text(consumed)} "
                "of it read so far)")
    check_allocation(expected * _CELL_BYTES, f"{path}: {expected:,.0f} score cells{how}")


def _parse_scores(path: Path, tokens: np.ndarray, where) -> np.ndarray:
    """Floats from string tokens (vectorised); missing tokens give NaN.

    ``where(i)`` returns ``(line, description)`` of flat token ``i`` for errors.
    """
    s = pd.Series(tokens.ravel(), dtype=object)
    missing = s.str.lower().isin(_MISSING).to_numpy()
    values = pd.to_numeric(s.mask(missing), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(np.isnan(values) & ~missing)
    if bad.size:
        line, what = where(int(bad[0]))
        raise InputFormatError(path, f"{what}: score {s.iloc[bad[0]]!r} is not a number", line)
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:  # named here, by line and labels: later it would be a pair of indices
        line, what = where(int(infinite[0]))
        raise InputFormatError(path, f"{what}: score {s.iloc[infinite[0]]!r} is not finite", line)
    return values.reshape(tokens.shape)


def _check_unique(path: Path, labels: list[str], lines: list[int], what: str) -> None:
    seen: dict[str, int] = {}
    for label, line in zip(labels, lines):
        if not label:
            raise InputFormatError(path, f"empty {what} name", line)
        if label in seen:
            raise InputFormatError(
                path, f"duplicate {what} {label!r} (first on line {seen[label]})", line
            )
        seen[label] = line


def _looks_like_scores(cells: list[str]) -> bool:
    """Every cell a number and one at least not an integer: a line of scores, not topic ids."""
    values = pd.to_numeric(pd.Series(cells, dtype=object), errors="coerce").to_numpy(dtype=float)
    return bool(np.isfinite(values).all() and (values != np.round(values)).any())


def _label_free(records) -> bool:
    """No label column: every column's cells are scores (R's ``write.csv(m, row.names =
    FALSE)`` of gt4ireval's topics x systems matrix), known by a first column of numbers
    that are not all integers (a topic id column would be integers, a system column text)."""
    body = [row for _, row in records[1:]]
    return bool(body) and len(records[0][1]) >= 2 and _looks_like_scores([r[0] for r in body])


def _read_label_free(path: Path, records) -> tuple[pd.DataFrame, dict]:
    """Every column a system, the rows topics numbered from 0 as :func:`pandas.read_csv`
    numbers them: the frame ``irstab.gstudy(pandas.read_csv(path))`` reads."""
    header_line, header = records[0]
    _check_unique(path, header, [header_line] * len(header), "system")
    body = records[1:]
    for line, row in body:
        if len(row) != len(header):
            raise InputFormatError(path, f"expected {len(header)} fields (one per system), "
                                   f"got {len(row)}", line)
    lines = [line for line, _ in body]
    tokens = np.array([row for _, row in body], dtype=object)

    def where(i):
        t, s = divmod(i, len(header))
        return lines[t], f"system {header[s]!r}, topic {t}"

    values = _parse_scores(path, tokens, where)
    return pd.DataFrame(values, index=pd.Index([str(t) for t in range(len(body))]),
                        columns=pd.Index(header)), {"lines": lines, "label_free": True}


def _read_wide(path: Path, records) -> tuple[pd.DataFrame, dict]:
    if _label_free(records):
        return _read_label_free(path, records)
    header_line, header = records[0]
    topics = header[1:]
    if not topics:
        raise InputFormatError(path, "header has no topic columns", header_line)
    if _looks_like_scores(topics):  # a header-less file would silently lose its first system
        shown = ",".join(header[:4]) + (",..." if len(header) > 4 else "")
        raise InputFormatError(
            path,
            f"the first line holds scores ({shown}), not a header: the file must begin "
            "with system,<topic>,<topic>,... (wide) or system,topic,score (long)",
            header_line,
        )
    _check_unique(path, topics, [header_line] * len(topics), "topic")
    body = records[1:]
    if not body:
        raise InputFormatError(path, "no system lines after the header")
    width = len(header)
    for line, row in body:
        if len(row) != width:
            raise InputFormatError(
                path, f"expected {width} fields (system + {width - 1} topics), got {len(row)}", line
            )
    lines = [line for line, _ in body]
    systems = [row[0] for _, row in body]
    _check_unique(path, systems, lines, "system")
    tokens = np.array([row[1:] for _, row in body], dtype=object)

    def where(i):
        s, t = divmod(i, len(topics))
        return lines[s], f"system {systems[s]!r}, topic {topics[t]!r}"

    values = _parse_scores(path, tokens, where)
    frame = pd.DataFrame(
        values,
        index=pd.Index(systems, name=header[0].strip() or None),  # orient() reads it, then renames
        columns=pd.Index(topics, name=None),
    )
    return frame, {"lines": lines}


def _long_columns(header: list[str]) -> dict[str, int] | None:
    """Column index of each long-layout role, or None when the header is not a long one."""
    names = {alias: role for role, aliases in _LONG_COLUMNS.items() for alias in aliases}
    cols: dict[str, int] = {}
    for i, cell in enumerate(header):
        role = names.get(cell.lower())
        if role is None or role in cols:
            return None
        cols[role] = i
    return cols if all(r in cols for r in _LONG_REQUIRED) else None


def _read_long(path: Path, records, cols: dict[str, int]) -> tuple[pd.DataFrame, dict]:
    body = records[1:]
    if not body:
        raise InputFormatError(path, "no score lines after the header")
    width = len(records[0][1])
    si, ti, vi = cols["system"], cols["topic"], cols["score"]
    for line, row in body:
        if len(row) != width:
            names = ", ".join(records[0][1])
            raise InputFormatError(path, f"expected {width} fields ({names}), got {len(row)}", line)
        if not row[si] or not row[ti]:
            raise InputFormatError(path, "empty system or topic name", line)
    lines = np.array([line for line, _ in body])
    sys_labels = [row[si] for _, row in body]
    top_labels = [row[ti] for _, row in body]
    tokens = np.array([row[vi] for _, row in body], dtype=object)
    values = _parse_scores(
        path,
        tokens,
        lambda i: (int(lines[i]), f"system {sys_labels[i]!r}, topic {top_labels[i]!r}"),
    )
    s_code, systems = pd.factorize(pd.Series(sys_labels, dtype=object), sort=False)
    t_code, topics = pd.factorize(pd.Series(top_labels, dtype=object), sort=False)
    cell = s_code.astype(np.int64) * len(topics) + t_code
    dup = pd.Series(cell).duplicated(keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first = int(lines[np.flatnonzero(cell == cell[i])[0]])
        raise InputFormatError(
            path,
            f"duplicate cell (system {sys_labels[i]!r}, topic {top_labels[i]!r}), "
            f"first on line {first}",
            int(lines[i]),
        )
    matrix = np.full(len(systems) * len(topics), np.nan)
    matrix[cell] = values
    frame = pd.DataFrame(
        matrix.reshape(len(systems), len(topics)),
        index=pd.Index(list(systems), name="system"),
        columns=pd.Index(list(topics), name="topic"),
    )
    return frame, {}


def read_score_matrix(
    path: str | os.PathLike,
    *,
    layout: Layout | str = Layout.auto,
    allow_missing: bool = False,
    systems: str = "auto",
    known_systems=None,
) -> pd.DataFrame:
    """Read a systems x topics score matrix from a wide or long CSV/TSV file.

    Parameters
    ----------
    path : path-like
        The file (``.csv``, ``.tsv``, any of them ``.gz``); format in the
        module docstring.
    layout : {"auto", "wide", "long"}
        ``auto`` reads a file whose header names the long columns (see the
        module docstring) as long, anything else as wide.
    allow_missing : bool
        Return missing cells as NaN instead of raising.
    systems : {"auto", "rows", "columns"}
        Where a wide file has its systems (:func:`orient`): ``auto`` reads
        the first header cell (``run``/``system`` or ``topic``/``qid``/
        ``query``) and ``known_systems``, and warns when it has to guess.
    known_systems : iterable of str, optional
        Run names of a collection, which identify the systems' axis.

    Returns
    -------
    pandas.DataFrame
        Float scores; index = systems (named ``system``), columns = topics
        (named ``topic``), both as strings in file order.

    Raises
    ------
    irstab.errors.InputFormatError
        Names the file and line: wrong field count, a score that is not a
        number, an empty or duplicate system/topic/cell, and (unless
        ``allow_missing``) missing cells by system and topic.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.csv"
    >>> _ = p.write_text("system,t1,t2\\nA,0.5,0.25\\nB,0.125,1\\n")
    >>> read_score_matrix(p)  # doctest: +NORMALIZE_WHITESPACE
    topic      t1    t2
    system
    A       0.500  0.25
    B       0.125  1.00
    """
    matrices = _read(Path(path), layout, allow_missing, systems, known_systems)
    if len(matrices) > 1:
        raise InputFormatError(
            path,
            f"holds {len(matrices)} measures ({', '.join(list(matrices)[:_MAX_NAMED])}"
            f"{', ...' if len(matrices) > _MAX_NAMED else ''}): read it with "
            "read_score_matrices, which gives one matrix per measure",
        )
    return next(iter(matrices.values()))


def read_score_matrices(
    path: str | os.PathLike,
    *,
    layout: Layout | str = Layout.auto,
    allow_missing: bool = False,
    systems: str = "auto",
    known_systems=None,
) -> dict[str | None, pd.DataFrame]:
    """Read one score matrix per measure: ``{measure: systems x topics}``.

    A long file with a ``measure`` column (``irstab evaluate -q -f csv``
    output) gives one matrix per measure, in file order, without the ``all``
    rows; any other file gives ``{None: matrix}``. Parameters, errors and the
    matrices' form as :func:`read_score_matrix`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.csv"
    >>> _ = p.write_text("run,measure,topic,value\\nA,AP,1,0.5\\nA,AP,all,0.5\\n"
    ...                  "A,RR,1,1\\nA,RR,all,1\\n")
    >>> {m: f.to_numpy().tolist() for m, f in read_score_matrices(p).items()}
    {'AP': [[0.5]], 'RR': [[1.0]]}
    """
    return _read(Path(path), layout, allow_missing, systems, known_systems)


def _read(path: Path, layout, allow_missing: bool, systems: str = "auto",
          known_systems=None) -> dict[str | None, pd.DataFrame]:
    try:
        layout = Layout(layout)
    except ValueError:
        raise InputFormatError(path, f"layout must be auto, wide or long, got {layout!r}") from None
    records = _records(path)
    cols = _long_columns(records[0][1])
    if layout is Layout.long and cols is None:
        raise InputFormatError(
            path,
            "long layout needs the header columns system (or run), topic and score "
            f"(or value), got {records[0][1]}",
            records[0][0],
        )
    if cols is None or layout is Layout.wide:
        frame, info = _read_wide(path, records)
        if info.get("label_free"):
            if systems == "rows":
                raise InputFormatError(path, "no label column (every column holds scores, as R's "
                                       "write.csv(m, row.names = FALSE) writes gt4ireval's "
                                       "matrix): its columns are the systems; give --systems "
                                       "columns (systems='columns')", records[0][0])
            if not allow_missing and np.isnan(frame.to_numpy()).any():
                t, c = np.argwhere(np.isnan(frame.to_numpy()))[0]
                raise InputFormatError(path, f"missing cell (system {frame.columns[c]!r}, topic "
                                       f"{t}); every system needs a score on every topic",
                                       info["lines"][t])
            return {None: orient(frame, systems, known_systems, source=str(path))}
        frame = _check_missing(path, frame.rename_axis("system"), info, allow_missing)
        if systems == "rows" or (systems == "auto" and str(records[0][1][0]).strip().lower()
                                 in SYSTEM_WORDS):
            out = frame.rename_axis(columns="topic")
        else:
            out = orient(frame.rename_axis(records[0][1][0].strip() or None), systems,
                         known_systems, source=str(path))
        if RESERVED_TOPIC in out.columns:  # a header cell, or a row's first cell (transposed)
            at = (records[0][0] if RESERVED_TOPIC in frame.columns else
                  info["lines"][list(frame.index).index(RESERVED_TOPIC)])
            raise InputFormatError(path, reserved_topic(RESERVED_TOPIC), at)
        return {None: out}
    if "measure" not in cols:
        _refuse_reserved(path, records, cols["topic"])
        frame, info = _read_long(path, records, cols)
        return {None: _check_missing(path, frame, info, allow_missing)}
    # evaluate's long output: one matrix per measure; topic "all" rows are its means
    mi, ti = cols["measure"], cols["topic"]
    width = len(records[0][1])
    groups: dict[str, list] = {}
    for rec in records[1:]:
        line, row = rec
        if len(row) != width:
            names = ", ".join(records[0][1])
            raise InputFormatError(path, f"expected {width} fields ({names}), got {len(row)}", line)
        if row[ti] != "all":
            groups.setdefault(row[mi], []).append(rec)
    if not groups:
        raise InputFormatError(path, "no per-topic score lines (write it with evaluate -q)")
    out = {}
    for measure, body in groups.items():
        frame, info = _read_long(path, [records[0], *body], cols)
        out[measure] = _check_missing(path, frame, info, allow_missing)
    return out


def _refuse_reserved(path: Path, records, column: int) -> None:
    """A long file without a measure column may not name a topic ``all`` (the means' name)."""
    for line, row in records[1:]:
        if len(row) > column and row[column] == RESERVED_TOPIC:
            raise InputFormatError(path, reserved_topic(RESERVED_TOPIC), line)


def _check_missing(path: Path, frame: pd.DataFrame, info: dict, allow_missing: bool) -> pd.DataFrame:
    if not allow_missing:
        mask = np.isnan(frame.to_numpy())
        if mask.any():
            s_idx, t_idx = np.nonzero(mask)
            lines = info.get("lines")
            named = ", ".join(
                (f"line {lines[s]}: " if lines else "")
                + f"(system {frame.index[s]!r}, topic {frame.columns[t]!r})"
                for s, t in zip(s_idx[:_MAX_NAMED], t_idx[:_MAX_NAMED])
            )
            more = f" and {mask.sum() - _MAX_NAMED} more" if mask.sum() > _MAX_NAMED else ""
            raise InputFormatError(
                path,
                f"{mask.sum()} missing cell(s): {named}{more}; every system needs a score "
                "on every topic",
            )
    return frame


def read_facet_scores(path: str | os.PathLike) -> pd.DataFrame:
    """Read scores with an assessor facet: header ``system,topic,assessor,score``.

    One line per (system, topic, assessor) cell; cells may be absent (an
    unbalanced design), but not duplicated or missing-valued. Delimiter,
    compression and blank lines as for :func:`read_score_matrix`.

    Returns
    -------
    pandas.DataFrame
        Columns ``system, topic, assessor`` (strings) and ``score`` (float),
        in file order.

    Raises
    ------
    irstab.errors.InputFormatError
        Naming the file and line: wrong header or field count, an empty name,
        a score that is not a finite number, a duplicate cell.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.csv"
    >>> _ = p.write_text("system,topic,assessor,score\\nA,t1,nist,0.5\\nA,t1,ann,0.25\\n")
    >>> read_facet_scores(p)["score"].tolist()
    [0.5, 0.25]
    """
    path = Path(path)
    records = _records(path)
    header_line, header = records[0]
    if [h.lower() for h in header] != _FACET_HEADER:
        raise InputFormatError(
            path,
            f"expected the header 'system,topic,assessor,score', got {','.join(header)!r}",
            header_line,
        )
    body = records[1:]
    if not body:
        raise InputFormatError(path, "no score lines after the header")
    for line, row in body:
        if len(row) != 4:
            raise InputFormatError(
                path, f"expected 4 fields (system, topic, assessor, score), got {len(row)}", line
            )
        if not all(row[:3]):
            raise InputFormatError(path, "empty system, topic or assessor name", line)
    lines = np.array([line for line, _ in body])
    labels = np.array([row[:3] for _, row in body], dtype=object)
    tokens = np.array([row[3] for _, row in body], dtype=object)

    def where(i):
        s, t, a = labels[i]
        return int(lines[i]), f"system {s!r}, topic {t!r}, assessor {a!r}"

    values = _parse_scores(path, tokens, where)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        line, what = where(int(bad[0]))
        raise InputFormatError(path, f"{what}: missing or non-finite score", line)
    frame = pd.DataFrame(
        {
            "system": labels[:, 0],
            "topic": labels[:, 1],
            "assessor": labels[:, 2],
            "score": values,
        }
    )
    dup = frame.duplicated(["system", "topic", "assessor"], keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        _, what = where(i)
        raise InputFormatError(path, f"duplicate cell ({what})", int(lines[i]))
    return frame
