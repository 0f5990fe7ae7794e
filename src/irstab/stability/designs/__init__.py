r"""Designs of a G-study and their variance-component estimators.

Three random-effects designs, systems ``s`` always the object of measurement:

=========  ===========================  =========================================
design     effects (Brennan notation)   data
=========  ===========================  =========================================
crossed    s, t, st                     one score per (system, topic)
crossed    s, t, a, st, sa, ta, sta     every assessor judged every topic
nested     s, t, a:t, st, sa:t          each topic has its own assessors
=========  ===========================  =========================================

The last effect is the residual (confounded with error, one score per cell).
An effect is the set of facets it is indexed by; ``a:t`` and ``ta`` index the
same cells, the designs differ in which effects the model contains.

Two estimators:

**Expected mean squares** (balanced data, :func:`ems_components`): the ANOVA
sums of squares of a dense array ``x[..., s, t]`` or ``x[..., s, t, a]``
(for the nested design, ``a`` indexes the assessors *within* a topic) and the
EMS equations of Brennan (2001, §3.4), e.g. for s x (a:t)

.. math::

    \sigma^2_{sa:t} = MS_{sa:t},\;
    \sigma^2_{st} = \frac{MS_{st} - MS_{sa:t}}{n_a},\;
    \sigma^2_{a:t} = \frac{MS_{a:t} - MS_{sa:t}}{n_s},\;
    \sigma^2_{t} = \frac{MS_t - MS_{a:t} - MS_{st} + MS_{sa:t}}{n_s n_a},\;
    \sigma^2_{s} = \frac{MS_s - MS_{st}}{n_t n_a}.

The kernels take any leading batch axes (bootstrap, optimizer).

**Henderson's method 1** (any data, :func:`henderson1_components`), the
"analogous ANOVA" that urGENOVA computes for unbalanced designs (Brennan 2001,
§7.1; Searle, Casella & McCulloch 1992, §5.3): for every effect :math:`e` the
uncorrected sum of squares :math:`T_e = \sum_{l} y_{l\cdot}^2 / n_l` over its
levels, whose expectation under the random model is

.. math::

    E[T_e] = N\mu^2 + \sum_c k_{ec}\,\sigma^2_c, \qquad
    k_{ec} = \sum_l \frac{\sum_m n_{lm}^2}{n_l},

with :math:`n_{lm}` the number of scores in level :math:`l` of :math:`e`
and level :math:`m` of :math:`c` (and :math:`T_\emptyset = y_{\cdot\cdot}^2/N`).
Equating each :math:`T_e` to its expectation gives a square linear system in
:math:`\mu^2` and the components. It is unbiased, needs no iteration and no
normality, and on balanced data it *is* the EMS solution (tested). REML
(e.g. statsmodels' ``MixedLM``) agrees with both on balanced data whenever no
ANOVA estimate is negative (tested); on unbalanced data the two differ: REML weights
cells by their information and cannot go negative, Henderson's method 1
weights every score equally and can. Method 1 was chosen because it is
exact, closed-form, fast on large score tables and what urGENOVA reports.

References
----------
R. L. Brennan (2001). *Generalizability Theory*. Springer, ch. 3, 4, 7.
C. R. Henderson (1953). Estimation of variance and covariance components.
*Biometrics* 9(2).
S. R. Searle, G. Casella, C. E. McCulloch (1992). *Variance Components*. Wiley.

Rooms: :mod:`.effects` (the effects of each design, D-study divisors, which error
each belongs to), :mod:`.crossed` (the two-facet s x t kernels and score-matrix
validation), :mod:`.estimators` (EMS and Henderson 1 for three facets),
:mod:`.data` (the long score table of the three-facet study, encoded).
"""

from .crossed import crossed_components, drop_worst_systems, sums_of_squares, validate_scores
from .effects import Design, Effect, clean_components, coefficient_weights, divisors, effects_of
from .estimators import ems_anova, ems_components, henderson1_components

__all__ = [
    "Design",
    "Effect",
    "effects_of",
    "clean_components",
    "coefficient_weights",
    "divisors",
    "ems_anova",
    "ems_components",
    "henderson1_components",
    "sums_of_squares",
    "crossed_components",
    "validate_scores",
    "drop_worst_systems",
]
