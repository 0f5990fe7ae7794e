"""Reading and writing TREC qrels, TREC runs and score matrices.

Formats
-------
qrels
    ``topic iteration docid grade``, whitespace separated, one judgment per
    line. ``grade`` is an integer and may be negative (TREC Web spam = -2).
run
    ``topic Q0 docid rank score tag``. The tag may be missing on every line
    of a file (5 fields); then the run is named after its file.

Both may be gzip-compressed (``.gz``). Blank lines are allowed and skipped;
every other problem is an :class:`~irstab.errors.InputFormatError` naming the
file and the 1-based line (a truncated or corrupt ``.gz`` names the line the
decompression reached; an unreadable file, a directory or a broken symbolic
link is named too).

Ranks are kept exactly: integer ranks as int64 (a rank beyond the 64-bit
range is an error), other ranks as float64 only while every one is below
2**53 in magnitude, where doubles still tell neighbouring integers apart.

Other sources
-------------
:func:`read_qrels`, :func:`read_run` and :func:`read_runs` also take pandas
DataFrames, pyarrow Tables, Parquet and Arrow IPC/Feather files, dicts
(``{topic: {docid: grade}}`` for qrels, ``{topic: {docid: score}}`` for a run,
as pytrec_eval and ranx take them), iterables of records shaped like
ir_datasets' ``qrels_iter()`` (``query_id, doc_id, relevance, iteration``) and
``scoreddocs_iter()`` (``query_id, doc_id, score``), and ``"irds:<dataset id>"``
when the optional ir_datasets package is installed. Columns are found by name:
topic ``query_id``/``qid``/``topic``, document ``doc_id``/``docno``/``docid``,
``score``, optional ``rank``, grade ``relevance``/``label``/``grade``, optional
run name ``run``/``system``/``tag`` (see :mod:`irstab.tables`, which converts
them; errors name the source, the 0-based row and the column).

>>> import pandas as pd, irstab
>>> qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [2, 0]})
>>> run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
>>> float(irstab.evaluate(qrels, run, ["P@1", "RR"])["value"].iloc[1])
0.5

Parsing is vectorised: a multithreaded pyarrow reader handles well-formed files
(single spaces, the usual case); anything it rejects goes through the pandas C
engine with whitespace splitting, which also locates the offending line.
Nothing is dropped silently.
"""

from __future__ import annotations

import os
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .atomicfile import atomic_write_files, atomic_write_text, atomic_writer
from .errors import InputFormatError, IRStabError, IRStabWarning

__all__ = [
    "Qrels",
    "Run",
    "read_qrels",
    "read_run",
    "read_runs",
    "write_qrels",
    "write_run",
    "atomic_write_text",
    "atomic_write_files",
    "atomic_writer",
]

PathLike = str | os.PathLike


@dataclass(frozen=True)
class _Spec:
    """Column layout of one TREC file type."""

    kind: str
    columns: tuple[str, ...]
    string_columns: tuple[str, ...]
    float_columns: tuple[str, ...] = ()
    integer_columns: tuple[str, ...] = ()
    exact_columns: tuple[str, ...] = ()  # float columns kept as int64 when all are integers
    optional_last: bool = False  # the last column may be absent on every line


_QRELS = _Spec(
    kind="qrels",
    columns=("topic", "iteration", "docid", "grade"),
    string_columns=("topic", "iteration", "docid"),
    integer_columns=("grade",),
)
_RUN = _Spec(
    kind="run",
    columns=("topic", "q0", "docid", "rank", "score", "tag"),
    string_columns=("topic", "q0", "docid", "tag"),
    float_columns=("rank", "score"),
    exact_columns=("rank",),
    optional_last=True,
)

_INTEGER = re.compile(r"[+-]?\d+")
_GRADE_RANGE = (-128, 127)  # grades are stored as int8
_EXACT_FLOAT = 2.0**53  # beyond it float64 no longer tells neighbouring integers apart


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: one row per (topic, docid) with an integer grade."""

    path: str
    frame: pd.DataFrame = field(repr=False)

    @property
    def max_grade(self) -> int:
        return int(self.frame["grade"].max())

    @property
    def topics(self) -> list[str]:
        return sorted(self.frame["topic"].unique().tolist())

    def __len__(self) -> int:
        return len(self.frame)


@dataclass(frozen=True, eq=False)
class Run:
    """One retrieval run: rows ``topic, docid, rank, score`` in file order.

    ``rank`` is int64 when every rank is an integer, else float64 (all below 2**53).
    """

    name: str
    path: str
    tag: str | None
    frame: pd.DataFrame = field(repr=False)

    def __len__(self) -> int:
        return len(self.frame)


# ---------------------------------------------------------------- reading


def _fast_read(path: Path, spec: _Spec) -> pd.DataFrame | None:
    """pyarrow reader for single-space separated files; None if it cannot parse."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    types = {c: pa.string() for c in spec.string_columns}
    types.update({c: pa.float64() for c in spec.float_columns})
    types.update({c: pa.int64() for c in spec.integer_columns})
    layouts = (spec.columns, spec.columns[:-1]) if spec.optional_last else (spec.columns,)
    # Exact columns (rank) as int64 first: float64 would merge ranks beyond 2**53.
    exact = [{c: pa.int64() for c in spec.exact_columns}, {}] if spec.exact_columns else [{}]
    for names, override in ((n, o) for n in layouts for o in exact):
        try:
            table = pacsv.read_csv(
                path,
                read_options=pacsv.ReadOptions(column_names=list(names)),
                parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
                convert_options=pacsv.ConvertOptions(
                    column_types={c: t for c, t in (types | override).items() if c in names},
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                    null_values=[],
                ),
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            continue
        if table.num_rows == 0:
            return None
        import pyarrow.compute as pc

        if any(pc.any(pc.equal(table[c], "")).as_py() for c in spec.string_columns if c in names):
            return None  # an empty field: a doubled space; let the careful reader judge the line
        return table.to_pandas()
    return None


def _careful_read(path: Path, spec: _Spec) -> pd.DataFrame:
    """Whitespace-split reader that keeps line numbers; raises on any malformed line."""
    n = len(spec.columns)
    try:
        raw = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=range(n + 1),
            dtype=str,
            engine="c",
            skip_blank_lines=False,
            keep_default_na=False,
            na_values=[""],
            quoting=3,  # csv.QUOTE_NONE: quotes are ordinary characters
        )
    except pd.errors.EmptyDataError:
        raise InputFormatError(path, f"empty file: no {spec.kind} lines") from None
    except pd.errors.ParserError as exc:
        m = re.search(r"line (\d+), saw (\d+)", str(exc))
        line = int(m.group(1)) if m else None
        found = f", found {m.group(2)}" if m else ""
        raise InputFormatError(
            path, f"expected {n} fields ({' '.join(spec.columns)}){found}", line
        ) from None
    except UnicodeDecodeError as exc:
        raise InputFormatError(path, f"not a text file ({exc.reason})") from None
    raw.index = np.arange(1, len(raw) + 1)  # 1-based line numbers
    counts = raw.notna().sum(axis=1).to_numpy()
    raw = raw[counts > 0]
    counts = counts[counts > 0]
    if len(raw) == 0:
        raise InputFormatError(path, f"empty file: no {spec.kind} lines")
    allowed = {n, n - 1} if spec.optional_last else {n}
    expected = counts[0] if counts[0] in allowed else n
    bad = np.flatnonzero(counts != expected)
    if len(bad):
        line = int(raw.index[bad[0]])
        got = int(counts[bad[0]])
        what = f"expected {expected} fields ({' '.join(spec.columns[:expected])}), found {got}"
        if spec.optional_last and got in allowed:
            what += " (the tag column must be present on every line or on none)"
        raise InputFormatError(path, what, line)
    frame = raw.iloc[:, :expected].copy()
    frame.columns = list(spec.columns[:expected])
    for col in spec.integer_columns:
        text = frame[col]
        ok = text.str.fullmatch(_INTEGER.pattern).to_numpy(dtype=bool)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise InputFormatError(
                path, f"{col} {text.iloc[i]!r} is not an integer", int(frame.index[i])
            )
        lo, hi = _GRADE_RANGE
        frame[col] = _to_int64(path, frame, col, f"is outside {lo}..{hi}")
    for col in spec.exact_columns:
        if col in frame and frame[col].str.fullmatch(_INTEGER.pattern).all():
            frame[col] = _to_int64(path, frame, col, "is beyond the 64-bit integer range")
    for col in spec.float_columns:
        if col not in frame or pd.api.types.is_numeric_dtype(frame[col]):
            continue
        values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            text = frame[col].iloc[i]
            what = "NaN; it must be finite" if text.lstrip("+-").lower() == "nan" else "not a number"
            raise InputFormatError(path, f"{col} {text!r} is {what}", int(frame.index[i]))
        frame[col] = values
    frame.index.name = "line"
    return frame


def _to_int64(path: Path, frame: pd.DataFrame, col: str, too_large: str) -> np.ndarray:
    """int64 values of a column of integer strings; an error names the first that overflows."""
    text = frame[col]
    digits = text.str.lstrip("+-").str.lstrip("0").str.len().to_numpy()
    big = np.flatnonzero(digits >= 19)  # 2**63 has 19 digits: check those exactly
    for i in big:
        if not -(2**63) <= int(text.iloc[i]) < 2**63:
            raise InputFormatError(path, f"{col} {text.iloc[i]!r} {too_large}", int(frame.index[i]))
    return text.astype(np.int64).to_numpy()


def _first_problem(frame: pd.DataFrame, spec: _Spec) -> tuple[int, str] | None:
    """The first row (0-based position) with a semantic problem, and the message."""
    problems: list[tuple[int, str]] = []
    for col in spec.float_columns:
        if col in frame:
            bad = ~np.isfinite(frame[col].to_numpy(dtype=np.float64))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append((i, f"{col} is {float(frame[col].iloc[i])!r}; it must be finite"))
    for col in spec.exact_columns:
        values = frame[col].to_numpy() if col in frame else np.zeros(0, np.int64)
        if values.dtype.kind == "f":
            bad = np.abs(values) > _EXACT_FLOAT
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append(
                    (i, f"{col} {float(values[i])!r} cannot be compared exactly: give integer "
                        "ranks, or ranks below 2**53 in magnitude")
                )
    for col in spec.integer_columns:
        values = frame[col].to_numpy()
        lo, hi = _GRADE_RANGE
        bad = (values < lo) | (values > hi)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problems.append((i, f"{col} {int(values[i])} is outside {lo}..{hi}"))
    import pyarrow.compute as pc

    topic_code = pc.dictionary_encode(arrow_strings(frame["topic"])).indices
    docs = pc.dictionary_encode(arrow_strings(frame["docid"]))
    key = topic_code.to_numpy(zero_copy_only=False).astype(np.int64) * (len(docs.dictionary) + 1) \
        + docs.indices.to_numpy(zero_copy_only=False)
    dup = pd.Series(key).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        row = frame.iloc[i]
        problems.append((i, f"document {row['docid']!r} appears twice for topic {row['topic']!r}"))
    if "tag" in frame and frame["tag"].nunique() > 1:
        tags = frame["tag"].to_numpy()
        i = int(np.flatnonzero(tags != tags[0])[0])
        problems.append(
            (i, f"a second run tag {tags[i]!r} (the file began with {tags[0]!r}); "
                "a run file must hold one run")
        )
    return min(problems) if problems else None


def _check_readable(path: Path, kind: str) -> None:
    """Raise a located error unless ``path`` is a regular file this process can open."""
    if not path.exists():
        if path.is_symlink():
            raise InputFormatError(path, f"broken symbolic link (to {os.readlink(path)})")
        raise InputFormatError(path, f"no such {kind} file")
    if path.is_dir():
        raise InputFormatError(path, f"is a directory, not a {kind} file")
    if not path.is_file():
        raise InputFormatError(path, f"not a regular file; give a {kind} file")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise InputFormatError(path, f"cannot read: {exc.strerror or exc}") from None


def _gzip_error(path: Path) -> InputFormatError | None:
    """Why a .gz file cannot be decompressed, naming the line reached; None if it can."""
    import gzip
    import zlib

    lines = 0
    try:
        with gzip.open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read1(1 << 16), b""):  # read1: keep what came
                lines += chunk.count(b"\n")
    except EOFError:
        return InputFormatError(
            path, "truncated gzip file: the compressed data ends inside this line", lines + 1
        )
    except (gzip.BadGzipFile, zlib.error) as exc:
        if lines == 0:
            return InputFormatError(
                path, f"not a gzip file ({exc}); a plain text file must not end in .gz"
            )
        return InputFormatError(path, f"corrupt gzip data ({exc}) in this line", lines + 1)
    return None


def _parse_table(path: Path, spec: _Spec) -> pd.DataFrame:
    """The file as a frame (line numbers as index when read carefully), located errors."""
    frame = _fast_read(path, spec)
    if frame is None or _first_problem(frame, spec) is not None:
        # Slow path: exact line numbers (blank lines and irregular spacing included).
        return _careful_read(path, spec)
    return frame


def _read_table(path: PathLike, spec: _Spec) -> pd.DataFrame:
    path = Path(path)
    _check_readable(path, spec.kind)
    if path.stat().st_size == 0:
        raise InputFormatError(path, f"empty file: no {spec.kind} lines")
    try:
        frame = _parse_table(path, spec)
    except (OSError, EOFError) as exc:  # a broken .gz (pyarrow: OSError, pandas: EOFError)
        error = _gzip_error(path) if path.name.endswith(".gz") else None
        if error is None:
            raise InputFormatError(path, f"cannot read: {exc}") from None
        raise error from None
    if frame.index.name == "line":
        problem = _first_problem(frame, spec)
        if problem is not None:
            i, message = problem
            raise InputFormatError(path, message, int(frame.index[i]))
        frame = frame.reset_index(drop=True)
    return frame


def read_qrels(path) -> Qrels:
    """Read a TREC qrels file (``topic iteration docid grade``; plain or .gz).

    ``path`` may also be any source of the module docstring's *Other sources*
    (a DataFrame, Parquet/Arrow file, ``{topic: {docid: grade}}``, ir_datasets
    ``qrels_iter()`` records, ``"irds:<id>"``); a :class:`Qrels` is returned as is.

    Raises
    ------
    InputFormatError
        Naming the file and line: wrong number of fields, a non-integer grade,
        the same document judged twice for a topic, an empty file.

    Examples
    --------
    >>> import irstab, pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = p.write_text("1 0 d1 2\\n1 0 d2 0\\n")
    >>> irstab.read_qrels(p).max_grade
    2
    >>> irstab.read_qrels({"1": {"d1": 2, "d2": 0}}).max_grade
    2
    """
    if isinstance(path, Qrels):
        return path
    from . import tables

    if tables.is_table_source(path):
        where = tables.source_name(path, "qrels")
        return Qrels(path=where, frame=tables.qrels_frame(path, where))
    frame = _read_table(path, _QRELS)
    return Qrels(path=str(path), frame=frame[["topic", "docid", "grade"]])


def _run_name(path: Path) -> str:
    name = path.name
    return name[:-3] if name.endswith(".gz") else name


def read_run(path, name: str | None = None) -> Run:
    """Read one TREC run file (``topic Q0 docid rank score tag``; plain or .gz).

    The run's name is ``name`` if given, else its tag, else the file name
    (without ``.gz``).

    ``path`` may also be any source of the module docstring's *Other sources*
    (a DataFrame, Parquet/Arrow file, ``{topic: {docid: score}}``, ir_datasets
    ``scoreddocs_iter()`` records, ``"irds:<id>"``) holding one run; its name
    is then ``name``, else the value of its run column, else the file name
    without suffix, else ``"run"``. A :class:`Run` is returned as is.

    Raises
    ------
    InputFormatError
        Naming the file and line: wrong number of fields, a non-numeric, NaN
        or infinite score, the same document twice for one topic, several tags
        in one file, an empty file.
    """
    if isinstance(path, Run):
        return path
    from . import tables

    if tables.is_table_source(path):
        runs = _table_runs(path, name)
        if len(runs) > 1:
            raise InputFormatError(
                runs[0].path, f"holds {len(runs)} runs ({[r.name for r in runs][:5]}...); "
                "read it with read_runs"
            )
        return runs[0]
    path = Path(path)
    frame = _read_table(path, _RUN)
    tag = str(frame["tag"].iloc[0]) if "tag" in frame else None
    columns = ["topic", "docid", "rank", "score"]
    return Run(name=name or tag or _run_name(path), path=str(path), tag=tag, frame=frame[columns])


def _table_runs(source, name: str | None = None) -> list[Run]:
    """Runs of one non-TREC source (split by its run column, if it has one)."""
    from . import tables

    where = tables.source_name(source, "run")
    parts = tables.run_frames(source, where)
    if isinstance(source, (str, os.PathLike)) and not tables.is_irds(source):
        fallback = Path(source).name.split(".")[0]
    else:
        fallback = "run"
    if name is not None and len(parts) > 1:
        raise InputFormatError(where, f"holds {len(parts)} runs; a single name {name!r} "
                               "cannot name them all")
    return [Run(name=name or tag or fallback, path=where, tag=tag, frame=frame)
            for tag, frame in parts]


def _is_record(x) -> bool:
    """One record of a run (named tuple, dataclass, flat dict), not a run of its own."""
    if isinstance(x, (Run, Qrels)):
        return False
    if hasattr(x, "_fields") or hasattr(x, "__dataclass_fields__"):
        return True
    return isinstance(x, Mapping) and not any(isinstance(v, Mapping) for v in x.values())


def in_memory_runs(sources) -> list[Run] | None:
    """Runs of in-memory or columnar sources, or None when ``sources`` are TREC paths.

    Accepts a Run, a DataFrame/Table/dict/record iterable/columnar file (one
    source, split by its run column), ``{name: source}``, or a list mixing
    such sources with Run objects. Unnamed in-memory runs are called ``run``
    (``run1``, ``run2``, ... when there are several).
    """
    from . import tables

    if isinstance(sources, Run):
        return [sources]
    if isinstance(sources, (str, os.PathLike)):
        return _table_runs(sources) if tables.is_table_source(sources) else None
    if isinstance(sources, Mapping):
        if tables.is_named_runs(sources):
            return [read_run(src, name=str(n)) for n, src in sources.items()]
        return _table_runs(sources)
    if isinstance(sources, pd.DataFrame) or hasattr(sources, "to_pandas"):
        return _table_runs(sources)
    if not isinstance(sources, Iterable) or isinstance(sources, bytes):
        raise InputFormatError("<runs>", f"cannot read runs from a {type(sources).__name__}")
    items = list(sources)
    if items and _is_record(items[0]):
        return _table_runs(items)
    if all(isinstance(x, (str, os.PathLike)) and not tables.is_table_source(x) for x in items):
        return None
    runs: list[Run] = []
    for x in items:
        if isinstance(x, (str, os.PathLike)) and not tables.is_table_source(x):
            runs.extend(read_runs(x))
        else:
            runs.extend([x] if isinstance(x, Run) else _table_runs(x))
    unnamed = [r for r in runs if r.path.startswith("<") and r.name == "run"]
    if len(unnamed) > 1:
        k = iter(range(1, len(unnamed) + 1))
        runs = [Run(name=f"run{next(k)}", path=r.path, tag=r.tag, frame=r.frame)
                if r in unnamed else r for r in runs]
    return runs


def _expand(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            try:
                entries = sorted(q for q in p.iterdir() if not q.name.startswith("."))
            except OSError as exc:
                raise InputFormatError(p, f"cannot list: {exc.strerror or exc}") from None
            broken = [q for q in entries if q.is_symlink() and not q.exists()]
            if broken:  # a run that silently went missing would change every comparison
                q = broken[0]
                raise InputFormatError(
                    q, f"broken symbolic link (to {os.readlink(q)}) in the run directory"
                )
            inside = [q for q in entries if q.is_file()]
            if not inside:
                raise InputFormatError(p, "directory holds no run files")
            files.extend(inside)
        else:
            files.append(p)
    return files


def read_runs(paths: PathLike | Iterable[PathLike]) -> list[Run]:
    """Read runs from files and/or directories (every non-hidden file inside).

    Each run is named by its tag. Where the tag is missing, or several files
    share a tag (real submissions do), those runs are named by their file
    names instead, with an :class:`~irstab.errors.IRStabWarning`; runs are
    never merged.

    Files are parsed in parallel threads (pyarrow releases the GIL).

    ``paths`` may also hold the in-memory and columnar sources of the module
    docstring (see :func:`in_memory_runs`): a DataFrame with a ``run`` column
    gives one run per value, ``{name: source}`` one run per key.
    """
    from concurrent.futures import ThreadPoolExecutor

    tabled = in_memory_runs(paths)
    if tabled is not None:
        return _check_run_names(tabled)
    files = _expand(paths)
    if not files:
        raise InputFormatError("<runs>", "no run files given")
    from . import tables

    def read(f: Path) -> list[Run]:  # a Parquet/Arrow file may hold several runs
        return _table_runs(f) if tables.is_table_source(f) else [read_run(f)]

    with ThreadPoolExecutor(max_workers=min(8, len(files))) as pool:
        runs = [r for rs in pool.map(read, files) for r in rs]
    tags = Counter(r.tag for r in runs if r.tag is not None and not tables.is_table_source(r.path))
    shared = {t for t, c in tags.items() if c > 1}
    if shared:
        warnings.warn(
            f"run tag(s) {sorted(shared)} appear in several files; those runs are "
            "named by their file names",
            IRStabWarning,
            stacklevel=2,
        )
        runs = [
            Run(name=_run_name(Path(r.path)), path=r.path, tag=r.tag, frame=r.frame)
            if r.tag in shared and not tables.is_table_source(r.path)
            else r
            for r in runs
        ]
    return _check_run_names(runs)


def _check_run_names(runs: list[Run]) -> list[Run]:
    names = Counter(r.name for r in runs)
    clash = [n for n, c in names.items() if c > 1]
    if clash:
        first = next(r for r in runs if r.name == clash[0])
        raise InputFormatError(
            first.path, f"two runs are both named {clash[0]!r}; rename one of the files"
        )
    return runs


# ---------------------------------------------------------------- writing


def _write_lines(path: PathLike, columns: Sequence) -> None:
    """Write columns joined by single spaces, one line per row, atomically (gzip for .gz).

    Formatting and writing happen in pyarrow (C++): floats as the shortest
    text that reads back to the same double, no quoting. 2e7 lines take
    seconds, not minutes as with pandas ``to_csv``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    cols = [c if isinstance(c, (str, pa.Scalar)) else pc.cast(c, pa.string()) for c in columns]
    line = pc.binary_join_element_wise(*cols, " ")
    if line.null_count:
        raise IRStabError(f"{path}: a value to write is missing")
    if pc.any(pc.match_substring_regex(line, r"[\n\r]")).as_py():
        raise IRStabError(f"{path}: an id to write contains a line break")
    table = pa.table({"line": line})
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    path = Path(path)
    with atomic_writer(path, "wb") as fh:
        if path.name.endswith(".gz"):
            import gzip

            # mtime=0, no file name: the same content always gives the same bytes
            with gzip.GzipFile(filename="", fileobj=fh, mode="wb", compresslevel=6, mtime=0) as gz:
                pacsv.write_csv(table, gz, options)
        else:
            pacsv.write_csv(table, fh, options)


def arrow_strings(values) -> "pa.Array":
    """Ids (a pandas column, numpy or list, any dtype) as one pyarrow string array.

    Zero-copy for pandas' pyarrow-backed string columns.
    """
    import pyarrow as pa

    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(
        values if isinstance(values, (pd.Series, pd.Index, np.ndarray)) else list(values))
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.type != pa.string():
        arr = arr.cast(pa.string())
    return arr


def write_qrels(path: PathLike, topics: Sequence, docids: Sequence, grades: Sequence) -> None:
    """Write a TREC qrels file (gzip when the name ends in .gz), atomically."""
    import pyarrow as pa

    grades = pa.array(np.asarray(grades, dtype=np.int64))
    _write_lines(path, [arrow_strings(topics), "0", arrow_strings(docids), grades])


def write_run(
    path: PathLike, tag: str, topics: Sequence, docids: Sequence, scores: Sequence
) -> None:
    """Write a TREC run (ranks numbered by score within each topic), atomically.

    Rows must already be grouped by topic and sorted by decreasing score.
    Scores are written as the shortest decimal that reads back to the same
    double (``1`` for 1.0, ``0.1`` for 0.1).
    """
    import pyarrow as pa

    topics = arrow_strings(topics)
    import pyarrow.compute as pc

    codes = pc.dictionary_encode(topics).indices.to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else codes
    if len(np.unique(codes[starts])) != len(starts):
        raise IRStabError(f"{path}: rows must be grouped by topic")
    rank = np.arange(len(codes)) - np.repeat(starts, np.diff(np.r_[starts, len(codes)])) + 1
    scores = pa.array(np.asarray(scores, dtype=np.float64))
    _write_lines(path, [topics, "Q0", arrow_strings(docids), pa.array(rank), scores, str(tag)])
