r"""Stable *and* valid: the Pareto front of stability (Phi) and agreement with preferences.

When a collection has runs for a G-study and side-by-side preferences for (some of) its topics,
one gain and one discount of nDCG@k give two figures: Phi at one topic of the systems x topics
G-study (the optimizer's objective, Kanoulas & Aslam, CIKM 2009) and the share of preferences the
measure agrees with (:mod:`irstab.preferences.fit`). :func:`agreement_front` traces the front
between them with the optimizer's epsilon-constraint machinery
(:class:`irstab.optimizer.constraints.PhiConstraint` on the optimizer's
:class:`~irstab.optimizer.Task` and SciPy backend):

1. the two ends: the most stable configuration (multi-start, as :func:`irstab.optimizer.optimize`)
   and the one that agrees best (:func:`irstab.preferences.fit.fit_agreement`);
2. for :math:`\epsilon` from Phi of the most stable down to Phi of the most agreeing,
   :math:`\max S_\tau` (the smooth surrogate of agreement) subject to :math:`\Phi \ge
   \epsilon`, each solve starting at the previous point (feasible for the next epsilon), so
   the sweep never loses feasibility;
3. every point, the two ends and the report's eight presets (gain linear/exp x discount
   log2/zipf/linear/flat) are scored by Phi and by the *exact* agreement rate (of ``ties``:
   ties as half by default, :data:`irstab.preferences.comparisons.TIE_RULES`), and the front is
   the set of those not dominated (no other point at least as good on both and better on one).
   A preset on the front is a named configuration no optimised point beats on both counts.

Both axes are in sample: the configurations were searched on these topics and these
preferences. :mod:`irstab.preferences.fit` gives the cross-fitted agreement of the most
agreeing end, which the report prints beside the front.

Preferences need not cover every topic of the collection: agreement is counted on the
comparisons given (their grades are those of the rankings shown), Phi on every topic of the
collection; :attr:`AgreementFront.shared_topics` says how many topics both have.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..errors import IRStabError
from ..optimizer import Problem, Scenario, Status, Task
from ..optimizer.constraints import PhiConstraint
from ..optimizer.scenario import discount_vector, gain_vector
from ..optimizer.starts import Backend, run_starts, start_points
from .fit import (DEFAULT_TIES, Agreement, AgreementForms, AgreementProblem, _arrays, _fit,
                  check_ties, preset_names)

__all__ = ["AgreementFront", "FrontPoint", "agreement_front", "non_dominated"]

_EDGE = 1e-9
#: Slack of the most stable end's Phi constraint (its constraint is otherwise degenerate).
_END_SLACK = 1e-7


def non_dominated(x, y) -> np.ndarray:
    """Boolean mask of the points ``(x_i, y_i)`` no other point dominates (both maximised).

    ``j`` dominates ``i`` when ``x_j >= x_i`` and ``y_j >= y_i`` with one strict; equal points
    do not dominate each other.

    Examples
    --------
    >>> non_dominated([1, 2, 2, 0], [3, 1, 2, 3]).tolist()
    [True, False, True, False]
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ge = (x[None, :] >= x[:, None]) & (y[None, :] >= y[:, None])
    gt = (x[None, :] > x[:, None]) | (y[None, :] > y[:, None])
    return ~np.any(ge & gt, axis=1)


@dataclass(frozen=True)
class FrontPoint:
    """One configuration scored by stability and agreement.

    ``kind``: ``most stable``, ``most agreeing``, ``sweep`` or ``preset``; ``phi`` is Phi at
    one topic; ``agreement`` the exact counts (the front is drawn on the rate of its rule);
    ``surrogate`` :math:`S_\\tau`; ``on_front`` whether no other point dominates it.
    """

    label: str
    kind: str
    measure: str
    phi: float
    agreement: Agreement
    surrogate: float
    gain: tuple[float, ...]
    discount: tuple[float, ...]
    on_front: bool
    status: Status = Status.optimal

    def to_dict(self) -> dict:
        return {"label": self.label, "kind": self.kind, "measure": self.measure,
                "phi1": self.phi, "half_rate": self.agreement.half_rate,
                "exclude_rate": self.agreement.rate,
                "disagree_rate": self.agreement.disagree_rate,
                "agree": self.agreement.agree, "tie": self.agreement.tie,
                "disagree": self.agreement.disagree, "surrogate": self.surrogate,
                "on_front": self.on_front, "status": self.status.value,
                "gain": list(self.gain), "discount": list(self.discount)}


@dataclass(frozen=True)
class AgreementFront:
    """The front of Phi against agreement (module docstring).

    Attributes
    ----------
    points : tuple of FrontPoint
        The most stable end, the sweep, the most agreeing end, then the presets.
    cutoff : int
    vary : str
    tau : float
        Temperature of the surrogate maximised in the sweep.
    n_comparisons : int
        Comparisons with a preference.
    preference_topics, shared_topics : int
        Topics with preferences; of those, topics of the collection too.
    simulated : bool
        The preferences are simulated (every rendering must say so).
    seconds : float
    ties : str
        The agreement rate of the front (:data:`irstab.preferences.comparisons.TIE_RULES`).
    """

    points: tuple[FrontPoint, ...]
    cutoff: int
    vary: str
    tau: float
    n_comparisons: int
    preference_topics: int
    shared_topics: int
    simulated: bool
    seconds: float
    ties: str = DEFAULT_TIES

    def rate(self, point: FrontPoint) -> float:
        """The point's agreement by the front's rule."""
        return point.agreement.value(self.ties)

    @property
    def front(self) -> tuple[FrontPoint, ...]:
        """The non-dominated points, by decreasing Phi."""
        return tuple(sorted((p for p in self.points if p.on_front), key=lambda p: -p.phi))

    @property
    def presets(self) -> tuple[FrontPoint, ...]:
        return tuple(p for p in self.points if p.kind == "preset")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame([{k: v for k, v in p.to_dict().items()
                              if k not in ("gain", "discount")} for p in self.points])

    def to_dict(self) -> dict:
        return {"cutoff": self.cutoff, "vary": self.vary, "tau": self.tau, "ties": self.ties,
                "n_comparisons": self.n_comparisons,
                "preference_topics": self.preference_topics,
                "shared_topics": self.shared_topics, "simulated": self.simulated,
                "seconds": self.seconds, "points": [p.to_dict() for p in self.points]}


def _measure(g, d, k) -> str:
    from ..metrics import Discount, Gain, nDCG

    return nDCG(gain=Gain.of(tuple(g)), discount=Discount.of(tuple(d)), cutoff=k).canonical()


def _best(task, starts, max_iter, tol):
    sols = run_starts(task, starts, Backend.scipy, method=None, max_iter=max_iter, tol=tol,
                      workers=1)
    best = sols[0][1]
    for _, s in sols[1:]:
        if s.value > best.value + 1e-9:
            best = s
    return best


def agreement_front(collection, comparisons, cutoff: int, *, vary="joint",
                    monotone: bool = True, gain="linear", discount="log2", points: int = 7,
                    tau: float = 16.0, starts: int = 2, seed=0, max_iter: int = 300,
                    tol: float = 1e-5, ties: str = DEFAULT_TIES,
                    topics=None) -> AgreementFront:
    r"""Front of Phi (one topic) against agreement with preferences over gain and discount.

    Parameters
    ----------
    collection : irstab.Collection
        The runs and qrels of the G-study.
    comparisons : Comparisons-like
        Any object with ``topic``, ``preferred``, ``grades_a`` and ``grades_b``
        (:class:`irstab.preferences.comparisons.Comparisons`); ``simulated = True`` marks
        simulated preferences. Grades must not exceed the collection's largest grade.
    cutoff : int
        ``k`` of nDCG@k; at most the rankings' depth.
    vary, monotone, gain, discount
        As :func:`irstab.optimizer.optimize` (default: gain and discount jointly, monotone).
    points : int
        Epsilons of the sweep (>= 2), evenly spaced in Phi between the ends.
    tau : float
        Temperature of the surrogate in the sweep.
    starts, seed
        Random starts (besides the presets) of each end.
    max_iter, tol
        Of each local solve.
    ties : {"half", "exclude", "disagree"}
        The agreement rate of the front and of the most agreeing end's choice.
    topics : sequence of int, optional
        Indices of the collection's topics Phi is computed on (default all); the
        comparisons are used as given.

    Returns
    -------
    AgreementFront

    Examples
    --------
    >>> import irstab
    >>> from irstab.preferences.simulated import simulated_comparisons
    >>> sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=6, depth=10, seed=1)
    >>> coll = irstab.Collection.build(sim.qrels, sim.runs, depth=10)
    >>> prefs = simulated_comparisons(coll, 5, per_topic=6, seed=2)
    >>> fr = agreement_front(coll, prefs, 5, points=3, starts=0)
    >>> all(p.on_front for p in fr.front), fr.simulated
    (True, True)
    """
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 2:
        raise IRStabError(f"points: expected an integer >= 2, got {points!r}")
    if not tau > 0:
        raise IRStabError(f"tau: expected a positive temperature, got {tau!r}")
    check_ties(ties)
    t0 = time.perf_counter()
    phi_problem = Problem.build([Scenario(collection, cutoff, topics=topics)], vary=vary,
                                monotone=monotone, gain=gain, discount=discount)
    param = phi_problem.param
    k = param.cutoff
    topic, preferred, ga, gb = _arrays(comparisons)
    top = int(max(np.max(ga, initial=0), np.max(gb, initial=0)))
    if top > param.n_grades - 1:
        raise IRStabError(f"comparisons: grade {top} exceeds the collection's largest grade "
                          f"{param.n_grades - 1}; one gain vector cannot serve both")
    forms = AgreementForms(topic, preferred, ga, gb, cutoff=k, max_grade=param.n_grades - 1)
    agree_problem = AgreementProblem(forms, param, float(tau))
    scenario = phi_problem.scenarios[0]

    def phi_of(y):
        return float(phi_problem.values(y)[0])

    common = {"max_iter": max_iter, "tol": tol}
    # the most stable end: every preset start and the random ones, as optimize() does
    y_phi = _best(Task(phi_problem), start_points(phi_problem, gain, discount, starts, seed),
                  **common).y
    hi = phi_of(y_phi)
    # of the most stable configurations, the one that agrees best (so that end is not dominated)
    lex = _best(Task(agree_problem, PhiConstraint(phi_problem, hi - _END_SLACK)),
                [("most stable", y_phi)], **common)
    if phi_of(lex.y) >= hi - 2 * _END_SLACK:
        y_phi = lex.y
    fit = _fit(forms, vary=param.vary, monotone=monotone, gain=gain, discount=discount,
               starts=starts, seed=seed, ties=ties)
    y_ag = param.variables(np.asarray(fit.gain), np.asarray(fit.discount), check=False)
    lo = phi_of(y_ag)

    found = [("most stable", "most stable", y_phi, Status.optimal)]
    y_prev = y_phi
    if hi > lo + _EDGE:
        for i, e in enumerate(np.linspace(hi, lo, points)[1:-1], start=1):
            task = Task(agree_problem, PhiConstraint(phi_problem, float(e)))
            cands = [("previous", y_prev)]
            if task.merit(y_ag) > -np.inf:
                cands.append(("most agreeing", y_ag))
            sol = _best(task, cands, **common)
            found.append((f"Phi at least {e:.4g}", "sweep", sol.y, sol.status))
            y_prev = sol.y
    found.append(("most agreeing", "most agreeing", y_ag, fit.status))

    rows = []
    for label, kind, y, status in found:
        g, d = param.vectors(y)
        rows.append((label, kind, g, d, phi_of(y), status))
    for name, g_name, d_name in preset_names(k):
        g, d = gain_vector(g_name, param.n_grades - 1), discount_vector(d_name, k)
        rows.append((name, "preset", g, d, float(scenario.value(g, d)), Status.optimal))
    agreements = [forms.agreement(g, d) for _, _, g, d, _, _ in rows]
    phis = np.array([r[4] for r in rows])
    on = non_dominated(phis, [a.key(ties)[0] for a in agreements])  # NaN (all tied): -inf
    out = []
    for (label, kind, g, d, phi, status), a, front in zip(rows, agreements, on):
        g = np.asarray(g, float)
        d = np.asarray(d, float)
        gn, dn = tuple(float(v) for v in g / g[1:].sum()), tuple(float(v) for v in d / d.sum())
        measure = label if kind == "preset" else _measure(gn, dn, k)
        out.append(FrontPoint(label, kind, measure, phi, a,
                              forms.surrogate(g, d, float(tau), grad=False)[0], gn, dn,
                              bool(front), status))
    pref_topics = set(np.asarray(forms.topic, dtype=str).tolist())
    used = np.asarray(collection.topics, dtype=str)[list(scenario.topics)]
    shared = len(pref_topics & set(used.tolist()))
    return AgreementFront(tuple(out), k, param.vary.value, float(tau), forms.n,
                          len(pref_topics), shared, bool(getattr(comparisons, "simulated", False)),
                          time.perf_counter() - t0, ties)
