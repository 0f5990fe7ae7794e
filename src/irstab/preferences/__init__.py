r"""Stable *and* valid: how well a measure agrees with users' side-by-side preferences.

A measure can be perfectly stable (Kanoulas & Aslam, CIKM 2009) and still disagree with users.
This room counts how often a measure's difference between two rankings agrees with the side
users preferred (Sanderson, Paramita, Clough & Kanoulas, SIGIR 2010), computes the bias scores of
Urbano & Marrero (ECIR 2015), fits the gain and discount that agree best, and traces the front
between stability (Phi) and agreement. What ``irstab preferences`` and the report's section
"Stable and valid" answer. Bottom up:

:mod:`.comparisons`     the data model (:class:`Comparisons`: graded sides;
                        :class:`ScoredComparisons`: a measure's value per side) and the
                        agreement rule, ties of the measure handled by ``ties``
                        (:data:`TIE_RULES`)
:mod:`.read`            preference files (CSV, TSV, JSON Lines; Urbano & Marrero's
                        ``crowd.csv``), a located error for every malformed row
:mod:`.agreement`       :func:`preference_agreement`: every measure's agreement with a
                        bootstrap interval over topics (and judges)
:mod:`.bias`            the bias scores b1, b2, b3 and their gain x discount ANOVA
:mod:`.simulated`       simulated users, for tests and demos (labelled as such everywhere)
:mod:`.fit`             :func:`fit_agreement`, :func:`cross_fit_agreement`: the monotone gain
                        and discount that agree best (a logistic surrogate, the exact rate
                        reported), judged on held-out topic folds
:mod:`.paired`          the cross-fitted optimum minus the best preset, with its interval
:mod:`.front`           :func:`agreement_front`: the Pareto front of Phi and agreement
:mod:`.front_crossfit`  :func:`cross_fit_front`: each fold's front scored on held-out topics

May import: :mod:`irstab.optimizer`, :mod:`irstab.design` and the floors below them;
:mod:`irstab.report` and :mod:`irstab.cli` may import it.
"""

from .agreement import PreferenceAgreement, preference_agreement, side_scores
from .bias import bias_anova, bias_scores
from .comparisons import TIE_RULES, Comparisons, ScoredComparisons, agreement_rate
from .fit import AgreementCrossFit, AgreementFit, cross_fit_agreement, fit_agreement
from .front import AgreementFront, agreement_front
from .front_crossfit import FrontCrossFit, cross_fit_front
from .paired import PairedDifference, against_preset
from .read import read_comparisons, read_preferences
from .simulated import simulated_comparisons

__all__ = [
    "Comparisons", "ScoredComparisons", "TIE_RULES", "agreement_rate",
    "read_preferences", "read_comparisons",
    "PreferenceAgreement", "preference_agreement", "side_scores", "bias_scores", "bias_anova",
    "AgreementFit", "AgreementCrossFit", "fit_agreement", "cross_fit_agreement",
    "PairedDifference", "against_preset",
    "AgreementFront", "agreement_front", "FrontCrossFit", "cross_fit_front",
    "simulated_comparisons",
]
