"""Figures of the assessor facet: Phi contours over topics x assessors, variance shares."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..errors import IRStabError
from .figures import check_format, pyplot, save

__all__ = ["plot_phi_contours", "plot_variance_shares"]


def plot_phi_contours(
    studies: Sequence,
    path: str | os.PathLike | None = None,
    *,
    max_topics: int = 200,
    max_assessors: int = 10,
    targets: Sequence[float] = (0.8, 0.9, 0.95),
    coefficient: str = "phi",
):
    """Phi (or Erho2) over (topics, assessors per topic), one panel per measure.

    Filled contours of the D-study coefficient of each
    :class:`~irstab.stability.FacetGStudy` on topics ``1..max_topics`` (log
    axis) x assessors ``1..max_assessors``, labelled contour lines at
    ``targets``, and a cross at the observed design.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not studies:
        raise IRStabError("plot_phi_contours: no study to plot")
    if coefficient not in ("phi", "erho2"):
        raise IRStabError(f"coefficient: expected phi or erho2, got {coefficient!r}")
    if max_topics < 2 or max_assessors < 2:
        raise IRStabError("plot_phi_contours: max_topics and max_assessors must be >= 2")
    target = check_format(path) if path is not None else None
    plt = pyplot()
    from matplotlib.ticker import NullLocator

    n = len(studies)
    cols = min(n, 3)
    rows = -(-n // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(3.6 * cols + 0.8, 3.1 * rows), layout="constrained", squeeze=False
    )
    t = np.unique(np.geomspace(1, max_topics, 120).round(2))
    a = np.linspace(1, max_assessors, 60)
    tt, aa = np.meshgrid(t, a)
    levels = np.linspace(0.0, 1.0, 11)
    x_ticks = _log_ticks(max_topics)
    y_ticks = _int_ticks(int(max_assessors))
    mesh = None
    for ax, g in zip(axes.flat, studies):
        z = getattr(g, coefficient)(tt, aa)
        mesh = ax.contourf(tt, aa, z, levels=levels, cmap="viridis", vmin=0, vmax=1)
        lines = ax.contour(tt, aa, z, levels=sorted(targets), colors="white", linewidths=1.0)
        ax.clabel(lines, fmt=lambda v: f"{v:g}", fontsize=7)
        ax.plot(g.n_topics, g.n_assessors, "x", color="red", markersize=8, mew=2)
        ax.set_xscale("log")
        ax.set_xlim(1, max_topics)
        ax.set_ylim(1, max_assessors)
        # plain numbers with both ends labelled (not 10^k)
        ax.set_xticks(x_ticks, [f"{v:g}" for v in x_ticks])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_yticks(y_ticks)
        ax.set_title(f"{g.name or 'measure'} ({g.design.value})", fontsize=9)
        ax.set_xlabel("topics")
        ax.set_ylabel("assessors per topic")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    label = r"$\Phi$" if coefficient == "phi" else r"$E\rho^2$"
    fig.colorbar(mesh, ax=axes, label=label, shrink=0.9)
    fig.suptitle(f"{label} over topics x assessors (x: observed design)", fontsize=10)
    if target is not None:
        save(fig, *target)
    return fig


def _log_ticks(top: float) -> list[float]:
    """Ticks of a log axis from 1 to ``top``, both ends labelled: 1-2-5 over up to two
    decades, then 1-3, then powers of ten; a tick too close to ``top`` is dropped."""
    decades = np.log10(top)
    mantissas = (1, 2, 5) if decades <= 2.5 else (1, 3) if decades <= 3.5 else (1,)
    ticks = [m * 10**k for k in range(int(decades) + 1) for m in mantissas]
    return [v for v in ticks if v < top / 1.8] + [top]


def _int_ticks(top: int) -> list[int]:
    """At most about ten integer ticks from 1 to ``top``, both ends labelled."""
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500) if (top - 1) / s <= 9) \
        if top <= 4501 else int(10 ** np.ceil(np.log10((top - 1) / 9)))
    inner = [v for v in range(step, top, step) if v > 1 and top - v > step / 2]
    return [1, *inner, top]


def plot_variance_shares(
    studies: Sequence, path: str | os.PathLike | None = None, *, title: str | None = None
):
    """Stacked bars: each component's share of the (truncated) total, one bar per measure."""
    if not studies:
        raise IRStabError("plot_variance_shares: no study to plot")
    target = check_format(path) if path is not None else None
    plt = pyplot()
    sources = studies[0].sources
    if any(g.sources != sources for g in studies):
        raise IRStabError("plot_variance_shares: all studies must have the same design")
    fig, ax = plt.subplots(figsize=(1.1 * len(studies) + 3.2, 4.0), layout="constrained")
    x = np.arange(len(studies))
    bottom = np.zeros(len(studies))
    colours = plt.get_cmap("tab10").colors
    for i, src in enumerate(sources):
        share = np.array([g.percent[i] for g in studies])
        ax.bar(x, share, bottom=bottom, color=colours[i % 10], label=src, width=0.7)
        for xi, (b, s) in enumerate(zip(bottom, share)):
            if s >= 4:
                ax.text(xi, b + s / 2, f"{s:.0f}", ha="center", va="center", fontsize=7)
        bottom += share
    ax.set_xticks(x, [g.name or str(i) for i, g in enumerate(studies)], rotation=30, ha="right")
    ax.set_ylabel("share of variance (%)")
    ax.set_ylim(0, 100)
    ax.legend(title="component", fontsize=8, bbox_to_anchor=(1.01, 1), loc="upper left")
    ax.set_title(title or f"variance components ({studies[0].design.value} design)", fontsize=9)
    if target is not None:
        save(fig, *target)
    return fig
