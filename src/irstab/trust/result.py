r"""The result of :func:`irstab.trust.card.calibrate_collection`: the trust card's numbers.

Every rate comes with its Monte-Carlo standard error (:func:`cluster_rate` for
the tests' rates, whose units are blocks of collections; the binomial
:math:`\sqrt{p(1-p)/R}` for the verdict and topics needed, whose replicates are
independent). :meth:`TrustCalibration.to_dict` is the JSON of ``irstab calibrate
-f json``; :meth:`TrustCalibration.to_frame` its table; :meth:`TrustCalibration.card`
the sentences of the report's trust card.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._repr import short_repr

__all__ = ["TestRow", "VerdictCheck", "TopicsNeededCheck", "TrustCalibration", "cluster_rate",
           "binomial_se", "quantile_se", "TEST_NAMES"]

#: How the card names each test.
TEST_NAMES = {"t": "t-test", "permutation": "permutation test", "bootstrap": "bootstrap test",
              "wilcoxon": "Wilcoxon test", "sign": "sign test", "tukey": "Tukey HSD"}


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
    """One test with one correction at one alpha: type I error, power and type III per delta.

    ``power`` and ``type_iii`` map a delta's label (``"0.01"``) to ``(rate, se)``.
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
        }

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
class VerdictCheck:
    """The verdict in the collection's own real-score universes (per replicate flags)."""

    interval: str
    n_replicates: int
    covered: np.ndarray = field(repr=False)
    wrong_change: np.ndarray = field(repr=False)
    power: np.ndarray = field(repr=False)
    true_diff_planted: float = math.nan

    def _rate(self, flags) -> tuple[float, float]:
        p = float(np.mean(flags))
        return p, binomial_se(p, len(flags))

    def to_dict(self) -> dict:
        cov, wrong, power = (self._rate(f) for f in (self.covered, self.wrong_change,
                                                      self.power))
        return {"interval": self.interval, "n_replicates": self.n_replicates,
                "coverage": cov[0], "coverage_se": cov[1], "wrong_change": wrong[0],
                "wrong_change_se": wrong[1], "power": power[0], "power_se": power[1],
                "planted_phi_difference": _num(self.true_diff_planted)}


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
        """One row per test, correction and alpha; power and type III per delta as columns."""
        rows = []
        for r in self.tests:
            d = {"test": r.test, "correction": r.correction, "alpha": r.alpha,
                 "n_topics": r.n_topics, "type_i": r.type_i, "type_i_se": r.type_i_se}
            for k, (v, se) in r.power.items():
                d[f"power_{k}"], d[f"power_{k}_se"] = v, se
            for k, (v, se) in r.type_iii.items():
                d[f"type_iii_{k}"], d[f"type_iii_{k}_se"] = v, se
            rows.append(d)
        return pd.DataFrame(rows)

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
        if self.fit is None:
            return None
        s = self.fit.summary_frame()
        return {"summary": self.fit.summary(), "statistics": [
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
        """The trust card's sentences: the tests at ``alpha`` alone, then power, verdict, topics.

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
        out = [f"At {self.n_topics} topics and alpha {a:g}, on collections simulated like this "
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
            out.append(f"The verdict's interval ({v['interval']}) covers the true Phi "
                       f"difference in {_pct(v['coverage'], 1)} +- {_pct(v['coverage_se'], 1)} "
                       f"of collections; it recommends a change that is not there in "
                       f"{_pct(v['wrong_change'], 1)} and finds a planted one in "
                       f"{_pct(v['power'])}.")
        topics = self.topics_needed.sentence(self.n_topics)
        if topics is not None:
            out.append(topics)
        return out
