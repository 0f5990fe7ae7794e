"""The simulator of a collection (irstab.simulate.fit_collection): draws, planted truths,
bad input.

Oracles: the model's exact means (closed forms of the tabulated margins), Monte-Carlo
means of the draws with their standard errors stated beside each bound, Hypothesis for
garbage input (always an IRStabError, never another exception).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from irstab.errors import IRStabError
from irstab.simulate import fit_collection, kendall_tau


@pytest.fixture(scope="module")
def model(dl_scores):
    return fit_collection(dl_scores["nDCG@10"])


def test_draws_have_the_model_means_in_the_systems_order(model):
    x = model.draw(400, 43, rng=np.random.default_rng(1))
    assert x.shape == (400, 37, 43) and x.flags.c_contiguous
    assert x.min() >= 0.0 and x.max() <= 1.0
    # 17,200 topics per system: standard error sd / sqrt(17200) <= 0.35 / 131 = 0.0027
    flat = x.transpose(1, 0, 2).reshape(37, -1)
    se = flat.std(axis=1) / math.sqrt(flat.shape[1])
    assert np.all(np.abs(flat.mean(axis=1) - model.means) < 4.5 * se)
    # the exact zero fractions are the point masses at 0
    zse = np.sqrt(model.p_lo * (1 - model.p_lo) / flat.shape[1]) + 1e-12
    assert np.all(np.abs((flat == 0).mean(axis=1) - model.p_lo) <= 4.5 * zse)


def test_draws_are_reproducible_from_the_generator(model):
    a = model.draw(3, 10, rng=7)
    np.testing.assert_array_equal(a, model.draw(3, 10, rng=np.random.default_rng(7)))
    assert not np.array_equal(a, model.draw(3, 10, rng=8))


def test_two_systems_sharing_a_margin_have_equal_means(model):
    null = model.plant("TUW19-p1-f", like="ICT-BERT2")
    i, j = null.index("ICT-BERT2"), null.index("TUW19-p1-f")
    assert null.means[j] == null.means[i]  # the same margin, exactly
    assert null.copula is model.copula
    x = null.draw(5000, 43, rng=3)
    d = (x[:, j] - x[:, i]).ravel()  # 215,000 paired differences
    se = d.std() / math.sqrt(len(d))
    assert abs(d.mean()) < 4.5 * se
    # and the other systems are untouched
    keep = [k for k in range(37) if k != j]
    np.testing.assert_array_equal(null.means[keep], model.means[keep])


def test_a_planted_delta_is_reached_to_1e_3(model):
    i = 0
    taus = model.copula.taus()[i].copy()
    taus[i] = -1
    j = int(np.argmax(taus))  # the partner most like system 0: the smallest paired sd
    planted = model.plant(j, like=i, delta=0.02)
    assert planted.means[j] - planted.means[i] == pytest.approx(0.02, abs=1e-9)
    x = planted.draw(10_000, 43, rng=4)
    d = (x[:, j] - x[:, i]).ravel()  # 430,000 paired differences
    se = d.std() / math.sqrt(len(d))
    assert se < 2.2e-4  # so 4.5 SE is below 1e-3
    assert abs(d.mean() - 0.02) < 4.5 * se
    assert planted.planted == (f"{model.systems[j]} = {model.systems[i]} +0.02",)


def test_planting_keeps_the_copula_and_with_means_sets_every_mean(model):
    target = np.linspace(0.4, 0.7, 37)
    moved = model.with_means(target)
    np.testing.assert_allclose(moved.means, target, atol=1e-9)
    assert moved.copula is model.copula
    # the same copula: the taus between systems' draws agree whatever the margins
    a = kendall_tau(model.draw(1, 2000, rng=5)[0][:4])
    b = kendall_tau(moved.draw(1, 2000, rng=5)[0][:4])
    np.testing.assert_allclose(a, b, atol=0.02)  # only ties at 0 and 1 differ


def test_a_lattice_model_draws_on_its_levels(dl_scores):
    m = fit_collection(dl_scores["P@10"])
    assert m.lattice is not None and len(m.lattice.levels) == 11
    x = m.draw(20, 43, rng=0)
    assert np.all(np.isin(np.round(x * 10, 9), np.arange(11)))
    up = m.plant(1, delta=0.05)
    assert up.means[1] - m.means[1] == pytest.approx(0.05, abs=1e-9)


def test_vine_model(dl_scores):
    m = fit_collection(dl_scores["AP"], copula="vine")
    assert m.copula.kind.value == "vine"
    assert m.draw(2, 43, rng=0).shape == (2, 37, 43)
    assert "vine copula" in m.summary()


def test_presentation_is_plain(model):
    f = model.to_frame()
    assert list(f["system"]) == list(model.systems)
    assert set(f["family"]) <= {"beta", "truncnorm", "beta-kernel"}
    np.testing.assert_allclose(f["mean"], model.means)
    json.dumps(model.to_dict())
    assert model.summary().startswith("37 systems fitted on 43 topics")
    assert "Gaussian copula" in repr(model)


@pytest.mark.parametrize("kwargs, message", [
    (dict(scores=[[0.1, 0.2, np.nan, 0.4, 0.5]]),
     "scores: score of system '0' on topic '2' \\(nan\\) is not a finite number"),
    (dict(scores=[[0.1, 0.2, 1.3, 0.4, 0.5]]), "topic '2' \\(1.3\\) is outside the measure's range \\[0, 1\\]"),
    (dict(scores=[[0.1, 0.2, 0.3]]), "3 topic\\(s\\); the simulator needs at least 4"),
    (dict(scores=[0.1, 0.2, 0.3, 0.4]), "2-D"),
    (dict(scores=[[0.1, 0.2, 0.3, 0.4]], bounds=(1, 0)), "bounds: expected two finite numbers"),
    (dict(scores=[[0.1, 0.2, 0.3, 0.4]], copula="t"), "copula: expected one of"),
    (dict(scores=[[0.1, 0.2, 0.3, 0.4]], lattice="yes"), "lattice: expected 'auto'"),
    (dict(scores=[[0.1, 0.2, 0.3, 0.4]], lattice=[0.0, 0.5, 1.0]), "lattice: score 0.1 is on no level"),
    (dict(scores=[[0.1, 0.2, 0.3, 0.4]], families=["gamma"]), "families: expected names"),
    (dict(scores=[[0.1, 0.2, 0.3, 0.4]], seed=-1), "seed: must be an integer >= 0"),
])
def test_bad_input_is_named(kwargs, message):
    scores = kwargs.pop("scores")
    with pytest.raises(IRStabError, match=message):
        fit_collection(scores, **kwargs)


def test_duplicate_systems_and_bad_draw_arguments(model):
    frame = pd.DataFrame([[0.1, 0.2, 0.3, 0.4]] * 2, index=["a", "a"])
    with pytest.raises(IRStabError, match="system 'a' appears twice"):
        fit_collection(frame)
    with pytest.raises(IRStabError, match="n_collections: must be an integer >= 1"):
        model.draw(0, 43)
    with pytest.raises(IRStabError, match="n_topics"):
        model.draw(1, 2.5)
    with pytest.raises(IRStabError, match="need .* of memory"):
        model.draw(10**9, 10**6)
    with pytest.raises(IRStabError, match="rng"):
        model.draw(1, 5, rng="x")
    with pytest.raises(IRStabError, match="'nope' is not one of the model's 37 systems"):
        model.plant("nope")
    with pytest.raises(IRStabError, match="out of reach"):
        model.plant(0, delta=0.9)
    with pytest.raises(IRStabError, match="delta: must be a finite number"):
        model.plant(0, delta=float("inf"))


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(0, 8)),
              elements=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                                 st.floats(0.0, 1.0))))
def test_garbage_matrices_give_a_named_error_or_a_model(x):
    try:
        m = fit_collection(x)
    except IRStabError as e:
        assert str(e).startswith(("scores:", "system"))
        return
    assert np.all(np.isfinite(m.means)) and m.draw(2, 3, rng=0).shape == (2, x.shape[0], 3)
