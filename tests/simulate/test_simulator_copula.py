"""Copulas of the simulator (irstab.simulate.copula): the fitted Kendall taus are what the
draws show.

Oracles: scipy.stats.kendalltau (tau-b, an independent implementation) for the vectorised
tau; for the copulas, the tau of every pair of systems in R simulated collections of T
topics against the model's tau: Kendall's tau on continuous data is a U-statistic, so the
mean of the R per-collection taus is unbiased for the copula's tau, and its Monte-Carlo
standard error is their standard deviation / sqrt(R). Bounds are 4.5 standard errors
(over 666 pairs, a false alarm has probability below 0.5 %).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from irstab.simulate.copula import fit_copula, kendall_tau, pseudo_observations

R, T = 300, 43


@settings(max_examples=60, deadline=None)
@given(arrays(np.int8, st.tuples(st.integers(2, 4), st.integers(2, 12)),
              elements=st.integers(0, 3)))
def test_kendall_tau_b_agrees_with_scipy(x):
    tau = kendall_tau(x.astype(float))
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            ref = stats.kendalltau(x[i], x[j]).statistic
            if np.isnan(ref):
                assert np.isnan(tau[i, j])
            else:
                assert tau[i, j] == pytest.approx(ref, abs=1e-12)


def test_pseudo_observations_are_ranks_with_ties_broken_by_the_seed():
    x = np.array([[0.0, 1.0], [0.0, 0.5], [0.3, 0.5], [0.0, 0.2]])
    u = pseudo_observations(x, np.random.default_rng(1))
    for col in u.T:
        assert sorted(col * 5) == pytest.approx([1, 2, 3, 4])
    assert u[2, 0] == pytest.approx(4 / 5)  # the only non-zero score of system 0 ranks last
    np.testing.assert_array_equal(u, pseudo_observations(x, np.random.default_rng(1)))


def _mc_taus(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of the per-collection taus; draws (R * T, S)."""
    per = kendall_tau(draws.reshape(R, T, -1).transpose(0, 2, 1))
    return per.mean(axis=0), per.std(axis=0, ddof=1) / math.sqrt(R)


@pytest.fixture(scope="module")
def dl_pobs(dl_scores):
    return pseudo_observations(dl_scores["nDCG@10"].to_numpy().T, np.random.default_rng(0))


def test_gaussian_copula_keeps_the_fitted_taus(dl_pobs):
    cop = fit_copula(dl_pobs, "gaussian")
    data_tau = kendall_tau(dl_pobs.T)
    i, j = np.triu_indices(dl_pobs.shape[1], k=1)
    # the fitted taus: the data's, moved at most by the projection to a PSD correlation
    assert np.max(np.abs(cop.taus() - data_tau)[i, j]) <= cop.projection + 1e-12
    assert cop.projection < 0.1
    mean, se = _mc_taus(cop.draw(R * T, np.random.default_rng(2)))
    z = (mean - cop.taus())[i, j] / se[i, j]
    assert np.max(np.abs(z)) < 4.5


def test_vine_copula_keeps_the_taus_of_its_first_tree(dl_pobs):
    cop = fit_copula(dl_pobs, "vine")
    rng = np.random.default_rng(3)
    draws = cop.draw(R * T, rng)
    mean, se = _mc_taus(draws)
    tree = cop.first_tree()
    assert len(tree) == dl_pobs.shape[1] - 1
    z = np.array([(mean[a, b] - tau) / se[a, b] for a, b, tau in tree])
    assert np.max(np.abs(z)) < 4.5
    # beyond the first tree the vine's taus come from its conditional copulas; on average
    # they stay within 0.06 of the data's (0.04 measured on DL-2019 nDCG@10)
    i, j = np.triu_indices(dl_pobs.shape[1], k=1)
    assert np.mean(np.abs(mean - kendall_tau(dl_pobs.T))[i, j]) < 0.06
    # every draw comes from the caller's Generator alone
    np.testing.assert_array_equal(cop.draw(50, np.random.default_rng(9)),
                                  cop.draw(50, np.random.default_rng(9)))


def test_one_system_has_a_trivial_copula():
    u = np.linspace(0.1, 0.9, 9)[:, None]
    for kind in ("gaussian", "vine"):
        cop = fit_copula(u, kind)
        assert cop.draw(5, np.random.default_rng(0)).shape == (5, 1)
