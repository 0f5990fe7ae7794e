"""Qrels and runs from any source: TREC files, tables, dicts, records, ``irds:`` ids.

:func:`read_qrels`, :func:`read_run` and :func:`read_runs` read TREC text files
(:mod:`irstab.io.trec`, plain or ``.gz``) and also take pandas DataFrames,
pyarrow Tables, Parquet and Arrow IPC/Feather files, dicts
(``{topic: {docid: grade}}`` for qrels, ``{topic: {docid: score}}`` for a run,
as pytrec_eval and ranx take them), iterables of records shaped like
ir_datasets' ``qrels_iter()`` (``query_id, doc_id, relevance, iteration``) and
``scoreddocs_iter()`` (``query_id, doc_id, score``), and ``"irds:<dataset id>"``
when the optional ir_datasets package is installed. Columns are found by name:
topic ``query_id``/``qid``/``topic``, document ``doc_id``/``docno``/``docid``,
``score``, optional ``rank``, grade ``relevance``/``label``/``grade``, optional
run name ``run``/``system``/``tag`` (see :mod:`irstab.io.tables`, which converts
them; errors name the source, the 0-based row and the column).

>>> import pandas as pd, irstab
>>> qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [2, 0]})
>>> run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
>>> float(irstab.evaluate(qrels, run, ["P@1", "RR"])["value"].iloc[1])
0.5
"""

from __future__ import annotations

import os
import stat
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import FrozenInstanceError, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputFormatError, IRStabWarning
from . import tables
from .trec import QRELS, RUN, PathLike, arrow_strings, read_keyed_rows, read_keyed_table
from .treclines import not_runs

if TYPE_CHECKING:  # pandas is imported where a frame is made: a TREC qrels file is read
    import pandas as pd  # into arrow columns, and `irstab evaluate` needs no frame
    import pyarrow as pa

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "read_runs", "in_memory_runs",
           "table_runs", "expand_paths", "run_file_name"]


class Qrels:
    """Relevance judgments: one row per (topic, docid) with an integer grade.

    ``Qrels(path, frame, keys=None)``; immutable, compared by identity.

    ``frame``: the rows as a pandas DataFrame (columns ``topic, docid, grade``). Read from
    a TREC file by the streaming reader, the rows are held as pyarrow columns
    (``rows``, keyword only) and the frame is made when first asked for (``to_pandas()``
    of them: the frame :func:`~irstab.io.trec.read_table` gives); :meth:`columns` and the
    properties read the columns, so ``irstab evaluate`` never imports pandas.
    ``keys``: the rows' ``(topic, docid)`` keys (:func:`irstab.io.keys.pair_keys`), as
    the TREC reader hashed them for its duplicate check; None when not computed.
    """

    def __init__(self, path: str, frame: pd.DataFrame | None = None,
                 keys: np.ndarray | None = None, *, rows: pa.Table | None = None):
        if (frame is None) == (rows is None):
            raise TypeError("Qrels takes a frame or rows (a pyarrow Table), one of them")
        self.__dict__.update(path=path, keys=keys, _frame=frame, _rows=rows)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return f"Qrels(path={self.path!r})"

    @property
    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (``topic, docid, grade``), made once when first asked for."""
        if self._frame is None:
            self.__dict__["_frame"] = self._rows.to_pandas()
        return self._frame

    def columns(self) -> tuple[pa.Array, pa.Array, np.ndarray]:
        """The rows' topics and document ids (pyarrow string arrays, as
        :func:`~irstab.io.trec.arrow_strings` gives them) and grades (int64), without a
        frame where the rows are pyarrow columns."""
        if self._rows is None:
            q = self._frame
            return (arrow_strings(q["topic"]), arrow_strings(q["docid"]),
                    q["grade"].to_numpy(dtype=np.int64))
        rows = self._rows
        return (arrow_strings(rows.column("topic")), arrow_strings(rows.column("docid")),
                rows.column("grade").to_numpy().astype(np.int64, copy=False))

    @property
    def max_grade(self) -> int:
        if self._rows is None:
            return int(self._frame["grade"].max())
        return int(self.columns()[2].max())

    @property
    def topics(self) -> list[str]:
        if self._rows is None:
            return sorted(self._frame["topic"].unique().tolist())
        import pyarrow.compute as pc

        return sorted(pc.unique(self._rows.column("topic")).to_pylist())

    def __len__(self) -> int:
        return len(self._frame if self._rows is None else self._rows)


@dataclass(frozen=True, eq=False)
class Run:
    """One retrieval run: rows ``topic, docid, rank, score`` in file order.

    ``rank`` is int64 when every rank is an integer, else float64 (all below 2**53).
    ``keys``: the rows' ``(topic, docid)`` keys (:func:`irstab.io.keys.pair_keys`), as
    the TREC reader hashed them for its duplicate check (the qrels lookup reuses them);
    None when not computed.
    """

    name: str
    path: str
    tag: str | None
    frame: pd.DataFrame = field(repr=False)
    keys: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.frame)


def read_qrels(path) -> Qrels:
    """Read a TREC qrels file (``topic iteration docid grade``; plain or .gz).

    ``path`` may also be any source of the module docstring's *Other sources*
    (a DataFrame, Parquet/Arrow file, ``{topic: {docid: grade}}``, a ranx ``Qrels``,
    ir_datasets ``qrels_iter()`` records, ``"irds:<id>"``); a :class:`Qrels` is returned as is.

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
    if tables.is_table_source(path):
        where = tables.source_name(path, "qrels")
        return Qrels(path=where, frame=tables.qrels_frame(path, where))
    rows, keys = read_keyed_rows(path, QRELS)
    columns = ["topic", "docid", "grade"]
    if isinstance(rows, _frame_type()):  # the careful reader's frame
        return Qrels(path=str(path), frame=rows[columns], keys=keys)
    return Qrels(path=str(path), rows=rows.select(columns), keys=keys)


def _frame_type() -> type:
    """``pandas.DataFrame`` if pandas is imported (a frame exists only then), else a type
    nothing is an instance of."""
    pd = sys.modules.get("pandas")
    return pd.DataFrame if pd is not None else _NoFrame


class _NoFrame:
    """No object is an instance: the type :func:`_frame_type` gives before pandas is imported."""


def run_file_name(path: Path) -> str:
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
    if tables.is_table_source(path):
        runs = table_runs(path, name)
        if len(runs) > 1:
            raise InputFormatError(
                runs[0].path, f"holds {len(runs)} runs ({[r.name for r in runs][:5]}...); "
                "read it with read_runs"
            )
        return runs[0]
    path = Path(path)
    frame, keys = read_keyed_table(path, RUN)
    tag = str(frame["tag"].iloc[0]) if "tag" in frame else None
    columns = ["topic", "docid", "rank", "score"]
    return Run(name=name or tag or run_file_name(path), path=str(path), tag=tag,
               frame=frame[columns], keys=keys)


def table_runs(source, name: str | None = None) -> list[Run]:
    """Runs of one non-TREC source (split by its run column, if it has one)."""
    where = tables.source_name(source, "run")
    parts = tables.run_frames(source, where)
    if isinstance(source, (str, os.PathLike)) and not tables.is_irds(source):
        fallback = Path(source).name.split(".")[0]
    else:
        fallback = tables.ranx_name(source) or "run"
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
    if isinstance(sources, Run):
        return [sources]
    if tables.is_ranx(sources):
        return table_runs(sources)
    if isinstance(sources, (str, os.PathLike)):
        return table_runs(sources) if tables.is_table_source(sources) else None
    if isinstance(sources, Mapping):
        if tables.is_named_runs(sources):
            return [read_run(src, name=str(n)) for n, src in sources.items()]
        return table_runs(sources)
    if isinstance(sources, _frame_type()) or hasattr(sources, "to_pandas"):
        return table_runs(sources)
    if not isinstance(sources, Iterable) or isinstance(sources, bytes):
        raise InputFormatError("<runs>", f"cannot read runs from a {type(sources).__name__}")
    items = list(sources)
    if items and _is_record(items[0]):
        return table_runs(items)
    if all(isinstance(x, (str, os.PathLike)) and not tables.is_table_source(x) for x in items):
        return None
    runs: list[Run] = []
    for x in items:
        if isinstance(x, (str, os.PathLike)) and not tables.is_table_source(x):
            runs.extend(read_runs(x))
        else:
            runs.extend([x] if isinstance(x, Run) else table_runs(x))
    unnamed = [r for r in runs if r.path.startswith("<") and r.name == "run"]
    if len(unnamed) > 1:
        k = iter(range(1, len(unnamed) + 1))
        runs = [Run(name=f"run{next(k)}", path=r.path, tag=r.tag, frame=r.frame, keys=r.keys)
                if r in unnamed else r for r in runs]
    return runs


def expand_paths(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    """The run files of files and directories, in order (a directory's sorted by name).

    A file given is kept as given, whatever it holds (its reader judges it). Of a
    directory, the regular files are read as runs except those plainly not runs
    (:func:`~irstab.io.treclines.not_runs`: a README, ``*.md``, ``*.json``, a script, a
    file whose first line is no TREC line), which are left out with an
    :class:`~irstab.errors.IRStabWarning` naming each and why, and hidden files
    (``.name``), left out as ``ls`` leaves them out (named in the warning when they hold
    TREC lines). A file whose first line is a TREC line is always read, so a run with a bad
    line later is an error naming the file and the line. Subdirectories are not entered
    (a warning names them); a broken symbolic link, a FIFO, socket or device is an error.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            try:
                everything = sorted(p.iterdir())
            except OSError as exc:
                raise InputFormatError(p, f"cannot list: {exc.strerror or exc}") from None
            entries = [q for q in everything if not q.name.startswith(".")]
            broken = [q for q in entries if q.is_symlink() and not q.exists()]
            if broken:  # a run that silently went missing would change every comparison
                q = broken[0]
                raise InputFormatError(
                    q, f"broken symbolic link (to {os.readlink(q)}) in the run directory"
                )
            inside = [q for q in entries if q.is_file()]
            nested = [q for q in entries if q.is_dir()]
            special = [q for q in entries if not q.is_file() and not q.is_dir()]
            if special:  # a FIFO would block the reader; skipped, a run would go missing
                q = special[0]
                mode = q.stat().st_mode
                kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                        else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                        else "not a regular file")
                raise InputFormatError(q, f"is {kind}, not a run file, in the run directory: move "
                                       "it out, or give the runs as arguments")
            if nested:  # runs there would be left out of every comparison without a word
                shown = ", ".join(f"{q.name}/" for q in nested[:5])
                warnings.warn(
                    f"{p}: the run directory holds {len(nested)} subdirector"
                    f"{'y' if len(nested) == 1 else 'ies'} ({shown}{' ...' if len(nested) > 5 else ''})"
                    f" whose files are not read as runs; give them as arguments to evaluate them "
                    f"(e.g. {p / nested[0].name})",
                    IRStabWarning,
                    stacklevel=3,
                )
            skipped = not_runs([q for q in everything if q.is_file() and not
                                tables.is_columnar_file(q)])
            if skipped:  # a README would stop every command; say what is left out, and why
                _warn_not_runs(p, skipped)
                left_out = {q for q, _ in skipped}
                inside = [q for q in inside if q not in left_out]
            if not inside:
                raise InputFormatError(p, "directory holds no run files"
                                       + (" (only subdirectories)" if nested else "")
                                       + (" (only files that are not runs)" if skipped else ""))
            files.extend(inside)
        else:
            files.append(p)
    return files


def _warn_not_runs(directory: Path, skipped: list[tuple[Path, str]]) -> None:
    shown = "; ".join(f"{q.name} ({why})" for q, why in skipped[:5])
    more = f"; and {len(skipped) - 5} more" if len(skipped) > 5 else ""
    warnings.warn(
        f"{directory}: {len(skipped)} file{'' if len(skipped) == 1 else 's'} of the run "
        f"directory {'is' if len(skipped) == 1 else 'are'} not read as runs: "
        f"{shown}{more}; give a file as an argument to read it as a run",
        IRStabWarning,
        stacklevel=4,
    )


def read_runs(paths: PathLike | Iterable[PathLike]) -> list[Run]:
    """Read runs from files and/or directories (every run file inside: :func:`expand_paths`).

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
    files = expand_paths(paths)
    if not files:
        raise InputFormatError("<runs>", "no run files given")
    def read(f: Path) -> list[Run]:  # a Parquet/Arrow file may hold several runs
        return table_runs(f) if tables.is_table_source(f) else [read_run(f)]

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
            Run(name=run_file_name(Path(r.path)), path=r.path, tag=r.tag, frame=r.frame,
                keys=r.keys)
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
