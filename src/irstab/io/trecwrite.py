"""Writing TREC qrels and run files, atomically (gzip when the name ends in ``.gz``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .._numeric import runs_of
from ..errors import IRStabError
from .atomicfile import atomic_writer
from .trec import PathLike, arrow_strings

__all__ = ["write_qrels", "write_run"]


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
    starts, _, pos = runs_of(codes)
    if len(np.unique(codes[starts])) != len(starts):
        raise IRStabError(f"{path}: rows must be grouped by topic")
    rank = pos + 1
    scores = pa.array(np.asarray(scores, dtype=np.float64))
    _write_lines(path, [topics, "Q0", arrow_strings(docids), pa.array(rank), scores, str(tag)])
