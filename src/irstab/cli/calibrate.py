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


def _tests_frame(card):
    """The tests' table: rates with their Monte-Carlo errors, columns that say what they are,
    and a note in a row that cannot reject anything."""
    import pandas as pd

    rows = []
    for r in card.tests:
        row = {"test": r.test, "correction": r.correction, "alpha": f"{r.alpha:g}",
               "type I": _rate(r.type_i, r.type_i_se)}
        for k, (v, se) in r.power.items():
            row[f"power at delta {k}"] = _rate(v, se)
        for k, (v, se) in r.type_iii.items():
            row[f"type III at delta {k}"] = _rate(v, se)
        row["note"] = r.note()
        rows.append(row)
    frame = pd.DataFrame(rows)
    if not frame["note"].astype(bool).any():
        frame = frame.drop(columns="note")
    return frame


def _candidates_frame(verdict):
    """The verdict per candidate: true difference, coverage, wrong changes, power."""
    import pandas as pd

    rows = []
    for c in verdict.candidates:
        d = c.to_dict()
        rows.append({
            "candidate": c.measure, "true difference": f"{c.true_diff:+.4f}",
            "coverage": _rate(d["coverage"], d["coverage_se"], True),
            **({} if d["coverage_sampling_se"] is None else
               {"between collections": f"+- {d['coverage_sampling_se']:.1%}"}),
            "interval": "holds" if d["interval_held"] else "short",
            "wrong changes": _rate(d["wrong_change"], d["wrong_change_se"], True),
            "power": "-" if d["power"] is None else _rate(d["power"], d["power_se"], True),
        })
    return pd.DataFrame(rows)


def _table(card) -> str:
    """The card's sentences first, then the model, the tests' table, the verdict per
    candidate, topics needed and the notes."""
    m = card.model_dict()
    out = "\n".join(card.card()) + "\n\n"
    lines = [f"# {escape_name(card.measure or 'scores')}: {m['n_systems']} systems, simulated at "
             f"{m['n_topics']} topics (the collection has {m['n_topics_observed']}); "
             f"{m['n_replicates']} collections in blocks of {m['block_size']}, "
             f"{m['planted_pairs_per_collection']} planted pairs each; B = {m['n_resamples']}",
             f"# model: margins {', '.join(f'{k} {v}' for k, v in m['margins'].items())}; "
             f"{m['copula']}"]
    if card.fit is not None:
        line = f"# fit check: {card.fit.summary()}"
        j = card.fit_judgement
        if j is not None:
            line += (f"; means outside the range: {j.outside} of {j.compared}, a correct model "
                     f"about {j.expected:.0f} (p = {j.p_value:.3f}): "
                     f"{'fails' if j.fails else 'passes'}")
        lines.append(line)
    out += "\n".join(lines) + "\n" + table_text(_tests_frame(card)) + "\n\n"
    if card.verdict is not None:
        v = card.verdict.to_dict()
        out += (f"verdict ({v['interval']} interval, {v['n_replicates']} collections each), "
                f"against a twin of equal Phi: coverage "
                f"{_rate(v['coverage'], v['coverage_se'], True)}, wrong changes "
                f"{_rate(v['wrong_change'], v['wrong_change_se'], True)}, power at a planted "
                f"Phi difference of {v['planted_phi_difference']:+.4f} "
                f"{_rate(v['power'], v['power_se'], True)}\n")
        if card.verdict.candidates:
            first = card.verdict.candidates[0]
            n, b = first.n_replicates, first.to_dict()["sampling_resamples"]
            between = (f"; between collections: how far the coverage moves between collections "
                       f"like this one, from {b} bootstrap resamples of it "
                       f"({first.resampled_replicates} collections each)" if b > 1 else "")
            out += (f"verdict per candidate ({n} collections each, resampled from this one; "
                    f"true difference of Phi at {card.n_topics} topics{between}):\n"
                    + table_text(_candidates_frame(card.verdict)) + "\n")
        elif v["candidates_note"]:
            out += f"verdict per candidate: none, {v['candidates_note']}\n"
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
    return out


def _render(card, fmt: OutputFormat) -> str:
    renderers = {
        OutputFormat.table: _table,
        OutputFormat.json: lambda c: to_json(c.to_dict()),
        OutputFormat.tsv: lambda c: render_frame(c.to_frame(), OutputFormat.tsv),
        OutputFormat.csv: lambda c: render_frame(c.to_frame(), OutputFormat.csv),
    }
    return renderers[fmt](card)


def _candidates(baseline, given: list[str], rel: int | None) -> list[str]:
    """The candidates' canonical strings: those of ``-c`` (each once), or the report's nDCG
    presets at the baseline's cutoff (:func:`irstab.report.study.preset_set`; 10 without
    one), less the baseline."""
    from ..errors import IRStabError
    from ..metrics.names import split_measure_list

    base = str(baseline)
    if given:
        specs = [c for item in given for c in split_measure_list(item)]
        names = list(dict.fromkeys(str(m) for spec in specs
                                   for m in cli_measures([spec], rel)))
        if base in names:
            raise IRStabError(f"-c/--candidate: {escape_name(base)} is the measure calibrated "
                              "(-m); give the measures compared with it")
        return names
    from ..metrics import parse_measure
    from ..report.study import REFERENCE, preset_set

    cutoff = getattr(baseline, "cutoff", None) or parse_measure(REFERENCE).cutoff
    names = list(dict.fromkeys(str(parse_measure(m)) for m in preset_set([cutoff])))
    return [m for m in names if m != base]


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
    candidate: list[str] = typer.Option(
        [], "--candidate", "-c",
        help="A measure the verdict compares with the -m one, repeatable or comma-separated: "
        "in the collection's own universe (its systems and topics resampled, the two "
        "measures' scores side by side) the coverage of its interval, the changes to it that "
        "the truth does not favour and the power where it does, each over "
        "--verdict-replicates collections. Default: the nDCG presets irstab report compares "
        "(gain linear or exp x discount log2, zipf, linear or flat) at the -m measure's "
        "cutoff (10 if it has none), less the -m measure and any with the same scores. "
        "Not with --scores (one measure's matrix: no candidate to score)."),
    verdict_replicates: int = typer.Option(
        200, "--verdict-replicates", min=0,
        help="Collections of each of the verdict's universes: the twins and each "
        "candidate (0: leave the verdict out)."),
    sampling_resamples: int = typer.Option(
        10, "--sampling-resamples", min=0,
        help="Bootstrap resamples of the collection (systems and topics with replacement) "
        "on which each candidate's coverage is measured again, over half "
        "--verdict-replicates collections each: how far the coverage moves between "
        "collections like this one, which its Monte-Carlo error does not count (JSON "
        "coverage_sampling_se). 0 leaves it out (so does 1: one resample has no spread); "
        "on DL-2019's 7 candidates that saves 2 s of CPU."),
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
        help="table (the card's sentences, then its numbers), tsv/csv (one row per test, "
        "correction and alpha, then one per candidate of the verdict; the column part says "
        "which) or json (model, fit, tests, verdict, topics_needed, notes, card)."),
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
    universes made of the collection's own scores), against a twin of the measure
    and for each candidate it is compared with (-c); and the true Phi reached by
    the topics a G-study says are needed for Phi = 0.95. The card's sentences
    come first; when the simulator fails its own split-half fit check, the
    first one says so. JSON: verdict.candidates is a list of {measure,
    coverage, coverage_se, coverage_sampling_se, wrong_change, wrong_change_se,
    power, power_se, true_diff, truth_favours, interval_held, n_replicates,
    sampling_resamples}; fit.fails says
    whether the fit check failed.
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
    if scores and candidate:
        raise IRStabError("-c/--candidate: not with --scores: a score matrix holds one "
                          "measure, so no candidate can be scored beside it (give QRELS RUNS "
                          "-m MEASURE -c CANDIDATE)")
    if candidate and not verdict_replicates:
        raise IRStabError("-c/--candidate: not with --verdict-replicates 0, which leaves the "
                          "verdict, and so its candidates, out")
    given = bool(candidate)
    cands = [] if scores or not verdict_replicates else _candidates(measures[0], candidate, rel)
    from ..collection.cluster import scheduler_client

    with progress_bar() as progress:
        matrices = score_matrices_from_args(qrels, runs, [*measures, *cands], scores, depth,
                                            progress, scheduler, systems_in.value, order,
                                            cluster_after=True)
        if scores and len(matrices) != 1:
            raise IRStabError(f"--scores: calibrate on one measure, the file(s) hold "
                              f"{len(matrices)} ({', '.join(n for n, _ in matrices[:5])})")
        name, frame = matrices[0]
        others = dict(matrices[1:])
        if not given and others:  # the report's rule: one candidate per set of equal scores
            from ..report.candidates import merge_identical

            kept = merge_identical([name, *others], {name: frame, **others}, first=name)
            others = {m: others[m] for m in kept if m != name}
        note = ("a score matrix (--scores) holds one measure, so no candidate could be scored "
                "beside it (QRELS RUNS -m MEASURE score the report's candidates)"
                if scores else "")
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
                    verdict_replicates=verdict_replicates, candidates=others,
                    sampling_resamples=sampling_resamples,
                    candidates_note=note, measure=name, seed=seed, progress=advance,
                    client=client)
            except IRStabError as exc:
                text = str(exc)
                if text.startswith("scores: "):
                    raise type(exc)(f"{where}: {text[len('scores: '):]}") from None
                raise
    emit(_render(card, fmt), output)
