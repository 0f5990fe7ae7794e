"""The report's sections: one function per section, rendered to Markdown and HTML alike.

A section function takes the :class:`~irstab.report.study.Study` and the
figures and returns a :class:`Section` (or None to leave it out): a title, an
anchor and a list of blocks (:class:`Para`, :class:`Table`, :class:`Code`,
:class:`Items`, :class:`Fig`, :class:`Details`). :data:`SECTIONS` is the
report's order; a new panel is one more function in that list. Every string
in a block is plain text: the renderers (:mod:`irstab.report.render`) escape
it for Markdown or HTML, so run names and topic ids never become markup.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .candidates import display_name
from .recommend import rule_text
from .study import Study

__all__ = ["Code", "Details", "Fig", "Items", "Para", "Section", "SECTIONS", "Table", "sections"]


@dataclass(frozen=True)
class Para:
    text: str
    cls: str = ""


@dataclass(frozen=True)
class Code:
    text: str


@dataclass(frozen=True)
class Items:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    """``rows`` of plain strings; ``sortable`` tables get sort buttons and a filter box."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    sortable: bool = False
    highlight: tuple[int, ...] = ()  # row indices drawn highlighted
    narrow_hide: tuple[int, ...] = ()  # column indices hidden on narrow screens
    wrap: tuple[int, ...] = ()  # column indices whose cells may break over lines


@dataclass(frozen=True)
class Fig:
    figure: object  # irstab.report.study_figures.Figure


@dataclass(frozen=True)
class Details:
    summary: str
    blocks: tuple = ()


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    blocks: tuple = field(default=())
    cls: str = ""


SectionFn = Callable[[Study, dict], "Section | None"]


def _f(v: float, digits: int = 3) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:.{digits}f}"


def _sf(v: float, digits: int = 3) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:+.{digits}f}"


def _n(v: float) -> str:
    return "never" if not math.isfinite(v) else str(int(v))


def _pct(v: float) -> str:
    return "n/a" if not math.isfinite(v) else f"{v:.0%}"


def intro(study: Study) -> str:
    s = study.settings
    return (
        f"{len(study.systems)} systems, {len(study.topics)} topics, runs read to depth "
        f"{study.depth}; cutoffs {', '.join(map(str, study.cutoffs))}; baseline "
        f"{study.baseline}. Optimizer: {s['starts']} random starts besides the presets (seed "
        f"{s['seed']}); bootstrap: B = {s['n_bootstrap']}, alpha = {s['alpha']}."
    )


# ----------------------------------------------------------------- sections


def verdict_section(study: Study, figs: dict) -> Section:
    """The answer first: the headline, three bullets, then the verdict in full, folded."""
    from .headline import bullets, headline

    rec = study.recommendation
    full = (Para(rec.text, "verdict"), Para("Measure string (works with irstab evaluate -m):"),
            Code(rec.use.measure))
    blocks = (Para(headline(rec), "headline"), Items(bullets(rec, len(study.topics))),
              Details("The verdict in full, and the measure string", full))
    return Section("verdict", "Verdict", blocks, "rec")


def rule_section(study: Study, figs: dict) -> Section:
    n = len(study.paired.candidates)
    others = sum(1 for c in study.candidates if c.phi_diff_kind == "marginal")
    return Section("rule", "How the verdict is reached",
                   (Details("The decision rule, its interval method and references",
                            (Para(rule_text(study.baseline, study.settings, n, others)),)),))


def _figure_block(figs: dict, name: str) -> tuple:
    return (Fig(figs[name]),) if name in figs else ()


def comparison_section(study: Study, figs: dict) -> Section:
    return Section("comparison", "Difference to the baseline",
                   _figure_block(figs, "dstudy") + _figure_block(figs, "phi-difference"))


def candidate_table(study: Study) -> Table:
    base = display_name(study.recommendation.baseline)
    head = ("measure", "family", "Phi", "95 % CI", f"Phi - {base}", "95 % CI of the difference",
            "Erho2", "topics Phi=0.90", "topics Phi=0.95", "disc. power",
            f"sig. pairs - {base}", f"tau vs {base}")
    rows, lit = [], []
    rec = study.recommendation
    order = sorted(study.candidates, key=lambda c: -c.phi if math.isfinite(c.phi) else 1.0)
    for i, c in enumerate(order):
        names = c.names()
        fams = list(dict.fromkeys([c.family, *(a.family for a in c.aliases)]))
        rows.append((
            " = ".join(names), ", ".join(fams), _f(c.phi),
            f"[{_f(c.phi_lower)}, {_f(c.phi_upper)}]", _sf(c.phi_diff),
            f"[{_sf(c.phi_diff_lower)}, {_sf(c.phi_diff_upper)}]"
            + (" marginal" if c.phi_diff_kind == "marginal" else "")
            + (f" (in sample {_sf(c.phi_diff_in_sample)})" if c.cross_fitted else ""),
            _f(c.erho2),
            _n(c.topics_90), _n(c.topics_95), _pct(c.discriminative_power),
            _sf(c.sig_diff, 0), _f(c.kendall_tau),
        ))
        if c.measure in (rec.use.measure, rec.baseline.measure):
            lit.append(i)
    return Table(head, tuple(rows), sortable=True, highlight=tuple(lit), narrow_hide=(3, 6, 7),
                 wrap=(5,))


def candidates_section(study: Study, figs: dict) -> Section:
    from .recommend import _method

    note = (
        "One row per configuration; configurations with the same scores on every cell share a "
        "row (names joined by =). Phi and its F-based interval are at the observed number of "
        "topics. The difference to the baseline has the interval of the decision rule "
        f"({_method(study.settings)}): simultaneous over the {len(study.paired.candidates)} "
        "nDCG configurations, which the rule can recommend; marked marginal for the other "
        "metrics, shown for context. An optimised configuration's difference is cross-fitted: "
        "every topic scored by the configuration optimised on the other folds of topics, so it "
        "is judged on topics it was not chosen on (its in-sample difference, flattered by the "
        "search, in brackets). Disc. power is Sakai's bootstrap test, sig. pairs the "
        "paired t-test count of the rule. Click a column head to sort; type to filter."
    )
    return Section("candidates", "Candidates", (Para(note), candidate_table(study)))


def ranking_section(study: Study, figs: dict) -> Section:
    rec = study.recommendation
    use, base = rec.use.measure, rec.baseline.measure
    rb = study.system_ranking(base)
    if use == base:
        other = rec.closest[0].measure if rec.closest else base
    else:
        other = use
    ro = study.system_ranking(other)
    rank_o = {s: i + 1 for i, s in enumerate(ro.index)}
    bn, on = display_name(study.candidate(base)), display_name(study.candidate(other))
    head = ("rank", f"system ({bn})", bn, f"rank under {on}", on)
    rows = tuple(
        (str(i + 1), str(s), f"{v:.4f}", str(rank_o[s]), f"{ro[s]:.4f}")
        for i, (s, v) in enumerate(rb.items())
    )
    what = "the recommended measure" if use != base else "the closest candidate"
    return Section("ranking", "System ranking", (
        Para(f"Systems by mean {bn} over the topics, next to their rank and score under {what}, "
             f"{on} (Kendall tau = {_f(study.candidate(other).kendall_tau)})."),
        Table(head, rows, sortable=True),
    ))


def optima_section(study: Study, figs: dict) -> Section:
    head = ("problem", "cutoff", "Phi (1 topic)", "Phi", "topics Phi=0.95", "status", "gain")
    rows = []
    for kind, k, r in study.optima:
        rows.append((f"optimal {kind}", str(k), _f(r.phi1), _f(r.phi), _n(r.topics_needed),
                     r.status.value, ", ".join(f"{g:.3f}" for g in r.gain)))
    if study.minimax is not None:
        mm = study.minimax
        for s in mm.scenarios:
            rows.append((f"minimax ({s.name})", str(s.cutoff), _f(s.optimum.phi1),
                         _f(s.optimum.phi), _n(s.optimum.topics_needed), mm.status.value,
                         ", ".join(f"{g:.3f}" for g in mm.gain)))
    longs = [(n, m) for c in study.candidates
             for n, m in zip(c.names(), [c.measure, *(a.measure for a in c.aliases)]) if n != m]
    blocks = [Table(head, tuple(rows))]
    blocks += _figure_block(figs, "vectors") + _figure_block(figs, "discounts")
    if longs:
        blocks.append(Details("Measure strings of the optima",
                              (Items(tuple(f"{n}: {m}" for n, m in longs)),)))
    return Section("optima", "Stability-optimal configurations", tuple(blocks))


def trust_section(study: Study, figs: dict) -> Section | None:
    """The trust card: how often the baseline's tests, the verdict and topics needed are
    wrong on collections simulated like this one (:mod:`irstab.trust.card`)."""
    card = study.trust
    if card is None:
        return (Section("trust", "How far to trust the answers here", (Para(study.trust_note),))
                if study.trust_note else None)
    how = (
        f"The simulator of this collection (a bounded margin per system, chosen by BIC, and a "
        f"Gaussian copula between systems; Urbano & Nagler, SIGIR 2018) is fitted to "
        f"{display_name(study.candidate(study.baseline))}'s scores; {card.n_replicates} new "
        f"collections of {card.n_topics} topics are drawn in which some pairs of systems are "
        "planted equal and others a known difference apart. Every pair is tested as a study "
        f"would (Monte-Carlo tests with B = {card.n_resamples}); the planted pairs are scored "
        "(Urbano, Lima & Hanjalic, SIGIR 2019). The simulator's fit check fits it on half "
        "the topics and asks whether the other half's system means fall in its 95 % ranges "
        "as often as a correct model's would; the card says first when they do not. The "
        "verdict is checked in universes made of this collection's own scores (systems and "
        "topics resampled; the baseline against a twin of equal Phi, against one made more "
        "stable, and against each nDCG candidate of the verdict, one universe each, its "
        "interval the one it would get alone), topics needed with the G-theory simulator, "
        "whose variance components are this collection's G-study. "
        "Bars and +- are Monte-Carlo standard errors. A candidate's coverage also moves "
        "between collections like this one, which they do not count: by 1.6 to 4.2 points "
        "(median) on parts of six TREC collections; irstab calibrate -c MEASURE measures it "
        "for the candidates you pick (here it would cost each of the report's candidates "
        "five times its collections again). irstab calibrate gives every number, for any "
        "measure, number of topics and alpha."
    )
    first, *rest = card.card()
    blocks = [Para(first), Items(tuple(rest))] + list(_figure_block(figs, "trust"))
    blocks.append(Details("How the card is made", (Para(how), *(Para(n) for n in card.notes))))
    return Section("trust", "How far to trust the answers here", tuple(blocks))


_KEY = re.compile(r"^([^:]{1,60}):\s")


def _warning_groups(warnings: tuple[str, ...]) -> dict[str, list[str]]:
    """Warnings grouped by their subject (the text before the first colon) or kind."""
    groups: dict[str, list[str]] = {}
    for w in warnings:
        m = _KEY.match(w)
        key = m.group(1) if m else "other"
        if "pair(s)" in w:
            key = "pairs of systems with degenerate differences"
        elif "tied mean scores" in w:
            key = "tied mean scores (rank correlations account for ties)"
        elif "negative variance" in w:
            key = "negative variance estimates"
        elif "nDCG > 1" in w or "above 1" in w:
            key = "nDCG above 1"
        groups.setdefault(key, []).append(w)
    return groups


def warnings_section(study: Study, figs: dict) -> Section | None:
    if not study.warnings:
        return None
    groups = _warning_groups(study.warnings)
    blocks = [Para(f"{len(study.warnings)} warnings in {len(groups)} groups.")]
    blocks += [Details(f"{k} ({len(v)})", (Items(tuple(v)),)) for k, v in groups.items()]
    return Section("warnings", "Warnings", tuple(blocks))


#: The report's sections in order. Add a panel by appending a function.
SECTIONS: list[SectionFn] = [
    verdict_section,
    comparison_section,
    candidates_section,
    ranking_section,
    optima_section,
    rule_section,
    trust_section,
    warnings_section,
]


def sections(study: Study, figs: list) -> list[Section]:
    """The sections of the report (those that apply)."""
    by_name = {f.name: f for f in figs}
    out = [fn(study, by_name) for fn in SECTIONS]
    return [s for s in out if s is not None]
