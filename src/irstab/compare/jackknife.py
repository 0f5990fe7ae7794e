r"""The verdict's interval that holds on real collections: the two-facet jackknife, simultaneous.

Each measure's difference :math:`\Delta_m = \Phi_m(n) - \Phi_{\mathrm{base}}(n)` is a
contrast of Phi values; :func:`irstab.stability.jackknife.phi_contrasts` gives its
estimate, its variance :math:`V_m` (delta-method jackknife over systems and topics,
the interaction counted once) with Satterthwaite's degrees of freedom
:math:`\nu_m`, and the correlation of the contrasts. The interval is

.. math::

    \hat\Delta_m \pm q_m \sqrt{V_m},

with, for the candidates (the measures that may be recommended), one two-sided
normal level :math:`p` chosen so that all of them hold together: :math:`c` is the
``confidence`` quantile of :math:`\max_k |Z_k|`, :math:`Z \sim N(0, R)` with
:math:`R` the candidates' correlation (the max-t method of Hothorn, Bretz &
Westfall 2008; :func:`max_abs_quantile`, seeded draws), :math:`p = 2(1 -
\Phi_N(c))`, and :math:`q_m = t_{1-p/2,\ \nu_m}` (each candidate's own Student's t
at that level). With one candidate, :math:`q = t_{(1+c)/2,\ \nu}`. The other
measures (context) get marginal intervals, :math:`q_m = t_{(1+c)/2,\ \nu_m}`.

Why: in universes made of real score matrices (systems and topics resampled
from TREC DL 2019 and TREC-3, the truth from the population) the Wishart pivots
of the multivariate G-study covered 0.60-0.93, because real system effects are
heavy-tailed and residual variance differs from run to run, which normal theory
cannot see; this interval reads both from the data (``docs/calibration.md``
has every setting and the methods it was chosen against).

Conventions: the interval is cut to [-1, 1], where a difference of two Phi
lies; an affine twin of the baseline has difference 0 and interval ``[0, 0]``; a difference whose variance is 0 (two constant matrices, say) gets
``[\hat\Delta, \hat\Delta]`` and takes no part in the family; differences within
:data:`~irstab._numeric.PHI_ATOL` of 0 are 0.

References
----------
Hothorn, T., Bretz, F., Westfall, P. (2008). Simultaneous inference in
general parametric models. Biometrical Journal 50(3), 346-363.
Arvesen, J. N., Schmitz, T. H. (1970). Robust procedures for variance
component problems using the jackknife. Biometrics 26(4), 677-686.
"""

from __future__ import annotations

import numpy as np

from .._numeric import PHI_ATOL, affine_twins
from ..errors import IRStabError
from .draws import PhiDifferences

__all__ = ["jackknife_differences", "max_abs_quantile"]

#: Draws of the normal vector whose largest |Z| sets the family's level.
MAX_T_DRAWS = 50_000


def max_abs_quantile(correlation: np.ndarray, confidence: float, rng) -> float:
    """The ``confidence`` quantile of :math:`\\max_k |Z_k|`, :math:`Z \\sim N(0, R)` (seeded draws).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(max_abs_quantile(np.eye(1), 0.95, rng), 2)  # 1.96: one normal
    1.96
    >>> round(max_abs_quantile(np.ones((4, 4)), 0.95, rng), 2)  # four copies of one normal
    1.96
    """
    R = np.asarray(correlation, dtype=float)
    w, v = np.linalg.eigh((R + R.T) / 2.0)
    factor = v * np.sqrt(np.clip(w, 0.0, None))
    z = rng.standard_normal((MAX_T_DRAWS, R.shape[0])) @ factor.T
    return float(np.quantile(np.abs(z).max(axis=1), confidence))


def jackknife_differences(cube: np.ndarray, baseline: int, candidates: np.ndarray, *,
                          confidence: float, rng) -> PhiDifferences:
    """:class:`~irstab.compare.draws.PhiDifferences` of ``cube (M, S, T)`` by the jackknife.

    ``candidates`` is the boolean mask of the simultaneous family (module docstring).
    """
    from scipy import stats

    from ..stability.jackknife import phi_contrasts

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
    diff[twins], sd[twins] = 0.0, 0.0
    diff[np.abs(diff) <= PHI_ATOL] = 0.0
    live = sd > PHI_ATOL
    gamma = 1.0 - confidence
    q = np.zeros(M)
    with np.errstate(invalid="ignore"):
        q[live] = stats.t.ppf(1.0 - gamma / 2.0, df[live])  # marginal: context measures
    fam = np.asarray(candidates, dtype=bool) & live
    fam[baseline] = False
    level = gamma / 2.0
    if fam.sum() > 1:
        pos = {k: i for i, k in enumerate(others)}
        idx = [pos[k] for k in np.flatnonzero(fam)]
        c = max_abs_quantile(cv.correlation[np.ix_(idx, idx)], confidence, rng)
        level = float(stats.norm.sf(c))
        q[fam] = stats.t.isf(level, df[fam])
    lo = np.maximum(diff - q * sd, -1.0)  # a difference of two Phi lies in [-1, 1]
    hi = np.minimum(diff + q * sd, 1.0)
    # Phi of every measure (the G-study's): the baseline's plus each difference
    from ..stability.dstudy import crossed_phi

    phi = crossed_phi(cube, T)
    phi[twins] = phi[baseline]
    return PhiDifferences(phi=phi, diff=diff, lower=lo, upper=hi, sd=sd, level=level,
                          topic_draws=None, df=df, system_influence=influence)
