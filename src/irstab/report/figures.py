"""Figures (presentation only): what every figure module shares, and the D-study figure.

Every figure module of the report draws with :func:`pyplot` (matplotlib imported lazily, with
the Agg backend), checks a path's format before drawing with :func:`check_format` (the suffix
names it: png, pdf, svg, ...) and writes with :func:`save` (a temporary file and a rename, never
half a file). :func:`plot_dstudy` is the coefficient-against-topics figure (Kanoulas & Aslam,
CIKM 2009, Fig. 4).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import IRStabError

__all__ = ["plot_dstudy", "pyplot", "check_format", "save", "save_or_close"]

_STYLES = {"phi": ("-", r"$\Phi$"), "erho2": ("--", r"$E\rho^2$")}
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display), imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def check_format(path: str | os.PathLike) -> tuple[Path, str]:
    """``(path, format)``; fail before drawing when the suffix is no format matplotlib writes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    supported = FigureCanvasAgg.get_supported_filetypes()
    if fmt not in supported:
        raise IRStabError(
            f"{path}: unsupported figure format {fmt!r}; use one of {', '.join(sorted(supported))}"
        )
    return path, fmt


def save(fig, path: str | os.PathLike, fmt: str | None = None) -> None:
    """Write ``fig`` to ``path`` whole or not at all (150 dpi for raster formats)."""
    from ..io import atomic_writer

    if fmt is None:
        path, fmt = check_format(path)
    with atomic_writer(path, "wb") as fh:
        fig.savefig(fh, format=fmt, dpi=150)


def save_or_close(fig, path: str | os.PathLike | None) -> None:
    """:func:`save` when ``path`` is given; a figure whose format is refused is closed first."""
    if path is None:
        return
    try:
        path, fmt = check_format(path)
    except IRStabError:
        pyplot().close(fig)
        raise
    save(fig, path, fmt)


def _zoom(dstudies: Sequence, kind: str, above: float) -> tuple[float, float] | None:
    """``(first topic count, lowest coefficient)`` of the zoomed axes, or None.

    Zoom when every curve is at least ``above`` at the observed topics: the x axis
    from a quarter of them, the y axis from a little below the lowest value (or band)
    drawn from there on.
    """
    at_observed = []
    for d in dstudies:
        n = np.asarray(d.n_topics, dtype=float)
        at_observed.append(getattr(d, kind)[int(np.argmin(np.abs(n - d.n_topics_observed)))])
    if not at_observed or min(at_observed) < above:
        return None
    start = max(min(min(d.n_topics) for d in dstudies), dstudies[0].n_topics_observed / 4)
    low = min(float(np.min(np.asarray(getattr(d, f"{kind}_lower"))[np.asarray(d.n_topics) >= start],
                           initial=1.0)) for d in dstudies)
    return float(start), max(0.0, low - 0.1 * (1.0 - low))


def plot_dstudy(
    dstudies: Sequence,
    path: str | os.PathLike | None = None,
    *,
    coefficient: str = "phi",
    targets: Sequence[float] = (),
    bands: bool = True,
    title: str | None = None,
    highlight: Sequence[str] | None = None,
    zoom_above: float = 0.95,
):
    """Coefficient against the number of topics, one line per measure (Kanoulas & Aslam, CIKM 2009, Fig. 4).

    Where every curve is at least ``zoom_above`` at the observed number of topics (a
    collection with many topics), the axes zoom on the topics from a quarter of the
    observed number on and on the coefficients there, so that the curves can be told
    apart; the title says so.

    Parameters
    ----------
    dstudies : sequence of irstab.stability.DStudy
        One per measure; their ``n_topics`` are the x values (use a dense grid
        for a smooth curve). Sizes spanning more than a factor 1000 get a
        logarithmic axis.
    path : path-like, optional
        Write the figure here (format from the suffix: png, pdf, svg, ...),
        atomically.
    coefficient : {"phi", "erho2", "both"}
        What to draw; ``both`` draws Phi solid and Erho2 dashed.
    targets : sequence of float
        Horizontal reference lines (e.g. 0.95).
    bands : bool
        Shade each curve's confidence interval.
    title : str, optional
    highlight : sequence of str, optional
        Names of the D-studies to draw in colour (with their bands); the
        others are drawn thin and grey, without bands, for context.

    Returns
    -------
    matplotlib.figure.Figure
    """
    kinds = {"phi": ["phi"], "erho2": ["erho2"], "both": ["phi", "erho2"]}.get(coefficient)
    if kinds is None:
        raise IRStabError(f"coefficient: expected phi, erho2 or both, got {coefficient!r}")
    if not dstudies:
        raise IRStabError("plot_dstudy: no D-study to plot")
    zoom = _zoom(dstudies, kinds[0], zoom_above)
    digits = ".4f" if zoom is not None else ".3f"  # zoomed curves differ in the 4th digit
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    shown = None if highlight is None else set(highlight)
    n_col = 0
    # context curves first, so the highlighted ones are drawn on top
    ordered = sorted(enumerate(dstudies), key=lambda p: shown is not None and p[1].name in shown)
    for i, d in ordered:
        lit = shown is None or d.name in shown
        colour = colours[n_col % len(colours)] if lit else "0.6"
        n_col += lit
        # curves that coincide stay visible: each measure its own marker, at staggered ranks
        n = len(d.n_topics)
        every = (i * max(1, n // (6 * len(dstudies))) % max(1, n // 6), max(1, n // 6))
        for kind in kinds:
            style, label = _STYLES[kind]
            name = d.name or f"measure {i + 1}"
            at = int(np.argmin(np.abs(np.asarray(d.n_topics, dtype=float) - d.n_topics_observed)))
            value = getattr(d, kind)[at]
            ax.plot(
                d.n_topics,
                getattr(d, kind),
                style,
                color=colour,
                linewidth=2.0 if lit and shown is not None else (0.9 if not lit else 1.5),
                marker=_MARKERS[i % len(_MARKERS)] if lit else None,
                markevery=every,
                markersize=4,
                label=(f"{name} {label}" if len(kinds) > 1 else name) + f" ({value:{digits}})",
                zorder=3 if lit else 2,
            )
            if bands and lit and kind == kinds[0]:
                ax.fill_between(
                    d.n_topics,
                    getattr(d, f"{kind}_lower"),
                    getattr(d, f"{kind}_upper"),
                    color=colour,
                    alpha=0.12,
                    linewidth=0,
                )
    coef = {"phi": "Phi", "erho2": "Erho2"}.get(coefficient, "coefficient")
    for t in targets:
        ax.axhline(t, color="grey", linestyle=":", linewidth=0.8)
        ax.annotate(f"{coef} = {t:g}", (1.0, t), xycoords=("axes fraction", "data"),
                    xytext=(-3, -2), textcoords="offset points", fontsize=7, color="0.3",
                    ha="right", va="top", zorder=4, annotation_clip=True,
                    bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})
    observed = dstudies[0].n_topics_observed
    ax.axvline(observed, color="grey", linestyle="-.", linewidth=0.8)
    ax.set_xlabel("number of topics")
    ylabel = {"phi": r"dependability $\Phi$", "erho2": r"generalizability $E\rho^2$"}
    ax.set_ylabel(ylabel.get(coefficient, "coefficient"))
    ax.set_ylim(0.0, 1.0)
    lo, hi = min(min(d.n_topics) for d in dstudies), max(max(d.n_topics) for d in dstudies)
    if hi > 1000 * lo:  # a linear axis would squash the rise of the curve into one pixel
        ax.set_xscale("log")
        ax.set_xlabel("number of topics (log scale)")
    ax.set_xlim(left=lo)
    if zoom is not None:
        ax.set_xlim(zoom[0], hi)
        ax.set_ylim(zoom[1], 1.0)
    method = {"f": "F-based"}.get(dstudies[0].interval.value, dstudies[0].interval.value)
    band_note = f"; bands: {dstudies[0].confidence:.0%} {method} intervals" if bands else ""
    ax.set_title(title or f"D-study (observed topics: {observed}; legend: value there"
                          f"{band_note})", fontsize=9)
    if zoom is not None:
        ax.set_title(ax.get_title() + f"\nzoomed: every curve is above {zoom_above:g} at the "
                     "observed topics", fontsize=9)
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if shown is not None:  # highlighted curves (drawn last) head the legend
        handles, labels = handles[::-1], labels[::-1]
    ax.legend(handles, labels, fontsize=8, loc="lower right")
    save_or_close(fig, path)
    return fig
