"""Cross-fitting an optimised configuration over topic folds (irstab.optimizer.crossfit).

Oracles: the folds partition the topics (enumeration); each held-out column is the
optimizer's own nDCG kernel under that fold's vectors (Scenario.ndcg, proved equal to
evaluate's kernel in test_optimizer_problem.py); and the decisive property of
cross-fitting, checked by construction: a fold's configuration does not depend on that
fold's topics (their grades wiped, it is the same to the last bit), while the other folds'
configurations do.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import IRStabError
from irstab.optimizer import cross_fit, optimize, topic_folds
from irstab.optimizer.minimax import minimax, scenarios_by_cutoff
from irstab.optimizer.scenario import Scenario


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 60), st.integers(2, 10), st.integers(0, 2**32 - 1))
def test_folds_partition_the_topics(n_topics, n_folds, seed):
    if n_topics - -(-n_topics // n_folds) < 2:
        with pytest.raises(IRStabError, match="folds"):
            topic_folds(n_topics, n_folds, seed)
        return
    f = topic_folds(n_topics, n_folds, seed)
    sizes = np.bincount(f, minlength=n_folds)
    assert f.shape == (n_topics,) and sizes.sum() == n_topics
    assert sizes.max() - sizes.min() <= 1  # near-equal folds
    assert np.array_equal(f, topic_folds(n_topics, n_folds, seed))  # seeded


def test_bad_folds_are_named():
    for bad in (1, 0, 2.5, True):
        with pytest.raises(IRStabError, match="folds"):
            topic_folds(10, bad)


def test_held_out_columns_are_the_fold_configurations_scores(small):
    res = optimize(small, 5, vary="joint", starts=0)
    cf = cross_fit(small, "joint", (5,), res, folds=3, seed=2)[5]
    whole = Scenario(small, 5)
    for f in range(cf.n_folds):
        cols = np.flatnonzero(cf.folds == f)
        want = whole.ndcg(cf.gains[f], cf.discounts[f])[:, cols]
        assert np.array_equal(cf.scores[:, cols], want)
    assert np.all((cf.scores >= 0) & (cf.scores <= 1 + 1e-12))


def test_a_fold_configuration_never_sees_its_own_topics(small):
    # Wipe the grades of fold 0's topics: fold 0's configuration, fitted on the other folds,
    # must be the same to the last bit; a fold whose training set held those topics changes.
    res = optimize(small, 5, vary="discount", starts=0)
    a = cross_fit(small, "discount", (5,), res, folds=3, seed=4)[5]
    wiped = np.flatnonzero(a.folds == 0)
    grades = small.grades.copy()
    grades[:, wiped, :] = 0
    other = dataclasses.replace(small, grades=grades)
    b = cross_fit(other, "discount", (5,), res, folds=3, seed=4)[5]
    assert np.array_equal(a.discounts[0], b.discounts[0])
    assert not all(np.array_equal(a.discounts[f], b.discounts[f]) for f in (1, 2))


def test_minimax_gives_one_cross_fit_per_cutoff(small):
    mm = minimax(scenarios_by_cutoff(small, [3, 6]), vary="discount", starts=0)
    fits = cross_fit(small, "minimax", (3, 6), mm, folds=3)
    assert sorted(fits) == [3, 6]
    assert all(len(d) == 3 for d in fits[3].discounts)  # each fold's discount cut at 3
    assert np.array_equal(fits[3].folds, fits[6].folds)


def test_bad_problems_are_named(small):
    res = optimize(small, 5, vary="gain", starts=0)
    with pytest.raises(IRStabError, match="kind"):
        cross_fit(small, "pareto", (5,), res)
    with pytest.raises(IRStabError, match="kind"):
        cross_fit(small, "gain", (5, 10), res)
