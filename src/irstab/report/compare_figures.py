"""Figures of measure comparisons: ASL curves (Kanoulas & Aslam, CIKM 2009, Fig. 9) and mean-score scatters (Fig. 7).

Presentation only. matplotlib is imported lazily with the Agg backend; a
``path`` is written through a temporary file and a rename, in the format of
its suffix (png, pdf, svg, ...).
"""

from __future__ import annotations

import math
import os

import numpy as np

from ..errors import IRStabError
from .figures import check_format, pyplot, save

__all__ = ["plot_asl_curves", "plot_mean_scatter", "plot_comparison"]


def _draw_asl(ax, result, ymax: float) -> None:
    P = result.n_pairs
    x = np.arange(1, P + 1)
    for k, name in enumerate(result.measures):
        asl = np.sort(result.asl[k])
        ax.plot(x, asl, label=f"{name} ({int(result.n_significant[k])}/{P} < {result.alpha:g})")
    ax.axhline(result.alpha, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xlim(1, max(P, 2))
    ax.set_ylim(0.0, ymax)
    ax.set_xlabel("system pairs sorted by ASL")
    ax.set_ylabel("achieved significance level (ASL)")
    B = result.n_resamples
    ax.set_title(f"{len(result.systems)} systems, {P} pairs, B = {B}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")


def _draw_scatter(ax, correlation, ref: int, other: int) -> None:
    x, y = correlation.means[ref], correlation.means[other]
    ax.scatter(x, y, s=14, alpha=0.8)
    lo = float(min(x.min(), y.min()))
    hi = float(max(x.max(), y.max()))
    pad = 0.03 * (hi - lo or 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_xlabel(f"mean {correlation.measures[ref]}", fontsize=8)
    ax.set_ylabel(f"mean {correlation.measures[other]}", fontsize=8)
    tau = correlation.kendall_tau[ref, other]
    rmse = correlation.rmse[ref, other]
    tau_text = "undefined" if math.isnan(tau) else f"{tau:.4f}"
    ax.text(
        0.04, 0.96, f"RMSE = {rmse:.4f}\nKendall's $\\tau$ = {tau_text}",
        transform=ax.transAxes, va="top", fontsize=8,
        bbox={"facecolor": "white", "alpha": 0.8, "linewidth": 0},
    )
    ax.grid(True, alpha=0.3)


def plot_asl_curves(
    result, path: str | os.PathLike | None = None, *, ymax: float = 1.0, title: str | None = None
):
    """ASL of every pair of systems, sorted, one curve per measure (Kanoulas & Aslam, CIKM 2009, Fig. 9).

    A curve closer to the x axis discriminates more pairs; the dotted line is
    ``alpha`` and the legend gives the number of pairs below it.

    Parameters
    ----------
    result : irstab.compare.PairwiseTests
        Usually :func:`irstab.compare.discriminative_power`'s result (any
        pairwise test works: its p-values are drawn).
    path : path-like, optional
        Write the figure here, atomically.
    ymax : float
        Upper limit of the y axis (e.g. 0.1 to zoom on the significant pairs).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not 0 < ymax <= 1:
        raise IRStabError(f"ymax: expected a number in (0, 1], got {ymax!r}")
    target = None if path is None else check_format(path)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    _draw_asl(ax, result, ymax)
    if title:
        ax.set_title(title, fontsize=9)
    if target is not None:
        save(fig, *target)
    return fig


def plot_mean_scatter(correlation, path: str | os.PathLike | None = None, *, reference: str | None = None):
    """Mean score of each system under ``reference`` (x) against every other measure (y).

    One panel per other measure, with the diagonal, the RMSE and Kendall's
    tau in the corner (Kanoulas & Aslam, CIKM 2009, Figs. 7-8).

    Parameters
    ----------
    correlation : irstab.compare.RankCorrelation
    path : path-like, optional
        Write the figure here, atomically.
    reference : str, optional
        Measure on the x axes (default: the first).

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = list(correlation.measures)
    if len(names) < 2:
        raise IRStabError("plot_mean_scatter: needs at least 2 measures")
    if reference is None:
        ref = 0
    elif reference in names:
        ref = names.index(reference)
    else:
        raise IRStabError(f"reference: {reference!r} is not one of the measures {names}")
    target = None if path is None else check_format(path)
    others = [k for k in range(len(names)) if k != ref]
    plt = pyplot()
    ncols = min(3, len(others))
    nrows = math.ceil(len(others) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 3.4 * nrows), layout="constrained",
                             squeeze=False)
    for ax, k in zip(axes.flat, others):
        _draw_scatter(ax, correlation, ref, k)
    for ax in list(axes.flat)[len(others):]:
        ax.set_visible(False)
    if target is not None:
        save(fig, *target)
    return fig


def plot_comparison(comparison, path: str | os.PathLike | None = None, *, ymax: float = 1.0):
    """ASL curves and the mean-score scatters against the first measure, in one figure.

    What ``irstab compare --plot FILE`` writes.

    Parameters
    ----------
    comparison : irstab.compare.MeasureComparison
    path : path-like, optional
        Write the figure here, atomically.
    ymax : float
        Upper limit of the ASL axis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not 0 < ymax <= 1:
        raise IRStabError(f"ymax: expected a number in (0, 1], got {ymax!r}")
    target = None if path is None else check_format(path)
    plt = pyplot()
    M = len(comparison.measures)
    n = 1 + (M - 1)
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.6 * nrows), layout="constrained",
                             squeeze=False)
    flat = list(axes.flat)
    _draw_asl(flat[0], comparison.bootstrap, ymax)
    for ax, k in zip(flat[1:], range(1, M)):
        _draw_scatter(ax, comparison.correlation, 0, k)
    for ax in flat[n:]:
        ax.set_visible(False)
    if target is not None:
        save(fig, *target)
    return fig
