"""``irstab optimize discount|gain|joint|minimax|pareto``: stability-optimal nDCG (Kanoulas & Aslam, CIKM 2009).

Each command reads the qrels and runs once, calls one library function of
:mod:`irstab.optimizer` and renders its result. Domain errors (a cutoff
beyond the depth, one system, a gain vector of the wrong length, a problem
that does not converge or is infeasible) are :class:`irstab.errors.IRStabError`
and end with a one-line message and exit code 1.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from ..errors import IRStabError
from .typer_app import app
from ._common import (
    wall_seconds,
    FORMAT_OPTION,
    OUTPUT_OPTION,
    SCHEDULER_OPTION,
    ORDER_OPTION,
    RankOrderChoice,
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

optimize_app = typer.Typer(
    name="optimize",
    help=(
        "Stability-optimal gain and discount vectors of nDCG: maximise Phi (Kanoulas & "
        "Aslam, CIKM 2009). The result is a measure string that `irstab evaluate` accepts."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(optimize_app, name="optimize")


class BackendChoice(str, Enum):
    scipy = "scipy"
    cvxpy = "cvxpy"


class MethodChoice(str, Enum):
    slsqp = "SLSQP"
    trust_constr = "trust-constr"


class ObjectiveChoice(str, Enum):
    phi = "phi"
    erho2 = "erho2"
    discrimination = "discrimination"


class VaryChoice(str, Enum):
    joint = "joint"
    discount = "discount"
    gain = "gain"


_QRELS = typer.Argument(..., metavar="QRELS", help="TREC qrels file, plain or .gz.")
_RUNS = typer.Argument(
    ..., metavar="RUNS...", help="TREC run files and/or directories; - reads one run from stdin."
)
_GAIN = typer.Option(
    "linear", "--gain", "-g",
    help="Gain: linear, exp, flat or a tuple like '(0,1,3,7)' (one value per grade). Fixed "
    "when the discount is optimised; a start otherwise.",
)
_DISCOUNT = typer.Option(
    "log2", "--discount", "-d",
    help="Discount: log2, zipf, linear, flat or a tuple of K weights. Fixed when the gain is "
    "optimised; a start otherwise.",
)
_BACKEND = typer.Option(BackendChoice.scipy, "--backend", help="scipy (SLSQP: sequential least-squares programming) or cvxpy (SCP: sequential convex programming, a convex subproblem around the current point, step after step).")
_METHOD = typer.Option(None, "--method", help="SciPy method: SLSQP (default) or trust-constr.")
_STARTS = typer.Option(4, "--starts", help="Seeded random starts besides the presets.")
_SEED = seed_option("Seed of the random starts.")
_WORKERS = typer.Option(
    None, "--workers", min=1,
    help="Processes that solve the starts in parallel (default: automatic, more than one only "
    "for problems above 200 coordinates and when cores are idle).",
)
_TIME_LIMIT = typer.Option(
    None, "--time-limit", min=0.001,
    help="Seconds for the whole multi-start (scipy backend; default none, 120 with "
    "--no-monotone): then the best point found is printed with status time_limit.",
)
_PRESET_STARTS = typer.Option(
    True, "--preset-starts/--random-only",
    help="Start from the presets (log2, zipf, linear, flat / linear, exp, flat) besides the "
    "random starts (Dirichlet(1), Dirichlet(0.1), flat-top-j mixtures in turn); "
    "--random-only: the random starts alone.",
)
_MONOTONE = typer.Option(
    True, "--monotone/--no-monotone",
    help="Non-increasing discount and non-decreasing gain (Kanoulas & Aslam, CIKM 2009, Fig. 1); --no-monotone "
    "keeps only non-negativity (Fig. 3). Without the ordering nDCG can exceed 1 (the ranking "
    "by grade is no longer ideal; a warning says so) and at cutoffs in the hundreds the solve "
    "takes minutes.",
)
_OBJECTIVE = typer.Option(
    ObjectiveChoice.phi, "--objective",
    help="Maximise Phi or Erho2 (at one topic), or discrimination: the smooth share of system "
    "pairs that a paired t test separates at level 0.05 (a surrogate of Sakai's discriminative "
    "power, SIGIR 2006; the paired test cancels topic difficulty, which Phi penalises).",
)
_MAX_ITER = typer.Option(1000, "--max-iter", help="Iteration limit of each local solve.")
_TOL = typer.Option(
    1e-4, "--tol",
    help="Optimality certificate of every backend: a solve counts as optimal when no feasible "
    "direction improves the linearised objective by more than this (its first-order gap).",
)
_DEPTH = typer.Option(
    1000, "--depth", "-M",
    help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all).")
_PLOT = typer.Option(None, "--figure", help="Write the figure here (png, pdf, svg: from the suffix).")
_SAVE = typer.Option(None, "--save", help="Write the full result as JSON here (atomically).")
_STRICT = typer.Option(
    True, "--strict/--no-strict",
    help="Exit 1 when the best start did not converge (--no-strict: print it with its status).",
)
_GRID = typer.Option(True, "--grid/--no-grid", help="Global grid check of the gains (<= 5 grades).")
_CUTOFFS_MINIMAX = typer.Option(
    ..., "--cutoff", "-k",
    help="Cutoff, repeatable: one scenario per cutoff (the discount lives on the largest).",
)
_VARY_MINIMAX = typer.Option(VaryChoice.joint, "--vary", help="joint, discount or gain.")
_CUTOFFS_PARETO = typer.Option(
    ..., "--cutoff", "-k",
    help="One cutoff with --prior, or two: maximise Phi at the first subject to Phi at the "
    "second >= epsilon.",
)
_VARY_PARETO = typer.Option(VaryChoice.discount, "--vary", help="discount, gain or joint.")


def _callback(progress, label: str):
    task = progress.add_task(label, total=None)

    def report(name: str, done: int, total: int) -> None:
        progress.update(task, completed=done, total=total, description=f"{label}: {name}")

    return report


def _spec(text: str, what: str):
    """A preset name, or a Gain/Discount parsed with the measure grammar for a tuple."""
    from ..errors import MeasureError
    from ..metrics import parse_measure

    text = text.strip()
    if not text.startswith("("):
        return text
    try:
        return getattr(parse_measure(f"nDCG({what}={text})"), what)
    except MeasureError as exc:
        raise MeasureError(f"--{what}: {exc}") from None


def _collection(qrels: Path, runs: list[Path], depth: int, progress, cutoffs,
                scheduler: str | None = None, order=RankOrderChoice.score):
    """The optimizer's input: sparse linear forms to the largest cutoff, batch by batch
    (on the Dask cluster of ``scheduler``, if given); the grade tensor is never built."""
    from ..collection.cluster import scheduler_client
    from ..optimizer import linear_forms

    keep = max(cutoffs) if max(cutoffs) <= depth else depth  # deeper: the scenario refuses
    task = progress.add_task("reading qrels and runs", total=None)
    with scheduler_client(scheduler) as client:
        forms = linear_forms(qrels, runs, depth=keep, client=client, order=order.value,
                             progress=lambda n: progress.advance(task, n))
    progress.remove_task(task)
    return forms


def _fmt_vector(v, limit: int = 30) -> str:
    text = " ".join(f"{x:.4g}" for x in v[:limit])
    return text + (f" ... ({len(v)} values)" if len(v) > limit else "")


def _table(result) -> str:
    frame = result.to_frame()
    frame["topics_needed"] = [
        "inf" if v == float("inf") else str(int(v)) for v in frame["topics_needed"]
    ]
    frame.loc[frame["variant"] == "optimal", "measure"] = "optimal"
    from ..optimizer.pareto import OBJECTIVE_LABELS

    name = OBJECTIVE_LABELS.get(result.objective, result.objective)
    if len(result.scenarios) > 1:
        what = (f"minimax {result.vary} over {', '.join(s.name for s in result.scenarios)}: "
                f"worst {name}")
    else:
        what = f"optimal {result.vary} @{result.cutoff}: {name}"
    lines = [
        (
            f"# {what} = {result.value:.6f}  "
            f"(backend {result.backend}/{result.method}, status {result.status.value}, "
            f"{len(result.starts)} starts, spread {result.spread:.2g}, {wall_seconds():.2f} s)"
        ),
        f"# {result.agreement()}",
        f"# measure: {result.measure_string}",
        f"# gain: {_fmt_vector(result.gain)}",
        f"# discount: {_fmt_vector(result.discount)}",
    ]
    if result.grid is not None:
        lines.append(
            f"# grid check: {result.grid.points} gain vectors, best {result.grid.best:.6f}"
            + (" (a start there improved the optimum)" if result.grid.improved else "")
        )
    cols = ["scenario", "measure", "phi1", "phi", "erho2", "topics_needed", "discrimination",
            "kendall_tau"]
    if len(result.scenarios) == 1:
        cols = cols[1:]
    # tau is undefined (n/a) against a preset under which every system ties
    body = table_text(frame[cols], float_format=lambda x: f"{x:.4f}", na_rep="n/a")
    starts = result.starts_frame()[["start", "initial", "final", "iterations", "status"]]
    return (
        "\n".join(lines) + "\n" + body + "\n\n# starts\n"
        + table_text(starts, float_format=lambda x: f"{x:.6f}") + "\n"
    )


def _render(result, fmt: OutputFormat, output: Path | None, save: Path | None, plot: Path | None):
    if fmt is OutputFormat.json:
        emit(to_json(result.to_dict()), output)
    elif fmt is OutputFormat.table:
        emit(_table(result), output)
    else:
        emit(render_frame(result.to_frame(), fmt), output)
    _save_and_plot(result, save, plot, "plot_result")


def _save_and_plot(result, save: Path | None, plot: Path | None, plotter: str) -> None:
    """``--save`` and ``--plot`` after the output, so a bad path never loses the result."""
    from ..io import atomic_write_text
    from ..report import optimizer_figures

    for path, write in (
        (save, lambda p: atomic_write_text(p, to_json(result.to_dict()))),
        (plot, lambda p: getattr(optimizer_figures, plotter)(result, p)),
    ):
        if path is None:
            continue
        try:
            write(path)
        except OSError as exc:
            raise IRStabError(f"cannot write {path}: {exc.strerror or exc}") from None
        say(f"wrote {path}", err=True)


def _single(vary: str, qrels, runs, cutoff, gain, discount, backend, method, starts, seed,
            monotone, objective, max_iter, tol, depth, grid, strict, plot, save, fmt, output,
            preset_starts=True, workers=None, time_limit=None, scheduler=None,
            order=RankOrderChoice.score):
    from ..optimizer import optimize

    show_warnings_on_stderr()
    g, d = _spec(gain, "gain"), _spec(discount, "discount")
    with progress_bar() as progress:
        coll = _collection(qrels, runs, depth, progress, [cutoff], scheduler, order)
        result = optimize(
            coll, cutoff, vary=vary, gain=g, discount=d, objective=objective.value,
            monotone=monotone, backend=backend.value,
            method=None if method is None else method.value, starts=starts, seed=seed,
            max_iter=max_iter, tol=tol, grid=grid, strict=strict, preset_starts=preset_starts,
            workers=workers,
            time_limit=time_limit if time_limit is not None or monotone else 120.0,
            progress=_callback(progress, f"optimizing the {vary}"),
        )
    _render(result, fmt, output, save, plot)


_GRID_UNUSED = typer.Option(True, "--grid/--no-grid", hidden=True)
_CUTOFF = typer.Option(..., "--cutoff", "-k", help="nDCG cutoff K (<= --depth).")


def _register_single(vary: str, doc: str, grid_option) -> None:
    """Register `irstab optimize <vary>`: the three single-scenario commands share every option."""

    def command(
        qrels: Path = _QRELS,
        runs: list[Path] = _RUNS,
        cutoff: int = _CUTOFF,
        gain: str = _GAIN,
        discount: str = _DISCOUNT,
        backend: BackendChoice = _BACKEND,
        method: MethodChoice | None = _METHOD,
        starts: int = _STARTS,
        seed: int = _SEED,
        preset_starts: bool = _PRESET_STARTS,
        workers: int | None = _WORKERS,
        time_limit: float | None = _TIME_LIMIT,
        monotone: bool = _MONOTONE,
        objective: ObjectiveChoice = _OBJECTIVE,
        max_iter: int = _MAX_ITER,
        tol: float = _TOL,
        depth: int = _DEPTH,
        grid: bool = grid_option,
        strict: bool = _STRICT,
        plot: Path | None = _PLOT,
        save: Path | None = _SAVE,
        fmt: OutputFormat = FORMAT_OPTION,
        output: Path | None = OUTPUT_OPTION,
        scheduler: str | None = SCHEDULER_OPTION,
        order: RankOrderChoice = ORDER_OPTION,
    ) -> None:
        _single(vary, qrels, runs, cutoff, gain, discount, backend, method, starts, seed,
                monotone, objective, max_iter, tol, depth, grid, strict, plot, save, fmt, output,
                preset_starts, workers, time_limit, scheduler, order)

    command.__doc__ = doc
    command.__name__ = vary
    optimize_app.command(name=vary)(command)


_register_single(
    "discount",
    """Optimal discount vector at cutoff K for a fixed gain (Kanoulas & Aslam, CIKM 2009, Fig. 2).

    Prints the optimum (Phi1 = Phi at one topic, the objective, whose optimum is
    the same for every number of topics; Phi at the collection's topic count,
    Erho2, topics needed for Phi = 0.95) next to the presets (gain linear/exp x
    discount log2/zipf/linear/flat) with Kendall's tau to each, and every
    start. JSON keys: measure, gain, discount, phi1, phi, erho2,
    topics_needed, presets, kendall_tau, seconds, backend, status (and more).
    """,
    _GRID_UNUSED,
)
_register_single(
    "gain",
    """Optimal gain vector at cutoff K for a fixed discount (Kanoulas & Aslam, CIKM 2009, Table 2).

    With at most 5 grades every gain vector on a grid is also evaluated (a
    global check). Output as for `irstab optimize discount`.
    """,
    _GRID,
)
_register_single(
    "joint", "Optimal gain and discount together at cutoff K. Output as for `discount`.", _GRID
)


@optimize_app.command()
def minimax(
    qrels: Path = _QRELS,
    runs: list[Path] = _RUNS,
    cutoff: list[int] = _CUTOFFS_MINIMAX,
    topic_splits: int = typer.Option(
        0, "--topic-splits",
        help="Instead of several cutoffs: split the topics at random into N subsets (one cutoff).",
    ),
    vary: VaryChoice = _VARY_MINIMAX,
    gain: str = _GAIN,
    discount: str = _DISCOUNT,
    backend: BackendChoice = _BACKEND,
    method: MethodChoice | None = _METHOD,
    starts: int = _STARTS,
    seed: int = _SEED,
    monotone: bool = _MONOTONE,
    objective: ObjectiveChoice = _OBJECTIVE,
    max_iter: int = _MAX_ITER,
    tol: float = _TOL,
    depth: int = _DEPTH,
    grid: bool = _GRID,
    strict: bool = _STRICT,
    plot: Path | None = _PLOT,
    save: Path | None = _SAVE,
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
) -> None:
    """One gain and one discount maximising the worst Phi over scenarios (Kanoulas & Aslam, CIKM 2009, §3.3).

    Scenarios are the cutoffs (-k 10 -k 20 -k 100) or, with --topic-splits N,
    N random topic subsets at one cutoff. The table has every scenario's
    figures; JSON's top-level figures are the largest cutoff's and
    'scenarios' lists them all.
    """
    from ..optimizer import minimax as run_minimax
    from ..optimizer import scenarios_by_cutoff, scenarios_by_topic_split

    show_warnings_on_stderr()
    g, d = _spec(gain, "gain"), _spec(discount, "discount")
    if topic_splits and len(cutoff) != 1:
        raise IRStabError("--topic-splits: give exactly one --cutoff")
    if not topic_splits and len(cutoff) < 2:
        raise IRStabError("--cutoff: give at least two cutoffs (or --topic-splits N)")
    with progress_bar() as progress:
        coll = _collection(qrels, runs, depth, progress, cutoff, scheduler, order)
        if topic_splits:
            scen = scenarios_by_topic_split(coll, cutoff[0], topic_splits, seed, objective.value)
        else:
            scen = scenarios_by_cutoff(coll, cutoff, objective.value)
        result = run_minimax(
            scen, vary=vary.value, gain=g, discount=d, monotone=monotone, backend=backend.value,
            method=None if method is None else method.value, starts=starts, seed=seed,
            max_iter=max_iter, tol=tol, grid=grid, strict=strict,
            progress=_callback(progress, "minimax"),
        )
    _render(result, fmt, output, save, plot)


@optimize_app.command()
def pareto(
    qrels: Path = _QRELS,
    runs: list[Path] = _RUNS,
    cutoff: list[int] = _CUTOFFS_PARETO,
    prior: str | None = typer.Option(
        None, "--prior",
        help="Front of Phi against the distance to this prior vector (e.g. log2 for a discount).",
    ),
    versus: ObjectiveChoice | None = typer.Option(
        None, "--versus",
        help="With one cutoff: the front between --objective (maximised) and this objective "
        "(held >= epsilon), e.g. --objective discrimination --versus phi.",
    ),
    vary: VaryChoice = _VARY_PARETO,
    points: int = typer.Option(9, "--points", help="Points on the front."),
    gain: str = _GAIN,
    discount: str = _DISCOUNT,
    backend: BackendChoice = _BACKEND,
    method: MethodChoice | None = _METHOD,
    starts: int = typer.Option(2, "--starts", help="Random starts for each end's optimum."),
    seed: int = _SEED,
    monotone: bool = _MONOTONE,
    objective: ObjectiveChoice = _OBJECTIVE,
    max_iter: int = _MAX_ITER,
    tol: float = _TOL,
    depth: int = _DEPTH,
    strict: bool = _STRICT,
    plot: Path | None = _PLOT,
    save: Path | None = _SAVE,
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
) -> None:
    """Pareto front by an epsilon-constraint sweep: two cutoffs, two objectives, or vs a prior.

    Table/tsv/csv: one row per point (epsilon, both objectives, status);
    JSON adds each point's vectors and measure string. Each end point is the
    best of one objective among the optima of the other. Cost: a constrained
    solve per point, a second or so at K <= 100 on DL-2019, minutes at K = 1000.
    """
    from ..optimizer import Scenario
    from ..optimizer import pareto as run_pareto

    show_warnings_on_stderr()
    g, d = _spec(gain, "gain"), _spec(discount, "discount")
    if prior is not None and versus is not None:
        raise IRStabError("--versus: give either --prior or --versus, not both")
    if prior is None and versus is None and len(cutoff) != 2:
        raise IRStabError("--cutoff: give two cutoffs, or one cutoff and --prior or --versus")
    if prior is not None and len(cutoff) != 1:
        raise IRStabError("--prior: give exactly one --cutoff")
    if versus is not None and len(cutoff) != 1:
        raise IRStabError("--versus: give exactly one --cutoff")
    if versus is not None and versus is objective:
        raise IRStabError(f"--versus: {versus.value} is also the --objective; choose another")
    prior_kind = "gain" if vary is VaryChoice.gain else "discount"
    with progress_bar() as progress:
        coll = _collection(qrels, runs, depth, progress, cutoff, scheduler, order)
        first = Scenario(coll, cutoff[0], objective=objective.value)
        if prior is not None:
            second = None
        elif versus is not None:
            second = Scenario(coll, cutoff[0], objective=versus.value)
        else:
            second = Scenario(coll, cutoff[1], objective=objective.value)
        front = run_pareto(
            first, second, prior=None if prior is None else _spec(prior, prior_kind),
            vary=vary.value, gain=g, discount=d, monotone=monotone, points=points,
            backend=backend.value, method=None if method is None else method.value,
            starts=starts, seed=seed, max_iter=max_iter, tol=tol, strict=strict,
            progress=_callback(progress, "Pareto front"),
        )
    frame = front.to_frame()
    if fmt is OutputFormat.json:
        emit(to_json(front.to_dict()), output)
    elif fmt is OutputFormat.table:
        head = f"# Pareto front, {front.vary} @{front.cutoff}, backend {front.backend}, {front.seconds:.2f} s\n"
        emit(head + table_text(frame, float_format=lambda x: f"{x:.6f}") + "\n", output)
    else:
        emit(render_frame(frame, fmt), output)
    _save_and_plot(front, save, plot, "plot_pareto")


__all__ = ["optimize_app"]
