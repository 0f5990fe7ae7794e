"""The verdict's work is counted before it is done.

``compare --baseline`` with 1,000 measures took 65-100 s on a loaded machine (about 10 s
on a quiet one, 37 systems of DL-2019: 6.7e8 paired t-tests for the significant pairs,
4 s; scoring 2.4 s; the jackknife 1.9 s). Three costs went: the K x K correlation of the
contrasts (an eigendecomposition of 999 x 999: 0.1 s quiet, 13 s in a loaded profile)
that no interval reads is computed only when asked for; the measure list was
deduplicated pairwise (10^6 comparisons); an unknown --baseline or --candidate was named
only after every measure was scored. A comparison whose work passes
:data:`irstab.verdict.draws.MAX_WORK` (1e9 tests, some 10 s) is refused before any of it,
naming what fits. The tests count the work (calls, the formula), never the time.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import irstab.cli
from irstab.errors import IRStabError
from irstab.verdict import draws, jackknife, paired
from irstab.verdict import paired_comparison, verdict
from irstab.verdict.draws import PhiInterval, check_work, comparison_work

EXAMPLE = __import__("pathlib").Path(__file__).resolve().parents[2] / "data" / "example"


def _scores(M: int, S: int, T: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    effect = rng.normal(0, 1, (S, 1)) + rng.normal(0, 1, (1, T))
    return {f"m{k}": effect + rng.normal(0, 0.5 + k / M, (S, T)) for k in range(M)}


@pytest.fixture
def no_work(monkeypatch):
    """Fail if the comparison's heavy parts run."""
    def refuse(*args, **kwargs):
        raise AssertionError("the work ran before the refusal")

    monkeypatch.setattr(paired, "_significant_counts", refuse)
    monkeypatch.setattr(paired, "phi_differences", refuse)


def test_a_comparison_past_the_budget_is_refused_before_any_work(monkeypatch, no_work):
    # 30 measures x (1000 + 1) topic samples x 45 pairs of 10 systems = 1,351,350 tests
    # > 1e6. What fits: 1e6 // (1001 x 45) = 22 measures; draws: (1e6 - 30 x 45) // (30 x 45)
    # = 739 (at least 40: 2 / (1 - 0.95), the jackknife's significant pairs)
    with pytest.raises(IRStabError, match=r"30 measures x 1,001 topic samples .* x 45 pairs of "
                                          r"10 systems are 1\.35e\+06 paired t-tests: more "
                                          r"than the comparison's budget of 1e\+06 tests .*"
                                          r"at most 22 measures .* n_bootstrap \(-B\) 739 or "
                                          r"fewer \(at least 40\)"):
        verdict(_scores(30, 10, 8), "m0", max_work=1e6)
    with pytest.raises(IRStabError, match=r"budget of 1e\+06"):
        paired_comparison(_scores(30, 10, 8), "m0", max_work=1e6)
    # the verdict's default is MAX_WORK (the report's own paired comparison sets none)
    monkeypatch.setattr(draws, "MAX_WORK", 1e6)
    with pytest.raises(IRStabError, match=r"budget of 1e\+06"):
        verdict(_scores(30, 10, 8), "m0")


@settings(max_examples=300, deadline=None)
@given(M=st.integers(2, 3000), S=st.integers(3, 300), T=st.integers(3, 200),
       B=st.integers(40, 20000), method=st.sampled_from(list(PhiInterval)),
       least=st.integers(2, 5000))
def test_the_budget_refuses_exactly_the_work_past_it_and_names_what_fits(M, S, T, B, method,
                                                                        least):
    # oracle: the work written out; what the message offers fits, one more does not
    P = S * (S - 1) // 2
    resampled = method in (PhiInterval.bootstrap, PhiInterval.topic_bootstrap)
    work = M * (B + 1) * P + (2 * M * B * S * T if resampled else 0)
    assert comparison_work(M, S, T, B, method) == pytest.approx(work, rel=1e-12)
    if work <= draws.MAX_WORK:
        check_work(M, S, T, B, method, least)
        return
    with pytest.raises(IRStabError) as info:
        check_work(M, S, T, B, method, least)
    text = str(info.value)
    assert f"{M} measures x {B + 1:,} topic samples" in text
    if "at most" in text:
        m = int(text.split("at most ")[1].split(" measures")[0])
        assert comparison_work(m, S, T, B, method) <= draws.MAX_WORK
        assert comparison_work(m + 1, S, T, B, method) > draws.MAX_WORK
    if "(-B) " in text:
        b = int(text.split("(-B) ")[1].split(" or fewer")[0])
        assert b >= least
        assert comparison_work(M, S, T, b, method) <= draws.MAX_WORK
        assert comparison_work(M, S, T, b + 1, method) > draws.MAX_WORK


def test_compare_baseline_says_so_before_the_verdict(tmp_path, monkeypatch, capsys, no_work):
    # the CLI: one line naming -m's count and -B, exit 1, nothing written
    monkeypatch.setattr(draws, "MAX_WORK", 3e5)  # 12 runs: 30 x 1001 x 66 = 1.98e6
    out = tmp_path / "v.txt"
    measures = ",".join(f"nDCG@{k}" for k in range(1, 31))
    code = irstab.cli.main(["compare", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"),
                            "-m", measures, "--baseline", "nDCG@10", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert "irstab: error: 30 measures x 1,001 topic samples (n_bootstrap, -B" in err
    assert "compare at most" in err and "Traceback" not in err


def test_an_unknown_baseline_is_refused_before_any_run_is_read(monkeypatch, capsys):
    # the measures are known from -m: the name is checked first (it was after scoring every
    # measure on every run), and the message lists ten names, not a thousand
    from irstab.cli import _common

    def refuse(*args, **kwargs):
        raise AssertionError("runs were read")

    monkeypatch.setattr(_common, "score_matrices_from_args", refuse)
    measures = ",".join(f"P@{k}" for k in range(1, 1001))
    for option in (["--baseline", "nDCG@10"], ["--baseline", "P@1", "--candidate", "AP"]):
        code = irstab.cli.main(["compare", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"),
                                "-m", measures, *option])
        err = capsys.readouterr().err
        assert code == 1 and "is not one of the measures compared" in err
        assert "'P@10', '... 1000 in all']" in err and "P@11'" not in err


def test_the_verdict_never_computes_the_contrasts_correlation(monkeypatch):
    # the intervals read each contrast's variance; the K x K correlation is computed only
    # when asked for (the benchmarks read it)
    calls = []
    real = jackknife.TwoFacetVariance.correlation
    monkeypatch.setattr(jackknife.TwoFacetVariance, "correlation",
                        lambda self: (calls.append(1), real(self))[1])
    paired_comparison(_scores(6, 12, 10), "m0", n_bootstrap=50)
    assert calls == []
    cube = np.stack(list(_scores(3, 12, 10).values()))
    cv = jackknife.phi_contrasts(cube, np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]]))
    r = cv.correlation
    assert calls == [1] and r.shape == (2, 2) and r[0, 0] == 1.0
    assert cv.correlation is r and calls == [1]  # once


@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")  # scipy, the twin
@settings(max_examples=40, deadline=None)
@given(S=st.integers(3, 9), T=st.integers(3, 12), B=st.integers(1, 30), seed=st.integers(0, 99),
       twin=st.booleans(), cache=st.sampled_from([2, 7, 2**15]))
def test_significant_pairs_of_every_resample_equal_scipy(S, T, B, seed, twin, cache):
    # oracle: scipy's paired t-test on each resample's topics (a topic drawn k times counts
    # k times), pair by pair; with small cache slices and blocks the slicing is exercised.
    # A twin system (a shifted copy: constant differences) is significant when the shift is
    # not 0 (t = inf), as scipy says
    rng = np.random.default_rng(seed)
    cube = rng.normal(0, 1, (2, S, T))
    if twin:
        cube[1, 1] = cube[1, 0] + 0.25
    draws_ = rng.integers(0, T, size=(B, T))
    counts = np.vstack([np.ones(T), paired.sample_counts(draws_, T)])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(paired, "CACHE_CELLS", cache)
        mp.setattr(paired, "_BLOCK_CELLS", 3 * cache)
        got = paired._significant_counts(cube, counts, 0.05)
    for m in range(2):
        for b, topics in enumerate([np.arange(T), *draws_]):
            want = 0
            for i in range(S):
                for j in range(i + 1, S):
                    d = cube[m, i, topics] - cube[m, j, topics]
                    if np.ptp(d) == 0:
                        want += bool(d[0] != 0)
                        continue
                    want += bool(stats.ttest_rel(cube[m, i, topics], cube[m, j, topics])
                                 .pvalue < 0.05)
            assert got[m, b] == want
