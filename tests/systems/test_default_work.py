"""A default number of resamples that would run for minutes is refused with the options.

Issue 41 item 4: ``systems --test permutation`` over the 10,011 pairs of 142 systems ran past
300 s: Holm's default B = 10 m / alpha = 2,002,200. The work is estimated before anything is
drawn (resamples x pairs, at the CPU time per resample and pair measured for the tests), and
past 60 s the default is refused naming B, the estimate and the options; an explicit -B is
the caller's choice. Oracle: B from the documented default, the pairs counted.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import IRStabError
from irstab.systems import compare_systems
from irstab.systems.table import (_DEFAULT_WORK_SECONDS, _NS_PER_RESAMPLED_PAIR,
                                  _check_default_work, resamples_for)


def _frame(S: int, T: int = 6) -> pd.DataFrame:
    x = np.random.default_rng(S).uniform(0, 1, (S, T))
    return pd.DataFrame(x, index=[f"s{i}" for i in range(S)])


def _seconds(S: int, correction: str) -> float:
    P = S * (S - 1) // 2
    return _NS_PER_RESAMPLED_PAIR * 1e-9 * resamples_for("permutation", correction, 0.05, P) * P


def test_the_reported_case_is_refused_before_any_work():
    with pytest.raises(IRStabError, match=r"over 10011 pairs of 142 systems defaults to B = "
                                          r"2002200 resamples, about 2 CPU minute.*--correction "
                                          r"bh.*--test t.*--baseline RUN.*explicit"):
        compare_systems(_frame(142), test="permutation")


@settings(max_examples=60, deadline=None)
@given(S=st.integers(2, 300), test=st.sampled_from(["permutation", "bootstrap"]),
       correction=st.sampled_from(["holm", "bh", "none"]))
def test_refused_exactly_when_the_estimate_passes_the_budget(S, test, correction):
    P = S * (S - 1) // 2
    B = resamples_for(test, correction, 0.05, P)
    if _seconds(S, correction) > _DEFAULT_WORK_SECONDS:
        with pytest.raises(IRStabError, match="CPU minute"):
            compare_systems(_frame(S), test=test, correction=correction)
    else:
        _check_default_work(test, correction, B, P, S)  # passes: the same rule, no work


def test_an_explicit_count_is_the_callers_choice(monkeypatch):
    import irstab.systems.table as table

    monkeypatch.setattr(table, "_DEFAULT_WORK_SECONDS", 1e-6)  # every default "too long"
    with pytest.raises(IRStabError, match="defaults to B = 10000"):
        compare_systems(_frame(5), test="permutation", correction="bh")
    r = compare_systems(_frame(5), test="permutation", correction="bh", n_resamples=500)
    assert r.n_resamples == 500
    assert compare_systems(_frame(5), test="t").n_resamples == 0  # no resampling, no check
