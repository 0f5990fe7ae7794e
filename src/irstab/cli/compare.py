"""``irstab compare``: rank correlation, discriminative power and swap rates of several measures."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import typer

from .typer_app import app
from ._common import (
    TTestCorrection,
    MEASURE_HELP,
    QRELS_ARG,
    REL_OPTION,
    cli_measures,
    RUNS_ARG,
    SCORES_OPTION,
    SYSTEMS_OPTION,
    SystemsChoice,
    collection_scores,
    progress_bar,
    score_matrices_from_args,
    SCHEDULER_OPTION,
    ORDER_OPTION,
    RankOrderChoice,
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


def _fmt(v: float, spec: str = "{:.4f}") -> str:
    return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else spec.format(v)


def _matrix_text(title: str, frame: pd.DataFrame, spec: str = "{:.4f}") -> str:
    """A square measures x measures table with numbered rows/columns (names can be long)."""
    labels = [f"[{k + 1}]" for k in range(len(frame))]
    shown = pd.DataFrame(
        [[("" if r == c else _fmt(frame.iat[r, c], spec)) for c in range(len(frame))]
         for r in range(len(frame))],
        columns=labels,
    )
    shown.insert(0, "measure", [f"{lab} {name}" for lab, name in zip(labels, frame.index)])
    return f"\n# {title}\n" + table_text(shown) + "\n"


def _informativeness_columns(info) -> dict[str, list[str]]:
    """Mean RMS error [interval] per relevance level, one column each."""
    s = info.summary()
    cols = {}
    for level in info.levels:
        rows = s[s["level"] == level].set_index("measure")
        cols[f"inform. RMS rel>={level}"] = [
            f"{_fmt(r.mean_rms)} [{_fmt(r.ci_low, '{:.3f}')},{_fmt(r.ci_high, '{:.3f}')}]"
            + (f" ({r.n_unsolved} unsolved)" if r.n_unsolved else "")
            for r in (rows.loc[m] for m in info.measures)
        ]
    return cols


def _table(cmp, alpha: float, seed: int, info=None) -> str:
    s = cmp.summary()
    alpha_s = f"{alpha:g}"
    cols = {
        "measure": s["measure"],
        "pairs": s["n_pairs"],
        f"ASL<{alpha_s}": s["n_significant"],
        "disc.power": [_fmt(v, "{:.3f}") for v in s["discriminative_power"]],
        **({} if info is None else _informativeness_columns(info)),
        "swap rate": [_fmt(v, "{:.4f}") for v in s["swap_rate"]],
        f"min diff (swap<={cmp.swap.max_rate:g})": [
            "not reached" if math.isinf(d) else f"{d:.2f} ({_fmt(r, '{:.0%}')})"
            for d, r in zip(s["min_difference"], s["min_difference_relative"])
        ],
        "PAD %": [_fmt(v, "{:.2f}") for v in s["pad"]],
    }
    if cmp.tukey is not None:
        cols[f"Tukey p<{alpha_s}"] = s["tukey_significant"]
    if cmp.ttest is not None:
        cols[f"t ({cmp.ttest.correction}) p<{alpha_s}"] = s["ttest_significant"]
    text = table_text(pd.DataFrame(cols)) + "\n"
    rc = cmp.correlation
    if len(cmp.measures) > 1:
        text += _matrix_text("Kendall's tau (tau-b) between mean-score rankings", rc.matrix("kendall_tau"))
        text += _matrix_text("tau_AP (symmetric: mean of both directions)", rc.matrix("tau_ap"))
        text += _matrix_text("RMSE between mean scores", rc.matrix("rmse"))
        if cmp.ttest is not None:
            text += _matrix_text(
                f"pairs on which paired t-tests ({cmp.ttest.correction}) disagree about "
                f"significance at {alpha_s}",
                cmp.ttest.disagreement_matrix(), "{:d}",
            )
    B = cmp.bootstrap.n_resamples
    sw = cmp.swap
    text += (
        f"\n# {len(cmp.systems)} systems x {cmp.n_topics} topics; paired bootstrap (studentised), "
        f"B={B} samples shared by all pairs and measures, seed {seed}\n"
        f"# swap rate: {sw.n_trials} random splits into two disjoint sets of {sw.subset_size} topics, "
        f"bins of {sw.bin_width:g}; min diff relative to the best mean in ()\n"
    )
    if info is not None:
        n = int(info.summary()["n_cells"].max())
        text += (
            f"# informativeness (Aslam, Yilmaz & Pavlu, SIGIR 2005): mean RMS error between the "
            f"actual and the maximum-entropy PR curve (lower: more informative), {n} (system, topic) "
            f"lists with >= {info.min_relevant} relevant and >= {info.min_top} of the top grade; "
            f"{info.confidence:.0%} topic-bootstrap interval in []\n"
        )
    return text


def _pair_table(cmp) -> pd.DataFrame:
    """One row per measure and pair: mean difference, ASL, and the optional tests' p-values."""
    frame = cmp.bootstrap.to_frame().drop(columns="raw_p_value")
    frame = frame.rename(columns={"p_value": "asl"})
    for key, test in (("tukey", cmp.tukey), ("ttest", cmp.ttest)):
        if test is not None:  # same measures, systems and pair order as the bootstrap
            other = test.to_frame()
            frame[f"{key}_p"] = other["p_value"].to_numpy()
            frame[f"{key}_significant"] = other["significant"].to_numpy()
    return frame


def _pair_note(cmp, alpha: float) -> str:
    parts = [f"paired bootstrap ASL (Sakai, SIGIR 2006; B={cmp.bootstrap.n_resamples}; per pair, "
             "uncorrected)"]
    if cmp.tukey is not None:
        parts.append(f"randomised Tukey HSD ({cmp.tukey.n_resamples} trials; family-wise)")
    if cmp.ttest is not None:
        corr = str(getattr(cmp.ttest.correction, "value", cmp.ttest.correction))
        parts.append("paired t-test p, uncorrected" if corr == "none"
                     else f"paired t-test p after {corr} correction over the pairs of a measure")
    return "; ".join(parts) + f"; significant: p < {alpha:g}; mean_diff = system_a - system_b"


@app.command()
def compare(
    qrels: Path | None = QRELS_ARG,
    runs: list[Path] | None = RUNS_ARG,
    measure: list[str] = typer.Option(
        [], "--measure", "-m",
        help=MEASURE_HELP + " The first is the reference (x axis of the scatters, ranking for "
        "--top).",
    ),
    rel: int | None = REL_OPTION,
    scores: list[Path] = SCORES_OPTION,
    systems: SystemsChoice = SYSTEMS_OPTION,
    top: int | None = typer.Option(
        None, "--top", help="Keep only the N best systems (by mean of --top-by), as Sakai (2006)."
    ),
    top_by: str | None = typer.Option(
        None, "--top-by", help="Measure that ranks systems for --top (default: the first -m)."
    ),
    n_bootstrap: int | None = typer.Option(
        None, "--bootstrap", "-B",
        help="Bootstrap samples (default 1000). With --baseline: the verdict's draws. The "
        "default jackknife interval of Phi draws nothing; -B is then the significant pairs' "
        "topic resamples (at least 2 / (1 - level): 40 at 95 %). With --interval parametric "
        "or a bootstrap, at least 2 x candidates / (1 - level) so that every tail of the "
        "simultaneous intervals holds a draw (default 1000, or that minimum if larger).",
    ),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level."),
    seed: int = seed_option("Seed of the bootstrap, the splits and the Tukey trials."),
    swap_trials: int = typer.Option(1000, "--swap-trials", help="Random topic splits for the swap rate."),
    tukey: bool = typer.Option(False, "--tukey", help="Also run the randomised Tukey HSD test."),
    ttest: TTestCorrection | None = typer.Option(
        None, "--ttest",
        help="Also run paired t-tests with this correction: none, bonferroni, holm or bh.",
    ),
    pair_table: bool = typer.Option(
        False, "--table",
        help="Output the per-pair significance table instead: one row per measure and pair of "
        "systems with the mean difference, the bootstrap ASL and, with --ttest/--tukey, their "
        "p-values after the correction; significant = below --alpha.",
    ),
    plot: Path | None = typer.Option(
        None, "--figure", help="Write ASL curves and mean-score scatters here (png, pdf, svg, ...)."
    ),
    depth: int = typer.Option(
        1000, "--depth", "-M",
        help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all)."),
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
    informative: bool = typer.Option(
        False, "--informativeness",
        help="Also measure informativeness by the maximum entropy method (Aslam, Yilmaz & Pavlu, "
        "SIGIR 2005; Robertson, Kanoulas & Yilmaz, SIGIR 2010, Fig. 2): mean RMS error between "
        "each list's precision-recall curve and the one inferred from the measure's value alone, "
        "for 'relevant = grade >= 1' and 'relevant = top grade'. Needs QRELS RUNS and measures "
        "among AP, GAP, xGAP, eGAP, nDCG, DCG, P, Recall, RBP.",
    ),
    min_relevant: int = typer.Option(
        5, "--min-relevant", help="--informativeness: lists with at least this many relevant documents."
    ),
    min_top: int = typer.Option(
        5, "--min-top", help="--informativeness: ... and at least this many of the top grade."
    ),
    baseline: str | None = typer.Option(
        None, "--baseline",
        help="Ask the verdict's question instead: is any other measure reliably, and "
        "materially, more stable than this one? Per measure the difference in Phi at the "
        "observed topics with a 95 % interval (the two-facet jackknife of the G-study, "
        "simultaneous over the candidates; it covered 93-100 % of a true difference on "
        "collections of 12 to 30 systems resampled from ten real TREC collections), the "
        "topics needed for "
        "Phi = --target, and the decision (see docs/calibration.md). A comparison past "
        "1e9 paired t-tests (measures x resamples x pairs of systems; some 10 s) is refused "
        "before its work, naming how many measures and -B fit.",
    ),
    candidate: list[str] = typer.Option(
        [], "--candidate",
        help="With --baseline: the measures that may be recommended, repeatable or "
        "comma-separated (default: all but the baseline). Their intervals hold simultaneously; "
        "the other measures get marginal intervals, for context.",
    ),
    interval: str = typer.Option(
        "jackknife", "--interval",
        help="With --baseline: how the intervals are made: jackknife (two-facet jackknife of "
        "the G-study; calibrated on collections made of real scores and on normal ones), "
        "parametric (Wishart pivots of the normal model: over-confident on real scores), "
        "bootstrap (systems and topics resampled; too wide) or topic-bootstrap (too narrow).",
    ),
    target: float = typer.Option(
        0.95, "--target", help="With --baseline: the Phi target the topics needed are counted for."
    ),
    min_saving: float = typer.Option(
        0.10, "--min-saving",
        help="With --baseline: smallest saving of topics, as a fraction of the baseline's, "
        "that makes a change worth it.",
    ),
    folds: int = typer.Option(
        5, "--folds", min=0,
        help="With --baseline and QRELS RUNS: an optimised configuration given as -m @opt.json "
        "(irstab optimize --save) is judged on topics it was not fitted to: the topics split "
        "into this many folds, each scored by the configuration re-optimised on the other "
        "folds (cross-fitted); 0 judges it on the topics it was optimised on (optimistic).",
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """Compare measures: discriminative power, rank correlation, swap rate, PAD.

    Input: QRELS RUNS... -m MEASURE..., or --scores FILE... (score matrices,
    one measure per file, same systems and topics in each).

    Per measure: the pairs of systems with a significant difference (Sakai's
    paired studentised bootstrap; one set of samples for all pairs and
    measures), Kendall's tau and tau_AP (symmetric) to every other measure,
    the swap rate with the minimum difference in means that keeps it at most
    5%, and the mean PAD. ASL (achieved significance level) is a pair's
    bootstrap p-value; disc. power the share of pairs with ASL < --alpha; PAD
    the percentage absolute difference |mean1 - mean2| / max(mean1, mean2) of
    two systems' means, averaged over the pairs. JSON: a list of objects with keys measure, n_pairs,
    discriminative_power (fraction of pairs with ASL < alpha), n_significant,
    pairs, asl (in the order of pairs), kendall_tau, tau_ap, spearman, rmse
    (other measure -> value), swap_rate (object), pad; tukey / ttest when asked;
    definition (the full measure string, null for --scores); informativeness (per
    level: mean_rms, ci_low, ci_high, n_cells, n_unsolved) with --informativeness.

    With --baseline NAME: the verdict instead, on score files from any tool
    (irstab compare -s a.csv -s b.csv -s c.csv --baseline a) or on QRELS RUNS
    -m ...: one row per measure with its role (baseline, candidate, context),
    Phi, the difference to the baseline and its 95 % interval (simultaneous
    over the candidates, marginal for context), the topics needed for
    Phi = --target, whether it is reliably more stable (interval above 0) and
    whether the saving of topics is material; the first line says which
    measure to use. JSON: the verdict (recommended: null keeps the baseline)
    with the per-measure rows under "measures".
    """
    from ..errors import IRStabError

    show_warnings_on_stderr()
    from ..compare.discriminative import Correction
    from ..metrics import definitions, resolve_measures

    parsed = cli_measures(measure, rel, scores)  # fail fast on a bad measure, before reading
    names = [str(m) for m in parsed]
    if baseline is not None:
        extra = {"--top": top is not None, "--top-by": top_by is not None, "--tukey": tukey,
                 "--ttest": ttest is not None, "--table": pair_table,
                 "--figure": plot is not None, "--informativeness": informative,
                 "--swap-trials": swap_trials != 1000}
        used = [k for k, v in extra.items() if v]
        if used:
            raise IRStabError(f"{used[0]}: not used with --baseline (the verdict)")
        if parsed and not scores:  # the names are known: check them before any run is read
            _named(baseline, names, rel, "--baseline")
            for spec in (c for item in candidate for c in _split(item)):
                _named(spec, names, rel, "--candidate")
        return _verdict(qrels, runs, parsed, rel, scores, depth, scheduler, baseline, candidate,
                        interval, target, min_saving, n_bootstrap, alpha, seed, fmt, output,
                        systems.value, order, _saved_optima(measure) if folds else {}, folds)
    if candidate:
        raise IRStabError("--candidate: only used with --baseline")
    if top_by is not None and parsed:  # score files are checked once read (compare_measures)
        if top_by not in names:  # a measure's name as given, or any spelling of it
            found = resolve_measures(top_by, rel)
            top_by = str(found[0]) if len(found) == 1 else top_by
        if top_by not in names:
            raise IRStabError(f"--top-by: {top_by} is not one of the measures compared {names}")
    if ttest is not None:
        try:
            ttest = Correction(ttest.value)
        except ValueError:
            raise IRStabError(
                f"--ttest: expected one of {[c.value for c in Correction]}, got {ttest!r}"
            ) from None
    if plot is not None:
        from ..report.figures import check_format

        check_format(plot)  # before the work, not after
    if informative:
        if scores:
            raise IRStabError(
                "--informativeness needs the ranked lists: give QRELS RUNS -m ..., not --scores"
            )
        from ..informativeness.product_expectation import SUPPORTED

        bad = [str(m) for m in parsed if type(m) not in SUPPORTED]
        if bad:
            known = ", ".join(sorted(c.name for c in SUPPORTED))
            raise IRStabError(
                f"--informativeness: no expected value under a product distribution for {bad}; "
                f"supported: {known}"
            )

    from ..compare import compare_measures

    info = None
    with progress_bar() as progress:
        if informative:
            if qrels is None or not runs or not parsed:
                raise IRStabError("--informativeness: give QRELS, at least one RUN and -m MEASURE")
            coll, pairs = collection_scores(qrels, runs, parsed, depth, progress, scheduler,
                                            order)
            matrices = dict(pairs)
        else:
            matrices = dict(score_matrices_from_args(
                qrels, runs, parsed, scores, depth, progress, scheduler, systems, order
            ))
        progress.add_task("comparing", total=None)
        tasks: dict[str, int] = {}

        def report(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done)

        cmp = compare_measures(
            matrices,
            n_bootstrap=1000 if n_bootstrap is None else n_bootstrap,
            alpha=alpha,
            top=top,
            top_by=top_by,
            seed=seed,
            swap_trials=swap_trials,
            tukey=tukey,
            ttest=ttest,
            progress=report,
        )
        if informative:
            from ..informativeness.analysis import informativeness

            info = informativeness(
                coll, parsed, min_relevant=min_relevant, min_top=min_top, seed=seed,
                progress=lambda name, done, total: report(f"max. entropy {name}", done, total),
            )
    if plot is not None:
        from ..report.compare_figures import plot_comparison

        fig = plot_comparison(cmp, plot)
        import matplotlib.pyplot as plt

        plt.close(fig)
        say(f"wrote {plot}", err=True)
    records, frame = cmp.to_records(), cmp.summary()
    if info is not None:
        s = info.summary()
        for rec in records:
            rows = s[s["measure"] == rec["measure"]]
            rec["informativeness"] = {
                f"rel>={r.level}": {k: getattr(r, k) for k in
                                    ("mean_rms", "ci_low", "ci_high", "n_cells", "n_unsolved")}
                for r in rows.itertuples()
            }
        for level in info.levels:
            rows = s[s["level"] == level].set_index("measure")
            frame[f"informativeness_rms_rel{level}"] = [rows.loc[m, "mean_rms"] for m in info.measures]
    if pair_table:
        table = _pair_table(cmp)
        if fmt is OutputFormat.table:
            note = (f"# {_pair_note(cmp, alpha)}\n")
            emit(note + render_frame(table, fmt, "%.4f"), output)
        else:
            emit(render_frame(table, fmt), output)
    elif fmt is OutputFormat.json:
        defined = definitions(parsed)
        emit(to_json([{**r, "definition": defined.get(r["measure"])} for r in records]), output)
    elif fmt is OutputFormat.table:
        emit(_table(cmp, alpha, seed, info), output)
    else:
        emit(render_frame(frame, fmt), output)


def _named(spec: str, names: list[str], rel: int | None, option: str) -> str:
    """The measure of ``names`` that ``spec`` stands for (as given, or any spelling of it)."""
    from ..errors import IRStabError
    from ..metrics import resolve_measures

    if spec in names:
        return spec
    try:
        found = [str(m) for m in resolve_measures(spec, rel)]
    except IRStabError:
        found = []
    if len(found) == 1 and found[0] in names:
        return found[0]
    shown = names if len(names) <= 10 else [*names[:10], f"... {len(names)} in all"]
    raise IRStabError(f"{option}: {spec} is not one of the measures compared {shown}")


def _split(item: str) -> list[str]:
    from ..metrics.names import split_measure_list

    return split_measure_list(item)


def _saved_optima(measure: list[str]) -> dict:
    """``{measure string: saved optimize result (dict)}`` of the ``-m @file.json`` items."""
    import json

    from ..metrics import resolve_measures
    from ..metrics.names import split_measure_list

    out = {}
    for item in measure:
        for spec in split_measure_list(item):
            if not spec.startswith("@"):
                continue
            data = json.loads(Path(spec[1:]).read_text(encoding="utf-8"))  # read before: valid
            if isinstance(data, dict) and data.get("vary") and data.get("scenarios"):
                out[str(resolve_measures(spec)[0])] = data  # named as -m names it
    return out


def _held_out(coll, optima: dict, matrices: dict, folds: int, seed: int) -> dict:
    """Cross-fitted scores of every saved optimum (irstab.optimizer.cross_fit)."""
    from types import SimpleNamespace

    from ..optimizer import cross_fit

    out = {}
    for name, data in optima.items():
        cutoffs = [int(s["cutoff"]) for s in data["scenarios"]]
        kind = "minimax" if len(cutoffs) > 1 else data["vary"]
        best = SimpleNamespace(gain=data["gain"], discount=data["discount"],
                               monotone=bool(data.get("monotone", True)))
        fit = cross_fit(coll, kind, cutoffs, best, folds=folds, seed=seed)[int(data["cutoff"])]
        frame = matrices[name].copy()
        frame.loc[:, :] = fit.scores
        out[name] = frame
    return out


def _verdict(qrels, runs, parsed, rel, scores, depth, scheduler, baseline, candidate, interval,
             target, min_saving, n_bootstrap, alpha, seed, fmt, output, systems,
             order="score", optima=None, folds=5) -> None:
    """``compare --baseline``: :func:`irstab.verdict.verdict` on the score matrices."""
    from ..errors import IRStabError
    from ..verdict import verdict
    from ..verdict.paired import check_interval
    from ..metrics.names import split_measure_list

    method = check_interval(interval)  # before any input is read
    held = {}
    with progress_bar() as progress:
        if optima and not scores:  # saved optima are cross-fitted on the ranked lists
            coll, pairs = collection_scores(qrels, runs, parsed, depth, progress, scheduler,
                                            order)
            matrices = dict(pairs)
            task = progress.add_task("cross-fitting the saved optima", total=None)
            held = _held_out(coll, optima, matrices, folds, seed)
            progress.remove_task(task)
        else:
            matrices = dict(score_matrices_from_args(
                qrels, runs, parsed, scores, depth, progress, scheduler, systems, order
            ))
        names = list(matrices)
        base = _named(baseline, names, rel, "--baseline")
        if len(names) < 2:
            raise IRStabError(f"--baseline: {base} is the only measure; give at least one more "
                              "to compare it with (-m or --scores)")
        cands = None
        if candidate:
            specs = [c for item in candidate for c in split_measure_list(item)]
            cands = list(dict.fromkeys(_named(c, names, rel, "--candidate") for c in specs))
        task = progress.add_task("comparing with the baseline", total=2 * len(names))
        v = verdict(matrices, base, candidates=cands, interval=method, target=target,
                    min_saving=min_saving, n_bootstrap=n_bootstrap, alpha=alpha, seed=seed,
                    progress=lambda done: progress.update(task, completed=done), held_out=held)
    if fmt is OutputFormat.json:
        emit(to_json(v.to_dict()), output)
    elif fmt is OutputFormat.table:
        emit(_verdict_table(v, target, seed), output)
    else:
        emit(render_frame(v.to_frame(), fmt), output)


def _verdict_table(v, target: float, seed: int) -> str:
    from .._repr import escape_name, one_line

    c = v.comparison
    base = v.baseline
    if v.change:
        k = c.index(v.recommended)
        head = (f"verdict: use {escape_name(v.recommended)} instead of {escape_name(base)}: "
                f"Phi {c.phi_diff[k]:+.3f} "
                f"[{c.phi_diff_lower[k]:+.3f}, {c.phi_diff_upper[k]:+.3f}], topics for "
                f"Phi = {target:g}: {_count(v.topics_needed[v.recommended])} instead of "
                f"{_count(v.topics_needed[base])}")
    else:
        head = (f"verdict: keep {escape_name(base)} (no candidate is reliably more stable by "
                "enough to matter)")
    head = one_line(head)  # measure names from files and options: the verdict stays one line
    f = v.to_frame()
    shown = pd.DataFrame({
        "measure": f["measure"],
        "role": f["role"],
        "Phi": [_fmt(x, "{:.3f}") for x in f["phi"]],
        f"Phi - {base}": [_fmt(x, "{:+.3f}") for x in f["phi_diff"]],
        "95 % interval": [
            "" if r == "baseline" else f"[{_fmt(lo, '{:+.3f}')}, {_fmt(hi, '{:+.3f}')}]"
            for r, lo, hi in zip(f["role"], f["phi_diff_lower"], f["phi_diff_upper"])],
        "kind": ["" if k == "baseline" else k + (f", cross-fitted (in sample {d:+.3f})" if cf
                                                 else "")
                 for k, cf, d in zip(f["interval_kind"], f["cross_fitted"],
                                     f["phi_diff_in_sample"])],
        f"topics Phi={target:g}": [_count(n) for n in f["topics_needed"]],
        "reliably more stable": ["" if r == "baseline" else "yes" if x else "no"
                                 for r, x in zip(f["role"], f["reliably_more_stable"])],
        "material saving": ["" if r == "baseline" else "yes" if x else "no"
                            for r, x in zip(f["role"], f["material"])],
        f"sig. pairs - {base}": [f"{int(d):+d} [{lo:+.0f}, {hi:+.0f}]" for d, lo, hi in
                                 zip(f["sig_diff"], f["sig_diff_lower"], f["sig_diff_upper"])],
    })
    from ..verdict.paired import PhiInterval

    method = PhiInterval(c.interval)
    draws = ("" if method is PhiInterval.jackknife else f", B = {c.n_bootstrap}, seed {seed}")
    held = ("# cross-fitted: an optimised configuration is judged on held-out scores (each fold of "
            "topics scored by the configuration re-optimised on the others)\n"
            if f["cross_fitted"].any() else "")
    from ..verdict.decision import few_systems_text

    few = few_systems_text(c.n_systems)
    held += f"# {few}\n" if few else ""
    return (
        head + "\n" + table_text(shown) + "\n"
        f"# {c.n_systems} systems x {c.n_topics} topics; 95 % intervals of the difference in "
        f"Phi: simultaneous over the {len(c.candidates)} candidates, marginal for context; "
        f"{method.label}{draws}\n"
        f"# a change needs the interval above 0 and a saving of at least "
        f"{v.min_saving:.0%} of {escape_name(base)}'s topics (and one topic); sig. pairs: "
        "paired t-tests "
        f"at alpha = {c.alpha:g} on {c.n_bootstrap} topic resamples (seed {seed})\n" + held
    )


def _count(v: float) -> str:
    return str(int(v)) if math.isfinite(v) else "never"
