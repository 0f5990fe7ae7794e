r"""Judges as a facet of generalizability theory: systems x topics x judges.

A *judge* is a judge set: one qrels file (NIST's official qrels, a re-annotator's, a crowd's,
an LLM's), named after its file (``umbrela-qrels.txt`` is ``umbrela``: the stem without a
trailing ``-qrels``, :func:`irstab.collection.assessors.assessor_name`). Every run is scored on
every topic under every judge that labelled it, with the same kernels as ``irstab evaluate``,
and the variance of the scores is split among systems, topics, judges and their interactions.

This is the assessor facet of ``irstab assessors`` seen from the judges' side, and it *is*
that code: the scores come from :func:`irstab.collection.assessors.assessor_collection`, the
components from :func:`irstab.stability.facet_gstudy` (expected mean squares when balanced,
Henderson's method 1 otherwise; Brennan, *Generalizability Theory*, 2001), so on the same
input the components, Erho2 and Phi equal ``irstab assessors``'s exactly
(tests/judges/test_facet.py). What the judge facet adds:

* **the design from the qrels** (``design="auto"``): *crossed* s x t x j when every judge
  labelled every topic (the judges label the same pool: NIST and an LLM over the whole
  collection; a (topic, judge) cell without a relevant document is left out, and the
  crossed design is then unbalanced), *nested* s x (j:t) when they do not (a re-annotation
  study, each topic re-judged by its own assessors);
* **the gold qrels as one more judge** (``include_gold``), and the rest of its pool for the
  documents a judge did not label (``missing="base"``, as ``irstab assessors``);
* **Phi with the judges fixed** beside Phi with judges drawn at random. Random judges
  generalise over judges like those observed: every judge component is error. Fixed judges
  (the :math:`n_j` judges of the study are the only ones of interest, their average the
  qrels one would use; Brennan 2001, ch. 4, fixed facets) move the system x judge
  component into the universe score and drop the judge main effect (a constant shared by
  all systems). In the crossed design, with :math:`n'_j = n_j`,

  .. math::

      \tau = \sigma^2_s + \frac{\sigma^2_{sj}}{n_j},\quad
      \sigma^2(\delta) = \frac{\sigma^2_{st}}{n'_t} + \frac{\sigma^2_{stj}}{n'_t n_j},\quad
      \sigma^2(\Delta) = \sigma^2(\delta) + \frac{\sigma^2_t}{n'_t}
                         + \frac{\sigma^2_{tj}}{n'_t n_j},\quad
      \Phi_{fixed} = \frac{\tau}{\tau + \sigma^2(\Delta)} .

  In the nested design a judge exists only within its topic; topics being random, so are
  its judges, and there is no fixed-judges coefficient (``phi_fixed`` is ``None``);
* a **D-study over topics and judges**: Phi and Erho2 with random judges on a grid of
  :math:`(n'_t, n'_j)`, and with fixed judges over :math:`n'_t`.

Components are truncated at 0 in the coefficients (Brennan 2001, §3.4), kept raw in the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..collection.assessors import AssessorCollection, MissingJudgment, assessor_collection
from ..errors import IRStabError
from ..metrics import resolve_measures
from ..stability.designs import Design
from ..stability.facets import FacetGStudy, facet_gstudy

__all__ = ["JudgeFacetStudy", "JudgeFacet", "judge_facet", "judge_facet_scores", "choose_design",
           "fixed_coefficients"]

#: Components indexed by the judge facet, per design (Brennan's labels; ``a`` is the judge).
_JUDGE_SOURCES = {Design.crossed: ("a", "sa", "ta", "sta"), Design.nested: ("a:t", "sa:t")}
_INTERACTION = {Design.crossed: "sa", Design.nested: "sa:t"}


def choose_design(frame: pd.DataFrame, labelled: dict | None = None) -> Design:
    """``crossed`` if every judge labelled every topic, else ``nested``.

    ``labelled``: ``{judge: set of topics its qrels label}`` (from the qrels: a judge that
    labelled a topic but found nothing relevant there still labelled it; its cell is then
    missing from the scores, an unbalanced crossed design). Without it, from the scores:
    ``crossed`` when every (topic, judge) cell of the long table ``frame`` (``system, topic,
    assessor, score``) is present.
    """
    if labelled:
        sets = list(labelled.values())
        return Design.crossed if all(x == sets[0] for x in sets) else Design.nested
    cells = frame[["topic", "assessor"]].drop_duplicates()
    n_t, n_a = frame["topic"].nunique(), frame["assessor"].nunique()
    return Design.crossed if len(cells) == n_t * n_a else Design.nested


def fixed_coefficients(study: FacetGStudy, n_topics=None) -> tuple:
    r"""Erho2 and Phi with the judges fixed (module docstring), at ``n_topics`` (broadcast).

    Crossed design only, with the study's own :math:`n_j` judges; ``(None, None)`` for the
    nested design.
    """
    if study.design is not Design.crossed:
        return None, None
    n_t = study.n_topics if n_topics is None else n_topics
    n_t = np.asarray(n_t, dtype=float)
    if not np.all(np.isfinite(n_t)) or np.any(n_t < 1):
        raise IRStabError(f"n_topics: must be finite numbers >= 1, got {n_topics!r}")
    c = dict(zip(study.sources, study.components))
    n_j = float(len(study.assessors))
    tau = c["s"] + c["sa"] / n_j
    rel = c["st"] / n_t + c["sta"] / (n_t * n_j)
    ab = rel + c["t"] / n_t + c["ta"] / (n_t * n_j)

    def ratio(err):
        den = tau + err
        out = np.where(den > 0, tau / np.where(den > 0, den, 1.0), 0.0)
        return float(out) if out.ndim == 0 else out

    return ratio(rel), ratio(ab)


@dataclass(frozen=True)
class JudgeFacetStudy:
    """One measure's G-study with the judge facet (:func:`judge_facet`).

    ``study`` is the :class:`~irstab.stability.FacetGStudy` itself (its ``assessors`` are the
    judges). ``judge_share`` is the share (%) of all variance in the components indexed by
    the judge; ``interaction_share`` the system x judge share, the component that reorders
    systems by who judged.
    """

    measure: str
    study: FacetGStudy = field(repr=False)

    @property
    def design(self) -> Design:
        return self.study.design

    @property
    def judges(self) -> tuple:
        """The judges' names (nested: every name that judged some topic, sorted)."""
        if self.design is Design.nested:
            return tuple(sorted({str(j) for per in self.study.assessors for j in per}))
        return tuple(self.study.assessors)

    @property
    def judge_share(self) -> float:
        pct = dict(zip(self.study.sources, self.study.percent))
        return float(sum(pct[k] for k in _JUDGE_SOURCES[self.design]))

    @property
    def interaction_share(self) -> float:
        return float(dict(zip(self.study.sources, self.study.percent))[_INTERACTION[self.design]])

    def phi_random(self, n_topics=None, n_judges=None):
        """Phi with judges at random (``FacetGStudy.phi``), at the observed sizes by default."""
        return self.study.phi(n_topics, n_judges)

    def erho2_random(self, n_topics=None, n_judges=None):
        return self.study.erho2(n_topics, n_judges)

    def phi_fixed(self, n_topics=None):
        """Phi with the study's judges fixed (crossed only; ``None`` when nested)."""
        return fixed_coefficients(self.study, n_topics)[1]

    def erho2_fixed(self, n_topics=None):
        return fixed_coefficients(self.study, n_topics)[0]

    def dstudy(self, n_topics: Sequence[float], n_judges: Sequence[float]) -> pd.DataFrame:
        """Erho2 and Phi over a grid of topics x judges (random), and with the judges fixed.

        One row per ``(n_topics, n_judges)``: ``erho2_random, phi_random``; ``phi_fixed`` and
        ``erho2_fixed`` are filled on the rows with the study's own number of judges (the only
        D-study size of a fixed facet) in the crossed design, NaN elsewhere.
        """
        n_t = np.asarray(n_topics, dtype=float).ravel()
        n_j = np.asarray(n_judges, dtype=float).ravel()
        if n_t.size == 0 or n_j.size == 0:
            raise IRStabError("n_topics, n_judges: give at least one size each")
        grid = self.study.grid(n_t, n_j).rename(
            columns={"n_assessors": "n_judges", "erho2": "erho2_random", "phi": "phi_random"})
        grid["erho2_fixed"] = math.nan
        grid["phi_fixed"] = math.nan
        if self.design is Design.crossed:
            own = np.isclose(grid["n_judges"], len(self.judges))
            if own.any():
                e, p = fixed_coefficients(self.study, grid.loc[own, "n_topics"].to_numpy())
                grid.loc[own, "erho2_fixed"] = e
                grid.loc[own, "phi_fixed"] = p
        return grid

    def to_record(self) -> dict:
        g = self.study
        rec = {
            "measure": self.measure, "design": self.design.value, "method": g.method,
            "n_systems": g.n_systems, "n_topics": g.n_topics, "n_judges": len(self.judges),
            "judges_per_topic": g.n_assessors,
            **{f"var_{k}": v for k, v in zip(g.sources, g.variance)},
            **{f"pct_{k}": v for k, v in zip(g.sources, g.percent)},
            "pct_judge_total": self.judge_share,
            "pct_system_x_judge": self.interaction_share,
            "erho2_random": g.erho2(), "phi_random": g.phi(),
            "erho2_fixed": self.erho2_fixed(), "phi_fixed": self.phi_fixed(),
        }
        return rec

    def to_dict(self) -> dict:
        d = self.study.to_dict()
        d["judges"] = [str(j) for j in self.judges]
        d.update({k: v for k, v in self.to_record().items()
                  if k in ("pct_judge_total", "pct_system_x_judge", "erho2_random",
                           "phi_random", "erho2_fixed", "phi_fixed")})
        return d


@dataclass(frozen=True)
class JudgeFacet:
    """Result of :func:`judge_facet`: one :class:`JudgeFacetStudy` per measure."""

    judges: tuple[str, ...]
    missing: MissingJudgment
    studies: tuple[JudgeFacetStudy, ...]

    def __getitem__(self, measure: str) -> JudgeFacetStudy:
        for s in self.studies:
            if s.measure == measure:
                return s
        raise IRStabError(f"measure: {measure!r} is not among {[s.measure for s in self.studies]}")

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: sizes, raw components and shares, Erho2 and Phi random and fixed."""
        return pd.DataFrame([s.to_record() for s in self.studies])

    def dstudy(self, n_topics: Sequence[float], n_judges: Sequence[float]) -> pd.DataFrame:
        """:meth:`JudgeFacetStudy.dstudy` of every measure, stacked."""
        return pd.concat([s.dstudy(n_topics, n_judges) for s in self.studies],
                         ignore_index=True)

    def to_dict(self) -> dict:
        return {"judges": list(self.judges), "missing": self.missing.value,
                "measures": [s.to_dict() for s in self.studies]}


def _check_design(design):
    if isinstance(design, str) and design == "auto":
        return "auto"
    try:
        return Design(design)
    except ValueError:
        raise IRStabError(
            f"design: expected 'auto', 'crossed' or 'nested', got {design!r}") from None


def judge_facet_scores(scores: pd.DataFrame, design: Design | str = "auto",
                       labelled: dict | None = None) -> list[JudgeFacetStudy]:
    """G-studies of a long table ``measure, system, topic, assessor, score`` (one per measure).

    ``design``: ``auto`` (:func:`choose_design` with ``labelled``, per measure), ``crossed``
    or ``nested``.
    """
    if not isinstance(scores, pd.DataFrame):
        raise IRStabError(f"scores: expected a long DataFrame, got {type(scores).__name__}")
    need = {"measure", "system", "topic", "assessor", "score"}
    if not need <= set(scores.columns):
        raise IRStabError(f"scores: missing column(s) {sorted(need - set(scores.columns))}")
    design = _check_design(design)
    out = []
    for m, f in scores.groupby("measure", sort=False):
        frame = f.drop(columns="measure")
        d = choose_design(frame, labelled) if design == "auto" else design
        out.append(JudgeFacetStudy(measure=str(m), study=facet_gstudy(frame, d, name=str(m))))
    return out


def judge_facet(
    gold_qrels,
    judge_qrels,
    runs,
    measures: str | Iterable[str] = "nDCG@10",
    *,
    design: Design | str = "auto",
    include_gold: bool = True,
    missing: MissingJudgment | str = MissingJudgment.base,
    depth: int = 1000,
    order: str = "score",
    collection: AssessorCollection | None = None,
) -> JudgeFacet:
    """G-study of systems x topics x judges (module docstring).

    Parameters
    ----------
    gold_qrels : path or Qrels
        The gold judge (NIST's official qrels): its evaluated topics are the topics, its
        grades fill the documents a judge did not label (``missing="base"``).
    judge_qrels : paths, directories or mapping name -> Qrels
        The other judges, each named after its file.
    runs : paths or Runs
    measures : str or list of str
        Any spelling ``irstab evaluate -m`` reads.
    design : {"auto", "crossed", "nested"}
    include_gold : bool
        The gold qrels is one more judge of every topic (default).
    missing : {"base", "unjudged"}
        As ``irstab assessors --missing``.
    depth, order
        As in :meth:`irstab.collection.Collection.build`.
    collection : AssessorCollection, optional
        Scores from this (topic, judge) collection instead of building one (built with the
        same ``gold_qrels``, ``missing`` and ``include_gold``); the design is still chosen
        from the qrels when ``judge_qrels`` is given, from the scores' cells when it is
        ``None``.

    Raises
    ------
    irstab.errors.IRStabError
        Fewer than two judges (naming ``judge_qrels``), unknown design, bad measure.

    Examples
    --------
    A lenient and a strict judge of every document, with the gold qrels as the third:

    >>> import numpy as np
    >>> import irstab.io as io
    >>> from irstab.simulate import simulate_collection
    >>> sim = simulate_collection(n_systems=4, n_topics=6, depth=20, seed=1)
    >>> f = sim.qrels.frame
    >>> judges = {"lenient": io.Qrels("lenient", f.assign(grade=np.minimum(f["grade"] + 1, 3))),
    ...           "strict": io.Qrels("strict", f.assign(grade=np.maximum(f["grade"] - 1, 0)))}
    >>> s = judge_facet(io.Qrels("nist.txt", f), judges, sim.runs, "nDCG@10")["nDCG@10"]
    >>> s.design.value, sorted(s.judges)
    ('crossed', ['lenient', 'nist', 'strict'])
    >>> round(s.phi_random(), 3), round(s.phi_fixed(), 3)  # judges at random, or these three
    (0.521, 0.668)
    """
    parsed = resolve_measures(measures)
    design = _check_design(design)  # before the scores, not after them
    labelled = None
    if collection is None or judge_qrels is not None:
        # which judge labelled which topic, from the qrels (the design's rule), also when the
        # scores come from a collection already built
        from ..collection.assessors import assessor_name, read_assessor_qrels
        from ..io import read_qrels

        if not hasattr(judge_qrels, "items"):
            judge_qrels = read_assessor_qrels(judge_qrels)
        if not hasattr(gold_qrels, "frame"):
            gold_qrels = read_qrels(gold_qrels)
        gf = gold_qrels.frame
        topics = set(gf.loc[gf["grade"] > 0, "topic"])
        labelled = {name: set(q.frame["topic"]) & topics for name, q in judge_qrels.items()}
        labelled = {k: v for k, v in labelled.items() if v}  # unused judges: warned below
        covered = set().union(*labelled.values()) if labelled else set()
        if include_gold:
            labelled[assessor_name(gold_qrels.path)] = covered
    if collection is None:
        if len(judge_qrels) + bool(include_gold) < 2:
            raise IRStabError(
                f"judge_qrels: a judge facet needs at least two judges, got "
                f"{len(judge_qrels)} judge file(s)"
                + (" and the gold qrels left out" if not include_gold else ""))
        collection = assessor_collection(gold_qrels, runs, judge_qrels, missing=missing,
                                         include_base=include_gold, depth=depth, order=order)
    studies = judge_facet_scores(collection.scores(parsed), design, labelled)
    return JudgeFacet(judges=tuple(collection.assessors), missing=collection.missing,
                      studies=tuple(studies))
