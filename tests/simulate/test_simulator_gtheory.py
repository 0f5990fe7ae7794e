"""The G-theory-faithful simulator (irstab.simulate.fit_gtheory): its truth is exact.

Oracles: irstab.stability.gstudy (the G-study every answer of irstab rests on) on the
source collection, whose estimated components the simulated universe must have exactly;
the expected-mean-squares argument of the module docstring, checked by Monte-Carlo (the
mean of the G-study estimates over R simulated collections against the truth, within 4.5
standard errors); Brennan's closed forms for Phi and topics needed (Generalizability
Theory, 2001, eq. 4.10).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from irstab.errors import IRStabError, IRStabWarning
from irstab.simulate import fit_gtheory
from irstab.stability import gstudy


def anova_components(x: np.ndarray) -> np.ndarray:
    """The two-way ANOVA estimates of (system, topic, residual) for a stack (R, S, T)."""
    R, S, T = x.shape
    grand = x.mean(axis=(1, 2), keepdims=True)
    ms = x.mean(axis=2, keepdims=True)
    mt = x.mean(axis=1, keepdims=True)
    ms_s = T * ((ms - grand) ** 2).sum(axis=(1, 2)) / (S - 1)
    ms_t = S * ((mt - grand) ** 2).sum(axis=(1, 2)) / (T - 1)
    ms_e = ((x - ms - mt + grand) ** 2).sum(axis=(1, 2)) / ((S - 1) * (T - 1))
    return np.stack([(ms_s - ms_e) / T, (ms_t - ms_e) / S, ms_e], axis=1)


@pytest.mark.parametrize("which", ["dl", "trec3"])
def test_the_universe_has_the_collections_estimated_components(which, dl_scores, trec3):
    scores = dl_scores["nDCG@10"] if which == "dl" else trec3
    g = gstudy(scores)
    truth = fit_gtheory(scores).components
    assert truth.system == pytest.approx(g.var_system, rel=1e-10)
    assert truth.topic == pytest.approx(g.var_topic, rel=1e-10)
    assert truth.residual == pytest.approx(g.var_residual, rel=1e-10)
    assert truth.phi(g.n_topics) == pytest.approx(g.phi(), rel=1e-10)
    assert truth.erho2(g.n_topics) == pytest.approx(g.erho2(), rel=1e-10)
    assert truth.topics_needed(0.95) == g.topics_needed(0.95).n
    assert truth.topics_needed(0.95, "erho2") == g.topics_needed(0.95, "erho2").n


def test_without_shrinking_the_system_component_is_the_means_variance(dl_scores):
    x = dl_scores["nDCG@10"].to_numpy()
    truth = fit_gtheory(x, shrink=False).components
    assert truth.system == pytest.approx(x.mean(axis=1).var(ddof=1), rel=1e-12)


@pytest.mark.parametrize("effects", ["kernel", "normal"])
def test_g_studies_of_simulated_collections_are_unbiased_for_the_truth(effects, dl_scores):
    model = fit_gtheory(dl_scores["nDCG@10"], effects=effects)
    truth = model.components
    x = model.draw(1500, 20, rng=np.random.default_rng(11))
    # the vectorised ANOVA is the G-study's (checked on a few collections)
    est = anova_components(x)
    for r in range(3):
        g = gstudy(x[r])
        assert est[r] == pytest.approx([g.var_system, g.var_topic, g.var_residual], rel=1e-9)
    mean = est.mean(axis=0)
    se = est.std(axis=0, ddof=1) / math.sqrt(len(est))
    target = np.array([truth.system, truth.topic, truth.residual])
    assert np.all(np.abs(mean - target) < 4.5 * se), (mean, target, se)


def test_phi_and_topics_needed_are_brennans_closed_forms():
    from irstab.simulate import TrueComponents

    c = TrueComponents(system=0.02, topic=0.04, residual=0.02)
    assert c.phi(30) == pytest.approx(0.02 / (0.02 + 0.06 / 30))
    assert c.erho2(30) == pytest.approx(0.02 / (0.02 + 0.02 / 30))
    # Phi >= 0.95 needs n >= 0.95 * 0.06 / (0.05 * 0.02) = 57
    assert c.topics_needed(0.95) == 57.0
    np.testing.assert_allclose(c.phi([10, 57]), [0.02 / (0.02 + 0.006), 0.95])
    assert TrueComponents(0.0, 0.1, 0.1).topics_needed(0.9) == math.inf


def test_draws_keep_the_fixed_means_and_planting_moves_them(dl_scores):
    model = fit_gtheory(dl_scores["nDCG@10"])
    x = model.draw(2000, 43, rng=1)
    flat = x.transpose(1, 0, 2).reshape(37, -1)
    se = flat.std(axis=1) / math.sqrt(flat.shape[1])
    assert np.all(np.abs(flat.mean(axis=1) - model.system_means) < 4.5 * se)
    means = model.system_means.copy()
    means[1] = means[0]
    equal = model.with_system_means(means)
    assert equal.components.system == pytest.approx(means.var(ddof=1), rel=1e-12)
    assert equal.components.topic == model.components.topic
    np.testing.assert_array_equal(equal.columns, model.columns)


def test_bad_input(dl_scores):
    with pytest.raises(IRStabError, match="at least 2 systems"):
        fit_gtheory([[0.1, 0.2, 0.3, 0.4]])
    with pytest.raises(IRStabError, match="effects: expected one of"):
        fit_gtheory(dl_scores["nDCG@10"], effects="t")
    with pytest.raises(IRStabError, match="bandwidth: must be a finite number > 0"):
        fit_gtheory(dl_scores["nDCG@10"], bandwidth=0)
    with pytest.raises(IRStabError, match="same mean score"):
        fit_gtheory([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    with pytest.raises(IRStabError, match="target"):
        fit_gtheory(dl_scores["nDCG@10"]).components.topics_needed(1.0)
    # the systems' topic profiles cancel out: MS_t (0.0096) < MS_e (0.0256)
    x = np.array([[0.25, 0.15, 0.22, 0.18], [0.5, 0.9, 0.6, 0.8]])
    with pytest.warns(IRStabWarning, match="topic variance component is estimated negative"):
        m = fit_gtheory(x)
    assert m.components.topic == pytest.approx(0.0, abs=1e-15)
