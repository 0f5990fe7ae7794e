"""``irstab design power|budget``: plan the next test collection.

``power`` (Sakai, Information Retrieval Journal 2016): topics for a paired t-test, a one-way
ANOVA and a confidence interval, from the residual variance of this collection's scores, and
what this collection can detect. ``budget``: the best split of a number of judgments over
topics, pool depth and assessors, with the runs re-evaluated at each pool depth.
Each command calls one library function of :mod:`irstab.design` and renders its result.
"""

from __future__ import annotations

import math
from enum import Enum
from pathlib import Path

import pandas as pd
import typer

from .._repr import escape_name
from ..errors import IRStabError
from ._common import (
    FORMAT_OPTION,
    MEASURE_HELP,
    OUTPUT_OPTION,
    QRELS_ARG,
    REL_OPTION,
    RUNS_ARG,
    SCHEDULER_OPTION,
    ORDER_OPTION,
    RankOrderChoice,
    SCORES_OPTION,
    SYSTEMS_OPTION,
    OutputFormat,
    SystemsChoice,
    cli_measures,
    emit,
    progress_bar,
    render_frame,
    score_matrices_from_args,
    show_warnings_on_stderr,
    to_json,
    say,
    table_text,
)
from .typer_app import app

design_app = typer.Typer(
    name="design",
    help=(
        "Plan the next test collection: topics by statistical power (paired t-test, ANOVA, "
        "CI width; Sakai, IRJ 2016) and the best split of a judging budget over topics, pool "
        "depth and assessors."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(design_app, name="design")

_ALPHA = typer.Option(0.05, "--alpha", help="Significance level (two-sided t-test and CI).")
_BETA = typer.Option(0.20, "--beta", help="Type II error: the power asked for is 1 - beta.")
_DEPTH = typer.Option(
    1000, "--depth", "-M",
    help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all).")


class PowerMethod(str, Enum):
    """How power is computed."""

    exact = "exact"  # noncentral t and F
    sakai = "sakai"  # the normal approximations of Sakai's Excel tools


def _power_text(beta: float) -> str:
    from ..design.power import power_text

    return power_text(beta)


def _count(v) -> str:
    return "inf" if v is None or (isinstance(v, float) and not math.isfinite(v)) else str(int(v))


# ----------------------------------------------------------------- power


def _power_table(study) -> str:
    p0 = study.plans[0]
    rows = []
    for p in study.plans:
        rows.append({
            "measure": p.measure,
            "sigma2": f"{p.variance.variance:.5f}",
            f"t-test D={p.min_diff:g}": _count(p.topics_ttest),
            f"ANOVA m={p.m} D={p.min_range:g}": _count(p.topics_anova),
            f"CI +-{p.half_width:g}": _count(p.topics_ci),
            f"detectable@{p.n_topics}": f"{p.mdd_ttest:.4f}",
            f"range@{p.n_topics}": f"{p.mdr_anova:.4f}",
            f"CI+-@{p.n_topics}": f"{p.ci_half_width:.4f}",
            f"power@{p.n_topics}": f"{p.power_ttest:.3f}",
        })
    note = (
        f"# topics needed for the next collection (alpha {p0.alpha:g}, power "
        f"{_power_text(p0.beta)}, {p0.method.value}); @{p0.n_topics}: what this collection's "
        f"{p0.n_topics} topics detect, and the t-test's power at D={p0.min_diff:g}\n"
        "# sigma2: residual variance of the systems x topics ANOVA; paired differences use "
        "2 x sigma2\n"
    )
    return table_text(pd.DataFrame(rows)) + "\n" + note




@design_app.command()
def power(
    qrels: Path | None = QRELS_ARG,
    runs: list[Path] | None = RUNS_ARG,
    measure: list[str] = typer.Option([], "--measure", "-m", help=MEASURE_HELP),
    rel: int | None = REL_OPTION,
    scores: list[Path] = SCORES_OPTION,
    alpha: float = _ALPHA,
    beta: float = _BETA,
    min_diff: float = typer.Option(
        0.05, "--min-diff", help="Minimum detectable difference of the paired t-test (minD_t)."
    ),
    min_range: float | None = typer.Option(
        None, "--min-range",
        help="Minimum detectable range (best minus worst system) of the one-way ANOVA; "
        "default --min-diff.",
    ),
    half_width: float | None = typer.Option(
        None, "--half-width",
        help="Cap on the expected half-width of the paired interval; default --min-diff / 2 "
        "(an interval as wide as the difference).",
    ),
    n_systems: int | None = typer.Option(
        None, "--n-systems", min=2,
        help="Systems the ANOVA compares (default: those of the data).",
    ),
    method: PowerMethod = typer.Option(
        PowerMethod.exact, "--method",
        help="exact (noncentral t and F) or sakai (the normal approximations of Sakai's "
        "Excel tools).",
    ),
    systems: SystemsChoice = SYSTEMS_OPTION,
    pairs: bool = typer.Option(
        False, "--pairs",
        help="Output every pair's paired t-test with its achieved power instead.",
    ),
    figure: Path | None = typer.Option(
        None, "--figure",
        help="Write topics needed against the detectable difference here (png, pdf, svg).",
    ),
    depth: int = _DEPTH,
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """Topics by statistical power: paired t-test, one-way ANOVA, confidence interval.

    Per measure, from this collection's residual variance sigma2 (two-way ANOVA
    without replication, as Sakai's topic set size design; a paired difference
    has variance 2 x sigma2): the topics the next collection needs for a paired
    t-test to detect --min-diff, a one-way ANOVA over --n-systems to detect a range
    --min-range, and a paired interval no wider than +- --half-width; then what
    this collection's topics detect (difference, range, half-width) and the
    t-test's power at --min-diff. --pairs: one row per pair of systems with its
    p-value and achieved power (a function of the p-value: 0.5 at p = alpha).
    JSON: {"plans": [...]} (and "pairs").
    """
    from ..design import power_study

    show_warnings_on_stderr()
    if figure is not None:
        from ..report.figures import check_format

        check_format(figure)
    from ..design.plan import _check_requirement
    from ..design.power import check_alpha_beta

    check_alpha_beta(alpha, beta)  # before any run is read
    for name, value in (("min_diff", min_diff), ("min_range", min_range),
                        ("half_width", half_width)):
        if value is not None:
            _check_requirement(name, value)
    measures = cli_measures(measure, rel, scores)
    with progress_bar() as progress:
        matrices = score_matrices_from_args(qrels, runs, measures, scores, depth, progress,
                                            scheduler, systems.value, order)
        study = power_study(matrices, alpha=alpha, beta=beta, min_diff=min_diff,
                            min_range=min_range, half_width=half_width, m=n_systems,
                            method=method.value, pairs=pairs)
    if figure is not None:
        from ..report.design_figures import plot_topics_needed

        fig = plot_topics_needed(study, figure)
        import matplotlib.pyplot as plt

        plt.close(fig)
        say(f"wrote {figure}", err=True)
    if fmt is OutputFormat.json:
        emit(to_json(study.to_dict()), output)
    elif pairs:
        emit(render_frame(study.pairs, fmt), output)
    elif fmt is OutputFormat.table:
        emit(_power_table(study), output)
    else:
        emit(render_frame(study.to_frame(), fmt), output)


# ----------------------------------------------------------------- budget


def _check_depths(depths: list[int]) -> tuple[int, ...]:
    ds = tuple(sorted(set(int(d) for d in depths)))
    if not ds or ds[0] < 1:
        raise IRStabError(f"--depths: expected positive integers, got {list(depths)}")
    return ds


def _budget_table(plans, study) -> str:
    parts = []
    for plan in plans:
        d = plan.designs.copy()
        shown = pd.DataFrame({
            "": ["*" if c else "" for c in d["chosen"]],
            "depth": d["depth"],
            "assessors": d["n_assessors"],
            "judgments/topic": [f"{v:.1f}" for v in d["judgments_per_topic"]],
            "coverage": [f"{v:.2f}" for v in d["coverage"]],
            "tau vs full": [f"{v:.3f}" for v in d["tau_full"]],
            "topics": [str(v) if f else f"({v})" for v, f in zip(d["n_topics"], d["feasible"])],
            "cost": [f"{v:.0f}" for v in d["cost"]],
            "Phi": [f"{v:.4f}" for v in d["phi"]],
            "detectable": [f"{v:.4f}" for v in d["mdd"]],
        })
        c, cur = plan.chosen, plan.current
        head = (f"# {escape_name(plan.measure)}: budget {plan.budget:,.0f} judgments"
                + (f", {plan.cost_per_topic:g} per topic made" if plan.cost_per_topic else "")
                + f"; objective {plan.objective.value}"
                + (f"; depths with tau >= {plan.min_tau:g}" if plan.min_tau is not None else ""))
        tail = (
            f"# chosen (*): {c['n_topics']} topics, pool depth {c['depth']}, "
            f"{c['n_assessors']} assessor(s) per document: Phi {c['phi']:.4f}, detectable "
            f"difference {c['mdd']:.4f} (t-test, alpha {plan.alpha:g}, power "
            f"{_power_text(plan.beta)})\n"
            f"# this collection: {cur['n_topics']} topics, {cur['judgments']:,} judgments (cost "
            f"{cur['cost']:,.0f}): Phi "
            f"{cur['phi']:.4f}, detectable difference {cur['mdd']:.4f}\n"
        )
        if c["coverage"] < 0.9:
            tail += (f"# the qrels judge {c['coverage']:.0%} of the pool at depth {c['depth']}: "
                     "its scores count the rest as non-relevant\n")
        parts.append(head + "\n" + table_text(shown) + "\n" + tail)
    return "\n".join(parts)




def _cheap_line(p, path) -> str:
    """One comment line per measure: the cheap-judge design beside gold only."""
    what = "Phi" if p.objective == "phi" else "95% half-width of a pair's difference"

    def fig(phi, hw):
        return f"{phi:.4f}" if p.objective == "phi" else f"{hw:.4f}"

    go = p.gold_only
    if p.uses_gold_only:
        chosen = f"gold only is better: {p.n_gold} topics"
    else:
        chosen = (f"{p.n_gold} gold topics + cheap labels on {p.n_topics} topics "
                  f"({p.gold_labels:,.0f} gold, {p.cheap_labels:,.0f} cheap labels)")
    goal = (f"budget {p.budget:,.0f}" if p.mode == "budget"
            else f"least cost for half-width {p.target:g}")
    return (f"# cheap judge {Path(path).name} ({p.cheap_cost:g} per label), "
            f"{escape_name(p.measure)}, {goal}: {chosen}, cost {p.cost:,.0f}, {what} "
            f"{fig(p.phi, p.half_width)} (gold only: {go['n_topics']} topics, cost "
            f"{go['cost']:,.0f}, {fig(go['phi'], go['half_width'])})\n")


@design_app.command()
def budget(
    qrels: Path = typer.Argument(..., metavar="QRELS", help="TREC qrels file, plain or .gz."),
    runs: list[Path] = typer.Argument(
        ..., metavar="RUNS...", help="TREC run files and/or directories (the pools' sources)."
    ),
    measure: list[str] = typer.Option(
        ["nDCG@10"], "--measure", "-m", help=MEASURE_HELP + " Default nDCG@10."
    ),
    rel: int | None = REL_OPTION,
    budget: float | None = typer.Option(
        None, "--budget", "-J",
        help="Judgments to spend (default: what QRELS holds on the evaluated topics).",
    ),
    cost_per_topic: float = typer.Option(
        0.0, "--cost-per-topic",
        help="Cost of making one topic, in judgments (writing it, running the systems).",
    ),
    depths: list[int] = typer.Option(
        [5, 10, 20, 50, 100], "--depths", help="Pool depths studied (comma list or repeated)."
    ),
    objective: str = typer.Option(
        "phi", "--objective",
        help="phi (maximise dependability) or mdd (minimise the t-test's detectable difference).",
    ),
    min_tau: float | None = typer.Option(
        None, "--min-tau",
        help="Only depths whose system ranking has Kendall tau >= this with the full qrels.",
    ),
    assessor_qrels: list[Path] = typer.Option(
        [], "--assessor-qrels", "-a",
        help="Assessors' qrels (files or directories, repeatable): adds assessors per "
        "document to the designs (three-facet G-study; see `irstab assessors`).",
    ),
    design: str = typer.Option(
        "nested", "--design", help="Assessor facet design: nested (s x (a:t)) or crossed."
    ),
    max_assessors: int | None = typer.Option(
        None, "--max-assessors",
        help="Most assessors per document considered (default 3 with --assessor-qrels, else 1).",
    ),
    cheap_qrels: Path | None = typer.Option(
        None, "--cheap-qrels",
        help="A cheap judge's labels (LLM, crowd) of the same pools: plans gold topics + "
        "cheap labels by prediction-powered inference (see docs/judges-ppi.md).",
    ),
    cheap_cost: float = typer.Option(
        0.01, "--cheap-cost", help="Cost of one cheap label, in gold judgments."),
    cheap_width: float | None = typer.Option(
        None, "--cheap-width",
        help="With --cheap-qrels: the least cost reaching this half-width of the 95% "
        "interval of a pair's difference, instead of the best use of the budget.",
    ),
    alpha: float = _ALPHA,
    beta: float = _BETA,
    frontier: bool = typer.Option(
        False, "--frontier", help="Output the frontier (best design per budget) instead."
    ),
    figure: Path | None = typer.Option(
        None, "--figure",
        help="Write the budget frontier with the chosen design marked here (png, pdf, svg).",
    ),
    depth: int = _DEPTH,
    order: RankOrderChoice = ORDER_OPTION,
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """Best split of a judging budget over topics, pool depth and assessors.

    A design (topics, depth, assessors) judges the pool of depth d (the
    documents some run puts in its top d) of every topic, each document by
    that many assessors, and costs topics x (cost per topic + assessors x pool
    size). The runs are re-evaluated with the qrels restricted to each pool
    depth (a shallow pool changes the scores, not only their variance) and
    the G-study of those scores gives each design's Phi and the paired
    t-test's detectable difference. For the budget, every (depth, assessors)
    pair affords as many topics as it can; the best by --objective is chosen
    (ties: cheaper, shallower, fewer assessors). Coverage: the share of the
    pool the qrels judge (the rest counts as non-relevant); tau vs full: the
    system ranking against the full qrels'. JSON: {"depth_study": ...,
    "plans": [...]}; --frontier: the best design per budget of a grid.

    With --cheap-qrels, a cheap judge becomes a resource too: N topics
    labelled by it (at --cheap-cost per label), n of them also by gold, the
    means and differences estimated by PPI++ with variance sigma2_rect/n +
    sigma2_cheap/N (both from these qrels and the cheap ones); for the budget
    (or the least cost reaching --cheap-width), the best (n, N) for the
    interval of pairs' differences (--objective mdd) or the runs' Phi (phi),
    beside gold only. JSON: a "cheap" list, one plan per measure.
    """
    from ..design import budget_plan, depth_study

    show_warnings_on_stderr()
    if figure is not None:
        from ..report.figures import check_format

        check_format(figure)
    ds = _check_depths(depths)
    if objective not in ("phi", "mdd"):
        raise IRStabError(f"--objective: expected phi or mdd, got {objective!r}")
    if design not in ("nested", "crossed"):
        raise IRStabError(f"--design: expected nested or crossed, got {design!r}")
    if budget is not None and not (math.isfinite(budget) and budget > 0):
        raise IRStabError(f"--budget: must be a number of judgments > 0, got {budget!r}")
    if not (math.isfinite(cost_per_topic) and cost_per_topic >= 0):
        raise IRStabError(f"--cost-per-topic: must be >= 0, got {cost_per_topic!r}")
    if max_assessors is not None and max_assessors > 1 and not assessor_qrels:
        raise IRStabError("--max-assessors: more than one assessor per document needs "
                          "--assessor-qrels to estimate the assessor variance")
    if max_assessors is not None and max_assessors >= 1:
        from ..design.budget import check_designs

        check_designs(len(ds), max_assessors)  # before the depth study, not after it
    if cheap_qrels is None and cheap_width is not None:
        raise IRStabError("--cheap-width: needs --cheap-qrels (the cheap judge's labels)")
    if not (math.isfinite(cheap_cost) and cheap_cost >= 0):
        raise IRStabError(f"--cheap-cost: must be a finite number >= 0, got {cheap_cost!r}")
    if cheap_width is not None and not (math.isfinite(cheap_width) and cheap_width > 0):
        raise IRStabError(f"--cheap-width: must be a number > 0, got {cheap_width!r}")
    if cheap_qrels is not None and not Path(cheap_qrels).is_file():
        raise IRStabError(f"--cheap-qrels: no such file: {cheap_qrels}")
    measures = cli_measures(measure, rel)  # the one measure grammar, objects kept
    judges = None
    if assessor_qrels:
        from ..collection.assessors import read_assessor_qrels

        judges = read_assessor_qrels(assessor_qrels)
    with progress_bar() as progress:
        task = progress.add_task("depth study", total=len(ds) + 1)

        def tick(step: str, done: int, total: int) -> None:
            progress.update(task, description=step, completed=done, total=total)

        study = depth_study(qrels, runs, measures, ds, assessor_qrels=judges, design=design,
                            run_depth=depth, order=order.value, progress=tick)
        plans = [budget_plan(study, m, budget, cost_per_topic=cost_per_topic,
                             objective=objective, max_assessors=max_assessors, alpha=alpha,
                             beta=beta, min_tau=min_tau) for m in study.measures]
        cheap = []
        if cheap_qrels is not None:
            from ..design.cheap import pilot_plans

            progress.update(task, description="cheap judge")
            cheap = pilot_plans(
                qrels, cheap_qrels, runs, measures,
                budget=None if cheap_width is not None else plans[0].budget,
                target=cheap_width,
                objective="phi" if objective == "phi" and cheap_width is None else "width",
                cheap_cost=cheap_cost, topic_cost=cost_per_topic, depth=depth,
                order=order.value)
    if figure is not None:
        import matplotlib.pyplot as plt

        from ..report.design_figures import plot_budget_frontier

        for i, plan in enumerate(plans):
            target = figure if len(plans) == 1 else figure.with_name(
                f"{figure.stem}-{i + 1}{figure.suffix}")
            plt.close(plot_budget_frontier(plan, target, study=study))
            say(f"wrote {target}", err=True)
    if fmt is OutputFormat.json:
        doc = {"depth_study": study.to_dict(), "plans": [p.to_dict() for p in plans]}
        if cheap:
            doc["cheap"] = [p.to_dict() for p in cheap]
        emit(to_json(doc), output)
    elif frontier:
        emit(render_frame(pd.concat([p.frontier.assign(measure=p.measure) for p in plans],
                                    ignore_index=True), fmt), output)
    elif fmt is OutputFormat.table:
        emit(_budget_table(plans, study) + "".join(_cheap_line(p, cheap_qrels) for p in cheap),
             output)
    else:
        emit(render_frame(pd.concat([p.designs.assign(measure=p.measure) for p in plans],
                                    ignore_index=True), fmt), output)
