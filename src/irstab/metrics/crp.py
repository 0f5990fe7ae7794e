"""Cumulated relative position (CRP): the curve, its indicators, and measures.

Definitions (Angelini et al., CLEF 2012)
--------------------------------------------------
For a topic with recall base ``R`` (judged documents of grade > 0), the
*ideal vector* lists the judged documents by decreasing grade, then
non-relevant documents up to the list length ``N``. Grade ``g`` occupies the
ideal interval ``[min_i(g), max_i(g)]``::

    min_i(g) = 1 + #{judged docs of grade > g}      max_i(g) = #{judged docs of grade >= g}
    min_i(nr) = R + 1                                max_i(nr) = N (never exceeded)

The *relative position* of the document at rank ``j`` with grade ``g``
(Angelini et al., CLEF 2012, eq. 4) and the *cumulated relative position* (eq. 5)::

    RP(j)  = j - min_i(g)  if j < min_i(g)     (too early: negative)
           = j - max_i(g)  if j > max_i(g)     (too late: positive)
           = 0             otherwise
    CRP(j) = RP(1) + ... + RP(j)

The *worst-case vector* ``w`` puts the non-relevant documents first and the
relevant ones last in increasing grade (the ideal vector reversed).

Indicators (Angelini et al., CLEF 2012, Fig. 1, eq. 6-10), with ``R' = min(R, N)``:

* loss value ``CRP(r, R')``;
* turn-around point ``min``: the last rank in ``1..R'`` where CRP reaches
  its minimum over ``1..R'``; minimum CRP ``CRP(r, min)``;
* balance point ``b_r``: the first rank ``j >= R'`` with ``CRP(r, j) >= 0``
  (``inf`` if the curve never gets back to 0 by rank N); ``b_w`` likewise
  for the worst case;
* recovery value ``rho = R' / b_r`` (0 when ``b_r = inf``), averaged over
  topics as ``rho_avg`` (eq. 10: the mean of ``CRP.rho`` over topics);
* balance ratio ``1 - b_r / b_w``; minimum CRP ratio
  ``CRP_min = 1 - CRP(r, min) / CRP(w, min)``; CRP ratio at N
  ``CRP_N = 1 - |CRP(r, N)| / |CRP(w, N)|``.

Conventions where the paper is silent
------------------------------------
* **N** is the cutoff ``@k`` when given, else the collection's evaluation
  depth (``Collection.depth``, trec_eval ``-M``; 1000 by default). It is
  fixed per topic, so every run is compared on the same ideal and worst-case
  vectors. For the paper's example (a pool of 20) use depth 20 or ``@20``.
* **A run shorter than N** (or lacking the topic) is padded with
  non-relevant documents, as precision at k counts missing ranks; a missing
  topic therefore scores like a run of N non-relevant documents.
* **Unjudged documents and grades <= 0** are non-relevant (``nr``).
* **Relevant documents never retrieved** contribute nothing, as in the paper's
  run A (recall 7/10, ``CRP(r_A, 20) = -11``).
* **The paper's property "CRP <= 0 before R" does not hold in general**: with
  ideal ``[fr, pr, pr]`` the run ``[pr, pr, fr]`` has CRP ``-1, -1, +1``.
  "Non-decreasing after R" does hold (a document after R is never early),
  so the minimum over ``1..N`` is reached in ``1..R'``; ties are broken
  towards the last rank (a flat-zero curve turns at R, as the paper's perfect
  ranking has ``min = R``).
* **The balance point is searched from R' on**, so ``0 <= rho <= 1`` as the
  seed states; a curve back at 0 before R (possible, see above) balances at R.
* **Balance point never reached** (the run misses relevant documents and
  ends below 0): ``b_r = inf``, ``rho = 0`` (the paper's limit
  ``b_r -> inf``) and ``balance_ratio = 0``. If only the worst case never
  balances, ``balance_ratio = 1``. Balance ratios are clipped to ``[0, 1]``.
* **CRP_min when the worst case is not below 0 at the turn-around point**:
  eq. 8 divides by ``CRP(w, min)``, which the paper takes to be negative. When
  the cutoff N is near or below R the worst-case list holds mostly (or only)
  relevant documents, and ``CRP(w, min)`` can be 0 or positive (binary
  judgments with N <= R: the worst case is all relevant, CRP 0 everywhere).
  Then ``CRP_min = 1`` if ``CRP(r, min) = 0`` (the run never falls behind the
  ideal up to R) and ``0`` otherwise (it falls below 0 where even the worst
  case does not: no better than the worst case). The literal
  ``clip(1 - CRP(r,min)/CRP(w,min), 0, 1)`` would be undefined at 0 and would
  rate such a run 1 when ``CRP(w, min) > 0``.
* **CRP_N uses |CRP(r, N)|**: the paper assumes ``CRP(r, N) >= 0`` (every
  relevant document retrieved); with missing documents CRP(r, N) is
  negative and ``1 - CRP(r,N)/CRP(w,N)`` would exceed 1, rating a run that
  retrieves nothing above the ideal. Ratios are clipped to ``[0, 1]``; a
  zero worst-case denominator gives 1 if the run's value is 0, else 0.
* **N < R** (a cutoff below the recall base): R is replaced by N in the
  indicators, and the worst case is the first N documents of the reversed
  ideal list of length R (the lowest relevant grades first).

References
----------
M. Angelini, N. Ferro, K. Jarvelin, H. Keskustalo, A. Pirkola, G. Santucci,
G. Silvello. Cumulated relative position: a metric for ranking evaluation.
CLEF 2012, LNCS 7488, 112-123.

Validated against the paper's worked example (runs A and B) and a literal
per-rank implementation of eq. 4-5 (tests/metrics/test_crp.py).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..errors import IRStabError
from .base import Measure, register

if TYPE_CHECKING:  # pandas is imported where a frame is made: the measures need none
    import pandas as pd

__all__ = [
    "CRP", "CRPRho", "CRPBalanceRatio", "CRPMinRatio", "CRPNRatio",
    "CRPCurve", "CRPIndicators",
    "ideal_intervals", "relative_positions", "worst_case_grades",
    "crp_curve", "crp_indicators",
]

# Ranks are int64; a "never" upper bound for the non-relevant interval.
_NEVER = np.iinfo(np.int64).max // 4


def ideal_intervals(grade_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)`` of every grade's ideal interval, shape ``(T, c + 1)``, 1-based ranks.

    Column 0 is the non-relevant degree (grades <= 0 and unjudged):
    ``lo = R + 1`` and ``hi`` = never exceeded. For grade ``g >= 1``,
    ``lo = 1 + #(grade > g)`` and ``hi = #(grade >= g)``.
    """
    counts = np.asarray(grade_counts, dtype=np.int64)[:, 1:]
    at_least = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # #(grade >= g), g = 1..c
    above = np.concatenate([at_least[:, 1:], np.zeros((len(counts), 1), np.int64)], axis=1)
    R = at_least[:, 0] if at_least.shape[1] else np.zeros(len(counts), np.int64)
    lo = np.concatenate([(R + 1)[:, None], above + 1], axis=1)
    hi = np.concatenate([np.full((len(counts), 1), _NEVER), at_least], axis=1)
    return lo, hi


def relative_positions(grades: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """RP of every rank (Angelini et al., CLEF 2012, eq. 4): ``grades`` (S, T, N), ``lo``/``hi`` (T, c + 1).

    Returns an int64 array of the shape of ``grades``.
    """
    c = lo.shape[1] - 1
    g = np.clip(grades, 0, c).astype(np.intp)
    t = np.arange(g.shape[1])[None, :, None]
    low, high = lo[t, g], hi[t, g]
    j = np.arange(1, g.shape[2] + 1, dtype=np.int64)
    return np.where(j < low, j - low, np.where(j > high, j - high, 0))


def worst_case_grades(ideal: np.ndarray, R: np.ndarray, n: int) -> np.ndarray:
    """The worst-case vectors, shape ``(T, n)``: non-relevant first, then relevant by increasing grade.

    ``ideal`` holds each topic's positive grades sorted decreasing (padded
    with 0), as :attr:`Collection.ideal`. The list is the reversed ideal
    vector of length ``max(n, R)``, cut to its first ``n`` ranks.
    """
    R = np.asarray(R, dtype=np.int64)
    M = np.maximum(n, R)
    p = np.arange(n)[None, :]
    i = M[:, None] - 1 - p  # position in the ideal list
    width = max(int(R.max(initial=0)), 1)
    ideal = np.asarray(ideal)
    if ideal.shape[1] < width:
        ideal = np.concatenate([ideal, np.zeros((ideal.shape[0], width - ideal.shape[1]), ideal.dtype)], 1)
    inside = i < R[:, None]
    return np.where(inside, np.take_along_axis(ideal, np.clip(i, 0, width - 1), axis=1), 0)


def _list_length(collection, k: int | None) -> int:
    return int(collection.depth if k is None else k)


def _curves(collection, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(grades, crp, worst_grades, worst_crp)`` over ranks 1..n for all runs and topics."""
    lo, hi = ideal_intervals(collection.grade_counts)
    grades = collection.grades_to(n)
    crp = np.cumsum(relative_positions(grades, lo, hi), axis=2)
    R = collection.num_relevant(1)
    worst = worst_case_grades(collection.ideal, R, n)[None]
    worst_crp = np.cumsum(relative_positions(worst, lo, hi), axis=2)
    return grades, crp, worst, worst_crp


def _first_at_or_after(crp: np.ndarray, start: np.ndarray) -> np.ndarray:
    """First 1-based rank j >= start with CRP(j) >= 0, as float (inf if none)."""
    j = np.arange(1, crp.shape[-1] + 1)
    ok = (crp >= 0) & (j >= start[..., None])
    first = ok.argmax(axis=-1) + 1.0
    return np.where(ok.any(axis=-1), first, np.inf)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``clip(1 - |num| / |den|, 0, 1)``; a zero denominator gives 1 if num is 0, else 0."""
    num, den = np.abs(num).astype(np.float64), np.abs(den).astype(np.float64)
    den, num = np.broadcast_arrays(den, num)
    r = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return np.where(den > 0, np.clip(1.0 - r, 0.0, 1.0), (num == 0).astype(np.float64))


def _indicators(crp: np.ndarray, worst_crp: np.ndarray, R: np.ndarray) -> dict[str, np.ndarray]:
    """Indicator arrays (S, T) from curves (S, T, N), worst curves (1, T, N) and R (T,)."""
    n = crp.shape[-1]
    RN = np.minimum(R, n).astype(np.int64)
    Rb = np.broadcast_to(RN[None, :], crp.shape[:2])
    j = np.arange(1, n + 1)
    take = lambda a, rank: np.take_along_axis(a, (rank - 1)[..., None], axis=-1)[..., 0]  # noqa: E731

    loss = take(crp, Rb)
    before = j[None, None, :] <= RN[None, :, None]
    masked = np.where(before, crp, np.iinfo(np.int64).max)
    min_value = masked.min(axis=-1)
    # Last rank attaining the minimum: argmax over the reversed mask.
    min_rank = n - np.argmax((masked == min_value[..., None])[..., ::-1], axis=-1)
    b_r = _first_at_or_after(crp, Rb)
    b_w = _first_at_or_after(worst_crp, RN[None, :])
    worst_min = take(np.broadcast_to(worst_crp, crp.shape), min_rank)
    at_n, worst_at_n = crp[..., -1], worst_crp[..., -1]

    rho = np.where(np.isfinite(b_r), Rb / b_r, 0.0)
    bw = np.broadcast_to(b_w, b_r.shape)
    with np.errstate(invalid="ignore"):
        balance = np.where(
            np.isfinite(b_r),
            np.where(np.isfinite(bw), np.clip(1.0 - b_r / bw, 0.0, 1.0), 1.0),
            0.0,
        )
    # CRP(r, min) <= 0 always (RP(1) <= 0); CRP_min = 1 - CRP(r,min)/CRP(w,min) where the
    # worst case is below 0 there, else 1 if the run is at 0 and 0 if below (module docstring).
    min_ratio = np.where(worst_min < 0, _ratio(min_value, worst_min), (min_value == 0) * 1.0)
    return {
        "R": RN,
        "loss": loss,
        "min_rank": min_rank,
        "min_value": min_value,
        "balance_point": b_r,
        "rho": rho,
        "balance_ratio": balance,
        "min_ratio": min_ratio,
        "N_ratio": _ratio(at_n, worst_at_n),
        "crp_at_N": at_n,
        "worst_balance_point": b_w[0],
        "worst_rho": np.where(np.isfinite(b_w[0]), RN / b_w[0], 0.0),
        "worst_loss": worst_crp[0, np.arange(len(RN)), RN - 1],
        "worst_min_value": worst_min,
        "worst_at_N": worst_at_n[0],
    }


# ------------------------------------------------------------------ results

_PER_PAIR = ("loss", "min_rank", "min_value", "balance_point", "rho", "balance_ratio",
             "min_ratio", "N_ratio", "crp_at_N", "worst_min_value")
_PER_TOPIC = ("R", "worst_balance_point", "worst_rho", "worst_loss", "worst_at_N")


@dataclass(frozen=True, eq=False)
class CRPIndicators:
    """CRP indicators of every run on every topic (arrays of shape ``(S, T)``).

    Per (run, topic): ``loss`` = CRP(r, R'), ``min_rank``/``min_value`` (the
    turn-around point and CRP there), ``balance_point`` b_r (``inf`` if never
    reached), ``rho``, ``balance_ratio``, ``min_ratio``, ``N_ratio``,
    ``crp_at_N`` and ``worst_min_value`` = CRP(w, min). Per topic (shape
    ``(T,)``): ``R`` (= min(R, N)), ``worst_balance_point`` b_w,
    ``worst_rho`` = R/b_w, ``worst_loss`` = CRP(w, R), ``worst_at_N``.
    See the module docstring for the conventions.
    """

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    n: int
    values: dict[str, np.ndarray] = field(repr=False)

    def __getattr__(self, name: str) -> np.ndarray:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    def rho_avg(self) -> pd.Series:
        """Average recovery value per system over the topics (Angelini et al., CLEF 2012, eq. 10)."""
        import pandas as pd

        return pd.Series(self.values["rho"].mean(axis=1), index=pd.Index(self.systems, name="system"),
                         name="rho_avg")

    def to_frame(self) -> pd.DataFrame:
        """One row per (system, topic): the indicators, the topic's R and worst-case values."""
        import pandas as pd

        S, T = len(self.systems), len(self.topics)
        data: dict[str, Any] = {
            "system": np.repeat(np.array(self.systems, dtype=object), T),
            "topic": np.tile(np.array(self.topics, dtype=object), S),
        }
        for key in _PER_TOPIC[:1]:
            data[key] = np.tile(self.values[key], S)
        for key in _PER_PAIR:
            data[key] = self.values[key].reshape(-1)
        for key in _PER_TOPIC[1:]:
            data[key] = np.tile(self.values[key], S)
        return pd.DataFrame(data)

    def to_dict(self) -> dict[str, Any]:
        return {"systems": list(self.systems), "topics": list(self.topics), "N": self.n,
                **{k: v.tolist() for k, v in self.values.items()}}


@dataclass(frozen=True, eq=False)
class CRPCurve:
    """The CRP curve of one run on one topic, with the worst case and the indicators.

    Arrays have length ``n`` (rank 1 first): ``grades`` (the run's, padded with 0),
    ``rp``, ``crp``, ``worst_grades``, ``worst_rp``, ``worst_crp``.
    ``indicators`` maps the names of :class:`CRPIndicators` to scalars.
    """

    system: str
    topic: str
    n: int
    R: int
    run_length: int
    grades: np.ndarray = field(repr=False)
    rp: np.ndarray = field(repr=False)
    crp: np.ndarray = field(repr=False)
    worst_grades: np.ndarray = field(repr=False)
    worst_rp: np.ndarray = field(repr=False)
    worst_crp: np.ndarray = field(repr=False)
    indicators: dict[str, float] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per rank: rank, grade, rp, crp, worst_grade, worst_rp, worst_crp."""
        import pandas as pd

        return pd.DataFrame({
            "rank": np.arange(1, self.n + 1),
            "grade": self.grades.astype(np.int64),
            "rp": self.rp,
            "crp": self.crp,
            "worst_grade": self.worst_grades.astype(np.int64),
            "worst_rp": self.worst_rp,
            "worst_crp": self.worst_crp,
        })

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system, "topic": self.topic, "N": self.n, "R": self.R,
            "run_length": self.run_length, "indicators": dict(self.indicators),
            "curve": self.to_frame().to_dict(orient="list"),
        }


def _scalar(x: Any) -> float | int:
    x = np.asarray(x).item()
    return x if isinstance(x, int) else float(x)


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def crp_indicators(collection, n: int | None = None) -> CRPIndicators:
    """CRP indicators of every run on every topic, vectorised.

    Parameters
    ----------
    collection : Collection
    n : int, optional
        The list length N; default ``collection.depth``.

    Returns
    -------
    CRPIndicators
        Cached per collection and N (the measures ``CRP.*`` share it).
    """
    n = _list_length(collection, n)
    if isinstance(n, bool) or n < 1:
        raise IRStabError(f"n (the CRP list length N) must be a positive integer, got {n!r}")
    per = _CACHE.setdefault(collection, {})
    if n not in per:
        _, crp, _, worst_crp = _curves(collection, n)
        values = _indicators(crp, worst_crp, collection.num_relevant(1))
        for v in values.values():
            v.setflags(write=False)
        per.clear()  # keep one N per collection
        per[n] = CRPIndicators(collection.systems, collection.topics, n, values)
    return per[n]


def crp_curve(collection, system: str | int, topic: str | int, n: int | None = None) -> CRPCurve:
    """The CRP curve of one run on one topic.

    Parameters
    ----------
    collection : Collection
    system : str or int
        Run name (or index into ``collection.systems``).
    topic : str or int
        Topic id (or index into ``collection.topics``).
    n : int, optional
        The list length N; default ``collection.depth``.

    Examples
    --------
    The paper's ideal vector ``[hr x3, fr x3, pr x4, nr x10]`` (R = 10, N = 20):
    a document of grade pr (1) at rank 3 is 4 ranks too early.

    >>> import numpy as np
    >>> lo, hi = ideal_intervals(np.array([[10, 4, 3, 3]]))
    >>> relative_positions(np.array([[[3, 3, 1]]]), lo, hi).tolist()
    [[[0, 0, -4]]]
    """
    s = _index(collection.systems, system, "system")
    t = _index(collection.topics, topic, "topic")
    n = _list_length(collection, n)
    if n < 1:
        raise IRStabError(f"n (the CRP list length N) must be a positive integer, got {n!r}")
    lo, hi = ideal_intervals(collection.grade_counts[t: t + 1])
    grades = collection.grades_to(n)[s: s + 1, t: t + 1]
    rp = relative_positions(grades, lo, hi)
    R = collection.num_relevant(1)[t: t + 1]
    worst = worst_case_grades(collection.ideal[t: t + 1], R, n)[None]
    worst_rp = relative_positions(worst, lo, hi)
    crp, worst_crp = np.cumsum(rp, axis=2), np.cumsum(worst_rp, axis=2)
    ind = _indicators(crp, worst_crp, R)
    return CRPCurve(
        system=collection.systems[s],
        topic=collection.topics[t],
        n=n,
        R=int(collection.num_relevant(1)[t]),
        run_length=int(collection.run_length[s, t]),
        grades=grades[0, 0],
        rp=rp[0, 0],
        crp=crp[0, 0],
        worst_grades=worst[0, 0],
        worst_rp=worst_rp[0, 0],
        worst_crp=worst_crp[0, 0],
        indicators={k: _scalar(np.asarray(v).reshape(-1)[0]) for k, v in ind.items()},
    )


def _index(names: tuple[str, ...], key: str | int, what: str) -> int:
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if not 0 <= key < len(names):
            raise IRStabError(f"{what} index {key} out of range (0..{len(names) - 1})")
        return int(key)
    try:
        return names.index(str(key))
    except ValueError:
        shown = ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")
        raise IRStabError(f"{what} {key!r} is not in the collection ({shown})") from None


# ----------------------------------------------------------------- measures


@register
@dataclass(frozen=True)
class CRP(Measure):
    """CRP(r, k): the cumulated relative position at rank k (default: at N = the depth)."""

    name: ClassVar[str] = "CRP"
    summary: ClassVar[str] = "Cumulated relative position at rank k (Angelini et al. 2012); no @k: at the depth N; 0 = ideal"
    formula: ClassVar[str] = "sum_{j<=k} RP(j), RP = j - min_i(g) if early, j - max_i(g) if late, else 0"

    def compute(self, collection) -> np.ndarray:
        n = _list_length(collection, self.cutoff)
        lo, hi = ideal_intervals(collection.grade_counts)
        return relative_positions(collection.grades_to(n), lo, hi).sum(axis=2).astype(np.float64)


@dataclass(frozen=True)
class _CRPIndicator(Measure):
    key: ClassVar[str] = ""

    def compute(self, collection) -> np.ndarray:
        return np.array(crp_indicators(collection, self.cutoff).values[self.key], dtype=np.float64)


@register
@dataclass(frozen=True)
class CRPRho(_CRPIndicator):
    """Recovery value rho = R / b_r (Angelini et al., CLEF 2012, eq. 6); its topic mean is rho_avg (eq. 10)."""

    name: ClassVar[str] = "CRP.rho"
    key: ClassVar[str] = "rho"
    summary: ClassVar[str] = "CRP recovery value R/b_r (0 if never balanced); mean over topics = rho_avg; @k sets N"
    formula: ClassVar[str] = "min(R,N) / b_r, b_r = first rank >= R with CRP >= 0"


@register
@dataclass(frozen=True)
class CRPBalanceRatio(_CRPIndicator):
    """Balance ratio 1 - b_r / b_w (Angelini et al., CLEF 2012, eq. 7)."""

    name: ClassVar[str] = "CRP.balance_ratio"
    key: ClassVar[str] = "balance_ratio"
    summary: ClassVar[str] = "CRP balance ratio against the worst case (0 if never balanced); @k sets N"
    formula: ClassVar[str] = "clip(1 - b_r / b_w, 0, 1)"


@register
@dataclass(frozen=True)
class CRPMinRatio(_CRPIndicator):
    """Minimum CRP value ratio 1 - CRP(r, min) / CRP(w, min) (Angelini et al., CLEF 2012, eq. 8).

    Clipped to [0, 1]. Where ``CRP(w, min) >= 0`` (cutoff near or below the
    recall base) the value is 1 if ``CRP(r, min) = 0`` and 0 otherwise (module
    docstring).
    """

    name: ClassVar[str] = "CRP.min_ratio"
    key: ClassVar[str] = "min_ratio"
    summary: ClassVar[str] = "CRP minimum-value ratio against the worst case at the turn-around point; @k sets N"
    formula: ClassVar[str] = (
        "clip(1 - CRP(r,min) / CRP(w,min), 0, 1) if CRP(w,min) < 0, else 1 if CRP(r,min) = 0 else 0"
    )


@register
@dataclass(frozen=True)
class CRPNRatio(_CRPIndicator):
    """CRP value ratio at N, 1 - |CRP(r, N)| / |CRP(w, N)| (Angelini et al., CLEF 2012, eq. 9, absolute values)."""

    name: ClassVar[str] = "CRP.N_ratio"
    key: ClassVar[str] = "N_ratio"
    summary: ClassVar[str] = "CRP value ratio at N against the worst case (|.|: missing documents make CRP(r,N) < 0); @k sets N"
    formula: ClassVar[str] = "clip(1 - |CRP(r,N)| / |CRP(w,N)|, 0, 1)"
