"""Evaluate runs: measures x systems x topics, as a long table or as score matrices."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .collection import Collection, RankOrder, check_build_args, outofcore
from .collection.outofcore import DEFAULT_BATCH_BYTES, ScoreSet
from .errors import IRStabError, IRStabWarning, MeasureError
from .metrics import Aggregate, Measure, aggregate, check_depth, parse_measure, resolve_measures
from .metrics.condensed import condense

if TYPE_CHECKING:  # pandas is imported where a frame is made: evaluate_values needs none
    import pandas as pd

__all__ = ["evaluate", "evaluate_values", "Evaluated", "score_matrix", "score_matrices", "score_runs", "parse_measures",
           "as_collection", "ScoreSet", "EVERY_RANK"]

MeasureLike = str | Measure

#: ``depth`` of "every document of every run" (trec_eval without ``-M``)
EVERY_RANK = int(np.iinfo(np.int64).max)


def parse_measures(
    measures: MeasureLike | Iterable[MeasureLike] | None, rel: int | None = None,
    version: int | None = None,
) -> list[Measure]:
    """Parse one or many measures; duplicates are removed, order kept.

    Reads every spelling of :func:`irstab.metrics.resolve_measures`: canonical
    strings in any case, trec_eval names (``ndcg_cut.10``, ``map``, ``P_10``),
    comma lists, ``official``, named measures (``mine=nDCG(gain=exp)@20``) and
    ``@opt.json``. ``None`` gives :data:`~irstab.metrics.DEFAULT_MEASURES`;
    ``rel`` is trec_eval's ``-l`` for binary measures that do not set ``rel``;
    ``version`` 9 takes trec_eval 9's rounding of recall levels (``IPrec``, ``IPrecAvg``).
    """
    return resolve_measures(measures, rel, version)


def _depth(depth: int | None) -> int:
    return EVERY_RANK if depth is None else depth


#: trec_eval version -> how ``order="score"`` compares scores (10: doubles, 9: floats)
_SCORE_ORDER = {None: RankOrder.SCORE, 10: RankOrder.SCORE, 9: RankOrder.SCORE32}


def as_collection(
    qrels,
    runs=None,
    depth: int = 1000,
    order: RankOrder | str = RankOrder.SCORE,
) -> Collection:
    """A Collection from any qrels and runs sources, or an existing Collection (returned as is).

    ``qrels`` and ``runs`` take everything :func:`~irstab.io.read_qrels` and
    :func:`~irstab.io.read_runs` take: paths (TREC text, Parquet, Arrow),
    DataFrames, dicts, ir_datasets records, parsed objects. Run files are
    reduced one at a time (:meth:`Collection.from_files`).
    """
    if isinstance(qrels, Collection):
        if runs is not None:
            raise IRStabError("pass runs only with qrels, not with a Collection")
        return qrels
    if runs is None:
        raise IRStabError("runs are required")
    return Collection.from_files(qrels, runs, depth=depth, order=order)


def _compute(measure: Measure, collection: Collection) -> np.ndarray:
    """``measure.compute(collection)``, refusing non-finite scores (never a NaN in the output).

    Weights near the floating-point limit (``DCG(gain=(0,1e308,...))``, a
    Q-measure with such gains) overflow; the error names the measure and a cell.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # reported below, once, with the measure
        x = measure.compute(collection)
    bad = ~np.isfinite(x)
    if bad.any():
        s, t = np.argwhere(bad)[0]
        raise MeasureError(
            f"{measure}: {int(bad.sum())} score(s) are not finite (first: {x[s, t]} for run "
            f"{collection.systems[s]!r}, topic {collection.topics[t]!r}): its weights overflow "
            "floating point; use smaller gain/discount values"
        )
    return x


def score_stack(measures: Sequence[Measure], collection: Collection,
                judged_only: bool = False) -> np.ndarray:
    """``values[s, m, t]`` of every measure (each through :func:`_compute`); with
    ``judged_only``, on the rankings without their unjudged documents (trec_eval ``-J``)."""
    if judged_only:
        condensed = condense(collection)
        _warn_emptied(measures, collection, condensed)
        collection = condensed
    return np.stack([_compute(m, collection) for m in measures], axis=1)


def _warn_emptied(measures: Sequence[Measure], collection: Collection, condensed: Collection):
    """Say where -J leaves a ranking no document (a topic the run lacks included): trec_eval
    10's iprec_at_recall and 11pt_avg divide 0 by 0 there (``irstab evaluate -f trec`` prints
    its ``-nan``), and where the run did retrieve documents its utility is not reset to 0 as
    for a missing topic; irstab's own layouts score them 0."""
    interpolated = [m for m in measures if type(m).name in ("IPrec", "IPrecAvg")]
    # a trec_eval utility of nothing retrieved is c R + d (N - R): 0 with the default c = d = 0
    utility = [m for m in measures if type(m).name == "Utility" and (m.c or m.d)]
    empty = condensed.run_length == 0
    emptied = empty & (collection.run_length > 0)
    said = []
    if interpolated and empty.any():
        said.append(f"irstab's tables score {', '.join(map(str, interpolated[:3]))} 0 there, "
                    "where trec_eval's interpolated precision is undefined (-f trec prints its "
                    "-nan)")
        where = empty
    if utility and emptied.any():
        said.append(f"{utility[0]} scores 0 where the run retrieved only unjudged documents "
                    "(in every layout), where trec_eval's utility counts the relevant documents "
                    "missed")
        where = empty if len(said) == 2 else emptied
    if said:
        topics = [collection.topics[t] for t in np.flatnonzero(where.any(axis=0))]
        warnings.warn(
            f"judged documents only: {int(where.sum())} ranking(s) keep no document, on "
            f"topic(s) {topics[:10]}; " + "; ".join(said), IRStabWarning, stacklevel=3)


def score_runs(
    qrels,
    runs,
    measures: MeasureLike | Iterable[MeasureLike] | None,
    depth: int = 1000,
    order: RankOrder | str = RankOrder.SCORE,
    *,
    max_batch_bytes: int = DEFAULT_BATCH_BYTES,
    workers: int | None = None,
    client=None,
    progress: Callable[[int], None] | None = None,
    judged_only: bool = False,
    strict_depth: bool = True,
    every_topic: bool = False,
) -> ScoreSet:
    """Score runs batch by batch (out of core), locally or on a Dask cluster.

    The measures' kernels score each batch's Collection
    (:func:`irstab.collection.outofcore.score_runs`: batches of about
    ``max_batch_bytes`` of grade tensor, worker processes or a Dask ``client``,
    ``progress`` called with the runs just scored). The scores equal scoring the
    whole Collection at once (to rounding of sums over padded ranks, < 1e-15).
    ``depth=None`` keeps every document (trec_eval without ``-M``); ``judged_only``
    scores the rankings without their unjudged documents (trec_eval ``-J``);
    ``strict_depth=False`` lets a measure read past ``depth`` (it sees the runs cut
    there, as trec_eval ``-M`` cuts them) instead of raising; ``every_topic`` scores
    every qrels topic, also those without a relevant document (trec_eval's topic set).

    Returns
    -------
    ScoreSet
        ``.matrix(measure)`` / ``.matrices()``: systems x topics DataFrames.
    """
    measures = parse_measures(measures)
    depth, order = check_build_args(_depth(depth), order)
    if strict_depth:
        check_depth(measures, depth)
    return outofcore.score_runs(
        qrels, runs, partial(score_stack, tuple(measures), judged_only=judged_only),
        [str(m) for m in measures],
        depth, order.value, max_batch_bytes=max_batch_bytes, workers=workers, client=client,
        progress=progress, every_topic=every_topic,
    )


def score_matrix(collection: Collection, measure: MeasureLike) -> pd.DataFrame:
    """Scores of one measure as a systems x topics DataFrame."""
    import pandas as pd

    m = parse_measure(measure)
    check_depth([m], collection.depth)
    return pd.DataFrame(
        _compute(m, collection),
        index=pd.Index(collection.systems, name="system"),
        columns=pd.Index(collection.topics, name="topic"),
    )


def score_matrices(
    collection: Collection, measures: MeasureLike | Iterable[MeasureLike]
) -> dict[str, pd.DataFrame]:
    """``{canonical measure: systems x topics DataFrame}`` for several measures."""
    return {str(m): score_matrix(collection, m) for m in parse_measures(measures)}


def evaluate(
    qrels,
    runs,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    per_topic: bool = False,
    depth: int = 1000,
    order: RankOrder | str = RankOrder.SCORE,
    rel: int | None = None,
    *,
    client=None,
    max_batch_bytes: int | None = None,
    judged_only: bool = False,
    trec_eval: int | None = None,
    strict_depth: bool = True,
    every_topic: bool = False,
) -> pd.DataFrame:
    """Evaluate runs against qrels.

    Parameters
    ----------
    qrels : path, DataFrame, dict, records, Qrels or Collection
        Judgments (a Collection already holds the runs: pass ``runs=None``);
        any source :func:`~irstab.io.read_qrels` reads.
    runs : path(s), DataFrame(s), dict(s), records, Run(s)
        Run files, directories of run files, parsed runs, or any source
        :func:`~irstab.io.read_runs` reads (a DataFrame with a ``run`` column
        holds several runs).
    measures : str, Measure or list of them, optional
        Measure strings in any spelling :func:`parse_measures` reads, e.g.
        ``["nDCG@10", "AP(rel=2)"]``, ``"ndcg_cut.10,map,P.10"``; default
        :data:`~irstab.metrics.DEFAULT_MEASURES`. A named measure
        (``mine=...``) appears under its name.
    per_topic : bool
        Also return one row per topic; the mean always comes as topic ``all``.
    depth : int or None
        Ranks kept per topic (trec_eval ``-M``); None keeps every document, as
        trec_eval does without ``-M``. A measure that reads deeper raises
        :class:`~irstab.errors.MeasureError` (``strict_depth=False``: it sees the
        runs cut at ``depth``, as trec_eval ``-M`` cuts them).
    order : {"score", "score32", "rank", "file"}
        How documents are ordered within a topic (see :class:`RankOrder`).
    rel : int, optional
        Relevance level of binary measures that do not set their own
        (trec_eval ``-l``).
    client : distributed.Client, optional
        Score the run files on this Dask cluster (see :mod:`irstab.collection.cluster`).
    max_batch_bytes : int, optional
        Grade-tensor bytes per batch of runs (default 32 MB): runs are
        reduced and scored batch by batch, so memory stays bounded however
        many runs there are (see :func:`score_runs`).
    judged_only : bool
        Score each ranking without its unjudged documents (not in the qrels, or of
        negative grade), the others moving up: trec_eval ``-J``.
    trec_eval : {10, 9}, optional
        Follow this trec_eval release where they differ: 10 (the default) compares
        scores as doubles and rounds recall levels of ``IPrec``/``IPrecAvg``; 9
        compares scores in single precision (``order="score"`` becomes
        ``"score32"``) and rounds as trec_eval 9 and pytrec_eval (measures given as
        strings; a Measure object keeps its own ``trec_eval`` parameter).
    every_topic : bool
        Evaluate every topic the qrels name, also those without a relevant document
        (only grade 0, or only -1: pooled but unjudged), as trec_eval does; by default
        irstab's topic set, the topics with a relevant document (a warning names the
        others either way). ``irstab evaluate -f trec`` sets it. Ignored for a Collection,
        which holds its topics.

    Returns
    -------
    pandas.DataFrame
        Long form, columns ``run, measure, topic, value``; rows ordered by
        run, measure, then topic (``all`` last). The mean is over the
        Collection's topic set: a topic a run lacks counts as 0 (trec_eval -c);
        ``GMAP`` and ``GMbpref`` take the geometric mean, and ``RelString`` has no
        ``all`` row.

    Examples
    --------
    >>> import irstab
    >>> from irstab.simulate import simulate_collection
    >>> sim = simulate_collection(n_systems=3, n_topics=5, depth=20, seed=1)
    >>> df = irstab.evaluate(sim.qrels, sim.runs, ["nDCG@10", "AP"])
    >>> list(df.columns), len(df)
    (['run', 'measure', 'topic', 'value'], 6)
    """
    scored = evaluate_values(qrels, runs, measures, depth, order, rel, client=client,
                             max_batch_bytes=max_batch_bytes, judged_only=judged_only,
                             trec_eval=trec_eval, strict_depth=strict_depth,
                             every_topic=every_topic)
    return long_table(scored.systems, scored.topics, scored.names, scored.values, per_topic,
                      [m.aggregate for m in scored.measures])


class Evaluated(NamedTuple):
    """The scores of :func:`evaluate_values`: ``values[s, m, t]`` of run ``systems[s]``,
    measure ``measures[m]`` (printed as ``names[m]``) and topic ``topics[t]``."""

    systems: list
    topics: list
    measures: list[Measure]
    values: np.ndarray

    @property
    def names(self) -> list[str]:
        return [str(m) for m in self.measures]

    def summaries(self) -> dict[str, np.ndarray]:
        """Each measure's ``all`` values by run (topic ``all`` of :func:`evaluate`), the
        measures without a summary (``RelString``) left out."""
        summary = summary_values(self.values, [m.aggregate for m in self.measures])
        return {str(m): summary[:, j] for j, m in enumerate(self.measures)
                if m.aggregate is not Aggregate.NONE}


def evaluate_values(
    qrels,
    runs,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    depth: int = 1000,
    order: RankOrder | str = RankOrder.SCORE,
    rel: int | None = None,
    *,
    client=None,
    max_batch_bytes: int | None = None,
    judged_only: bool = False,
    trec_eval: int | None = None,
    strict_depth: bool = True,
    every_topic: bool = False,
) -> Evaluated:
    """:func:`evaluate`'s scores as arrays (:class:`Evaluated`), without the long frame.

    Takes :func:`evaluate`'s parameters (``per_topic`` aside: every topic's score is
    there); ``irstab evaluate -f trec`` renders from them without importing pandas
    for the output.
    """
    if trec_eval not in _SCORE_ORDER:
        raise IRStabError(f"trec_eval must be 10 or 9, got {trec_eval!r}")
    measures = parse_measures(measures, rel, trec_eval)
    if order == RankOrder.SCORE:
        order = _SCORE_ORDER[trec_eval]
    if isinstance(qrels, Collection):
        collection = as_collection(qrels, runs, depth=depth, order=order)
        if strict_depth:
            check_depth(measures, collection.depth)
        systems, topics = collection.systems, collection.topics
        values = score_stack(measures, collection, judged_only)  # S, M, T
    else:
        if runs is None:
            raise IRStabError("runs are required")
        scored = score_runs(qrels, runs, measures, depth=depth, order=order, client=client,
                            max_batch_bytes=max_batch_bytes or DEFAULT_BATCH_BYTES,
                            judged_only=judged_only, strict_depth=strict_depth,
                            every_topic=every_topic)
        systems, topics, values = scored.systems, scored.topics, scored.values
    return Evaluated(list(systems), list(topics), list(measures), values)


def summary_values(values: np.ndarray, aggregates: Sequence[Aggregate]) -> np.ndarray:
    """``summary[s, m]``: each measure's summary over topics of ``values[s, m, t]``
    (``aggregates``; 0 for a measure without one)."""
    summary = np.zeros(values.shape[:2])
    for j, kind in enumerate(aggregates):  # one per measure kind, vectorised over runs
        got = aggregate(kind, values[:, j, :])
        if got is not None:
            summary[:, j] = got
    return summary


def long_table(systems, topics, measures, values: np.ndarray, per_topic: bool,
               aggregates: Sequence[Aggregate] | None = None) -> pd.DataFrame:
    """``run, measure, topic, value`` rows of ``values[s, m, t]``.

    Topic ``all`` is each measure's summary over topics (``aggregates``, by
    default the mean); a measure without one has no ``all`` row.
    """
    import pandas as pd

    S, M = len(systems), len(measures)
    aggregates = list(aggregates or [Aggregate.MEAN] * M)
    summary = summary_values(values, aggregates)[:, :, None]
    if per_topic:
        values = np.concatenate([values, summary], axis=2)
        topics = list(topics) + ["all"]
    else:
        values, topics = summary, ["all"]
    n_topics = len(topics)
    frame = pd.DataFrame(
        {
            "run": np.repeat(np.array(systems, dtype=object), M * n_topics),
            "measure": np.tile(np.repeat(np.array(measures, dtype=object), n_topics), S),
            "topic": np.tile(np.array(topics, dtype=object), S * M),
            "value": values.reshape(-1),
        }
    )
    none = [m for m, kind in zip(measures, aggregates) if kind is Aggregate.NONE]
    if none:
        frame = frame[~(frame["measure"].isin(none) & (frame["topic"] == "all"))]
        frame = frame.reset_index(drop=True)
    return frame
