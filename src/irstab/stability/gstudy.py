"""G-study and D-study for the crossed systems x topics design.

The model (Brennan 2001, ch. 2-3; Kanoulas & Aslam, CIKM 2009, §2.1) is the two-way random
effects model with one score per cell,

.. math::

    X_{st} = \\mu + \\nu_s + \\nu_t + \\nu_{st,e},

whose variance components are estimated from the ANOVA mean squares by the
expected-mean-square equations

.. math::

    \\hat\\sigma^2_{res} = MS_{res}, \\quad
    \\hat\\sigma^2_{sys} = (MS_{sys} - MS_{res}) / n_t, \\quad
    \\hat\\sigma^2_{top} = (MS_{top} - MS_{res}) / n_s.

For a projected number of topics :math:`n'` the generalizability coefficient
and the dependability coefficient are

.. math::

    E\\rho^2(n') = \\frac{\\sigma^2_{sys}}{\\sigma^2_{sys} + \\sigma^2_{res}/n'},
    \\qquad
    \\Phi(n') = \\frac{\\sigma^2_{sys}}
                     {\\sigma^2_{sys} + (\\sigma^2_{top} + \\sigma^2_{res})/n'}.

Both are :math:`n'\\psi / (1 + n'\\psi)` for a signal-to-noise ratio
:math:`\\psi` (:math:`\\sigma^2_{sys}/\\sigma^2_{res}` for Erho2,
:math:`\\sigma^2_{sys}/(\\sigma^2_{top}+\\sigma^2_{res})` for Phi), so both
grow with :math:`n'`, :math:`\\Phi \\le E\\rho^2`, and the ordering of measures
by :math:`\\Phi(1)` is the ordering by :math:`\\Phi(n)` for every :math:`n`
(the reason Kanoulas & Aslam optimise :math:`\\Phi(1)`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pandas as pd

from .._repr import short_repr
from .._numeric import negligible
from ..errors import DegenerateDataError, IRStabError, IRStabWarning

__all__ = [
    "Coefficient",
    "IntervalMethod",
    "Resample",
    "GStudy",
    "DStudy",
    "TopicsNeeded",
    "gstudy",
    "drop_worst_systems",
]

_MAX_NAMED = 5  # cells named in an error message
_CEIL_TOL = 1e-9  # relative slack when rounding topics needed up


class Coefficient(str, Enum):
    """Reliability coefficient of a D-study."""

    erho2 = "erho2"
    phi = "phi"


class IntervalMethod(str, Enum):
    """How confidence intervals are computed."""

    f = "f"  # Feldt (Erho2) and Arteaga et al. (Phi), normal theory
    bootstrap = "bootstrap"  # percentile bootstrap, see irstab.stability.bootstrap


class Resample(str, Enum):
    """What the bootstrap resamples (with replacement)."""

    topics = "topics"
    systems = "systems"
    both = "both"


# ----------------------------------------------------------------- kernels


def _sums_of_squares(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SS of systems, topics and residual over the last two axes (any leading batch).

    A sum of squares that is :func:`~irstab._numeric.negligible` against
    their total is rounding noise of a true 0 (identical systems give
    ``SS_sys`` of about 1e-32) and is set to exactly 0.
    """
    grand = x.mean(axis=(-2, -1), keepdims=True)
    rows = x.mean(axis=-1, keepdims=True)
    cols = x.mean(axis=-2, keepdims=True)
    n_s, n_t = x.shape[-2:]
    ss = np.stack(
        [
            n_t * np.square(rows - grand).sum(axis=(-2, -1)),
            n_s * np.square(cols - grand).sum(axis=(-2, -1)),
            np.square(x - rows - cols + grand).sum(axis=(-2, -1)),
        ]
    )
    ss = np.where(negligible(ss, ss.sum(axis=0)), 0.0, ss)
    return ss[0], ss[1], ss[2]


def _components(x: np.ndarray) -> np.ndarray:
    """Raw variance components ``[..., (system, topic, residual)]`` of ``x[..., s, t]``.

    A component negligible against the sum of the components' absolute values
    (an ``MS_sys - MS_res`` of two equal mean squares) is exactly 0, so that
    rounding noise is neither a "negative variance" nor a signal.
    """
    n_s, n_t = x.shape[-2:]
    ss_s, ss_t, ss_r = _sums_of_squares(x)
    ms_s = ss_s / (n_s - 1)
    ms_t = ss_t / (n_t - 1)
    ms_r = ss_r / ((n_s - 1) * (n_t - 1))
    comps = np.stack([(ms_s - ms_r) / n_t, (ms_t - ms_r) / n_s, ms_r], axis=-1)
    scale = np.abs(comps).sum(axis=-1, keepdims=True)
    return np.where(negligible(comps, scale), 0.0, comps)


def _safe_ratio(num, den):
    """``num / den`` with ``x/0 = inf`` for ``x > 0`` and ``0/0 = 0`` (no warnings)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out = np.where(den > 0, out, np.where(num > 0, np.inf, 0.0))
    return out


def _psi(components: np.ndarray, coefficient: Coefficient) -> np.ndarray:
    """Signal-to-noise ratio of one topic from (clipped) components ``[..., 3]``."""
    c = np.maximum(components, 0.0)
    noise = c[..., 2] if coefficient is Coefficient.erho2 else c[..., 1] + c[..., 2]
    return _safe_ratio(c[..., 0], noise)


def _coef_from_psi(psi, n_topics) -> np.ndarray:
    """``n psi / (1 + n psi)``, written so that ``psi = inf`` gives 1."""
    with np.errstate(divide="ignore"):
        return 1.0 - 1.0 / (1.0 + np.multiply(n_topics, psi))


def _needed_from_psi(psi, target: float) -> np.ndarray:
    """Smallest integer ``n >= 1`` with ``n psi / (1 + n psi) >= target`` (inf if psi = 0)."""
    psi = np.asarray(psi, dtype=float)
    with np.errstate(divide="ignore"):
        raw = target / ((1.0 - target) * psi)
    n = np.ceil(raw * (1.0 - _CEIL_TOL))
    return np.where(np.isfinite(raw), np.maximum(n, 1.0), np.where(psi > 0, 1.0, np.inf))


def _f_quantile(q: float, dfn, dfd):
    """Quantile of the F distribution; ``dfd = inf`` gives chi2(dfn) / dfn."""
    from scipy import special  # lazy: keeps `irstab --help` fast

    if math.isinf(dfd):
        return special.chdtri(dfn, 1.0 - q) / dfn
    return special.fdtri(dfn, dfd, q)


# ----------------------------------------------------------------- input


def _validate_scores(scores) -> tuple[np.ndarray, tuple, tuple]:
    """Check a score matrix and return ``(x, systems, topics)``; ``x`` is a float copy."""
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
    return x, systems, topics


def _keep_mask(x: np.ndarray, fraction: float) -> np.ndarray:
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
        keep = _keep_mask(scores.to_numpy(dtype=float, na_value=np.nan), fraction)
        return scores.loc[keep].copy()
    x = np.asarray(scores, dtype=float)
    return x[_keep_mask(x, fraction)].copy()


# ----------------------------------------------------------------- results


def _json_number(v: float) -> float | None:
    return None if not math.isfinite(v) else float(v)


def _json_count(v: float) -> int | None:
    return None if not math.isfinite(v) else int(v)


@dataclass(frozen=True)
class TopicsNeeded:
    """Topics needed for a target coefficient, with its interval.

    ``n``, ``lower`` and ``upper`` are integer-valued floats; ``inf`` means
    the target is not reached by any number of topics (the system variance,
    or its confidence limit, is 0). ``lower`` comes from the upper limit of the
    coefficient and ``upper`` from its lower limit.
    """

    coefficient: Coefficient
    target: float
    n: float
    lower: float
    upper: float
    confidence: float
    interval: IntervalMethod

    def to_dict(self) -> dict:
        """JSON-ready dict; unreachable counts become ``None``."""
        return {
            "coefficient": self.coefficient.value,
            "target": self.target,
            "topics_needed": _json_count(self.n),
            "ci": [_json_count(self.lower), _json_count(self.upper)],
            "confidence": self.confidence,
            "interval": self.interval.value,
        }


@short_repr
@dataclass(frozen=True)
class DStudy:
    """Erho2 and Phi projected to topic-set sizes, with intervals.

    Every per-size field is a tuple aligned with ``n_topics``. Point estimates
    come from the G-study; intervals from ``interval`` at ``confidence``.
    """

    name: str | None
    n_systems: int
    n_topics_observed: int
    n_topics: tuple[float, ...]
    erho2: tuple[float, ...]
    erho2_lower: tuple[float, ...]
    erho2_upper: tuple[float, ...]
    phi: tuple[float, ...]
    phi_lower: tuple[float, ...]
    phi_upper: tuple[float, ...]
    topics_needed: tuple[TopicsNeeded, ...]
    confidence: float
    interval: IntervalMethod
    n_resamples: int | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per topic-set size: ``measure, n_topics, erho2, erho2_lower, ...``."""
        n = len(self.n_topics)
        return pd.DataFrame(
            {
                "measure": [self.name] * n,
                "n_topics": list(self.n_topics),
                "erho2": list(self.erho2),
                "erho2_lower": list(self.erho2_lower),
                "erho2_upper": list(self.erho2_upper),
                "phi": list(self.phi),
                "phi_lower": list(self.phi_lower),
                "phi_upper": list(self.phi_upper),
            }
        )

    def _summary(self) -> str:
        needed = ", ".join(
            f"{t.coefficient.value}>={t.target:g}: "
            + ("unreachable" if math.isinf(t.n) else f"{int(t.n)} topics")
            for t in self.topics_needed
        )
        sizes = f"{min(self.n_topics):g}..{max(self.n_topics):g}" if self.n_topics else "none"
        return f"{self.name or 'scores'}: {self.n_systems} systems, topic-set sizes {sizes}" + (
            f"; {needed}" if needed else "")

    def topics_needed_frame(self) -> pd.DataFrame:
        """One row per (coefficient, target).

        Columns ``measure, coefficient, target, topics_needed, lower, upper``.
        """
        return pd.DataFrame(
            {
                "measure": [self.name] * len(self.topics_needed),
                "coefficient": [t.coefficient.value for t in self.topics_needed],
                "target": [t.target for t in self.topics_needed],
                "topics_needed": [t.n for t in self.topics_needed],
                "lower": [t.lower for t in self.topics_needed],
                "upper": [t.upper for t in self.topics_needed],
            }
        )

    def to_dict(self) -> dict:
        """JSON-ready dict (intervals as two-element lists)."""
        return {
            "measure": self.name,
            "n_systems": self.n_systems,
            "n_topics_observed": self.n_topics_observed,
            "confidence": self.confidence,
            "interval": self.interval.value,
            "n_resamples": self.n_resamples,
            "curve": [
                {
                    "n_topics": n,
                    "erho2": e,
                    "erho2_ci": [el, eu],
                    "phi": p,
                    "phi_ci": [pl, pu],
                }
                for n, e, el, eu, p, pl, pu in zip(
                    self.n_topics,
                    self.erho2,
                    self.erho2_lower,
                    self.erho2_upper,
                    self.phi,
                    self.phi_lower,
                    self.phi_upper,
                )
            ],
            "topics_needed": [t.to_dict() for t in self.topics_needed],
        }


@short_repr
@dataclass(frozen=True)
class GStudy:
    r"""Result of :func:`gstudy`: ANOVA table and variance components.

    ``var_*`` are the raw ANOVA estimates and may be negative; the
    coefficients use them truncated at 0 (:attr:`components`). The score
    matrix the study was fitted on is kept read-only in ``scores`` (used by
    the bootstrap; excluded from equality and repr).

    Coefficients and intervals (``n_topics`` defaults to the observed
    :math:`n_t`; ``confidence`` is two-sided):

    - :meth:`erho2`, :meth:`phi`: point estimates, formulas in the module
      docstring.
    - :meth:`erho2_interval`: Feldt (1965), from
      :math:`F = MS_{sys}/MS_{res} \sim (1 + n_t\rho) F(df_s, df_{res})`,
      :math:`\rho = \sigma^2_{sys}/\sigma^2_{res}`; limits
      :math:`\rho_{L,U} = (F / F_{1-\alpha/2, \alpha/2}(df_s, df_{res}) - 1)/n_t`
      projected with :math:`n'\rho/(1+n'\rho)` (Brennan 2001, ch. 6).
    - :meth:`phi_interval`: Arteaga, Jeyaratnam & Graybill (1982), as given by
      Brennan (2001, ch. 6): with :math:`F_1 = F_q(df_s, \infty)`,
      :math:`F_2 = F_q(df_s, df_{res})`, :math:`F_3 = F_q(df_s, df_t)`,
      :math:`q = 1-\alpha/2` (lower) or :math:`\alpha/2` (upper),

      .. math::

          \lambda = \frac{MS_s^2 - F_1 MS_s MS_{res} + (F_1 - F_2) F_2 MS_{res}^2}
                         {(n_s - 1) F_1 MS_s MS_{res} + F_3 MS_s MS_t},

      :math:`\psi = n_s\lambda/n_t` bounds
      :math:`\sigma^2_{sys}/(\sigma^2_{top}+\sigma^2_{res})` and
      :math:`\Phi(n') = n'\psi/(1+n'\psi)`.

    Limits are truncated to ``[0, 1]``. The intervals assume normal effects;
    :meth:`dstudy` with ``interval="bootstrap"`` gives a resampling
    alternative.
    """

    name: str | None
    systems: tuple
    topics: tuple
    dropped_systems: tuple
    grand_mean: float
    ss_system: float
    ss_topic: float
    ss_residual: float
    var_system: float
    var_topic: float
    var_residual: float
    scores: np.ndarray = field(repr=False, compare=False)

    # ---------------------------------------------------------- ANOVA

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @property
    def df_system(self) -> int:
        return self.n_systems - 1

    @property
    def df_topic(self) -> int:
        return self.n_topics - 1

    @property
    def df_residual(self) -> int:
        return self.df_system * self.df_topic

    @property
    def ms_system(self) -> float:
        return self.ss_system / self.df_system

    @property
    def ms_topic(self) -> float:
        return self.ss_topic / self.df_topic

    @property
    def ms_residual(self) -> float:
        return self.ss_residual / self.df_residual

    @property
    def components(self) -> tuple[float, float, float]:
        """``(system, topic, residual)`` truncated at 0: what the coefficients use."""
        return (max(self.var_system, 0.0), max(self.var_topic, 0.0), max(self.var_residual, 0.0))

    @property
    def percent(self) -> tuple[float, float, float]:
        """Each truncated component as a percentage of their sum."""
        c = np.array(self.components)
        return tuple(float(v) for v in 100.0 * c / c.sum())

    # ---------------------------------------------------------- coefficients

    def _n(self, n_topics) -> float:
        n = self.n_topics if n_topics is None else n_topics
        if not (
            isinstance(n, (int, float, np.integer, np.floating)) and n >= 1 and math.isfinite(n)
        ):
            raise IRStabError(f"n_topics: must be a finite number >= 1, got {n_topics!r}")
        return float(n)

    def _psi_hat(self, coefficient: Coefficient) -> float:
        return float(_psi(np.array(self.components), coefficient))

    def erho2(self, n_topics: float | None = None) -> float:
        """Generalizability coefficient :math:`E\\rho^2(n')` (``n'`` defaults to :math:`n_t`)."""
        return float(_coef_from_psi(self._psi_hat(Coefficient.erho2), self._n(n_topics)))

    def phi(self, n_topics: float | None = None) -> float:
        """Dependability coefficient :math:`\\Phi(n')` (``n'`` defaults to :math:`n_t`)."""
        return float(_coef_from_psi(self._psi_hat(Coefficient.phi), self._n(n_topics)))

    def _psi_limits(self, coefficient: Coefficient, confidence: float) -> tuple[float, float]:
        """F-based (lower, upper) limits of the one-topic signal-to-noise ratio."""
        alpha = 1.0 - _check_confidence(confidence)
        n_s, n_t = self.n_systems, self.n_topics
        ms_s, ms_t, ms_r = self.ms_system, self.ms_topic, self.ms_residual
        df_s, df_t, df_r = self.df_system, self.df_topic, self.df_residual
        out = []
        for q in (1.0 - alpha / 2.0, alpha / 2.0):
            if coefficient is Coefficient.erho2:
                f_obs = _safe_ratio(ms_s, ms_r)
                psi = (_safe_ratio(f_obs, _f_quantile(q, df_s, df_r)) - 1.0) / n_t
            else:
                f1 = _f_quantile(q, df_s, math.inf)
                f2 = _f_quantile(q, df_s, df_r)
                f3 = _f_quantile(q, df_s, df_t)
                num = ms_s**2 - f1 * ms_s * ms_r + (f1 - f2) * f2 * ms_r**2
                den = (n_s - 1) * f1 * ms_s * ms_r + f3 * ms_s * ms_t
                psi = n_s * _safe_ratio(num, den) / n_t
            out.append(max(float(psi), 0.0))
        return out[0], out[1]

    def erho2_interval(
        self, n_topics: float | None = None, confidence: float = 0.95
    ) -> tuple[float, float]:
        """Feldt's F-based interval for :math:`E\\rho^2(n')` (see class docstring)."""
        lo, hi = self._psi_limits(Coefficient.erho2, confidence)
        n = self._n(n_topics)
        return float(_coef_from_psi(lo, n)), float(_coef_from_psi(hi, n))

    def phi_interval(
        self, n_topics: float | None = None, confidence: float = 0.95
    ) -> tuple[float, float]:
        """Arteaga et al.'s F-based interval for :math:`\\Phi(n')` (see class docstring)."""
        lo, hi = self._psi_limits(Coefficient.phi, confidence)
        n = self._n(n_topics)
        return float(_coef_from_psi(lo, n)), float(_coef_from_psi(hi, n))

    def topics_needed(
        self,
        target: float = 0.95,
        coefficient: Coefficient | str = Coefficient.phi,
        confidence: float = 0.95,
    ) -> TopicsNeeded:
        """Smallest number of topics whose coefficient reaches ``target``, F-based interval.

        :math:`n = \\lceil g / ((1-g)\\psi) \\rceil` for target :math:`g` and
        one-topic ratio :math:`\\psi` (module docstring); the interval maps the
        limits of :math:`\\psi` the same way.
        """
        coefficient = _check_coefficient(coefficient)
        target = _check_target(target)
        lo, hi = self._psi_limits(coefficient, confidence)
        return TopicsNeeded(
            coefficient=coefficient,
            target=target,
            n=float(_needed_from_psi(self._psi_hat(coefficient), target)),
            lower=float(_needed_from_psi(hi, target)),
            upper=float(_needed_from_psi(lo, target)),
            confidence=confidence,
            interval=IntervalMethod.f,
        )

    def dstudy(
        self,
        n_topics: Sequence[float] | None = None,
        *,
        targets: Sequence[float] = (0.95,),
        confidence: float = 0.95,
        interval: IntervalMethod | str = IntervalMethod.f,
        n_resamples: int = 1000,
        resample: Resample | str = Resample.topics,
        seed: int | np.random.Generator | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> DStudy:
        """Project Erho2 and Phi to topic-set sizes ``n_topics`` and find topics needed.

        Parameters
        ----------
        n_topics : sequence of float, optional
            Topic-set sizes (>= 1). Default: the observed :math:`n_t`.
        targets : sequence of float
            Targets in (0, 1) for the topics needed, for both coefficients.
        confidence : float
            Two-sided confidence level in (0, 1).
        interval : {"f", "bootstrap"}
            F-based intervals (class docstring) or the percentile bootstrap of
            :func:`irstab.stability.bootstrap.bootstrap_components`.
        n_resamples, resample, seed, progress
            Bootstrap only: number of resamples, what to resample
            (``"topics"``, ``"systems"``, ``"both"``), the seed or Generator,
            and a callback receiving the number of resamples done so far.

        Returns
        -------
        DStudy

        Examples
        --------
        >>> import numpy as np
        >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
        >>> d = gstudy(x).dstudy([1, 3, 30], targets=(0.9,), confidence=0.8)
        >>> print(d.to_frame().drop(columns="measure").round(3).to_string(index=False))
         n_topics  erho2  erho2_lower  erho2_upper   phi  phi_lower  phi_upper
              1.0  0.609        0.194        0.906 0.519      0.108      0.870
              3.0  0.824        0.420        0.967 0.764      0.267      0.952
             30.0  0.979        0.878        0.997 0.970      0.784      0.995
        >>> [(t.coefficient.value, t.n, t.lower, t.upper) for t in d.topics_needed]
        [('phi', 9.0, 2.0, 75.0), ('erho2', 6.0, 1.0, 38.0)]
        """
        try:
            interval = IntervalMethod(interval)
        except ValueError:
            raise IRStabError(f"interval: expected 'f' or 'bootstrap', got {interval!r}") from None
        confidence = _check_confidence(confidence)
        sizes = [self._n(n) for n in ((self.n_topics,) if n_topics is None else n_topics)]
        if not sizes:
            raise IRStabError("n_topics: give at least one topic-set size")
        tgts = [_check_target(t) for t in targets]
        n = np.array(sizes)
        comps = np.array(self.components)
        point = {c: _coef_from_psi(_psi(comps, c), n) for c in Coefficient}

        if interval is IntervalMethod.f:
            limits = {c: self._psi_limits(c, confidence) for c in Coefficient}
            coef_lo = {c: _coef_from_psi(limits[c][0], n) for c in Coefficient}
            coef_hi = {c: _coef_from_psi(limits[c][1], n) for c in Coefficient}
            needed = tuple(
                self.topics_needed(t, c, confidence)
                for c in (Coefficient.phi, Coefficient.erho2)
                for t in tgts
            )
            n_boot = None
        else:
            from .bootstrap import bootstrap_intervals

            boot = bootstrap_intervals(
                self,
                n,
                tgts,
                confidence=confidence,
                n_resamples=n_resamples,
                resample=resample,
                seed=seed,
                progress=progress,
            )
            coef_lo = {c: boot.coef_lower[c] for c in Coefficient}
            coef_hi = {c: boot.coef_upper[c] for c in Coefficient}
            needed = tuple(
                TopicsNeeded(
                    coefficient=c,
                    target=t,
                    n=float(_needed_from_psi(_psi(comps, c), t)),
                    lower=float(boot.needed_lower[c][i]),
                    upper=float(boot.needed_upper[c][i]),
                    confidence=confidence,
                    interval=IntervalMethod.bootstrap,
                )
                for c in (Coefficient.phi, Coefficient.erho2)
                for i, t in enumerate(tgts)
            )
            n_boot = n_resamples

        def tup(a):
            return tuple(float(v) for v in np.asarray(a, dtype=float))

        return DStudy(
            name=self.name,
            n_systems=self.n_systems,
            n_topics_observed=self.n_topics,
            n_topics=tup(n),
            erho2=tup(point[Coefficient.erho2]),
            erho2_lower=tup(coef_lo[Coefficient.erho2]),
            erho2_upper=tup(coef_hi[Coefficient.erho2]),
            phi=tup(point[Coefficient.phi]),
            phi_lower=tup(coef_lo[Coefficient.phi]),
            phi_upper=tup(coef_hi[Coefficient.phi]),
            topics_needed=needed,
            confidence=confidence,
            interval=interval,
            n_resamples=n_boot,
        )

    # ---------------------------------------------------------- output

    def _summary(self) -> str:
        s, t, r = self.percent
        return (
            f"{self.name or 'scores'}: {self.n_systems} systems x {self.n_topics} topics; "
            f"variance system {s:.1f}%, topic {t:.1f}%, residual {r:.1f}%; "
            f"Erho2 {self.erho2():.3f}, Phi {self.phi():.3f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """ANOVA table: ``source, df, ss, ms, variance`` (raw) and ``percent`` (truncated)."""
        return pd.DataFrame(
            {
                "source": ["system", "topic", "residual"],
                "df": [self.df_system, self.df_topic, self.df_residual],
                "ss": [self.ss_system, self.ss_topic, self.ss_residual],
                "ms": [self.ms_system, self.ms_topic, self.ms_residual],
                "variance": [self.var_system, self.var_topic, self.var_residual],
                "percent": list(self.percent),
            }
        )

    def to_dict(self) -> dict:
        """JSON-ready dict: sizes, ANOVA table, components, Erho2 and Phi at :math:`n_t`."""
        return {
            "measure": self.name,
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            "dropped_systems": [str(s) for s in self.dropped_systems],
            "grand_mean": self.grand_mean,
            "anova": self.to_frame().to_dict(orient="records"),
            "var_system": self.var_system,
            "var_topic": self.var_topic,
            "var_residual": self.var_residual,
            "erho2": self.erho2(),
            "phi": self.phi(),
        }


def _check_confidence(confidence: float) -> float:
    if not (0.0 < confidence < 1.0):
        raise IRStabError(f"confidence: must be in (0, 1), got {confidence!r}")
    return float(confidence)


def _check_target(target: float) -> float:
    if not (0.0 < target < 1.0):
        raise IRStabError(f"target: must be in (0, 1), got {target!r}")
    return float(target)


def _check_coefficient(coefficient) -> Coefficient:
    try:
        return Coefficient(coefficient)
    except ValueError:
        raise IRStabError(f"coefficient: expected 'phi' or 'erho2', got {coefficient!r}") from None


# ----------------------------------------------------------------- entry point


def gstudy(scores, *, drop_worst: float = 0.0, name: str | None = None) -> GStudy:
    r"""G-study of a crossed systems x topics score matrix (one score per cell).

    Fits the two-way ANOVA without replication, estimates the variance
    components from the expected mean squares and returns them with the
    coefficients of a D-study (formulas in :mod:`irstab.stability.gstudy`).

    Parameters
    ----------
    scores : pandas.DataFrame or numpy.ndarray
        Systems x topics (DataFrame: index = systems, columns = topics). Not
        modified.
    drop_worst : float, default 0
        Fraction of systems with the lowest mean score dropped first
        (:func:`drop_worst_systems`), a common practice against weak runs.
    name : str, optional
        Label of the measure, carried into the results.

    Returns
    -------
    GStudy

    Raises
    ------
    irstab.errors.DegenerateDataError
        Fewer than 2 systems or topics, missing (NaN) or non-finite cells
        (named in the message), or all scores equal.

    Warns
    -----
    irstab.errors.IRStabWarning
        A variance component is estimated negative: it is kept raw in the
        table and set to 0 in the coefficients (Brennan 2001).
        Also when all systems score the same on every topic (Erho2 and Phi
        are then 0 by convention, not 0/0).

    Notes
    -----
    Sums of squares with :math:`\bar x_s, \bar x_t, \bar x` the system, topic
    and grand means:
    :math:`SS_s = n_t\sum_s(\bar x_s - \bar x)^2`,
    :math:`SS_t = n_s\sum_t(\bar x_t - \bar x)^2`,
    :math:`SS_{res} = \sum_{s,t}(x_{st} - \bar x_s - \bar x_t + \bar x)^2`,
    with :math:`n_s-1`, :math:`n_t-1` and :math:`(n_s-1)(n_t-1)` degrees of
    freedom. At :math:`n'=n_t`, :math:`E\rho^2 = 1 - MS_{res}/MS_s` is
    ICC(3,k) and :math:`\Phi` is ICC(2,k) of Shrout & Fleiss (1979), with
    systems as targets and topics as judges.

    Validated (tests/stability) against statsmodels' ``anova_lm`` sums of
    squares, independent ICC formulas, Brennan (2001) Synthetic Data Set No. 1
    (Table 2.2) and the intervals of Brennan's Table 6.5 (Synthetic Data Set
    No. 4 as a p x i design).

    References
    ----------
    R. L. Brennan (2001). *Generalizability Theory*. Springer.
    L. S. Feldt (1965). The approximate sampling distribution of
    Kuder-Richardson reliability coefficient twenty. *Psychometrika* 30.
    C. Arteaga, S. Jeyaratnam, F. A. Graybill (1982). Confidence intervals for
    proportions of total variance in the two-way cross component of variance
    model. *Comm. Statist. Theory Methods* 11(15).
    P. E. Shrout, J. L. Fleiss (1979). Intraclass correlations. *Psychol. Bull.* 86.
    E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
    discount function for nDCG. CIKM (Kanoulas & Aslam, CIKM 2009).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    >>> g = gstudy(x, name="demo")
    >>> print(g.to_frame().round(4).to_string(index=False))
      source  df     ss     ms  variance  percent
      system   3 0.3825 0.1275    0.0350  51.8519
       topic   2 0.1250 0.0625    0.0100  14.8148
    residual   6 0.1350 0.0225    0.0225  33.3333
    >>> round(g.erho2(), 4), round(g.phi(), 4)
    (0.8235, 0.7636)
    >>> round(g.phi(100), 4)  # projected to 100 topics
    0.9908
    >>> g.topics_needed(0.95).n
    18.0
    """
    x, systems, topics = _validate_scores(scores)
    dropped: tuple = ()
    if drop_worst:
        keep = _keep_mask(x, float(drop_worst))
        dropped = tuple(s for s, k in zip(systems, keep) if not k)
        x = x[keep]
        systems = tuple(s for s, k in zip(systems, keep) if k)
        if x.shape[0] < 2:
            raise DegenerateDataError(
                f"drop_worst={drop_worst}: leaves {x.shape[0]} system(s); "
                "a G-study needs at least 2"
            )
    if np.ptp(x) == 0:
        raise DegenerateDataError(
            f"{name + ': ' if name else ''}scores: all {x.size} scores are equal ({x.flat[0]:g}); every variance component "
            "is 0 and Erho2 and Phi are undefined"
        )
    ss_s, ss_t, ss_r = (float(v) for v in _sums_of_squares(x))
    var = _components(x)
    x.setflags(write=False)
    g = GStudy(
        name=name,
        systems=systems,
        topics=topics,
        dropped_systems=dropped,
        grand_mean=float(x.mean()),
        ss_system=ss_s,
        ss_topic=ss_t,
        ss_residual=ss_r,
        var_system=float(var[0]),
        var_topic=float(var[1]),
        var_residual=float(var[2]),
        scores=x,
    )
    label = f"{name}: " if name else ""
    negative = [
        f"sigma2_{k} = {v:.4g}"
        for k, v in (("system", g.var_system), ("topic", g.var_topic))
        if v < 0
    ]
    if negative:
        warnings.warn(
            f"{label}negative variance estimate(s) {', '.join(negative)}: kept in the table, "
            "set to 0 in Erho2 and Phi",
            IRStabWarning,
            stacklevel=2,
        )
    if g.ms_system == 0 and g.ms_residual == 0:
        warnings.warn(
            f"{label}all systems have the same score on every topic; Erho2 and Phi are set to 0",
            IRStabWarning,
            stacklevel=2,
        )
    return g
