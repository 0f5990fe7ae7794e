"""The judge-robust nDCG: the smooth agreement objective and its cross-fitted evaluation."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from assessor_data import noisy_collection

from irstab.errors import IRStabError, IRStabWarning
from irstab.metrics import parse_measure
import irstab.optimizer.robust_crossfit as jr_module
from irstab.optimizer.robust_crossfit import (
    PHI_LABEL, ROBUST_LABEL, judge_robust, judge_robust_from_assessors,
)
from irstab.optimizer.robustness import JudgeAgreement, agreement_of_means
from irstab.simulate import simulate_collection

REANNOTATION = "reannotation"


def _layout(n_topics, judged):
    """Cells: every topic under the gold judge ``g``, and topic t under judge ``j{i}`` where
    ``judged[i]`` holds t."""
    t = list(range(n_topics))
    j = ["g"] * n_topics
    for i, topics in enumerate(judged):
        for x in sorted(topics):
            t.append(x)
            j.append(f"j{i}")
    return np.array(t), np.array(j, dtype=object)


layouts = st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.sets(st.integers(0, n - 1), min_size=1), min_size=1, max_size=3)))


@settings(max_examples=40, deadline=None)
@given(layouts, st.integers(3, 7), st.sampled_from(["concordance", "correlation"]),
       st.floats(0.5, 6), st.integers(0, 2**32 - 1))
def test_gradient_equals_finite_differences(layout, n_s, kind, beta, seed):
    n_t, judged = layout
    t, j = _layout(n_t, judged)
    obj = JudgeAgreement(t, j, "g", kind=kind, beta=beta)
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n_s, len(t))) + rng.normal(size=(n_s, 1))
    value, grad = obj.value_and_grad(x)
    assert value == pytest.approx(float(obj.values(x)), abs=1e-12)
    eps = 1e-6
    num = np.empty_like(x)
    for idx in np.ndindex(*x.shape):  # central differences of every cell
        e = np.zeros_like(x)
        e[idx] = eps
        num[idx] = (obj.values(x + e) - obj.values(x - e)) / (2 * eps)
    assert np.allclose(grad, num, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(layouts, st.integers(3, 7), st.sampled_from(["concordance", "correlation"]),
       st.floats(0.1, 10), st.floats(-3, 3), st.integers(0, 2**32 - 1))
def test_invariants_scale_shift_permutation_bound(layout, n_s, kind, scale, shift, seed):
    n_t, judged = layout
    t, j = _layout(n_t, judged)
    obj = JudgeAgreement(t, j, "g", kind=kind)
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n_s, len(t)))
    v = float(obj.values(x))
    # the scores' scale and origin do not matter (z-scored means), nor the systems' order
    assert float(obj.values(scale * x + shift)) == pytest.approx(v, abs=1e-9)
    assert float(obj.values(x[rng.permutation(n_s)])) == pytest.approx(v, abs=1e-12)
    assert -1 - 1e-12 <= v <= 1 + 1e-12
    # a batch gives each matrix's value
    batch = np.stack([x, 2 * x + 1, x[::-1]])
    assert np.allclose(obj.values(batch), [v, v, obj.values(x[::-1])], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 9), st.integers(0, 2**32 - 1))
def test_closed_forms_pearson_and_kendall(n_s, seed):
    rng = np.random.default_rng(seed)
    # distinct means, at least 1e-2 apart in standard deviations
    ma = np.cumsum(rng.uniform(0.05, 1, n_s))
    mb = np.cumsum(rng.uniform(0.05, 1, n_s))[rng.permutation(n_s)]
    r = agreement_of_means(ma[:, None], mb[:, None], "correlation")[0]
    assert r == pytest.approx(np.corrcoef(ma, mb)[0, 1], abs=1e-12)  # Pearson's r
    tau = agreement_of_means(ma[:, None], mb[:, None], "concordance", beta=1e5)[0]
    assert tau == pytest.approx(kendalltau(ma, mb)[0], abs=1e-9)  # no ties: tau_a = tau_b


def test_constant_ranking_has_zero_agreement_and_gradient():
    t, j = _layout(3, [{0, 1}])
    obj = JudgeAgreement(t, j, "g", kind="correlation")
    x = np.random.default_rng(0).uniform(size=(4, len(t)))
    x[:, 3:] = 0.5  # the other judge gives every system the same scores
    v, g = obj.value_and_grad(x)
    assert v == 0.0 and not g.any()


def test_gold_restricted_to_the_other_judge_topics():
    # judge j0 judged topic 1 only: the gold ranking it is compared with is topic 1's
    t, j = _layout(2, [{1}])
    x = np.array([[0.9, 0.1, 0.1], [0.1, 0.9, 0.9], [0.5, 0.5, 0.5]])
    obj = JudgeAgreement(t, j, "g", kind="correlation")
    assert float(obj.values(x)) == pytest.approx(1.0)  # topic 1 under g equals under j0


def test_bad_objective_input_is_named():
    t, j = _layout(2, [{1}])
    with pytest.raises(IRStabError, match="agreement"):
        JudgeAgreement(t, j, "g", kind="spearman")
    with pytest.raises(IRStabError, match="beta"):
        JudgeAgreement(t, j, "g", beta=0)
    with pytest.raises(IRStabError, match="gold"):
        JudgeAgreement(t, j, "nobody")
    with pytest.raises(IRStabError, match="shares a topic"):
        JudgeAgreement(t, j, "g", topics=(0,))
    with pytest.raises(IRStabError, match="cells"):
        JudgeAgreement(t, j, "g").values(np.zeros((3, 2)))


# ----------------------------------------------------------------- cross-fitting


@pytest.fixture(scope="module")
def assessors():
    return noisy_collection(simulate_collection(n_systems=8, n_topics=12, depth=20, seed=4),
                            ("b", "c"), seed=1)


@pytest.fixture(scope="module")
def fitted(assessors):
    seen = []
    real = jr_module.JudgeAgreement
    real_opt = jr_module.optimize

    class Spy(real):  # records the topics every objective is given
        def __post_init__(self):
            seen.append(("robust", self.topics))
            super().__post_init__()

    def spy_opt(coll, k, **kw):
        seen.append(("phi", tuple(kw["topics"])))
        return real_opt(coll, k, **kw)

    jr_module.JudgeAgreement, jr_module.optimize = Spy, spy_opt
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)
            res = judge_robust_from_assessors(assessors, 5, folds=3, starts=1, seed=2)
    finally:
        jr_module.JudgeAgreement, jr_module.optimize = real, real_opt
    return res, seen


def test_optimum_in_sample_beats_every_preset_on_every_training_fold(fitted):
    res, _ = fitted
    ins = res.in_sample
    for f, part in ins.groupby("fold"):
        presets = part[~part["measure"].isin([ROBUST_LABEL, PHI_LABEL])]
        assert len(presets) == 8  # gain linear/exp x discount log2/zipf/linear/flat
        best = float(part.loc[part["measure"] == ROBUST_LABEL, "agreement"].iloc[0])
        assert best >= presets["agreement"].max() - 1e-9, f
        # the fold's reported value is its objective on the evaluate kernel's scores
        assert best == pytest.approx(res.fold_robust[f].value, abs=1e-9)


def test_cross_fitting_never_scores_a_fold_with_its_own_topics(fitted, assessors):
    res, seen = fitted
    cells = assessors.cells
    gold_cell = {t: c for c, (t, a) in enumerate(zip(cells["topic"], cells["assessor"]))
                 if a == res.gold}
    pool = list(res.topics)
    robust_topics = [s for kind, s in seen if kind == "robust" and s is not None]
    phi_topics = [s for kind, s in seen if kind == "phi"]
    assert len(robust_topics) == len(phi_topics) == res.n_folds == 3
    for f in range(res.n_folds):
        held = {t for t, k in zip(pool, res.folds) if k == f}
        assert held and not held & set(robust_topics[f])
        assert set(robust_topics[f]) | held == set(pool)
        assert not {gold_cell[t] for t in held} & set(phi_topics[f])
    # each held-out cell carries the score of its own fold's configuration (evaluate kernel)
    rows = res.held_out.rows
    assert set(rows["measure"]) >= {ROBUST_LABEL, PHI_LABEL}
    coll = assessors.collection
    fold_of = dict(zip(pool, res.folds))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        per_fold = [parse_measure(r.measure_string).compute(coll) for r in res.fold_robust]
    expected = np.array([[per_fold[fold_of[t]][s, c] for c, t in enumerate(cells["topic"])]
                         for s in range(coll.n_systems)])
    # the survival's tau under judge b, recomputed from these per-fold scores
    b_cells = (cells["assessor"] == "b").to_numpy()
    g_cells = (cells["assessor"] == res.gold).to_numpy()
    ma, mb = expected[:, g_cells].mean(axis=1), expected[:, b_cells].mean(axis=1)
    row = rows[(rows["measure"] == ROBUST_LABEL) & (rows["judge_b"] == "b")].iloc[0]
    assert row["kendall_tau"] == pytest.approx(kendalltau(ma, mb)[0], abs=1e-12)


def test_result_frames(fitted):
    res, _ = fitted
    f = res.to_frame()
    assert len(f) == 10 and f["cross_fitted"].sum() == 2
    assert f["tau_ap"].is_monotonic_decreasing
    d = res.to_dict()
    assert d["n_folds"] == 3 and len(d["fold_measures"]) == 3 and d["measure"] == str(res.optimum)
    assert d["value"] == res.optimum.value


def test_judge_robust_rejects_unknown_gold_and_kind(assessors):
    with pytest.raises(IRStabError, match="gold"):
        judge_robust_from_assessors(assessors, 5, gold="nobody")
    with pytest.raises(IRStabError, match="agreement"):
        judge_robust_from_assessors(assessors, 5, agreement="spearman")
    with pytest.raises(IRStabError, match="starts"):
        judge_robust_from_assessors(assessors, 5, starts=-1)
    with pytest.raises(IRStabError, match="folds"):
        judge_robust_from_assessors(assessors, 5, folds=1)
    with pytest.raises(IRStabError, match="cutoff"):
        judge_robust_from_assessors(assessors, 0)


def test_one_judge_set_is_a_located_error(tmp_path):
    sim = simulate_collection(n_systems=4, n_topics=4, depth=10, seed=3)
    with pytest.raises(IRStabError, match="judge"):
        judge_robust(sim.qrels, {}, sim.runs, 5)


def test_dl2019_reannotators(dl2019_dir):
    main = dl2019_dir.parent / "trec-dl-2019-reannotation" / "main"
    if not main.is_dir():
        pytest.skip(f"DL-2019 re-annotation not found at {main}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        res = judge_robust(dl2019_dir / "qrels.txt", main, dl2019_dir / "runs", 10, folds=3,
                           starts=0)
    assert len(res.judges) == 8 and len(res.topics) == 43  # the re-annotators cover all 43
    rows = res.held_out.rows
    assert len(rows) == 10 * 8  # 8 presets and the 2 cross-fitted rows, per re-annotator
    ins = res.in_sample
    for _, part in ins.groupby("fold"):
        presets = part[~part["measure"].isin([ROBUST_LABEL, PHI_LABEL])]
        best = float(part.loc[part["measure"] == ROBUST_LABEL, "agreement"].iloc[0])
        assert best >= presets["agreement"].max() - 1e-9
