r"""Is one configuration's agreement really above another's? A paired bootstrap over topics.

Two configurations counted on the same comparisons (e.g. the cross-fitted optimum and the best
preset, :class:`irstab.preferences.fit.AgreementCrossFit`) give per comparison an outcome each
(+1 agrees, 0 ties, -1 disagrees). Comparisons of one topic share the topic's documents and
are not independent, so the topics are resampled, with replacement, as units (a cluster
bootstrap), the two configurations' counts of every topic drawn together (paired); the
difference of their rates (:data:`irstab.preferences.comparisons.TIE_RULES`) is recomputed from the
resampled counts and the interval is its percentiles. Vectorised: one multinomial draw of topic
weights per resample, one matrix product for every count.

An ``exclude`` rate (Sanderson et al.'s) whose resample separates no comparison is undefined; such resamples are left
out and counted (:attr:`PairedDifference.undefined`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._numeric import check_seed
from ..errors import IRStabError
from .fit import check_ties

__all__ = ["PairedDifference", "paired_difference", "against_preset"]


@dataclass(frozen=True)
class PairedDifference:
    """Rate of ``a`` minus rate of ``b`` and its percentile interval over topics."""

    difference: float
    lower: float
    upper: float
    level: float
    n_resamples: int
    n_topics: int
    ties: str
    undefined: int = 0

    def to_dict(self) -> dict:
        return {"difference": self.difference, "lower": self.lower, "upper": self.upper,
                "level": self.level, "n_resamples": self.n_resamples,
                "n_topics": self.n_topics, "ties": self.ties, "undefined": self.undefined}


def _rates(counts: np.ndarray, ties: str) -> np.ndarray:
    """Rates of ``(..., 3)`` counts (agree, tie, disagree)."""
    agree, tie, disagree = counts[..., 0], counts[..., 1], counts[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        if ties == "half":
            return (agree + 0.5 * tie) / (agree + tie + disagree)
        if ties == "disagree":
            return agree / (agree + tie + disagree)
        return agree / (agree + disagree)


def paired_difference(outcomes_a, outcomes_b, topic, *, ties: str = "half",
                      n_resamples: int = 2000, level: float = 0.95,
                      seed=0) -> PairedDifference:
    """The difference of two configurations' agreement with a topic-bootstrap interval.

    Parameters
    ----------
    outcomes_a, outcomes_b : array_like of int, shape (n,)
        +1 / 0 / -1 per comparison (with a preference) of each configuration.
    topic : array_like, shape (n,)
        The topic of each comparison: the unit resampled.
    ties : {"half", "exclude", "disagree"}
    n_resamples : int
        Bootstrap resamples (>= 100).
    level : float
        Of the percentile interval, in (0, 1).
    seed : int or numpy.random.Generator

    Examples
    --------
    >>> d = paired_difference([1, 1, -1, 1], [1, -1, -1, 0], ["a", "a", "b", "b"], seed=1)
    >>> round(d.difference, 3), d.lower <= d.difference <= d.upper
    (0.375, True)
    """
    ties = check_ties(ties)
    a = np.asarray(outcomes_a).reshape(-1)
    b = np.asarray(outcomes_b).reshape(-1)
    t = np.asarray(topic).reshape(-1)
    if not (len(a) == len(b) == len(t)) or not len(t):
        raise IRStabError(f"outcomes_a, outcomes_b, topic: expected equal non-zero lengths, "
                          f"got {len(a)}, {len(b)}, {len(t)}")
    for name, o in (("outcomes_a", a), ("outcomes_b", b)):
        if not np.isin(o, (-1, 0, 1)).all():
            raise IRStabError(f"{name}: values must be +1, 0 or -1")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 100:
        raise IRStabError(f"n_resamples: expected an integer >= 100, got {n_resamples!r}")
    if not 0 < level < 1:
        raise IRStabError(f"level: expected a number in (0, 1), got {level!r}")
    _, codes = np.unique(t, return_inverse=True)
    n_t = int(codes.max()) + 1

    def per_topic(o):  # (topics, 3): agree, tie, disagree
        return np.stack([np.bincount(codes, weights=(o == v), minlength=n_t)
                         for v in (1, 0, -1)], axis=1)

    ca, cb = per_topic(a), per_topic(b)
    diff = float(_rates(ca.sum(axis=0), ties) - _rates(cb.sum(axis=0), ties))
    w = check_seed(seed).multinomial(n_t, np.full(n_t, 1.0 / n_t), size=n_resamples)
    boot = _rates(w @ ca, ties) - _rates(w @ cb, ties)
    ok = np.isfinite(boot)
    if not ok.any():
        raise IRStabError("ties: every resample leaves a configuration with no separated "
                          "comparison; the excluding rate is undefined (use ties='half')")
    lo, hi = np.percentile(boot[ok], [50 * (1 - level), 50 * (1 + level)])
    return PairedDifference(diff, float(lo), float(hi), float(level), int(n_resamples), n_t,
                            ties, int((~ok).sum()))


def against_preset(cross_fit, preset: str | None = None, **options) -> PairedDifference:
    """Cross-fitted optimum minus a preset (default: the best by the optimum's rule), paired
    over the same comparisons, on :class:`irstab.preferences.fit.AgreementCrossFit`.

    ``options`` as :func:`paired_difference` (its ``ties`` is the optimum's).
    """
    name = cross_fit.best_preset[0] if preset is None else preset
    if name not in [m for m, _ in cross_fit.presets]:
        raise IRStabError(f"preset: {name!r} is none of the presets "
                          f"{', '.join(m for m, _ in cross_fit.presets)}")
    return paired_difference(cross_fit.outcomes, cross_fit.preset_outcome(name),
                             cross_fit.topic, ties=cross_fit.ties, **options)
