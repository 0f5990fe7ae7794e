"""irstab: which nDCG compares IR systems most stably, and how many topics it needs.

Evaluate (trec_eval's numbers, any gain and discount)
    evaluate(qrels, runs, measures)    long DataFrame: run, measure, topic, value
    score_matrix(s)(collection, ...)   systems x topics DataFrame(s)
    Collection.build(qrels, runs)      the arrays every measure reads: build once, reuse
    qrels and runs: paths (TREC, .gz, Parquet), DataFrames, dicts ``{qid: {docid: grade}}`` /
    ``{qid: {docid: score}}``, ir_datasets records, ``irds:`` ids.
    measures: ``"nDCG@10"``, ``"ndcg_cut.10,map,P.10"`` (trec_eval names), ``"P(rel=2)@10"``,
    ``"mine=nDCG(gain=exp)@20"``; ``rel=2`` is trec_eval's ``-l 2``; ``irstab measures``
    lists them; the measure classes (``irstab.nDCG``, ``irstab.AP``, ...) are in
    :mod:`irstab.metrics`.

Stability: G-study and D-study (Kanoulas & Aslam, CIKM 2009; Brennan 2001)
    gstudy(scores) -> GStudy           variance components, .erho2(), .phi(), .dstudy(n)
    irstab.stability                   intervals, bootstrap, topics needed

Optimal gain and discount vectors (Kanoulas & Aslam, CIKM 2009)
    optimize(collection, cutoff) -> OptimizationResult; its .measure evaluates like any other
    irstab.optimizer                   minimax, pareto, backends

Planning the next collection (Sakai, IRJ 2016; Webber, Moffat & Zobel, CIKM 2008)
    irstab.design                      topics by power (t-test, ANOVA, CI), depth study,
                                       a judging budget over topics x depth x assessors

Comparing measures (what ``irstab compare`` does)
    compare_measures({name: scores}) -> MeasureComparison (Sakai, SIGIR 2006; Kendall tau, tau_AP)
    compare_measures(collection, ["nDCG@10", "AP"])    the same, scoring the collection
    irstab.compare                     the tests one by one

Keep or change the measure (the report's verdict)
    irstab.verdict.verdict({name: scores}, baseline) -> Verdict    the difference in Phi, its
                                       interval, the rule (keep, change, too close)

Comparing systems (what ``irstab systems`` does)
    compare_systems(scores, baseline=None) -> SystemComparison    means, differences, effect
                                       sizes, p-values (t, permutation, ...), Holm or BH

Who judged: NIST, re-annotators, crowds, LLMs (what ``irstab judges`` does)
    irstab.judges.judge_study(gold, others, runs) -> JudgeStudy    agreement (kappa, alpha),
                                       whether conclusions survive the change of qrels, the
                                       judge facet, PPI intervals from a few gold labels

Do users agree? Side-by-side preferences (what ``irstab preferences`` does)
    irstab.preferences.preference_agreement(scored) -> PreferenceAgreement    agreement with
                                       the preferred side; the best gain and discount

How far to trust each answer on this collection (what ``irstab calibrate`` does)
    calibrate(scores) -> TrustCalibration    type I, power, type III of every paired test, the
                                             verdict's coverage, topics needed, simulated

The whole study (what ``irstab report`` does)
    irstab.report.run_study(collection, cutoffs) -> Study    the verdict, candidates, figures' data
    irstab.report.write_report(study, directory)             report.html, report.md, report.json

Subpackages and these shortcuts are imported on first use, so ``import irstab``
stays light. Errors are IRStabError (a ValueError) and its subclasses.

>>> import irstab
>>> sim = irstab.simulate.simulate_collection(n_systems=3, n_topics=4, depth=20, seed=7)
>>> df = irstab.evaluate(sim.qrels, sim.runs, ["nDCG@10", "nDCG(gain=exp,discount=zipf)@10"])
>>> df.shape
(6, 4)
>>> g = irstab.gstudy(irstab.score_matrix(irstab.Collection.build(sim.qrels, sim.runs), "nDCG@10"))
>>> round(g.phi(), 3) <= round(g.erho2(), 3)
True
"""

from .errors import DegenerateDataError, InputFormatError, IRStabError, IRStabWarning, MeasureError

__version__ = "0.1.0"

# Everything else is imported on first use (module __getattr__, PEP 562), so `import irstab`
# costs no numpy, pandas or pyarrow import: the CLI installs its signal handlers before any
# heavy import, and scipy, statsmodels, cvxpy and matplotlib load only when a command needs
# them. Name -> module (a subpackage or module of irstab).
_SUBMODULES = {
    "io": "io",
    "metrics": "metrics",
    "collection": "collection",
    "evaluation": "evaluation",
    "simulate": "simulate",
    "stability": "stability",
    "compare": "compare",
    "verdict": "verdict",
    "systems": "systems",
    "trust": "trust",
    "judges": "judges",
    "preferences": "preferences",
    "informativeness": "informativeness",
    "optimizer": "optimizer",
    "design": "design",
    "report": "report",
    "scorematrix": "io.scorematrix",
    "layouts": "io.layouts",
    "assessors": "collection.assessors",
}
# Name -> (module, attribute).
_SHORTCUTS = {
    "Collection": ("collection", "Collection"),
    "RankOrder": ("collection", "RankOrder"),
    "evaluate": ("evaluation", "evaluate"),
    "parse_measures": ("evaluation", "parse_measures"),
    "score_matrices": ("evaluation", "score_matrices"),
    "score_matrix": ("evaluation", "score_matrix"),
    "Qrels": ("io", "Qrels"),
    "Run": ("io", "Run"),
    "read_qrels": ("io", "read_qrels"),
    "read_run": ("io", "read_run"),
    "read_runs": ("io", "read_runs"),
    **{name: ("metrics", name) for name in (
        "AP", "DCG", "ERR", "RBP", "RR", "Bpref", "Discount", "Gain", "Measure", "Precision",
        "QMeasure", "Recall", "RBPResidual", "RPrecision", "nDCG", "parse_measure")},
    "gstudy": ("stability", "gstudy"),
    "optimize": ("optimizer", "optimize"),
    "compare_measures": ("compare", "compare_measures"),
    "compare_systems": ("systems", "compare_systems"),
    "calibrate": ("trust", "calibrate_collection"),
    "read_score_matrix": ("io.scorematrix", "read_score_matrix"),
    "read_score_matrices": ("io.scorematrix", "read_score_matrices"),
}


def __getattr__(name: str):
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f".{_SUBMODULES[name]}", __name__)
    if name in _SHORTCUTS:
        module, attr = _SHORTCUTS[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBMODULES) | set(_SHORTCUTS))


# Modules that moved keep their old names: ``import irstab.compare.trust`` gives the module now
# at ``irstab.trust.card``, the same object (its private names, monkeypatching and isinstance
# behave as before), with a DeprecationWarning that names the new place. A finder on
# sys.meta_path makes the alias: a module re-exporting from the new place would import from a
# room that is not below it (lint-imports).
MOVED = {
    "irstab.compare._input": "irstab.io.scores",
    "irstab.compare.paired": "irstab.verdict.paired",
    "irstab.compare.draws": "irstab.verdict.draws",
    "irstab.compare.decision": "irstab.verdict.decision",
    "irstab.compare.jackknife": "irstab.verdict.jackknife",
    "irstab.compare.calibration": "irstab.verdict.calibration",
    "irstab.compare.universes": "irstab.verdict.universes",
    "irstab.stability.jackknife": "irstab.verdict.jackknife",
    "irstab.compare.significance": "irstab.systems.significance",
    "irstab.compare.systems": "irstab.systems.table",
    "irstab.compare.trust": "irstab.trust.card",
    "irstab.compare.trust_result": "irstab.trust.result",
}


class _MovedFinder:
    """Finds an old name of :data:`MOVED` and loads it as the module it became."""

    def __init__(self):
        self._specs: dict = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        import importlib.machinery

        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        import importlib
        import warnings

        new = MOVED[spec.name]
        # stacklevel 2 is the import statement: warnings skips the import system's frames
        warnings.warn(f"{spec.name} moved to {new}; import it from there", DeprecationWarning,
                      stacklevel=2)
        module = importlib.import_module(new)
        # the import system now sets module.__spec__ to the alias's; exec_module puts it back
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        for old in [k for k in self._specs if MOVED[k] == module.__name__]:
            module.__spec__ = self._specs.pop(old)


def _install_moved() -> None:
    import sys

    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())


_install_moved()

# help(irstab) documents what __all__ names: the functions. The classes (Collection,
# Qrels, Run, the measures, the errors) stay importable by name; each has its own help().
__all__ = [
    "__version__", "simulate",
    "evaluate", "score_matrix", "score_matrices", "parse_measures", "parse_measure",
    "read_qrels", "read_run", "read_runs", "read_score_matrix", "read_score_matrices",
    "gstudy", "optimize", "compare_measures", "compare_systems",
]
