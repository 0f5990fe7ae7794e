"""Measures: immutable objects, a registry, a parser, and numpy kernels.

Each measure's ``compute(collection)`` reads the Collection's arrays (``grades``,
``judged``, ``ideal``, ``grade_counts``, ...) and returns systems x topics scores; the
kernels know that layout, not the Collection's code. May import: :mod:`irstab.errors`
only.

>>> from irstab.metrics import parse_measure
>>> m = parse_measure("nDCG(gain=exp)@10")
>>> m == parse_measure(str(m))
True
"""

from .base import REGISTRY, Aggregate, Measure, aggregate, check_depth, register
from .binary import AP, GMAP, RR, Bpref, GMBpref, Precision, Recall, RPrecision
from .dcg import DCG, nDCG
from .gains import Discount, Gain
from .user import ERR, RBP, QMeasure, RBPResidual
from .gap import EGAP, GAP, XGAP
from .crp import CRP, CRPBalanceRatio, CRPMinRatio, CRPNRatio, CRPRho, crp_curve, crp_indicators
from .expected import DCG_UL, SP_UL
from .trec import (IPrec, InfAP, Judged, NumNonrelJudgedRet, NumRel, NumRelRet, NumRet, SetAP,
                   SetF, SetP, SetR, SetRelP, Success)
from .trec_gain import G, BinG, RnDCG, nDCGRel
from .trec_extra import IPrecAvg, RelP, RelString, Unjudged, Utility
from .names import (
    DEFAULT_MEASURES, TREC_EVAL_SUMMED, Named, TrecEvalRequest, definitions, parse_measure,
    resolve_measure,
    resolve_measures, trec_eval_name, trec_eval_position, trec_eval_request,
)

__all__ = [
    "REGISTRY", "Measure", "register", "check_depth", "parse_measure", "Gain", "Discount",
    "Aggregate", "aggregate",
    "DCG", "nDCG", "AP", "GMAP", "Precision", "Recall", "RPrecision", "RR", "Bpref", "GMBpref",
    "RBP", "RBPResidual", "ERR", "QMeasure",
    "GAP", "XGAP", "EGAP",
    "CRP", "CRPRho", "CRPBalanceRatio", "CRPMinRatio", "CRPNRatio", "crp_curve", "crp_indicators",
    "DCG_UL", "SP_UL",
    "Success", "Judged", "NumRet", "NumRel", "NumRelRet", "IPrec", "SetP", "SetR", "SetF",
    "SetAP", "SetRelP", "NumNonrelJudgedRet", "InfAP", "G", "BinG", "RnDCG", "nDCGRel",
    "IPrecAvg", "RelP", "RelString", "Unjudged", "Utility",
    "Named", "resolve_measure", "resolve_measures", "definitions", "DEFAULT_MEASURES",
    "TREC_EVAL_SUMMED", "trec_eval_name", "trec_eval_position", "TrecEvalRequest",
    "trec_eval_request",
]
