"""Seeded, vectorised bootstrap of a three-facet G-study over topics and assessors.

A resample draws topics with replacement (each draw becomes a new topic)
and/or assessors: in the nested design the assessors of each drawn topic are
drawn from that topic's own; in the crossed design one draw of assessors is
shared by all topics. Systems, the object of measurement, are kept. Each
resample's components are re-estimated by Henderson's method 1
(:mod:`irstab.stability.designs`), which on a balanced resample equals the
expected-mean-square solution; resamples are stacked and solved together in
blocks (no Python loop over resamples), so results do not depend on the
block size. All indices come from one ``numpy.random.Generator``.

As with the two-facet bootstrap, the naive multi-facet bootstrap biases some
components (Brennan 2001, §6.3; Wiley 2001): no correction is applied, so the
intervals are a distribution-free second opinion, not exact coverage.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._numeric import check_allocation, check_seed
from ..errors import IRStabError
from .designs import Design, henderson1_components

__all__ = ["bootstrap_facets", "RESAMPLE_CHOICES"]

RESAMPLE_CHOICES = ("topics", "assessors", "both")
_BLOCK_SCORES = 2_000_000  # scores per block of stacked resamples


def _draws(g, rng, n_resamples, resample):
    """Chosen cells of every resample: ``(batch, new_t, new_a, src_t, src_a)``."""
    d = g.data
    n_t = g.n_topics
    per_topic = d.n_assessors_per_topic
    b_idx = np.repeat(np.arange(n_resamples), n_t)
    if resample in ("topics", "both"):
        src_t = rng.integers(0, n_t, size=(n_resamples, n_t)).ravel()
    else:
        src_t = np.tile(np.arange(n_t), n_resamples)
    new_t = np.tile(np.arange(n_t), n_resamples)
    draw_a = resample in ("assessors", "both")
    if g.design is Design.nested:
        m = per_topic[src_t]
        rep = np.repeat(np.arange(len(src_t)), m)
        new_a = np.arange(m.sum()) - np.repeat(np.cumsum(m) - m, m)
        src_a = (rng.random(m.sum()) * m[rep]).astype(np.int64) if draw_a else new_a
        return b_idx[rep], new_t[rep], new_a, src_t[rep], src_a
    n_a = int(d.a.max()) + 1
    if draw_a:
        a_draw = rng.integers(0, n_a, size=(n_resamples, n_a))
    else:
        a_draw = np.broadcast_to(np.arange(n_a), (n_resamples, n_a))
    b = np.repeat(b_idx, n_a)
    t_pos = np.repeat(new_t, n_a)
    a_pos = np.tile(np.arange(n_a), n_resamples * n_t)
    return b, t_pos, a_pos, np.repeat(src_t, n_a), a_draw[b, a_pos]


def bootstrap_facets(
    g,
    n_resamples: int = 1000,
    *,
    resample: str = "both",
    seed: int | np.random.Generator | None = None,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Raw components of ``n_resamples`` resamples of a :class:`FacetGStudy`.

    Parameters
    ----------
    g : FacetGStudy
        The fitted study (its scores are resampled).
    n_resamples : int
        Number of resamples (>= 1).
    resample : {"both", "topics", "assessors"}
        Facet(s) drawn with replacement.
    seed : int, numpy.random.Generator or None
        Source of randomness.
    progress : callable, optional
        Called with the number of resamples done after each block.

    Returns
    -------
    numpy.ndarray, shape (n_resamples, n_effects)
        Raw components per resample (order of ``g.sources``); a resample whose
        effects cannot be separated (e.g. one distinct topic drawn) is NaN.
    """
    if resample not in RESAMPLE_CHOICES:
        raise IRStabError(f"resample: expected one of {RESAMPLE_CHOICES}, got {resample!r}")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise IRStabError(f"n_resamples: must be a positive integer, got {n_resamples!r}")
    n_resamples = int(n_resamples)
    check_allocation(16.0 * n_resamples * len(g.data.y),
                     f"n_resamples: {n_resamples} resamples of {len(g.data.y)} scores")
    rng = check_seed(seed)
    d = g.data
    # Rows grouped by their (topic, assessor) cell, for a vectorised gather.
    n_a_codes = int(d.a.max()) + 1
    cell = d.t * n_a_codes + d.a
    order = np.argsort(cell, kind="stable")
    n_cells = g.n_topics * n_a_codes
    cell_len = np.bincount(cell, minlength=n_cells)
    cell_start = np.r_[0, np.cumsum(cell_len)[:-1]]

    b, new_t, new_a, src_t, src_a = _draws(g, rng, n_resamples, resample)
    block = max(1, _BLOCK_SCORES // max(1, len(d.y)))
    out = np.empty((n_resamples, len(g.sources)))
    for lo in range(0, n_resamples, block):  # blocks of whole resamples bound the memory
        hi = min(lo + block, n_resamples)
        sl = slice(np.searchsorted(b, lo), np.searchsorted(b, hi))
        src = src_t[sl] * n_a_codes + src_a[sl]
        lens = cell_len[src]
        rep = np.repeat(np.arange(len(src)), lens)
        within = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        rows = order[cell_start[src][rep] + within]
        codes = {"s": d.s[rows], "t": new_t[sl][rep], "a": new_a[sl][rep]}
        out[lo:hi] = henderson1_components(
            d.y[rows], codes, g.design, batch=b[sl][rep] - lo, n_batch=hi - lo
        )
        if progress is not None:
            progress(hi)
    return out
