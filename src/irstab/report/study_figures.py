"""The figures of ``irstab report`` (presentation only; matplotlib lazily, Agg backend).

* ``dstudy``: Phi against the number of topics; the measure to use and the
  baseline in colour with their 95 % F-based bands, the closest candidate
  and a few others thin and grey (Kanoulas & Aslam, CIKM 2009, Fig. 4).
* ``phi-difference``: every candidate's Phi minus the baseline's with its
  interval (simultaneous for the nDCG configurations, marginal for the other
  measures), against the zero line.
* ``vectors``: gain and discount of the measure to use (and of the closest
  nDCG candidate) against the log2/zipf/linear discounts and the
  linear/exp gains, each normalised to sum 1.
* ``discounts``: the joint-optimal discount at every cutoff.
* ``trust``: the trust card's error rates per test, with Monte-Carlo bars
  (:mod:`.trust_figures`).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np

from .candidates import display_name
from .study import TARGETS, Study

__all__ = ["Figure", "figures", "DPI", "MAX_WIDTH_IN"]


@dataclass(frozen=True)
class Figure:
    """One figure of the report: file stem, caption and PNG bytes."""

    name: str
    caption: str
    png: bytes


#: Resolution of the report's PNGs, and the widest a figure may be drawn (inches): the
#: page shows figures at most 1100 px wide and, on an 800 px screen, about 760 px, so a
#: figure at most 9 in (990 px) keeps its smallest text (7 pt, 10.7 px) above 8 px there.
DPI = 110
MAX_WIDTH_IN = 9.0


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return buf.getvalue()


def _renamed(d, name: str):
    import dataclasses

    return dataclasses.replace(d, name=name)


def _label(c) -> str:
    n = len(c.aliases)
    return display_name(c) + (f" (+{n} identical)" if n else "")


def dstudy_figure(study: Study):
    """Phi(n') of the measure to use and the baseline (bands), others grey."""
    from .figures import plot_dstudy

    rec = study.recommendation
    lit = list(dict.fromkeys([rec.use.measure, rec.baseline.measure]))
    if not rec.change and rec.closest:
        lit.append(rec.closest[0].measure)
    context = [rec.best_preset.measure, rec.most_stable_overall.measure]
    if "AP" in study.gstudies:
        context.append("AP")
    shown = [m for m in dict.fromkeys(lit + context) if m in study.gstudies]
    top = max([len(study.topics) * 3, 50, *(
        study.candidate(m).topics_95 for m in shown
        if math.isfinite(study.candidate(m).topics_95)
    )])
    grid = np.unique(np.linspace(1, min(top, 2000), 160).round())
    ds = [_renamed(study.gstudies[m].dstudy(grid, targets=TARGETS), _label(study.candidate(m)))
          for m in shown]
    names = [_label(study.candidate(m)) for m in lit if m in study.gstudies]
    if rec.change:
        what = f"{display_name(rec.use)} (recommended) and {display_name(rec.baseline)}"
    else:
        what = f"{display_name(rec.use)} (kept)" + (
            f" and the closest, {display_name(rec.closest[0])}" if rec.closest else "")
    return plot_dstudy(
        ds, coefficient="phi", targets=TARGETS, highlight=names,
        title=f"D-study: {what}\nbands: 95 % F-based intervals; grey: for context",
    )


def phi_difference_figure(study: Study):
    """Forest plot: Phi minus the baseline's with its interval, zero line.

    nDCG configurations (simultaneous intervals) in colour and solid; the other
    measures (marginal intervals, context) grey and dashed.
    """
    from .figures import pyplot

    plt = pyplot()
    rec = study.recommendation
    cands = [c for c in study.candidates if math.isfinite(c.phi_diff)]
    cands.sort(key=lambda c: c.phi_diff)
    y = np.arange(len(cands))
    fig, ax = plt.subplots(figsize=(7.2, 0.2 * len(cands) + 1.4), layout="constrained")
    use, base = rec.use.measure, rec.baseline.measure
    closest = {c.measure for c in rec.closest}

    def colour(c):
        if c.measure == use and rec.change:
            return "tab:red"
        if c.measure == base:
            return "black"
        if c.measure in closest:
            return "tab:orange"
        return "tab:blue" if c.is_ndcg else "0.55"

    d = np.array([c.phi_diff for c in cands])
    lo = np.array([c.phi_diff_lower for c in cands])
    hi = np.array([c.phi_diff_upper for c in cands])
    for yi, c, di, l, h in zip(y, cands, d, lo, hi):
        col = colour(c)
        ax.plot([l, h], [yi, yi], color=col, linewidth=1.4 if col != "0.55" else 0.9,
                linestyle="-" if c.phi_diff_kind != "marginal" else (0, (3, 2)))
        ax.plot([di], [yi], "o", color=col, markersize=3.5)
    # the range of the nDCG candidates; intervals of other measures beyond it end in an arrow
    nd = [c for c in cands if c.is_ndcg] or cands
    left = min(min(c.phi_diff_lower for c in nd), -0.02)
    right = max(max(c.phi_diff_upper for c in nd), 0.02)
    pad = 0.06 * (right - left)
    left, right = left - pad, right + pad
    for yi, c, l, h in zip(y, cands, lo, hi):
        if l < left:
            ax.plot([left + 0.3 * pad], [yi], "<", color=colour(c), markersize=4)
        if h > right:
            ax.plot([right - 0.3 * pad], [yi], ">", color=colour(c), markersize=4)
    ax.set_xlim(left, right)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(y, [_label(c) for c in cands], fontsize=7)
    for tick, c in zip(ax.get_yticklabels(), cands):
        tick.set_color(colour(c) if colour(c) != "0.55" else "0.35")
    ax.set_ylim(-0.8, len(cands) - 0.2)
    ax.set_xlabel(f"Phi minus {display_name(rec.baseline)}'s Phi at {len(study.topics)} topics")
    p = study.paired
    from .recommend import _method

    ax.set_title(
        f"Difference in Phi to {display_name(rec.baseline)}, 95 % intervals: simultaneous over "
        f"the {len(p.candidates)} nDCG candidates\n({_method(study.settings)}, B = "
        f"{p.n_bootstrap}); " + ("red: recommended; " if rec.change else "")
        + "orange: closest; blue: nDCG;\ngrey, dashed: other measures, marginal intervals "
        "(context); arrows: interval continues",
        fontsize=8,
    )
    ax.grid(True, axis="x", alpha=0.3)
    return fig


def _vectors(study: Study, measure: str):
    """(gain, discount) of an nDCG measure string, or None for other measures."""
    from ..metrics import parse_measure
    from ..metrics.dcg import DCG

    m = parse_measure(measure)
    if not isinstance(m, DCG) or m.cutoff is None:
        return None
    grades = max((len(r.gain) - 1 for _, _, r in study.optima), default=3)
    return m.gain.vector(grades), m.discount.vector(m.cutoff, m.cutoff)


def _subject(study: Study):
    """The nDCG whose vectors are drawn: the recommended one, else the closest with vectors."""
    rec = study.recommendation
    pool = [rec.use] if rec.change else [c for c in rec.closest if c.is_ndcg]
    if not rec.change:
        pool += sorted((c for c in study.candidates if c.is_ndcg and c.measure != rec.use.measure
                        and c not in pool and c.phi_diff == c.phi_diff), key=lambda c: -c.phi_diff)
    return next((c for c in pool if _vectors(study, c.measure) is not None), None)


def vectors_figure(study: Study):
    """Gain and discount of the recommended (or closest) nDCG against the presets."""
    from .figures import pyplot
    from .optimizer_figures import _discount_axes, _gain_axes

    rec = study.recommendation
    subject = _subject(study)
    if subject is None:
        return None
    gain, discount = _vectors(study, subject.measure)
    plt = pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(10.0, 3.8), layout="constrained")
    name = display_name(subject)
    role = "recommended" if rec.change else "closest candidate"
    _discount_axes(a, discount, f"{role}: {name}", f"discount @{len(discount)}")
    _gain_axes(b, gain, f"{role}: {name}", "gains")
    kept = "" if rec.change else f"; kept: {display_name(rec.baseline)}"
    fig.suptitle(f"Gain and discount of {name} ({role}{kept}) against the presets",
                 fontsize=10)
    return fig


def figures(study: Study) -> list[Figure]:
    """The report's figures as PNG bytes."""
    from .optimizer_figures import plot_discounts

    rec = study.recommendation
    base = display_name(rec.baseline)
    out = []
    if rec.use.measure in study.gstudies:
        pair = (f"{display_name(rec.use)} (recommended) and {base}" if rec.change else
                f"{base} (kept)" + (f" and the closest candidate, {display_name(rec.closest[0])},"
                                    if rec.closest else ""))
        out.append(Figure(
            "dstudy",
            f"Phi against the number of topics (D-study): {pair} with 95 % bands, others "
            "grey; dotted lines: Phi = 0.90 and 0.95; dash-dotted: the observed topics.",
            _png(dstudy_figure(study))))
    out.append(Figure(
        "phi-difference",
        f"Phi of every candidate minus {base}'s, with 95 % intervals (simultaneous over the "
        "nDCG configurations; dashed: marginal intervals of the other measures, for context): "
        "a candidate is reliably more stable only when its interval lies right of 0.",
        _png(phi_difference_figure(study))))
    fig = vectors_figure(study)
    if fig is not None:
        subject = _subject(study)
        role = "the recommended configuration" if rec.change else "the closest candidate"
        out.append(Figure(
            "vectors",
            f"Gain and discount of {role}, {display_name(subject)}, against the log2, zipf and "
            "linear discounts and the linear and exp gains (each normalised to sum 1; nDCG@10 "
            "is log2 with linear gain).",
            _png(fig)))
    if study.trust is not None:
        from .trust_figures import trust_card_figure

        card = study.trust
        out.append(Figure(
            "trust",
            f"Trust card of {base}: type I error of each paired test alone and with Holm or "
            "Benjamini-Hochberg over all pairs (Tukey HSD alone), and each test's power at "
            f"the planted differences, on {card.n_replicates} collections of "
            f"{card.n_topics} topics simulated like this one; bars: 2 Monte-Carlo errors.",
            _png(trust_card_figure(card, width=MAX_WIDTH_IN))))
    joints = [(k, r) for kind, k, r in study.optima if kind == "joint"]
    if joints:
        fig = plot_discounts([r.discount for _, r in joints],
                             [f"joint optimum @{k}" for k, _ in joints],
                             suptitle="Stability-optimal discounts (joint with the gain)",
                             columns=2)  # three in a row shrink to 6 px text at 800 px
        out.append(Figure("discounts", "Optimal discount (joint optimisation) at every cutoff, "
                          "against the log2, zipf and linear presets.", _png(fig)))
    return out
