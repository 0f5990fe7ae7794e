r"""How well measures agree with users' side-by-side preferences, with bootstrap intervals.

For every measure: the agreement rate (:func:`~.comparisons.agreement_rate`, Sanderson,
Paramita, Clough & Kanoulas, SIGIR 2010: the share of the comparisons with a judged side and a
measure that separates the sides where the measure prefers the judged side), the counts behind
it, and the bias scores b1, b2, b3 of Urbano & Marrero (ECIR 2015, :mod:`.bias`), each with a
percentile bootstrap interval.

Resampling: topics are drawn with replacement (a comparison's weight is the number of times
its topic was drawn); when the judges are known they are drawn too, independently, and a
comparison's weight is the product of its topic's and its judge's counts (the two-way
bootstrap of crossed random factors). The rates of every replicate are one matrix product;
the bias scores refit the logistic curves on the distinct (value, outcome) pairs with the
replicate's summed weights (the same likelihood as the repeated rows).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from irstab._numeric import check_resamples, check_seed
from irstab.errors import IRStabError, IRStabWarning

from .bias import BIAS_SCORES, GRID, bias_anova, bias_scores, logistic_quadratic
from .comparisons import (TIE_ATOL, Comparisons, ScoredComparisons, agreement_counts,
                          agreement_terms)

__all__ = ["DEFAULT_MEASURES", "PreferenceAgreement", "preference_agreement", "side_scores",
           "bootstrap_weights"]

#: Measures scored on both sides of a ranking file when none are asked for: nDCG with the
#: gains and discounts of the presets, and the other families at the depth a user sees.
DEFAULT_MEASURES = (
    "nDCG@10", "nDCG(gain=exp)@10", "nDCG(discount=zipf)@10", "nDCG(gain=exp,discount=zipf)@10",
    "AP", "RR", "P@10", "RBP(p=0.8)", "ERR@10",
)


def side_scores(comparisons: Comparisons, qrels, measures=None) -> ScoredComparisons:
    """Score both sides of every comparison with irstab measures.

    Each comparison becomes a topic of a two-system collection (side A, side B) whose ideal
    ranking is that of the comparison's topic in ``qrels``, so every measure irstab evaluates
    (nDCG of any gain, discount and cutoff, AP, RBP, ERR, ...) is computed by the same kernel
    ``irstab evaluate`` uses. Every ranked document counts as judged (the comparisons keep
    grades only; an unjudged document has grade 0), which matters only to bpref-like measures.

    Parameters
    ----------
    comparisons : Comparisons
    qrels : path or any source :func:`irstab.io.read_qrels` reads
    measures : str or sequence of str, optional
        Default :data:`DEFAULT_MEASURES`.

    Returns
    -------
    ScoredComparisons
    """
    from irstab.collection import Collection
    from irstab.evaluation import parse_measures, score_stack
    from irstab.io import read_qrels

    parsed = parse_measures(DEFAULT_MEASURES if measures is None else measures)
    frame = read_qrels(qrels).frame
    positive = frame[frame["grade"] > 0]
    ideal_of = {str(t): np.sort(g.to_numpy())[::-1] for t, g in positive.groupby("topic")["grade"]}
    counts_of = {str(t): g.to_numpy() for t, g in frame.groupby("topic")["grade"]}
    n = comparisons.n
    needed = [m.depth_needed() for m in parsed]
    depth = max([comparisons.depth] + [k for k in needed if k is not None])
    grades = np.zeros((2, n, depth), dtype=np.int8)
    sides = np.stack([comparisons.grades_a, comparisons.grades_b])  # (2, n, d)
    grades[:, :, :comparisons.depth] = np.maximum(sides, 0)
    present = np.zeros((2, n, depth), dtype=bool)
    present[:, :, :comparisons.depth] = sides >= 0
    width = max([1] + [len(v) for v in ideal_of.values()])
    ideal = np.zeros((n, width), dtype=np.int8)
    max_grade = max(1, comparisons.max_grade, int(frame["grade"].max()) if len(frame) else 1)
    grade_counts = np.zeros((n, max_grade + 1), dtype=np.int64)
    for i, t in enumerate(comparisons.topic):
        v = ideal_of.get(str(t), np.zeros(0))
        ideal[i, :len(v)] = v
        c = counts_of.get(str(t), np.zeros(0, dtype=int))
        c = c[c >= 0]
        grade_counts[i] = np.bincount(c, minlength=max_grade + 1)[:max_grade + 1]
    collection = Collection(
        systems=("A", "B"), topics=tuple(str(i) for i in range(n)), depth=depth, grades=grades,
        judged=present, run_length=present.sum(axis=2).astype(np.int64), ideal=ideal,
        grade_counts=grade_counts, max_grade=max_grade)
    values = score_stack(parsed, collection)  # (2, m, n)
    return ScoredComparisons(
        topic=comparisons.topic, preferred=comparisons.preferred,
        measures=tuple(str(m) for m in parsed), scores=np.transpose(values, (2, 1, 0)).copy(),
        judge=comparisons.judge, satisfied=comparisons.satisfied)


def bootstrap_weights(topic, judge=None, n_boot: int = 1000, seed=0) -> np.ndarray:
    """Bootstrap weights of the comparisons: (n_boot, n) counts.

    Topics are drawn with replacement (as many as there are); with ``judge`` the judges are
    drawn too, independently, and a comparison's weight is its topic's count times its
    judge's count.
    """
    rng = check_seed(seed)
    t_codes, t_index = np.unique(np.asarray(topic), return_inverse=True)
    t_counts = rng.multinomial(len(t_codes), np.full(len(t_codes), 1.0 / len(t_codes)),
                               size=n_boot)
    w = t_counts[:, t_index].astype(float)
    if judge is not None:
        j_codes, j_index = np.unique(np.asarray(judge), return_inverse=True)
        j_counts = rng.multinomial(len(j_codes), np.full(len(j_codes), 1.0 / len(j_codes)),
                                   size=n_boot)
        w *= j_counts[:, j_index]
    return w


def _boot_logistic(x, y, w) -> np.ndarray:
    """Fitted curves on GRID for each replicate: x, y (n,), w (B, n) -> (B, g).

    The distinct (x, y) pairs carry the summed weights of their rows (same likelihood)."""
    pairs, inverse = np.unique(np.stack([x, y]), axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    summed = np.zeros((w.shape[0], pairs.shape[1]))
    for i in range(0, w.shape[0], 256):  # bounded memory
        summed[i:i + 256] = (_one_hot(inverse, pairs.shape[1]).T @ w[i:i + 256].T).T
    return logistic_quadratic(np.broadcast_to(pairs[0], summed.shape),
                              np.broadcast_to(pairs[1], summed.shape), summed, strict=False)


def _one_hot(index, width):
    from scipy import sparse

    return sparse.csr_matrix((np.ones(index.shape[0]), (np.arange(index.shape[0]), index)),
                             shape=(index.shape[0], width))


def _bias_replicates(scored: ScoredComparisons, w: np.ndarray, atol: float) -> np.ndarray:
    """(B, 3, m) bias scores of every bootstrap replicate."""
    m = len(scored.measures)
    out = np.full((w.shape[0], 3, m), np.nan)
    diff = scored.scores[:, :, 0] - scored.scores[:, :, 1]
    sign = np.where(np.abs(diff) <= atol, 0, np.sign(diff))
    agree = ((scored.preferred[:, None] != 0) & (sign == scored.preferred[:, None])).astype(float)
    sat_rows = (np.flatnonzero(scored.satisfied >= 0) if scored.satisfied is not None
                else np.zeros(0, dtype=int))
    sat = np.tile(scored.satisfied[sat_rows].astype(float), 2) if sat_rows.size else None
    ws = np.concatenate([w[:, sat_rows], w[:, sat_rows]], axis=1) if sat_rows.size else None
    for j in range(m):
        p = _boot_logistic(np.abs(diff[:, j]), agree[:, j], w)
        out[:, 2, j] = np.mean(1.0 - p, axis=-1)
        if sat is not None:
            phi = np.concatenate([scored.scores[sat_rows, j, 0], scored.scores[sat_rows, j, 1]])
            p = _boot_logistic(phi, sat, ws)
            out[:, 0, j] = np.mean(np.abs(GRID - p), axis=-1)
            out[:, 1, j] = (p[:, 0] + 1.0 - p[:, -1]) / 2.0
    return out


#: What each tie rule means, as the outputs say it.
_TIE_TEXT = {
    "exclude": "comparisons without a preference and ties of the measure are left out of the "
               "agreement rate (Sanderson et al., SIGIR 2010)",
    "half": "comparisons without a preference are left out; a tie of the measure counts as half "
            "an agreement",
    "disagree": "comparisons without a preference are left out; a tie of the measure counts as "
                "a disagreement (as b3 of Urbano & Marrero, ECIR 2015)",
}


@dataclass(frozen=True)
class PreferenceAgreement:
    """Agreement of measures with preferences (:func:`preference_agreement`).

    Attributes
    ----------
    measures : tuple of str
    factors : dict of str to tuple of str
        Labels of the measures per factor (gain, discount), when known.
    agree, disagree, tie, no_preference : ndarray of int, shape (m,)
        Counts (:func:`~.comparisons.agreement_counts`).
    rate, rate_low, rate_high : ndarray, shape (m,)
        Agreement rate and its bootstrap interval.
    bias, bias_low, bias_high : ndarray, shape (3, m)
        b1, b2, b3 and their intervals (NaN rows b1, b2 without satisfaction answers).
    anova : list of dict
        Two-way ANOVA of each bias score on the factors (:func:`~.bias.bias_anova`); empty
        without factors.
    n_comparisons, n_topics, n_judges, n_boot, confidence, seed, resampled
        What the figures rest on; ``resampled`` is ``"topics"`` or ``"topics and judges"``.
    """

    measures: tuple[str, ...]
    factors: dict
    agree: np.ndarray
    disagree: np.ndarray
    tie: np.ndarray
    no_preference: np.ndarray
    rate: np.ndarray
    rate_low: np.ndarray
    rate_high: np.ndarray
    bias: np.ndarray
    bias_low: np.ndarray
    bias_high: np.ndarray
    anova: list = field(default_factory=list)
    n_comparisons: int = 0
    n_topics: int = 0
    n_judges: int | None = None
    n_boot: int = 0
    confidence: float = 0.95
    seed: int | None = 0
    resampled: str = "topics"
    ties: str = "exclude"

    def to_frame(self):
        """One row per measure: factors, agreement with its interval, counts, bias scores."""
        import pandas as pd

        cols: dict = {"measure": list(self.measures)}
        for name, labels in self.factors.items():
            cols[name] = list(labels)
        cols.update(agreement=self.rate, agreement_low=self.rate_low,
                    agreement_high=self.rate_high, agree=self.agree, disagree=self.disagree,
                    tie=self.tie, no_preference=self.no_preference)
        for i, b in enumerate(BIAS_SCORES):
            cols[b], cols[f"{b}_low"], cols[f"{b}_high"] = (
                self.bias[i], self.bias_low[i], self.bias_high[i])
        return pd.DataFrame(cols)

    def best(self) -> str | None:
        """The measure with the highest agreement (the first on ties); None when no measure
        has a rate (every comparison tied or without a preference)."""
        if np.isnan(self.rate).all():
            return None
        return self.measures[int(np.nanargmax(self.rate))]

    def to_dict(self) -> dict:
        frame = self.to_frame()
        return {
            "best": self.best(),
            "n_comparisons": self.n_comparisons, "n_topics": self.n_topics,
            "n_judges": self.n_judges, "resampled": self.resampled, "n_boot": self.n_boot,
            "confidence": self.confidence, "seed": self.seed,
            "ties": self.ties,
            "tie_rule": _TIE_TEXT[self.ties],
            "anova": [{k: r[k] for k in ("score", "factor", "df", "sum_sq", "f")}
                      for r in self.anova],
            "measures": frame.to_dict(orient="records"),
        }


def preference_agreement(scored: ScoredComparisons, n_boot: int = 1000,
                         confidence: float = 0.95, seed=0, atol: float = TIE_ATOL,
                         bias_boot: bool = True, ties: str = "exclude") -> PreferenceAgreement:
    """Agreement rates and bias scores of every measure of ``scored``, with bootstrap intervals.

    Parameters
    ----------
    scored : ScoredComparisons
        From :func:`~.read.read_preferences` or :func:`side_scores`.
    n_boot : int
        Bootstrap replicates (topics, and judges when given, drawn with replacement).
    confidence : float
        Level of the percentile intervals.
    seed : int, Generator or None
    atol : float
        Tie tolerance of a measure.
    ties : {"exclude", "half", "disagree"}
        How a tie of a measure counts in the agreement rate
        (:func:`~.comparisons.agreement_rate`); the bias scores are defined by their authors
        (a tie never agrees).
    bias_boot : bool
        Also bootstrap the bias scores (a logistic refit per replicate and measure); without
        it their intervals are NaN.

    Returns
    -------
    PreferenceAgreement
    """
    if not 0 < confidence < 1:
        raise IRStabError(f"confidence: expected a level in (0, 1), got {confidence!r}")
    n_boot = check_resamples(n_boot, confidence, "n_boot")
    diff = scored.scores[:, :, 0] - scored.scores[:, :, 1]
    counts = agreement_counts(diff, scored.preferred, atol)
    num, den = agreement_terms(diff, scored.preferred, atol, ties)
    a, c = num.sum(axis=0), den.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(c > 0, a / np.where(c > 0, c, 1), np.nan)
        bias = bias_scores(scored, atol=atol)
        w = bootstrap_weights(scored.topic, scored.judge, n_boot, seed)
        boot = (w @ num) / (w @ den)  # (B, m); NaN where a replicate counts nothing
    tail = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a measure tied everywhere stays NaN
        rate_low, rate_high = np.nanquantile(boot, [tail, 1 - tail], axis=0)
    if bias_boot:
        reps = _bias_replicates(scored, w, atol)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
            bias_low, bias_high = np.nanquantile(reps, [tail, 1 - tail], axis=0)
    else:
        bias_low = bias_high = np.full_like(bias, np.nan)
    if np.isnan(bias[2]).any():
        bad = [scored.measures[j] for j in np.flatnonzero(np.isnan(bias[2]))]
        warnings.warn(f"bias scores: no logistic curve for {len(bad)} measure(s) "
                      f"({', '.join(bad[:3])}): too few distinct values or perfectly separated "
                      "outcomes; their b1, b2, b3 are NaN", IRStabWarning, stacklevel=2)
    anova = bias_anova(bias, scored.factors) if scored.factors else []
    return PreferenceAgreement(
        measures=scored.measures, factors=dict(scored.factors), agree=counts["agree"],
        disagree=counts["disagree"], tie=counts["tie"], no_preference=counts["no_preference"],
        rate=rate, rate_low=rate_low, rate_high=rate_high, bias=bias, bias_low=bias_low,
        bias_high=bias_high, anova=anova, n_comparisons=scored.n,
        n_topics=int(np.unique(scored.topic).size),
        n_judges=None if scored.judge is None else int(np.unique(scored.judge).size),
        n_boot=n_boot, confidence=confidence, seed=seed if isinstance(seed, int) else None,
        resampled="topics" if scored.judge is None else "topics and judges", ties=ties)
