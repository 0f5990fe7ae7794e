"""The report's section "Planning the next collection": three answers to "how many topics?".

For the measure the report recommends and its baseline, side by side:

* **Phi target** (the D-study of the report): topics for Phi = 0.95;
* **power** (Sakai, Information Retrieval Journal 2016): topics for a paired t-test to detect
  a difference of 0.05 with 80 % power at alpha 0.05, and the difference the collection's
  own topics detect;
* **budget**: with as many judgments as this collection's qrels hold, the split over topics
  and pool depth that maximises Phi (runs re-evaluated at each pool depth), and what it buys.

The three ask different questions, so they disagree, and the section says why in numbers:
Phi is about ranking *all* systems dependably (it counts the topic variance), the t-test
about separating *two* systems by a given margin (topic effects cancel in a pair), and the
budget about what a judgment is worth at each depth. Presentation only: the numbers come
from :mod:`irstab.design` and the study.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

__all__ = ["MIN_DIFF", "TARGET", "DesignSection", "Planning", "design_section",
           "report_planning"]

MIN_DIFF = 0.05
TARGET = 0.95
TITLE = "Planning the next collection"


@dataclass(frozen=True)
class DesignSection:
    """The section: Markdown, HTML, ``data`` (report.json key ``design``) and two figures."""

    markdown: str
    html: str
    data: dict
    figures: tuple  # ((name, caption, png bytes), ...)
    key: str = "design"

    @property
    def figure_name(self) -> str:
        return self.figures[0][0]

    @property
    def figure_png(self) -> bytes:
        return self.figures[0][1]


def _n(v) -> str:
    return "never" if v is None or not math.isfinite(v) else str(int(v))


def design_section(study, qrels, runs, *, depth: int = 1000, figure_dir: str = "figures",
                   depths=(5, 10, 20, 50, 100), order: str = "score") -> DesignSection | None:
    """Build the section for a finished :class:`~irstab.report.study.Study` (module docstring).

    ``qrels`` and ``runs`` are those the study was run on (the pools need the runs' ranked
    documents); ``depth`` the depth the runs were read to. Plans are matched to measures by
    name; a measure without residual variance has no power plan (:func:`power_study` warns)
    and no row; None when no measure has one.
    """
    from ..design import budget_plan, depth_study, power_study
    from .candidates import display_name
    from .design_figures import plot_budget_frontier, plot_topics_needed
    from .render import section_html, section_markdown
    from .sections import Fig, Para, Section, Table
    from .study_figures import Figure, _png

    measures = list(dict.fromkeys([study.recommendation.use.measure, study.baseline]))
    names = {m: display_name(study.candidate(m)) for m in measures}
    power = power_study([(names[m], study.scores[m]) for m in measures], min_diff=MIN_DIFF)
    ds = tuple(d for d in depths if d <= depth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report collected the study's own warnings
        dstudy = depth_study(qrels, runs, measures, ds, run_depth=depth, order=order)
    budgets = {m: budget_plan(dstudy, m) for m in dstudy.measures}
    powered = {p.measure: p for p in power.plans}  # a measure with no residual variance is not
    measures = [m for m in measures if names[m] in powered and m in budgets]
    if not measures:
        return None
    n = len(study.topics)
    head = ("measure", f"Phi at {n} topics", f"topics for Phi = {TARGET:g}",
            f"topics for t-test D = {MIN_DIFF:g}", f"detectable D at {n} topics",
            "budget: best design", "its Phi", "its detectable D")
    rows, data = [], []
    for m in measures:
        p, b = powered[names[m]], budgets[m]
        c = study.candidate(m)
        ch = b.chosen
        rows.append((
            names[m], f"{c.phi:.3f}", _n(c.topics_95), _n(p.topics_ttest), f"{p.mdd_ttest:.3f}",
            f"{ch['n_topics']} topics, pool depth {ch['depth']}", f"{ch['phi']:.3f}",
            f"{ch['mdd']:.3f}",
        ))
        data.append({"measure": m, "name": names[m], "phi": c.phi,
                     "topics_phi_target": None if not math.isfinite(c.topics_95)
                     else int(c.topics_95),
                     "power": p.to_dict(), "budget": b.to_dict()})
    first = measures[0]
    p0, b0 = powered[names[first]], budgets[first]
    c0 = study.candidate(first)
    g = study.gstudies.get(first)
    share = (100 * g.components[1] / sum(g.components)) if g is not None else math.nan
    intro = (
        "How many topics does the next collection need? Three answers, from this collection's "
        f"scores: the D-study's topics for Phi = {TARGET:g} (dependable ranking of all systems); "
        f"by power (Sakai, Information Retrieval Journal 2016), the topics a paired t-test needs "
        f"to detect a difference of {MIN_DIFF:g} with 80 % power at alpha 0.05, from the "
        "residual variance of the systems x topics ANOVA (a paired difference has twice that "
        "variance); and by budget, the split of as many judgments as these qrels hold "
        f"({dstudy.judgments:,} on {n} topics) over topics and pool depth that maximises Phi, "
        "with the runs re-evaluated on the qrels of each pool depth."
    )
    sd_sys = math.sqrt(max(g.var_system, 0.0)) if g is not None else math.nan
    more = ("the t-test asks more: D is small against the spread of the systems"
            if p0.topics_ttest > c0.topics_95 else
            "the Phi target asks more: the systems are close together against the topic "
            "noise")
    why = (
        f"They answer different questions. Phi weighs the spread of the systems (standard "
        f"deviation {sd_sys:.3f} for {names[first]}) against topic and residual noise (the "
        f"topics carry {share:.0f} % of the variance here): a dependable score for every "
        "system. The t-test weighs the margin D against the residual noise alone, since "
        f"topic difficulty cancels in a pair: telling two systems D = {MIN_DIFF:g} apart. "
        f"Here {more} ({_n(c0.topics_95)} topics for Phi = {TARGET:g}, "
        f"{_n(p0.topics_ttest)} for the t-test); with {n} topics the t-test detects "
        f"{p0.mdd_ttest:.3f}. The budget answer trades depth for topics: a pool of depth "
        f"{b0.chosen['depth']} costs {b0.chosen['judgments_per_topic']:.0f} judgments per "
        f"topic, so the same judgments buy {b0.chosen['n_topics']} topics (Phi "
        f"{b0.chosen['phi']:.3f}); but a shallow pool measures something else: its system "
        f"ranking has Kendall tau {b0.chosen['tau_full']:.3f} with the full qrels' (irstab "
        "design budget --min-tau requires more)."
    )
    f1 = plot_topics_needed(power)
    fig1 = Figure("design-topics-needed",
                  "Topics needed by a paired t-test against the difference it detects "
                  "(alpha 0.05, power 80 %)", _png(f1))
    f2 = plot_budget_frontier(b0, study=dstudy)
    fig2 = Figure("design-budget-frontier",
                  f"{names[first]}: Phi a budget of judgments buys at each pool depth; the "
                  "frontier, the chosen design and this collection", _png(f2))
    sec = Section(id="design", title=TITLE, blocks=(
        Para(intro), Table(head, tuple(rows)), Para(why), Fig(fig1), Fig(fig2)))
    return DesignSection(
        markdown=section_markdown(sec, figure_dir), html=section_html(sec),
        data={"min_diff": MIN_DIFF, "target": TARGET, "depths": list(ds),
              "judgments": dstudy.judgments, "measures": data},
        figures=((fig1.name, fig1.png), (fig2.name, fig2.png)),
    )


@dataclass
class Planning:
    """For ``irstab report``: ``study -> DesignSection`` on the same qrels and runs.

    ``depths`` are the pool depths of the budget design: None takes the defaults
    (5, 10, 20, 50, 100, those within ``depth``). :meth:`prepare` checks them on the
    Collection before the long study: a depth whose pool holds no relevant document for
    any topic cannot be studied (:func:`irstab.design.depth.pool_depth_topics`). Among
    the defaults it is left out with a note; a depth the user named is an error naming
    ``--depths`` and the shallowest usable depth, raised before the study starts.

    The depth study pools and scores the runs the study read, cut to
    :meth:`keep_depth` ranks when they were given by :meth:`use` (from
    :meth:`irstab.Collection.from_files_keeping`), rather than reading every run file
    again; without them, or when the measures it scores read deeper, it reads ``runs``.
    """

    qrels: object
    runs: object
    depth: int = 1000
    depths: tuple[int, ...] | None = None
    order: str = "score"  # how runs' ties are ranked (--order)
    chosen: tuple[int, ...] = field(init=False, default=())  # the depths the section studies
    notes: tuple[str, ...] = field(init=False, default=())
    kept: list | None = field(init=False, default=None)  # the study's runs, cut (use())
    kept_depth: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        from ..design.depth import DEFAULT_DEPTHS
        from ..errors import IRStabError

        if self.depths is None:
            self.chosen = tuple(d for d in DEFAULT_DEPTHS if d <= self.depth)
            return
        ds = tuple(sorted(set(int(d) for d in self.depths)))
        if not ds or ds[0] < 1:
            raise IRStabError(f"--depths: expected positive integers, got {list(self.depths)}")
        beyond = [d for d in ds if d > self.depth]
        if beyond:
            raise IRStabError(f"--depths: {beyond} exceed the depth the runs are read to "
                              f"(--depth {self.depth}); raise --depth or drop them")
        self.chosen = ds

    def prepare(self, collection) -> tuple[str, ...]:
        """Check the pool depths on the built Collection; the notes for the report."""
        from ..design.depth import first_relevant_pool_rank, pool_depth_topics
        from ..errors import IRStabError

        topics = pool_depth_topics(collection, self.chosen)
        empty = [d for d in self.chosen if topics[d] == 0]
        if not empty:
            return ()
        best = first_relevant_pool_rank(collection)
        shallowest = int(best.min()) if best.size else None
        usable = (f"the shallowest with one is {shallowest}"
                  if shallowest is not None and shallowest <= self.depth
                  else f"no pool within --depth {self.depth} has one")
        listed = ", ".join(map(str, empty))
        if self.depths is not None:
            raise IRStabError(
                f"--depths: no topic has a relevant document in a pool of depth {listed} (no "
                f"run ranks one that high); {usable}")
        self.chosen = tuple(d for d in self.chosen if d not in empty)
        if not self.chosen:
            note = (f"{TITLE}: left out; no topic has a relevant document in a pool of depth "
                    f"{listed} ({usable}; --depths chooses the pool depths)")
        else:
            note = (f"{TITLE}: pool depth {listed} left out of the budget design; no topic "
                    f"has a relevant document in a pool that shallow ({usable}; --depths "
                    "chooses the pool depths)")
        self.notes = (note,)
        return self.notes

    def _reads(self, measures) -> int:
        """Ranks of each run the depth study reads for ``measures`` (as
        :func:`irstab.design.depth_study` cuts them) and its deepest pool."""
        from ..metrics import resolve_measures

        needed = [m.depth_needed() for m in resolve_measures(list(measures))]
        read = self.depth if None in needed else min(self.depth, max(needed))
        return max((read, *self.chosen))

    def keep_depth(self, cutoffs, baseline: str) -> int:
        """Ranks of each run to keep from the study's read: enough for the depth study of
        the measure it can recommend (an nDCG at one of ``cutoffs``) and ``baseline``."""
        from ..errors import IRStabError

        try:
            return self._reads([f"nDCG@{max(cutoffs)}", baseline])
        except IRStabError:  # a bad baseline is the study's error to raise, by its name
            return self.depth

    def use(self, runs, depth: int) -> None:
        """The runs the study read, cut to their first ``depth`` documents per topic."""
        self.kept, self.kept_depth = list(runs), int(depth)

    def __call__(self, study) -> DesignSection | None:
        if not self.chosen:
            return None
        runs = self.runs
        measures = (study.recommendation.use.measure, study.baseline)
        if self.kept is not None and self.kept_depth >= self._reads(measures):
            runs = self.kept
        return design_section(study, self.qrels, runs, depth=self.depth,
                              depths=self.chosen, order=self.order)


def report_planning(qrels, runs, *, depth: int = 1000,
                    depths: tuple[int, ...] | None = None, order: str = "score") -> Planning:
    """For ``irstab report``: the :class:`Planning` of the section on the same qrels and runs."""
    return Planning(qrels, runs, depth=depth, depths=depths, order=order)
