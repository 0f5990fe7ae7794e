r"""Every measure against a baseline: the difference in Phi with a calibrated interval.

The quantity is :math:`\Delta_c = \Phi_c(n) - \Phi_{\mathrm{base}}(n)` at the
observed number of topics :math:`n`, for the universe the G-study generalises
to: random systems *and* random topics. :func:`paired_comparison` estimates it
by the G-studies of the original sample and gives each candidate an interval
that accounts for the correlation of the measures' sampling errors (a paired
comparison).

How the interval is made (``interval``)
---------------------------------------
``"jackknife"`` (default): the two-facet jackknife of the G-study
(:mod:`irstab.verdict.jackknife`): every
difference's variance from the mean squares with one system, one topic, and
one of each left out, the system x topic interaction counted once, the
systems left out exactly (not by the delta method) where a measure's system
means are heavy-tailed, and Student's t with Satterthwaite's degrees of freedom
from the three parts, the system part's deflated by a constant and the topic part's
by one that grows with the excess kurtosis of its leave-one-topic-out contrasts (to 3
degrees of freedom, no lower: :data:`~irstab.verdict.jackknife.FACET_DF_FLOOR`), both
calibrated on ten real collections (:data:`~irstab.verdict.jackknife.FACET_DF_DEFLATION`,
:data:`~irstab.verdict.jackknife.FACET_DF_KURTOSIS`), each
counting part of the interaction variance it was cleared of
(:data:`~irstab.verdict.jackknife.CLIPPED_PART_NOISE`);
over the candidates, Bonferroni's level. It reads the
heavy tails of real system effects and the run-to-run differences of residual
variance from the data. In universes made of real score matrices (systems and
topics resampled from ten public collections, :mod:`irstab.verdict.reference`:
TREC DL 2019, TREC-3, TREC 5-8 ad hoc, TREC Web 2010-2013; truth from the
population) it covers 0.93-1.00 at 12 x 20, 20 x 25 and 30 x 40 where the
true difference is not 0 (all 99 settings within two Monte-Carlo errors of
0.93 or above; the lowest is TREC-3's AP against its planted twin at 20 x 25,
0.928) and 0.98-1.00 where it is 0, where the parametric
interval covers 0.62-0.96; 0.96-1.00 in the normal universes; 0.92-0.97 on two
collections no choice used (docs/calibration.md, 500 and 1000 collections a
setting). No draws:
``n_bootstrap`` only counts the topic resamples of the significant pairs.

``"parametric"``: generalized pivotal quantities of the
multivariate G-study (:mod:`irstab.stability.multivariate`). The
mean-product matrices of all measures are fitted (their diagonals are each
measure's mean squares, the off-diagonals how the measures' system, topic and
residual effects covary); each draw samples the three matrices from their
normal-theory Wishart distribution at the fitted values, which is what a
fresh sample of systems and topics from that universe would give, and turns
every drawn mean square :math:`MS^*` into the pivot :math:`MS^2/MS^*` of its
expectation (Weerahandi 1993; marginally exactly :math:`MS\,\nu/\chi^2_\nu`).
Each measure's Phi is recomputed from the pivots, and the interval of
:math:`\Delta_c` is the percentile interval of the pivots' differences at the
level of :func:`expanded_confidence` (Student's t with :math:`S-1` degrees of
freedom, since the spread of :math:`\hat\Delta` scales with the estimated
system variance). The draws cost O(B M^2 r), not O(B S T): no score matrix
is resampled.

``"bootstrap"``: resample systems and topics with replacement (the
"boot-p,i" of generalizability theory) and recompute Phi. It counts the
system x topic interaction twice, once through each facet: Brennan (2001,
§6.2), Wiley (2000) and Tong & Brennan (2007) show its variance components
are biased upwards, and McCullagh (2000) that no resampling of a crossed
array reproduces its variance. In the calibration study its intervals are up
to 1.7 times too wide (coverage 0.96-1.00 for a nominal 0.95;
docs/calibration.md). Kept to reproduce earlier reports.

``"topic-bootstrap"``: resample topics only (the systems as observed). It
ignores the sampling of systems: too narrow where the measures' system
effects differ.

Why the jackknife: the calibration study (:mod:`irstab.verdict.calibration`,
``benchmarks/bench_calibration.py``, docs/calibration.md) draws collections
from fitted normal components (12 x 30, 30 x 40, DL-2019's 37 x 43) *and*
from real score matrices resampled (ten collections at 12 x 20, 20 x 25,
30 x 40), and keeps the method that holds in both. The parametric pivots, the
default until then, cover 93-97 % in the normal universes only: on real
scores their mean squares vary far more than the Wishart law allows. Rejected
before them, in the normal universes: Rejected there: Wiley's bias correction of
each joint resample (it fixes the *mean* of the resampled components, not
their spread: still too wide); a "divide and conquer" bootstrap (systems
resampled for the system mean squares, topics for the topic mean squares;
Li 2023), close on normal data but worse on DL-2019's own non-normal
effects; the plain parametric bootstrap percentile interval (its intervals
lean away from zero where the two measures' Phi differ, and cover 92-93 %
simultaneously over several candidates); the pivots without the t level
(0.92-0.93 over several candidates).

Simultaneity
------------
The intervals of the *candidates* (the measures that could be recommended)
hold simultaneously: for the jackknife by Bonferroni (:mod:`irstab.verdict.jackknife`);
for the draws' methods by Mandel & Betensky (2008): one tail level :math:`\ell`
makes at most a fraction :math:`\gamma = 1-\text{confidence}` of the draws fall
outside *any* candidate's :math:`[\ell, 1-\ell]` percentile range, so
picking the best of many does not turn noise into a recommendation. The other
measures (context) get their own marginal percentile intervals
(:math:`\ell = \gamma/2`). With one candidate both are the ordinary percentile
interval.

How many draws (:mod:`irstab.verdict.draws`): each tail of each of the
:math:`L` candidates' intervals must hold a draw at the Bonferroni level, so
:math:`B \ge 2L/(1 - c')` with :math:`c'` the level the percentiles are read
at. With fewer draws the intervals are the ranges of the draws: over 20
candidates at 30 x 40, 40 draws made 19 % of collections without any true
difference say "reliably more stable" (980 draws, the minimum at
:math:`c' = 0.9592`: 2.1 %; Monte-Carlo over 240 collections, sd 0.9 %;
tests/verdict/test_verdict_numerics.py). Fewer draws are refused with the
minimum; ``n_bootstrap=None`` takes 1000 or the minimum, whichever is larger.
With 2 systems (Student's t with one degree of freedom, :math:`c' = 1 -
6\times 10^{-37}`) no number of draws resolves the level, and the comparison
is refused.

Significant pairs
-----------------
On B resamples of topics (systems as observed; for ``"bootstrap"`` the topic
draws of the Phi resamples), every pair of systems gets a two-sided paired
t-test at level ``alpha``; :math:`\Delta S^*_c` is the candidate's number of
significant pairs minus the baseline's, with a per-measure percentile interval
(``inverted_cdf``). The t-test stands in for Sakai's bootstrap test (which
would need a bootstrap inside the bootstrap); it is applied to both measures
alike, so the difference is what is read from it.

Conventions
-----------
* Scale: each measure's matrix is scaled by an exact power of two to a spread
  in [1/2, 1) before any square (:func:`irstab._numeric.unit_spread`), so
  scores times 1e-300 or 1e300 give the answers of the scores themselves and
  no finite score is refused. A matrix constant up to rounding (spread at
  most 1e-12 of its magnitude: P@10 = 0.3 on every cell) has Phi = 0 in the
  estimate and in every draw; a constant baseline is an error.
* A measure that is an affine twin of the baseline (``a x + b`` up to
  rounding, :func:`irstab._numeric.affine_twins`; Phi does not see ``a`` and
  ``b``) has :math:`\Delta = 0` and the interval ``[0, 0]`` exactly. Two
  values of Phi within :data:`~irstab._numeric.PHI_ATOL` (1e-9) are equal:
  such a :math:`\hat\Delta` is 0, and draws of :math:`\Delta^*` that spread by
  no more than that (an absolute scale: Phi lives in [0, 1]) do not spread;
  that measure gets ``[\hat\Delta, \hat\Delta]`` and takes no part in choosing
  :math:`\ell`.
* A draw in which a measure has no system variance has Phi = 0 (the
  G-study's convention for clipped components): part of the distribution,
  not an error.
* Paired t-test degenerate pairs: all differences equal and non-zero is
  significant (infinite t), all zero is not; "equal" within 1e-12 of the larger
  of the two systems' largest scores (as :mod:`irstab.compare.discriminative`).

References
----------
Brennan, R. L. (2001). Generalizability Theory. Springer, §6.2 (bootstrap
bias of variance components) and ch. 9 (multivariate G studies).
Wiley, E. W. (2000). Bootstrap strategies for variance component estimation:
theoretical and empirical results. PhD dissertation, Stanford University.
Tong, Y., Brennan, R. L. (2007). Bootstrap estimates of standard errors in
generalizability theory. Educational and Psychological Measurement 67(5),
804-817.
McCullagh, P. (2000). Resampling and exchangeable arrays. Bernoulli 6(2),
285-301.
Li, G. (2023). Which method is optimal for estimating variance components and
their variability in generalizability theory? PLOS ONE 18(7), e0288069.
Weerahandi, S. (1993). Generalized confidence intervals. Journal of the
American Statistical Association 88(423), 899-905.
Hesterberg, T. C. (2015). What teachers should know about the bootstrap:
resampling in the undergraduate statistics curriculum. The American
Statistician 69(4), 371-386 (the expanded percentile interval).
Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
Chapman & Hall, ch. 6 (parametric bootstrap), 13 (percentile intervals), 16.
Mandel, M., Betensky, R. A. (2008). Simultaneous confidence intervals based
on the percentile bootstrap approach. Computational Statistics & Data
Analysis 52(4), 2158-2165.
Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap.
SIGIR 2006 (discriminative power).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._repr import short_repr
from ..errors import DegenerateDataError, IRStabError
from .._numeric import PHI_ATOL, affine_twins, pair_tolerance, spread_exponent, unit_spread
from ..io.scores import CACHE_CELLS, as_scores, check_alpha, check_positive_int, check_seed, \
    frozen, not_among, sample_counts
from .draws import (
    BLOCK_CELLS as _BLOCK_CELLS, PhiDifferences, PhiInterval, check_draws, check_interval,
    check_work, expanded_confidence, min_draws, simultaneous_percentile,
)

__all__ = ["PairedComparison", "PhiInterval", "PhiDifferences", "paired_comparison",
           "phi_differences", "min_draws"]


def _num(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


@short_repr
@dataclass(frozen=True, eq=False)
class PairedComparison:
    r"""Differences of every measure to a baseline, from :func:`paired_comparison`.

    Arrays follow ``measures`` (the baseline included, with differences 0).

    Attributes
    ----------
    measures : tuple of str
    baseline : str
    candidates : tuple of str
        The measures that may be recommended: their Phi intervals hold
        simultaneously. The others' are marginal.
    interval : str
        ``"jackknife"``, ``"parametric"``, ``"bootstrap"`` or ``"topic-bootstrap"``
        (:class:`PhiInterval`).
    n_systems, n_topics, n_bootstrap : int
    confidence, alpha : float
    phi : ndarray
        Phi at the observed topics (original sample).
    phi_diff, phi_diff_lower, phi_diff_upper : ndarray
        Phi minus the baseline's, with its interval.
    phi_diff_sd : ndarray
        Standard deviation of the drawn differences (0 for the baseline).
    simultaneous : ndarray of bool
        True where the interval is one of the simultaneous family's.
    sig_pairs : ndarray of int
        Pairs of systems significant by the paired t-test (original sample).
    sig_diff, sig_diff_lower, sig_diff_upper : ndarray
        Significant pairs minus the baseline's, with a percentile interval.
    n_pairs : int
    level : float
        Tail level :math:`\ell` of the candidates' simultaneous intervals.
    phi_diff_df : ndarray or None
        Degrees of freedom of each difference's interval (jackknife).
    system_influence : ndarray or None
        Per measure, the largest share of the system part of its difference's variance
        that one system carries (jackknife): near 1, one run decides the comparison.
    """

    measures: tuple[str, ...]
    baseline: str
    candidates: tuple[str, ...]
    interval: str
    n_systems: int
    n_topics: int
    n_bootstrap: int
    confidence: float
    alpha: float
    phi: np.ndarray
    phi_diff: np.ndarray
    phi_diff_lower: np.ndarray
    phi_diff_upper: np.ndarray
    phi_diff_sd: np.ndarray
    simultaneous: np.ndarray
    sig_pairs: np.ndarray
    sig_diff: np.ndarray
    sig_diff_lower: np.ndarray
    sig_diff_upper: np.ndarray
    n_pairs: int
    level: float
    phi_diff_df: np.ndarray | None = None
    system_influence: np.ndarray | None = None

    def index(self, measure: str) -> int:
        try:
            return self.measures.index(measure)
        except ValueError:
            raise IRStabError(f"measure: {measure!r} is not in this comparison") from None

    def interval_kind(self, measure: str) -> str:
        """``"baseline"``, ``"simultaneous"`` or ``"marginal"``."""
        k = self.index(measure)
        if measure == self.baseline:
            return "baseline"
        return "simultaneous" if self.simultaneous[k] else "marginal"

    def _summary(self) -> str:
        return (f"{len(self.measures) - 1} measures against {self.baseline} "
                f"({len(self.candidates)} candidates), {self.interval} intervals, "
                f"B = {self.n_bootstrap}")

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: Phi, the difference and its interval, significant pairs."""
        return pd.DataFrame({
            "measure": list(self.measures),
            "interval_kind": [self.interval_kind(m) for m in self.measures],
            "phi": self.phi,
            "phi_diff": self.phi_diff,
            "phi_diff_lower": self.phi_diff_lower,
            "phi_diff_upper": self.phi_diff_upper,
            "phi_diff_sd": self.phi_diff_sd,
            "sig_pairs": self.sig_pairs,
            "sig_diff": self.sig_diff,
            "sig_diff_lower": self.sig_diff_lower,
            "sig_diff_upper": self.sig_diff_upper,
        })

    def to_dict(self) -> dict:
        """JSON-ready; per measure the differences and their intervals."""
        return {
            "baseline": self.baseline,
            "interval": self.interval,
            "candidates": list(self.candidates),
            "n_bootstrap": self.n_bootstrap,
            "confidence": self.confidence,
            "alpha": self.alpha,
            "n_pairs": self.n_pairs,
            "simultaneous_tail_level": _num(self.level),
            "measures": {
                m: {
                    "phi": _num(self.phi[k]),
                    "phi_diff": _num(self.phi_diff[k]),
                    "phi_diff_ci": [_num(self.phi_diff_lower[k]), _num(self.phi_diff_upper[k])],
                    "phi_diff_sd": _num(self.phi_diff_sd[k]),
                    "phi_diff_df": (None if self.phi_diff_df is None
                                    else _num(self.phi_diff_df[k])),
                    "system_influence": (None if self.system_influence is None
                                         else _num(self.system_influence[k])),
                    "interval_kind": self.interval_kind(m),
                    "sig_pairs": int(self.sig_pairs[k]),
                    "sig_diff": int(self.sig_diff[k]),
                    "sig_diff_ci": [_num(self.sig_diff_lower[k]), _num(self.sig_diff_upper[k])],
                }
                for k, m in enumerate(self.measures)
            },
        }


# ----------------------------------------------------------------- Phi differences


def _phi_of_cube(x: np.ndarray, n: int) -> np.ndarray:
    """Phi(n) of matrices ``x[..., s, t]`` (the G-study's rule: scale-free, constant -> 0)."""
    from ..stability.dstudy import crossed_phi

    return crossed_phi(x, n)


def _live(d_star: np.ndarray) -> np.ndarray:
    """Rows of ``d_star`` (M, B) whose draws spread by more than :data:`PHI_ATOL`.

    An absolute scale (Phi lives in [0, 1]): the rounding noise of a difference
    of 1e-16 spreads by 1e-16, which is nothing, not a tenth of its size.
    """
    spread = d_star.max(axis=1, initial=-np.inf) - d_star.min(axis=1, initial=np.inf)
    return spread > PHI_ATOL


def _parametric_draws(cube: np.ndarray, n_draws: int, rng) -> np.ndarray:
    """(M, B) generalized pivots of every measure's Phi (multivariate G-study, Wishart draws).

    ``cube`` is scaled to unit spread per measure (:func:`phi_differences`), so
    no mean product overflows or underflows.
    """
    from ..stability.multivariate import (
        mean_products, phi_from_mean_squares, pivotal_mean_squares,
    )

    _, S, T = cube.shape
    pivots = pivotal_mean_squares(mean_products(cube), n_draws, rng)
    return phi_from_mean_squares(*pivots, S, T).T


def _resampled_draws(cube: np.ndarray, rows: np.ndarray, cols: np.ndarray, progress=None):
    """(M, B) Phi of every measure on resampled matrices ``cube[:, rows_b][:, :, cols_b]``."""
    M, S, T = cube.shape
    B = rows.shape[0]
    out = np.empty((M, B))
    block = max(1, _BLOCK_CELLS // (S * T))
    for k in range(M):  # measures are few; resamples are vectorised in blocks
        for start in range(0, B, block):
            r, c = rows[start : start + block], cols[start : start + block]
            out[k, start : start + block] = _phi_of_cube(cube[k][r[:, :, None], c[:, None, :]], T)
        if progress is not None:
            progress(k + 1)
    return out


def phi_differences(
    cube: np.ndarray,
    baseline: int,
    candidates: np.ndarray,
    *,
    interval: PhiInterval | str = PhiInterval.jackknife,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    rng: np.random.Generator,
    progress=None,
) -> PhiDifferences:
    """The Phi part of :func:`paired_comparison` on a validated cube ``(M, S, T)``.

    ``candidates`` is a boolean mask over the measures (the simultaneous
    family); the baseline's row is 0 with interval ``[0, 0]``. Used as is by
    the calibration study (:mod:`irstab.verdict.calibration`), which may pass
    as ``interval`` a function ``(cube, n_bootstrap, rng)`` returning a
    ``(M, n_bootstrap)`` array of Phi draws, or :class:`PhiDifferences` for a
    method that makes its own intervals (baseline 0, every other measure a
    candidate), to calibrate a method that is not offered here.
    """
    M, S, T = cube.shape
    B = n_bootstrap
    topic_draws = None
    cube, _ = unit_spread(cube)  # scale-free: no square overflows; constant matrices are 0
    if not callable(interval) and check_interval(interval) is PhiInterval.jackknife:
        from .jackknife import jackknife_differences

        out = jackknife_differences(cube, baseline, candidates, confidence=confidence, rng=rng)
        if progress is not None:
            progress(M)
        return out
    if callable(interval):
        phi_star = interval(cube, B, rng)
        if isinstance(phi_star, PhiDifferences):  # a method that makes its own intervals
            return phi_star
        phi_star = np.asarray(phi_star, dtype=float)
        if phi_star.shape != (M, B):
            raise IRStabError(f"interval: the draws have shape {phi_star.shape}, not {(M, B)}")
    elif (interval := check_interval(interval)) is PhiInterval.parametric:
        phi_star = _parametric_draws(cube, B, rng)
        confidence = expanded_confidence(confidence, S)
        if progress is not None:
            progress(M)
    else:
        rows = (rng.integers(0, S, size=(B, S)) if interval is PhiInterval.bootstrap
                else np.broadcast_to(np.arange(S), (B, S)))
        topic_draws = rng.integers(0, T, size=(B, T))
        phi_star = _resampled_draws(cube, rows, topic_draws, progress)
    phi_hat = _phi_of_cube(cube, T)
    twins = affine_twins(cube, baseline)  # Phi cannot tell them apart: exactly no difference
    phi_hat[twins] = phi_hat[baseline]
    d_hat = phi_hat - phi_hat[baseline]
    d_hat[np.abs(d_hat) <= PHI_ATOL] = 0.0
    d_star = phi_star - phi_star[baseline]
    d_star[twins] = 0.0
    live = _live(d_star)
    lo, hi = d_hat.copy(), d_hat.copy()  # constant draws: the observed difference
    fam = np.asarray(candidates, dtype=bool) & live
    fam[baseline] = False
    level = (1.0 - confidence) / 2.0
    if fam.any():
        lo[fam], hi[fam], level = simultaneous_percentile(d_star[fam], confidence)
    for k in np.flatnonzero(live & ~fam):  # context measures: marginal intervals
        (lo[k],), (hi[k],), _ = simultaneous_percentile(d_star[k][None], confidence)
    sd = np.where(live, d_star.std(axis=1), 0.0)
    return PhiDifferences(phi=phi_hat, diff=d_hat, lower=lo, upper=hi, sd=sd, level=level,
                          topic_draws=topic_draws)


# ----------------------------------------------------------------- significant pairs


def _significant_counts(cube, counts, alpha, progress=None) -> np.ndarray:
    """(M, B) pairs significant by the paired t-test on each topic draw (counts: (B, T))."""
    from scipy import stats

    M, S, T = cube.shape
    i, j = np.triu_indices(S, k=1)
    crit2 = stats.t.ppf(1.0 - alpha / 2.0, T - 1) ** 2
    B = counts.shape[0]
    out = np.empty((M, B), dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(len(i), 1))
    rows = max(1, CACHE_CELLS // max(len(i), 1))
    for k in range(M):  # measures are few; pairs and resamples are vectorised
        z = cube[k][i] - cube[k][j]  # (P, T)
        tol = pair_tolerance(cube[k], i, j)  # (P,): equal within the pair's rounding noise
        tol2 = tol * tol
        for start in range(0, B, block):
            c = counts[start : start + block]
            S1 = c @ z.T
            S2 = c @ (z * z).T
            for r0 in range(0, len(c), rows):  # the arithmetic on cache-sized slices
                s1, s2 = S1[r0 : r0 + rows], S2[r0 : r0 + rows]
                m = s1 / T
                var = s1 * m  # in place: max((s2 - s1 m) / (T - 1), 0), then m^2 T / var
                np.subtract(s2, var, out=var)
                var /= T - 1
                np.maximum(var, 0.0, out=var)
                t2 = m * m
                t2 *= T
                with np.errstate(divide="ignore", invalid="ignore"):
                    t2 /= var
                sig = t2 > crit2
                flat = var <= tol2
                if flat.any():  # equal within rounding: significant if the mean is not
                    np.copyto(sig, np.abs(m) > tol, where=flat)
                out[k, start + r0 : start + r0 + len(s1)] = np.count_nonzero(sig, axis=1)
        if progress is not None:
            progress(k + 1)
    return out


def _candidate_mask(measures: tuple[str, ...], baseline: str, candidates) -> np.ndarray:
    if candidates is None:
        return np.array([m != baseline for m in measures])
    if isinstance(candidates, str):
        candidates = [candidates]
    candidates = [str(c) for c in candidates]
    unknown = [c for c in candidates if c not in measures]
    if unknown:
        raise IRStabError(f"candidates: {unknown} not among the measures {list(measures)}")
    if baseline in candidates:
        raise IRStabError(f"candidates: the baseline {baseline!r} cannot be its own candidate")
    return np.array([m in candidates for m in measures])


def paired_comparison(
    scores: Mapping,
    baseline: str,
    *,
    candidates: Sequence[str] | None = None,
    interval: PhiInterval | str = PhiInterval.jackknife,
    n_bootstrap: int | None = None,
    confidence: float = 0.95,
    alpha: float = 0.05,
    seed=0,
    progress=None,
    max_work: float | None = math.inf,
) -> PairedComparison:
    r"""Differences of Phi and of significant pairs to ``baseline``, with intervals.

    See the module docstring for the method, conventions and references.

    Parameters
    ----------
    scores : mapping
        ``{measure: systems x topics}`` matrices (DataFrames or arrays) with
        the same systems and topics; must contain ``baseline``.
    baseline : str
        The measure every other one is compared with.
    candidates : sequence of str, optional
        The measures that could be recommended: their intervals hold
        simultaneously. Default: every measure but the baseline.
    interval : {"jackknife", "parametric", "bootstrap", "topic-bootstrap"}
        How the Phi intervals are made (default: the jackknife, calibrated on real
        and normal collections).
    n_bootstrap : int, optional
        Draws B (shared by every measure), and topic resamples of the
        significant pairs; at least :func:`min_draws` for the candidates
        (``2L / (1 - c')``). Default: 1000, or that minimum if it is larger.
    confidence : float
        Two-sided confidence of the intervals.
    alpha : float
        Level of the paired t-tests that count significant pairs.
    seed : int or numpy.random.Generator
    progress : callable, optional
        Called with the steps done out of ``2 M`` (M measures: Phi, then pairs).
    max_work : float or None
        Refuse, before any of it, a comparison of more work than this
        (:func:`~irstab.verdict.draws.comparison_work`: measures x draws x pairs of
        systems, in paired t-tests), naming how many measures and draws fit; None:
        :data:`~irstab.verdict.draws.MAX_WORK`, as :func:`~irstab.verdict.verdict` takes
        by default. Default: no limit.

    Returns
    -------
    PairedComparison

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> effect = rng.normal(0, 1, (20, 1))
    >>> base = effect + rng.normal(0, 3, (20, 30))
    >>> sharp = effect + rng.normal(0, 0.3, (20, 30))
    >>> r = paired_comparison({"base": base, "sharp": sharp}, "base", n_bootstrap=300)
    >>> bool(r.phi_diff_lower[r.index("sharp")] > 0)
    True
    >>> float(r.phi_diff[r.index("base")]), r.interval
    (0.0, 'jackknife')
    """
    data = as_scores(scores, scale_free=True)
    if baseline not in data.measures:
        raise IRStabError(not_among("baseline", baseline, data.measures))
    if n_bootstrap is not None:
        check_positive_int("n_bootstrap", n_bootstrap)
    alpha = check_alpha(alpha)
    if not 0.0 < confidence < 1.0:
        raise IRStabError(f"confidence: expected a number in (0, 1), got {confidence!r}")
    method = check_interval(interval)
    data.require_topics(2, "the paired comparison")
    if data.n_systems < 2:
        raise IRStabError(f"the paired comparison needs at least 2 systems, got {data.n_systems}")
    mask = _candidate_mask(data.measures, baseline, candidates)
    rng = check_seed(seed)
    cube = data.cube
    M, S, T = cube.shape
    b0 = data.measures.index(baseline)
    L = int(mask.sum() - mask[b0])
    B = check_draws(n_bootstrap, L, S, T, M, confidence, method)
    check_work(M, S, T, B, method, min_draws(L, S, confidence, method), max_work)  # first
    if spread_exponent(cube[b0])[1]:
        from ..stability.designs.crossed import constant_message

        raise DegenerateDataError(
            f"baseline: {baseline!r}: {constant_message(cube[b0])}; it cannot tell systems "
            "apart, so there is no stability to compare with"
        )
    pd_ = phi_differences(cube, b0, mask, interval=method, n_bootstrap=B,
                          confidence=confidence, rng=rng, progress=progress)
    if progress is not None:
        progress(M)

    cols = pd_.topic_draws if pd_.topic_draws is not None else rng.integers(0, T, size=(B, T))
    counts = np.empty((B + 1, T))
    counts[0] = 1.0  # row 0: the original sample
    counts[1:] = sample_counts(cols, T)
    sig = _significant_counts(unit_spread(cube)[0], counts, alpha,
                              None if progress is None else (lambda k: progress(M + k)))
    sig[affine_twins(cube, b0)] = sig[b0]  # the same t statistics, up to rounding
    sig_hat, sig_star = sig[:, 0], sig[:, 1:]
    s_diff = sig_star - sig_star[b0]
    g = (1.0 - confidence) / 2.0
    s_lo, s_hi = np.quantile(s_diff, [g, 1.0 - g], axis=1, method="inverted_cdf")
    return PairedComparison(
        measures=data.measures, baseline=baseline,
        candidates=tuple(m for m, c in zip(data.measures, mask) if c),
        interval=method.value, n_systems=S, n_topics=T, n_bootstrap=B,
        confidence=float(confidence), alpha=alpha,
        phi=frozen(pd_.phi), phi_diff=frozen(pd_.diff), phi_diff_lower=frozen(pd_.lower),
        phi_diff_upper=frozen(pd_.upper), phi_diff_sd=frozen(pd_.sd),
        simultaneous=frozen(mask & (np.arange(M) != b0)),
        sig_pairs=frozen(sig_hat), sig_diff=frozen(sig_hat - sig_hat[b0]),
        sig_diff_lower=frozen(s_lo.astype(float)), sig_diff_upper=frozen(s_hi.astype(float)),
        n_pairs=S * (S - 1) // 2, level=float(pd_.level),
        phi_diff_df=None if pd_.df is None else frozen(pd_.df),
        system_influence=None if pd_.system_influence is None else frozen(pd_.system_influence),
    )
