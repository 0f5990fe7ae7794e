"""Bootstrap of the G-study: naive reference, reproducibility, intervals."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irstab.stability.bootstrap as bootstrap_module
from irstab.errors import IRStabError, IRStabWarning
from irstab.stability import bootstrap_components, gstudy

DL2019 = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "trec-dl-2019-passage"


def matrix(seed=0, n_s=9, n_t=15):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n_s, 1)) + rng.normal(size=(1, n_t)) + rng.normal(size=(n_s, n_t))


def naive_components(x: np.ndarray) -> np.ndarray:
    """Textbook formulas, one matrix at a time (independent of the vectorised kernel)."""
    n_s, n_t = x.shape
    g, r, c = x.mean(), x.mean(axis=1), x.mean(axis=0)
    ms_s = n_t * ((r - g) ** 2).sum() / (n_s - 1)
    ms_t = n_s * ((c - g) ** 2).sum() / (n_t - 1)
    ms_r = ((x - g) ** 2).sum() - (n_s - 1) * ms_s - (n_t - 1) * ms_t
    ms_r /= (n_s - 1) * (n_t - 1)
    return np.array([(ms_s - ms_r) / n_t, (ms_t - ms_r) / n_s, ms_r])


@pytest.mark.parametrize("resample", ["topics", "systems", "both"])
def test_matches_naive_loop_with_the_same_indices(resample):
    x = matrix()
    n_s, n_t = x.shape
    b = 50
    rng = np.random.default_rng(42)  # same draw order as the implementation: rows, then columns
    rows = (
        rng.integers(0, n_s, (b, n_s)) if resample != "topics" else np.tile(np.arange(n_s), (b, 1))
    )
    cols = (
        rng.integers(0, n_t, (b, n_t)) if resample != "systems" else np.tile(np.arange(n_t), (b, 1))
    )
    expected = np.array([naive_components(x[np.ix_(rows[i], cols[i])]) for i in range(b)])
    got = bootstrap_components(x, b, resample=resample, seed=42)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_reproducible_and_independent_of_block_size(monkeypatch):
    x = matrix(1)
    a = bootstrap_components(x, 300, resample="both", seed=5)
    monkeypatch.setattr(bootstrap_module, "_BLOCK_CELLS", x.size * 7)  # 7 resamples per block
    b = bootstrap_components(x, 300, resample="both", seed=5)
    np.testing.assert_array_equal(a, b)
    c = bootstrap_components(x, 300, resample="both", seed=np.random.default_rng(5))
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, bootstrap_components(x, 300, resample="both", seed=6))


def test_progress_callback(monkeypatch):
    x = matrix(2)
    monkeypatch.setattr(bootstrap_module, "_BLOCK_CELLS", x.size * 40)
    seen = []
    bootstrap_components(x, 100, seed=0, progress=seen.append)
    assert seen == [40, 80, 100]


def test_bad_arguments():
    x = matrix()
    with pytest.raises(IRStabError, match="n_resamples"):
        bootstrap_components(x, 0)
    with pytest.raises(IRStabError, match="resample"):
        bootstrap_components(x, 10, resample="queries")


def test_gstudy_input_uses_matrix_after_drop_worst():
    x = matrix(3)
    g = gstudy(x, drop_worst=0.34)
    assert bootstrap_components(g, 5, seed=0).shape == (5, 3)
    np.testing.assert_array_equal(
        bootstrap_components(g, 20, seed=0), bootstrap_components(g.scores, 20, seed=0)
    )


def test_bootstrap_dstudy_intervals_are_ordered_and_seeded():
    g = gstudy(matrix(4, 12, 30))
    kw = dict(targets=(0.8, 0.95), interval="bootstrap", n_resamples=400, seed=1)
    d = g.dstudy([1, 10, 30, 100], **kw)
    assert d == g.dstudy([1, 10, 30, 100], **kw)
    assert d.interval.value == "bootstrap" and d.n_resamples == 400
    for lo, hi in ((d.erho2_lower, d.erho2_upper), (d.phi_lower, d.phi_upper)):
        assert np.all(np.array(lo) <= np.array(hi))
        assert np.all(np.diff(lo) >= 0) and np.all(np.diff(hi) >= 0)  # monotone in n'
    for t in d.topics_needed:
        assert t.lower <= t.upper
    # point estimates are those of the original sample, whatever the interval method
    assert d.phi == g.dstudy([1, 10, 30, 100]).phi


def test_bootstrap_and_f_intervals_agree_roughly_on_dl2019():
    if not (DL2019 / "qrels.txt").is_file():
        pytest.skip(f"TREC DL 2019 data not found at {DL2019}")
    from irstab.collection import Collection
    from irstab.metrics import parse_measure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        coll = Collection.from_files(DL2019 / "qrels.txt", DL2019 / "runs", depth=1000)
    frame = pd.DataFrame(
        parse_measure("nDCG@10").compute(coll), index=coll.systems, columns=coll.topics
    )
    g = gstudy(frame, name="nDCG@10")
    f = g.dstudy()
    b = g.dstudy(interval="bootstrap", n_resamples=2000, seed=0)
    # both intervals contain the point estimate and overlap each other
    for d in (f, b):
        assert d.phi_lower[0] <= d.phi[0] <= d.phi_upper[0]
        assert d.erho2_lower[0] <= d.erho2[0] <= d.erho2_upper[0]
    assert b.phi_lower[0] < f.phi_upper[0] and f.phi_lower[0] < b.phi_upper[0]
