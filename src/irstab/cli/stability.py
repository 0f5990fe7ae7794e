"""``irstab stability`` (G-study per measure) and ``irstab topics`` (D-study)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import typer

# Enums are defined in the (light) gstudy module; scipy/statsmodels are not imported here.
from ..stability.designs import Design
from ..stability.gstudy import IntervalMethod, Resample
from .typer_app import app
from ._common import (
    Coefficient,
    MEASURE_HELP,
    QRELS_ARG,
    REL_OPTION,
    RUNS_ARG,
    cli_measures,
    SCORES_OPTION,
    SYSTEMS_OPTION,
    SystemsChoice,
    score_matrices_from_args,
    ORDER_OPTION,
    RankOrderChoice,
    SCHEDULER_OPTION,
    progress_bar,
    FORMAT_OPTION,
    OUTPUT_OPTION,
    OutputFormat,
    emit,
    render_frame,
    seed_option,
    show_warnings_on_stderr,
    to_json,
    say,
    table_text,
)

_MEASURE_OPT = typer.Option([], "--measure", "-m", help=MEASURE_HELP)
_DEPTH_OPT = typer.Option(
    1000, "--depth", "-M",
    help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all).")
_DROP_OPT = typer.Option(
    0.0,
    "--drop-worst",
    help="Drop this bottom fraction of systems by mean score first (ties kept).",
)
_CONF_OPT = typer.Option(0.95, "--confidence", help="Two-sided confidence level of the intervals.")
_INTERVAL_OPT = typer.Option(
    IntervalMethod.f,
    "--interval",
    help="Interval method: f (Feldt for Erho2, Arteaga et al. for Phi) or bootstrap.",
)
_NBOOT_OPT = typer.Option(
    1000, "--bootstrap", "-B", help="Bootstrap resamples (with --interval bootstrap)."
)
_RESAMPLE_OPT = typer.Option(
    Resample.topics, "--resample", help="What the bootstrap resamples: topics, systems or both."
)
_SEED_OPT = seed_option(
    "Seed of the bootstrap (every measure gets the same resamples: paired)."
)


def _dstudies(
    matrices,
    n_topics,
    targets,
    drop_worst,
    confidence,
    interval,
    n_resamples,
    resample,
    seed,
    progress,
):
    """G-study and D-study per measure (bootstrap progress on the bar).

    A measure whose G-study is undefined (every score equal, ...) is left out
    with a warning naming it, so the others still report; if every measure is
    left out, the first one's error is raised.
    """
    import warnings

    from ..errors import DegenerateDataError, IRStabWarning
    from ..stability import gstudy

    out = []
    task = None
    if interval is IntervalMethod.bootstrap:
        task = progress.add_task("bootstrap", total=len(matrices) * n_resamples)
    failed = []
    for i, (name, frame) in enumerate(matrices):
        try:
            g = gstudy(frame, drop_worst=drop_worst, name=name)
        except DegenerateDataError as exc:
            if len(matrices) == 1:
                raise
            failed.append(exc)
            warnings.warn(f"{exc}; left out", IRStabWarning, stacklevel=2)
            continue
        done = i * n_resamples
        d = g.dstudy(
            n_topics(g) if callable(n_topics) else n_topics,
            targets=targets,
            confidence=confidence,
            interval=interval,
            n_resamples=n_resamples,
            resample=resample,
            seed=seed,
            progress=(lambda k, done=done: progress.update(task, completed=done + k))
            if task is not None
            else None,
        )
        out.append((g, d))
    if not out:
        raise DegenerateDataError(f"no measure has a G-study: {'; '.join(map(str, failed))}")
    return out


def _count(v: float) -> int | None:
    return None if math.isinf(v) else int(v)


def _fmt_count(v) -> str:
    return "inf" if v is None else str(v)


def _stability_records(results, target: float) -> list[dict]:
    rows = []
    for g, d in results:
        need = {t.coefficient.value: t for t in d.topics_needed if t.target == target}
        pct = g.percent
        rows.append(
            {
                "measure": g.name,
                "n_systems": g.n_systems,
                "n_topics": g.n_topics,
                "var_system": g.var_system,
                "pct_system": pct[0],
                "var_topic": g.var_topic,
                "pct_topic": pct[1],
                "var_residual": g.var_residual,
                "pct_residual": pct[2],
                "erho2": d.erho2[0],
                "erho2_lower": d.erho2_lower[0],
                "erho2_upper": d.erho2_upper[0],
                "phi": d.phi[0],
                "phi_lower": d.phi_lower[0],
                "phi_upper": d.phi_upper[0],
                "topics_needed_phi": _count(need["phi"].n),
                "topics_needed_phi_lower": _count(need["phi"].lower),
                "topics_needed_phi_upper": _count(need["phi"].upper),
                "topics_needed_erho2": _count(need["erho2"].n),
                "topics_needed_erho2_lower": _count(need["erho2"].lower),
                "topics_needed_erho2_upper": _count(need["erho2"].upper),
            }
        )
    rows.sort(key=lambda r: (-r["phi"], str(r["measure"])))
    return rows


_JSON_KEYS = (
    "measure",
    "definition",
    "n_systems",
    "n_topics",
    "var_system",
    "var_topic",
    "var_residual",
    "erho2",
    "erho2_ci",
    "phi",
    "phi_ci",
    "topics_needed_phi",
    "topics_needed_phi_ci",
    "topics_needed_erho2",
    "topics_needed_erho2_ci",
)


def _stability_json(rows: list[dict], defined: dict[str, str]) -> str:
    out = []
    for r in rows:
        r = dict(
            r,
            definition=defined.get(r["measure"]),
            erho2_ci=[r["erho2_lower"], r["erho2_upper"]],
            phi_ci=[r["phi_lower"], r["phi_upper"]],
            topics_needed_phi_ci=[r["topics_needed_phi_lower"], r["topics_needed_phi_upper"]],
            topics_needed_erho2_ci=[r["topics_needed_erho2_lower"],
                                    r["topics_needed_erho2_upper"]],
        )
        out.append({k: r[k] for k in _JSON_KEYS})
    return to_json(out)


def _stability_table(rows: list[dict], target: float, confidence: float) -> str:
    def ci(lo, hi, f="{:.3f}"):
        return f"[{f.format(lo)}, {f.format(hi)}]"

    def need(r, c):
        n = _fmt_count(r[f"topics_needed_{c}"])
        lo, hi = (
            _fmt_count(r[f"topics_needed_{c}_lower"]),
            _fmt_count(r[f"topics_needed_{c}_upper"]),
        )
        return f"{n} [{lo}, {hi}]"

    frame = pd.DataFrame(
        {
            "measure": [r["measure"] for r in rows],
            "sys": [r["n_systems"] for r in rows],
            "top": [r["n_topics"] for r in rows],
            "var_sys (%)": [f"{r['var_system']:.5f} ({r['pct_system']:.1f})" for r in rows],
            "var_top (%)": [f"{r['var_topic']:.5f} ({r['pct_topic']:.1f})" for r in rows],
            "var_res (%)": [f"{r['var_residual']:.5f} ({r['pct_residual']:.1f})" for r in rows],
            "Erho2 [CI]": [
                f"{r['erho2']:.3f} " + ci(r["erho2_lower"], r["erho2_upper"]) for r in rows
            ],
            "Phi [CI]": [f"{r['phi']:.3f} " + ci(r["phi_lower"], r["phi_upper"]) for r in rows],
            f"topics Phi>={target:g}": [need(r, "phi") for r in rows],
            f"topics Erho2>={target:g}": [need(r, "erho2") for r in rows],
        }
    )
    note = f"# intervals: {confidence:.0%} two-sided; sorted by Phi\n"
    return table_text(frame) + "\n" + note


@app.command()
def stability(
    qrels: Path | None = QRELS_ARG,
    runs: list[Path] | None = RUNS_ARG,
    measure: list[str] = _MEASURE_OPT,
    rel: int | None = REL_OPTION,
    scores: list[Path] = SCORES_OPTION,
    systems: SystemsChoice = SYSTEMS_OPTION,
    depth: int = _DEPTH_OPT,
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
    drop_worst: float = _DROP_OPT,
    confidence: float = _CONF_OPT,
    target: float = typer.Option(
        0.95, "--target", help="Target coefficient for the topics needed (both Phi and Erho2)."
    ),
    interval: IntervalMethod = _INTERVAL_OPT,
    n_resamples: int = _NBOOT_OPT,
    resample: Resample = _RESAMPLE_OPT,
    seed: int = _SEED_OPT,
    design: Design | None = typer.Option(
        None,
        "--design",
        help="With --scores in the long form system,topic,assessor,score: the assessor facet's "
        "design, nested (s x (a:t)) or crossed (s x t x a); see `irstab assessors`.",
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """G-study per measure: variance components, Erho2 and Phi with intervals, topics needed.

    One row per measure, sorted by Phi (dependability) at the collection's
    topic count: the system, topic and residual (system x topic + error)
    variance components (raw estimates; % of the total of the components
    truncated at 0), Erho2 and Phi with intervals, and the topics needed for
    --target. JSON: a list of objects with keys measure, definition (the full
    measure string; null for --scores), n_systems, n_topics,
    var_system, var_topic, var_residual, erho2, erho2_ci, phi, phi_ci,
    topics_needed_phi, topics_needed_phi_ci, topics_needed_erho2, topics_needed_erho2_ci
    (null = unreachable).

    Erho2 (generalizability) = var_sys / (var_sys + var_res / topics): how
    reliably the systems' relative order carries over to new topics. Phi
    (dependability) = var_sys / (var_sys + (var_top + var_res) / topics): also
    counts topic difficulty, so it speaks of absolute scores (Phi <= Erho2).
    A wide --scores file with topics in rows: --systems columns.

    With --design, each --scores file holds system,topic,assessor,score and
    the G-study has an assessor facet (output as `irstab assessors`;
    intervals only with --interval bootstrap).
    """
    show_warnings_on_stderr()
    if design is not None:
        from .assessors import stability_with_design

        from ..errors import IRStabError

        if drop_worst:
            raise IRStabError("--drop-worst: not available with --design")
        boot = n_resamples if interval is IntervalMethod.bootstrap else 0
        return stability_with_design(scores, design, target, boot, seed, fmt, output,
                                     confidence)
    measures = cli_measures(measure, rel, scores)
    with progress_bar() as progress:
        matrices = score_matrices_from_args(qrels, runs, measures, scores, depth, progress, scheduler,
                                            systems, order)
        results = _dstudies(
            matrices,
            None,
            (target,),
            drop_worst,
            confidence,
            interval,
            n_resamples,
            resample,
            seed,
            progress,
        )
    rows = _stability_records(results, target)
    if fmt is OutputFormat.json:
        from ..metrics import definitions

        emit(_stability_json(rows, definitions(measures)), output)
    elif fmt is OutputFormat.table:
        emit(_stability_table(rows, target, confidence), output)
    else:
        emit(render_frame(pd.DataFrame(rows), fmt), output)


_DEFAULT_SIZES = (1, 5, 10, 20, 50, 100, 200)
_FIGURE_POINTS = 300  # per spacing; the curve is sampled, never enumerated up to max(--topics)


def _figure_grid(largest: int) -> set[int]:
    """Topic-set sizes drawn in the figure: every size up to 300, else 300 even and 300
    geometric steps (the curve bends at small sizes), so memory does not grow with -n."""
    if largest <= _FIGURE_POINTS:
        return set(range(1, largest + 1))
    even = np.linspace(1, largest, _FIGURE_POINTS)
    geometric = np.geomspace(1, largest, _FIGURE_POINTS)
    return {int(v) for v in np.rint(np.concatenate([even, geometric]))}


@app.command()
def topics(
    qrels: Path | None = QRELS_ARG,
    runs: list[Path] | None = RUNS_ARG,
    measure: list[str] = _MEASURE_OPT,
    rel: int | None = REL_OPTION,
    scores: list[Path] = SCORES_OPTION,
    systems: SystemsChoice = SYSTEMS_OPTION,
    n_topics: list[int] = typer.Option(
        [],
        "--topics",
        "-n",
        help="Topic-set size for the table, repeatable (default 1 5 10 20 50 100 200 and the "
        "observed count).",
    ),
    target: list[float] = typer.Option(
        [],
        "--target",
        help="Target coefficient for the topics needed, repeatable (default 0.8 0.9 0.95).",
    ),
    needed: bool = typer.Option(
        False, "--needed", help="Output only the topics-needed table (for tsv/csv/json pipelines)."
    ),
    figure: Path | None = typer.Option(
        None, "--figure", help="Write the D-study figure here (png, pdf, svg: from the suffix)."
    ),
    coefficient: Coefficient = typer.Option(
        "phi", "--coefficient", help="Coefficient drawn in the figure: Phi, Erho2 or both."),
    depth: int = _DEPTH_OPT,
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
    drop_worst: float = _DROP_OPT,
    confidence: float = _CONF_OPT,
    interval: IntervalMethod = _INTERVAL_OPT,
    n_resamples: int = _NBOOT_OPT,
    resample: Resample = _RESAMPLE_OPT,
    seed: int = _SEED_OPT,
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """D-study: Erho2 and Phi against the number of topics, and the topics needed per target.

    Table format prints the curve and the topics-needed table; json gives
    {"curve": [...], "topics_needed": [...]}; tsv/csv give the curve (or, with
    --needed, the topics-needed table). --figure plots the curve from 1 to
    max(--topics) with interval bands (Kanoulas & Aslam, CIKM 2009, Fig. 4):
    every size up to 300, beyond that 600 sampled sizes. Erho2 and Phi as in
    `irstab stability --help`.
    """
    from ..errors import IRStabError

    show_warnings_on_stderr()
    if any(n < 1 for n in n_topics):
        raise IRStabError(f"--topics: sizes must be >= 1, got {sorted(n_topics)}")
    coefficient = coefficient.value
    targets = tuple(target) or (0.8, 0.9, 0.95)

    def sizes(g):
        table = sorted(set(n_topics) if n_topics else {*_DEFAULT_SIZES, g.n_topics})
        grid = set(table) | (_figure_grid(max(table)) if figure is not None else set())
        return sorted(grid)

    measures = cli_measures(measure, rel, scores)
    with progress_bar() as progress:
        matrices = score_matrices_from_args(qrels, runs, measures, scores, depth, progress, scheduler,
                                            systems, order)
        results = _dstudies(
            matrices,
            sizes,
            targets,
            drop_worst,
            confidence,
            interval,
            n_resamples,
            resample,
            seed,
            progress,
        )
    dstudies = [d for _, d in results]
    if figure is not None:
        from ..report.figures import plot_dstudy

        fig = plot_dstudy(dstudies, figure, coefficient=coefficient, targets=targets)
        import matplotlib.pyplot as plt

        plt.close(fig)
        say(f"wrote {figure}", err=True)

    curve = pd.concat([d.to_frame() for d in dstudies], ignore_index=True)
    keep = curve["n_topics"].isin(
        [float(n) for n in n_topics]
        if n_topics
        else [float(n) for n in _DEFAULT_SIZES] + [float(d.n_topics_observed) for d in dstudies]
    )
    curve = curve[keep].reset_index(drop=True)
    curve["n_topics"] = curve["n_topics"].astype(int)
    need = pd.concat([d.topics_needed_frame() for d in dstudies], ignore_index=True)
    for col in ("topics_needed", "lower", "upper"):
        need[col] = [_count(v) for v in need[col]]

    if fmt is OutputFormat.json:
        records = need.astype(object).where(need.notna(), None).to_dict(orient="records")
        if needed:
            emit(to_json(records), output)
        else:
            emit(
                to_json({"curve": curve.to_dict(orient="records"), "topics_needed": records}),
                output,
            )
    elif fmt is OutputFormat.table:
        shown = need.assign(
            target=[f"{t:g}" for t in need["target"]],
            **{c: [_fmt_count(v) for v in need[c]] for c in ("topics_needed", "lower", "upper")},
        )
        text = render_frame(shown, fmt)
        if not needed:
            text = (
                render_frame(curve, fmt, "%.4f")
                + f"\n# topics needed ({confidence:.0%} {interval.value} interval)\n"
                + text
            )
        emit(text, output)
    else:
        emit(render_frame(need if needed else curve, fmt), output)
