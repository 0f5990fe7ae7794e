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
4. merges configurations with the same scores on every cell into one row
   (:func:`irstab.report.candidates.merge_identical`);
5. compares the candidates (:func:`irstab.compare.compare_measures`):
   Kendall's tau with the baseline and Sakai's bootstrap discriminative power;
6. decides (:mod:`irstab.verdict.paired`, :mod:`irstab.verdict.decision`):
   each candidate against the baseline (``nDCG@10`` unless ``baseline`` says
   otherwise) on the same draws, the difference in Phi with a calibrated
   interval (generalized pivots of the multivariate G-study, for fresh
   systems and topics; simultaneous over the nDCG configurations, the
   measures that can be recommended; marginal for the other metrics) and the
   difference in significant pairs; a change is recommended only when the
   Phi interval lies above zero and the saving in topics for Phi = 0.95 is
   material (:func:`irstab.report.recommend.recommend` words it).

Choices
-------
* The baseline is scored even when its cutoff is not among the cutoffs
  (``nDCG@10`` needs depth >= 10).
* Only nDCG configurations (presets, optima, the baseline) may be
  recommended, so only their intervals are simultaneous; the other measures
  get marginal intervals, for context, and the text says when one of them
  would pass the rule on its own interval.
* Ties of the Phi difference go to the first candidate in the order above
  (presets before optima), i.e. the simpler configuration.
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
from .._repr import short_repr
from ..collection import Collection
from ..errors import DegenerateDataError, IRStabError, IRStabWarning
from .candidates import (
    DISPLAY_MAX,
    NDCG_FAMILIES,
    Candidate,
    Member,
    display_name,
    fmt_value,
    merge_identical,
)
from .heldout import cross_fitted_rows, in_sample_differences
from .recommend import Recommendation, recommend

__all__ = [
    "DISPLAY_MAX",
    "NDCG_FAMILIES",
    "REFERENCE",
    "TARGETS",
    "Candidate",
    "Recommendation",
    "Study",
    "metric_set",
    "display_name",
    "fmt_value",
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

Progress = Callable[[str, int, int], None]


def preset_set(cutoffs: Sequence[int]) -> list[str]:
    """The nDCG presets (gain x discount) at every cutoff, as measure strings."""
    return [
        f"nDCG(gain={g},discount={d})@{k}" for k in cutoffs for g in _GAINS for d in _DISCOUNTS
    ]


def metric_set(cutoffs: Sequence[int], max_grade: int = 4) -> list[str]:
    """The other measures of the study, as measure strings.

    ERR is on gdeval's grade scale (0..4, as ir_measures computes it); qrels with a larger
    grade get ``ERR(max_grade=qrels)``, whose scale is their largest grade.
    """
    out = [*_FIXED_METRICS, *(m.format(k=k) for k in cutoffs for m in _CUTOFF_METRICS)]
    if max_grade > 4:
        out = [m.replace("ERR@", "ERR(max_grade=qrels)@") for m in out]
    return out


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

#: Keys of the comparison records left out of report.json without ``--full``: per pair of
#: systems (asl) or per pair of measures (each candidate's tau with the baseline stays).
_PER_PAIR = frozenset({"pairs", "asl", "kendall_tau", "tau_ap", "spearman", "rmse", "tukey",
                       "ttest"})


@short_repr
@dataclass(frozen=True, eq=False)
class Study:
    """Everything ``irstab report`` shows, with the library objects it came from.

    Attributes
    ----------
    systems, topics : tuple of str
    depth : int
    cutoffs : tuple of int
    settings : dict
        ``starts, n_bootstrap, seed, alpha, tol, swap_trials, interval,
        min_saving`` as used.
    baseline : str
        The measure the candidates are compared with.
    candidates : tuple of Candidate
        In order: presets, metrics, optima (per cutoff: discount, gain,
        joint), minimax, and the baseline when it is none of those; one row
        per group of identical configurations.
    gstudies : dict
        ``{measure: GStudy}`` (degenerate candidates are absent).
    optima : tuple of (str, int, OptimizationResult)
        ``(kind, cutoff, result)`` for every single-cutoff problem.
    minimax : OptimizationResult or None
        None with a single cutoff.
    comparison : irstab.compare.MeasureComparison
    paired : irstab.verdict.PairedComparison
    recommendation : Recommendation
    scores : dict
        ``{measure: systems x topics DataFrame}`` of the candidates.
    cross_fitted : dict
        ``{measure: systems x topics DataFrame}``: the held-out scores of every
        optimised candidate, on which the verdict judges it
        (:mod:`irstab.optimizer.crossfit`).
    trust : irstab.trust.result.TrustCalibration or None
        The trust card: the baseline's tests, verdict and topics needed on
        collections simulated like this one (None when not asked for).
    trust_note : str
        Why there is no trust card, when it was asked for and could not be made.
    warnings : tuple of str
        Warnings raised during the study, in order.
    seconds : float
    """

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    depth: int
    cutoffs: tuple[int, ...]
    settings: dict
    baseline: str
    candidates: tuple[Candidate, ...]
    gstudies: dict
    optima: tuple
    minimax: object
    comparison: object
    paired: object
    recommendation: Recommendation
    scores: dict
    warnings: tuple[str, ...]
    seconds: float
    cross_fitted: dict = None
    trust: object = None
    trust_note: str = ""

    def _summary(self) -> str:
        rec = self.recommendation
        verdict = (f"use {display_name(rec.use)} instead of {display_name(rec.baseline)}"
                   if rec.change else f"keep {display_name(rec.baseline)}")
        return (f"{len(self.systems)} systems x {len(self.topics)} topics, cutoffs "
                f"{'/'.join(map(str, self.cutoffs))}, {len(self.candidates)} candidates; "
                f"verdict: {verdict} (Phi {rec.baseline.phi:.3f} at {len(self.topics)} topics); "
                ".to_frame() for the candidates, write_report() for the report")

    def to_frame(self):
        """The candidates, most dependable first: Phi, the difference to the baseline with its
        simultaneous interval, topics for Phi = 0.95, discriminative power, Kendall's tau."""
        import pandas as pd

        rows = [{
            "measure": display_name(c), "family": c.family, "phi": c.phi,
            "phi_diff": c.phi_diff, "phi_diff_lower": c.phi_diff_lower,
            "phi_diff_upper": c.phi_diff_upper, "topics_95": c.topics_95,
            "discriminative_power": c.discriminative_power, "kendall_tau": c.kendall_tau,
        } for c in self.candidates]
        return pd.DataFrame(rows).sort_values("phi", ascending=False, kind="stable",
                                              na_position="last").reset_index(drop=True)

    def candidate(self, measure: str) -> Candidate:
        """The candidate with this canonical string."""
        for c in self.candidates:
            if c.measure == measure:
                return c
        raise IRStabError(f"measure: {measure!r} is not a candidate of this study")

    def system_ranking(self, measure: str):
        """Systems by mean score under ``measure``, best first (a pandas Series)."""
        return self.scores[measure].mean(axis=1).sort_values(ascending=False, kind="stable")

    def to_dict(self, full: bool = False) -> dict:
        """``report.json``: every number of the report, JSON-ready.

        ``full=False`` leaves out the per-pair results of the measure
        comparison (p-values and mean differences of every pair of systems
        under every measure: most of the bytes); ``full=True`` keeps them.
        """
        comparison = self.comparison.to_dict()
        if not full:
            comparison["records"] = [
                {k: v for k, v in r.items() if k not in _PER_PAIR} for r in comparison["records"]
            ]
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
            "baseline": self.baseline,
            "targets": list(TARGETS),
            "recommendation": self.recommendation.to_dict(),
            "candidates": [c.to_dict() for c in self.candidates],
            "gstudies": {m: g.to_dict() for m, g in self.gstudies.items()},
            "optima": [
                {"kind": kind, "cutoff": k, **r.to_dict()} for kind, k, r in self.optima
            ],
            "minimax": None if self.minimax is None else self.minimax.to_dict(),
            "comparison": comparison,
            "paired_comparison": self.paired.to_dict(),
            "trust_card": None if self.trust is None else self.trust.to_dict(),
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
    baseline: str = REFERENCE,
    interval: str = "jackknife",
    min_saving: float = 0.10,
    folds: int = 5,
    trust_card: bool = False,
    trust_replicates: int | None = None,
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
        Bootstrap samples of the discriminative power, and draws of the
        verdict's intervals (raised to :func:`irstab.verdict.paired.min_draws`
        of its candidates where that is larger; ``settings["verdict_draws"]``).
    seed : int
        Seed of the optimizer starts and of the bootstrap and swap-rate
        samples (the only randomness).
    alpha : float
        Significance level of the discriminative power.
    tol : float
        Optimizer convergence tolerance (Frank-Wolfe gap).
    swap_trials : int
        Trials of the swap rate (in :attr:`Study.comparison`).
    baseline : str
        The measure in use, that a change must beat (default ``nDCG@10``).
    interval : {"jackknife", "parametric", "bootstrap", "topic-bootstrap"}
        How the intervals of the Phi differences are made
        (:mod:`irstab.verdict.paired`; ``"jackknife"`` is calibrated on real and
        normal collections, ``"parametric"`` on normal ones only, the others
        reproduce earlier reports).
    min_saving : float
        Smallest saving of topics (fraction of the baseline's, for
        Phi = 0.95) that makes a change worth recommending.
    folds : int
        Folds of topics the optimised configurations are cross-fitted over
        (:mod:`irstab.optimizer.crossfit`): the rule judges them on held-out
        scores; 0 judges them in sample (optimistic; not recommended).
    trust_card : bool
        Add the trust card (:mod:`.trust_card`): the baseline's paired tests,
        the verdict (against a twin and for each nDCG candidate) and topics
        needed, calibrated on collections like this one, with the simulator's
        fit check (``irstab report`` does by default).
    trust_replicates : int, optional
        Simulated collections of the card's tests (default: enough for a
        Monte-Carlo error of about 0.005 on a 5 % rate).
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
    >>> st.recommendation.use.is_ndcg
    True
    """
    from ..compare import compare_measures
    from ..evaluation import score_matrices
    from ..metrics import parse_measure
    from ..stability import gstudy

    from ..verdict import decide, paired_comparison
    from ..verdict.paired import min_draws
    from ..verdict.paired import check_interval

    t0 = time.perf_counter()
    ks = _check_args(collection, cutoffs, starts, n_bootstrap, alpha, seed)
    try:
        base = str(parse_measure(baseline))
    except IRStabError as exc:
        raise IRStabError(f"baseline: {exc}") from None
    interval = check_interval(interval).value
    if not 0 <= min_saving < 1:
        raise IRStabError(f"min_saving: expected a fraction in [0, 1), got {min_saving!r}")
    if collection.n_systems < 3 or collection.n_topics < 3:
        raise DegenerateDataError(
            f"a study needs at least 3 systems and 3 topics (the verdict's jackknife leaves one "
            f"of each out), got {collection.n_systems} systems and {collection.n_topics} topics"
        )
    kinds = [(kind, k) for k in ks for kind in OPT_KINDS]
    if len(ks) > 1:
        kinds.append(("minimax", None))
    total = 5 + len(kinds) + bool(trust_card)  # presets, optima, scored, G-studies, compare,
    # verdict, and the trust card
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
        scores = score_matrices(collection, preset_set(ks) + metric_set(ks, collection.max_grade))
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
        if base not in families:
            k = next((k for k in ks if base.endswith(f"@{k}")), None)
            add(base, "reference", k)
            extra.append(base)
        try:
            scores.update(score_matrices(collection, extra))
        except IRStabError as exc:
            if base in extra and base in str(exc):
                raise IRStabError(f"baseline: {exc}") from None
            raise
        groups = merge_identical(list(families), scores, first=base)
        names = list(groups)
        scores = {m: scores[m] for m in names}
        step("scored optima")

        gs = {}
        for m in names:
            try:
                gs[m] = gstudy(scores[m], name=m)
            except DegenerateDataError as exc:
                warnings.warn(f"{m}: {exc}; its stability figures are NaN", stacklevel=2)
        # optimised rows are judged on held-out topics: every topic scored by the
        # configuration optimised without its fold (irstab.optimizer.crossfit)
        fitted = cross_fitted_rows(collection, optima, mm, ks, names, families, scores, gs,
                               folds, seed, tol)
        step("G-studies and cross-fitting")

        cmp = compare_measures(
            scores, n_bootstrap=n_bootstrap, alpha=alpha, seed=seed, swap_trials=swap_trials
        )
        family = [m for m in names if m != base and m in gs and families[m][0] in NDCG_FAMILIES]
        # the verdict's draws must resolve every tail of the family's simultaneous intervals
        draws = max(int(n_bootstrap), min_draws(len(family), len(cmp.systems), interval=interval))
        paired = paired_comparison(
            {m: fitted[m][0] if m in fitted else scores[m] for m in names}, base,
            candidates=family, interval=interval, n_bootstrap=draws, alpha=alpha, seed=seed,
        )
        in_sample = in_sample_differences(scores, base, list(fitted), interval, seed)
        step("discriminative power, Kendall tau and the paired comparison")

    order = {m: i for i, m in enumerate(cmp.measures)}
    ref_i = order[base]
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
        i, p = order[m], paired.index(m)
        cf = {}
        if m in fitted:
            _, g_cf = fitted[m]
            k_in = in_sample.index(m)
            cf = dict(cross_fitted=True,
                      phi_cross_fitted=float(paired.phi[p]),
                      topics_95_cross_fitted=(g_cf.topics_needed(TARGETS[-1], "phi").n
                                              if g_cf is not None else math.inf),
                      phi_diff_in_sample=float(in_sample.diff[k_in]),
                      phi_diff_in_sample_lower=float(in_sample.lower[k_in]),
                      phi_diff_in_sample_upper=float(in_sample.upper[k_in]))
        cands.append(
            Candidate(
                measure=m, family=fam, cutoff=k, mean=float(np.mean(scores[m].to_numpy())),
                phi1=phi1, phi=phi, erho2=erho2, phi_lower=lo, phi_upper=hi,
                topics_90=t90, topics_95=t95,
                discriminative_power=float(cmp.bootstrap.discriminative_power[i]),
                n_significant=int(cmp.bootstrap.n_significant[i]),
                kendall_tau=float(cmp.correlation.kendall_tau[i, ref_i]),
                phi_diff=float(paired.phi_diff[p]) if g is not None else nan,
                phi_diff_lower=float(paired.phi_diff_lower[p]) if g is not None else nan,
                phi_diff_upper=float(paired.phi_diff_upper[p]) if g is not None else nan,
                phi_diff_kind=paired.interval_kind(m),
                sig_diff=float(paired.sig_diff[p]),
                sig_diff_lower=float(paired.sig_diff_lower[p]),
                sig_diff_upper=float(paired.sig_diff_upper[p]),
                aliases=tuple(Member(a, *families[a]) for a in groups[m]),
                **cf,
            )
        )
    needed = {c.measure: c.topics_95_verdict if math.isfinite(c.phi) else math.inf
              for c in cands}
    ndcg = [c.measure for c in cands if c.is_ndcg and math.isfinite(c.phi)]
    others = [c.measure for c in cands if not c.is_ndcg and math.isfinite(c.phi)]
    verdict = decide(paired, needed, pool=ndcg, target=TARGETS[-1], min_saving=min_saving)
    other = (decide(paired, needed, pool=others, target=TARGETS[-1], min_saving=min_saving)
             if others else None)
    rec = recommend(cands, verdict, other, collection.n_topics, paired.n_pairs,
                    {"cross_fit_folds": int(folds), "n_systems": collection.n_systems})
    step("recommendation")
    trust, trust_note = None, ""
    if trust_card:
        from .trust_card import trust_card as make_card

        # the verdict's pool, as its intervals judge them, named as the report's rows are
        pool = [c for c in cands if c.measure in family and c.measure in ndcg]
        shown = [display_name(c) for c in pool]
        judged = {(n if shown.count(n) == 1 else c.measure):
                  fitted[c.measure][0] if c.measure in fitted else scores[c.measure]
                  for n, c in zip(shown, pool)}
        trust, trust_note = make_card(scores[base], base, alpha, n_bootstrap, seed,
                                      trust_replicates, judged)
        step("trust card")
    return Study(
        systems=tuple(str(s) for s in cmp.systems),
        topics=tuple(str(t) for t in scores[base].columns),
        depth=int(collection.depth),
        cutoffs=ks,
        settings={"starts": int(starts), "n_bootstrap": int(n_bootstrap),
                  "verdict_draws": int(paired.n_bootstrap), "seed": seed,
                  "alpha": float(alpha), "tol": float(tol), "swap_trials": int(swap_trials),
                  "interval": interval, "min_saving": float(min_saving),
                  "cross_fit_folds": int(folds)},
        baseline=base,
        candidates=tuple(cands),
        gstudies=gs,
        optima=tuple(optima),
        minimax=mm,
        comparison=cmp,
        paired=paired,
        recommendation=rec,
        scores=scores,
        warnings=tuple(dict.fromkeys(str(w.message) for w in caught)),
        seconds=time.perf_counter() - t0,
        cross_fitted={m: frame for m, (frame, _) in fitted.items()},
        trust=trust,
        trust_note=trust_note,
    )
