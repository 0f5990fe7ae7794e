"""The report's trust card: the baseline calibrated on collections simulated like this one.

:func:`trust_card` runs :func:`irstab.trust.card.calibrate_collection` on the
baseline's scores with the report's alpha, seed and (at most
:data:`TRUST_RESAMPLES`) resamples, without the split-half fit check (docs/trust-card.md
shows it); a collection too small for the simulator, or scores outside [0, 1], get a
sentence saying why instead, and the report goes on.
"""

from __future__ import annotations

import warnings

from ..errors import IRStabError

__all__ = ["trust_card", "TRUST_RESAMPLES"]


#: Resamples of the trust card's Monte-Carlo tests, at most (the report's B if smaller).
TRUST_RESAMPLES = 1000


def trust_card(scores, measure: str, alpha: float, n_bootstrap: int, seed, replicates):
    """The trust card of the baseline, or None and why (too few topics, scores outside
    [0, 1]): the report goes on without it."""
    from ..trust.card import MIN_SYSTEMS, MIN_TOPICS, calibrate_collection

    S, T = scores.shape
    if S < MIN_SYSTEMS or T < MIN_TOPICS:
        return None, (f"no trust card: the simulator needs at least {MIN_SYSTEMS} systems and "
                      f"{MIN_TOPICS} topics, the collection has {S} and {T}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the G-study's own warnings are in the report
            card = calibrate_collection(
                scores, alpha=alpha, n_replicates=replicates,
                n_resamples=min(int(n_bootstrap), TRUST_RESAMPLES), fit_collections=0,
                measure=measure, seed=seed)
    except IRStabError as exc:
        return None, f"no trust card: {exc}"
    return card, ""
