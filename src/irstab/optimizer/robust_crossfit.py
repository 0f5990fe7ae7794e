r"""The judge-robust nDCG: gain and discount that maximise agreement across judge sets,
judged out of sample.

:func:`judge_robust` maximises, over monotone gain and discount vectors, the agreement of the
ranking of systems under the gold judge set with the ranking under each other judge set
(:class:`~.robustness.JudgeAgreement`: a smooth Kendall :math:`\tau` of the system means,
pooled over the other judge sets, each on the topics it judged). Documents a judge set did not
label on a topic it judged keep the gold set's grade (``missing="base"``, as
:mod:`irstab.judges.survival` compares judge sets), so a score moves only through the
documents judged differently.

Search is not evidence: a configuration found on some topics is judged on others. The topics
that some other judge set labelled are split into :math:`K` seeded folds
(:func:`~.crossfit.topic_folds`); for each fold the judge-robust configuration is searched
on the other folds' topics alone (a full multi-start from the presets, never warm-started at
an optimum that saw the fold), and so is the Phi-optimal configuration of the gold qrels
(:func:`~.driver.optimize`, the same topics); the held-out topics are then scored with the
fold's configurations by the nDCG kernel of ``irstab evaluate``. The cross-fitted score
matrix (every (topic, judge) cell scored by configurations that never saw the topic) goes
through the survival analysis of :func:`irstab.judges.survival.survival_from_scores` beside
the presets (gain linear/exp x discount log2/zipf/linear/flat at the cutoff: ``nDCG@10`` and
``nDCG(gain=exp)@10`` among them): Kendall's :math:`\tau`, :math:`\tau_{AP}`, top-k swaps
and the significant pairs kept, per judge set, and their means. The in-sample agreement of
every fold (on its training topics) is kept beside it, labelled as such.

The user gets the configuration optimised on all the topics (:attr:`JudgeRobust.optimum`);
the cross-fitted rows estimate how it fares on topics it has not seen.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..errors import IRStabError, IRStabWarning
from .crossfit import DEFAULT_FOLDS, topic_folds
from .driver import assemble, optimize
from .objectives import Objective, Vary, as_enum
from .problem import Problem
from .result import OptimizationResult
from .robustness import DEFAULT_BETA, Agreement, JudgeAgreement
from .scenario import Scenario, discount_vector, gain_vector
from .starts import Backend, check_options, run_starts, start_points
from .stats import PRESET_DISCOUNTS, PRESET_GAINS, preset_measures
from .task import Task

__all__ = ["JudgeRobust", "judge_robust", "judge_robust_from_assessors",
           "ROBUST_LABEL", "PHI_LABEL"]

#: Row labels of the two cross-fitted configurations in the tables.
ROBUST_LABEL = "judge-robust (cross-fitted)"
PHI_LABEL = "Phi-optimal (cross-fitted)"


@dataclass(frozen=True, eq=False)
class JudgeRobust:
    """The judge-robust nDCG and its cross-fitted comparison (module docstring).

    Attributes
    ----------
    gold : str
        The judge set the others are compared with.
    judges : tuple of str
        The other judge sets.
    cutoff : int
    vary : str
    agreement : str
        ``concordance`` or ``correlation`` (:mod:`~irstab.optimizer.robustness`).
    beta : float
    optimum : OptimizationResult
        The judge-robust configuration on all the topics (its ``value`` is the agreement).
    topics : tuple of str
        The topics that were split into folds (those some other judge set labelled).
    folds : ndarray
        The fold of each of :attr:`topics`.
    fold_robust, fold_phi : tuple of OptimizationResult
        Each fold's judge-robust and Phi-optimal configuration, found on the other folds.
    in_sample : DataFrame
        ``fold, measure, agreement``: the objective of every compared measure on each fold's
        training topics (the presets and that fold's own two optima): in-sample figures.
    held_out : irstab.judges.survival.Survival
        The survival analysis of the presets and of the cross-fitted scores.
    cpu_seconds : float
        Process CPU time of the whole computation.
    """

    gold: str
    judges: tuple[str, ...]
    cutoff: int
    vary: str
    agreement: str
    beta: float
    optimum: OptimizationResult
    topics: tuple[str, ...]
    folds: np.ndarray = field(repr=False)
    fold_robust: tuple = field(repr=False)
    fold_phi: tuple = field(repr=False)
    in_sample: pd.DataFrame = field(repr=False)
    held_out: object = field(repr=False)
    cpu_seconds: float = 0.0

    @property
    def n_folds(self) -> int:
        return len(self.fold_robust)

    def to_frame(self) -> pd.DataFrame:
        """One row per compared measure: the mean over folds of its in-sample agreement
        (``in_sample_agreement``), and the held-out survival figures averaged over the judge
        sets (``kendall_tau``, ``tau_ap``, ``top_k_swap_rate``, ``kept_share``) with the
        pooled counts ``top_k_swaps``, ``significant_a`` and ``kept`` (sums over the judge
        sets), most robust (highest mean held-out tau_AP) first."""
        rows = self.held_out.rows
        cols = ["kendall_tau", "tau_ap", "top_k_swap_rate", "kept_share"]
        mean = rows.groupby("measure", sort=False)[cols].mean()
        sums = rows.groupby("measure", sort=False)[["top_k_swaps", "significant_a",
                                                     "kept"]].sum()
        ins = self.in_sample.groupby("measure", sort=False)["agreement"].mean()
        out = mean.join(sums).join(ins.rename("in_sample_agreement")).reset_index()
        out.insert(1, "cross_fitted", out["measure"].isin([ROBUST_LABEL, PHI_LABEL]))
        out = out[["measure", "cross_fitted", "in_sample_agreement", *cols, "top_k_swaps",
                   "significant_a", "kept"]]
        return out.sort_values("tau_ap", ascending=False, kind="stable").reset_index(drop=True)

    def to_dict(self) -> dict:
        def clean(v):
            return None if isinstance(v, float) and v != v else v

        return {
            "gold": self.gold, "judges": list(self.judges), "cutoff": self.cutoff,
            "vary": self.vary, "agreement": self.agreement, "beta": self.beta,
            "measure": self.optimum.measure_string, "value": self.optimum.value,
            "n_folds": self.n_folds, "topics": list(self.topics),
            "folds": [int(f) for f in self.folds],
            "fold_measures": [r.measure_string for r in self.fold_robust],
            "fold_phi_measures": [r.measure_string for r in self.fold_phi],
            "summary": [{k: clean(v) for k, v in r.items()}
                        for r in self.to_frame().to_dict(orient="records")],
            "held_out": self.held_out.to_dict(),
            "cpu_seconds": self.cpu_seconds,
        }


def _preset_points(problem: Problem) -> list[tuple[str, np.ndarray]]:
    """Starts at every comparison preset the problem can reach that
    :func:`~.starts.start_points` does not already give (joint: exp with zipf/linear/flat)."""
    param = problem.param
    if param.vary is not Vary.joint:
        return []
    G, K = param.n_grades, param.cutoff
    return [(f"{g}+{d}", param.variables(gain_vector(g, G - 1), discount_vector(d, K)))
            for g in PRESET_GAINS for d in PRESET_DISCOUNTS
            if not (g == "linear" or (g, d) == ("exp", "log2"))]


def _solve(collection, cutoff: int, design: JudgeAgreement, vary, starts: int, seed,
           max_iter: int, tol: float) -> OptimizationResult:
    """Multi-start maximisation of ``design`` over the assessor collection (every preset of
    the comparison is a start, so the optimum is never below any of them)."""
    t0 = time.perf_counter()
    problem = Problem.build([Scenario(collection, cutoff, design=design)], vary=vary)
    points = start_points(problem, "linear", "log2", starts, seed) + _preset_points(problem)
    sols = run_starts(Task(problem), points, Backend.scipy, method=None, max_iter=max_iter,
                      tol=tol, workers=1)
    res = assemble(problem, sols, grid=None, backend=Backend.scipy, method=None, solver=None,
                   seconds=time.perf_counter() - t0, strict=False, objective=Objective.phi)
    return replace(res, objective=f"judge-agreement ({design.kind.value})")


def _measure(g, d, k: int):
    from ..metrics import Discount, Gain, nDCG

    g = np.asarray(g, float)
    d = np.asarray(d, float)[:k]
    return nDCG(gain=Gain.of(tuple(g / g[1:].sum())), discount=Discount.of(tuple(d / d.sum())),
                cutoff=k)


def _scores(collection, measure) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)  # IDCG = 0 cells: as the survival
        return np.asarray(measure.compute(collection), dtype=float)


def _long(name: str, x: np.ndarray, systems, cells: pd.DataFrame) -> pd.DataFrame:
    S, C = x.shape
    return pd.DataFrame({"measure": name, "system": np.repeat(np.array(systems, object), C),
                         "topic": np.tile(cells["topic"].to_numpy(), S),
                         "assessor": np.tile(cells["assessor"].to_numpy(), S),
                         "score": x.ravel()})


def judge_robust_from_assessors(
    assessors,
    cutoff: int = 10,
    *,
    gold: str | None = None,
    vary: Vary | str = Vary.joint,
    agreement: Agreement | str = Agreement.concordance,
    beta: float = DEFAULT_BETA,
    folds: int = DEFAULT_FOLDS,
    seed=0,
    starts: int = 2,
    max_iter: int = 1000,
    tol: float = 1e-4,
    top_k: int = 10,
    test="t",
    correction=None,
    alpha: float = 0.05,
) -> JudgeRobust:
    """:func:`judge_robust` on an :class:`~irstab.collection.assessors.AssessorCollection`
    built with the gold set as an assessor (``include_base=True``; ``gold``: its name,
    default the first assessor)."""
    from ..judges.survival import survival_from_scores

    cpu0 = time.process_time()
    check_options(Backend.scipy, None, max_iter, tol, starts, seed)
    coll, cells = assessors.collection, assessors.cells
    gold = assessors.assessors[0] if gold is None else gold
    vary = as_enum(Vary, vary, "vary")
    agreement = as_enum(Agreement, agreement, "agreement")
    if gold not in set(cells["assessor"]):
        raise IRStabError(f"gold: no judge set named {gold!r} among {list(assessors.assessors)}")
    judges = tuple(a for a in assessors.assessors if a != gold)
    kw = dict(kind=agreement, beta=float(beta))
    whole = JudgeAgreement.from_cells(cells, gold, **kw)
    pool = [t for t in dict.fromkeys(cells["topic"])
            if t in set(cells.loc[cells["assessor"].isin(whole.pair_judges), "topic"])]
    fold_of = topic_folds(len(pool), folds, seed)
    optimum = _solve(coll, cutoff, whole, vary, starts, seed, max_iter, tol)

    presets = [(text, _scores(coll, _parse(text))) for text, _, _ in preset_measures(cutoff)]
    gold_cell = {t: c for c, (t, a) in enumerate(zip(cells["topic"], cells["assessor"]))
                 if a == gold}
    cell_topic = cells["topic"].to_numpy()
    robust_x = np.full((coll.n_systems, len(cells)), np.nan)
    phi_x = np.full_like(robust_x, np.nan)
    fold_robust, fold_phi, ins = [], [], []
    for f in range(int(fold_of.max()) + 1):
        train = [t for t, k in zip(pool, fold_of) if k != f]
        test_cells = np.isin(cell_topic, [t for t, k in zip(pool, fold_of) if k == f])
        design = JudgeAgreement.from_cells(cells, gold, topics=tuple(train), **kw)
        rob = _solve(coll, cutoff, design, vary, starts, seed, max_iter, tol)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)
            phi = optimize(coll, cutoff, vary=vary, topics=[gold_cell[t] for t in train],
                           starts=starts, seed=seed, max_iter=max_iter, tol=tol, strict=False,
                           workers=1)
        fold_robust.append(rob)
        fold_phi.append(phi)
        xr = _scores(coll, _measure(rob.gain, rob.discount, cutoff))
        xp = _scores(coll, _measure(phi.gain, phi.discount, cutoff))
        robust_x[:, test_cells] = xr[:, test_cells]
        phi_x[:, test_cells] = xp[:, test_cells]
        for name, x in [*presets, (ROBUST_LABEL, xr), (PHI_LABEL, xp)]:
            ins.append((f, name, float(design.values(x))))
    kept = np.isin(cell_topic, pool)
    long = pd.concat([_long(name, x[:, kept], coll.systems, cells[kept])
                      for name, x in [*presets, (ROBUST_LABEL, robust_x), (PHI_LABEL, phi_x)]],
                     ignore_index=True)
    held = survival_from_scores(long, gold, top_k=top_k, test=test, correction=correction,
                                alpha=alpha, seed=seed, missing=assessors.missing.value,
                                judges=(gold, *judges), n_bootstrap=0)
    return JudgeRobust(
        gold=gold, judges=judges, cutoff=int(cutoff), vary=vary.value,
        agreement=agreement.value, beta=float(beta), optimum=optimum, topics=tuple(pool),
        folds=fold_of, fold_robust=tuple(fold_robust), fold_phi=tuple(fold_phi),
        in_sample=pd.DataFrame(ins, columns=["fold", "measure", "agreement"]),
        held_out=held, cpu_seconds=time.process_time() - cpu0)


def _parse(text: str):
    from ..metrics import parse_measure

    return parse_measure(text)


def judge_robust(
    gold,
    others: Mapping | Sequence | str,
    runs,
    cutoff: int = 10,
    *,
    depth: int | None = None,
    **kwargs,
) -> JudgeRobust:
    """The judge-robust nDCG@``cutoff`` of ``runs`` under the gold qrels and the other judge
    sets, cross-fitted over topics (module docstring).

    Parameters
    ----------
    gold : path or Qrels
        Judge set A (e.g. NIST's qrels).
    others : paths, a directory or ``{name: Qrels}``
        The other judge sets, named after their files.
    runs : paths or Runs
    cutoff : int
        The nDCG cutoff ``k`` (default 10).
    depth : int, optional
        Ranks read per run (default ``cutoff``: nDCG@k needs no more).
    vary : {"joint", "gain", "discount"}
        The unknown vectors (default both), monotone and scale-free as in
        :func:`~irstab.optimizer.optimize`.
    agreement : {"concordance", "correlation"}
        The smooth agreement maximised (:mod:`~irstab.optimizer.robustness`); ``beta`` its
        sharpness.
    folds, seed
        Folds of the topics that another judge set labelled, and their seed.
    starts, max_iter, tol
        Random starts besides the presets, and each local solve's limits.
    top_k, test, correction, alpha
        Of the held-out survival analysis (:mod:`irstab.judges.survival`).

    Returns
    -------
    JudgeRobust

    Examples
    --------
    >>> import numpy as np, irstab.io as io
    >>> from irstab.simulate import simulate_collection
    >>> sim = simulate_collection(n_systems=6, n_topics=8, depth=20, seed=2)
    >>> f = sim.qrels.frame
    >>> rng = np.random.default_rng(0)
    >>> noisy = f.assign(grade=np.clip(f["grade"] + rng.integers(-1, 2, len(f)), 0, 3))
    >>> r = judge_robust(io.Qrels("nist.txt", f), {"b": io.Qrels("b", noisy)}, sim.runs, 5,
    ...                  folds=2, starts=0)
    >>> r.n_folds, str(r.optimum).startswith("nDCG(gain=(0,")
    (2, True)
    """
    from ..collection.assessors import assessor_collection, assessor_name
    from ..io import read_qrels

    if not hasattr(gold, "frame"):
        gold = read_qrels(gold)
    depth = int(cutoff) if depth is None else int(depth)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*cell\\(s\\) without a relevant document",
                                category=IRStabWarning)
        ac = assessor_collection(gold, runs, others, include_base=True, depth=depth)
    return judge_robust_from_assessors(ac, cutoff, gold=assessor_name(gold.path), **kwargs)
