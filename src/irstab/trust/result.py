r"""The result of :func:`irstab.trust.card.calibrate_collection`: the trust card's numbers.

Every rate comes with its Monte-Carlo standard error (:func:`cluster_rate` for
the tests' rates, whose units are blocks of collections; the binomial
:math:`\sqrt{p(1-p)/R}` for the verdict, its candidates and topics needed, whose replicates
are independent). :meth:`TrustCalibration.to_dict` is the JSON of ``irstab calibrate
-f json``; :meth:`TrustCalibration.to_frame` its table; :meth:`TrustCalibration.card`
the sentences of the report's trust card.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._repr import escape_name, short_repr

__all__ = ["TestRow", "VerdictCheck", "CandidateCheck", "FitJudgement", "TopicsNeededCheck",
           "TrustCalibration", "cluster_rate", "binomial_se", "between_collections_sd",
           "quantile_se", "TEST_NAMES", "FIT_LEVEL"]

#: How the card names each test.
TEST_NAMES = {"t": "t-test", "permutation": "permutation test", "bootstrap": "bootstrap test",
              "wilcoxon": "Wilcoxon test", "sign": "sign test", "tukey": "Tukey HSD"}


#: Level of the fit check's test (:class:`FitJudgement`): the card warns below it.
FIT_LEVEL = 0.01


def cluster_rate(k, n) -> tuple[float, float]:
    r"""Rate :math:`\sum k_b / \sum n_b` over independent blocks and its cluster standard error.

    :math:`\mathrm{se} = \sqrt{K/(K-1)\,\sum_b (k_b - \hat p\,n_b)^2} / \sum_b n_b`
    (the ratio estimator's linearisation; Cochran, *Sampling Techniques*, 1977, §6.4).
    No unit: ``(nan, nan)``; one block: the binomial error.

    >>> cluster_rate([1, 2, 3], [10, 10, 10])  # doctest: +ELLIPSIS
    (0.2, 0.0577...)
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    total = n.sum()
    if total <= 0:
        return math.nan, math.nan
    p = k.sum() / total
    K = len(n)
    if K < 2:
        return float(p), binomial_se(p, total)
    se = math.sqrt(K / (K - 1) * ((k - p * n) ** 2).sum()) / total
    return float(p), float(se)


def binomial_se(p: float, n: float) -> float:
    """:math:`\\sqrt{p(1-p)/n}` (nan for no replicate)."""
    return math.sqrt(p * (1.0 - p) / n) if n > 0 and math.isfinite(p) else math.nan


def between_collections_sd(rates, n_inner: int) -> float:
    r"""How far a rate measured on one collection moves between collections like it.

    ``rates`` are the rate :math:`\hat p_b` measured, each over ``n_inner`` independent
    replicates, on :math:`B` bootstrap resamples of the collection (its systems and topics
    drawn with replacement): each resample stands for another collection of the population
    as the collection stands for the population (the bootstrap principle). Their spread
    holds the rate's sampling error and each :math:`\hat p_b`'s own Monte-Carlo error,
    whose mean variance :math:`E[p_b(1-p_b)]/M` is estimated without bias by
    :math:`\overline{\hat p_b(1-\hat p_b)}/(M-1)` (as :math:`E[\hat p(1-\hat p)] =
    p(1-p)(M-1)/M`); so

    .. math:: \hat\sigma_{\text{between}} = \sqrt{\max\Big(0,\;
        s^2(\hat p_b) - \tfrac{1}{B}\textstyle\sum_b \hat p_b(1-\hat p_b)/(M-1)\Big)}

    (the between-group component of a one-way random-effects ANOVA of the indicators; with
    few resamples it is noisy, an error of an error). nan for fewer than 2 resamples, or
    fewer than 2 replicates each.
    """
    v = _between_variance(rates, n_inner)
    return math.sqrt(max(v, 0.0)) if math.isfinite(v) else math.nan


def _between_variance(rates, n_inner: int) -> float:
    """:func:`between_collections_sd`'s variance before it is cut at 0: unbiased."""
    p = np.asarray(rates, dtype=float)
    p = p[np.isfinite(p)]
    if len(p) < 2 or n_inner < 2:
        return math.nan
    return float(np.var(p, ddof=1)) - float(np.mean(p * (1.0 - p))) / (n_inner - 1)


def quantile_se(a, p: float) -> float:
    r"""Monte-Carlo standard error of the ``p`` quantile of the independent draws ``a``.

    Half the distance between the order statistics of ranks :math:`Rp \mp \sqrt{Rp(1-p)}`
    (the binomial count of draws below a quantile has that standard deviation; the
    distribution-free interval of a quantile, Conover, *Practical Nonparametric
    Statistics*, 1999, §3.2). nan for fewer than 2 finite draws.

    >>> quantile_se(np.arange(1000.0), 0.05)  # ranks 43 and 57 of 0..999
    7.0
    """
    a = np.sort(np.asarray(a, dtype=float)[np.isfinite(a)])
    R = a.size
    if R < 2:
        return math.nan
    half = math.sqrt(R * p * (1.0 - p))
    lo = min(max(int(math.floor(R * p - half)), 0), R - 1)
    hi = min(max(int(math.ceil(R * p + half)), 0), R - 1)
    return float(a[hi] - a[lo]) / 2.0


def _or(v: float, default: float) -> float:
    return v if math.isfinite(v) else default


def _pct(v: float, digits: int = 0) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:.{digits}%}"


def _num(v):
    return None if v is None or not math.isfinite(v) else float(v)


@dataclass(frozen=True)
class TestRow:
    r"""One test with one correction at one alpha: type I error, power and type III per delta.

    ``power`` and ``type_iii`` map a delta's label (``"0.01"``) to ``(rate, se)``.
    ``min_resamples`` is set on a row that cannot reject anything: a Monte-Carlo test
    (p-values at least :math:`1/(B+1)`) with Holm over :math:`P` pairs, whose smallest
    threshold :math:`\alpha/P` is below :math:`1/(B+1)`; it is the smallest ``B`` that
    could, :math:`\lceil P/\alpha\rceil - 1`. None: the row can reject.
    """

    test: str
    correction: str
    alpha: float
    n_topics: int
    type_i: float
    type_i_se: float
    n_null: int
    power: dict
    type_iii: dict
    min_resamples: int | None = None

    __test__ = False  # not a pytest class

    def to_dict(self) -> dict:
        return {
            "test": self.test, "correction": self.correction, "alpha": self.alpha,
            "n_topics": self.n_topics, "type_i": _num(self.type_i),
            "type_i_se": _num(self.type_i_se), "n_null": self.n_null,
            "power": {k: _num(v[0]) for k, v in self.power.items()},
            "power_se": {k: _num(v[1]) for k, v in self.power.items()},
            "type_iii": {k: _num(v[0]) for k, v in self.type_iii.items()},
            "type_iii_se": {k: _num(v[1]) for k, v in self.type_iii.items()},
            "min_resamples_to_reject": self.min_resamples,
        }

    def note(self) -> str:
        """What the row's figures cannot show, in the row: ``rejects nothing unless B >= N``."""
        return ("" if self.min_resamples is None
                else f"rejects nothing unless B >= {self.min_resamples}")

    def level(self) -> str:
        """``liberal`` (type I above alpha by more than 2 se), ``conservative`` (below),
        else ``at its level``."""
        if not math.isfinite(self.type_i):
            return "untested"
        margin = 2.0 * (self.type_i_se if math.isfinite(self.type_i_se) else 0.0)
        if self.type_i - margin > self.alpha:
            return "liberal"
        if self.type_i + margin < self.alpha:
            return "conservative"
        return "at its level"


@dataclass(frozen=True, eq=False)
class CandidateCheck:
    r"""The verdict on one candidate against the baseline, in the collection's own universe.

    The universe (:func:`irstab.verdict.universes.resampled_universe`): the collection's
    systems and topics resampled with replacement, the baseline's and the candidate's
    scores side by side; the truth is the population's Phi difference ``true_diff`` at the
    card's number of topics. Per replicate: ``covered`` (the candidate's 95 % interval
    holds ``true_diff``) and ``recommended`` (the rule changed to it).

    * **coverage**: share covered;
    * **wrong changes**: share recommending the candidate where the truth does not favour
      it (``true_diff`` at most 1e-12, :mod:`irstab.verdict.calibration`'s tolerance);
      0 where the truth favours it (every change to it is right);
    * **power**: where the truth favours it, the share recommending it; None otherwise.

    Each rate with its binomial Monte-Carlo error :math:`\sqrt{p(1-p)/R}`. The interval
    *holds* when its coverage is at least the nominal level less 2 Monte-Carlo errors.

    The Monte-Carlo error says how far the coverage of *this* collection's universe is known;
    another collection of the same population has a universe of its own. How far the
    coverage moves between such collections (``coverage_sampling_se``,
    :func:`between_collections_sd`) comes from ``resampled_coverage``: the coverage
    measured, over ``resampled_replicates`` collections each, in the universes of bootstrap
    resamples of the collection. On 552 parts of six TREC collections (12 x 20 to 30 x 35),
    the population's coverage lay within 3 errors of the card's (the two errors and the
    population's own Monte-Carlo error, combined) in 98.4 % of parts, within 3 Monte-Carlo
    errors alone in 85 % (``docs/trust-card.md``).
    """

    measure: str
    true_diff: float
    favoured: bool
    covered: np.ndarray = field(repr=False)
    recommended: np.ndarray = field(repr=False)
    confidence: float = 0.95
    resampled_coverage: np.ndarray | None = field(default=None, repr=False)
    resampled_replicates: int = 0

    @property
    def n_replicates(self) -> int:
        return int(len(self.covered))

    def _rate(self, flags) -> tuple[float, float]:
        p = float(np.mean(flags)) if len(flags) else math.nan
        return p, binomial_se(p, len(flags))

    @property
    def coverage_sampling_se(self) -> float | None:
        """The coverage's error between collections like this one (None: not measured)."""
        if self.resampled_coverage is None or len(self.resampled_coverage) < 2:
            return None
        return between_collections_sd(self.resampled_coverage, self.resampled_replicates)

    @property
    def held(self) -> bool:
        """Coverage within 2 Monte-Carlo errors of the nominal level, or above it."""
        cov, se = self._rate(self.covered)
        return bool(cov + 2.0 * se >= self.confidence)

    def to_dict(self) -> dict:
        cov, cov_se = self._rate(self.covered)
        rec, rec_se = self._rate(self.recommended)
        wrong, wrong_se = (0.0, 0.0) if self.favoured else (rec, rec_se)
        power, power_se = (rec, rec_se) if self.favoured else (None, None)
        between = self.coverage_sampling_se
        return {"measure": self.measure, "coverage": _num(cov), "coverage_se": _num(cov_se),
                "coverage_sampling_se": None if between is None else _num(between),
                "wrong_change": _num(wrong), "wrong_change_se": _num(wrong_se),
                "power": _num(power) if power is not None else None,
                "power_se": _num(power_se) if power_se is not None else None,
                "true_diff": _num(self.true_diff), "truth_favours": bool(self.favoured),
                "interval_held": self.held, "n_replicates": self.n_replicates,
                "sampling_resamples": 0 if self.resampled_coverage is None
                else int(len(self.resampled_coverage))}

    @staticmethod
    def _between(d: dict) -> str:
        if d["coverage_sampling_se"] is None or d["coverage_se"] is None:
            return ""
        both = math.hypot(d["coverage_se"], d["coverage_sampling_se"])
        return f" (+- {_pct(both, 1)} with the variation between collections like this one)"

    def sentence(self, n_topics: int) -> str:
        """One sentence of the card: whether the interval held, wrong changes or power."""
        d = self.to_dict()
        verdict = "it holds" if d["interval_held"] else \
            f"short of {self.confidence:.0%} by more than 2 Monte-Carlo errors"
        out = (f"For {escape_name(self.measure)} (true difference {self.true_diff:+.4f} at "
               f"{n_topics} topics) the interval covered it in {_pct(d['coverage'], 1)} +- "
               f"{_pct(d['coverage_se'], 1)} of {self.n_replicates} collections resampled from "
               f"this one{self._between(d)}: {verdict}; ")
        if self.favoured:
            return out + (f"the truth favours it, and the rule changed to it in "
                          f"{_pct(d['power'], 1)} +- {_pct(d['power_se'], 1)}.")
        return out + (f"the truth does not favour it, and the rule changed to it anyway in "
                      f"{_pct(d['wrong_change'], 1)} +- {_pct(d['wrong_change_se'], 1)}.")


@dataclass(frozen=True, eq=False)
class VerdictCheck:
    """The verdict in the collection's own real-score universes (per replicate flags).

    The null twin (``covered``, ``wrong_change``) and the planted twin (``power``) of the
    baseline, and ``candidates``: one :class:`CandidateCheck` per measure the user compares
    with the baseline (empty, with ``candidates_note`` saying why, where none could be).
    """

    interval: str
    n_replicates: int
    covered: np.ndarray = field(repr=False)
    wrong_change: np.ndarray = field(repr=False)
    power: np.ndarray = field(repr=False)
    true_diff_planted: float = math.nan
    candidates: tuple = ()
    candidates_note: str = ""

    def _rate(self, flags) -> tuple[float, float]:
        p = float(np.mean(flags))
        return p, binomial_se(p, len(flags))

    def to_dict(self) -> dict:
        cov, wrong, power = (self._rate(f) for f in (self.covered, self.wrong_change,
                                                      self.power))
        return {"interval": self.interval, "n_replicates": self.n_replicates,
                "coverage": cov[0], "coverage_se": cov[1], "wrong_change": wrong[0],
                "wrong_change_se": wrong[1], "power": power[0], "power_se": power[1],
                "planted_phi_difference": _num(self.true_diff_planted),
                "candidates": [c.to_dict() for c in self.candidates],
                "candidates_note": self.candidates_note or None}

    def candidate_frame(self) -> pd.DataFrame:
        """One row per candidate (the keys of :meth:`CandidateCheck.to_dict`)."""
        return pd.DataFrame([c.to_dict() for c in self.candidates],
                            columns=list(_CANDIDATE_KEYS))

    def candidate_sentences(self, n_topics: int, most: int = 8) -> list[str]:
        """The card's sentences on the candidates: one each up to ``most`` candidates;
        beyond, one each where the interval fell short and one for all that held."""
        if not self.candidates:
            return [f"No candidate measure was checked: {self.candidates_note}."] \
                if self.candidates_note else []
        if len(self.candidates) <= most:
            return [c.sentence(n_topics) for c in self.candidates]
        short = [c for c in self.candidates if not c.held]
        held = [c.to_dict() for c in self.candidates if c.held]
        out = [c.sentence(n_topics) for c in short]
        if held:
            cov = [d["coverage"] for d in held]
            wrong = [d["wrong_change"] for d in held]
            favoured = [d["power"] for d in held if d["power"] is not None]
            text = (f"For the {'other ' if short else ''}{len(held)} candidates the interval "
                    f"held: it covered the true difference in {_pct(min(cov), 1)} to "
                    f"{_pct(max(cov), 1)} (+- at most "
                    f"{_pct(max(d['coverage_se'] for d in held), 1)}) of "
                    f"{self.candidates[0].n_replicates} collections each"
                    f"{_most_between(held)}; wrong changes at "
                    f"most {_pct(max(wrong), 1)}")
            if favoured:
                text += (f"; the truth favours {len(favoured)} of them, changed to in "
                         f"{_pct(min(favoured), 1)} to {_pct(max(favoured), 1)}")
            out.append(text + ".")
        return out


def _most_between(held: list[dict]) -> str:
    between = [d["coverage_sampling_se"] for d in held if d["coverage_sampling_se"] is not None]
    return (f"; collections like this one vary by +- at most {_pct(max(between), 1)}"
            if between else "")


#: Columns of :meth:`VerdictCheck.candidate_frame` (and of JSON ``verdict.candidates``).
_CANDIDATE_KEYS = ("measure", "coverage", "coverage_se", "coverage_sampling_se",
                   "wrong_change", "wrong_change_se",
                   "power", "power_se", "true_diff", "truth_favours", "interval_held",
                   "n_replicates", "sampling_resamples")


@dataclass(frozen=True)
class FitJudgement:
    r"""Does the simulator fail its own split-half check? (:func:`irstab.trust.checks.judge_fit`)

    ``outside`` of ``compared`` systems have their held-out topics' mean outside the
    simulated 95 % range; ``expected`` is the mean count a correct model leaves outside,
    ``p_value`` the share of ``n_null`` correct-model splits with at least as many outside
    (Monte-Carlo, :math:`(1 + \#\{\ge\}) / (1 + N)`). The simulator *fails* when
    ``p_value < level``.
    """

    outside: int
    compared: int
    expected: float
    p_value: float
    n_null: int
    level: float = FIT_LEVEL

    @property
    def fails(self) -> bool:
        return bool(self.p_value < self.level)

    def to_dict(self) -> dict:
        return {"fails": self.fails, "means_outside": self.outside, "compared": self.compared,
                "expected_outside": _num(self.expected), "p_value": _num(self.p_value),
                "level": self.level, "n_null": self.n_null}

    def sentence(self) -> str:
        """The card's first sentence when the check fails."""
        return (f"The simulator fails its own fit check on this collection: on held-out "
                f"topics, {self.outside} of {self.compared} systems have a mean outside the "
                f"simulated 95 % range, where a correct model leaves about "
                f"{self.expected:.0f} outside (p = {self.p_value:.3f} < {self.level:g}); the "
                "tests' type I errors, power and wrong signs below are measured on a model "
                "that these topics contradict, while the verdict's figures come from the "
                "collection's own scores resampled and do not depend on it.")


@dataclass(frozen=True, eq=False)
class TopicsNeededCheck:
    """Topics needed for Phi = target from simulated G-studies, and the true Phi they reach.

    ``resample_systems``: the simulated collections drew their systems as well as their
    topics (the spread of ``phi_reached`` counts both facets' sampling error); False:
    the systems were fixed, and it counts the topics' alone.
    """

    target: float
    n_topics: int
    true_needed: float
    true_phi: float
    needed: np.ndarray = field(repr=False)
    phi_reached: np.ndarray = field(repr=False)
    components: object = field(default=None, repr=False)
    resample_systems: bool = True

    @property
    def spread_includes(self) -> tuple[str, ...]:
        """Whose sampling error the spread counts: ``("systems", "topics")`` or ``("topics",)``."""
        return ("systems", "topics") if self.resample_systems else ("topics",)

    @property
    def method(self) -> str:
        """How the collections were drawn, in words (the JSON's ``method``)."""
        return ("G-theory simulator: topics drawn by a smoothed bootstrap of the collection's "
                + ("topics, systems resampled with replacement from its systems"
                   if self.resample_systems else "topics, its systems fixed"))

    def sentence(self, n_topics: int | None = None) -> str | None:
        """The card's sentence (None when no simulated G-study found system variance)."""
        t = self.to_dict()
        if t["phi_reached_mean"] is None:
            return None
        what = ("which systems as well as which topics a collection holds"
                if self.resample_systems else "which topics a collection holds, its systems "
                "fixed")
        return (f"Topics needed for Phi = {t['target']:g}, estimated from "
                f"{self.n_topics if n_topics is None else n_topics} topics, reach a true Phi of "
                f"{t['phi_reached_mean']:.3f} on average (5 % of the time below "
                f"{t['phi_reached_q05']:.3f}; the spread counts {what}); the target is "
                f"reached in {_pct(t['reaches_target'])} of collections.")

    def to_dict(self) -> dict:
        finite = np.isfinite(self.needed)
        reached = self.phi_reached[finite]
        R = len(self.needed)
        hit = float(np.mean(reached >= self.target)) if reached.size else math.nan
        # counts of topics: quantiles that are counts (inverted CDF), not interpolations
        q = (lambda a, p: _num(float(np.quantile(a, p, method="inverted_cdf")))
             if a.size else None)
        return {
            "target": self.target, "n_topics": self.n_topics, "n_replicates": R,
            "true_topics_needed": _num(self.true_needed),
            "true_phi_at_n_topics": _num(self.true_phi),
            "estimated_median": q(self.needed[finite], 0.5),
            "estimated_q05": q(self.needed[finite], 0.05),
            "estimated_q95": q(self.needed[finite], 0.95),
            "never": float(1.0 - finite.mean()),
            "phi_reached_mean": _num(float(reached.mean())) if reached.size else None,
            "phi_reached_mean_se": _num(float(reached.std(ddof=1) / math.sqrt(reached.size)))
            if reached.size > 1 else None,
            "phi_reached_q05": q(reached, 0.05),
            "phi_reached_q05_se": _num(quantile_se(reached, 0.05)) if reached.size > 1 else None,
            "phi_reached_median": q(reached, 0.5),
            "spread_includes": list(self.spread_includes), "method": self.method,
            "reaches_target": _num(hit), "reaches_target_se": _num(binomial_se(hit, reached.size)),
            "components": None if self.components is None else self.components.to_dict(),
        }


@short_repr
@dataclass(frozen=True, eq=False)
class TrustCalibration:
    """What :func:`~irstab.trust.card.calibrate_collection` measured (module docstring)."""

    measure: str
    systems: tuple
    n_topics_observed: int
    n_topics: int
    model: object = field(repr=False)
    fit: object = field(repr=False)
    tests: tuple = field(repr=False)
    verdict: VerdictCheck | None = field(repr=False)
    topics_needed: TopicsNeededCheck = field(repr=False)
    alphas: tuple = ()
    deltas: tuple = ()
    n_replicates: int = 0
    n_resamples: int = 0
    block_size: int = 0
    notes: tuple = ()
    observed_means: np.ndarray = field(default=None, repr=False)
    fit_judgement: FitJudgement | None = field(default=None, repr=False)

    def _summary(self) -> str:
        return self.card()[0]

    def row(self, test: str, correction: str = "none", alpha: float | None = None) -> TestRow:
        """The row of ``test`` with ``correction`` at ``alpha`` (default: the first alpha)."""
        a = self.alphas[0] if alpha is None else alpha
        for r in self.tests:
            if r.test == test and r.correction == correction and math.isclose(r.alpha, a):
                return r
        raise KeyError((test, correction, a))

    def to_frame(self) -> pd.DataFrame:
        """The tsv/csv of ``irstab calibrate``: one row per test, correction and alpha, then
        one per candidate of the verdict.

        ``part`` says which: ``test`` rows have the type I error, and power and type III
        error per delta (``power_at_delta_0.01``, ``type_iii_at_delta_0.01``, each with its
        ``_se``) and ``rejects_nothing_unless_b`` (the B from which a Monte-Carlo test
        with Holm could reject anything; empty where it can); ``verdict candidate`` rows
        have the keys of ``verdict.candidates`` in the JSON (``candidate`` for its
        ``measure``, ``verdict_power`` for its ``power``).
        """
        rows = []
        for r in self.tests:
            d = {"part": "test", "test": r.test, "correction": r.correction, "alpha": r.alpha,
                 "n_topics": r.n_topics, "type_i": r.type_i, "type_i_se": r.type_i_se}
            for k, (v, se) in r.power.items():
                d[f"power_at_delta_{k}"], d[f"power_at_delta_{k}_se"] = v, se
            for k, (v, se) in r.type_iii.items():
                d[f"type_iii_at_delta_{k}"], d[f"type_iii_at_delta_{k}_se"] = v, se
            d["rejects_nothing_unless_b"] = r.min_resamples
            rows.append(d)
        tests = pd.DataFrame(rows)
        if "rejects_nothing_unless_b" in tests:
            tests["rejects_nothing_unless_b"] = tests["rejects_nothing_unless_b"].astype("Int64")
        if self.verdict is None or not self.verdict.candidates:
            return tests
        cands = self.verdict.candidate_frame().rename(
            columns={"measure": "candidate", "power": "verdict_power",
                     "power_se": "verdict_power_se"})
        cands.insert(0, "part", "verdict candidate")
        cands.insert(1, "n_topics", self.n_topics)
        return pd.concat([tests, cands], ignore_index=True)

    def model_dict(self) -> dict:
        m = self.model
        fams = Counter(g.family for g in m.margins)
        return {
            "measure": self.measure, "n_systems": len(self.systems),
            "n_topics_observed": self.n_topics_observed, "n_topics": self.n_topics,
            "support": "continuous" if m.lattice is None else str(m.lattice),
            "margins": dict(fams.most_common()), "copula": m.copula.describe(),
            "n_replicates": self.n_replicates, "block_size": self.block_size,
            "n_resamples": self.n_resamples, "planted_pairs_per_collection":
                max(1, len(self.systems) // 3),
            "deltas": list(self.deltas), "alphas": list(self.alphas),
        }

    def fit_dict(self) -> dict | None:
        """The split-half fit check: its summary, ``fails`` (the card warns) and the test
        behind it (``judgement``: :class:`FitJudgement`), and per statistic the counts."""
        if self.fit is None:
            return None
        s = self.fit.summary_frame()
        j = self.fit_judgement
        return {"summary": self.fit.summary(), "fails": None if j is None else j.fails,
                "judgement": None if j is None else j.to_dict(), "statistics": [
            {"statistic": r.statistic, "inside": int(r.inside), "compared": int(r.compared),
             "share_inside": _num(r.share_inside), "mean_abs_error": _num(r.mean_abs_error)}
            for r in s.itertuples()]}

    def to_dict(self) -> dict:
        """``{"model", "fit", "tests", "verdict", "topics_needed", "notes", "card"}``,
        JSON-ready (the shape of ``irstab calibrate -f json``)."""
        return {
            "model": self.model_dict(),
            "fit": self.fit_dict(),
            "tests": [r.to_dict() for r in self.tests],
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "topics_needed": self.topics_needed.to_dict(),
            "notes": list(self.notes),
            "card": self.card(),
        }

    def card(self, alpha: float | None = None) -> list[str]:
        """The trust card's sentences: the fit check where it fails, the tests at ``alpha``
        alone, then power, the verdict (null twin, then each candidate), topics needed.

        Which test to trust: among those whose type I error is within 2 Monte-Carlo
        errors of alpha or below it, the first (in the order t, permutation, bootstrap,
        Wilcoxon, sign) whose power at the middle delta is within 2 Monte-Carlo errors
        of the most powerful one's.
        """
        a = self.alphas[0] if alpha is None else alpha
        alone = [self.row(t, "none", a) for t in ("t", "permutation", "bootstrap",
                                                  "wilcoxon", "sign", "tukey")]
        mid = f"{self.deltas[len(self.deltas) // 2]:g}"
        parts = [f"{TEST_NAMES[r.test]} {r.type_i:.3f} +- {r.type_i_se:.3f} ({r.level()})"
                 if math.isfinite(r.type_i) else f"{TEST_NAMES[r.test]} n/a" for r in alone]
        out = [self.fit_judgement.sentence()] if self.fit_judgement is not None \
            and self.fit_judgement.fails else []
        out += [f"At {self.n_topics} topics and alpha {a:g}, on collections simulated like this "
               f"one ({self.n_replicates} collections), the type I error of the "
               + "; ".join(parts) + "."]
        ok = [r for r in alone if r.level() not in ("liberal", "untested") and r.test != "tukey"]
        if not math.isfinite(self.row("t", "none", a).power[mid][0]):
            # no planted pair at that difference: every power and type III rate there is n/a
            out.append(f"Power at a difference of {mid} is n/a: no pair of systems could be "
                       f"planted {mid} apart (no system's margin reaches a mean that far within "
                       "the measure's range); measure it at a smaller delta.")
            ok = []
        elif ok:
            power = [_or(r.power[mid][0], -1.0) for r in ok]
            se = [_or(r.power[mid][1], 0.0) for r in ok]
            top = int(np.argmax(power))
            # within 2 Monte-Carlo errors of the most powerful: the first in the usual order
            best = next(r for r, p, e in zip(ok, power, se)
                        if p + 2 * max(e, se[top]) >= power[top])
            p, e = best.power[mid]
            out.append(f"Trust the {TEST_NAMES[best.test]}: a real difference of {mid} is "
                       f"found in {_pct(p)} (+- {_pct(e)}) of collections like this one; "
                       f"with the wrong sign in {_pct(best.type_iii[mid][0], 1)}.")
        else:
            out.append("No test holds its level on collections like this one.")
        for corr, what in (("holm", "Holm"), ("bh", "Benjamini-Hochberg")):
            if not math.isfinite(self.row("t", corr, a).power[mid][0]):
                break  # said above: nothing was planted at that difference
            r = self.row("t", corr, a)
            out.append(f"Over all {len(self.systems) * (len(self.systems) - 1) // 2} pairs, "
                       f"the t-test with {what} finds a difference of {mid} in "
                       f"{_pct(r.power[mid][0])}; Tukey HSD in "
                       f"{_pct(self.row('tukey', 'none', a).power[mid][0])}."
                       if corr == "holm" else
                       f"With Benjamini-Hochberg: {_pct(r.power[mid][0])}.")
        if self.verdict is not None:
            v = self.verdict.to_dict()
            out.append(f"Against a twin of the measure with the same true Phi, the verdict's "
                       f"interval ({v['interval']}) covers the true Phi difference in "
                       f"{_pct(v['coverage'], 1)} +- {_pct(v['coverage_se'], 1)} of "
                       f"collections; it recommends a change that is not there in "
                       f"{_pct(v['wrong_change'], 1)} and finds a planted one in "
                       f"{_pct(v['power'])}.")
            out += self.verdict.candidate_sentences(self.n_topics)
        topics = self.topics_needed.sentence(self.n_topics)
        if topics is not None:
            out.append(topics)
        return out
