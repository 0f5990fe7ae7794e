"""Simulated collections: synthetic ones for demos and scale runs, and the user's own.

Two rooms:

* :mod:`.synthetic`: :func:`simulate_collection` draws a complete graded collection
  (qrels and TREC runs) from a small generative model, for demos, tests and scale
  runs; ``data/example/`` is one (:data:`EXAMPLE_PARAMS`).
* the simulator of a user's collection, fitted to a systems x topics score matrix of
  one measure (Urbano & Nagler, "Stochastic Simulation of Test Collections: Evaluation
  Scores", SIGIR 2018; Urbano, "Test collection reliability: a study of bias and
  robustness to statistical assumptions via stochastic simulation", Information
  Retrieval Journal 19, 2016):

  - :func:`fit_collection` -> :class:`CollectionModel`: bounded margins per system
    chosen by BIC (:mod:`.families`, tabulated in :mod:`.margins`), a Gaussian or vine
    copula between systems (:mod:`.copula`), effects planted exactly
    (:meth:`CollectionModel.plant`), many collections drawn at once
    (:meth:`CollectionModel.draw`, shape ``(R, S, T)``);
  - :func:`fit_gtheory` -> :class:`GTheoryModel`: the systems' effects fixed, topic
    effects and residuals resampled with their kernel distributions and dependence,
    and the variance components of the universe it draws from known exactly
    (:class:`TrueComponents`: Phi and topics needed at any size);
  - :func:`fit_check`: fit on a random half of the topics, simulate, compare with the
    other half (:class:`FitCheck`).

  This is the first half of one pipeline: :mod:`irstab.trust` measures on these models how
  often each answer irstab gives (the paired tests, the verdict, topics needed) is wrong,
  and :func:`irstab.trust.calibrate_collection` (``irstab calibrate``) runs both halves.

May import the floors below it (metrics, io, the numeric helpers, errors), never the
collection builder, the G-study or anything above; ``pyvinecopulib`` is imported only
when a vine copula is fitted.
"""

from .collection_model import CollectionModel, fit_collection
from .copula import CopulaKind, GaussianCopula, VineCopula, kendall_tau
from .families import Family, Lattice, detect_lattice, fit_margin
from .fitcheck import FitCheck, fit_check
from .gtheory import GTheoryModel, TrueComponents, fit_gtheory
from .margins import Margin
from .synthetic import (
    DL_GRADE_PROBS,
    EXAMPLE_PARAMS,
    SimulatedCollection,
    simulate_collection,
    write_simulated,
)

__all__ = [
    "SimulatedCollection", "simulate_collection", "write_simulated", "DL_GRADE_PROBS",
    "EXAMPLE_PARAMS",
    "CollectionModel", "fit_collection", "Margin", "fit_margin", "Family", "Lattice",
    "detect_lattice", "CopulaKind", "GaussianCopula", "VineCopula", "kendall_tau",
    "GTheoryModel", "TrueComponents", "fit_gtheory", "FitCheck", "fit_check",
]
