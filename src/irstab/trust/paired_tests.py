r"""The paired tests' error rates on collections simulated like the user's (the card's first part).

The tests (:mod:`irstab.systems.significance`: t,
permutation, bootstrap, Wilcoxon, sign; each alone and with Holm or
Benjamini-Hochberg over all :math:`S(S-1)/2` pairs; randomised Tukey HSD).
Collections are drawn in *blocks* of ``block_size``; a block has one planting
layout: ``max(1, S // 3)`` disjoint pairs ``(i, j)`` of systems, chosen at random,
where ``j`` gets the margin of ``i`` moved to mean :math:`\mu_i \pm \delta`
(:meth:`~irstab.simulate.CollectionModel.plant`; the sign at random, the other one
where the margin cannot reach that mean), ``j`` keeping its place in the copula and
so its dependence with every system. The levels cycle over the pairs as
``0, delta_1, 0, delta_2, ...`` (shifted from block to block), so about half the
planted pairs are true nulls. The other systems stay as fitted; every pair of the
collection is tested (the family of Holm, BH and Tukey), and the planted pairs are
scored:

* **type I error**: share of null pairs (:math:`\delta = 0`) declared significant;
* **power** at :math:`\delta`: share of pairs at that level declared significant
  with the true sign;
* **type III error** at :math:`\delta`: share declared significant with the wrong
  sign (Urbano, Lima & Hanjalic, SIGIR 2019).

The resampling tests draw their ``n_resamples`` sign flips, topic resamples or
within-topic permutations once per block and share them across the block's
collections (one matrix product for all of them).

Monte-Carlo error
    Blocks are independent (their own layout, draws and resamples); the collections
    and pairs of a block are not. A rate :math:`\hat p = \sum_b k_b / \sum_b n_b` over
    blocks gets the cluster (ratio) standard error
    :math:`\sqrt{K/(K-1)\,\sum_b (k_b - \hat p\, n_b)^2} / \sum_b n_b`. The default
    ``R`` makes the binomial error of a 5 % type I rate about 0.005 (1900 null pairs).
    A Monte-Carlo test's p-value is at least :math:`1/(B+1)`: with Holm over
    :math:`m` pairs it rejects nothing unless :math:`B + 1 \ge m/\alpha`, which the
    result reports (:attr:`TrustCalibration.notes`, and in the row itself:
    :attr:`TestRow.min_resamples`) rather than hides.

References
----------
Urbano, J., Lima, H., Hanjalic, A. (2019). Statistical significance testing in
information retrieval: an empirical analysis of type I, type II and type III errors.
SIGIR 2019.
Urbano, J., Nagler, T. (2018). Stochastic simulation of test collections: evaluation
scores. SIGIR 2018.
Parapar, J., Losada, D. E., Presedo-Quindimil, M. A., Barreiro, A. (2020). Using score
distributions to compare statistical significance tests for information retrieval
evaluation. JASIST 71(1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import IRStabError
from ..systems.significance import Adjustment, SignificanceTest, adjust, batched_p_values
from .result import TestRow, cluster_rate

__all__ = ["DEFAULT_DELTAS", "PAIRED_TESTS", "CORRECTIONS", "default_replicates",
           "min_resamples_for_holm"]

#: Differences of expected scores at which power and type III errors are measured.
DEFAULT_DELTAS = (0.01, 0.02, 0.05)
#: The tests run alone and with each correction; Tukey HSD is family-wise by itself.
PAIRED_TESTS = (SignificanceTest.t, SignificanceTest.permutation, SignificanceTest.bootstrap,
                SignificanceTest.wilcoxon, SignificanceTest.sign)
CORRECTIONS = (Adjustment.none, Adjustment.holm, Adjustment.bh)
#: Null pair-tests the default R aims at: binomial error sqrt(.05 * .95 / 1900) = 0.005.
_NULL_TARGET = 1900


def _levels(deltas: Sequence[float]) -> np.ndarray:
    """``0, d1, 0, d2, ...``: the planted differences pairs cycle through."""
    out = []
    for d in deltas:
        out += [0.0, float(d)]
    return np.array(out or [0.0])


def _n_pairs(n_systems: int) -> int:
    return max(1, n_systems // 3)


def default_replicates(n_systems: int, block_size: int = 10) -> int:
    """Collections for about 1900 null pair-tests (a 5 % rate's binomial error 0.005).

    Half the ``max(1, S // 3)`` planted pairs of a collection are nulls; the count
    is rounded up to a multiple of ``block_size``.

    >>> default_replicates(37)  # 12 planted pairs, 6 nulls a collection: 1900 / 6, in tens
    320
    """
    nulls = _n_pairs(n_systems) / 2.0
    R = math.ceil(_NULL_TARGET / nulls)
    return int(math.ceil(R / block_size) * block_size)


def _check_deltas(deltas) -> tuple[float, ...]:
    out = []
    for d in deltas:
        if isinstance(d, bool) or not isinstance(d, (int, float, np.floating, np.integer)) \
                or not math.isfinite(d) or d <= 0:
            raise IRStabError(f"delta: differences must be positive finite numbers, got {d!r}")
        out.append(float(d))
    if not out:
        raise IRStabError("delta: give at least one difference")
    return tuple(sorted(set(out)))


def _layout(model, levels: np.ndarray, shift: int, rng: np.random.Generator):
    """Plant one block's pairs: ``(planted model, a, b, true difference a - b, level)``.

    ``a`` holds the planted systems, ``b`` the systems whose margins they took; the
    true difference is NaN where neither ``+delta`` nor ``-delta`` is reachable.
    """
    S = len(model.systems)
    K = _n_pairs(S)
    order = rng.permutation(S)
    base, target = order[:K], order[K:2 * K]
    level = levels[(np.arange(len(base)) + shift) % len(levels)]
    sign = rng.choice([-1.0, 1.0], size=len(base))
    truth = np.zeros(len(base))
    for k, (i, j) in enumerate(zip(base, target)):  # a few pairs a block, not replicates
        d = level[k]
        if d == 0:
            model = model.plant(int(j), like=int(i))
            continue
        for s in (sign[k], -sign[k]):
            try:
                model = model.plant(int(j), like=int(i), delta=float(s * d))
            except IRStabError:  # the margin cannot reach that mean: try the other side
                continue
            truth[k] = s * d
            break
        else:
            truth[k] = np.nan  # neither side reachable: the pair is not scored
    return model, target.astype(np.intp), base.astype(np.intp), truth, level


def _pair_index(S: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All pairs ``(I < J)`` and the position of pair (a, b) in ``pos[a, b]``."""
    I, J = np.triu_indices(S, k=1)
    pos = np.full((S, S), -1, dtype=np.intp)
    pos[I, J] = np.arange(len(I))
    pos[J, I] = np.arange(len(I))
    return I, J, pos


#: Peak bytes of one block's paired tests per (collection, pair, topic) cell and per
#: (collection, pair), measured with tracemalloc over the six tests and three corrections
#: (Wilcoxon's ranks are the largest: 84-86 bytes a cell at 10 and 40 topics; the sign test
#: adds up to 440 bytes a pair at 10 topics); tests/trust/test_trust_limits.py checks that
#: blocks stay below :func:`block_bytes`.
_CELL_BYTES, _PAIR_BYTES = 96.0, 512.0
#: The randomised Tukey HSD resamples every system of every collection: three buffers of
#: at most 2**22 floats each (:data:`irstab.systems.significance._BLOCK_CELLS`).
_RESAMPLE_BUFFERS, _RESAMPLE_CELLS = 3, 2**22


def block_bytes(n_systems: int, n_topics: int, n_collections: int,
                n_resamples: int = 1000) -> float:
    """An upper bound of the memory one block of :func:`_block` takes at its peak.

    ``R`` collections of ``S`` systems on ``T`` topics: the draws (``8 R S T`` bytes), every
    test of every pair (:data:`_CELL_BYTES` per collection, pair and topic, and
    :data:`_PAIR_BYTES` per collection and pair), and the resampled statistics of ``B``
    resamples (Tukey HSD's, the largest: ``8 R B S T`` bytes three times, in blocks of
    at most 2**22 floats), whichever test is running.
    """
    S, T, R = n_systems, n_topics, n_collections
    pairs = S * (S - 1) / 2.0
    resampled = _RESAMPLE_BUFFERS * 8.0 * min(_RESAMPLE_CELLS, float(R) * n_resamples * S * T)
    return 8.0 * R * S * T + R * pairs * (_CELL_BYTES * T + _PAIR_BYTES) + resampled


def _block(model, levels, shift, n_collections, n_topics, alphas, n_resamples, seed):
    """One block: plant, draw, test every pair, count on the planted ones.

    Returns ``(counts, n)``: ``counts[key]`` with key ``(test, correction)`` an array
    ``(3, A, L)`` of (significant, right sign, wrong sign) per alpha and level;
    ``n`` the planted pairs tested per level.
    """
    rng = np.random.default_rng(seed)
    planted, a, b, truth, level = _layout(model, levels, shift, rng)
    x = planted.draw(n_collections, n_topics, rng)                  # (R, S, T)
    S = x.shape[1]
    I, J, pos = _pair_index(S)
    keep = np.isfinite(truth)
    a, b, truth, level = a[keep], b[keep], truth[keep], level[keep]
    k = pos[a, b]
    orient = np.where(a < b, 1.0, -1.0)          # d of pair k is x_I - x_J
    mean_d = x[:, I].mean(axis=2) - x[:, J].mean(axis=2)            # (R, P)
    est = np.sign(mean_d[:, k] * orient)                             # sign of a - b
    true_sign = np.sign(truth)
    lev = np.searchsorted(np.unique(levels), np.abs(truth))
    L = len(np.unique(levels))
    n = np.bincount(lev, minlength=L) * n_collections
    counts = {}
    alphas = np.asarray(alphas)
    for test in (*PAIRED_TESTS, SignificanceTest.tukey):
        p = batched_p_values(test, x, I, J, n_resamples=n_resamples, seed=rng)  # (R, P)
        corrections = CORRECTIONS if test is not SignificanceTest.tukey else (Adjustment.none,)
        for corr in corrections:
            q = adjust(p, corr)[:, k]                                # (R, K)
            sig = q[None] <= alphas[:, None, None]                   # (A, R, K)
            right = sig & (est == true_sign)[None] & (true_sign != 0)[None]
            wrong = sig & (est == -true_sign)[None] & (true_sign != 0)[None]
            out = np.zeros((3, len(alphas), L))
            for c, hit in enumerate((sig, right, wrong)):
                per = hit.sum(axis=1)                                # (A, K)
                out[c] = np.stack([np.bincount(lev, weights=row, minlength=L) for row in per])
            counts[(test.value, corr.value)] = out
    return counts, n


def _test_rows(blocks, alphas, levels, n_topics) -> list[TestRow]:
    """Rates and cluster errors over blocks, one row per test, correction and alpha."""
    uniq = np.unique(levels)
    n = np.stack([nb for _, nb in blocks])                          # (K, L)
    rows = []
    for key in blocks[0][0]:
        c = np.stack([cb[key] for cb, _ in blocks])                 # (K, 3, A, L)
        for ai, a in enumerate(alphas):
            type_i, type_i_se = cluster_rate(c[:, 0, ai, 0], n[:, 0])
            power, type_iii = {}, {}
            for li in range(1, len(uniq)):
                label = f"{uniq[li]:g}"
                power[label] = cluster_rate(c[:, 1, ai, li], n[:, li])
                type_iii[label] = cluster_rate(c[:, 2, ai, li], n[:, li])
            rows.append(TestRow(test=key[0], correction=key[1], alpha=float(a),
                                n_topics=int(n_topics), type_i=type_i, type_i_se=type_i_se,
                                n_null=int(n[:, 0].sum()), power=power, type_iii=type_iii))
    return rows


#: The tests whose p-values are Monte-Carlo, at least 1/(B + 1).
_MONTE_CARLO = ("permutation", "bootstrap")


def _holm_rejects(P: int, alpha: float, B: int) -> bool:
    """Whether Holm over ``P`` pairs can reject a Monte-Carlo p-value of ``1/(B+1)`` at
    ``alpha``, in the arithmetic of :func:`irstab.systems.significance.holm`."""
    return min(1.0, P * (1.0 / (1.0 + B))) <= alpha


def min_resamples_for_holm(P: int, alpha: float) -> int:
    r"""The smallest ``B`` with which a Monte-Carlo test with Holm over ``P`` pairs can reject
    anything at ``alpha``: :math:`\lceil P/\alpha\rceil - 1`, checked in floating point.

    >>> min_resamples_for_holm(666, 0.05)  # DL-2019's 37 systems
    13319
    """
    B = max(1, math.ceil(P / alpha) - 1)
    while not _holm_rejects(P, alpha, B):
        B += 1
    while B > 1 and _holm_rejects(P, alpha, B - 1):
        B -= 1
    return B


def _mark_rows(tests, B: int, P: int) -> list[TestRow]:
    """The rows that cannot reject anything (a Monte-Carlo test with Holm whose smallest
    p-value is above Holm's smallest threshold) carry the ``B`` that could."""
    from dataclasses import replace

    return [replace(r, min_resamples=min_resamples_for_holm(P, r.alpha))
            if r.test in _MONTE_CARLO and r.correction == "holm"
            and not _holm_rejects(P, r.alpha, B) else r for r in tests]


def _notes(tests, B: int, P: int, alphas) -> list[str]:
    notes = []
    for a in alphas:
        if not _holm_rejects(P, a, B):
            notes.append(
                f"Monte-Carlo tests with B = {B} resamples have p-values of at least "
                f"1/{B + 1}: with Holm over {P} pairs at alpha {a:g} they reject nothing "
                f"unless B is at least {min_resamples_for_holm(P, a)} (their rates here are "
                "what such a test does; the rows say so)")
    return notes
