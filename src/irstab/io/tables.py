"""Qrels and runs from tables, dicts and records: one input layer for every source.

Every source becomes the same narrow frame that the TREC reader produces
(qrels: ``topic, docid, grade``; a run: ``topic, docid, rank, score``), checked
the same way (finite scores, integer grades in -128..127, no document twice for
a topic, one run per table, no topic named ``all``: trec_eval's name for the means).
:func:`irstab.io.read_qrels`,
:func:`irstab.io.read_run` and :func:`irstab.io.read_runs` dispatch here for
anything that is not a TREC text file, so the rest of irstab never sees the
difference.

Sources
-------
* pandas DataFrame or pyarrow Table;
* Parquet (``.parquet``, ``.pq``) and Arrow IPC / Feather (``.arrow``,
  ``.feather``, ``.ipc``) files;
* dicts as pytrec_eval and ranx take them: qrels ``{topic: {docid: grade}}``,
  a run ``{topic: {docid: score}}``;
* ranx ``Qrels`` and ``Run`` objects (read through their ``to_dict()``; a Run keeps
  its ``name``);
* iterables of records (named tuples, dataclasses or dicts) in the shapes of
  ir_datasets: ``qrels_iter()`` yields ``(query_id, doc_id, relevance,
  iteration)``, ``scoreddocs_iter()`` yields ``(query_id, doc_id, score)``;
* ``"irds:<dataset id>"`` (ir_datasets, an optional extra: ``pip install
  'irstab[irds]'``): its qrels or its scored documents as a run.

Column convention
-----------------
One name per role is looked up among the aliases of ir_measures, PyTerrier
and TREC (exactly one may be present; case-sensitive):

=========  =====================================  ================================
role       accepted column names                  values
=========  =====================================  ================================
topic      ``query_id``, ``qid``, ``q_id``,          any; turned into strings
           ``topic``
docid      ``doc_id``, ``docno``, ``docid``        any; turned into strings
score      ``score``                               finite numbers (runs)
rank       ``rank`` (optional)                     finite numbers (runs; ``order="rank"``)
grade      ``relevance``, ``label``, ``grade``     integers in -128..127 (qrels)
run name   ``run``, ``system``, ``tag``, ``name``  one run per value (runs)
           (optional; PyTerrier's ``name``)
=========  =====================================  ================================

Other columns (``iteration``, ``Q0``, ``query``, ...) are ignored. A run
without a rank column is ranked by score (the default ``order="score"``
never reads ranks); ``order="rank"`` then uses row order.

Errors are :class:`~irstab.errors.InputFormatError` naming the source (file
name or ``<run DataFrame>``), the row (0-based, as pandas counts positions)
and the column, e.g. ``run.parquet: row 7, column 'score': nan is not a
finite number``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputFormatError, IRStabError
from .trec import RESERVED_TOPIC, reserved_topic

if TYPE_CHECKING:  # pandas is imported by the functions that make frames: a TREC file
    import pandas as pd  # path reaches none of them

__all__ = [
    "TOPIC_COLUMNS", "DOCID_COLUMNS", "SCORE_COLUMNS", "GRADE_COLUMNS", "RANK_COLUMNS",
    "RUN_COLUMNS", "COLUMNAR_SUFFIXES", "is_table_source", "qrels_frame", "run_frames",
    "is_ranx", "ranx_name",
]

TOPIC_COLUMNS = ("query_id", "qid", "q_id", "topic")  # q_id: ranx
DOCID_COLUMNS = ("doc_id", "docno", "docid")
SCORE_COLUMNS = ("score",)
RANK_COLUMNS = ("rank",)
GRADE_COLUMNS = ("relevance", "label", "grade")
RUN_COLUMNS = ("run", "system", "tag", "name")  # name: PyTerrier's experiment frames
COLUMNAR_SUFFIXES = (".parquet", ".pq", ".arrow", ".feather", ".ipc")
IRDS_PREFIX = "irds:"


def is_irds(source) -> bool:
    return isinstance(source, (str, os.PathLike)) and str(source).startswith(IRDS_PREFIX) \
        and not Path(source).exists()


def is_columnar_file(source) -> bool:
    return isinstance(source, (str, os.PathLike)) and str(source).lower().endswith(COLUMNAR_SUFFIXES)


def is_ranx(source) -> bool:
    """A ranx ``Qrels`` or ``Run`` (by its module: ranx need not be installed)."""
    return (type(source).__module__ or "").split(".")[0] == "ranx" and hasattr(source, "to_dict")


def ranx_name(source) -> str | None:
    """The name of a ranx Run, if it has one."""
    name = getattr(source, "name", None) if is_ranx(source) else None
    return str(name) if name else None


def is_table_source(source) -> bool:
    """True for anything this module reads (everything but a TREC text file path)."""
    if isinstance(source, (str, os.PathLike)):
        return is_irds(source) or is_columnar_file(source)
    return True


# ---------------------------------------------------------------- sources to frames


#: Rows of a Parquet file read at once: the file is streamed in batches of this many rows,
#: each checked for repeated (topic, docid) pairs before the next is read.
PARQUET_BATCH_ROWS = 1 << 16


def arrow_file(path: Path):
    """``path`` opened as a binary file for Arrow: every name Python can open, those holding
    bytes that are not UTF-8 included (Arrow's own path handling encodes names as UTF-8)."""
    return open(path, "rb")


def _read_columnar(path: Path, kind: str) -> pd.DataFrame:
    if not path.is_file():
        raise InputFormatError(path, "no such file")
    try:
        if path.name.lower().endswith((".parquet", ".pq")):
            return _read_parquet(path, kind)
        import pyarrow.feather as feather

        with arrow_file(path) as source:
            table = feather.read_table(source)
    except (OSError, IRStabError):
        raise
    except Exception as exc:  # pyarrow raises ArrowInvalid & co. on a corrupt file
        raise InputFormatError(path, f"not a readable Parquet/Arrow file ({exc})") from None
    return table.to_pandas()


def _read_parquet(path: Path, kind: str) -> pd.DataFrame:
    """A Parquet file streamed in batches of :data:`PARQUET_BATCH_ROWS` rows, never whole.

    Parquet compresses repeated rows to almost nothing (2e8 identical rows fit in
    2 MB), so its size says little about its rows. The rows the file declares are
    checked against the machine's memory (projected from the first batch) before
    more is read, and every batch's (run, topic, docid) keys go into one
    :class:`~irstab.io.keys.KeySet`, so a repeated pair stops the read at the batch
    that repeats it (the error names the row and columns, as the full check would).
    """
    import pyarrow.parquet as pq

    with arrow_file(path) as fh:
        return _parquet_batches(pq.ParquetFile(fh), path, kind)


def _parquet_batches(pf, path: Path, kind: str) -> pd.DataFrame:
    """The body of :func:`_read_parquet` on an open :class:`pyarrow.parquet.ParquetFile`."""
    import pyarrow as pa

    from .._numeric import check_allocation
    from .keys import KeySet, row_keys, string_hashes

    declared = pf.metadata.num_rows
    names = pf.schema_arrow.names
    # the key columns, when the names say unambiguously which they are (else the full check
    # after reading says what is wrong)
    groups = ((RUN_COLUMNS,) if kind == "run" else ()) + (TOPIC_COLUMNS, DOCID_COLUMNS)
    found = [[c for c in aliases if c in names] for aliases in groups]
    roles = [f[0] for f in found if len(f) == 1]
    keyed = all(len(f) <= 1 for f in found) and len(found[-1]) == len(found[-2]) == 1
    seen, batches = KeySet(), []
    for batch in pf.iter_batches(batch_size=PARQUET_BATCH_ROWS):
        if not batches and batch.num_rows:
            # Arrow, then pandas and the checks' temporaries: about 4 times the batch per row
            check_allocation(4 * declared * batch.nbytes / batch.num_rows,
                             f"{path}: {declared:,} rows ({kind})")
        cols = [batch.column(c) for c in roles] if keyed else []
        if cols and batch.num_rows and not any(c.null_count for c in cols):
            again = seen.add(row_keys(*map(string_hashes, cols)))
            if again.size:  # a repeat, unless 64-bit keys collide: the full check decides
                _duplicates_by_run(pa.Table.from_batches([*batches, batch]).to_pandas(), roles,
                                   str(path))
        batches.append(batch)
    return pa.Table.from_batches(batches, schema=pf.schema_arrow).to_pandas()


def _duplicates_by_run(frame: pd.DataFrame, roles: list[str], where: str) -> None:
    """Raise the located error of the first (run, topic, docid) row seen before."""
    dup = frame.duplicated(roles).to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        tcol, dcol = roles[-2], roles[-1]
        run = f" in run {frame[roles[0]].iloc[i]!r}" if len(roles) == 3 else ""
        raise InputFormatError(
            where, f"row {i}, columns {tcol!r}/{dcol!r}: document {frame[dcol].iloc[i]!r} "
            f"appears twice for topic {frame[tcol].iloc[i]!r}{run}")


def _irds(source, kind: str) -> pd.DataFrame:
    try:
        import ir_datasets
    except ImportError:
        raise IRStabError(
            f"{source}: 'irds:' inputs need the optional ir_datasets package "
            "(pip install 'irstab[irds]')"
        ) from None
    ident = str(source)[len(IRDS_PREFIX):]
    try:
        dataset = ir_datasets.load(ident)
    except KeyError:
        raise IRStabError(f"{source}: ir_datasets has no dataset {ident!r}") from None
    method = "qrels_iter" if kind == "qrels" else "scoreddocs_iter"
    has = getattr(dataset, f"has_{method.removesuffix('_iter')}", None)
    if has is not None and not has():
        raise IRStabError(f"{source}: the ir_datasets dataset {ident!r} has no {method}()")
    return _records_frame(getattr(dataset, method)(), str(source))


def _records_frame(records: Iterable, where: str) -> pd.DataFrame:
    import pandas as pd

    rows = list(records)
    if not rows:
        raise InputFormatError(where, "no records")
    first = rows[0]
    if hasattr(first, "_asdict"):  # named tuples (ir_datasets)
        return pd.DataFrame.from_records(rows, columns=list(first._fields))
    if isinstance(first, Mapping):
        return pd.DataFrame.from_records(rows)
    if hasattr(first, "__dataclass_fields__"):
        import dataclasses

        return pd.DataFrame([dataclasses.asdict(r) for r in rows])
    raise InputFormatError(
        where, f"record 0 is a {type(first).__name__}; expected named tuples, dataclasses "
        "or dicts with fields like query_id, doc_id, score/relevance"
    )


def _nested_frame(mapping: Mapping, value: str, where: str) -> pd.DataFrame:
    """``{topic: {docid: value}}`` as a long frame, in the dicts' order."""
    import pandas as pd

    topics, docids, values = [], [], []
    for t, docs in mapping.items():
        if not isinstance(docs, Mapping):
            raise InputFormatError(
                where, f"topic {t!r} maps to a {type(docs).__name__}; expected "
                f"{{topic: {{docid: {value}}}}}"
            )
        topics.extend([t] * len(docs))
        docids.extend(docs.keys())
        values.extend(docs.values())
    if not topics:
        raise InputFormatError(where, "no entries")
    return pd.DataFrame({"topic": topics, "docid": docids, value: values})


def _to_frame(source, kind: str, where: str) -> pd.DataFrame:
    """Any accepted source as a pandas DataFrame with the source's own column names."""
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        if isinstance(source.columns, pd.MultiIndex):
            raise IRStabError(
                f"{where}: the columns are a MultiIndex {list(source.columns[:3])}...; name "
                "them flat, e.g. frame.columns = ['_'.join(map(str, c)) for c in frame.columns] "
                "or frame.droplevel(0, axis=1)"
            )
        return source
    if is_irds(source):
        return _irds(source, kind)
    if is_ranx(source):
        return _nested_frame(source.to_dict(), "grade" if kind == "qrels" else "score", where)
    if is_columnar_file(source):
        return _read_columnar(Path(source), kind)
    if hasattr(source, "to_pandas") and hasattr(source, "column_names"):  # pyarrow Table
        return source.to_pandas()
    if isinstance(source, Mapping):
        return _nested_frame(source, "grade" if kind == "qrels" else "score", where)
    if isinstance(source, Iterable) and not isinstance(source, (str, bytes)):
        return _records_frame(source, where)
    raise IRStabError(
        f"cannot read {kind} from a {type(source).__name__}; give a path, a DataFrame, "
        "a pyarrow Table, a dict or an iterable of records"
    )


def source_name(source, kind: str) -> str:
    """How errors name a source: its path, or ``<run DataFrame>``."""
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return f"<{kind} {type(source).__name__}>"


# ---------------------------------------------------------------- validation


def _column(frame: pd.DataFrame, aliases: tuple[str, ...], role: str, where: str,
            required: bool = True) -> str | None:
    present = [c for c in aliases if c in frame.columns]
    if len(present) > 1:
        raise InputFormatError(
            where, f"columns {present} all name the {role}; keep one of them"
        )
    if not present:
        if required:
            raise InputFormatError(
                where, f"no {role} column: expected one of {list(aliases)}, "
                f"found {[str(c) for c in frame.columns]}"
            )
        return None
    return present[0]


def _ids(frame: pd.DataFrame, col: str, where: str) -> np.ndarray:
    import pandas as pd

    values = frame[col]
    missing = values.isna().to_numpy()
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise InputFormatError(where, f"row {i}, column {col!r}: missing value")
    if pd.api.types.is_float_dtype(values):
        v = values.to_numpy()
        bad = v != np.floor(v)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputFormatError(where, f"row {i}, column {col!r}: id {_show(v[i])} is not an integer")
        values = values.astype(np.int64)
    text = values.astype(str)
    empty = (text.str.len() == 0).to_numpy()
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise InputFormatError(where, f"row {i}, column {col!r}: empty id")
    return text.to_numpy()


def _topics(frame: pd.DataFrame, col: str, where: str) -> np.ndarray:
    """:func:`_ids` of the topic column, refusing the topic trec_eval's means are named."""
    topic = _ids(frame, col, where)
    reserved = np.flatnonzero(topic == RESERVED_TOPIC)
    if reserved.size:
        raise InputFormatError(where, f"row {int(reserved[0])}, column {col!r}: "
                               + reserved_topic(RESERVED_TOPIC))
    return topic


def _show(value) -> str:
    """A cell as the user wrote it: ``nan``, ``'x'``, ``0.5`` (never ``np.float64(...)``)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _numbers(frame: pd.DataFrame, col: str, where: str) -> np.ndarray:
    import pandas as pd

    raw = frame[col]
    values = pd.to_numeric(raw, errors="coerce")
    v = values.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(v)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFormatError(where, f"row {i}, column {col!r}: {_show(raw.iloc[i])} is not a finite number")
    return v


def _ranks(frame: pd.DataFrame, col: str, where: str) -> np.ndarray:
    """Ranks compared exactly: an integer column as int64, others as floats below 2**53."""
    import pandas as pd

    if pd.api.types.is_integer_dtype(frame[col]) and not frame[col].isna().any():
        return frame[col].to_numpy(dtype=np.int64)
    v = _numbers(frame, col, where)
    bad = np.abs(v) > 2.0**53  # beyond it float64 no longer tells neighbouring integers apart
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFormatError(
            where, f"row {i}, column {col!r}: rank {_show(frame[col].iloc[i])} cannot be "
            "compared exactly: give integer ranks, or ranks below 2**53 in magnitude"
        )
    return v


def _integers(frame: pd.DataFrame, col: str, where: str) -> np.ndarray:
    v = _numbers(frame, col, where)
    bad = (v != np.floor(v)) | (v < -128) | (v > 127)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        what = "is outside -128..127" if v[i] == np.floor(v[i]) else "is not an integer"
        raise InputFormatError(where, f"row {i}, column {col!r}: grade {_show(frame[col].iloc[i])} {what}")
    return v.astype(np.int64)


def _duplicate(topic: np.ndarray, docid: np.ndarray, where: str, cols: tuple[str, str]) -> None:
    import pandas as pd

    dup = pd.DataFrame({"t": topic, "d": docid}).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise InputFormatError(
            where, f"row {i}, columns {cols[0]!r}/{cols[1]!r}: document {docid[i]!r} appears "
            f"twice for topic {topic[i]!r}"
        )


def qrels_frame(source, where: str | None = None) -> pd.DataFrame:
    """Qrels from any source as columns ``topic, docid, grade`` (validated).

    Raises
    ------
    InputFormatError
        Naming the source, row and column: a missing or ambiguous column, a
        missing id, a grade that is not an integer in -128..127, a document
        judged twice for a topic, no rows.
    """
    import pandas as pd

    where = where or source_name(source, "qrels")
    frame = _to_frame(source, "qrels", where)
    if len(frame) == 0:
        raise InputFormatError(where, "no qrels rows")
    tcol = _column(frame, TOPIC_COLUMNS, "topic", where)
    dcol = _column(frame, DOCID_COLUMNS, "docid", where)
    gcol = _column(frame, GRADE_COLUMNS, "grade", where)
    topic, docid = _topics(frame, tcol, where), _ids(frame, dcol, where)
    grade = _integers(frame, gcol, where)
    _duplicate(topic, docid, where, (tcol, dcol))
    return pd.DataFrame({"topic": topic, "docid": docid, "grade": grade})


def run_frames(source, where: str | None = None) -> list[tuple[str | None, pd.DataFrame]]:
    """Runs from any source: ``[(run name or None, frame topic, docid, rank, score)]``.

    A source with a run-name column (``run``, ``system`` or ``tag``) gives one
    run per distinct value, in order of first appearance; otherwise one
    unnamed run. Without a rank column, ranks are 1, 2, ... by row order
    within each topic.
    """
    import pandas as pd

    where = where or source_name(source, "run")
    frame = _to_frame(source, "run", where)
    if len(frame) == 0:
        raise InputFormatError(where, "no run rows")
    tcol = _column(frame, TOPIC_COLUMNS, "topic", where)
    dcol = _column(frame, DOCID_COLUMNS, "docid", where)
    scol = _column(frame, SCORE_COLUMNS, "score", where)
    rcol = _column(frame, RANK_COLUMNS, "rank", where, required=False)
    ncol = _column(frame, RUN_COLUMNS, "run name", where, required=False)
    topic, docid = _topics(frame, tcol, where), _ids(frame, dcol, where)
    score = _numbers(frame, scol, where)
    if rcol is not None:
        rank = _ranks(frame, rcol, where)
    else:
        rank = (pd.Series(topic).groupby(topic, sort=False).cumcount() + 1).to_numpy(np.float64)
    whole = pd.DataFrame({"topic": topic, "docid": docid, "rank": rank, "score": score})
    if ncol is None:
        _duplicate(topic, docid, where, (tcol, dcol))
        return [(None, whole)]
    names = _ids(frame, ncol, where)
    out = []
    codes, uniques = pd.factorize(names)
    for k, name in enumerate(uniques):
        rows = np.flatnonzero(codes == k)
        part = whole.iloc[rows].reset_index(drop=True)
        dup = part.duplicated(["topic", "docid"]).to_numpy()
        if dup.any():
            i = int(rows[np.flatnonzero(dup)[0]])
            raise InputFormatError(
                where, f"row {i}, columns {tcol!r}/{dcol!r}: document {docid[i]!r} appears "
                f"twice for topic {topic[i]!r} in run {name!r}"
            )
        out.append((str(name), part))
    return out


def is_named_runs(source) -> bool:
    """``{name: run}`` rather than ``{topic: {docid: score}}``: values of values are dicts."""
    if not isinstance(source, Mapping) or not source:
        return False
    first = next(iter(source.values()))
    if isinstance(first, Mapping):
        inner = next(iter(first.values()), None)
        return isinstance(inner, Mapping)
    return not isinstance(first, (int, float, np.number))
