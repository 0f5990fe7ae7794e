r"""The intervals of the verdict: how they are made from draws, and how many draws they need.

:class:`PhiInterval` names the three ways of drawing (:mod:`irstab.verdict.paired` says
how each works and why the parametric one is the default); :func:`expanded_confidence`
is the percentile level of the parametric one; :func:`simultaneous_percentile` makes the
candidates' intervals hold together (Mandel & Betensky 2008).

How many draws
--------------
The family's tail level :math:`\ell` lies between :math:`\gamma'/(2L)` (the
candidates' draws independent: Bonferroni) and :math:`\gamma'/2` (all alike), where
:math:`L` is the number of candidates and :math:`\gamma' = 1 - c'` the level the
percentiles are read at. A tail is resolved only when it holds a draw,
:math:`B\ell \ge 1`; for every dependence between the candidates that needs
:math:`B \ge 2L/(1 - c')` (:func:`min_draws`); :func:`check_draws` refuses fewer, and
counts the memory of every array the draws and the significant pairs hold
(:func:`draw_bytes`, :func:`pair_bytes`).

References
----------
Mandel, M., Betensky, R. A. (2008). Simultaneous confidence intervals based
on the percentile bootstrap approach. Computational Statistics & Data
Analysis 52(4), 2158-2165.
Hesterberg, T. C. (2015). What teachers should know about the bootstrap:
resampling in the undergraduate statistics curriculum. The American
Statistician 69(4), 371-386 (the expanded percentile interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from .._numeric import check_allocation, fits_in_memory
from ..errors import IRStabError

__all__ = ["PhiInterval", "PhiDifferences", "check_interval", "expanded_confidence",
           "min_draws", "simultaneous_percentile", "check_draws", "draw_bytes", "pair_bytes",
           "DEFAULT_DRAWS", "MAX_WORK", "comparison_work", "check_work"]

#: Draws of the verdict when none are asked for (unless its family needs more).
DEFAULT_DRAWS = 1000
#: Cells of one block of resampled matrices or of summed pairs (~16 MB of float64).
BLOCK_CELLS = 2_000_000
#: The largest comparison the verdict takes on (:func:`comparison_work`): 1e9 paired
#: t-tests are some 10 s of one core (8-10 ns a test, measured on the DL-2019 runs; a
#: thousand measures are 6.7e8). Larger ones are refused before any of the work, naming
#: what fits (:func:`check_work`).
MAX_WORK = 1e9


class PhiInterval(str, Enum):
    """How the interval of a Phi difference is made (module docstring)."""

    jackknife = "jackknife"
    parametric = "parametric"
    bootstrap = "bootstrap"
    topic_bootstrap = "topic-bootstrap"

    @property
    def label(self) -> str:
        """How reports name the method."""
        return _LABELS[self]


_LABELS = {
    PhiInterval.jackknife: "two-facet jackknife of the G-study",
    PhiInterval.parametric: "generalized pivots of the multivariate G-study (normal theory)",
    PhiInterval.bootstrap: "bootstrap of systems and topics (not calibrated: too wide)",
    PhiInterval.topic_bootstrap: "bootstrap of topics (not calibrated: too narrow)",
}


@dataclass(frozen=True, eq=False)
class PhiDifferences:
    """Phi, differences to the baseline and their intervals (arrays over the measures).

    ``level`` is the tail level the candidates' intervals are read at; ``df`` the
    degrees of freedom of each difference's interval (jackknife; ``inf`` for the
    draws' percentile intervals); ``system_influence`` the largest share of the
    system part of each difference's variance one system carries (jackknife;
    ``nan`` otherwise).
    """

    phi: np.ndarray
    diff: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sd: np.ndarray
    level: float
    topic_draws: np.ndarray | None  # (B, T) topic indices drawn, when the method drew topics
    df: np.ndarray | None = None
    system_influence: np.ndarray | None = None


def check_interval(interval) -> PhiInterval:
    try:
        return PhiInterval(interval)
    except ValueError:
        raise IRStabError(
            f"interval: expected one of {[m.value for m in PhiInterval]}, got {interval!r}"
        ) from None



def simultaneous_percentile(d_star: np.ndarray, confidence: float):
    """Simultaneous percentile intervals of the rows of ``d_star`` (L, B) (Mandel & Betensky).

    Every row gets its ``k``-th and ``(B+1-k)``-th order statistics, with the
    largest ``k`` such that at most ``(1 - confidence) B`` draws fall outside
    some row's range. Returns ``(lower, upper, k / B)``; with one row it is the
    ordinary percentile interval.
    """
    B = d_star.shape[1]
    gamma = 1.0 - confidence
    srt = np.sort(d_star, axis=1)
    ranks = d_star.argsort(axis=1).argsort(axis=1) + 1  # 1..B per row
    tail = np.minimum(ranks, B + 1 - ranks)  # (L, B): two-sided rank from the nearer end
    worst = tail.min(axis=0)  # per draw, the most extreme rank over the rows
    # largest k with #{b : worst_b < k} <= gamma B: outside [k-th, (B+1-k)-th] in at most gamma
    ks = np.arange(1, (B + 1) // 2 + 1)
    outside = np.searchsorted(np.sort(worst), ks, side="left")
    ok = ks[outside <= gamma * B]
    k = int(ok.max()) if ok.size else 1
    return srt[:, k - 1], srt[:, B - k], k / B



def expanded_confidence(confidence: float, n_systems: int) -> float:
    r"""The percentile level of the parametric interval: Student's t with ``n_systems - 1`` df.

    :math:`c'` with :math:`z_{(1+c')/2} = t_{(1+c)/2,\,S-1}`: the spread of
    :math:`\hat\Delta` scales with the system variance, itself estimated with
    :math:`S-1` degrees of freedom, as a normal mean's does with its estimated
    variance (Hesterberg 2015's expanded percentile interval, without its
    factor :math:`\sqrt{n/(n-1)}`, which corrects a plug-in variance the
    mean squares here do not have). 0.9723 for 12 systems, 0.9592 for 30,
    0.9574 for 37; with 2 systems (one degree of freedom) :math:`1 - 6\times
    10^{-37}`, which no number of draws resolves (:func:`min_draws`).
    """
    return 1.0 - _expanded_gap(confidence, n_systems)


def _expanded_gap(confidence: float, n_systems: int) -> float:
    """``1 - expanded_confidence``, computed as a tail (exact where the level rounds to 1)."""
    from scipy import stats

    t = stats.t.ppf(0.5 + confidence / 2.0, n_systems - 1)
    return float(2.0 * stats.norm.sf(t))


def min_draws(n_candidates: int, n_systems: int, confidence: float = 0.95,
              interval: PhiInterval | str = PhiInterval.parametric) -> int:
    r"""Fewest draws whose intervals resolve every tail of the simultaneous family.

    :math:`\lceil 2L/(1 - c')\rceil` for :math:`L` candidates (at least 1),
    where :math:`c'` is the level the percentiles are read at:
    :func:`expanded_confidence` for ``"parametric"``, ``confidence`` for the
    bootstraps (module docstring, *Simultaneity*). The jackknife draws nothing for
    Phi: its draws are the topic resamples of the significant pairs, whose
    intervals are marginal (:math:`L = 1`).

    Examples
    --------
    >>> min_draws(1, 30), min_draws(20, 30), min_draws(20, 30, interval="bootstrap")
    (49, 980, 800)
    >>> min_draws(20, 30, interval="jackknife")  # draws only for the significant pairs
    40
    """
    gap = 1.0 - float(confidence)
    method = check_interval(interval)
    if method is PhiInterval.parametric:
        gap = _expanded_gap(confidence, n_systems)
    L = max(1, int(n_candidates))
    if method is PhiInterval.jackknife:  # no Phi draws: only the pairs' marginal percentiles
        L = 1
    return max(1, math.ceil(2.0 * L / gap - 1e-9 * L))


def pair_bytes(S: int, T: int) -> float:
    """Bytes the significant pairs hold whatever the draws: per measure the pair indices,
    differences and their squares (2 x P x T, P = S(S-1)/2), the pairs' tolerances, and
    the blocks of sums (bounded)."""
    P = S * (S - 1) / 2.0
    return 8.0 * (2.0 * P * T + 3.0 * P + 3 * BLOCK_CELLS)


def draw_bytes(B: int, M: int, S: int, T: int, L: int, method: PhiInterval) -> float:
    """Bytes of every array the ``B`` draws of :func:`paired_comparison` hold at once.

    Phi draws: the three pivots and the three drawn mean squares (B x M each),
    their components and ratios (about 9 more), the differences and the draws
    (2 x M x B) and the family's sorts and ranks (6 x L x B); for the
    bootstraps the systems and topics drawn (B x (S + T) integers) and the
    resampled blocks (bounded). Significant pairs: the topic draws (B x T
    integers), their counts and the two temporaries of counting them
    ((B + 1) x T, three times), and the counts' differences and quantiles
    (4 x M x B). :func:`pair_bytes` adds what does not grow with ``B``.
    """
    phi = B * (17.0 * M + 6.0 * L)
    if method is PhiInterval.jackknife:  # leave-one-out arrays; no Phi draws
        phi = (5.0 * M + 3.0 * L) * S * T
    elif method is not PhiInterval.parametric:
        phi += B * (S + T) + BLOCK_CELLS * 4.0
    pairs = B * T + 3.0 * (B + 1) * T + 4.0 * M * B
    return 8.0 * (phi + pairs) + pair_bytes(S, T)



def check_draws(n_bootstrap, L: int, S: int, T: int, M: int, confidence: float,
                 method: PhiInterval) -> int:
    """The number of draws: the one asked for if it resolves the family, else an error.

    ``n_bootstrap=None`` takes :data:`DEFAULT_DRAWS` or :func:`min_draws`, whichever is
    larger. Refused: fewer draws than :func:`min_draws` (the message says the minimum),
    pairs of systems or draws whose arrays cannot fit in memory (:func:`draw_bytes`).
    """
    need = min_draws(L, S, confidence, method)
    what = (f"the {L} candidates' simultaneous {100 * confidence:.4g} % intervals" if L > 1
            else f"a {100 * confidence:.4g} % interval")
    gap = 1.0 - confidence
    if method is PhiInterval.parametric:
        gap = _expanded_gap(confidence, S)
        what += f" (read at 1 - {gap:.4g}, Student's t with {S - 1} df)"
    elif method is PhiInterval.jackknife:
        what = f"the {100 * confidence:.4g} % intervals of the significant pairs"
        L = 1
    rule = f"2 x {max(L, 1)} / {gap:.4g}"
    check_allocation(pair_bytes(S, T), f"scores: {S} systems make {S * (S - 1) / 2:.3g} "
                     f"pairs, whose differences on {T} topics")
    if not fits_in_memory(draw_bytes(float(need), M, S, T, L, method)):
        raise IRStabError(
            f"n_bootstrap: {what} needs {float(need):.3g} draws to put one in each tail "
            f"({rule}), more than this machine can hold; compare more systems or fewer "
            "candidates"
        )
    if n_bootstrap is None:
        return max(DEFAULT_DRAWS, need)
    B = int(n_bootstrap)
    if B < need:
        raise IRStabError(
            f"n_bootstrap: {B} draws cannot resolve {what}: each tail needs a draw at the "
            f"Bonferroni level, B >= {rule}; use at least {need}"
        )
    check_allocation(draw_bytes(B, M, S, T, L, method),
                     f"n_bootstrap: {B} draws of {M} measures x {S} systems x {T} topics")
    return B


def comparison_work(M: int, S: int, T: int, B: int, method: PhiInterval) -> float:
    """The work of a paired comparison, in paired t-tests.

    The significant pairs: ``M x (B + 1) x S (S - 1) / 2`` paired t-tests (every measure,
    the observed topics and each of ``B`` topic resamples, every pair of systems); the
    resampled intervals (bootstrap, topic-bootstrap) add their draws, ``M x B x S x T``
    cells at about twice a test's cost each. The jackknife's work (``M^2 S T`` in matrix
    products) and the parametric draws' are far below either.
    """
    tests = float(M) * (B + 1) * (S * (S - 1) / 2)
    resampled = method in (PhiInterval.bootstrap, PhiInterval.topic_bootstrap)
    return tests + (2.0 * M * B * S * T if resampled else 0.0)


def check_work(M: int, S: int, T: int, B: int, method: PhiInterval, least: int,
               limit: float | None = None) -> None:
    """Refuse a comparison whose :func:`comparison_work` exceeds ``limit`` (None:
    :data:`MAX_WORK`; ``math.inf``: none), before any of it, naming the counts, how many measures fit and how
    many draws (``n_bootstrap``, the CLI's ``-B``) fit where that is at least ``least``,
    the fewest the comparison takes.

    A thousand measures on 37 systems with 1000 resamples are 6.7e8 tests (about 6 s);
    2000, or 1000 on 46 systems, are refused.
    """
    limit = MAX_WORK if limit is None else float(limit)
    if not limit > 0:
        raise IRStabError(f"max_work: expected a positive number of tests, got {limit!r}")
    work = comparison_work(M, S, T, B, method)
    if work <= limit:
        return
    P = S * (S - 1) // 2
    per_measure = comparison_work(1, S, T, B, method)
    fit_m = int(limit // per_measure)
    per_draw = comparison_work(M, S, T, 1, method) - comparison_work(M, S, T, 0, method)
    fit_b = int((limit - comparison_work(M, S, T, 0, method)) // per_draw)
    draws = work - float(M) * (B + 1) * P
    counted = (f"{M} measures x {B + 1:,} topic samples (n_bootstrap, -B, and the observed "
               f"topics) x {P:,} pairs of {S} systems are {work - draws:.3g} paired t-tests")
    if draws:
        counted += f", and the {method.value} interval draws {M * B * S * T:.3g} cells of Phi"
    options = [f"compare at most {fit_m} measures (scores; -m or --scores)"] if fit_m >= 2 else []
    if fit_b >= least:
        options.append(f"take n_bootstrap (-B) {fit_b} or fewer (at least {least})")
    if not options:
        options.append("compare fewer systems")
    raise IRStabError(
        f"{counted}: more than the comparison's budget of {limit:.3g} tests (max_work; "
        f"{MAX_WORK:.3g}, some 10 s of one core, is irstab.verdict.draws.MAX_WORK); "
        + ", or ".join(options))
