"""The split-half fit check (irstab.simulate.fit_check) and its figure.

Oracles: the held-out statistics recomputed here from the held-out topics (numpy means,
variances, shares of zeros; scipy.stats.kendalltau for tau-b); the 95 % range read back
as quantiles of draws the test makes from the same fitted model; and a check that can
fail: systems that agree on the fit half and are shuffled apart on the held-out half
leave the held-out taus outside their simulated ranges.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irstab.errors import IRStabError
from irstab.report.fitcheck_figures import plot_fit_check
from irstab.simulate import fit_check


@pytest.fixture(scope="module")
def check(dl_scores):
    return fit_check(dl_scores["nDCG@10"], n_collections=400, n_reference=2, seed=3)


def test_held_out_statistics_are_those_of_the_held_out_topics(check, dl_scores):
    x = dl_scores["nDCG@10"]
    assert len(check.fit_topics) == 22 and len(check.held_topics) == 21
    assert not set(check.fit_topics) & set(check.held_topics)
    held = x[list(check.held_topics)].to_numpy()
    f = check.to_frame()
    per = {s: f[f["statistic"] == s].set_index("system") for s in ("mean", "variance",
                                                                    "zero fraction")}
    np.testing.assert_allclose(per["mean"].loc[list(x.index), "held_out"], held.mean(axis=1))
    np.testing.assert_allclose(per["variance"].loc[list(x.index), "held_out"],
                               held.var(axis=1, ddof=1))
    np.testing.assert_allclose(per["zero fraction"].loc[list(x.index), "held_out"],
                               (held == 0).mean(axis=1))
    tau = f[f["statistic"] == "kendall tau"].iloc[0]
    a, b = x.index.get_loc(tau["system"]), x.index.get_loc(tau["other"])
    assert tau["held_out"] == pytest.approx(stats.kendalltau(held[a], held[b]).statistic)
    assert len(f) == 3 * 37 + 37 * 36 // 2


def test_simulated_ranges_are_quantiles_of_the_models_draws(check):
    f = check.to_frame()
    assert np.all(f["lo"] <= f["simulated"] + 1e-12) and np.all(f["simulated"] <= f["hi"] + 1e-12)
    inside = (f["held_out"] >= f["lo"]) & (f["held_out"] <= f["hi"])
    assert (f["inside"].astype(bool) == inside).all()
    # the model's own draws at 21 topics: the mean's range is the same within MC error
    sim = check.model.draw(400, 21, rng=np.random.default_rng(0)).mean(axis=2)
    means = f[f["statistic"] == "mean"]
    np.testing.assert_allclose(np.quantile(sim, 0.975, axis=0), means["hi"], atol=0.03)


def test_summary_and_dict(check):
    s = check.summary_frame()
    assert s["statistic"].tolist() == ["mean", "variance", "zero fraction", "kendall tau"]
    assert s["compared"].tolist() == [37, 37, 37, 666]
    assert np.all((s["reference_share"] >= 0) & (s["reference_share"] <= 1))
    line = check.summary()
    assert line.startswith("fitted on 22 topics, compared with 21 held out over 400")
    assert "\n" not in line
    d = check.to_dict()
    json.dumps(d)
    assert len(d["rows"]) == 3 * 37 + 666


def test_a_wrong_model_is_seen():
    # six strongly dependent systems: the check passes the taus
    rng = np.random.default_rng(0)
    base = rng.beta(2, 2, 40)
    dep = np.clip(base[None, :] + rng.normal(0, 0.05, (6, 40)), 0, 1)
    good = fit_check(dep, n_collections=300, n_reference=0, seed=2)
    assert good.summary_frame().set_index("statistic").loc["kendall tau", "share_inside"] > 0.8
    # the same, with the systems shuffled independently on the topics that will be held out
    # (fit_check's split with seed 2 is the first permutation of that Generator): the model,
    # fitted on dependent topics, cannot hold the independent half, and the check says so
    held = np.sort(np.random.default_rng(2).permutation(40)[20:])
    mixed = dep.copy()
    mixed[:, held] = rng.permuted(mixed[:, held], axis=1)
    bad = fit_check(mixed, n_collections=300, n_reference=0, seed=2)
    assert set(bad.held_topics) == {str(t) for t in held}
    assert bad.summary_frame().set_index("statistic").loc["kendall tau", "share_inside"] < 0.3


def test_bad_input():
    with pytest.raises(IRStabError, match="at least 8"):
        fit_check(np.random.default_rng(0).random((3, 7)))
    with pytest.raises(IRStabError, match="n_collections"):
        fit_check(np.random.default_rng(0).random((3, 10)), n_collections=0)
    with pytest.raises(IRStabError, match="n_reference"):
        fit_check(np.random.default_rng(0).random((3, 10)), n_reference=-1)
    with pytest.raises(IRStabError, match="on no level"):
        fit_check(np.random.default_rng(0).random((3, 10)), lattice=[0.0, 0.5, 1.0])


def test_the_figure(check, tmp_path):
    out = plot_fit_check(check, tmp_path / "fit.png")
    assert out.stat().st_size > 10_000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(IRStabError, match="unsupported figure format"):
        plot_fit_check(check, tmp_path / "fit.xyz")
    assert not (tmp_path / "fit.xyz").exists()
    pd.testing.assert_frame_equal(check.to_frame(), check.statistics)
