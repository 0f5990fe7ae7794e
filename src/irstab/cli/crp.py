"""``irstab crp``: the CRP curve and indicators of one run on one topic, and its figures."""

from __future__ import annotations

import math
from enum import Enum
from pathlib import Path

import pandas as pd
import typer

from .typer_app import app
from ._common import (
    RankOrderChoice,
    SCHEDULER_OPTION,
    ORDER_OPTION,
    FORMAT_OPTION,
    OUTPUT_OPTION,
    OutputFormat,
    emit,
    render_frame,
    show_warnings_on_stderr,
    to_json,
    say,
)


class Show(str, Enum):
    both = "both"
    indicators = "indicators"
    curve = "curve"


_LABELS = {
    "R": "R (recall base, capped at N)",
    "loss": "loss value CRP(r,R)",
    "min_rank": "turn-around point min",
    "min_value": "minimum CRP(r,min)",
    "balance_point": "balance point b_r",
    "rho": "recovery value rho = R/b_r",
    "balance_ratio": "balance ratio 1 - b_r/b_w",
    "min_ratio": "CRP_min = 1 - CRP(r,min)/CRP(w,min)",
    "N_ratio": "CRP_N = 1 - |CRP(r,N)|/|CRP(w,N)|",
    "crp_at_N": "CRP(r,N)",
    "worst_balance_point": "worst-case balance point b_w",
    "worst_rho": "worst-case rho_w = R/b_w",
    "worst_loss": "worst-case CRP(w,R)",
    "worst_min_value": "worst-case CRP(w,min)",
    "worst_at_N": "worst-case CRP(w,N)",
}


def _finite_or_none(x):
    return None if isinstance(x, float) and math.isinf(x) else x


@app.command()
def crp(
    qrels: Path = typer.Argument(..., help="TREC qrels file, plain or .gz."),
    run: Path = typer.Argument(..., help="One TREC run file, plain or .gz; - reads it from stdin."),
    topic: str = typer.Option(..., "--topic", "-t", help="The topic whose curve is printed."),
    depth: int = typer.Option(
        1000, "--depth", "-M",
        help="N: the list length (ranks evaluated; shorter runs are padded with non-relevant "
        "documents). The paper's example uses 20.",
    ),
    order: RankOrderChoice = ORDER_OPTION,
    plot_curve: Path | None = typer.Option(
        None, "--figure", help="Save the CRP curve with its RP bar (Angelini et al., CLEF 2012, Fig. 2); "
        "format from the suffix."
    ),
    plot_indicators: Path | None = typer.Option(
        None, "--plot-indicators",
        help="Save the indicators of every topic in parallel coordinates "
        "(Angelini et al., CLEF 2012, Fig. 3).",
    ),
    plot_ranks: int | None = typer.Option(
        None, "--plot-ranks", help="Draw only ranks 1..K of the curve (default: all N)."
    ),
    show: Show = typer.Option(Show.both, "--show", help="What to print: both, indicators or curve."),
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
) -> None:
    """Cumulated relative position (Angelini et al. 2012) of one run on one topic.

    Prints the indicators (loss value, turn-around point, balance point, recovery
    value rho, balance ratio, CRP_min, CRP_N, and rho_avg over all topics) and
    the curve: per rank the grade, RP, CRP and the worst case. A balance point
    never reached is inf (null in JSON) and gives rho = 0. tsv/csv with
    --show both print the indicator table, a blank line, then the curve.
    """
    from ..evaluation import as_collection
    from ..io import read_run
    from ..metrics.crp import crp_curve, crp_indicators

    show_warnings_on_stderr()
    if plot_ranks is not None and plot_ranks < 1:  # before any file is read or written
        from ..errors import IRStabError

        raise IRStabError(f"--plot-ranks: must be a positive integer, got {plot_ranks}")
    if plot_curve is not None or plot_indicators is not None:
        from ..report.crp_figures import check_figure_path

        for path in (plot_curve, plot_indicators):
            if path is not None:
                check_figure_path(path)  # fail before any figure is written
    from ..collection.cluster import scheduler_client
    from ..collection import Collection

    with scheduler_client(scheduler) as client:
        if client is None:
            collection = as_collection(qrels, [read_run(run)], depth=depth, order=order.value)
        else:  # the run file is read and reduced on a worker
            collection = Collection.from_files(qrels, [run], depth=depth, order=order.value,
                                               client=client)
    system = collection.systems[0]
    curve = crp_curve(collection, system, topic)
    indicators = crp_indicators(collection)
    rho_avg = float(indicators.rho_avg().iloc[0])
    if plot_curve is not None:
        from ..report.crp_figures import plot_crp_curve

        plot_crp_curve(curve, plot_curve, max_rank=plot_ranks)
        say(f"wrote {plot_curve}", err=True)
    if plot_indicators is not None:
        from ..report.crp_figures import plot_crp_indicators

        plot_crp_indicators(indicators, system, plot_indicators)
        say(f"wrote {plot_indicators}", err=True)

    values = {**curve.indicators, "rho_avg": rho_avg}
    curve_frame = curve.to_frame()
    if fmt is OutputFormat.json:
        doc = {"run": system, "topic": curve.topic, "N": curve.n, "R": curve.R,
               "run_length": curve.run_length}
        if show is not Show.curve:
            doc["indicators"] = {k: _finite_or_none(v) for k, v in values.items()}
        if show is not Show.indicators:
            doc["curve"] = curve_frame.to_dict(orient="records")
        emit(to_json(doc), output)
        return
    table = pd.DataFrame({
        "indicator": list(values),
        "value": [float(v) for v in values.values()],
    })
    parts = []
    if fmt is OutputFormat.table:
        from .._repr import one_line

        head = one_line(f"run {system}, topic {curve.topic}: N = {curve.n}, R = {curve.R}, "
                        f"retrieved = {curve.run_length}") + "\n"
        if show is not Show.curve:
            table["meaning"] = [_LABELS.get(k, "mean rho over all topics") for k in values]
            parts.append(head + render_frame(table, fmt, "%.6g"))
        if show is not Show.indicators:
            parts.append(render_frame(curve_frame, fmt))
        emit("\n".join(parts), output)
        return
    if show is not Show.curve:
        parts.append(render_frame(table, fmt))
    if show is not Show.indicators:
        parts.append(render_frame(curve_frame, fmt))
    emit("\n".join(parts), output)
