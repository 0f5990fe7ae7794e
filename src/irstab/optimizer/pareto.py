r"""Pareto front between two objectives by an epsilon-constraint sweep.

Two kinds of front:

* **two scenarios** (e.g. cutoffs 10 and 100, or two collections, or two
  objectives on one collection and cutoff, such as discrimination against Phi):
  :math:`\max f_A` subject to :math:`f_B \ge \epsilon`, for
  :math:`\epsilon` from :math:`f_B` at B's optimum down to
  :math:`f_B` at A's optimum (:math:`f` is each scenario's objective:
  Phi(1), Erho2(1) or discrimination);
* **stability against a prior** (e.g. the log2 discount of a user model):
  :math:`\max \Phi_A` subject to :math:`\lVert v - p\rVert_2 \le \epsilon`
  (``v``, ``p`` the normalised varying vectors), for :math:`\epsilon` from 0
  (the prior itself) up to the distance of A's optimum.

The sweep runs from the end where the constraint is tightest, whose point is
taken as is (the prior itself; B's optimum, where the constraint
:math:`\Phi_B \ge \max \Phi_B` is degenerate), and each further point
starts from the previous point's solution, which is feasible for the next
epsilon (and from A's optimum where that is feasible); so every solve starts
feasible and never ends below its start. An ``epsilons`` grid outside the
reachable range raises :class:`~irstab.optimizer.InfeasibleError` naming it.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence

import numpy as np

from ..errors import IRStabError, IRStabWarning
from .starts import Backend, ProgressCallback, check_options, run_starts, start_points
from .constraints import PhiConstraint, PriorConstraint
from .objectives import Vary
from .problem import Problem
from .scenario import discount_vector, gain_vector, Scenario
from .task import Task
from .result import ConvergenceError, InfeasibleError, ParetoPoint, ParetoResult, Status

__all__ = ["pareto"]

_EDGE_TOL = 1e-9
#: Slack of the end points' second objective: the end points maximise one objective among
#: the (near-)optima of the other, so neither is dominated.
_END_SLACK = 1e-7


#: How each objective is named in tables, figure labels and titles.
OBJECTIVE_LABELS = {"phi": "Phi1", "erho2": "Erho2", "discrimination": "discrimination"}


def _label(scenario: Scenario) -> str:
    """``Phi1 @10``, ``discrimination @20``: the objective and the scenario's name."""
    return f"{OBJECTIVE_LABELS[scenario.objective.value]} {scenario.name}"


def _best(task, points, backend, method, max_iter, tol, solver):
    """Best solve over the starts; a later start must win by more than 1e-9 (ties: the first)."""
    sols = run_starts(task, points, backend, method=method, max_iter=max_iter, tol=tol, solver=solver)
    best = sols[0][1]
    for _, s in sols[1:]:
        if s.value > best.value + 1e-9:
            best = s
    return best


def pareto(
    first: Scenario,
    second: Scenario | None = None,
    *,
    prior=None,
    vary: Vary | str = Vary.discount,
    gain="linear",
    discount="log2",
    monotone: bool = True,
    points: int = 9,
    epsilons: Sequence[float] | None = None,
    backend: Backend | str = Backend.scipy,
    method: str | None = None,
    starts: int = 2,
    seed: int | np.random.Generator | None = 0,
    max_iter: int = 1000,
    tol: float = 1e-4,
    strict: bool = True,
    solver: str | None = None,
    progress: ProgressCallback | None = None,
) -> ParetoResult:
    r"""Epsilon-constraint sweep of the front between two objectives (module docstring).

    Parameters
    ----------
    first : Scenario
        Its Phi (or Erho2) at one topic is maximised.
    second : Scenario, optional
        The second objective (:math:`\Phi_B \ge \epsilon`).
    prior : str or sequence, optional
        Instead of ``second``: the prior of the varying block (a discount such
        as ``"log2"`` for ``vary="discount"``, a gain such as ``"exp"`` for
        ``vary="gain"``; for ``vary="joint"`` the discount prior, the gain
        prior being ``gain``).
    vary, gain, discount, monotone
        As in :func:`irstab.optimizer.optimize`.
    points : int
        Points of the front (>= 2), evenly spaced in epsilon.
    epsilons : sequence of float, optional
        Explicit epsilons instead of the even grid.
    backend, method, starts, seed, max_iter, tol, solver
        As in :func:`irstab.optimizer.optimize`; ``starts`` random starts for
        each end's single-objective optimum.
    strict : bool
        Raise :class:`~irstab.optimizer.ConvergenceError` if a point did not
        converge (else warn).
    progress : callable, optional
        ``progress(label, done, total)`` after each solve.

    Returns
    -------
    ParetoResult

    Examples
    --------
    >>> from irstab.simulate import simulate_collection
    >>> from irstab.evaluation import as_collection
    >>> sim = simulate_collection(n_systems=8, n_topics=10, depth=20, seed=5)
    >>> coll = as_collection(sim.qrels, sim.runs, depth=20)
    >>> front = pareto(Scenario(coll, 5), prior="log2", points=3, starts=0)
    >>> [round(p.second, 12) for p in front.points][0]  # the first point is log2 itself
    0.0
    """
    backend = check_options(backend, method, max_iter, tol, starts, seed)
    if (second is None) == (prior is None):
        raise IRStabError("pareto: give either a second scenario or a prior, not both or neither")
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 2:
        raise IRStabError(f"points: must be an integer >= 2, got {points!r}")
    t0 = time.perf_counter()
    scenarios = [first] if second is None else [first, second]
    shared = Problem.build(scenarios, vary=vary, monotone=monotone, gain=gain, discount=discount)
    param = shared.param
    pa = Problem((first,), param)
    task_a = Task(pa)
    common = {"method": method, "max_iter": max_iter, "tol": tol, "solver": solver}
    base = start_points(pa, gain, discount, starts, seed)
    n_solves = (len(base) * (1 if second is None else 2)) + points + (second is not None)
    done = 0

    def tick(label):
        nonlocal done
        done += 1
        if progress is not None:
            progress(label, done, n_solves)

    best_a = _best(task_a, base, backend, **common)
    tick(f"optimum of {first.name}")
    y_a = best_a.y

    if second is not None:
        pb = Problem((second,), param)
        best_b = _best(Task(pb), base, backend, **common)
        tick(f"optimum of {second.name}")
        hi = float(pb.values(best_b.y)[0])
        # A's optimum may leave B free (e.g. discount weights beyond A's cutoff): take the
        # A-optimum that is best for B, so the last point of the front is not dominated
        a_star = float(pa.values(y_a)[0])
        lex = _best(Task(pb, PhiConstraint(pa, a_star - _END_SLACK)), [("optimum", y_a)],
                    backend, **common)
        if float(pa.values(lex.y)[0]) >= a_star - 2 * _END_SLACK:
            y_a = lex.y
        tick(f"best {second.name} among the optima of {first.name}")
        lo = float(pb.values(y_a)[0])
        second_name = _label(second)
        if second_name == _label(first):
            second_name += " (second)"
        if epsilons is None:
            eps = np.linspace(hi, lo, points) if hi > lo + _EDGE_TOL else np.array([hi])
        else:
            eps = np.sort(np.asarray(epsilons, dtype=float))[::-1]
            if eps[0] > hi + _EDGE_TOL:
                raise InfeasibleError(
                    f"epsilons: {OBJECTIVE_LABELS[second.objective.value]} of {second.name} cannot reach "
                    f"{eps[0]:.6g}; its largest value is {hi:.6g}"
                )
        y_prev = best_b.y

        def make(e):
            return Task(pa, PhiConstraint(pb, float(e)))

        def second_value(y):
            return float(pb.values(y)[0])
    else:
        if param.vary is Vary.gain:
            g_prior, d_prior = gain_vector(prior, param.n_grades - 1), param.discount
        else:
            g_prior = gain_vector(gain, param.n_grades - 1) if param.varies_gain else param.gain
            d_prior = discount_vector(prior, param.cutoff)
        y_prior = param.variables(g_prior, d_prior)  # raises if the prior breaks the ordering
        p = param.natural(y_prior)
        far = float(np.linalg.norm(param.natural(y_a) - p))
        name = prior if isinstance(prior, str) else "prior"
        second_name = f"distance to {name}"
        if epsilons is None:
            eps = np.linspace(0.0, far, points)
        else:
            eps = np.sort(np.asarray(epsilons, dtype=float))
            if eps[0] < 0:
                raise InfeasibleError(f"epsilons: a distance cannot be negative, got {eps[0]:.6g}")
        y_prev = y_prior

        def make(e):
            return Task(pa, PriorConstraint(param, p, float(e)))

        def second_value(y):
            return float(np.linalg.norm(param.natural(y) - p))

    out = []
    for e in eps:  # the sweep is sequential: each point starts from the previous one
        task = make(e)
        cands = [("previous", y_prev)]
        if task.merit(y_a) > -np.inf:
            cands.append(("optimum", y_a))
        if second is None and e <= _EDGE_TOL:
            sol = None  # only the prior itself is feasible
        elif second is not None and e >= hi - _EDGE_TOL:
            # only B's (near-)optima are feasible: the best of them for A, not any of them
            sol = _best(make(hi - _END_SLACK), [("previous", y_prev)], backend, **common)
        else:
            sol = _best(task, cands, backend, **common)
        if sol is None:
            y, status, nit = y_prev, Status.optimal, 0
        else:
            y, status, nit = sol.y, sol.status, sol.iterations
        g, d = param.vectors(y)
        out.append(
            ParetoPoint(
                epsilon=float(e),
                first=float(pa.values(y)[0]),
                second=second_value(y),
                gain=tuple(float(v) for v in g / g[1:].sum()),
                discount=tuple(float(v) for v in d / d.sum()),
                status=status,
                iterations=nit,
            )
        )
        y_prev = y
        tick(f"epsilon {e:.4g}")
    result = ParetoResult(
        kind="scenario" if second is not None else "prior",
        first_name=_label(first),
        second_name=second_name,
        vary=param.vary.value,
        cutoff=param.cutoff,
        points=tuple(out),
        backend=backend.value,
        seconds=time.perf_counter() - t0,
    )
    bad = [p for p in out if p.status is not Status.optimal]
    if bad:
        text = (
            f"{len(bad)} of {len(out)} front point(s) did not converge (epsilon "
            f"{', '.join(f'{p.epsilon:.4g}' for p in bad[:5])}); raise max_iter or loosen tol"
        )
        if strict:
            raise ConvergenceError(text, bad[0].status, result)
        warnings.warn(text, IRStabWarning, stacklevel=2)
    return result
