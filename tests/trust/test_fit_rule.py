"""The fit check speaks (issue 45, item 5): when the simulator fails its own split-half check,
the card's first sentence says so and what it means for the numbers below it.

The rule (:func:`irstab.trust.checks.judge_fit`): the count of systems whose held-out mean
lies outside the simulated 95 % range, against the counts of a correct model's splits
(Monte-Carlo), at level 0.01. Oracles: a constructed collection whose held-out half is
shifted, half the systems up and half down (a model fitted on the other half cannot hold
it); TREC DL 2019 nDCG@10, which passes; collections drawn from a fitted model itself
(correct by construction), which fail no more often than the level allows; the p-value's
closed form :math:`(1 + \\#\\{k^* \\ge k\\})/(1 + N)` on a model whose draws are known.
"""

from __future__ import annotations

import json
import types

import numpy as np
import pandas as pd
import pytest

import irstab
import irstab.cli
import irstab.simulate.fitcheck as fitcheck
from irstab.simulate import fit_check, fit_collection
from irstab.trust.card import calibrate_collection
from irstab.trust.checks import judge_fit


def _shifted(S=12, T=24, seed=0, fit_idx=None, shift=0.15):
    """Normal scores whose held-out topics (all but ``fit_idx``) are moved by ``shift``, up
    for the first half of the systems and down for the other: no common shift, so no
    harder half of topics explains it."""
    rng = np.random.default_rng(seed)
    x = 0.5 + rng.normal(0, 0.05, (S, 1)) + rng.normal(0, 0.05, (1, T)) \
        + rng.normal(0, 0.05, (S, T))
    held = np.setdiff1d(np.arange(T), np.arange(T // 2) if fit_idx is None else fit_idx)
    sign = np.where(np.arange(S) < S // 2, 1.0, -1.0)
    x[:, held] += shift * sign[:, None]
    return pd.DataFrame(np.clip(x, 0, 1), index=[f"s{i:02d}" for i in range(S)],
                        columns=[f"t{j:02d}" for j in range(T)])


def test_a_held_out_half_the_model_cannot_hold_fails():
    seed = 11
    # fit_check's first draw is its split (irstab.simulate.fitcheck._split)
    fit_idx, _ = fitcheck._split(24, np.random.default_rng(seed))
    fc = fit_check(_shifted(fit_idx=fit_idx), n_collections=200, n_reference=0, seed=seed)
    j = judge_fit(fc, 1)
    assert j.fails and j.p_value < 0.01 and j.outside >= 10 and j.compared == 12
    assert j.expected < 5  # a correct model: about 17 % of 12 outside
    d = j.to_dict()
    assert d["fails"] is True and d["level"] == 0.01 and json.loads(json.dumps(d)) == d


def test_dl2019_ndcg10_passes(dl2019):
    x = irstab.score_matrix(dl2019, "nDCG@10")
    fc = fit_check(x, n_collections=300, n_reference=0, seed=0)
    j = judge_fit(fc, 0)
    assert not j.fails and j.p_value > 0.05, j
    assert 4 <= j.expected <= 9  # about 17 % of 37 (1 - (2 Phi(1.96 / sqrt 2) - 1) = 0.166)


def test_a_correct_model_rarely_fails():
    # collections drawn from a fitted model are what a correct model sees: at level 0.01,
    # 3 or more failures of 20 would have probability 0.001
    rng = np.random.default_rng(3)
    model = fit_collection(_shifted(10, 20, shift=0.0), seed=rng)
    fails = 0
    for _ in range(20):
        pseudo = model.draw(1, 20, rng)[0]
        fails += judge_fit(fit_check(pseudo, n_collections=150, n_reference=0, seed=rng),
                           rng, n_null=300).fails
    assert fails <= 2


def test_p_value_counts_the_null_splits_at_least_as_far_out():
    # a model whose every draw is its means: each pseudo half sits at the centre, inside
    # every range, so no null count reaches the 3 observed: p = 1 / (N + 1)
    systems = [f"s{i}" for i in range(5)]
    means = np.full(5, 0.5)
    model = types.SimpleNamespace(
        systems=tuple(systems), means=means,
        draw=lambda R, T, rng: np.full((R, 5, T), 0.5))
    held = [0.5, 0.5, 0.9, 0.1, 0.95]
    stats = pd.DataFrame({"statistic": "mean", "system": systems, "held_out": held,
                          "simulated": 0.5, "lo": 0.4, "hi": 0.6,
                          "inside": pd.array([True, True, False, False, False],
                                             dtype="boolean")})
    fit = types.SimpleNamespace(statistics=stats, model=model, fit_topics=tuple("abcd"),
                                held_topics=tuple("efgh"))
    j = judge_fit(fit, 0, n_null=99)
    assert (j.outside, j.compared, j.expected) == (3, 5, 0.0)
    assert j.p_value == pytest.approx(1 / 100) and not j.fails  # 0.01 is not below 0.01
    j = judge_fit(fit, 0, n_null=199)
    assert j.p_value == pytest.approx(1 / 200) and j.fails


@pytest.fixture
def first_half_split(monkeypatch):
    """The split-half check fits on the first half of the topics and holds out the second."""
    monkeypatch.setattr(fitcheck, "_split",
                        lambda T, rng: (np.arange((T + 1) // 2), np.arange((T + 1) // 2, T)))


def test_the_card_says_so_first_and_what_it_means(first_half_split):
    card = calibrate_collection(_shifted(), n_replicates=10, n_resamples=20,
                                verdict_replicates=10, gtheory_replicates=20,
                                fit_collections=100, measure="m", seed=2)
    first = card.card()[0]
    assert first.startswith("The simulator fails its own fit check on this collection")
    assert "type I errors, power and wrong signs below" in first
    assert "the verdict's figures" in first and "do not depend on it" in first
    assert card.card()[1].startswith("At 24 topics")
    d = card.to_dict()
    assert d["fit"]["fails"] is True and d["fit"]["judgement"]["means_outside"] >= 10
    assert d["card"][0] == first


def test_the_command_prints_it_first(first_half_split, capsys, tmp_path):
    path = tmp_path / "m.csv"
    _shifted().rename_axis("system").to_csv(path)
    code = irstab.cli.main(["calibrate", "--scores", str(path), "-R", "10", "-B", "20",
                            "--verdict-replicates", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("The simulator fails its own fit check on this collection")
    fit_line = next(ln for ln in lines if ln.startswith("# fit check:"))
    assert fit_line.endswith("fails")
