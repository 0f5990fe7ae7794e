"""Synthetic graded test collections for demos, tests and scale runs.

:func:`simulate_collection` draws a complete collection -- graded qrels and one
TREC run per system -- from a small generative model whose parameters are the
things a stability study cares about: how far apart the systems are, how much
topics differ in difficulty, and how much systems and topics interact. All
randomness comes from an explicit ``seed`` (an int or a
:class:`numpy.random.Generator`); the same seed gives the same collection.
"""

from __future__ import annotations

import inspect
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._numeric import check_seed
from ..errors import IRStabError
from ..io import Qrels, Run, write_qrels, write_run

__all__ = ["SimulatedCollection", "simulate_collection", "write_simulated", "DL_GRADE_PROBS"]

#: Grade shares of the TREC 2019 Deep Learning passage judgments (grades 0-3).
DL_GRADE_PROBS: tuple[float, ...] = (0.55, 0.20, 0.18, 0.07)

_SIMULATED = "<simulated>"

#: Parameters of the bundled example collection, ``data/example/`` (written by
#: ``scripts/make_example_data.py``; ``irstab demo`` re-simulates it from these
#: when the data directory is not installed).
EXAMPLE_PARAMS = dict(n_systems=12, n_topics=30, depth=100, n_grades=4, seed=2019, score_decimals=4)


@dataclass(frozen=True, eq=False)
class SimulatedCollection:
    r"""A synthetic collection and the true parameters it was drawn from.

    Attributes
    ----------
    qrels : irstab.io.Qrels
        Judgments, columns ``topic, docid, grade``, sorted by topic and docid.
    runs : list of irstab.io.Run
        One run per system, columns ``topic, docid, rank, score``; rows grouped
        by topic (in topic order), rank ``1..n``, score strictly decreasing
        (non-increasing with ``score_decimals``, ties in docid-descending order).
    quality : numpy.ndarray, shape (n_systems,)
        True quality :math:`q_s \in [0, 1]` of ``runs[s]`` (read-only).
    topic_difficulty : numpy.ndarray, shape (n_topics,)
        Topic effect :math:`b_t` on the log signal; lower is harder (read-only).
    interaction : numpy.ndarray, shape (n_systems, n_topics)
        System x topic effect :math:`c_{st}` on the log signal (read-only).
    signal : numpy.ndarray, shape (n_systems, n_topics)
        Effective signal :math:`a_{st}` (read-only).
    topics : tuple of str
        Topic ids, in the order of the arrays above.
    depth : int
        Documents retrieved per topic by every run.
    n_grades : int
        Grades are ``0 .. n_grades - 1``.
    """

    qrels: Qrels
    runs: list[Run]
    quality: np.ndarray = field(repr=False)
    topic_difficulty: np.ndarray = field(repr=False)
    interaction: np.ndarray = field(repr=False)
    signal: np.ndarray = field(repr=False)
    topics: tuple[str, ...] = field(repr=False)
    depth: int = 100
    n_grades: int = 4

    @property
    def system_names(self) -> list[str]:
        """Run names, in the order of :attr:`quality`."""
        return [run.name for run in self.runs]

    def quality_series(self) -> pd.Series:
        """True quality as a Series indexed by run name."""
        return pd.Series(self.quality, index=pd.Index(self.system_names, name="run"),
                         name="quality")

    def summary(self) -> dict:
        """Counts describing the collection (plain Python types, JSON-ready)."""
        grades = self.qrels.frame["grade"]
        counts = grades.value_counts().reindex(range(self.n_grades), fill_value=0)
        sizes = self.qrels.frame.groupby("topic").size()
        return {
            "systems": len(self.runs),
            "topics": len(self.topics),
            "depth": self.depth,
            "judged": int(len(grades)),
            "judged_per_topic": {
                "min": int(sizes.min()),
                "median": float(sizes.median()),
                "max": int(sizes.max()),
            },
            "grade_counts": {int(g): int(c) for g, c in counts.items()},
            "run_rows": int(sum(len(run) for run in self.runs)),
        }

    def write(self, directory: str | os.PathLike, *, compress: bool = False) -> Path:
        """Write ``qrels.txt`` and ``runs/<name>`` (``runs/<name>.gz`` if ``compress``).

        Each file is written atomically (temporary file, then rename). Other
        files already in ``directory`` are left alone, so write into an empty
        directory if you will read ``runs/`` back as a whole.

        Returns
        -------
        pathlib.Path
            ``directory``.
        """
        directory = Path(directory)
        q = self.qrels.frame
        write_qrels(directory / "qrels.txt", q["topic"], q["docid"], q["grade"])
        suffix = ".gz" if compress else ""
        for run in self.runs:
            f = run.frame
            write_run(directory / "runs" / f"{run.name}{suffix}", run.tag or run.name,
                      f["topic"], f["docid"], f["score"])
        return directory


def simulate_collection(
    n_systems: int = 12,
    n_topics: int = 30,
    depth: int = 100,
    n_grades: int = 4,
    seed: int | np.random.Generator = 0,
    *,
    quality: Sequence[float] | np.ndarray | None = None,
    signal_range: tuple[float, float] = (0.2, 5.0),
    topic_sd: float = 1.3,
    interaction_sd: float = 0.3,
    pool_boost: float = -2.5,
    grade_probs: Sequence[float] | None = None,
    grade_concentration: float = 6.0,
    pool_median: float = 150.0,
    pool_sigma: float = 0.5,
    pool_range: tuple[int, int] = (50, 400),
    n_unjudged: int | None = None,
    score_decimals: int | None = None,
    system_prefix: str = "sim",
) -> SimulatedCollection:
    r"""Draw a synthetic graded test collection: qrels and one run per system.

    Generative model
    ----------------
    Topics ``t = 1..T``:

    * judged pool size :math:`n_t = \mathrm{clip}(\mathrm{round}(m\,e^{\sigma z_t}),
      lo, hi)`, :math:`z_t \sim N(0, 1)` (``pool_median``, ``pool_sigma``,
      ``pool_range``);
    * grade shares :math:`\pi_t \sim \mathrm{Dirichlet}(\kappa\,\pi)` around
      ``grade_probs`` :math:`\pi` (``grade_concentration`` :math:`\kappa`), and each
      judged document's grade :math:`g_d \sim \mathrm{Categorical}(\pi_t)`. A topic
      that draws no relevant document has one judged document set to grade 1,
      so every topic has at least one relevant document;
    * ``n_unjudged`` further candidate documents that are not in the qrels;
    * difficulty :math:`b_t \sim N(0, \tau^2)` (``topic_sd``).

    Systems ``s = 1..S`` have quality :math:`q_s \in [0, 1]` (``quality``; by
    default evenly spaced over [0, 1] and assigned to run names in random
    order; 0.5 for a single system). The signal of system ``s`` on topic ``t`` is

    .. math:: a_{st} = a_{lo} (a_{hi} / a_{lo})^{q_s} \exp(b_t + c_{st}),
              \qquad c_{st} \sim N(0, \omega^2)

    (``signal_range`` :math:`(a_{lo}, a_{hi})`, ``interaction_sd`` :math:`\omega`),
    and it scores the judged documents ``d`` of the topic as

    .. math:: y_{std} = \lambda + a_{st}\,\frac{g_d}{G - 1} + \varepsilon_{std},
              \qquad \varepsilon_{std} \sim \mathrm{Gumbel}(0, 1)

    (``G = n_grades``). The rest of the corpus is unjudged and taken as
    infinite with total weight 1: its scores are the points of a Poisson process
    with intensity :math:`e^{-y}\,dy` (the limit of ``n`` documents of utility
    :math:`-\log n` plus Gumbel noise), of which the ``n_unjudged`` highest,
    :math:`-\log \Gamma_k` with :math:`\Gamma_k` the arrival times of a unit-rate
    process, are assigned in random order to the topic's ``n_unjudged``
    candidate documents, independently for each system. The run holds the
    ``depth`` highest-scoring documents in decreasing score order.

    Equivalently, every run is a Plackett-Luce ranking in which a judged
    document has weight :math:`\exp(\lambda + a_{st} g_d / (G-1))` and the
    whole unjudged corpus weight 1: ``pool_boost`` :math:`\lambda` says how much
    more plausible the pooled documents look than the rest of the corpus (so
    the top of a run is mostly judged, as in TREC, and that share does not
    depend on ``depth``), and the signal :math:`a_{st}` how strongly the run
    follows the grades. :math:`b_t` and :math:`c_{st}` give the topic and
    system x topic components of a systems x topics ANOVA; the number of
    relevant documents per topic adds to the topic component. With the
    defaults (30 or 50 topics), nDCG@10 splits its variance about 22% systems,
    47% topics, 31% interaction, mean nDCG@10 per run spans about 0.3-0.75, and
    94% of the top 10 documents are judged; TREC DL 2019 has 22/50/28.

    Parameters
    ----------
    n_systems, n_topics : int
        Number of runs ``S >= 1`` and topics ``T >= 1``.
    depth : int
        Documents per topic in every run (``>= 1``).
    n_grades : int
        Number of grades ``G >= 2``; grades are ``0 .. G-1``, 0 non-relevant.
    seed : int or numpy.random.Generator
        Source of all randomness. A Generator is consumed (its state advances).
    quality : sequence of float in [0, 1], optional
        True quality per system, length ``n_systems``.
    signal_range : (float, float)
        Signal :math:`a` of quality 0 and quality 1 at an average topic;
        ``0 < lo <= hi``.
    topic_sd, interaction_sd : float
        Standard deviations (``>= 0``) of :math:`b_t` and :math:`c_{st}`, on the
        log scale of the signal.
    pool_boost : float
        Log weight :math:`\lambda` of one judged document relative to the whole
        unjudged corpus; larger puts more judged documents at the top of runs.
    grade_probs : sequence of float, optional
        Mean grade shares, length ``n_grades``, normalised to sum 1; the
        relevant grades must have positive total. Default: :data:`DL_GRADE_PROBS`
        for 4 grades, else 0.55 for grade 0 and the rest in geometrically
        decreasing shares (ratio 0.7).
    grade_concentration : float
        Dirichlet concentration :math:`\kappa > 0` of per-topic grade shares;
        smaller means topics differ more (6 gives the spread of DL 2019).
    pool_median, pool_sigma, pool_range : float, float, (int, int)
        Log-normal judged pool size: median, log-scale sd, and clipping bounds
        ``1 <= lo <= hi``.
    n_unjudged : int, optional
        Unjudged candidate documents per topic, shared by all systems (each
        system scores them independently); default ``2 * depth``. Fewer means
        more overlap between runs below the judged documents. Every topic needs
        at least ``depth`` candidates: ``pool_range[0] + n_unjudged >= depth``.
    score_decimals : int, optional
        Round scores to this many decimals (smaller files). Ties this creates
        are ordered by docid descending, as trec_eval does, so the run order is
        still the trec_eval order.
    system_prefix : str
        Runs are named ``<prefix>01 .. <prefix>S`` (zero-padded).

    Returns
    -------
    SimulatedCollection

    Raises
    ------
    IRStabError
        An argument is out of range; the message names it.

    Notes
    -----
    Topic ids are ``1..T`` zero-padded to equal width, so text order is
    numeric order. Document ids ``D<number>`` are unique across the whole
    collection, and their numbers are shuffled within a topic so that an id
    says nothing about the grade. Every system draws its noise from its own
    stream (child seeds drawn once from ``seed``), so its run does not depend
    on how the work is split; each system is vectorised over topics and
    candidates, and the cost is :math:`O(S\,T\,(\max_t n_t + n_{unjudged}))`.

    Examples
    --------
    >>> from irstab.simulate import simulate_collection
    >>> c = simulate_collection(n_systems=3, n_topics=4, depth=20, seed=1)
    >>> len(c.runs), len(c.qrels.topics), len(c.runs[0])
    (3, 4, 80)
    >>> bool((c.qrels.frame.groupby("topic")["grade"].max() > 0).all())
    True
    """
    state = _draw(**_params(locals()))
    runs = [_simulate_run(state, s) for s in range(n_systems)]
    return SimulatedCollection(
        qrels=_simulated_qrels(state),
        runs=runs,
        quality=_frozen(state["q"]),
        topic_difficulty=_frozen(state["b"]),
        interaction=_frozen(state["c"]),
        signal=_frozen(state["signal"]),
        topics=tuple(state["topics"].tolist()),
        depth=depth,
        n_grades=n_grades,
    )


_PARAMS = ("n_systems", "n_topics", "depth", "n_grades", "seed", "quality", "signal_range",
           "topic_sd", "interaction_sd", "pool_boost", "grade_probs", "grade_concentration",
           "pool_median", "pool_sigma", "pool_range", "n_unjudged", "score_decimals",
           "system_prefix")


def _params(scope: dict) -> dict:
    return {k: scope[k] for k in _PARAMS}


def write_simulated(directory: str | os.PathLike, *, compress: bool = False,
                    progress=None, **params) -> Path:
    """Simulate a collection straight to files, one run at a time (bounded memory).

    Writes exactly what ``simulate_collection(**params).write(directory,
    compress=compress)`` writes -- ``qrels.txt`` and ``runs/<name>[.gz]`` --
    but never holds more than one run, so collections of 10^8 ranked entries
    and more can be generated (2e7 lines take well under a minute: the text
    is formatted and written by pyarrow). ``progress``, if given, is called
    after each run file.

    Returns
    -------
    pathlib.Path
        ``directory``.
    """
    defaults = {k: v.default for k, v in inspect.signature(simulate_collection).parameters.items()}
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise IRStabError(f"write_simulated: unknown parameter(s) {unknown}")
    state = _draw(**{**defaults, **params})
    directory = Path(directory)
    q = _simulated_qrels(state).frame
    write_qrels(directory / "qrels.txt", q["topic"], q["docid"], q["grade"])
    suffix = ".gz" if compress else ""
    for s in range(state["S"]):
        run = _simulate_run(state, s)
        f = run.frame
        write_run(directory / "runs" / f"{run.name}{suffix}", run.tag, f["topic"], f["docid"],
                  f["score"])
        if progress is not None:
            progress()
    return directory


def _draw(**kw) -> dict:
    """Everything of a simulated collection but the runs' noise (topics, systems, seeds)."""
    args = _check_args(**kw)
    n_systems, n_topics, depth, n_grades = kw["n_systems"], kw["n_topics"], kw["depth"], \
        kw["n_grades"]
    pool_median, pool_sigma, pool_range = kw["pool_median"], kw["pool_sigma"], kw["pool_range"]
    grade_concentration, pool_boost = kw["grade_concentration"], kw["pool_boost"]
    topic_sd, interaction_sd, signal_range = kw["topic_sd"], kw["interaction_sd"], \
        kw["signal_range"]
    system_prefix = kw["system_prefix"]
    rng: np.random.Generator = args["rng"]
    S, T, D, G = n_systems, n_topics, depth, n_grades
    U = args["n_unjudged"]

    # ---- topics: pool sizes, grades, candidate documents
    lo, hi = pool_range
    n_judged = np.clip(np.rint(pool_median * np.exp(pool_sigma * rng.standard_normal(T))),
                       lo, hi).astype(np.int64)
    P = int(n_judged.max())
    shares = rng.dirichlet(grade_concentration * args["grade_probs"], size=T)  # (T, G)
    cdf = np.cumsum(shares, axis=1)[:, :-1]
    grades = (rng.random((T, P))[:, :, None] > cdf[:, None, :]).sum(axis=2)
    judged = np.arange(P)[None, :] < n_judged[:, None]  # (T, P); False = padding
    grades = np.where(judged, grades, 0)
    empty = ~(grades > 0).any(axis=1)
    if empty.any():
        pick = np.floor(rng.random(T) * n_judged).astype(np.int64)
        rows = np.flatnonzero(empty)
        grades[rows, pick[rows]] = 1

    # Candidate columns: [0, P) judged region (valid where `judged`), [P, P+U) unjudged.
    W = P + U
    valid = np.concatenate([judged, np.ones((T, U), dtype=bool)], axis=1)
    rel = grades / (G - 1)
    pad = np.where(judged, pool_boost, -np.inf)  # padding never enters a run

    # Document numbers: a random permutation of each topic's candidates, offset per topic.
    keys = np.where(valid, rng.random((T, W)), np.inf)
    local = np.empty((T, W), dtype=np.int64)
    np.put_along_axis(local, np.argsort(keys, axis=1), np.arange(W)[None, :], axis=1)
    n_cand = n_judged + U
    offsets = np.concatenate([[0], np.cumsum(n_cand)[:-1]])
    docnum = offsets[:, None] + local
    width = len(str(int(n_cand.sum())))
    flat_names = _labels("D", docnum.ravel(), width)  # index t * W + w
    topics = _labels("", np.arange(1, T + 1), len(str(T)))

    # ---- systems
    q = args["quality"]
    if q is None:
        q = rng.permutation(np.linspace(0.0, 1.0, S)) if S > 1 else np.array([0.5])
    b = topic_sd * rng.standard_normal(T)
    c = interaction_sd * rng.standard_normal((S, T))
    a_lo, a_hi = signal_range
    signal = a_lo * (a_hi / a_lo) ** q[:, None] * np.exp(b[None, :] + c)
    child_seeds = rng.integers(0, 2**63 - 1, size=S, dtype=np.int64)

    names = _labels(system_prefix, np.arange(1, S + 1), max(2, len(str(S))))
    return dict(S=S, T=T, D=D, G=G, U=U, P=P, W=W, judged=judged, grades=grades, rel=rel,
                pad=pad, docnum=docnum, flat_names=flat_names, topics=topics, q=q, b=b, c=c,
                signal=signal, child_seeds=child_seeds, names=names,
                score_decimals=kw["score_decimals"])


def _simulate_run(st: dict, s: int) -> Run:
    """Run ``s`` of a drawn collection (its own random stream: independent of the others)."""
    T, D, P, U, W = st["T"], st["D"], st["P"], st["U"], st["W"]
    signal, rel, pad, docnum = st["signal"], st["rel"], st["pad"], st["docnum"]
    score_decimals = st["score_decimals"]
    topic_col = st["topics"].take(np.repeat(np.arange(T), D)).reset_index(drop=True)
    rank_col = np.tile(np.arange(1, D + 1, dtype=np.int64), T)
    row_base = (np.arange(T) * W)[:, None]
    y = np.empty((T, W))
    K = min(U, D)
    unjudged = np.empty((T, U))
    name = st["names"].iloc[s]
    srng = np.random.default_rng(int(st["child_seeds"][s]))
    y[:, :P] = pad + signal[s][:, None] * rel + srng.gumbel(size=(T, P))
    # The K highest points of the Poisson process, -log(Gamma_k), in random order; lower
    # unjudged points could never enter a run of length D, so they stay -inf.
    unjudged[:, :K] = -np.log(np.cumsum(srng.standard_exponential((T, K)), axis=1))
    unjudged[:, K:] = -np.inf
    y[:, P:] = srng.permuted(unjudged, axis=1)
    if score_decimals is not None:
        np.round(y, score_decimals, out=y)
    top = np.argpartition(-y, D - 1, axis=1)[:, :D] if D < W else np.argsort(-y, axis=1)
    top_y = np.take_along_axis(y, top, axis=1)
    if score_decimals is None:
        order = np.argsort(-top_y, axis=1)  # continuous scores: ties have probability 0
    else:
        # trec_eval order: score desc, then docid desc (equal-width names sort by number).
        top_num = np.take_along_axis(docnum, top, axis=1)
        order = np.lexsort((-top_num, -top_y), axis=1)
    cols = np.take_along_axis(top, order, axis=1)
    frame = pd.DataFrame({
        "topic": topic_col,
        "docid": st["flat_names"].take((row_base + cols).ravel()).reset_index(drop=True),
        "rank": rank_col.copy(),
        "score": np.take_along_axis(top_y, order, axis=1).ravel(),
    })
    return Run(name=name, path=_SIMULATED, tag=name, frame=frame)


def _simulated_qrels(st: dict) -> Qrels:
    """The qrels of a drawn collection (rows sorted by topic, then docid)."""
    tt, ww = np.nonzero(st["judged"])
    qframe = pd.DataFrame({
        "topic": st["topics"].take(tt).reset_index(drop=True),
        "docid": st["flat_names"].take(tt * st["W"] + ww).reset_index(drop=True),
        "grade": st["grades"][tt, ww].astype(np.int64),
    })
    qframe = qframe.sort_values(["topic", "docid"], ignore_index=True)

    return Qrels(path=_SIMULATED, frame=qframe)


# ---------------------------------------------------------------- helpers


def _labels(prefix: str, numbers_: np.ndarray, width: int) -> pd.Series:
    """``prefix`` + zero-padded numbers, as a string Series (vectorised)."""
    text = pd.Series(numbers_, dtype=np.int64).astype(str).str.zfill(width)
    return prefix + text if prefix else text


def _frozen(x: np.ndarray) -> np.ndarray:
    x = np.array(x, dtype=np.float64)
    x.setflags(write=False)
    return x


def _default_grade_probs(n_grades: int) -> np.ndarray:
    if n_grades == len(DL_GRADE_PROBS):
        return np.array(DL_GRADE_PROBS)
    rest = 0.7 ** np.arange(n_grades - 1)
    return np.concatenate([[0.55], 0.45 * rest / rest.sum()])


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and np.isfinite(x)


def _as_floats(x) -> np.ndarray | None:
    """``x`` as a float array, or None if it is not numeric."""
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _check_args(**kw) -> dict:
    """Validate :func:`simulate_collection`'s arguments; return the derived ones."""
    def fail(name: str, message: str) -> None:
        raise IRStabError(f"simulate_collection: {name} {message}")

    for name, low in (("n_systems", 1), ("n_topics", 1), ("depth", 1), ("n_grades", 2)):
        if not _is_int(kw[name]) or kw[name] < low:
            fail(name, f"must be an integer >= {low}, got {kw[name]!r}")
    S, G = kw["n_systems"], kw["n_grades"]

    if kw["seed"] is None:  # always seeded: the same call gives the same collection
        fail("seed", "must be an integer >= 0 or a numpy.random.Generator, got None")
    rng = check_seed(kw["seed"], "simulate_collection: seed")

    for name in ("topic_sd", "interaction_sd", "pool_sigma"):
        if not _is_real(kw[name]) or kw[name] < 0:
            fail(name, f"must be a finite number >= 0, got {kw[name]!r}")
    for name in ("grade_concentration", "pool_median"):
        if not _is_real(kw[name]) or kw[name] <= 0:
            fail(name, f"must be a finite number > 0, got {kw[name]!r}")
    if not _is_real(kw["pool_boost"]):
        fail("pool_boost", f"must be a finite number, got {kw['pool_boost']!r}")

    sr = kw["signal_range"]
    if (not isinstance(sr, (tuple, list)) or len(sr) != 2 or not all(map(_is_real, sr))
            or not 0 < sr[0] <= sr[1]):
        fail("signal_range", f"must be two numbers with 0 < low <= high, got {sr!r}")
    pr = kw["pool_range"]
    if (not isinstance(pr, (tuple, list)) or len(pr) != 2 or not all(map(_is_int, pr))
            or not 1 <= pr[0] <= pr[1]):
        fail("pool_range", f"must be two integers with 1 <= low <= high, got {pr!r}")

    n_unjudged = kw["n_unjudged"]
    if n_unjudged is None:
        n_unjudged = 2 * kw["depth"]
    elif not _is_int(n_unjudged) or n_unjudged < 0:
        fail("n_unjudged", f"must be an integer >= 0, got {n_unjudged!r}")
    if pr[0] + n_unjudged < kw["depth"]:
        fail("n_unjudged", f"({n_unjudged}) plus pool_range[0] ({pr[0]}) must be at least "
                           f"depth ({kw['depth']}) so that every topic has enough candidates")

    probs = kw["grade_probs"]
    if probs is None:
        probs = _default_grade_probs(G)
    else:
        probs = _as_floats(probs)
        if probs is None or probs.shape != (G,) or not np.isfinite(probs).all() \
                or (probs < 0).any():
            fail("grade_probs", f"must be {G} finite non-negative numbers (one per grade), "
                                f"got {kw['grade_probs']!r}")
        if probs[1:].sum() <= 0:
            fail("grade_probs", "must give the relevant grades (1 and above) a positive share")
        probs = probs / probs.sum()
    # A zero share would be an invalid Dirichlet parameter; keep it negligible instead.
    probs = np.maximum(probs, 1e-9)
    probs = probs / probs.sum()

    quality = kw["quality"]
    if quality is not None:
        quality = _as_floats(quality)
        if quality is None or quality.shape != (S,) or not np.isfinite(quality).all() \
                or (quality < 0).any() or (quality > 1).any():
            fail("quality", f"must be {S} numbers in [0, 1] (one per system), "
                            f"got {kw['quality']!r}")

    sd = kw["score_decimals"]
    if sd is not None and (not _is_int(sd) or sd < 0):
        fail("score_decimals", f"must be None or an integer >= 0, got {sd!r}")
    if not isinstance(kw["system_prefix"], str) or any(ch.isspace() for ch in kw["system_prefix"]):
        fail("system_prefix", f"must be a string without whitespace, got {kw['system_prefix']!r}")

    return {"rng": rng, "n_unjudged": n_unjudged, "grade_probs": probs, "quality": quality}
