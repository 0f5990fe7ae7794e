"""The assessor facet in tables and in one report section (presentation only).

:func:`facet_records` is the per-measure summary that ``irstab assessors``
prints; :func:`assessor_section` computes the three-facet G-study of a few
measures from assessor qrels and renders it as a self-contained section of
``irstab report`` (Markdown, HTML, a JSON object and one figure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ..collection.assessors import MissingJudgment
from ..errors import IRStabError
from ..stability.designs import Design

__all__ = [
    "AssessorSection",
    "RANK_BY",
    "assessor_section",
    "facet_records",
    "facet_studies",
    "report_sections",
]

_ASSESSOR_SHARE = ("a", "sa", "ta", "sta", "a:t", "sa:t")  # components indexed by assessors


_MISSING_TEXT = {
    MissingJudgment.base: "keep the base qrels' grade",
    MissingJudgment.unjudged: "count as unjudged",
}


def _count(v: float) -> int | None:
    return None if not math.isfinite(v) else int(v)


def facet_studies(frames, design, *, n_resamples, seed, progress=None, confidence=0.95):
    """``[(FacetGStudy, FacetIntervals | None)]`` per ``(name, long frame)``."""
    from ..stability.facets import facet_gstudy

    out = []
    task = None
    if n_resamples and progress is not None:
        task = progress.add_task("bootstrap", total=len(frames) * n_resamples)
    for i, (name, frame) in enumerate(frames):
        g = facet_gstudy(frame, design, name=name)
        iv = None
        if n_resamples:
            done = i * n_resamples
            tick = None
            if task is not None:
                def tick(k, done=done):
                    progress.update(task, completed=done + k)
            iv = g.bootstrap(n_resamples, seed=seed, progress=tick, confidence=confidence)
        out.append((g, iv))
    return out


RANK_BY = {
    # most dependable first
    "phi": lambda r: (-r["phi"], str(r["measure"])),
    # smallest system x assessor share first: the component that reorders systems by who
    # judged, as a share of all variance so that measures on different scales compare
    "interaction": lambda r: (r["pct_system_x_assessor"], -r["phi"], str(r["measure"])),
}


def facet_records(results, target: float, cost_ratio: float, max_assessors: int,
                  rank_by: str = "phi") -> list[dict]:
    """One flat record per measure, sorted by ``rank_by`` (:data:`RANK_BY`): Phi
    (descending) or the system x assessor share (ascending).

    Keys: sizes, ``var_<source>`` and ``pct_<source>`` per component, the total
    share of the components indexed by assessors, the system x assessor share,
    Erho2 and Phi (bootstrap limits or ``None``), Phi with one assessor per
    topic, topics needed for ``target`` with 1 and 2 assessors, and the
    cheapest design (:meth:`~irstab.stability.FacetGStudy.needed`). Private
    keys ``_study``, ``_intervals``, ``_needed`` hold the objects.
    """
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
    try:
        key = RANK_BY[rank_by]
    except KeyError:
        raise IRStabError(f"rank_by: expected one of {', '.join(RANK_BY)}, got {rank_by!r}") \
            from None
    rows.sort(key=key)
    return rows


def summary_frame(rows, target: float, cost_ratio: float) -> pd.DataFrame:
    """The human table of :func:`facet_records` (strings, one row per measure)."""

    def ci(r, k):
        lo, hi = r[f"{k}_lower"], r[f"{k}_upper"]
        return f"{r[k]:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else "")

    def cnt(v):
        return "inf" if v is None else str(v)

    return pd.DataFrame(
        {
            "measure": [r["measure"] for r in rows],
            "design": [
                f"{r['n_systems']}s x {r['n_topics']}t x {r['n_assessors']:.3g}a" for r in rows
            ],
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


@dataclass(frozen=True)
class AssessorSection:
    """The report's assessor section: Markdown, HTML, JSON-ready data and one PNG figure."""

    markdown: str
    html: str
    data: dict
    figure_name: str
    figure_caption: str
    figure_png: bytes


def assessor_section(
    assessors,
    measures,
    *,
    design: Design | str = Design.nested,
    target: float = 0.95,
    cost_ratio: float = 1.0,
    n_resamples: int = 1000,
    seed: int = 0,
    figure_dir: str = "figures",
    judges=None,
) -> AssessorSection:
    """Three-facet G-study of ``measures`` on an :class:`~irstab.collection.assessors.AssessorCollection`.

    Returns the section "Who judged?" of ``irstab report``: per measure the
    system, assessor and system x assessor shares, Phi with bootstrap
    intervals over topics and assessors, topics needed with one and two
    assessors per topic, and Phi contours over topics x assessors. With
    ``judges`` (a :class:`irstab.judges.study.JudgeStudy` of the same judge
    sets: :func:`irstab.report.judges_section.judge_study_for_report`), the
    section opens with its answer, the agreement and the survival tables
    (:func:`irstab.report.judges_section.judges_blocks`), and report.json's
    ``assessors`` gains ``judges``.
    """
    from .assessor_figures import plot_phi_contours
    from .render import section_html, section_markdown
    from .sections import Fig, Para, Section, Table
    from .study_figures import Figure, _png

    long = assessors.scores(measures)
    frames = [(m, f.drop(columns="measure")) for m, f in long.groupby("measure", sort=False)]
    design = Design(design)
    rows = facet_records(
        facet_studies(frames, design, n_resamples=n_resamples, seed=seed), target, cost_ratio, 10
    )
    table = summary_frame(rows, target, cost_ratio)
    names = ", ".join(a for a in assessors.assessors)
    intro = (
        f"Each system is scored under the qrels of {len(assessors.assessors)} assessors "
        f"({names}); documents an assessor did not judge {_MISSING_TEXT[assessors.missing]}. "
        f"Design {design.value} ({'s x (a:t)' if design is Design.nested else 's x t x a'}), "
        "variance components by Brennan's expected mean squares or, unbalanced, Henderson's "
        "method 1 (Brennan, Generalizability Theory, 2001). The system x assessor share is "
        "what reorders systems depending on who judged"
        + (f"; Phi intervals: {n_resamples} bootstrap resamples over topics and assessors."
           if n_resamples else ".")
    )
    best = rows[0]
    verdict = (
        f"Most robust to the assessors: {best['measure']} (Phi {best['phi']:.3f}, system x "
        f"assessor share {best['pct_system_x_assessor']:.1f}%); with one assessor per topic it "
        f"needs {best['topics_needed_1'] if best['topics_needed_1'] is not None else 'no finite number of'} "
        f"topics for Phi >= {target:g}."
    )
    least = min(rows, key=RANK_BY["interaction"])
    if least is not best:
        verdict += (
            f" Smallest system x assessor share: {least['measure']} "
            f"({least['pct_system_x_assessor']:.1f}%)."
        )
    fig = plot_phi_contours([r["_study"] for r in rows][:3], None, targets=(0.8, 0.9, target))
    figure = Figure("assessors-phi-contours",
                    "Phi over topics x assessors per topic (x: observed design)", _png(fig))
    first, judged = (), None
    if judges is not None:
        from .judges_section import judges_blocks

        first, judged = judges_blocks(judges)
        first = (*first, Para("The assessor facet: how much of the variance of the scores is "
                              "due to who judged, and what it does to Phi."))
    sec = Section(
        id="assessors",
        title=("Who judged? Agreement, survival and the assessor facet" if judges is not None
               else "Who judged? The assessor facet"),
        blocks=(
            *first,
            Para(intro),
            Table(tuple(table.columns),
                  tuple(tuple(map(str, r)) for r in table.itertuples(index=False))),
            Para(verdict),
            Fig(figure),
        ),
    )
    data = {
        "assessors": list(assessors.assessors),
        "missing": assessors.missing.value,
        "design": design.value,
        "target": target,
        "measures": [
            {k: v for k, v in r.items() if not k.startswith("_")}
            | {"components": r["_study"].to_dict()["components"]}
            for r in rows
        ],
    }
    if judged is not None:
        data["judges"] = judged
    return AssessorSection(section_markdown(sec, figure_dir), section_html(sec), data,
                           figure.name, figure.caption, figure.png)


def report_sections(qrels, runs, assessor_qrels, *, design="nested", depth=1000, seed=0,
                    n_resamples=1000, scheduler=None, order="score"):
    """For ``irstab report --assessor-qrels``: ``study -> [AssessorSection]``.

    Options are checked at once (before the study runs); the section covers the
    study's recommended measure, nDCG@10 and AP: the agreement of the base qrels with
    each assessor's and the survival of the conclusions (:mod:`irstab.judges`), then the
    assessor facet.
    """
    from ..errors import IRStabError

    try:
        design = Design(design)
    except ValueError:
        raise IRStabError(f"--assessor-design: expected nested or crossed, got {design!r}") from None
    from ..collection.assessors import read_assessor_qrels

    from ..io import read_qrels
    from ..judges import read_judge_sets

    judges = read_assessor_qrels(assessor_qrels)  # bad files fail before the long study
    base = read_qrels(qrels)
    sets = read_judge_sets(base, judges)  # so do grades off the scale, topics of another set

    def build(study):
        from ..collection.assessors import assessor_collection
        from ..collection.cluster import scheduler_client

        with scheduler_client(scheduler) as client:
            ac = assessor_collection(base, runs, judges, depth=depth, client=client,
                                     order=order)
        measures = list(dict.fromkeys([study.recommendation.best.measure, "nDCG@10", "AP"]))
        from .judges_section import judge_study_for_report

        # the base qrels and at least one assessor's: two or more judge sets
        judged = judge_study_for_report(sets, ac, measures, n_resamples=n_resamples,
                                        seed=seed)
        return [assessor_section(ac, measures, design=design, seed=seed,
                                 n_resamples=n_resamples, judges=judged)]

    return build
