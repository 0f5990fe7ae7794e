"""Sakai's worked examples: the variance his designs take, and topic counts he published.

Sources (named per test):

* Sakai, *情報アクセス評価方法論* (Information Access Evaluation Methodology, Coronasha 2015),
  Table 5.1: three systems x twenty topics, and its two-way ANOVA without replication
  (S_A = 0.1083, S_B = 1.0293, S_E = 0.8317, V_E = 0.0219), as reproduced in the
  documentation of the elinor IR evaluation library (``TwoWayAnovaWithoutReplication``).
  V_E is the within-system variance Sakai's topic set size design takes.
* Sakai, "Topic set size design with variance estimates from two-way ANOVA", EVIA 2014: the
  ANOVA-based topic set sizes for alpha = 0.05, beta = 0.20, m = 10 systems, measurement
  depth 1000, of AP, Q, nDCG and nERR at minimum detectable ranges 0.10, 0.20 and 0.25
  (166/168/176/377, 42/43/45/95, 27/28/29/61). The variances behind them are not restated
  there, so the test asks what a worked example can be asked without them: that a single
  variance per measure yields all three published counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from irstab.design import anova_topics, residual_variance
from irstab.stability import gstudy

# Sakai (2015), Table 5.1: per topic, the scores of systems A, B, C.
A = [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30,
     0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20, 0.10]
B = [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30,
     0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30, 0.20]
C = [0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40,
     0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40, 0.30]


def test_sakai_table_5_1_residual_variance():
    x = np.array([A, B, C])
    v = residual_variance(x)
    assert v.ss == pytest.approx(0.8317, abs=1e-4)  # S_E
    assert v.df == 38  # (3 - 1)(20 - 1)
    assert v.variance == pytest.approx(0.0219, abs=1e-4)  # V_E
    assert v.var_diff == pytest.approx(2 * 0.8317 / 38, abs=1e-4)
    g = gstudy(x)  # the same ANOVA table in the G-study: S_A and S_B of the book
    assert g.ss_system == pytest.approx(0.1083, abs=1e-4)
    assert g.ss_topic == pytest.approx(1.0293, abs=1e-4)
    assert g.ms_residual == pytest.approx(v.variance, rel=1e-12)


EVIA_2014 = {  # measure: topics for minimum detectable range 0.10, 0.20, 0.25 (m = 10)
    "Q": (168, 43, 28),
    "nDCG": (176, 45, 29),
    "nERR": (377, 95, 61),
    "AP": (166, 42, 27),
}


@pytest.mark.parametrize("method", ["exact", "sakai"])
@pytest.mark.parametrize("measure", sorted(EVIA_2014))
def test_evia_2014_anova_counts_share_one_variance(measure, method):
    published = EVIA_2014[measure]
    sigma2 = np.arange(0.03, 0.15, 0.00005)
    counts = np.array([anova_topics(d, sigma2, 10, 0.05, 0.20, method)
                       for d in (0.10, 0.20, 0.25)])
    fits = np.all(counts == np.array(published)[:, None], axis=0)
    if measure != "AP":
        assert fits.any(), (measure, method)
        return
    # AP: every variance giving 166 topics at 0.10 gives 42 at 0.20, as published, but 28,
    # not 27, at 0.25 (with either computation), so that entry is one topic off the others.
    first = counts[0] == 166
    assert first.any() and not fits.any()
    assert set(counts[1][first]) <= {42, 43} and 42 in set(counts[1][first])
    assert set(counts[2][first]) == {28}
