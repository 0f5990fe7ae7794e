r"""``irstab judges`` as one library call: agreement of the judge sets and, given runs, whether
the conclusions about the systems survive the change of qrels.

Qrels or run? (:func:`split_inputs`)
-------------------------------------
The command takes the gold qrels, then judge sets and runs in any order, and tells them apart
by the first non-blank line of each file (decompressed; :func:`irstab.io.treclines.layout`):
``topic iteration docid grade`` (4 fields, the 4th an integer-like number) or ``topic docid
grade`` is a judge set; ``topic Q0 docid rank score tag`` (and the run layouts without a tag
or ``Q0``) is a run. A directory stands for its files (sorted, hidden ones left out), each
told apart the same way, so ``main/`` of judge sets and ``runs/`` of runs can be given as
they are. A file plainly not TREC data (a README, notes: :func:`irstab.io.treclines.not_runs`)
inside a directory is left out with a warning; given by name, it is an error naming it.

What else it computes (both need runs)
--------------------------------------
* **the judge facet** (``facet=True``, the default): the G-study of systems x topics x judges
  of :func:`irstab.judges.facet.judge_facet` on the same (topic, judge) collection the
  survival table is scored from (built once), one per measure, with a D-study over topics and
  judges;
* **PPI intervals** (``cheap`` and ``gold_topics``): the gold judge set's labels on a random
  subset of the cheap judge's topics, the cheap judge's on all of them
  (:func:`irstab.judges.ppi.ppi_scores`; topics are the units). The cheap scores use only the
  cheap judge's own labels (never the gold grade of a document it did not label, whatever
  ``missing`` says: that would let gold labels into the cheap side); the pairs are every run
  against ``baseline`` if given, else every pair of the ``top_k`` systems by the cheap
  judge's mean over all topics (chosen before any gold label is looked at).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import IRStabError, IRStabWarning
from ..io import PathLike
from .agreement import Agreement, agreement
from .facet import JudgeFacet
from .labels import JudgeSets, load_judge_qrels, read_judge_sets
from .ppi import PPIResult
from .survival import Survival

__all__ = ["split_inputs", "JudgeStudy", "judge_study", "choose_gold_topics", "GoldTopicsError",
           "DSTUDY_TOPICS", "DSTUDY_JUDGES"]

#: The D-study grid of the judge facet that :func:`judge_study` computes (topics beside the
#: observed number, judges per topic).
DSTUDY_TOPICS = (25, 50, 100, 200)
DSTUDY_JUDGES = (1, 2, 3)

_QRELS = frozenset({"qrels", "qrels-no-iteration"})


def split_inputs(paths: Iterable[PathLike]) -> tuple[list[Path], list[Path]]:
    """``(judge set files, run files)`` from files and directories (module docstring)."""
    from ..io.treclines import file_layout, not_runs

    qrels, runs = [], []
    for p in map(Path, paths):
        if p.is_dir():
            inside = sorted(q for q in p.iterdir() if q.is_file() and not q.name.startswith("."))
            skipped = not_runs(inside)
            if skipped:
                warnings.warn(f"{p}: {len(skipped)} file(s) are neither qrels nor runs and are "
                              "not read: " + "; ".join(f"{q.name} ({why})"
                                                       for q, why in skipped[:5]),
                              IRStabWarning, stacklevel=2)
                left_out = {q for q, _ in skipped}
                inside = [q for q in inside if q not in left_out]
            if not inside:
                raise IRStabError(f"{p}: directory holds no qrels or run files")
            files = inside
        elif p.is_file():
            files = [p]
        else:
            raise IRStabError(f"{p}: no such file or directory")
        for f in files:
            kind = file_layout(f)
            if kind in _QRELS:
                qrels.append(f)
            elif kind is not None:
                runs.append(f)
            else:
                raise IRStabError(f"{f}: its first line is neither a qrels line (topic "
                                  "iteration docid grade) nor a run line (topic Q0 docid rank "
                                  "score tag)")
    return qrels, runs


@dataclass(frozen=True, eq=False)
class JudgeStudy:
    """Agreement of the judge sets, and the survival of conclusions when runs were given."""

    sets: JudgeSets
    agreement: Agreement
    survival: Survival | None
    facet: JudgeFacet | None = None
    ppi: tuple[PPIResult, ...] | None = None
    cheap: str | None = None

    def facet_dstudy(self):
        """The facet's D-study (random judges; fixed at the study's own number of judges) on
        the observed number of topics and :data:`DSTUDY_TOPICS` x :data:`DSTUDY_JUDGES`."""
        if self.facet is None:
            return None
        n_t = sorted({*DSTUDY_TOPICS, *(s.study.n_topics for s in self.facet.studies)})
        return self.facet.dstudy(n_t, DSTUDY_JUDGES)

    def ppi_frame(self):
        """Every PPI result's intervals, stacked, with a ``measure`` column first."""
        import pandas as pd

        if not self.ppi:
            return None
        f = pd.concat([r.frame.assign(measure=r.measure) for r in self.ppi], ignore_index=True)
        return f[["measure", *[c for c in f.columns if c != "measure"]]]

    def answer(self) -> str:
        """One or two sentences: how far the other judge sets agree with the gold one, and
        which measure's conclusions depend least on who judged."""
        p = self.agreement.pairs
        g = p[p["judge_a"] == self.sets.gold]
        k = g["cohen_kappa"].dropna()
        a = g["krippendorff_alpha_ordinal"].dropna()
        n = len(g)
        first = (f"Agreement with {self.sets.gold} over {n} judge set(s): Cohen's kappa "
                 f"{_span(k)}, Krippendorff's ordinal alpha {_span(a)}"
                 f"{_verbal(float(np.median(k))) if len(k) else ''}.")
        if self.survival is None or self.survival.rows.empty:
            return first + " Give runs to see whether conclusions about systems survive."
        return first + self._survival_sentence() + self._facet_sentence() \
            + self._ppi_sentence()

    def _survival_sentence(self) -> str:
        by = self.survival.by_measure()
        best = by.iloc[0]
        kept = best["kept_share"]
        second = (f" The system ranking by {best['measure']} is the most robust to who judged "
                  f"(mean tau_AP {best['tau_ap']:.2f}, Kendall tau {best['kendall_tau']:.2f}, "
                  f"{best['top_k_swap_rate']:.0%} of top-{self.survival.top_k} pairs swapped"
                  + (f", {kept:.0%} of significant pairs kept" if kept == kept else "")
                  + ")" + (f" of {len(by)} measures." if len(by) > 1 else "."))
        return second

    def _facet_sentence(self) -> str:
        if self.facet is None or not self.facet.studies:
            return ""
        s = max(self.facet.studies, key=lambda x: x.phi_random())
        fixed = s.phi_fixed()
        return (f" As a G-study facet ({s.design.value}, {len(s.judges)} judges), the judges "
                f"hold {s.judge_share:.0f}% of the variance of {s.measure} "
                f"({s.interaction_share:.0f}% system x judge, what reorders systems); Phi "
                f"{s.phi_random():.3f} with judges at random"
                + (f", {fixed:.3f} with these judges fixed" if fixed is not None else "")
                + (f", the highest of {len(self.facet.studies)} measures." if
                   len(self.facet.studies) > 1 else "."))

    def _ppi_sentence(self) -> str:
        if not self.ppi:
            return ""
        r = self.ppi[0]
        ratio = r.width_ratio("ppi++")
        runs = ratio.loc[ratio["kind"] == "run", "width_ratio"].dropna()
        pairs = ratio.loc[ratio["kind"] == "pair", "width_ratio"].dropna()
        parts = []
        if len(runs):
            parts.append(f"{np.median(runs):.2f} times the gold-only one's for runs' means")
        if len(pairs):
            parts.append(f"{np.median(pairs):.2f} for pairs' differences" if parts else
                         f"{np.median(pairs):.2f} times the gold-only one's for pairs' "
                         "differences")
        return (f" With {self.sets.gold}'s labels on {r.n_gold} of {r.n_topics} topics and "
                f"{self.cheap}'s on all, the PPI++ intervals of {r.measure} have a median "
                "width " + ", ".join(parts) + ".")

    def to_dict(self) -> dict:
        ag = self.agreement.to_dict()
        out = {"answer": self.answer(), "gold": self.sets.gold, "judges": list(self.sets.judges),
               "grades": list(self.sets.grades), "confidence": ag["confidence"],
               "n_resamples": ag["n_resamples"], "agreement": ag["pairs"],
               "binarised": ag["binarised"], "all_judges": ag["overall"],
               "confusion": ag["confusion"], "survival": [], "survival_by_measure": []}
        if self.survival is not None:
            sv = self.survival.to_dict()
            out["survival"] = sv["rows"]
            out["survival_settings"] = {k: v for k, v in sv.items() if k != "rows"}
            out["survival_by_measure"] = [
                {k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
                for r in self.survival.by_measure().to_dict(orient="records")]
        out["facet"] = None
        if self.facet is not None:
            out["facet"] = self.facet.to_dict()
            d = self.facet_dstudy()
            out["facet"]["dstudy"] = d.astype(object).where(d.notna(), None) \
                .to_dict(orient="records")
        out["ppi"] = None
        if self.ppi:
            out["ppi"] = {"cheap": self.cheap, "gold": self.sets.gold,
                          "results": [r.to_dict() for r in self.ppi]}
        return out


def _span(x) -> str:
    if len(x) == 0:
        return "undefined"
    lo, hi = float(np.min(x)), float(np.max(x))
    return f"{lo:.2f}" if lo == hi else f"{lo:.2f} to {hi:.2f}"


def _verbal(kappa: float) -> str:
    """Landis & Koch (Biometrics 1977)'s words for a kappa (the median over the judge sets)."""
    for bound, word in ((0.0, "poor"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"),
                        (0.8, "substantial")):
        if kappa <= bound:
            return f" (median kappa {kappa:.2f}: {word} agreement on Landis & Koch's scale)"
    return f" (median kappa {kappa:.2f}: almost perfect agreement on Landis & Koch's scale)"


class GoldTopicsError(IRStabError):
    """Gold topics that the cheap judge did not label: ``unknown`` (in the order given), and
    ``cheap`` the cheap judge's name when known (so a caller can name its own file's line)."""

    def __init__(self, message: str, unknown=(), cheap: str | None = None):
        super().__init__(message)
        self.unknown = list(unknown)
        self.cheap = cheap


def choose_gold_topics(topics, gold_topics, seed=0, cheap: str | None = None) -> list[str]:
    """The gold-labelled topics of a PPI study, among ``topics`` (the cheap judge's).

    ``gold_topics``: an integer :math:`n` (that many, drawn at random without replacement
    with ``seed``), a fraction in (0, 1) (:math:`n = \\mathrm{round}(f N)`), or an iterable
    of topic ids (kept as given, each one of ``topics``). PPI++ needs :math:`n \\ge 3`.
    Returned in ``topics``' order.
    """
    from .._numeric import check_seed

    topics = [str(t) for t in topics]
    N = len(topics)
    if isinstance(gold_topics, (bool, np.bool_)):
        raise IRStabError(f"gold_topics: expected a number or topic ids, got {gold_topics!r}")
    if isinstance(gold_topics, (int, np.integer, float, np.floating)):
        g = float(gold_topics)
        if 0 < g < 1:
            n = int(round(g * N))
        elif g >= 1 and g == int(g):
            n = int(g)
        else:
            raise IRStabError(f"gold_topics: expected a count >= 3 or a fraction in (0, 1), "
                              f"got {gold_topics!r}")
        if n < 3 or n > N:
            raise IRStabError(f"gold_topics: {gold_topics!r} gives {n} gold topic(s) of the "
                              f"{N} the cheap judge labelled; PPI++ needs 3 to {N}")
        rng = np.random.default_rng(check_seed(seed))
        pick = set(rng.choice(N, size=n, replace=False).tolist())
        return [t for k, t in enumerate(topics) if k in pick]
    chosen = list(dict.fromkeys(str(t) for t in gold_topics))
    unknown = [t for t in chosen if t not in set(topics)]
    if unknown:
        raise GoldTopicsError(f"gold_topics: not among the {N} topics {cheap or 'the cheap judge'}"
                              " labelled: " + ", ".join(unknown[:5])
                              + (" ..." if len(unknown) > 5 else ""), unknown, cheap)
    if len(chosen) < 3:
        raise IRStabError(f"gold_topics: {len(chosen)} topic(s); PPI++ needs at least 3")
    keep = set(chosen)
    return [t for t in topics if t in keep]


def _ppi_pairs(cheap, baseline, top_k):
    """Pairs of a PPI study: every run against ``baseline``, else every pair of the top
    ``top_k`` runs by the cheap mean over all topics (ties: name order)."""
    systems = [str(s) for s in cheap.index]
    if baseline is not None:
        if baseline not in systems:
            raise IRStabError(f"baseline: no run named {baseline!r} (runs: "
                              + ", ".join(systems[:5]) + (" ..." if len(systems) > 5 else "")
                              + ")")
        return [(s, baseline) for s in systems if s != baseline]
    means = cheap.mean(axis=1)
    top = sorted(systems, key=lambda s: (-means[s], s))[:top_k]
    return [(a, b) for i, a in enumerate(top) for b in top[i + 1:]]


def judge_study(gold: PathLike, others, runs=None, measures=("nDCG@10",), *,
                grades=None, n_resamples: int = 1000, confidence: float = 0.95, seed=0,
                missing="base", depth: int = 1000, order="score", top_k: int = 10, test="t",
                correction=None, alpha: float = 0.05, test_resamples: int | None = None,
                facet: bool = True, cheap: str | None = None, gold_topics=None,
                baseline: str | None = None, estimand="universe",
                client=None, progress: Callable[[str], None] | None = None) -> JudgeStudy:
    """Agreement (:func:`irstab.judges.agreement.agreement`) of ``gold`` and ``others``, and
    with ``runs`` the survival table (:func:`irstab.judges.survival.survival_from_scores`)
    over ``measures``, the judge facet (``facet``; :func:`irstab.judges.facet.judge_facet`)
    and, with ``gold_topics``, PPI intervals with ``cheap`` as the cheap judge (the only other
    judge set when there is one; the module docstring says which topics and pairs).
    ``progress(step)`` is told each step as it starts; ``client`` (a Dask client) reads and
    reduces the run files on its workers.

    Raises
    ------
    irstab.errors.IRStabError
        One judge set; ``cheap`` not a judge set's name, or without ``gold_topics``;
        ``gold_topics`` or ``baseline`` without runs, or bad (:func:`choose_gold_topics`).
    """
    say = progress or (lambda step: None)
    want_ppi = gold_topics is not None or cheap is not None
    if want_ppi and gold_topics is None:
        raise IRStabError(f"cheap: {cheap!r} given without gold topics; say which topics "
                          "have gold labels (gold_topics)")
    if want_ppi and not runs:
        raise IRStabError("gold_topics: PPI intervals are of runs' scores; give runs")
    if baseline is not None and not want_ppi:
        raise IRStabError("baseline: the pairs of the PPI intervals; give gold_topics too")
    say("reading judge sets")
    gold, others = load_judge_qrels(gold, others)
    sets = read_judge_sets(gold, others, grades)
    if want_ppi:
        names = list(sets.judges[1:])
        if cheap is None:
            if len(names) > 1:
                raise IRStabError("cheap: several judge sets (" + ", ".join(names) + "); name "
                                  "the cheap one")
            cheap = names[0]
        elif cheap not in names:
            raise IRStabError(f"cheap: no judge set named {cheap!r} (judge sets: "
                              + ", ".join(names) + ")")
        ppi_topics = sets.judged_topics(cheap)
        chosen = choose_gold_topics(ppi_topics, gold_topics, seed, cheap)
    say("agreement")
    ag = agreement(sets, n_resamples=n_resamples, confidence=confidence, seed=seed)
    sv = fc = pp = None
    if runs:
        from ..collection.assessors import assessor_collection, assessor_name
        from ..metrics import resolve_measures
        from .facet import judge_facet
        from .survival import survival_from_scores

        parsed = resolve_measures(measures)
        say("scoring runs under every judge set")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*cell\\(s\\) without a relevant "
                                    "document", category=IRStabWarning)
            ac = assessor_collection(gold, runs, others, missing=missing, include_base=True,
                                     depth=depth, order=order, client=client)
        systems = [str(x) for x in ac.collection.systems]
        if want_ppi and baseline is not None and baseline not in systems:
            raise IRStabError(f"baseline: no run named {baseline!r} (runs: "
                              + ", ".join(systems[:5]) + (" ..." if len(systems) > 5 else "")
                              + ")")
        say("survival of the conclusions")
        sv = survival_from_scores(
            ac.scores(parsed), assessor_name(gold.path), top_k=top_k, test=test,
            correction=correction, alpha=alpha, n_resamples=test_resamples, seed=seed,
            missing=getattr(missing, "value", missing), judges=ac.assessors,
            n_bootstrap=n_resamples, confidence=confidence)
        if facet:
            say("G-study with the judge facet")
            fc = judge_facet(gold, others, None, parsed, missing=missing, depth=depth,
                             order=order, collection=ac)
        if want_ppi:
            from .ppi import ppi_score_matrices, ppi_scores

            say("PPI intervals")
            cq = others[cheap]
            keep = set(ppi_topics)
            cq = type(cq)(path=cq.path, frame=cq.frame[cq.frame["topic"].isin(keep)]
                          .reset_index(drop=True))
            mats = ppi_score_matrices(gold, cq, runs, parsed, gold_topics=chosen, depth=depth,
                                      order=order)
            results = []
            for name, (g, c) in mats.items():
                pairs = _ppi_pairs(c, baseline, top_k)
                results.append(ppi_scores(g, c, pairs=pairs, estimand=estimand,
                                          confidence=confidence, measure=name))
            pp = tuple(results)
    return JudgeStudy(sets=sets, agreement=ag, survival=sv, facet=fc, ppi=pp,
                      cheap=cheap if want_ppi else None)
