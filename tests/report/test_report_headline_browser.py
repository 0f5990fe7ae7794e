"""The report leads with its answer, at 1400 and 800 px, in Debian's chromium (Playwright).

Screenshots of both widths are taken (kept under the test's tmp directory, and copied to
$IRSTAB_SCREENSHOTS when that is set, for a person to look at). Checked: the headline is
the first thing of the first section and within the first screen; three bullets follow;
the full verdict is folded; the candidates table says which columns it hides where it
hides them; the figures this layout changed keep their smallest text (7 pt at
:data:`irstab.report.study_figures.DPI`) at 8 px or more. Figure-level checks (the
D-study's zoom, the budget legend beside the curves) run without a browser.
"""

from __future__ import annotations

import os
import shutil
import warnings

import numpy as np
import pytest

import irstab
from irstab.report.render import write_report
from irstab.report.study import run_study
from irstab.report.study_figures import DPI

SMALLEST_PT = 7  # the smallest font size the report's figures use


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=12, depth=20, seed=4)
    coll = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = run_study(coll, (5, 10, 20), starts=0, n_bootstrap=50, seed=1, tol=1e-3)
    return study, write_report(study, tmp_path_factory.mktemp("headline"))


PROBE = """() => {
  const sec = document.querySelector('section');
  const first = sec.querySelector('.rec').firstElementChild;
  const items = Array.from(sec.querySelectorAll('.rec > ul > li')).map(li => li.textContent);
  const det = sec.querySelector('.rec > details');
  const note = document.querySelector('.narrow-note');
  const figs = {};
  document.querySelectorAll('figure img').forEach(img => {
    figs[img.alt.slice(0, 40)] = img.clientWidth / img.naturalWidth; });
  const disc = Array.from(document.querySelectorAll('figure img'))
    .filter(img => img.alt.startsWith('Optimal discount'))[0];
  return {section: sec.id, tag: first.tagName, cls: first.className, text: first.textContent,
          top: first.getBoundingClientRect().top, items: items, folded: det && !det.open,
          summary: det && det.querySelector('summary').textContent,
          note: note && getComputedStyle(note).display, noteText: note && note.textContent,
          disc: disc ? disc.clientWidth / disc.naturalWidth : null,
          scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth};
}"""


@pytest.mark.parametrize("width", [1400, 800])
def test_headline_first_at_both_widths(report, chromium, tmp_path, width):
    study, files = report
    page = chromium.new_page(viewport={"width": width, "height": 1000})
    try:
        page.goto(files.html.as_uri())
        page.wait_for_load_state("load")
        r = page.evaluate(PROBE)
        shot = tmp_path / f"report-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
    finally:
        page.close()
    if os.environ.get("IRSTAB_SCREENSHOTS"):
        shutil.copy(shot, os.environ["IRSTAB_SCREENSHOTS"])
    assert shot.read_bytes().startswith(b"\x89PNG")
    rec = study.recommendation
    want = "Use " if rec.change else f"Keep {irstab.report.candidates.display_name(rec.baseline)}"
    assert r["section"] == "verdict" and r["tag"] == "P" and r["cls"] == "headline"
    assert r["text"].startswith(want), r["text"]
    assert r["top"] < 400  # on the first screen, under the title and the intro
    assert len(r["items"]) == 3 and r["items"][0].startswith("Stability")
    assert r["folded"] and "verdict in full" in r["summary"]
    assert r["scroll"] <= r["width"]
    # the candidates table hides columns below 900 px, and says so exactly then
    assert r["note"] == ("block" if width < 900 else "none")
    assert "95 % CI" in r["noteText"] and "hidden" in r["noteText"]
    # three discount panels: the smallest text stays at 8 px or more
    assert r["disc"] is not None
    assert r["disc"] * SMALLEST_PT * DPI / 72 >= 8.0, r["disc"]


def test_markdown_leads_with_the_headline(report):
    study, files = report
    md = files.markdown.read_text()
    verdict = md.split("## Verdict", 1)[1].lstrip("\n").splitlines()
    assert verdict[0].startswith("**Keep ") or verdict[0].startswith("**Use ")
    assert [line[:2] for line in verdict[2:5]] == ["- ", "- ", "- "]
    assert study.recommendation.text[:40] in md  # the full verdict is still there


def _dstudies(scale_topics: float):
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.2, (20, 1)) + rng.normal(0, 0.05, (20, 300))
    grid = np.unique(np.linspace(1, 900, 160).round())
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, cols in enumerate((300, 250)):
            y = x[:, :cols] + rng.normal(0, 0.02 * scale_topics, (20, cols))
            out.append(irstab.gstudy(y, name=f"m{k}").dstudy(grid))
    return out


def test_dstudy_zooms_where_every_curve_is_above_095():
    from irstab.report.figures import plot_dstudy

    ds = _dstudies(1.0)
    assert all(d.phi[int(np.argmin(np.abs(np.array(d.n_topics) - d.n_topics_observed)))] > 0.95
               for d in ds)
    ax = plot_dstudy(ds, targets=(0.9, 0.95)).axes[0]
    lo, hi = ax.get_ylim()
    assert lo > 0.99 and hi == 1.0  # the curves are told apart in the 4th digit
    assert "zoomed" in ax.get_title()
    assert ax.get_xlim()[0] == pytest.approx(300 / 4)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert all(lab.endswith(")") and len(lab.split("(")[-1]) == 7 for lab in labels)  # 4 digits


def test_dstudy_keeps_the_full_axis_otherwise():
    from irstab.report.figures import plot_dstudy

    x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    ax = plot_dstudy([irstab.gstudy(x).dstudy(np.arange(1, 60))]).axes[0]
    assert ax.get_ylim() == (0.0, 1.0) and "zoomed" not in ax.get_title()


def test_budget_legend_sits_below_the_curves():
    import pandas as pd

    from irstab.design import budget_plan, depth_study
    from irstab.report.design_figures import plot_budget_frontier

    sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=15, depth=100, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = depth_study(sim.qrels, sim.runs, ["nDCG@10"], (5, 10, 20, 50, 100))
        plan = budget_plan(study, "nDCG@10", 2000)
        fig = plot_budget_frontier(plan, study=study)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    axes = ax.get_window_extent()
    assert legend.y1 <= axes.y0  # below the axes: it covers no curve
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"depth 50", "depth 100"}
    assert isinstance(plan.frontier, pd.DataFrame)
