"""Stability of a measure: G-study, D-study, topics needed, F-based and bootstrap intervals.

Rooms, bottom up (each imports only the ones below it in this list):

:mod:`.designs`         the designs (crossed s x t, crossed s x t x a, nested s x (a:t)),
                        their effects and variance-component estimators (EMS, Henderson 1),
                        score-matrix validation, the facet data
:mod:`.coefficients`    Erho2 and Phi from the signal-to-noise ratio, topics needed, options
:mod:`.dstudy`          D-study results (:class:`DStudy`, :class:`TopicsNeeded`)
:mod:`.bootstrap`, :mod:`.facet_bootstrap`
                        seeded, vectorised resampling of the two- and three-facet studies
:mod:`.objective`       Phi of a three-facet design as a function of the scores, with gradient
:mod:`.multivariate`    several measures on one crossed design: mean products, covariance
                        components, their Wishart draws and generalized pivots (the verdict's
                        interval, :mod:`irstab.compare.paired`)
:mod:`.gstudy`          the two-facet G-study (:func:`gstudy`, :class:`GStudy`)
:mod:`.facets`          the G-study with an assessor facet (:func:`facet_gstudy`)

May import: :mod:`irstab.errors` and the small helpers. It reads score matrices only:
nothing of the collection, the measures or anything above.
"""

from .designs import Design
from .facets import FacetGStudy, FacetIntervals, FacetNeeded, facet_gstudy
from .bootstrap import BootstrapIntervals, bootstrap_components, bootstrap_intervals
from .gstudy import (
    Coefficient,
    DStudy,
    GStudy,
    IntervalMethod,
    Resample,
    TopicsNeeded,
    drop_worst_systems,
    dstudy_of,
    gstudy,
)
from . import dstudy as _dstudy_module


class _CallableModule(type(_dstudy_module)):
    """``irstab.stability.dstudy`` stays the module of the D-study's results (importable as
    ever) and, called, runs :func:`dstudy_of`: ``irstab.stability.dstudy(scores, [10, 50])``."""

    def __call__(self, scores, n_topics=None, **options):
        return dstudy_of(scores, n_topics, **options)


_dstudy_module.__class__ = _CallableModule

__all__ = [
    "gstudy",
    "dstudy_of",
    "GStudy",
    "DStudy",
    "TopicsNeeded",
    "Coefficient",
    "IntervalMethod",
    "Resample",
    "drop_worst_systems",
    "bootstrap_components",
    "bootstrap_intervals",
    "BootstrapIntervals",
    "Design",
    "facet_gstudy",
    "FacetGStudy",
    "FacetNeeded",
    "FacetIntervals",
]
