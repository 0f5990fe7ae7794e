"""``irstab judges``: agreement of judge sets, and whether conclusions survive the change."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import typer

from .typer_app import app
from ._common import (
    FORMAT_OPTION,
    ORDER_OPTION,
    OUTPUT_OPTION,
    OutputFormat,
    SCHEDULER_OPTION,
    RankOrderChoice,
    emit,
    progress_bar,
    render_frame,
    seed_option,
    show_warnings_on_stderr,
    table_text,
    to_json,
)
from ..collection.assessors import MissingJudgment
from ..judges.ppi import SMALL_SAMPLE_LAMBDA, TUNED_MIN_GOLD_TOPICS, Estimand
from ..systems.significance import Adjustment as CorrectionChoice
from ..systems.significance import SignificanceTest as TestChoice


def _ci(v, lo, hi) -> str:
    if v != v:
        return "-"
    if lo != lo:
        return f"{v:.3f}"
    return f"{v:.3f} [{lo:.3f}, {hi:.3f}]"


def _agreement_table(study) -> str:
    ag = study.agreement
    p = ag.pairs
    level = f"{ag.confidence:.0%}" if ag.n_resamples else ""
    show = pd.DataFrame({
        "judge_a": p["judge_a"], "judge_b": p["judge_b"], "topics": p["n_topics"],
        "pairs": p["n_pairs"], "exact": [f"{v:.2f}" for v in p["exact"]],
        "kappa": [_ci(*r) for r in p[["cohen_kappa", "cohen_kappa_low",
                                      "cohen_kappa_high"]].to_numpy()],
        "kappa_lin": [f"{v:.3f}" if v == v else "-" for v in p["cohen_kappa_linear"]],
        "kappa_quad": [f"{v:.3f}" if v == v else "-" for v in p["cohen_kappa_quadratic"]],
        "alpha_ord": [_ci(*r) for r in p[["krippendorff_alpha_ordinal",
                                          "krippendorff_alpha_ordinal_low",
                                          "krippendorff_alpha_ordinal_high"]].to_numpy()],
        "alpha_int": [f"{v:.3f}" if v == v else "-" for v in p["krippendorff_alpha_interval"]],
    })
    b = ag.binarised
    bshow = pd.DataFrame({
        "judge_a": b["judge_a"], "judge_b": b["judge_b"], "level": b["level"],
        "rel_a": b["relevant_a"], "rel_b": b["relevant_b"], "rel_both": b["relevant_both"],
        "kappa": [_ci(*r) for r in b[["cohen_kappa", "cohen_kappa_low",
                                      "cohen_kappa_high"]].to_numpy()],
        "alpha": [_ci(*r) for r in b[["krippendorff_alpha", "krippendorff_alpha_low",
                                      "krippendorff_alpha_high"]].to_numpy()],
    })
    o = ag.overall
    oshow = pd.DataFrame({
        "metric": [m if lv != lv or lv is None else f"{m} (grade >= {int(lv)})"
                   for m, lv in zip(o["metric"], o["level"])],
        "alpha": [_ci(*r) for r in o[["krippendorff_alpha", "krippendorff_alpha_low",
                                      "krippendorff_alpha_high"]].to_numpy()],
    })
    gold = study.sets.gold
    conf = [c.rename_axis(index=gold).reset_index().assign(judge_b=b)
            for (a, b), c in ag.confusion.items() if a == gold]
    cshow = pd.concat(conf, ignore_index=True) if conf else pd.DataFrame()
    if not cshow.empty:
        cshow = cshow[["judge_b", gold, *[c for c in cshow.columns if c not in ("judge_b", gold)]]]
        cshow.columns = ["judge_b", f"{gold} grade", *[f"b={c}" for c in cshow.columns[2:]]]
    note = (f"; intervals: {level} percentile bootstrap over topics ({ag.n_resamples} "
            "resamples)" if ag.n_resamples else "")
    return ("\n# agreement per pair of judge sets, on the (topic, document) pairs both judged"
            + note + "\n" + table_text(show)
            + "\n\n# binarised: grade >= level is relevant\n" + table_text(bshow)
            + f"\n\n# Krippendorff's alpha of all {len(study.sets.judges)} judge sets at once "
            "(missing labels allowed)\n" + table_text(oshow) + "\n"
            + (f"\n# confusion: pairs by {gold}'s grade (rows) and judge set B's (b=)\n"
               + table_text(cshow) + "\n" if not cshow.empty else ""))


def _survival_table(study) -> str:
    sv = study.survival
    if sv is None:
        return ""
    r = sv.rows
    show = pd.DataFrame({
        "measure": r["measure"], "judge_b": r["judge_b"], "topics": r["n_topics"],
        "tau": [f"{v:.3f}" if v == v else "-" for v in r["kendall_tau"]],
        "tau_ap": [f"{v:.3f}" if v == v else "-" for v in r["tau_ap"]],
        f"top{sv.top_k}_swaps": [f"{s}/{k * (k - 1) // 2}" for s, k in
                                 zip(r["top_k_swaps"], r["top_k"])],
        "sig_a": r["significant_a"], "sig_b": r["significant_b"], "kept": r["kept"],
        "kept_share": [f"{v:.0%}" if v == v else "-" for v in r["kept_share"]],
        "reversed": r["reversed"], "gained": r["gained"],
    })
    by = sv.by_measure()
    bshow = by.assign(**{c: [f"{v:.3f}" if v == v else "-" for v in by[c]]
                         for c in ["kendall_tau", "tau_ap", "top_k_swap_rate", "kept_share"]})
    return (f"\n# do conclusions survive? each judge set B against {sv.gold} on the topics B "
            f"judged ({'B' if sv.missing == 'base' else 'only B'}'s labels"
            f"{f', {sv.gold} elsewhere' if sv.missing == 'base' else ''}); significance: "
            f"{sv.test} test, {sv.correction} correction, alpha {sv.alpha:g}\n"
            + table_text(show)
            + "\n\n# per measure, mean over the judge sets (most robust to who judged first)\n"
            + table_text(bshow) + "\n")


def _f(v, digits: int = 3) -> str:
    return "-" if v is None or v != v else f"{v:.{digits}f}"


def _facet_table(study) -> str:
    fc = study.facet
    if fc is None:
        return ""
    f = fc.to_frame()
    show = pd.DataFrame({
        "measure": f["measure"], "design": f["design"], "judges": f["n_judges"],
        "per_topic": [f"{v:.2f}" for v in f["judges_per_topic"]],
        "system_%": [f"{v:.1f}" for v in f["pct_s"]],
        "judge_%": [f"{v:.1f}" for v in f["pct_judge_total"]],
        "system_x_judge_%": [f"{v:.1f}" for v in f["pct_system_x_judge"]],
        "erho2": [_f(v) for v in f["erho2_random"]],
        "phi_random": [_f(v) for v in f["phi_random"]],
        "phi_fixed": [_f(v) for v in f["phi_fixed"]],
    })
    d = study.facet_dstudy()
    dshow = d.pivot_table(index=["measure", "n_topics"], columns="n_judges",
                          values="phi_random", sort=False).reset_index()
    dshow.columns = ["measure", "topics", *[f"phi_{int(j)}_judge{'s' if j != 1 else ''}"
                                             for j in dshow.columns[2:]]]
    dshow["topics"] = dshow["topics"].astype(int)
    for c in dshow.columns[2:]:
        dshow[c] = [_f(v) for v in dshow[c]]
    fixed = ("; phi_fixed: these judges fixed (crossed design only)"
             if (f["design"] == "crossed").any() else
             "; nested: a judge exists within its topic, so judges are random (no phi_fixed)")
    return (f"\n# judges as a G-study facet (systems x topics x judges, judge sets: "
            f"{', '.join(fc.judges)}; Henderson's method 1 when unbalanced){fixed}\n"
            + table_text(show)
            + "\n\n# D-study: Phi with judges at random, by topics and judges per topic\n"
            + table_text(dshow) + "\n")


def _iv(lo, hi) -> str:
    return f"[{lo:.3f}, {hi:.3f}]" if lo == lo else "-"


def _ppi_table(study) -> str:
    if not study.ppi:
        return ""
    out = []
    for r in study.ppi:
        f = r.frame
        key = ["kind", "system", "other"]
        wide = {m: f[f["method"] == m].set_index(key) for m in ("ppi++", "ppi", "gold")}
        base = wide["gold"].reset_index()[key]
        ix = pd.MultiIndex.from_frame(base)

        def col(m, c):
            return wide[m][c].reindex(ix).to_numpy()

        show = pd.DataFrame({
            "kind": base["kind"],
            "target": [s if o is None or o != o else f"{s} - {o}"
                       for s, o in zip(base["system"], base["other"])],
            "ppi++": [f"{e:.3f} {_iv(lo, hi)}" for e, lo, hi in
                      zip(col("ppi++", "estimate"), col("ppi++", "lower"), col("ppi++", "upper"))],
            "lambda": [f"{v:.2f}" for v in col("ppi++", "lam")],
            "ppi": [f"{e:.3f} {_iv(lo, hi)}" for e, lo, hi in
                    zip(col("ppi", "estimate"), col("ppi", "lower"), col("ppi", "upper"))],
            "gold_only": [f"{e:.3f} {_iv(lo, hi)}" for e, lo, hi in
                          zip(col("gold", "estimate"), col("gold", "lower"), col("gold", "upper"))],
            "width_ratio": [_f(a / g if g else float("nan"), 2) for a, g in
                            zip(col("ppi++", "width"), col("gold", "width"))],
            "cheap_mean": [f"{v:.3f}" for v in col("gold", "cheap_mean")],
        })
        fixed = ("" if r.n_gold >= TUNED_MIN_GOLD_TOPICS else
                 f"; ppi++'s lambda fixed at {SMALL_SAMPLE_LAMBDA:g} beforehand (tuning it on "
                 f"fewer than {TUNED_MIN_GOLD_TOPICS} gold topics costs more than it gains)")
        for kind, title in (("run", "each run's mean"), ("pair", "each pair's difference")):
            part = show[show["kind"] == kind].drop(columns="kind")
            if part.empty:
                continue
            out.append(
                f"\n# PPI, {r.measure}, {title}: {study.sets.gold}'s labels on {r.n_gold} of "
                f"{r.n_topics} topics ({', '.join(r.gold_topics)}), {study.cheap}'s on all; "
                f"{r.confidence:.0%} intervals of the {r.estimand.value} mean; width_ratio: "
                f"ppi++ over gold_only{fixed}\n" + table_text(part) + "\n")
    return "".join(out)


def _flat(study) -> pd.DataFrame:
    ag = study.agreement
    parts = [ag.pairs.assign(section="agreement"), ag.binarised.assign(section="binarised"),
             ag.overall.assign(section="all_judges")]
    if study.survival is not None:
        parts.append(study.survival.rows.assign(section="survival"))
    if study.facet is not None:
        parts.append(study.facet.to_frame().assign(section="facet"))
        parts.append(study.facet_dstudy().assign(section="facet_dstudy"))
    if study.ppi:
        parts.append(study.ppi_frame().assign(section="ppi"))
    f = pd.concat(parts, ignore_index=True)
    return f[["section", *[c for c in f.columns if c != "section"]]]


def render_judges(study, fmt: OutputFormat) -> str:
    """Table (the answer first, then agreement, survival, the judge facet and PPI), JSON, or
    CSV/TSV (one flat table, a ``section`` column naming agreement, binarised, all_judges,
    survival, facet, facet_dstudy, ppi)."""
    if fmt is OutputFormat.json:
        return to_json(study.to_dict())
    if fmt is not OutputFormat.table:
        return render_frame(_flat(study), fmt)
    return (f"# {study.answer()}\n" + _agreement_table(study) + _survival_table(study)
            + _facet_table(study) + _ppi_table(study))


def _gold_topics_option(value: str | None, path: Path | None, have_runs: bool):
    """``--gold-topics`` (a count or a fraction) or ``--gold-topics-file`` (topic ids, any
    whitespace between them, ``#`` comments): ``(gold_topics, {topic: line})``."""
    from ..errors import IRStabError

    if value is not None and path is not None:
        raise IRStabError("--gold-topics, --gold-topics-file: give one of them, not both")
    if (value is not None or path is not None) and not have_runs:
        raise IRStabError("--gold-topics: PPI intervals are of runs' scores; give runs too")
    if value is not None:
        text = value.strip()
        try:
            number = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                raise IRStabError(f"--gold-topics: expected a count (10) or a fraction (0.2), "
                                  f"got {value!r}") from None
        return number, {}
    if path is None:
        return None, {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise IRStabError(f"--gold-topics-file: cannot read {path}: "
                          f"{getattr(e, 'strerror', None) or e}") from None
    where: dict[str, int] = {}
    for k, line in enumerate(lines, 1):
        for topic in line.split("#", 1)[0].split():
            where.setdefault(topic, k)
    if not where:
        raise IRStabError(f"{path}: no topic id in the file (--gold-topics-file)")
    return list(where), where


_LIBRARY_NAMES = {"cheap: ": "--cheap: ", "gold_topics: ": "--gold-topics: ",
                  "baseline: ": "--baseline: "}


@app.command()
def judges(
    gold: Path | None = typer.Argument(
        None, metavar="QRELS",
        help="The gold judge set (e.g. NIST's qrels): its topics and grade scale."),
    runs: list[Path] | None = typer.Argument(
        None, metavar="JUDGES",
        help="The other judge sets (qrels files or directories of them) and, optionally, TREC "
        "runs (files or directories), in any order: each file is a judge set or a run by its "
        "first line (topic iteration docid grade, or topic Q0 docid rank score tag)."),
    measure: list[str] = typer.Option(
        ["nDCG@10"], "--measure", "-m",
        help="Measures of the survival table, repeatable or comma-separated, in any spelling "
        "`irstab evaluate -m` reads (default nDCG@10)."),
    top_k: int = typer.Option(10, "--top-k", min=2,
                              help="Swaps are counted among the gold ranking's top K systems; "
                              "without --baseline, the PPI pairs are those of the cheap judge's "
                              "top K."),
    test: TestChoice = typer.Option(
        TestChoice.t, "--test", help="Significance test of the pairs, as irstab systems --test."),
    correction: CorrectionChoice | None = typer.Option(
        None, "--correction",
        help="Adjustment over the pairs, as irstab systems (default holm; none for tukey)."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level."),
    missing: MissingJudgment = typer.Option(
        MissingJudgment.base, "--missing",
        help="Documents a judge set did not label on a topic it labelled: base (the gold "
        "grade; default) or unjudged (only the judge set's own labels count)."),
    n_resamples: int = typer.Option(
        1000, "--bootstrap", "-B", help="Bootstrap resamples over topics of the agreement "
        "intervals (0: none)."),
    confidence: float = typer.Option(0.95, "--confidence", help="Level of the intervals."),
    facet: bool = typer.Option(
        True, "--facet/--no-facet",
        help="With runs: the G-study of systems x topics x judges (as irstab assessors), Phi "
        "with judges random and fixed, and a D-study (default on; --no-facet skips it)."),
    cheap: str | None = typer.Option(
        None, "--cheap", metavar="JUDGE",
        help="PPI: the cheap judge set, by name (froebe-qrels.txt -> froebe); its topics are "
        "the topics. Needed when there are several other judge sets."),
    gold_topics: str | None = typer.Option(
        None, "--gold-topics", metavar="N|FRACTION",
        help="PPI: QRELS's labels count on N (or this fraction) of the cheap judge's topics, "
        "drawn at random with --seed; the cheap judge's on all. With runs."),
    gold_topics_file: Path | None = typer.Option(
        None, "--gold-topics-file",
        help="PPI: the gold-labelled topics, listed in this file (ids separated by "
        "whitespace; # comments), instead of --gold-topics. They must be a random sample."),
    baseline: str | None = typer.Option(
        None, "--baseline", metavar="RUN",
        help="PPI: the pairs are every run against RUN (default: every pair of the cheap "
        "judge's top --top-k runs)."),
    estimand: Estimand = typer.Option(
        Estimand.universe, "--estimand",
        help="PPI: universe (the mean over topics like these; default) or topics (the mean "
        "over these topics with gold labels on all of them)."),
    seed: int = seed_option("Seed of the bootstrap, of Monte-Carlo tests and of the gold "
                            "topics' draw."),
    depth: int = typer.Option(
        1000, "--depth", "-M", min=1,
        help="Ranks kept per topic, the rest ignored (trec_eval -M)."),
    order: RankOrderChoice = ORDER_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """Who judged: agreement of judge sets, and whether conclusions survive the change.

    QRELS is the gold judge set (its topics and grade scale); JUDGES are the
    other judge sets and, optionally, runs. Compares each judge set (a
    re-annotator's, a crowd's, an LLM's qrels) with the gold one on the (topic,
    document) pairs both judged: Cohen's kappa (plain, linear, quadratic),
    Krippendorff's alpha (nominal, ordinal, interval), exact agreement,
    binarised at every grade, with bootstrap intervals over topics; and
    Krippendorff's alpha of all judge sets at once. Given runs, scores them
    under the gold set and under each other set on the topics it judged (its
    labels where given, the gold grade elsewhere; --missing) and reports, per
    measure: Kendall tau and tau_AP of the system rankings, swaps among the top
    K, and the share of significant pairs (test and correction of irstab
    systems) that stay significant in the same direction; and the judges as a
    G-study facet (systems x topics x judges, nested or crossed from the qrels,
    Phi with judges random and fixed, a D-study; --no-facet skips it; equal to
    irstab assessors on the same input). With --gold-topics (or
    --gold-topics-file) and --cheap JUDGE: PPI++, PPI and gold-only intervals
    of every run's mean and of pairs' differences, QRELS's labels counting on
    the gold topics only, the cheap judge's own labels on all its topics
    (PPI++'s lambda tuned from 10 gold topics on, fixed at 1/2 below). Judge
    sets are named after their files (froebe-qrels.txt -> froebe). JSON:
    answer, agreement (a list with judge_a, judge_b, n_pairs, cohen_kappa,
    krippendorff_alpha_ordinal, ...), binarised, all_judges, confusion,
    survival, survival_by_measure, facet, ppi.
    """
    from ..errors import IRStabError

    show_warnings_on_stderr()
    if gold is None or not runs:
        raise IRStabError("give QRELS (the gold judge set) and at least one other judge set "
                          "(qrels file)")
    from ..judges.study import judge_study, split_inputs
    from ..metrics import resolve_measures

    parsed = resolve_measures(measure)
    others, run_files = split_inputs(runs)
    if not others:
        raise IRStabError(f"judges: only one judge set ({gold}); give at least one other "
                          "qrels file besides the runs")
    chosen, where = _gold_topics_option(gold_topics, gold_topics_file, bool(run_files))
    if chosen is None and cheap is not None:
        raise IRStabError("--cheap: give --gold-topics N|FRACTION or --gold-topics-file too "
                          "(which topics have gold labels)")
    if chosen is None and baseline is not None:
        raise IRStabError("--baseline: the pairs of the PPI intervals; give --gold-topics too")
    from ..collection.cluster import scheduler_client
    from ..judges.study import GoldTopicsError

    try:
        with progress_bar() as progress, \
                scheduler_client(scheduler if run_files else None) as client:
            task = progress.add_task("reading judge sets", total=None)
            study = judge_study(
                gold, others, run_files, parsed, n_resamples=n_resamples,
                confidence=confidence, seed=seed, missing=missing.value, depth=depth,
                order=order.value, top_k=top_k, test=test.value,
                correction=None if correction is None else correction.value, alpha=alpha,
                facet=facet, cheap=cheap, gold_topics=chosen, baseline=baseline,
                estimand=estimand.value, client=client,
                progress=lambda step: progress.update(task, description=step))
            progress.remove_task(task)
    except GoldTopicsError as e:
        if gold_topics_file is not None and e.unknown:
            t = e.unknown[0]
            raise IRStabError(f"{gold_topics_file}:{where.get(t, 0)}: topic {t!r} is not among "
                              f"the topics {e.cheap} labelled (--gold-topics-file)") from None
        raise _renamed(e) from None
    except IRStabError as e:
        raise _renamed(e) from None
    emit(render_judges(study, fmt), output)


def _renamed(e):
    """The library's error with its parameter named as the option is."""
    from ..errors import IRStabError

    msg = str(e)
    for name, option in _LIBRARY_NAMES.items():
        if msg.startswith(name):
            return IRStabError(option + msg[len(name):])
    return e
