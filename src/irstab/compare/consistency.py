r"""Consistency of system rankings: swap rates (Voorhees & Buckley 2002, as Sakai computes them) and PAD.

Swap rate (the "swap method")
-----------------------------
For each of ``n_trials`` trials the topic set :math:`Q` is split at random
into two *disjoint* subsets :math:`Q_k, Q'_k` of ``subset_size`` topics each
(default :math:`\lfloor T/2 \rfloor`: disjoint halves). For every pair of
systems :math:`(X, Y)`,

.. math:: d = \bar x(Q_k) - \bar y(Q_k), \qquad d' = \bar x(Q'_k) - \bar y(Q'_k),

the comparison falls in bin :math:`\lfloor |d| / w \rfloor` (width
:math:`w` = ``bin_width``, default 0.01; the last of ``n_bins`` bins, default
21, also holds every larger :math:`|d|`), and it is a *swap* when
:math:`d\,d' < 0` (a tie on either side is not a swap; differences within
1e-12 of the measure's largest |score| are ties, so rounding decides nothing). The swap rate of a bin
is swaps / comparisons over all trials and pairs (Sakai 2006, 2007; Voorhees
& Buckley 2002 without their extrapolation to other topic-set sizes). The
same partitions, drawn once from ``seed``, serve every measure: trial ``k``
is row ``k`` of ``numpy.random.default_rng(seed).permuted(numpy.tile(
numpy.arange(T), (n_trials, 1)), axis=1)``, whose first ``subset_size``
topics form :math:`Q_k` and the next ``subset_size`` :math:`Q'_k`.

*Minimum difference*: the lower edge of the lowest bin from which every
non-empty bin has a swap rate at most ``max_rate`` (default 0.05). Sakai reads
the first bin that meets the target; requiring every larger bin to meet it
too keeps one lucky noisy bin from deciding. It is ``inf`` when no bin with
comparisons meets the condition (the measure never reaches the target within
the binned range). Sakai also reports it relative to the highest mean score
of any system: :attr:`SwapRates.min_difference_relative`.

PAD (Karmaker & Feng, 2022, eq. 8)
---------------------
.. math:: \mathrm{PAD}(M_1, M_2) = \frac{|\bar x_{M_1} - \bar x_{M_2}|}
          {\max(\bar x_{M_1}, \bar x_{M_2})} \times 100\%

for two systems :math:`M_1, M_2` and their mean scores, averaged over all
pairs. The denominator here is :math:`\max(|\bar x_{M_1}|, |\bar x_{M_2}|)`,
equal to eq. 8 for non-negative means and still defined for measures that go
below 0 (UL-normalised ones). Two means both 0 give PAD 0 (with a warning).

References
----------
Voorhees, E. M., Buckley, C. (2002). The effect of topic set size on
retrieval experiment error. SIGIR 2002, 316-323.
Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap.
SIGIR 2006 (the swap method, Fig. 2).
Karmaker, S., Feng, Y. (2022). Joint upper & lower bound normalization for IR
evaluation (Karmaker & Feng, 2022), Sec. 4.4.3-4.4.4.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import IRStabError, IRStabWarning
from .._numeric import check_allocation
from ..io.scores import as_scores, check_alpha, check_positive_int, check_seed, frozen
from .correlation import _as_means

__all__ = [
    "SwapRates",
    "swap_rates",
    "swap_rate_between",
    "PercentageAbsoluteDifference",
    "percentage_absolute_difference",
]

_BLOCK_CELLS = 4_000_000
# |d| / width within this of an integer is put in the upper bin: 0.02 / 0.01 must be bin 2.
_BIN_EPS = 1e-9


@dataclass(frozen=True, eq=False)
class SwapRates:
    """Swap counts per bin of the difference in means, per measure.

    Attributes
    ----------
    measures, systems : tuple of str
    n_trials : int
    subset_size : int
        Topics in each of the two disjoint subsets of a trial.
    bin_width : float
    max_rate : float
        Target swap rate of :attr:`min_difference`.
    comparisons, swaps : numpy.ndarray, shape (M, n_bins)
        Pair comparisons and swaps per bin, summed over trials.
    max_mean : numpy.ndarray, shape (M,)
        Largest |mean score| of any system over all topics (the unit of the
        relative minimum difference).
    """

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    n_trials: int
    subset_size: int
    bin_width: float
    max_rate: float
    comparisons: np.ndarray
    swaps: np.ndarray
    max_mean: np.ndarray

    @property
    def n_bins(self) -> int:
        return int(self.comparisons.shape[1])

    @property
    def bin_edges(self) -> np.ndarray:
        """(n_bins + 1,) bin edges; the last is ``inf``."""
        return np.r_[np.arange(self.n_bins) * self.bin_width, np.inf]

    @property
    def rates(self) -> np.ndarray:
        """(M, n_bins) swaps / comparisons; NaN for an empty bin (no comparison fell in it)."""
        c = self.comparisons
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(c > 0, self.swaps / np.where(c > 0, c, 1), np.nan)

    @property
    def overall(self) -> np.ndarray:
        """(M,) swaps / comparisons over all bins."""
        return self.swaps.sum(axis=1) / self.comparisons.sum(axis=1)

    @property
    def min_difference(self) -> np.ndarray:
        """(M,) smallest |difference in means| keeping the swap rate <= ``max_rate`` (inf: never)."""
        out = np.empty(len(self.measures))
        bad = (self.comparisons > 0) & (self.swaps > self.max_rate * self.comparisons)
        for k in range(len(self.measures)):
            hits = np.flatnonzero(bad[k])
            first = 0 if len(hits) == 0 else hits[-1] + 1
            if first >= self.n_bins or self.comparisons[k, first:].sum() == 0:
                out[k] = np.inf
            else:
                out[k] = first * self.bin_width
        return out

    @property
    def min_difference_relative(self) -> np.ndarray:
        """(M,) :attr:`min_difference` / :attr:`max_mean` (NaN when every mean is 0)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.max_mean > 0, self.min_difference / self.max_mean, np.nan)

    def to_frame(self) -> pd.DataFrame:
        """Long form: ``measure, lower, upper, comparisons, swaps, swap_rate`` per bin."""
        M, K = self.comparisons.shape
        edges = self.bin_edges
        return pd.DataFrame(
            {
                "measure": np.repeat(np.array(self.measures, dtype=object), K),
                "lower": np.tile(edges[:-1], M),
                "upper": np.tile(edges[1:], M),
                "comparisons": self.comparisons.reshape(-1),
                "swaps": self.swaps.reshape(-1),
                "swap_rate": self.rates.reshape(-1),
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row per measure: overall rate, minimum difference (absolute and relative)."""
        return pd.DataFrame(
            {
                "measure": list(self.measures),
                "swap_rate": self.overall,
                "min_difference": self.min_difference,
                "min_difference_relative": self.min_difference_relative,
            }
        )

    def measure_dict(self, k: int) -> dict:
        """JSON-ready summary of measure ``k`` (``None`` for inf/NaN)."""

        def num(v):
            v = float(v)
            return None if not math.isfinite(v) else v

        edges = self.bin_edges
        rates = self.rates[k]
        return {
            "overall": num(self.overall[k]),
            "min_difference": num(self.min_difference[k]),
            "min_difference_relative": num(self.min_difference_relative[k]),
            "max_rate": self.max_rate,
            "n_trials": self.n_trials,
            "subset_size": self.subset_size,
            "bin_width": self.bin_width,
            "bins": [
                {
                    "lower": float(edges[b]),
                    "upper": num(edges[b + 1]),
                    "comparisons": int(self.comparisons[k, b]),
                    "swaps": int(self.swaps[k, b]),
                    "swap_rate": num(rates[b]),
                }
                for b in range(self.n_bins)
            ],
        }

    def to_dict(self) -> dict:
        return {
            "systems": list(self.systems),
            "measures": {name: self.measure_dict(k) for k, name in enumerate(self.measures)},
        }


def swap_rates(
    scores,
    *,
    n_trials: int = 1000,
    subset_size: int | None = None,
    bin_width: float = 0.01,
    n_bins: int = 21,
    max_rate: float = 0.05,
    top: int | None = None,
    top_by: str | None = None,
    seed=None,
    progress: Callable[[int], None] | None = None,
) -> SwapRates:
    """Swap rates from repeated random splits of the topics into two disjoint subsets.

    See the module docstring for the definition.

    Parameters
    ----------
    scores : mapping or DataFrame
        ``{measure: systems x topics}`` matrices (same systems and topics), or one matrix.
    n_trials : int
        Random splits (default 1000, as Sakai).
    subset_size : int, optional
        Topics per subset, ``1 <= c <= T // 2`` (default ``T // 2``).
    bin_width : float
        Width of the bins of |difference in means| (default 0.01, for
        measures in [0, 1]; scale it for others).
    n_bins : int
        Bins; the last one is open-ended (default 21: the last holds >= 0.20).
    max_rate : float
        Target swap rate of the minimum difference (default 0.05).
    top, top_by : optional
        Keep the ``top`` systems by mean score of ``top_by`` (default: first measure).
    seed : int, numpy.random.Generator or None
        Seed of the splits.
    progress : callable, optional
        Called with the number of trials done so far.

    Returns
    -------
    SwapRates

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.9, 0.8, 0.95, 0.85], [0.1, 0.2, 0.1, 0.15]])
    >>> r = swap_rates({"m": x}, n_trials=50, seed=0)
    >>> int(r.comparisons.sum()), int(r.swaps.sum())  # 50 trials x 1 pair; never swapped
    (50, 0)
    >>> float(r.min_difference[0])  # every non-empty bin has rate 0 <= 5%
    0.0

    Validated against a per-trial, per-pair loop on the same splits (tests).
    """
    K = check_positive_int("n_trials", n_trials)
    n_bins = check_positive_int("n_bins", n_bins)
    if isinstance(bin_width, bool) or not isinstance(bin_width, (int, float)) or not (
        math.isfinite(bin_width) and bin_width > 0
    ):
        raise IRStabError(f"bin_width: expected a positive number, got {bin_width!r}")
    max_rate = check_alpha(max_rate, "max_rate")
    data = as_scores(scores).select(top, top_by)
    data.require_topics(2, "the swap rate (two disjoint topic subsets)")
    T = data.n_topics
    check_allocation(40.0 * K * T, f"n_trials: {K} random splits of {T} topics")
    c = T // 2 if subset_size is None else check_positive_int("subset_size", subset_size)
    if c > T // 2:
        raise IRStabError(f"subset_size: at most half the topics ({T // 2}), got {c}")
    rng = check_seed(seed)
    split = rng.permuted(np.tile(np.arange(T), (K, 1)), axis=1)  # (K, T)
    rows = np.arange(K)[:, None]
    wa = np.zeros((K, T))
    wb = np.zeros((K, T))
    wa[rows, split[:, :c]] = 1.0 / c
    wb[rows, split[:, c : 2 * c]] = 1.0 / c
    i, j = data.pairs()
    M, P = data.n_measures, len(i)
    comparisons = np.zeros((M, n_bins), dtype=np.int64)
    swaps = np.zeros((M, n_bins), dtype=np.int64)
    tol = data.pair_tolerance()  # (M, P)
    block = max(1, _BLOCK_CELLS // max(P, 1))
    for start in range(0, K, block):
        sl = slice(start, start + block)
        for k in range(M):
            xt = data.cube[k].T  # (T, S)
            ma, mb = wa[sl] @ xt, wb[sl] @ xt  # (b, S) subset means
            da = ma[:, i] - ma[:, j]
            db = mb[:, i] - mb[:, j]
            da[np.abs(da) <= tol[k]] = 0.0
            db[np.abs(db) <= tol[k]] = 0.0
            bins = np.minimum(np.floor(np.abs(da) / bin_width + _BIN_EPS), n_bins - 1).astype(np.intp)
            comparisons[k] += np.bincount(bins.ravel(), minlength=n_bins)
            swaps[k] += np.bincount(bins[da * db < 0], minlength=n_bins)
        if progress is not None:
            progress(min(start + block, K))
    return SwapRates(
        measures=data.measures,
        systems=data.systems,
        n_trials=K,
        subset_size=c,
        bin_width=float(bin_width),
        max_rate=max_rate,
        comparisons=frozen(comparisons),
        swaps=frozen(swaps),
        max_mean=frozen(np.abs(data.means()).max(axis=1)),
    )


def swap_rate_between(means_a, means_b) -> float:
    r"""Fraction of system pairs ordered oppositely by two sets of mean scores (Karmaker & Feng, 2022, Tables 10-11).

    ``means_a`` and ``means_b`` are the mean scores of the same systems on
    two topic sets (e.g. two collections, or uninformative vs ideal topics):
    the rate is :math:`\#\{i<j : d^a_{ij}\,d^b_{ij} < 0\} / \binom S2` with
    :math:`d_{ij} = \bar x_i - \bar x_j`; a tie on either side is not a swap.

    Examples
    --------
    >>> swap_rate_between([0.3, 0.2, 0.1], [0.3, 0.1, 0.2])  # 1 of 3 pairs swapped
    0.3333333333333333
    """
    a = np.asarray(means_a, dtype=np.float64)
    b = np.asarray(means_b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise IRStabError(f"means_a, means_b: expected 1-D arrays of equal length, got {a.shape}, {b.shape}")
    if len(a) < 2:
        raise IRStabError(f"means_a: need at least 2 systems, got {len(a)}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise IRStabError("means_a, means_b: non-finite value")
    i, j = np.triu_indices(len(a), k=1)
    return float(((a[i] - a[j]) * (b[i] - b[j]) < 0).mean())


@dataclass(frozen=True, eq=False)
class PercentageAbsoluteDifference:
    """PAD (Karmaker & Feng, 2022, eq. 8) of every pair of systems, per measure.

    Attributes
    ----------
    measures, systems : tuple of str
    pairs : numpy.ndarray, shape (P, 2)
    values : numpy.ndarray, shape (M, P)
        PAD in percent.
    """

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    pairs: np.ndarray
    values: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        """(M,) average PAD over all pairs (Karmaker & Feng, 2022, Tables 9 and 19)."""
        return self.values.mean(axis=1)

    def to_frame(self) -> pd.DataFrame:
        """Long form: ``measure, system_a, system_b, pad``."""
        M, P = self.values.shape
        sys_ = np.array(self.systems, dtype=object)
        return pd.DataFrame(
            {
                "measure": np.repeat(np.array(self.measures, dtype=object), P),
                "system_a": np.tile(sys_[self.pairs[:, 0]], M),
                "system_b": np.tile(sys_[self.pairs[:, 1]], M),
                "pad": self.values.reshape(-1),
            }
        )

    def to_dict(self) -> dict:
        return {
            "systems": list(self.systems),
            "pairs": [[self.systems[a], self.systems[b]] for a, b in self.pairs],
            "measures": {
                name: {"mean": float(self.mean[k]), "values": self.values[k].tolist()}
                for k, name in enumerate(self.measures)
            },
        }


def percentage_absolute_difference(means) -> PercentageAbsoluteDifference:
    r"""PAD of Karmaker & Feng, 2022, eq. 8, for every pair of systems and measure.

    Parameters
    ----------
    means : pandas.DataFrame or mapping
        A systems x measures DataFrame of mean scores, or ``{measure: values}``
        with 1-D means or 2-D systems x columns arrays averaged per system
        first: a systems x topics matrix, or, as in Karmaker & Feng, 2022, a systems x
        cutoffs table of mean nDCG@k (the paper's :math:`nDCG^{avg}`).

    Examples
    --------
    >>> import pandas as pd
    >>> r = percentage_absolute_difference(pd.DataFrame({"m": [0.5, 0.4, 0.2]}))
    >>> r.values.round(4).tolist()  # |0.5-0.4|/0.5, |0.5-0.2|/0.5, |0.4-0.2|/0.4, in %
    [[20.0, 60.0, 50.0]]
    >>> round(float(r.mean[0]), 4)
    43.3333
    """
    names, systems, x = _as_means(means)
    i, j = np.triu_indices(x.shape[1], k=1)
    den = np.maximum(np.abs(x[:, i]), np.abs(x[:, j]))
    num = np.abs(x[:, i] - x[:, j])
    zero = den == 0
    if zero.any():
        k = int(np.flatnonzero(zero.any(axis=1))[0])
        warnings.warn(
            f"{names[k]}: {int(zero.sum())} pair(s) of systems both with mean 0; their PAD is 0",
            IRStabWarning,
            stacklevel=2,
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        pad = np.where(zero, 0.0, 100.0 * num / np.where(zero, 1.0, den))
    return PercentageAbsoluteDifference(names, systems, frozen(np.column_stack([i, j])), frozen(pad))
