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

Seeds
-----
Randomness always comes from ``numpy.random.default_rng(seed)``; :func:`check_seed`
is the one place a seed is validated, so every command and function rejects
the same inputs with the same message.
"""

from __future__ import annotations

import numpy as np

from .errors import IRStabError

__all__ = ["VARIANCE_RTOL", "negligible", "check_seed"]

#: Relative tolerance of :func:`negligible` (module docstring).
VARIANCE_RTOL = 1e-12


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
