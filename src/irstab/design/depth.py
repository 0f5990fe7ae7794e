r"""Depth study: what a shallower pool would have cost and measured.

A pool of depth :math:`d` judges, for every topic, the documents that at least one run puts in
its top :math:`d` (the runs' order: score descending, ties by docid descending, as the
Collection). Its cost is the pool's size, :math:`P_d(t)` judgments for topic :math:`t`. A
shallower pool changes the *scores*, not only their variance: a document below the pool depth
of every run is unjudged, so it counts as non-relevant. The depth study therefore
re-evaluates every run with the qrels restricted to the pool of each depth,

.. math:: Q_d = \{(t, doc, g) \in Q : \min_{runs} rank(t, doc) \le d\},

and fits the G-study (and, with assessor qrels, the three-facet G-study) on those scores.
Topics that have no relevant document within :math:`Q_d` are left out at that depth
(the Collection's convention), and the study says how many.

Two more figures per depth tell how far the shallow collection is from the one it samples:
the *coverage* (the share of the pool :math:`P_d` that the qrels judge; below 1 when the
original pool was shallower than :math:`d` or did not include every run) and Kendall's
:math:`\tau` between the systems' mean scores at depth :math:`d` and with the full qrels.

Assessors (``assessor_qrels``): each assessor's judgments are restricted to the same pool,
and the (topic, assessor) Collection of :mod:`irstab.collection.assessors` is built on it
(documents an assessor did not judge keep the restricted base grade by default).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ..errors import DegenerateDataError, IRStabError, IRStabWarning
from ..io import Qrels, Run, read_qrels, read_runs

__all__ = [
    "DEFAULT_DEPTHS",
    "DepthLevel",
    "DepthStudy",
    "depth_study",
    "first_relevant_pool_rank",
    "pool_depth_topics",
    "pool_qrels",
    "pool_ranks",
]

#: Pool depths studied when none are given (each at most the depth the runs are read to).
DEFAULT_DEPTHS = (5, 10, 20, 50, 100)


def pool_ranks(runs: Sequence[Run], depth: int, order: str = "score") -> pd.DataFrame:
    """Every document some run puts in its top ``depth``, with the best rank any run gives it.

    Columns ``topic, docid, pool_rank``: the document is in the pool of depth ``d`` iff
    ``pool_rank <= d``.
    """
    from ..collection.reduce import top_documents

    tops = [top_documents(r.frame, depth, order) for r in runs]
    allr = pd.concat(tops, ignore_index=True)
    best = allr.groupby(["topic", "docid"], sort=False)["rank"].min()
    return best.rename("pool_rank").reset_index()


def first_relevant_pool_rank(collection):
    """Per topic of a built Collection: the shallowest pool depth holding a relevant document.

    The smallest rank at which some run puts a document of grade > 0 (``numpy.iinfo(int64)
    .max`` for a topic no run retrieves a relevant document of within the Collection's depth).
    """
    import numpy as np

    relevant = collection.grades > 0
    found = relevant.any(axis=2)
    first = np.where(found, relevant.argmax(axis=2) + 1, np.iinfo(np.int64).max)
    return first.min(axis=0) if first.size else np.full(first.shape[1], np.iinfo(np.int64).max)


def pool_depth_topics(collection, depths: Sequence[int]) -> dict[int, int]:
    r"""Topics with a relevant document in the pool of each depth, from a built Collection.

    A pool of depth :math:`d` holds a relevant document of topic :math:`t` iff some run
    ranks a document of grade > 0 at rank :math:`\le d`: with the first relevant rank
    :math:`f(s, t)` of each run, the topic counts iff :math:`\min_s f(s, t) \le d`
    (:func:`first_relevant_pool_rank`). This is the ``n_topics`` of :func:`depth_study` at
    that depth (same runs, order and ``run_depth`` as the Collection), known in milliseconds
    from the Collection's grade tensor before the study re-evaluates anything; a depth with
    0 is one the study cannot use.
    """
    import numpy as np

    best = first_relevant_pool_rank(collection)
    return {int(d): int(np.count_nonzero(best <= d)) for d in depths}


def pool_qrels(qrels: Qrels, pool: pd.DataFrame, depth: int, name: str | None = None) -> Qrels:
    """The judgments of ``qrels`` inside the pool of depth ``depth`` (see :func:`pool_ranks`)."""
    inside = pool.loc[pool["pool_rank"] <= depth, ["topic", "docid"]]
    frame = qrels.frame.merge(inside, on=["topic", "docid"], how="inner")
    return Qrels(path=name or qrels.path, frame=frame[["topic", "docid", "grade"]])


@dataclass(frozen=True, eq=False)
class DepthLevel:
    """One pool depth: its cost, its coverage and the G-studies of its scores.

    ``judgments_per_topic`` is the mean pool size over the collection's topics;
    ``coverage`` the share of those pooled documents that the qrels judge; ``n_topics`` the
    topics with a relevant document at this depth. ``gstudies``, ``facets`` (``None``
    without assessor qrels) and ``tau`` are keyed by measure.
    """

    depth: int
    judgments_per_topic: float
    coverage: float
    n_topics: int
    scores: dict = field(repr=False)
    gstudies: dict = field(repr=False)
    facets: dict | None = field(repr=False)
    tau: dict = field(repr=False)


@dataclass(frozen=True, eq=False)
class DepthStudy:
    """Result of :func:`depth_study`.

    ``levels`` in increasing depth; ``full`` the G-studies with the unrestricted qrels;
    ``judgments`` the judgments the qrels hold on the collection's topics (what the present
    collection cost) and ``n_topics`` its topics; ``assessors`` the assessor names (empty
    without assessor qrels).
    """

    measures: tuple[str, ...]
    levels: tuple[DepthLevel, ...]
    full: dict = field(repr=False)
    n_topics: int = 0
    n_systems: int = 0
    judgments: int = 0
    assessors: tuple[str, ...] = ()
    design: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def depths(self) -> tuple[int, ...]:
        return tuple(lv.depth for lv in self.levels)

    def level(self, depth: int) -> DepthLevel:
        for lv in self.levels:
            if lv.depth == depth:
                return lv
        raise IRStabError(f"depth: {depth} is not a depth of this study {self.depths}")

    def to_frame(self) -> pd.DataFrame:
        """One row per (measure, depth): cost, coverage, topics, components, Phi, tau."""
        rows = []
        for m in self.measures:
            for lv in self.levels:
                g = lv.gstudies.get(m)
                r = {
                    "measure": m, "depth": lv.depth,
                    "judgments_per_topic": lv.judgments_per_topic, "coverage": lv.coverage,
                    "n_topics": lv.n_topics,
                    "var_system": g.var_system if g else math.nan,
                    "var_topic": g.var_topic if g else math.nan,
                    "var_residual": g.var_residual if g else math.nan,
                    "phi": g.phi() if g else math.nan,
                    "tau_full": lv.tau.get(m, math.nan),
                }
                if lv.facets is not None:
                    f = lv.facets.get(m)
                    r["phi_assessors"] = f.phi() if f is not None else math.nan
                    r["n_assessors"] = f.n_assessors if f is not None else math.nan
                rows.append(r)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {
            "measures": list(self.measures),
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            "judgments": self.judgments,
            "assessors": list(self.assessors),
            "design": self.design,
            "levels": self.to_frame().to_dict(orient="records"),
            "warnings": list(self.warnings),
        }


def _check_depths(depths, run_depth: int) -> tuple[int, ...]:
    try:
        ds = sorted({int(d) for d in depths})
    except (TypeError, ValueError):
        raise IRStabError(f"depths: expected positive integers, got {depths!r}") from None
    if not ds or ds[0] < 1:
        raise IRStabError(f"depths: expected positive integers, got {list(depths)!r}")
    beyond = [d for d in ds if d > run_depth]
    if beyond:
        raise IRStabError(f"depths: {beyond} exceed the depth the runs are read to "
                          f"({run_depth}); raise --depth or drop them")
    return tuple(ds)


def _truncated(runs: Sequence[Run], depth: int, order: str) -> list[Run]:
    """The runs cut to their first ``depth`` documents per topic (same order in every mode)."""
    from ..collection.reduce import top_documents

    return [Run(name=r.name, path=r.path, tag=r.tag, frame=top_documents(r.frame, depth, order))
            for r in runs]


def _means_tau(a: pd.DataFrame, b: pd.DataFrame) -> float:
    from ..compare.correlation import kendall_tau

    sa, sb = a.mean(axis=1), b.mean(axis=1).reindex(a.index)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kendall_tau(sa.to_numpy(), sb.to_numpy())


def depth_study(
    qrels,
    runs,
    measures,
    depths: Sequence[int] = DEFAULT_DEPTHS,
    *,
    assessor_qrels: Mapping[str, Qrels] | None = None,
    design: str = "nested",
    missing: str = "base",
    include_base: bool = True,
    run_depth: int = 1000,
    order: str = "score",
    progress: Callable[[str, int, int], None] | None = None,
) -> DepthStudy:
    """Re-evaluate the runs with the qrels restricted to each pool depth (module docstring).

    Parameters
    ----------
    qrels : path or Qrels
        The collection's judgments.
    runs : paths or Runs
        The systems; also what the pools are made of.
    measures : str, Measure or a sequence of them
        Scored at every depth; any spelling :func:`irstab.metrics.resolve_measures`
        reads (named measures, ``@result.json``, trec_eval names).
    depths : sequence of int
        Pool depths (at most ``run_depth``).
    assessor_qrels : mapping name -> Qrels, or paths, optional
        Assessors' qrels (:mod:`irstab.collection.assessors`): adds the three-facet G-study.
    design, missing, include_base
        Of the assessor facet (``nested``/``crossed``; ``base``/``unjudged``; the base qrels
        as one more assessor).
    run_depth, order
        Ranks kept per topic and the ranking order, as in ``Collection.build``.
    progress : callable, optional
        ``progress(step, done, total)`` after each depth.

    Returns
    -------
    DepthStudy
    """
    from ..collection import Collection
    from ..collection.assessors import assessor_collection, read_assessor_qrels
    from ..evaluation import score_matrices
    from ..metrics import resolve_measures
    from ..stability.facets import facet_gstudy
    from ..stability.gstudy import gstudy

    if not isinstance(measures, str) and not list(measures):
        raise IRStabError("measures: give at least one measure")
    # every spelling the other commands read: named measures, @result.json, trec_eval names
    parsed = resolve_measures(measures)
    names = [str(m) for m in parsed]
    ds = _check_depths(depths, run_depth)
    qrels = read_qrels(qrels)
    if isinstance(runs, (str, os.PathLike)) or not all(isinstance(r, Run) for r in runs):
        runs = read_runs(runs)
    runs = list(runs)
    if len(runs) < 2:
        raise DegenerateDataError(f"a depth study needs at least 2 runs, got {len(runs)}")
    if assessor_qrels is not None and not isinstance(assessor_qrels, Mapping):
        assessor_qrels = read_assessor_qrels(assessor_qrels)
    total = len(ds) + 1
    notes: list[str] = []
    pool = pool_ranks(runs, max(ds), order)  # from the whole runs, before any cut
    reads = [m.depth_needed() for m in parsed]
    if all(k is not None for k in reads):  # every build reads no deeper than the measures
        runs = _truncated(runs, min(run_depth, max(reads)), order)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        full_coll = Collection.build(qrels, runs, depth=run_depth, order=order)
    notes += [str(w.message) for w in caught]
    topics = list(full_coll.topics)
    full_scores = score_matrices(full_coll, parsed)
    full = {m: gstudy(full_scores[m], name=m) for m in names}
    base = qrels.frame[qrels.frame["topic"].isin(topics)]
    judgments = len(base)
    if progress:
        progress("full qrels", 1, total)

    pool = pool[pool["topic"].isin(topics)]
    judged_keys = pd.MultiIndex.from_frame(base[["topic", "docid"]])
    pool_judged = pd.MultiIndex.from_frame(pool[["topic", "docid"]]).isin(judged_keys)

    levels = []
    for k, d in enumerate(ds):
        inside = (pool["pool_rank"] <= d).to_numpy()
        per_topic = pool.loc[inside].groupby("topic").size().reindex(topics, fill_value=0)
        size = float(per_topic.mean())
        coverage = float(pool_judged[inside].mean()) if inside.any() else 0.0
        q_d = pool_qrels(Qrels(path=qrels.path, frame=base), pool, d,
                         name=f"{qrels.path} (pool depth {d})")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                coll = Collection.build(q_d, runs, depth=run_depth, order=order)
            except IRStabError as exc:
                raise DegenerateDataError(f"pool depth {d}: {exc}") from None
            scores = score_matrices(coll, parsed)
            gs = {}
            for m in names:
                try:
                    gs[m] = gstudy(scores[m], name=m)
                except DegenerateDataError as exc:
                    notes.append(f"pool depth {d}: {exc}; no G-study")
            facets = None
            if assessor_qrels is not None:
                restricted = {a: pool_qrels(q, pool, d) for a, q in assessor_qrels.items()}
                ac = assessor_collection(q_d, runs, restricted, missing=missing,
                                         include_base=include_base, depth=run_depth,
                                         order=order)
                long = ac.scores(parsed)
                facets = {}
                for m, f in long.groupby("measure", sort=False):
                    try:
                        facets[m] = facet_gstudy(f.drop(columns="measure"), design, name=m)
                    except DegenerateDataError as exc:
                        notes.append(f"pool depth {d}: {exc}; no assessor G-study")
        lost = len(topics) - coll.n_topics
        if lost:
            notes.append(f"pool depth {d}: {lost} of {len(topics)} topics have no relevant "
                         "document in the pool and are left out at this depth")
        notes += [f"pool depth {d}: {w.message}" for w in caught
                  if "without a relevant document" not in str(w.message)]
        tau = {m: _means_tau(full_scores[m], scores[m]) for m in names}
        levels.append(DepthLevel(d, size, coverage, coll.n_topics, scores, gs, facets, tau))
        if progress:
            progress(f"pool depth {d}", k + 2, total)
    for n in dict.fromkeys(notes):
        warnings.warn(n, IRStabWarning, stacklevel=2)
    return DepthStudy(
        measures=tuple(names), levels=tuple(levels), full=full, n_topics=len(topics),
        n_systems=full_coll.n_systems, judgments=judgments,
        assessors=tuple(ac.assessors) if assessor_qrels is not None else (),
        design=design if assessor_qrels is not None else None,
        warnings=tuple(dict.fromkeys(notes)),
    )
