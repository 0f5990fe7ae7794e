r"""Comparing systems on one measure: means, differences, effect sizes and significance.

:func:`compare_systems` is what ``irstab systems`` prints: every system's mean
score, and for every pair tested (each system against a baseline, or all pairs)
the mean difference with its interval, the standardised effect :math:`d_z` with
its interval, a p-value from the chosen test (:mod:`.significance`) and its
adjustment over the pairs, and the marks that ranx's ``compare`` report shows (a
letter per system; a system's marks are the letters of the systems it is
significantly better than).

The default test is the paired t-test: on real collections (Urbano, Lima &
Hanjalic, SIGIR 2019, on TREC ad hoc and Web runs) its type I error rate is at
the nominal level and its power matches the randomisation test's; Smucker,
Allan & Carterette (CIKM 2007) found t, randomisation and bootstrap agree on
TREC runs while Wilcoxon and the sign test disagree with them. irstab's own check,
``benchmarks/bench_significance.py`` (topics resampled from TREC DL 2019, systems
shifted to one mean for the null), finds the same: per-pair type I error and power of
the t-test and the randomisation test agree to 0.01 at 10, 20 and 43 topics, the
bootstrap test is liberal with few topics, and Wilcoxon and the sign test, which test
a median, reject more often as topics grow where only the means are equal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._numeric import check_allocation, check_varies
from .._repr import escape_name, json_records, short_repr
from ..errors import IRStabError, IRStabWarning
from ..io.scores import as_scores, check_alpha
from .significance import (Adjustment, SignificanceTest, _n_resamples, adjust, effect_sizes,
                           paired_differences, run_test)

__all__ = ["SystemComparison", "compare_systems", "system_labels", "resamples_for"]


def system_labels(n: int) -> list[str]:
    """``a, b, ..., z, aa, ab, ...``: the letters that mark systems (ranx's for 26 or fewer).

    >>> system_labels(28)[-3:]
    ['z', 'aa', 'ab']
    """
    out = []
    for k in range(n):
        label, k = "", k + 1
        while k:
            k, r = divmod(k - 1, 26)
            label = chr(ord("a") + r) + label
        out.append(label)
    return out


@short_repr
@dataclass(frozen=True, eq=False)
class SystemComparison:
    """What :func:`compare_systems` found.

    Attributes
    ----------
    measure : str
    test, correction : str
        The test and the adjustment over the pairs (``none`` for Tukey HSD, which
        controls the family-wise error rate itself).
    alpha, confidence : float
    baseline : str or None
        The system every other one was compared with; None for all pairs.
    n_topics, n_resamples : int
        ``n_resamples`` is 0 for tests that do not resample.
    systems : DataFrame
        One row per system: ``label, system, mean, better_than, worse_than`` (labels
        of the systems it is significantly better / worse than).
    pairs : DataFrame
        One row per pair ``a, b``: ``mean_a, mean_b, difference`` (a - b) with
        ``difference_low/high``, ``effect`` (:math:`d_z`) with ``effect_low/high``,
        ``statistic, p_value, p_adjusted, significant``.
    """

    measure: str
    test: str
    correction: str
    alpha: float
    confidence: float
    baseline: str | None
    n_topics: int
    n_resamples: int
    seed: object
    systems: pd.DataFrame
    pairs: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The pairs table (a copy)."""
        return self.pairs.copy()

    def to_dict(self) -> dict:
        """Everything, JSON-ready (NaN as None)."""
        return {
            "measure": self.measure, "test": self.test, "correction": self.correction,
            "alpha": self.alpha, "confidence": self.confidence, "baseline": self.baseline,
            "n_topics": self.n_topics, "n_resamples": self.n_resamples,
            "systems": json_records(self.systems), "pairs": json_records(self.pairs),
        }

    def marks(self) -> dict[str, str]:
        """``{system: letters of the systems it is significantly better than}``."""
        return dict(zip(self.systems["system"], self.systems["better_than"]))


_RESAMPLING = {SignificanceTest.permutation, SignificanceTest.bootstrap, SignificanceTest.tukey}
_DEFAULT_RESAMPLES = 10_000
_DRAWS_AT_THRESHOLD = 10  # the default B expects 10 resamples beyond a p at the smallest threshold


def resamples_for(test, correction, alpha: float, n_pairs: int,
                  n_resamples: int | None = None) -> int:
    r"""The resamples ``B`` of a Monte-Carlo test: ``n_resamples`` checked, or the default.

    A Monte-Carlo p-value is at least :math:`1/(B + 1)`. Holm's adjustment over
    :math:`m` pairs calls the smallest p-value significant only at or below
    :math:`\alpha/m` (the other adjustments, and Tukey HSD, at :math:`\alpha`), so
    with fewer than :math:`m/\alpha` resamples no pair can be
    significant whatever the data (10,000 sign flips over the 666 pairs of 37 systems
    found none of the 466 pairs Benjamini-Hochberg found on TREC DL 2019 nDCG@10): such a
    count is refused. The default is :math:`\max(10^4, \lceil 10\,m'/\alpha\rceil)`
    (:math:`m' = m` for Holm, 1 otherwise): about 10 resamples beyond a p-value at the
    smallest threshold, so that Monte-Carlo error does not decide there. Tests that do
    not resample get 0.

    >>> resamples_for("permutation", "holm", 0.05, 666), resamples_for("t", "holm", 0.05, 666)
    (133200, 0)
    >>> resamples_for("permutation", "bh", 0.05, 666)
    10000
    """
    if SignificanceTest(test) not in _RESAMPLING:
        return 0
    if n_resamples is not None:
        n_resamples = _n_resamples(n_resamples)
    m = n_pairs if Adjustment(correction) is Adjustment.holm else 1
    smallest = alpha / m
    if n_resamples is None:
        return max(_DEFAULT_RESAMPLES, math.ceil(_DRAWS_AT_THRESHOLD * m / alpha - 1e-9))
    minimum = math.ceil(m / alpha - 1e-9)  # 1/(B + 1) strictly below alpha/m: no float tie
    if n_resamples < minimum:
        where = (f"Holm's adjustment over {m} pairs needs p <= alpha/{m} = {smallest:.3g} "
                 "for the smallest" if m > 1 else f"alpha is {alpha:g}")
        raise IRStabError(
            f"n_resamples: {n_resamples} resamples give no p-value below 1/(B + 1) = "
            f"{1.0 / (n_resamples + 1):.3g} and {where}, so no pair could be significant; "
            f"give at least {minimum} (without it: "
            f"{resamples_for(test, correction, alpha, n_pairs)}), or correction 'bh'")
    return int(n_resamples)


#: CPU nanoseconds per resample and pair of the permutation and bootstrap tests (6-20 ns
#: measured on 2 cores of an AMD EPYC, 40-80 systems, 50-200 topics, 20,000 resamples).
_NS_PER_RESAMPLED_PAIR = 7.0
#: CPU seconds of resampling a default B may take; past it the default is refused (an
#: explicit n_resamples is the caller's choice).
_DEFAULT_WORK_SECONDS = 60.0


def _check_default_work(test, correction, B: int, P: int, S: int) -> None:
    """Refuse a default ``B`` whose resampling would take minutes: Holm's ``10 m / alpha``
    grows with the pairs (2,002,200 resamples for the 10,011 pairs of 142 systems, about
    2.3 CPU minutes), so a large family is told its options before any work."""
    if not B:
        return
    seconds = _NS_PER_RESAMPLED_PAIR * 1e-9 * B * P
    if seconds <= _DEFAULT_WORK_SECONDS:
        return
    minutes = seconds / 60.0
    raise IRStabError(
        f"n_resamples: the {SignificanceTest(test).value} test with "
        f"{Adjustment(correction).value} over {P} pairs of {S} systems defaults to B = {B} "
        f"resamples, about {minutes:.0f} CPU minute(s) of work (more than "
        f"{_DEFAULT_WORK_SECONDS:.0f} s); choose: correction 'bh' (--correction bh, 10,000 "
        "resamples), the t-test (--test t, no resampling), fewer pairs (a baseline: "
        "--baseline RUN, or fewer systems), or ask for the work with an explicit "
        "n_resamples (-B)")


def _pair_bytes(S: int, T: int, P: int, all_pairs: bool) -> float:
    """Bytes :func:`compare_systems` holds for ``P`` pairs of ``S`` systems on ``T`` topics.

    The pairs' indices and their ``(P, T)`` differences (taken twice: for the test
    and for the effect sizes, with one temporary of the same size), about 20
    float columns per pair (statistics, intervals, p-values, the pairs table), and
    for all pairs the ``S x S`` mask :func:`numpy.triu_indices` builds.
    """
    return 8.0 * (3.0 * P * T + 22.0 * P) + (float(S) * S if all_pairs else 0.0)


def _resample_bytes(test: SignificanceTest, B: int, T: int) -> float:
    r"""Bytes of the ``B`` resamples of a Monte-Carlo test on ``T`` topics, as if held at once.

    :math:`8B(T + 1)`: one draw per topic (a sign flip, a topic index, a
    permutation of the systems on that topic) and one statistic per resample, as
    ``irstab stability`` counts its resamples. The tests draw them in blocks of
    bounded memory, but draw every one, so this bounds the work too: ``-B 2**53``
    on 8 topics is refused instead of running for years. Tests that do not
    resample draw nothing (0).
    """
    return 8.0 * B * (T + 1) if test in _RESAMPLING else 0.0


def _check(test, correction, baseline, systems) -> tuple[SignificanceTest, Adjustment]:
    try:
        test = SignificanceTest(getattr(test, "value", test))
    except ValueError:
        raise IRStabError(f"test: expected one of {[t.value for t in SignificanceTest]}, "
                          f"got {test!r}") from None
    if correction is None:
        correction = Adjustment.none if test is SignificanceTest.tukey else Adjustment.holm
    try:
        correction = Adjustment(getattr(correction, "value", correction))
    except ValueError:
        raise IRStabError(f"correction: expected one of {[a.value for a in Adjustment]}, "
                          f"got {correction!r}") from None
    if test is SignificanceTest.tukey and correction is not Adjustment.none:
        raise IRStabError("correction: the Tukey HSD test controls the family-wise error rate "
                          "over all pairs itself; give correction='none'")
    if baseline is not None and baseline not in systems:
        from ..collection.index import short_list

        hint = (f" ({baseline!r} is of type {type(baseline).__name__}; the names are strings: give "
                f"{str(baseline)!r})" if not isinstance(baseline, str)
                and str(baseline) in systems else "")
        raise IRStabError(f"baseline: no system named {baseline!r}; the systems are "
                          f"{short_list(list(systems))}{hint}")
    return test, correction


def compare_systems(
    scores,
    *,
    baseline: str | None = None,
    test: SignificanceTest | str = SignificanceTest.t,
    correction: Adjustment | str | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int | None = None,
    seed=0,
) -> SystemComparison:
    """Compare systems on one measure: every system against ``baseline``, or all pairs.

    Parameters
    ----------
    scores : DataFrame, array or ``{measure: matrix}`` with one measure
        Systems x topics scores (e.g. ``irstab.score_matrix(collection, "nDCG@10")``).
    baseline : str, optional
        Compare every other system with this one (S - 1 pairs ``a = system,
        b = baseline``: differences are system minus baseline); default all
        S(S - 1)/2 pairs (``a`` before ``b`` in the systems' order).
    test : {"t", "permutation", "bootstrap", "wilcoxon", "sign", "tukey"}
        Default the paired t-test (see the module docstring).
    correction : {"none", "holm", "bh"}, optional
        Adjustment over the pairs; default ``holm``, and ``none`` for ``tukey``.
    alpha : float
        A pair is significant where its adjusted p-value is at most ``alpha``.
    confidence : float
        Level of the intervals of the difference and the effect.
    n_resamples : int, optional
        Resamples of the permutation, bootstrap and Tukey tests; default and minimum as
        :func:`resamples_for` (10,000, more for Holm over many pairs).
    seed : int, Generator or None
        Seeds those resamples (default 0: the same p-values every run).

    Raises
    ------
    IRStabError
        An unknown test, correction or baseline, fewer than 2 systems or topics, a
        non-finite score, too few resamples for any pair to be significant; pairs or
        resamples whose arrays need more than half of the memory the process may use
        (:func:`irstab._numeric.check_allocation`, before anything is allocated).

    Examples
    --------
    >>> x = pd.DataFrame([[0.5, 0.6, 0.7, 0.4, 0.6], [0.1, 0.2, 0.1, 0.3, 0.2],
    ...                   [0.5, 0.5, 0.6, 0.5, 0.6]], index=["A", "B", "C"])
    >>> r = compare_systems(x, baseline="B")
    >>> r.pairs[["a", "b", "significant"]].values.tolist()
    [['A', 'B', True], ['C', 'B', True]]
    >>> r.marks()
    {'A': 'b', 'B': '', 'C': 'b'}
    """
    if isinstance(scores, dict) and len(scores) != 1:
        raise IRStabError(f"scores: compare_systems takes one measure, got {len(scores)}")
    data = as_scores(scores, min_systems=2)
    systems = list(data.systems)
    test, correction = _check(test, correction, baseline, systems)
    alpha = check_alpha(alpha)
    x = data.cube[0]
    S, T = x.shape
    if T < 2:
        raise IRStabError(f"comparing systems needs at least 2 topics, got {T}")
    check_varies(x, escape_name(data.measures[0]),
                 then="no system differs from another: there is nothing to test")
    P = S - 1 if baseline is not None else S * (S - 1) // 2
    check_allocation(_pair_bytes(S, T, P, baseline is None),
                     f"scores: {S} systems make {float(P):.3g} pairs, whose differences on "
                     f"{T} topics")
    B = resamples_for(test, correction, alpha, P, n_resamples)
    if n_resamples is None:
        _check_default_work(test, correction, B, P, S)
    check_allocation(_resample_bytes(test, B, T),
                     f"n_resamples: {B} resamples of {T} topics ({test.value} test, "
                     f"{S} systems)")
    if baseline is not None:  # a - b: each system minus the baseline
        b = systems.index(baseline)
        i = np.array([s for s in range(S) if s != b])
        j = np.full(len(i), b)
    else:
        i, j = np.triu_indices(S, 1)
    outcome = run_test(test, x, i, j, max(B, 1), seed)
    p_adj = adjust(outcome.p_value, correction)
    eff = effect_sizes(paired_differences(x, i, j), confidence)
    if np.isnan(eff.effect).any():
        import warnings

        flat = [f"{escape_name(systems[a])} - {escape_name(systems[c])}"
                for a, c, e in zip(i, j, eff.effect) if e != e]
        warnings.warn(f"{data.measures[0]}: the difference is the same on every topic for "
                      f"{len(flat)} pair(s) ({', '.join(flat[:5])}): no standardised effect "
                      "(NaN, null in JSON)", IRStabWarning, stacklevel=2)
    means = x.mean(axis=1)
    significant = p_adj <= alpha
    labels = system_labels(S)
    better = [[] for _ in range(S)]
    worse = [[] for _ in range(S)]
    for a, c, sig, dif in zip(i, j, significant, eff.difference):  # marks: labels, not numbers
        if sig and dif != 0:
            hi, lo = (a, c) if dif > 0 else (c, a)
            better[hi].append(lo)
            worse[lo].append(hi)
    pairs = pd.DataFrame({
        "a": [systems[k] for k in i], "b": [systems[k] for k in j],
        "mean_a": means[i], "mean_b": means[j], "difference": eff.difference,
        "difference_low": eff.difference_low, "difference_high": eff.difference_high,
        "effect": eff.effect, "effect_low": eff.effect_low, "effect_high": eff.effect_high,
        "statistic": outcome.statistic, "p_value": outcome.p_value, "p_adjusted": p_adj,
        "significant": significant,
    })
    table = pd.DataFrame({
        "label": labels, "system": systems, "mean": means,
        "better_than": [",".join(labels[k] for k in sorted(b)) for b in better],
        "worse_than": [",".join(labels[k] for k in sorted(w)) for w in worse],
    })
    return SystemComparison(
        measure=data.measures[0], test=test.value, correction=correction.value,
        alpha=alpha, confidence=float(confidence), baseline=baseline, n_topics=T,
        n_resamples=B, seed=seed,
        systems=table, pairs=pairs,
    )
