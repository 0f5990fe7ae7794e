"""``irstab systems``: compare systems on one measure, with significance tests."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from .typer_app import app
from ._common import (
    MEASURE_HELP,
    ORDER_OPTION,
    OUTPUT_OPTION,
    QRELS_ARG,
    REL_OPTION,
    RUNS_ARG,
    SCHEDULER_OPTION,
    SCORES_OPTION,
    SYSTEMS_OPTION,
    OutputFormat,
    RankOrderChoice,
    SystemsChoice,
    cli_measures,
    emit,
    progress_bar,
    render_frame,
    seed_option,
    show_warnings_on_stderr,
    table_text,
    to_json,
)


class SystemsFormat(str, Enum):
    """Output formats of ``irstab systems``."""

    table = "table"
    tsv = "tsv"
    csv = "csv"
    json = "json"
    latex = "latex"
    markdown = "markdown"


class TestChoice(str, Enum):
    """``--test``: :class:`irstab.systems.significance.SignificanceTest`."""

    t = "t"
    permutation = "permutation"
    bootstrap = "bootstrap"
    wilcoxon = "wilcoxon"
    sign = "sign"
    tukey = "tukey"

    __test__ = False  # not a pytest class


class CorrectionChoice(str, Enum):
    """``--correction``: :class:`irstab.systems.significance.Adjustment`."""

    none = "none"
    holm = "holm"
    bh = "bh"


def _table(result) -> str:
    from ..report.systems_table import comparison_note, systems_text

    pairs = result.pairs.assign(
        difference=[f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]" for d, lo, hi in
                    zip(result.pairs["difference"], result.pairs["difference_low"],
                        result.pairs["difference_high"])],
        effect=["-" if e != e else f"{e:+.2f} [{lo:+.2f}, {hi:+.2f}]" for e, lo, hi in
                zip(result.pairs["effect"], result.pairs["effect_low"],
                    result.pairs["effect_high"])],
        p=[f"{p:.4g}" for p in result.pairs["p_value"]],
        p_adj=[f"{p:.4g}" for p in result.pairs["p_adjusted"]],
        sig=["*" if s else "" for s in result.pairs["significant"]],
    )[["a", "b", "difference", "effect", "p", "p_adj", "sig"]]
    level = f"{result.confidence:.0%}"
    pairs = pairs.rename(columns={"difference": f"a - b [{level}]",
                                  "effect": f"d_z [{level}]", "p_adj": "p adjusted"})
    return (f"# {comparison_note(result)}\n" + table_text(systems_text(result)) + "\n\n"
            + table_text(pairs) + "\n")


def _render(result, fmt: SystemsFormat) -> str:
    from ..report.systems_table import systems_latex, systems_markdown

    renderers = {
        SystemsFormat.table: _table,
        SystemsFormat.json: lambda r: to_json(r.to_dict()),
        SystemsFormat.tsv: lambda r: render_frame(r.pairs, OutputFormat.tsv),
        SystemsFormat.csv: lambda r: render_frame(r.pairs, OutputFormat.csv),
        SystemsFormat.latex: systems_latex,
        SystemsFormat.markdown: systems_markdown,
    }
    return renderers[fmt](result)


@app.command()
def systems(
    qrels: Path | None = QRELS_ARG,
    runs: list[Path] | None = RUNS_ARG,
    measure: list[str] = typer.Option(
        [], "--measure", "-m", help="The one measure to compare the systems on. " + MEASURE_HELP),
    rel: int | None = REL_OPTION,
    scores: list[Path] = SCORES_OPTION,
    systems_in: SystemsChoice = SYSTEMS_OPTION,
    baseline: str | None = typer.Option(
        None, "--baseline", help="Compare every other system with this run (by its name); "
        "default: all pairs."),
    test: TestChoice = typer.Option(
        TestChoice.t, "--test",
        help="Significance test: t (paired t-test, the default: on topics resampled from TREC "
        "DL 2019 its type I error and power equal the randomisation test's, without its "
        "Monte-Carlo error, as Urbano, Lima & Hanjalic, SIGIR 2019 found on TREC runs), "
        "permutation (Fisher's randomisation test, sign flips), bootstrap (shift method), "
        "wilcoxon (signed-rank), sign, tukey (randomised Tukey HSD over all systems: "
        "family-wise by itself, so --correction none).",
    ),
    correction: CorrectionChoice | None = typer.Option(
        None, "--correction",
        help="Adjustment of the p-values over the pairs: none, holm (family-wise error) or bh "
        "(Benjamini-Hochberg, false discovery rate). Default holm; none for --test tukey.",
    ),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the adjusted p-values."),
    confidence: float = typer.Option(
        0.95, "--confidence", help="Level of the intervals of the difference and the effect."),
    resamples: int | None = typer.Option(
        None, "--bootstrap", "-B", min=1,
        help="Resamples B of the Monte-Carlo tests: sign flips (permutation), topic resamples "
        "(bootstrap), permutations within topics (tukey); --resamples is the same option. "
        "Default 10000, or 10 m / alpha for Holm over m pairs (133200 for 666 pairs), so that "
        "the smallest p-value, 1/(B + 1), can pass Holm's first threshold alpha / m; fewer "
        "than m / alpha is refused."),
    seed: int = seed_option("Seed of the resamples."),
    depth: int = typer.Option(
        1000, "--depth", "-M", min=1,
        help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all)."),
    order: RankOrderChoice = ORDER_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    fmt: SystemsFormat = typer.Option(
        SystemsFormat.table, "--format", "-f",
        help="table (systems with ranx-style marks, then every pair), tsv/csv (one row per "
        "pair), json (both), latex (booktabs table of the marked means; needs booktabs) or "
        "markdown (the same).",
    ),
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """Compare systems on one measure: means, differences, effect sizes and significance.

    One row per system (its mean; marks: the letters of the systems it is
    significantly better than, as ranx's compare prints them) and one per pair
    compared (every system against --baseline, or all pairs): the mean
    difference a - b with its interval, the standardised effect d_z (mean
    difference / standard deviation of the differences) with its interval, the
    test's p-value and its adjustment over the pairs. Reads QRELS RUNS -m
    MEASURE, or --scores FILE (one measure).
    """
    from ..systems.table import compare_systems
    from ..errors import IRStabError
    from ._common import score_matrices_from_args

    show_warnings_on_stderr()
    if not scores and not measure:
        raise IRStabError("give the measure to compare the systems on with -m (e.g. -m nDCG@10)")
    measures = cli_measures(measure, rel, scores)
    if len(measures) > 1:
        raise IRStabError(f"-m: compare systems on one measure, got {len(measures)} "
                          f"({', '.join(str(m) for m in measures[:5])})")
    with progress_bar() as progress:
        matrices = score_matrices_from_args(qrels, runs, measures, scores, depth, progress,
                                            scheduler, systems_in.value, order)
        if len(matrices) != 1:
            raise IRStabError(f"--scores: compare systems on one measure, the file(s) hold "
                              f"{len(matrices)} ({', '.join(n for n, _ in matrices[:5])})")
        name, frame = matrices[0]
        result = compare_systems(
            {name: frame}, baseline=baseline, test=test.value,
            correction=None if correction is None else correction.value, alpha=alpha,
            confidence=confidence, n_resamples=resamples, seed=seed)
    emit(_render(result, fmt), output)
