"""``irstab assessors``: G-study with an assessor facet; also ``stability --design``."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import typer

from ..assessors import MissingJudgment
from ..stability.designs import Design
from . import app
from ._common import (
    FORMAT_OPTION,
    OUTPUT_OPTION,
    QRELS_ARG,
    RUNS_ARG,
    OutputFormat,
    emit,
    progress_bar,
    render_frame,
    show_warnings_on_stderr,
    to_json,
)

_ASSESSOR_SHARE = ("a", "sa", "ta", "sta", "a:t", "sa:t")  # components indexed by assessors


def _count(v: float) -> int | None:
    return None if not math.isfinite(v) else int(v)


def facet_studies(frames, design, *, n_resamples, seed, progress):
    """``[(FacetGStudy, FacetIntervals | None)]`` per ``(name, long frame)``."""
    from ..stability.facets import facet_gstudy

    out = []
    task = progress.add_task("bootstrap", total=len(frames) * n_resamples) if n_resamples else None
    for i, (name, frame) in enumerate(frames):
        g = facet_gstudy(frame, design, name=name)
        iv = None
        if n_resamples:
            done = i * n_resamples
            iv = g.bootstrap(
                n_resamples,
                seed=seed,
                progress=lambda k, done=done: progress.update(task, completed=done + k),
            )
        out.append((g, iv))
    return out


def facet_records(results, target: float, cost_ratio: float, max_assessors: int) -> list[dict]:
    """One flat record per measure, sorted by Phi (descending)."""
    rows = []
    for g, iv in results:
        nd = g.needed(target, cost_ratio=cost_ratio, max_assessors=max_assessors)
        pct = dict(zip(g.sources, g.percent))
        inter = "sa" if g.design is Design.crossed else "sa:t"
        r = {
            "measure": g.name,
            "design": g.design.value,
            "method": g.method,
            "n_systems": g.n_systems,
            "n_topics": g.n_topics,
            "n_assessors": g.n_assessors,
            **{f"var_{k}": v for k, v in zip(g.sources, g.variance)},
            **{f"pct_{k}": v for k, v in pct.items()},
            "pct_assessor_total": sum(v for k, v in pct.items() if k in _ASSESSOR_SHARE),
            "pct_system_x_assessor": pct[inter],
            "erho2": g.erho2(),
            "erho2_lower": iv.erho2[0] if iv else None,
            "erho2_upper": iv.erho2[1] if iv else None,
            "phi": g.phi(),
            "phi_lower": iv.phi[0] if iv else None,
            "phi_upper": iv.phi[1] if iv else None,
            "phi_one_assessor": g.phi(g.n_topics, 1),
            "topics_needed_1": _count(g.topics_needed(target, 1)),
            "topics_needed_2": _count(g.topics_needed(target, 2)),
            "cheapest_topics": _count(nd.n_topics),
            "cheapest_assessors": nd.n_assessors if math.isfinite(nd.n_topics) else None,
            "cheapest_cost": nd.cost if math.isfinite(nd.cost) else None,
        }
        r["_study"], r["_intervals"], r["_needed"] = g, iv, nd
        rows.append(r)
    rows.sort(key=lambda r: (-r["phi"], str(r["measure"])))
    return rows


def _public(r: dict) -> dict:
    return {k: v for k, v in r.items() if not k.startswith("_")}


def render_facets(rows, fmt: OutputFormat, target: float, cost_ratio: float) -> str:
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

    def ci(r, k):
        lo, hi = r[f"{k}_lower"], r[f"{k}_upper"]
        return f"{r[k]:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else "")

    def cnt(v):
        return "inf" if v is None else str(v)

    summary = pd.DataFrame(
        {
            "measure": [r["measure"] for r in rows],
            "design": [f"{r['n_systems']}s x {r['n_topics']}t x {r['n_assessors']:.3g}a" for r in rows],
            "Phi [CI]": [ci(r, "phi") for r in rows],
            "Erho2 [CI]": [ci(r, "erho2") for r in rows],
            "s %": [f"{r['pct_s']:.1f}" for r in rows],
            "assessor %": [f"{r['pct_assessor_total']:.1f}" for r in rows],
            "s x a %": [f"{r['pct_system_x_assessor']:.1f}" for r in rows],
            f"topics Phi>={target:g} (1a|2a)": [
                f"{cnt(r['topics_needed_1'])} | {cnt(r['topics_needed_2'])}" for r in rows
            ],
            f"cheapest (cost ratio {cost_ratio:g})": [
                "unreachable"
                if r["cheapest_topics"] is None
                else f"{r['cheapest_topics']}t x {r['cheapest_assessors']}a"
                for r in rows
            ],
        }
    )
    comps = pd.concat(
        [r["_study"].to_frame().assign(measure=r["measure"]) for r in rows], ignore_index=True
    )
    comps = comps[["measure", "source", "df", "ms", "variance", "percent"]]
    iv = rows[0]["_intervals"]
    note = (
        f"# sorted by Phi; intervals: {iv.confidence:.0%} percentile bootstrap over "
        f"{iv.resample} ({iv.n_resamples} resamples)\n"
        if iv
        else "# sorted by Phi\n"
    )
    return (
        summary.to_string(index=False)
        + "\n"
        + note
        + "\n# variance components (raw; % of the components truncated at 0)\n"
        + comps.to_string(index=False, na_rep="-", float_format=lambda v: f"{v:.6f}")
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
        ["nDCG@10"], "--measure", "-m", help="Measure, repeatable (default nDCG@10)."
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
    depth: int = typer.Option(1000, "--depth", "-M", help="Ranks kept per topic (trec_eval -M)."),
    target: float = typer.Option(0.95, "--target", help="Target Phi for the topics needed."),
    cost_ratio: float = typer.Option(
        1.0,
        "--cost-ratio",
        help="Cost of a topic in units of one assessor judging one topic; the cheapest design "
        "minimises topics x (cost ratio + assessors).",
    ),
    max_assessors: int = typer.Option(10, "--max-assessors", help="Largest design considered."),
    n_resamples: int = typer.Option(
        1000, "--resamples", help="Bootstrap resamples over topics and assessors (0: none)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap."),
    figure: Path | None = typer.Option(
        None, "--figure", help="Write Phi contours over topics x assessors here (png, pdf, svg)."
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """G-study with an assessor facet: which measure is robust to who judged.

    Scores every run on every topic under each assessor's qrels (QRELS is the
    base: its topics, and its grades where an assessor did not judge, see
    --missing), then estimates the variance components of systems, topics,
    assessors and their interactions (expected mean squares when balanced,
    Henderson's method 1 otherwise; Brennan, Generalizability Theory, 2001).
    One row per measure, sorted by Phi: shares of the system, all assessor and
    system x assessor components (the last is what reorders systems), topics
    needed for --target with one and two assessors per topic, and the cheapest
    design. JSON: a list of objects per measure with components, percent,
    erho2, phi (and _ci), topics_needed, cheapest.
    """
    from ..errors import IRStabError

    show_warnings_on_stderr()
    if qrels is None or not runs:
        raise IRStabError("give QRELS and at least one RUN")
    if not assessor_qrels:
        raise IRStabError("give at least one --assessor-qrels FILE or directory")
    if n_resamples < 0:
        raise IRStabError(f"--resamples: must be >= 0, got {n_resamples}")
    if figure is not None:
        from ..report.compare_figures import _check_format

        _check_format(figure)
    from ..assessors import assessor_collection
    from ..metrics import parse_measure

    parsed = [parse_measure(m) for m in measure]
    with progress_bar() as progress:
        task = progress.add_task("reading qrels and runs", total=None)
        ac = assessor_collection(
            qrels, runs, assessor_qrels, missing=missing, include_base=include_base, depth=depth
        )
        progress.update(task, description="computing measures")
        long = ac.scores(parsed)
        progress.remove_task(task)
        frames = [(m, f.drop(columns="measure")) for m, f in long.groupby("measure", sort=False)]
        results = facet_studies(frames, design, n_resamples=n_resamples, seed=seed,
                                progress=progress)
    rows = facet_records(results, target, cost_ratio, max_assessors)
    emit(render_facets(rows, fmt, target, cost_ratio), output)
    if figure is not None:
        from ..report.assessor_figures import plot_phi_contours

        fig = plot_phi_contours([r["_study"] for r in rows], figure, targets=(0.8, 0.9, target))
        import matplotlib.pyplot as plt

        plt.close(fig)
        typer.echo(f"wrote {figure}", err=True)


def stability_with_design(scores, design, target, n_resamples, seed, fmt, output) -> None:
    """``irstab stability --scores FILE --design ...``: long scores with an assessor column."""
    from ..errors import IRStabError
    from ..scorematrix import read_facet_scores
    from ._common import scores_name

    if not scores:
        raise IRStabError("--design needs --scores FILE (header system,topic,assessor,score)")
    frames = [(scores_name(p), read_facet_scores(p)) for p in scores]
    with progress_bar() as progress:
        results = facet_studies(frames, design, n_resamples=n_resamples, seed=seed,
                                progress=progress)
    rows = facet_records(results, target, 1.0, 10)
    emit(render_facets(rows, fmt, target, 1.0), output)
