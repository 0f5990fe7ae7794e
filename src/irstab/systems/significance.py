r"""Significance tests for paired system comparisons, vectorised over pairs and resamples.

Every test takes the per-topic differences of many pairs at once, an array
``d`` of shape ``(..., T)`` (one row per pair: :math:`d_t = x_{at} - x_{bt}`), or,
for the randomised Tukey HSD, the ``(S, T)`` score matrix and the pairs' indices.
Each returns :class:`TestOutcome` (statistic and two-sided p-value per pair).
Resampling tests draw their resamples once, from an explicit ``seed`` or
:class:`numpy.random.Generator`, and share them across pairs: one matrix product
scores every pair on every resample, in blocks that bound memory (given the systems'
scores, :func:`run_test` and :func:`batched_p_values` multiply each system once and
subtract, rather than each pair).

======================  ================================================================
test                    p-value
======================  ================================================================
``t``                   paired t: :math:`t = \bar d / (s_d / \sqrt T)`, :math:`T-1` df
``permutation``         Fisher's randomisation test by sign flips (Monte-Carlo)
``bootstrap``           bootstrap, shift method (Monte-Carlo)
``wilcoxon``            Wilcoxon signed-rank (exact, or normal with tie correction)
``sign``                sign test: binomial :math:`(n_{\ne 0}, 1/2)`
``tukey``               randomised Tukey HSD over all systems (Monte-Carlo, family-wise)
======================  ================================================================

:func:`holm` and :func:`benjamini_hochberg` adjust p-values over the pairs;
:func:`effect_sizes` gives the mean difference and the standardised effect
with their intervals.

Conventions. Monte-Carlo p-values are :math:`(1 + \#\{b: |s^*_b| \ge |s|\}) / (1 + B)`
(Phipson & Smyth, *Stat. Appl. Genet. Mol. Biol.* 2010): never 0, and within
:math:`1/B` of the plain proportion that ranx and Smucker et al. report.
Resampled statistics within a relative 1e-10 of the observed one count as at
least as extreme (rounding of sums must not decide). A pair whose differences
are all 0 gets :math:`p = 1` from every test; a constant non-zero difference
gets :math:`p = 0` from the t-test (where :func:`scipy.stats.ttest_rel` gives NaN).

References
----------
Smucker, Allan & Carterette, "A comparison of statistical significance tests for
information retrieval evaluation", CIKM 2007 (randomisation, bootstrap, t, Wilcoxon, sign).
Urbano, Lima & Hanjalic, "Statistical significance testing in information retrieval:
an empirical analysis of type I, type II and type III errors", SIGIR 2019 (bootstrap shift).
Carterette, "Multiple testing in statistical analysis of systems-based information
retrieval experiments", ACM TOIS 30(1), 2012 (randomised Tukey HSD).
Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014, and
"Topic set size design", Information Retrieval Journal 19(3), 2016 (effect sizes, Tukey HSD).
Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 1979;
Benjamini & Hochberg, "Controlling the false discovery rate", JRSS B 1995.

Validated against :func:`scipy.stats.ttest_rel`, :func:`scipy.stats.wilcoxon`,
:func:`scipy.stats.binomtest`, statsmodels' ``multipletests`` and ranx's ``compare``
(t-test and Fisher's randomisation test) on TREC DL 2019 (tests/systems/test_significance.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

import numpy as np

from .._numeric import check_allocation, check_seed, pair_tolerance
from ..errors import IRStabError

__all__ = [
    "SignificanceTest", "Adjustment", "TestOutcome", "paired_t", "permutation_test",
    "bootstrap_test", "wilcoxon_test", "sign_test", "randomised_tukey_hsd", "holm",
    "benjamini_hochberg", "adjust", "effect_sizes", "EffectSizes", "run_test",
    "batched_p_values", "paired_differences",
]

_TIE_RTOL = 1e-10
_BLOCK_CELLS = 2**22  # floats per block of resampled statistics (32 MiB)
_EXACT_MAX_N = 50  # the Wilcoxon signed-rank test is exact up to this many non-zero differences


class SignificanceTest(str, Enum):
    """The tests of :func:`run_test` (``irstab systems --test``)."""

    t = "t"
    permutation = "permutation"
    bootstrap = "bootstrap"
    wilcoxon = "wilcoxon"
    sign = "sign"
    tukey = "tukey"


class Adjustment(str, Enum):
    """Multiple-comparison adjustment over the pairs (``--correction``)."""

    none = "none"
    holm = "holm"
    bh = "bh"


@dataclass(frozen=True)
class TestOutcome:
    """Statistic and two-sided p-value of each pair (arrays of the pairs' shape)."""

    statistic: np.ndarray
    p_value: np.ndarray
    method: str

    __test__ = False  # not a pytest class


def _differences(d) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64)
    if d.ndim < 1 or d.shape[-1] < 2:
        raise IRStabError(f"a paired test needs at least 2 topics, got shape {d.shape}")
    if not np.isfinite(d).all():
        raise IRStabError("paired differences must be finite (no NaN or infinity)")
    return d


def _n_resamples(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise IRStabError(f"n_resamples must be a positive integer, got {n!r}")
    return int(n)


def _check_draws(B: int, T: int, C: int = 1) -> None:
    """Refuse ``B`` resamples of ``T`` topics whose draws and statistics (``8 B (T + C)``
    bytes, as if held at once) exceed the memory rule: they are drawn in blocks, but
    every one is drawn, so a count beyond memory is also one that would run for days."""
    check_allocation(8.0 * B * (T + C), f"n_resamples: {B} resamples of {T} topics")


def _tolerance(d2: np.ndarray) -> np.ndarray:
    """Absolute tolerance per row: a relative 1e-10 of the row's largest |difference|."""
    return _TIE_RTOL * np.abs(d2).max(axis=1, initial=0.0)


def _monte_carlo(count: np.ndarray, B: int) -> np.ndarray:
    return (1.0 + count) / (1.0 + B)


# ---------------------------------------------------------------- tests on differences


def paired_t(d) -> TestOutcome:
    r"""Two-sided paired t-test of each row of ``d`` (Student; Smucker et al., CIKM 2007).

    :math:`t = \bar d\,\sqrt T / s_d` with :math:`s_d` the sample standard deviation
    (ddof 1) and :math:`p = 2\,F_{T-1}(-|t|)`, as :func:`scipy.stats.ttest_rel`. All
    differences 0: :math:`t = 0, p = 1`; constant and non-zero: :math:`t = \pm\infty, p = 0`.

    Examples
    --------
    >>> r = paired_t([[0.4, 0.4, 0.6, 0.1]])  # scipy.stats.ttest_rel of these against zeros
    >>> round(float(r.p_value[0]), 6)
    0.035791
    """
    from scipy.special import stdtr

    d = _differences(d)
    T = d.shape[-1]
    mean = d.mean(axis=-1)
    sd = d.std(axis=-1, ddof=1)
    flat = sd <= _TIE_RTOL * np.abs(d).max(axis=-1, initial=0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(flat, np.where(mean == 0, 0.0, np.sign(mean) * np.inf),
                     mean * np.sqrt(T) / np.where(flat, 1.0, sd))
    p = np.clip(2.0 * stdtr(T - 1, -np.abs(t)), 0.0, 1.0)
    return TestOutcome(t, p, "paired t")


#: Floats of resampled sums per chunk of pairs: the arithmetic on a chunk stays in cache.
_CHUNK_CELLS = 2**16


def _pair_products(d2: np.ndarray, systems
                   ) -> Callable[[np.ndarray], Iterator[tuple[slice, np.ndarray]]]:
    r"""``W -> (rows, d2[rows] @ W.T)`` chunk by chunk: the pairs' resampled sums.

    ``systems = (x, i, j)``, with ``x`` of shape ``(S, R, T)`` and ``d2`` the rows of
    ``x[i] - x[j]`` (``(P R, T)``, pair-major), computes them from one product per
    system: by linearity :math:`(x_i - x_j) W^\top = x_i W^\top - x_j W^\top`, ``S R``
    rows are multiplied instead of ``P R`` (``P = S (S - 1) / 2`` for all pairs). The
    two sums differ by rounding, at most about
    :math:`(T + 2)\,\epsilon\,T (\max|x_i| + \max|x_j|)` for weights of total
    :math:`T` (signs, bootstrap counts); a pair whose tie tolerance (:func:`_tolerance`)
    is not far above that bound, its differences tiny against the scores, keeps its own
    product, so ties are decided as before. Chunks are arrays the caller may overwrite.
    """
    n_rows, T = d2.shape
    R = 1 if systems is None else systems[0].shape[1]

    def chunks(w: np.ndarray) -> Iterator[tuple[int, int]]:
        step = R * max(1, _CHUNK_CELLS // (R * len(w)))  # whole pairs a chunk
        return ((r0, min(r0 + step, n_rows)) for r0 in range(0, n_rows, step))

    def direct(w: np.ndarray):
        full = d2 @ w.T  # one product: many small ones cost more than the cache saves
        for r0, r1 in chunks(w):
            yield slice(r0, r1), full[r0:r1]

    if systems is None:
        return direct
    x, i, j = systems
    S = x.shape[0]
    top = np.abs(x).max(axis=2)                                          # (S, R)
    bound = 4.0 * (T + 2) * np.finfo(np.float64).eps * (top[i] + top[j]).reshape(-1)
    own = np.flatnonzero(bound >= _tolerance(d2))
    if S * R + len(own) >= n_rows:  # few pairs per system: nothing to share
        return direct
    x2 = x.reshape(S * R, T)

    def shared(w: np.ndarray):
        ps = (x2 @ w.T).reshape(S, R, len(w))
        for r0, r1 in chunks(w):
            p0, p1 = r0 // R, r1 // R
            out = ps[i[p0:p1]]
            out -= ps[j[p0:p1]]
            out = out.reshape(r1 - r0, len(w))
            mine = own[np.searchsorted(own, r0):np.searchsorted(own, r1)]
            if len(mine):
                out[mine - r0] = d2[mine] @ w.T
            yield slice(r0, r1), out

    return shared


def permutation_test(d, n_resamples: int = 10_000, seed=None) -> TestOutcome:
    r"""Fisher's randomisation test by sign flips (Smucker, Allan & Carterette, CIKM 2007).

    Under the null hypothesis the two systems' labels are exchangeable on every
    topic, so each difference keeps its size and takes either sign. Each of
    :math:`B` resamples flips the signs of a random subset of topics (the same
    flips for every pair); the statistic is :math:`|\bar d|`.

    Examples
    --------
    >>> r = permutation_test([[0.3, 0.2, 0.4, 0.3, 0.5, 0.1, 0.2, 0.3]], 2000, seed=1)
    >>> float(r.p_value[0]) < 0.02  # all 8 positive: exact p = 2/256
    True
    """
    return _permutation(d, n_resamples, seed)


def _permutation(d, n_resamples, seed, systems=None) -> TestOutcome:
    """:func:`permutation_test`; ``systems`` as :func:`_pair_products`."""
    d = _differences(d)
    B = _n_resamples(n_resamples)
    rng = check_seed(seed)
    shape, d2 = d.shape[:-1], d.reshape(-1, d.shape[-1])
    P, T = d2.shape
    _check_draws(B, T)
    observed = np.abs(d2.mean(axis=1)) - _tolerance(d2)
    count = np.zeros(P)
    product = _pair_products(d2, systems)
    block = max(1, _BLOCK_CELLS // max(P, T))
    for start in range(0, B, block):  # blocks of resamples, each one matrix product
        n = min(block, B - start)
        signs = rng.integers(0, 2, size=(n, T)).astype(np.float64) * 2.0 - 1.0
        for rows, v in product(signs):  # |v| / T in place: the same operations, in cache
            np.abs(v, out=v)
            v /= T
            count[rows] += np.count_nonzero(v >= observed[rows, None], axis=1)
    return TestOutcome(d2.mean(axis=1).reshape(shape), _monte_carlo(count, B).reshape(shape),
                       "randomisation (sign flips)")


def bootstrap_test(d, n_resamples: int = 10_000, seed=None) -> TestOutcome:
    r"""Paired bootstrap test, shift method (Urbano, Lima & Hanjalic, SIGIR 2019).

    Topics are resampled with replacement (the same :math:`B` resamples for every
    pair); the bootstrap distribution of :math:`\bar d^*` is shifted to the null
    hypothesis by subtracting :math:`\bar d`, and
    :math:`p = \Pr(|\bar d^* - \bar d| \ge |\bar d|)`.

    Examples
    --------
    >>> r = bootstrap_test([[0.0, 0.0, 0.0]], 100, seed=0)
    >>> float(r.p_value[0])
    1.0
    """
    return _bootstrap(d, n_resamples, seed)


def _bootstrap(d, n_resamples, seed, systems=None) -> TestOutcome:
    """:func:`bootstrap_test`; ``systems`` as :func:`_pair_products`."""
    d = _differences(d)
    B = _n_resamples(n_resamples)
    rng = check_seed(seed)
    shape, d2 = d.shape[:-1], d.reshape(-1, d.shape[-1])
    P, T = d2.shape
    _check_draws(B, T)
    mean = d2.mean(axis=1)
    observed = np.abs(mean) - _tolerance(d2)
    count = np.zeros(P)
    product = _pair_products(d2, systems)
    block = max(1, _BLOCK_CELLS // max(P, T))
    for start in range(0, B, block):
        n = min(block, B - start)
        idx = rng.integers(0, T, size=(n, T))
        counts = np.bincount((idx + T * np.arange(n)[:, None]).ravel(),
                             minlength=n * T).reshape(n, T).astype(np.float64)
        for rows, v in product(counts):  # |v / T - mean| in place
            v /= T
            v -= mean[rows, None]
            np.abs(v, out=v)
            count[rows] += np.count_nonzero(v >= observed[rows, None], axis=1)
    return TestOutcome(mean.reshape(shape), _monte_carlo(count, B).reshape(shape),
                       "bootstrap (shift)")


def _signed_rank_null(n_max: int) -> np.ndarray:
    """``cdf[n, w] = P(W+ <= w)`` under the null for ``n <= n_max`` (recursion on n)."""
    W = n_max * (n_max + 1) // 2
    counts = np.zeros((n_max + 1, W + 1))
    counts[0, 0] = 1.0
    for n in range(1, n_max + 1):  # 50 steps: the table, not the data
        counts[n] = counts[n - 1]
        counts[n, n:] += counts[n - 1, :-n]
    return np.cumsum(counts / counts.sum(axis=1, keepdims=True), axis=1)


_NULL_CDF: list[np.ndarray] = []


def wilcoxon_test(d) -> TestOutcome:
    r"""Two-sided Wilcoxon signed-rank test of each row (Smucker et al., CIKM 2007).

    Zero differences are dropped (Wilcoxon's convention); the :math:`n` others are
    ranked by :math:`|d_t|` (ties get their average rank) and :math:`W^+` is the sum
    of the ranks of the positive ones. Without ties and for :math:`n \le 50`, the
    p-value is exact: :math:`2\min(P(W \ge W^+), P(W \le W^+))` under the null
    distribution of :math:`W`; otherwise the normal approximation
    :math:`z = (W^+ - n(n+1)/4) / \sqrt{(n(n+1)(2n+1) - \sum (t^3 - t)/2)/24}`
    (tie groups of size :math:`t`, no continuity correction). These are
    :func:`scipy.stats.wilcoxon` with ``method="exact"`` and ``"asymptotic"``
    respectively (scipy's ``"auto"`` decides for a whole batch at once). The
    statistic returned is :math:`\min(W^+, W^-)`, as scipy's.

    Examples
    --------
    >>> r = wilcoxon_test([[0.1, 0.25, -0.05, 0.4, 0.3, 0.0]])  # exact, n = 5
    >>> float(r.statistic[0]), round(float(r.p_value[0]), 4)
    (1.0, 0.125)
    """
    from scipy.special import ndtr

    d = _differences(d)
    shape, d2 = d.shape[:-1], d.reshape(-1, d.shape[-1])
    nonzero = d2 != 0
    n = nonzero.sum(axis=1)
    a = np.where(nonzero, np.abs(d2), np.inf)  # zeros rank last, leaving the others' ranks
    order = np.argsort(a, axis=1, kind="stable")
    s = np.take_along_axis(a, order, axis=1)
    R, T = s.shape
    same = (s[:, 1:] == s[:, :-1]) & np.isfinite(s[:, 1:])
    new_group = np.c_[np.ones(R, bool), ~same]
    runs = np.cumsum(new_group, axis=1) - 1  # tie group of each value
    flat_runs = runs + T * np.arange(R)[:, None]
    sizes = np.bincount(flat_runs[np.isfinite(s)], minlength=s.size).astype(np.float64)
    # average rank of each sorted value: its group's first position + (size + 1) / 2, a
    # half-integer, as scipy.stats.rankdata(method="average"); sums of them are exact, so
    # W+ summed in sorted order is the same number
    first = np.maximum.accumulate(np.where(new_group, np.arange(T), 0), axis=1)
    ranks = first + (sizes[flat_runs] + 1.0) / 2.0
    w_plus = (ranks * np.take_along_axis(d2 > 0, order, axis=1)).sum(axis=1)
    w_minus = n * (n + 1) / 2.0 - w_plus
    sizes = sizes.reshape(s.shape)
    tie_term = (sizes**3 - sizes).sum(axis=1)
    exact = (tie_term == 0) & (n <= _EXACT_MAX_N)
    p = np.ones(len(d2))
    if exact.any():
        if not _NULL_CDF:
            _NULL_CDF.append(_signed_rank_null(_EXACT_MAX_N))
        cdf = _NULL_CDF[0]
        ne, w = n[exact], np.rint(w_plus[exact]).astype(np.int64)
        lower = cdf[ne, w]
        upper = 1.0 - np.where(w > 0, cdf[ne, np.maximum(w - 1, 0)], 0.0)
        p[exact] = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    approx = ~exact & (n > 0)
    if approx.any():
        na = n[approx].astype(np.float64)
        var = (na * (na + 1) * (2 * na + 1) - tie_term[approx] / 2.0) / 24.0
        z = (w_plus[approx] - na * (na + 1) / 4.0) / np.sqrt(var)
        p[approx] = np.minimum(1.0, 2.0 * ndtr(-np.abs(z)))
    return TestOutcome(np.minimum(w_plus, w_minus).reshape(shape), p.reshape(shape),
                       "Wilcoxon signed-rank")


def _binom_cdf(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """:math:`F_{\\mathrm{Bin}(n, 1/2)}(k)` for integers ``0 <= k <= n``: the function
    ``scipy.stats.binom.cdf`` evaluates (``scipy.special``'s Boost binomial CDF, the same
    doubles), without importing ``scipy.stats`` (0.3 s of CPU, a twentieth of
    ``irstab calibrate``). A SciPy without that function: ``scipy.stats`` after all."""
    try:
        from scipy.special._ufuncs import _binom_cdf
    except ImportError:
        from scipy.stats import binom

        return binom.cdf(k, n, 0.5)
    return _binom_cdf(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64), 0.5)


def sign_test(d) -> TestOutcome:
    r"""Two-sided sign test (Smucker et al., CIKM 2007): ties (zero differences) dropped.

    With :math:`k` positive of :math:`n` non-zero differences,
    :math:`p = \min(1, 2 F_{\mathrm{Bin}(n, 1/2)}(\min(k, n-k)))`, as
    :func:`scipy.stats.binomtest` (two-sided, :math:`p_0 = 1/2`). The statistic is :math:`k`.

    Examples
    --------
    >>> r = sign_test([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, -0.1, 0.0]])  # 6 of 7 positive
    >>> round(float(r.p_value[0]), 6)  # 2 * (1 + 7) / 128
    0.125
    """
    d = _differences(d)
    k = (d > 0).sum(axis=-1)
    n = (d != 0).sum(axis=-1)
    p = np.where(n > 0, np.minimum(1.0, 2.0 * _binom_cdf(np.minimum(k, n - k), n)), 1.0)
    return TestOutcome(k.astype(np.float64), p, "sign")


def randomised_tukey_hsd(x, i, j, n_resamples: int = 10_000, seed=None) -> TestOutcome:
    r"""Randomised Tukey HSD (Carterette, TOIS 2012; Sakai, SIGIR Forum 2014).

    ``x`` is the ``(S, T)`` score matrix, ``i``/``j`` the pairs' rows. In each of
    :math:`B` resamples the scores are permuted among the systems within every
    topic, and the range of the permuted system means is kept:
    :math:`r_b = \max_s \bar x^*_s - \min_s \bar x^*_s`. Then
    :math:`p_{ij} = (1 + \#\{b: r_b \ge |\bar x_i - \bar x_j|\}) / (1 + B)`: one null
    distribution for every pair, so the family-wise error rate over all pairs of the
    :math:`S` systems is controlled without a further adjustment.

    ``x`` may also be a stack of collections, shape ``(..., S, T)``: each gets its own
    null distribution, from the same :math:`B` permutations (one gather for all),
    and the result has shape ``(..., n_pairs)``.

    Examples
    --------
    >>> x = np.array([[0.9, 0.8, 0.95, 0.85], [0.1, 0.2, 0.1, 0.15], [0.5, 0.5, 0.4, 0.6]])
    >>> r = randomised_tukey_hsd(x, [0], [1], 500, seed=0)
    >>> float(r.p_value[0]) < 0.1
    True
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2 or x.shape[-2] < 2 or x.shape[-1] < 2:
        raise IRStabError(f"the Tukey HSD test needs a systems x topics matrix of at least "
                          f"2 x 2, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise IRStabError("scores must be finite (no NaN or infinity)")
    B = _n_resamples(n_resamples)
    rng = check_seed(seed)
    i, j = np.asarray(i, dtype=np.intp), np.asarray(j, dtype=np.intp)
    lead, (S, T) = x.shape[:-2], x.shape[-2:]
    x3 = x.reshape(-1, S, T)
    C = len(x3)
    _check_draws(B, T, C)  # C x B ranges are held
    diff = x3[:, i].mean(axis=2) - x3[:, j].mean(axis=2)                       # (C, P)
    observed = np.abs(diff) - _TIE_RTOL * np.abs(x3).max(axis=(1, 2), initial=0.0)[:, None]
    ranges = np.empty((B, C))
    # one row per (topic, system) holding every collection's score: a permutation gathers
    # whole rows, and the mean over topics adds them in topic order as before
    rows = np.ascontiguousarray(x3.transpose(2, 1, 0)).reshape(T * S, C)
    offset = (S * np.arange(T))[None, :, None]
    block = max(1, _BLOCK_CELLS // (T * S))
    sub = max(1, 4 * _CHUNK_CELLS // (T * S * C))  # resamples whose gather stays in cache
    for start in range(0, B, block):
        n = min(block, B - start)
        perm = rng.permuted(np.broadcast_to(np.arange(S), (n, T, S)), axis=2)
        idx = (perm + offset).reshape(n, T * S)
        for s0 in range(0, n, sub):  # the gather for every collection, memory bounded
            g = np.take(rows, idx[s0:s0 + sub], axis=0).reshape(-1, T, S, C)
            g = np.add.reduce(g, axis=1) / T                                  # (n', S, C)
            ranges[start + s0:start + s0 + len(g)] = g.max(axis=1) - g.min(axis=1)
    ranges = ranges.T
    ranges.sort(axis=1)
    # #{b: r_b >= o} is B less the ranges below o: one binary search per pair in each
    # collection's sorted ranges (the same count as comparing every pair with every range)
    count = np.empty(observed.shape)
    for c in range(C):
        count[c] = B - np.searchsorted(ranges[c], observed[c], side="left")
    out_shape = lead + diff.shape[1:]
    return TestOutcome(diff.reshape(out_shape), _monte_carlo(count, B).reshape(out_shape),
                       "randomised Tukey HSD")


# ---------------------------------------------------------------- adjustments


def holm(p) -> np.ndarray:
    r"""Holm's step-down adjustment over the last axis (Holm, Scand. J. Stat. 1979).

    With :math:`p_{(1)} \le \dots \le p_{(m)}`:
    :math:`\tilde p_{(k)} = \max_{j \le k} \min(1, (m - j + 1)\,p_{(j)})`; controls the
    family-wise error rate under any dependence.

    >>> holm([0.01, 0.04, 0.03]).tolist()  # statsmodels multipletests(method="holm")
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1)
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked), axis=-1)
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def benjamini_hochberg(p) -> np.ndarray:
    r"""Benjamini-Hochberg step-up adjustment over the last axis (JRSS B 1995).

    :math:`\tilde p_{(k)} = \min_{j \ge k} \min(1, m\,p_{(j)} / j)`; controls the false
    discovery rate for independent or positively dependent tests.

    >>> benjamini_hochberg([0.01, 0.04, 0.03]).tolist()  # multipletests(method="fdr_bh")
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1)
    scaled = np.minimum(1.0, ranked * m / np.arange(1, m + 1))
    adjusted = np.minimum.accumulate(scaled[..., ::-1], axis=-1)[..., ::-1]
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


_ADJUST = {Adjustment.none: lambda p: np.array(p, dtype=np.float64), Adjustment.holm: holm,
           Adjustment.bh: benjamini_hochberg}


def adjust(p, method: Adjustment | str = Adjustment.holm) -> np.ndarray:
    """``p`` adjusted over its last axis by ``method`` (``none``, ``holm``, ``bh``)."""
    try:
        method = Adjustment(getattr(method, "value", method))
    except ValueError:
        raise IRStabError(f"correction: expected one of {[a.value for a in Adjustment]}, "
                          f"got {method!r}") from None
    return _ADJUST[method](p)


# ---------------------------------------------------------------- effect sizes


@dataclass(frozen=True)
class EffectSizes:
    """Mean difference and standardised effect of each pair, with their intervals."""

    difference: np.ndarray
    difference_low: np.ndarray
    difference_high: np.ndarray
    effect: np.ndarray
    effect_low: np.ndarray
    effect_high: np.ndarray


def effect_sizes(d, confidence: float = 0.95) -> EffectSizes:
    r"""Mean difference with its t interval, and the standardised effect :math:`d_z`.

    :math:`\bar d \pm t_{1-\alpha/2,\,T-1}\, s_d/\sqrt T`, and
    :math:`d_z = \bar d / s_d` (the paired-data effect size Sakai recommends
    reporting beside p-values, SIGIR Forum 2014) with the large-sample interval
    :math:`d_z \pm z_{1-\alpha/2}\sqrt{1/T + d_z^2/(2T)}` (Hedges & Olkin, 1985).
    A constant difference has no standardised effect: :math:`d_z` is NaN there
    (JSON ``null``), 0 where every difference is 0.

    >>> e = effect_sizes([[0.1, 0.3, 0.2, 0.2]])
    >>> round(float(e.difference[0]), 3), round(float(e.effect[0]), 3)
    (0.2, 2.449)
    """
    from scipy.special import ndtri, stdtrit

    d = _differences(d)
    if not 0 < confidence < 1:
        raise IRStabError(f"confidence must be in (0, 1), got {confidence!r}")
    T = d.shape[-1]
    mean = d.mean(axis=-1)
    sd = d.std(axis=-1, ddof=1)
    half = stdtrit(T - 1, 0.5 + confidence / 2) * sd / np.sqrt(T)
    flat = sd <= _TIE_RTOL * np.abs(d).max(axis=-1, initial=0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = np.where(flat, np.where(mean == 0, 0.0, np.nan), mean / np.where(flat, 1.0, sd))
    se = np.sqrt(1.0 / T + dz**2 / (2.0 * T))
    z = ndtri(0.5 + confidence / 2)
    return EffectSizes(mean, mean - half, mean + half, dz, dz - z * se, dz + z * se)


# ---------------------------------------------------------------- dispatch


def paired_differences(x, i, j) -> np.ndarray:
    """``x[i] - x[j]`` for the pairs of rows of ``x (S, ..., T)``, rounding noise set to 0.

    A topic's difference is exactly 0 where it is within :data:`irstab._numeric.ZERO_RTOL`
    of the pair's largest ``|score|`` (:func:`irstab._numeric.pair_tolerance`, the tolerance
    of every paired comparison in irstab): two systems whose scores differ by rounding only
    (0.3 and 0.30000000000000004) are equal, and no test reads their noise as a difference.

    >>> x = np.array([[0.3, 0.5, 0.7], [0.1 + 0.2, 0.5, 0.4]])
    >>> paired_differences(x, [0], [1]).tolist()  # 0.3 - 0.30000000000000004 is noise
    [[0.0, 0.0, 0.29999999999999993]]
    """
    x = np.asarray(x, dtype=np.float64)
    i, j = np.asarray(i, dtype=np.intp), np.asarray(j, dtype=np.intp)
    d = x[i] - x[j]
    # pair_tolerance reads x[..., s, t]: the systems' axis moved next to the topics
    tol = np.moveaxis(pair_tolerance(np.moveaxis(x, 0, -2), i, j), -1, 0)  # (P, ...)
    d[np.abs(d) <= tol[..., None]] = 0.0
    return d


def _paired(fn):
    return lambda x, i, j, n_resamples, seed: fn(paired_differences(x, i, j))


def _resampled(fn):
    """A test on differences, given the systems too: they share their resampled sums
    (:func:`_pair_products`)."""
    def run(x, i, j, n_resamples, seed):
        x3 = x.reshape(x.shape[0], -1, x.shape[-1])  # (S, R, T), R = 1 for one matrix
        return fn(paired_differences(x, i, j), n_resamples, seed, systems=(x3, i, j))
    return run


_TESTS = {
    SignificanceTest.t: _paired(paired_t),
    SignificanceTest.permutation: _resampled(_permutation),
    SignificanceTest.bootstrap: _resampled(_bootstrap),
    SignificanceTest.wilcoxon: _paired(wilcoxon_test),
    SignificanceTest.sign: _paired(sign_test),
    SignificanceTest.tukey: randomised_tukey_hsd,
}


def _test_enum(test) -> SignificanceTest:
    try:
        return SignificanceTest(getattr(test, "value", test))
    except ValueError:
        raise IRStabError(f"test: expected one of {[t.value for t in SignificanceTest]}, "
                          f"got {test!r}") from None


def batched_p_values(test: SignificanceTest | str, x, i, j, n_resamples: int = 10_000,
                     seed=None) -> np.ndarray:
    """p-values of ``test`` for the pairs ``(i[k], j[k])`` of every collection of a stack.

    ``x`` has shape ``(R, S, T)`` (``R`` collections of the same systems); the result
    ``(R, n_pairs)``, one call for all collections, no loop over them. The resampling
    tests (permutation, bootstrap, Tukey HSD) use the same ``n_resamples`` resamples
    for every collection of the call: a caller that needs independent resamples per
    collection calls once per block with its own seed
    (:func:`irstab.trust.card.calibrate_collection` does).

    >>> x = np.array([[[0.5, 0.6, 0.7, 0.4], [0.1, 0.2, 0.1, 0.3]]] * 2)
    >>> batched_p_values("t", x, [0], [1]).round(6).tolist()  # scipy.stats.ttest_rel
    [[0.035791], [0.035791]]
    """
    test = _test_enum(test)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 3:
        raise IRStabError(f"x: expected a stack of collections (R, S, T), got shape {x.shape}")
    i, j = np.asarray(i, dtype=np.intp), np.asarray(j, dtype=np.intp)
    if test is SignificanceTest.tukey:
        return randomised_tukey_hsd(x, i, j, n_resamples, seed).p_value
    return _TESTS[test](x.transpose(1, 0, 2), i, j, n_resamples, seed).p_value.T


def run_test(test: SignificanceTest | str, x, i, j, n_resamples: int = 10_000,
             seed=None) -> TestOutcome:
    """The p-value of ``test`` for each pair ``(i[k], j[k])`` of rows of the ``(S, T)`` matrix ``x``.

    >>> x = np.array([[0.5, 0.6, 0.7, 0.4], [0.1, 0.2, 0.1, 0.3]])
    >>> round(float(run_test("t", x, [0], [1]).p_value[0]), 6)  # scipy.stats.ttest_rel
    0.035791
    """
    test = _test_enum(test)
    x = np.asarray(x, dtype=np.float64)
    return _TESTS[test](x, np.asarray(i, dtype=np.intp), np.asarray(j, dtype=np.intp),
                        n_resamples, seed)
