"""Agreement and its bootstrap: side scores equal irstab.evaluate, bootstrap replicates equal
the statistic on the materialised resample, the aggregated bias refits equal the weighted fit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.preferences.agreement import (
    _bias_replicates,
    bootstrap_weights,
    preference_agreement,
)
from irstab.preferences.bias import bias_scores, logistic_quadratic
from irstab.preferences.comparisons import ScoredComparisons, agreement_rate
from irstab.preferences.read import read_preferences

MEASURES = ["nDCG@10", "nDCG(gain=exp,discount=zipf)@5", "AP", "P@5", "RR", "RBP(p=0.8)",
            "ERR@10"]


def test_side_scores_equal_irstab_evaluate(tmp_path):
    # oracle: irstab.evaluate of the same runs (itself equal to trec_eval, tests/test_trec_eval_oracle.py)
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 z 3\n2 0 a 1\n2 0 d 2\n2 0 e 3\n")
    runs = {"r1": "1 Q0 a 1 9 r1\n1 Q0 c 2 8 r1\n1 Q0 x 3 7 r1\n2 Q0 e 1 5 r1\n2 Q0 a 2 4 r1\n",
            "r2": "1 Q0 z 1 9 r2\n1 Q0 b 2 8 r2\n2 Q0 d 1 3 r2\n2 Q0 y 2 2 r2\n2 Q0 e 3 1 r2\n",
            "r3": "1 Q0 c 1 1 r3\n2 Q0 a 1 1 r3\n"}
    paths = []
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
        paths.append(tmp_path / name)
    prefs = tmp_path / "prefs.csv"
    pairs = [("1", "r1", "r2"), ("1", "r3", "r1"), ("2", "r1", "r2"), ("2", "r2", "r3")]
    prefs.write_text("topic,run_a,run_b,preferred\n" + "".join(
        f"{t},{a},{b},A\n" for t, a, b in pairs))
    scored = read_preferences(prefs, qrels, paths, measures=MEASURES)
    table = irstab.evaluate(qrels, paths, MEASURES, per_topic=True)
    for i, (topic, a, b) in enumerate(pairs):
        for j, m in enumerate(scored.measures):
            for s, run in enumerate((a, b)):
                want = table[(table["run"] == run) & (table["topic"] == topic)
                             & (table["measure"] == m)]["value"]
                assert scored.scores[i, j, s] == pytest.approx(float(want.iloc[0]), abs=1e-12), \
                    (topic, run, m)


@st.composite
def _scored(draw):
    n = draw(st.integers(4, 30))
    topics = np.array([f"t{draw(st.integers(0, 5))}" for _ in range(n)])
    judges = np.array([f"u{draw(st.integers(0, 3))}" for _ in range(n)])
    values = draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9]), min_size=2 * n * 2,
                           max_size=2 * n * 2))
    pref = np.array(draw(st.lists(st.sampled_from([1, -1, 0]), min_size=n, max_size=n)), np.int8)
    return ScoredComparisons(topics, pref, ("m1", "m2"), np.array(values).reshape(n, 2, 2),
                             judge=judges)


@settings(max_examples=40, deadline=None)
@given(_scored(), st.integers(0, 2**16))
def test_bootstrap_rates_equal_the_rate_of_the_materialised_resample(scored, seed):
    w = bootstrap_weights(scored.topic, scored.judge, n_boot=5, seed=seed)
    # a comparison's weight is its topic's draws times its judge's draws
    diff = scored.scores[:, :, 0] - scored.scores[:, :, 1]
    for b in range(w.shape[0]):
        rows = np.repeat(np.arange(scored.n), w[b].astype(int))
        want = agreement_rate(diff[rows], scored.preferred[rows]) if rows.size else \
            np.full(2, np.nan)
        sign = np.sign(np.where(np.abs(diff) <= 1e-12, 0, diff))
        judged = scored.preferred[:, None] != 0
        agree = (judged & (sign == scored.preferred[:, None])).astype(float)
        count = (judged & (sign != 0)).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            got = (w[b] @ agree) / (w[b] @ count)
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


def test_bootstrap_weights_resample_topics_and_judges():
    topic = np.array(["a", "a", "b", "c"])
    # topics a, a, b, b crossed with judges u, v, u, v: w = T[topic] * J[judge], so
    # w(a,u) w(b,v) = w(a,v) w(b,u) in every replicate, and the judges' draws vary
    w = bootstrap_weights(np.array(["a", "a", "b", "b"]), np.array(["u", "v", "u", "v"]),
                          n_boot=200, seed=1)
    assert w.shape == (200, 4) and (w >= 0).all()
    assert (w[:, 0] * w[:, 3] == w[:, 1] * w[:, 2]).all()
    assert (w[:, 0] != w[:, 1]).any()
    only_topics = bootstrap_weights(topic, None, n_boot=200, seed=1)
    # rows of one topic carry the same weight; the topic draws sum to 3 per replicate
    assert (only_topics[:, 0] == only_topics[:, 1]).all()
    assert (only_topics[:, [0, 2, 3]].sum(axis=1) == 3).all()
    assert not (only_topics == only_topics[0]).all()


def test_aggregated_bias_refits_equal_the_weighted_fit():
    # the bootstrap refits the curves on distinct (value, outcome) pairs with summed weights:
    # the same likelihood as the weighted rows, so the same maximum (to the IRLS tolerance)
    rng = np.random.default_rng(4)
    n = 300
    a = np.round(rng.uniform(0, 1, n), 2)
    b = np.round(rng.uniform(0, 1, n), 2)
    p = 1 / (1 + np.exp(-4 * (a - b)))
    pref = np.where(rng.uniform(size=n) < p, 1, -1).astype(np.int8)
    pref[rng.uniform(size=n) < 0.3] = 0
    sat = np.where(pref == 0, (rng.uniform(size=n) < (a + b) / 2).astype(np.int8), -1)
    scored = ScoredComparisons(np.array([f"t{i % 40}" for i in range(n)]), pref, ("m",),
                               np.stack([a, b], axis=1)[:, None, :], satisfied=sat)
    w = bootstrap_weights(scored.topic, None, n_boot=6, seed=2)
    aggregated = _bias_replicates(scored, w, 1e-12)
    weighted = bias_scores(scored, weights=w)
    np.testing.assert_allclose(aggregated, weighted, rtol=0, atol=1e-7)


def test_logistic_fit_recovers_a_known_curve():
    # a large sample from logit^-1(-1 + 2x + x^2): the fitted curve is near it
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 200_000)
    y = (rng.uniform(size=x.size) < 1 / (1 + np.exp(-(-1 + 2 * x + x * x)))).astype(float)
    grid = np.array([0.0, 0.5, 1.0])
    want = 1 / (1 + np.exp(-(-1 + 2 * grid + grid ** 2)))
    np.testing.assert_allclose(logistic_quadratic(x, y, grid=grid), want, atol=0.01)


def test_agreement_result_is_complete():
    rng = np.random.default_rng(5)
    n = 200
    a, b = rng.uniform(size=n), rng.uniform(size=n)
    pref = np.where(a > b, 1, -1).astype(np.int8)
    pref[:20] *= -1
    scored = ScoredComparisons(np.array([f"t{i % 25}" for i in range(n)]), pref, ("m",),
                               np.stack([a, b], axis=1)[:, None, :])
    r = preference_agreement(scored, n_boot=100, seed=3)
    assert r.rate[0] == pytest.approx(180 / 200)
    assert r.rate_low[0] <= r.rate[0] <= r.rate_high[0]
    assert np.isnan(r.bias[0, 0]) and np.isfinite(r.bias[2, 0])  # no satisfaction answers
    d = r.to_dict()
    assert d["best"] == "m" and d["anova"] == [] and d["measures"][0]["agree"] == 180


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(30, 300))
def test_logistic_fit_equals_statsmodels_glm(seed, n):
    # oracle: statsmodels' GLM (binomial family, its own IRLS) on the raw basis 1, x, x^2
    import statsmodels.api as sm

    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 1, n), 2)
    y = (rng.uniform(size=n) < 0.2 + 0.6 * x).astype(float)
    w = rng.integers(1, 4, n).astype(float)
    design = np.column_stack([np.ones(n), x, x * x])
    try:
        fit = sm.GLM(y, design, family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-12)
    except Exception:  # separation: statsmodels fails too; nothing to compare
        return
    grid = np.linspace(0, 1, 11)
    want = fit.predict(np.column_stack([np.ones(11), grid, grid * grid]))
    got = logistic_quadratic(x, y, w, grid=grid, strict=False)
    if np.isnan(got).any():
        return
    np.testing.assert_allclose(got, want, atol=1e-7)
