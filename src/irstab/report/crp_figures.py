"""CRP figures (presentation only): the curve with its RP bar, and the indicators in parallel coordinates.

matplotlib is imported lazily and figures are drawn on an Agg canvas without
pyplot, so nothing global (backend, open-figure registry) is touched.

Angelini, Ferro, Järvelin et al., "Cumulated Relative Position: A Metric for Ranking
Evaluation", CLEF 2012, Fig. 2a and Fig. 3.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import IRStabError
from .figures import check_format, save

__all__ = ["plot_crp_curve", "plot_crp_indicators", "check_figure_path", "RP_COLOURS"]

# Angelini et al. 2012, Sec. 4: green = in its ideal interval, red = above it (too early),
# blue = below (too late).
RP_COLOURS = {"early": "#d62728", "exact": "#2ca02c", "late": "#1f77b4"}


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def check_figure_path(path: str | os.PathLike) -> str:
    """The figure format of ``path`` (from its suffix); raise if matplotlib cannot write it."""
    return check_format(path)[1]




def plot_crp_curve(curve, path: str | os.PathLike | None = None, *, worst: bool = True,
                   max_rank: int | None = None, title: str | None = None):
    """The CRP curve of one run on one topic with its RP bar (Angelini et al. 2012, Fig. 2a).

    Parameters
    ----------
    curve : irstab.metrics.crp.CRPCurve
        From :func:`irstab.metrics.crp_curve`.
    path : path-like, optional
        Write the figure here (format from the suffix: png, pdf, svg, ...), atomically.
    worst : bool
        Also draw the worst-case curve (dashed): the curve of the paper's
        worst-case ranking (non-relevant documents first, then relevant ones
        by increasing grade). It is a reference ranking, not a pointwise
        lower bound: a run can fall below it. The y range covers the run's
        curve and the worst case's minimum (its rise towards N may leave the plot).
    max_rank : int, optional
        Draw ranks 1..max_rank only (default: all N).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        The ideal curve is the x-axis; markers show the loss value at R, the
        turn-around point, the balance point b_r and CRP(r, N). The bar under
        the curve colours each rank by the sign of its RP.
    """
    from matplotlib.colors import BoundaryNorm, ListedColormap

    ind = curve.indicators
    last = curve.n if max_rank is None else int(max_rank)
    if last < 1:
        raise IRStabError(f"max_rank must be a positive integer, got {max_rank!r}")
    last = min(last, curve.n)
    ranks = np.arange(1, curve.n + 1)
    fig = _figure(7.0, 4.4)
    ax, bar = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [6, 1]})
    ax.axhline(0, color="black", linewidth=1.0, label="ideal")
    if worst:
        ax.plot(ranks, curve.worst_crp, "--", color="grey", linewidth=1.0, zorder=1,
                label="worst-case ranking (non-relevant first)")
    ax.plot(ranks, curve.crp, "-", color="#1f3b73", linewidth=1.5, label=f"run {curve.system}")
    points = [
        (ind["R"], ind["loss"], "o", f"loss CRP(r,R) = {ind['loss']}"),
        (ind["min_rank"], ind["min_value"], "v", f"turn-around min = {ind['min_rank']}"),
        (curve.n, ind["crp_at_N"], "s", f"CRP(r,N) = {ind['crp_at_N']}"),
    ]
    if np.isfinite(ind["balance_point"]):
        points.append((ind["balance_point"], 0, "D", f"balance b_r = {int(ind['balance_point'])}"))
    for x, y, marker, label in points:
        ax.plot([x], [y], marker, markersize=6, label=label, zorder=3)
    ax.axvline(ind["R"], color="grey", linestyle=":", linewidth=0.8)
    shown = curve.crp[:last]
    lo, hi = min(0, shown.min()), max(0, shown.max())
    if worst:  # include the worst case's dip; its late rise (thousands at N = 1000) may leave
        lo = min(lo, curve.worst_crp[:last].min())
    pad = 0.08 * (hi - lo) or 1.0
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_ylabel("CRP")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    rho = ind["rho"]
    ax.set_title(title or f"CRP, topic {curve.topic}: R = {curve.R}, N = {curve.n}, rho = {rho:.3f}",
                 fontsize=9)

    cmap = ListedColormap([RP_COLOURS["early"], RP_COLOURS["exact"], RP_COLOURS["late"]])
    norm = BoundaryNorm([-1.5, -0.5, 0.5, 1.5], cmap.N)
    edges = np.arange(curve.n + 1) + 0.5
    bar.pcolormesh(edges, [0, 1], np.sign(curve.rp)[None, :], cmap=cmap, norm=norm)
    bar.set_yticks([])
    bar.set_ylabel("RP", rotation=0, labelpad=12, va="center")
    bar.set_xlabel("rank" + (" (log scale)" if last > 100 else ""))
    if last > 100:  # ranks 1-20 would be squeezed against the edge on a linear axis
        bar.set_xscale("log")
        bar.set_xlim(0.8, last + 0.5)
    else:
        from matplotlib.ticker import MaxNLocator

        bar.xaxis.set_major_locator(MaxNLocator(integer=True))
        bar.set_xlim(0.5, last + 0.5)
    if path is not None:
        save(fig, path)
    return fig


_AXES = (
    ("R", "R / max R"),
    ("worst_rho", r"$\rho_w = R/b_w$"),
    ("rho", r"$\rho$"),
    ("balance_ratio", r"$b_{ratio}$"),
    ("min_ratio", r"$CRP_{min}$"),
    ("N_ratio", r"$CRP_N$"),
)


def plot_crp_indicators(indicators, system: str | int = 0, path: str | os.PathLike | None = None,
                        *, title: str | None = None):
    """The CRP indicators of one run over all topics in parallel coordinates.

    Angelini et al., CLEF 2012, Fig. 3.

    Axes: ``R`` (divided by the largest R), the worst case's recovery value
    ``rho_w = R / b_w``, then ``rho``, the balance ratio, ``CRP_min`` and
    ``CRP_N``; all in [0, 1]. One line per topic, coloured by the topic's
    recall base R (the paper orders topics by R).

    Parameters
    ----------
    indicators : irstab.metrics.crp.CRPIndicators
        From :func:`irstab.metrics.crp_indicators`.
    system : str or int
        The run to draw.
    path : path-like, optional
        Write the figure here, atomically.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    systems = indicators.systems
    if isinstance(system, (int, np.integer)) and not isinstance(system, bool):
        if not 0 <= system < len(systems):
            raise IRStabError(f"system index {system} out of range (0..{len(systems) - 1})")
        s = int(system)
    elif system in systems:
        s = systems.index(system)
    else:
        raise IRStabError(f"system {system!r} is not among the indicators' runs")
    v = indicators.values
    R = v["R"].astype(np.float64)
    columns = {
        "R": R / R.max(),
        "worst_rho": v["worst_rho"],
        "rho": v["rho"][s],
        "balance_ratio": v["balance_ratio"][s],
        "min_ratio": v["min_ratio"][s],
        "N_ratio": v["N_ratio"][s],
    }
    data = np.column_stack([columns[key] for key, _ in _AXES])
    order = np.argsort(R, kind="stable")
    T = len(order)
    fig = _figure(7.5, 4.2)
    ax = fig.subplots()
    cmap = colormaps["viridis"]
    norm = Normalize(R.min(), R.max() if R.max() > R.min() else R.min() + 1)
    x = np.arange(len(_AXES))
    for t in order:
        colour = cmap(norm(R[t]))
        label = f"{indicators.topics[t]} (R={int(R[t])})" if T <= 20 else None
        ax.plot(x, data[t], "-o", color=colour, linewidth=1.0, markersize=2.5, alpha=0.8, label=label)
    for xi in x:
        ax.axvline(xi, color="black", linewidth=0.6)
    ax.set_xticks(x, [label for _, label in _AXES])
    ax.set_xlim(-0.2, len(_AXES) - 0.8)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, axis="y", alpha=0.3)
    if T <= 20:
        ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5), title="topic", title_fontsize=7)
    else:
        from matplotlib.cm import ScalarMappable

        sm = ScalarMappable(norm=norm, cmap=cmap)
        fig.colorbar(sm, ax=ax, label="R (topic colour)")
    rho_avg = float(v["rho"][s].mean())
    ax.set_title(title or f"CRP indicators, run {systems[s]}: {T} topics, N = {indicators.n}, "
                 f"rho_avg = {rho_avg:.3f}", fontsize=9)
    if path is not None:
        save(fig, path)
    return fig
