r"""Measure against measure: rank correlation, discriminative power, swap rates, PAD.

How a user judges whether a stability-optimal nDCG (or GAP, or a UL-normalised
measure) ranks systems differently and discriminates them better (Kanoulas & Aslam, CIKM 2009
§3.4-3.5, Robertson, Kanoulas & Yilmaz, SIGIR 2010, §4.2, Karmaker & Feng, 2022, §4.4). Every
function takes the score matrices of several measures on the same systems and topics,
``{measure: systems x topics}`` (e.g. :func:`irstab.score_matrices`):

* :func:`rank_correlation` (:mod:`.correlation`): Kendall's tau-b, tau_AP (directed and
  symmetric), Spearman, RMSE of mean scores;
* :func:`discriminative_power` (:mod:`.discriminative`): Sakai's paired bootstrap ASLs, one set
  of bootstrap samples for all pairs and measures; :func:`randomised_tukey_hsd` and
  :func:`paired_t_tests` (with Holm, Bonferroni or BH correction) and how often two measures
  disagree on them;
* :func:`swap_rates` and :func:`percentage_absolute_difference` (PAD) (:mod:`.consistency`);
* :func:`compare_measures`: all of the above in one result, as ``irstab compare`` prints it;
* :func:`informativeness`: the maximum entropy method (Aslam, Yilmaz &
  Pavlu, SIGIR 2005), from :mod:`irstab.informativeness`.

The other questions have rooms of their own: *should I change my measure?* is
:mod:`irstab.verdict`; *is system A better than B?* is :mod:`irstab.systems`; *how far can I
trust the answers on this collection?* is :mod:`irstab.trust`. The verdict's names
(:func:`verdict`, :func:`decide`, :func:`paired_comparison`, :class:`Verdict`,
:class:`PairedComparison`, :class:`PhiInterval`) are still importable from here; the modules
that moved out (``irstab.compare.paired``, ``.decision``, ``.significance``, ``.systems``,
``.trust``, ...) still import under their old names (``irstab.MOVED`` says where each lives
now).

May import: :mod:`irstab.verdict` (those names only), :mod:`irstab.stability`,
:mod:`irstab.informativeness` and the floors below them; never :mod:`irstab.systems`,
:mod:`irstab.trust`, the optimizer, the report or the CLI.

Examples
--------
>>> import irstab
>>> from irstab.compare import compare_measures
>>> sim = irstab.simulate.simulate_collection(n_systems=5, n_topics=12, depth=20, seed=2)
>>> coll = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
>>> cmp = compare_measures(irstab.score_matrices(coll, ["nDCG@10", "AP"]), n_bootstrap=200, seed=1)
>>> cmp.summary()[["measure", "n_pairs"]].to_dict("list")
{'measure': ['nDCG@10', 'AP'], 'n_pairs': [10, 10]}
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from .._numeric import check_allocation
from .._repr import short_repr
from ..errors import IRStabError
from ..io.scores import as_scores, check_alpha
from .consistency import (
    PercentageAbsoluteDifference,
    SwapRates,
    percentage_absolute_difference,
    swap_rate_between,
    swap_rates,
)
from .correlation import (
    RankCorrelation,
    kendall_tau,
    rank_correlation,
    rmse,
    spearman_rho,
    tau_ap,
    tau_ap_symmetric,
)
from ..informativeness import Informativeness, informativeness
from .discriminative import (
    Correction,
    PairwiseTests,
    bootstrap_samples,
    discriminative_power,
    paired_t_tests,
    randomised_tukey_hsd,
)
# The verdict's names, where they were before the verdict had its own room (irstab.verdict)
from ..verdict import PairedComparison, PhiInterval, Verdict, decide, paired_comparison, verdict

__all__ = [
    "MeasureComparison",
    "compare_measures",
    "RankCorrelation",
    "rank_correlation",
    "kendall_tau",
    "tau_ap",
    "tau_ap_symmetric",
    "spearman_rho",
    "rmse",
    "PairwiseTests",
    "Correction",
    "bootstrap_samples",
    "discriminative_power",
    "randomised_tukey_hsd",
    "paired_t_tests",
    "SwapRates",
    "swap_rates",
    "swap_rate_between",
    "PercentageAbsoluteDifference",
    "percentage_absolute_difference",
    "Informativeness",
    "informativeness",
    "verdict",
    "Verdict",
    "decide",
    "paired_comparison",
    "PairedComparison",
    "PhiInterval",
]


def _num(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


@short_repr
@dataclass(frozen=True, eq=False)
class MeasureComparison:
    """Everything ``irstab compare`` reports, on one set of systems (after ``top``).

    Attributes
    ----------
    measures, systems : tuple of str
    n_topics : int
    correlation : RankCorrelation
    bootstrap : PairwiseTests
        Sakai's paired bootstrap (ASL per pair).
    swap : SwapRates
    pad : PercentageAbsoluteDifference
    tukey : PairwiseTests or None
        Randomised Tukey HSD, when requested.
    ttest : PairwiseTests or None
        Corrected paired t-tests, when requested.
    """

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    n_topics: int
    correlation: RankCorrelation
    bootstrap: PairwiseTests
    swap: SwapRates
    pad: PercentageAbsoluteDifference
    tukey: PairwiseTests | None = None
    ttest: PairwiseTests | None = None

    def _summary(self) -> str:
        power = ", ".join(
            f"{m} {p:.0%}" for m, p in zip(self.measures, self.bootstrap.discriminative_power)
        )
        return (
            f"{len(self.measures)} measures, {len(self.systems)} systems, {self.n_topics} topics; "
            f"discriminative power at {self.bootstrap.alpha:g}: {power}"
        )

    def summary(self) -> pd.DataFrame:
        """One row per measure: pairs, significant pairs, discriminative power, swap summary, PAD."""
        frame = pd.DataFrame(
            {
                "measure": list(self.measures),
                "n_systems": len(self.systems),
                "n_pairs": self.bootstrap.n_pairs,
                "n_significant": self.bootstrap.n_significant,
                "discriminative_power": self.bootstrap.discriminative_power,
                "swap_rate": self.swap.overall,
                "min_difference": self.swap.min_difference,
                "min_difference_relative": self.swap.min_difference_relative,
                "pad": self.pad.mean,
            }
        )
        if self.tukey is not None:
            frame["tukey_significant"] = self.tukey.n_significant
        if self.ttest is not None:
            frame["ttest_significant"] = self.ttest.n_significant
        return frame

    def to_frame(self) -> pd.DataFrame:
        """Same as :meth:`summary`."""
        return self.summary()

    def to_records(self) -> list[dict]:
        """The JSON of ``irstab compare``: one object per measure.

        Keys: ``measure, n_systems, n_topics, n_pairs, alpha, n_bootstrap,
        n_significant, discriminative_power`` (fraction of pairs with ASL <
        alpha), ``asl`` (list over ``pairs``: ``[system_a, system_b]``, ``a``
        before ``b`` in ``systems`` order), ``kendall_tau``, ``tau_ap``
        (symmetric), ``spearman``, ``rmse`` (``{other measure: value}``),
        ``swap_rate`` (object: ``overall, min_difference,
        min_difference_relative, bins, ...``), ``pad``, and with the optional
        tests ``tukey`` / ``ttest`` (``n_significant, p_values, disagreements``).
        Non-finite numbers are ``null``.
        """
        pairs = [list(p) for p in self.bootstrap.pair_labels()]
        rc = self.correlation
        out = []
        for k, name in enumerate(self.measures):
            others = [(b, other) for b, other in enumerate(self.measures) if b != k]
            rec = {
                "measure": name,
                "n_systems": len(self.systems),
                "n_topics": self.n_topics,
                "n_pairs": self.bootstrap.n_pairs,
                "alpha": self.bootstrap.alpha,
                "n_bootstrap": self.bootstrap.n_resamples,
                "n_significant": int(self.bootstrap.n_significant[k]),
                "discriminative_power": float(self.bootstrap.discriminative_power[k]),
                "pairs": pairs,
                "asl": self.bootstrap.asl[k].tolist(),
                "kendall_tau": {o: _num(rc.kendall_tau[k, b]) for b, o in others},
                "tau_ap": {o: _num(rc.tau_ap[k, b]) for b, o in others},
                "spearman": {o: _num(rc.spearman[k, b]) for b, o in others},
                "rmse": {o: _num(rc.rmse[k, b]) for b, o in others},
                "swap_rate": self.swap.measure_dict(k),
                "pad": _num(self.pad.mean[k]),
            }
            for key, test in (("tukey", self.tukey), ("ttest", self.ttest)):
                if test is not None:
                    dis = test.disagreement_matrix()
                    rec[key] = {
                        "correction": test.correction,
                        "n_significant": int(test.n_significant[k]),
                        "p_values": test.p_values[k].tolist(),
                        "disagreements": {o: int(dis.iloc[k, b]) for b, o in others},
                    }
            out.append(rec)
        return out

    def to_dict(self) -> dict:
        return {
            "measures": list(self.measures),
            "systems": list(self.systems),
            "n_topics": self.n_topics,
            "records": self.to_records(),
        }


def compare_measures(
    scores,
    measures=None,
    *,
    n_bootstrap: int = 1000,
    alpha: float = 0.05,
    top: int | None = None,
    top_by: str | None = None,
    seed=None,
    swap_trials: int = 1000,
    subset_size: int | None = None,
    bin_width: float = 0.01,
    tukey: bool = False,
    tukey_trials: int = 1000,
    ttest: Correction | str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> MeasureComparison:
    """Compare measures on one set of systems: correlation, discriminative power, swap rate, PAD.

    ``top`` (the ``top`` best systems by mean score of ``top_by``, default
    the first measure) restricts *every* analysis to the same systems. Each
    randomised analysis draws from ``numpy.random.default_rng(seed)`` on its
    own, so with an int ``seed`` its result equals the standalone call
    (:func:`discriminative_power`, :func:`swap_rates`,
    :func:`randomised_tukey_hsd`) with that seed; a Generator is consumed in
    that order.

    Parameters
    ----------
    scores : mapping, or Collection
        ``{measure: systems x topics}`` (same systems and topics), at least 2
        systems and 2 topics; or a Collection, scored on ``measures``.
    measures : str or list, optional
        With a Collection: the measures to compare, in any spelling
        :func:`irstab.evaluate` reads (``["nDCG@10", "AP"]``, ``"ndcg_cut.10,map"``).
    n_bootstrap, alpha, top, top_by, seed
        See :func:`discriminative_power`.
    swap_trials, subset_size, bin_width
        See :func:`swap_rates` (``n_trials``, ...).
    tukey : bool
        Also run the randomised Tukey HSD test (``tukey_trials`` trials).
    ttest : {"none", "bonferroni", "holm", "bh"}, optional
        Also run paired t-tests with this correction.
    progress : callable, optional
        ``progress(stage, done, total)`` as work advances.

    Returns
    -------
    MeasureComparison
    """
    alpha = check_alpha(alpha)
    if hasattr(scores, "grades") and hasattr(scores, "systems"):  # a Collection
        if measures is None:
            raise IRStabError(
                "compare_measures: with a Collection, name the measures, e.g. "
                "irstab.compare_measures(collection, ['nDCG@10', 'AP'])"
            )
        from ..evaluation import score_matrices

        scores = score_matrices(scores, measures)
    elif measures is not None:
        raise IRStabError(
            "compare_measures: measures= goes with a Collection; score matrices carry their "
            "measures as the keys of {measure: systems x topics}"
        )
    data = as_scores(scores).select(top, top_by)
    data.require_topics(2, "comparing measures")
    M = data.n_measures
    S, T = data.n_systems, data.n_topics
    P = S * (S - 1) / 2.0
    # per pair of systems: its indices, each measure's differences on every topic with their
    # squares and transpose (the bootstrap), and a dozen per-pair results per measure; the
    # rank correlations add a systems x systems comparison
    check_allocation(8.0 * (2.0 * P + 3.0 * P * T + 12.0 * M * P) + 1.0 * S * S,
                     f"scores: {S} systems make {P:.3g} pairs to compare on {T} topics "
                     f"under {M} measure(s), which")

    def stage(name: str, total: int):
        if progress is None:
            return None
        progress(name, 0, total)
        return lambda done: progress(name, done, total)

    correlation = rank_correlation(data)
    boot = discriminative_power(
        data, n_bootstrap=n_bootstrap, alpha=alpha, seed=seed,
        progress=stage("bootstrap", M * n_bootstrap),
    )
    swap = swap_rates(
        data, n_trials=swap_trials, subset_size=subset_size, bin_width=bin_width, seed=seed,
        progress=stage("swap rate", swap_trials),
    )
    pad = percentage_absolute_difference(data)
    tk = None
    if tukey:
        tk = randomised_tukey_hsd(
            data, n_trials=tukey_trials, alpha=alpha, seed=seed,
            progress=stage("Tukey HSD", M * tukey_trials),
        )
    tt = None if ttest is None else paired_t_tests(data, correction=ttest, alpha=alpha)
    return MeasureComparison(
        measures=data.measures,
        systems=data.systems,
        n_topics=data.n_topics,
        correlation=correlation,
        bootstrap=boot,
        swap=swap,
        pad=pad,
        tukey=tk,
        ttest=tt,
    )
