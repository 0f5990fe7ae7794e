"""Margins by BIC (irstab.simulate.families) on drawn data of known form and on DL-2019.

Oracles: data drawn from a known family (the right one must win the BIC), scipy.stats'
log-densities of the beta, truncated normal and beta-binomial at the fitted parameters
(an independent implementation of each likelihood), scipy's beta MLE, numerical
integration (scipy.integrate.quad) of Chen's beta-kernel estimate written out from the
paper, and the empirical shares of the DL-2019 scores at 0 and 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from irstab.errors import IRStabError
from irstab.simulate import Family, Lattice, detect_lattice, fit_margin
from irstab.simulate.families import _fit_beta, _fit_beta_kernel, _fit_truncnorm


@pytest.mark.parametrize("seed", range(5))
def test_the_beta_wins_on_beta_data(seed):
    y = np.random.default_rng(seed).beta(0.6, 2.5, 300)  # J-shaped: no normal mimics it
    m = fit_margin(y)
    assert m.family == "beta"
    assert [c[0] for c in m.candidates][0] == "beta"
    assert m.candidates[0][3] < m.candidates[1][3]


@pytest.mark.parametrize("seed", range(5))
def test_the_truncated_normal_wins_on_truncated_normal_data(seed):
    rng = np.random.default_rng(seed)
    y = stats.truncnorm.rvs(-0.8 / 0.25, 0.2 / 0.25, loc=0.8, scale=0.25, size=1000,
                            random_state=rng)
    assert fit_margin(y).family == "truncnorm"


@pytest.mark.parametrize("seed", range(5))
def test_the_kernel_wins_on_two_modes(seed):
    rng = np.random.default_rng(seed)
    y = np.concatenate([rng.beta(20, 60, 150), rng.beta(60, 20, 150)])
    assert fit_margin(y).family == "beta-kernel"


@pytest.mark.parametrize("seed", range(5))
def test_the_beta_binomial_wins_on_beta_binomial_data(seed):
    j = stats.betabinom.rvs(10, 1.5, 0.6, size=200, random_state=np.random.default_rng(seed))
    lat = Lattice(tuple(np.arange(11) / 10), "regular")
    assert fit_margin(j / 10, lattice=lat).family == "beta-binomial"


def test_likelihoods_agree_with_scipy_densities():
    rng = np.random.default_rng(7)
    y = rng.beta(2.0, 4.0, 80)
    fb = _fit_beta(y)
    a, b = dict(fb.params)["a"], dict(fb.params)["b"]
    assert fb.loglik == pytest.approx(stats.beta.logpdf(y, a, b).sum(), rel=1e-10)
    a_ref, b_ref, _, _ = stats.beta.fit(y, floc=0, fscale=1)  # scipy's own MLE
    assert (a, b) == pytest.approx((a_ref, b_ref), rel=2e-3)
    ft = _fit_truncnorm(y)
    mu, s = dict(ft.params)["mu"], dict(ft.params)["sigma"]
    ref = stats.truncnorm.logpdf(y, -mu / s, (1 - mu) / s, loc=mu, scale=s).sum()
    assert ft.loglik == pytest.approx(ref, rel=1e-9)
    # and no better optimum nearby (scipy's Nelder-Mead on scipy's density)
    from scipy import optimize

    best = optimize.minimize(
        lambda p: -stats.truncnorm.logpdf(y, -p[0] / p[1], (1 - p[0]) / p[1], loc=p[0],
                                          scale=p[1]).sum(),
        [mu, s], method="Nelder-Mead", options={"xatol": 1e-8, "fatol": 1e-10})
    assert ft.loglik >= -best.fun - 1e-6


def test_beta_binomial_likelihood_agrees_with_scipy():
    j = stats.betabinom.rvs(10, 2.0, 1.0, size=60, random_state=np.random.default_rng(1))
    lat = Lattice(tuple(np.arange(11) / 10), "regular")
    m = fit_margin(j / 10, lattice=lat, families=["beta-binomial"])
    a, b = dict(m.params)["a"], dict(m.params)["b"]
    assert m.loglik == pytest.approx(stats.betabinom.logpmf(j, 10, a, b).sum(), rel=1e-10)
    pmf = np.diff(m.u)[::2]  # the zero-width cells, one per level
    np.testing.assert_allclose(pmf, stats.betabinom.pmf(np.arange(11), 10, a, b), atol=1e-12)


def test_beta_kernel_is_chens_estimate_normalised():
    y = np.random.default_rng(3).beta(2, 5, 40)
    f = _fit_beta_kernel(y)
    b = dict(f.params)["bandwidth"]

    def chen(t):  # Chen (1999), f_1: the beta kernel at the evaluation point t
        return np.mean(stats.beta.pdf(y, t / b + 1, (1 - t) / b + 1))

    total = integrate.quad(chen, 0, 1, limit=200)[0]
    ll = np.sum(np.log([chen(v) / total for v in y]))
    assert f.loglik == pytest.approx(ll, abs=1e-3)
    cdf = f.cdf_grid()
    for k in (205, 614, 1229):  # grid points near 0.1, 0.3, 0.6
        t = k / (len(cdf) - 1)
        assert cdf[k] == pytest.approx(integrate.quad(chen, 0, t, limit=200)[0] / total, abs=1e-4)
    assert 1.0 < f.df < len(y)  # effective degrees of freedom of a smoother


def test_point_masses_at_the_ends_are_the_observed_shares(dl_scores):
    x = dl_scores["nDCG@10"].to_numpy()
    for row in x:
        m = fit_margin(row)
        assert m.p_lo == pytest.approx((row == 0).mean(), abs=1e-12)
        assert m.p_hi == pytest.approx((row == 1).mean(), abs=1e-12)
        if (row == 0).any():
            assert dict(m.params)["p_lo"] == pytest.approx((row == 0).mean())


def test_p_at_10_is_a_lattice_and_a_discrete_form_wins(dl_scores):
    x = dl_scores["P@10"].to_numpy()
    lat = detect_lattice(x, (0.0, 1.0))
    assert lat.kind == "regular" and len(lat.levels) == 11
    margins = [fit_margin(row, lattice=lat) for row in x]
    assert {m.family for m in margins} <= {"beta-binomial", "discrete-kernel"}
    # the masses at 0 and 1, pooled over the 37 systems, against the observed shares:
    # 37 x 43 = 1591 scores, binomial sd of a share near 0.33 about 0.012
    assert np.mean([m.p_hi for m in margins]) == pytest.approx((x == 1).mean(), abs=0.03)
    assert np.mean([m.p_lo for m in margins]) == pytest.approx((x == 0).mean(), abs=0.03)


def test_rr_is_a_reciprocal_lattice(dl_scores):
    x = dl_scores["RR"].to_numpy()
    lat = detect_lattice(x, (0.0, 1.0))
    assert lat.kind == "reciprocal"
    nz = x[x > 0]
    assert len(lat.levels) == 1 + int(round((1 / nz).max()))
    assert fit_margin(x[0], lattice=lat).family in {"beta-binomial", "discrete-kernel"}


def test_continuous_scores_have_no_lattice(trec3):
    assert detect_lattice(trec3.to_numpy(), (0.0, 1.0)) is None
    assert detect_lattice(np.array([0.0, 0.25, 0.5, 1.0]), (0.0, 1.0)).levels == (0, .25, .5, .75, 1)
    # RR seen at ranks 1-4 only: 5 reciprocal levels (0, 1/4, 1/3, 1/2, 1), not 13 steps of 1/12
    rr = detect_lattice(np.array([0.0, 1.0, 0.5, 1 / 3, 0.25]), (0.0, 1.0))
    assert rr.kind == "reciprocal" and len(rr.levels) == 5


def test_degenerate_margins():
    m = fit_margin(np.full(10, 0.4))
    assert m.family == "point-mass" and m.mean == pytest.approx(0.4) and m.var == 0.0
    m = fit_margin(np.array([0.0, 0.0, 0.5, 0.5, 1.0, 0.5]))
    assert m.family == "empirical"
    assert m.mean == pytest.approx(2.5 / 6) and m.p_lo == pytest.approx(2 / 6)


def test_bad_input_names_the_scores():
    lat = Lattice((0.0, 0.5, 1.0), "given")
    with pytest.raises(IRStabError, match="system 'x': score 0.3 is on no level"):
        fit_margin(np.array([0.0, 0.3, 1.0]), lattice=lat, name="system 'x'")
    with pytest.raises(IRStabError, match="at least 2"):
        fit_margin(np.array([0.5]))
    with pytest.raises(IRStabError, match="no continuous family"):
        fit_margin(np.random.default_rng(0).random(20), families=[Family.beta_binomial])
    with pytest.raises(IRStabError, match="strictly increasing"):
        Lattice((0.0, 0.0, 1.0), "given")
