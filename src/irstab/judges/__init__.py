r"""Who judged: judge sets as a facet of the evaluation.

Relevance labels now come from NIST assessors, re-annotators, crowds and LLMs. This room answers
*how far can a comparison of systems made with one judge set be trusted under another, and how
many gold labels does a cheap judge still need?*: agreement between judge sets, whether the
conclusions about systems survive the change of qrels, judges as a G-theory facet, and
prediction-powered intervals that combine a few gold labels with many cheap ones. What
``irstab judges`` answers. Bottom up:

:mod:`.labels`     :func:`read_judge_sets` / :func:`judge_sets`: the gold set and the others,
                   named after their files, aligned on (topic, document) pairs, checked
                   (shared topics, grade scale) -> :class:`JudgeSets`
:mod:`.agreement`  :func:`cohen_kappa` (plain, linear, quadratic), :func:`krippendorff_alpha`
                   (nominal, ordinal, interval; missing labels), :func:`confusion_matrix`;
                   :func:`agreement`: every pair, binarised at every grade, bootstrap
                   intervals over topics -> :class:`Agreement` (:class:`Weighting` of kappa,
                   :class:`Level` of alpha)
:mod:`.survival`   :func:`judge_survival` (:func:`survival_from_scores` from a long score
                   table): the same runs under judge set A and B, Kendall tau and tau_AP,
                   top-k swaps, significant pairs kept, per measure -> :class:`Survival`
:mod:`.facet`      :func:`judge_facet` (:func:`judge_facet_scores`): systems x topics x judges
                   G-study through the assessor code, Phi with judges random and fixed,
                   D-study -> :class:`JudgeFacet` (one :class:`JudgeFacetStudy` per measure)
:mod:`.ppi`        :func:`ppi_interval` (-> :class:`PPIInterval`), :func:`ppi_scores`,
                   :func:`ppi_from_qrels`: PPI, PPI++ and gold-only intervals of runs' means
                   and pairs' differences from gold labels on a random subset of topics and
                   cheap labels on all -> :class:`PPIResult`; :class:`Estimand`: which
                   value the interval covers
:mod:`.study`      :func:`judge_study`: all of the above as one call, what the command prints
                   -> :class:`JudgeStudy`; :func:`split_inputs` tells qrels from runs

May import: :mod:`irstab.systems`, :mod:`irstab.verdict`, :mod:`irstab.stability`,
:mod:`irstab.evaluation` and the floors below them; :mod:`irstab.design`,
:mod:`irstab.optimizer` and :mod:`irstab.report` may import it.

Examples
--------
>>> from irstab.judges import cohen_kappa, krippendorff_alpha
>>> round(cohen_kappa([0, 1, 2, 2, 3], [0, 1, 2, 3, 3]), 3)  # (0.8 - 0.24) / (1 - 0.24)
0.737
>>> round(krippendorff_alpha([[0, 1, 2, 2, 3], [0, 1, 2, 3, 3]], level="ordinal"), 3)
0.895
"""

from .agreement import Agreement, Level, Weighting, agreement, cohen_kappa, confusion_matrix, \
    krippendorff_alpha
from .facet import JudgeFacet, JudgeFacetStudy, judge_facet, judge_facet_scores
from .labels import JudgeSets, judge_sets, read_judge_sets
from .ppi import Estimand, PPIInterval, PPIResult, ppi_from_qrels, ppi_interval, ppi_scores
from .study import JudgeStudy, judge_study, split_inputs
from .survival import Survival, judge_survival, survival_from_scores

__all__ = [
    "judge_study", "JudgeStudy", "split_inputs",
    "read_judge_sets", "judge_sets", "JudgeSets",
    "agreement", "Agreement", "cohen_kappa", "krippendorff_alpha", "confusion_matrix",
    "Weighting", "Level",
    "judge_survival", "survival_from_scores", "Survival",
    "judge_facet", "judge_facet_scores", "JudgeFacet", "JudgeFacetStudy",
    "ppi_from_qrels", "ppi_scores", "ppi_interval", "PPIResult", "PPIInterval", "Estimand",
]
