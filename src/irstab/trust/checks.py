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

import numpy as np

from .._numeric import check_seed
from ..simulate import fit_gtheory
from .result import TopicsNeededCheck, VerdictCheck

__all__: list[str] = []  # the card (.card) is the entry point

#: Residual scale of the verdict's planted twin (the moderate plant of docs/calibration.md).
_PLANT_RESIDUAL = 0.72


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
