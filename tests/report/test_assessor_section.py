"""The assessor section of the report (library level)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import irstab.io as io
from irstab.assessors import assessor_collection
from irstab.errors import IRStabWarning
from irstab.report.assessor_section import assessor_section
from irstab.simulate import simulate_collection
from irstab.stability.facets import facet_gstudy


@pytest.fixture(scope="module")
def ac():
    sim = simulate_collection(n_systems=6, n_topics=8, depth=20, seed=9)
    f = sim.qrels.frame
    rng = np.random.default_rng(4)
    judges = {
        n: io.Qrels(n, f.assign(grade=np.clip(f["grade"] + rng.integers(-1, 2, len(f)), 0, 3)))
        for n in ("ann", "bob")
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        return assessor_collection(io.Qrels("nist.txt", f), sim.runs, judges)


def test_section_numbers_are_the_gstudy(ac):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        sec = assessor_section(ac, ["nDCG@10", "AP"], n_resamples=50)
        long = ac.scores("AP").drop(columns="measure")
        g = facet_gstudy(long, "nested")
    rows = {r["measure"]: r for r in sec.data["measures"]}
    assert rows["AP"]["phi"] == pytest.approx(g.phi())
    assert rows["AP"]["var_sa:t"] == pytest.approx(g.component("sa:t"))
    assert sec.data["assessors"] == ["nist", "ann", "bob"]
    assert "## Who judged?" in sec.markdown and "| measure |" in sec.markdown
    assert "<h2>Who judged?" in sec.html and "data:image/png;base64," in sec.html
    assert sec.figure_png[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"figures/{sec.figure_name}.png" in sec.markdown
