"""One test for "no variance beyond rounding", shared by every consumer of a score matrix.

Issue 41 item 2: a matrix of 0.3 in every cell, some computed as 0.30000000000000004, gave
"topics needed: true 87", coverage 0 % and "trust the t-test" in ``calibrate``, and p = 0.03
for pairs of systems in ``systems``. The rule (:func:`irstab._numeric.no_variance`) is
relative to the scores' magnitude, so the scale never decides: every consumer below refuses
such a matrix with :class:`~irstab.errors.DegenerateDataError`, at any scale, and the system
table reads two systems that differ by rounding only as equal.

Oracles: the matrices are constant by construction (a value and its neighbours one or two
ulps away); the p-values of equal systems are 1 by the tests' own convention.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab._numeric import no_variance
from irstab.design.variance import residual_variance
from irstab.errors import DegenerateDataError, IRStabError
from irstab.simulate import fit_check, fit_collection, fit_gtheory
from irstab.stability import gstudy
from irstab.systems import compare_systems
from irstab.trust import calibrate_collection


def _noisy_constant(value: float, shape, seed: int) -> np.ndarray:
    """``value`` in every cell, a random share of cells one or two ulps away."""
    rng = np.random.default_rng(seed)
    x = np.full(shape, value)
    steps = rng.integers(-2, 3, size=shape)
    return np.where(steps > 0, np.nextafter(x, np.inf), np.where(steps < 0, np.nextafter(x, -np.inf), x))


def _frame(x) -> pd.DataFrame:
    return pd.DataFrame(x, index=[f"s{i}" for i in range(x.shape[0])],
                        columns=[f"t{j}" for j in range(x.shape[1])])


# (consumer, the scale of scores it accepts): the simulator and the card take [0, 1]
CONSUMERS = {
    "calibrate": (lambda x: calibrate_collection(x, n_replicates=10, n_resamples=50,
                                                 verdict_replicates=0, fit_collections=0,
                                                 gtheory_replicates=10), True),
    "fit_collection": (lambda x: fit_collection(x), True),
    "fit_gtheory": (lambda x: fit_gtheory(x), True),
    "fit_check": (lambda x: fit_check(x, n_collections=5), True),
    "systems": (lambda x: compare_systems(_frame(x)), False),
    "design": (lambda x: residual_variance(x), False),
    "gstudy": (lambda x: gstudy(x), False),
}


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
@settings(max_examples=15, deadline=None)
@given(value=st.sampled_from([0.3, 0.1 + 0.2, 0.7, 1e-200, 3.0, 1e200]),
       systems=st.integers(2, 6), topics=st.integers(16, 20), seed=st.integers(0, 2**16))
def test_every_consumer_refuses_a_matrix_constant_up_to_rounding(consumer, value, systems,
                                                                  topics, seed):
    run, unit_range = CONSUMERS[consumer]
    if unit_range and not 0 <= value <= 1:
        value = 0.3  # the simulator's scores lie in the measure's range
    x = _noisy_constant(value, (systems, topics), seed)
    assert no_variance(x) is not None
    if value > 1e150:  # results in score units overflow there: refused first for that
        with pytest.raises(IRStabError, match="equal|too large"):
            run(x)
        return
    with pytest.raises(DegenerateDataError, match="equal"):
        run(x)


@settings(max_examples=40, deadline=None)
@given(scale=st.sampled_from([1e-200, 1e-3, 1.0, 1e3, 1e200]), seed=st.integers(0, 2**16))
def test_real_variance_is_seen_at_any_scale(scale, seed):
    # the converse: a genuine spread, however small or large in absolute terms, is variance
    x = np.random.default_rng(seed).uniform(0, 1, (4, 6)) * scale
    assert no_variance(x) is None and no_variance(x, between_systems=True) is None


@pytest.mark.parametrize("test", ["t", "permutation", "bootstrap", "wilcoxon", "sign"])
def test_systems_that_differ_by_rounding_only_are_equal(test):
    # before: p = 0.018-0.035 and an effect d_z of -0.54 for two systems whose scores
    # differ by one ulp on a third of the topics (the rest of the matrix varies)
    x = np.round(np.random.default_rng(1).uniform(0, 1, (4, 20)), 1)
    x[1] = x[0]
    x[1, ::3] = np.nextafter(x[0, ::3], np.inf)
    r = compare_systems(_frame(x), test=test, n_resamples=2000)
    first = r.pairs.iloc[0]
    assert (first["a"], first["b"]) == ("s0", "s1")
    assert first["difference"] == 0.0 and first["effect"] == 0.0 and first["p_value"] == 1.0


def test_identical_systems_are_refused_by_the_card_only():
    # systems equal on every topic up to rounding: nothing to plant or simulate (the card);
    # a G-study still says what it is (every system component 0)
    row = np.random.default_rng(2).uniform(0.1, 0.9, 16)
    x = np.tile(row, (5, 1))
    x[::2] = np.nextafter(x[::2], np.inf)
    with pytest.raises(DegenerateDataError, match="all 5 systems have the same score"):
        calibrate_collection(x, n_replicates=10, n_resamples=50, verdict_replicates=0,
                             fit_collections=0, gtheory_replicates=10)
    assert gstudy(x).phi() == 0.0
