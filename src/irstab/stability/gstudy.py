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

import numpy as np
import pandas as pd

from .._repr import short_repr
from ..errors import DegenerateDataError, IRStabError, IRStabWarning
from .bootstrap import bootstrap_intervals
from .coefficients import (
    CoefficientValue,
    Coefficient, IntervalMethod, Resample, check_coefficient, check_confidence, check_target,
    coef_from_psi, f_quantile, needed_from_psi, psi_of, safe_ratio,
)
from .._numeric import spread_exponent
from .designs.crossed import (
    constant_message, crossed_components, drop_worst_systems, keep_mask, sums_of_squares,
    validate_scores,
)
from .dstudy import DStudy, TopicsNeeded

__all__ = [
    "Coefficient",
    "IntervalMethod",
    "Resample",
    "GStudy",
    "CoefficientValue",
    "DStudy",
    "TopicsNeeded",
    "gstudy",
    "drop_worst_systems",
]


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
        return float(psi_of(np.array(self.components), coefficient))

    def erho2_at(self, n_topics: float | None = None) -> float:
        """Generalizability coefficient :math:`E\\rho^2(n')` (``n'`` defaults to :math:`n_t`)."""
        return float(coef_from_psi(self._psi_hat(Coefficient.erho2), self._n(n_topics)))

    def phi_at(self, n_topics: float | None = None) -> float:
        """Dependability coefficient :math:`\\Phi(n')` (``n'`` defaults to :math:`n_t`)."""
        return float(coef_from_psi(self._psi_hat(Coefficient.phi), self._n(n_topics)))

    @property
    def erho2(self) -> CoefficientValue:
        """:math:`E\\rho^2` at the observed :math:`n_t`, an attribute like ``var_system``;
        ``g.erho2(n)`` (as :meth:`erho2_at`) gives it for ``n`` topics."""
        return CoefficientValue(self.erho2_at(), self.erho2_at)

    @property
    def phi(self) -> CoefficientValue:
        """:math:`\\Phi` at the observed :math:`n_t`, an attribute like ``var_system``;
        ``g.phi(n)`` (as :meth:`phi_at`) gives it for ``n`` topics, and ``g.phi()`` is ``g.phi``.

        >>> import numpy as np
        >>> g = gstudy(np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7]]))
        >>> round(g.phi, 4) == round(g.phi(), 4) == round(g.phi_at(3), 4)
        True
        >>> g.phi(30) > g.phi
        True
        """
        return CoefficientValue(self.phi_at(), self.phi_at)

    def _psi_limits(self, coefficient: Coefficient, confidence: float) -> tuple[float, float]:
        """F-based (lower, upper) limits of the one-topic signal-to-noise ratio."""
        alpha = 1.0 - check_confidence(confidence)
        n_s, n_t = self.n_systems, self.n_topics
        ms_s, ms_t, ms_r = self.ms_system, self.ms_topic, self.ms_residual
        # lambda is homogeneous of degree 0 in the mean squares: in units of the largest,
        # its squares cannot overflow whatever the scale of the scores
        unit = max(ms_s, ms_t, ms_r)
        if unit > 0:
            ms_s, ms_t, ms_r = ms_s / unit, ms_t / unit, ms_r / unit
        df_s, df_t, df_r = self.df_system, self.df_topic, self.df_residual
        out = []
        for q in (1.0 - alpha / 2.0, alpha / 2.0):
            if coefficient is Coefficient.erho2:
                f_obs = safe_ratio(ms_s, ms_r)
                psi = (safe_ratio(f_obs, f_quantile(q, df_s, df_r)) - 1.0) / n_t
            else:
                f1 = f_quantile(q, df_s, math.inf)
                f2 = f_quantile(q, df_s, df_r)
                f3 = f_quantile(q, df_s, df_t)
                num = ms_s**2 - f1 * ms_s * ms_r + (f1 - f2) * f2 * ms_r**2
                den = (n_s - 1) * f1 * ms_s * ms_r + f3 * ms_s * ms_t
                psi = n_s * safe_ratio(num, den) / n_t
            out.append(max(float(psi), 0.0))
        return out[0], out[1]

    def erho2_interval(
        self, n_topics: float | None = None, confidence: float = 0.95
    ) -> tuple[float, float]:
        """Feldt's F-based interval for :math:`E\\rho^2(n')` (see class docstring)."""
        lo, hi = self._psi_limits(Coefficient.erho2, confidence)
        n = self._n(n_topics)
        return float(coef_from_psi(lo, n)), float(coef_from_psi(hi, n))

    def phi_interval(
        self, n_topics: float | None = None, confidence: float = 0.95
    ) -> tuple[float, float]:
        """Arteaga et al.'s F-based interval for :math:`\\Phi(n')` (see class docstring)."""
        lo, hi = self._psi_limits(Coefficient.phi, confidence)
        n = self._n(n_topics)
        return float(coef_from_psi(lo, n)), float(coef_from_psi(hi, n))

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
        coefficient = check_coefficient(coefficient)
        target = check_target(target)
        lo, hi = self._psi_limits(coefficient, confidence)
        return TopicsNeeded(
            coefficient=coefficient,
            target=target,
            n=float(needed_from_psi(self._psi_hat(coefficient), target)),
            lower=float(needed_from_psi(hi, target)),
            upper=float(needed_from_psi(lo, target)),
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
        n_topics : float or sequence of float, optional
            Topic-set size(s) (>= 1): ``dstudy(1000)`` or ``dstudy([10, 50])``.
            Default: the observed :math:`n_t`.
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
                1  0.609        0.194        0.906 0.519      0.108      0.870
                3  0.824        0.420        0.967 0.764      0.267      0.952
               30  0.979        0.878        0.997 0.970      0.784      0.995
        >>> [(t.coefficient.value, t.n, t.lower, t.upper) for t in d.topics_needed]
        [('phi', 9, 2, 75), ('erho2', 6, 1, 38)]
        """
        try:
            interval = IntervalMethod(interval)
        except ValueError:
            raise IRStabError(f"interval: expected 'f' or 'bootstrap', got {interval!r}") from None
        confidence = check_confidence(confidence)
        if n_topics is not None and np.ndim(n_topics) == 0:
            n_topics = (n_topics,)  # dstudy(1000): one size
        sizes = [self._n(n) for n in ((self.n_topics,) if n_topics is None else n_topics)]
        if not sizes:
            raise IRStabError("n_topics: give at least one topic-set size")
        tgts = [check_target(t) for t in targets]
        n = np.array(sizes)
        comps = np.array(self.components)
        point = {c: coef_from_psi(psi_of(comps, c), n) for c in Coefficient}

        if interval is IntervalMethod.f:
            limits = {c: self._psi_limits(c, confidence) for c in Coefficient}
            coef_lo = {c: coef_from_psi(limits[c][0], n) for c in Coefficient}
            coef_hi = {c: coef_from_psi(limits[c][1], n) for c in Coefficient}
            needed = tuple(
                self.topics_needed(t, c, confidence)
                for c in (Coefficient.phi, Coefficient.erho2)
                for t in tgts
            )
            n_boot = None
        else:
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
                    n=float(needed_from_psi(psi_of(comps, c), t)),
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


# ----------------------------------------------------------------- entry point


def _score_matrix(scores, systems: str, measure):
    """Systems x topics scores from what a notebook user has at hand.

    A Collection (with ``measure``), :func:`irstab.evaluate`'s long frame
    (``run, measure, topic, value``; ``measure`` picks one if it holds several),
    a DataFrame in either orientation (:func:`irstab.io.scorematrix.orient`), or
    an array (systems in rows unless ``systems="columns"``).
    """
    import pandas as pd

    from ..io.scorematrix import orient

    if hasattr(scores, "grades") and hasattr(scores, "systems"):  # a Collection
        if measure is None:
            raise DegenerateDataError(
                "gstudy needs scores, not a Collection: pass the measure, e.g. "
                "irstab.gstudy(collection, measure='nDCG@10') (or irstab.score_matrix(collection, "
                "'nDCG@10'))"
            )
        from ..evaluation import score_matrix

        return score_matrix(scores, measure)
    if isinstance(scores, pd.DataFrame):
        cols = {str(c).lower(): c for c in scores.columns}
        who = cols.get("run", cols.get("system"))
        value = cols.get("value", cols.get("score"))
        if who is not None and value is not None and "topic" in cols:  # evaluate's long frame
            frame = scores[scores[cols["topic"]].astype(str) != "all"]
            if "measure" in cols:
                names = list(dict.fromkeys(frame[cols["measure"]]))
                if measure is None and len(names) > 1:
                    raise DegenerateDataError(
                        f"the frame holds {len(names)} measures {names[:5]}: pass measure=, e.g. "
                        f"irstab.gstudy(frame, measure={names[0]!r})"
                    )
                pick = str(measure) if measure is not None else names[0]
                if pick not in names:
                    from ..metrics import resolve_measures

                    found = [str(m) for m in resolve_measures(measure)]
                    pick = found[0] if len(found) == 1 else pick
                if pick not in names:
                    raise DegenerateDataError(f"measure={measure!r} is not in the frame: {names[:10]}")
                frame = frame[frame[cols["measure"]] == pick]
            wide = frame.pivot_table(index=who, columns=cols["topic"], values=value, sort=False)
            return orient(wide.rename_axis(index="system", columns="topic"), "rows")
        if systems == "rows" and scores.index.name is None and scores.columns.name is None:
            return scores
        return orient(scores, systems, guess_rows_quietly=True)
    if systems == "columns":
        import numpy as np

        return np.asarray(scores).T
    if systems not in ("auto", "rows"):
        raise DegenerateDataError(f"systems must be auto, rows or columns, got {systems!r}")
    return scores


def gstudy(scores, *, drop_worst: float = 0.0, name: str | None = None, systems: str = "auto",
           measure=None) -> GStudy:
    r"""G-study of a crossed systems x topics score matrix (one score per cell).

    Fits the two-way ANOVA without replication, estimates the variance
    components from the expected mean squares and returns them with the
    coefficients of a D-study (formulas in :mod:`irstab.stability.gstudy`).

    Parameters
    ----------
    scores : pandas.DataFrame, numpy.ndarray or Collection
        Systems x topics (DataFrame: index = systems, columns = topics); a
        DataFrame whose axis names say ``topic``/``qid`` in the rows or
        ``run``/``system`` in the columns is read the other way round, as is
        one whose row labels are all integers (topic ids; with a warning);
        :func:`irstab.evaluate`'s long frame; or a Collection with
        ``measure``. Not modified.
    drop_worst : float, default 0
        Fraction of systems with the lowest mean score dropped first
        (:func:`drop_worst_systems`), a common practice against weak runs.
    name : str, optional
        Label of the measure, carried into the results.
    systems : {"auto", "rows", "columns"}
        Where the systems are (gt4ireval's layout has topics in rows:
        ``systems="columns"``); ``auto`` as described under ``scores``.
    measure : str or Measure, optional
        With a Collection or a long frame of several measures: the measure
        to study (also the default ``name``).

    Returns
    -------
    GStudy

    Raises
    ------
    irstab.errors.DegenerateDataError
        Fewer than 2 systems or topics, missing (NaN) or non-finite cells
        (named in the message), or all scores equal (also up to rounding noise:
        a spread of at most 1e-12 of their magnitude, :mod:`irstab._numeric`).

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
    >>> round(g.erho2, 4), round(g.phi, 4)  # numbers, like g.var_system
    (0.8235, 0.7636)
    >>> round(g.phi(100), 4)  # projected to 100 topics
    0.9908
    >>> g.topics_needed(0.95).n
    18
    """
    if measure is not None and name is None:
        name = str(measure)
    x, systems, topics = validate_scores(_score_matrix(scores, systems, measure))
    dropped: tuple = ()
    if drop_worst:
        keep = keep_mask(x, float(drop_worst))
        dropped = tuple(s for s, k in zip(systems, keep) if not k)
        x = x[keep]
        systems = tuple(s for s, k in zip(systems, keep) if k)
        if x.shape[0] < 2:
            raise DegenerateDataError(
                f"drop_worst={drop_worst}: leaves {x.shape[0]} system(s); "
                "a G-study needs at least 2"
            )
    if spread_exponent(x)[1]:  # equal, or equal up to rounding noise (irstab._numeric)
        raise DegenerateDataError(
            f"{name + ': ' if name else ''}scores: {constant_message(x)}; every variance "
            "component is 0 and Erho2 and Phi are undefined"
        )
    ss_s, ss_t, ss_r = (float(v) for v in sums_of_squares(x))
    var = crossed_components(x)
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
