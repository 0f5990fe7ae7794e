"""compare_systems refuses pairs and resamples that cannot fit, before allocating them.

Expected sizes are closed forms: P pairs (S - 1 against a baseline, S(S - 1)/2 for all
pairs), 8 x (3 P T + 22 P) + S^2 bytes for the pairs, 8 B (T + 1) for B resamples.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab._numeric import available_memory
from irstab.systems.table import compare_systems
from irstab.errors import IRStabError


def scores(S: int, T: int, seed: int = 0) -> pd.DataFrame:
    x = np.random.default_rng(seed).random((S, T))
    return pd.DataFrame(x, index=[f"s{s}" for s in range(S)])


@pytest.mark.parametrize("test", ["permutation", "bootstrap", "tukey"])
def test_resamples_beyond_memory_are_refused_before_drawing(test):
    with pytest.raises(IRStabError, match=r"n_resamples: 9007199254740992 resamples of 8 topics "
                       rf"\({test} test, 4 systems\) need 6\.49e\+05 TB of memory"):
        compare_systems(scores(4, 8), test=test, n_resamples=2**53, correction="bh"
                        if test != "tukey" else None)


@settings(max_examples=25, deadline=None)
@given(T=st.integers(2, 12), test=st.sampled_from(["permutation", "bootstrap", "tukey"]))
def test_the_resample_bound_is_half_the_available_memory(T, test):
    # the largest B whose 8 B (T + 1) bytes fit in half the memory is refused one step
    # above; probe just above it (no resampling happens: the check comes first)
    limit = available_memory() // 2
    B = limit // (8 * (T + 1)) + 1
    with pytest.raises(IRStabError, match=rf"n_resamples: {B} resamples of {T} topics"):
        compare_systems(scores(3, T), test=test, n_resamples=int(B),
                        correction=None if test == "tukey" else "bh")


def test_many_systems_against_a_baseline_are_not_refused():
    # against a baseline 60,000 systems make 59,999 pairs (8 x 31 x 59,999 B = 15 MB):
    # the bound counts the pairs actually tested, not all S(S - 1)/2
    r = compare_systems(scores(60_000, 3), baseline="s0")
    assert len(r.pairs) == 59_999 and r.pairs["p_value"].between(0, 1).all()


@pytest.mark.parametrize("fn", ["permutation_test", "bootstrap_test"])
def test_the_tests_themselves_refuse_resamples_beyond_memory(fn):
    # 8 x 2^53 x (8 + 1) bytes = 6.49e+05 TB, the same bound as compare_systems'
    from irstab.systems import significance

    d = np.random.default_rng(0).normal(size=(3, 8))
    with pytest.raises(IRStabError, match=r"n_resamples: 9007199254740992 resamples of 8 "
                       r"topics need 6\.49e\+05 TB of memory"):
        getattr(significance, fn)(d, 2**53, seed=0)


def test_tukey_refuses_resamples_beyond_memory():
    from irstab.systems.significance import randomised_tukey_hsd

    with pytest.raises(IRStabError, match=r"n_resamples: 9007199254740992 resamples of 8 "
                       r"topics need 6\.49e\+05 TB"):
        randomised_tukey_hsd(scores(4, 8).to_numpy(), [0], [1], 2**53, seed=0)
