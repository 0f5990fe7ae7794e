"""Stability of a measure: G-study, D-study, topics needed, F-based and bootstrap intervals.

Two facets (systems x topics) in :mod:`.gstudy`; with an assessor facet (s x t x a,
s x (a:t)) in :mod:`.facets`, on the estimators of :mod:`.designs`.
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

__all__ = [
    "gstudy",
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
