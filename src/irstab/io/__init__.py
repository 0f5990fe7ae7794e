"""Inputs and outputs: the floor that knows nothing above it.

Reading
    :mod:`.textfiles`    compressed or not by the first bytes, streamed with bounded lines,
                         located lines and bytes
    :mod:`.keys`         hashed (topic, docid) keys: repeats across streamed batches
    :mod:`.trec`         TREC qrels and runs, streamed in checked batches, line-numbered errors
    :mod:`.treclines`    what a refused TREC line looks like (the hint its error gets); the
                         files of a run directory that are plainly not runs
    :mod:`.tables`       DataFrames, Arrow/Parquet, dicts, ir_datasets records and ids
    :mod:`.sources`      one entry point per kind: :func:`read_qrels`, :func:`read_run`,
                         :func:`read_runs`, returning :class:`Qrels` and :class:`Run`
    :mod:`.scorematrix`  systems x topics (x assessors) score matrices from CSV/TSV
    :mod:`.scores`       ``{measure: systems x topics}`` as the analysis rooms take it
                         (compare, verdict, systems, trust): checked, aligned, selected
    :mod:`.orientation`  which axis of a score matrix holds the systems
    :mod:`.scan`         a run file's deepest topic, from one pass (planning partitions)
Writing
    :mod:`.trecwrite`    :func:`write_qrels`, :func:`write_run`
    :mod:`.layouts`      evaluation tables in trec_eval's text layout and LaTeX
    :mod:`.atomicfile`   every output file whole or not at all

May import: :mod:`irstab.errors` and the libraries. Nothing of irstab above it.
"""

# Each name is imported on first use (module __getattr__, PEP 562): `irstab.io.registry`,
# which every CLI command imports before it parses its options, then costs no numpy,
# pandas or pyarrow import (`irstab --version` stays at Python's own start-up cost).
# Name -> the module of irstab.io that defines it.
_NAMES = {
    "atomic_write_files": "atomicfile",
    "atomic_write_text": "atomicfile",
    "atomic_writer": "atomicfile",
    **{name: "sources" for name in (
        "Qrels", "Run", "expand_paths", "in_memory_runs", "read_qrels", "read_run",
        "read_runs", "run_file_name", "table_runs")},
    "PathLike": "trec",
    "arrow_strings": "trec",
    "RunColumns": "trec",
    "read_run_columns": "trec",
    "write_qrels": "trecwrite",
    "write_run": "trecwrite",
}


def __getattr__(name: str):
    import importlib

    if name in _NAMES:
        value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))


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
