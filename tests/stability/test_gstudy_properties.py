"""Invariants of the G/D-study (Hypothesis) and the behaviour on degenerate input."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from irstab.errors import DegenerateDataError, IRStabError, IRStabWarning
from irstab.stability import Coefficient, drop_worst_systems, gstudy

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@st.composite
def matrices(draw, min_side=2, max_side=12):
    shape = draw(st.tuples(st.integers(min_side, max_side), st.integers(min_side, max_side)))
    x = draw(arrays(np.float64, shape, elements=finite))
    assume(np.ptp(x) > 1e-6 * max(1.0, np.abs(x).max()))
    return x


def quiet_gstudy(x, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        return gstudy(x, **kw)


N_VALUES = [1, 2, 3, 5, 10, 50, 1000]


@settings(max_examples=200, deadline=None)
@given(matrices())
def test_phi_le_erho2_and_both_grow_with_topics(x):
    g = quiet_gstudy(x)
    erho2 = np.array([g.erho2(n) for n in N_VALUES])
    phi = np.array([g.phi(n) for n in N_VALUES])
    assert np.all(phi <= erho2 + 1e-12)
    assert np.all(np.diff(erho2) >= -1e-12)
    assert np.all(np.diff(phi) >= -1e-12)
    assert np.all((0 <= phi) & (erho2 <= 1))


@settings(max_examples=150, deadline=None)
@given(matrices(), matrices())
def test_order_by_phi1_is_order_by_phin(a, b):
    # Phi(n) = n Phi(1) / (1 + (n-1) Phi(1)) is increasing in Phi(1) (seed 003 §2.1).
    ga, gb = quiet_gstudy(a), quiet_gstudy(b)
    da, db = ga.phi(1), gb.phi(1)
    for n in N_VALUES:
        pa, pb = ga.phi(n), gb.phi(n)
        if da > db + 1e-9:
            assert pa >= pb - 1e-12
        elif db > da + 1e-9:
            assert pb >= pa - 1e-12
        # Spearman-Brown form, arithmetic
        assert pa == pytest.approx(n * da / (1 + (n - 1) * da), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(matrices(), st.floats(0.1, 10), st.floats(-5, 5))
def test_affine_invariance(x, scale, shift):
    g, h = quiet_gstudy(x), quiet_gstudy(scale * x + shift)
    assert h.erho2() == pytest.approx(g.erho2(), abs=1e-7)
    assert h.phi() == pytest.approx(g.phi(), abs=1e-7)
    assert h.var_residual == pytest.approx(scale**2 * g.var_residual, rel=1e-6, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(matrices(min_side=3), st.integers(0, 2**32 - 1))
def test_permutation_invariance(x, seed):
    rng = np.random.default_rng(seed)
    y = x[rng.permutation(x.shape[0])][:, rng.permutation(x.shape[1])]
    g, h = quiet_gstudy(x), quiet_gstudy(y)
    np.testing.assert_allclose(
        (h.ss_system, h.ss_topic, h.ss_residual),
        (g.ss_system, g.ss_topic, g.ss_residual),
        rtol=1e-9,
        atol=1e-6,
    )


@settings(max_examples=100, deadline=None)
@given(matrices(min_side=3), st.floats(0.5, 0.99))
def test_topics_needed_is_the_smallest_reaching_target(x, target):
    g = quiet_gstudy(x)
    for c, f in ((Coefficient.phi, g.phi), (Coefficient.erho2, g.erho2)):
        n = g.topics_needed(target, c).n
        if math.isinf(n):
            assert g.components[0] == 0
            continue
        assert f(n) >= target - 1e-9
        if n > 1:
            assert f(n - 1) < target + 1e-9


def test_f_intervals_contain_point_and_shrink_with_confidence():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(20, 1)) + rng.normal(size=(1, 30)) + rng.normal(size=(20, 30))
    g = gstudy(x)
    for n in (1, 30, 200):
        for point, interval in ((g.erho2(n), g.erho2_interval), (g.phi(n), g.phi_interval)):
            lo95, hi95 = interval(n, 0.95)
            lo80, hi80 = interval(n, 0.80)
            assert lo95 <= lo80 <= point <= hi80 <= hi95


# ------------------------------------------------------------ degenerate input


@pytest.mark.parametrize("shape", [(1, 5), (5, 1), (1, 1)])
def test_too_few_systems_or_topics(shape):
    with pytest.raises(DegenerateDataError, match="at least 2 systems and 2 topics"):
        gstudy(np.arange(np.prod(shape), dtype=float).reshape(shape))


def test_missing_cells_are_named():
    frame = pd.DataFrame(
        [[0.1, 0.2, 0.3], [0.4, np.nan, 0.6]], index=["bm25", "bert"], columns=["t1", "t2", "t3"]
    )
    with pytest.raises(
        DegenerateDataError, match=r"1 missing cell\(s\): \(system 'bert', topic 't2'\)"
    ):
        gstudy(frame)


def test_many_missing_cells_are_counted():
    x = np.full((4, 4), np.nan)
    x[0, 0] = 1.0
    with pytest.raises(DegenerateDataError, match="15 missing cell.*and 10 more"):
        gstudy(x)


def test_non_finite_cells_are_named():
    x = np.array([[0.1, np.inf], [0.3, 0.4]])
    with pytest.raises(DegenerateDataError, match=r"non-finite.*\(system 0, topic 1\)"):
        gstudy(x)


def test_constant_matrix():
    with pytest.raises(DegenerateDataError, match="all 6 scores are equal"):
        gstudy(np.full((2, 3), 0.25))


@pytest.mark.parametrize(
    "scores, message",
    [
        (np.zeros(5), "2-D"),
        (np.array([["a", "b"], ["c", "d"]]), "not a numeric"),
        (pd.DataFrame({"t1": ["a", "b"], "t2": [1.0, 2.0]}), "not numeric"),
        (pd.DataFrame([[1.0, 2.0], [3.0, 5.0]], index=["s", "s"]), "duplicate system"),
    ],
)
def test_bad_input(scores, message):
    with pytest.raises(IRStabError, match=message):
        gstudy(scores)


def test_negative_components_raw_in_table_zero_in_coefficients():
    # 2 x 2 "crossed" matrix: row and column means all equal, so
    # MS_s = MS_t = 0 and MS_res = 1 (arithmetic): sigma2_s = sigma2_t = -1/2.
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    with pytest.warns(
        IRStabWarning, match="negative variance.*sigma2_system = -0.5.*sigma2_topic = -0.5"
    ):
        g = gstudy(x)
    assert (g.var_system, g.var_topic, g.var_residual) == (-0.5, -0.5, 1.0)
    assert g.components == (0.0, 0.0, 1.0)
    assert g.to_frame()["variance"].tolist() == [-0.5, -0.5, 1.0]
    assert g.to_frame()["percent"].tolist() == [0.0, 0.0, 100.0]
    assert g.erho2() == 0.0 and g.phi() == 0.0
    assert math.isinf(g.topics_needed(0.9).n)


def test_identical_systems_give_zero_with_warning():
    x = np.tile(np.array([[0.1, 0.5, 0.9]]), (3, 1))
    with pytest.warns(IRStabWarning, match="same score on every topic"):
        g = gstudy(x)
    assert g.erho2() == 0.0 and g.phi() == 0.0


def test_no_warning_for_positive_components():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gstudy(np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]]))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda g: g.erho2(0), "n_topics"),
        (lambda g: g.phi(float("inf")), "n_topics"),
        (lambda g: g.phi_interval(confidence=1.0), "confidence"),
        (lambda g: g.topics_needed(1.0), "target"),
        (lambda g: g.topics_needed(0.9, "tau"), "coefficient"),
        (lambda g: g.dstudy(interval="jackknife"), "interval"),
        (lambda g: g.dstudy([]), "n_topics"),
    ],
)
def test_bad_parameters(call, message):
    g = gstudy(np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7]]))
    with pytest.raises(IRStabError, match=message):
        call(g)


# ------------------------------------------------------------ drop_worst


def test_drop_worst_keeps_ties_and_order():
    # means (arithmetic): s0=0.5, s1=0.1, s2=0.1, s3=0.9, s4=0.3
    frame = pd.DataFrame(
        [[0.5, 0.5], [0.1, 0.1], [0.0, 0.2], [0.9, 0.9], [0.2, 0.4]],
        index=["s0", "s1", "s2", "s3", "s4"],
        columns=["a", "b"],
    )
    # floor(0.2 * 5) = 1 would split the tie s1/s2: nothing is dropped
    assert list(drop_worst_systems(frame, 0.2).index) == ["s0", "s1", "s2", "s3", "s4"]
    # floor(0.4 * 5) = 2: both tied systems go
    assert list(drop_worst_systems(frame, 0.4).index) == ["s0", "s3", "s4"]
    # floor(0.6 * 5) = 3
    assert list(drop_worst_systems(frame, 0.6).index) == ["s0", "s3"]
    g = gstudy(frame, drop_worst=0.4)
    assert g.systems == ("s0", "s3", "s4") and g.dropped_systems == ("s1", "s2")
    assert list(frame.index) == ["s0", "s1", "s2", "s3", "s4"]  # input untouched


def test_drop_worst_errors():
    x = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(IRStabError, match="drop_worst"):
        gstudy(x, drop_worst=1.0)
    with pytest.raises(IRStabError, match="drop_worst"):
        gstudy(x, drop_worst=-0.1)
    with pytest.raises(DegenerateDataError, match="leaves 1 system"):
        gstudy(x, drop_worst=0.9)


# ------------------------------------------------------------ result objects


def test_results_are_frozen_typed_and_serialisable():
    x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    frame = pd.DataFrame(x, index=list("ABCD"), columns=["t1", "t2", "t3"])
    before = frame.copy()
    g = gstudy(frame, name="m")
    pd.testing.assert_frame_equal(frame, before)
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.var_system = 1.0
    with pytest.raises(ValueError):
        g.scores[0, 0] = 1.0  # read-only
    assert dataclasses.replace(g, scores=np.zeros(1)) == g  # equality ignores the matrix
    d = g.to_dict()
    assert d["measure"] == "m" and d["n_systems"] == 4 and d["n_topics"] == 3
    assert [row["source"] for row in d["anova"]] == ["system", "topic", "residual"]
    ds = g.dstudy([1, 3, 10], targets=(0.8, 0.95))
    assert list(ds.to_frame().columns) == [
        "measure",
        "n_topics",
        "erho2",
        "erho2_lower",
        "erho2_upper",
        "phi",
        "phi_lower",
        "phi_upper",
    ]
    assert len(ds.topics_needed) == 4 and len(ds.topics_needed_frame()) == 4
    dd = ds.to_dict()
    assert dd["curve"][1]["n_topics"] == 3.0 and len(dd["curve"][1]["phi_ci"]) == 2
    assert dd["topics_needed"][0]["coefficient"] == "phi"
    assert ds.phi[1] == pytest.approx(g.phi())
    hash(ds)
