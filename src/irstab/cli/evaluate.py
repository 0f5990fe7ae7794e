"""``irstab evaluate`` and ``irstab measures``."""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .typer_app import app
from ._common import (
    ORDER_OPTION,
    RankOrderChoice,
    FORMAT_OPTION,
    MEASURE_HELP,
    REL_OPTION,
    SCHEDULER_OPTION,
    OutputFormat,
    PARQUET_OUTPUTS,
    columnar_output,
    emit,
    emit_parquet,
    render_frame,
    show_warnings_on_stderr,
)

if TYPE_CHECKING:  # numpy and pandas are imported where they are used: -f trec needs no
    import pandas as pd  # pandas of its own


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


class TrecEvalVersion(str, Enum):
    """``--trec-eval``: the trec_eval release whose conventions apply where they differ."""

    v10 = "10"
    v9 = "9"


@dataclass(frozen=True)
class _TrecLayout:
    """What ``-f trec`` prints besides the values: names, extra lines, trec_eval's options."""

    request: object  # irstab.metrics.TrecEvalRequest
    per_topic: bool = True
    summary: bool = True
    complete: bool = False
    judged_only: bool = False


def _trec_options(layout: _TrecLayout) -> tuple[dict, list[str], dict]:
    """``(names, order, options)`` of trec_eval's text for ``layout`` (the scores aside):
    printed names, print order and the keyword options of :func:`~irstab.io.layouts.to_trec_eval`."""
    from ..metrics import (RelString, TREC_EVAL_SUMMED, Aggregate, trec_eval_name,
                           trec_eval_position)

    measures = layout.request.measures
    names = {str(m): layout.request.printed.get(m) or trec_eval_name(m) or str(m)
             for m in measures}
    printed = list(names.values())
    clash = {n for n in printed if printed.count(n) > 1}  # P@10 and P(rel=2)@10: both P_10
    names = {m: (m if n in clash else n) for m, n in names.items()}
    order = [str(m) for m in sorted(measures, key=trec_eval_position)]
    options = dict(
        summed=TREC_EVAL_SUMMED, per_topic=layout.per_topic,
        geometric={names[str(m)] for m in measures if m.aggregate is Aggregate.GEOMETRIC},
        text={names[str(m)]: RelString.decode for m in measures if isinstance(m, RelString)},
        runid="runid" in layout.request.display, num_q="num_q" in layout.request.display,
        summary=layout.summary)
    return names, order, options


def _render_trec(frame, layout: _TrecLayout):
    """trec_eval's text of the long frame of :func:`irstab.evaluate`."""
    from ..io.layouts import to_trec_eval
    from ..metrics import NumRel

    names, order, options = _trec_options(layout)
    totals = {}
    if layout.complete:
        # trec_eval -c prints as num_rel's total every judgment of grade > 0 in the qrels
        # (m_num_rel.c reads the qrels again), whatever -l, -J or -M: not the sum of its
        # per-topic lines when -l is above 1. So does irstab.
        rows = frame[(frame["measure"] == str(NumRel())) & (frame["topic"] != "all")]
        total = rows[rows["run"] == rows["run"].iloc[0]]["value"].sum() if len(rows) else 0
        totals = {names[str(m)]: total for m in layout.request.measures
                  if isinstance(m, NumRel)}
    return to_trec_eval(frame, names, order=order, totals=totals,
                        undefined=_undefined(frame, layout), **options)


def _render_trec_values(scored, layout: _TrecLayout) -> str | None:
    """trec_eval's text of the scores of :func:`irstab.evaluation.evaluate_values`, without
    a DataFrame: equal to :func:`_render_trec` of their long frame byte for byte (the
    totals of -c and the cells of -J taken from the arrays alike); None where only the
    frame's layout decides (:func:`~irstab.io.layouts.trec_eval_text`)."""
    from ..io.layouts import trec_eval_text
    from ..metrics import NumRel

    names, order, options = _trec_options(layout)
    where = {name: j for j, name in reversed(list(enumerate(scored.names)))}
    totals = {}
    if layout.complete:  # as _render_trec: the first run's num_rel (grade >= 1) summed
        j = where.get(str(NumRel()))
        values = scored.values
        total = (values[0, j].sum() if j is not None and values.shape[0] and values.shape[2]
                 else 0)
        totals = {names[str(m)]: total for m in layout.request.measures
                  if isinstance(m, NumRel)}
    undefined = _undefined_values(scored, where, layout)
    return trec_eval_text(scored.systems, scored.topics, scored.names, scored.values,
                          scored.summaries(), names, order=order, totals=totals,
                          undefined=undefined, **options)


def _undefined_values(scored, where: dict, layout: _TrecLayout) -> dict:
    """:func:`_undefined` of the scores as arrays (``values[run, measure, topic]``)."""
    from ..metrics import IPrec, IPrecAvg, NumRel, NumRet

    interpolated = [m for m in layout.request.measures if isinstance(m, (IPrec, IPrecAvg))]
    if not (layout.judged_only and interpolated):
        return {}
    num_ret = scored.values[:, where[str(NumRet())], :]
    undefined = {}
    for m in interpolated:
        num_rel = scored.values[:, where[str(NumRel(rel=m.rel))], :]
        hit = m.trec_eval_undefined(num_ret, num_rel)
        cells = {(scored.systems[s], scored.topics[t]) for s, t in zip(*hit.nonzero())}
        if cells:
            undefined[str(m)] = cells
    return undefined


def _undefined(frame, layout: _TrecLayout) -> dict:
    """The cells trec_eval 10 leaves 0 / 0, printed as its ``-nan``: with -J,
    ``iprec_at_recall`` and ``11pt_avg`` of a ranking that keeps no judged document, at a
    level needing no relevant document (``trec_eval_undefined`` of the measure: all of them
    on a topic without a relevant document). irstab's own layouts score these 0 (a warning
    says so)."""
    import numpy as np

    from ..metrics import IPrec, IPrecAvg, NumRel, NumRet

    interpolated = [m for m in layout.request.measures if isinstance(m, (IPrec, IPrecAvg))]
    if not (layout.judged_only and interpolated):
        return {}
    tops = frame[frame["topic"] != "all"]

    def per_topic(measure) -> pd.DataFrame:
        rows = tops[tops["measure"] == str(measure)]
        return rows.pivot(index="run", columns="topic", values="value")

    num_ret = per_topic(NumRet())
    undefined = {}
    for m in interpolated:
        num_rel = per_topic(NumRel(rel=m.rel)).reindex_like(num_ret)
        where = m.trec_eval_undefined(num_ret.to_numpy(), num_rel.to_numpy())
        cells = {(num_ret.index[s], num_ret.columns[t]) for s, t in np.argwhere(where)}
        if cells:
            undefined[str(m)] = cells
    return undefined


def _render_latex(frame, measures):
    from ..io.layouts import to_latex

    return to_latex(frame)


_RENDER = {
    EvalFormat.table: _render_table,
    EvalFormat.json: _render_json,
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
    depth: int | None = typer.Option(
        None, "--depth", "-M", min=1,
        help="Ranks kept per topic, the rest discarded (trec_eval -M). Default: every document "
        "with -f trec or trec_eval measure names (as trec_eval), else 1000 (a cutoff deeper "
        "than the depth is then an error).",
    ),
    order: RankOrderChoice = ORDER_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    fmt: EvalFormat = typer.Option(
        EvalFormat.table, "--format", "-f",
        help="Output format: table, tsv, csv, json, trec (trec_eval 10.0's own output, byte for "
        "byte: its measure names, %6.4f values, counts summed in 'all', runid and num_q with "
        "official/all_trec/set; with -q the per-topic lines first; without -m its official "
        "set; every qrels topic, with or without a relevant document, and its -nan) or latex "
        "(booktabs table of the means, best in bold).",
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o",
        help="Write to this file (atomically) instead of stdout; a .parquet or .pq name gets "
        "the long table (run, measure, topic, value) as Parquet.",
    ),
    complete: bool = typer.Option(
        False, "--complete", "-c",
        help="trec_eval -c: a topic a run lacks scores 0 and counts in the mean, as always in "
        "irstab; with -f trec, num_rel's 'all' line is then the qrels' count of relevant "
        "judgments, as trec_eval prints it.",
    ),
    no_summary: bool = typer.Option(
        False, "--no-summary", "-n", help="trec_eval -n: no summary ('all') lines."),
    judged_only: bool = typer.Option(
        False, "--judged-only", "-J",
        help="trec_eval -J: drop every unjudged document (not in the qrels, or of negative "
        "grade) from the rankings before scoring, the rest moving up.",
    ),
    trec_eval: TrecEvalVersion = typer.Option(
        TrecEvalVersion.v10, "--trec-eval",
        help="Follow this trec_eval release: 10 (scores compared as doubles, recall levels "
        "rounded: trec_eval 10.0) or 9 (scores as 32-bit floats and 9's rounding of "
        "iprec_at_recall, as pytrec_eval and ir_measures compute).",
    ),
) -> None:
    """Evaluate runs: one value per run, measure and topic (topic 'all' = mean).

    -f trec prints what trec_eval 10.0 prints for the same options (-q, -c, -l,
    -n, -M, -J, -m with every measure of all_trec and their parameters), byte for
    byte. A topic a run lacks scores 0 (trec_eval -c); topics without a
    relevant document are not evaluated (a warning names them), except by -f trec:
    it promises trec_eval's bytes, so it evaluates every qrels topic as trec_eval
    does (those judged only 0 or -1 too) and prints its -nan where -J leaves a
    ranking no document (iprec_at_recall, 11pt_avg). The table format has one column per
    measure; tsv, csv and json are long: run, measure, topic, value (json adds
    definition: the full measure string, which differs from measure for a named
    measure). The csv of -q is what stability/compare --scores read back, one
    matrix per measure.
    """
    if fmt is EvalFormat.trec and not scheduler:  # before pyarrow's first use: it would
        _arrow_without_pandas()  # import pandas (dask's client imports it anyway)
    from ..collection.cluster import scheduler_client
    from ..evaluation import evaluate_values
    from ..metrics import parse_measure, trec_eval_request

    show_warnings_on_stderr()
    if columnar_output(output) and (fmt in (EvalFormat.trec, EvalFormat.latex)
                                    or not str(output).lower().endswith(PARQUET_OUTPUTS)):
        from ..errors import IRStabError

        raise IRStabError(f"--output {output}: evaluate writes Parquet (.parquet, .pq) for the "
                          f"long table, not Arrow files nor -f {fmt.value}")
    version = int(trec_eval.value)
    trec = fmt is EvalFormat.trec
    request = trec_eval_request(measure or (["official"] if trec else None), rel, version)
    trec_names = trec or bool(request.printed) or bool(request.display)
    measures = list(request.measures)
    if not trec:
        measures = _numeric_only(measures, request)
    evaluated = _with_total(measures) if trec and complete else measures
    if trec and judged_only:
        evaluated = _with_num_ret(evaluated)
    if not evaluated:  # -m runid (or num_q) alone: trec_eval prints just those lines
        evaluated = [parse_measure("NumRet")]
    with scheduler_client(scheduler) as client:
        scored = evaluate_values(
            qrels, runs, evaluated,
            depth=depth if depth is not None or trec_names else 1000, order=order.value,
            client=client, judged_only=judged_only, trec_eval=version,
            strict_depth=not trec_names, every_topic=trec,
        )
    if trec:
        layout = _TrecLayout(dataclasses.replace(request, measures=tuple(measures)),
                             per_topic, not no_summary, complete, judged_only)
        text = _render_trec_values(scored, layout)
        if text is None:  # a layout only the long frame decides (no topic, a name twice)
            text = _render_trec(_long_frame(scored, True), layout)
        emit(text, output)
        return
    frame = _long_frame(scored, per_topic)
    if no_summary:
        frame = frame[frame["topic"] != "all"]
    if str(output or "").lower().endswith(PARQUET_OUTPUTS):
        emit_parquet(frame.reset_index(drop=True), output)
        return
    emit(_RENDER[fmt](frame, measures), output)


class _NoPandas:
    """A finder of ``sys.meta_path`` for which ``import pandas`` fails (see below)."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            raise ModuleNotFoundError("No module named 'pandas'", name="pandas")
        return None


def _arrow_without_pandas() -> None:
    """Let pyarrow find no pandas in a process that has not imported it: ``-f trec`` is
    rendered from arrays, and importing pandas took 0.4 s CPU of every such ``evaluate``.

    pyarrow imports pandas on its first use of almost anything (``pyarrow.array`` of a
    list, ``Array.to_numpy``, ``take`` with numpy indices), to recognise pandas objects
    (its Python layer) and pandas' ``NA``, ``NaT`` and ``Timestamp`` (its C++ layer).
    Both look once and keep what they found: here they look with ``import pandas``
    failing, find nothing, and the import works again afterwards. pyarrow then takes
    pandas objects as it takes other Python objects until it next needs pandas itself
    (``to_pandas``, ``Table.from_pandas`` import it again); its C++ layer does not look
    again, so ``pandas.NA``, ``NaT`` and ``Timestamp`` among Python objects converted by
    pyarrow later in this process are not recognised as such: ``-f trec`` converts none.
    A process that has imported pandas (a notebook, the tests) is left as it is, and so is
    one that talks to a Dask scheduler (``--scheduler``: dask imports pandas).
    """
    import sys

    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        pa.array([0]).to_numpy()  # the Python layer looks, then the C++ layer
    finally:
        sys.meta_path.remove(finder)


def _long_frame(scored, per_topic: bool) -> pd.DataFrame:
    """The long frame of :func:`irstab.evaluate` (run, measure, topic, value) of ``scored``."""
    from ..evaluation import long_table

    return long_table(scored.systems, scored.topics, scored.names, scored.values, per_topic,
                      [m.aggregate for m in scored.measures])


def _numeric_only(measures: list, request) -> list:
    """The measures the numeric layouts show: relstring, runid and num_q are trec_eval's
    text, printed by -f trec (a warning says so)."""
    from ..errors import IRStabError, IRStabWarning
    from ..metrics import RelString

    text = [m for m in measures if isinstance(m, RelString)]
    skipped = sorted(request.display) + [request.printed.get(m, str(m)) for m in text]
    if skipped:
        warnings.warn(", ".join(skipped) + " are trec_eval's text lines: -f trec prints them, "
                      "this format does not", IRStabWarning, stacklevel=2)
    kept = [m for m in measures if not isinstance(m, RelString)]
    if not kept:
        raise IRStabError("no measure to show: " + ", ".join(skipped) + " print with -f trec only")
    return kept


def _with_total(measures: list) -> list:
    """``measures`` and, when num_rel is among them, NumRel at grade >= 1: its per-topic
    sum is trec_eval -c's num_rel total."""
    from ..metrics import NumRel

    if any(isinstance(m, NumRel) for m in measures) and NumRel() not in measures:
        return [*measures, NumRel()]
    return measures


def _with_num_ret(measures: list) -> list:
    """``measures`` and, when iprec_at_recall or 11pt_avg is among them, NumRet and NumRel at
    their levels: under -J they tell where trec_eval prints -nan (:func:`_undefined`)."""
    from ..metrics import IPrec, IPrecAvg, NumRel, NumRet

    rels = sorted({m.rel for m in measures if isinstance(m, (IPrec, IPrecAvg))})
    extra = [NumRet(), *(NumRel(rel=r) for r in rels)] if rels else []
    return [*measures, *(m for m in extra if m not in measures)]


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
    import pandas as pd

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
