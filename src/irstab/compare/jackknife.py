r"""The verdict's interval that holds on real collections: the two-facet jackknife, simultaneous.

Each measure's difference :math:`\Delta_m = \Phi_m(n) - \Phi_{\mathrm{base}}(n)` is a
contrast of Phi values; :func:`irstab.stability.jackknife.phi_contrasts` gives its
estimate, its variance :math:`V_m` (delta-method jackknife over systems and topics,
the interaction counted once; systems left out exactly where the system means are
heavy-tailed) with :math:`\nu_m = \min(S, T) - 1` degrees of freedom, and the
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
lies; an affine twin of the baseline has difference 0 and interval ``[0, 0]``; a difference whose variance is 0 (two constant matrices, say) gets
``[\hat\Delta, \hat\Delta]`` and takes no part in the family; differences within
:data:`~irstab._numeric.PHI_ATOL` of 0 are 0.

References
----------
Hothorn, T., Bretz, F., Westfall, P. (2008). Simultaneous inference in
general parametric models. Biometrical Journal 50(3), 346-363 (max-t).
Arvesen, J. N., Schmitz, T. H. (1970). Robust procedures for variance
component problems using the jackknife. Biometrics 26(4), 677-686.
"""

from __future__ import annotations

import numpy as np

from .._numeric import PHI_ATOL, affine_twins
from ..errors import IRStabError
from .draws import PhiDifferences

__all__ = ["jackknife_differences"]

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
    diff[twins], sd[twins], df[twins], influence[twins] = 0.0, 0.0, np.inf, np.nan
    diff[np.abs(diff) <= PHI_ATOL] = 0.0
    live = sd > PHI_ATOL
    gamma = 1.0 - confidence
    q = np.zeros(M)
    with np.errstate(invalid="ignore"):
        q[live] = stats.t.ppf(1.0 - gamma / 2.0, df[live])  # marginal: context measures
    fam = np.asarray(candidates, dtype=bool) & live
    fam[baseline] = False
    level = gamma / (2.0 * max(int(fam.sum()), 1))  # Bonferroni over the candidates
    if fam.any():
        q[fam] = stats.t.isf(level, df[fam])
    lo = np.maximum(diff - q * sd, -1.0)  # a difference of two Phi lies in [-1, 1]
    hi = np.minimum(diff + q * sd, 1.0)
    # Phi of every measure (the G-study's): the baseline's plus each difference
    from ..stability.dstudy import crossed_phi

    phi = crossed_phi(cube, T)
    phi[twins] = phi[baseline]
    return PhiDifferences(phi=phi, diff=diff, lower=lo, upper=hi, sd=sd, level=level,
                          topic_draws=None, df=df, system_influence=influence)
