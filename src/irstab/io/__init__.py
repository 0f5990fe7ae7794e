"""Inputs and outputs: the floor that knows nothing above it.

Reading
    :mod:`.textfiles`    compressed or not by the first bytes, streamed with bounded lines,
                         located lines and bytes
    :mod:`.keys`         hashed (topic, docid) keys: repeats across streamed batches
    :mod:`.trec`         TREC qrels and runs, streamed in checked batches, line-numbered errors
    :mod:`.tables`       DataFrames, Arrow/Parquet, dicts, ir_datasets records and ids
    :mod:`.sources`      one entry point per kind: :func:`read_qrels`, :func:`read_run`,
                         :func:`read_runs`, returning :class:`Qrels` and :class:`Run`
    :mod:`.scorematrix`  systems x topics (x assessors) score matrices from CSV/TSV
    :mod:`.orientation`  which axis of a score matrix holds the systems
    :mod:`.scan`         a run file's deepest topic, from one pass (planning partitions)
Writing
    :mod:`.trecwrite`    :func:`write_qrels`, :func:`write_run`
    :mod:`.layouts`      evaluation tables in trec_eval's text layout and LaTeX
    :mod:`.atomicfile`   every output file whole or not at all

May import: :mod:`irstab.errors` and the libraries. Nothing of irstab above it.
"""

from .atomicfile import atomic_write_files, atomic_write_text, atomic_writer
from .sources import (
    Qrels,
    Run,
    expand_paths,
    in_memory_runs,
    read_qrels,
    read_run,
    read_runs,
    run_file_name,
    table_runs,
)
from .trec import PathLike, arrow_strings
from .trecwrite import write_qrels, write_run

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
