"""Several qrels of one collection as assessors: scores per system, topic and assessor.

Each assessor is a qrels file (TREC format) named after its file: the file
name without ``.gz``, without its last extension and without a trailing
``-qrels``/``_qrels``/``.qrels`` (``froebe-qrels.txt`` is ``froebe``). The
base qrels (the official judgments, e.g. NIST's) is an assessor too, named
after its file, unless ``include_base=False``.

**Which topics.** The base qrels' evaluated topics (at least one relevant
document) that at least one assessor file judged; an assessor judges a topic
if its file has a line for it. Its score on a topic it did not judge is not
defined: the cell is absent (the nested design then has a varying number of
assessors per topic, an unbalanced design).

**Documents an assessor did not judge** on a topic it judged
(:class:`MissingJudgment`):

- ``base`` (default): they keep the base qrels' grade. Re-annotation studies
  re-judge a sample of the pool (about 40% of it in the DL-2019 one); treating
  the rest as unjudged would mix the assessor's disagreement with the size of
  the sample, so by default a score differs from the base score only through
  the documents the assessor actually judged differently.
- ``unjudged``: only the assessor's own judgments count; everything else is
  unjudged (grade 0, and ``judged`` False for bpref-like measures). A topic
  where the assessor found nothing relevant is then dropped for that assessor
  with a warning (its nDCG is 0/0).

All assessors' qrels become one :class:`~irstab.collection.Collection` whose
topics are the (topic, assessor) cells, built once, so every measure is the
same kernel as in ``evaluate``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import IRStabError, IRStabWarning
from ..io import (
    PathLike, Qrels, Run, expand_paths, in_memory_runs, read_qrels, read_run, read_runs,
)
from ..io.treclines import not_runs
from ..metrics import check_depth, resolve_measures
from .build import Assembler, RankOrder, assemble, check_build_args, name_runs
from .cluster import map_jobs
from .collection import Collection
from .index import QrelsIndex
from .reduce import reduce_run

__all__ = [
    "MissingJudgment",
    "AssessorCollection",
    "assessor_name",
    "read_assessor_qrels",
    "assessor_collection",
    "assessor_scores",
]

_SEP = "\x1f"  # joins topic and assessor in the cells' pseudo-topic ids
_SUFFIX = re.compile(r"[-_.]qrels$", re.IGNORECASE)


class MissingJudgment(str, Enum):
    """What a document an assessor did not judge counts as (module docstring)."""

    base = "base"
    unjudged = "unjudged"


def assessor_name(path: PathLike) -> str:
    """Name of an assessor from its file (module docstring).

    >>> assessor_name("judgments/froebe-qrels.txt.gz")
    'froebe'
    """
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return _SUFFIX.sub("", stem) or stem


def read_assessor_qrels(paths: PathLike | Iterable[PathLike]) -> dict[str, Qrels]:
    """Read assessor qrels from files and/or directories (every non-hidden file inside, but
    for files plainly not qrels, left out with a warning: :func:`irstab.io.treclines.not_runs`).

    Returns ``{assessor name: Qrels}`` in the order given (a directory's files
    sorted by name). Two files with the same name are an error naming both.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            inside = sorted(q for q in p.iterdir() if q.is_file() and not q.name.startswith("."))
            # a README or notes beside the qrels would stop the study: left out, and said
            skipped = not_runs(inside)
            if skipped:
                warnings.warn(
                    f"{p}: {len(skipped)} file(s) of the assessor directory are not read as "
                    "qrels: " + "; ".join(f"{q.name} ({why})" for q, why in skipped[:5])
                    + ("; ..." if len(skipped) > 5 else "")
                    + "; give a file as an argument to read it", IRStabWarning, stacklevel=2)
                left_out = {q for q, _ in skipped}
                inside = [q for q in inside if q not in left_out]
            if not inside:
                raise IRStabError(f"{p}: directory holds no qrels files")
            files.extend(inside)
        elif p.is_file():
            files.append(p)
        else:
            raise IRStabError(f"{p}: no such assessor qrels file or directory")
    out: dict[str, Qrels] = {}
    where: dict[str, Path] = {}
    for f in files:
        name = assessor_name(f)
        if name in out:
            raise IRStabError(
                f"{f}: assessor name {name!r} is already taken by {where[name]}; rename one file"
            )
        out[name] = read_qrels(f)
        where[name] = f
    if not out:
        raise IRStabError("no assessor qrels given")
    return out


@dataclass(frozen=True, eq=False)
class AssessorCollection:
    """A Collection whose topics are (topic, assessor) cells.

    ``cells`` has one row per Collection topic, columns ``topic, assessor``.
    """

    collection: Collection
    cells: pd.DataFrame = field(repr=False)
    assessors: tuple[str, ...]
    missing: MissingJudgment

    def scores(self, measures) -> pd.DataFrame:
        """Long table ``measure, system, topic, assessor, score``."""
        measures = resolve_measures(measures)
        check_depth(measures, self.collection.depth)
        c = self.collection
        frames = []
        for m in measures:
            x = np.asarray(m.compute(c), dtype=float)  # systems x cells
            frames.append(
                pd.DataFrame(
                    {
                        "measure": str(m),
                        "system": np.repeat(np.array(c.systems, dtype=object), c.n_topics),
                        "topic": np.tile(self.cells["topic"].to_numpy(), c.n_systems),
                        "assessor": np.tile(self.cells["assessor"].to_numpy(), c.n_systems),
                        "score": x.ravel(),
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)


def _merge(base: pd.DataFrame, own: pd.DataFrame, missing: MissingJudgment) -> pd.DataFrame:
    if missing is MissingJudgment.unjudged:
        return own
    key_b = base["topic"] + _SEP + base["docid"]
    key_o = set(own["topic"] + _SEP + own["docid"])
    keep = base[~key_b.isin(key_o)]
    return pd.concat([keep, own], ignore_index=True)


def assessor_collection(
    qrels: PathLike | Qrels,
    runs: PathLike | Iterable[PathLike] | Sequence[Run],
    assessor_qrels: Mapping[str, Qrels] | PathLike | Iterable[PathLike],
    *,
    missing: MissingJudgment | str = MissingJudgment.base,
    include_base: bool = True,
    depth: int = 1000,
    order: RankOrder | str = RankOrder.SCORE,
    client=None,
) -> AssessorCollection:
    """Build the (topic, assessor) Collection (module docstring for the rules).

    Parameters
    ----------
    qrels : path or Qrels
        Base qrels: defines the topic set and, with ``missing="base"``, the
        grades of documents an assessor did not judge.
    runs : paths or Runs
        The systems.
    assessor_qrels : mapping name -> Qrels, or paths
        Assessors' qrels (files or directories, see :func:`read_assessor_qrels`).
    missing : {"base", "unjudged"}
        :class:`MissingJudgment`; default ``base``.
    include_base : bool
        The base qrels is an assessor of every topic too.
    depth, order
        As in :meth:`irstab.collection.Collection.build`.
    client : distributed.Client, optional
        Read the TREC run files on this Dask cluster's workers, each repeating
        a run's ranking of a topic for its assessors and reducing it to the
        Collection's rows there (:mod:`irstab.collection.cluster`).
    """
    try:
        missing = MissingJudgment(missing)
    except ValueError:
        raise IRStabError(f"missing: expected 'base' or 'unjudged', got {missing!r}") from None
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels)
    if not isinstance(assessor_qrels, Mapping):
        assessor_qrels = read_assessor_qrels(assessor_qrels)
    on_cluster = client is not None and in_memory_runs(runs) is None  # TREC run files
    if not on_cluster and (isinstance(runs, (str, Path))
                           or not all(isinstance(r, Run) for r in runs)):
        runs = read_runs(runs)
    base = qrels.frame
    grade = base["grade"].to_numpy()
    topics = set(base["topic"].to_numpy()[grade > 0])
    base_name = assessor_name(qrels.path)
    if include_base and base_name in assessor_qrels:
        raise IRStabError(
            f"{qrels.path}: the base qrels' assessor name {base_name!r} is also an assessor "
            "file's name; rename one file or leave the base out"
        )
    judged = {name: set(q.frame["topic"].unique()) & topics for name, q in assessor_qrels.items()}
    covered = set().union(*judged.values())
    if not covered:
        raise IRStabError(
            "no assessor qrels judges any evaluated topic of the base qrels "
            f"({qrels.path}); are they of the same collection?"
        )
    for name, t in judged.items():
        if not t:
            warnings.warn(
                f"assessor {name!r} judged no evaluated topic of the base qrels; not used",
                IRStabWarning,
                stacklevel=2,
            )
    parts = []
    base_cov = base[base["topic"].isin(covered)]
    if include_base:
        parts.append(base_cov.assign(assessor=base_name))
    names = [base_name] if include_base else []
    for name, q in assessor_qrels.items():
        if not judged[name]:
            continue
        own = q.frame[q.frame["topic"].isin(judged[name])]
        merged = _merge(base_cov[base_cov["topic"].isin(judged[name])], own, missing)
        parts.append(merged.assign(assessor=name))
        names.append(name)
    allq = pd.concat(parts, ignore_index=True)
    cell = allq["topic"] + _SEP + allq["assessor"]
    super_qrels = Qrels(
        path=qrels.path,
        frame=pd.DataFrame(
            {"topic": cell, "docid": allq["docid"], "grade": allq["grade"]}
        ).reset_index(drop=True),
    )
    cells = pd.DataFrame({"cell": cell, "topic": allq["topic"], "assessor": allq["assessor"]})
    cells = cells.drop_duplicates("cell")
    # Each run's ranking of a topic is repeated for every assessor of that topic.
    cell_of_topic = cells.groupby("topic")["cell"].agg(list)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if on_cluster:
            coll = _cells_on_cluster(client, super_qrels, runs, cell_of_topic, depth, order)
        else:
            cell_runs = [Run(name=r.name, path=r.path, tag=r.tag,
                             frame=_cell_frame(r.frame, cell_of_topic)) for r in runs]
            coll = Collection.build(super_qrels, cell_runs, depth=depth, order=order)
    for w in caught:
        if "without a relevant document" in str(w.message):
            kept = set(coll.topics)
            lost = cells[~cells["cell"].isin(kept)]
            pairs = ", ".join(f"({t}, {a})" for t, a in lost[["topic", "assessor"]].head(5).values)
            warnings.warn(
                f"{len(lost)} (topic, assessor) cell(s) without a relevant document are left "
                f"out (unbalanced design): {pairs}{' ...' if len(lost) > 5 else ''}",
                IRStabWarning,
                stacklevel=2,
            )
        elif "appear in runs but not in the qrels" not in str(w.message):
            warnings.warn(w.message, w.category, stacklevel=2)
    cells = cells.set_index("cell").loc[list(coll.topics)].reset_index(drop=True)
    return AssessorCollection(
        collection=coll, cells=cells, assessors=tuple(names), missing=missing
    )


def _cell_frame(frame: pd.DataFrame, cell_of_topic: pd.Series) -> pd.DataFrame:
    """A run's rows of the covered topics, each repeated for every (topic, assessor) cell."""
    f = frame[frame["topic"].isin(cell_of_topic.index)]
    ex = f.assign(topic=f["topic"].map(cell_of_topic)).explode("topic", ignore_index=True)
    ex["rank"] = ex["rank"].astype(f["rank"].dtype)
    ex["score"] = ex["score"].astype(float)
    return ex


def _cell_batch(files, index, depth: int, order: str):
    """On a worker: read run files and reduce their cell rows (``index``: qrels index, cells)."""
    qindex, cell_of_topic = index
    out = []
    for path in files:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = read_run(path)
            arrays = reduce_run(_cell_frame(run.frame, cell_of_topic), qindex, depth, order,
                                tag=run.tag)
        out.append((arrays, [str(w.message) for w in caught]))
    return out


def _cells_on_cluster(client, super_qrels: Qrels, runs, cell_of_topic, depth, order):
    """The (topic, assessor) Collection with the run files read and reduced on Dask workers."""
    depth, order = check_build_args(depth, order)
    files = expand_paths(runs)
    if not files:
        raise IRStabError("no runs given")
    index = QrelsIndex.from_qrels(super_qrels)
    acc = Assembler(len(files), index.n_topics)
    jobs = [dict(files=[str(f) for f in files[i:i + 8]], depth=depth, order=order.value)
            for i in range(0, len(files), 8)]
    results = (r for batch in map_jobs(client, _cell_batch, jobs, (index, cell_of_topic))
               for r in batch)
    for f, (arrays, messages) in zip(files, results):
        for m in messages:
            warnings.warn(m, IRStabWarning, stacklevel=2)
        acc.add(arrays, f)
    return Collection.of(assemble(acc, name_runs(acc.labels), index, depth))


def assessor_scores(
    qrels,
    runs,
    assessor_qrels,
    measures,
    *,
    missing: MissingJudgment | str = MissingJudgment.base,
    include_base: bool = True,
    depth: int = 1000,
    order: RankOrder | str = RankOrder.SCORE,
) -> pd.DataFrame:
    """Long table ``measure, system, topic, assessor, score`` (see :func:`assessor_collection`).

    Examples
    --------
    >>> from irstab.simulate import simulate_collection
    >>> import irstab.io as io
    >>> sim = simulate_collection(n_systems=3, n_topics=4, depth=20, seed=1)
    >>> frame = sim.qrels.frame.assign(grade=sim.qrels.frame["grade"].clip(upper=1))
    >>> base = io.Qrels(path="nist-qrels.txt", frame=sim.qrels.frame)
    >>> other = {"binary": io.Qrels(path="binary", frame=frame)}
    >>> s = assessor_scores(base, sim.runs, other, "nDCG@10")
    >>> sorted(s["assessor"].unique()), len(s)  # 3 systems x 4 topics x 2 assessors
    (['binary', 'nist'], 24)
    """
    ac = assessor_collection(
        qrels, runs, assessor_qrels, missing=missing, include_base=include_base,
        depth=depth, order=order,
    )
    return ac.scores(measures)
