"""The gain and discount that agree best with preferences (irstab.preferences.fit).

Oracles: the surrogate's gradient against its closed form for one comparison (written here)
and against central differences; the exact agreement against a brute-force count (a Python
loop over ranks, written here); the optimum against every preset on its own training
comparisons (the acceptance rule of issue 43); cross-fitting against a spy that records what
each fold was fitted on, and against flipping the held-out fold's preferences. All
preferences are simulated or random (tests/preferences/pref_data.py), none real.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pref_data import Comps, random_comparisons, simulated_users, small_collection

from irstab.errors import IRStabError
from irstab.optimizer.scenario import discount_vector, gain_vector
from irstab.preferences import fit as fitmod
from irstab.preferences.fit import (TIE_RULES, AgreementForms, AgreementProblem, cross_fit_agreement,
                                    fit_agreement, fit_agreement_arrays, parametrisation,
                                    preset_names, sign_agreement)

FAST = {"starts": 0, "taus": (4.0, 16.0)}


@pytest.fixture(scope="module")
def users():
    return simulated_users(small_collection(), cutoff=5, per_topic=12)


def brute_dcg(grades, gain, discount):
    out = 0.0
    for r, j in enumerate(grades[: len(discount)]):
        if j > 0:
            out += gain[j] * discount[r]
    return out


def test_gradient_closed_form_one_comparison():
    # A: grade 1 at rank 1; B: grade 1 at rank 2. r = (d1 - d2)/(d1 + d2), S = sigma(tau r),
    # dS/dd1 = tau s(1-s) 2 d2/(d1+d2)^2, dS/dd2 = -tau s(1-s) 2 d1/(d1+d2)^2, dS/dg = 0
    # (r does not depend on the gain of grade 1, the only grade present).
    forms = AgreementForms(["t"], [1], np.array([[1, 0]]), np.array([[0, 1]]))
    tau, d = 3.0, np.array([0.7, 0.3])
    value, gg, gd = forms.surrogate(np.array([0.0, 1.0]), d, tau)
    r = (0.7 - 0.3) / 1.0
    s = 1 / (1 + np.exp(-tau * r))
    assert value == pytest.approx(s, abs=1e-15)
    assert gd == pytest.approx([tau * s * (1 - s) * 2 * 0.3, -tau * s * (1 - s) * 2 * 0.7],
                               abs=1e-14)
    assert gg == pytest.approx([0.0, 0.0], abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(0.5, 30.0))
def test_gradient_matches_central_differences(seed, tau):
    c = random_comparisons(seed, n=25)
    forms = AgreementForms(c.topic, c.preferred, c.grades_a, c.grades_b, max_grade=3)
    rng = np.random.default_rng(seed)
    g = np.r_[0.0, rng.uniform(0.1, 1.0, 3)]
    d = rng.uniform(0.1, 1.0, forms.cutoff)
    _, gg, gd = forms.surrogate(g, d, tau)
    h = 1e-6
    for vec, grad, start in ((g, gg, 1), (d, gd, 0)):
        for i in range(start, len(vec)):
            up, dn = vec.copy(), vec.copy()
            up[i] += h
            dn[i] -= h
            args_up = (up, d) if vec is g else (g, up)
            args_dn = (dn, d) if vec is g else (g, dn)
            num = (forms.surrogate(*args_up, tau, grad=False)[0]
                   - forms.surrogate(*args_dn, tau, grad=False)[0]) / (2 * h)
            assert grad[i] == pytest.approx(num, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 5))
def test_exact_agreement_equals_a_brute_force_count(seed, k):
    c = random_comparisons(seed, n=30)
    rng = np.random.default_rng(seed + 1)
    g = np.r_[0.0, np.sort(rng.integers(0, 4, 3)).astype(float)]  # integer gains: exact sums
    d = np.sort(rng.integers(0, 5, k).astype(float))[::-1]
    if g.sum() == 0 or d.sum() == 0:
        g, d = np.array([0.0, 1, 2, 3]), np.ones(k)
    forms = AgreementForms(c.topic, c.preferred, c.grades_a, c.grades_b, cutoff=k, max_grade=3)
    agree = tie = disagree = 0
    for i in range(len(c.topic)):
        if c.preferred[i] == 0:
            continue
        a, b = brute_dcg(c.grades_a[i], g, d), brute_dcg(c.grades_b[i], g, d)
        if a == b:
            tie += 1
        elif (a > b) == (c.preferred[i] > 0):
            agree += 1
        else:
            disagree += 1
    got = forms.agreement(g, d)
    assert (got.agree, got.tie, got.disagree) == (agree, tie, disagree)
    if agree + disagree:  # Sanderson et al.: ties of the measure left out
        assert got.rate == agree / (agree + disagree)
    assert got.half_rate == (agree + tie / 2) / (agree + tie + disagree)
    assert got.disagree_rate == agree / (agree + tie + disagree)  # a tie disagrees (b3)
    a = [brute_dcg(x, g, d) for x in c.grades_a]
    b = [brute_dcg(x, g, d) for x in c.grades_b]
    assert sign_agreement(a, b, c.preferred) == got


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(0.1, 100.0), st.floats(0.1, 100.0))
def test_surrogate_is_scale_free_and_symmetric(seed, cg, cd):
    # nDCG's sign is unchanged by scaling g or d; swapping the sides and the preference is the
    # same comparison. A tie (identical sides) is worth exactly 1/2.
    c = random_comparisons(seed, n=20)
    forms = AgreementForms(c.topic, c.preferred, c.grades_a, c.grades_b, max_grade=3)
    swapped = AgreementForms(c.topic, -c.preferred, c.grades_b, c.grades_a, max_grade=3)
    g, d = np.array([0.0, 1.0, 3.0, 7.0]), 1 / np.log2(np.arange(2, 7))
    s = forms.surrogate(g, d, 8.0, grad=False)[0]
    assert forms.surrogate(cg * g, cd * d, 8.0, grad=False)[0] == pytest.approx(s, rel=1e-12)
    assert swapped.surrogate(g, d, 8.0, grad=False)[0] == pytest.approx(s, rel=1e-12)
    assert swapped.agreement(g, d) == forms.agreement(g, d)
    same = AgreementForms(c.topic, np.where(c.preferred == 0, 1, c.preferred), c.grades_a,
                          c.grades_a, max_grade=3)
    assert same.surrogate(g, d, 8.0, grad=False)[0] == 0.5
    assert same.agreement(g, d).half_rate == 0.5
    assert np.isnan(same.agreement(g, d).rate)  # Sanderson's rule: nothing separated


def test_the_sanderson_rate_rewards_ties_and_the_half_rate_does_not():
    # Two comparisons: A agrees, B disagrees under a measure that separates both (rate 1/2);
    # a measure that ties the second has Sanderson rate 1 but half rate 3/4 < 1.
    from irstab.preferences.fit import Agreement

    separates, abstains = Agreement(1, 0, 1), Agreement(1, 1, 0)
    assert abstains.rate > separates.rate == 0.5
    assert abstains.half_rate == 0.75 and separates.half_rate == 0.5
    assert abstains.key("exclude") == (1.0, 0.75) and abstains.key("half") == (0.75, 1.0)


def test_problem_has_the_solvers_interface():
    c = random_comparisons(1)
    forms = AgreementForms(c.topic, c.preferred, c.grades_a, c.grades_b)
    param = parametrisation(forms)
    prob = AgreementProblem(forms, param, 8.0)
    y = param.variables(gain_vector("exp", 3), discount_vector("log2", 5))
    v, jac = prob.values_and_jac(y)
    assert jac.shape == (1, param.n_vars) and prob.values(y)[0] == v[0]


def _check_beats_presets(fit, forms):
    for name, g_name, d_name in preset_names(forms.cutoff):
        preset = forms.agreement(gain_vector(g_name, forms.max_grade),
                                 discount_vector(d_name, forms.cutoff))
        assert fit.agreement.key(fit.ties)[0] >= preset.key(fit.ties)[0], (name, fit.ties)
    assert fit.agreement == forms.agreement(np.asarray(fit.gain), np.asarray(fit.discount))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(TIE_RULES))
def test_optimum_agrees_at_least_as_often_as_every_preset(seed, ties):
    c = random_comparisons(seed, n=30)
    fit = fit_agreement(c, ties=ties, **FAST)
    assert fit.ties == ties
    forms = AgreementForms(c.topic, c.preferred, c.grades_a, c.grades_b)
    _check_beats_presets(fit, forms)
    assert len(fit.presets) == 8
    g, d = np.asarray(fit.gain), np.asarray(fit.discount)
    assert np.all(np.diff(g) >= -1e-12) and np.all(np.diff(d) <= 1e-12)  # monotone


@pytest.mark.parametrize("ties", TIE_RULES)
def test_optimum_on_simulated_users_and_each_training_fold(users, ties):
    cf = cross_fit_agreement(users, folds=3, ties=ties, **FAST)
    forms = AgreementForms(users.topic, users.preferred, users.grades_a, users.grades_b)
    _check_beats_presets(cf.optimum, forms)
    for f, fit in enumerate(cf.fold_fits):  # on each fold's training comparisons
        _check_beats_presets(fit, forms.subset(cf.folds != f))
    assert cf.optimum.agreement.value(ties) > 0.5  # the simulated user is not a coin
    rows = cf.to_frame()
    assert list(rows["kind"][:2]) == ["optimised (in sample)", "optimised (cross-fitted, 3 folds)"]


def test_held_out_outcomes_are_the_fold_configurations(users):
    cf = cross_fit_agreement(users, folds=3, **FAST)
    forms = AgreementForms(users.topic, users.preferred, users.grades_a, users.grades_b)
    for f, fit in enumerate(cf.fold_fits):
        held = cf.folds == f
        want = forms.subset(held).outcomes(np.asarray(fit.gain), np.asarray(fit.discount))
        assert np.array_equal(cf.outcomes[held], want)
    assert cf.cross_fitted.n == forms.n
    assert cf.cross_fitted.agree == int((cf.outcomes > 0).sum())


def test_a_fold_is_never_fitted_on_its_own_topics(users, monkeypatch):
    seen = []
    real = fitmod._fit

    def spy(forms, **kw):
        seen.append(set(forms.topic.tolist()))
        return real(forms, **kw)

    monkeypatch.setattr(fitmod, "_fit", spy)
    cf = cross_fit_agreement(users, folds=3, **FAST)
    forms = AgreementForms(users.topic, users.preferred, users.grades_a, users.grades_b)
    assert len(seen) == 1 + cf.n_folds  # all topics, then one fit per fold
    for f in range(cf.n_folds):
        held = set(forms.topic[cf.folds == f].tolist())
        assert held and not (seen[1 + f] & held)
        assert seen[1 + f] | held == seen[0]


def test_flipping_a_folds_preferences_leaves_its_configuration(users):
    # Fold 0's configuration is fitted without fold 0: reversing every preference of fold 0's
    # topics must leave it the same to the last bit (and change fold 0's held-out outcomes).
    cf = cross_fit_agreement(users, folds=3, **FAST)
    keep = users.preferred != 0
    held_topics = set(users.topic[keep][cf.folds == 0].tolist())
    flip = np.isin(users.topic, list(held_topics))
    flipped = Comps(users.topic, np.where(flip, -users.preferred, users.preferred).astype(np.int8),
                    users.grades_a, users.grades_b)
    cf2 = cross_fit_agreement(flipped, folds=3, **FAST)
    assert np.array_equal(cf2.folds, cf.folds)
    assert cf2.fold_fits[0].gain == cf.fold_fits[0].gain
    assert cf2.fold_fits[0].discount == cf.fold_fits[0].discount
    held = cf.folds == 0
    assert np.array_equal(cf2.outcomes[held], -cf.outcomes[held])


def test_bad_arguments_are_named():
    c = random_comparisons(2)
    with pytest.raises(IRStabError, match="cutoff"):
        fit_agreement(c, cutoff=9)
    with pytest.raises(IRStabError, match="preferred"):
        fit_agreement_arrays(c.topic, np.full(len(c.topic), 2), c.grades_a, c.grades_b)
    with pytest.raises(IRStabError, match="preferred: no comparison"):
        fit_agreement_arrays(c.topic, np.zeros(len(c.topic), int), c.grades_a, c.grades_b)
    with pytest.raises(IRStabError, match="max_grade"):
        fit_agreement(c, max_grade=2)
    with pytest.raises(IRStabError, match="grades_a"):
        fit_agreement_arrays(c.topic, c.preferred, c.grades_a[:3], c.grades_b)
    with pytest.raises(IRStabError, match="taus"):
        fit_agreement(c, taus=(0.0,))
    with pytest.raises(IRStabError, match="ties"):
        fit_agreement(c, ties="kendall")
    with pytest.raises(IRStabError, match="comparisons"):
        fit_agreement(object())
    with pytest.raises(IRStabError, match="folds"):
        cross_fit_agreement(c, folds=1)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_surrogate_tends_to_the_half_rate(seed):
    # sigma(tau p r) -> 1, 0 or 1/2 as p r > 0, < 0 or = 0: at a huge temperature the surrogate
    # is the exact rate with a tie counting half (integer gains and discounts: exact ties).
    c = random_comparisons(seed, n=30)
    forms = AgreementForms(c.topic, c.preferred, c.grades_a, c.grades_b, max_grade=3)
    g, d = np.array([0.0, 1.0, 2.0, 5.0]), np.array([5.0, 4.0, 2.0, 2.0, 1.0])
    assert forms.surrogate(g, d, 1e12, grad=False)[0] == pytest.approx(
        forms.agreement(g, d).half_rate, abs=1e-12)


def test_problem_jacobian_by_the_solvers_variables():
    # the chain rule to the simplex coordinates y (the optimizer's Parametrisation) against
    # central differences in y
    c = random_comparisons(5, n=30)
    forms = AgreementForms(c.topic, c.preferred, c.grades_a, c.grades_b)
    param = parametrisation(forms)
    prob = AgreementProblem(forms, param, 6.0)
    y = param.random(np.random.default_rng(1), "dirichlet-1")
    _, jac = prob.values_and_jac(y)
    h = 1e-7
    for i in range(len(y)):
        up, dn = y.copy(), y.copy()
        up[i] += h
        dn[i] -= h
        num = (prob.values(up)[0] - prob.values(dn)[0]) / (2 * h)
        assert jac[0, i] == pytest.approx(num, abs=1e-6)
