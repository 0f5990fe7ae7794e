"""Seeded, vectorised bootstrap of the G-study over topics and/or systems.

A resample draws topics (columns) and/or systems (rows) with replacement,
keeps the crossed design and re-estimates the three variance components. All
resample indices are drawn up front from one ``numpy.random.Generator``; the
resampled matrices are then built and reduced in blocks of whole resamples
with array operations (no Python loop over resamples), so results do not
depend on the block size.

Percentile intervals (``numpy.quantile`` with ``method="inverted_cdf"``, i.e.
order statistics, which also handles infinite topic counts) are taken of
Erho2(n'), Phi(n') and of the topics needed, each computed per resample from
the resample's components truncated at 0. Point estimates stay those of the
original sample.

Which facet to resample is a choice: ``"topics"`` (default) answers "how
would the coefficients vary over another topic sample of this size", which is
the question of Kanoulas & Aslam, CIKM 2009. Brennan (2001, ch. 6) shows that naive
"boot-p,i" (``"both"``) and single-facet bootstraps bias some variance
components (no correction is applied here), so treat this as a second,
distribution-free opinion next to the F-based intervals, not a replacement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._numeric import check_allocation, check_resamples, check_seed
from ..errors import IRStabError
from .coefficients import (
    Coefficient, Resample, check_confidence, coef_from_psi, needed_from_psi, psi_of,
)
from .designs.crossed import crossed_components, validate_scores

__all__ = ["bootstrap_components", "bootstrap_intervals", "BootstrapIntervals"]

_BLOCK_CELLS = 2_000_000  # cells per block of resampled matrices (~16 MB of float64)


def _fitted_matrix(scores) -> np.ndarray:
    """The score matrix of a fitted G-study, or ``scores`` validated as one.

    A fitted study is recognised by its read-only ``scores`` matrix and its
    ``components`` (a :class:`~irstab.stability.gstudy.GStudy`; this module sits
    below it and does not import it).
    """
    if not isinstance(scores, (pd.DataFrame, np.ndarray, list, tuple)):
        fitted = getattr(scores, "scores", None)
        if isinstance(fitted, np.ndarray) and hasattr(scores, "components"):
            return fitted
    return validate_scores(scores)[0]


def bootstrap_components(
    scores,
    n_resamples: int = 1000,
    *,
    resample: Resample | str = Resample.topics,
    seed: int | np.random.Generator | None = None,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Raw variance components of ``n_resamples`` bootstrap resamples.

    Parameters
    ----------
    scores : GStudy, pandas.DataFrame or numpy.ndarray
        A fitted :class:`~irstab.stability.gstudy.GStudy` (its matrix is
        used, after any ``drop_worst``) or a systems x topics matrix.
    n_resamples : int
        Number of resamples (>= 1).
    resample : {"topics", "systems", "both"}
        Facet(s) drawn with replacement; the others are kept as observed.
    seed : int, numpy.random.Generator or None
        Source of randomness (``numpy.random.default_rng(seed)``).
    progress : callable, optional
        Called with the number of resamples done after each block.

    Returns
    -------
    numpy.ndarray, shape (n_resamples, 3)
        ``(sigma2_system, sigma2_topic, sigma2_residual)`` per resample, raw
        (may be negative).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    >>> c = bootstrap_components(x, 5, seed=1)
    >>> c.shape
    (5, 3)
    >>> bool(np.array_equal(c, bootstrap_components(x, 5, seed=1)))
    True
    """
    x = _fitted_matrix(scores)
    try:
        resample = Resample(resample)
    except ValueError:
        raise IRStabError(
            f"resample: expected 'topics', 'systems' or 'both', got {resample!r}"
        ) from None
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, (int, np.integer))
        or n_resamples < 1
    ):
        raise IRStabError(f"n_resamples: must be a positive integer, got {n_resamples!r}")
    check_allocation(8.0 * n_resamples * (x.shape[0] + x.shape[1] + 3),
                     f"n_resamples: {n_resamples} resamples of {x.shape[0]} systems x "
                     f"{x.shape[1]} topics")
    n_s, n_t = x.shape
    rng = check_seed(seed)
    if resample in (Resample.systems, Resample.both):
        rows = rng.integers(0, n_s, size=(n_resamples, n_s))
    else:
        rows = np.broadcast_to(np.arange(n_s), (n_resamples, n_s))
    if resample in (Resample.topics, Resample.both):
        cols = rng.integers(0, n_t, size=(n_resamples, n_t))
    else:
        cols = np.broadcast_to(np.arange(n_t), (n_resamples, n_t))

    block = max(1, _BLOCK_CELLS // (n_s * n_t))
    out = np.empty((n_resamples, 3))
    for start in range(0, n_resamples, block):  # blocks of resamples, vectorised within
        stop = min(start + block, n_resamples)
        sample = x[rows[start:stop, :, None], cols[start:stop, None, :]]
        out[start:stop] = crossed_components(sample)
        if progress is not None:
            progress(stop)
    return out


@dataclass(frozen=True, eq=False)
class BootstrapIntervals:
    """Percentile limits from :func:`bootstrap_intervals`, keyed by coefficient.

    ``coef_lower[c][i]`` / ``coef_upper[c][i]`` belong to ``n_topics[i]``;
    ``needed_lower[c][j]`` / ``needed_upper[c][j]`` to ``targets[j]``.
    ``components`` holds the raw resampled components, shape (B, 3).
    """

    n_topics: np.ndarray
    targets: tuple[float, ...]
    confidence: float
    coef_lower: dict
    coef_upper: dict
    needed_lower: dict
    needed_upper: dict
    components: np.ndarray


def bootstrap_intervals(
    g,
    n_topics: Sequence[float] | np.ndarray,
    targets: Sequence[float] = (0.95,),
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    resample: Resample | str = Resample.topics,
    seed: int | np.random.Generator | None = None,
    progress: Callable[[int], None] | None = None,
) -> BootstrapIntervals:
    """Percentile bootstrap intervals of Erho2(n'), Phi(n') and the topics needed.

    Used by :meth:`GStudy.dstudy` with ``interval="bootstrap"``; see the
    module docstring for the method and its caveats.

    Parameters
    ----------
    g : GStudy
        The fitted G-study (its score matrix is resampled).
    n_topics : sequence of float
        Topic-set sizes n' (>= 1).
    targets : sequence of float
        Targets in (0, 1) for the topics needed.
    confidence, n_resamples, resample, seed, progress
        As in :func:`bootstrap_components`; ``confidence`` is two-sided.

    Returns
    -------
    BootstrapIntervals
    """
    confidence = check_confidence(confidence)
    check_resamples(n_resamples, confidence)
    comps = bootstrap_components(g, n_resamples, resample=resample, seed=seed, progress=progress)
    n = np.asarray(n_topics, dtype=float)
    tg = np.asarray(targets, dtype=float)
    alpha = 1.0 - confidence
    qs = [alpha / 2.0, 1.0 - alpha / 2.0]
    coef_lo, coef_hi, need_lo, need_hi = {}, {}, {}, {}
    for c in Coefficient:  # two coefficients, vectorised over resamples
        psi = psi_of(comps, c)  # (B,)
        coef = coef_from_psi(psi[:, None], n[None, :])  # (B, len(n))
        lo, hi = np.quantile(coef, qs, axis=0, method="inverted_cdf")
        coef_lo[c], coef_hi[c] = lo, hi
        needed = needed_from_psi(psi[:, None], tg[None, :])  # (B, len(targets))
        lo, hi = np.quantile(needed, qs, axis=0, method="inverted_cdf")
        need_lo[c], need_hi[c] = lo, hi
    return BootstrapIntervals(
        n_topics=n,
        targets=tuple(float(t) for t in tg),
        confidence=confidence,
        coef_lower=coef_lo,
        coef_upper=coef_hi,
        needed_lower=need_lo,
        needed_upper=need_hi,
        components=comps,
    )
