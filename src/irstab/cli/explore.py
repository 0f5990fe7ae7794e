"""``irstab explore``: the live what-if page of nDCG's gain, discount and cutoff."""

from __future__ import annotations

from pathlib import Path

import typer

from .typer_app import app
from ._common import (
    ORDER_OPTION, REL_OPTION, SCHEDULER_OPTION, RankOrderChoice, progress_bar, say,
    show_warnings_on_stderr,
)


@app.command()
def explore(
    qrels: Path = typer.Argument(..., help="TREC qrels file (topic iter docid grade), .gz ok."),
    runs: list[Path] = typer.Argument(
        ..., help="TREC run files and/or directories of run files; - reads one run from stdin."
    ),
    output: Path = typer.Option(
        Path("explore.html"), "--output", "-o", help="The page to write (one HTML file)."
    ),
    cutoff: int = typer.Option(
        100, "--cutoff", "-k", min=1,
        help="Largest cutoff the page offers (the page grows with it: about 0.3 MB at 100 on "
        "TREC DL 2019).",
    ),
    baseline: str = typer.Option(
        "nDCG@10", "--baseline",
        help="The measure every configuration is compared with (any measure; the page starts "
        "at it when it is an nDCG within --cutoff).",
    ),
    measure: list[str] = typer.Option(
        [], "--measure", "-m",
        help="nDCG configurations offered one click away besides the baseline and the optima; "
        "repeatable or comma-separated: canonical strings ('nDCG(gain=exp,discount=zipf)@20'), "
        "named measures ('mine=nDCG(discount=flat)@5') or @opt.json (a result of irstab "
        "optimize --save).",
    ),
    rel: int | None = REL_OPTION,
    optimize: bool = typer.Option(
        True, "--optimize/--no-optimize",
        help="Find the stability-optimal discount, gain and joint configurations at 10, 20 and "
        "--cutoff (Kanoulas & Aslam, CIKM 2009; from the preset starts, a few seconds) and offer "
        "them one click away; a wider search: irstab optimize --starts N --save opt.json, then "
        "-m @opt.json.",
    ),
    depth: int = typer.Option(1000, "--depth", "-M", help="Ranks kept per topic (trec_eval -M)."),
    drop_worst: float = typer.Option(
        0.0, "--drop-worst",
        help="Leave out this bottom fraction of systems by mean baseline score at the start "
        "(the page can bring them back).",
    ),
    confidence: float = typer.Option(
        0.95, "--confidence",
        help="Two-sided confidence of the interval of the difference in Phi (the two-facet "
        "jackknife of compare --baseline; no draws).",
    ),
    scheduler: str | None = SCHEDULER_OPTION,
    order: RankOrderChoice = ORDER_OPTION,
) -> None:
    """A page where you drag nDCG's gain, discount and cutoff and watch stability follow.

    Writes one self-contained HTML file (no server, no network; it opens from disk
    and can be mailed). Its controls: a slider per grade for the gain (presets
    linear and exp), the discount as a family with its parameter (log2, log base b,
    Zipf exponent, geometric p, linear, flat) or as free points drawn on its curve,
    the cutoff, the presets (the baseline, -m measures, the optimal configurations),
    and topics and systems to leave out. On every change the page recomputes the
    measure's canonical string (it pastes into `irstab evaluate -m`), the variance
    components, Phi and Erho2, the topics needed for Phi = 0.90 and 0.95, the
    D-study curve against the baseline's, the system ranking with Kendall's tau to
    the baseline's and the pairs that swapped, and the difference in Phi to the
    baseline with the interval of `irstab compare --baseline` (the two-facet
    jackknife of the G-study with Student's t at Satterthwaite's degrees of
    freedom, the facets' parts deflated; recomputed exactly in the page: no
    draws). Scripts drive it
    with window.irstabExplorer.set({gain, discount, cutoff}) and .state().
    """
    from ..collection import Collection
    from ..collection.cluster import scheduler_client
    from ..errors import IRStabError
    from ..metrics import resolve_measures
    from ..report.explorer import explorer_page, write_explorer
    from ._common import wall_seconds

    import warnings

    show_warnings_on_stderr()
    presets = resolve_measures(measure, rel) if measure else []
    base = resolve_measures(baseline, rel)
    if len(base) != 1:
        raise IRStabError(f"--baseline: names {len(base)} measures; give one")
    if cutoff > depth:
        raise IRStabError(f"--cutoff {cutoff} is beyond --depth {depth}; raise --depth")
    with progress_bar() as progress:
        task = progress.add_task("reading qrels and runs", total=None)
        with warnings.catch_warnings(record=True) as caught:  # shown on stderr and on the page
            warnings.simplefilter("always")
            with scheduler_client(scheduler) as client:
                coll = Collection.from_files(qrels, runs, depth=depth, client=client,
                                             order=order.value)
        notes = tuple(dict.fromkeys(str(w.message) for w in caught))
        page = explorer_page(
            coll, cutoff=cutoff, baseline=base[0], presets=presets,
            optimize_at=None if optimize else (), confidence=confidence,
            drop_worst=drop_worst, title=_title(qrels), notes=notes,
            progress=lambda step: progress.update(task, description=step),
        )
        progress.update(task, description="writing the page")
        write_explorer(page, output)
    for n in notes:
        say(f"irstab: warning: {n}", err=True)
    c = page.data["collection"]
    say(f"explorer written to {output} ({page.nbytes / 1e6:.1f} MB; {len(c['systems'])} "
        f"systems x {len(c['topics'])} topics, cutoffs up to {c['cutoff_max']}, "
        f"{len(page.data['presets'])} presets); open it in a browser")
    say(f"({wall_seconds():.1f} s wall time)", err=True)


def _title(qrels: Path) -> str:
    """What the page calls the collection: the qrels file's folder (or the file's stem)."""
    parent = qrels.resolve().parent.name
    return parent or qrels.stem
