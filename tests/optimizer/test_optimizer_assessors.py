"""The optimizer with the objective of a three-facet design (FacetObjective)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assessor_data import noisy_collection

from irstab.errors import IRStabError, IRStabWarning
from irstab.metrics import parse_measure
from irstab.optimizer import Scenario, optimize, optimize_assessors
from irstab.simulate import simulate_collection
from irstab.stability.facets import facet_gstudy
from irstab.stability.objective import FacetObjective


def _cells(n_t, per_topic):
    t = np.repeat(np.arange(n_t), per_topic)
    a = np.concatenate([np.arange(k) for k in per_topic])
    return t, a


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["nested", "crossed"]),
    st.integers(3, 6),
    st.lists(st.integers(2, 3), min_size=3, max_size=5),
    st.floats(1, 50),
    st.floats(1, 5),
    st.sampled_from(["phi", "erho2"]),
    st.integers(0, 2**32 - 1),
)
def test_objective_equals_gstudy_and_gradient_is_exact(design, n_s, per_topic, n_t, n_a, coef, seed):
    t, a = _cells(len(per_topic), per_topic)
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_s, len(t))) + rng.normal(size=(n_s, 1))
    obj = FacetObjective(design, t, a, coefficient=coef, n_topics=n_t, n_assessors=n_a)
    long = pd.DataFrame(
        {"system": np.repeat(np.arange(n_s), len(t)), "topic": np.tile(t, n_s),
         "assessor": np.tile(a, n_s), "score": x.ravel()}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        try:
            g = facet_gstudy(long, design)
        except IRStabError:
            return  # confounded crossed design (assessor codes of unequal topics)
    value, grad = obj.value_and_grad(x)
    # oracle 1: the G-study's coefficient (Henderson's method 1 / EMS)
    expected = g.phi(n_t, n_a) if coef == "phi" else g.erho2(n_t, n_a)
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # oracle 2: central finite differences of the batch values
    eps = 1e-6
    i, j = rng.integers(n_s), rng.integers(len(t))
    e = np.zeros_like(x)
    e[i, j] = eps
    num = (obj.values(x + e) - obj.values(x - e)) / (2 * eps)
    assert grad[i, j] == pytest.approx(num, abs=1e-6)


@pytest.fixture(scope="module")
def small():
    return noisy_collection(simulate_collection(n_systems=8, n_topics=8, depth=20, seed=4),
                            ("b", "c"), seed=1)


@pytest.mark.parametrize("backend", ["scipy", "cvxpy"])
def test_optimize_assessors_beats_presets_and_is_reported(small, backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        res = optimize_assessors(small, 5, vary="gain", backend=backend, starts=1)
    obj = FacetObjective.from_cells(small.cells, "nested")
    # the result's measure string, evaluated by the evaluate kernel, has the reported Phi
    x = parse_measure(str(res)).compute(small.collection)
    assert obj.values(x) == pytest.approx(res.value, rel=1e-6)
    # an optimizer never ends worse than its starts: linear, exp and flat gains
    for gain in ("linear", "exp"):
        xp = parse_measure(f"nDCG(gain={gain},discount=log2)@5").compute(small.collection)
        assert res.value >= obj.values(xp) - 1e-9


def test_design_objective_differs_from_two_facet(small):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        facet = optimize_assessors(small, 5, vary="gain", starts=1, grid=False)
        plain = optimize(small.collection, 5, vary="gain", starts=1, grid=False)
    assert facet.value != pytest.approx(plain.value, rel=1e-6)


def test_bad_design_scenario(small):
    obj = FacetObjective.from_cells(small.cells.iloc[:-1], "nested")
    with pytest.raises(IRStabError, match="cells"):
        Scenario(small.collection, 5, design=obj)
    with pytest.raises(IRStabError, match="topics"):
        optimize_assessors(small, 5, topics=[0, 1])
    with pytest.raises(IRStabError, match="same"):
        FacetObjective("nested", [0, 0], [1, 1])
