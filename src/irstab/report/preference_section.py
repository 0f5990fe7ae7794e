"""The report's section "Stable and valid": stability against agreement with users' preferences.

Given side-by-side preferences for (some of) the collection's topics (``irstab report
--preferences FILE``), the section shows

* the configuration of nDCG@k that agrees best with the preferences, its agreement in sample
  and cross-fitted over topic folds (:func:`irstab.preferences.fit.cross_fit_agreement`: each
  comparison counted under a configuration fitted without its topic), beside the report's
  eight presets, each with Phi at one topic;
* the front of Phi against agreement (:func:`irstab.preferences.front.agreement_front`) as a
  figure and a table, the presets marked, and its optimised points cross-fitted
  (:func:`irstab.preferences.front_crossfit.cross_fit_front`: Phi and agreement on topics each
  fold's front never saw).

Simulated preferences (:mod:`irstab.preferences.simulated`) are said to be simulated in the
first sentence, the figure's title and report.json. Presentation only: every number comes
from :mod:`irstab.preferences`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["PreferenceSection", "preference_section", "DEFAULT_CUTOFF", "TITLE"]

TITLE = "Stable and valid: agreement with users' preferences"
#: Ranks compared when not asked: the top ten users see side by side, or fewer if shown fewer.
DEFAULT_CUTOFF = 10


@dataclass(frozen=True)
class PreferenceSection:
    """The section: Markdown, HTML, ``data`` (report.json key ``preferences``) and a figure."""

    markdown: str
    html: str
    data: dict
    figures: tuple  # ((name, png bytes),)
    key: str = "preferences"

    @property
    def figure_name(self) -> str:
        return self.figures[0][0]

    @property
    def figure_png(self) -> bytes:
        return self.figures[0][1]


#: How the section names the rate the optimum is chosen by (irstab.preferences.comparisons.TIE_RULES).
_RULE_TEXT = {"half": "the first", "exclude": "the second",
              "disagree": "a third, a tie counting as a disagreement"}


def _pct(v: float) -> str:
    return "n/a" if not math.isfinite(v) else f"{100 * v:.1f} %"


def _counts(a) -> str:
    return f"{a.agree} / {a.tie} / {a.disagree}"


def preference_section(collection, comparisons, *, cutoff: int | None = None, folds: int = 5,
                       seed=0, starts: int = 2, points: int = 7, ties: str = "half",
                       figure_dir: str = "figures") -> PreferenceSection:
    """Build the section (module docstring) for ``collection`` and ``comparisons``.

    ``comparisons`` is any object with ``topic``, ``preferred``, ``grades_a`` and
    ``grades_b`` (:class:`irstab.preferences.comparisons.Comparisons`); ``cutoff`` defaults to
    :data:`DEFAULT_CUTOFF` or the rankings' depth when smaller. ``folds`` and ``seed`` are the
    cross-fitting's; ``starts`` and ``points`` the optimizer's random starts and the front's
    epsilons; ``ties`` the rate the optimum is chosen by and the front drawn on
    (:data:`irstab.preferences.comparisons.TIE_RULES`).
    """
    from ..preferences.fit import cross_fit_agreement
    from ..preferences.front import non_dominated
    from ..preferences.front_crossfit import cross_fit_front
    from ..preferences.paired import against_preset
    from .preference_figures import plot_agreement_front
    from .render import section_html, section_markdown
    from .sections import Details, Fig, Items, Para, Section, Table
    from .study_figures import Figure, _png

    depth = int(comparisons.grades_a.shape[1])
    k = min(DEFAULT_CUTOFF, depth) if cutoff is None else int(cutoff)
    fcf = cross_fit_front(collection, comparisons, k, folds=folds, points=points,
                          starts=starts, seed=seed, ties=ties)
    front = fcf.front
    cf = cross_fit_agreement(comparisons, cutoff=k, max_grade=front_max_grade(collection),
                             folds=folds, seed=seed, starts=starts, ties=ties)
    phi = {p.measure: p.phi for p in front.points}
    opt = cf.optimum
    agreeing = next(p for p in front.points if p.kind == "most agreeing")
    simulated = front.simulated
    lead = ("These preferences are SIMULATED (a simulated user's choices between pairs of "
            "this collection's runs), not real users' judgments: the section shows how the "
            "analysis works, not what users prefer. " if simulated else "")
    intro = (
        f"{lead}A measure can be stable and still disagree with users. {front.n_comparisons} "
        f"side-by-side comparisons with a preference, on {front.preference_topics} topics "
        f"({front.shared_topics} of them topics of this collection), are counted against "
        f"nDCG@{k}: the measure agrees when it prefers the side the user preferred. Two "
        "rates: a tie of the measure counting as half an agreement (the measure must decide), "
        "and Sanderson, Paramita, Clough & Kanoulas's (SIGIR 2010), ties left out; the "
        f"optimum is chosen by {_RULE_TEXT[ties]}"
        + (", since the second rewards a measure that ties the hard comparisons. "
           if ties == "half" else ", as asked. ")
        + "The gain and discount that agree best are fitted on a smooth surrogate of that "
        "count (monotone, as the optimizer's) and judged on held-out topics: each comparison "
        f"is counted under the configuration fitted on the other {cf.n_folds - 1} of "
        f"{cf.n_folds} topic folds."
    )
    head = ("configuration", "agreement (tie = half)", "agreement (ties left out)",
            "agree / tie / disagree", "Phi (1 topic)")

    def row(name, a, phi_text):
        return (name, _pct(a.half_rate), _pct(a.rate), _counts(a), phi_text)

    rows = [row("optimised for agreement (in sample)", opt.agreement, f"{agreeing.phi:.3f}"),
            row("optimised for agreement (cross-fitted)", cf.cross_fitted, "")]
    rows += [row(m, a, f"{phi[m]:.3f}") for m, a in cf.presets]
    best_name, best = cf.best_preset
    what = {"half": "a tie counting half", "exclude": "ties left out",
            "disagree": "a tie counting as a disagreement"}[ties]
    d = against_preset(cf, best_name, seed=seed)
    if d.lower > 0:
        held = "The optimum's advantage holds out of sample"
    elif d.upper < 0:
        held = ("Out of sample the optimum agrees less often than the best preset: its "
                "in-sample advantage is the search's optimism")
    else:
        held = ("Out of sample the optimum is not distinguishable from the best preset: its "
                "in-sample advantage may be the search's optimism")
    verdict = (
        f"Optimised, agreement ({what}) is {_pct(opt.agreement.value(ties))} on the topics it "
        f"was fitted to and {_pct(cf.cross_fitted.value(ties))} on held-out topics; the best "
        f"preset, {best_name}, agrees {_pct(best.value(ties))} (not fitted, so in and out of "
        f"sample alike). {held} (cross-fitted minus preset {100 * d.difference:+.1f} points, "
        f"{100 * d.level:.0f} % interval {100 * d.lower:+.1f} to {100 * d.upper:+.1f} from "
        f"{d.n_resamples} resamples of the {d.n_topics} topics, paired)."
    )
    on_front = [p.label for p in front.presets if p.on_front]
    top = front.front[0]  # the front's own ends (a sweep point may beat a fitted end)
    most = max(front.front, key=lambda p: (p.agreement.key(ties), p.phi))
    front_text = (
        f"The front of stability against agreement ({len(front.front)} non-dominated of "
        f"{len(front.points)} configurations; both axes in sample) runs from the most stable "
        f"configuration (Phi {top.phi:.3f}, agreement {_pct(front.rate(top))}) to "
        f"the one that agrees most (Phi {most.phi:.3f}, "
        f"{_pct(front.rate(most))}). "
        + (f"Presets on the front: {', '.join(on_front)}." if on_front else
           "No preset is on the front: for each, an optimised configuration is at least as "
           "stable and agrees at least as often.")
    )
    fhead = ("point", "Phi (1 topic)", f"agreement ({what})", "on the front",
             "Phi, cross-fitted", "agreement, cross-fitted")
    held_out = {lab: (fcf.phi[j], fcf.rate(j)) for j, lab in enumerate(fcf.labels)}
    frows = tuple((p.label, f"{p.phi:.4f}", _pct(front.rate(p)), "yes" if p.on_front else "no",
                   f"{held_out[p.label][0]:.4f}" if p.label in held_out else "(preset)",
                   _pct(held_out[p.label][1]) if p.label in held_out else "(preset)")
                  for p in front.points)
    ms, ma = held_out[fcf.labels[0]], held_out[fcf.labels[-1]]
    front_text += (
        f" On held-out topics ({fcf.n_folds} folds, each front traced without its fold: grey "
        f"in the figure) the most stable end has Phi {ms[0]:.3f} and agreement {_pct(ms[1])}, "
        f"the most agreeing end Phi {ma[0]:.3f} and {_pct(ma[1])}; the presets are not "
        "fitted, so their points hold as drawn. "
    )
    # out of sample: the cross-fitted positions and the presets, the front among them
    out_phi = np.r_[fcf.phi, [p.phi for p in front.presets]]
    out_rate = np.r_[[fcf.agreement[j].key(ties)[0] for j in range(len(fcf.labels))],
                     [p.agreement.key(ties)[0] for p in front.presets]]
    out_on = non_dominated(out_phi, out_rate)
    kept = [p.label for p, on in zip(front.presets, out_on[len(fcf.labels):]) if on]
    n_opt = int(out_on[: len(fcf.labels)].sum())
    front_text += (
        f"Out of sample, {n_opt} of the {len(fcf.labels)} optimised positions and "
        + (f"{len(kept)} preset(s) ({', '.join(kept)})" if kept else "no preset")
        + " are beaten by no other on both counts."
    )
    fig = plot_agreement_front(front, cross_fit=fcf)
    figure = Figure("preferences-front",
                    f"Phi at one topic against agreement with the preferences, nDCG@{k}"
                    + (" (simulated preferences)" if simulated else ""), _png(fig))
    strings = [f"{p.label}: {p.measure}" for p in front.points if p.kind != "preset"]
    strings.append(f"optimised for agreement, all topics: {opt.measure_string}")
    sec = Section(id="preferences", title=TITLE, blocks=(
        Para(intro), Table(head, tuple(rows)), Para(verdict), Fig(figure), Para(front_text),
        Details("Points of the front", (Table(fhead, frows),)),
        Details("Measure strings of the optimised configurations", (Items(tuple(strings)),)),
    ))
    data = {"simulated": simulated, "cutoff": k, "ties": ties, "front": front.to_dict(),
            "front_cross_fitted": fcf.to_dict(), "presets_on_the_held_out_front": kept,
            "fit": cf.to_dict(), "against_best_preset": {"preset": best_name, **d.to_dict()}}
    return PreferenceSection(section_markdown(sec, figure_dir), section_html(sec), data,
                             ((figure.name, figure.png),))


def front_max_grade(collection) -> int:
    """The gain vector's largest grade: the collection's (at least 1)."""
    return max(int(collection.max_grade), 1)
