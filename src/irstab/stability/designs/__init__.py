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

**Expected mean squares** on balanced data and **Henderson's method 1** on any data
(:mod:`.estimators`, where the equations and the choice are given); on balanced data
the two agree.

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
