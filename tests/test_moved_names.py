"""Every public name of the rooms that moved out of ``irstab.compare`` still imports from its old
module, and is the very object of its new one.

Oracle: the list below is each old module's ``__all__`` as it stood before the split (read from
the tree at that commit, c39df09), written out here so that a name dropped later fails this
test; the new places are those of docs/architecture.md.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import irstab

# old module -> (new module, its public names before the move)
OLD = {
    "irstab.compare._input": ("irstab.io.scores", [
        "Scores", "as_scores", "check_seed", "check_positive_int", "check_alpha", "frozen"]),
    "irstab.compare.calibration": ("irstab.verdict.calibration", [
        "Universe", "Calibration", "calibrate", "two_measures", "family", "fitted_universe",
        "standard_universes", "robustness_universes", "resampled_universe", "real_universes"]),
    "irstab.compare.decision": ("irstab.verdict.decision", [
        "Verdict", "decide", "verdict", "choose", "topics_needed", "material_saving",
        "few_systems_text", "FEW_SYSTEMS"]),
    "irstab.compare.draws": ("irstab.verdict.draws", [
        "PhiInterval", "PhiDifferences", "check_interval", "expanded_confidence", "min_draws",
        "simultaneous_percentile", "check_draws", "draw_bytes", "pair_bytes", "DEFAULT_DRAWS"]),
    "irstab.compare.jackknife": ("irstab.verdict.jackknife", ["jackknife_differences"]),
    "irstab.compare.paired": ("irstab.verdict.paired", [
        "PairedComparison", "PhiInterval", "PhiDifferences", "paired_comparison",
        "phi_differences", "min_draws"]),
    "irstab.compare.significance": ("irstab.systems.significance", [
        "SignificanceTest", "Adjustment", "TestOutcome", "paired_t", "permutation_test",
        "bootstrap_test", "wilcoxon_test", "sign_test", "randomised_tukey_hsd", "holm",
        "benjamini_hochberg", "adjust", "effect_sizes", "EffectSizes", "run_test",
        "batched_p_values"]),
    "irstab.compare.systems": ("irstab.systems.table", [
        "SystemComparison", "compare_systems", "system_labels", "resamples_for"]),
    "irstab.compare.trust": ("irstab.trust.card", [
        "calibrate_collection", "TrustCalibration", "DEFAULT_DELTAS", "default_replicates",
        "PAIRED_TESTS", "CORRECTIONS", "MIN_SYSTEMS", "MIN_TOPICS"]),
    "irstab.compare.trust_result": ("irstab.trust.result", [
        "TestRow", "VerdictCheck", "TopicsNeededCheck", "TrustCalibration", "cluster_rate",
        "binomial_se", "TEST_NAMES"]),
    "irstab.compare.universes": ("irstab.verdict.universes", [
        "Universe", "two_measures", "family", "fitted_universe", "standard_universes",
        "robustness_universes", "resampled_universe", "real_universes", "planted_scores",
        "population_components"]),
    "irstab.stability.jackknife": ("irstab.verdict.jackknife", [
        "ContrastVariance", "TwoFacetVariance", "phi_contrasts", "two_facet_variance",
        "leave_one_out_mean_squares", "phi_gradient", "system_kurtosis", "HEAVY_TAILS"]),
}
# modules that stayed, with their public names before the split
STAYED = {
    "irstab.compare": [
        "MeasureComparison", "compare_measures", "RankCorrelation", "rank_correlation",
        "kendall_tau", "tau_ap", "tau_ap_symmetric", "spearman_rho", "rmse", "PairwiseTests",
        "Correction", "bootstrap_samples", "discriminative_power", "randomised_tukey_hsd",
        "paired_t_tests", "SwapRates", "swap_rates", "swap_rate_between",
        "PercentageAbsoluteDifference", "percentage_absolute_difference", "Informativeness",
        "informativeness", "verdict", "Verdict", "decide", "paired_comparison",
        "PairedComparison", "PhiInterval"],
    "irstab.compare.consistency": [
        "SwapRates", "swap_rates", "swap_rate_between", "PercentageAbsoluteDifference",
        "percentage_absolute_difference"],
    "irstab.compare.correlation": [
        "RankCorrelation", "rank_correlation", "kendall_tau", "tau_ap", "tau_ap_symmetric",
        "spearman_rho", "rmse"],
    "irstab.compare.discriminative": [
        "PairwiseTests", "Correction", "bootstrap_samples", "discriminative_power",
        "randomised_tukey_hsd", "paired_t_tests"],
}
# irstab.compare's verdict names now live in irstab.verdict
COMPARE_REEXPORTS = ["verdict", "Verdict", "decide", "paired_comparison", "PairedComparison",
                     "PhiInterval"]


def _fresh_import(name: str):
    """Import ``name`` as a first import would (the alias warns once per process)."""
    sys.modules.pop(name, None)
    return importlib.import_module(name)


def test_the_table_is_irstab_moved():
    assert {old: new for old, (new, _) in OLD.items()} == irstab.MOVED


@pytest.mark.parametrize("old", sorted(OLD))
def test_an_old_module_is_its_new_module_with_a_warning(old):
    new, names = OLD[old]
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        mod = _fresh_import(old)
    target = importlib.import_module(new)
    assert mod is target
    assert mod.__spec__.name == new  # the module keeps its own spec (reload, pickling)
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, missing


@pytest.mark.parametrize("module", sorted(STAYED))
def test_names_of_modules_that_stayed_still_import(module):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: these modules did not move
        mod = importlib.import_module(module)
    missing = [n for n in STAYED[module] if not hasattr(mod, n)]
    assert not missing, missing


def test_compare_reexports_the_verdicts_names():
    import irstab.compare
    import irstab.verdict

    for name in COMPARE_REEXPORTS:
        assert getattr(irstab.compare, name) is getattr(irstab.verdict, name), name


def test_top_level_shortcuts_of_the_new_rooms():
    from irstab.systems import compare_systems
    from irstab.trust import calibrate_collection

    assert irstab.compare_systems is compare_systems
    assert irstab.calibrate is calibrate_collection
    assert "compare_systems" in irstab.__all__
    for room in ("verdict", "systems", "trust"):
        assert importlib.import_module(f"irstab.{room}") is getattr(irstab, room)


def test_the_warning_points_at_the_users_import_line(tmp_path):
    script = tmp_path / "old.py"
    script.write_text("import warnings\nwarnings.simplefilter('always')\n"
                      "from irstab.compare.significance import run_test\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"{script}:3: DeprecationWarning: irstab.compare.significance moved to " \
           "irstab.systems.significance" in out.stderr
