r"""How far to trust each answer on *this* collection: tests, verdict and topics needed, simulated.

:func:`calibrate_collection` fits the simulator of the user's collection
(:func:`irstab.simulate.fit_collection`: bounded margins per system, a copula
between systems; Urbano & Nagler, SIGIR 2018) to one measure's systems x topics
scores, draws ``R`` new collections at the collection's number of topics (or a
planned one) with effects planted exactly, and counts how often each answer
irstab gives is wrong:

* the **paired significance tests** (t, permutation, bootstrap, Wilcoxon, sign; alone and with
  Holm or Benjamini-Hochberg; randomised Tukey HSD): type I error, power and type III error at
  planted differences (:mod:`.paired_tests`);
* **the verdict**: its interval's coverage, wrong changes and power in universes made of the
  collection's own scores, against a twin of the measure and for each candidate measure the
  user compares with it (:mod:`.checks`);
* **topics needed** for Phi = ``target``: the true Phi the estimated topic count reaches
  (:mod:`.checks`);
* the simulator's own **fit check** (:func:`irstab.simulate.fit_check`), and whether it
  fails (:func:`.checks.judge_fit`): then the card says so first.

The result, :class:`~irstab.trust.result.TrustCalibration`, is what ``irstab calibrate``
prints and the report's trust card shows.

References
----------
Urbano, J., Nagler, T. (2018). Stochastic simulation of test collections: evaluation
scores. SIGIR 2018. The tests' references are in :mod:`.paired_tests`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from .._numeric import check_allocation, check_seed, check_varies
from .._workers import one_blas_thread
from ..io.scores import check_alpha, check_positive_int
from ..errors import DegenerateDataError, IRStabError
from ..simulate import CopulaKind, fit_check, fit_collection
from ..simulate.collection_model import score_matrix_input
from .checks import _candidate_checks, _topics_needed_check, _verdict_check, judge_fit
from .paired_tests import CORRECTIONS, DEFAULT_DELTAS, PAIRED_TESTS, _block, _check_deltas, \
    _levels, _mark_rows, _notes, _test_rows, block_bytes, default_replicates
from .result import TrustCalibration

# DEFAULT_DELTAS, default_replicates, PAIRED_TESTS and CORRECTIONS live in .paired_tests; named
# here too, where ``irstab.trust.card`` offered them
__all__ = ["calibrate_collection", "TrustCalibration", "DEFAULT_DELTAS", "default_replicates",
           "PAIRED_TESTS", "CORRECTIONS", "MIN_SYSTEMS", "MIN_TOPICS"]

#: The smallest collection the card is made for (the fit check needs 8 topics; 4 systems
#: give one planted pair beside two untouched systems).
MIN_SYSTEMS, MIN_TOPICS = 4, 8
#: Blocks the default block size aims at (the cluster errors' units).
_BLOCKS = 20


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
    candidates=None,
    candidate_replicates: int | None = None,
    sampling_resamples: int = 10,
    candidates_note: str = "",
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
        Collections of each of the verdict's two universes (0: leave the verdict out, and
        its candidates with it).
    candidates : mapping, optional
        ``{measure: (S, T) scores}``: the measures the user compares with this one, on the
        same systems and topics (DataFrames are aligned by their labels). Each is checked
        in its own real-score universe (:func:`.checks._candidate_checks`): the coverage of
        its interval, the changes to it the truth does not favour, and the power where the
        truth favours it. Their scores need not lie in ``bounds``.
    candidate_replicates : int, optional
        Collections of each candidate's universe (default ``verdict_replicates``).
    sampling_resamples : int
        Bootstrap resamples of the collection (systems and topics with replacement) on
        which each candidate's coverage is measured again, over half
        ``candidate_replicates`` collections each, for its error between collections like
        this one (:func:`irstab.trust.result.between_collections_sd`; 0 or 1: not
        measured). The Monte-Carlo error says how well the card knows *this* collection's
        universe; on parts of TREC DL 2019 the card's coverage moved between parts about
        twice as far (``docs/trust-card.md``).
    candidates_note : str
        Why there are no candidates, for the card (e.g. "a score matrix holds one
        measure"); without candidates and a note, the card says nothing of them.
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
    if S < 2:
        raise DegenerateDataError(f"scores: {S} system; the card tests pairs of systems, give "
                                  "at least 2")
    check_varies(x, "scores", between_systems=True,
                 then="there is no difference between systems to plant, test or simulate")
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
    if Rv and S < 3:
        raise DegenerateDataError(
            f"scores: {S} systems; the verdict's check needs at least 3 (its interval leaves "
            "systems out); leave the verdict out with verdict_replicates=0 "
            "(--verdict-replicates 0) to measure the tests alone")
    cands = _candidate_scores(candidates, scores, x, measure) if Rv else {}
    Rc = Rv if candidate_replicates is None else \
        check_positive_int("candidate_replicates", candidate_replicates, 1)
    Bs = check_positive_int("sampling_resamples", sampling_resamples, 0)
    Rs = max(2, Rc // 2)
    Rg = check_positive_int("gtheory_replicates", gtheory_replicates, 1)
    Rf = check_positive_int("fit_collections", fit_collections, 0)
    if not 0.0 < target < 1.0:
        raise IRStabError(f"target: must be in (0, 1), got {target!r}")
    P = S * (S - 1) // 2
    check_allocation(block_bytes(S, n_t, min(bs, R), B),
                     f"scores: {S} systems make {P} pairs; a block of {min(bs, R)} simulated "
                     f"collections of them on {n_t} topics, tested six ways,")
    # every product is small (systems x topics, pairs x resamples): OpenBLAS's second thread
    # spins for each of thousands of them and costs more CPU than it saves time (DL-2019's
    # 20 blocks of tests: 3.1-4.8 s of CPU on one thread, 6.0-6.3 s on two); each entry
    # of a product is one thread's sum either way, so the numbers are the same
    with one_blas_thread():
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
        tests = _mark_rows(_test_rows(blocks, alphas, levels, n_t), B, S * (S - 1) // 2)

        verdict = None
        if Rv:
            total = 2 * Rv + len(cands) * (Rc + (Bs * Rs if Bs > 1 else 0))
            say("verdict", 0, total)
            verdict = _verdict_check(x, n_t, Rv, target, rng,
                                     lambda r: say("verdict", r, total))
            # a stream of their own: the candidates leave the later checks' draws as they were
            checked = _candidate_checks(x, cands, n_t, Rc, target, rng.spawn(1)[0],
                                        lambda r: say("verdict", 2 * Rv + r, total), Bs, Rs)
            verdict = replace(verdict, candidates=checked,
                              candidates_note="" if cands else str(candidates_note))
        say("topics needed", 0, Rg)
        topics_needed = _topics_needed_check(x, Rg, n_t, target, rng, bounds)
        say("topics needed", Rg, Rg)
        fit = judgement = None
        if Rf:
            say("fit check", 0, 1)
            fit = fit_check(x, bounds=bounds, copula=copula, n_collections=Rf, n_reference=0,
                            seed=rng)
            judgement = judge_fit(fit, rng)
            say("fit check", 1, 1)
    notes = _notes(tests, B, P, alphas)
    return TrustCalibration(
        measure=measure, systems=systems, n_topics_observed=T0, n_topics=n_t, model=model,
        fit=fit, tests=tuple(tests), verdict=verdict, topics_needed=topics_needed,
        alphas=tuple(alphas), deltas=deltas, n_replicates=R, n_resamples=B, block_size=bs,
        notes=tuple(notes), observed_means=np.asarray(x.mean(axis=1)),
        fit_judgement=judgement)


def _candidate_scores(candidates, scores, x: np.ndarray, measure: str) -> dict:
    """``{name: (S, T) array}`` of the candidates, on the baseline's systems and topics.

    Validated together with the baseline (:func:`irstab.io.scores.as_scores`: finite
    numbers, one shape; DataFrames aligned by their labels), each error naming the
    candidate.
    """
    import pandas as pd

    from ..io.scores import as_scores

    if candidates is None:
        return {}
    if not hasattr(candidates, "items"):
        raise IRStabError(f"candidates: expected a mapping of measure to scores, got "
                          f"{type(candidates).__name__}")
    out = {}
    for name, y in candidates.items():
        if isinstance(scores, pd.DataFrame) and isinstance(y, pd.DataFrame):
            pair = {"baseline": scores, "candidate": y}
        else:
            pair = {"baseline": x, "candidate": np.asarray(y, dtype=float)
                    if not isinstance(y, pd.DataFrame) else y.to_numpy(dtype=float)}
        try:
            data = as_scores(pair)
        except IRStabError as exc:
            raise type(exc)(f"candidates: {name}: {exc}") from None
        out[str(name)] = np.asarray(data.cube[data.measures.index("candidate")], dtype=float)
    if measure and measure in out:
        raise IRStabError(f"candidates: {measure} is the measure calibrated itself")
    return out


def _on_cluster(client, jobs, advance) -> list:
    """The blocks on a Dask cluster, one task each, results in order, through the waiting
    helper every cluster path uses (:func:`irstab.collection.cluster.map_jobs`: the deadlines
    of ``IRSTAB_CONNECT_TIMEOUT``, ``IRSTAB_WORKER_TIMEOUT`` and ``IRSTAB_JOB_TIMEOUT``, a
    lost block resubmitted)."""
    from ..collection.cluster import map_jobs

    out: list = []
    done = 0
    for job, result in zip(jobs, map_jobs(client, _block, jobs, None, reads_runs=False)):
        out.append(result)
        done += job["n_collections"]
        advance(done)
    return out
