r"""Discriminative power: significance tests on every pair of systems (Kanoulas & Aslam, CIKM 2009, §3.5, Karmaker & Feng, 2022, §4.4).

Three tests, each run on all :math:`P = S(S-1)/2` pairs of systems for every
measure at once, each returning a :class:`PairwiseTests`:

* :func:`discriminative_power`: Sakai's (2006) paired, studentised bootstrap
  test, giving the achieved significance level (ASL) of each pair. One set of
  bootstrap topic samples (a :math:`B \times T` index matrix) is drawn once
  and shared by every pair and every measure, so measures are compared on the
  same resamples.
* :func:`randomised_tukey_hsd`: the randomised Tukey HSD test (Carterette
  2012; Sakai 2014), which controls the family-wise error over all pairs.
* :func:`paired_t_tests`: paired t-tests with a multiple-comparison
  correction (statsmodels ``multipletests``: Holm, Bonferroni, Benjamini-
  Hochberg), as the Student's t-test counts of Karmaker & Feng, 2022, Tables 7-8.

Conventions (all tests)
-----------------------
Pairs are ``(i, j)`` with ``i < j`` in the order of the systems
(``itertools.combinations``); the mean difference is
:math:`\bar x_i - \bar x_j`. A pair is significant when its p-value (ASL) is
strictly below ``alpha``. Degenerate pairs are decided by a documented value
and a :class:`~irstab.errors.IRStabWarning`, never a NaN:

* *identical scores* on every topic (two identical runs): no evidence of a
  difference, ASL = p = 1;
* a *constant non-zero difference* on every topic: the t statistic is
  infinite, ASL = p = 0 for the bootstrap and the t-test.

"Identical" and "constant" allow a rounding tolerance of 1e-12 times the
larger of the two systems' largest absolute score
(:func:`irstab._numeric.pair_tolerance`). One topic is a
:class:`~irstab.errors.DegenerateDataError` (no variance to studentise).

References
----------
Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap.
SIGIR 2006, 525-532.
Carterette, B. (2012). Multiple testing in statistical analysis of
systems-based information retrieval experiments. ACM TOIS 30(1).
Sakai, T. (2014). Statistical reform in information retrieval? SIGIR Forum 48(1).
Efron, B., Tibshirani, R. (1993). An Introduction to the Bootstrap, Alg. 16.2.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
import math
from enum import Enum

import numpy as np
import pandas as pd

from .._repr import short_repr
from .._repr import escape_name
from ..errors import IRStabError, IRStabWarning
from .._numeric import check_allocation, pair_tolerance
from ..io.scores import (
    CACHE_CELLS,
    TIE_RTOL,
    Scores,
    as_scores,
    check_alpha,
    check_positive_int,
    check_seed,
    frozen,
    sample_counts,
)

__all__ = [
    "PairwiseTests",
    "Correction",
    "bootstrap_samples",
    "discriminative_power",
    "randomised_tukey_hsd",
    "paired_t_tests",
]

_BLOCK_CELLS = 4_000_000  # (resamples x pairs) cells per block: 32 MB of float64
# Within one bootstrap sample, "all drawn differences are equal" when their sd is below this
# fraction of the pair's largest |centred difference| (rounding of the sums is far smaller).
_SAMPLE_SD_RTOL = 1e-6
_SAMPLE_MEAN_RTOL = 1e-9

Progress = Callable[[int], None]


class Correction(str, Enum):
    """Multiple-comparison correction of the paired t-tests (per measure, over all pairs)."""

    none = "none"
    bonferroni = "bonferroni"
    holm = "holm"
    bh = "bh"  # Benjamini-Hochberg false discovery rate


_STATSMODELS_METHOD = {
    Correction.bonferroni: "bonferroni",
    Correction.holm: "holm",
    Correction.bh: "fdr_bh",
}


@short_repr
@dataclass(frozen=True, eq=False)
class PairwiseTests:
    r"""Outcome of one significance test on every pair of systems, for several measures.

    Attributes
    ----------
    test : str
        ``"paired bootstrap"``, ``"randomised Tukey HSD"`` or ``"paired t"``.
    measures, systems : tuple of str
    pairs : numpy.ndarray, shape (P, 2)
        Indices ``(i, j)``, ``i < j``, into ``systems``.
    mean_diff : numpy.ndarray, shape (M, P)
        :math:`\bar x_i - \bar x_j` per measure and pair.
    p_values : numpy.ndarray, shape (M, P)
        ASL (bootstrap), p-value (Tukey HSD) or corrected p-value (t-test).
    raw_p_values : numpy.ndarray, shape (M, P)
        Uncorrected p-values (equal to ``p_values`` unless a correction applies).
    alpha : float
        Significance level: a pair is significant when ``p_values < alpha``.
    correction : str
        ``"none"`` or the :class:`Correction` of the t-tests.
    n_resamples : int or None
        Bootstrap samples or randomisation trials (None for the t-test).
    n_topics : int
    samples : numpy.ndarray or None, shape (B, T)
        The bootstrap topic indices shared by all pairs and measures (bootstrap only).
    """

    test: str
    measures: tuple[str, ...]
    systems: tuple[str, ...]
    pairs: np.ndarray
    mean_diff: np.ndarray
    p_values: np.ndarray
    raw_p_values: np.ndarray
    alpha: float
    correction: str
    n_resamples: int | None
    n_topics: int
    samples: np.ndarray | None = None

    @property
    def asl(self) -> np.ndarray:
        """Achieved significance levels: an alias of :attr:`p_values`."""
        return self.p_values

    @property
    def n_pairs(self) -> int:
        return int(self.pairs.shape[0])

    @property
    def significant(self) -> np.ndarray:
        """(M, P) bool: ``p_values < alpha``."""
        return self.p_values < self.alpha

    @property
    def n_significant(self) -> np.ndarray:
        """(M,) number of significant pairs per measure."""
        return self.significant.sum(axis=1)

    @property
    def discriminative_power(self) -> np.ndarray:
        """(M,) fraction of pairs significant at ``alpha`` (Sakai 2006)."""
        return self.n_significant / max(self.n_pairs, 1)

    def _summary(self) -> str:
        sig = ", ".join(f"{m} {int(n)}" for m, n in zip(self.measures, self.n_significant))
        return (
            f"{self.test}, {self.n_pairs} pairs of {len(self.systems)} systems; "
            f"significant at {self.alpha:g} ({self.correction}): {sig}"
        )

    def pair_labels(self) -> list[tuple[str, str]]:
        return [(self.systems[i], self.systems[j]) for i, j in self.pairs]

    def to_frame(self) -> pd.DataFrame:
        """Long form: ``measure, system_a, system_b, mean_diff, p_value, raw_p_value, significant``."""
        M, P = self.p_values.shape
        sys_ = np.array(self.systems, dtype=object)
        return pd.DataFrame(
            {
                "measure": np.repeat(np.array(self.measures, dtype=object), P),
                "system_a": np.tile(sys_[self.pairs[:, 0]], M),
                "system_b": np.tile(sys_[self.pairs[:, 1]], M),
                "mean_diff": self.mean_diff.reshape(-1),
                "p_value": self.p_values.reshape(-1),
                "raw_p_value": self.raw_p_values.reshape(-1),
                "significant": self.significant.reshape(-1),
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row per measure: ``measure, n_pairs, n_significant, discriminative_power``."""
        return pd.DataFrame(
            {
                "measure": list(self.measures),
                "n_pairs": self.n_pairs,
                "n_significant": self.n_significant,
                "discriminative_power": self.discriminative_power,
            }
        )

    def disagreements(self) -> pd.DataFrame:
        """Pairs of systems on which two measures disagree about significance (Karmaker & Feng, 2022, Table 7).

        One row per pair of measures ``a`` before ``b``: ``only_a`` (significant
        under ``a`` only), ``only_b``, ``opposite`` (significant under both but
        with opposite signs of the mean difference) and ``disagreements`` (their
        sum), out of ``n_pairs``.
        """
        sig = self.significant
        sign = np.sign(self.mean_diff)
        a, b = np.triu_indices(len(self.measures), k=1)
        only_a = (sig[a] & ~sig[b]).sum(axis=1)
        only_b = (sig[b] & ~sig[a]).sum(axis=1)
        opposite = (sig[a] & sig[b] & (sign[a] * sign[b] < 0)).sum(axis=1)
        names = np.array(self.measures, dtype=object)
        return pd.DataFrame(
            {
                "measure_a": names[a],
                "measure_b": names[b],
                "n_pairs": self.n_pairs,
                "only_a": only_a,
                "only_b": only_b,
                "opposite": opposite,
                "disagreements": only_a + only_b + opposite,
            }
        )

    def disagreement_matrix(self) -> pd.DataFrame:
        """The ``disagreements`` counts as a symmetric measures x measures DataFrame (0 diagonal)."""
        M = len(self.measures)
        out = np.zeros((M, M), dtype=np.int64)
        d = self.disagreements()
        a, b = np.triu_indices(M, k=1)
        out[a, b] = out[b, a] = d["disagreements"].to_numpy()
        return pd.DataFrame(out, index=pd.Index(self.measures, name="measure"), columns=list(self.measures))

    def to_dict(self) -> dict:
        """Plain Python, JSON-ready; per-pair lists follow ``pairs``."""
        return {
            "test": self.test,
            "alpha": self.alpha,
            "correction": self.correction,
            "n_resamples": self.n_resamples,
            "n_topics": self.n_topics,
            "systems": list(self.systems),
            "pairs": [list(p) for p in self.pair_labels()],
            "measures": {
                name: {
                    "n_significant": int(self.n_significant[k]),
                    "discriminative_power": float(self.discriminative_power[k]),
                    "p_values": self.p_values[k].tolist(),
                    "raw_p_values": self.raw_p_values[k].tolist(),
                    "mean_diff": self.mean_diff[k].tolist(),
                }
                for k, name in enumerate(self.measures)
            },
        }


# ---------------------------------------------------------------- helpers


def _prepare(scores, top, top_by, what: str) -> tuple[Scores, np.ndarray, np.ndarray]:
    data = as_scores(scores).select(top, top_by)
    data.require_topics(2, what)
    i, j = data.pairs()
    return data, i, j


def _degenerate(
    data: Scores, z: np.ndarray, k: int, i: np.ndarray, j: np.ndarray, what: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(identical, constant, sd)`` for the (P, T) differences of measure ``k``; warns."""
    tol = pair_tolerance(data.cube[k], i, j)
    sd = z.std(axis=1, ddof=1)
    identical = (np.abs(z) <= tol[:, None]).all(axis=1)
    constant = ~identical & (sd <= tol)
    for mask, text in (
        (identical, "identical scores on every topic: no evidence of a difference, {} = 1"),
        (constant, "a constant non-zero difference on every topic: infinite t, {} = 0"),
    ):
        if mask.any():
            names = [f"{escape_name(data.systems[a])}/{escape_name(data.systems[b])}"
                     for a, b in zip(i[mask], j[mask])]
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            warnings.warn(
                f"{data.measures[k]}: {len(names)} pair(s) with " + text.format(what) + f": {shown}",
                IRStabWarning,
                stacklevel=3,
            )
    return identical, constant, sd


def _result(test, data, i, j, mean_diff, p, raw, alpha, correction, n, samples=None) -> PairwiseTests:
    return PairwiseTests(
        test=test,
        measures=data.measures,
        systems=data.systems,
        pairs=frozen(np.column_stack([i, j])),
        mean_diff=frozen(mean_diff),
        p_values=frozen(p),
        raw_p_values=frozen(raw),
        alpha=alpha,
        correction=correction,
        n_resamples=n,
        n_topics=data.n_topics,
        samples=None if samples is None else frozen(samples),
    )


# ---------------------------------------------------------------- bootstrap


def bootstrap_samples(n_topics: int, n_bootstrap: int = 1000, seed=None) -> np.ndarray:
    """A (B, T) matrix of topic indices drawn uniformly with replacement, one row per sample.

    ``numpy.random.default_rng(seed).integers(0, T, size=(B, T))``: the same
    ``seed`` always gives the same samples.

    Examples
    --------
    >>> bootstrap_samples(3, 2, seed=1).shape
    (2, 3)
    """
    T = check_positive_int("n_topics", n_topics)
    B = check_positive_int("n_bootstrap", n_bootstrap)
    check_allocation(16.0 * B * max(n_topics, 1),
                     f"n_bootstrap: {B} bootstrap samples of {n_topics} topics")
    return check_seed(seed).integers(0, T, size=(B, T))


def _check_samples(samples, T: int) -> np.ndarray:
    s = np.asarray(samples)
    if s.ndim != 2 or s.shape[1] != T or s.shape[0] < 1:
        raise IRStabError(f"samples: expected a (B, {T}) matrix of topic indices, got shape {s.shape}")
    if not np.issubdtype(s.dtype, np.integer) or s.min() < 0 or s.max() >= T:
        raise IRStabError(f"samples: expected integer topic indices in [0, {T}), got {s.dtype} values")
    return s


def _bootstrap_extreme_counts(
    w: np.ndarray, t_obs2: np.ndarray, counts: np.ndarray, progress: Progress | None, done: int
) -> np.ndarray:
    """Per pair, the number of samples with ``t*^2 >= t_obs^2`` (``w``: centred differences)."""
    P, T = w.shape
    B = counts.shape[0]
    wscale = np.abs(w).max(axis=1)
    w2t = (w * w).T
    wt = w.T
    thresh = t_obs2 * (1.0 - TIE_RTOL) ** 2  # |t*| >= |t_obs| (1 - TIE_RTOL)
    flat_var = (_SAMPLE_SD_RTOL * wscale) ** 2
    far_mean = _SAMPLE_MEAN_RTOL * wscale
    extreme = np.zeros(P, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(P, 1))
    rows = max(1, CACHE_CELLS // max(P, 1))
    for start in range(0, B, block):
        c = counts[start : start + block]
        S1 = c @ wt  # (b, P): sums of the drawn differences
        S2 = c @ w2t  # (b, P): sums of their squares
        for r0 in range(0, len(c), rows):  # the arithmetic on cache-sized slices
            s1, s2 = S1[r0 : r0 + rows], S2[r0 : r0 + rows]
            m = s1 / T
            var = s1 * m  # in place from here: (s2 - s1 m) / (T - 1), then m^2 T / var
            np.subtract(s2, var, out=var)
            var /= T - 1
            t2 = m * m
            t2 *= T
            with np.errstate(divide="ignore", invalid="ignore"):
                t2 /= var
            flat = var <= flat_var  # all drawn differences (nearly) equal
            if flat.any():  # t* is 0 there, or infinite away from a zero mean
                t2[flat] = 0.0
                t2[flat & (np.abs(m) > far_mean)] = np.inf
            extreme += np.count_nonzero(t2 >= thresh, axis=0)
        if progress is not None:
            progress(done + min(start + block, B))
    return extreme


def discriminative_power(
    scores,
    *,
    n_bootstrap: int | None = None,
    alpha: float = 0.05,
    top: int | None = None,
    top_by: str | None = None,
    seed=None,
    samples=None,
    progress: Progress | None = None,
) -> PairwiseTests:
    r"""Sakai's (2006) paired studentised bootstrap test on every pair of systems: ASL per pair.

    For systems :math:`i, j` with per-topic differences
    :math:`z_t = x_{it} - x_{jt}`, :math:`t = 1..T`,

    .. math:: t(z) = \frac{\bar z}{\hat\sigma_z / \sqrt T}, \qquad
              w_t = z_t - \bar z \quad \text{(the null hypothesis made true)},

    and for each bootstrap sample :math:`b` (topics drawn with replacement,
    the same :math:`T` indices for every pair and measure)
    :math:`t(w^{*b}) = \bar w^{*b} / (\hat\sigma_{w^{*b}} / \sqrt T)`. The
    two-sided achieved significance level is

    .. math:: \mathrm{ASL} = \frac{1}{B}\,\#\{b : |t(w^{*b})| \ge |t(z)|\}.

    :math:`\hat\sigma` has denominator :math:`T - 1`. A sample whose drawn
    differences are all equal (their sd below 1e-6 of the pair's largest
    :math:`|w_t|`) has :math:`t^* = \pm\infty` (counted) or 0 when they are
    all 0 (below 1e-9 of it; not counted), where Sakai's arithmetic would
    divide by zero. Samples within a relative 1e-10 of
    :math:`|t(z)|` count as at least as extreme, so exact ties are not
    decided by rounding. Degenerate pairs: see the module docstring.

    The statistic is computed for all pairs and samples at once: with
    :math:`C` the :math:`B \times T` matrix of topic counts per sample,
    :math:`\sum w^* = C w` and :math:`\sum w^{*2} = C w^2` are two matrix
    products over the :math:`P` pairs (blocks of samples bound the memory).

    Parameters
    ----------
    scores : mapping or DataFrame
        ``{measure: systems x topics}`` matrices with the same systems and
        topics (e.g. :func:`irstab.score_matrices`), or one matrix.
    n_bootstrap : int, optional
        Bootstrap samples B (default 1000); not with ``samples``.
    alpha : float
        Significance level for :attr:`PairwiseTests.n_significant`.
    top : int, optional
        Keep only the ``top`` systems with the highest mean under ``top_by``
        (default: the first measure), as Sakai (2006) and Kanoulas & Aslam, CIKM 2009 (top 30).
    top_by : str, optional
        Measure that ranks systems for ``top``.
    seed : int, numpy.random.Generator or None
        Seed of the samples: :func:`bootstrap_samples` ``(T, B, seed)``.
    samples : array of int, shape (B, T), optional
        Topic indices to use instead of drawing them (e.g. shared with
        another call); ``seed`` and ``n_bootstrap`` must then be None.
    progress : callable, optional
        Called with the number of (measure x sample) units done so far, out
        of ``M * B``.

    Returns
    -------
    PairwiseTests
        ``test="paired bootstrap"``; :attr:`~PairwiseTests.asl` per measure
        and pair, and the ``samples`` used.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.5, 0.6, 0.7, 0.4], [0.1, 0.2, 0.1, 0.3], [0.45, 0.62, 0.66, 0.41]])
    >>> r = discriminative_power({"m": x}, n_bootstrap=200, seed=3)
    >>> r.pairs.tolist(), r.n_pairs
    ([[0, 1], [0, 2], [1, 2]], 3)
    >>> r.asl.shape
    (1, 3)

    Validated against a per-pair, per-sample loop of Sakai's algorithm on the
    same samples (tests).
    """
    alpha = check_alpha(alpha)
    data, i, j = _prepare(scores, top, top_by, "the paired bootstrap test")
    T = data.n_topics
    if samples is not None:
        if n_bootstrap is not None or seed is not None:
            raise IRStabError("samples: give either samples or n_bootstrap/seed, not both")
        samples = _check_samples(samples, T)
    else:
        samples = bootstrap_samples(T, 1000 if n_bootstrap is None else n_bootstrap, seed)
    B = samples.shape[0]
    if B * alpha < 1 - 1e-9:  # an ASL of 0 out of fewer than 1/alpha samples is no evidence
        raise IRStabError(
            f"n_bootstrap: {B} bootstrap sample(s) cannot test at alpha = {alpha:g}: an ASL "
            f"below {alpha:g} needs at least {math.ceil(1 / alpha - 1e-9)} samples"
        )
    counts = sample_counts(samples, T)
    M, P = data.n_measures, len(i)
    asl = np.empty((M, P))
    mean_diff = np.empty((M, P))
    for k in range(M):  # measures are few; pairs and samples are vectorised
        z = data.cube[k][i] - data.cube[k][j]
        identical, constant, sd = _degenerate(data, z, k, i, j, "ASL")
        zbar = z.mean(axis=1)
        regular = ~(identical | constant)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_obs2 = np.where(regular, zbar * zbar * T / np.where(regular, sd * sd, 1.0), 0.0)
        w = z - zbar[:, None]
        extreme = _bootstrap_extreme_counts(w[regular], t_obs2[regular], counts, progress, k * B)
        a = np.where(identical, 1.0, 0.0)
        a[regular] = extreme / B
        asl[k], mean_diff[k] = a, zbar
    return _result("paired bootstrap", data, i, j, mean_diff, asl, asl.copy(), alpha, "none", B, samples)


# ---------------------------------------------------------------- randomised Tukey HSD


def randomised_tukey_hsd(
    scores,
    *,
    n_trials: int = 1000,
    alpha: float = 0.05,
    top: int | None = None,
    top_by: str | None = None,
    seed=None,
    progress: Progress | None = None,
) -> PairwiseTests:
    r"""Randomised Tukey HSD test on every pair of systems (Carterette 2012; Sakai 2014).

    In each of :math:`B` trials the scores of the systems are permuted
    independently within every topic (the null hypothesis: system labels are
    exchangeable), and the range of the permuted system means is recorded:
    :math:`r_b = \max_s \bar x^{*b}_s - \min_s \bar x^{*b}_s`. Then

    .. math:: p_{ij} = \frac1B\,\#\{b : r_b \ge |\bar x_i - \bar x_j|\},

    one null distribution for all pairs, which controls the family-wise error
    rate. The same permutations (drawn once from ``seed``) serve every
    measure. Ranges within a relative 1e-10 of the observed difference count
    as at least as large. Identical systems get :math:`p = 1`.

    Parameters
    ----------
    scores, alpha, top, top_by, seed, progress
        As :func:`discriminative_power` (``progress`` counts measure x trial units).
    n_trials : int
        Randomisation trials B (default 1000).

    Returns
    -------
    PairwiseTests
        ``test="randomised Tukey HSD"``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.9, 0.8, 0.95, 0.85], [0.1, 0.2, 0.1, 0.15]])
    >>> randomised_tukey_hsd({"m": x}, n_trials=100, seed=0).p_values.shape
    (1, 1)
    """
    alpha = check_alpha(alpha)
    B = check_positive_int("n_trials", n_trials)
    data, i, j = _prepare(scores, top, top_by, "the randomised Tukey HSD test")
    rng = check_seed(seed)
    M, S, T = data.n_measures, data.n_systems, data.n_topics
    means = data.means()
    diff = means[:, i] - means[:, j]
    ranges = np.empty((M, B))
    xt = np.ascontiguousarray(data.cube.transpose(0, 2, 1))  # (M, T, S)
    block = max(1, _BLOCK_CELLS // (T * S))  # depends on the shape only: results depend on seed only
    base = np.broadcast_to(np.arange(S, dtype=np.intp), (min(block, B), T, S))
    for start in range(0, B, block):
        n = min(block, B - start)
        perm = rng.permuted(np.array(base[:n]), axis=2)  # (n, T, S): a permutation per topic
        for k in range(M):
            g = np.take_along_axis(xt[k][None], perm, axis=2).mean(axis=1)  # (n, S)
            ranges[k, start : start + n] = g.max(axis=1) - g.min(axis=1)
        if progress is not None:
            progress(M * (start + n))
    ranges.sort(axis=1)
    thresh = np.abs(diff) * (1.0 - TIE_RTOL)
    p = np.empty((M, len(i)))
    for k in range(M):
        p[k] = (B - np.searchsorted(ranges[k], thresh[k], side="left")) / B
    return _result("randomised Tukey HSD", data, i, j, diff, p, p.copy(), alpha, "none", B)


# ---------------------------------------------------------------- paired t-tests


def paired_t_tests(
    scores,
    *,
    correction: Correction | str = Correction.holm,
    alpha: float = 0.05,
    top: int | None = None,
    top_by: str | None = None,
) -> PairwiseTests:
    r"""Two-sided paired t-tests on every pair of systems, corrected for multiple comparisons.

    :math:`t = \bar z / (\hat\sigma_z/\sqrt T)` on the per-topic differences
    with :math:`T - 1` degrees of freedom, as :func:`scipy.stats.ttest_rel`;
    the correction (statsmodels ``multipletests``: ``holm``, ``bonferroni``,
    ``bh`` = ``fdr_bh``, or ``none``) runs over the :math:`P` pairs of each
    measure separately. Identical systems get :math:`p = 1`, a constant
    non-zero difference :math:`p = 0` (where scipy would give NaN).

    Returns
    -------
    PairwiseTests
        ``test="paired t"``; :meth:`PairwiseTests.disagreements` counts the
        pairs on which two measures disagree (Karmaker & Feng, 2022, Table 7) and
        :attr:`PairwiseTests.n_significant` the significant ones (Table 8).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.5, 0.6, 0.7, 0.4], [0.1, 0.2, 0.1, 0.3]])
    >>> r = paired_t_tests({"m": x}, correction="none")
    >>> round(float(r.p_values[0, 0]), 6)  # scipy.stats.ttest_rel(x[0], x[1]).pvalue
    0.035791
    """
    try:
        correction = Correction(correction)
    except ValueError:
        raise IRStabError(
            f"correction: expected one of {[c.value for c in Correction]}, got {correction!r}"
        ) from None
    alpha = check_alpha(alpha)
    data, i, j = _prepare(scores, top, top_by, "the paired t-test")
    from scipy.special import stdtr

    T = data.n_topics
    M, P = data.n_measures, len(i)
    raw = np.empty((M, P))
    mean_diff = np.empty((M, P))
    for k in range(M):
        z = data.cube[k][i] - data.cube[k][j]
        identical, constant, sd = _degenerate(data, z, k, i, j, "p")
        zbar = z.mean(axis=1)
        regular = ~(identical | constant)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(regular, np.abs(zbar) * np.sqrt(T) / np.where(regular, sd, 1.0), 0.0)
        p = 2.0 * stdtr(T - 1, -t)
        p[identical] = 1.0
        p[constant] = 0.0
        raw[k], mean_diff[k] = np.clip(p, 0.0, 1.0), zbar
    if correction is Correction.none:
        adjusted = raw.copy()
    else:
        from statsmodels.stats.multitest import multipletests

        method = _STATSMODELS_METHOD[correction]
        adjusted = np.stack([multipletests(r, alpha=alpha, method=method)[1] for r in raw])
    return _result("paired t", data, i, j, mean_diff, adjusted, raw, alpha, correction.value, None)
