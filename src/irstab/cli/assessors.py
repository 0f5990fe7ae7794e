"""``irstab assessors``: G-study with an assessor facet; also ``stability --design``."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import pandas as pd
import typer

from ..collection.assessors import MissingJudgment
from ..report.assessor_section import facet_records, facet_studies, summary_frame
from ..stability.designs import Design
from .typer_app import app
from ._common import (
    FORMAT_OPTION,
    OUTPUT_OPTION,
    SCHEDULER_OPTION,
    ORDER_OPTION,
    RankOrderChoice,
    QRELS_ARG,
    RUNS_ARG,
    OutputFormat,
    emit,
    progress_bar,
    render_frame,
    seed_option,
    show_warnings_on_stderr,
    to_json,
    say,
    table_text,
)


def _public(r: dict) -> dict:
    return {k: v for k, v in r.items() if not k.startswith("_")}


class RankBy(str, Enum):
    phi = "phi"
    interaction = "interaction"


_SORTED = {
    RankBy.phi: "# sorted by Phi",
    RankBy.interaction: "# sorted by the system x assessor share (smallest first)",
}


def render_facets(rows, fmt: OutputFormat, target: float, cost_ratio: float,
                  rank_by: RankBy = RankBy.phi) -> str:
    """Table, JSON (nested per measure) or TSV/CSV (flat records)."""
    if fmt is OutputFormat.json:
        out = []
        for r in rows:
            g, iv, nd = r["_study"], r["_intervals"], r["_needed"]
            d = g.to_dict()
            d["percent"] = dict(zip(g.sources, g.percent))
            d["erho2_ci"] = list(iv.erho2) if iv else None
            d["phi_ci"] = list(iv.phi) if iv else None
            d["bootstrap"] = iv.to_dict() if iv else None
            d["topics_needed"] = {"target": target, "1": r["topics_needed_1"],
                                  "2": r["topics_needed_2"]}
            d["cheapest"] = nd.to_dict()
            out.append(d)
        return to_json(out)
    if fmt is not OutputFormat.table:
        return render_frame(pd.DataFrame([_public(r) for r in rows]), fmt)

    summary = summary_frame(rows, target, cost_ratio)
    comps = pd.concat(
        [r["_study"].to_frame().assign(measure=r["measure"]) for r in rows], ignore_index=True
    )
    comps = comps[["measure", "source", "df", "ms", "variance", "percent"]]
    # Int64's <NA> ignores na_rep: no df when unbalanced shows as "-" like ms
    comps["df"] = ["-" if pd.isna(v) else str(v) for v in comps["df"]]
    iv = rows[0]["_intervals"]
    note = _SORTED[RankBy(rank_by)] + (
        f"; intervals: {iv.confidence:.0%} percentile bootstrap over "
        f"{iv.resample} ({iv.n_resamples} resamples)\n"
        if iv
        else "\n"
    )
    return (
        table_text(summary)
        + "\n"
        + note
        + "\n# variance components (raw; % of the components truncated at 0)\n"
        + table_text(comps, na_rep="-", float_format=lambda v: f"{v:.6f}")
        + "\n"
    )


_DESIGN_HELP = (
    "nested: s x (a:t), each topic judged by its own assessors (re-annotation studies); "
    "crossed: s x t x a, every assessor judged every topic."
)


@app.command()
def assessors(
    qrels: Path | None = QRELS_ARG,
    runs: list[Path] | None = RUNS_ARG,
    assessor_qrels: list[Path] = typer.Option(
        [],
        "--assessor-qrels",
        "-a",
        help="An assessor's qrels file, or a directory of them, repeatable; each assessor is "
        "named after its file (froebe-qrels.txt -> froebe).",
    ),
    measure: list[str] = typer.Option(
        ["nDCG@10"], "--measure", "-m",
        help="Measures, repeatable or comma-separated, in any spelling `irstab evaluate -m` reads "
        "(default nDCG@10).",
    ),
    design: Design = typer.Option(Design.nested, "--design", help=_DESIGN_HELP),
    missing: MissingJudgment = typer.Option(
        MissingJudgment.base,
        "--missing",
        help="Documents an assessor did not judge on a topic it judged: base (keep the base "
        "qrels' grade; default) or unjudged (only the assessor's own judgments count).",
    ),
    include_base: bool = typer.Option(
        True, "--base/--no-base", help="Count the base QRELS as one more assessor of every topic."
    ),
    depth: int = typer.Option(
        1000, "--depth", "-M",
        help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all)."),
    target: float = typer.Option(0.95, "--target", help="Target Phi for the topics needed."),
    cost_ratio: float = typer.Option(
        1.0,
        "--cost-ratio",
        help="Cost of a topic in units of one assessor judging one topic; the cheapest design "
        "minimises topics x (cost ratio + assessors).",
    ),
    max_assessors: int = typer.Option(10, "--max-assessors", help="Largest design considered."),
    n_resamples: int = typer.Option(
        1000, "--bootstrap", "-B", help="Bootstrap resamples over topics and assessors (0: none)."
    ),
    seed: int = seed_option("Seed of the bootstrap."),
    rank_by: RankBy = typer.Option(
        RankBy.phi,
        "--rank-by",
        help="Order of the measures: phi (most dependable first) or interaction (smallest "
        "system x assessor share first: the component that reorders systems by who judged).",
    ),
    figure: Path | None = typer.Option(
        None, "--figure", help="Write Phi contours over topics x assessors here (png, pdf, svg)."
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
) -> None:
    """G-study with an assessor facet: which measure is robust to who judged.

    Scores every run on every topic under each assessor's qrels (QRELS is the
    base: its topics, and its grades where an assessor did not judge, see
    --missing), then estimates the variance components of systems, topics,
    assessors and their interactions (expected mean squares when balanced,
    Henderson's method 1 otherwise; Brennan, Generalizability Theory, 2001).
    One row per measure, sorted by Phi (--rank-by interaction: by the system
    x assessor share, smallest first): shares of the system, all assessor and
    system x assessor components (the last is what reorders systems), topics
    needed for --target with one and two assessors per topic, and the cheapest
    design. Facets: s systems, t topics, a:t assessors within topics, st
    system x topic, sa:t system x assessor within topics (how much the
    systems' order depends on who judged). JSON: a list of objects per
    measure with components, percent, erho2, phi (and _ci), topics_needed,
    cheapest.
    """
    from ..errors import IRStabError

    show_warnings_on_stderr()
    if qrels is None or not runs:
        raise IRStabError("give QRELS and at least one RUN")
    if not assessor_qrels:
        raise IRStabError("give at least one --assessor-qrels FILE or directory")
    if n_resamples < 0:
        raise IRStabError(f"--resamples: must be >= 0, got {n_resamples}")
    from ..metrics import resolve_measures
    from ..stability.facets import check_max_assessors

    parsed = resolve_measures(measure)
    check_max_assessors(max_assessors, len(parsed))  # before the study, not after it
    if figure is not None:
        from ..report.figures import check_format

        check_format(figure)
    from ..collection.assessors import assessor_collection
    from ..collection.cluster import scheduler_client

    with progress_bar() as progress:
        task = progress.add_task("reading qrels and runs", total=None)
        with scheduler_client(scheduler) as client:
            ac = assessor_collection(qrels, runs, assessor_qrels, missing=missing,
                                     include_base=include_base, depth=depth, client=client,
                                     order=order.value)
        progress.update(task, description="computing measures")
        long = ac.scores(parsed)
        progress.remove_task(task)
        frames = [(m, f.drop(columns="measure")) for m, f in long.groupby("measure", sort=False)]
        results = facet_studies(frames, design, n_resamples=n_resamples, seed=seed,
                                progress=progress)
    rows = facet_records(results, target, cost_ratio, max_assessors, rank_by.value)
    emit(render_facets(rows, fmt, target, cost_ratio, rank_by), output)
    if figure is not None:
        from ..report.assessor_figures import plot_phi_contours

        fig = plot_phi_contours([r["_study"] for r in rows], figure, targets=(0.8, 0.9, target))
        import matplotlib.pyplot as plt

        plt.close(fig)
        say(f"wrote {figure}", err=True)


def stability_with_design(scores, design, target, n_resamples, seed, fmt, output,
                          confidence=0.95) -> None:
    """``irstab stability --scores FILE --design ...``: long scores with an assessor column."""
    from ..errors import IRStabError
    from ..io.scorematrix import read_facet_scores
    from ._common import scores_name

    if not scores:
        raise IRStabError("--design needs --scores FILE (header system,topic,assessor,score)")
    frames = [(scores_name(p), read_facet_scores(p)) for p in scores]
    with progress_bar() as progress:
        results = facet_studies(frames, design, n_resamples=n_resamples, seed=seed,
                                progress=progress, confidence=confidence)
    rows = facet_records(results, target, 1.0, 10)
    emit(render_facets(rows, fmt, target, 1.0), output)
