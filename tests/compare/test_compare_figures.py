"""Figures: ASL curves (seed 003, Fig. 9) and mean-score scatters (Fig. 7), written atomically."""

from __future__ import annotations

import numpy as np
import pytest

from irstab.compare import compare_measures, discriminative_power, rank_correlation
from irstab.errors import IRStabError
from irstab.report.compare_figures import plot_asl_curves, plot_comparison, plot_mean_scatter

plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(1)
    q = rng.random((6, 1))
    return {f"m{k}": q * 0.6 + rng.random((6, 10)) * 0.4 for k in range(4)}


def test_asl_curves_sorted_and_written(tmp_path, scores):
    r = discriminative_power(scores, n_bootstrap=100, seed=0)
    path = tmp_path / "asl.png"
    fig = plot_asl_curves(r, path)
    ys = fig.axes[0].lines[0].get_ydata()
    np.testing.assert_array_equal(ys, np.sort(r.asl[0]))  # pairs sorted by ASL (Fig. 9)
    plt.close(fig)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asl.png"]  # no temporary left


def test_scatter_panels_and_reference(tmp_path, scores):
    rc = rank_correlation(scores)
    fig = plot_mean_scatter(rc, tmp_path / "s.svg", reference="m2")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 3
    assert visible[0].get_xlabel() == "mean m2"
    plt.close(fig)
    assert (tmp_path / "s.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(IRStabError, match="reference"):
        plot_mean_scatter(rc, reference="zz")
    with pytest.raises(IRStabError, match="at least 2 measures"):
        plot_mean_scatter(rank_correlation({"a": scores["m0"]}))


def test_comparison_figure_and_bad_format(tmp_path, scores):
    cmp = compare_measures(scores, n_bootstrap=50, swap_trials=20, seed=0)
    fig = plot_comparison(cmp, tmp_path / "c.pdf")
    assert sum(ax.get_visible() for ax in fig.axes) == 4  # ASL curves + 3 scatters
    plt.close(fig)
    assert (tmp_path / "c.pdf").read_bytes()[:4] == b"%PDF"
    with pytest.raises(IRStabError, match="unsupported figure format 'xyz'"):
        plot_comparison(cmp, tmp_path / "c.xyz")
    assert not (tmp_path / "c.xyz").exists()
    one = compare_measures({"a": scores["m0"]}, n_bootstrap=50, swap_trials=20, seed=0)
    fig = plot_comparison(one)
    assert sum(ax.get_visible() for ax in fig.axes) == 1
    plt.close(fig)
    with pytest.raises(IRStabError, match="ymax"):
        plot_asl_curves(cmp.bootstrap, ymax=0)
