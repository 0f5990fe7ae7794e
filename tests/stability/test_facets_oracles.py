"""Three-facet G-study (s x t x a, s x (a:t)) against independent oracles."""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from brennan_data import SYNTHETIC_4
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import DegenerateDataError, IRStabError, IRStabWarning
from irstab.stability.designs import ems_components, henderson1_components
from irstab.stability.facets import facet_gstudy

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
DL2019 = SHARED / "trec-dl-2019-passage"
REANNOTATION = SHARED / "trec-dl-2019-reannotation"

# Brennan (2001), Synthetic Data Set No. 4 (raw data: Table 3.2, transcribed in
# brennan_data.py) analysed as a p x (r:t) design, 10 persons, 3 tasks, 4 raters
# nested in each task; Brennan's published G-study components (quoted in issue 15):
BRENNAN_NESTED = {"s": 0.4731, "t": 0.3252, "a:t": 0.6475, "st": 0.5596, "sa:t": 2.3802}


def brennan_long() -> pd.DataFrame:
    """Long form of Synthetic Data Set No. 4: columns 1-4 task 1, 5-8 task 2, 9-12 task 3."""
    x = SYNTHETIC_4.reshape(10, 3, 4)
    s, t, a = np.meshgrid(range(10), range(3), range(4), indexing="ij")
    return pd.DataFrame(
        {
            "system": [f"p{i}" for i in s.ravel()],
            "topic": [f"t{i}" for i in t.ravel()],
            "assessor": [f"r{i}" for i in (t * 4 + a).ravel()],
            "score": x.ravel(),
        }
    )


# ------------------------------------------------------------- Brennan nested


@pytest.mark.parametrize("method", ["ems", "henderson1"])
def test_brennan_synthetic_4_nested_components(method):
    g = facet_gstudy(brennan_long(), "nested", method=method)
    assert g.sources == tuple(BRENNAN_NESTED)
    for src, published in BRENNAN_NESTED.items():
        assert g.component(src) == pytest.approx(published, abs=5e-4), src
    assert g.n_assessors == 4


def test_brennan_synthetic_4_nested_coefficients():
    g = facet_gstudy(brennan_long(), "nested")
    c = {k: g.component(k) for k in BRENNAN_NESTED}
    # Closed form (Brennan 2001, §4.3) for n'_t = 3, n'_r = 4:
    rel = c["st"] / 3 + c["sa:t"] / 12
    ab = rel + c["t"] / 3 + c["a:t"] / 12
    assert g.erho2() == pytest.approx(c["s"] / (c["s"] + rel), rel=1e-12)
    assert g.phi() == pytest.approx(c["s"] / (c["s"] + ab), rel=1e-12)
    # Rounded values with the published components: .4731/(.4731+.3849) = .551, .464
    assert round(g.erho2(), 3) == 0.551
    assert round(g.phi(), 3) == 0.464
    # degrees of freedom of p x (r:t), closed form: n_p-1, n_t-1, n_t(n_r-1),
    # (n_p-1)(n_t-1), (n_p-1)n_t(n_r-1) = 9, 2, 9, 18, 81
    assert g.df == (9, 2, 9, 18, 81)


def test_brennan_as_array_equals_long_form():
    a = facet_gstudy(SYNTHETIC_4.reshape(10, 3, 4), "nested")
    b = facet_gstudy(brennan_long(), "nested")
    np.testing.assert_allclose(a.variance, b.variance, rtol=1e-12)


def test_unbalanced_nested_matches_generalizit():
    """Henderson's method 1 on Brennan's data with one rating removed vs GeneralizIT."""
    generalizit = pytest.importorskip("generalizit")
    long = brennan_long()
    long = long[long["assessor"] != "r3"].reset_index(drop=True)  # task 1 keeps 3 raters
    g = facet_gstudy(long, "nested")
    assert g.method == "henderson1"
    ref = _generalizit(generalizit, long, "p x (r:t)", nested=True)
    np.testing.assert_allclose(g.variance, ref, atol=1e-4)  # GeneralizIT rounds to 4 digits


def test_unbalanced_crossed_matches_generalizit():
    """Henderson's method 1, crossed s x t x a, cells missing at random and a run missing a topic."""
    generalizit = pytest.importorskip("generalizit")
    long = brennan_long()
    # Brennan's 4 raters per task read as the same 4 raters in every task (crossed)
    long["assessor"] = "r" + (long["assessor"].str[1:].astype(int) % 4).astype(str)
    long = long.drop([5, 17, 60, 61, 62])
    long = long[~((long["system"] == "p3") & (long["topic"] == "t2"))].reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)  # sigma2_a, sigma2_sa < 0 here
        g = facet_gstudy(long, "crossed")
    assert g.method == "henderson1"
    ref = _generalizit(generalizit, long, "p x t x r", nested=False)
    np.testing.assert_allclose(g.variance, ref, atol=1e-4)  # GeneralizIT rounds to 4 digits


def test_reml_equals_ems_on_balanced_data_and_differs_when_unbalanced():
    """statsmodels' REML (MixedLM, crossed variance components) as the independent estimator.

    Balanced, with no negative ANOVA estimate, REML and the EMS solution are the same
    (Searle, Casella & McCulloch, Variance Components, 1992, ch. 6); unbalanced they are
    different estimators (the designs module docstring), so Henderson's method 1 need not
    equal REML.
    """
    smf = pytest.importorskip("statsmodels.formula.api")
    vc = {"s": "0 + C(system)", "t": "0 + C(topic)", "a:t": "0 + C(assessor)",
          "st": "0 + C(st)"}

    def reml(long):
        d = long.assign(group=1, st=long["system"] + "/" + long["topic"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = smf.mixedlm("score ~ 1", d, groups="group", vc_formula=vc,
                              re_formula="0").fit(reml=True)
        comp = dict(zip(fit.model.exog_vc.names, fit.vcomp))
        return np.array([comp["s"], comp["t"], comp["a:t"], comp["st"], fit.scale])

    long = brennan_long()  # assessor labels r0..r11 are unique per task: nested
    ems = np.array(facet_gstudy(long, "nested").variance)
    np.testing.assert_allclose(reml(long), ems, atol=2e-4)  # optimiser tolerance
    unbalanced = long.drop([5, 17, 60]).reset_index(drop=True)
    h1 = np.array(facet_gstudy(unbalanced, "nested").variance)
    assert np.abs(reml(unbalanced) - h1).max() > 10 * 2e-4


def _generalizit(module, long: pd.DataFrame, design: str, nested: bool, scale: float = 1.0):
    df = pd.DataFrame(
        {
            "p": long["system"].to_numpy(),
            "t": long["topic"].to_numpy(),
            "r": (long["topic"] + "/" + long["assessor"]).to_numpy()
            if nested
            else long["assessor"].to_numpy(),
            "score": long["score"].to_numpy() * scale,
        }
    )
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gt = module.GeneralizIT(df, design, "score")
        gt.calculate_anova()
    var = gt.design.anova_table["Variance"]
    order = (
        ["p", "t", "r:t", "p x t", "p x (r:t)"]
        if nested
        else ["p", "t", "r", "p x t", "p x r", "t x r", "p x t x r"]
    )
    return var.loc[order].to_numpy(dtype=float) / scale**2


# ------------------------------------------------------------- real data


def _dl_scores(which: str, measure: str, include_base: bool) -> pd.DataFrame:
    if not (REANNOTATION / which).is_dir() or not (DL2019 / "qrels.txt").is_file():
        pytest.skip("DL-2019 re-annotation data not found")
    from irstab.collection.assessors import assessor_scores

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        return assessor_scores(
            DL2019 / "qrels.txt",
            DL2019 / "runs",
            REANNOTATION / which,
            measure,
            include_base=include_base,
        )


def test_calibration_round_crossed_matches_generalizit():
    """Crossed s x t x a on the fully crossed calibration round (37 x 3 x 8)."""
    generalizit = pytest.importorskip("generalizit")
    long = _dl_scores("agreement-round", "nDCG@10", include_base=False)
    assert long.groupby(["topic", "assessor"]).ngroups == 3 * 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        g = facet_gstudy(long, "crossed")
    assert g.method == "ems" and g.n_assessors == 8
    # GeneralizIT rounds components to 4 decimals: scores x100 scale them by 1e4.
    ref = _generalizit(generalizit, long, "p x t x r", nested=False, scale=100.0)
    np.testing.assert_allclose(g.variance, ref, atol=1e-8)


def test_reannotation_nested_unbalanced_matches_generalizit():
    """The real nested design: 43 topics, NIST + a pair (all eight on one topic)."""
    generalizit = pytest.importorskip("generalizit")
    long = _dl_scores("main", "nDCG@10", include_base=True)
    g = facet_gstudy(long, "nested")
    per_topic = long.groupby("topic")["assessor"].nunique()
    # README: topic 168216 judged by all eight (+ NIST); pairs elsewhere.
    assert per_topic.max() == 9 and (per_topic == 9).sum() == 1 and per_topic.min() >= 2
    assert g.method == "henderson1" and g.n_topics == 43
    ref = _generalizit(generalizit, long, "p x (r:t)", nested=True, scale=100.0)
    np.testing.assert_allclose(g.variance, ref, atol=1e-8)


# ------------------------------------------------------------- invariants


@settings(max_examples=30, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(2, 5),
    st.integers(2, 4),
    st.sampled_from(["crossed", "nested"]),
    st.integers(0, 2**32 - 1),
)
def test_henderson_equals_ems_on_balanced_data(n_s, n_t, n_a, design, seed):
    x = np.random.default_rng(seed).normal(size=(n_s, n_t, n_a))
    s, t, a = (c.ravel() for c in np.meshgrid(range(n_s), range(n_t), range(n_a), indexing="ij"))
    h = henderson1_components(x.ravel(), {"s": s, "t": t, "a": a}, design)[0]
    np.testing.assert_allclose(h, ems_components(x, design), rtol=1e-8, atol=1e-10)


def test_two_facet_design_layer_equals_gstudy():
    from irstab.stability import gstudy

    g = gstudy(SYNTHETIC_4)
    comp = ems_components(SYNTHETIC_4, "crossed", n_facets=2)
    np.testing.assert_allclose(comp, [g.var_system, g.var_topic, g.var_residual], rtol=1e-12)
    s, t = (c.ravel() for c in np.meshgrid(range(10), range(12), indexing="ij"))
    h = henderson1_components(SYNTHETIC_4.ravel(), {"s": s, "t": t}, "crossed")[0]
    np.testing.assert_allclose(h, comp, rtol=1e-10)


TRUE = {
    "crossed": np.array([0.5, 0.3, 0.2, 0.4, 0.25, 0.15, 1.0]),  # s t a st sa ta sta
    "nested": np.array([0.5, 0.3, 0.2, 0.4, 1.0]),  # s t a:t st sa:t
}


def _simulate(design, rng, reps, n_s, n_t, n_a):
    """Scores with known components: a sum of independent normal effects."""
    c = TRUE[design]
    shape = (reps, n_s, n_t, n_a)
    dims = {"s": 1, "t": 2, "a": 3}
    labels = ["s", "t", "a", "st", "sa", "ta", "sta"] if design == "crossed" else ["s", "t", "at", "st", "sta"]
    x = np.zeros(shape)
    for var, lab in zip(c, labels):
        eshape = [reps, 1, 1, 1]
        for f in lab:
            eshape[dims[f]] = shape[dims[f]]
        x += rng.normal(scale=np.sqrt(var), size=eshape)
    return x


@pytest.mark.parametrize("design", ["crossed", "nested"])
def test_simulated_components_recovered(design):
    # Monte-Carlo: the ANOVA estimators are unbiased, so the mean of 400
    # replicates must be within 4 Monte-Carlo standard errors of the truth.
    rng = np.random.default_rng(20011)
    x = _simulate(design, rng, 400, 12, 10, 4)
    est = ems_components(x, design)
    se = est.std(axis=0, ddof=1) / np.sqrt(len(est))
    assert np.all(np.abs(est.mean(axis=0) - TRUE[design]) < 4 * se)


@pytest.mark.parametrize("design", ["crossed", "nested"])
def test_simulated_unbalanced_components_recovered(design):
    # Same for Henderson's method 1 with 15% of the (topic, assessor) cells
    # removed (every system's score there is missing): unbiased too.
    rng = np.random.default_rng(7)
    reps, n_s, n_t, n_a = 300, 10, 10, 4
    x = _simulate(design, rng, reps, n_s, n_t, n_a)
    keep_cell = rng.random((reps, n_t, n_a)) > 0.15
    keep_cell[:, :, :2] = True  # at least two assessors everywhere
    b, s, t, a = np.nonzero(np.broadcast_to(keep_cell[:, None], x.shape))
    est = henderson1_components(x[b, s, t, a], {"s": s, "t": t, "a": a}, design, batch=b, n_batch=reps)
    se = est.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(est.mean(axis=0) - TRUE[design]) < 4 * se)


# ------------------------------------------------------------- D-study


def test_topics_needed_is_smallest():
    g = facet_gstudy(brennan_long(), "nested")
    for n_a in (1, 2, 4):
        n = g.topics_needed(0.8, n_a)
        assert g.phi(n, n_a) >= 0.8 > g.phi(n - 1, n_a)


def test_crossed_target_out_of_reach():
    x = _simulate("crossed", np.random.default_rng(1), 1, 15, 12, 5)[0]
    g = facet_gstudy(x, "crossed")
    # sigma2_sa / n_a bounds Phi below sigma2_s / (sigma2_s + (sigma2_a + sigma2_sa)/n_a)
    c = np.array(g.components)
    limit_1 = c[0] / (c[0] + c[2] + c[4])
    assert g.topics_needed(min(0.999, limit_1 + 0.5 * (1 - limit_1)), 1) == np.inf
    assert g.phi(1e9, 1) == pytest.approx(limit_1, rel=1e-6)


def test_needed_minimises_cost():
    g = facet_gstudy(brennan_long(), "nested")
    nd = g.needed(0.8, cost_ratio=2.0, max_assessors=6)
    t = nd.table
    assert nd.cost == t["cost"].min()
    np.testing.assert_allclose(t["cost"], t["n_topics"] * (2.0 + t["n_assessors"]))
    assert g.phi(nd.n_topics, nd.n_assessors) >= 0.8


def test_grid_and_coefficient_invariants():
    g = facet_gstudy(brennan_long(), "nested")
    grid = g.grid([1, 5, 20], [1, 2, 8])
    assert (grid["phi"] <= grid["erho2"] + 1e-15).all()
    wide = grid.pivot(index="n_topics", columns="n_assessors", values="phi").to_numpy()
    assert (np.diff(wide, axis=0) > 0).all() and (np.diff(wide, axis=1) > 0).all()


# ------------------------------------------------------------- bootstrap


def test_bootstrap_reproducible_and_brackets():
    g = facet_gstudy(brennan_long(), "nested")
    a = g.bootstrap(300, seed=3)
    b = g.bootstrap(300, seed=3)
    assert a == b
    assert a.phi[0] <= g.phi() <= a.phi[1]
    lo, hi = np.array(a.components_lower), np.array(a.components_upper)
    assert (lo <= hi).all()


def test_bootstrap_block_size_does_not_matter(monkeypatch):
    import irstab.stability.facet_bootstrap as fb
    from irstab.stability.facet_bootstrap import bootstrap_facets

    g = facet_gstudy(brennan_long(), "nested")
    full = bootstrap_facets(g, 50, seed=5)
    monkeypatch.setattr(fb, "_BLOCK_SCORES", 200)  # 1 resample per block
    np.testing.assert_allclose(bootstrap_facets(g, 50, seed=5), full, rtol=1e-10)


# ------------------------------------------------------------- bad input


def test_bad_input():
    long = brennan_long()
    with pytest.raises(IRStabError, match="duplicate cell"):
        facet_gstudy(pd.concat([long, long.iloc[:1]]), "nested")
    with pytest.raises(IRStabError, match="missing column"):
        facet_gstudy(long.drop(columns="assessor"), "nested")
    bad = long.copy()
    bad.loc[3, "score"] = np.nan
    with pytest.raises(DegenerateDataError, match="non-finite"):
        facet_gstudy(bad, "nested")
    with pytest.raises(DegenerateDataError, match="equal"):
        facet_gstudy(long.assign(score=1.0), "nested")
    with pytest.raises(DegenerateDataError, match="single assessor"):
        facet_gstudy(long[long["assessor"].isin(["r0", "r4", "r8"])], "nested")
    with pytest.raises(IRStabError, match="design"):
        facet_gstudy(long, "diagonal")
    with pytest.raises(IRStabError, match="balanced"):
        facet_gstudy(long.iloc[1:], "nested", method="ems")
    g = facet_gstudy(long, "nested")
    with pytest.raises(IRStabError, match="n_topics"):
        g.phi(0)
    with pytest.raises(IRStabError, match="target"):
        g.topics_needed(1.0)


def test_negative_component_warns():
    with pytest.warns(IRStabWarning, match="negative variance"):
        g = facet_gstudy(SYNTHETIC_4.reshape(10, 3, 4), "crossed")
    # Brennan's data read as crossed gives sigma2_a < 0 (computed above by EMS);
    # the coefficients use it truncated at 0.
    assert g.component("a") < 0 and g.components[2] == 0.0
