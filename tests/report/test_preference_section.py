"""The report's section "Stable and valid": its numbers are the library's (the front and the
cross-fitted agreement computed here independently of the section), simulated preferences say
so, report.md / report.html / report.json and the figure carry it, and the page reads at 1400
and 800 px in Chromium (no horizontal overflow; the figure fits the column). Preferences here
are SIMULATED (irstab.preferences.simulated), none real."""

from __future__ import annotations

import json
import warnings

import pytest

import irstab
from irstab.preferences.fit import cross_fit_agreement
from irstab.preferences.front import agreement_front
from irstab.preferences.simulated import simulated_comparisons
from irstab.report.preference_section import TITLE, preference_section
from irstab.report.render import write_report
from irstab.report.study import run_study

SETTINGS = {"starts": 0, "n_bootstrap": 50, "tol": 1e-3, "seed": 0}


@pytest.fixture(scope="module")
def setup():
    sim = irstab.simulate.simulate_collection(n_systems=8, n_topics=12, depth=30, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.build(sim.qrels, sim.runs, depth=30)
    prefs = simulated_comparisons(coll, 10, per_topic=10, topics=range(9), seed=3)
    sec = preference_section(coll, prefs, folds=3, starts=0, points=4)
    return coll, prefs, sec


def test_numbers_are_the_librarys(setup):
    coll, prefs, sec = setup
    cf = cross_fit_agreement(prefs, cutoff=10, max_grade=coll.max_grade, folds=3, starts=0)
    assert sec.data["fit"]["cross_fitted"] == cf.cross_fitted.to_dict()
    assert sec.data["fit"]["optimum"]["measure"] == cf.optimum.measure_string
    front = agreement_front(coll, prefs, 10, points=4, starts=0)
    got = [(p["label"], p["phi1"], p["on_front"]) for p in sec.data["front"]["points"]]
    assert got == [(p.label, p.phi, p.on_front) for p in front.points]
    assert sec.data["simulated"] is True and sec.data["front"]["shared_topics"] == 9


def test_simulated_preferences_say_so_first(setup):
    _, _, sec = setup
    body = sec.markdown.split("\n\n", 1)[1]
    assert body.startswith("These preferences are SIMULATED")
    assert "SIMULATED" in sec.html and "(simulated preferences)" in sec.markdown
    assert sec.figure_png[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def written(setup, tmp_path_factory):
    coll, _, sec = setup
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = run_study(coll, (10,), **SETTINGS)
    out = tmp_path_factory.mktemp("report")
    write_report(study, out, (sec,))
    return out


def test_report_files_carry_the_section(written):
    assert (written / "figures" / "preferences-front.png").stat().st_size > 10_000
    assert f"## {TITLE}" in (written / "report.md").read_text()
    data = json.loads((written / "report.json").read_text())
    assert data["preferences"]["simulated"] is True
    assert 'id="preferences"' in (written / "report.html").read_text()


@pytest.mark.parametrize("width", [1400, 800])
def test_section_reads_at_both_widths(written, chromium, width):
    page = chromium.new_page(viewport={"width": width, "height": 1000})
    try:
        page.goto((written / "report.html").as_uri(), timeout=30_000)
        sec = page.locator("#preferences")
        assert sec.count() == 1
        box = page.evaluate("""() => {
            const s = document.querySelector('#preferences');
            const img = s.querySelector('img');
            return {scroll: document.documentElement.scrollWidth,
                    client: document.documentElement.clientWidth,
                    img: img.getBoundingClientRect().width, natural: img.naturalWidth,
                    right: img.getBoundingClientRect().right};
        }""")
        assert box["scroll"] <= box["client"]  # nothing overflows sideways
        assert box["natural"] > 0 and box["right"] <= width
        # drawn at least 700 px wide at both widths: 8 pt text stays above 8 px
        assert box["img"] >= 700
    finally:
        page.close()


def test_presets_on_the_held_out_front_are_the_librarys(setup):
    import numpy as np

    from irstab.preferences.front import non_dominated
    from irstab.preferences.front_crossfit import cross_fit_front

    coll, prefs, sec = setup
    fcf = cross_fit_front(coll, prefs, 10, folds=3, points=4, starts=0)
    presets = fcf.front.presets
    phi = np.r_[fcf.phi, [p.phi for p in presets]]
    rate = np.r_[[a.half_rate for a in fcf.agreement], [p.agreement.half_rate for p in presets]]
    on = non_dominated(phi, rate)[len(fcf.labels):]
    assert sec.data["presets_on_the_held_out_front"] == [p.label for p, o in zip(presets, on)
                                                         if o]
    assert sec.data["front_cross_fitted"] == fcf.to_dict()
