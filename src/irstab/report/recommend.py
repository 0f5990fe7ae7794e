"""The study's verdict in words: keep the baseline or change, with intervals, in topics.

:func:`recommend` turns the paired comparison of every candidate with the
baseline (:func:`irstab.verdict.paired_comparison`) and the rule of
:func:`irstab.verdict.decide` into a :class:`Recommendation`: the measure to
use, the closest alternatives, and a plain-language text that quotes the
intervals, names the method that made them and states the saving in topics.
:func:`rule_text` is the rule as the report prints it, with its references.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..verdict.decision import FEW_SYSTEMS, few_systems_text
from ..errors import DegenerateDataError
from .candidates import Candidate, display_name, fmt_value

__all__ = ["Recommendation", "recommend", "rule_text"]


def _named(c: Candidate) -> str:
    name = display_name(c)
    return f"{name} ({c.family})" if name == c.measure and c.family not in ("preset", "metric",
                                                                              "reference") else name


def _n(v: float) -> str:
    return str(int(v)) if math.isfinite(v) else "never"


def _signed(v: float, spec: str = "+.3f") -> str:
    return fmt_value(v, spec)


def _interval(lo: float, hi: float, spec: str = "+.3f") -> str:
    return f"[{_signed(lo, spec)}, {_signed(hi, spec)}]"


def saving_text(c: Candidate, base: Candidate) -> str:
    """``saves 9 of 68 topics`` (or ``needs 3 more than the 68``) for Phi = 0.95.

    An optimised candidate's topics are its cross-fitted ones (what the rule reads).
    """
    nb, nc = base.topics_95, c.topics_95_verdict
    if not math.isfinite(nc):
        return "never reaches Phi = 0.95"
    if not math.isfinite(nb):
        return f"reaches Phi = 0.95 with {int(nc)} topics, which {display_name(base)} never does"
    d = int(nb - nc)
    if d > 0:
        return f"saves {d} of {int(nb)} topics for Phi = 0.95"
    if d < 0:
        return f"needs {-d} more topics than {display_name(base)}'s {int(nb)} for Phi = 0.95"
    return f"needs the same {int(nb)} topics for Phi = 0.95"


@dataclass(frozen=True)
class Recommendation:
    """What to use, and why.

    Attributes
    ----------
    verdict : irstab.verdict.Verdict
        The rule's decision among the nDCG configurations.
    use : Candidate
        The measure to use: the recommended candidate, or the baseline when
        the verdict keeps it.
    baseline : Candidate
    closest : tuple of Candidate
        The candidates with the largest Phi difference besides ``use``.
    best_preset : Candidate
        Largest Phi among the presets (a named configuration).
    most_stable_overall : Candidate
        Largest Phi among all candidates (any measure).
    other : irstab.verdict.Verdict or None
        The same rule applied to the measures that are not nDCG (marginal
        intervals, for context).
    text : str
        The verdict in plain language.
    """

    verdict: object
    use: Candidate
    baseline: Candidate
    closest: tuple[Candidate, ...]
    best_preset: Candidate
    most_stable_overall: Candidate
    other: object
    text: str

    @property
    def change(self) -> bool:
        return bool(self.verdict.change)

    # the names of the first version of the report
    best = property(lambda self: self.use)
    reference = property(lambda self: self.baseline)

    def to_dict(self) -> dict:
        u = self.use
        return {
            "change": self.change,
            "measure": u.measure,
            "family": u.family,
            "baseline": self.baseline.measure,
            "phi": u.phi,
            "phi_diff": u.phi_diff,
            "phi_diff_ci": [u.phi_diff_lower, u.phi_diff_upper],
            "topics_needed_090": u.topics_90,
            "topics_needed_095": u.topics_95_verdict,
            "baseline_topics_needed_095": self.baseline.topics_95,
            "cross_fitted": u.cross_fitted,
            "kendall_tau_baseline": u.kendall_tau,
            "closest": [c.measure for c in self.closest],
            "best_preset": self.best_preset.measure,
            "most_stable_overall": self.most_stable_overall.measure,
            "interval": self.verdict.interval,
            "rule": self.verdict.to_dict(measures=False),
            "other_measures": None if self.other is None else self.other.to_dict(measures=False),
            "text": self.text,
        }


def _method(settings: dict) -> str:
    from ..verdict.paired import PhiInterval

    return PhiInterval(settings.get("interval", "jackknife")).label


def rule_text(baseline: str, settings: dict, n_candidates: int, n_context: int) -> str:
    """The decision rule as the report states it (with references).

    ``n_candidates``: the nDCG configurations the rule may recommend (their
    intervals are simultaneous); ``n_context``: the other measures.
    """
    from ..verdict.paired import PhiInterval

    method = PhiInterval(settings.get("interval", "jackknife"))
    B = settings.get("verdict_draws", settings["n_bootstrap"])
    how = {
        PhiInterval.jackknife: (
            "the two-facet jackknife of the G-study: each difference's variance is read from "
            "the mean squares recomputed with one system, one topic, and one system and one "
            "topic left out (Arvesen & Schmitz, Biometrics 1970), the system x topic "
            "interaction counted once (it is counted twice by leaving out systems and topics "
            "alone, as by resampling both; Brennan, Generalizability Theory, 2001, §6.2); where "
            "a measure's system means are heavy-tailed (excess kurtosis 1 or more), each system "
            "is left out exactly rather than along the tangent; the interval is Student's t with "
            "Satterthwaite's degrees of freedom from the three parts, the system and topic "
            "parts' deflated 7 times and by 1 + 6 kappa (kappa the excess kurtosis of the "
            "topics' exact leave-one-out differences; no lower than 3 degrees of freedom on "
            "its account) and each counting half the interaction variance it was cleared of "
            "(calibrated on ten real TREC collections, "
            "coverage first: their variances are read from few, heavy-tailed values), and over "
            "the candidates "
            "Bonferroni's level holds "
            "for all of them. Unlike the normal-theory (Wishart) intervals, it reads from the "
            "data what real score matrices do: a few weak runs make the system effects "
            "heavy-tailed, and residual variance differs from run to run. In universes made of "
            "real scores (systems and topics resampled from ten public TREC collections, the "
            "truth from the whole collection) they covered a true difference in 93-100 % of "
            "collections with 12 to 30 systems, TREC Web 2010's heavy-tailed topics included, "
            "and a null one in 98-100 %; in normal ones 96-100 %; on two collections no "
            "choice used, 92-97 %; the rule recommended a wrong change in at most 1.0 % "
            "(docs/calibration.md has every setting and where it falls short)."
        ),
        PhiInterval.parametric: (
            "the multivariate G-study of all measures (Brennan, Generalizability Theory, 2001, "
            "ch. 9): their mean-product matrices, that is their mean squares and how their "
            "system, topic and residual effects covary, are drawn from their Wishart "
            "distribution at the fitted values, as a fresh sample of systems and topics would "
            f"give them (B = {B}); each drawn mean square becomes a generalized pivot of its "
            "expectation (Weerahandi, JASA 1993), every measure's Phi is recomputed from the "
            "pivots, and the interval is the percentile interval of their differences at the "
            "level Student's t with one degree of freedom fewer than the systems gives "
            "(Hesterberg, The American Statistician 2015). Resampling systems and topics "
            "together would count the system x topic interaction twice (Brennan 2001, §6.2; "
            "Wiley 2000; Tong & Brennan, Educational and Psychological Measurement 2007): in "
            "the calibration's simulations its intervals are up to 1.7 times too wide and cover "
            "96-100 % instead of 95 %; resampling topics alone ignores the sampling of "
            "systems. On collections simulated from fitted components (12 x 30, 30 x 40 and "
            "TREC DL 2019's 37 x 43; docs/calibration.md) these intervals cover 93-97 %, "
            "but in universes made of real scores only 62-100 %: the normal model cannot see "
            "heavy-tailed system effects; use the default jackknife."
        ),
        PhiInterval.bootstrap: (
            f"a bootstrap of systems and topics (B = {B}). It counts the system x topic "
            "interaction twice (Brennan 2001, §6.2): its intervals are too wide and cover 96-100 % "
            "instead of 95 %; use the default jackknife intervals for a calibrated verdict "
            "(docs/calibration.md)."
        ),
        PhiInterval.topic_bootstrap: (
            f"a bootstrap of topics (B = {B}), the systems as observed. It ignores the "
            "sampling of systems: its intervals are too narrow (docs/calibration.md); use the "
            "default jackknife intervals for a calibrated verdict."
        ),
    }[method]
    together = ("Bonferroni's level on each candidate's t" if method is PhiInterval.jackknife
                else "percentile intervals, Mandel & Betensky, CSDA 2008")
    context = (
        f" The other {n_context} measures get marginal 95 % intervals, shown for context only: "
        "the rule does not choose among them." if n_context else ""
    )
    return (
        f"Every candidate is compared with {baseline} on the same draws (a paired comparison). "
        "The quantity is the difference in Phi at the observed number of topics, in the "
        "universe the G-study generalises to: new systems and new topics. Its interval comes "
        f"from {how} The intervals of the {n_candidates} nDCG configurations, the measures "
        f"the rule can recommend, hold simultaneously at 95 % ({together}), so picking the "
        "best of many does not turn noise into a "
        f"recommendation.{context} The optimised configurations are chosen to maximise Phi, "
        "which flatters them on the topics they were chosen on; the rule therefore judges "
        "each by its cross-fitted scores: the topics split into folds, every topic scored by "
        "the configuration optimised on the other folds (Chernozhukov et al., Econometrics "
        "Journal 2018), so its difference and interval come from held-out scores only; the "
        "configuration shown is still the one optimised on all topics. A change is "
        "recommended only when the interval lies above "
        "zero and the candidate saves a material number of topics for Phi = 0.95: at least "
        f"{settings['min_saving']:.0%} of the baseline's, and at least one. Among those the "
        "largest difference wins. Discriminative power (Sakai, SIGIR 2006) is weighed the "
        "same way: on resamples of the topics, the system pairs that a paired t-test finds "
        f"significant at alpha = {settings['alpha']}, minus the baseline's, with a 95 % "
        "percentile interval; the report says when the two criteria point in opposite "
        "directions. Phi as the criterion: Kanoulas & Aslam, CIKM 2009."
    )


def _most_stable(pool: Sequence[Candidate]) -> Candidate:
    pool = [c for c in pool if math.isfinite(c.phi)]
    if not pool or max(c.phi for c in pool) <= 0:
        raise DegenerateDataError(
            "no candidate has a positive Phi (no system variance): the systems do not "
            "differ on this collection, so no measure can be recommended"
        )
    return max(pool, key=lambda c: c.phi)  # max keeps the first of ties


def _sig(c: Candidate, n_pairs: int, short: bool = False) -> str:
    n = int(c.sig_diff)
    word = "more" if n >= 0 else "fewer"
    ci = _interval(c.sig_diff_lower, c.sig_diff_upper, '+.0f')
    if short:
        return f"{abs(n)} {word} of {n_pairs} pairs, 95 % interval {ci}"
    return f"{abs(n)} {word} significant system pairs of {n_pairs} (95 % interval {ci})"


def _closest_text(c: Candidate, base: Candidate) -> str:
    held = "cross-fitted: " if c.cross_fitted else ""
    flat = (f"; in sample {_signed(c.phi_diff_in_sample)}" if c.cross_fitted else "")
    return (f"{_named(c)} ({held}Phi {_signed(c.phi_diff)} "
            f"{_interval(c.phi_diff_lower, c.phi_diff_upper)}{flat}; {saving_text(c, base)})")


def _held_out_text(shown: Sequence[Candidate], settings: dict) -> str:
    """Why the optimised rows' figures differ from their in-sample ones (empty if none shown)."""
    fitted = [c for c in shown if c.cross_fitted]
    if not fitted:
        return ""
    k = settings.get("cross_fit_folds", 5)
    return (f" Optimised configurations are judged on topics they were not fitted to: each "
            f"topic scored by the configuration optimised on the other {k - 1} of {k} folds "
            f"of topics (cross-fitted); in sample, on the topics they were chosen on, they "
            f"look better by " + ", ".join(
                f"{_signed(c.phi_diff_in_sample - c.phi_diff)} ({display_name(c)})"
                for c in fitted[:3]) + ".")


def recommend(
    cands: Sequence[Candidate], verdict, other, n_topics: int, n_pairs: int,
    settings: dict | None = None,
) -> Recommendation:
    """Build the :class:`Recommendation` from the candidates and the rule's verdicts.

    ``verdict`` decides among the nDCG configurations (simultaneous
    intervals), ``other`` (or None) applies the rule to the other measures'
    marginal intervals, for context.
    """
    by = {c.measure: c for c in cands}
    base = by[verdict.baseline]
    use = by[verdict.use]
    n_compared = len(verdict.pool)
    method = _method({"interval": verdict.interval})
    settings = settings or {}
    closest = tuple(by[m] for m in verdict.closest)
    preset = _most_stable([c for c in cands if c.family == "preset"])
    overall = _most_stable(cands)
    bname = display_name(base)
    if verdict.change:
        lines = [
            f"Use {_named(use)} instead of {bname}: it is reliably more stable with these "
            f"{n_topics} topics. Phi = {use.phi:.3f} against {base.phi:.3f}, a difference of "
            f"{_signed(use.phi_diff)} (95 % interval "
            f"{_interval(use.phi_diff_lower, use.phi_diff_upper)}, simultaneous over the "
            f"{n_compared} nDCG candidates; {method}); it {saving_text(use, base)}.",
            f"It finds {_sig(use, n_pairs)} and ranks the systems at Kendall tau = "
            f"{fmt_value(use.kendall_tau, '.3f')} with {bname}.",
        ]
        if use.cross_fitted:
            lines[0] = lines[0].replace(" (95 % interval", " (cross-fitted, 95 % interval")
        if closest:
            lines.append("Next closest: " + "; ".join(_closest_text(c, base) for c in closest)
                         + ".")
    else:
        lines = [
            f"Keep {bname}: no candidate is reliably more stable with these {n_topics} topics "
            f"by enough to matter (Phi = {base.phi:.3f}; it needs {_n(base.topics_95)} topics "
            f"for Phi = 0.95).",
        ]
        if closest:
            lines.append("Closest: " + "; ".join(_closest_text(c, base) for c in closest) + ".")
        lines.append(f"Intervals: 95 %, simultaneous over the {n_compared} nDCG candidates "
                     f"({method}).")
    held = _held_out_text([use, *closest], settings)
    if held:
        lines.append(held.strip())
    few = few_systems_text(settings.get("n_systems", FEW_SYSTEMS))
    if few:
        lines.append(few)
        near = [c for c in closest if c.phi_diff_lower > 0]
        if near:
            lines.append(
                ", ".join(display_name(c) for c in near)
                + (" is" if len(near) == 1 else " are")
                + " reliably more stable, but the saving in topics is below the "
                f"{verdict.min_saving:.0%} that makes a change worth it."
            )
    if verdict.disagreements:
        dis = [by[m] for m in verdict.disagreements]
        up = all(c.phi_diff > 0 for c in dis)
        down = all(c.phi_diff < 0 for c in dis)
        how = (f"more stable than {bname} but find fewer significant pairs" if up else
               f"less stable than {bname} but find more significant pairs" if down else
               f"on the other side of {bname} in significant pairs than in Phi")
        lines.append(
            f"Stability and discriminative power disagree: {'it is' if len(dis) == 1 else 'they are'} "
            + how + " ("
            + "; ".join(f"{display_name(c)}: {_sig(c, n_pairs, short=True)}" for c in dis) + ")."
        )
    if verdict.reliably_more_significant:
        names = ", ".join(display_name(by[m]) for m in verdict.reliably_more_significant[:3])
        lines.append(
            f"{names} find{'s' if len(verdict.reliably_more_significant) == 1 else ''} reliably "
            f"more significant pairs than {bname} without being reliably more stable."
        )
    if other is not None:
        n_other = len(other.pool)
        if other.change:
            o = by[other.recommended]
            lines.append(
                f"For context, outside nDCG: {_named(o)} would pass the rule on its own "
                f"marginal interval (Phi {_signed(o.phi_diff)} "
                f"{_interval(o.phi_diff_lower, o.phi_diff_upper)}; it {saving_text(o, base)}), "
                f"not corrected for looking at {n_other} measures, and it measures something "
                "else."
            )
        elif other.closest:
            o = by[other.closest[0]]
            lines.append(
                f"For context, no other measure is reliably more stable either on its own "
                f"marginal interval; the closest is {display_name(o)} (Phi "
                f"{_signed(o.phi_diff)} {_interval(o.phi_diff_lower, o.phi_diff_upper)})."
            )
    return Recommendation(verdict, use, base, closest, preset, overall, other, " ".join(lines))
