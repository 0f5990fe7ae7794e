r"""The verdict and topics needed, checked on the collection's universes (the card's second part).

**The verdict** (:func:`irstab.verdict.verdict`, its interval and rule as
:mod:`irstab.verdict.paired` and :mod:`irstab.verdict.decision` give them), calibrated by
:func:`irstab.verdict.calibration.calibrate` in universes made of the
collection's own scores (:func:`~irstab.verdict.universes.resampled_universe`,
systems and topics drawn with replacement): the measure against its null twin
(its residual rows permuted among systems: the same true Phi) gives the interval's
coverage and the wrong changes; against a planted twin (residuals times 0.72: truly
more stable) the power.

**Topics needed for Phi = 0.95**: the G-theory-faithful simulator
(:func:`irstab.simulate.fit_gtheory`; Urbano, Information Retrieval Journal 19, 2016)
has the collection's G-study components as its exact truth; each of ``R``
collections is G-studied, its topics needed for Phi = ``target`` computed, and the
true Phi reached at that many topics recorded (its distribution).
"""

from __future__ import annotations

import numpy as np

from .._numeric import check_seed
from ..simulate import fit_gtheory
from .result import TopicsNeededCheck, VerdictCheck

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
