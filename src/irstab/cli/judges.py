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


def _flat(study) -> pd.DataFrame:
    ag = study.agreement
    parts = [ag.pairs.assign(section="agreement"), ag.binarised.assign(section="binarised"),
             ag.overall.assign(section="all_judges")]
    if study.survival is not None:
        parts.append(study.survival.rows.assign(section="survival"))
    f = pd.concat(parts, ignore_index=True)
    return f[["section", *[c for c in f.columns if c != "section"]]]


def render_judges(study, fmt: OutputFormat) -> str:
    """Table (the answer first, then agreement and survival), JSON, or CSV/TSV (one flat
    table, a ``section`` column naming agreement, binarised, all_judges, survival)."""
    if fmt is OutputFormat.json:
        return to_json(study.to_dict())
    if fmt is not OutputFormat.table:
        return render_frame(_flat(study), fmt)
    return (f"# {study.answer()}\n" + _agreement_table(study) + _survival_table(study))


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
                              help="Swaps are counted among the gold ranking's top K systems."),
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
    seed: int = seed_option("Seed of the bootstrap and of Monte-Carlo tests."),
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
    systems) that stay significant in the same direction. Judge sets are named
    after their files (froebe-qrels.txt -> froebe). JSON: answer, agreement (a
    list with judge_a, judge_b, n_pairs, cohen_kappa, krippendorff_alpha_ordinal,
    ...), binarised, all_judges, confusion, survival, survival_by_measure.
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
    from ..collection.cluster import scheduler_client

    with progress_bar() as progress, \
            scheduler_client(scheduler if run_files else None) as client:
        task = progress.add_task("reading judge sets", total=None)
        study = judge_study(
            gold, others, run_files, parsed, n_resamples=n_resamples, confidence=confidence,
            seed=seed, missing=missing.value, depth=depth, order=order.value, top_k=top_k,
            test=test.value, correction=None if correction is None else correction.value,
            alpha=alpha, client=client,
            progress=lambda step: progress.update(task, description=step))
        progress.remove_task(task)
    emit(render_judges(study, fmt), output)
