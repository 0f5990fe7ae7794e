"""How far to trust each answer on *this* collection (``irstab calibrate``, the trust card).

One pipeline with :mod:`irstab.simulate`: the simulator of the user's collection is fitted
there, and the rates are measured on it here.

1. :func:`irstab.simulate.fit_collection` (bounded margins per system, a copula between them;
   Urbano & Nagler, SIGIR 2018) and :func:`irstab.simulate.fit_gtheory` (the G-study's
   components as exact truth) model the collection; :func:`irstab.simulate.fit_check` says
   whether held-out topics look like its draws.
2. :mod:`.paired_tests`: collections drawn from it with differences planted exactly; type I
   error, power and type III error of every paired test of :mod:`irstab.systems`.
3. :mod:`.checks`: the verdict's coverage, wrong changes and power in universes made of the
   collection's own scores (:mod:`irstab.verdict`), against a twin of the measure and for each
   candidate measure compared with it; whether the simulator fails its fit check; and the
   true Phi that the estimated topics needed reach.
4. :mod:`.card`: :func:`calibrate_collection` runs 1-3 (blocks on a Dask cluster if given) and
   returns :class:`~.result.TrustCalibration` (:mod:`.result`: the rates, their Monte-Carlo
   errors, the card's sentences and tables).

May import: :mod:`irstab.verdict`, :mod:`irstab.systems`, :mod:`irstab.simulate`,
:mod:`irstab.stability` and the floors below them; never :mod:`irstab.compare` or anything above.
"""

from .card import MIN_SYSTEMS, MIN_TOPICS, calibrate_collection
from .result import TrustCalibration

__all__ = ["calibrate_collection", "TrustCalibration", "MIN_SYSTEMS", "MIN_TOPICS"]
