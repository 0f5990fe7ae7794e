"""Figures of the optimizer (presentation only; matplotlib lazily, Agg backend).

* :func:`plot_discount`: the optimal discount against log2, zipf and linear,
  every vector normalised to sum 1 over the ranks (Kanoulas & Aslam, CIKM 2009, Fig. 2).
* :func:`plot_gain`: the optimal gains against linear and exp, normalised to
  sum 1 over the relevant grades (Kanoulas & Aslam, CIKM 2009, Table 2 as a figure).
* :func:`plot_result`: the panel(s) that fit a result (discount, gain or both).
* :func:`plot_discounts`: several optimal discounts side by side (Fig. 2's
  row of cutoffs).
* :func:`plot_pareto`: a Pareto front.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..errors import IRStabError
from .figures import pyplot, save_or_close

__all__ = ["plot_discount", "plot_discounts", "plot_gain", "plot_pareto", "plot_result"]

# Kanoulas & Aslam 2009, Fig. 2: optimal blue circles, zipf green plus, log dark-blue
# triangles, linear magenta x
_DISCOUNT_STYLE = {
    "optimal": {"color": "tab:blue", "marker": "o", "linewidth": 1.6},
    "log2": {"color": "navy", "marker": "^", "linewidth": 1.0},
    "zipf": {"color": "tab:green", "marker": "+", "linewidth": 1.0},
    "linear": {"color": "m", "marker": "x", "linewidth": 1.0},
}
_GAIN_STYLE = {
    "optimal": {"color": "tab:blue", "marker": "o", "linewidth": 1.6},
    "linear": {"color": "tab:orange", "marker": "s", "linewidth": 1.0},
    "exp": {"color": "tab:red", "marker": "D", "linewidth": 1.0},
}


def _normalised(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    s = v.sum()
    return v / s if s > 0 else v


def preset_discounts(k: int) -> dict[str, np.ndarray]:
    """log2, zipf and linear discounts of ranks ``1..k``, each normalised to sum 1."""
    from ..metrics import Discount

    return {name: _normalised(Discount.of(name).vector(k, k)) for name in ("log2", "zipf", "linear")}


def preset_gains(max_grade: int) -> dict[str, np.ndarray]:
    """linear and exp gains of grades ``1..max_grade``, normalised to sum 1."""
    from ..metrics import Gain

    return {name: _normalised(Gain.of(name).vector(max_grade)[1:]) for name in ("linear", "exp")}


def _discount_axes(ax, discount, label: str, title: str | None, extra=None) -> None:
    d = _normalised(discount)
    k = len(d)
    r = np.arange(1, k + 1)
    # readable markers at any k: evenly spaced on the axis (log-spaced when the axis is)
    every = max(1, k // 25) if k <= 50 else np.unique(np.geomspace(1, k, 25).astype(int) - 1)
    curves = {"optimal": d, **preset_discounts(k)}
    if extra:
        curves.update(extra)
    for name, vec in curves.items():
        style = dict(_DISCOUNT_STYLE.get(name, {"linewidth": 1.2, "linestyle": "--"}))
        ax.plot(r, vec, label=label if name == "optimal" else name, markevery=every,
                markersize=4, **style)
    ax.set_xlabel("rank")
    ax.set_ylabel("discount (sum 1)")
    if k > 50:
        ax.set_xscale("log")
    else:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title or f"discount @{k}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def _gain_axes(ax, gain, label: str, title: str | None) -> None:
    g = _normalised(np.asarray(gain, dtype=float)[1:])
    grades = np.arange(1, len(g) + 1)
    curves = {"optimal": g, **preset_gains(len(g))}
    for name, vec in curves.items():
        ax.plot(grades, vec, label=label if name == "optimal" else name, **_GAIN_STYLE[name])
    ax.set_xticks(grades)
    ax.set_xlabel("relevance grade")
    ax.set_ylabel("gain (sum 1 over grades >= 1)")
    ax.set_title(title or "gains", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def plot_discount(
    discount: Sequence[float],
    path: str | os.PathLike | None = None,
    *,
    label: str = "optimal",
    title: str | None = None,
    extra: dict[str, Sequence[float]] | None = None,
):
    """The optimal discount against log2, zipf and linear, all normalised to sum 1.

    Parameters
    ----------
    discount : sequence of float
        Weights of ranks ``1..k``.
    path : path-like, optional
        Write the figure here (format from the suffix), atomically.
    label, title : str
    extra : dict, optional
        Further named discounts to draw (e.g. the minimax discount), same length.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 3.8), layout="constrained")
    _discount_axes(ax, discount, label, title, {k: _normalised(v) for k, v in (extra or {}).items()})
    save_or_close(fig, path)
    return fig


def plot_gain(
    gain: Sequence[float],
    path: str | os.PathLike | None = None,
    *,
    label: str = "optimal",
    title: str | None = None,
):
    """The optimal gains of grades 1..max against linear and exp, normalised to sum 1."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.8, 3.6), layout="constrained")
    _gain_axes(ax, gain, label, title)
    save_or_close(fig, path)
    return fig


def _result_title(result) -> str:
    """``optimal joint (Phi1 = ...)``, or ``minimax joint over @10, @100 (worst Phi1 = ...)``."""
    from ..optimizer.pareto import OBJECTIVE_LABELS

    name = OBJECTIVE_LABELS.get(result.objective, result.objective)
    if len(result.scenarios) > 1:
        over = ", ".join(s.name for s in result.scenarios)
        return f"minimax {result.vary} over {over} (worst {name} = {result.value:.4f})"
    return f"optimal {result.vary} ({name} = {result.value:.4f})"


def plot_result(result, path: str | os.PathLike | None = None, *, title: str | None = None):
    """The figure that fits an :class:`~irstab.optimizer.OptimizationResult`.

    Discount problems get the discount panel, gain problems the gain panel,
    joint and minimax results both.
    """
    plt = pyplot()
    panels = {"discount": ("discount",), "gain": ("gain",)}.get(result.vary, ("discount", "gain"))
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5.6 * len(panels), 3.8), layout="constrained", squeeze=False
    )
    label = "minimax" if len(result.scenarios) > 1 else "optimal"
    for ax, panel in zip(axes[0], panels):
        if panel == "discount":
            _discount_axes(ax, result.discount, label, f"discount @{result.cutoff}")
        else:
            _gain_axes(ax, result.gain, label, "gains")
    fig.suptitle(title or _result_title(result), fontsize=10)
    save_or_close(fig, path)
    return fig


def plot_discounts(
    discounts: Sequence[Sequence[float]],
    titles: Sequence[str],
    path: str | os.PathLike | None = None,
    *,
    extras: Sequence[dict[str, Sequence[float]] | None] | None = None,
    suptitle: str | None = None,
    label: str = "optimal",
    columns: int | None = None,
):
    """Several optimal discounts, each against log2, zipf and linear, ``columns`` panels a
    row (default: all in one row); unused cells of the last row are left blank."""
    if len(discounts) != len(titles) or not discounts:
        raise IRStabError("plot_discounts: give one title per discount (and at least one)")
    plt = pyplot()
    n = len(discounts)
    cols = n if columns is None else max(1, min(int(columns), n))
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.4 * cols, 3.4 * rows + 0.2),
                             layout="constrained", squeeze=False)
    extras = extras or [None] * n
    for ax in axes.ravel()[n:]:
        ax.set_axis_off()
    for ax, d, t, e in zip(axes.ravel(), discounts, titles, extras):
        _discount_axes(ax, d, label, t, {k: _normalised(v) for k, v in (e or {}).items()})
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    save_or_close(fig, path)
    return fig


def _tick_format(ax_axis, values) -> None:
    """At most 5 ticks, no offset, as many decimals as the range needs (no overlapping labels)."""
    from matplotlib.ticker import FormatStrFormatter, MaxNLocator

    v = np.asarray(values, dtype=float)
    span = float(v.max() - v.min()) if v.size else 0.0
    digits = 2 if span <= 0 else int(min(6, max(2, np.ceil(-np.log10(span)) + 1)))
    ax_axis.set_major_locator(MaxNLocator(nbins=5))
    ax_axis.set_major_formatter(FormatStrFormatter(f"%.{digits}f"))


def plot_pareto(front, path: str | os.PathLike | None = None, *, title: str | None = None):
    """A :class:`~irstab.optimizer.ParetoResult`: first objective against second.

    The two end points are labelled (the best of each objective) with their
    values; ticks are at most five per axis, without an offset.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 4.2), layout="constrained")
    first = np.array([p.first for p in front.points])
    second = np.array([p.second for p in front.points])
    ax.plot(second, first, "o-", color="tab:blue", markersize=4)
    for p in front.points:
        if p.status.value != "optimal":
            ax.plot([p.second], [p.first], "x", color="tab:red")
    minimise_second = front.second_name.startswith("distance")
    ends = [
        (int(np.argmax(first)), f"best {front.first_name}"),
        (int(np.argmin(second) if minimise_second else np.argmax(second)),
         f"{'closest to the prior' if minimise_second else 'best ' + front.second_name}"),
    ]
    xmid = (second.max() + second.min()) / 2
    for i, text in ends:
        right = second[i] > xmid
        ax.annotate(
            f"{text}\n({second[i]:.4f}, {first[i]:.4f})", (second[i], first[i]),
            xytext=(-8 if right else 8, -18 if first[i] >= first.mean() else 14),
            textcoords="offset points", ha="right" if right else "left", fontsize=7,
            arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.6},
        )
        ax.plot([second[i]], [first[i]], "o", color="tab:red", markersize=6, zorder=3)
    _tick_format(ax.xaxis, second)
    _tick_format(ax.yaxis, first)
    ax.margins(x=0.08, y=0.12)
    ax.set_xlabel(front.second_name)
    ax.set_ylabel(front.first_name)
    ax.set_title(title or f"Pareto front ({front.vary}, epsilon-constraint, "
                          f"{len(front.points)} points; red: end points)", fontsize=9)
    ax.grid(True, alpha=0.3)
    save_or_close(fig, path)
    return fig
