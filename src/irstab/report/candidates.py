"""Candidates of a study: one row of the report, its display name, and merging twins.

Two configurations with the same scores on every cell (e.g. the joint optimum
at cutoffs 20 and 100 when the discount is zero beyond rank 20, or the
minimax discount truncated at two cutoffs) are one candidate whose row lists
every name (:func:`merge_identical`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Candidate", "Member", "DISPLAY_MAX", "display_name", "fmt_value", "merge_identical"]

DISPLAY_MAX = 40
NDCG_FAMILIES = frozenset(
    {"preset", "optimal discount", "optimal gain", "optimal joint", "minimax", "reference"}
)
#: Scores closer than this, relative to the larger matrix's largest |score|, are equal.
SAME_RTOL = 1e-6


def _num(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


@dataclass(frozen=True)
class Member:
    """A configuration merged into another candidate's row (same scores on every cell)."""

    measure: str
    family: str
    cutoff: int | None

    def to_dict(self) -> dict:
        return {"measure": self.measure, "family": self.family, "cutoff": self.cutoff}


@dataclass(frozen=True)
class Candidate:
    """One candidate measure and its figures.

    Attributes
    ----------
    measure : str
        Canonical measure string (``irstab evaluate`` accepts it).
    family : str
        ``preset``, ``metric``, ``optimal discount``, ``optimal gain``,
        ``optimal joint``, ``minimax`` or ``reference`` (the baseline when it
        is none of the others).
    cutoff : int or None
        The study cutoff it belongs to (None: no cutoff).
    mean : float
        Mean score over systems and topics.
    phi1, phi, erho2 : float
        Phi at one topic, Phi and Erho2 at the observed topics.
    phi_lower, phi_upper : float
        95 % F-based interval of Phi at the observed topics.
    topics_90, topics_95 : float
        Topics needed for Phi = 0.90 / 0.95 (``inf``: never).
    discriminative_power : float
        Fraction of system pairs with Sakai's bootstrap ASL < alpha.
    n_significant : int
    kendall_tau : float
        Kendall's tau-b with the baseline (ranking by mean score).
    phi_diff, phi_diff_lower, phi_diff_upper : float
        Phi minus the baseline's and its interval (:mod:`irstab.verdict.paired`).
    phi_diff_kind : str
        ``simultaneous`` (an nDCG configuration: one of the measures that can
        be recommended), ``marginal`` (another measure, for context) or
        ``baseline``.
    sig_diff, sig_diff_lower, sig_diff_upper : float
        Pairs significant by the paired t-test minus the baseline's, with its
        paired-bootstrap interval.
    aliases : tuple of Member
        Other configurations with the same scores on every cell.
    cross_fitted : bool
        An optimised configuration judged on held-out topics
        (:mod:`irstab.optimizer.crossfit`): then ``phi_diff``, its interval,
        ``sig_diff`` and ``topics_95_cross_fitted`` (which the rule reads) come
        from the cross-fitted scores, and ``phi_diff_in_sample`` (with a marginal
        interval) is the optimistic difference of the scores it was chosen on.
    phi_cross_fitted : float
        Phi of the cross-fitted scores.
    phi_diff_in_sample, phi_diff_in_sample_lower, phi_diff_in_sample_upper : float
    topics_95_cross_fitted : float
    """

    measure: str
    family: str
    cutoff: int | None
    mean: float
    phi1: float
    phi: float
    erho2: float
    phi_lower: float
    phi_upper: float
    topics_90: float
    topics_95: float
    discriminative_power: float
    n_significant: int
    kendall_tau: float
    phi_diff: float = math.nan
    phi_diff_lower: float = math.nan
    phi_diff_upper: float = math.nan
    phi_diff_kind: str = ""
    sig_diff: float = math.nan
    sig_diff_lower: float = math.nan
    sig_diff_upper: float = math.nan
    aliases: tuple[Member, ...] = field(default=())
    cross_fitted: bool = False
    phi_cross_fitted: float = math.nan
    phi_diff_in_sample: float = math.nan
    phi_diff_in_sample_lower: float = math.nan
    phi_diff_in_sample_upper: float = math.nan
    topics_95_cross_fitted: float = math.nan

    @property
    def is_ndcg(self) -> bool:
        return self.family in NDCG_FAMILIES

    @property
    def topics_95_verdict(self) -> float:
        """The topics for Phi = 0.95 the rule reads: the cross-fitted ones where there are."""
        return self.topics_95_cross_fitted if self.cross_fitted else self.topics_95

    def names(self) -> list[str]:
        """Display names of this row: its own, then its aliases'."""
        return [display_name(self), *(display_name(a) for a in self.aliases)]

    def to_dict(self) -> dict:
        """JSON-ready dict; non-finite numbers become ``None``."""
        return {
            "measure": self.measure,
            "family": self.family,
            "cutoff": self.cutoff,
            "aliases": [a.to_dict() for a in self.aliases],
            "mean": _num(self.mean),
            "phi1": _num(self.phi1),
            "phi": _num(self.phi),
            "erho2": _num(self.erho2),
            "phi_ci": [_num(self.phi_lower), _num(self.phi_upper)],
            "topics_needed_090": _num(self.topics_90),
            "topics_needed_095": _num(self.topics_95),
            "discriminative_power": _num(self.discriminative_power),
            "n_significant": self.n_significant,
            "kendall_tau_baseline": _num(self.kendall_tau),
            "phi_diff": _num(self.phi_diff),
            "phi_diff_ci": [_num(self.phi_diff_lower), _num(self.phi_diff_upper)],
            "phi_diff_interval": self.phi_diff_kind,
            "verdict_uses": "cross-fitted" if self.cross_fitted else "in-sample",
            "phi_diff_cross_fitted": _num(self.phi_diff) if self.cross_fitted else None,
            "phi_diff_cross_fitted_ci": ([_num(self.phi_diff_lower), _num(self.phi_diff_upper)]
                                         if self.cross_fitted else None),
            "phi_cross_fitted": _num(self.phi_cross_fitted),
            "topics_needed_095_cross_fitted": _num(self.topics_95_cross_fitted),
            "phi_diff_in_sample": _num(self.phi_diff_in_sample if self.cross_fitted
                                       else self.phi_diff),
            "phi_diff_in_sample_ci": ([_num(self.phi_diff_in_sample_lower),
                                       _num(self.phi_diff_in_sample_upper)] if self.cross_fitted
                                      else [_num(self.phi_diff_lower),
                                            _num(self.phi_diff_upper)]),
            "sig_pairs_diff": _num(self.sig_diff),
            "sig_pairs_diff_ci": [_num(self.sig_diff_lower), _num(self.sig_diff_upper)],
        }


def display_name(c) -> str:
    """Short name of a candidate: its measure string, or e.g. ``optimal joint nDCG@100``.

    Optimum strings carry whole vectors; they are named by family and cutoff instead.
    """
    if len(c.measure) <= DISPLAY_MAX:
        return c.measure
    return f"{c.family} nDCG@{c.cutoff}" if c.cutoff is not None else f"{c.family} nDCG"


def fmt_value(v: float, spec: str) -> str:
    """``format(v, spec)``, or ``undefined`` for NaN (e.g. tau with a constant ranking)."""
    return format(v, spec) if math.isfinite(v) else "undefined"


def merge_identical(
    names: Sequence[str], scores: Mapping[str, object], first: str | None = None
) -> dict[str, list[str]]:
    """Group measures whose score matrices are equal on every cell.

    Parameters
    ----------
    names : sequence of str
        Measures in order of preference (the first of a group represents it).
    scores : mapping
        ``{measure: systems x topics}`` (DataFrame or array), same shape.
    first : str, optional
        A measure that represents its group whatever the order (the baseline).

    Returns
    -------
    dict
        ``{representative: [merged measures]}`` in the order of ``names``
        (with ``first`` moved to the front of its group).

    Notes
    -----
    "Equal" allows a difference of 1e-6 of the larger matrix's largest
    absolute score on every cell. Vectors equal after normalisation give
    scores equal to a few ulps; two optimizer runs that reach the same
    optimum (e.g. the joint optimum at cutoffs 20 and 100 on TREC DL 2019,
    whose discount is zero beyond rank 12) stop at their convergence
    tolerance and differ by about 1e-8. Both are far below the 4 decimals any
    score is reported with.
    """
    order = list(names)
    if first is not None and first in order:
        order.remove(first)
        order.insert(0, first)
    mats = {m: np.asarray(scores[m], dtype=float) for m in order}
    groups: dict[str, list[str]] = {}
    for m in order:
        x = mats[m]
        for rep in groups:
            y = mats[rep]
            scale = max(float(np.abs(x).max(initial=0.0)), float(np.abs(y).max(initial=0.0)), 1e-300)
            if x.shape == y.shape and np.all(np.abs(x - y) <= SAME_RTOL * scale):
                groups[rep].append(m)
                break
        else:
            groups[m] = []
    return {m: groups[m] for m in names if m in groups}
