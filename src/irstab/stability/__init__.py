"""Stability of a measure: G-study, D-study, topics needed, F-based and bootstrap intervals."""

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
]
