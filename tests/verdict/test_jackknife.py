"""The two-facet jackknife of Phi (irstab.verdict.jackknife).

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
from irstab.verdict.jackknife import (
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


def _phi_of(x, n):
    """Phi at n topics of one matrix, components clipped at 0 (phi_gradient's own Phi)."""
    S, T = x.shape
    return float(phi_gradient(_ms(x)[:, None], S, T, n)[0][0])


def _heavy_pair(seed=11, S=9, T=12):
    """Two measures sharing heavy-tailed system effects: one run far below the rest."""
    rng = np.random.default_rng(seed)
    sys_eff = rng.normal(0, 0.1, (S, 1))
    sys_eff[0] -= 0.8
    top = rng.normal(0, 0.2, (1, T))
    return np.stack([sys_eff + top + rng.normal(0, 0.25, (S, T)),
                     sys_eff + top + rng.normal(0, 0.15, (S, T))])


def test_system_kurtosis_is_scipys():
    from scipy import stats

    from irstab.verdict.jackknife import system_kurtosis

    x = np.random.default_rng(2).gamma(0.5, size=(3, 15, 7))
    assert np.allclose(system_kurtosis(x), stats.kurtosis(x.mean(axis=2), axis=1), rtol=1e-12)
    assert system_kurtosis(np.ones((1, 4, 3)))[0] == 0.0  # equal means: no tails to read


def test_heavy_tailed_systems_are_left_out_exactly():
    # oracle: Phi of every matrix with one system deleted, enumerated
    from irstab.verdict.jackknife import HEAVY_TAILS, system_kurtosis

    x = _heavy_pair()
    S, T = x.shape[1:]
    assert system_kurtosis(x).max() >= HEAVY_TAILS
    cv = phi_contrasts(x, np.array([[-1.0, 1.0]]))
    assert cv.heavy_tailed.tolist() == [True]
    theta = np.array([_phi_of(np.delete(x[1], i, 0), T) - _phi_of(np.delete(x[0], i, 0), T)
                      for i in range(S)])
    dev2 = (theta - theta.mean()) ** 2
    assert cv.parts.system[0, 0] == pytest.approx((S - 1) / S * dev2.sum(), rel=1e-9)
    assert cv.system_influence[0] == pytest.approx(dev2.max() / dev2.sum(), rel=1e-9)


def test_light_tailed_systems_keep_the_tangent():
    # normal system effects: the linearised leave-outs, g . MS_(i.) (delta method), by hand
    from irstab.verdict.jackknife import HEAVY_TAILS, system_kurtosis

    rng = np.random.default_rng(5)
    S, T = 10, 12
    x = rng.normal(0, 1, (1, S, 1)) + rng.normal(0, 1, (2, S, T))
    x[:, :, :] += np.linspace(-1, 1, S)[None, :, None]  # evenly spread: kurtosis -1.2
    assert system_kurtosis(x).max() < HEAVY_TAILS
    cv = phi_contrasts(x, np.array([[-1.0, 1.0]]))
    assert cv.heavy_tailed.tolist() == [False]
    y = (x - x.mean(axis=(1, 2), keepdims=True))
    full, bs, _, _ = leave_one_out_mean_squares(y)
    _, grad = phi_gradient(full, S, T, T)
    lin = np.einsum("fm,fms->ms", grad, bs)
    theta = lin[1] - lin[0]
    assert cv.parts.system[0, 0] == pytest.approx(
        (S - 1) / S * ((theta - theta.mean()) ** 2).sum(), rel=1e-9)


def _exact_kurtosis(v):
    """Excess kurtosis m4 / m2^2 - 3 (divisor n): scipy's; 0 for equal values (the library's
    convention, where scipy gives nan)."""
    from scipy import stats

    return float(stats.kurtosis(v)) if np.ptp(v) > 0 else 0.0


def _phi(x, n):
    """Phi at n topics of one S x T matrix, components clipped at 0 (the G-study's)."""
    S, T = x.shape
    g = x.mean()
    ms_s = T * ((x.mean(axis=1) - g) ** 2).sum() / (S - 1)
    ms_t = S * ((x.mean(axis=0) - g) ** 2).sum() / (T - 1)
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + g
    ms_e = (r ** 2).sum() / ((S - 1) * (T - 1))
    vs, vt, ve = max((ms_s - ms_e) / T, 0), max((ms_t - ms_e) / S, 0), max(ms_e, 0)
    den = vs + (vt + ve) / n
    return vs / den if den > 0 else 0.0


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 12), st.integers(3, 12), st.integers(0, 2**32 - 1))
def test_the_degrees_of_freedom_are_satterthwaites_with_the_facets_deflated(S, T, seed):
    """df = V^2 / (u_s^2 k_s/(S-1) + u_t^2 k_t/(T-1) + p_st^2/((S-1)(T-1))), u_f = p_f +
    c min(V_f, V_st), k_f = min(a_f + b_f max(kappa_f, 0), max(a_f, (n_f - 1)/FACET_DF_FLOOR))
    (Satterthwaite 1946, the facets'
    degrees of freedom divided by FACET_DF_DEFLATION + FACET_DF_KURTOSIS x kappa, kappa the
    excess kurtosis of the exact leave-one-out contrasts of Phi, recomputed here by deleting
    each system and each topic and refitting; the clipped parts' noise CLIPPED_PART_NOISE),
    written out from the three variances; the noise only lowers them: never above the clipped
    parts' df."""
    from irstab._numeric import unit_spread
    from irstab.verdict.jackknife import (
        CLIPPED_PART_NOISE,
        FACET_DF_DEFLATION,
        FACET_DF_FLOOR,
        FACET_DF_KURTOSIS,
    )

    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (1, S, 1)) + rng.normal(0, 1, (2, S, T)) \
        + rng.standard_t(3, (1, 1, T))
    cv = phi_contrasts(x, np.array([[-1.0, 1.0]]))
    v_s, v_t, v_st = (float(np.diag(c)[0]) for c in
                      (cv.parts.system, cv.parts.topic, cv.parts.interaction))
    p_s, p_t, p_st = (float(a[0]) for a in cv.parts.parts())
    assert (p_s, p_t, p_st) == (max(v_s - v_st, 0.0), max(v_t - v_st, 0.0), v_st)
    y, _ = unit_spread(x)
    by_sys = np.array([_phi(np.delete(y[1], i, 0), T) - _phi(np.delete(y[0], i, 0), T)
                       for i in range(S)])
    by_top = np.array([_phi(np.delete(y[1], j, 1), T) - _phi(np.delete(y[0], j, 1), T)
                       for j in range(T)])
    kap_s, kap_t = _exact_kurtosis(by_sys), _exact_kurtosis(by_top)
    assert float(cv.parts.kurt_system[0]) == pytest.approx(kap_s, rel=1e-7, abs=1e-7)
    assert float(cv.parts.kurt_topic[0]) == pytest.approx(kap_t, rel=1e-7, abs=1e-7)
    k_s = FACET_DF_DEFLATION[0] + FACET_DF_KURTOSIS[0] * max(float(cv.parts.kurt_system[0]), 0)
    k_t = FACET_DF_DEFLATION[1] + FACET_DF_KURTOSIS[1] * max(float(cv.parts.kurt_topic[0]), 0)
    # the kurtosis takes a facet down to FACET_DF_FLOOR degrees of freedom, no further
    k_s = min(k_s, max(FACET_DF_DEFLATION[0], (S - 1) / FACET_DF_FLOOR))
    k_t = min(k_t, max(FACET_DF_DEFLATION[1], (T - 1) / FACET_DF_FLOOR))
    c = CLIPPED_PART_NOISE
    dfs = [(S - 1) / k_s, (T - 1) / k_t, float((S - 1) * (T - 1))]
    v = p_s + p_t + p_st
    if v == 0:
        assert cv.df[0] == np.inf
        return
    u = (p_s + c * min(v_s, v_st), p_t + c * min(v_t, v_st), p_st)
    expect = v * v / sum(p * p / d for p, d in zip(u, dfs))
    assert cv.df[0] == pytest.approx(expect, rel=1e-12)
    clipped_only = v * v / sum(p * p / d for p, d in zip((p_s, p_t, p_st), dfs))
    assert cv.df[0] <= clipped_only * (1 + 1e-12)


def test_the_degrees_of_freedom_follow_the_part_that_dominates():
    """Closed form: only the interaction part -> (S-1)(T-1); only the system part -> (S-1)/k_s
    (the contrast of a measure with a copy whose system effects are stretched, no residual
    change, has no interaction part); a topic part clipped at V_t = V_st counts c V_st:
    V_st^2 / (c^2 V_st^2 k_t/(T-1) + V_st^2/((S-1)(T-1))); k_f = a_f at kurtosis 0 or below,
    a_f + b_f kappa_f above, at most max(a_f, (n_f - 1)/FACET_DF_FLOOR)."""
    from irstab.verdict.jackknife import CLIPPED_PART_NOISE, FACET_DF_DEFLATION, TwoFacetVariance

    S, T = 9, 11

    def tfv(vs, vt, vst):
        return TwoFacetVariance(system=np.array([[vs]]), topic=np.array([[vt]]),
                                interaction=np.array([[vst]]), by_system=np.zeros((1, S)),
                                n_systems=S, n_topics=T)

    assert tfv(0.0, 0.0, 0.5).df()[0] == pytest.approx((S - 1) * (T - 1))
    from irstab.verdict.jackknife import FACET_DF_FLOOR, FACET_DF_KURTOSIS

    def shaped(kurt_s, kurt_t):
        return TwoFacetVariance(system=np.array([[0.7]]), topic=np.array([[0.7]]),
                                interaction=np.array([[0.0]]), by_system=np.zeros((1, S)),
                                n_systems=S, n_topics=T, kurt_system=np.array([kurt_s]),
                                kurt_topic=np.array([kurt_t])).df()[0]

    (a_s, a_t), (b_s, b_t) = FACET_DF_DEFLATION, FACET_DF_KURTOSIS
    k_s = a_s  # negative kurtosis: no deflation beyond the base
    for kurt_t, k_t in ((-1.0, a_t),  # negative kurtosis: the base alone
                        (0.2, a_t + 0.2 * b_t),  # below the floor's reach
                        (2.0, max(a_t, (T - 1) / FACET_DF_FLOOR))):  # held at the floor
        # the test's premise: 0.2 lies below the floor's reach at T = 11, 2.0 beyond it
        assert k_t <= max(a_t, (T - 1) / FACET_DF_FLOOR) + 1e-12
        assert shaped(-1.0, kurt_t) == pytest.approx(
            1.4 ** 2 / (0.49 * k_s / (S - 1) + 0.49 * k_t / (T - 1)))
    assert tfv(0.7, 0.0, 0.0).df()[0] == pytest.approx((S - 1) / FACET_DF_DEFLATION[0])
    assert tfv(0.0, 0.7, 0.0).df()[0] == pytest.approx((T - 1) / FACET_DF_DEFLATION[1])
    assert tfv(0.0, 0.0, 0.0).df()[0] == np.inf
    c = CLIPPED_PART_NOISE
    assert tfv(0.0, 0.5, 0.5).df()[0] == pytest.approx(
        1.0 / (c * c * FACET_DF_DEFLATION[1] / (T - 1) + 1.0 / ((S - 1) * (T - 1))))


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 10), st.integers(3, 12), st.integers(2, 5), st.integers(0, 2**32 - 1),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_the_intervals_use_students_t_quantiles_to_the_bit(S, T, M, seed, confidence):
    # the verdict's quantiles come from scipy.special.stdtrit, not the scipy.stats.t wrapper
    # (a calibration calls this thousands of times); they are scipy.stats.t's ppf (marginal,
    # the measures outside the family) and isf (Bonferroni over the family), to the bit
    from unittest import mock

    from scipy import stats

    from irstab.verdict.jackknife import jackknife_differences

    rng = np.random.default_rng(seed)
    eff = rng.normal(0, 1, (1, S, 1)) + rng.normal(0, 1, (1, 1, T))
    cube = eff + rng.normal(0, rng.uniform(0.2, 2.0, (M, 1, 1)), (M, S, T))
    cand = np.arange(M) % 2 == 1
    with mock.patch.object(stats.t, "ppf", side_effect=AssertionError("stats.t.ppf")), \
            mock.patch.object(stats.t, "isf", side_effect=AssertionError("stats.t.isf")):
        d = jackknife_differences(cube, 0, cand, confidence=confidence, rng=rng)
    gamma = 1.0 - confidence
    from irstab._numeric import PHI_ATOL

    live = d.sd > PHI_ATOL
    fam = cand & live
    q = np.zeros(M)
    with np.errstate(invalid="ignore"):
        q[live] = stats.t.ppf(1.0 - gamma / 2.0, d.df[live])
    if fam.any():
        q[fam] = stats.t.isf(gamma / (2.0 * fam.sum()), d.df[fam])
    assert np.array_equal(d.lower, np.maximum(d.diff - q * d.sd, -1.0))
    assert np.array_equal(d.upper, np.minimum(d.diff + q * d.sd, 1.0))
