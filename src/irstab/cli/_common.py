"""Shared CLI plumbing: output formats, atomic output files, warnings on stderr."""

from __future__ import annotations

import contextlib
import os
import json
import sys
import warnings
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..io import atomic_write_text

if TYPE_CHECKING:  # numpy and pandas are imported where they are used: `irstab --version`
    import pandas as pd  # and the parsing of every command's options need neither


class RankOrderChoice(str, Enum):
    """``--order``: how documents are ordered within a topic (:class:`irstab.collection.RankOrder`)."""

    score = "score"
    score32 = "score32"
    rank = "rank"
    file = "file"


def _order_value(value):
    return getattr(value, "value", value)


ORDER_OPTION = typer.Option(
    RankOrderChoice.score, "--order",
    help="Order of a run's documents within a topic: score (score descending, ties by docid "
    "descending: trec_eval 10, scores as doubles), score32 (the same in single precision: "
    "trec_eval 9, pytrec_eval), rank (the rank column), file (line order). A run whose "
    "documents share scores is ordered by docid there, with a warning naming it.",
)


class TTestCorrection(str, Enum):
    """``compare --ttest``: the multiple-comparison correction of the paired t-tests."""

    none = "none"
    bonferroni = "bonferroni"
    holm = "holm"
    bh = "bh"


class Coefficient(str, Enum):
    """``topics --coefficient``: the coefficient a D-study figure draws."""

    phi = "phi"
    erho2 = "erho2"
    both = "both"


class DesignChoice(str, Enum):
    """``report --design``: the design of the assessor facet."""

    nested = "nested"
    crossed = "crossed"


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


_STARTED: list[float] = []  # time.time() when main() began, for in-process calls
_IMPORTED = __import__("time").time()  # the fallback where /proc is not there


def wall_seconds() -> float:
    """Wall time since the command began: from process start when run as ``irstab``.

    The process start time comes from ``/proc/self/stat`` (Linux), so the figure
    includes the interpreter's start and every import; elsewhere, and for
    ``irstab.cli.main(argv)`` called inside a longer process, it counts from
    the call.
    """
    import os
    import time

    if _STARTED and _STARTED[0] > 0:
        return time.time() - _STARTED[0]
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        with open("/proc/self/stat", encoding="ascii") as fh:
            start = int(fh.read().rsplit(")", 1)[1].split()[19]) / ticks
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        return uptime - start
    except (OSError, ValueError, IndexError):
        return time.time() - _IMPORTED


def _check_seed_option(value: int) -> int:
    from .._numeric import check_seed

    check_seed(value, "--seed")  # before any input is read
    return value


def seed_option(help: str):
    """The ``--seed`` option (default 0) of every command, validated as the library does."""
    return typer.Option(0, "--seed", help=help, callback=_check_seed_option)


def _json_default(obj):
    import numpy as np

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


def defuse_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`irstab._repr.csv_cell` on every text cell and column name of ``frame`` (a copy)."""
    import pandas as pd

    from .._repr import csv_cell

    text = [c for c in frame.columns if frame[c].dtype == object or
            pd.api.types.is_string_dtype(frame[c].dtype)]
    out = frame.copy() if text else frame
    for c in text:
        out[c] = out[c].map(csv_cell)
    return out.rename(columns=lambda c: csv_cell(c) if isinstance(c, str) else c)


def table_text(frame: pd.DataFrame, **kwargs) -> str:
    """``frame.to_string(index=False, **kwargs)`` with every name escaped (:func:`_escaped`).

    The one way a table reaches the terminal: a run, topic or measure name holding a
    newline, an escape sequence or a bidirectional override is shown escaped.
    """
    return _escaped(frame).to_string(index=False, **kwargs)


def render_frame(frame: pd.DataFrame, fmt: OutputFormat, float_format: str = "%.6f") -> str:
    """Render a data frame as an aligned table, TSV, CSV or JSON records.

    TSV and CSV are opened in spreadsheets: their text cells are defused against
    formula injection (:func:`defuse_frame`). TSV has no quoting (IANA
    ``text/tab-separated-values``: a field holds no tab and no line break), so its
    text cells and column names are escaped as the table's are (``\\t``, ``\\n``,
    ``\\r``, ``\\x1b``, ``\\u2028``): one record per line, as many fields as the
    header, for a line-based reader too. CSV quotes a cell holding a separator or a
    line break, so that such a name reads back as written (other controls are escaped,
    and backslashes doubled, as in the table). In the table, control characters in names (a run
    name from a Parquet column) are escaped: they can neither break the alignment into
    forged lines nor reach the terminal raw. JSON escapes them.
    """
    if fmt is OutputFormat.json:
        return to_json(frame.to_dict(orient="records"))
    if fmt is OutputFormat.tsv:
        return defuse_frame(_escaped(frame)).to_csv(sep="\t", index=False, lineterminator="\n")
    if fmt is OutputFormat.csv:
        return defuse_frame(_escaped(frame, keep="\t\n\r")).to_csv(index=False,
                                                                     lineterminator="\n")
    return table_text(frame, float_format=lambda x: float_format % x) + "\n"


def _escaped(frame: pd.DataFrame, keep: str = "") -> pd.DataFrame:
    """Every text cell and column name of ``frame`` through :func:`irstab._repr.escape_name`
    (backslashes doubled, so an escape character and the text ``\\x1b`` differ)."""
    import pandas as pd

    from .._repr import escape_name

    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    out = frame.assign(**{c: frame[c].map(lambda v: escape_name(v, keep) if isinstance(v, str)
                                          else v) for c in text})
    out.columns = [escape_name(c, keep) if isinstance(c, str) else c for c in frame.columns]
    return out


def terminal_safe(text: str) -> str:
    """:func:`irstab._repr.terminal_safe`: every control and format character escaped but the
    layout's tabs and newlines (the last guard before text is printed or written)."""
    from .._repr import terminal_safe as safe

    return safe(text)


def say(text: str, err: bool = False) -> None:
    """Print one line (a verdict, where a file went): every control escaped but tabs, so
    a name in it can neither end the line nor drive the terminal."""
    from .._repr import one_line

    typer.echo(one_line(text), err=err)


#: Output names that say Parquet or Arrow: ``evaluate`` writes Parquet there, other
#: commands refuse them (their output is text).
COLUMNAR_OUTPUTS = (".parquet", ".pq", ".arrow", ".feather", ".ipc")
PARQUET_OUTPUTS = (".parquet", ".pq")


def columnar_output(path) -> bool:
    return path is not None and str(path).lower().endswith(COLUMNAR_OUTPUTS)


def refuse_columnar(output, what: str = "this command") -> None:
    """An error for ``-o x.parquet`` where the output is text (nothing is written)."""
    from ..errors import IRStabError

    if columnar_output(output):
        raise IRStabError(f"--output {output}: {what} writes text, not Parquet/Arrow; give a "
                          ".txt, .csv, .tsv or .json name (irstab evaluate -o x.parquet writes "
                          "its long table as Parquet)")


def emit_parquet(frame: pd.DataFrame, output: Path) -> None:
    """Write ``frame`` (no index) to ``output`` as Parquet, whole or not at all."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..errors import IRStabError
    from ..io import atomic_write_files

    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), sink)
    try:
        atomic_write_files({output: sink.getvalue().to_pybytes()})
    except OSError as exc:
        raise IRStabError(f"cannot write {output}: {exc.strerror or exc}") from None
    say(f"wrote {output}", err=True)


def emit(text: str, output: Path | None) -> None:
    """Print ``text`` or write it to ``output`` through a temporary file (:func:`terminal_safe`).

    A Parquet or Arrow name for ``output`` is refused (:func:`refuse_columnar`): the text
    would not be what its name says.
    """
    refuse_columnar(output)
    text = terminal_safe(text)
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            atomic_write_text(output, text)
        except OSError as exc:
            from ..errors import IRStabError

            raise IRStabError(f"cannot write {output}: {exc.strerror or exc}") from None
        say(f"wrote {output}", err=True)


def show_warnings_on_stderr() -> None:
    """Print library warnings as one plain line each on stderr."""

    def _show(message, category, filename, lineno, file=None, line=None):
        say(f"irstab: warning: {message}", err=True)

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
class SystemsChoice(str, Enum):
    """``--systems``: where a wide score file has its systems."""

    auto = "auto"
    rows = "rows"
    columns = "columns"


SYSTEMS_OPTION = typer.Option(
    SystemsChoice.auto, "--systems",
    help="Where a wide --scores file has its systems: rows (system,t1,t2,...), columns "
    "(gt4ireval's layout: topic,sys1,sys2,...), or auto: from the first header cell "
    "(run/system or topic/qid/query), else a guess with a warning.",
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

    The file is named ``stdin`` (compressed data too: the reader reads the first
    bytes), so a run without a tag column is named ``stdin``, and its errors name
    ``<stdin>`` (:data:`irstab.errors.PATH_ALIASES`), not the temporary file;
    :func:`remove_stdin_runs` deletes it when the command ends.
    """
    import tempfile

    from ..errors import PATH_ALIASES, IRStabError

    if _STDIN_DIRS:
        raise IRStabError("- (standard input) can stand for one run only")
    data = sys.stdin.buffer.read()
    if not data.strip():
        raise IRStabError("-: standard input is empty, expected a TREC run")
    tmp = tempfile.TemporaryDirectory(prefix="irstab-")
    _STDIN_DIRS.append(tmp)
    path = Path(tmp.name) / "stdin"  # compressed or not: the reader reads the first bytes
    path.write_bytes(data)
    PATH_ALIASES[str(path)] = "<stdin>"
    return path


def remove_stdin_runs() -> None:
    """Delete the file :func:`stdin_run` wrote, if any."""
    from ..errors import PATH_ALIASES

    while _STDIN_DIRS:
        tmp = _STDIN_DIRS.pop()
        PATH_ALIASES.pop(str(Path(tmp.name) / "stdin"), None)
        tmp.cleanup()


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
    from ..errors import IRStabWarning
    from ..metrics import RelString

    found = resolve_measures(measures or None, rel)
    kept = [m for m in found if not isinstance(m, RelString)]
    if len(kept) < len(found):  # all_trec holds it: a string, not a score
        if not kept:
            raise IRStabError("relstring is trec_eval's string of judgments, not a score: "
                              "irstab evaluate -f trec prints it")
        warnings.warn("relstring is trec_eval's string of judgments, not a score: left out "
                      "(irstab evaluate -f trec prints it)", IRStabWarning, stacklevel=2)
    return kept


SCHEDULER_OPTION = typer.Option(
    None, "--scheduler", envvar="IRSTAB_SCHEDULER",
    help="Dask scheduler address (tcp://host:8786): read and reduce the run files on its "
    "workers, which must read them under the same paths (docs/scale.md, "
    "'Clusters'; waits end by $IRSTAB_CONNECT_TIMEOUT, $IRSTAB_WORKER_TIMEOUT, "
    "$IRSTAB_JOB_TIMEOUT). Default: $IRSTAB_SCHEDULER, else this machine.",
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
    systems: str = "auto",
    order: str = "score",
    cluster_after: bool = False,
) -> list[tuple[str, pd.DataFrame]]:
    """``(measure name, systems x topics frame)`` from score files or from qrels + runs.

    With score files a ``--scheduler`` given on the command line has nothing to read; unless
    the command uses the cluster afterwards (``cluster_after``: calibrate's simulations),
    a warning says so (an address from ``IRSTAB_SCHEDULER`` alone is not warned about).
    """
    from ..errors import IRStabError

    if scores and scheduler and not cluster_after \
            and scheduler != os.environ.get("IRSTAB_SCHEDULER"):
        from ..errors import IRStabWarning

        warnings.warn("--scheduler: not used with --scores: the scores are computed already, "
                      "and the cluster reads and scores runs (QRELS RUNS)", IRStabWarning,
                      stacklevel=2)
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
            out += [(m or scores_name(p), f)
                    for m, f in read_score_matrices(p, systems=getattr(systems, "value", systems)).items()]
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
                            order=_order_value(order),
                            progress=lambda n: progress.advance(task, n))
    progress.remove_task(task)
    return list(scored.matrices().items())


def collection_scores(qrels: Path, runs: list[Path], measures: list, depth: int, progress,
                      scheduler: str | None = None, order: str = "score"):
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
        coll = Collection.from_files(qrels, runs, depth=depth, client=client,
                                     order=_order_value(order))
    progress.update(task, description="computing measures", total=len(parsed), completed=0)
    out = []
    for m in parsed:
        out.append((str(m), score_matrix(coll, m)))
        progress.advance(task)
    progress.remove_task(task)
    return coll, out
