r"""The whole study in one call: which nDCG is most stable here, and what it costs.

:func:`run_study` is the library behind ``irstab report``. On one
collection it

1. scores the candidates (:func:`irstab.score_matrices`): the eight nDCG
   presets (gain ``linear``/``exp`` x discount ``log2``/``zipf``/``linear``/
   ``flat``) at every cutoff, and the metric set: AP, GAP, xGAP, eGAP,
   RBP(p=0.8), the CRP indicators (``CRP.rho``, ``CRP.balance_ratio``,
   ``CRP.min_ratio``, ``CRP.N_ratio``), and at every cutoff ERR@k,
   DCG_UL(version=2)@k and SP_UL(version=2)@k;
2. finds the stability-optimal discount, gain and joint configuration at
   every cutoff, and (with two or more cutoffs) the minimax configuration
   over the cutoffs (:mod:`irstab.optimizer`); each optimum is a candidate
   too (the minimax one once per cutoff, its discount truncated);
3. runs a G-study of every candidate (:func:`irstab.stability.gstudy`):
   Phi, Erho2, the F-based interval of Phi and the topics needed for
   Phi = 0.90 and 0.95;
4. compares the candidates (:func:`irstab.compare.compare_measures`):
   Kendall's tau among all of them and Sakai's bootstrap discriminative power;
5. recommends the nDCG configuration (preset, optimum or nDCG@10) with the largest
   Phi, with the topics it needs and its Kendall tau with plain nDCG@10.

Choices
-------
* The reference is ``nDCG@10`` (linear gain, log2 discount); it is scored
  even when 10 is not among the cutoffs (it needs depth >= 10).
* Phi of all candidates is on the same systems and topics, so "most stable"
  means the largest Phi at the observed number of topics (equivalently at
  one topic). Ties go to the first candidate in the order above (presets
  before optima), i.e. the simpler configuration.
* A candidate whose G-study is degenerate (e.g. all scores equal) gets NaN
  figures and a warning in :attr:`Study.warnings`; it is never recommended.
* An optimizer run that does not converge is kept with its status (and a
  warning) rather than aborting the study (``strict=False``).
* Two candidates with the same canonical string are one candidate (the
  first family wins).

Every number of :meth:`Study.to_dict` comes from those library calls; the
report renders it (:mod:`irstab.report.render`).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .._numeric import check_seed
from ..collection import Collection
from ..errors import DegenerateDataError, IRStabError, IRStabWarning

__all__ = [
    "REFERENCE",
    "TARGETS",
    "Candidate",
    "Recommendation",
    "Study",
    "metric_set",
    "display_name",
    "preset_set",
    "run_study",
]

#: The usual nDCG the recommendation is measured against.
REFERENCE = "nDCG@10"
#: Phi targets of the topics-needed columns.
TARGETS: tuple[float, float] = (0.90, 0.95)

_GAINS = ("linear", "exp")
_DISCOUNTS = ("log2", "zipf", "linear", "flat")
_FIXED_METRICS = (
    "AP", "GAP", "xGAP", "eGAP", "RBP(p=0.8)",
    "CRP.rho", "CRP.balance_ratio", "CRP.min_ratio", "CRP.N_ratio",
)
_CUTOFF_METRICS = ("ERR@{k}", "DCG_UL(version=2)@{k}", "SP_UL(version=2)@{k}")
#: Optimizer problems per cutoff, in report order.
OPT_KINDS: tuple[str, ...] = ("discount", "gain", "joint")
DISPLAY_MAX = 40
NDCG_FAMILIES = frozenset(
    {"preset", "optimal discount", "optimal gain", "optimal joint", "minimax", "reference"}
)

Progress = Callable[[str, int, int], None]


def preset_set(cutoffs: Sequence[int]) -> list[str]:
    """The nDCG presets (gain x discount) at every cutoff, as measure strings."""
    return [
        f"nDCG(gain={g},discount={d})@{k}" for k in cutoffs for g in _GAINS for d in _DISCOUNTS
    ]


def metric_set(cutoffs: Sequence[int]) -> list[str]:
    """The other measures of the study, as measure strings."""
    return [*_FIXED_METRICS, *(m.format(k=k) for k in cutoffs for m in _CUTOFF_METRICS)]


def _solve(kind: str, collection: Collection, cutoffs: Sequence[int], **options):
    """The one adapter to :mod:`irstab.optimizer` (a signature change is fixed here).

    ``kind`` is ``discount``, ``gain``, ``joint`` (one cutoff) or ``minimax``
    (joint over all ``cutoffs``).
    """
    from .. import optimizer

    if kind == "minimax":
        return optimizer.minimax(optimizer.scenarios_by_cutoff(collection, cutoffs), **options)
    (k,) = cutoffs
    return optimizer.optimize(collection, k, vary=kind, **options)


# ----------------------------------------------------------------- results


def _num(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


@dataclass(frozen=True)
class Candidate:
    """One candidate measure and its figures.

    Attributes
    ----------
    measure : str
        Canonical measure string (``irstab evaluate`` accepts it).
    family : str
        ``preset``, ``metric``, ``optimal discount``, ``optimal gain``,
        ``optimal joint``, ``minimax`` or ``reference``.
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
        Fraction of system pairs with bootstrap ASL < alpha.
    n_significant : int
    kendall_tau : float
        Kendall's tau-b with :data:`REFERENCE` (ranking by mean score).
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

    @property
    def is_ndcg(self) -> bool:
        return self.family in NDCG_FAMILIES

    def to_dict(self) -> dict:
        """JSON-ready dict; non-finite numbers become ``None``."""
        return {
            "measure": self.measure,
            "family": self.family,
            "cutoff": self.cutoff,
            "mean": _num(self.mean),
            "phi1": _num(self.phi1),
            "phi": _num(self.phi),
            "erho2": _num(self.erho2),
            "phi_ci": [_num(self.phi_lower), _num(self.phi_upper)],
            "topics_needed_090": _num(self.topics_90),
            "topics_needed_095": _num(self.topics_95),
            "discriminative_power": _num(self.discriminative_power),
            "n_significant": self.n_significant,
            "kendall_tau_reference": _num(self.kendall_tau),
        }


@dataclass(frozen=True)
class Recommendation:
    """The most stable nDCG configuration and what it costs against the reference.

    Attributes
    ----------
    best : Candidate
        Largest Phi among the nDCG candidates (presets, optima and the
        reference), so never less stable than the reference.
    best_preset : Candidate
        Largest Phi among the presets (a named configuration).
    most_stable_overall : Candidate
        Largest Phi among all candidates (any measure).
    reference : Candidate
        :data:`REFERENCE`.
    text : str
        The recommendation in plain language (a long optimum string is named by
        :func:`display_name`; the string itself is ``best.measure``).
    """

    best: Candidate
    best_preset: Candidate
    most_stable_overall: Candidate
    reference: Candidate
    text: str

    def to_dict(self) -> dict:
        return {
            "measure": self.best.measure,
            "family": self.best.family,
            "phi": _num(self.best.phi),
            "topics_needed_090": _num(self.best.topics_90),
            "topics_needed_095": _num(self.best.topics_95),
            "kendall_tau_reference": _num(self.best.kendall_tau),
            "reference": self.reference.measure,
            "best_preset": self.best_preset.measure,
            "most_stable_overall": self.most_stable_overall.measure,
            "text": self.text,
        }


@dataclass(frozen=True, eq=False)
class Study:
    """Everything ``irstab report`` shows, with the library objects it came from.

    Attributes
    ----------
    systems, topics : tuple of str
    depth : int
    cutoffs : tuple of int
    settings : dict
        ``starts, n_bootstrap, seed, alpha, tol`` as used.
    candidates : tuple of Candidate
        In order: presets, metrics, optima (per cutoff: discount, gain,
        joint), minimax, and the reference when it is none of those.
    gstudies : dict
        ``{measure: GStudy}`` (degenerate candidates are absent).
    optima : tuple of (str, int, OptimizationResult)
        ``(kind, cutoff, result)`` for every single-cutoff problem.
    minimax : OptimizationResult or None
        None with a single cutoff.
    comparison : irstab.compare.MeasureComparison
    recommendation : Recommendation
    warnings : tuple of str
        Warnings raised during the study, in order.
    seconds : float
    """

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    depth: int
    cutoffs: tuple[int, ...]
    settings: dict
    candidates: tuple[Candidate, ...]
    gstudies: dict
    optima: tuple
    minimax: object
    comparison: object
    recommendation: Recommendation
    warnings: tuple[str, ...]
    seconds: float

    def candidate(self, measure: str) -> Candidate:
        """The candidate with this canonical string."""
        for c in self.candidates:
            if c.measure == measure:
                return c
        raise IRStabError(f"measure: {measure!r} is not a candidate of this study")

    def to_dict(self) -> dict:
        """``report.json``: every number of the report, JSON-ready."""
        return {
            "collection": {
                "n_systems": len(self.systems),
                "n_topics": len(self.topics),
                "depth": self.depth,
                "systems": list(self.systems),
                "topics": list(self.topics),
            },
            "cutoffs": list(self.cutoffs),
            "settings": dict(self.settings),
            "reference": REFERENCE,
            "targets": list(TARGETS),
            "recommendation": self.recommendation.to_dict(),
            "candidates": [c.to_dict() for c in self.candidates],
            "gstudies": {m: g.to_dict() for m, g in self.gstudies.items()},
            "optima": [
                {"kind": kind, "cutoff": k, **r.to_dict()} for kind, k, r in self.optima
            ],
            "minimax": None if self.minimax is None else self.minimax.to_dict(),
            "comparison": self.comparison.to_dict(),
            "warnings": list(self.warnings),
            "seconds": self.seconds,
        }


# ----------------------------------------------------------------- pipeline


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _check_args(collection, cutoffs, starts, n_bootstrap, alpha, seed) -> tuple[int, ...]:
    if not isinstance(collection, Collection):
        raise IRStabError(
            f"collection: expected an irstab.Collection, got {type(collection).__name__}"
        )
    try:
        ks = tuple(int(k) for k in cutoffs)
    except (TypeError, ValueError):
        raise IRStabError(f"cutoffs: expected integers, got {cutoffs!r}") from None
    if not ks:
        raise IRStabError("cutoffs: give at least one cutoff")
    if len(set(ks)) != len(ks):
        raise IRStabError(f"cutoffs: must be distinct, got {list(ks)}")
    bad = [k for k in ks if k < 1 or k > collection.depth]
    if bad:
        raise IRStabError(
            f"cutoffs: {bad} outside 1..{collection.depth} (the collection's depth; "
            "read the runs deeper or lower the cutoffs)"
        )
    if collection.depth < 10:
        raise IRStabError(
            f"depth: the study needs depth >= 10 for {REFERENCE}, got {collection.depth}"
        )
    if not _is_int(starts) or starts < 0:
        raise IRStabError(f"starts: expected an integer >= 0, got {starts!r}")
    if not _is_int(n_bootstrap) or n_bootstrap < 1:
        raise IRStabError(f"n_bootstrap: expected an integer >= 1, got {n_bootstrap!r}")
    if not _is_int(seed):
        raise IRStabError(f"seed: expected an integer (randomness is always seeded), got {seed!r}")
    check_seed(seed)
    if not 0 < alpha < 1:
        raise IRStabError(f"alpha: expected a number in (0, 1), got {alpha!r}")
    return tuple(sorted(ks))


def display_name(c: Candidate) -> str:
    """Short name of a candidate: its measure string, or e.g. ``optimal joint nDCG@100``.

    Optimum strings carry whole vectors; they are named by family and cutoff instead.
    """
    if len(c.measure) <= DISPLAY_MAX:
        return c.measure
    return f"{c.family} nDCG@{c.cutoff}" if c.cutoff is not None else f"{c.family} nDCG"


def _fmt_n(v: float) -> str:
    if not math.isfinite(v):
        return "no number of topics"
    return f"{int(v)} topic" if v == 1 else f"{int(v)} topics"


def fmt_value(v: float, spec: str) -> str:
    """``format(v, spec)``, or ``undefined`` for NaN (e.g. tau with a constant ranking)."""
    return format(v, spec) if math.isfinite(v) else "undefined"


def _named(c: Candidate) -> str:
    name = display_name(c)
    return f"{name} ({c.family})" if name == c.measure and c.family != "preset" else name


def _recommend(cands: Sequence[Candidate], n_topics: int) -> Recommendation:
    def best_of(pool):
        pool = [c for c in pool if math.isfinite(c.phi)]
        if not pool or max(c.phi for c in pool) <= 0:
            raise DegenerateDataError(
                "no candidate has a positive Phi (no system variance): the systems do not "
                "differ on this collection, so no measure can be recommended"
            )
        return max(pool, key=lambda c: c.phi)  # max keeps the first of ties

    best = best_of([c for c in cands if c.is_ndcg])
    preset = best_of([c for c in cands if c.family == "preset"])
    overall = best_of(cands)
    ref = next(c for c in cands if c.measure == REFERENCE)
    lines = [
        (
            f"Use {_named(best)}. Of the nDCG configurations studied it "
            f"compares systems most stably on this collection: Phi = {best.phi:.3f} with the "
            f"{n_topics} topics you have (plain {REFERENCE}: {ref.phi:.3f})."
        ),
        (
            f"It needs {_fmt_n(best.topics_90)} for Phi = 0.90 and {_fmt_n(best.topics_95)} "
            f"for Phi = 0.95; {REFERENCE} needs {_fmt_n(ref.topics_90)} and "
            f"{_fmt_n(ref.topics_95)}."
        ),
        (
            f"Its system ranking agrees with {REFERENCE} at Kendall tau = "
            f"{fmt_value(best.kendall_tau, '.3f')}; it finds "
            f"{fmt_value(best.discriminative_power, '.0%')} of system pairs significantly different "
            f"({REFERENCE}: {fmt_value(ref.discriminative_power, '.0%')})."
        ),
    ]
    if best.measure != ref.measure and best.phi_lower <= ref.phi:
        lines.append(
            f"{REFERENCE}'s Phi ({ref.phi:.3f}) lies inside the 95 % interval of this Phi "
            f"[{best.phi_lower:.3f}, {best.phi_upper:.3f}]: with {n_topics} topics the "
            "difference in stability is within the sampling uncertainty."
        )
    if preset.measure != best.measure:
        lines.append(
            f"If you prefer a named preset, {_named(preset)} is the most stable one "
            f"(Phi = {preset.phi:.3f}, {_fmt_n(preset.topics_95)} for Phi = 0.95)."
        )
    if overall.measure != best.measure:
        lines.append(
            f"Of all measures, {_named(overall)} is the most stable (Phi = {overall.phi:.3f})."
        )
    return Recommendation(best, preset, overall, ref, " ".join(lines))


def run_study(
    collection: Collection,
    cutoffs: Sequence[int] = (10, 20, 100),
    *,
    starts: int = 4,
    n_bootstrap: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    tol: float = 1e-4,
    swap_trials: int = 200,
    progress: Progress | None = None,
) -> Study:
    """Run the whole stability study on one collection.

    Parameters
    ----------
    collection : irstab.Collection
        Depth at least the largest cutoff (and at least 10).
    cutoffs : sequence of int
        Distinct cutoffs of the nDCG presets, the cutoff measures and the
        optimizer (sorted ascending).
    starts : int
        Seeded random optimizer starts besides the presets.
    n_bootstrap : int
        Bootstrap samples of the discriminative power.
    seed : int
        Seed of the optimizer starts and of the bootstrap and swap-rate
        samples (the only randomness).
    alpha : float
        Significance level of the discriminative power.
    tol : float
        Optimizer convergence tolerance (Frank-Wolfe gap).
    swap_trials : int
        Trials of the swap rate (in :attr:`Study.comparison`).
    progress : callable, optional
        ``progress(step, done, total)`` after every step.

    Returns
    -------
    Study

    Raises
    ------
    irstab.errors.IRStabError
        Bad arguments (named), a cutoff beyond the depth, fewer than 2
        systems or topics, no candidate with a finite Phi.

    Examples
    --------
    >>> import irstab
    >>> sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=8, depth=20, seed=3)
    >>> coll = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
    >>> st = run_study(coll, cutoffs=(5, 10), starts=0, n_bootstrap=50, tol=1e-3)
    >>> st.recommendation.best.is_ndcg
    True
    """
    from ..compare import compare_measures
    from ..evaluation import score_matrices
    from ..metrics import parse_measure
    from ..stability import gstudy

    t0 = time.perf_counter()
    ks = _check_args(collection, cutoffs, starts, n_bootstrap, alpha, seed)
    if collection.n_systems < 2 or collection.n_topics < 2:
        raise DegenerateDataError(
            f"a study needs at least 2 systems and 2 topics, got {collection.n_systems} "
            f"systems and {collection.n_topics} topics"
        )
    kinds = [(kind, k) for k in ks for kind in OPT_KINDS]
    if len(ks) > 1:
        kinds.append(("minimax", None))
    total = 5 + len(kinds)  # presets, each optimum, optima scored, G-studies, compare, verdict
    done = 0

    def step(name: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(name, done, total)

    opt_options = {"starts": starts, "seed": seed, "tol": tol, "strict": False}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        families: dict[str, tuple[str, int | None]] = {}

        def add(measure: str, family: str, cutoff: int | None) -> None:
            families.setdefault(str(parse_measure(measure)), (family, cutoff))

        longest = int(collection.run_length.max(initial=0))
        beyond = [k for k in ks if k > longest]
        if beyond:
            warnings.warn(
                f"cutoffs {beyond} exceed the longest run ({longest} documents): ranks beyond "
                f"{longest} hold no document, so optimal weights there are arbitrary",
                IRStabWarning, stacklevel=2,
            )
        scores = score_matrices(collection, preset_set(ks) + metric_set(ks))
        for m in scores:
            k = next((k for k in ks if m.endswith(f"@{k}")), None)
            add(m, "preset" if m.startswith("nDCG") else "metric", k)
        step("scored presets and metrics")

        optima, mm = [], None
        for kind, k in kinds:
            if kind == "minimax":
                mm = _solve("minimax", collection, ks, **opt_options)
                for sc in mm.scenarios:
                    add(sc.optimum.measure, "minimax", sc.cutoff)
                step("minimax over cutoffs")
            else:
                res = _solve(kind, collection, (k,), **opt_options)
                optima.append((kind, k, res))
                add(res.measure_string, f"optimal {kind}", k)
                step(f"optimal {kind} @{k}")
        extra = [m for m in families if m not in scores]
        if REFERENCE not in families:
            add(REFERENCE, "reference", 10)
            extra.append(REFERENCE)
        scores.update(score_matrices(collection, extra))
        names = list(families)
        scores = {m: scores[m] for m in names}
        step("scored optima")

        gs = {}
        for m in names:
            try:
                gs[m] = gstudy(scores[m], name=m)
            except DegenerateDataError as exc:
                warnings.warn(f"{m}: {exc}; its stability figures are NaN", stacklevel=2)
        step("G-studies")

        cmp = compare_measures(
            scores, n_bootstrap=n_bootstrap, alpha=alpha, seed=seed, swap_trials=swap_trials
        )
        step("discriminative power and Kendall tau")

    order = {m: i for i, m in enumerate(cmp.measures)}
    ref_i = order[REFERENCE]
    nan = float("nan")
    cands = []
    for m in names:
        fam, k = families[m]
        g = gs.get(m)
        if g is None:
            phi1 = phi = erho2 = lo = hi = t90 = t95 = nan
        else:
            phi1, phi, erho2 = g.phi(1), g.phi(), g.erho2()
            lo, hi = g.phi_interval()
            t90, t95 = (g.topics_needed(t, "phi").n for t in TARGETS)
        i = order[m]
        cands.append(
            Candidate(
                measure=m, family=fam, cutoff=k, mean=float(np.mean(scores[m].to_numpy())),
                phi1=phi1, phi=phi, erho2=erho2, phi_lower=lo, phi_upper=hi,
                topics_90=t90, topics_95=t95,
                discriminative_power=float(cmp.bootstrap.discriminative_power[i]),
                n_significant=int(cmp.bootstrap.n_significant[i]),
                kendall_tau=float(cmp.correlation.kendall_tau[i, ref_i]),
            )
        )
    rec = _recommend(cands, collection.n_topics)
    step("recommendation")
    return Study(
        systems=tuple(str(s) for s in cmp.systems),
        topics=tuple(str(t) for t in scores[REFERENCE].columns),
        depth=int(collection.depth),
        cutoffs=ks,
        settings={"starts": int(starts), "n_bootstrap": int(n_bootstrap), "seed": seed,
                  "alpha": float(alpha), "tol": float(tol), "swap_trials": int(swap_trials)},
        candidates=tuple(cands),
        gstudies=gs,
        optima=tuple(optima),
        minimax=mm,
        comparison=cmp,
        recommendation=rec,
        warnings=tuple(dict.fromkeys(str(w.message) for w in caught)),
        seconds=time.perf_counter() - t0,
    )
