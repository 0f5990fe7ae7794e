r"""The crossed systems x topics design: sums of squares, variance components, input.

One score per (system, topic) cell; the two-way random-effects ANOVA without
replication (Brennan 2001, ch. 2-3). Every function takes ``x[..., s, t]``
with any leading batch axes (the bootstrap stacks resamples there).

Every sum of squares is taken of the matrix scaled to unit spread
(:func:`irstab._numeric.unit_spread`): a matrix whose spread is rounding noise
of its magnitude (constant up to rounding) has every component exactly 0, and
no scale of the scores overflows or underflows a square. :func:`scaled_components`
stays in those units (Phi, a ratio, has none: :func:`irstab.stability.dstudy.crossed_phi`);
:func:`sums_of_squares` and :func:`crossed_components` report score units.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..._numeric import check_magnitude, constant_message, negligible, unit_spread
from ...errors import DegenerateDataError, IRStabError

__all__ = ["sums_of_squares", "crossed_components", "scaled_components",
           "components_from_mean_squares", "validate_scores", "constant_message",
           "drop_worst_systems", "keep_mask"]

_MAX_NAMED = 5  # cells named in an error message


def _scaled_sums_of_squares(x: np.ndarray):
    """``(ss, k)``: SS of ``x * 2**-k`` (unit spread; zeros for a constant matrix), shape (3, ...)."""
    y, k = unit_spread(x)
    return _raw_sums_of_squares(y), k


def sums_of_squares(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SS of systems, topics and residual over the last two axes (any leading batch).

    A sum of squares that is :func:`~irstab._numeric.negligible` against
    their total is rounding noise of a true 0 (identical systems give
    ``SS_sys`` of about 1e-32) and is set to exactly 0; a matrix constant up
    to rounding has all three 0 (module docstring). In score units (squares of
    scores beyond 1e154 are ``inf``: :func:`validate_scores` refuses them).
    """
    ss, k = _scaled_sums_of_squares(np.asarray(x, dtype=float))
    with np.errstate(over="ignore"):
        ss = np.ldexp(ss, 2 * np.asarray(k))
    return ss[0], ss[1], ss[2]


def _raw_sums_of_squares(x: np.ndarray) -> np.ndarray:
    # np.mean's and np.sum's own reductions, called directly: an optimizer evaluates
    # thousands of small matrices, where the wrappers cost more than the sums
    add = np.add.reduce
    n_s, n_t = x.shape[-2:]
    grand = add(x, axis=(-2, -1), keepdims=True) / (n_s * n_t)
    rows = add(x, axis=-1, keepdims=True) / n_t
    cols = add(x, axis=-2, keepdims=True) / n_s
    parts = (n_t * add(np.square(rows - grand), axis=(-2, -1)),
             n_s * add(np.square(cols - grand), axis=(-2, -1)),
             add(np.square(x - rows - cols + grand), axis=(-2, -1)))
    ss = np.array(parts) if x.ndim == 2 else np.stack(parts)
    return np.where(negligible(ss, add(ss, axis=0)), 0.0, ss)


def scaled_components(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(components, k)``: the raw components of ``x * 2**-k`` (unit spread), and ``k``.

    ``components * 4**k`` are :func:`crossed_components`; ratios of them
    (Phi, Erho2) are the same in either unit, and never overflow in this one.
    """
    x = np.asarray(x, dtype=float)
    n_s, n_t = x.shape[-2:]
    (ss_s, ss_t, ss_r), k = _scaled_sums_of_squares(x)
    comps = components_from_mean_squares(
        ss_s / (n_s - 1), ss_t / (n_t - 1), ss_r / ((n_s - 1) * (n_t - 1)), n_s, n_t
    )
    return comps, k


def crossed_components(x: np.ndarray) -> np.ndarray:
    """Raw variance components ``[..., (system, topic, residual)]`` of ``x[..., s, t]``.

    A component negligible against the sum of the components' absolute values
    (an ``MS_sys - MS_res`` of two equal mean squares) is exactly 0, so that
    rounding noise is neither a "negative variance" nor a signal; a matrix
    constant up to rounding has all three 0. In score units.
    """
    comps, k = scaled_components(x)
    with np.errstate(over="ignore"):
        return np.ldexp(comps, 2 * np.asarray(k)[..., None])


def components_from_mean_squares(ms_s, ms_t, ms_r, n_s: int, n_t: int) -> np.ndarray:
    """Raw components ``[..., (system, topic, residual)]`` from the three mean squares.

    The expected-mean-square solution of the crossed design (Brennan 2001,
    ch. 3): ``((MS_s - MS_r) / n_t, (MS_t - MS_r) / n_s, MS_r)``; a component
    negligible against the sum of the components' absolute values is exactly 0.
    """
    if all(isinstance(v, float) for v in (ms_s, ms_t, ms_r)):  # one matrix (np.float64 too)
        comps = np.array([(ms_s - ms_r) / n_t, (ms_t - ms_r) / n_s, ms_r], dtype=float)
        return np.where(negligible(comps, np.add.reduce(np.abs(comps))), 0.0, comps)
    ms_s, ms_t, ms_r = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                             for v in (ms_s, ms_t, ms_r)))
    comps = np.stack([(ms_s - ms_r) / n_t, (ms_t - ms_r) / n_s, ms_r], axis=-1)
    scale = np.abs(comps).sum(axis=-1, keepdims=True)
    return np.where(negligible(comps, scale), 0.0, comps)


def validate_scores(scores, where: str = "scores") -> tuple[np.ndarray, tuple, tuple]:
    """Check a score matrix and return ``(x, systems, topics)``; ``x`` is a float copy.

    ``where`` names the matrix in messages (e.g. the measure). Scores whose
    variances in score units float64 cannot hold are refused
    (:func:`irstab._numeric.check_magnitude`).
    """
    if isinstance(scores, pd.DataFrame):
        systems = tuple(scores.index)
        topics = tuple(scores.columns)
        non_numeric = [c for c in scores.columns if not pd.api.types.is_numeric_dtype(scores[c])]
        if non_numeric:
            raise IRStabError(
                f"scores: topic column(s) {', '.join(map(repr, non_numeric[:_MAX_NAMED]))} "
                "are not numeric"
            )
        x = scores.to_numpy(dtype=float, na_value=np.nan, copy=True)
        for what, labels in (("system", systems), ("topic", topics)):
            dup = pd.Index(labels)[pd.Index(labels).duplicated()].unique()
            if len(dup):
                raise IRStabError(
                    f"scores: duplicate {what} label(s): {', '.join(map(repr, dup[:_MAX_NAMED]))}"
                )
    else:
        try:
            x = np.array(scores, dtype=float)
        except (TypeError, ValueError) as exc:
            raise IRStabError(f"scores: not a numeric matrix ({exc})") from None
        if x.ndim != 2:
            raise IRStabError(f"scores: expected a 2-D matrix (systems x topics), got {x.ndim}-D")
        systems = tuple(range(x.shape[0]))
        topics = tuple(range(x.shape[1]))
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise DegenerateDataError(
            f"scores: a G-study needs at least 2 systems and 2 topics, got "
            f"{x.shape[0]} system(s) x {x.shape[1]} topic(s)"
        )
    for mask, what in ((np.isnan(x), "missing"), (np.isinf(x), "non-finite")):
        if mask.any():
            s_idx, t_idx = np.nonzero(mask)
            named = ", ".join(
                f"(system {systems[s]!r}, topic {topics[t]!r})"
                for s, t in zip(s_idx[:_MAX_NAMED], t_idx[:_MAX_NAMED])
            )
            more = f" and {mask.sum() - _MAX_NAMED} more" if mask.sum() > _MAX_NAMED else ""
            raise DegenerateDataError(
                f"scores: {mask.sum()} {what} cell(s): {named}{more}; the crossed design "
                "needs one finite score per system and topic"
            )
    check_magnitude(x, where, (systems, topics))
    return x, systems, topics


def keep_mask(x: np.ndarray, fraction: float) -> np.ndarray:
    """Systems kept by :func:`drop_worst_systems` (boolean over rows)."""
    if not (0.0 <= fraction < 1.0) or math.isnan(fraction):
        raise IRStabError(f"drop_worst: must be in [0, 1), got {fraction!r}")
    k = math.floor(fraction * x.shape[0])
    means = x.mean(axis=1)
    if k == 0:
        return np.ones(x.shape[0], dtype=bool)
    cutoff = np.sort(means)[k]
    return means >= cutoff


def drop_worst_systems(scores, fraction: float):
    """Drop the bottom ``fraction`` of systems by mean score.

    ``floor(fraction * n_systems)`` systems are dropped, except that systems
    tied (exactly equal mean) with the best dropped one are kept, so a tie is
    never split and at most that many are dropped. ``fraction = 0`` keeps all.

    Parameters
    ----------
    scores : pandas.DataFrame or numpy.ndarray
        Systems x topics.
    fraction : float
        In ``[0, 1)``.

    Returns
    -------
    Same type as ``scores``, with the kept rows in their original order (a new
    object; the input is not modified).

    Examples
    --------
    >>> import numpy as np
    >>> drop_worst_systems(np.array([[1., 1.], [0., 0.], [2., 2.], [3., 3.]]), 0.5)
    array([[2., 2.],
           [3., 3.]])
    """
    if isinstance(scores, pd.DataFrame):
        keep = keep_mask(scores.to_numpy(dtype=float, na_value=np.nan), fraction)
        return scores.loc[keep].copy()
    x = np.asarray(scores, dtype=float)
    return x[keep_mask(x, fraction)].copy()
