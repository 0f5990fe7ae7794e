"""The report's answer first: a one-line headline and three short bullets.

The verdict's full text (:attr:`irstab.report.recommend.Recommendation.text`) follows
them, folded; these lines only restate its numbers from the candidates, so they can
never say something the verdict does not.

* headline: ``Keep nDCG@10`` or ``Use X: saves N of M topics``;
* stability: Phi of the measure to use (and of the baseline), the difference and its
  95 % interval;
* topics: what each needs for Phi = 0.95;
* the systems: significant pairs found and Kendall tau against the baseline.
"""

from __future__ import annotations

import math

from .candidates import display_name

__all__ = ["headline", "bullets"]


def _n(v: float) -> str:
    return str(int(v)) if math.isfinite(v) else "never"


def _s(v: float) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:+.3f}"


def headline(rec) -> str:
    """``Keep nDCG@10`` or ``Use X: saves N of M topics`` (Phi = 0.95)."""
    base = display_name(rec.baseline)
    if not rec.change:
        return f"Keep {base}"
    use = display_name(rec.use)
    nb, nu = rec.baseline.topics_95, rec.use.topics_95
    if math.isfinite(nb) and math.isfinite(nu) and nu < nb:
        return f"Use {use}: saves {int(nb - nu)} of {int(nb)} topics"
    if not math.isfinite(nb) and math.isfinite(nu):
        return f"Use {use}: reaches Phi = 0.95 with {int(nu)} topics, {base} never"
    return f"Use {use} instead of {base}"


def bullets(rec, n_topics: int) -> tuple[str, str, str]:
    """Three short lines: stability, topics needed, the systems."""
    base, use = rec.baseline, rec.use
    bn = display_name(base)
    other = use if rec.change else (rec.closest[0] if rec.closest else None)
    if other is None or other is base:
        stab = f"Stability: Phi = {base.phi:.3f} with these {n_topics} topics."
        topics = f"Topics for Phi = 0.95: {_n(base.topics_95)}."
        systems = f"{bn} finds {base.n_significant} significant pairs of systems."
        return stab, topics, systems
    on = display_name(other)
    role = "" if rec.change else " (the closest)"
    stab = (f"Stability with these {n_topics} topics: Phi {other.phi:.3f} for {on}{role} "
            f"against {base.phi:.3f}, difference {_s(other.phi_diff)} "
            f"[{_s(other.phi_diff_lower)}, {_s(other.phi_diff_upper)}] (95 %).")
    topics = (f"Topics for Phi = 0.95: {_n(other.topics_95)} with {on}, "
              f"{_n(base.topics_95)} with {bn}.")
    tau = "n/a" if not math.isfinite(other.kendall_tau) else f"{other.kendall_tau:.3f}"
    systems = (f"Systems: {on} finds {other.n_significant} significant pairs ({bn}: "
               f"{base.n_significant}) and ranks them at Kendall tau {tau} with {bn}.")
    return stab, topics, systems
