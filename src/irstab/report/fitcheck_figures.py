"""The simulator's split-half fit check as a figure (irstab.simulate.fit_check).

Presentation only: four panels, one per statistic (each system's mean, variance and zero
fraction; Kendall's tau between two systems), the held-out value on the x axis against
the simulated collections' mean on the y axis, with the central 95 % of the simulated
values as a bar; points outside their bar are drawn in red. matplotlib is imported
lazily (Agg); the file is written through a temporary file and a rename.
"""

from __future__ import annotations

import os

import numpy as np

from .figures import check_format, pyplot, save

__all__ = ["plot_fit_check"]


def plot_fit_check(check, path: str | os.PathLike, *, title: str | None = None):
    """Draw ``check`` (a :class:`irstab.simulate.FitCheck`) to ``path`` (png, pdf, svg, ...).

    Returns the path written.
    """
    path, fmt = check_format(path)
    plt = pyplot()
    stats = check.to_frame()
    summary = check.summary_frame().set_index("statistic")
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.9))
    for ax, stat in zip(axes, summary.index):
        f = stats[stats["statistic"] == stat].dropna(subset=["held_out", "simulated"])
        inside = f["inside"].fillna(False).to_numpy(dtype=bool)
        x, y = f["held_out"].to_numpy(), f["simulated"].to_numpy()
        err = np.vstack([y - f["lo"].to_numpy(), f["hi"].to_numpy() - y])
        small = len(f) > 100  # pairs of systems: many points, thin bars
        for mask, colour in ((inside, "tab:blue"), (~inside, "tab:red")):
            ax.errorbar(x[mask], y[mask], yerr=err[:, mask], fmt="o", color=colour,
                        markersize=2 if small else 3.5, elinewidth=0.3 if small else 0.8,
                        alpha=0.35 if small else 0.8, capsize=0)
        lo = float(np.nanmin([x.min(initial=np.inf), f["lo"].min()]))
        hi = float(np.nanmax([x.max(initial=-np.inf), f["hi"].max()]))
        ax.plot([lo, hi], [lo, hi], color="grey", linewidth=0.8, linestyle=":")
        row = summary.loc[stat]
        ref = row["reference_share"]
        ref_txt = f"; correct model {ref:.0%}" if ref == ref else ""
        ax.set_title(f"{stat}: {int(row['inside'])}/{int(row['compared'])} inside{ref_txt}",
                     fontsize=9)
        ax.set_xlabel("held-out half")
        ax.set_ylabel("simulated (mean, 95 % range)")
    fig.suptitle(title or check.summary(), fontsize=8, wrap=True)
    fig.tight_layout()
    save(fig, path, fmt)
    plt.close(fig)
    return path
