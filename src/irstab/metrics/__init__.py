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

from .base import REGISTRY, Measure, check_depth, register
from .binary import AP, RR, Bpref, Precision, Recall, RPrecision
from .dcg import DCG, nDCG
from .gains import Discount, Gain
from .parse import parse_measure
from .user import ERR, RBP, QMeasure, RBPResidual
from .gap import EGAP, GAP, XGAP
from .crp import CRP, CRPBalanceRatio, CRPMinRatio, CRPNRatio, CRPRho, crp_curve, crp_indicators
from .expected import DCG_UL, SP_UL
from .trec import IPrec, InfAP, Judged, NumRel, NumRelRet, NumRet, SetF, SetP, SetR, Success
from .names import (
    DEFAULT_MEASURES, TREC_EVAL_SUMMED, Named, definitions, resolve_measure, resolve_measures,
    trec_eval_name, trec_eval_position,
)

__all__ = [
    "REGISTRY", "Measure", "register", "check_depth", "parse_measure", "Gain", "Discount",
    "DCG", "nDCG", "AP", "Precision", "Recall", "RPrecision", "RR", "Bpref",
    "RBP", "RBPResidual", "ERR", "QMeasure",
    "GAP", "XGAP", "EGAP",
    "CRP", "CRPRho", "CRPBalanceRatio", "CRPMinRatio", "CRPNRatio", "crp_curve", "crp_indicators",
    "DCG_UL", "SP_UL",
    "Success", "Judged", "NumRet", "NumRel", "NumRelRet", "IPrec", "SetP", "SetR", "SetF",
    "InfAP", "Named", "resolve_measure", "resolve_measures", "definitions", "DEFAULT_MEASURES",
    "TREC_EVAL_SUMMED", "trec_eval_name", "trec_eval_position",
]
