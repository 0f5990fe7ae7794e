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
                        interval, :mod:`irstab.verdict.paired`)
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
    gstudy,
)
from . import dstudy as _dstudy_module


def dstudy_of(scores, n_topics=None, *, drop_worst: float = 0.0, name: str | None = None,
              systems: str = "auto", measure=None, **options) -> DStudy:
    """The D-study of ``scores`` (or of a :class:`GStudy`) at ``n_topics``, in one call.

    ``gstudy(scores, ...).dstudy(n_topics, **options)``: the scores and the first
    keywords as :func:`gstudy` reads them, ``options`` as :meth:`GStudy.dstudy`
    (``targets``, ``confidence``, ``interval``, ...). It is also what calling the
    module ``irstab.stability.dstudy`` does: ``irstab.stability.dstudy(x, [10, 50])``.

    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    >>> import irstab.stability
    >>> irstab.stability.dstudy(x, [3, 30]).n_topics
    (3, 30)
    """
    g = scores if isinstance(scores, GStudy) else gstudy(
        scores, drop_worst=drop_worst, name=name, systems=systems, measure=measure)
    return g.dstudy(n_topics, **options)


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
