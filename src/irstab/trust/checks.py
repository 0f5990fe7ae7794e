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
true Phi reached at that many topics recorded (its distribution).
"""

from __future__ import annotations

import math

import numpy as np

from .._numeric import check_seed
from ..simulate import fit_gtheory
from .result import FIT_LEVEL, CandidateCheck, FitJudgement, TopicsNeededCheck, VerdictCheck

__all__: list[str] = []  # the card (.card) is the entry point

#: Residual scale of the verdict's planted twin (the moderate plant of docs/calibration.md).
_PLANT_RESIDUAL = 0.72


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


def _topics_needed_check(scores, n_replicates, n_topics, target, rng,
                         bounds=(0.0, 1.0)) -> TopicsNeededCheck:
    gt = fit_gtheory(scores, bounds=bounds)
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
    from ..verdict.calibration import calibrate
    from ..verdict.universes import planted_scores, resampled_universe

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


def _candidate_checks(x: np.ndarray, candidates, n_topics: int, n_replicates: int,
                      target: float, seed, progress) -> tuple[CandidateCheck, ...]:
    """Each candidate against the baseline ``x`` in the collection's own real-score universe.

    One universe per candidate (:func:`~irstab.verdict.universes.resampled_universe`: the
    baseline and that candidate, systems and topics resampled with replacement at ``S`` x
    ``n_topics``), calibrated by :func:`irstab.verdict.calibration.calibrate` with the
    verdict's own interval and rule: the candidate's interval is the one
    :func:`irstab.verdict.verdict` gives a single candidate (a family of several makes each
    interval wider, so this is the stricter test). ``candidates`` is ``{measure: (S, T)
    scores}`` on the systems and topics of ``x``.
    """
    from ..verdict.calibration import calibrate
    from ..verdict.universes import resampled_universe

    rng = check_seed(seed)
    S = x.shape[0]
    out = []
    base = "(baseline)"
    while base in candidates:  # a name of its own, whatever the candidates are called
        base += "'"
    for k, (name, y) in enumerate(candidates.items()):
        u = resampled_universe(f"candidate {name}", {base: x, name: y}, base, S, n_topics)
        done = k * n_replicates
        c = calibrate(u, n_replicates=n_replicates, target=target, seed=rng,
                      progress=None if progress is None else (lambda r, d=done: progress(d + r)))
        out.append(CandidateCheck(measure=str(name), true_diff=float(c.true_diff[0]),
                                  favoured=bool(c.truly_better[0]),
                                  covered=c.covered[:, 0].copy(),
                                  recommended=c.recommended == 0,
                                  confidence=c.confidence))
    return tuple(out)


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
