"""Judges as a G-theory facet (irstab.judges.facet).

Oracles: ``irstab assessors`` on the same input (the judge facet must equal it to 1e-12: on
the DL-2019 re-annotation, nested, and on simulated judges of every topic, crossed); the
fixed-judges coefficients recomputed here from the components by Brennan's mixed-model
formulas; Hypothesis for Phi(fixed) >= Phi(random).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab.cli
import irstab.io as io
from assessor_data import noisy_qrels
from irstab.errors import IRStabError, IRStabWarning
from irstab.judges.facet import fixed_coefficients, judge_facet
from irstab.simulate import simulate_collection
from irstab.stability.facets import facet_gstudy

REANNOTATION = Path(__file__).resolve().parents[2].parent / "shared" / "data" \
    / "trec-dl-2019-reannotation" / "main"


def cli_json(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return {r["measure"]: r for r in json.loads(out)}


def assert_equal_to_assessors(facet, rows):
    for s in facet.studies:
        r = rows[s.measure]
        assert r["design"] == s.design.value
        ours = dict(zip(s.study.sources, s.study.variance))
        assert set(ours) == set(r["variance"])
        for k, v in ours.items():
            assert v == pytest.approx(r["variance"][k], abs=1e-12, rel=0)
        assert s.phi_random() == pytest.approx(r["phi"], abs=1e-12, rel=0)
        assert s.erho2_random() == pytest.approx(r["erho2"], abs=1e-12, rel=0)
        assert s.study.n_assessors == pytest.approx(r["n_assessors"], abs=1e-12)


def test_dl2019_reannotation_equals_irstab_assessors(capsys, dl2019_dir):
    if not REANNOTATION.is_dir():
        pytest.skip(f"DL-2019 re-annotation not found at {REANNOTATION}")
    runs = sorted((dl2019_dir / "runs").iterdir())[::4]  # 10 of the 37 runs keep it fast
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        facet = judge_facet(dl2019_dir / "qrels.txt", REANNOTATION, runs, ["nDCG@10", "AP"])
    # NIST on every topic, each re-annotator on its pair's topics: not crossed
    assert all(s.design.value == "nested" for s in facet.studies)
    assert facet.judges[0] == "qrels" and "froebe" in facet.judges and len(facet.judges) == 9
    assert all(s.phi_fixed() is None for s in facet.studies)  # judges nested in random topics
    assert all(len(s.judges) == 9 for s in facet.studies)
    rows = cli_json(capsys, "assessors", dl2019_dir / "qrels.txt", *runs, "-a", REANNOTATION,
                    "-m", "nDCG@10", "-m", "AP", "--design", "nested", "-B", "0", "-f", "json")
    assert_equal_to_assessors(facet, rows)
    f = facet.to_frame()
    assert list(f["measure"]) == ["nDCG@10", "AP"]
    assert (f["pct_judge_total"] >= f["pct_system_x_judge"]).all()


@pytest.fixture(scope="module")
def crossed_dir(tmp_path_factory):
    """A simulated collection and three noisy judges of every document of every topic."""
    sim = simulate_collection(n_systems=6, n_topics=8, depth=30, seed=4)
    d = tmp_path_factory.mktemp("judges")
    f = sim.qrels.frame
    io.write_qrels(d / "nist.txt", f["topic"], f["docid"], f["grade"])
    (d / "judges").mkdir()
    for name, q in noisy_qrels(f, ["llm-a", "llm-b", "crowd"], seed=7).items():
        g = q.frame
        io.write_qrels(d / "judges" / f"{name}-qrels.txt", g["topic"], g["docid"], g["grade"])
    (d / "runs").mkdir()
    for r in sim.runs:
        f = r.frame.sort_values(["topic", "score"], ascending=[True, False], kind="stable")
        io.write_run(d / "runs" / r.name, r.name, f["topic"], f["docid"], f["score"])
    return d, sim


def test_crossed_judges_equal_irstab_assessors_and_fixed_phi(capsys, crossed_dir):
    d, sim = crossed_dir
    runs = sorted((d / "runs").iterdir())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        facet = judge_facet(d / "nist.txt", d / "judges", runs, ["nDCG@10", "P@10"])
    assert all(s.design.value == "crossed" for s in facet.studies)
    assert set(facet.judges) == {"nist", "llm-a", "llm-b", "crowd"}
    rows = cli_json(capsys, "assessors", d / "nist.txt", *runs, "-a", d / "judges",
                    "-m", "nDCG@10", "-m", "P@10", "--design", "crossed", "-B", "0", "-f", "json")
    assert_equal_to_assessors(facet, rows)
    s = facet["nDCG@10"]
    c = dict(zip(s.study.sources, s.study.components))
    n_t, n_j = 8, 4
    # Brennan's mixed model, judges fixed at the study's 4 (written out here)
    tau = c["s"] + c["sa"] / n_j
    delta = c["st"] / n_t + c["sta"] / (n_t * n_j)
    Delta = delta + c["t"] / n_t + c["ta"] / (n_t * n_j)
    assert s.phi_fixed() == pytest.approx(tau / (tau + Delta), rel=1e-12)
    assert s.erho2_fixed() == pytest.approx(tau / (tau + delta), rel=1e-12)
    assert s.phi_fixed(50) == pytest.approx(
        tau / (tau + (c["st"] + c["t"]) / 50 + (c["sta"] + c["ta"]) / (50 * n_j)), rel=1e-12)
    assert s.phi_fixed() >= s.phi_random()
    grid = s.dstudy([10, 20, 40], [1, 2, 4])
    assert len(grid) == 9
    own = grid[grid["n_judges"] == 4]
    np.testing.assert_allclose(own["phi_fixed"], s.phi_fixed(np.array([10, 20, 40])),
                               rtol=1e-12)
    assert grid[grid["n_judges"] != 4]["phi_fixed"].isna().all()
    np.testing.assert_allclose(grid["phi_random"],
                               [s.phi_random(t, j) for t in (10, 20, 40) for j in (1, 2, 4)],
                               rtol=1e-12)
    doc = facet.to_dict()
    assert set(doc["measures"][0]["judges"]) == set(facet.judges)
    assert doc["measures"][0]["phi_fixed"] == pytest.approx(facet.studies[0].phi_fixed())
    assert len(facet.dstudy([10], [1, 4])) == 4


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(2, 5), st.integers(2, 4))
def test_fixed_judges_are_at_least_as_dependable(seed, n_s, n_t, n_j):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n_s, 1, 1)) + rng.normal(size=(1, n_t, 1))
         + rng.normal(size=(1, 1, n_j)) + rng.normal(size=(n_s, 1, n_j))
         + rng.normal(size=(n_s, n_t, n_j)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        g = facet_gstudy(x, "crossed")
    e, p = fixed_coefficients(g)
    assert 0.0 <= p <= e <= 1.0 + 1e-12
    assert p >= g.phi() - 1e-12
    for t in (1, 10, 100):
        assert fixed_coefficients(g, t)[1] >= g.phi(t, n_j) - 1e-12


def test_bad_input_gets_located_errors(crossed_dir, tmp_path):
    d, _ = crossed_dir
    runs = sorted((d / "runs").iterdir())
    one = d / "judges" / "crowd-qrels.txt"
    with pytest.raises(IRStabError, match="judge_qrels: a judge facet needs at least two"):
        judge_facet(d / "nist.txt", [one], runs, include_gold=False)
    with pytest.raises(IRStabError, match="design"):
        judge_facet(d / "nist.txt", [one], runs, design="diagonal")
    with pytest.raises(IRStabError, match="no such assessor qrels"):
        judge_facet(d / "nist.txt", [tmp_path / "absent.txt"], runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        facet = judge_facet(d / "nist.txt", [one], runs)
    with pytest.raises(IRStabError, match="n_topics"):
        facet.studies[0].phi_fixed(0)
    with pytest.raises(IRStabError, match="n_topics, n_judges"):
        facet.dstudy([], [1])
    with pytest.raises(IRStabError, match="measure"):
        facet["AP"]


def _pair_judges(nist_path, out_dir):
    """Two judge sets of every DL-2019 topic: per topic the first (second) re-annotator of
    its pair, in name order, and NIST's grade on the documents that one did not judge."""
    import pandas as pd

    cols = ["topic", "q0", "docid", "grade"]
    read = (lambda p: pd.read_csv(p, sep=r"\s+", header=None, names=cols, dtype=str))
    nist = read(nist_path)
    ann = {p.name.removesuffix("-qrels.txt"): read(p) for p in sorted(REANNOTATION.iterdir())}
    by_topic = {}
    for name, f in ann.items():
        for t in f["topic"].unique():
            by_topic.setdefault(t, []).append(name)
    paths = []
    for k, which in enumerate(("first", "second")):
        own = pd.concat([ann[names[min(k, len(names) - 1)]].query("topic == @t")
                         for t, names in sorted(by_topic.items())], ignore_index=True)
        key = nist["topic"] + " " + nist["docid"]
        merged = pd.concat([nist[~key.isin(set(own["topic"] + " " + own["docid"]))], own])
        p = out_dir / f"{which}-qrels.txt"
        merged.to_csv(p, sep=" ", header=False, index=False)
        paths.append(p)
    return paths


def test_dl2019_judges_of_every_topic_are_crossed_and_equal_irstab_assessors(
        capsys, dl2019_dir, tmp_path):
    if not REANNOTATION.is_dir():
        pytest.skip(f"DL-2019 re-annotation not found at {REANNOTATION}")
    judges = tmp_path / "judges"
    judges.mkdir()
    _pair_judges(dl2019_dir / "qrels.txt", judges)
    runs = sorted((dl2019_dir / "runs").iterdir())[::4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        facet = judge_facet(dl2019_dir / "qrels.txt", judges, runs, ["nDCG@10"])
    (s,) = facet.studies
    # every judge labels all 43 topics: crossed (a cell without a relevant document is left
    # out, so unbalanced: Henderson's method 1)
    assert s.design.value == "crossed" and s.study.method == "henderson1"
    assert set(s.judges) == {"qrels", "first", "second"}
    rows = cli_json(capsys, "assessors", dl2019_dir / "qrels.txt", *runs, "-a", judges,
                    "-m", "nDCG@10", "--design", "crossed", "-B", "0", "-f", "json")
    assert_equal_to_assessors(facet, rows)
    assert s.phi_fixed() >= s.phi_random()
