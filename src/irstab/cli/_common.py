"""Shared CLI plumbing: output formats, atomic output files, warnings on stderr."""

from __future__ import annotations

import contextlib
import json
import sys
import warnings
from enum import Enum
from pathlib import Path

import numpy as np
import pandas as pd
import typer

from ..io import atomic_write_text


class OutputFormat(str, Enum):
    table = "table"
    tsv = "tsv"
    csv = "csv"
    json = "json"


FORMAT_OPTION = typer.Option(
    OutputFormat.table, "--format", "-f", help="Output format: table, tsv, csv or json."
)
OUTPUT_OPTION = typer.Option(
    None, "--output", "-o", help="Write to this file (atomically) instead of stdout."
)


def _check_seed_option(value: int) -> int:
    from .._numeric import check_seed

    check_seed(value, "--seed")  # before any input is read
    return value


def seed_option(help: str):
    """The ``--seed`` option (default 0) of every command, validated as the library does."""
    return typer.Option(0, "--seed", help=help, callback=_check_seed_option)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def to_json(obj) -> str:
    """JSON with numpy scalars/arrays converted; NaN is written as null."""
    def clean(o):
        if isinstance(o, float) and o != o:
            return None
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return o

    return json.dumps(clean(obj), default=_json_default, indent=2, allow_nan=False) + "\n"


def render_frame(frame: pd.DataFrame, fmt: OutputFormat, float_format: str = "%.6f") -> str:
    """Render a data frame as an aligned table, TSV, CSV or JSON records."""
    if fmt is OutputFormat.json:
        return to_json(frame.to_dict(orient="records"))
    if fmt is OutputFormat.tsv:
        return frame.to_csv(sep="\t", index=False, lineterminator="\n")
    if fmt is OutputFormat.csv:
        return frame.to_csv(index=False, lineterminator="\n")
    return frame.to_string(index=False, float_format=lambda x: float_format % x) + "\n"


def emit(text: str, output: Path | None) -> None:
    """Print ``text`` or write it to ``output`` through a temporary file."""
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            atomic_write_text(output, text)
        except OSError as exc:
            from ..errors import IRStabError

            raise IRStabError(f"cannot write {output}: {exc.strerror or exc}") from None
        typer.echo(f"wrote {output}", err=True)


def show_warnings_on_stderr() -> None:
    """Print library warnings as one plain line each on stderr."""

    def _show(message, category, filename, lineno, file=None, line=None):
        typer.echo(f"irstab: warning: {message}", err=True)

    warnings.showwarning = _show


class NoProgress(contextlib.nullcontext):
    """Stand-in for rich's Progress when stderr is not a terminal (prints nothing)."""

    def __enter__(self):
        return self

    def add_task(self, *args, **kwargs):
        return 0

    def update(self, *args, **kwargs):
        pass

    def advance(self, *args, **kwargs):
        pass

    def remove_task(self, *args, **kwargs):
        pass


def progress_bar():
    """A transient rich progress display on stderr, or a no-op when it is not a terminal."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        return NoProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


# ---------------------------------------------------------------- measure input

QRELS_ARG = typer.Argument(
    None, metavar="QRELS", help="TREC qrels file (topic iter docid grade), plain or .gz."
)
RUNS_ARG = typer.Argument(
    None, metavar="RUNS",
    help="TREC run files and/or directories of run files; - reads one run from stdin.",
)
SCORES_OPTION = typer.Option(
    [],
    "--scores",
    "-s",
    help="Score matrix file instead of qrels+runs, repeatable: CSV/TSV wide (system,t1,t2,...) "
    "or long (system,topic,score), one measure named after the file; or the output of "
    "irstab evaluate -q -f csv (run,measure,topic,value), one matrix per measure.",
)


MEASURE_HELP = (
    "Measures, repeatable or comma-separated: canonical in any case (nDCG@10, "
    "'nDCG(gain=exp,discount=zipf)@20', AP, 'P(rel=2)@10'), trec_eval names (ndcg_cut.10, map, "
    "P_10, recip_rank, Rprec, recall.100, official), a named measure 'mine=nDCG(...)@20' "
    "or @opt.json (a result of irstab optimize --save; shown by name, defined in JSON). "
    "Default: nDCG@10,AP,RR,P@10,R-prec,bpref. `irstab measures` lists them."
)
REL_OPTION = typer.Option(
    None, "--rel", "-l", min=1,
    help="Relevance level of binary measures (AP, P, RR, R-prec, bpref, Recall, ...) that do not "
    "set rel themselves: grade >= LEVEL is relevant (trec_eval -l). Default 1.",
)


_STDIN_DIRS: list = []  # the temporary directory of this invocation's stdin run


def stdin_run() -> Path:
    """Standard input saved as a run file, for ``-`` among the runs (once per invocation).

    The file is named ``stdin`` (``stdin.gz`` for gzip data), so a run
    without a tag column is named ``stdin`` and errors name ``.../stdin``;
    :func:`remove_stdin_runs` deletes it when the command ends.
    """
    import tempfile

    from ..errors import IRStabError

    if _STDIN_DIRS:
        raise IRStabError("- (standard input) can stand for one run only")
    data = sys.stdin.buffer.read()
    if not data.strip():
        raise IRStabError("-: standard input is empty, expected a TREC run")
    tmp = tempfile.TemporaryDirectory(prefix="irstab-")
    _STDIN_DIRS.append(tmp)
    path = Path(tmp.name) / ("stdin.gz" if data[:2] == b"\x1f\x8b" else "stdin")
    path.write_bytes(data)
    return path


def remove_stdin_runs() -> None:
    """Delete the file :func:`stdin_run` wrote, if any."""
    while _STDIN_DIRS:
        _STDIN_DIRS.pop().cleanup()


def cli_measures(measures: list[str], rel: int | None, scores: list[Path] = ()) -> list:
    """The measures of ``-m``/``-l`` (the default set without ``-m``); none with ``--scores``."""
    from ..errors import IRStabError
    from ..metrics import resolve_measures

    if scores:
        if measures or rel is not None:
            raise IRStabError(
                "give either --scores FILE... or QRELS RUNS... -m MEASURE..., not both"
            )
        return []
    return resolve_measures(measures or None, rel)


SCHEDULER_OPTION = typer.Option(
    None, "--scheduler", envvar="IRSTAB_SCHEDULER",
    help="Dask scheduler address (tcp://host:8786): read and reduce the run files on its "
    "workers, which must read them under the same paths (see README, 'Large collections and "
    "clusters'). Default: $IRSTAB_SCHEDULER, else this machine.",
)


def scores_name(path: Path) -> str:
    """The measure name a score file stands for: its name without .csv/.tsv/.gz ...."""
    name = path.name
    for suffix in (".gz", ".csv", ".tsv", ".tab", ".txt"):
        name = name.removesuffix(suffix)
    return name


def score_matrices_from_args(
    qrels: Path | None,
    runs: list[Path] | None,
    measures: list[str],
    scores: list[Path],
    depth: int,
    progress,
    scheduler: str | None = None,
) -> list[tuple[str, pd.DataFrame]]:
    """``(measure name, systems x topics frame)`` from score files or from qrels + runs."""
    from ..errors import IRStabError

    if scores:
        if qrels is not None or runs or measures:
            stray = [p for p in [qrels, *(runs or [])] if p is not None]
            hint = ""
            if stray and all(scores_name(p) != p.name for p in stray):
                hint = (" (each score file needs its own --scores: "
                        + " ".join(f"--scores {p}" for p in [*scores, *stray]) + ")")
            raise IRStabError(
                "give either --scores FILE... or QRELS RUNS... -m MEASURE..., not both" + hint
            )
        from ..io.scorematrix import read_score_matrices

        out = []
        for p in scores:  # a file with a measure column (evaluate -q -f csv) holds several
            out += [(m or scores_name(p), f) for m, f in read_score_matrices(p).items()]
        names = [n for n, _ in out]
        if len(set(names)) != len(names):
            raise IRStabError(f"--scores: files must give distinct measure names, got {names}")
        return out
    if qrels is None or not runs:
        raise IRStabError("give QRELS and at least one RUN (or --scores FILE)")
    if not measures:
        raise IRStabError("give at least one measure with -m (e.g. -m nDCG@10)")  # pragma: no cover
    from ..collection.cluster import scheduler_client
    from ..metrics import parse_measure
    from ..evaluation import score_runs

    parsed = [parse_measure(m) for m in measures]  # fail fast on a bad measure
    task = progress.add_task("scoring runs", total=None)
    with scheduler_client(scheduler) as client:
        scored = score_runs(qrels, runs, parsed, depth=depth, client=client,
                            progress=lambda n: progress.advance(task, n))
    progress.remove_task(task)
    return list(scored.matrices().items())


def collection_scores(qrels: Path, runs: list[Path], measures: list, depth: int, progress,
                      scheduler: str | None = None):
    """``(Collection, [(measure name, systems x topics frame)])`` from qrels + runs.

    For analyses that need the ranked lists themselves (``compare --informativeness``),
    not only the scores: the whole Collection is built in memory.
    """
    from ..collection.cluster import scheduler_client
    from ..collection import Collection
    from ..evaluation import score_matrix
    from ..metrics import parse_measure

    parsed = [parse_measure(m) for m in measures]  # fail fast on a bad measure
    task = progress.add_task("reading qrels and runs", total=None)
    with scheduler_client(scheduler) as client:
        coll = Collection.from_files(qrels, runs, depth=depth, client=client)
    progress.update(task, description="computing measures", total=len(parsed), completed=0)
    out = []
    for m in parsed:
        out.append((str(m), score_matrix(coll, m)))
        progress.advance(task)
    progress.remove_task(task)
    return coll, out
