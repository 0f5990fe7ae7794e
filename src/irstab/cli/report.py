"""``irstab report`` and ``irstab demo``: from runs to a recommendation in one command.

Both call :func:`irstab.report.study.run_study` and write the report with
:func:`irstab.report.render.write_report` (HTML, Markdown, report.json,
figures), then print where the files are.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import typer

from .typer_app import app
from ._common import (
    ORDER_OPTION, SCHEDULER_OPTION, DesignChoice, RankOrderChoice, progress_bar, seed_option, show_warnings_on_stderr,
    say,
)

#: Light settings of ``irstab demo`` (under a minute on 2 cores).
DEMO_SETTINGS = {"starts": 1, "n_bootstrap": 200, "tol": 1e-3, "seed": 0, "trust_card": True,
                 "trust_replicates": 200}
DEMO_CUTOFFS = (10, 20, 100)
DEMO_DEPTH = 100


def example_dir() -> Path:
    """The bundled example collection, ``data/example/`` of the repository."""
    return Path(__file__).resolve().parents[3] / "data" / "example"


def parse_cutoffs(values) -> tuple[int, ...]:
    """``-k`` values (``[10, 20, 100]``, or the text ``"10,20,100"``) -> ``(10, 20, 100)``.

    Repeated cutoffs count once; a clear error names ``--cutoff``.
    """
    from ..errors import IRStabError

    if isinstance(values, str):
        try:
            values = [int(p) for p in values.split(",") if p.strip()]
        except ValueError:
            raise IRStabError(f"--cutoff: expected comma-separated integers, got {values!r}") from None
    ks = tuple(dict.fromkeys(int(k) for k in values))
    if not ks or any(k < 1 for k in ks):
        raise IRStabError(f"--cutoff: expected positive integers, got {list(values)}")
    return ks


def _run(collection_loader, cutoffs, out_dir: Path, full: bool = False, sections=None,
         informative: bool = False, selection: dict | None = None, planning=None,
         preferences=None, **settings) -> None:
    # the report draws its figures at the end: a missing or broken matplotlib is reported now
    # (one line, irstab.cli.dependencies), not after the study
    import matplotlib.backends.backend_agg  # noqa: F401

    from .._workers import one_blas_thread
    from ..report.render import write_report
    from ..report.study import run_study

    import dataclasses
    import warnings

    # every product of the study is small (systems x topics, resamples x pairs): OpenBLAS's
    # second thread spins for each of thousands of them and costs more CPU than it saves
    # time (DL-2019: about 4 of 31 s of CPU on a loaded machine; the same numbers, each
    # entry of a product is one thread's sum either way)
    with progress_bar() as progress, one_blas_thread():
        task = progress.add_task("reading qrels and runs", total=None)
        with warnings.catch_warnings(record=True) as caught:  # e.g. dropped topics: into the report
            warnings.simplefilter("always")
            collection = collection_loader()
        # the planning section's pool depths are checked now, not after the long study
        planned = planning.prepare(collection) if planning is not None else ()
        progress.update(task, description="scoring the candidates", total=None, completed=0)

        def tick(step: str, done: int, total: int) -> None:
            progress.update(task, description=step, completed=done, total=total)

        study = run_study(collection, cutoffs, progress=tick, **settings)
        loading = tuple(str(w.message) for w in caught) + planned
        study = dataclasses.replace(
            study, warnings=tuple(dict.fromkeys(loading + study.warnings))
        )
        extra = ()
        if sections is not None:
            progress.update(task, description="assessor facet", total=None)
            extra = sections(study)
        if informative:
            from ..report.informativeness_panel import REFERENCES, informativeness_panel

            progress.update(task, description="informativeness (maximum entropy)", total=None)
            extra = (*extra, informativeness_panel(
                collection, [study.recommendation.use.measure, *REFERENCES],
                seed=settings.get("seed", 0), **(selection or {}),
            ))
        if planning is not None:
            progress.update(task, description="planning the next collection (depth study)",
                            total=None)
            section = planning(study)
            extra = extra if section is None else (*extra, section)
        if preferences is not None:
            progress.update(task, description="agreement with preferences (front, cross-fit)",
                            total=None)
            extra = (*extra, preferences(collection, study))
        progress.update(task, description="the explorer page")
        from ..report.explorer import EXPLORER_FILE, explorer_section

        extra = (*extra, explorer_section(collection, study))
        progress.update(task, description="writing the report")
        files = write_report(study, out_dir, extra, full=full)
    for w in study.warnings:
        say(f"irstab: warning: {w}", err=True)
    _echo_verdict(study)
    say(f"report written to {files.directory}")
    for p in (files.html, files.markdown, files.json, files.directory / EXPLORER_FILE):
        say(f"  {p}")
    from ._common import wall_seconds

    say(f"({wall_seconds():.1f} s wall time)", err=True)


def _echo_verdict(study) -> None:
    """The verdict on stdout: what to use, the Phi difference with its interval, topics."""
    from ..report.study import display_name, fmt_value

    rec = study.recommendation
    base, use = rec.baseline, rec.use
    bname = display_name(base)
    n = len(study.topics)
    if rec.change:
        say(f"verdict: use {display_name(use)} instead of {bname}")
        if display_name(use) != use.measure:
            say(f"  measure: {_short_vectors(use.measure)}")
        say(
            f"  Phi = {use.phi:.3f} vs {base.phi:.3f} at {n} topics; difference "
            f"{use.phi_diff:+.3f} [{use.phi_diff_lower:+.3f}, {use.phi_diff_upper:+.3f}] "
            f"(95 %, simultaneous{_held_out(use)}); topics for Phi = 0.95: "
            f"{_count(use.topics_95_verdict)} instead of "
            f"{_count(base.topics_95)}; Kendall tau with {bname}: "
            f"{fmt_value(use.kendall_tau, '.3f')}"
        )
    else:
        say(f"verdict: keep {bname} (no candidate is reliably more stable with these "
                   f"{n} topics by enough to matter)")
        say(f"  Phi = {base.phi:.3f} at {n} topics; topics for Phi = 0.90 / 0.95: "
                   f"{_count(base.topics_90)} / {_count(base.topics_95)}")
    for c in rec.closest:
        say(
            f"  closest: {display_name(c)}: Phi {c.phi_diff:+.3f} "
            f"[{c.phi_diff_lower:+.3f}, {c.phi_diff_upper:+.3f}]{_held_out(c)}, topics for "
            f"Phi = 0.95: {_count(c.topics_95_verdict)}"
        )
    from ..report.recommend import _method

    say(f"  intervals: 95 %, simultaneous over the {len(rec.verdict.pool)} nDCG "
               f"candidates; {_method(study.settings)}")


def _held_out(c) -> str:
    """``, cross-fitted (in sample +0.006)`` for an optimised candidate, else nothing."""
    return (f", cross-fitted; in sample {c.phi_diff_in_sample:+.3f}" if c.cross_fitted
            else "")


def _short_vectors(measure: str) -> str:
    """The measure string with its numbers at 4 significant digits (the report has them all)."""
    import re

    short = re.sub(r"\d+\.\d+(?:e-?\d+)?", lambda m: f"{float(m.group()):.4g}", measure)
    return short + "  (rounded; full string in report.md and report.json)"


def _count(v: float) -> str:
    import math

    return str(int(v)) if math.isfinite(v) else "never"


@app.command()
def report(
    qrels: Path = typer.Argument(..., help="TREC qrels file (topic iter docid grade), .gz ok."),
    runs: list[Path] = typer.Argument(
        ..., help="TREC run files and/or directories of run files; - reads one run from stdin."
    ),
    cutoffs: list[int] = typer.Option(
        [10, 20, 100], "--cutoff", "-k",
        help="Cutoffs of the nDCG configurations, repeatable or comma-separated (default 10,20,100).",
    ),
    output: Path = typer.Option(
        Path("irstab-report"), "--output", "-o", help="Report directory (created if missing)."
    ),
    depth: int = typer.Option(
        1000, "--depth", "-M",
        help="Ranks kept per topic, the rest ignored (trec_eval -M; trec_eval reads them all)."),
    starts: int = typer.Option(4, "--starts", help="Random optimizer starts besides the presets."),
    bootstrap: int = typer.Option(
        1000, "--bootstrap", "-B", help="Draws: bootstrap samples of the discriminative power and draws of the "
        "verdict's interval (raised, for the verdict, to 2 x candidates / (1 - level): a draw in "
        "every tail of its simultaneous 95 % intervals)."
    ),
    seed: int = seed_option("Seed of every random step."),
    baseline: str = typer.Option(
        "nDCG@10", "--baseline", help="The measure in use: a change is recommended only when a "
        "candidate is reliably more stable than it (its 95 % interval of the difference in Phi, "
        "from generalized pivots of the multivariate G-study, lies above 0) and saves >= "
        "10 % of its topics for Phi = 0.95.",
    ),
    full: bool = typer.Option(
        False, "--full", help="Keep every per-pair comparison (p-values of each pair of systems "
        "under each measure) in report.json."
    ),
    assessor_qrels: list[Path] = typer.Option(
        [],
        "--assessor-qrels",
        "-a",
        help="Assessors' qrels (files or directories, repeatable): adds the section 'Who "
        "judged?' (three-facet G-study of the recommended measure, nDCG@10 and AP; see "
        "`irstab assessors`).",
    ),
    assessor_design: DesignChoice = typer.Option(
        "nested", "--design",
        help="Design of the assessor facet (with --assessor-qrels): nested or crossed.",
    ),
    informative: bool = typer.Option(
        False, "--informativeness",
        help="Add a panel on informativeness by the maximum entropy method (Aslam, Yilmaz & "
        "Pavlu, SIGIR 2005): how well the recommended measure, AP, GAP, nDCG over the whole "
        "list and P@10 each predict the lists' precision-recall curves from their value alone.",
    ),
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
    trust_card: bool = typer.Option(
        True, "--trust-card/--no-trust-card",
        help="Add the trust card: how often the baseline's paired tests, the verdict (for "
        "each nDCG candidate too) and topics needed are wrong on collections like this one, "
        "with the simulator's fit check (irstab calibrate; about 7 of the report's 18 CPU s "
        "on DL-2019)."),
    min_relevant: int = typer.Option(
        5, "--min-relevant", help="--informativeness: lists with at least this many relevant documents."
    ),
    min_top: int = typer.Option(
        5, "--min-top", help="--informativeness: ... and at least this many of the top grade."
    ),
    depths: list[int] = typer.Option(
        [], "--depths", help="Pool depths of the planning section's budget design (comma list "
        "or repeated; default 5,10,20,50,100 within --depth). Checked before the study: a "
        "depth whose pool holds no relevant document is an error; among the defaults it is "
        "left out with a note.",
    ),
    preferences: Path | None = typer.Option(
        None, "--preferences", help="Side-by-side preferences for (some of) the collection's "
        "topics (CSV, TSV or JSON Lines with rankings or run names; see `irstab preferences`): "
        "adds the section 'Stable and valid': the nDCG@10 that agrees best with them, in "
        "sample and cross-fitted over topic folds, beside the presets, and the front of Phi "
        "against agreement.",
    ),
) -> None:
    """The whole stability study: which nDCG to use here and how many topics it needs.

    Scores the nDCG presets and the metric set (AP, GAP, xGAP, eGAP, RBP,
    ERR, CRP indicators, UL-normalised DCG and SP), finds the stability-optimal
    discount, gain and joint configurations per cutoff and the minimax one,
    runs a G-study, discriminative power and Kendall tau on all of them,
    compares each with the baseline (the difference in Phi with a calibrated
    interval, simultaneous over the nDCG configurations; see
    docs/calibration.md), and says whether to keep the baseline or change
    (with the intervals and the topics saved). Writes report.html
    (self-contained), report.md and report.json to -o. The section "Planning the
    next collection" sets the Phi target's topics beside the topics a paired
    t-test needs (Sakai's topic set size design) and the best split of the
    collection's judgments over topics and pool depth (see `irstab design`). With
    --assessor-qrels the report ends with the section "Who judged?"; with --preferences, with
    the section "Stable and valid" (agreement with users' preferences and its front with Phi).
    """
    from ..collection.cluster import scheduler_client
    from ..collection import Collection

    show_warnings_on_stderr()
    ks = parse_cutoffs(cutoffs)
    for name, v in (("--min-relevant", min_relevant), ("--min-top", min_top)):
        if v < 0:  # before the study, not after it
            from ..errors import IRStabError

            raise IRStabError(f"{name} must be a non-negative integer, got {v}")
    sections = None
    if assessor_qrels:
        from ..report.assessor_section import report_sections

        sections = report_sections(qrels, runs, assessor_qrels, design=assessor_design.value,
                                   depth=depth, seed=seed, n_resamples=bootstrap,
                                   scheduler=scheduler, order=order.value)

    prefs = None
    if preferences is not None:  # read before the study: a bad row fails now, not after it
        from ..preferences.read import read_comparisons
        from ..report.preference_section import preference_section

        comparisons = read_comparisons(preferences, qrels, runs)

        def prefs(collection, study):
            return preference_section(collection, comparisons, seed=seed, starts=min(starts, 2))

    from ..report.design_section import report_planning

    planning = report_planning(qrels, runs, depth=depth, depths=tuple(depths) or None,
                               order=order.value)
    keep = planning.keep_depth(ks, baseline)

    def load():  # the planning section's depth study reuses the runs read here
        with scheduler_client(scheduler) as client:
            coll, kept = Collection.from_files_keeping(qrels, runs, keep, depth=depth,
                                                       client=client, order=order.value)
        planning.use(kept, keep)
        return coll
    _run(
        load, ks, output, sections=sections,
        informative=informative, selection={"min_relevant": min_relevant, "min_top": min_top},
        planning=planning, preferences=prefs,
        starts=starts, n_bootstrap=bootstrap, seed=seed, baseline=baseline, full=full,
        trust_card=trust_card,
    )


@app.command()
def demo(
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Directory of the report (default: a new temporary directory)."
    ),
    scheduler: str | None = SCHEDULER_OPTION,
) -> None:
    """Run `irstab report` on the bundled example collection (offline, under a minute).

    The example is synthetic: 12 systems x 30 topics, grades 0-3, runs to
    depth 100 (data/example/). Light settings: 1 random optimizer start,
    200 bootstrap samples.
    """
    from ..collection.cluster import scheduler_client
    from ..collection import Collection

    show_warnings_on_stderr()
    ex = example_dir()
    out = Path(tempfile.mkdtemp(prefix="irstab-demo-")) if output is None else output
    if (ex / "qrels.txt").is_file():
        from ..io import registry

        registry.register_input([ex / "qrels.txt", ex / "runs"])  # never written over or into
        registry.check_outputs()
        say(f"irstab demo: report on {ex}", err=True)

        def load():
            with scheduler_client(scheduler) as client:
                return Collection.from_files(ex / "qrels.txt", ex / "runs", depth=DEMO_DEPTH,
                                             client=client)

        sources = (ex / "qrels.txt", ex / "runs")
    else:  # installed without the repository: the example is seeded, simulate it again
        from ..simulate import EXAMPLE_PARAMS, simulate_collection

        say("irstab demo: report on the simulated example collection", err=True)

        sim = simulate_collection(**EXAMPLE_PARAMS)

        def load():
            return Collection.build(sim.qrels, sim.runs, depth=DEMO_DEPTH)

        sources = (sim.qrels, sim.runs)

    from ..report.design_section import report_planning

    _run(load, DEMO_CUTOFFS, out, planning=report_planning(*sources, depth=DEMO_DEPTH),
         **DEMO_SETTINGS)
