"""The shared numerical conventions: variances against zero, seeds (``irstab._numeric``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import irstab
from irstab._numeric import VARIANCE_RTOL, check_seed, negligible
from irstab.errors import IRStabError
from irstab.evaluation import as_collection
from irstab.optimizer.objectives import stability_and_gradient
from irstab.stability import bootstrap_components, gstudy
from irstab.stability.designs.crossed import crossed_components, sums_of_squares


def test_negligible_is_relative_to_the_total():
    assert negligible(1.5e-32, 9.8) and not negligible(1e-9, 9.8)
    assert negligible(0.0, 0.0) and not negligible(1e-300, 0.0)
    assert negligible(-VARIANCE_RTOL, 1.0) and not negligible(-2 * VARIANCE_RTOL, 1.0)
    np.testing.assert_array_equal(negligible(np.array([1e-20, 1.0]), 2.0), [True, False])


def test_identical_rows_give_exact_zeros():
    x = np.tile(np.random.default_rng(1).random(40), (5, 1))
    ss_s, ss_t, ss_r = sums_of_squares(x)
    assert ss_s == 0 and ss_r == 0 and ss_t > 0
    comps = crossed_components(x)
    assert comps[0] == 0 and comps[2] == 0
    # sigma2_topic = MS_topic / n_s = sample variance of the row (closed form, identical rows)
    assert comps[1] == pytest.approx(np.var(x[0], ddof=1), rel=1e-12)
    value, grad = stability_and_gradient(x)
    assert value == 0 and not grad.any()
    assert not bootstrap_components(x, 20, seed=0)[:, [0, 2]].any()


def test_additive_scores_have_erho2_one():
    """x = a_s + b_t exactly: no interaction, so sigma2_res = 0 and Erho2 = 1 (closed form)."""
    rng = np.random.default_rng(2)
    a, b = rng.random(6), rng.random(25)
    g = gstudy(a[:, None] + b[None, :])
    assert g.var_residual == 0 and g.erho2() == 1.0
    # sigma2_sys = var(a), sigma2_top = var(b) (ddof 1): Phi(n_t) = n s / (n s + t)
    s, t = np.var(a, ddof=1), np.var(b, ddof=1)
    assert g.var_system == pytest.approx(s, rel=1e-10)
    assert g.phi() == pytest.approx(25 * s / (25 * s + t), rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.integers(2, 12), elements=st.floats(0, 1, allow_nan=False, width=32)),
    st.integers(2, 5),
)
@pytest.mark.filterwarnings("ignore:.*same score on every topic")
def test_copies_of_one_system_never_look_reliable(row, copies):
    """``copies`` identical systems on any topic scores (Hypothesis): Erho2 = Phi = 0 exactly."""
    if np.ptp(row) == 0:
        return  # all equal: rejected by gstudy, tested elsewhere
    g = gstudy(np.tile(row, (copies, 1)))
    assert g.var_system == 0 and g.var_residual == 0
    assert g.erho2() == 0 and g.phi() == 0
    assert g.erho2_interval() == (0.0, 0.0) and g.phi_interval() == (0.0, 0.0)


@pytest.mark.parametrize("bad", [-1, np.int64(-5), 1.5, "0", True])
def test_check_seed_rejects(bad):
    with pytest.raises(IRStabError, match=r"^seed: "):
        check_seed(bad)


def test_check_seed_accepts_and_passes_generators_through():
    g = np.random.default_rng(3)
    assert check_seed(g) is g
    assert check_seed(7).integers(1000) == np.random.default_rng(7).integers(1000)
    assert isinstance(check_seed(None), np.random.Generator)


def test_every_api_rejects_a_negative_seed():
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=6, depth=20, seed=1)
    coll = as_collection(sim.qrels, sim.runs, depth=20)
    x = np.random.default_rng(0).random((4, 6)) + np.arange(4)[:, None]
    from irstab.compare import discriminative_power, swap_rates
    from irstab.optimizer import optimize

    calls = [
        lambda: gstudy(x).dstudy(interval="bootstrap", seed=-1),
        lambda: bootstrap_components(x, 5, seed=-1),
        lambda: swap_rates({"m": x}, seed=-1),
        lambda: discriminative_power({"m": x}, seed=-1),
        lambda: optimize(coll, 5, seed=-1),
        lambda: irstab.simulate.simulate_collection(n_systems=2, n_topics=2, seed=-1),
    ]
    for call in calls:
        with pytest.raises(IRStabError, match=r"seed: must be an integer >= 0, got -1"):
            call()


# ---------------------------------------------------------------- magnitudes (issue 26, item 2)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, (4, 5), elements=st.floats(0, 1)), st.integers(-700, 700))
def test_scaling_never_changes_phi_silently(x, k):
    # Phi is scale-free: multiplying by 2**k is exact in floating point (closed form: the
    # same Phi), unless the squares overflow or underflow, which is refused by name
    scaled = np.ldexp(x, k)
    try:
        base = gstudy(x).phi()
    except (irstab.DegenerateDataError, IRStabError):  # constant, or itself out of range
        return
    try:
        g = gstudy(scaled)
    except IRStabError as exc:
        assert "overflows" in str(exc) or "underflow" in str(exc)
        assert np.abs(scaled).max() > 1e150 or 0 < np.ptp(scaled) < 1e-150
        return
    except irstab.DegenerateDataError:
        assert np.ptp(x) == 0 or np.ptp(scaled) == 0
        return
    assert g.phi() == pytest.approx(base, rel=1e-9, abs=1e-12)


def test_huge_scores_are_refused_naming_the_cell():
    x = pd.DataFrame([[1e200, 2e200, 0.3], [0.2, 0.3, 0.5], [0.4, 0.1, 0.2]],
                     index=["a", "b", "c"], columns=["t1", "t2", "t3"])
    with pytest.raises(IRStabError, match=r"2e\+200 \(system 'a', topic 't2'\).*overflows"):
        gstudy(x)
    with pytest.raises(IRStabError, match=r"scores\['m'\]: a score of 2e\+200"):
        irstab.compare_measures({"m": x})
    with pytest.raises(IRStabError, match=r"differ by at most 4e-201.*underflow"):  # 0.5 - 0.1
        gstudy(x.iloc[1:] * 1e-200)


def test_pairs_are_equal_only_within_their_own_rounding():
    # b and c differ by 0.1-0.3 on every topic; a third system at 1e10 used to make the
    # tolerance 1e-2 for every pair and call b and c identical (issue 26, item 2)
    from irstab._numeric import pair_tolerance
    from irstab.compare import paired_t_tests

    x = np.array([[1e10, 2e10, 3e10, 1e10], [0.2, 0.3, 0.5, 0.4], [0.4, 0.1, 0.2, 0.1]])
    # closed form: 1e-12 x the larger of the two systems' largest |score|
    np.testing.assert_allclose(pair_tolerance(x, np.array([0, 1]), np.array([1, 2])),
                               [3e-2, 5e-13])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", irstab.IRStabWarning)  # no "identical" warning
        r = paired_t_tests({"m": x}, correction="none")
    assert r.p_values[0, 2] < 1  # b/c: a real (if not significant) difference


# ---------------------------------------------------------------- resamples (issue 26, item 6)


@given(st.floats(0.5, 0.999))
def test_min_resamples_puts_one_resample_in_each_tail(c):
    from irstab._numeric import min_resamples

    n = min_resamples(c)  # closed form: the smallest B with B (1 - c) / 2 >= 1
    assert n * (1 - c) / 2 >= 1 - 1e-9
    assert (n - 1) * (1 - c) / 2 < 1 - 1e-9 or n == 1


def test_too_few_resamples_are_refused_with_the_minimum():
    x = np.random.default_rng(4).random((6, 10))
    g = gstudy(x)
    with pytest.raises(IRStabError, match="use at least 40"):
        g.dstudy(interval="bootstrap", n_resamples=39, seed=1)
    d = g.dstudy(interval="bootstrap", n_resamples=40, seed=1)
    assert d.phi_lower[0] <= d.phi_upper[0]
    with pytest.raises(IRStabError, match="needs at least 20 samples"):
        irstab.compare.discriminative_power({"m": x}, n_bootstrap=19, alpha=0.05, seed=1)
    irstab.compare.discriminative_power({"m": x}, n_bootstrap=20, alpha=0.05, seed=1)


# ---------------------------------------------------------------- constant matrices and scale


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, (3, 4), elements=st.floats(-1e300, 1e300, allow_subnormal=True)))
def test_spread_exponent_brackets_the_spread_without_overflow(x):
    # the one constant/scale rule (irstab._numeric): either the spread is within 1e-12 of
    # the magnitude (constant), or x * 2**-k has a spread in [1/2, 1); never a warning
    import warnings

    from irstab._numeric import ZERO_RTOL, spread_exponent, unit_spread

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k, constant = spread_exponent(x)
        y, k2 = unit_spread(x)
    assert k == k2
    big = np.abs(x).max()
    if constant:
        assert not y.any()
        assert (np.ptp(np.ldexp(x, -int(np.frexp(big)[1]))) if big > 0 else 0.0) <= ZERO_RTOL
    else:
        assert 0.5 <= np.ptp(y) < 1.0
        # exact, but for the digits of values below y's normal range (1e-308 of the spread)
        np.testing.assert_allclose(np.ldexp(y, int(k)), x, rtol=0,
                                   atol=float(np.ldexp(1.0, int(k) - 1022)))


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 6)),
              elements=st.floats(-1e300, 1e300, allow_subnormal=True)
              | st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.1 + 0.2, 5e-324, 1.0])))
def test_one_matrix_gives_the_batch_path_numbers_bit_for_bit(x):
    # the one-matrix shortcuts (extremes only, the reductions without np.mean's wrapper)
    # must not move a digit: the batch of one, x[None], takes the general path
    import warnings

    from irstab._numeric import spread_exponent, unit_spread

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # squares of 1e300 overflow on both paths alike
        k, constant = spread_exponent(x)
        kb, cb = spread_exponent(x[None])
        assert (k, constant) == (kb[0], cb[0])
        assert unit_spread(x)[0].tobytes() == unit_spread(x[None])[0][0].tobytes()
        assert crossed_components(x).tobytes() == crossed_components(x[None])[0].tobytes()
        for one, batch in zip(sums_of_squares(x), sums_of_squares(x[None])):
            assert np.float64(one).tobytes() == batch[0].tobytes()


def _scaled_by_definition(x):
    """The oracle of a batch: the docstring's definition, pass by pass (max |x| brought below
    1 by an exact power of two, the scaled matrix's spread, its power of two)."""
    from irstab._numeric import ZERO_RTOL

    big = np.abs(x).max(axis=(-2, -1))
    _, e_big = np.frexp(big)
    y = np.ldexp(x, -e_big[..., None, None])
    spread = y.max(axis=(-2, -1)) - y.min(axis=(-2, -1))
    constant = spread <= ZERO_RTOL * np.ldexp(big, -e_big)
    _, e_spread = np.frexp(spread)
    k = np.where(constant, 0, e_big + e_spread).astype(np.int64)
    scaled = np.where(constant[..., None, None], 0.0, np.ldexp(x, -k[..., None, None]))
    return k, constant, scaled


@settings(max_examples=150, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)),
              elements=st.floats(-1e300, 1e300, allow_subnormal=True)
              | st.sampled_from([0.0, -0.0, 0.3, 0.1 + 0.2, 5e-324, 1.0, np.nan, np.inf])))
def test_a_batch_gives_the_definitions_numbers_bit_for_bit(x):
    # the batch path works from each matrix's extremes and scales by one product; the
    # definition's passes (|x|, the scaled copy, np.where) must give the same bits
    import warnings

    from irstab._numeric import spread_exponent, unit_spread

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # inf - inf on both paths alike
        k, constant, scaled = _scaled_by_definition(x)
        got_k, got_c = spread_exponent(x)
        assert np.array_equal(got_k, k) and np.array_equal(got_c, constant)
        y, k2 = unit_spread(x)
        assert np.array_equal(k2, k)
        assert y.tobytes() == scaled.tobytes() or (
            np.isnan(y).any() and np.array_equal(y, scaled, equal_nan=True))


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (4, 5), elements=st.floats(0, 1)), st.integers(-1000, 1000))
def test_phi_and_its_interval_ignore_powers_of_two(x, k):
    # Phi and the F intervals are functions of ratios of mean squares: scaling by 2**k
    # (exact) changes none of them, from 2**-1000 to 2**1000 (the interval squared mean
    # squares of 1e280 and raised OverflowError); variances in score units beyond float64
    # are refused by name
    from irstab.stability.dstudy import crossed_phi

    # exact only while no cell falls below the normal range: 8.9e-121 x 2**-677 rounds to 0,
    # and a matrix of zeros is rightly refused as constant
    assume(np.array_equal(np.ldexp(np.ldexp(x, k), -k), x))
    try:
        g = gstudy(x)
    except (irstab.DegenerateDataError, IRStabError):
        return
    assert crossed_phi(np.ldexp(x, k), 5) == pytest.approx(g.phi(), rel=1e-12, abs=1e-15)
    try:
        s = gstudy(np.ldexp(x, k))
    except IRStabError as exc:
        assert "overflows" in str(exc) or "underflow" in str(exc)
        return
    assert s.phi_interval() == pytest.approx(g.phi_interval(), rel=1e-9, abs=1e-12)
    assert s.erho2_interval() == pytest.approx(g.erho2_interval(), rel=1e-9, abs=1e-12)


def test_min_resamples_grows_with_the_family():
    from irstab._numeric import min_resamples

    # closed form: 2 L / (1 - c)
    assert [min_resamples(0.95, L) for L in (1, 2, 8, 20)] == [40, 80, 320, 800]


# ---------------------------------------------------------------- memory limits


def test_cgroup_limit_reads_v2_and_v1_files(tmp_path):
    # cgroup v2 memory.max: a byte count or "max" (no limit); v1 memory.limit_in_bytes:
    # a byte count, "no limit" written as 2^63 rounded down to a page (9223372036854771712)
    from irstab._numeric import cgroup_limit

    cases = {"v2": ("1073741824\n", 2**30), "none": ("max\n", None),
             "v1": ("536870912", 2**29), "v1free": ("9223372036854771712\n", 9223372036854771712),
             "empty": ("", None), "garbage": ("lots\n", None), "zero": ("0\n", None),
             "negative": ("-1\n", None)}
    for name, (text, expected) in cases.items():
        (tmp_path / name).write_text(text)
        assert cgroup_limit(tmp_path / name) == expected, name
    assert cgroup_limit(tmp_path / "absent") is None
    assert cgroup_limit(tmp_path) is None  # a directory: unreadable as a file


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=40))
def test_cgroup_limit_never_raises_on_garbage(tmp_path_factory, content):
    from irstab._numeric import cgroup_limit

    p = tmp_path_factory.mktemp("cg") / "memory.max"
    p.write_bytes(content)
    got = cgroup_limit(p)
    assert got is None or (isinstance(got, int) and got > 0
                           and got == int(content.decode("ascii").strip()))
    if content.strip() == b"max" or not content.strip().isdigit():
        assert got is None


def test_available_memory_is_the_least_of_ram_and_the_cgroup_limit(tmp_path):
    import os

    from irstab._numeric import _memory_limits, available_memory

    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    small, unlimited, v1 = tmp_path / "small", tmp_path / "max", tmp_path / "v1"
    small.write_text(f"{2**20}\n")
    unlimited.write_text("max\n")
    v1.write_text("9223372036854771712\n")
    rlimit = _memory_limits(()).get("address-space limit (ulimit -v)")
    top = ram if rlimit is None else min(ram, rlimit)
    assert available_memory(cgroup_files=()) == top
    assert available_memory(cgroup_files=[small]) == 2**20
    # the first file holding a limit decides (v2 before v1); "max" holds none
    assert available_memory(cgroup_files=[unlimited, small]) == 2**20
    assert available_memory(cgroup_files=[v1, small]) == top  # v1's "no limit" loses to RAM
    assert available_memory(cgroup_files=[tmp_path / "absent", small]) == 2**20


def test_check_allocation_names_the_limit_that_binds(monkeypatch, tmp_path):
    import irstab._numeric as numeric

    cg = tmp_path / "memory.max"
    cg.write_text(f"{10**9}\n")
    monkeypatch.setattr(numeric, "CGROUP_LIMIT_FILES", (str(cg),))
    monkeypatch.setattr(numeric._memory_limits, "__defaults__", ((str(cg),),))
    monkeypatch.setattr(numeric.available_memory, "__defaults__", ((str(cg),),))
    numeric.check_allocation(4.9e8, "n: just under half of 1 GB")
    with pytest.raises(IRStabError, match=r"n: 6e8 cells need 600 MB of memory, more than half "
                       r"of this machine's 1 GB \(container \(cgroup\) memory limit\)"):
        numeric.check_allocation(6e8, "n: 6e8 cells")


def test_address_space_limit_is_read_in_a_limited_process():
    # a child under RLIMIT_AS = 3 GiB (ulimit -v) sees it as its available memory
    # unless the machine has less RAM; an unlimited one sees none
    import subprocess
    import sys

    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY))\n"
            "from irstab._numeric import address_space_limit, available_memory\n"
            "print(address_space_limit(), available_memory(cgroup_files=()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    import os

    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert int(out[0]) == 3 * 2**30 and int(out[1]) == min(ram, 3 * 2**30)


def test_check_allocation_reads_the_limits_once_a_second(monkeypatch):
    # a calibration checks thousands of small allocations: the limits are read once and
    # reused for MEMORY_TTL seconds, then read again (a changed limit is seen then)
    import irstab._numeric as numeric

    reads = []
    monkeypatch.setattr(numeric, "_MEMORY_READ", {})
    monkeypatch.setattr(numeric, "available_memory", lambda cgroup_files=(): reads.append(1)
                        or 10**9)
    clock = [100.0]
    monkeypatch.setattr("time.monotonic", lambda: clock[0])
    for _ in range(1000):
        numeric.check_allocation(4e8, "n: under half of 1 GB")
    assert len(reads) == 1
    monkeypatch.setattr(numeric, "available_memory", lambda cgroup_files=(): reads.append(1)
                        or 10**8)
    clock[0] += numeric.MEMORY_TTL / 2
    numeric.check_allocation(4e8, "n: still the limit read a moment ago")
    clock[0] += numeric.MEMORY_TTL
    with pytest.raises(IRStabError, match="more than half of this machine's"):
        numeric.check_allocation(4e8, "n: 4e8 bytes")
    assert len(reads) == 2
