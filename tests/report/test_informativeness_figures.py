"""Figures of the maximum entropy method: PR curves of one list, GAP over (g1, g2)."""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

from irstab.informativeness.analysis import cell_curves
from irstab.report.informativeness_figures import plot_gap_grid, plot_pr_curves

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def coll(small_graded):
    """4 simulated systems x 5 topics, depth 30, grades 0-3 (tests/conftest.py)."""
    return small_graded


def test_pr_curves_keep_coinciding_curves_visible(coll, tmp_path):
    # AP and GAP(g=(1,0,0)) are the same measure (Robertson et al., SIGIR 2010): their
    # inferred curves coincide, so they must differ in dash and width to both be seen
    s, t = coll.systems[0], coll.topics[1]
    curves = [cell_curves(coll, m, s, t, level) for m in ("AP", "GAP(g=(1,0,0))")
              for level in (1, coll.max_grade)]
    assert curves[0].inferred_precision.tolist() == pytest.approx(
        curves[2].inferred_precision.tolist(), abs=1e-6)
    fig = plot_pr_curves(curves, tmp_path / "pr.png")
    assert (tmp_path / "pr.png").read_bytes().startswith(b"\x89PNG")
    ax = fig.axes[0]
    ap, gap = ax.get_lines()[1:3]
    assert (ap.get_linestyle(), ap.get_linewidth()) != (gap.get_linestyle(), gap.get_linewidth())
    assert ax.get_title() == "relevant = grade >= 1" and len(fig.axes) == 2


def test_gap_grid_ticks_at_grid_values(tmp_path):
    grid = pd.DataFrame([{"g1": a / 2, "g2": b / 2, "level": 1, "mean_rms": 0.1 + 0.05 * (a + b)}
                         for a in range(3) for b in range(3 - a)])
    fig = plot_gap_grid(grid, {"AP": {1: 0.1}}, tmp_path / "grid.png")
    ax, bar = fig.axes[0], fig.axes[1]
    assert list(ax.get_xticks()) == [0.0, 0.5, 1.0] and list(ax.get_yticks()) == [0.0, 0.5, 1.0]
    lo, hi = bar.get_ylim()
    assert lo <= 0.1 and hi >= 0.2  # the colour bar spans the grid (0.1 to 0.2) and the reference
