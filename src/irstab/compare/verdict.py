r"""Should a study change its measure? A paired decision against a baseline measure.

The question a researcher asks of a stability study is not "which measure has
the largest Phi" (with 40-odd topics several are within sampling noise of each
other) but "is any candidate *reliably* more stable than the measure I use, by
enough to matter?". This module answers it in two steps.

1. :func:`paired_bootstrap` resamples once and evaluates every measure on the
   same resamples, so each candidate's *difference* to the baseline has its
   own sampling distribution (paired comparison; Efron & Tibshirani 1993,
   ch. 16). Per resample :math:`b`:

   * systems and topics are drawn with replacement (the G-study's
     ``resample="both"`` bootstrap, :mod:`irstab.stability.bootstrap`), the
     variance components re-estimated and
     :math:`\Delta\Phi^{*b}_c = \Phi^{*b}_c(n) - \Phi^{*b}_{\mathrm{base}}(n)`
     computed at the observed number of topics :math:`n`;
   * on the same topic draw (systems as observed) every pair of systems gets
     a two-sided paired t-test at level ``alpha``, and
     :math:`\Delta S^{*b}_c` is the candidate's number of significant pairs
     minus the baseline's.

   The Phi intervals are *simultaneous* percentile intervals over all
   candidates (Mandel & Betensky 2008): every candidate's interval is the
   :math:`[\ell, 1-\ell]` percentile range of its :math:`\Delta\Phi^{*}_c`,
   with one tail level :math:`\ell` chosen so that at most a fraction
   :math:`\gamma = 1 - \text{confidence}` of the resamples fall outside *any*
   candidate's range. Picking the best of 50 candidates therefore does not
   turn noise into a recommendation (with one candidate, :math:`\ell =
   \gamma/2`: the ordinary percentile interval). The significant-pair
   difference gets a per-candidate percentile interval (``inverted_cdf``).
2. :func:`decide` applies the rule: recommend a change to candidate :math:`c`
   only if

   * its simultaneous interval lies above 0 (reliably more stable), and
   * the saving is material: the topics needed for Phi = ``target``
     (G-study point estimates) drop by at least ``min_saving`` of the
     baseline's and by at least one topic.

   Among the candidates that pass, the one with the largest
   :math:`\hat\Delta_c` is recommended (ties: the first in the given order).
   Otherwise the baseline is kept, and the candidates with the largest
   :math:`\hat\Delta_c` are named as the closest. Stability and
   discriminative power *disagree* for a candidate when its Phi difference and
   its significant-pair difference have opposite signs; the verdict says so
   for the recommended and the closest candidates, and flags any candidate
   that finds reliably more significant pairs (interval above 0) without
   being reliably more stable.

Conventions
-----------
* A candidate whose scores equal the baseline's on every cell has
  :math:`\Delta = 0` on every resample: interval ``[0, 0]``, never
  recommended. Candidates with a constant bootstrap difference (within
  1e-12) do not take part in choosing :math:`\ell`; their interval is that
  constant.
* ``resample="both"`` (default) draws systems and topics, as the issue of
  generalising over both facets demands; ``"topics"`` keeps the systems
  (narrower intervals, the question "another topic sample of this size").
* A resample in which a measure has no system variance has Phi = 0 (the
  G-study's convention for clipped components); that is part of the
  sampling distribution, not an error.
* Paired t-test degenerate pairs: all differences equal and non-zero is
  significant (infinite t), all zero is not; "equal" within 1e-12 of the larger
  of the two systems' largest scores (as :mod:`irstab.compare.discriminative`).
* The t-test inside the resamples stands in for Sakai's bootstrap test
  (which would need a bootstrap inside the bootstrap); it is applied to both
  measures alike, so the *difference* is what is read from it.

References
----------
Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
Chapman & Hall, ch. 16 (paired and two-sample bootstrap).
Mandel, M., Betensky, R. A. (2008). Simultaneous confidence intervals based
on the percentile bootstrap approach. Computational Statistics & Data
Analysis 52(4), 2158-2165.
Brennan, R. L. (2001). Generalizability Theory. Springer, ch. 6
(bootstrapping variance components).
Kanoulas, E., Aslam, J. A. (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009 (Phi as the stability criterion).
Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap.
SIGIR 2006 (discriminative power).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import IRStabError
from .._numeric import pair_tolerance
from ._input import as_scores, check_alpha, check_positive_int, check_seed, frozen

__all__ = ["PairedComparison", "Verdict", "decide", "paired_bootstrap"]

_BLOCK_CELLS = 2_000_000  # resampled cells per block (~16 MB of float64)
_CONST_RTOL = 1e-12  # a bootstrap difference spread below this counts as constant


@dataclass(frozen=True, eq=False)
class PairedComparison:
    r"""Differences of every measure to a baseline, from :func:`paired_bootstrap`.

    Arrays follow ``measures`` (the baseline included, with differences 0).

    Attributes
    ----------
    measures : tuple of str
    baseline : str
    n_topics, n_systems, n_bootstrap : int
    confidence, alpha : float
    phi : ndarray
        Phi at the observed topics (original sample).
    phi_diff, phi_diff_lower, phi_diff_upper : ndarray
        Phi minus the baseline's, with its simultaneous interval.
    sig_pairs : ndarray of int
        Pairs of systems significant by the paired t-test (original sample).
    sig_diff, sig_diff_lower, sig_diff_upper : ndarray
        Significant pairs minus the baseline's, with a percentile interval.
    n_pairs : int
    level : float
        Tail level :math:`\ell` of the simultaneous percentile intervals.
    resample : str
    """

    measures: tuple[str, ...]
    baseline: str
    n_systems: int
    n_topics: int
    n_bootstrap: int
    confidence: float
    alpha: float
    phi: np.ndarray
    phi_diff: np.ndarray
    phi_diff_lower: np.ndarray
    phi_diff_upper: np.ndarray
    sig_pairs: np.ndarray
    sig_diff: np.ndarray
    sig_diff_lower: np.ndarray
    sig_diff_upper: np.ndarray
    n_pairs: int
    level: float
    resample: str

    def index(self, measure: str) -> int:
        try:
            return self.measures.index(measure)
        except ValueError:
            raise IRStabError(f"measure: {measure!r} is not in this comparison") from None

    def to_dict(self) -> dict:
        """JSON-ready; per measure the differences and their intervals."""
        def num(v):
            return float(v) if math.isfinite(v) else None

        return {
            "baseline": self.baseline,
            "n_bootstrap": self.n_bootstrap,
            "confidence": self.confidence,
            "alpha": self.alpha,
            "n_pairs": self.n_pairs,
            "resample": self.resample,
            "simultaneous_tail_level": num(self.level),
            "measures": {
                m: {
                    "phi": num(self.phi[k]),
                    "phi_diff": num(self.phi_diff[k]),
                    "phi_diff_ci": [num(self.phi_diff_lower[k]), num(self.phi_diff_upper[k])],
                    "sig_pairs": int(self.sig_pairs[k]),
                    "sig_diff": int(self.sig_diff[k]),
                    "sig_diff_ci": [num(self.sig_diff_lower[k]), num(self.sig_diff_upper[k])],
                }
                for k, m in enumerate(self.measures)
            },
        }


def _phi_at(x: np.ndarray, n: int) -> np.ndarray:
    """Phi(n) of matrices ``x[..., s, t]`` (components clipped at 0, as the G-study)."""
    from ..stability.coefficients import Coefficient, coef_from_psi, psi_of
    from ..stability.designs.crossed import crossed_components

    return coef_from_psi(psi_of(crossed_components(x), Coefficient.phi), n)


def _significant_counts(cube, counts, alpha, progress=None) -> np.ndarray:
    """(M, B) pairs significant by the paired t-test on each topic draw (counts: (B, T))."""
    from scipy import stats

    M, S, T = cube.shape
    i, j = np.triu_indices(S, k=1)
    crit2 = stats.t.ppf(1.0 - alpha / 2.0, T - 1) ** 2
    B = counts.shape[0]
    out = np.empty((M, B), dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(len(i), 1))
    for k in range(M):  # measures are few; pairs and resamples are vectorised
        z = cube[k][i] - cube[k][j]  # (P, T)
        tol = pair_tolerance(cube[k], i, j)  # (P,): equal within the pair's rounding noise
        for start in range(0, B, block):
            c = counts[start : start + block]
            s1 = c @ z.T
            s2 = c @ (z * z).T
            m = s1 / T
            var = np.maximum((s2 - s1 * m) / (T - 1), 0.0)
            flat = var <= tol * tol
            with np.errstate(divide="ignore", invalid="ignore"):
                t2 = np.where(flat, 0.0, m * m * T / np.where(flat, 1.0, var))
            sig = np.where(flat, np.abs(m) > tol, t2 > crit2)
            out[k, start : start + block] = sig.sum(axis=1)
        if progress is not None:
            progress(k + 1)
    return out


def _simultaneous_percentile(d_star: np.ndarray, confidence: float):
    """Simultaneous percentile intervals of the rows of ``d_star`` (M, B) (Mandel & Betensky).

    Returns ``(lower, upper, level)``; rows with no spread get ``[value, value]``.
    """
    M, B = d_star.shape
    spread = d_star.max(axis=1) - d_star.min(axis=1)
    live = spread > _CONST_RTOL * max(float(np.abs(d_star).max(initial=0.0)), 1e-300)
    lo, hi = d_star.min(axis=1).copy(), d_star.max(axis=1).copy()
    gamma = 1.0 - confidence
    if not live.any():
        return lo, hi, gamma / 2.0
    srt = np.sort(d_star[live], axis=1)
    ranks = d_star[live].argsort(axis=1).argsort(axis=1) + 1  # 1..B per row
    tail = np.minimum(ranks, B + 1 - ranks)  # (L, B): two-sided rank from the nearer end
    worst = tail.min(axis=0)  # per resample, the most extreme rank over candidates
    # largest k with #{b : worst_b < k} <= gamma B: outside [k-th, (B+1-k)-th] in at most gamma
    ks = np.arange(1, (B + 1) // 2 + 1)
    outside = np.searchsorted(np.sort(worst), ks, side="left")
    ok = ks[outside <= gamma * B]
    k = int(ok.max()) if ok.size else 1
    lo[live], hi[live] = srt[:, k - 1], srt[:, B - k]
    return lo, hi, k / B


def paired_bootstrap(
    scores: Mapping,
    baseline: str,
    *,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    resample: str = "both",
    seed=0,
    progress=None,
) -> PairedComparison:
    r"""Paired bootstrap differences of Phi and of significant pairs to ``baseline``.

    See the module docstring for the method, conventions and references.

    Parameters
    ----------
    scores : mapping
        ``{measure: systems x topics}`` matrices (DataFrames or arrays) with
        the same systems and topics; must contain ``baseline``.
    baseline : str
        The measure every other one is compared with.
    n_bootstrap : int
        Resamples B (the same draws serve every measure).
    confidence : float
        Two-sided confidence of the intervals (simultaneous for Phi).
    alpha : float
        Level of the paired t-tests that count significant pairs.
    resample : {"both", "topics"}
        Facets drawn with replacement for the Phi differences (the
        significant pairs always keep the systems).
    seed : int or numpy.random.Generator
    progress : callable, optional
        Called with the number of measures done (twice over: Phi, then pairs).

    Returns
    -------
    PairedComparison

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> effect = rng.normal(0, 1, (20, 1))
    >>> base = effect + rng.normal(0, 2, (20, 30))
    >>> sharp = effect + rng.normal(0, 0.3, (20, 30))
    >>> r = paired_bootstrap({"base": base, "sharp": sharp}, "base", n_bootstrap=300)
    >>> bool(r.phi_diff_lower[r.index("sharp")] > 0)
    True
    >>> float(r.phi_diff[r.index("base")])
    0.0
    """
    data = as_scores(scores)
    if baseline not in data.measures:
        raise IRStabError(f"baseline: {baseline!r} is not among the measures {list(data.measures)}")
    B = check_positive_int("n_bootstrap", n_bootstrap)
    alpha = check_alpha(alpha)
    if not 0.0 < confidence < 1.0:
        raise IRStabError(f"confidence: expected a number in (0, 1), got {confidence!r}")
    data.require_topics(2, "the paired bootstrap")
    if data.n_systems < 2:
        raise IRStabError(f"the paired bootstrap needs at least 2 systems, got {data.n_systems}")
    from ..stability.coefficients import Resample

    if resample not in ("both", "topics"):
        raise IRStabError(f"resample: expected 'both' or 'topics', got {resample!r}")
    resample = Resample(resample)
    rng = check_seed(seed)
    cube = data.cube
    M, S, T = cube.shape
    rows = rng.integers(0, S, size=(B, S))
    if resample is Resample.topics:
        rows = np.broadcast_to(np.arange(S), (B, S))
    cols = rng.integers(0, T, size=(B, T))
    b0 = data.measures.index(baseline)

    phi_hat = _phi_at(cube, T)  # (M,)
    phi_star = np.empty((M, B))
    block = max(1, _BLOCK_CELLS // (S * T))
    for k in range(M):
        for start in range(0, B, block):
            r, c = rows[start : start + block], cols[start : start + block]
            phi_star[k, start : start + block] = _phi_at(cube[k][r[:, :, None], c[:, None, :]], T)
        if progress is not None:
            progress(k + 1)
    d_hat = phi_hat - phi_hat[b0]
    d_star = phi_star - phi_star[b0]
    lo, hi, level = _simultaneous_percentile(d_star, confidence)

    counts = np.zeros((B + 1, T))
    counts[0] = 1.0  # row 0: the original sample
    np.add.at(counts, (np.repeat(np.arange(1, B + 1), T), cols.ravel()), 1.0)
    sig = _significant_counts(cube, counts, alpha, progress)
    sig_hat, sig_star = sig[:, 0], sig[:, 1:]
    s_diff = sig_star - sig_star[b0]
    g = (1.0 - confidence) / 2.0
    s_lo, s_hi = np.quantile(s_diff, [g, 1.0 - g], axis=1, method="inverted_cdf")
    return PairedComparison(
        measures=data.measures, baseline=baseline, n_systems=S, n_topics=T, n_bootstrap=B,
        confidence=float(confidence), alpha=alpha,
        phi=frozen(phi_hat), phi_diff=frozen(d_hat), phi_diff_lower=frozen(lo),
        phi_diff_upper=frozen(hi),
        sig_pairs=frozen(sig_hat), sig_diff=frozen(sig_hat - sig_hat[b0]),
        sig_diff_lower=frozen(s_lo.astype(float)), sig_diff_upper=frozen(s_hi.astype(float)),
        n_pairs=S * (S - 1) // 2, level=level, resample=resample.value,
    )


# ----------------------------------------------------------------- decision


@dataclass(frozen=True)
class Verdict:
    """The decision of :func:`decide`.

    Attributes
    ----------
    change : bool
        True: use ``recommended`` instead of the baseline.
    recommended : str
        The measure to use (the baseline when ``change`` is False).
    baseline : str
    closest : tuple of str
        Candidates with the largest Phi difference (besides the recommended one).
    topics_needed : dict
        ``{measure: topics for Phi = target}`` of the baseline, the recommended
        and the closest candidates.
    target : float
    min_saving : float
    disagreements : tuple of str
        Candidates (among recommended and closest) whose Phi and
        significant-pair differences have opposite signs.
    reliably_more_significant : tuple of str
        Candidates whose significant-pair interval lies above 0 while their
        Phi interval does not.
    """

    change: bool
    recommended: str
    baseline: str
    closest: tuple[str, ...]
    topics_needed: dict
    target: float
    min_saving: float
    disagreements: tuple[str, ...]
    reliably_more_significant: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "change": self.change,
            "recommended": self.recommended,
            "baseline": self.baseline,
            "closest": list(self.closest),
            "topics_needed": {
                m: (None if not math.isfinite(v) else int(v)) for m, v in self.topics_needed.items()
            },
            "target": self.target,
            "min_saving": self.min_saving,
            "disagreements": list(self.disagreements),
            "reliably_more_significant": list(self.reliably_more_significant),
        }


def _material(n_base: float, n_cand: float, min_saving: float) -> bool:
    if not math.isfinite(n_cand):
        return False
    if not math.isfinite(n_base):
        return True  # the baseline never reaches the target, the candidate does
    saving = n_base - n_cand
    return saving >= 1 and saving >= min_saving * n_base


def decide(
    comparison: PairedComparison,
    topics_needed: Mapping[str, float],
    *,
    pool: Sequence[str] | None = None,
    target: float = 0.95,
    min_saving: float = 0.10,
    n_closest: int = 3,
) -> Verdict:
    """Keep the baseline or change, by the rule of the module docstring.

    Parameters
    ----------
    comparison : PairedComparison
    topics_needed : mapping
        ``{measure: topics for Phi = target}`` (``inf``: never), from the
        G-studies of the original sample; must cover the pool and the baseline.
    pool : sequence of str, optional
        Measures that may be recommended (default: all but the baseline), in
        order of preference for ties.
    target : float
        The Phi target the topics are counted for (reported only).
    min_saving : float
        Smallest material saving, as a fraction of the baseline's topics.
    n_closest : int
        How many closest candidates to name.

    Returns
    -------
    Verdict

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> effect = rng.normal(0, 1, (10, 1))
    >>> x = {m: effect + rng.normal(0, 2, (10, 40)) for m in ("a", "b", "c")}
    >>> r = paired_bootstrap(x, "a", n_bootstrap=300)
    >>> decide(r, {"a": 50, "b": 48, "c": 52}).change
    False
    """
    if not 0.0 <= min_saving < 1.0:
        raise IRStabError(f"min_saving: expected a fraction in [0, 1), got {min_saving!r}")
    base = comparison.baseline
    pool = [m for m in (comparison.measures if pool is None else pool) if m != base]
    missing = [m for m in [base, *pool] if m not in topics_needed]
    if missing:
        raise IRStabError(f"topics_needed: no value for {missing}")
    ix = {m: comparison.index(m) for m in pool}
    d = comparison.phi_diff
    passing = [
        m for m in pool
        if comparison.phi_diff_lower[ix[m]] > 0
        and _material(topics_needed[base], topics_needed[m], min_saving)
    ]
    change = bool(passing)
    rec = max(passing, key=lambda m: d[ix[m]]) if change else base  # max keeps the first tie
    ranked = sorted((m for m in pool if m != rec and math.isfinite(d[ix[m]])),
                    key=lambda m: -d[ix[m]])
    closest = tuple(ranked[:n_closest])

    def disagree(m: str) -> bool:
        k = comparison.index(m)
        return bool(d[k] * comparison.sig_diff[k] < 0)

    shown = ([rec] if change else []) + list(closest)
    more_sig = tuple(
        m for m in pool
        if comparison.sig_diff_lower[ix[m]] > 0 and not comparison.phi_diff_lower[ix[m]] > 0
    )
    needed = {m: float(topics_needed[m]) for m in dict.fromkeys([base, rec, *closest])}
    return Verdict(
        change=change, recommended=rec, baseline=base, closest=closest, topics_needed=needed,
        target=float(target), min_saving=float(min_saving),
        disagreements=tuple(m for m in shown if disagree(m)),
        reliably_more_significant=more_sig,
    )
