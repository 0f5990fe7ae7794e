"""``irstab calibrate``: how often each answer would be wrong on collections like this one."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from .._repr import escape_name
from .typer_app import app
from ._common import (
    MEASURE_HELP,
    ORDER_OPTION,
    OUTPUT_OPTION,
    QRELS_ARG,
    REL_OPTION,
    RUNS_ARG,
    SCHEDULER_OPTION,
    SCORES_OPTION,
    SYSTEMS_OPTION,
    OutputFormat,
    RankOrderChoice,
    SystemsChoice,
    cli_measures,
    emit,
    progress_bar,
    render_frame,
    seed_option,
    show_warnings_on_stderr,
    table_text,
    to_json,
)


class CopulaChoice(str, Enum):
    """``--copula``: :class:`irstab.simulate.CopulaKind`."""

    gaussian = "gaussian"
    vine = "vine"


def _rate(v: float, se: float, pct: bool = False) -> str:
    if v != v:
        return "-"
    return f"{v:.1%} +- {se:.1%}" if pct else f"{v:.3f} +- {se:.3f}"


def _count(v) -> str:
    """A topic count of the card: ``never`` where none reaches the target (JSON null)."""
    return "never" if v is None else f"{v:g}"


def _table(card) -> str:
    import pandas as pd

    m = card.model_dict()
    lines = [f"# {escape_name(card.measure or 'scores')}: {m['n_systems']} systems, simulated at "
             f"{m['n_topics']} topics (the collection has {m['n_topics_observed']}); "
             f"{m['n_replicates']} collections in blocks of {m['block_size']}, "
             f"{m['planted_pairs_per_collection']} planted pairs each; B = {m['n_resamples']}",
             f"# model: margins {', '.join(f'{k} {v}' for k, v in m['margins'].items())}; "
             f"{m['copula']}"]
    if card.fit is not None:
        lines.append(f"# fit check: {card.fit.summary()}")
    rows = []
    for r in card.tests:
        row = {"test": r.test, "correction": r.correction, "alpha": f"{r.alpha:g}",
               "type I": _rate(r.type_i, r.type_i_se)}
        for k, (v, se) in r.power.items():
            row[f"power {k}"] = _rate(v, se)
        for k, (v, se) in r.type_iii.items():
            row[f"type III {k}"] = _rate(v, se)
        rows.append(row)
    out = "\n".join(lines) + "\n" + table_text(pd.DataFrame(rows)) + "\n\n"
    if card.verdict is not None:
        v = card.verdict.to_dict()
        out += (f"verdict ({v['interval']} interval, {v['n_replicates']} collections each): "
                f"coverage {_rate(v['coverage'], v['coverage_se'], True)}, wrong changes "
                f"{_rate(v['wrong_change'], v['wrong_change_se'], True)}, power at a planted "
                f"Phi difference of {v['planted_phi_difference']:+.4f} "
                f"{_rate(v['power'], v['power_se'], True)}\n")
    t = card.topics_needed.to_dict()
    if t["phi_reached_mean"] is None:  # no simulated G-study found any system variance
        out += f"topics needed for Phi = {t['target']:g}: never reached in the simulations\n"
    else:
        reached = _rate(t["reaches_target"], t["reaches_target_se"], True)
        out += (f"topics needed for Phi = {t['target']:g}: true {_count(t['true_topics_needed'])}; "
                f"estimated from {t['n_topics']} topics: median {_count(t['estimated_median'])}, "
                f"90 % between {_count(t['estimated_q05'])} and {_count(t['estimated_q95'])}; "
                "true Phi reached "
                f"{t['phi_reached_mean']:.4f} +- {t['phi_reached_mean_se']:.4f} on average, "
                f"at least {t['target']:g} in {reached} ({t['n_replicates']} collections)\n")
    for note in card.notes:
        out += f"note: {note}\n"
    out += "\n" + "\n".join(card.card()) + "\n"
    return out


def _render(card, fmt: OutputFormat) -> str:
    renderers = {
        OutputFormat.table: _table,
        OutputFormat.json: lambda c: to_json(c.to_dict()),
        OutputFormat.tsv: lambda c: render_frame(c.to_frame(), OutputFormat.tsv),
        OutputFormat.csv: lambda c: render_frame(c.to_frame(), OutputFormat.csv),
    }
    return renderers[fmt](card)


@app.command()
def calibrate(
    qrels: Path | None = QRELS_ARG,
    runs: list[Path] | None = RUNS_ARG,
    measure: list[str] = typer.Option(
        [], "--measure", "-m", help="The one measure to calibrate on. " + MEASURE_HELP),
    rel: int | None = REL_OPTION,
    scores: list[Path] = SCORES_OPTION,
    systems_in: SystemsChoice = SYSTEMS_OPTION,
    topics: int | None = typer.Option(
        None, "--topics", "-n", min=2,
        help="Topics of the simulated collections (a planned collection); default: the "
        "collection's own number."),
    alpha: list[float] = typer.Option(
        [0.05], "--alpha", help="Significance level(s) of the tests (comma list)."),
    delta: list[float] = typer.Option(
        [0.01, 0.02, 0.05], "--delta",
        help="Planted differences of expected scores at which power and wrong-sign (type III) "
        "errors are measured (comma list)."),
    replicates: int | None = typer.Option(
        None, "--replicates", "-R", min=1,
        help="Simulated collections for the tests; default: enough for a Monte-Carlo error "
        "of about 0.005 on a 5 % type I error."),
    resamples: int = typer.Option(
        1000, "--bootstrap", "-B", min=1,
        help="Resamples B of the Monte-Carlo tests (permutation, bootstrap, Tukey HSD)."),
    bounds: tuple[float, float] = typer.Option(
        (0.0, 1.0), "--bounds",
        help="The measure's range LO HI (default 0 1, every measure irstab normalises; an "
        "unnormalised DCG needs its own)."),
    verdict_replicates: int = typer.Option(
        200, "--verdict-replicates", min=0,
        help="Collections of each of the verdict's two universes (0: leave the verdict out)."),
    copula: CopulaChoice = typer.Option(
        CopulaChoice.gaussian, "--copula",
        help="Dependence between systems: gaussian (fast) or vine (pyvinecopulib)."),
    seed: int = seed_option("Seed of the simulation."),
    depth: int = typer.Option(
        1000, "--depth", "-M", min=1,
        help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all)."),
    order: RankOrderChoice = ORDER_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    fmt: OutputFormat = typer.Option(
        OutputFormat.table, "--format", "-f",
        help="table (the card's numbers and sentences), tsv/csv (one row per test, "
        "correction and alpha) or json (model, fit, tests, verdict, topics_needed)."),
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """How often each answer would be wrong on collections like this one.

    Fits the simulator of the collection (a bounded margin per system, a copula
    between systems; Urbano & Nagler, SIGIR 2018) to the measure's scores, draws
    collections with effects planted exactly, and measures, each with its
    Monte-Carlo error: for the paired t, permutation, bootstrap, Wilcoxon and sign
    tests, alone and with Holm or Benjamini-Hochberg over all pairs, and for the
    randomised Tukey HSD, the type I error, the power and the wrong-sign (type III)
    rate at each --delta; the verdict's coverage, wrong changes and power (in
    universes made of the collection's own scores); and the true Phi reached by
    the topics a G-study says are needed for Phi = 0.95.
    """
    from ..trust.card import calibrate_collection
    from ..errors import IRStabError
    from ._common import score_matrices_from_args

    show_warnings_on_stderr()
    if not scores and not measure:
        raise IRStabError("give the measure to calibrate on with -m (e.g. -m nDCG@10)")
    measures = cli_measures(measure, rel, scores)
    if len(measures) > 1:
        raise IRStabError(f"-m: calibrate on one measure, got {len(measures)} "
                          f"({', '.join(str(m) for m in measures[:5])})")
    from ..collection.cluster import scheduler_client

    with progress_bar() as progress:
        matrices = score_matrices_from_args(qrels, runs, measures, scores, depth, progress,
                                            scheduler, systems_in.value, order,
                                            cluster_after=True)
        if len(matrices) != 1:
            raise IRStabError(f"--scores: calibrate on one measure, the file(s) hold "
                              f"{len(matrices)} ({', '.join(n for n, _ in matrices[:5])})")
        name, frame = matrices[0]
        tasks = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done)

        # the library names its argument ("scores: ..."); the command names the file
        where = (str(scores[0]) if scores else
                 f"{escape_name(name)} on {qrels} and {len(runs or [])} run path(s)")
        with scheduler_client(scheduler) as client:
            try:
                card = calibrate_collection(
                    frame, n_topics=topics, alpha=alpha, deltas=delta, n_replicates=replicates,
                    n_resamples=resamples, copula=copula.value, bounds=tuple(bounds),
                    verdict_replicates=verdict_replicates, measure=name, seed=seed,
                    progress=advance, client=client)
            except IRStabError as exc:
                text = str(exc)
                if text.startswith("scores: "):
                    raise type(exc)(f"{where}: {text[len('scores: '):]}") from None
                raise
    emit(_render(card, fmt), output)
