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
from .labels import JudgeSets, load_judge_qrels, read_judge_sets
from .survival import Survival, judge_survival

__all__ = ["split_inputs", "JudgeStudy", "judge_study"]

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
        by = self.survival.by_measure()
        best = by.iloc[0]
        kept = best["kept_share"]
        second = (f" The system ranking by {best['measure']} is the most robust to who judged "
                  f"(mean tau_AP {best['tau_ap']:.2f}, Kendall tau {best['kendall_tau']:.2f}, "
                  f"{best['top_k_swap_rate']:.0%} of top-{self.survival.top_k} pairs swapped"
                  + (f", {kept:.0%} of significant pairs kept" if kept == kept else "")
                  + ")" + (f" of {len(by)} measures." if len(by) > 1 else "."))
        return first + second

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


def judge_study(gold: PathLike, others, runs=None, measures=("nDCG@10",), *,
                grades=None, n_resamples: int = 1000, confidence: float = 0.95, seed=0,
                missing="base", depth: int = 1000, order="score", top_k: int = 10, test="t",
                correction=None, alpha: float = 0.05, test_resamples: int | None = None,
                client=None, progress: Callable[[str], None] | None = None) -> JudgeStudy:
    """Agreement (:func:`irstab.judges.agreement.agreement`) of ``gold`` and ``others``, and
    with ``runs`` the survival table (:func:`irstab.judges.survival.judge_survival`) over
    ``measures``. ``progress(step)`` is told each step as it starts; ``client`` (a Dask
    client) reads and reduces the run files on its workers."""
    say = progress or (lambda step: None)
    say("reading judge sets")
    gold, others = load_judge_qrels(gold, others)
    sets = read_judge_sets(gold, others, grades)
    say("agreement")
    ag = agreement(sets, n_resamples=n_resamples, confidence=confidence, seed=seed)
    sv = None
    if runs:
        say("scoring runs under every judge set")
        sv = judge_survival(gold, others, runs, measures, missing=missing, depth=depth,
                            order=order, top_k=top_k, test=test, correction=correction,
                            alpha=alpha, n_resamples=test_resamples, seed=seed,
                            n_bootstrap=n_resamples, confidence=confidence, client=client)
    return JudgeStudy(sets=sets, agreement=ag, survival=sv)
