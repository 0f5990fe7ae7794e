"""Every ``irstab`` command, the module that registers it and its line in ``irstab --help``.

:mod:`.program` lists the commands from this table and imports a command's module only
when that command is asked for (run, or its own ``--help``): the command modules import
numpy, pandas, scipy, matplotlib, ... at module level, about a second of CPU that
``irstab --version`` and ``irstab --help`` need not pay. tests/cli/test_startup.py checks
that the table equals what the modules register, names and help alike.
"""

from __future__ import annotations

__all__ = ["COMMANDS"]

#: Command name -> (module of :mod:`irstab.cli` that registers it, the first paragraph of its
#: help as ``irstab --help`` shows it), in the order of that listing (Typer lists the
#: commands, then the groups, each in the order they were registered).
COMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": (
        "evaluate",
        "Evaluate runs: one value per run, measure and topic (topic 'all' = mean)."),
    "measures": (
        "evaluate",
        "List every measure: name, parameters with defaults, cutoff, formula."),
    "stability": (
        "stability",
        "G-study per measure: variance components, Erho2 and Phi with intervals, topics "
        "needed."),
    "topics": (
        "stability",
        "D-study: Erho2 and Phi against the number of topics, and the topics needed per "
        "target."),
    "crp": (
        "crp",
        "Cumulated relative position (Angelini et al. 2012) of one run on one topic."),
    "compare": (
        "compare",
        "Compare measures: discriminative power, rank correlation, swap rate, PAD."),
    "report": (
        "report",
        "The whole stability study: which nDCG to use here and how many topics it needs."),
    "demo": (
        "report",
        "Run `irstab report` on the bundled example collection (offline, under a minute)."),
    "assessors": (
        "assessors",
        "G-study with an assessor facet: which measure is robust to who judged."),
    "judges": (
        "judges",
        "Who judged: agreement of judge sets, and whether conclusions survive the change."),
    "explore": (
        "explore",
        "A page where you drag nDCG's gain, discount and cutoff and watch stability follow."),
    "systems": (
        "systems",
        "Compare systems on one measure: means, differences, effect sizes and significance."),
    "preferences": (
        "preferences",
        "Agreement of measures with users' side-by-side preferences, and bias scores."),
    "calibrate": (
        "calibrate",
        "How often each answer would be wrong on collections like this one."),
    "optimize": (
        "optimize",
        "Stability-optimal gain and discount vectors of nDCG: maximise Phi (Kanoulas & "
        "Aslam, CIKM 2009). The result is a measure string that `irstab evaluate` accepts."),
    "design": (
        "design",
        "Plan the next test collection: topics by statistical power (paired t-test, ANOVA, "
        "CI width; Sakai, IRJ 2016) and the best split of a judging budget over topics, pool "
        "depth and assessors."),
}
