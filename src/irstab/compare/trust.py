r"""How far to trust each answer on *this* collection: tests, verdict and topics needed, simulated.

:func:`calibrate_collection` fits the simulator of the user's collection
(:func:`irstab.simulate.fit_collection`: bounded margins per system, a copula
between systems; Urbano & Nagler, SIGIR 2018) to one measure's systems x topics
scores, draws ``R`` new collections at the collection's number of topics (or a
planned one) with effects planted exactly, and counts how often each answer
irstab gives is wrong:

**Paired significance tests** (:mod:`irstab.compare.significance`: t,
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

**The verdict** (:func:`irstab.compare.verdict`, its interval and rule as
:mod:`.paired` and :mod:`.decision` give them), calibrated by
:func:`irstab.compare.calibration.calibrate` in universes made of the
collection's own scores (:func:`~irstab.compare.universes.resampled_universe`,
systems and topics drawn with replacement): the measure against its null twin
(its residual rows permuted among systems: the same true Phi) gives the interval's
coverage and the wrong changes; against a planted twin (residuals times 0.72: truly
more stable) the power.

**Topics needed for Phi = 0.95**: the G-theory-faithful simulator
(:func:`irstab.simulate.fit_gtheory`; Urbano, Information Retrieval Journal 19, 2016)
has the collection's G-study components as its exact truth; each of ``R``
collections is G-studied, its topics needed for Phi = ``target`` computed, and the
true Phi reached at that many topics recorded (its distribution).

Monte-Carlo error
    Blocks are independent (their own layout, draws and resamples); the collections
    and pairs of a block are not. A rate :math:`\hat p = \sum_b k_b / \sum_b n_b` over
    blocks gets the cluster (ratio) standard error
    :math:`\sqrt{K/(K-1)\,\sum_b (k_b - \hat p\, n_b)^2} / \sum_b n_b`. The default
    ``R`` makes the binomial error of a 5 % type I rate about 0.005 (1900 null pairs).
    A Monte-Carlo test's p-value is at least :math:`1/(B+1)`: with Holm over
    :math:`m` pairs it rejects nothing unless :math:`B + 1 \ge m/\alpha`, which the
    result reports (:attr:`TrustCalibration.notes`) rather than hides.

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
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from .._numeric import check_allocation, check_seed
from ..errors import IRStabError
from ..simulate import CopulaKind, fit_check, fit_collection, fit_gtheory
from ..simulate.collection_model import score_matrix_input
from ._input import check_alpha, check_positive_int
from .significance import Adjustment, SignificanceTest, adjust, batched_p_values
from .trust_result import TestRow, TopicsNeededCheck, TrustCalibration, VerdictCheck, \
    cluster_rate

__all__ = ["calibrate_collection", "TrustCalibration", "DEFAULT_DELTAS", "default_replicates",
           "PAIRED_TESTS", "CORRECTIONS", "MIN_SYSTEMS", "MIN_TOPICS"]

#: Differences of expected scores at which power and type III errors are measured.
DEFAULT_DELTAS = (0.01, 0.02, 0.05)
#: The tests run alone and with each correction; Tukey HSD is family-wise by itself.
PAIRED_TESTS = (SignificanceTest.t, SignificanceTest.permutation, SignificanceTest.bootstrap,
                SignificanceTest.wilcoxon, SignificanceTest.sign)
CORRECTIONS = (Adjustment.none, Adjustment.holm, Adjustment.bh)
#: Null pair-tests the default R aims at: binomial error sqrt(.05 * .95 / 1900) = 0.005.
_NULL_TARGET = 1900
#: Residual scale of the verdict's planted twin (the moderate plant of docs/calibration.md).
_PLANT_RESIDUAL = 0.72
#: The smallest collection the card is made for (the fit check needs 8 topics; 4 systems
#: give one planted pair beside two untouched systems).
MIN_SYSTEMS, MIN_TOPICS = 4, 8
#: Blocks the default block size aims at (the cluster errors' units).
_BLOCKS = 20


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


def _gstudy_needed(x: np.ndarray, target: float) -> np.ndarray:
    """Topics needed for Phi = ``target`` from the G-study of each collection of ``x (R, S, T)``.

    The two-way ANOVA's expected mean squares (Brennan 2001, §3.4), vectorised over
    collections: :math:`\\hat\\sigma^2_e = MS_e`, :math:`\\hat\\sigma^2_s = (MS_s - MS_e)/T`,
    :math:`\\hat\\sigma^2_t = (MS_t - MS_e)/S`, negative estimates taken as 0, as
    :func:`irstab.stability.gstudy` (tested equal to it).
    """
    from ..stability.coefficients import Coefficient, needed_from_psi, psi_of

    R, S, T = x.shape
    grand = x.mean(axis=(1, 2))
    rows = x.mean(axis=2)
    cols = x.mean(axis=1)
    ms_s = T * ((rows - grand[:, None]) ** 2).sum(axis=1) / (S - 1)
    ms_t = S * ((cols - grand[:, None]) ** 2).sum(axis=1) / (T - 1)
    resid = x - rows[:, :, None] - cols[:, None, :] + grand[:, None, None]
    ms_e = (resid ** 2).sum(axis=(1, 2)) / ((S - 1) * (T - 1))
    comps = np.stack([(ms_s - ms_e) / T, (ms_t - ms_e) / S, ms_e], axis=-1)
    return needed_from_psi(psi_of(comps, Coefficient.phi), target)


def _topics_needed_check(scores, n_replicates, n_topics, target, rng) -> TopicsNeededCheck:
    gt = fit_gtheory(scores)
    truth = gt.components
    needed = np.empty(n_replicates)
    chunk = max(1, 2_000_000 // max(1, len(gt.systems) * n_topics))
    for start in range(0, n_replicates, chunk):  # blocks of collections bound memory
        m = min(chunk, n_replicates - start)
        needed[start:start + m] = _gstudy_needed(gt.draw(m, n_topics, rng), target)
    finite = np.isfinite(needed)
    reached = np.where(finite, truth.phi(np.where(finite, needed, 1.0)), np.nan)
    return TopicsNeededCheck(target=float(target), n_topics=int(n_topics),
                             true_needed=float(truth.topics_needed(target)),
                             true_phi=float(truth.phi(n_topics)), needed=needed,
                             phi_reached=reached, components=truth)


def _verdict_check(x: np.ndarray, n_topics: int, n_replicates: int, target: float,
                   seed, progress) -> VerdictCheck:
    from .calibration import calibrate
    from .universes import planted_scores, resampled_universe

    S = x.shape[0]
    twin = planted_scores(x, 1.0, np.roll(np.arange(S), 1))
    plant = planted_scores(x, _PLANT_RESIDUAL)
    null = resampled_universe("null twin", {"measure": x, "null twin": twin}, "measure", S,
                              n_topics)
    more = resampled_universe("planted", {"measure": x, "planted": plant}, "measure", S,
                              n_topics)
    rng = check_seed(seed)
    c0 = calibrate(null, n_replicates=n_replicates, target=target, seed=rng,
                   progress=progress)
    done = n_replicates
    c1 = calibrate(more, n_replicates=n_replicates, target=target, seed=rng,
                   progress=None if progress is None else (lambda r: progress(done + r)))
    covered = c0.covered[:, 0]
    wrong = c0.recommended >= 0
    power = c1.recommended >= 0
    return VerdictCheck(interval=c0.interval, n_replicates=int(n_replicates),
                        covered=covered, wrong_change=wrong, power=power,
                        true_diff_planted=float(c1.true_diff[0]))


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


def calibrate_collection(
    scores,
    *,
    n_topics: int | None = None,
    alpha: float | Sequence[float] = 0.05,
    deltas: Sequence[float] = DEFAULT_DELTAS,
    n_replicates: int | None = None,
    n_resamples: int = 1000,
    copula: CopulaKind | str = CopulaKind.gaussian,
    bounds: tuple[float, float] = (0.0, 1.0),
    block_size: int | None = None,
    verdict_replicates: int = 200,
    gtheory_replicates: int = 2000,
    target: float = 0.95,
    fit_collections: int = 300,
    measure: str = "",
    seed=0,
    progress: Callable[[str, int, int], None] | None = None,
    client=None,
) -> TrustCalibration:
    """Simulate collections like ``scores`` and measure how often each answer is wrong.

    Parameters
    ----------
    scores : pandas.DataFrame or array-like, shape (S, T)
        One measure's scores (systems x topics), in ``bounds``; ``S >= 2``, ``T >= 8``.
    n_topics : int, optional
        Topics of the simulated collections (default: the collection's ``T``).
    alpha : float or sequence of float
        Significance levels (each in (0, 1)).
    deltas : sequence of float
        Planted differences of expected scores for power and type III errors.
    n_replicates : int, optional
        Collections for the tests (default :func:`default_replicates`).
    n_resamples : int
        ``B`` of the Monte-Carlo tests (permutation, bootstrap, Tukey HSD).
    copula : {"gaussian", "vine"}
    bounds : (float, float)
        The measure's range (default [0, 1], every measure irstab normalises).
    block_size : int, optional
        Collections a block (a planting layout and its resamples) holds; default
        ``max(10, ceil(R / 20))``: about 20 blocks, enough for the cluster errors, few
        enough that a block's fixed cost (planting) is shared by many collections.
    verdict_replicates : int
        Collections of each of the verdict's two universes (0: leave the verdict out).
    gtheory_replicates : int
        Collections of the topics-needed check.
    target : float
        The Phi that topics needed aims at.
    fit_collections : int
        Collections of the split-half fit check (0: leave it out).
    measure : str
        The measure's name, for the output.
    seed : int or numpy.random.Generator
    progress : callable, optional
        ``progress(stage, done, total)`` as stages advance.
    client : distributed.Client, optional
        Run the test blocks on this Dask cluster (the same numbers as locally).

    Returns
    -------
    TrustCalibration

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = np.clip(rng.normal(0.5, 0.08, (6, 1)) + rng.normal(0, 0.15, (6, 30)), 0, 1)
    >>> card = calibrate_collection(x, n_replicates=20, n_resamples=200, verdict_replicates=0,
    ...                             gtheory_replicates=100, fit_collections=0, seed=1)
    >>> sorted({r.test for r in card.tests})
    ['bootstrap', 'permutation', 'sign', 't', 'tukey', 'wilcoxon']
    """
    x, systems, topics, bounds = score_matrix_input(scores, bounds, min_topics=MIN_TOPICS)
    S, T0 = x.shape
    n_t = T0 if n_topics is None else check_positive_int("n_topics", n_topics, 2)
    alphas = [alpha] if np.ndim(alpha) == 0 else list(alpha)
    if not alphas:
        raise IRStabError("alpha: give at least one significance level")
    alphas = sorted({check_alpha(a) for a in alphas})
    deltas = _check_deltas(deltas)
    B = check_positive_int("n_resamples", n_resamples)
    R = default_replicates(S) if n_replicates is None else \
        check_positive_int("n_replicates", n_replicates)
    bs = max(10, math.ceil(R / _BLOCKS)) if block_size is None else \
        check_positive_int("block_size", block_size)
    Rv = check_positive_int("verdict_replicates", verdict_replicates, 0)
    Rg = check_positive_int("gtheory_replicates", gtheory_replicates, 1)
    Rf = check_positive_int("fit_collections", fit_collections, 0)
    if not 0.0 < target < 1.0:
        raise IRStabError(f"target: must be in (0, 1), got {target!r}")
    P = S * (S - 1) // 2
    check_allocation(8.0 * 4 * min(bs, R) * P * n_t, f"a block of {min(bs, R)} collections "
                     f"of {S} systems ({P} pairs) x {n_t} topics")
    rng = check_seed(seed)
    say = progress or (lambda stage, done, total: None)

    model = fit_collection(x, bounds=bounds, copula=copula, seed=rng)
    levels = _levels(deltas)
    sizes = [min(bs, R - s) for s in range(0, R, bs)]
    seeds = rng.spawn(len(sizes))
    jobs = [dict(model=model, levels=levels, shift=b, n_collections=m, n_topics=n_t,
                 alphas=alphas, n_resamples=B, seed=s)
            for b, (m, s) in enumerate(zip(sizes, seeds))]
    say("testing", 0, R)
    blocks = []
    if client is None:
        done = 0
        for job in jobs:  # blocks of collections, each vectorised
            blocks.append(_block(**job))
            done += job["n_collections"]
            say("testing", done, R)
    else:
        blocks = _on_cluster(client, jobs, lambda done: say("testing", done, R))
    tests = _test_rows(blocks, alphas, levels, n_t)

    verdict = None
    if Rv:
        say("verdict", 0, 2 * Rv)
        verdict = _verdict_check(x, n_t, Rv, target, rng,
                                 lambda r: say("verdict", r, 2 * Rv))
    say("topics needed", 0, Rg)
    topics_needed = _topics_needed_check(x, Rg, n_t, target, rng)
    say("topics needed", Rg, Rg)
    fit = None
    if Rf:
        say("fit check", 0, 1)
        fit = fit_check(x, bounds=bounds, copula=copula, n_collections=Rf, n_reference=0,
                        seed=rng)
        say("fit check", 1, 1)
    notes = _notes(tests, B, P, alphas)
    return TrustCalibration(
        measure=measure, systems=systems, n_topics_observed=T0, n_topics=n_t, model=model,
        fit=fit, tests=tuple(tests), verdict=verdict, topics_needed=topics_needed,
        alphas=tuple(alphas), deltas=deltas, n_replicates=R, n_resamples=B, block_size=bs,
        notes=tuple(notes), observed_means=np.asarray(x.mean(axis=1)))


def _on_cluster(client, jobs, advance) -> list:
    """The blocks on a Dask cluster: one task each, results in order."""
    from distributed import as_completed

    futures = [client.submit(_block, pure=False, **job) for job in jobs]
    index = {f.key: k for k, f in enumerate(futures)}
    out: list = [None] * len(futures)
    done = 0
    for fut in as_completed(futures):
        k = index[fut.key]
        out[k] = fut.result()
        done += jobs[k]["n_collections"]
        advance(done)
    return out


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


def _notes(tests, B: int, P: int, alphas) -> list[str]:
    notes = []
    for a in alphas:
        if (B + 1) * a < P:
            notes.append(
                f"Monte-Carlo tests with B = {B} resamples have p-values of at least "
                f"1/{B + 1}: with Holm over {P} pairs at alpha {a:g} they reject nothing "
                f"unless B is at least {math.ceil(P / a) - 1} (their rates here are what "
                "such a test does)")
    return notes
