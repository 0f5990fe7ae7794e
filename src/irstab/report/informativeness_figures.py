"""Figures of the maximum entropy method (Aslam, Yilmaz & Pavlu, SIGIR 2005).

* :func:`plot_pr_curves`: a list's actual precision-recall curve and the
  curves inferred from each measure's value (one panel per relevance level);
* :func:`plot_gap_grid`: GAP's mean RMS error over its thresholding
  probabilities ``(g1, g2)`` (``g3 = 1 - g1 - g2`` on 3 relevant grades), the
  analogue of Robertson, Kanoulas & Yilmaz (SIGIR 2010), Fig. 2, with other
  measures as reference lines in the colour bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["plot_pr_curves", "plot_gap_grid"]


def save(fig, path):
    if path is not None:
        from ..io.atomicfile import atomic_writer
        from .figures import check_format

        _, fmt = check_format(Path(path))
        with atomic_writer(path, "wb") as fh:  # whole or not at all, links written through
            fig.savefig(fh, format=fmt, dpi=130, bbox_inches="tight")
    return fig


def plot_pr_curves(curves: Sequence, path: str | Path | None = None):
    """Actual vs maximum-entropy PR curves of one (system, topic).

    Parameters
    ----------
    curves : sequence of CellCurves
        From :func:`irstab.informativeness.cell_curves`, same system
        and topic; one panel per distinct ``level``.
    path : path, optional
        Write the figure here.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    levels = sorted({c.level for c in curves})
    fig, axes = plt.subplots(1, len(levels), figsize=(5.2 * len(levels), 4.2), squeeze=False)
    for ax, level in zip(axes[0], levels):
        mine = [c for c in curves if c.level == level]
        first = mine[0]
        ax.plot(first.recall, first.precision, "k-o", ms=3, lw=1.6, label="actual", zorder=5)
        # dashes of their own and widths falling in drawing order: curves that coincide
        # (AP and GAP(g=(1,0,0)) are the same measure) stay visible
        styles = ["-", "--", "-.", ":", (0, (5, 1, 1, 1))]
        for k, c in enumerate(mine):
            ax.plot(c.inferred_recall, c.inferred_precision, ls=styles[k % len(styles)],
                    lw=max(2.6 - 0.45 * k, 1.0),
                    label=f"{c.measure} = {c.value:.3f} (RMS {c.rms:.3f})")
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.set_title(f"relevant = grade >= {level}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{first.system} on topic {first.topic}: actual and maximum-entropy PR curves",
                 fontsize=10)
    fig.tight_layout()
    return save(fig, path)


def plot_gap_grid(grid: pd.DataFrame, references: Mapping[str, Mapping[int, float]] | None = None,
                  path: str | Path | None = None):
    """GAP's mean RMS error over ``(g1, g2)``, one panel per relevance level.

    Parameters
    ----------
    grid : DataFrame
        Columns ``g1, g2, level, mean_rms`` (``g3 = 1 - g1 - g2``).
    references : mapping, optional
        ``{measure: {level: mean_rms}}`` drawn as lines on the colour bars.
    path : path, optional
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    levels = sorted(grid["level"].unique())
    fig, axes = plt.subplots(1, len(levels), figsize=(5.6 * len(levels), 4.6), squeeze=False)
    g1s = np.sort(grid["g1"].unique())
    step = float(np.min(np.diff(g1s))) if len(g1s) > 1 else 1.0
    for ax, level in zip(axes[0], levels):
        part = grid[grid["level"] == level]
        ref_vals = [v[level] for v in (references or {}).values() if level in v]
        lo = min([part["mean_rms"].min()] + ref_vals)
        hi = max([part["mean_rms"].max()] + ref_vals)
        pad = 0.03 * (hi - lo) if hi > lo else 0.01  # marks at the extremes stay visible
        cmap = plt.get_cmap("viridis_r")
        norm = matplotlib.colors.Normalize(lo - pad, hi + pad)
        for r in part.itertuples():
            ax.add_patch(plt.Rectangle((r.g1 - step / 2, r.g2 - step / 2), step, step,
                                       color=cmap(norm(r.mean_rms))))
            ax.text(r.g1, r.g2, f"{r.mean_rms:.3f}", ha="center", va="center", fontsize=6,
                    color="white" if norm(r.mean_rms) > 0.6 else "black")
        best = part.loc[part["mean_rms"].idxmin()]
        ax.plot(best.g1, best.g2, marker="s", ms=18, mfc="none", mec="red", mew=1.5)
        ax.set_xlim(-step / 2, 1 + step / 2)
        ax.set_ylim(-step / 2, 1 + step / 2)
        ax.set_aspect("equal")
        ax.set_xticks(g1s)
        ax.set_yticks(g1s)
        ax.set_xlabel("g1 (threshold at grade 1)")
        ax.set_ylabel("g2 (threshold at grade 2); g3 = 1 - g1 - g2")
        ax.set_title(f"GAP mean RMS error, relevant = grade >= {level}\n"
                     f"best g = ({best.g1:.2g}, {best.g2:.2g}, {1 - best.g1 - best.g2:.2g}) "
                     f"(red square)", fontsize=9)
        sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
        bar = fig.colorbar(sm, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label("mean RMS error (lower: more informative)", fontsize=8)
        handles = []
        for k, (name, vals) in enumerate((references or {}).items()):
            if level in vals:
                color = ["C1", "C3", "C6", "C0", "C2"][k % 5]
                bar.ax.axhline(vals[level], color=color, lw=2.5)
                handles.append(matplotlib.lines.Line2D([], [], color=color, lw=2.5,
                                                       label=f"{name}: {vals[level]:.3f}"))
        if handles:  # the empty upper-right half of the simplex holds the legend
            ax.legend(handles=handles, loc="upper right", fontsize=7, title="on the colour bar",
                      title_fontsize=7)
    fig.tight_layout()
    return save(fig, path)
