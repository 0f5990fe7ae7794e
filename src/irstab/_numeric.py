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

Constant matrices and scale
---------------------------
Phi, Erho2 and the paired tests do not change when a measure's scores are
mapped by :math:`x \\mapsto a x + b` (:math:`a > 0`), so nothing that computes
them may depend on the scale or the offset. Every such computation first takes
each systems x topics matrix through :func:`spread_exponent`:

* the matrix is **constant** when its spread is rounding noise of its
  magnitude, :math:`\\max x - \\min x \\le` :data:`ZERO_RTOL` :math:`\\cdot
  \\max|x|`: P@10 computed as 0.3 on every cell may come out as 0.3 and
  0.30000000000000004, and its "variance" of 1e-33 is not a system effect. A
  constant matrix has every variance component exactly 0 (Phi = 0 by the
  G-study's convention, never the 0.8-0.99 that the noise's own ratios give);
* otherwise it is multiplied by the power of two :math:`2^{-k}` that brings its
  spread into :math:`[1/2, 1)` (exact in binary: no digit changes), so no
  square of a score difference overflows or underflows whatever the scale
  (scores times 1e-300 or 1e300 give the same Phi as the scores themselves).

So the only magnitudes refused are those of results reported *in score units*
(a G-study's variance components, a detectable difference), where float64
cannot hold them: :func:`check_magnitude`.

Equal scores
------------
Two systems' scores on a topic are equal when they differ by at most
:data:`ZERO_RTOL` times the larger of the two systems' largest absolute score
(:func:`pair_tolerance`): the rounding noise of the pair's own magnitude, not
of the largest score in the matrix (which would call two systems identical
because a third scores 1e10). The paired tests, the swap rates and the
optimizer's discrimination surrogate use this one rule.

Differences of Phi
------------------
Phi lives in [0, 1]: two values of Phi that differ by at most
:data:`PHI_ATOL` (1e-9, far below any reported digit) are the same value, and
draws of a difference of Phi that spread by no more than that do not spread.
The scale is absolute on purpose: the spread of draws compared with their own
magnitude would call the rounding noise of a difference of 1e-16 "spread".

Resamples
---------
A percentile interval at confidence ``c`` reads the ``(1 - c) / 2`` and
``(1 + c) / 2`` quantiles of ``B`` resamples; below ``B = 2 / (1 - c)`` (40 at
95 %) a tail holds no resample and the "interval" is the range of a handful of
values, which may exclude its own estimate. :func:`check_resamples` refuses
such counts, naming the minimum. ``L`` intervals that must hold simultaneously
need each tail of each to be resolvable at the Bonferroni level
:math:`(1 - c)/(2L)`: :math:`B \\ge 2L/(1 - c)` (:func:`min_resamples` with
``family``).

Counts from floats
------------------
A count of topics, assessors or draws computed from floats (a budget divided
by a cost, a cap times a factor) goes through :func:`checked_count` before it
becomes an integer: ``numpy``'s ``astype(int)`` wraps 1e30 to
-9223372036854775808 without a word.

Memory a count implies
----------------------
Counts a user chooses (bootstrap samples, random starts, split trials, a cutoff
beyond the ranked lists) size arrays before any work starts.
:func:`check_allocation` compares the bytes such an array needs with half of
the memory this process may use (:func:`available_memory`: physical RAM, the
process's address-space limit and its container's memory limit, the least of
the three) and refuses the count with the figures, instead of
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

from .errors import DegenerateDataError, IRStabError

__all__ = ["VARIANCE_RTOL", "ZERO_RTOL", "PHI_ATOL", "negligible", "pair_tolerance",
           "spread_exponent", "unit_spread", "affine_twins", "check_magnitude",
           "min_resamples", "check_resamples", "checked_count", "fits_in_memory", "check_allocation",
           "available_memory", "address_space_limit", "cgroup_limit", "CGROUP_LIMIT_FILES",
           "check_seed", "runs_of", "constant_message", "no_variance", "check_varies",
           "kendall_matrix", "tau_ap_matrix"]

#: Relative tolerance of :func:`negligible` (module docstring).
VARIANCE_RTOL = 1e-12
#: Relative tolerance of two equal scores (:func:`pair_tolerance`).
ZERO_RTOL = 1e-12
#: Two values of Phi (in [0, 1]) closer than this are equal (module docstring).
PHI_ATOL = 1e-9
#: Largest |score| whose square (a variance) float64 holds with room for sums.
MAX_MAGNITUDE = 1e150
#: Smallest spread of scores whose square does not underflow.
MIN_SPREAD = 1e-150


def runs_of(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, sizes, pos)`` of the runs of equal consecutive values in ``codes``: where
    each run starts, its length, and each element's 0-based position within its run (a
    ranking's ranks when ``codes`` are the topics of rows grouped by topic).

    >>> [a.tolist() for a in runs_of(np.array([4, 4, 4, 2, 7, 7]))]
    [[0, 3, 4], [3, 1, 2], [0, 1, 2, 0, 0, 1]]
    """
    n = len(codes)
    starts = (np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if n
              else np.zeros(0, np.int64))
    sizes = np.diff(np.r_[starts, n])
    return starts, sizes, np.arange(n) - np.repeat(starts, sizes)


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


def spread_exponent(x) -> tuple[np.ndarray, np.ndarray]:
    """The power of two of each matrix's spread, and which matrices are constant.

    For ``x[..., s, t]`` (any leading batch axes) returns ``(k, constant)``
    over the batch: ``2**(k-1) <= max - min < 2**k``, so ``x * 2**-k`` has a
    spread in [1/2, 1); ``constant`` where the spread is at most
    :data:`ZERO_RTOL` times ``max |x|`` (module docstring; ``k = 0`` there).
    Computed without overflow for any finite ``x`` (the matrix is first
    brought below 1 by an exact power of two).

    Examples
    --------
    >>> k, c = spread_exponent(np.array([[0.3, 0.1 + 0.2], [0.3, 0.3]]))
    >>> int(k), bool(c)  # 0.3 and 0.30000000000000004: rounding noise
    (0, True)
    >>> k, c = spread_exponent(np.array([[1e300, 0.0], [0.0, 0.0]]))
    >>> int(k), bool(c)  # 2**996 <= 1e300 < 2**997
    (997, False)
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 2 and x.size:
        return _spread_exponent_2d(x)
    if x.ndim > 2 and x.size:
        # from each matrix's extremes (as _spread_exponent_2d): no pass of |x| or of the
        # scaled copy over the whole batch; NaN or infinity takes the general path below
        hi, lo = x.max(axis=(-2, -1)), x.min(axis=(-2, -1))
        big = np.maximum(hi, -lo)
        if np.isfinite(big).all():
            _, e_big = np.frexp(big)
            spread = np.ldexp(hi, -e_big) - np.ldexp(lo, -e_big)
            constant = spread <= ZERO_RTOL * np.ldexp(big, -e_big)
            _, e_spread = np.frexp(spread)
            return np.where(constant, 0, e_big + e_spread).astype(np.int64), constant
    big = np.abs(x).max(axis=(-2, -1))
    _, e_big = np.frexp(big)  # big < 2**e_big (e_big = 0 for big = 0)
    y = np.ldexp(x, -e_big[..., None, None])  # |y| < 1: exact for normal numbers
    spread = y.max(axis=(-2, -1)) - y.min(axis=(-2, -1))
    constant = spread <= ZERO_RTOL * np.ldexp(big, -e_big)
    _, e_spread = np.frexp(spread)
    k = np.where(constant, 0, e_big + e_spread)
    if k.ndim == 0:
        return np.int64(k), np.bool_(constant)
    return k.astype(np.int64), constant


def _spread_exponent_2d(x: np.ndarray) -> tuple[np.int64, np.bool_]:
    """:func:`spread_exponent` of one matrix from its extremes alone (an optimizer evaluates
    thousands of small ones). The same numbers: ``max |x| = max(max x, -min x)``, and
    scaling by a power of two is monotone, so the scaled matrix's extremes are the scaled
    extremes."""
    hi, lo = x.max(), x.min()
    big = max(hi, -lo)
    if not math.isfinite(big):  # NaN or infinity: the general path's arithmetic
        k, constant = spread_exponent(x[None])
        return k[0], constant[0]
    _, e_big = np.frexp(big)
    spread = np.ldexp(hi, -e_big) - np.ldexp(lo, -e_big)
    constant = spread <= ZERO_RTOL * np.ldexp(big, -e_big)
    _, e_spread = np.frexp(spread)
    return np.int64(0 if constant else e_big + e_spread), np.bool_(constant)


def unit_spread(x) -> tuple[np.ndarray, np.ndarray]:
    """``x[..., s, t]`` scaled by an exact power of two to a spread in [1/2, 1).

    Returns ``(y, k)`` with ``y = x * 2**-k`` (:func:`spread_exponent`) and
    constant matrices replaced by zeros (exactly no variance). Phi, Erho2 and
    the paired tests of ``y`` are those of ``x``; variances of ``y`` times
    ``4**k`` are those of ``x``.

    Examples
    --------
    >>> y, k = unit_spread(np.array([[3e-200, 1e-200], [2e-200, 1e-200]]))
    >>> 0.5 <= float(np.ptp(y)) < 1.0, int(k)  # 2e-200 lies in [2**-664, 2**-663)
    (True, -663)
    """
    x = np.asarray(x, dtype=float)
    k, constant = spread_exponent(x)
    if x.ndim == 2 and x.flags.c_contiguous:  # one matrix: no broadcasting of the exponent
        return (np.zeros_like(x) if constant else np.ldexp(x, -k)), k
    k = np.asarray(k)
    if x.ndim > 2 and x.size and not np.asarray(constant).any() and np.abs(k).max() <= 1000:
        # times 2**-k, a normal double: the product rounds as ldexp does, one pass cheaper
        return x * np.ldexp(1.0, -k)[..., None, None], k
    y = np.ldexp(x, -k[..., None, None])
    y = np.where(np.asarray(constant)[..., None, None], 0.0, y)
    return y, k


def constant_message(x: np.ndarray) -> str:
    """What a matrix constant up to rounding holds, for an error message."""
    x = np.asarray(x, dtype=float)
    spread = float(np.ptp(x))
    if spread == 0:
        return f"all {x.size} scores are equal ({x.flat[0]:g})"
    return (f"all {x.size} scores are equal within rounding noise ({float(x.min()):.17g} to "
            f"{float(x.max()):.17g}: a spread of {spread:.2g}, at most 1e-12 of their magnitude)")


def no_variance(x, *, between_systems: bool = False) -> str | None:
    """Why the systems x topics matrix ``x`` holds nothing beyond rounding noise, or None.

    The one test every consumer of a score matrix applies (the G-study, the trust card,
    the simulator, the system table, the topic-set designs), relative to the scores'
    magnitude so that the scale never decides:

    * **constant**: the spread is at most :data:`ZERO_RTOL` times ``max |x|``
      (:func:`spread_exponent`; 0.3 on every cell, some computed as 0.30000000000000004);
    * with ``between_systems``, **identical systems**: on every topic the systems' scores
      lie within :data:`ZERO_RTOL` times ``max |x|`` of each other (no difference between
      systems to test or simulate, whatever the topics do).

    Examples
    --------
    >>> no_variance(np.array([[0.3, 0.1 + 0.2], [0.3, 0.3]]))[:31]
    'all 4 scores are equal within r'
    >>> x = np.array([[0.2, 0.7], [0.2, 0.7 + 1e-16]])
    >>> no_variance(x) is None, no_variance(x, between_systems=True)[:25]
    (True, 'all 2 systems have the sa')
    """
    x = np.asarray(x, dtype=float)
    _, constant = spread_exponent(x)
    if bool(constant):
        return constant_message(x)
    if between_systems and x.shape[0] > 1:
        big = float(np.abs(x).max())
        if float((x.max(axis=0) - x.min(axis=0)).max()) <= ZERO_RTOL * big:
            return (f"all {x.shape[0]} systems have the same score on every topic (within "
                    f"rounding noise, 1e-12 of the largest |score|): no system differs from "
                    "another")
    return None


def check_varies(x, where: str, *, between_systems: bool = False, then: str = "") -> None:
    """Raise :class:`~irstab.errors.DegenerateDataError` naming ``where`` when
    :func:`no_variance` finds nothing beyond rounding in ``x``; ``then`` says what cannot be
    computed (appended after a semicolon)."""
    why = no_variance(x, between_systems=between_systems)
    if why is not None:
        raise DegenerateDataError(f"{where}: {why}" + (f"; {then}" if then else ""))


def affine_twins(cube, reference: int) -> np.ndarray:
    """Which matrices of ``cube[m, s, t]`` equal ``cube[reference]`` up to ``a x + b``, ``a != 0``.

    Each matrix is centred and divided by its spread (``z``, spread 1); two
    are twins when their ``z`` (or one's and the other's negative: Phi and the
    t statistics' squares do not see the sign) differ by no more than the two
    matrices' rounding noise, :data:`ZERO_RTOL` times ``max |x| / spread`` each
    (plus the 1e-12 of the standardisation's own arithmetic). A constant matrix
    is the twin of a constant reference only.

    Examples
    --------
    >>> x = np.random.default_rng(0).random((4, 5))
    >>> affine_twins(np.stack([x, 3.7 * x + 1.1, -2e80 * x, x ** 2]), 0).tolist()
    [True, True, True, False]
    """
    x = np.asarray(cube, dtype=float)
    y, _ = unit_spread(x)
    k, constant = spread_exponent(x)
    centred = y - y.mean(axis=(-2, -1), keepdims=True)
    spread = np.ptp(y.reshape(len(y), -1), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = centred / np.where(spread > 0, spread, 1.0)[:, None, None]
        noise = ZERO_RTOL * np.abs(y).max(axis=(-2, -1)) / np.where(spread > 0, spread, 1.0)
    tol = noise + noise[reference] + ZERO_RTOL
    gap = np.minimum(np.abs(z - z[reference]).max(axis=(-2, -1)),
                     np.abs(z + z[reference]).max(axis=(-2, -1)))
    twins = (gap <= tol) & ~constant & ~constant[reference]
    return np.where(constant[reference], constant, twins)


def check_magnitude(x: np.ndarray, where: str, labels=None) -> None:
    """Refuse scores whose variances in score units float64 cannot hold (*Magnitudes in score units*).

    ``x[..., s, t]`` finite; ``where`` names the input in the message (the
    measure, the file); ``labels`` (systems, topics) name the offending cell.
    Only for results reported in score units: computations of Phi alone scale
    first (:func:`unit_spread`) and need no check. A matrix constant up to
    rounding is not refused (its variances are exactly 0).

    Raises
    ------
    irstab.errors.IRStabError
        ``|score| > 1e150`` (its square, a variance, overflows) or ``0 < max - min <
        1e-150`` (the squared differences underflow).
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
            f"{where}: a score of {x.flat[k]:.3g}{cell} is too large: its square, a variance "
            f"in score units, overflows floating point beyond {MAX_MAGNITUDE:g}; divide the "
            "scores by a constant (Phi, Kendall's tau and the paired tests do not depend on "
            "the scale)"
        )
    spread = float(x.max() - x.min())
    if 0.0 < spread < MIN_SPREAD and not bool(np.all(spread_exponent(x.reshape(1, -1))[1])):
        raise IRStabError(
            f"{where}: the scores differ by at most {spread:.3g}: their squared differences, "
            f"variances in score units, underflow floating point below {MIN_SPREAD:g}; "
            "multiply the scores by a constant (Phi, Kendall's tau and the paired tests do "
            "not depend on the scale)"
        )


def min_resamples(confidence: float, family: int = 1) -> int:
    """Fewest resamples whose percentile intervals at ``confidence`` have a resample in each tail.

    For ``family`` intervals that hold simultaneously each tail is read at the
    Bonferroni level :math:`(1 - c)/(2L)`, so :math:`B \\ge 2L/(1 - c)` (module
    docstring).

    Examples
    --------
    >>> min_resamples(0.95), min_resamples(0.9), min_resamples(0.99)
    (40, 20, 200)
    >>> min_resamples(0.95, family=20)
    800
    """
    family = max(1, int(family))
    gap = 1.0 - float(confidence)
    if not gap > 0.0:
        raise IRStabError(f"confidence: {confidence!r} leaves no tail to resolve")
    return max(1, math.ceil(2.0 * family / gap - 1e-9 * family))


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


def checked_count(value, what: str, limit: float | None = None, *, minimum: int = 0):
    """An integer count (or int64 array) from an integer-valued float, never wrapped.

    ``value`` is already rounded the way the caller means (``floor`` of a
    budget over a cost, ``ceil`` of topics needed). Raises an error naming
    ``what`` when it is not finite, below ``minimum`` or above ``limit``
    (default: the largest int64), instead of the silent wrap of
    ``astype(int)``.

    Examples
    --------
    >>> checked_count(12.0, "topics")
    12
    >>> checked_count(np.array([2.0, 5.0]), "topics").tolist()
    [2, 5]
    >>> checked_count(1e30, "--budget: topics", limit=1e7)
    Traceback (most recent call last):
    ...
    irstab.errors.IRStabError: --budget: topics: 1e+30 is beyond 1e+07
    """
    a = np.asarray(value, dtype=float)
    top = float(2**63 - 1024) if limit is None else min(float(limit), float(2**63 - 1024))
    if not np.all(np.isfinite(a)):
        raise IRStabError(f"{what}: not a finite count ({a[~np.isfinite(a)].flat[0]:g})")
    if a.size and (a.max() > top or a.min() < minimum):
        bad = a.max() if a.max() > top else a.min()
        bound = f"beyond {top:g}" if bad > top else f"below {minimum}"
        raise IRStabError(f"{what}: {bad:g} is {bound}")
    out = a.astype(np.int64)
    return int(out) if out.ndim == 0 else out


#: cgroup v2, then v1: the memory limit of the container the process runs in.
CGROUP_LIMIT_FILES = ("/sys/fs/cgroup/memory.max",
                      "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def cgroup_limit(path) -> int | None:
    """The memory limit in bytes written in the cgroup file ``path``, or None.

    None when the file is absent or unreadable, says ``max`` (cgroup v2: no
    limit), or holds a value that is not a positive integer. cgroup v1 writes
    "no limit" as a huge number (``9223372036854771712``); it is returned as
    is and loses to physical RAM in :func:`available_memory`.

    >>> cgroup_limit("/nonexistent/memory.max") is None
    True
    """
    try:
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except (OSError, ValueError):
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


def address_space_limit() -> int | None:
    """The process's soft RLIMIT_AS (``ulimit -v``) in bytes, or None when unlimited."""
    try:
        import resource
    except ImportError:  # pragma: no cover - non-POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


def available_memory(cgroup_files=CGROUP_LIMIT_FILES) -> int:
    r"""Bytes of memory this process may use: the least of three limits.

    :math:`\min(\text{physical RAM}, \text{RLIMIT\_AS}, \text{cgroup limit})`:
    physical RAM from ``sysconf`` (16 GiB where it cannot be read); the soft
    address-space limit of :func:`address_space_limit` (``ulimit -v``; none when
    ``RLIM_INFINITY``); the first of ``cgroup_files`` that holds a limit
    (:func:`cgroup_limit`: cgroup v2 ``memory.max``, where ``max`` means none, or
    cgroup v1 ``memory.limit_in_bytes``). A container or a process limit below
    the machine's RAM would otherwise let an allocation the machine could hold
    fail inside numpy.

    >>> available_memory(cgroup_files=()) > 0
    True
    """
    return min(_memory_limits(cgroup_files).values())


def _memory_limits(cgroup_files=CGROUP_LIMIT_FILES) -> dict[str, int]:
    """The limits :func:`available_memory` takes the least of, by what sets them."""
    try:
        limits = {"RAM": os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")}
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        limits = {"RAM": 16 * 2**30}
    rlimit = address_space_limit()
    if rlimit is not None:
        limits["address-space limit (ulimit -v)"] = rlimit
    cgroup = next((c for c in map(cgroup_limit, cgroup_files) if c is not None), None)
    if cgroup is not None:
        limits["container (cgroup) memory limit"] = cgroup
    return limits


#: Seconds for which :func:`check_allocation` reuses the memory it last read: a calibration
#: checks thousands of small allocations a second, and each reading opens the cgroup files
#: and asks for the limits (about 0.1 ms). A limit changed meanwhile is seen a second later.
MEMORY_TTL = 1.0
_MEMORY_READ: dict = {}  # the limits' sources (available_memory's defaults) -> (time, bytes)


def _memory_bytes() -> int:
    import time

    key = available_memory.__defaults__
    now = time.monotonic()
    hit = _MEMORY_READ.get(key)
    if hit is not None and 0.0 <= now - hit[0] < MEMORY_TTL:
        return hit[1]
    got = available_memory()
    _MEMORY_READ.clear()
    _MEMORY_READ[key] = (now, got)
    return got


def _size(n: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.3g} bytes"


def fits_in_memory(nbytes: float) -> bool:
    """Whether ``nbytes`` is at most half of :func:`available_memory` (:func:`check_allocation`)."""
    return float(nbytes) <= _memory_bytes() / 2


def check_allocation(nbytes: float, what: str) -> None:
    """Refuse an allocation of ``nbytes`` beyond half of :func:`available_memory`.

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
    if not fits_in_memory(nbytes):
        limits = _memory_limits()
        source = min(limits, key=limits.get)
        raise IRStabError(
            f"{what} need {_size(nbytes)} of memory, more than half of this machine's "
            f"{_size(limits[source])} ({source}); ask for fewer"
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


# ---------------------------------------------------------------- rank correlation kernels
# The one tau-b and tau_AP of irstab (irstab.compare.correlation documents them and their
# ties): here, below every floor, because the measure comparison, the optimizer's report and
# the judges' survival analysis (a floor beside compare) all rank systems with them.


def kendall_matrix(x: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between every two rows of ``x`` (M, S): an (M, M) matrix, NaN where a
    row is constant."""
    s = np.sign(x[:, :, None] - x[:, None, :]).reshape(x.shape[0], -1)
    num = s @ s.T  # 2 (n_c - n_d) over ordered pairs
    ties_free = np.diag(num)  # 2 (n0 - n_ties)
    den = np.sqrt(np.outer(ties_free, ties_free))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(out, -1.0, 1.0)


def tau_ap_matrix(x: np.ndarray) -> np.ndarray:
    """``out[a, b]`` = directed tau_AP with ``x[a]`` the reference and ``x[b]``'s ranking
    walked (Urbano & Marrero's tau_AP,b for ties); NaN where ``x[b]`` is constant."""
    above = (x[:, None, :] > x[:, :, None]).astype(np.float64)  # above[m, i, j]: j above i
    g = above.sum(axis=2)  # (M, S) items strictly above i's tie group
    # c[i, a, b] = sum_j above[a, i, j] * above[b, i, j]: a batched matmul over items i
    c = np.matmul(above.transpose(1, 0, 2), above.transpose(1, 2, 0))  # (S, M_ref, M_est)
    c = c.transpose(1, 2, 0)  # (M_ref, M_est, S)
    counted = g > 0  # skip the walked ranking's top tie group
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(counted[None], c / np.where(counted, g, 1.0)[None], 0.0)
        n = counted.sum(axis=1)  # per walked measure
        out = 2.0 * ratio.sum(axis=2) / n[None, :] - 1.0
    out[:, n == 0] = np.nan
    return out
