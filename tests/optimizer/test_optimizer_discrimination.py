"""The discrimination objective: a smooth share of significant system pairs.

Oracles: central finite differences for the analytic gradient; scipy.stats.ttest_rel
(the paired t test) for the limit of a vanishing step width; closed forms for the
degenerate pairs; Sakai's bootstrap ASL (irstab.compare.discriminative_power, tested
against a per-pair loop of his algorithm) for what the surrogate is meant to raise.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optimizer_data import small_collection

from irstab.optimizer import Problem, Scenario, optimize, pareto
from irstab.optimizer.discrimination import (
    critical_value,
    discrimination_and_gradient,
    discrimination_batch,
)
from irstab.optimizer.objectives import objective_and_gradient
from irstab.optimizer.scenario import discount_vector


def matrix(seed, s=7, t=10):
    rng = np.random.default_rng(seed)
    return rng.random((s, 1)) * 0.4 + rng.random((s, t)) * 0.5 + rng.random((1, t)) * 0.3


def central_differences(f, x, eps=1e-6):
    fd = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):  # test oracle: one cell at a time
        e = np.zeros_like(x)
        e[idx] = eps
        fd[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return fd


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_matches_finite_differences(seed):
    x = matrix(seed)
    value, grad = discrimination_and_gradient(x)
    fd = central_differences(lambda z: discrimination_and_gradient(z)[0], x)
    assert 0 < value < 1
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-7 * max(1.0, np.abs(fd).max()))


def test_vanishing_width_counts_the_paired_t_tests():
    from scipy.stats import ttest_rel

    x = matrix(5, s=9, t=12)
    pairs = [(a, b) for a in range(9) for b in range(a + 1, 9)]
    p = np.array([ttest_rel(x[a], x[b]).pvalue for a, b in pairs])
    t = np.array([abs(ttest_rel(x[a], x[b]).statistic) for a, b in pairs])
    c = critical_value(12)
    assert np.min(np.abs(t - c)) > 1e-3  # no pair sits on the step
    value, _ = discrimination_and_gradient(x, tau=1e-6)
    assert value == pytest.approx(np.mean(p < 0.05), abs=1e-12)
    # c is Student's t quantile: scipy.stats.t.ppf(0.975, 11)
    from scipy.stats import t as student

    assert c == pytest.approx(student.ppf(0.975, 11), rel=1e-12)


def test_degenerate_pairs():
    base = np.array([0.2, 0.5, 0.3, 0.9])
    # identical systems: never separated; a constant non-zero shift: always separated
    assert discrimination_and_gradient(np.stack([base, base]))[0] == 0.0
    v, g = discrimination_and_gradient(np.stack([base, base + 0.1]))
    assert v == 1.0 and not g.any()


@pytest.mark.filterwarnings("ignore:.*identical scores on every topic")
def test_rounding_noise_is_no_separation_on_dl2019(dl2019):
    # issue 26, item 8b: under a flat discount at k = 20 two DL-2019 pairs tie on every
    # topic but differ by ~1e-16; the surrogate counted them as separated. With a vanishing
    # step width it must count exactly the pairs the paired t tests call significant
    # (irstab.compare.paired_t_tests, which treats those pairs as identical, p = 1).
    from irstab.compare import paired_t_tests
    from irstab.metrics import parse_measure

    x = parse_measure("nDCG(discount=flat)@20").compute(dl2019)
    systems = list(dl2019.systems)
    for a, b in (("ICT-BERT2", "ICT-CKNRM_B"), ("TUA1-1", "test1")):
        d = x[systems.index(a)] - x[systems.index(b)]
        assert 0 < np.abs(d).max() < 1e-12  # rounding noise, not a difference
    tests = paired_t_tests({"m": x}, correction="none")
    value, grad = discrimination_and_gradient(x, tau=1e-6)
    assert value == pytest.approx(np.mean(tests.p_values[0] < 0.05), abs=1e-12)
    assert discrimination_batch(x, tau=1e-6) == pytest.approx(value, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(3, 8))
def test_batch_equals_single_and_stays_in_unit_interval(seed, s, t):
    x = np.random.default_rng(seed).random((3, s, t))
    batch = discrimination_batch(x)
    single = [discrimination_and_gradient(m)[0] for m in x]
    np.testing.assert_allclose(batch, single, rtol=0, atol=1e-14)
    assert np.all((batch >= 0) & (batch <= 1))


def test_objective_registry_dispatches():
    x = matrix(3)
    assert objective_and_gradient(x, "discrimination")[0] == discrimination_and_gradient(x)[0]


def test_problem_jacobian_matches_finite_differences(small):
    p = Problem.build([Scenario(small, 10, objective="discrimination")], vary="joint")
    y = p.param.variables(np.array([0.0, 1, 2, 4]), discount_vector("log2", 10))
    _, jac = p.values_and_jac(y)
    fd = central_differences(lambda z: p.values(z)[0], y)
    np.testing.assert_allclose(jac[0], fd, rtol=0, atol=1e-6)


@pytest.fixture(scope="module")
def disc_result():
    return optimize(small_collection(), 10, objective="discrimination", starts=2)


def test_optimum_beats_the_presets_and_matches_the_kernel(disc_result):
    res = disc_result
    assert res.objective == "discrimination"
    # the figures come from the evaluate kernel: same value as the optimizer's
    assert res.primary.optimum.discrimination == pytest.approx(res.value, abs=1e-9)
    linear = [p.discrimination for p in res.presets if p.gain == "linear"]
    assert res.value >= max(linear) - 1e-12
    assert np.isfinite(res.phi1)  # Phi reported beside it
    assert res.to_dict()["presets"][0]["discrimination"] == res.presets[0].discrimination


def test_pareto_between_discrimination_and_phi(small):
    front = pareto(Scenario(small, 10, objective="discrimination"), Scenario(small, 10),
                   points=3, starts=0)
    assert front.first_name == "discrimination @10" and front.second_name == "Phi1 @10"
    first = [p.first for p in front.points]
    second = [p.second for p in front.points]
    # epsilon falls along the sweep: Phi falls, discrimination rises (never dominated)
    assert second[0] >= second[-1] and first[0] <= first[-1] + 1e-9
    for p in front.points:
        assert p.second >= p.epsilon - 1e-6


@pytest.mark.filterwarnings("ignore:.*identical scores on every topic")  # flat@20 ties 2 pairs
def test_more_significant_pairs_than_the_best_preset_on_dl2019(dl2019):
    """Fast version of the study's validation (docs/dl2019-study.md: 12 seeds).

    nDCG@20, linear gains, all 37 systems (666 pairs), Sakai's bootstrap B = 1000 on
    3 seeds: the discrimination-optimal discount separates at least as many pairs at
    ASL < 0.05 as the best of the 8 presets (measured 513 vs 508, best preset
    linear gain + linear discount).
    """
    from irstab.compare import discriminative_power
    from irstab.metrics import parse_measure
    from irstab.optimizer.stats import preset_measures

    res = optimize(dl2019, 20, objective="discrimination", starts=0)
    mats = {"optimum": parse_measure(res.measure_string).compute(dl2019)}
    for text, _, _ in preset_measures(20):
        mats[text] = parse_measure(text).compute(dl2019)
    counts = np.mean(
        [discriminative_power(mats, n_bootstrap=1000, seed=s).n_significant for s in range(3)],
        axis=0,
    )
    assert counts[0] >= counts[1:].max(), dict(zip(mats, counts))
    assert 0.1 < res.phi1 < 0.3  # its Phi(1), reported beside it (measured 0.2024)


def test_blocks_of_pairs_give_the_same_value_to_the_last_bit(monkeypatch):
    # oracle: the same function on all pairs at once (the block size is above 12 x 40 x 11)
    import irstab.optimizer.discrimination as disc

    x = matrix(3, s=12, t=40)
    x[4] = x[2]  # a tie and a constant shift: the degenerate pairs go through the blocks too
    x[5] = x[2] + 0.25
    whole = discrimination_batch(x)
    monkeypatch.setattr(disc, "_CHUNK", 7 * 40)  # 66 pairs in blocks of 7
    assert discrimination_batch(x) == whole
    monkeypatch.setattr(disc, "_CHUNK", 1)  # one pair at a time
    assert discrimination_batch(x) == whole
    assert discrimination_and_gradient(x)[0] == pytest.approx(whole, abs=1e-14)
