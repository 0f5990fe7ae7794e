r"""The verdict and topics needed, checked on the collection's universes (the card's second part).

**The verdict** (:func:`irstab.verdict.verdict`, its interval and rule as
:mod:`irstab.verdict.paired` and :mod:`irstab.verdict.decision` give them), calibrated by
:func:`irstab.verdict.calibration.calibrate` in universes made of the
collection's own scores (:func:`~irstab.verdict.universes.resampled_universe`,
systems and topics drawn with replacement): the measure against its null twin
(its residual rows permuted among systems: the same true Phi) gives the interval's
coverage and the wrong changes; against a planted twin (residuals times 0.72: truly
more stable) the power. Then each **candidate** the user compares with the baseline, in
its own universe (the baseline and the candidate resampled together): the coverage of its
interval, the changes to it that the truth does not favour, and the power where it does
(:func:`_candidate_checks`).

**The fit check's rule** (:func:`judge_fit`): the simulator fails its split-half check when
more systems' held-out means fall outside the simulated range than a correct model's split
leaves outside 99 % of the time; the card then says so first.

**Topics needed for Phi = 0.95**: the G-theory-faithful simulator
(:func:`irstab.simulate.fit_gtheory`; Urbano, Information Retrieval Journal 19, 2016)
has the collection's G-study components as its exact truth; each of ``R``
collections is G-studied, its topics needed for Phi = ``target`` computed, and the
true Phi reached at that many topics recorded (its distribution). Its systems are
resampled as well as its topics (``resample_systems=True``, the two-facet bootstrap):
Phi generalises to new systems, and on real collections the systems a collection holds
move its system variance, and so the topics it asks for, as much as its topics do. With
the systems fixed the spread held only the topics' error, and its 5 % point lay up to
0.031 above what real resampling of systems and topics gives (DL-2019 nDCG@10: 0.931
against 0.900-0.908 over seeds; with them resampled 0.903; ``docs/topics-needed.md``).

Two real checks of that spread on the collection's own scores
(``benchmarks/bench_topics_needed.py``):

* :func:`_heldout_halves`: the topics split at random into halves A and B; topics
  needed estimated on A, and the Phi they reach computed from B's G-study, the
  independent half;
* :func:`_resampled_reached`: collections of systems and topics drawn with replacement
  from the collection, the truth its components with divisor N
  (:func:`irstab.verdict.universes.population_components`).
"""

from __future__ import annotations

import math

import numpy as np

from .._numeric import check_seed
from ..simulate import fit_gtheory
from .result import FIT_LEVEL, CandidateCheck, FitJudgement, TopicsNeededCheck, VerdictCheck

__all__: list[str] = []  # the card (.card) is the entry point

#: Cells of a block of collections (systems x topics x collections) the checks hold at once.
_CELLS = 2_000_000


def _components(x: np.ndarray) -> np.ndarray:
    """The G-study's (system, topic, residual) components of each collection of ``x (R, S, T)``.

    The two-way ANOVA's expected mean squares (Brennan 2001, §3.4), vectorised over
    collections: :math:`\\hat\\sigma^2_e = MS_e`, :math:`\\hat\\sigma^2_s = (MS_s - MS_e)/T`,
    :math:`\\hat\\sigma^2_t = (MS_t - MS_e)/S`; negative estimates are left as they are
    (:func:`~irstab.stability.coefficients.psi_of` takes them as 0, as
    :func:`irstab.stability.gstudy` does).
    """
    R, S, T = x.shape
    grand = x.mean(axis=(1, 2))
    rows = x.mean(axis=2)
    cols = x.mean(axis=1)
    ms_s = T * ((rows - grand[:, None]) ** 2).sum(axis=1) / (S - 1)
    ms_t = S * ((cols - grand[:, None]) ** 2).sum(axis=1) / (T - 1)
    resid = x - rows[:, :, None] - cols[:, None, :] + grand[:, None, None]
    ms_e = (resid ** 2).sum(axis=(1, 2)) / ((S - 1) * (T - 1))
    return np.stack([(ms_s - ms_e) / T, (ms_t - ms_e) / S, ms_e], axis=-1)


def _gstudy_needed(x: np.ndarray, target: float) -> np.ndarray:
    """Topics needed for Phi = ``target`` from the G-study of each collection of ``x (R, S, T)``
    (:func:`_components`; inf where the system component is not positive; tested equal to
    :func:`irstab.stability.gstudy`)."""
    from ..stability.coefficients import Coefficient, needed_from_psi, psi_of

    return needed_from_psi(psi_of(_components(x), Coefficient.phi), target)


def _reached(truth, needed: np.ndarray) -> np.ndarray:
    """The true Phi at each finite count of ``needed`` (nan where it is inf)."""
    finite = np.isfinite(needed)
    return np.where(finite, truth.phi(np.where(finite, needed, 1.0)), np.nan)


def _topics_needed_check(scores, n_replicates, n_topics, target, rng,
                         bounds=(0.0, 1.0), resample_systems=True) -> TopicsNeededCheck:
    gt = fit_gtheory(scores, bounds=bounds, resample_systems=resample_systems)
    truth = gt.components
    needed = np.empty(n_replicates)
    chunk = max(1, _CELLS // max(1, len(gt.systems) * n_topics))
    for start in range(0, n_replicates, chunk):  # blocks of collections bound memory
        m = min(chunk, n_replicates - start)
        needed[start:start + m] = _gstudy_needed(gt.draw(m, n_topics, rng), target)
    return TopicsNeededCheck(target=float(target), n_topics=int(n_topics),
                             true_needed=float(truth.topics_needed(target)),
                             true_phi=float(truth.phi(n_topics)), needed=needed,
                             phi_reached=_reached(truth, needed), components=truth,
                             resample_systems=bool(resample_systems))


def _heldout_halves(x: np.ndarray, n_splits: int, target: float,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    r"""Topics needed on one half of the topics, and the Phi they reach on the other half.

    Each split permutes the ``T`` topics at random: A is the first :math:`\lfloor T/2
    \rfloor`, B the rest. :math:`\hat n_A` is the topics needed for Phi = ``target``
    from A's G-study (:func:`_gstudy_needed`); the Phi it reaches is B's, at that count:

    .. math:: \Phi_B(\hat n_A) = \frac{\hat\sigma^2_{s,B}}{\hat\sigma^2_{s,B}
              + (\hat\sigma^2_{t,B} + \hat\sigma^2_{e,B}) / \hat n_A}

    (components clipped at 0; nan where :math:`\hat n_A` is inf). B's topics are not
    those the count was estimated on, so B's components are an unbiased estimate of the
    truth independent of :math:`\hat n_A` (the same systems, other topics); but B's
    Phi errs too, by B's own topics: on the log-odds scale its error adds to A's, about
    doubling the variance, so the 5 % point of :math:`\Phi_B(\hat n_A)` lies below
    that of the true Phi reached by an estimate from :math:`\lfloor T/2 \rfloor` topics
    (``docs/topics-needed.md`` measures by how much).

    Returns ``(needed, reached)``, each of length ``n_splits``; blocks of splits bound
    the memory.
    """
    from ..stability.coefficients import Coefficient, coef_from_psi, psi_of

    S, T = x.shape
    h = T // 2
    needed = np.empty(n_splits)
    reached = np.empty(n_splits)
    chunk = max(1, _CELLS // (S * T))
    for start in range(0, n_splits, chunk):
        m = min(chunk, n_splits - start)
        order = np.argsort(rng.random((m, T)), axis=1)
        a = np.moveaxis(x[:, order[:, :h]], 1, 0)                     # (m, S, h)
        b = np.moveaxis(x[:, order[:, h:]], 1, 0)                     # (m, S, T - h)
        n = _gstudy_needed(a, target)
        finite = np.isfinite(n)
        phi = coef_from_psi(psi_of(_components(b), Coefficient.phi), np.where(finite, n, 1.0))
        needed[start:start + m] = n
        reached[start:start + m] = np.where(finite, phi, np.nan)
    return needed, reached


def _resampled_reached(x: np.ndarray, n_replicates: int, n_topics: int, target: float,
                       rng: np.random.Generator,
                       n_systems: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Topics needed on collections resampled from ``x``, and the true Phi they reach.

    The population is the collection: each of ``n_replicates`` collections draws
    ``n_systems`` (default all ``S``) of its systems and ``n_topics`` of its topics with
    replacement; the truth is the population's components with divisor N
    (:func:`irstab.verdict.universes.population_components`, for which the G-study of such
    a draw is unbiased). Nothing is modelled: the real scores come as they are. Returns
    ``(needed, reached)``.
    """
    from ..simulate import TrueComponents
    from ..verdict.universes import population_components

    S0, T0 = x.shape
    S = S0 if n_systems is None else int(n_systems)
    pc = population_components(x[None])
    truth = TrueComponents(system=float(pc.systems[0, 0]), topic=float(pc.topics[0, 0]),
                           residual=float(pc.residual[0, 0]))
    needed = np.empty(n_replicates)
    chunk = max(1, _CELLS // (S * n_topics))
    for start in range(0, n_replicates, chunk):
        m = min(chunk, n_replicates - start)
        rows = rng.integers(0, S0, (m, S, 1))
        cols = rng.integers(0, T0, (m, 1, n_topics))
        needed[start:start + m] = _gstudy_needed(x[rows, cols], target)
    return needed, _reached(truth, needed)


def _verdict_check(x: np.ndarray, n_topics: int, n_replicates: int, target: float,
                   seed, progress) -> VerdictCheck:
    from ..verdict.calibration import calibrate
    from ..verdict.universes import PLANT_RESIDUAL, planted_scores, resampled_universe

    S = x.shape[0]
    twin = planted_scores(x, 1.0, np.roll(np.arange(S), 1))
    plant = planted_scores(x, PLANT_RESIDUAL)
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


def _candidate_checks(x: np.ndarray, candidates, n_topics: int, n_replicates: int,
                      target: float, seed, progress, n_sampling: int = 0,
                      sampling_replicates: int = 0) -> tuple[CandidateCheck, ...]:
    """Each candidate against the baseline ``x`` in the collection's own real-score universe.

    One universe per candidate (:func:`~irstab.verdict.universes.resampled_universe`: the
    baseline and that candidate, systems and topics resampled with replacement at ``S`` x
    ``n_topics``), calibrated by :func:`irstab.verdict.calibration.calibrate` with the
    verdict's own interval and rule: the candidate's interval is the one
    :func:`irstab.verdict.verdict` gives a single candidate (a family of several makes each
    interval wider, so this is the stricter test). ``candidates`` is ``{measure: (S, T)
    scores}`` on the systems and topics of ``x``.

    With ``n_sampling`` > 1, the coverage is also measured in the universes of
    ``n_sampling`` bootstrap resamples of the collection (the same systems and topics for
    the baseline and the candidate), ``sampling_replicates`` collections each: what
    :func:`~irstab.trust.result.between_collections_sd` turns into the coverage's error
    between collections like this one. ``progress`` counts collections drawn:
    ``n_replicates + n_sampling * sampling_replicates`` per candidate.
    """
    from ..verdict.calibration import calibrate
    from ..verdict.universes import resampled_universe

    rng = check_seed(seed)
    # the resamples' own stream: each candidate's card is the same with or without them
    resampling = rng.spawn(1)[0]
    S, T = x.shape
    out = []
    base = "(baseline)"
    while base in candidates:  # a name of its own, whatever the candidates are called
        base += "'"
    each = n_replicates + (n_sampling * sampling_replicates if n_sampling > 1 else 0)
    for k, (name, y) in enumerate(candidates.items()):
        u = resampled_universe(f"candidate {name}", {base: x, name: y}, base, S, n_topics)
        done = k * each
        c = calibrate(u, n_replicates=n_replicates, target=target, seed=rng,
                      progress=None if progress is None else (lambda r, d=done: progress(d + r)))
        resampled = None
        if n_sampling > 1:
            resampled = np.empty(n_sampling)
            # one universe per resample: each is a population of its own (its own truth), so
            # the resamples cannot share one calibrate call
            for b in range(n_sampling):
                s, t = _varied_resample((x, y), resampling)
                ub = resampled_universe(f"candidate {name}, resample {b + 1}",
                                        {base: x[np.ix_(s, t)], name: y[np.ix_(s, t)]}, base,
                                        S, n_topics)
                at = done + n_replicates + b * sampling_replicates
                cb = calibrate(ub, n_replicates=sampling_replicates, target=target,
                               seed=resampling,
                               progress=None if progress is None
                               else (lambda r, d=at: progress(d + r)))
                resampled[b] = cb.covered[:, 0].mean()
        out.append(CandidateCheck(measure=str(name), true_diff=float(c.true_diff[0]),
                                  favoured=bool(c.truly_better[0]),
                                  covered=c.covered[:, 0].copy(),
                                  recommended=c.recommended == 0,
                                  confidence=c.confidence, resampled_coverage=resampled,
                                  resampled_replicates=sampling_replicates
                                  if resampled is not None else 0))
    return tuple(out)


def _varied_resample(matrices, rng) -> tuple[np.ndarray, np.ndarray]:
    """Systems and topics drawn with replacement, ``(s, t)``, drawn again while some matrix's
    system means do not vary on them: a resample of one system's rows (likely with 3
    systems), or of topics on which the systems are all equal, has no difference to compare.
    On real collections of tens of systems and topics nothing is drawn again; where it is,
    the bootstrap is conditional on a comparable collection. After 100 draws, the
    collection itself."""
    S, T = matrices[0].shape
    for _ in range(100):
        s, t = rng.integers(0, S, S), rng.integers(0, T, T)
        if all(np.ptp(m[np.ix_(s, t)].mean(axis=1)) > 0 for m in matrices):
            return s, t
    return np.arange(S), np.arange(T)


def judge_fit(fit, seed, n_null: int = 1000, level: float = FIT_LEVEL) -> FitJudgement:
    r"""Does the simulator fail its split-half check? A Monte-Carlo test of the means' count.

    The statistic: :math:`k`, the systems whose held-out topics' mean lies outside the
    central 95 % of the simulated means (:func:`irstab.simulate.fit_check`). Its null
    distribution is that of a *correct* model checked the same way, made from the model
    fitted on the fit half: a held-out half is a simulated collection's system means
    :math:`m` (``T_h`` topics), and the model's centre is off by the fit half's own
    sampling error, another simulated collection's deviation from the model's exact means
    :math:`\mu` scaled to ``T_f`` topics: :math:`m - \sqrt{T_h/T_f}\,(m' - \mu)`. Each of
    ``n_null`` such pseudo halves is counted against the same ranges; the p-value is
    :math:`(1 + \#\{k^* \ge k\}) / (1 + N)` and the simulator fails below ``level`` (0.01).

    Why not a binomial test of :math:`k` against 5 %: a correct model fitted on half the
    topics leaves about 17 % of the means outside (:math:`1 - (2\Phi(1.96/\sqrt2) - 1)`,
    the fit half's error as large as the held-out half's), and the systems are not
    independent: a half with harder topics moves every system's mean together. On 160
    collections drawn from the models fitted to DL-2019 nDCG@10, TREC-3 AP, TREC Web 2013
    nDCG@20 and TREC-5 P@10 (correct models by construction; up to 38 of 40 systems
    outside), binomial tests of ``k`` at level 0.01 called 44 % (against 5 %) and 19 %
    (against 17 %) of them failures, this test 1.9 % (``benchmarks/bench_fit_rule.py``,
    docs/trust-card.md).
    """
    st = fit.statistics
    m = st[st["statistic"] == "mean"]
    ok = m["inside"].notna().to_numpy()
    held = m["held_out"].to_numpy(dtype=float)[ok]
    lo, hi = m["lo"].to_numpy(dtype=float)[ok], m["hi"].to_numpy(dtype=float)[ok]
    outside = int(((held < lo) | (held > hi)).sum())
    t_h, t_f = len(fit.held_topics), len(fit.fit_topics)
    rng = check_seed(seed)
    model = fit.model
    sims = np.empty((2 * n_null, int(ok.sum())))
    chunk = max(1, 2_000_000 // max(1, len(model.systems) * t_h))
    for start in range(0, 2 * n_null, chunk):  # blocks of collections bound memory
        r = min(chunk, 2 * n_null - start)
        sims[start:start + r] = model.draw(r, t_h, rng).mean(axis=2)[:, ok]
    pseudo = sims[:n_null] - math.sqrt(t_h / t_f) * (sims[n_null:] - model.means[ok])
    counts = ((pseudo < lo) | (pseudo > hi)).sum(axis=1)
    p = (1.0 + float((counts >= outside).sum())) / (1.0 + n_null)
    return FitJudgement(outside=outside, compared=int(ok.sum()), expected=float(counts.mean()),
                        p_value=p, n_null=int(n_null), level=float(level))
