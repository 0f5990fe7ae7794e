"""What one line of a TREC file looks like: the hint an error gets, and run directories.

A newcomer's first errors are files in the wrong place: the run given where the qrels
go, a run without its ``Q0`` column, qrels without the iteration column, a README in the
run directory. The readers (:mod:`irstab.io.trec`) stay as they are on the hot path;
only when a line is refused does :func:`hint` read that line again (:func:`line_at`)
and say what it looks like, from its content:

========================  ==========================================  ==================
layout                    the line's fields                           reads as
========================  ==========================================  ==================
``run``                   6, the 4th and 5th numbers                  topic Q0 docid rank score tag
``run-no-tag``            5, the 4th and 5th numbers                  topic Q0 docid rank score
``run-no-q0``             5, the 2nd not ``Q0``/``0``, the 3rd and    topic docid rank score tag
                          4th numbers, the 5th not
``run-short``             5, the 2nd ``Q0``/``0``, the 4th a number,  a rank or a score missing
                          the 5th not
``run-no-q0-no-tag``      4, the 2nd not ``Q0``/``0``, the 3rd a      topic docid rank score
                          number, the 4th a number but no integer
``run-spaced``            7 or more, the 4th and 5th numbers          a field holding a space
``qrels``                 4, the 2nd an integer or ``Q0``, the 4th    topic iteration docid grade
                          a number
``qrels-no-iteration``    3, the 3rd an integer in -128..127          topic docid grade
========================  ==========================================  ==================

Anything else is no TREC line (prose, a heading, JSON, binary bytes). Fields are split as
the readers split them: at runs of spaces and tabs; lines end at ``\\n``, ``\\r\\n`` or
``\\r``, as pandas' C parser ends them.

Hints about the whole file (a run given as qrels, qrels as a run, a file that is no TREC
file at all) are given only for the file's first non-blank line: a later bad line of a
good file is that line's problem, not the file's. Hints about a missing column are given
for any line.

A run directory (:func:`not_runs`) may hold other files: a README, notes, a script. A
file is left out, with a warning naming it and why, when it is plainly not a run: by its
name (``README``, ``LICENSE``, ``COPYING``, ``CHANGELOG`` with any extension, or an
extension of documents, code, data or images: :data:`NOT_RUN_SUFFIXES`), or by its content
(its first non-blank line, decompressed, is no TREC line of the table above). A file
whose first line is a TREC line is read as a run, so a real run with a bad line further
on is still an error naming the file and the line; a qrels file among the runs is an
error saying so. Hidden files (``.name``) are not read, as ``ls`` and the shell's ``*``
leave them out; one whose first line is a TREC line is named in the warning.
"""

from __future__ import annotations

import io
import lzma
import re
from pathlib import Path

from .textfiles import compression, open_binary

__all__ = ["layout", "hint", "line_at", "split_fields", "not_runs", "file_layout",
           "NOT_RUN_SUFFIXES"]

_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)",
                     re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")
_Q0 = frozenset({"Q0", "q0", "0"})
_FIELDS = re.compile(r"[ \t]+")

#: Extensions of files that are plainly not TREC runs (documents, code, data, images).
NOT_RUN_SUFFIXES = frozenset({
    ".md", ".markdown", ".rst", ".adoc", ".org", ".html", ".htm", ".pdf", ".doc", ".docx",
    ".odt", ".tex", ".bib", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".xml",
    ".py", ".ipynb", ".sh", ".r", ".jl", ".js", ".png", ".jpg", ".jpeg", ".gif",
    ".svg", ".xlsx", ".xls",
})
_NOT_RUN_NAMES = re.compile(r"(?i)(readme|licen[cs]e|copying|changelog)(\..*)?")
_SNIFF_BYTES = 1 << 16  # how much of a file is read to find its first line


def split_fields(line: str) -> list[str]:
    """The fields of one line as the readers split it (runs of spaces and tabs)."""
    text = line.strip(" \t\r\n")
    return _FIELDS.split(text) if text else []


def _num(s: str) -> bool:
    return _NUMBER.fullmatch(s) is not None


def _int(s: str) -> bool:
    return _INTEGER.fullmatch(s) is not None


def _grade(s: str) -> bool:
    return _int(s) and len(s) < 5 and -128 <= int(s) <= 127


def layout(fields: list[str]) -> str | None:
    """The layout a line's fields are in (the module's table), or None for no TREC line.

    Examples
    --------
    >>> layout("1 Q0 d1 1 2.5 bm25".split()), layout("1 d1 1 2.5 bm25".split())
    ('run', 'run-no-q0')
    >>> layout("1 0 d1 2".split()), layout("1 d1 2".split()), layout("# Runs".split())
    ('qrels', 'qrels-no-iteration', None)
    """
    n = len(fields)
    f = fields + [""] * max(0, 6 - n)
    if n >= 5 and _num(f[3]) and _num(f[4]):
        return {5: "run-no-tag", 6: "run"}.get(n, "run-spaced")
    if n == 5 and _num(f[3]):  # the 5th field is no number
        if f[1] in _Q0:
            return "run-short"
        return "run-no-q0" if _num(f[2]) else None
    if n == 4:
        if f[1] not in _Q0 and _num(f[2]) and _num(f[3]) and not _int(f[3]):
            return "run-no-q0-no-tag"
        if (_int(f[1]) or f[1] in _Q0) and _num(f[3]):
            return "qrels"
    if n == 3 and _grade(f[2]):
        return "qrels-no-iteration"
    return None


def _shown(fields: list[str]) -> str:
    """Fields as one line of text for a message (each cut to 40 characters)."""
    return repr(" ".join(f if len(f) <= 40 else f[:39] + "…" for f in fields))


_RUN_LINE = "topic Q0 docid rank score tag"
_QRELS_LINE = "topic iteration docid grade"
_A_RUN = ("this looks like a run file (topic Q0 docid rank score tag), not qrels: the qrels "
          "come first, then the runs")
_A_QRELS = ("this looks like a qrels file (topic iteration docid grade), not a run: the qrels "
            "come first, then the runs")

#: (file kind, layout) -> the hint; file-level hints only for the first line
_FILE_HINTS = {
    **{("qrels", k): _A_RUN for k in ("run", "run-no-tag", "run-no-q0", "run-short",
                                       "run-no-q0-no-tag", "run-spaced")},
    ("run", "qrels"): _A_QRELS,
}
_LINE_HINTS = {
    ("qrels", "qrels-no-iteration"): lambda f: (
        "the iteration column seems to be missing (the line reads as topic docid grade): a "
        f"qrels line is {_QRELS_LINE}, e.g. {_shown([f[0], '0', f[1], f[2]])}"),
    ("run", "run-no-q0"): lambda f: (
        "the Q0 column seems to be missing (the line reads as topic docid rank score tag): a "
        f"run line is {_RUN_LINE}, e.g. {_shown([f[0], 'Q0', *f[1:]])}"),
    ("run", "run-no-q0-no-tag"): lambda f: (
        "the Q0 and tag columns seem to be missing (the line reads as topic docid rank "
        f"score): a run line is {_RUN_LINE}, e.g. {_shown([f[0], 'Q0', *f[1:], 'tag'])}"),
    ("run", "run-short"): lambda f: (
        "a rank or a score column seems to be missing (the line has the Q0 column, and its "
        f"5th field is no number): a run line is {_RUN_LINE}; only the tag may be left out "
        "(on every line)"),
    ("run", "run-spaced"): lambda f: (
        f"the first six fields read as {_RUN_LINE}: does the tag (or another field) hold a "
        "space? Fields are split at spaces and tabs"),
}


def hint(fields: list[str], kind: str, first: bool) -> str:
    """What a refused line looks like, as ``"; ..."`` to append to the error ('' if nothing
    useful can be said). ``kind``: ``"qrels"`` or ``"run"``; ``first``: whether the line is
    the file's first non-blank line (only then is the whole file judged by it).

    Examples
    --------
    >>> hint("1 Q0 d1 1 2.5 bm25".split(), "qrels", first=True)[:40]
    '; this looks like a run file (topic Q0 d'
    >>> hint("1 d1 1 2.5 bm25".split(), "run", first=False)[:44]
    '; the Q0 column seems to be missing (the lin'
    """
    found = layout(fields)
    if first and (kind, found) in _FILE_HINTS:
        return "; " + _FILE_HINTS[kind, found]
    line = _LINE_HINTS.get((kind, found))
    if line is not None:
        return "; " + line(fields)
    if first and found is None and fields:
        return (f"; this does not look like a {kind} file (its first line is no TREC line): "
                + ("leave it out of the runs" if kind == "run" else
                   "give the qrels (topic iteration docid grade) first, then the runs"))
    return ""


def line_at(path: Path, kind: str | None, line: int) -> tuple[list[str], bool] | None:
    """The fields of physical line ``line`` (1-based) and whether it is the first non-blank
    line; None when the file is shorter or cannot be read again. Reads as far as the line
    (an error path only: the reader has refused that line)."""
    try:
        with open_binary(path, kind) as fh:
            text = io.TextIOWrapper(fh, encoding="utf-8", errors="replace", newline=None)
            first = True
            for number, row in enumerate(text, start=1):
                fields = split_fields(row)
                if number == line:
                    return fields, first
                first = first and not fields
    except (OSError, EOFError, ValueError):
        return None
    return None


def _first_line(path: Path) -> list[str] | None:
    """The fields of the file's first non-blank line (decompressed), from at most
    :data:`_SNIFF_BYTES`; None when that cannot tell (unreadable, a zip archive, an empty
    file, or a first line longer than that)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(4) == b"PK\x03\x04":  # an archive: the reader names its members
                return None
        with open_binary(path, compression(path)) as fh:
            data = b""
            while len(data) < _SNIFF_BYTES:  # 4 KiB usually holds the first line
                block = fh.read(min(4096, _SNIFF_BYTES - len(data)))
                data += block
                lines = data.decode("utf-8", errors="replace").splitlines()
                if not block:
                    break
                complete = lines[:-1]  # the last one may be cut
                first = next((f for f in map(split_fields, complete) if f), None)
                if first is not None:
                    return first
            else:
                return None  # no whole non-blank line within the bytes read: cannot tell
    except (OSError, EOFError, ValueError, lzma.LZMAError):
        return None
    return next((fields for fields in map(split_fields, lines) if fields), None)


def file_layout(path: Path) -> str | None:
    """The layout (the module's table) of the file's first non-blank line, decompressed;
    None when it is no TREC line or cannot be read (``irstab judges`` tells qrels from runs
    by it)."""
    fields = _first_line(Path(path))
    return None if fields is None else layout(fields)


def not_runs(files: list[Path]) -> list[tuple[Path, str]]:
    """The files of a run directory that are plainly not runs, each with the reason (the
    module docstring's rule). ``files`` are the directory's regular files, hidden ones
    included; hidden files are returned only when they look like TREC data (the others
    are left out without a word, as ``ls`` leaves them out)."""
    found = []
    for path in files:
        hidden = path.name.startswith(".")
        if not hidden and (_NOT_RUN_NAMES.fullmatch(path.name)
                           or path.suffix.lower() in NOT_RUN_SUFFIXES):
            found.append((path, "not a run by its name"))
            continue
        fields = _first_line(path)
        if hidden:
            if fields is not None and layout(fields) is not None:
                found.append((path, "a hidden file, though its first line is a TREC line"))
        elif fields is not None and layout(fields) is None:
            found.append((path, f"its first line {_shown(fields)} is no TREC line"))
    return found

