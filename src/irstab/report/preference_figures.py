"""Figures of agreement with users' preferences (presentation only; matplotlib lazily, Agg).

* :func:`plot_agreement_front`: the front of stability (Phi at one topic, x) against agreement
  with side-by-side preferences (y, the front's rate: ties as half, or Sanderson et al.'s), from
  :func:`irstab.preferences.front.agreement_front`: the non-dominated points joined (presets
  among them), the
  front's two ends labelled (most stable, agrees most; red), the report's eight presets marked (colour: gain; marker: discount, as the
  optimizer's discount figure draws them) and drawn filled when they are on the front.

Drawn 8.4 x 5.4 in, so that at the report's 110 dpi its smallest text (8 pt) stays above 8 px
on an 800 px screen; the legend sits under the axes, not over the points.
"""

from __future__ import annotations

import os

import numpy as np

from .figures import pyplot, save_or_close

__all__ = ["plot_agreement_front"]

_GAIN_COLOUR = {"linear": "tab:orange", "exp": "tab:red"}
_DISCOUNT_MARKER = {"log2": "^", "zipf": "P", "linear": "X", "flat": "s"}


def _preset_parts(measure: str) -> tuple[str, str]:
    """``("exp", "zipf")`` of ``nDCG(gain=exp,discount=zipf)@10``."""
    inner = measure[measure.index("(") + 1: measure.rindex(")")]
    parts = dict(p.split("=", 1) for p in inner.split(","))
    return parts["gain"], parts["discount"]


def plot_agreement_front(front, path: str | os.PathLike | None = None, *, cross_fit=None,
                         title: str | None = None):
    """An :class:`~irstab.preferences.front.AgreementFront` (module docstring).

    Agreement is drawn in percent; a configuration that separates no comparison (rate NaN) is
    left out. The title says when the preferences are simulated. With ``cross_fit`` (a
    :class:`~irstab.preferences.front_crossfit.FrontCrossFit` of this front) the optimised
    positions are drawn again where held-out topics put them (grey diamonds, dashed line),
    each joined to its in-sample point by a thin line.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.4, 5.4), layout="constrained")
    pts = [p for p in front.points if np.isfinite(front.rate(p))]
    x = np.array([p.phi for p in pts])
    y = 100 * np.array([front.rate(p) for p in pts])
    opt = [i for i, p in enumerate(pts) if p.kind != "preset"]
    line = sorted((i for i, p in enumerate(pts) if p.on_front), key=lambda i: x[i])
    on = [i for i in opt if pts[i].on_front]
    off = [i for i in opt if not pts[i].on_front]
    ax.plot(x[line], y[line], "-", color="tab:blue", linewidth=1.6, zorder=2,
            label="the front, in sample (no point beats it on both)")
    ax.plot(x[on], y[on], "o", color="tab:blue", markersize=5, zorder=3,
            label="optimised, in sample, on the front")
    if off:
        ax.plot(x[off], y[off], "o", color="tab:blue", markerfacecolor="white", markersize=5,
                zorder=3, label="optimised, in sample, dominated")
    for i, p in enumerate(pts):
        if p.kind != "preset":
            continue
        g, d = _preset_parts(p.measure)
        ax.plot([x[i]], [y[i]], _DISCOUNT_MARKER.get(d, "D"), color=_GAIN_COLOUR.get(g, "0.3"),
                markersize=8, markerfacecolor=_GAIN_COLOUR.get(g, "0.3") if p.on_front
                else "white", markeredgewidth=1.4, zorder=4,
                label=f"preset gain={g}, discount={d}" + (" (on the front)" if p.on_front
                                                          else ""))
    if cross_fit is not None:
        rates = np.array([100 * cross_fit.rate(j) for j in range(len(cross_fit.labels))])
        ok = np.isfinite(rates)
        cx, cy = np.asarray(cross_fit.phi)[ok], rates[ok]
        ax.plot(cx, cy, "D--", color="0.35", markerfacecolor="white", markersize=5,
                linewidth=1.0, zorder=3, label=f"optimised, cross-fitted ({cross_fit.n_folds} "
                "topic folds: held-out topics)")
        by_label = {p.label: (p.phi, 100 * front.rate(p)) for p in front.points}
        for lab, px, py in zip(np.asarray(cross_fit.labels)[ok], cx, cy):
            if lab in by_label:
                ix, iy = by_label[lab]
                ax.plot([ix, px], [iy, py], "-", color="0.7", linewidth=0.6, zorder=1)
        x, y = np.r_[x, cx], np.r_[y, cy]  # the axis range and the label side see them too
    xmid = (x.max() + x.min()) / 2 if len(x) else 0.0
    front_idx = [i for i, p in enumerate(pts) if p.on_front]
    if front_idx:  # the front's own ends: a sweep point may beat the fitted end on both counts
        ends = (("most stable", max(front_idx, key=lambda i: (x[i], y[i]))),
                ("agrees most", max(front_idx, key=lambda i: (y[i], x[i]))))
    else:
        ends = ()
    for text, i in ends:
        right = x[i] > xmid
        ax.annotate(f"{text}\n(Phi {x[i]:.3f}, {y[i]:.1f} %)", (x[i], y[i]),
                    xytext=(-10 if right else 10, -34 if text == "most stable" else 12),
                    textcoords="offset points", ha="right" if right else "left", fontsize=9,
                    arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.6})
        ax.plot([x[i]], [y[i]], "o", color="tab:red", markersize=7, zorder=5)
    ax.margins(x=0.12, y=0.2)
    ax.set_xlabel("stability: Phi at one topic", fontsize=10)
    ties = {"half": "a tie counts half", "exclude": "ties left out (Sanderson et al.)",
            "disagree": "a tie disagrees"}[front.ties]
    ax.set_ylabel(f"agreement with preferences, %\n({ties})", fontsize=10)
    ax.tick_params(labelsize=9)
    sim = " (SIMULATED preferences)" if front.simulated else ""
    ax.set_title(title or f"Stable and valid: nDCG@{front.cutoff}, {front.n_comparisons} "
                          f"comparisons on {front.preference_topics} topics{sim}", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize=8,
              frameon=False)
    save_or_close(fig, path)
    return fig
