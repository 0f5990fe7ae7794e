"""Numerical conventions shared by every module: when a variance is zero, and seeds.

Variances against zero
----------------------
A sum of squares or variance component computed in floating point is never
exactly 0 when its true value is: four identical runs give a system sum of
squares of about 1e-32, not 0, and a test ``== 0`` then lets rounding noise
decide Erho2 (0.96 instead of 0). Every test of a variance against zero goes
through :func:`negligible`, which compares it with the total it is part of:

.. math:: |v| \\le \\mathrm{rtol} \\cdot |V|, \\qquad \\mathrm{rtol} = 10^{-12}.

Rounding noise in a sum of squares is of the order of
:math:`\\epsilon^2 \\max|x|^2` per cell (:math:`\\epsilon \\approx 2.2\\times
10^{-16}`), far below :math:`10^{-12}` of any total that is not itself
noise; a genuine component below :math:`10^{-12}` of the total changes no
reported digit (Phi below 1e-12 at one topic).

Equal scores
------------
Two systems' scores on a topic are equal when they differ by at most
:data:`ZERO_RTOL` times the larger of the two systems' largest absolute score
(:func:`pair_tolerance`): the rounding noise of the pair's own magnitude, not
of the largest score in the matrix (which would call two systems identical
because a third scores 1e10). The paired tests, the swap rates and the
optimizer's discrimination surrogate use this one rule.

Magnitudes
----------
Variances are squares: scores beyond 1e150 overflow them and scores that
differ by less than 1e-150 underflow them, so a G-study or a comparison would
report rounding artefacts ("all systems have the same score").
:func:`check_magnitude` refuses such matrices with the figure instead (Phi,
Kendall's tau and the paired tests do not depend on the scores' scale, so
rescaling loses nothing).

Resamples
---------
A percentile interval at confidence ``c`` reads the ``(1 - c) / 2`` and
``(1 + c) / 2`` quantiles of ``B`` resamples; below ``B = 2 / (1 - c)`` (40 at
95 %) a tail holds no resample and the "interval" is the range of a handful of
values, which may exclude its own estimate. :func:`check_resamples` refuses
such counts, naming the minimum.

Memory a count implies
----------------------
Counts a user chooses (bootstrap samples, random starts, split trials, a cutoff
beyond the ranked lists) size arrays before any work starts.
:func:`check_allocation` compares the bytes such an array needs with half of
the machine's memory and refuses the count with the figures, instead of
failing inside numpy ("Unable to allocate 224 GiB") or growing until the
machine swaps.

Seeds
-----
Randomness always comes from ``numpy.random.default_rng(seed)``; :func:`check_seed`
is the one place a seed is validated, so every command and function rejects
the same inputs with the same message.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .errors import IRStabError

__all__ = ["VARIANCE_RTOL", "ZERO_RTOL", "negligible", "pair_tolerance", "check_magnitude",
           "min_resamples", "check_resamples", "check_allocation", "check_seed"]

#: Relative tolerance of :func:`negligible` (module docstring).
VARIANCE_RTOL = 1e-12
#: Relative tolerance of two equal scores (:func:`pair_tolerance`).
ZERO_RTOL = 1e-12
#: Largest |score| whose square (a variance) float64 holds with room for sums.
MAX_MAGNITUDE = 1e150
#: Smallest spread of scores whose square does not underflow.
MIN_SPREAD = 1e-150


def negligible(value, total, rtol: float = VARIANCE_RTOL):
    """Whether ``value`` is zero relative to ``total``: ``|value| <= rtol * |total|``.

    Parameters
    ----------
    value, total : float or numpy.ndarray
        A variance (or sum of squares) and the total it is a part of
        (broadcast against each other). ``total = 0`` makes only an exact 0
        negligible.
    rtol : float
        Relative tolerance (default :data:`VARIANCE_RTOL`).

    Returns
    -------
    bool or numpy.ndarray of bool

    Examples
    --------
    >>> bool(negligible(1.5e-32, 9.8))  # identical runs: rounding noise of a zero SS
    True
    >>> bool(negligible(1e-6, 9.8))
    False
    """
    out = np.abs(value) <= rtol * np.abs(total)
    return bool(out) if np.ndim(out) == 0 else out


def pair_tolerance(x: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Largest difference of two equal scores for each pair ``(i[p], j[p])`` of ``x[..., s, t]``.

    :data:`ZERO_RTOL` times the larger of the two systems' largest ``|score|``
    (1 when both are all zeros); shape ``x.shape[:-2] + (len(i),)``.

    Examples
    --------
    >>> x = np.array([[1e10, 2e10], [0.2, 0.3], [0.4, 0.1]])
    >>> pair_tolerance(x, np.array([0, 1]), np.array([1, 2])).tolist()  # (0,1) and (1,2)
    [0.02, 4e-13]
    """
    a = np.abs(x).max(axis=-1)
    scale = np.maximum(a[..., i], a[..., j])
    return ZERO_RTOL * np.where(scale > 0, scale, 1.0)


def check_magnitude(x: np.ndarray, where: str, labels=None) -> None:
    """Refuse scores whose variances float64 cannot hold (module docstring, *Magnitudes*).

    ``x[..., s, t]`` finite; ``where`` names the input in the message; ``labels``
    (systems, topics) name the offending cell.

    Raises
    ------
    irstab.errors.IRStabError
        ``|score| > 1e150`` (its square overflows) or ``0 < max - min < 1e-150`` (the
        squared differences underflow).
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return
    big = np.abs(x)
    k = int(np.argmax(big))
    if big.flat[k] > MAX_MAGNITUDE:
        cell = ""
        if labels is not None and x.ndim >= 2:
            s, t = np.unravel_index(k, x.shape)[-2:]
            cell = f" (system {labels[0][s]!r}, topic {labels[1][t]!r})"
        raise IRStabError(
            f"{where}: a score of {x.flat[k]:.3g}{cell} is too large: its square, a variance, "
            f"overflows floating point beyond {MAX_MAGNITUDE:g}; divide the scores by a constant "
            "(Phi, Kendall's tau and the paired tests do not depend on the scale)"
        )
    spread = float(x.max() - x.min())
    if 0.0 < spread < MIN_SPREAD:
        raise IRStabError(
            f"{where}: the scores differ by at most {spread:.3g}: their squared differences "
            f"underflow floating point below {MIN_SPREAD:g}; multiply the scores by a constant "
            "(Phi, Kendall's tau and the paired tests do not depend on the scale)"
        )


def min_resamples(confidence: float) -> int:
    """Fewest resamples whose percentile interval at ``confidence`` has a resample in each tail.

    Examples
    --------
    >>> min_resamples(0.95), min_resamples(0.9), min_resamples(0.99)
    (40, 20, 200)
    """
    return max(1, math.ceil(2.0 / (1.0 - float(confidence)) - 1e-9))


def check_resamples(n, confidence: float, name: str = "n_resamples") -> int:
    """``n`` as an int if it gives a percentile interval at ``confidence``, else an error.

    Raises
    ------
    irstab.errors.IRStabError
        Not an integer, or fewer than :func:`min_resamples` (the message names it).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise IRStabError(f"{name}: expected a positive integer, got {n!r}")
    need = min_resamples(confidence)
    if n < need:
        raise IRStabError(
            f"{name}: {n} resample(s) cannot give a {100 * confidence:.4g} % percentile interval "
            f"(each {50 * (1 - confidence):.3g} % tail needs at least one resample): use at "
            f"least {need}"
        )
    return int(n)


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 16 * 2**30


def _size(n: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.3g} bytes"


def check_allocation(nbytes: float, what: str) -> None:
    """Refuse an allocation of ``nbytes`` beyond half of the machine's memory.

    ``what`` says what is asked for and by which parameter, e.g.
    ``"n_bootstrap: 1000000000 samples of 30 topics"``.

    Examples
    --------
    >>> check_allocation(1e6, "n: a small array")
    >>> check_allocation(1e18, "n_bootstrap: 1e17 samples")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    irstab.errors.IRStabError: n_bootstrap: 1e17 samples need 1e+06 TB of memory, more than ...
    """
    budget = _memory_bytes() / 2
    if nbytes > budget:
        raise IRStabError(
            f"{what} need {_size(nbytes)} of memory, more than half of this machine's "
            f"{_size(2 * budget)}; ask for fewer"
        )


def check_seed(seed, name: str = "seed") -> np.random.Generator:
    """``numpy.random.default_rng(seed)``, or an error naming ``name`` on bad input.

    Accepts ``None`` (fresh entropy), an integer ``>= 0``, a
    :class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`
    (returned as is, so a caller's stream is consumed, not copied).

    Raises
    ------
    irstab.errors.IRStabError
        A negative integer, a bool, a float or anything else.

    Examples
    --------
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    irstab.errors.IRStabError: seed: must be an integer >= 0, got -1
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not (
        seed is None or isinstance(seed, (int, np.integer, np.random.SeedSequence))
    ):
        raise IRStabError(
            f"{name}: expected an integer >= 0, a numpy.random.Generator or None, "
            f"got {seed!r}"
        )
    if isinstance(seed, (int, np.integer)) and seed < 0:
        raise IRStabError(f"{name}: must be an integer >= 0, got {seed}")
    return np.random.default_rng(seed)
