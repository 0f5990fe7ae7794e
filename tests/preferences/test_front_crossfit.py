"""The front judged on held-out topics (irstab.preferences.front_crossfit).

Oracles: a spy on the front tracer records what each fold was traced on (never a held-out
topic, of the collection or of the preferences); the cross-fitted figures recomputed from the
fold configurations (Phi at one topic of the assembled held-out score matrix through the
optimizer's Scenario; agreement through AgreementForms); flipping the held-out fold's
preferences leaves its configurations the same to the last bit. Preferences are SIMULATED.
"""

from __future__ import annotations

import numpy as np
import pytest
from pref_data import Comps, simulated_users, small_collection

from irstab.errors import IRStabError
from irstab.optimizer.scenario import Scenario
from irstab.preferences import front_crossfit as fcmod
from irstab.preferences.fit import AgreementForms
from irstab.preferences.front_crossfit import cross_fit_front

OPTS = {"folds": 3, "points": 3, "starts": 0}


@pytest.fixture(scope="module")
def coll():
    return small_collection()


@pytest.fixture(scope="module")
def prefs(coll):
    return simulated_users(coll, cutoff=5, per_topic=8, topics=range(8))


@pytest.fixture(scope="module")
def cf(coll, prefs):
    return cross_fit_front(coll, prefs, 5, **OPTS)


def test_folds_never_trace_on_their_own_topics(coll, prefs, monkeypatch):
    calls = []
    real = fcmod.agreement_front

    def spy(collection, comparisons, cutoff, **kw):
        calls.append((kw.get("topics"), set(np.asarray(comparisons.topic).tolist())))
        return real(collection, comparisons, cutoff, **kw)

    monkeypatch.setattr(fcmod, "agreement_front", spy)
    cf = cross_fit_front(coll, prefs, 5, **OPTS)
    ids = np.asarray(coll.topics, dtype=str)
    assert calls[0][0] is None and len(calls) == 1 + cf.n_folds
    for f, (train_idx, train_pref) in enumerate(calls[1:]):
        held = set(ids[cf.topic_folds == f].tolist())
        assert not set(ids[train_idx].tolist()) & held
        assert not train_pref & held
        assert set(ids[train_idx].tolist()) | held == set(ids.tolist())


def test_cross_fitted_figures_are_the_fold_configurations(coll, prefs, cf):
    scenario = Scenario(coll, 5)
    forms = AgreementForms(prefs.topic, prefs.preferred, prefs.grades_a, prefs.grades_b,
                           cutoff=5, max_grade=coll.max_grade)
    ids = np.asarray(coll.topics, dtype=str)
    fold_of_id = dict(zip(ids.tolist(), cf.topic_folds.tolist()))
    pref_fold = np.array([fold_of_id[t] for t in forms.topic.tolist()])
    for j in range(len(cf.labels)):
        x = np.zeros((coll.n_systems, coll.n_topics))
        out = np.zeros(forms.n, dtype=np.int8)
        for f, per_position in enumerate(cf.configs):
            g, d = per_position[j]
            cols = cf.topic_folds == f
            x[:, cols] = scenario.ndcg(g, d)[:, cols]
            out[pref_fold == f] = forms.subset(pref_fold == f).outcomes(g, d)
        assert cf.phi[j] == pytest.approx(scenario.stability(x)[0], abs=1e-12)
        assert cf.agreement[j].agree == int((out > 0).sum())
        assert cf.agreement[j].tie == int((out == 0).sum())
    assert cf.labels[0] == "most stable" and cf.labels[-1] == "most agreeing"


def test_flipping_a_held_out_fold_leaves_its_configurations(coll, prefs, cf):
    ids = np.asarray(coll.topics, dtype=str)
    held = set(ids[cf.topic_folds == 0].tolist())
    flip = np.isin(prefs.topic, list(held))
    flipped = Comps(prefs.topic, np.where(flip, -prefs.preferred, prefs.preferred).astype(np.int8),
                    prefs.grades_a, prefs.grades_b)
    cf2 = cross_fit_front(coll, flipped, 5, **OPTS)
    for (g1, d1), (g2, d2) in zip(cf.configs[0], cf2.configs[0]):
        assert np.array_equal(g1, g2) and np.array_equal(d1, d2)


def test_too_many_folds_are_named(coll, prefs):
    with pytest.raises(IRStabError, match="folds"):
        cross_fit_front(coll, prefs, 5, folds=1, points=2, starts=0)
