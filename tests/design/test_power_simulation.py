"""Simulation check: the recommended topic count gives the promised power on real data.

DL-2019 nDCG@10 (37 runs x 43 topics): sigma2 = V_E and the paired t-test's topic count for
a minimum detectable difference D = 0.05 at alpha 0.05, power 0.80 (133 topics). Each
simulated experiment takes a random pair of runs, draws that many topics with replacement,
and tests per-topic differences D + c (e_it - e_jt), where e are the residuals of the
systems x topics ANOVA and c = sqrt(t / (t - 1)) makes the mean variance of a pair's
differences 2 V_E (their sum over pairs is s SS_res). So the data keep DL-2019's residual
distribution, its pair-to-pair differences in variance and its non-normality; only the
effect is planted.

Monte-Carlo error: R = 10000 experiments, standard error sqrt(0.8 x 0.2 / 10000) = 0.004;
the test allows 2.58 standard errors (0.0103, a 99 % band). Under D = 0 the rejection rate
is the level, 0.05 +- 2.58 x 0.0022. (Over 30 seeds the level's spread is the binomial one,
0.0031 at R = 4000, and 40000 experiments give power 0.7987 and level 0.0522.)
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from irstab.design import residual_variance, ttest_topics
from irstab.evaluation import score_matrix

R = 10_000
SE_POWER = math.sqrt(0.8 * 0.2 / R)
SE_LEVEL = math.sqrt(0.05 * 0.95 / R)


def _rejections(E, n, diff, rng):
    s, t = E.shape
    c = math.sqrt(t / (t - 1))
    i = rng.integers(0, s, R)
    j = (i + rng.integers(1, s, R)) % s  # a different run
    tops = rng.integers(0, t, (R, n))
    rows = np.arange(R)[:, None]
    d = diff + c * (E[i][rows, tops] - E[j][rows, tops])
    tt = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    return (2 * stats.t.sf(np.abs(tt), n - 1) < 0.05).mean()


def test_recommended_topics_reach_the_target_power_on_dl2019(dl2019):
    x = score_matrix(dl2019, "nDCG@10").to_numpy()
    v = residual_variance(x)
    n = int(ttest_topics(0.05, v.var_diff, 0.05, 0.20))
    assert 100 < n < 200  # 133 on DL-2019
    E = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    rng = np.random.default_rng(2025)
    power = _rejections(E, n, 0.05, rng)
    assert abs(power - 0.80) <= 2.58 * SE_POWER, power
    level = _rejections(E, n, 0.0, rng)
    assert abs(level - 0.05) <= 2.58 * SE_LEVEL, level
    # one topic in four fewer than recommended falls clearly short of the target
    assert _rejections(E, int(0.75 * n), 0.05, rng) < 0.80 - 2.58 * SE_POWER
