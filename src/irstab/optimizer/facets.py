"""The gain and discount of nDCG that maximise Phi of a design with an assessor facet."""

from __future__ import annotations

from ..collection.assessors import AssessorCollection
from ..errors import IRStabError
from ..stability.designs import Design
from ..stability.objective import FacetObjective
from .driver import optimize
from .result import OptimizationResult

__all__ = ["optimize_assessors"]


def optimize_assessors(
    assessors: AssessorCollection,
    cutoff: int,
    *,
    design: Design | str = Design.nested,
    n_topics: float = 1.0,
    n_assessors: float = 1.0,
    objective: str = "phi",
    **kwargs,
) -> OptimizationResult:
    """:func:`~irstab.optimizer.optimize` with Phi of the s x t x a or s x (a:t) design.

    The nDCG whose system comparisons depend least on who judged: the
    coefficient of :class:`~irstab.stability.objective.FacetObjective` on the
    systems x (topic, assessor) nDCG@k matrix of ``assessors``, at D-study
    sizes ``n_topics`` x ``n_assessors`` (default 1 x 1: the share of system
    variance in one score). Same backends, starts, result object and measure
    string as :func:`~irstab.optimizer.optimize`; ``kwargs`` go there
    (``vary``, ``gain``, ``discount``, ``monotone``, ``backend``, ``starts`` ...).
    ``value`` (and each start's) is the three-facet coefficient; the per-measure
    figures of :meth:`~irstab.optimizer.OptimizationResult.to_frame` (``phi1``,
    ``phi``, ...) are those of the two-facet G-study that reads every (topic,
    assessor) cell as a topic, for comparison with :func:`optimize`.

    Examples
    --------
    >>> from irstab.simulate import simulate_collection
    >>> from irstab.collection.assessors import assessor_collection
    >>> import irstab.io as io, numpy as np
    >>> sim = simulate_collection(n_systems=6, n_topics=6, depth=20, seed=2)
    >>> f = sim.qrels.frame
    >>> rng = np.random.default_rng(0)
    >>> noisy = f.assign(grade=np.clip(f["grade"] + rng.integers(-1, 2, len(f)), 0, 3))
    >>> ac = assessor_collection(io.Qrels("nist.txt", f), sim.runs, {"b": io.Qrels("b", noisy)})
    >>> res = optimize_assessors(ac, 5, vary="gain", starts=1)
    >>> str(res).startswith("nDCG(gain=(0,") and res.value > 0
    True
    """
    if "topics" in kwargs:
        raise IRStabError("topics: the assessor design uses every (topic, assessor) cell")
    obj = FacetObjective.from_cells(
        assessors.cells, design, coefficient=objective, n_topics=n_topics,
        n_assessors=n_assessors,
    )
    return optimize(assessors.collection, cutoff, objective=objective, design=obj, **kwargs)
