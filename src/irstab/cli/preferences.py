"""``irstab preferences``: how well measures agree with users' side-by-side preferences."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from .typer_app import app
from ._common import (
    ORDER_OPTION,
    OUTPUT_OPTION,
    RUNS_ARG,
    OutputFormat,
    RankOrderChoice,
    emit,
    render_frame,
    seed_option,
    show_warnings_on_stderr,
    table_text,
    to_json,
)


class TieChoice(str, Enum):
    """``--ties``: :data:`irstab.preferences.comparisons.TIE_RULES`."""

    exclude = "exclude"
    half = "half"
    disagree = "disagree"


def _interval(x, lo, hi, digits=3) -> str:
    if x != x:
        return "-"
    if lo != lo or hi != hi:
        return f"{x:.{digits}f}"
    return f"{x:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _headline(result) -> str:
    best = result.best()
    level = f"{result.confidence:.0%}"
    judges = f", {result.n_judges} judges" if result.n_judges else ""
    if best is None:
        lines = [f"# no measure separates the sides of a comparison with a preferred side "
                 f"({result.n_comparisons} comparisons): no agreement rate"]
        return "\n".join(lines) + "\n"
    j = result.measures.index(best)
    lines = [
        f"# best agreement with the judges: {best}: "
        f"{_interval(result.rate[j], result.rate_low[j], result.rate_high[j])} ({level}, "
        f"bootstrap over {result.resampled}; {result.n_comparisons} comparisons, "
        f"{result.n_topics} topics{judges})",
    ]
    import numpy as np

    for i, name in enumerate(("b1", "b2", "b3")):
        row = result.bias[i]
        if np.isnan(row).all():
            continue
        k = int(np.nanargmin(row))
        lines.append(f"# lowest {name} (Urbano & Marrero, ECIR 2015): {result.measures[k]}: "
                     f"{_interval(row[k], result.bias_low[i, k], result.bias_high[i, k], 4)}")
    from ..preferences.agreement import _TIE_TEXT

    lines.append("# agreement: share of the comparisons where the measure prefers the side the "
                 f"judge preferred; {_TIE_TEXT[result.ties]}")
    return "\n".join(lines) + "\n"


def _table(result) -> str:
    import pandas as pd

    frame = result.to_frame()
    shown = pd.DataFrame({"measure": frame["measure"]})
    for name in result.factors:
        shown[name] = frame[name]
    level = f"{result.confidence:.0%}"
    shown[f"agreement [{level}]"] = [_interval(*v) for v in zip(
        frame["agreement"], frame["agreement_low"], frame["agreement_high"])]
    for c in ("agree", "disagree", "tie"):
        shown[c] = frame[c]
    for b in ("b1", "b2", "b3"):
        if frame[b].notna().any():
            shown[b] = [_interval(*v, digits=4) for v in zip(frame[b], frame[f"{b}_low"],
                                                              frame[f"{b}_high"])]
    text = _headline(result) + "\n" + table_text(shown) + "\n"
    if result.anova:
        anova = pd.DataFrame(result.anova)
        anova = anova.assign(sum_sq=[f"{x:.7f}" for x in anova["sum_sq"]],
                             f=["" if f != f else f"{f:.6g}" for f in anova["f"]],
                             p=["" if p != p else f"{p:.3g}" for p in anova["p"]])
        text += ("\n# two-way ANOVA of each bias score on " + " and ".join(result.factors)
                 + " (sequential sums of squares, as R's anova(lm(...)))\n"
                 + table_text(anova) + "\n")
    return text


def _render(result, fmt: OutputFormat) -> str:
    renderers = {
        OutputFormat.table: _table,
        OutputFormat.json: lambda r: to_json(r.to_dict()),
        OutputFormat.tsv: lambda r: render_frame(r.to_frame(), OutputFormat.tsv),
        OutputFormat.csv: lambda r: render_frame(r.to_frame(), OutputFormat.csv),
    }
    return renderers[fmt](result)


@app.command()
def preferences(
    prefs: Path = typer.Argument(
        ..., metavar="PREFS",
        help="Side-by-side preferences, CSV/TSV/JSON Lines: topic, preferred (A, B, none), "
        "optional judge, and the sides as ranking_a/ranking_b (document ids), run_a/run_b (run "
        "names) or a:<measure>/b:<measure> (values); or Urbano & Marrero's crowd.csv layout."),
    qrels: Path | None = typer.Argument(
        None, metavar="QRELS", help="TREC qrels grading the sides' documents (not needed when "
        "PREFS gives the measure values)."),
    runs: list[Path] | None = RUNS_ARG,
    measure: list[str] = typer.Option(
        [], "--measure", "-m",
        help="Measures scored on both sides when PREFS gives rankings (default nDCG@10 with "
        "the linear and exp gains and the log2 and zipf discounts, AP, RR, P@10, RBP(p=0.8), "
        "ERR@10); repeatable or comma-separated, in any spelling irstab evaluate -m takes "
        "(`irstab measures` lists them)."),
    depth: int | None = typer.Option(
        None, "--depth", "-M", min=1,
        help="Ranks kept per side (default: every rank of a ranking given, the top 10 of a "
        "run)."),
    order: RankOrderChoice = ORDER_OPTION,
    resamples: int = typer.Option(
        1000, "--bootstrap", "-B", min=1,
        help="Bootstrap resamples of the intervals (topics, and judges when given, drawn with "
        "replacement)."),
    confidence: float = typer.Option(0.95, "--confidence", help="Level of the intervals."),
    bias_intervals: bool = typer.Option(
        True, "--bias-intervals/--no-bias-intervals",
        help="Bootstrap the bias scores too (a logistic refit per resample and measure)."),
    ties: TieChoice = typer.Option(
        TieChoice.exclude, "--ties",
        help="How a tie of a measure counts in its agreement rate where the judge preferred a "
        "side: exclude (left out, as Sanderson et al., SIGIR 2010), half (half an agreement) or "
        "disagree (as Urbano & Marrero's b3)."),
    seed: int = seed_option("Seed of the resamples."),
    fmt: OutputFormat = typer.Option(
        OutputFormat.table, "--format", "-f",
        help="table (the answer, then one row per measure and the ANOVA), tsv/csv (one row "
        "per measure), json (everything, with 'anova': score, factor, df, sum_sq, f)."),
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """Agreement of measures with users' side-by-side preferences, and bias scores.

    For every measure: the share of comparisons where it prefers the side the
    judge preferred (Sanderson et al., SIGIR 2010), and the bias scores b1, b2,
    b3 of Urbano & Marrero (ECIR 2015), with bootstrap intervals over topics
    (and judges). When the measures carry factors (gain and discount, as in
    crowd.csv), the two-way ANOVA of each bias score on them.
    """
    from ..preferences.agreement import preference_agreement
    from ..preferences.read import read_preferences

    show_warnings_on_stderr()
    measures = None
    if measure:
        from ._common import cli_measures

        measures = cli_measures(measure, None)
    scored = read_preferences(prefs, qrels, runs or None, measures=measures, depth=depth,
                              order=order.value)
    result = preference_agreement(scored, n_boot=resamples, confidence=confidence, seed=seed,
                                  bias_boot=bias_intervals, ties=ties.value)
    emit(_render(result, fmt), output)
