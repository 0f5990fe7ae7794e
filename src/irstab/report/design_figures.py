"""Figures of collection planning (presentation only; matplotlib lazily, Agg backend).

* :func:`plot_topics_needed`: topics needed against the minimum detectable difference, one
  curve per measure (paired t-test; Sakai, Information Retrieval Journal 2016), with the
  collection's own topic count and the difference asked for.
* :func:`plot_budget_frontier`: the best Phi (or detectable difference) a budget of
  judgments buys, one thin line per (depth, assessors) design and the frontier over them, the
  chosen design and the collection itself marked.

A ``path`` is written through a temporary file and a rename, in the format of its suffix.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..errors import IRStabError
from ..design.power import power_text
from .figures import check_format

__all__ = ["DIFFERENCES", "plot_budget_frontier", "plot_topics_needed"]

#: Differences on the x axis of :func:`plot_topics_needed` (scores on a 0-1 scale).
DIFFERENCES = tuple(np.round(np.linspace(0.01, 0.20, 39), 4))
_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
            "tab:pink", "tab:olive", "tab:cyan", "tab:gray")


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig, path):
    if path is None:
        return
    from ..io import atomic_writer

    path, fmt = check_format(path)
    with atomic_writer(path, "wb") as fh:
        fig.savefig(fh, format=fmt, dpi=150)


def plot_topics_needed(study, path: str | os.PathLike | None = None, *,
                       differences: Sequence[float] = DIFFERENCES, design: str = "ttest"):
    """Topics needed against the detectable difference, one curve per measure.

    Parameters
    ----------
    study : irstab.design.PowerStudy
    path : path-like, optional
        Write the figure here (png, pdf, svg, ...: from the suffix), atomically.
    differences : sequence of float
        The x values (minimum detectable differences, or ranges / half-widths).
    design : {"ttest", "anova", "ci"}
        Which design's counts (:meth:`PowerStudy.curve`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if path is not None:
        check_format(path)
    curve = study.curve(differences, design)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    p0 = study.plans[0]
    for i, p in enumerate(study.plans):
        part = curve[curve["measure"] == p.measure]
        finite = np.isfinite(part["topics"].to_numpy(float))
        colour = _COLOURS[i % len(_COLOURS)]
        ax.plot(part["difference"][finite], part["topics"][finite], "-", color=colour, lw=1.6,
                label=f"{p.measure or 'scores'} ($\\hat\\sigma^2$ = {p.variance.variance:.4f})")
    ax.set_yscale("log")
    sizes = {p.n_topics for p in study.plans}
    if len(sizes) == 1:  # one collection
        ax.axhline(p0.n_topics, color="0.3", ls="-.", lw=0.9)
        ax.annotate(f"this collection: {p0.n_topics} topics", (1.0, p0.n_topics),
                    xycoords=("axes fraction", "data"), xytext=(-4, 3),
                    textcoords="offset points", ha="right", va="bottom", fontsize=8,
                    color="0.25")
    else:  # several collections: each measure's own topic count, in its colour
        for i, p in enumerate(study.plans):
            ax.axhline(p.n_topics, color=_COLOURS[i % len(_COLOURS)], ls="-.", lw=0.8)
        ax.annotate("dash-dot: each collection's own topics", (1.0, 0.0),
                    xycoords="axes fraction", xytext=(-4, 4), textcoords="offset points",
                    ha="right", va="bottom", fontsize=7, color="0.3")
    asked = {"ttest": p0.min_diff, "anova": p0.min_range, "ci": p0.half_width}[design]
    if min(differences) <= asked <= max(differences):
        ax.axvline(asked, color="0.5", ls=":", lw=0.9)
    what = {"ttest": "minimum detectable difference (paired t-test)",
            "anova": f"minimum detectable range (one-way ANOVA, m = {p0.m})",
            "ci": "expected half-width of the 95% interval" if p0.alpha == 0.05
            else f"expected half-width of the {1 - p0.alpha:.0%} interval"}[design]
    ax.set_xlabel(what)
    ax.set_ylabel("topics needed (log scale)")
    power = "" if design == "ci" else f", power {power_text(p0.beta)}"
    ax.set_title(f"Topics needed (alpha = {p0.alpha:g}{power}; {p0.method.value} computation)\n"
                 r"$\hat\sigma^2$: residual variance of the systems x topics ANOVA", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    save(fig, path)
    return fig


def plot_budget_frontier(plan, path: str | os.PathLike | None = None, *, study=None):
    """Objective against the budget: every (depth, assessors) design and their frontier.

    Parameters
    ----------
    plan : irstab.design.BudgetPlan
    path : path-like, optional
        Write the figure here (format from the suffix), atomically.
    study : irstab.design.DepthStudy, optional
        The depth study of ``plan``: draws one thin line per (depth, assessors) design
        (without it only the frontier).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ..design.budget import Objective, design_values

    if path is not None:
        check_format(path)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.4, 5.6))
    key = "phi" if plan.objective is Objective.phi else "mdd"
    fr = plan.frontier[plan.frontier["n_topics"].notna()]
    if fr.empty:
        plt.close(fig)
        raise IRStabError("budget: no budget of the frontier pays for a design")
    budgets = fr["budget"].to_numpy(float)
    if study is not None:
        depths = sorted(plan.designs["depth"].unique())
        assessors = sorted(plan.designs["n_assessors"].unique())
        cmap = plt.get_cmap("viridis")
        for di, d in enumerate(depths):
            row = plan.designs[plan.designs["depth"] == d].iloc[0]
            for a in assessors:
                unit = plan.cost_per_topic + a * row["judgments_per_topic"]
                n_t = np.floor(budgets / unit * (1 + 1e-12))
                phi, mdd = design_values(study, plan.measure, n_t,
                                         np.full(n_t.shape, list(study.depths).index(d)),
                                         np.full(n_t.shape, a), plan.alpha, plan.beta,
                                         mdd=key == "mdd")
                y = phi if key == "phi" else mdd
                ls = ("-", "--", ":", "-.")[(a - 1) % 4]
                ax.plot(budgets, y, ls, color=cmap(di / max(len(depths) - 1, 1)), lw=0.9,
                        alpha=0.8, label=f"depth {d}" + (f", {a} assessor(s)"
                                                         if len(assessors) > 1 else ""))
    ax.plot(budgets, fr[key], color="0.75", lw=6, zorder=1, solid_capstyle="round",
            label="frontier (best design)")
    c = plan.chosen
    ax.plot([plan.budget], [c[key]], "o", ms=9, mfc="crimson", mec="black", zorder=5,
            label=f"chosen: {c['n_topics']} topics, depth {c['depth']}, "
                  f"{c['n_assessors']} assessor(s)")
    cur = plan.current
    if budgets.min() <= cur["cost"] <= budgets.max():
        ax.plot([cur["cost"]], [cur[key]], "s", ms=8, mfc="white", mec="black", zorder=5,
                label=f"this collection: {cur['n_topics']} topics, its qrels")
    ax.axvline(plan.budget, color="0.5", ls=":", lw=0.9)
    ax.set_xscale("log")
    ax.set_xlabel("budget (judgments, log scale)"
                  + (f"; {plan.cost_per_topic:g} per topic made" if plan.cost_per_topic else ""))
    ax.set_ylabel(r"dependability $\Phi$" if key == "phi"
                  else f"minimum detectable difference (t-test, power {power_text(plan.beta)})")
    if key == "phi":
        lo = np.nanmin(fr["phi"].to_numpy(float))
        ax.set_ylim(max(0.0, min(lo, cur["phi"]) - 0.05), 1.0)
    ax.set_title(f"{plan.measure}: best split of {plan.budget:,.0f} judgments over topics, "
                 "pool depth and assessors", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    # below the axes, not on them: inside, it covered the deep pools' curves (depth 50, 100)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3,
              borderaxespad=0.0, frameon=False)
    fig.set_layout_engine("constrained")
    save(fig, path)
    return fig
