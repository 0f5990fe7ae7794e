"""The two-facet jackknife of Phi (irstab.stability.jackknife).

Oracles: brute-force enumeration of every left-out matrix's mean squares; the unbiased
variance of a two-way random-effects grand mean, (MS_s + MS_t - MS_e) / (S T) (Searle,
Casella & McCulloch, Variance Components, 1992, ch. 4), which the corrected jackknife must
reproduce exactly; finite differences for the gradient of Phi; Phi's invariance under
a x + b (Brennan 2001).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import IRStabError
from irstab.stability.designs.crossed import sums_of_squares
from irstab.stability.jackknife import (
    leave_one_out_mean_squares, phi_contrasts, phi_gradient, two_facet_variance,
)


def _ms(x):
    S, T = x.shape
    ss_s, ss_t, ss_e = sums_of_squares(x)
    return np.array([ss_s / (S - 1), ss_t / (T - 1), ss_e / ((S - 1) * (T - 1))])


def test_left_out_mean_squares_equal_enumeration():
    x = np.random.default_rng(0).random((2, 5, 6))
    full, bs, bt, bc = leave_one_out_mean_squares(x)
    for m in range(2):
        assert np.allclose(full[:, m], _ms(x[m]))
        for i in range(5):
            assert np.allclose(bs[:, m, i], _ms(np.delete(x[m], i, axis=0)))
            for j in range(6):
                assert np.allclose(bc[:, m, i, j], _ms(np.delete(np.delete(x[m], i, 0), j, 1)))
        for j in range(6):
            assert np.allclose(bt[:, m, j], _ms(np.delete(x[m], j, axis=1)))


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.integers(0, 2**32 - 1))
def test_the_grand_mean_variance_is_the_unbiased_one(S, T, seed):
    x = np.random.default_rng(seed).normal(size=(S, T)) * 3 + 1
    mean = lambda a: np.array([a.mean()])  # noqa: E731
    drop = np.delete
    v = two_facet_variance(
        mean(x),
        np.array([[x[np.arange(S) != i].mean() for i in range(S)]]),
        np.array([[x[:, np.arange(T) != j].mean() for j in range(T)]]),
        np.array([[[drop(drop(x, i, 0), j, 1).mean() for j in range(T)] for i in range(S)]]),
    )
    ms = _ms(x)
    unbiased = (ms[0] + ms[1] - ms[2]) / (S * T)
    assert np.trace(v.system + v.topic - v.interaction) == pytest.approx(unbiased, rel=1e-9)
    # the uncorrected jackknife counts the interaction twice: (MS_s + MS_t) / (S T)
    assert np.trace(v.system + v.topic) == pytest.approx((ms[0] + ms[1]) / (S * T), rel=1e-9)


def test_gradient_equals_finite_differences():
    ms = np.array([[0.9, 0.5], [0.7, 0.6], [0.12, 0.2]])  # (3, M)
    S, T, n = 20, 25, 25
    phi, grad = phi_gradient(ms, S, T, n)
    h = 1e-7
    for f in range(3):
        up, dn = ms.copy(), ms.copy()
        up[f] += h
        dn[f] -= h
        num = (phi_gradient(up, S, T, n)[0] - phi_gradient(dn, S, T, n)[0]) / (2 * h)
        assert np.allclose(grad[f], num, rtol=1e-6, atol=1e-9)
    assert np.all((phi > 0) & (phi < 1))


@settings(max_examples=30, deadline=None)
@given(st.integers(-100, 100), st.floats(-1e6, 1e6), st.integers(0, 2**32 - 1))
def test_contrasts_are_scale_free(power, shift, seed):
    rng = np.random.default_rng(seed)
    e = rng.normal(0, 1, (12, 1))
    x = np.stack([e + rng.normal(0, 1, (12, 15)), e + rng.normal(0, 0.6, (12, 15))])
    w = np.array([[-1.0, 1.0]])
    # the shift in units of the scale: the input keeps its digits (x * 1e-9 + 1 would not)
    scale = 10.0 ** power
    a, b = phi_contrasts(x, w), phi_contrasts(x * scale + shift * scale, w)
    assert b.estimate == pytest.approx(a.estimate, rel=1e-6, abs=1e-12)
    assert b.variance == pytest.approx(a.variance, rel=1e-5, abs=1e-15)


def test_a_twin_and_a_constant_matrix_have_no_variance():
    rng = np.random.default_rng(3)
    x = rng.random((8, 10))
    cv = phi_contrasts(np.stack([x, x.copy(), np.full((8, 10), 0.3)]),
                       np.array([[-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    assert cv.estimate[0] == 0.0 and cv.variance[0] == 0.0
    assert cv.estimate[1] == 0.0 and cv.variance[1] == 0.0  # constant: Phi 0, no gradient


def test_bad_shapes_are_named():
    with pytest.raises(IRStabError, match="at least 3 systems and 3 topics"):
        phi_contrasts(np.random.default_rng(0).random((1, 2, 5)), np.array([[1.0]]))
    with pytest.raises(IRStabError, match="weights"):
        phi_contrasts(np.random.default_rng(0).random((2, 4, 5)), np.array([[1.0, 0, 0]]))
