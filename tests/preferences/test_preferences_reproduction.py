"""Urbano & Marrero (ECIR 2015) reproduced from their crowd.csv by irstab's own computation.

Expected values: data/ecir2015-dcg/biases.csv and anova.txt, the authors' outputs (repository
julian-urbano/ecir2015-dcg, commit df8d597), copied unchanged. The input path is the reader's
per-side scores (crowd.csv gives DCG per gain and discount, not graded qrels).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from irstab.preferences.bias import BIAS_SCORES, bias_anova, bias_scores
from irstab.preferences.read import read_preferences

DATA = Path(__file__).resolve().parents[2] / "data" / "ecir2015-dcg"


@pytest.fixture(scope="module")
def crowd():
    return read_preferences(DATA / "crowd.csv")


def test_the_reader_takes_the_crowd_layout(crowd):
    # counts from the file: 4115 answers, 432 query clips, 36 configurations (6 gains x 6
    # discounts); answers a 1019, b 1071, good 969, bad 1056 (data/ecir2015-dcg/README.md)
    assert crowd.n == 4115
    assert np.unique(crowd.topic).size == 432
    assert len(crowd.measures) == 36
    assert (crowd.preferred == 1).sum() == 1019 and (crowd.preferred == -1).sum() == 1071
    assert (crowd.satisfied == 1).sum() == 969 and (crowd.satisfied == 0).sum() == 1056
    assert crowd.measures[0] == "DCG(gain=b2,discount=z)"
    # line 2 of crowd.csv: answer "a", DCGb2zA = 1, DCGb2zB = 0 (the file's last pair)
    assert crowd.scores[0, 0].tolist() == [1.0, 0.0]


def _published_biases():
    with open(DATA / "biases.csv", newline="") as fh:
        return [(r["type"], r["gain"], r["discount"], float(r["value"]))
                for r in csv.DictReader(fh)]


def test_bias_scores_equal_the_published_ones_to_1e_9(crowd):
    values = bias_scores(crowd)
    index = {(g, d): j for j, (g, d) in enumerate(zip(crowd.factors["gain"],
                                                      crowd.factors["discount"]))}
    published = _published_biases()
    assert len(published) == 108
    got = np.array([values[BIAS_SCORES.index(t), index[(g, d)]] for t, g, d, _ in published])
    want = np.array([v for *_, v in published])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def _published_anova():
    """{(score, factor): (df, sum_sq text, F text)} from R's printed tables."""
    out, score = {}, None
    for line in (DATA / "anova.txt").read_text().splitlines():
        m = re.match(r"\*\*\* (b\d)", line)
        if m:
            score = m.group(1)
            continue
        m = re.match(r"(gain|discount)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)", line)
        if m:
            out[(score, m.group(1))] = (int(m.group(2)), m.group(3), m.group(5))
    return out


def _printed_digits(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def test_anova_f_values_equal_the_printed_digits(crowd):
    rows = bias_anova(bias_scores(crowd), crowd.factors)
    published = _published_anova()
    assert len(published) == 6
    # the figures: F gain 139.445 / 647.68 / 268.89, discount 14.191 / 177.73 / 196.85
    assert [published[(b, "gain")][2] for b in BIAS_SCORES] == ["139.445", "647.68", "268.89"]
    assert [published[(b, "discount")][2] for b in BIAS_SCORES] == ["14.191", "177.73", "196.85"]
    got = {(r["score"], r["factor"]): r for r in rows}
    for key, (df, sum_sq, f) in published.items():
        assert got[key]["df"] == df
        assert f"{got[key]['f']:.{_printed_digits(f)}f}" == f, key
        assert f"{got[key]['sum_sq']:.{_printed_digits(sum_sq)}f}" == sum_sq, key
    residual = [r for r in rows if r["factor"] == "residual"]
    assert [r["df"] for r in residual] == [25, 25, 25]
