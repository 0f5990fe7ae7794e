"""irstab: which nDCG compares IR systems most stably, and how many topics it needs.

Evaluate runs exactly as trec_eval does, with any gain and discount:

>>> import irstab
>>> sim = irstab.simulate.simulate_collection(n_systems=3, n_topics=4, depth=20, seed=7)
>>> df = irstab.evaluate(sim.qrels, sim.runs, ["nDCG@10", "nDCG(gain=exp,discount=zipf)@10"])
>>> df.shape
(6, 4)
"""

from .collection import Collection, RankOrder
from .errors import DegenerateDataError, InputFormatError, IRStabError, IRStabWarning, MeasureError
from .evaluation import evaluate, parse_measures, score_matrices, score_matrix
from .io import Qrels, Run, read_qrels, read_run, read_runs
from . import simulate
from .metrics import (
    AP, DCG, ERR, RBP, RR, Bpref, Discount, Gain, Measure, Precision, QMeasure, Recall,
    RBPResidual, RPrecision, nDCG, parse_measure,
)

__version__ = "0.1.0"

__all__ = [
    "__version__", "simulate",
    "Collection", "RankOrder",
    "Qrels", "Run", "read_qrels", "read_run", "read_runs",
    "evaluate", "score_matrix", "score_matrices", "parse_measures", "parse_measure",
    "Measure", "Gain", "Discount", "DCG", "nDCG", "AP", "Precision", "Recall", "RPrecision",
    "RR", "Bpref", "RBP", "RBPResidual", "ERR", "QMeasure",
    "IRStabError", "InputFormatError", "MeasureError", "DegenerateDataError", "IRStabWarning",
]
