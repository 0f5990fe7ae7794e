"""The report's trust card: the baseline calibrated on collections simulated like this one.

:func:`trust_card` runs :func:`irstab.trust.card.calibrate_collection` on the
baseline's scores with the report's alpha, seed and (at most
:data:`TRUST_RESAMPLES`) resamples, the split-half fit check (the card says first when
the simulator fails it), and the report's candidates (the nDCG configurations its verdict
compares with the baseline, optimised ones by their cross-fitted scores), each checked
in the collection's own universe over :func:`candidate_replicates` collections (with its
Monte-Carlo error only: ``irstab calibrate -c`` adds how far the coverage moves between
collections like this one, at a cost the report's 32 candidates would multiply); a
collection too small for the simulator, or scores outside [0, 1], get a sentence saying
why instead, and the report goes on.
"""

from __future__ import annotations

import warnings

from ..errors import IRStabError

__all__ = ["trust_card", "TRUST_RESAMPLES", "CANDIDATE_BUDGET", "candidate_replicates"]


#: Resamples of the trust card's Monte-Carlo tests, at most (the report's B if smaller).
TRUST_RESAMPLES = 1000
#: Collections over all of the card's candidates (each one's universe gets a share).
CANDIDATE_BUDGET = 3200


def candidate_replicates(n_candidates: int) -> int:
    """Collections of each candidate's universe: ``CANDIDATE_BUDGET`` shared, between 50 and
    200 each (100 for DL-2019's 32 candidates: a coverage of 95 % +- 2.2 %).

    Each collection costs one jackknife interval and one rule (about 1 CPU ms at 37 x 43:
    DL-2019's 32 candidates add some 3.5 CPU s to a report of about 16), so the candidates
    cost the report about as much whatever its cutoffs; ``irstab calibrate`` gives each
    candidate ``--verdict-replicates`` (200) instead.

    >>> candidate_replicates(32), candidate_replicates(7), candidate_replicates(200)
    (100, 200, 50)
    """
    return max(50, min(200, CANDIDATE_BUDGET // max(1, int(n_candidates))))


def trust_card(scores, measure: str, alpha: float, n_bootstrap: int, seed, replicates,
               candidates=None):
    """The trust card of the baseline, or None and why (too few topics, scores outside
    [0, 1]): the report goes on without it. ``candidates``: ``{measure: scores}`` the
    report's verdict compares with the baseline."""
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
                n_resamples=min(int(n_bootstrap), TRUST_RESAMPLES), candidates=candidates,
                candidate_replicates=candidate_replicates(len(candidates or ())),
                # the error between collections: 5 times the candidates' collections again
                # (about 3.5 CPU s for DL-2019's 32, a fifth of the report), and at 50
                # collections a resample mostly Monte-Carlo noise: irstab calibrate -c measures it
                sampling_resamples=0, measure=measure, seed=seed)
    except IRStabError as exc:
        return None, f"no trust card: {exc}"
    return card, ""
