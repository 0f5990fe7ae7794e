"""Figures of the optimizer: files are written atomically, presets are normalised to sum 1."""

from __future__ import annotations

import numpy as np
import pytest

from irstab.errors import IRStabError
from irstab.optimizer import Scenario, optimize, pareto
from irstab.report import optimizer_figures as figs


def test_presets_are_normalised():
    d = figs.preset_discounts(20)
    assert set(d) == {"log2", "zipf", "linear"}
    assert all(v.sum() == pytest.approx(1.0) for v in d.values())
    # zipf: 1/r over sum 1/r; the first weight is 1 / H_20
    assert d["zipf"][0] == pytest.approx(1.0 / sum(1.0 / r for r in range(1, 21)))
    g = figs.preset_gains(3)
    np.testing.assert_allclose(g["linear"], [1 / 6, 2 / 6, 3 / 6])
    np.testing.assert_allclose(g["exp"], [1 / 11, 3 / 11, 7 / 11])


@pytest.mark.parametrize("vary", ["discount", "gain", "joint"])
def test_plot_result_writes_a_file(small, tmp_path, vary):
    res = optimize(small, 8, vary=vary, starts=0, grid=False)
    path = tmp_path / f"{vary}.png"
    fig = figs.plot_result(res, path)
    assert path.read_bytes()[:4] == b"\x89PNG"
    assert len(fig.axes) == (2 if vary == "joint" else 1)


def test_other_figures(small, tmp_path):
    figs.plot_discounts([np.ones(5), np.arange(10, 0, -1.0)], ["@5", "@10"], tmp_path / "d.svg",
                        extras=[None, {"minimax": np.ones(10)}])
    assert (tmp_path / "d.svg").read_text().lstrip().startswith("<?xml")
    figs.plot_gain([0, 1, 1, 2], tmp_path / "g.pdf")
    assert (tmp_path / "g.pdf").read_bytes()[:4] == b"%PDF"
    front = pareto(Scenario(small, 5), prior="log2", points=3, starts=0)
    figs.plot_pareto(front, tmp_path / "p.png")
    assert (tmp_path / "p.png").is_file()


def test_bad_suffix_and_bad_arguments(tmp_path):
    with pytest.raises(IRStabError, match="unsupported figure format 'xyz'"):
        figs.plot_discount(np.ones(4), tmp_path / "d.xyz")
    assert not (tmp_path / "d.xyz").exists()
    with pytest.raises(IRStabError, match="one title per discount"):
        figs.plot_discounts([np.ones(3)], ["a", "b"])
