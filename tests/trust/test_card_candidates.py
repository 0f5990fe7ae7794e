"""The trust card measures the verdict for the user's own candidates (issue 45, item 3).

``irstab calibrate -c MEASURE`` (default: the report's nDCG presets at the baseline's
cutoff) checks each candidate against the baseline in the collection's own real-score
universe. Oracles: :func:`irstab.verdict.calibration.calibrate` on
:func:`irstab.verdict.universes.resampled_universe` of the two measures, run here with the
same seed (the card's figures are that calibration's, flag for flag); the binomial closed
form :math:`\\sqrt{p(1-p)/R}` of a rate's Monte-Carlo error, written out; truths made
exactly (:func:`irstab.verdict.universes.planted_scores`: residuals times 0.72 is truly more
stable, residual rows permuted among systems has exactly the baseline's Phi). Real data:
TREC DL 2019 (37 runs x 43 topics), scored in place.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import irstab
import irstab.cli
from irstab.metrics import parse_measure
from irstab.report.study import preset_set
from irstab.trust.card import calibrate_collection
from irstab.trust.checks import _candidate_checks
from irstab.trust.result import CandidateCheck
from irstab.verdict.calibration import calibrate
from irstab.verdict.universes import planted_scores, resampled_universe

DL = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec-dl-2019-passage"
KEYS = {"measure", "coverage", "coverage_se", "wrong_change", "wrong_change_se", "power"}


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def dl_scores(dl2019):
    return irstab.score_matrices(dl2019, ["nDCG@10", "nDCG@100", "nDCG(gain=exp)@10"])


def test_each_candidate_is_the_calibration_of_its_own_universe(dl_scores):
    x = dl_scores["nDCG@10"].to_numpy()
    y = dl_scores["nDCG@100"].to_numpy()
    (got,) = _candidate_checks(x, {"nDCG@100": y}, 43, 60, 0.95, 5, None)
    # the oracle: the library's calibration of the pair, the same universe and seed
    u = resampled_universe("pair", {"base": x, "nDCG@100": y}, "base", 37, 43)
    want = calibrate(u, n_replicates=60, seed=np.random.default_rng(5))
    np.testing.assert_array_equal(got.covered, want.covered[:, 0])
    np.testing.assert_array_equal(got.recommended, want.recommended == 0)
    assert got.true_diff == want.true_diff[0] and got.favoured == bool(want.truly_better[0])
    d = got.to_dict()
    assert d["coverage"] == pytest.approx(want.coverage[0], abs=1e-15)
    if got.favoured:
        assert d["power"] == pytest.approx(want.power) and d["wrong_change"] == 0.0
    else:
        assert d["wrong_change"] == pytest.approx(want.wrong_rate) and d["power"] is None


def test_power_where_the_truth_favours_the_candidate_wrong_changes_where_not(dl_scores):
    x = dl_scores["nDCG@10"].to_numpy()
    S = x.shape[0]
    cands = {"planted": planted_scores(x, 0.72),  # truly more stable (less interaction)
             "twin": planted_scores(x, 1.0, np.roll(np.arange(S), 1))}  # exactly equal Phi
    planted, twin = _candidate_checks(x, cands, 43, 40, 0.95, 2, None)
    p, t = planted.to_dict(), twin.to_dict()
    assert p["truth_favours"] and p["true_diff"] > 0 and p["power"] is not None
    assert p["wrong_change"] == 0.0 and p["wrong_change_se"] == 0.0  # no change to it is wrong
    assert not t["truth_favours"] and t["true_diff"] == pytest.approx(0.0, abs=1e-12)
    assert t["power"] is None and t["power_se"] is None
    assert 0.0 <= t["wrong_change"] <= 1.0


def test_monte_carlo_errors_are_the_binomial_closed_form():
    # 180 of 200 covered: p = 0.9, se = sqrt(0.9 * 0.1 / 200) = 0.0212132...
    covered = np.r_[np.ones(180, bool), np.zeros(20, bool)]
    rec = np.r_[np.ones(3, bool), np.zeros(197, bool)]
    d = CandidateCheck("m", -0.01, False, covered, rec).to_dict()
    assert d["coverage"] == 0.9 and d["coverage_se"] == pytest.approx(0.02121320343559643)
    assert d["wrong_change"] == 0.015
    assert d["wrong_change_se"] == pytest.approx(math.sqrt(0.015 * 0.985 / 200))
    assert d["interval_held"] is False  # 0.9 + 2 x 0.021 < 0.95
    assert CandidateCheck("m", -0.01, False, np.ones(50, bool), rec[:50]).held


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 400).flatmap(lambda R: st.tuples(st.just(R), st.integers(0, R),
                                                       st.integers(0, R), st.booleans())))
def test_every_rate_has_the_binomial_error_of_its_count(case):
    R, k_cov, k_rec, favoured = case
    covered = np.arange(R) < k_cov
    rec = np.arange(R)[::-1] < k_rec
    d = CandidateCheck("m", 0.01 if favoured else -0.01, favoured, covered, rec).to_dict()
    se = (lambda k: math.sqrt(k / R * (1 - k / R) / R))
    assert d["coverage"] == pytest.approx(k_cov / R) and d["coverage_se"] == pytest.approx(se(k_cov))
    rate = "power" if favoured else "wrong_change"
    assert d[rate] == pytest.approx(k_rec / R) and d[f"{rate}_se"] == pytest.approx(se(k_rec))
    assert d["n_replicates"] == R and json.loads(json.dumps(d)) == d


def test_default_candidates_are_the_reports_presets_at_the_baselines_cutoff():
    from irstab.cli.calibrate import _candidates

    def presets(k, but):
        return [m for m in dict.fromkeys(str(parse_measure(p)) for p in preset_set([k]))
                if m != but]

    assert _candidates(parse_measure("nDCG@10"), [], None) == presets(10, "nDCG@10")
    assert len(presets(10, "nDCG@10")) == 7  # 2 gains x 4 discounts, less the baseline
    exp20 = "nDCG(gain=exp)@20"
    assert _candidates(parse_measure(exp20), [], None) == presets(20, exp20)
    assert _candidates(parse_measure("AP"), [], None) == presets(10, "AP")  # no cutoff: 10
    # given ones: each once, in the order given, comma lists too
    got = _candidates(parse_measure("nDCG@10"), ["nDCG@100,AP", "nDCG@100"], None)
    assert got == ["nDCG@100", "AP"]


def test_library_candidates_are_checked_against_the_baselines_systems_and_topics():
    rng = np.random.default_rng(0)
    x = pd.DataFrame(np.clip(0.5 + rng.normal(0, 0.1, (6, 1)) + rng.normal(0, 0.1, (6, 10)),
                             0, 1), index=[f"s{i}" for i in range(6)],
                     columns=[f"t{j}" for j in range(10)])
    kw = dict(n_replicates=10, n_resamples=20, verdict_replicates=10, gtheory_replicates=10,
              fit_collections=0, measure="m")
    with pytest.raises(irstab.errors.IRStabError, match="candidates: short: "):
        calibrate_collection(x, candidates={"short": x.iloc[:, :9]}, **kw)
    # labels in another order are aligned, as everywhere else (irstab.io.scores.as_scores)
    shuffled = x.iloc[::-1, ::-1] * 0.5
    card = calibrate_collection(x, candidates={"half": shuffled}, candidate_replicates=15, **kw)
    (c,) = card.verdict.candidates
    assert c.n_replicates == 15 and c.true_diff == pytest.approx(0.0, abs=1e-12)  # affine twin


# ---------------------------------------------------------------- the command, on DL-2019


@pytest.mark.skipif(not (DL / "qrels.txt").is_file(), reason="DL-2019 data not present")
def test_cli_json_lists_the_default_candidates_beside_the_null_twin(capsys, tmp_path):
    out_file = tmp_path / "card.json"
    code, _, err = cli(capsys, "calibrate", DL / "qrels.txt", DL / "runs", "-m", "nDCG@10",
                       "-R", "10", "-B", "20", "--verdict-replicates", "30", "-f", "json",
                       "-o", out_file)
    assert code == 0, err
    d = json.loads(out_file.read_text())
    v = d["verdict"]
    # today's null-twin figures stay
    assert {"coverage", "coverage_se", "wrong_change", "power", "planted_phi_difference"} <= set(v)
    want = [m for m in dict.fromkeys(str(parse_measure(p)) for p in preset_set([10]))
            if m != "nDCG@10"]
    assert [c["measure"] for c in v["candidates"]] == want and v["candidates_note"] is None
    for c in v["candidates"]:
        assert KEYS <= set(c)
        assert 0.0 <= c["coverage"] <= 1.0 and 0.0 <= c["wrong_change"] <= 1.0
        assert c["n_replicates"] == 30
        # the default 10 bootstrap resamples of the collection, 15 collections each
        # (an sd of 10 rates in [0, 1], divisor 9, is at most sqrt(10 / 36): half at 0,
        # half at 1)
        assert c["sampling_resamples"] == 10
        assert 0.0 <= c["coverage_sampling_se"] <= math.sqrt(10 / 36)
        assert c["coverage_se"] == pytest.approx(
            math.sqrt(c["coverage"] * (1 - c["coverage"]) / 30))
        assert (c["power"] is None) == (not c["truth_favours"])
    # the card's sentences name every candidate, after the null twin's
    text = d["card"]
    twin = next(i for i, s in enumerate(text) if s.startswith("Against a twin"))
    assert [s.split(" (true difference")[0] for s in text[twin + 1:twin + 8]] == [
        f"For {m}" for m in want]
    assert d["fit"]["fails"] is False and text[0].startswith("At 43 topics")  # DL-2019 fits


@pytest.mark.skipif(not (DL / "qrels.txt").is_file(), reason="DL-2019 data not present")
def test_cli_given_candidates_in_table_and_csv(capsys, tmp_path):
    args = ["calibrate", DL / "qrels.txt", DL / "runs", "-m", "nDCG@10", "-c", "nDCG@100",
            "-c", "nDCG(gain=exp)@10", "-R", "10", "-B", "20", "--verdict-replicates", "20"]
    target = tmp_path / "card.csv"
    code, _, err = cli(capsys, *args, "-f", "csv", "-o", target)
    assert code == 0, err
    frame = pd.read_csv(target)
    cands = frame[frame["part"] == "verdict candidate"]
    assert cands["candidate"].tolist() == ["nDCG@100", "nDCG(gain=exp)@10"]
    assert cands[["coverage", "coverage_se", "wrong_change", "wrong_change_se"]].notna().all().all()
    assert (frame["part"] == "test").sum() == 16
    assert (cands["sampling_resamples"] == 10).all()
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    assert "verdict per candidate (20 collections each" in out
    assert "from 10 bootstrap resamples of it (10 collections each)" in out
    assert "between collections like this one):" in out  # each candidate's sentence
    # --sampling-resamples 0: the Monte-Carlo error alone, and the card says nothing more
    code, out, err = cli(capsys, *args, "--sampling-resamples", "0", "-f", "json")
    assert code == 0, err
    got = json.loads(out)["verdict"]["candidates"]
    assert [(c["sampling_resamples"], c["coverage_sampling_se"]) for c in got] == [(0, None)] * 2
    assert not any("between collections" in s for s in json.loads(out)["card"])
    assert "For nDCG@100 (true difference" in out and "For nDCG(gain=exp)@10 (" in out


@pytest.mark.skipif(not (DL / "qrels.txt").is_file(), reason="DL-2019 data not present")
def test_cli_the_baseline_is_no_candidate(capsys):
    code, out, err = cli(capsys, "calibrate", DL / "qrels.txt", DL / "runs", "-m", "nDCG@10",
                         "-c", "ndcg_cut.10")
    assert code == 1 and out == "" and "-c/--candidate: nDCG@10 is the measure calibrated" in err
    code, out, err = cli(capsys, "calibrate", DL / "qrels.txt", DL / "runs", "-m", "nDCG@10",
                         "-c", "nDCG@100", "--verdict-replicates", "0")
    assert code == 1 and out == "" and "-c/--candidate: not with --verdict-replicates 0" in err


def test_with_scores_candidates_cannot_be_given_and_the_card_says_why(capsys, tmp_path):
    rng = np.random.default_rng(4)
    x = np.clip(0.5 + rng.normal(0, 0.1, (8, 1)) + rng.normal(0, 0.1, (8, 12)), 0, 1)
    path = tmp_path / "nDCG@10.csv"
    pd.DataFrame(x, index=[f"s{i}" for i in range(8)]).rename_axis("system").to_csv(path)
    code, out, err = cli(capsys, "calibrate", "--scores", path, "-c", "nDCG@100")
    assert code == 1 and out == ""
    assert err.startswith("irstab: error: -c/--candidate: not with --scores")
    code, out, err = cli(capsys, "calibrate", "--scores", path, "-R", "10", "-B", "20",
                         "--verdict-replicates", "10", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["verdict"]["candidates"] == []
    assert "a score matrix (--scores) holds one measure" in d["verdict"]["candidates_note"]
    assert any(s.startswith("No candidate measure was checked: a score matrix (--scores)")
               for s in d["card"])
