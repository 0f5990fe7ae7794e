"""The multivariate G-study (irstab.stability.multivariate) against independent oracles.

- mean products: each measure's diagonal equals its univariate ANOVA mean squares
  (irstab's G-study, itself checked against Brennan's textbook examples), the off-diagonal a
  brute-force double loop over the cells;
- covariance components: the variance of a sum is the sum of the variances plus twice the
  covariance (Brennan 2001, ch. 9 estimates covariance components this way), so
  cov_f(x, y) = (var_f(x + y) - var_f(x) - var_f(y)) / 2 with univariate G-studies;
- the Wishart draws: their moments equal the closed forms E W = df S, Var W_ii = 2 df S_ii^2,
  Cov(W_ii, W_jj) = 2 df S_ij^2 (Anderson 2003, ch. 7), in both branches (Bartlett, and
  Z'Z when the degrees of freedom are below the rank); their distribution equals
  scipy.stats.wishart's (an independent generator) and that of the mean squares of whole
  collections simulated from the normal model (what the draws stand for).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from irstab.errors import IRStabError
from irstab.stability import gstudy
from irstab.stability.multivariate import (
    CovarianceComponents,
    covariance_components,
    draw_mean_squares,
    mean_products,
    phi_from_mean_squares,
    simulate_scores,
)


def _cube(seed=0, M=3, S=9, T=13):
    rng = np.random.default_rng(seed)
    common = rng.normal(0, 1, (S, 1)) + rng.normal(0, 0.7, (1, T))
    return np.stack([common * (k + 1) + rng.normal(0, 1 + k, (S, T)) for k in range(M)])


def test_mean_products_diagonal_are_the_anova_mean_squares():
    x = _cube()
    mp = mean_products(x)
    for k in range(x.shape[0]):
        g = gstudy(x[k])
        assert mp.systems[k, k] == pytest.approx(g.ms_system, rel=1e-12)
        assert mp.topics[k, k] == pytest.approx(g.ms_topic, rel=1e-12)
        assert mp.residual[k, k] == pytest.approx(g.ms_residual, rel=1e-12)


def test_mean_products_off_diagonal_by_brute_force():
    x = _cube(1, M=2, S=5, T=6)
    mp = mean_products(x)
    S, T = x.shape[1:]
    a, b = x
    ga, gb = a.mean(), b.mean()
    sp_s = sum((a[s].mean() - ga) * (b[s].mean() - gb) for s in range(S)) * T / (S - 1)
    sp_t = sum((a[:, t].mean() - ga) * (b[:, t].mean() - gb) for t in range(T)) * S / (T - 1)
    sp_e = sum(
        (a[s, t] - a[s].mean() - a[:, t].mean() + ga) * (b[s, t] - b[s].mean() - b[:, t].mean() + gb)
        for s in range(S) for t in range(T)
    ) / ((S - 1) * (T - 1))
    assert mp.systems[0, 1] == pytest.approx(sp_s, rel=1e-12)
    assert mp.topics[0, 1] == pytest.approx(sp_t, rel=1e-12)
    assert mp.residual[0, 1] == pytest.approx(sp_e, rel=1e-12)
    assert mp.degrees_of_freedom == (4, 5, 20)


def test_covariance_components_by_the_variance_of_a_sum():
    x = _cube(2, M=2)
    cc = covariance_components(mean_products(x))
    ga, gb, gs = (gstudy(m) for m in (x[0], x[1], x[0] + x[1]))
    for name, attr in (("systems", "var_system"), ("topics", "var_topic"),
                       ("residual", "var_residual")):
        got = getattr(cc, name)
        cov = (getattr(gs, attr) - getattr(ga, attr) - getattr(gb, attr)) / 2
        assert got[0, 1] == pytest.approx(cov, rel=1e-9, abs=1e-12)
        assert got[0, 0] == pytest.approx(getattr(ga, attr), rel=1e-12, abs=1e-15)


def test_phi_from_mean_squares_equals_the_gstudy():
    x = _cube(3)
    S, T = x.shape[1:]
    phi = phi_from_mean_squares(*mean_products(x).mean_squares(), S, T)
    assert phi == pytest.approx([gstudy(m).phi() for m in x], rel=1e-12)
    cc = covariance_components(mean_products(x))
    assert cc.phi(T) == pytest.approx(phi, rel=1e-12)


@pytest.mark.parametrize(("S", "T"), [(30, 40), (4, 5)])  # rank 3 < df; df 3 < rank 4 (M = 4)
def test_wishart_draws_have_the_closed_form_moments(S, T):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, S, T)) + rng.normal(size=(1, S, 1))
    mp = mean_products(x)
    n = 40_000
    ms_s, ms_t, ms_e = draw_mean_squares(mp, n, np.random.default_rng(6))
    for draws, scale, df in zip((ms_s, ms_t, ms_e), (mp.systems, mp.topics, mp.residual),
                                mp.degrees_of_freedom):
        # MS = W / df with W ~ W(df, scale): E MS_ii = scale_ii, Var MS_ii = 2 scale_ii^2 / df,
        # Cov(MS_ii, MS_jj) = 2 scale_ij^2 / df; tolerances ~5 Monte-Carlo standard errors
        assert draws.mean(axis=0) == pytest.approx(np.diag(scale),
                                                   rel=5 * np.sqrt(2 / df / n) + 1e-9)
        cov = np.cov(draws, rowvar=False)
        expected = 2 * scale ** 2 / df
        assert np.allclose(cov, expected, rtol=0.1, atol=0.1 * np.abs(expected).max())


def test_wishart_draws_match_scipy_in_distribution():
    # the Phi difference of two correlated measures computed from our draws and from
    # scipy.stats.wishart's: a two-sample Kolmogorov-Smirnov test must not reject
    rng = np.random.default_rng(7)
    x = _cube(7, M=2, S=20, T=25)
    mp = mean_products(x)
    S, T = 20, 25
    n = 4000
    ours = phi_from_mean_squares(*draw_mean_squares(mp, n, rng), S, T)
    ref, gen = [], np.random.default_rng(8)  # one stream: the three matrices independent
    for scale, df in zip((mp.systems, mp.topics, mp.residual), mp.degrees_of_freedom):
        w = stats.wishart(df=df, scale=scale / df).rvs(size=n, random_state=gen)
        ref.append(np.stack([w[:, 0, 0], w[:, 1, 1]], axis=1))
    theirs = phi_from_mean_squares(*ref, S, T)
    d_ours, d_theirs = ours[:, 1] - ours[:, 0], theirs[:, 1] - theirs[:, 0]
    assert stats.ks_2samp(d_ours, d_theirs).pvalue > 0.001


def test_wishart_draws_are_the_mean_squares_of_simulated_collections():
    # what the draws stand for: mean squares of fresh normal collections from the same
    # universe. E MP_s = n_t Sigma_s + Sigma_e etc.; draw at those expectations and compare
    # the Phi difference's distribution with that of 3000 simulated collections (KS).
    S, T = 15, 20
    sd = np.array([[0.15, 0.2, 0.25], [0.15, 0.2, 0.18]])
    corr = np.array([0.9, 0.8, 0.3])
    comps = CovarianceComponents(*(
        np.array([[a * a, r * a * b], [r * a * b, b * b]])
        for a, b, r in zip(sd[0], sd[1], corr)))
    rng = np.random.default_rng(9)
    sims = np.array([
        phi_from_mean_squares(*mean_products(simulate_scores(comps, S, T, rng)).mean_squares(),
                              S, T)
        for _ in range(3000)
    ])
    from irstab.stability.multivariate import MeanProducts

    expected = MeanProducts(T * comps.systems + comps.residual, S * comps.topics + comps.residual,
                            comps.residual, S, T)
    draws = phi_from_mean_squares(*draw_mean_squares(expected, 3000, rng), S, T)
    assert stats.ks_2samp(sims[:, 1] - sims[:, 0], draws[:, 1] - draws[:, 0]).pvalue > 0.001
    # and the true Phi of the universe is the closed form sigma2_s / (sigma2_s + noise / n)
    truth = sd[:, 0] ** 2 / (sd[:, 0] ** 2 + (sd[:, 1] ** 2 + sd[:, 2] ** 2) / T)
    assert comps.phi(T) == pytest.approx(truth, rel=1e-12)


def test_a_measure_that_is_a_twin_draws_the_same_mean_squares():
    x = _cube(4, M=2)
    x = np.stack([x[0], x[0], x[1]])
    ms = draw_mean_squares(mean_products(x), 200, np.random.default_rng(0))
    for d in ms:
        assert np.allclose(d[:, 0], d[:, 1], rtol=1e-10)


def test_simulate_scores_refuses_indefinite_components():
    bad = CovarianceComponents(np.array([[1.0, 2.0], [2.0, 1.0]]), np.eye(2), np.eye(2))
    with pytest.raises(IRStabError, match="components.systems: not positive semi-definite"):
        simulate_scores(bad, 5, 6, np.random.default_rng(0))
    fixed = bad.psd()
    assert np.linalg.eigvalsh(fixed.systems).min() >= -1e-12
    assert simulate_scores(fixed, 5, 6, np.random.default_rng(0)).shape == (2, 5, 6)


def test_mean_products_reject_a_bad_cube():
    with pytest.raises(IRStabError, match="cube"):
        mean_products(np.zeros((3, 4)))
    with pytest.raises(IRStabError, match="at least 2 systems"):
        mean_products(np.zeros((2, 1, 4)))


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (2, 4, 5), elements=st.floats(-10, 10, allow_nan=False)),
       st.floats(-5, 5), st.floats(0.1, 5))
def test_mean_products_invariants(x, shift, scale):
    # symmetric and positive semi-definite; a shift changes nothing, a scale c multiplies
    # the measure's row and column by c
    mp = mean_products(x)
    y = x.copy()
    y[0] = y[0] * scale + shift
    mq = mean_products(y)
    c = np.array([scale, 1.0])
    for a, b in ((mp.systems, mq.systems), (mp.topics, mq.topics), (mp.residual, mq.residual)):
        assert np.allclose(a, a.T)
        assert np.linalg.eigvalsh(a).min() >= -1e-9 * max(1.0, np.abs(a).max())
        assert np.allclose(b, a * np.outer(c, c), atol=1e-9 * max(1.0, np.abs(a).max()))
