r"""The front of stability and agreement judged on topics it was not traced on.

Both axes of :func:`irstab.preferences.front.agreement_front` are in sample: each point was
searched on the topics and preferences it is scored on. :func:`cross_fit_front` gives the
honest figure, as :mod:`irstab.optimizer.crossfit` does for the report's optimised rows:

1. the topics (of the collection and of the preferences together, by id) are split into seeded
   folds (:func:`irstab.optimizer.topic_folds`);
2. for each fold, the front is traced on the other folds only: Phi on the collection's other
   topics, agreement on the comparisons of the other topics;
3. the optimised points of the fold's front, from the most stable to the most agreeing (the
   sweep in order), are matched to the front on all topics by position (a fold whose front
   collapsed to fewer points gives its nearest point by relative position);
4. at each position, every held-out comparison is counted under its fold's configuration, and
   every held-out topic of the collection scored by it; the cross-fitted score matrix (every
   topic scored by a configuration that never saw it) gives the cross-fitted Phi at one topic,
   the held-out outcomes the cross-fitted agreement.

The presets are not fitted: their in-sample figures are already out of sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from ..errors import IRStabError
from ..optimizer import Scenario, topic_folds
from .fit import DEFAULT_TIES, AgreementForms, _arrays, _count, Agreement
from .front import AgreementFront, agreement_front

__all__ = ["FrontCrossFit", "cross_fit_front"]


@dataclass(frozen=True)
class FrontCrossFit:
    """In-sample front and, per optimised position, its cross-fitted Phi and agreement.

    Attributes
    ----------
    front : AgreementFront
        On all topics.
    labels : tuple of str
        The optimised positions (most stable, the sweep, most agreeing) of ``front``.
    phi : ndarray
        ``(positions,)`` cross-fitted Phi at one topic.
    agreement : tuple of Agreement
        Cross-fitted counts per position.
    n_folds : int
    topic_folds : ndarray
        ``(collection topics,)`` the fold of each of the collection's topics.
    configs : tuple
        ``configs[f][j] = (gain, discount)``: fold ``f``'s configuration at position ``j``.
    """

    front: AgreementFront
    labels: tuple[str, ...]
    phi: np.ndarray
    agreement: tuple[Agreement, ...]
    n_folds: int
    topic_folds: np.ndarray = field(repr=False, default=None)
    configs: tuple = field(repr=False, default=())

    def rate(self, i: int) -> float:
        return self.agreement[i].value(self.front.ties)

    def to_dict(self) -> dict:
        return {"n_folds": self.n_folds, "ties": self.front.ties,
                "positions": [{"label": lab, "phi1": float(p), **a.to_dict()}
                              for lab, p, a in zip(self.labels, self.phi, self.agreement)]}


def _optimised(front: AgreementFront):
    return [p for p in front.points if p.kind != "preset"]


def cross_fit_front(collection, comparisons, cutoff: int, *, folds: int = 5, seed=0,
                    ties: str = DEFAULT_TIES, **options) -> FrontCrossFit:
    """The front on all topics and its optimised points cross-fitted (module docstring).

    ``options`` as :func:`irstab.preferences.front.agreement_front` (``points``, ``starts``,
    ...); ``seed`` seeds the folds and the starts alike.

    Examples
    --------
    >>> import irstab
    >>> from irstab.preferences.simulated import simulated_comparisons
    >>> sim = irstab.simulate.simulate_collection(n_systems=5, n_topics=6, depth=5, seed=1)
    >>> coll = irstab.Collection.build(sim.qrels, sim.runs, depth=5)
    >>> prefs = simulated_comparisons(coll, 3, per_topic=4, seed=2)
    >>> cf = cross_fit_front(coll, prefs, 3, folds=2, points=2, starts=0)
    >>> len(cf.labels) == len(cf.phi) == len(cf.agreement)
    True
    """
    topic, preferred, ga, gb = _arrays(comparisons)
    topic = np.asarray(topic).astype(str)
    whole = agreement_front(collection, comparisons, cutoff, seed=seed, ties=ties, **options)
    k = whole.cutoff
    coll_ids = np.asarray(collection.topics, dtype=str)
    ids = np.union1d(coll_ids, topic)
    fold_of = dict(zip(ids.tolist(), topic_folds(len(ids), folds, seed).tolist()))
    coll_fold = np.array([fold_of[t] for t in coll_ids.tolist()])
    pref_fold = np.array([fold_of[t] for t in topic.tolist()])
    forms = AgreementForms(topic, preferred, ga, gb, cutoff=k,
                           max_grade=max(int(collection.max_grade), 1))
    keep_fold = pref_fold[np.asarray(preferred) != 0]  # forms keep comparisons with a preference
    scenario = Scenario(collection, k)
    positions = _optimised(whole)
    n_pos = len(positions)
    scores = np.zeros((n_pos, collection.n_systems, collection.n_topics))
    outcomes = np.zeros((n_pos, forms.n), dtype=np.int8)
    n_folds = max(fold_of.values()) + 1
    configs = []
    for f in range(n_folds):
        train_t = np.flatnonzero(coll_fold != f)
        test_t = np.flatnonzero(coll_fold == f)
        train_c = pref_fold != f
        if len(train_t) < 2 or not np.any((np.asarray(preferred) != 0) & train_c):
            raise IRStabError(f"folds: fold {f + 1} leaves fewer than 2 of the collection's "
                              "topics or no preference to trace the front on; use fewer folds")
        part = SimpleNamespace(topic=topic[train_c], preferred=np.asarray(preferred)[train_c],
                               grades_a=np.asarray(ga)[train_c], grades_b=np.asarray(gb)[train_c])
        fr = agreement_front(collection, part, k, seed=seed, ties=ties, topics=train_t,
                             **options)
        opt = _optimised(fr)
        held = keep_fold == f
        configs.append([])
        for j in range(n_pos):
            p = opt[int(round(j * (len(opt) - 1) / max(n_pos - 1, 1)))]
            g, d = np.asarray(p.gain), np.asarray(p.discount)
            configs[-1].append((g, d))
            if len(test_t):
                scores[j][:, test_t] = scenario.ndcg(g, d)[:, test_t]
            if held.any():
                outcomes[j, held] = forms.subset(held).outcomes(g, d)
    phi = np.array([scenario.stability(scores[j])[0] for j in range(n_pos)])
    return FrontCrossFit(whole, tuple(p.label for p in positions), phi,
                         tuple(_count(o) for o in outcomes), n_folds, coll_fold,
                         tuple(tuple(c) for c in configs))
