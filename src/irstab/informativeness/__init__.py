"""Informativeness of measures: the maximum entropy method (Aslam, Yilmaz & Pavlu, SIGIR 2005).

How well does a measure's value predict the list it came from? For each
(system, topic) cell the maximum-entropy product distribution over grades at
ranks that reproduces the measure's value and the list's grade counts is
solved, and the precision-recall curve it implies is compared with the
list's own (Robertson, Kanoulas & Yilmaz, SIGIR 2010, §4.1).

Rooms, bottom up:

:mod:`.product_expectation`  ``E_P[M]`` and its gradient under a product distribution
:mod:`.maxent_outcomes`      grades the measure cannot tell apart, merged and split back
:mod:`.maxent_family`        allowed outcomes, reference grade, the softmax of a cell
:mod:`.maxent_newton`        full Newton for the AP family (tridiagonal resolvent)
:mod:`.maxent_scipy`         the per-cell :func:`scipy.optimize.root` retry
:mod:`.maxent`               the vectorised solver, in blocks on worker processes
:mod:`.analysis`             :func:`informativeness`: the study over a Collection

May import: :mod:`irstab.evaluation`, :mod:`irstab.metrics`, :mod:`irstab.errors` and the
small helpers. Not :mod:`irstab.stability` (a sibling) nor anything above;
:mod:`irstab.compare` offers :func:`informativeness` next to the other comparisons.
"""

from .analysis import CellCurves, Informativeness, cell_curves, cell_inputs, informativeness

__all__ = ["informativeness", "Informativeness", "cell_curves", "CellCurves", "cell_inputs"]
