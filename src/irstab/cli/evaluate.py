"""``irstab evaluate`` and ``irstab measures``."""

from __future__ import annotations

import dataclasses
from enum import Enum
from pathlib import Path

import pandas as pd
import typer

from .typer_app import app
from ._common import (
    RankOrderChoice,
    FORMAT_OPTION,
    MEASURE_HELP,
    OUTPUT_OPTION,
    REL_OPTION,
    SCHEDULER_OPTION,
    OutputFormat,
    cli_measures,
    emit,
    render_frame,
    show_warnings_on_stderr,
)


def _wide(frame: pd.DataFrame) -> pd.DataFrame:
    """Long (run, measure, topic, value) to one row per run/topic, one column per measure."""
    wide = frame.pivot_table(
        index=["run", "topic"], columns="measure", values="value", sort=False
    ).reset_index()
    wide.columns.name = None
    order = list(dict.fromkeys(frame["measure"]))
    return wide[["run", "topic", *order]]


class EvalFormat(str, Enum):
    """Output formats of ``irstab evaluate``: the common four, trec_eval's text and LaTeX."""

    table = "table"
    tsv = "tsv"
    csv = "csv"
    json = "json"
    trec = "trec"
    latex = "latex"


def _render_table(frame, measures):
    return render_frame(_wide(frame), OutputFormat.table, "%.4f")


def _render_json(frame, measures):
    from ..metrics import definitions

    full = definitions(measures)
    return render_frame(frame.assign(definition=frame["measure"].map(full)), OutputFormat.json)


def _render_trec(frame, measures, per_topic=True):
    from ..io.layouts import to_trec_eval
    from ..metrics import TREC_EVAL_SUMMED, trec_eval_name, trec_eval_position

    names = {str(m): trec_eval_name(m) or str(m) for m in measures}
    printed = list(names.values())
    clash = {n for n in printed if printed.count(n) > 1}  # P@10 and P(rel=2)@10: both P_10
    names = {m: (m if n in clash else n) for m, n in names.items()}
    order = [str(m) for m in sorted(measures, key=trec_eval_position)]
    return to_trec_eval(frame, names, TREC_EVAL_SUMMED, per_topic=per_topic, order=order)


def _render_latex(frame, measures):
    from ..io.layouts import to_latex

    return to_latex(frame)


_RENDER = {
    EvalFormat.table: _render_table,
    EvalFormat.json: _render_json,
    EvalFormat.trec: _render_trec,
    EvalFormat.latex: _render_latex,
    EvalFormat.tsv: lambda frame, measures: render_frame(frame, OutputFormat.tsv),
    EvalFormat.csv: lambda frame, measures: render_frame(frame, OutputFormat.csv),
}


@app.command()
def evaluate(
    qrels: Path = typer.Argument(..., help="TREC qrels file (topic iter docid grade), plain or .gz."),
    runs: list[Path] = typer.Argument(
        ..., help="TREC run files and/or directories of run files; - reads one run from stdin."
    ),
    measure: list[str] = typer.Option([], "--measure", "-m", help=MEASURE_HELP),
    rel: int | None = REL_OPTION,
    per_topic: bool = typer.Option(False, "--per-topic", "-q", help="Also print one row per topic."),
    depth: int = typer.Option(1000, "--depth", "-M", help="Ranks kept per topic (trec_eval -M)."),
    order: RankOrderChoice = typer.Option(
        "score", "--order",
        help="Order within a topic: score (score desc, docid desc: trec_eval), rank (the rank "
        "column), file (line order).",
    ),
    scheduler: str | None = SCHEDULER_OPTION,
    fmt: EvalFormat = typer.Option(
        EvalFormat.table, "--format", "-f",
        help="Output format: table, tsv, csv, json, trec (trec_eval's own output: its measure "
        "names, runid, num_q, counts summed in 'all', %6.4f values; with -q the per-topic lines "
        "first) or latex (booktabs table of the means, best in bold).",
    ),
    output: Path | None = OUTPUT_OPTION,
    complete: bool = typer.Option(
        False, "--complete", "-c",
        help="trec_eval -c: a topic a run lacks scores 0 and counts in the mean. Always so in "
        "irstab; accepted so trec_eval command lines run unchanged.",
    ),
) -> None:
    """Evaluate runs: one value per run, measure and topic (topic 'all' = mean).

    Matches trec_eval (pytrec_eval) to 1e-9 on the measures it shares. A topic
    a run lacks scores 0 (trec_eval -c); topics without a relevant document are
    not evaluated. The table format has one column per measure; tsv, csv and
    json are long: run, measure, topic, value (json adds definition: the full
    measure string, which differs from measure for a named measure). The csv
    of -q is what stability/compare --scores read back, one matrix per measure.
    """
    from ..collection.cluster import scheduler_client
    from ..evaluation import evaluate as run_evaluate

    show_warnings_on_stderr()
    measures = cli_measures(measure, rel)
    trec = fmt is EvalFormat.trec  # sums and num_q need the topics even without -q
    with scheduler_client(scheduler) as client:
        frame = run_evaluate(qrels, runs, measures, per_topic=per_topic or trec, depth=depth,
                             order=order.value, client=client)
    if trec:
        emit(_render_trec(frame, measures, per_topic), output)
    else:
        emit(_RENDER[fmt](frame, measures), output)


@app.command()
def measures(fmt: OutputFormat = FORMAT_OPTION) -> None:
    """List every measure: name, parameters with defaults, cutoff, formula."""
    from ..metrics import REGISTRY

    rows = []
    for name, cls in REGISTRY.items():
        params = []
        for f in dataclasses.fields(cls):
            if f.name == "cutoff":
                continue
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            params.append(f"{f.name}={default}")
        cutoff = "required" if cls.cutoff_required else ("optional" if cls.cutoff_allowed else "none")
        rows.append(
            {
                "measure": name,
                "parameters": ", ".join(params),
                "cutoff": cutoff,
                "formula": cls.formula,
                "description": cls.summary,
            }
        )
    frame = pd.DataFrame(rows)
    if fmt is OutputFormat.table:
        lines = []
        for r in rows:
            params = f"({r['parameters']})" if r["parameters"] else ""
            lines.append(f"{r['measure']}{params}  [@k: {r['cutoff']}]")
            lines.append(f"    {r['description']}")
            lines.append(f"    {r['formula']}")
        emit("\n".join(lines) + "\n", None)
    else:
        emit(render_frame(frame, fmt), None)
