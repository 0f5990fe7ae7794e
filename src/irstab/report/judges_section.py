"""The report's "Who judged?" section, first half: agreement of the judge sets and whether the
conclusions survive the change of qrels (:mod:`irstab.judges`).

When ``irstab report`` is given assessors' qrels (``--assessor-qrels``), the base qrels and
those files are two or more judge sets. Before the assessor facet the section then answers,
answer first: how far each judge set agrees with the base qrels (Cohen's kappa, Krippendorff's
ordinal alpha, with percentile bootstrap intervals over topics) and, per measure, whether the
system ranking and the significant differences stay when the base qrels are replaced by each
judge set (Kendall tau, tau_AP, swaps among the top 10, share of significant pairs kept; the
paired t-test with Holm's correction of ``irstab systems``). The numbers are
:func:`irstab.judges.agreement.agreement`'s and
:func:`irstab.judges.survival.survival_from_scores`'s, on the same assessor collection the
facet is scored from.
"""

from __future__ import annotations

import math
import warnings

import pandas as pd

from ..errors import IRStabWarning

__all__ = ["judge_study_for_report", "judges_blocks"]


def judge_study_for_report(sets, collection, measures, *, n_resamples=1000, seed=0,
                           top_k=10):
    """:class:`irstab.judges.study.JudgeStudy` (agreement, survival) of the judge sets
    ``sets`` (:func:`irstab.judges.read_judge_sets` of the base qrels and the assessors'),
    the survival scored on ``collection`` (the assessor collection of the facet, the base
    qrels included)."""
    from ..judges import JudgeStudy, agreement, survival_from_scores

    ag = agreement(sets, n_resamples=n_resamples, seed=seed)
    with warnings.catch_warnings():
        # a judge set whose scores do not vary is said in the table (NaN shown as "-")
        warnings.simplefilter("ignore", IRStabWarning)
        sv = survival_from_scores(collection.scores(measures), sets.gold,
                                  top_k=top_k, seed=seed, judges=collection.assessors,
                                  missing=collection.missing.value, n_bootstrap=0)
    return JudgeStudy(sets=sets, agreement=ag, survival=sv)


def _num(v, digits: int = 3) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def _ci(v, lo, hi) -> str:
    if v != v:
        return "-"
    return f"{v:.3f}" if lo != lo else f"{v:.3f} [{lo:.3f}, {hi:.3f}]"


def _share(v) -> str:
    return "-" if v != v else f"{v:.0%}"


def judges_blocks(study) -> tuple[tuple, dict]:
    """``(blocks, data)``: the answer, the agreement table, the survival table per measure
    and, folded, per judge set; ``data`` for report.json (``agreement``, ``survival``,
    ``survival_by_measure``, ``answer``)."""
    from .sections import Details, Para, Table

    ag, sv = study.agreement, study.survival
    gold = study.sets.gold
    p = ag.pairs
    with_gold = p[p["judge_a"] == gold]
    level = f"{ag.confidence:.0%} " if ag.n_resamples else ""

    # two label columns first, as every table of the report (the page aligns them left)
    def agreement_table(frame) -> Table:
        head = ("judge A", "judge B", "topics", "pairs", "exact", f"kappa {level}".strip(),
                "kappa (quadratic)", f"alpha ordinal {level}".strip())
        rows = tuple(
            (str(r.judge_a), str(r.judge_b), str(r.n_topics), str(r.n_pairs), f"{r.exact:.2f}",
                _ci(r.cohen_kappa, r.cohen_kappa_low, r.cohen_kappa_high),
                _num(r.cohen_kappa_quadratic),
                _ci(r.krippendorff_alpha_ordinal, r.krippendorff_alpha_ordinal_low,
                    r.krippendorff_alpha_ordinal_high))
            for r in frame.itertuples(index=False))
        # narrow screens (<= 900 px) leave out the quadratic kappa, so the rest fits
        return Table(head, rows, narrow_hide=(6,))

    blocks = [Para(study.answer())]
    blocks.append(Para(
        f"Agreement with {gold} on the (topic, document) pairs both judged: Cohen's kappa "
        "(plain and quadratically weighted) and Krippendorff's alpha on the ordinal grades"
        + (f"; intervals: {ag.confidence:.0%} percentile bootstrap over topics "
           f"({ag.n_resamples} resamples)." if ag.n_resamples else ".")))
    blocks.append(agreement_table(with_gold))
    others = p[p["judge_a"] != gold]
    if len(others):
        blocks.append(Details(f"Every other pair of judge sets ({len(others)})",
                              (agreement_table(others),)))
    data = {"answer": study.answer(), "agreement": ag.to_dict()["pairs"],
            "survival": [], "survival_by_measure": []}
    if sv is not None and not sv.rows.empty:
        r = sv.rows
        sums = r.groupby("measure", sort=False)[["kept", "significant_a", "top_k_swaps",
                                                 "top_k"]].sum()
        by = sv.by_measure()
        k = sv.top_k
        n_b = r["judge_b"].nunique()
        head = ("measure", "mean over", "Kendall tau", "tau_AP", f"top-{k} pairs swapped",
                "significant pairs kept")
        rows = tuple(
            (str(b.measure), f"{n_b} judge set{'s' if n_b != 1 else ''}", _num(b.kendall_tau),
             _num(b.tau_ap), _share(b.top_k_swap_rate),
             f"{_share(b.kept_share)} ({int(sums.loc[b.measure, 'kept'])} of "
             f"{int(sums.loc[b.measure, 'significant_a'])})")
            for b in by.itertuples(index=False))
        blocks.append(Para(
            f"Do the conclusions survive? Each judge set replaces {gold} on the topics it "
            f"judged ({gold}'s grade where it did not judge a document"
            f"{'' if sv.missing == 'base' else ': not here, only its own labels count'}); "
            f"the mean over the {r['judge_b'].nunique()} judge sets, most robust measure "
            f"first. Significant pairs: {sv.test} test, {sv.correction} correction, alpha "
            f"{sv.alpha:g}; kept: significant in the same direction under both."))
        blocks.append(Table(head, rows, highlight=(0,)))
        per = tuple(
            (str(x.measure), str(x.judge_b), str(x.n_topics), _num(x.kendall_tau),
             _num(x.tau_ap), f"{x.top_k_swaps}/{x.top_k * (x.top_k - 1) // 2}",
             f"{x.kept}/{x.significant_a}", str(x.reversed), str(x.gained))
            for x in r.itertuples(index=False))
        blocks.append(Details("Per judge set", (Table(
            ("measure", "judge set", "topics", "Kendall tau", "tau_AP", f"top-{k} swaps",
             "kept", "reversed", "gained"), per),)))
        data["survival"] = sv.to_dict()["rows"]
        data["survival_by_measure"] = [
            {c: (None if isinstance(v, float) and v != v else v) for c, v in rec.items()}
            for rec in pd.DataFrame(by).to_dict(orient="records")]
    return tuple(blocks), data
