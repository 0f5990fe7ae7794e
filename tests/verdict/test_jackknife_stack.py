"""The jackknife interval over a stack of collections (irstab.verdict.jackknife_stack).

The oracle is the per-collection computation the stack replaces,
:func:`irstab.verdict.paired.phi_differences` with the jackknife interval, run on each
collection alone: every number must be the same to the bit (the calibration's and the trust
card's outputs are compared byte for byte across versions), on DL-2019 draws and on generated
cubes with twins, constant matrices and heavy-tailed systems.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.verdict.calibration import STACK, calibrate, resampled_universe
from irstab.verdict.decision import choose, topics_needed
from irstab.verdict.jackknife_stack import jackknife_differences_stack
from irstab.verdict.paired import phi_differences
from irstab.verdict.universes import planted_scores

FIELDS = ("phi", "diff", "lower", "upper", "sd")


def _one_by_one(cubes, cand, confidence=0.95):
    got = [phi_differences(c, 0, cand, confidence=confidence, rng=np.random.default_rng(0))
           for c in cubes]
    return {k: np.stack([getattr(d, k) for d in got]) for k in FIELDS}


def _assert_bit_identical(cubes, cand, confidence=0.95):
    want = _one_by_one(cubes, cand, confidence)
    want["needed"] = np.stack([topics_needed(c, 0.95) for c in cubes])
    got = jackknife_differences_stack(np.stack(cubes), 0, cand, confidence=confidence,
                                      target=0.95)
    for k in (*FIELDS, "needed"):
        assert got[k].shape == want[k].shape
        # array_equal with equal_nan: the same value, inf or nan in every place
        assert np.array_equal(got[k], want[k], equal_nan=True), k


@pytest.fixture(scope="module")
def dl_universes(dl2019):
    x = irstab.score_matrices(dl2019, ["nDCG@10", "nDCG@100", "nDCG(gain=exp)@10"])
    x = {k: v.to_numpy() for k, v in x.items()}
    base = x["nDCG@10"]
    S, T = base.shape
    pairs = {  # the trust card's universes: the baseline and one candidate, S x T resampled
        "nDCG@100": x["nDCG@100"],
        "nDCG(gain=exp)@10": x["nDCG(gain=exp)@10"],
        "planted": planted_scores(base, 0.72),
        "twin": 2.0 * base + 1.0,
    }
    out = [resampled_universe(k, {"(baseline)": base, k: y}, "(baseline)", S, T)
           for k, y in pairs.items()]
    out.append(resampled_universe("three", x, "nDCG@10", S, T))
    return out


def test_the_stack_is_each_collection_to_the_bit_on_dl2019_draws(dl_universes):
    for u in dl_universes:
        rng = np.random.default_rng(20191203)
        cubes = [u.draw(rng) for _ in range(40)]
        cand = np.array([m in u.candidates for m in u.measures])
        cand[0] = False
        _assert_bit_identical(cubes, cand)


@st.composite
def _cubes(draw):
    M = draw(st.integers(2, 4))
    S, T = draw(st.integers(3, 7)), draw(st.integers(3, 7))
    R = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    cubes = rng.normal(size=(R, M, S, T)) * 10.0 ** draw(st.integers(-5, 5))
    kind = draw(st.sampled_from(["plain", "twin", "constant", "heavy", "constant baseline"]))
    if kind == "twin":
        cubes[:, -1] = -3.0 * cubes[:, 0] + 7.0
    elif kind == "constant":
        cubes[:, -1] = 0.25
    elif kind == "heavy":  # one run far from the rest: system means' kurtosis well above 1
        cubes[:, :, 0] += 40.0
    elif kind == "constant baseline":
        cubes[:, 0] = 3.0
    cand = np.array(draw(st.lists(st.booleans(), min_size=M, max_size=M)))
    return list(cubes), cand, draw(st.sampled_from([0.9, 0.95, 0.99]))


@settings(max_examples=60, deadline=None)
@given(_cubes())
def test_the_stack_is_each_collection_to_the_bit(args):
    cubes, cand, confidence = args
    _assert_bit_identical(cubes, cand, confidence)


def test_calibrate_draws_and_decides_as_one_collection_at_a_time():
    """calibrate's stacked jackknife against the per-collection loop it replaces (R not a
    multiple of the stack, so that the last stack is short), progress included."""
    rng = np.random.default_rng(5)
    eff = rng.normal(size=(12, 1)) + rng.normal(size=(1, 15))
    x = eff + rng.normal(size=(12, 15))
    u = resampled_universe("toy", {"base": x, "plant": planted_scores(x, 0.6)}, "base", 12, 15)
    R = 2 * STACK + 7
    seen = []
    c = calibrate(u, n_replicates=R, seed=11, progress=seen.append)
    assert seen == list(range(1, R + 1))
    draws = np.random.default_rng(11)
    cand = np.array([False, True])
    for r in range(R):
        cube = u.draw(draws)
        d = phi_differences(cube, 0, cand, rng=draws)
        pick = choose(d.diff, d.lower, topics_needed(cube, 0.95), 0, [1], 0.10)
        assert c.recommended[r] == (-1 if pick is None else 0)
        for got, want in ((c.diff_hat, d.diff), (c.lower, d.lower), (c.upper, d.upper),
                          (c.sd_draws, d.sd)):
            assert got[r, 0] == want[1]
