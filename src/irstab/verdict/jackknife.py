r"""The verdict's interval: the two-facet jackknife of contrasts of Phi, simultaneous over the candidates.

Two parts, bottom up: :func:`phi_contrasts` estimates any contrast of Phi values and its
variance from the data (the G-study's mean squares left out by system, topic and both);
:func:`jackknife_differences` turns the differences from the baseline into the interval
:func:`irstab.verdict.paired_comparison` reports by default.

The variance of a contrast
--------------------------
The normal-theory sampling distribution of the mean squares (Wishart;
:mod:`irstab.stability.multivariate`) is exact when system, topic and residual
effects are normal and the residuals homoscedastic. Real score matrices are
neither: a few weak runs make the system effects heavy-tailed (excess kurtosis
5-18 on TREC DL 2019), and residual variance differs from run to run. Then mean
squares vary far more than their degrees of freedom say, and an interval built
on them covers 0.63-0.93 instead of 0.95 in universes made of real scores
(``docs/calibration.md``). This module estimates the variance of a contrast of
Phi values, :math:`\hat\theta = \sum_m w_m \hat\Phi_m(n)`, from the data
themselves.

Method
------
For each measure the three mean squares :math:`MS_s, MS_t, MS_e` of the
crossed design are recomputed with one system left out (:math:`S` values), one
topic left out (:math:`T`), and one system *and* one topic left out
(:math:`S T`), all in closed form from row, column and grand sums (no matrix is
copied). The contrast is linearised at the estimate (delta method):
:math:`\hat\theta_{(\cdot)} = \sum_m w_m\, g_m^\top MS_{m,(\cdot)}` with
:math:`g_m = \partial\Phi_m/\partial(MS_s, MS_t, MS_e)`, so that every
pseudo-value is a smooth function of quadratic statistics. From these,

.. math::

    V_s = \tfrac{S-1}{S} \sum_i (\hat\theta_{(i\cdot)} - \bar\theta_{(\cdot\cdot)})^2,\quad
    V_t = \tfrac{T-1}{T} \sum_j (\hat\theta_{(\cdot j)} - \bar\theta_{(\cdot\cdot)})^2,\quad
    V_{st} = \tfrac{(S-1)(T-1)}{S T} \sum_{ij} \psi_{ij}^2,

with :math:`\psi_{ij}` the double-centred :math:`\hat\theta - \hat\theta_{(i\cdot)} -
\hat\theta_{(\cdot j)} + \hat\theta_{(ij)}`. Leaving out a system also removes
that system's interaction cells, so :math:`V_s` estimates the system part
*plus* the interaction part, and so does :math:`V_t`: the plain two-facet
jackknife counts the interaction twice (as the joint bootstrap does; Brennan
2001, §6.2; Owen 2007). :math:`V_{st}` estimates the interaction part alone;
the variance is the sum of the three parts, each clipped at zero as
generalizability theory clips negative components,

.. math::

    V = V_{st} + \max(V_s - V_{st}, 0) + \max(V_t - V_{st}, 0).

For the grand mean this is exactly the unbiased estimator
:math:`(MS_s + MS_t - MS_e)/(S T)` of its variance (tested).

**Heavy-tailed system effects.** Where the system means of a measure in the
contrast have sample excess kurtosis :data:`HEAVY_TAILS` or more (a few runs
far from the rest; DL-2019's 37 runs: 5.7 for nDCG@10), the system
pseudo-values :math:`\hat\theta_{(i\cdot)}` of :math:`V_s` are the exact
contrasts of Phi with system :math:`i` left out, not their tangent: leaving
out such a run moves the system variance, and Phi, which is concave in it,
far beyond the tangent, and the linearised :math:`V_s` was too small
(``docs/calibration.md``). The interaction keeps the linearised values:
exact leave-both-out values would add the jackknife's upward bias for
non-linear statistics (Efron & Stein 1981) to every collection.

**Degrees of freedom**: Satterthwaite's (1946) from the three parts,

.. math::

    \nu = \frac{V^2}{u_s^2/\nu_s + u_t^2/\nu_t + p_{st}^2/\nu_{st}},\qquad
    \nu_s = \frac{S-1}{k_s},\ \nu_t = \frac{T-1}{k_t},\ \nu_{st} = (S-1)(T-1),

    u_f = p_f + c \min(V_f, V_{st}),\qquad
    k_f = \min\bigl(a_f + b_f \max(\hat\kappa_f, 0),\ \max(a_f, (n_f - 1)/3)\bigr),

with :math:`(a_s, a_t) =` :data:`FACET_DF_DEFLATION` :math:`= (7, 1)`,
:math:`(b_s, b_t) =` :data:`FACET_DF_KURTOSIS` :math:`= (0, 6)` (the system part's
deflation stays constant), :math:`c =` :data:`CLIPPED_PART_NOISE` :math:`= 1/2`, the floor
3 = :data:`FACET_DF_FLOOR` (a kurtosis read from :math:`n_f` noisy values may cost a facet
its degrees of freedom down to 3, no further), and :math:`\hat\kappa_f` the sample excess
kurtosis (:func:`contrast_kurtosis`) of the facet's *exact* leave-one-out contrasts of Phi
(Phi with one system, or one topic, left out; whatever the system part reads). A variance
read from :math:`n` values of excess kurtosis :math:`\kappa` has relative variance about
:math:`(2 + \kappa)/(n - 1)` (O'Neill, *The American Statistician* 68, 2014), so it is as sure
as :math:`(n-1)/(1 + \kappa/2)` normal degrees of freedom: :math:`k = 1 + \kappa/2`. A
sample's own kurtosis runs low in heavy tails (samples of a heavy-tailed population often
look light-tailed), so the base :math:`a_f` carries what the sample cannot show and
:math:`b_f` what it does. A facet's part :math:`p_f = (V_f - V_{st})^+` is the difference of
two estimates: Satterthwaite's rule for the unclipped :math:`V_s + V_t - V_{st}` would count
the whole :math:`V_f` (:math:`c = 1`), while counting :math:`p_f` alone (:math:`c = 0`)
treats a part clipped to 0 as known to be 0. The constants are calibrated once across a
reference population of ten public collections (TREC DL 2019, TREC-3, TREC 5-8 ad hoc, TREC
Web 2010-2013; ``docs/calibration.md``), chosen on two sets of draws and scored on a third,
coverage first: every real-score setting whose true difference is not 0 covers at least
0.93, DL-2019's other presets at least 0.93 within two Monte-Carlo errors, then the most
settings cover at most 0.975. Reading the topics' tails from the sample is what carries the
rule to TREC Web 2010, whose topic means are heavy-tailed (left out of the choice, it is
still covered at 0.921; constant deflations chosen without it covered it 0.906). No rule
found meets the floor and keeps 80 % of the settings at most 0.975 (the page shows the
frontier). The interaction's part, read from :math:`S T` cells, keeps its degrees of
freedom: where it dominates (the moderate normal plant) the interval is narrower than with
:math:`\min(S, T) - 1`, where a facet dominates (heavy-tailed candidates on real scores)
wider.

Conventions
-----------
* Each matrix is first scaled by an exact power of two to unit spread, and a
  matrix constant up to rounding has no variance (:func:`irstab._numeric.unit_spread`),
  then centred (the mean squares do not see a constant; the closed-form sums of squares
  would lose digits far from 0): Phi and every contrast are invariant under ``a x + b``.
* Phi's components are clipped at 0 for the estimate, as the G-study does; the
  gradient is taken at the clipped point with the clip inactive (a measure
  whose system variance is estimated at 0 keeps the sensitivity it would have
  just above it: a conservative choice).
* At least 3 systems and 3 topics (the leave-both-out mean squares need
  :math:`(S-2)(T-2) > 0`).

The interval of the verdict
---------------------------
Each measure's difference :math:`\Delta_m = \Phi_m(n) - \Phi_{\mathrm{base}}(n)` is a
contrast of Phi values; :func:`phi_contrasts` gives its
estimate, its variance :math:`V_m` (delta-method jackknife over systems and topics,
the interaction counted once; systems left out exactly where the system means are
heavy-tailed) with :math:`\nu_m` degrees of freedom (above), and the
correlation of the contrasts. The interval is

.. math::

    \hat\Delta_m \pm q_m \sqrt{V_m},

with, for the :math:`L` candidates (the measures that may be recommended),
Bonferroni's level so that all of them hold together, :math:`q_m = t_{1-\gamma/(2L),\
\nu_m}` (:math:`\gamma = 1 - c`; each candidate's own Student's t). With one
candidate it is the ordinary :math:`t_{(1+c)/2,\ \nu}`; the other measures
(context) get marginal intervals, :math:`q_m = t_{(1+c)/2,\ \nu_m}`. The max-t
level from the candidates' estimated correlation (Hothorn, Bretz & Westfall
2008) is narrower, but with 21 nDCG presets whose estimates correlate above .9 it
covered 0.90 in the normal universe fitted to DL-2019: correlations estimated from
37 systems are too high, and the family's level with them too optimistic;
Bonferroni's bound holds whatever the correlation (docs/calibration.md).

Why: in universes made of real score matrices (systems and topics resampled
from TREC DL 2019 and TREC-3, the truth from the population) the Wishart pivots
of the multivariate G-study covered 0.60-0.93, because real system effects are
heavy-tailed and residual variance differs from run to run, which normal theory
cannot see; this interval reads both from the data (``docs/calibration.md``
has every setting and the methods it was chosen against).

Conventions: the interval is cut to [-1, 1], where a difference of two Phi
lies; an affine twin of the baseline has difference 0 and interval ``[0, 0]``; a
difference whose variance is 0 (two constant matrices, say) gets
``[\hat\Delta, \hat\Delta]`` and takes no part in the family; differences within
:data:`~irstab._numeric.PHI_ATOL` of 0 are 0.

References
----------
Arvesen, J. N., Schmitz, T. H. (1970). Robust procedures for variance
component problems using the jackknife. Biometrics 26(4), 677-686.
Brennan, R. L. (2001). Generalizability Theory. Springer, §6.2.
Efron, B., Stein, C. (1981). The jackknife estimate of variance. Annals of
Statistics 9(3), 586-596.
Owen, A. B. (2007). The pigeonhole bootstrap. Annals of Applied Statistics
1(2), 386-411.
Satterthwaite, F. E. (1946). An approximate distribution of estimates of
variance components. Biometrics Bulletin 2(6), 110-114.
O'Neill, B. (2014). Some useful moment results in sampling problems. The
American Statistician 68(4), 282-296 (the variance of a sample variance under
kurtosis).
Hothorn, T., Bretz, F., Westfall, P. (2008). Simultaneous inference in
general parametric models. Biometrical Journal 50(3), 346-363 (max-t).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._numeric import PHI_ATOL, affine_twins, check_allocation, unit_spread
from ..errors import IRStabError
from ..stability.coefficients import Coefficient, coef_from_psi, psi_of
from ..stability.designs.crossed import scaled_components
from .draws import PhiDifferences

__all__ = ["ContrastVariance", "TwoFacetVariance", "phi_contrasts", "two_facet_variance",
           "leave_one_out_mean_squares", "phi_gradient", "system_kurtosis", "HEAVY_TAILS", "FACET_DF_DEFLATION",
           "CLIPPED_PART_NOISE", "FACET_DF_KURTOSIS", "FACET_DF_FLOOR", "contrast_kurtosis",
           "facet_df",
           "jackknife_differences"]

#: Excess kurtosis of a measure's system means from which its leave-one-system-out
#: contrasts are exact, not linearised (module docstring; docs/calibration.md).
HEAVY_TAILS = 1.0

#: ``(a_s, a_t)``: with ``(b_s, b_t)`` = :data:`FACET_DF_KURTOSIS`, the system and topic parts of
#: the variance are as sure as ``(S - 1) / k_s`` and ``(T - 1) / k_t`` normal-theory degrees of
#: freedom, ``k_f = min(a_f + b_f max(kappa_f, 0), max(a_f, (n_f - 1) / FACET_DF_FLOOR))``
#: (module docstring: "Degrees of freedom"; calibrated on ten real collections in
#: docs/calibration.md).
FACET_DF_DEFLATION = (7.0, 1.0)

#: ``(b_s, b_t)``: how much each facet's deflation grows with the sample excess kurtosis
#: ``kappa_f`` of its exact leave-one-out contrasts (module docstring: "Degrees of freedom").
FACET_DF_KURTOSIS = (0.0, 6.0)

#: The sample's kurtosis may deflate a facet's degrees of freedom down to this many, no
#: further: ``k_f <= max(a_f, (n_f - 1) / FACET_DF_FLOOR)`` (module docstring).
FACET_DF_FLOOR = 3.0

#: ``c``: a facet's part counts ``c min(V_f, V_st)`` of the interaction's noise it was cleared
#: of beside its clipped value (module docstring: "Degrees of freedom"; docs/calibration.md).
CLIPPED_PART_NOISE = 0.5


def contrast_kurtosis(values: np.ndarray) -> np.ndarray:
    r"""Sample excess kurtosis along the last axis: :math:`m_4 / m_2^2 - 3`, moments about
    the mean with divisor :math:`n`; 0 where the values are all equal.

    Examples
    --------
    >>> float(contrast_kurtosis(np.array([0.0, 0.0, 0.0, 0.0, 1.0])))  # m2 0.16, m4 0.0832
    0.25
    """
    d = values - values.mean(axis=-1, keepdims=True)
    d2 = d * d
    m2, m4 = d2.mean(axis=-1), (d2 * d2).mean(axis=-1)
    ok = m2 > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, m4 / np.where(ok, m2, 1.0) ** 2 - 3.0, 0.0)


def facet_df(v_s, v_t, v_st, S: int, T: int, kurt_s, kurt_t) -> np.ndarray:
    r"""Satterthwaite's degrees of freedom of :math:`V` from the jackknife's three variances.

    The module docstring's rule ("Degrees of freedom"), elementwise over arrays of any
    shape: :math:`\nu = V^2 / (u_s^2 k_s/(S-1) + u_t^2 k_t/(T-1) + V_{st}^2/((S-1)(T-1)))`
    with :math:`u_f = (V_f - V_{st})^+ + c \min(V_f, V_{st})`,
    :math:`k_f = \min(a_f + b_f \max(\kappa_f, 0), \max(a_f, (n_f - 1)/m))`
    (:data:`FACET_DF_DEFLATION`, :data:`FACET_DF_KURTOSIS`, :math:`m =`
    :data:`FACET_DF_FLOOR`; ``kurt_s``, ``kurt_t`` the facets' :math:`\kappa_f`, required:
    a forgotten kurtosis would give the least deflation) and :data:`CLIPPED_PART_NOISE`;
    ``inf`` where :math:`V` is 0.
    """
    p_s, p_t, p_st = np.maximum(v_s - v_st, 0.0), np.maximum(v_t - v_st, 0.0), v_st
    (a_s, a_t), (b_s, b_t) = FACET_DF_DEFLATION, FACET_DF_KURTOSIS
    # a kurtosis of S or T noisy values deflates a facet down to FACET_DF_FLOOR df, no further
    k_s = np.minimum(a_s + b_s * np.maximum(kurt_s, 0.0), max(a_s, (S - 1) / FACET_DF_FLOOR))
    k_t = np.minimum(a_t + b_t * np.maximum(kurt_t, 0.0), max(a_t, (T - 1) / FACET_DF_FLOOR))
    u_s = p_s + CLIPPED_PART_NOISE * np.minimum(v_s, v_st)
    u_t = p_t + CLIPPED_PART_NOISE * np.minimum(v_t, v_st)
    v = p_s + p_t + p_st
    den = u_s ** 2 * k_s / (S - 1) + u_t ** 2 * k_t / (T - 1) + p_st ** 2 / ((S - 1) * (T - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((v > 0) & (den > 0), v * v / np.where(den > 0, den, 1.0), np.inf)


def _mean_squares(q, g, r2, c2, n_s: int, n_t: int) -> np.ndarray:
    """``(MS_s, MS_t, MS_e)`` stacked on a new first axis, from sums of any shape.

    ``q`` = sum of squares, ``g`` = grand sum, ``r2``/``c2`` = sums of squared
    row/column sums of an ``n_s x n_t`` matrix.
    """
    corr = g * g / (n_s * n_t)
    ss_s = r2 / n_t - corr
    ss_t = c2 / n_s - corr
    ss_e = q - corr - ss_s - ss_t
    return np.stack([ss_s / (n_s - 1), ss_t / (n_t - 1), ss_e / ((n_s - 1) * (n_t - 1))])


def leave_one_out_mean_squares(x: np.ndarray):
    """Mean squares of ``x[m, s, t]`` and of every leave-one-out submatrix, in closed form.

    Returns ``(full, by_system, by_topic, by_cell)`` of shapes ``(3, M)``,
    ``(3, M, S)``, ``(3, M, T)`` and ``(3, M, S, T)``: the first axis is
    ``(MS_s, MS_t, MS_e)``; ``by_system[:, m, i]`` leaves out system ``i``,
    ``by_topic[:, m, j]`` topic ``j``, ``by_cell[:, m, i, j]`` both.

    Examples
    --------
    >>> x = np.random.default_rng(0).random((1, 4, 5))
    >>> full, bs, bt, bc = leave_one_out_mean_squares(x)
    >>> sub = np.delete(np.delete(x, 1, axis=1), 2, axis=2)
    >>> bool(np.allclose(bc[:, 0, 1, 2], leave_one_out_mean_squares(sub)[0][:, 0]))
    True
    """
    M, S, T = x.shape
    x2 = x * x
    rs, cs = x.sum(axis=2), x.sum(axis=1)  # (M, S), (M, T)
    g, q = rs.sum(axis=1), x2.sum(axis=(1, 2))
    r2, c2 = (rs * rs).sum(axis=1), (cs * cs).sum(axis=1)
    qi, qj = x2.sum(axis=2), x2.sum(axis=1)
    rx = np.einsum("ms,mst->mt", rs, x)  # sum_i R_i x_ij
    cx = np.einsum("mt,mst->ms", cs, x)  # sum_j C_j x_ij
    full = _mean_squares(q, g, r2, c2, S, T)
    e1 = (lambda a: a[:, None])
    by_system = _mean_squares(e1(q) - qi, e1(g) - rs, e1(r2) - rs * rs,
                              e1(c2) - 2.0 * cx + qi, S - 1, T)
    by_topic = _mean_squares(e1(q) - qj, e1(g) - cs, e1(r2) - 2.0 * rx + qj,
                             e1(c2) - cs * cs, S, T - 1)
    e2 = (lambda a: a[:, None, None])
    by_cell = _mean_squares(
        e2(q) - qi[:, :, None] - qj[:, None, :] + x2,
        e2(g) - rs[:, :, None] - cs[:, None, :] + x,
        (e1(r2) - 2.0 * rx + qj)[:, None, :] - (rs[:, :, None] - x) ** 2,
        (e1(c2) - 2.0 * cx + qi)[:, :, None] - (cs[:, None, :] - x) ** 2,
        S - 1, T - 1,
    )
    return full, by_system, by_topic, by_cell


def phi_gradient(ms: np.ndarray, n_systems: int, n_topics: int, n) -> tuple[np.ndarray, np.ndarray]:
    r"""Phi at ``n`` topics and its gradient in the mean squares, per measure.

    ``ms`` is ``(3, M)`` (or ``(3, ...)``: any trailing shape). With :math:`\sigma^2_s = (MS_s - MS_e)/n_t`,
    :math:`\sigma^2_t = (MS_t - MS_e)/n_s`, :math:`\sigma^2_e = MS_e` (each
    clipped at 0) and :math:`N = (\sigma^2_t + \sigma^2_e)/n`,
    :math:`\Phi = \sigma^2_s / (\sigma^2_s + N)`,
    :math:`\partial\Phi/\partial\sigma^2_s = N/(\sigma^2_s+N)^2`,
    :math:`\partial\Phi/\partial N = -\sigma^2_s/(\sigma^2_s+N)^2`. Returns
    ``(phi (M,), grad (3, M))``; a measure with no variance at all has Phi 0 and
    gradient 0.
    """
    ms_s, ms_t, ms_e = ms
    vs = np.maximum((ms_s - ms_e) / n_topics, 0.0)
    vt = np.maximum((ms_t - ms_e) / n_systems, 0.0)
    ve = np.maximum(ms_e, 0.0)
    noise = (vt + ve) / n
    den = vs + noise
    ok = den > 0
    safe = np.where(ok, den, 1.0)
    phi = np.where(ok, vs / safe, 0.0)
    d_vs = np.where(ok, noise / safe ** 2, 0.0)
    d_noise = np.where(ok, -vs / safe ** 2, 0.0)
    grad = np.stack([
        d_vs / n_topics,
        d_noise / (n_systems * n),
        -d_vs / n_topics + d_noise * (1.0 - 1.0 / n_systems) / n,
    ])
    return phi, grad


def _centred(p: np.ndarray, axes) -> np.ndarray:
    return p - p.mean(axis=axes, keepdims=True)


@dataclass(frozen=True, eq=False)
class TwoFacetVariance:
    r"""The jackknife covariance of K statistics of a crossed design, in its three parts.

    ``system``, ``topic`` and ``interaction`` are the K x K matrices
    :math:`C_s, C_t, C_{st}` of the module docstring (their diagonals are
    :math:`V_s, V_t, V_{st}`); ``by_system`` is the centred system
    pseudo-values (K, S), from which the influence of one system is read;
    ``kurt_system``, ``kurt_topic`` (K,) the facets' excess kurtosis the degrees of
    freedom read (:func:`facet_df`).
    """

    system: np.ndarray
    topic: np.ndarray
    interaction: np.ndarray
    by_system: np.ndarray
    n_systems: int
    n_topics: int
    kurt_system: np.ndarray | float = 0.0
    kurt_topic: np.ndarray | float = 0.0

    def parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The clipped parts: ``(V_s - V_st)+``, ``(V_t - V_st)+`` and ``V_st`` (each (K,))."""
        v_s, v_t, v_st = (np.diag(c).copy() for c in (self.system, self.topic, self.interaction))
        return np.maximum(v_s - v_st, 0.0), np.maximum(v_t - v_st, 0.0), v_st

    def variance(self) -> np.ndarray:
        """:math:`V = V_{st} + (V_s - V_{st})^+ + (V_t - V_{st})^+`."""
        return sum(self.parts())

    def df(self) -> np.ndarray:
        r"""Degrees of freedom of :meth:`variance`: Satterthwaite's, the facets' deflated.

        :func:`facet_df` of the three diagonals: :math:`\nu = V^2 / \bigl(u_s^2 / \nu_s +
        u_t^2 / \nu_t + p_{st}^2 / \nu_{st}\bigr)`, :math:`u_f = p_f + c \min(V_f, V_{st})`
        over the clipped parts :math:`p` of :meth:`parts`, with
        :math:`\nu_s = (S-1)/k_s`, :math:`\nu_t = (T-1)/k_t`,
        :math:`k_f = \min(a_f + b_f \max(\kappa_f, 0), \max(a_f, (n_f - 1)/3))`
        (:data:`FACET_DF_DEFLATION`, :data:`FACET_DF_KURTOSIS`, :data:`FACET_DF_FLOOR`) and
        :math:`\nu_{st} = (S-1)(T-1)`; ``inf`` where the variance is 0 (module docstring).
        """
        v_s, v_t, v_st = (np.diag(c).copy() for c in (self.system, self.topic, self.interaction))
        return facet_df(v_s, v_t, v_st, self.n_systems, self.n_topics, self.kurt_system,
                        self.kurt_topic)

    def correlation(self) -> np.ndarray:
        """Correlation of the K statistics, from :math:`C_s + C_t - C_{st}` made positive
        semi-definite (the identity where a statistic has no variance)."""
        cov = self.system + self.topic - self.interaction
        w, v = np.linalg.eigh((cov + cov.T) / 2.0)
        cov = (v * np.clip(w, 0.0, None)) @ v.T
        sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        live = sd > 0
        out = np.eye(len(sd))
        out[np.ix_(live, live)] = cov[np.ix_(live, live)] / np.outer(sd[live], sd[live])
        np.fill_diagonal(out, 1.0)
        return np.clip(out, -1.0, 1.0)

    def system_influence(self) -> np.ndarray:
        """The largest share of :math:`V_s` one system's pseudo-value carries (``nan``: none)."""
        a2 = self.by_system ** 2
        tot = a2.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(tot > 0, a2.max(axis=1, initial=0.0) / np.where(tot > 0, tot, 1.0),
                            np.nan)


def two_facet_variance(full, by_system, by_topic, by_cell,
                       by_system_exact=None, kurtosis=None) -> TwoFacetVariance:
    r"""Jackknife covariance of K statistics from their leave-one-out values (module docstring).

    ``full`` (K,), ``by_system`` (K, S), ``by_topic`` (K, T), ``by_cell`` (K, S, T): the
    statistics on the whole matrix and with one system, one topic, one of each left
    out. ``by_system_exact`` (K, S), if given, replaces ``by_system`` in the system
    part :math:`C_s` and the influence of one system (the interaction is read from
    ``by_system``): the heavy-tailed contrasts' exact values. ``kurtosis``, if given, is
    ``(kappa_s, kappa_t)`` (each (K,)), the facets' excess kurtosis the degrees of freedom
    read (:func:`facet_df`); without it, 0.

    Examples
    --------
    The grand mean's variance, :math:`(MS_s + MS_t - MS_e)/(S T)`, unbiased in the
    random two-way model:

    >>> x = np.random.default_rng(1).normal(size=(5, 4))
    >>> S, T = x.shape
    >>> drop = lambda a, i, ax: np.delete(a, i, axis=ax)
    >>> full = np.array([x.mean()])
    >>> bs = np.array([[drop(x, i, 0).mean() for i in range(S)]])
    >>> bt = np.array([[drop(x, j, 1).mean() for j in range(T)]])
    >>> bc = np.array([[[drop(drop(x, i, 0), j, 1).mean() for j in range(T)] for i in range(S)]])
    >>> ms = leave_one_out_mean_squares(x[None])[0][:, 0]
    >>> v = two_facet_variance(full, bs, bt, bc)
    >>> bool(np.isclose(np.trace(v.system + v.topic - v.interaction), (ms[0] + ms[1] - ms[2]) / (S * T)))
    True
    """
    p0 = np.asarray(full, dtype=float)
    ps, pt, pc = (np.asarray(a, dtype=float) for a in (by_system, by_topic, by_cell))
    K, S = ps.shape
    T = pt.shape[1]
    b = _centred(pt, -1)
    psi = p0[:, None, None] - ps[:, :, None] - pt[:, None, :] + pc
    psi = _centred(psi, (-2, -1)).reshape(K, -1)
    a = _centred(ps if by_system_exact is None else np.asarray(by_system_exact, dtype=float), -1)
    k_s, k_t = (np.zeros(K), np.zeros(K)) if kurtosis is None else kurtosis
    return TwoFacetVariance(
        system=(S - 1) / S * (a @ a.T),
        topic=(T - 1) / T * (b @ b.T),
        interaction=(S - 1) * (T - 1) / (S * T) * (psi @ psi.T),
        by_system=a, n_systems=S, n_topics=T,
        kurt_system=np.asarray(k_s, dtype=float), kurt_topic=np.asarray(k_t, dtype=float),
    )


@dataclass(frozen=True, eq=False)
class ContrastVariance:
    r"""Contrasts of Phi with their two-facet jackknife variance (module docstring).

    Arrays follow the contrasts (rows of the weights).

    Attributes
    ----------
    estimate : ndarray
        :math:`\sum_m w_m \hat\Phi_m(n)`, each Phi the G-study's point estimate.
    variance : ndarray
        :math:`V = V_{st} + (V_s - V_{st})^+ + (V_t - V_{st})^+`.
    df : ndarray
        Degrees of freedom of ``variance``: Satterthwaite's, the facets' deflated
        (``inf`` where it is 0).
    heavy_tailed : ndarray of bool
        Whether the contrast's system pseudo-values are exact (a measure in it has
        system means of excess kurtosis :data:`HEAVY_TAILS` or more).
    correlation : ndarray
        (K, K) correlation of the estimates, computed when first read (an eigendecomposition
        of K x K: seconds for a thousand contrasts, which the verdict's intervals never read).
    system_influence : ndarray
        The largest share of :math:`V_s` one system carries: near 1, one system
        decides the contrast (``nan`` where :math:`V_s = 0`).
    parts : TwoFacetVariance
    """

    estimate: np.ndarray
    variance: np.ndarray
    df: np.ndarray
    system_influence: np.ndarray
    parts: TwoFacetVariance
    heavy_tailed: np.ndarray

    @property
    def sd(self) -> np.ndarray:
        return np.sqrt(self.variance)

    @cached_property
    def correlation(self) -> np.ndarray:
        return self.parts.correlation()


def phi_contrasts(cube, weights, n=None) -> ContrastVariance:
    r"""Contrasts :math:`\sum_m w_m\Phi_m(n)` of ``cube[m, s, t]`` with their jackknife variance.

    Parameters
    ----------
    cube : array (M, S, T)
        Finite scores; at least 3 systems and 3 topics.
    weights : array (K, M)
        One contrast per row, e.g. ``e_c - e_b`` for candidate minus baseline.
    n : float, optional
        Topics Phi is taken at (default ``T``, the observed number).

    Returns
    -------
    ContrastVariance

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> eff = rng.normal(0, 1, (30, 1)) + rng.normal(0, 1, (1, 40))
    >>> x = np.stack([eff + rng.normal(0, 1, (30, 40)), eff + rng.normal(0, 0.5, (30, 40))])
    >>> cv = phi_contrasts(x, np.array([[-1.0, 1.0]]))
    >>> bool(cv.estimate[0] > 2 * cv.sd[0] > 0)
    True
    """
    x = np.asarray(cube, dtype=float)
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    if x.ndim != 3:
        raise IRStabError(f"cube: expected measures x systems x topics, got shape {x.shape}")
    M, S, T = x.shape
    if S < 3 or T < 3:
        raise IRStabError(
            f"the jackknife needs at least 3 systems and 3 topics, got {S} systems x {T} topics"
        )
    if w.ndim != 2 or w.shape[1] != M:
        raise IRStabError(f"weights: expected one column per measure ({M}), got shape {w.shape}")
    K = w.shape[0]
    check_allocation(8.0 * (5 * M + 3 * K) * S * T,
                     f"the jackknife of {M} measures x {S} systems x {T} topics")
    y, _ = unit_spread(x)  # scale-free; constant matrices are 0 (no variance)
    # mean squares do not see a constant; centring keeps the closed-form sums of squares from
    # cancelling digits when the scores sit far from 0 (scores + 1e6)
    y = y - y.mean(axis=(1, 2), keepdims=True)
    full, by_s, by_t, by_c = leave_one_out_mean_squares(y)
    n = T if n is None else n
    _, grad = phi_gradient(full, S, T, n)
    # every leave-one-out Phi, linearised at the estimate: g_m . MS_(.)
    lin = (lambda ms: np.einsum("fm,fm...->m...", grad, ms))
    by_s_lin = w @ lin(by_s)
    heavy = (np.abs(w) > 0) @ (system_kurtosis(y) >= HEAVY_TAILS) > 0
    # the exact leave-one-out contrasts: their shape sets the facets' degrees of freedom
    exact_s = w @ phi_gradient(by_s, S - 1, T, n)[0]
    exact_t = w @ phi_gradient(by_t, S, T - 1, n)[0]
    # exact leave-one-system-out contrasts in V_s where the tails are heavy
    by_s_used = np.where(heavy[:, None], exact_s, by_s_lin) if heavy.any() else by_s_lin
    parts = two_facet_variance(w @ lin(full), by_s_lin, w @ lin(by_t),
                               np.einsum("km,mst->kst", w, lin(by_c)), by_s_used,
                               kurtosis=(contrast_kurtosis(exact_s), contrast_kurtosis(exact_t)))
    # the estimate is the G-study's (its rule for negligible components), not the linearisation's
    estimate = w @ coef_from_psi(psi_of(scaled_components(y)[0], Coefficient.phi), n)
    return ContrastVariance(
        estimate=estimate, variance=parts.variance(), df=parts.df(),
        system_influence=parts.system_influence(), parts=parts,
        heavy_tailed=heavy,
    )


def system_kurtosis(x: np.ndarray) -> np.ndarray:
    r"""Sample excess kurtosis of each measure's system means, ``x (M, S, T)`` -> ``(M,)``.

    :math:`m_4 / m_2^2 - 3` with the moments about the mean, divisor :math:`S`
    (``scipy.stats.kurtosis``'s default); 0 where the system means are all equal.

    Examples
    --------
    >>> x = np.zeros((1, 5, 2)); x[0, 0] = 1.0
    >>> round(float(system_kurtosis(x)[0]), 12)  # one apart: m2 = 0.16, m4 = 0.0832
    0.25
    """
    return contrast_kurtosis(x.mean(axis=2))


def jackknife_differences(cube: np.ndarray, baseline: int, candidates: np.ndarray, *,
                          confidence: float, rng) -> PhiDifferences:
    """:class:`~irstab.verdict.draws.PhiDifferences` of ``cube (M, S, T)`` by the jackknife.

    ``candidates`` is the boolean mask of the simultaneous family (module docstring).
    """
    # Student's t quantiles from scipy.special: stats.t.ppf(q, df) is stdtrit(df, q) and
    # stats.t.isf(q, df) is -stdtrit(df, q), to the bit (NaN for df <= 0 in both), without
    # the distribution wrapper's argument checks (a calibration calls this thousands of times)
    from scipy.special import stdtrit

    M, S, T = cube.shape
    if S < 3 or T < 3:
        raise IRStabError(
            f"the verdict's interval needs at least 3 systems and 3 topics, got {S} systems x "
            f"{T} topics"
        )
    others = np.array([k for k in range(M) if k != baseline], dtype=int)
    weights = np.zeros((len(others), M))
    weights[np.arange(len(others)), others] = 1.0
    weights[:, baseline] = -1.0
    cv = phi_contrasts(cube, weights)
    phi = np.zeros(M)
    diff, sd, df = np.zeros(M), np.zeros(M), np.full(M, np.inf)
    influence = np.full(M, np.nan)
    diff[others], sd[others], df[others] = cv.estimate, cv.sd, cv.df
    influence[others] = cv.system_influence
    twins = affine_twins(cube, baseline)  # Phi cannot tell them apart: exactly no difference
    diff[twins], sd[twins], df[twins], influence[twins] = 0.0, 0.0, np.inf, np.nan
    diff[np.abs(diff) <= PHI_ATOL] = 0.0
    live = sd > PHI_ATOL
    gamma = 1.0 - confidence
    q = np.zeros(M)
    with np.errstate(invalid="ignore"):
        q[live] = stdtrit(df[live], 1.0 - gamma / 2.0)  # marginal: context measures
    fam = np.asarray(candidates, dtype=bool) & live
    fam[baseline] = False
    level = gamma / (2.0 * max(int(fam.sum()), 1))  # Bonferroni over the candidates
    if fam.any():
        q[fam] = -stdtrit(df[fam], level)
    lo = np.maximum(diff - q * sd, -1.0)  # a difference of two Phi lies in [-1, 1]
    hi = np.minimum(diff + q * sd, 1.0)
    # Phi of every measure (the G-study's): the baseline's plus each difference
    from ..stability.dstudy import crossed_phi

    phi = crossed_phi(cube, T)
    phi[twins] = phi[baseline]
    return PhiDifferences(phi=phi, diff=diff, lower=lo, upper=hi, sd=sd, level=level,
                          topic_draws=None, df=df, system_influence=influence)
