"""The problem object: nDCG as linear forms, Phi and its analytic gradient, parametrisation.

Oracles: the evaluate kernel (irstab.metrics.nDCG.compute) and the G-study (gstudy) for
values; central finite differences for every gradient; a naive pure-Python nDCG for
non-monotone gains; arithmetic in comments for the worked example.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from optimizer_data import small_collection

from irstab.errors import DegenerateDataError, IRStabError, IRStabWarning, MeasureError
from irstab.metrics import Discount, Gain, nDCG
from irstab.optimizer import Problem, Scenario, stability_and_gradient
from irstab.optimizer.constraints import PhiConstraint, PriorConstraint
from irstab.optimizer.parametrisation import Parametrisation
from irstab.optimizer.scenario import discount_vector, gain_vector
from irstab.optimizer.task import Task
from irstab.stability import gstudy

RNG = np.random.default_rng(20091102)


def scores(n_s, n_t, rng=RNG):
    """Systems x topics with a clear system effect, so every component is positive."""
    return rng.normal(0, 1, (n_s, 1)) + rng.normal(0, 1, (1, n_t)) + 0.5 * rng.random((n_s, n_t))


def central_diff(f, x, h=1e-6):
    out = np.empty_like(x)
    for i in range(len(x)):  # test-only loop over coordinates
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


# ----------------------------------------------------------------- Phi and its gradient


def test_phi_of_the_gstudy_docstring_example():
    # gstudy's worked example: components (0.035, 0.01, 0.0225), so
    # Phi(1) = 0.035 / (0.035 + 0.01 + 0.0225) = 0.518518...; Erho2(1) = 0.035 / 0.0575
    x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    assert stability_and_gradient(x)[0] == pytest.approx(0.035 / 0.0675, rel=1e-12)
    assert stability_and_gradient(x, "erho2")[0] == pytest.approx(0.035 / 0.0575, rel=1e-12)


@pytest.mark.parametrize("objective", ["phi", "erho2"])
def test_value_equals_the_gstudy(objective):
    for _ in range(5):
        x = scores(7, 9)
        g = gstudy(x)
        expected = g.phi(1) if objective == "phi" else g.erho2(1)
        assert stability_and_gradient(x, objective)[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("objective", ["phi", "erho2"])
def test_gradient_by_cells_matches_finite_differences(objective):
    x = scores(6, 5)
    _, grad = stability_and_gradient(x, objective)
    assert np.abs(grad).max() > 1e-3  # not the trivial zero gradient

    def f(flat):
        return stability_and_gradient(flat.reshape(x.shape), objective)[0]

    fd = central_diff(f, x.ravel()).reshape(x.shape)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-9)


def test_negative_topic_component_counts_as_zero_and_has_no_gradient():
    # a matrix whose topic means are all equal has SS_top = 0, so sigma2_top < 0 (raw)
    x = scores(5, 4)
    x = x - x.mean(axis=0, keepdims=True) + 0.5
    _, grad = stability_and_gradient(x)
    assert np.abs(grad).max() > 1e-3
    fd = central_diff(lambda f: stability_and_gradient(f.reshape(x.shape))[0], x.ravel())
    np.testing.assert_allclose(grad.ravel(), fd, rtol=1e-5, atol=1e-8)
    with pytest.warns(IRStabWarning, match="negative variance"):
        expected = gstudy(x).phi(1)
    assert stability_and_gradient(x)[0] == pytest.approx(expected, rel=1e-12)


def test_constant_matrix_gives_zero_not_nan():
    value, grad = stability_and_gradient(np.full((3, 3), 0.5))
    assert value == 0.0 and not grad.any()


# ----------------------------------------------------------------- linear forms = kernel


def random_monotone(n, rng, increasing):
    v = np.sort(rng.random(n))
    return v if increasing else v[::-1]


@pytest.mark.filterwarnings("ignore:.*nDCG reaches")  # random discounts rise somewhere
@pytest.mark.parametrize("k", [1, 5, 30])
def test_ndcg_equals_the_evaluate_kernel(small, k):
    s = Scenario(small, k)
    for _ in range(4):
        g = np.r_[0.0, random_monotone(3, RNG, True)]
        d = RNG.random(k)  # any non-negative discount, monotone or not
        ref = nDCG(gain=Gain.of(tuple(g)), discount=Discount.of(tuple(d)), cutoff=k).compute(small)
        np.testing.assert_allclose(s.ndcg(g, d), ref, rtol=0, atol=1e-14)


def test_ndcg_on_a_topic_subset_is_those_columns(small):
    topics = (0, 3, 7, 8)
    s = Scenario(small, 10, topics=topics)
    g, d = gain_vector("exp", 3), discount_vector("zipf", 10)
    ref = nDCG(gain=Gain.of("exp"), discount=Discount.of("zipf"), cutoff=10).compute(small)
    np.testing.assert_allclose(s.ndcg(g, d), ref[:, list(topics)], atol=1e-14)


def naive_ndcg(grades_row, ideal_grades, gain, discount, k):
    """Pure-Python nDCG@k: the ideal list is all relevant grades sorted by *gain*, then cut."""
    dcg = sum(gain[max(int(gr), 0)] * discount[r] for r, gr in enumerate(grades_row[:k]))
    ideal = sorted((gain[int(gr)] for gr in ideal_grades if gr > 0), reverse=True)[:k]
    idcg = sum(v * discount[r] for r, v in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def test_non_monotone_gains_sort_the_ideal_list_by_gain(small):
    # gain (0, 3, 1, 2): grade 1 is worth most, so the ideal list starts with the grade-1 documents
    k = 5
    s = Scenario(small, k)
    g = np.array([0.0, 3.0, 1.0, 2.0])
    d = discount_vector("log2", k)
    x = s.ndcg(g, d)
    grades = small.grades_to(k)
    for si in range(small.n_systems):  # test-only loops over a few cells
        for ti in range(small.n_topics):
            expected = naive_ndcg(grades[si, ti], small.ideal[ti], g, d, k)
            assert x[si, ti] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # and the evaluate kernel agrees (it too sorts all relevant gains, then cuts)
    ref = nDCG(gain=Gain.of(tuple(g)), discount=Discount.of("log2"), cutoff=k).compute(small)
    np.testing.assert_allclose(x, ref, rtol=0, atol=1e-14)


def test_scaling_either_vector_leaves_ndcg_unchanged(small):
    s = Scenario(small, 10)
    g, d = gain_vector("linear", 3), discount_vector("log2", 10)
    np.testing.assert_allclose(s.ndcg(3.7 * g, 0.01 * d), s.ndcg(g, d), rtol=1e-13)


def test_fixed_gain_matrix_sums_the_same_triplets(small):
    # a discount problem (gain fixed) evaluates nDCG and the discount gradient as products
    # with a cached sparse matrix: the same triplet sums as the general path, in another
    # order, so equal to round-off; oracle for the values: the evaluate kernel
    k = 30
    s = Scenario(small, k)
    g, d = gain_vector("exp", 3), np.sort(RNG.random(k))[::-1]  # a monotone discount
    v0, gg0, gd0 = s._value_and_grad(g, d)  # general path (no matrix cached yet)
    v1, gg1, gd1 = s._value_and_grad(g, d, gain_grad=False)  # builds the matrix
    assert v1 == pytest.approx(v0, rel=1e-13)
    np.testing.assert_allclose(gd1, gd0, rtol=1e-12, atol=1e-15)
    assert gg0[1:].any() and not gg1.any()
    kernel = nDCG(gain=Gain.of("exp"), discount=Discount.of(tuple(d)), cutoff=k).compute(small)
    np.testing.assert_allclose(s.ndcg(g, d), kernel, rtol=0, atol=1e-14)  # through the matrix
    # another gain must not reuse the cached matrix
    g2 = gain_vector("linear", 3)
    kernel2 = nDCG(gain=Gain.of("linear"), discount=Discount.of(tuple(d)), cutoff=k).compute(small)
    np.testing.assert_allclose(s.ndcg(g2, d), kernel2, rtol=0, atol=1e-14)


def test_large_forms_take_any_gain_through_the_sparse_structure(small, monkeypatch):
    # above MATRIX_ENTRIES triplets, DCG of a gain other than the cached one is a product on
    # the cached row pointers: oracle, the gather-and-bincount path of the same Scenario,
    # which sums each cell's terms in the same order, so equal to the last bit
    import irstab.optimizer.scenario as scenario

    k = 30
    d = np.sort(RNG.random(k))[::-1]
    gains = [gain_vector(name, 3) for name in ("linear", "exp")] + [np.array([0, 0.5, 3, 4.0])]
    small_path = Scenario(small, k)
    want = [small_path.dcg(g, d) for g in gains]
    monkeypatch.setattr(scenario, "MATRIX_ENTRIES", 1)
    large_path = Scenario(small, k)
    for g, w in zip(gains, want):
        np.testing.assert_array_equal(large_path.dcg(g, d), w)
    assert "matrix" not in large_path._cache  # not cached: the fixed gain's matrix stays
    indptr, indices = large_path._structure()
    assert indptr[-1] == large_path.n_entries and indices.dtype == np.int32


def test_triplets_out_of_order_are_sorted_by_cell(small):
    # LinearForms is public: entries given in another order than (system, topic, rank) give
    # the same Scenario; oracle, the forms of the same collection in order
    from irstab.optimizer import LinearForms

    forms = LinearForms.from_collection(small, 30)
    order = np.random.default_rng(5).permutation(len(forms.grade))
    shuffled = LinearForms(forms.systems, forms.topics, forms.depth, forms.system[order],
                           forms.topic[order], forms.rank[order], forms.grade[order],
                           forms.grade_counts, forms.max_grade)
    a, b = Scenario(forms, 30), Scenario(shuffled, 30)
    for name in ("_cell", "_rank", "_grade"):
        np.testing.assert_array_equal(getattr(b, name), getattr(a, name))
    g, d = gain_vector("linear", 3), discount_vector("log2", 30)
    np.testing.assert_array_equal(b._gain_matrix(g)[0] @ d, a.dcg(g, d).reshape(-1))


def test_prepare_builds_the_fixed_gain_matrix_once(small):
    # what forked workers share: the matrix is built before, and evaluation reuses it
    p = Problem.build([Scenario(small, 10)], vary="discount")
    y = p.param.variables(p.param.gain, discount_vector("zipf", 10))
    before = p.values_and_jac(y)
    s = p.scenarios[0]
    s._cache.clear()
    p.prepare()
    matrix = s._cache["matrix"][1][0]
    after = p.values_and_jac(y)
    assert s._cache["matrix"][1][0] is matrix
    np.testing.assert_array_equal(after[0], before[0])
    np.testing.assert_array_equal(after[1], before[1])
    gain_problem = Problem.build([Scenario(small, 10)], vary="gain")
    gain_problem.prepare()  # the gain varies: nothing to share
    assert "matrix" not in gain_problem.scenarios[0]._cache


# ----------------------------------------------------------------- gradients of the problem


@pytest.mark.parametrize("vary", ["discount", "gain", "joint"])
@pytest.mark.parametrize("monotone", [True, False])
def test_gradient_by_y_matches_finite_differences(small, vary, monotone):
    p = Problem.build([Scenario(small, 8)], vary=vary, monotone=monotone)
    y = p.param.random(np.random.default_rng(3))
    _, jac = p.values_and_jac(y)
    fd = central_diff(lambda z: p.values(z)[0], y, h=1e-7)
    np.testing.assert_allclose(jac[0], fd, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("vary", ["discount", "joint"])
def test_a_point_evaluated_again_is_not_recomputed_and_gives_the_same_numbers(small, vary):
    # the merit, the gap and the trimming re-evaluate a solve's last point: kept, bit for
    # bit what a fresh problem computes there; the caller's copies are its own
    calls = []
    p = Problem.build([Scenario(small, 8)], vary=vary)
    full = p._full_grads
    object.__setattr__(p, "_full_grads", lambda g, d: calls.append(1) or full(g, d))
    y = p.param.random(np.random.default_rng(7))
    v1, j1 = p.values_and_jac(y)
    v1[:] = -1.0
    j1[:] = 0.0
    v2, j2 = p.values_and_jac(y.copy())
    v3 = p.values(y)
    assert len(calls) == 1
    fresh = Problem.build([Scenario(small, 8)], vary=vary)
    vf, jf = fresh.values_and_jac(y)
    assert v2.tobytes() == vf.tobytes() == v3.tobytes() and j2.tobytes() == jf.tobytes()
    for k in range(1, 10):  # only the last few points are kept
        p.values_and_jac(p.param.random(np.random.default_rng(100 + k)))
    p.values_and_jac(y)
    assert len(calls) == 11


@pytest.mark.parametrize("vary", ["discount", "gain", "joint"])
def test_natural_gradient_matches_finite_differences(small, vary):
    p = Problem.build([Scenario(small, 6)], vary=vary)
    v = p.param.natural(p.param.random(np.random.default_rng(4)))
    _, jac = p.natural_values_and_jac(v)
    fd = central_diff(lambda z: p.natural_values_and_jac(z)[0][0], v, h=1e-7)
    np.testing.assert_allclose(jac[0], fd, rtol=1e-5, atol=1e-8)


def test_non_monotone_gain_gradient_matches_finite_differences(small):
    # away from ties the ideal order is fixed and the form is linear in g
    p = Problem.build([Scenario(small, 8)], vary="gain", monotone=False)
    y = np.array([0.5, 0.2, 0.3])  # gains (0, .5, .2, .3): grade 1 first in the ideal list
    _, jac = p.values_and_jac(y)
    fd = central_diff(lambda z: p.values(z)[0], y, h=1e-7)
    np.testing.assert_allclose(jac[0], fd, rtol=1e-5, atol=1e-8)


def test_minimax_jacobian_truncates_the_discount_per_scenario(small):
    p = Problem.build([Scenario(small, 4), Scenario(small, 9)], vary="joint")
    y = p.param.random(np.random.default_rng(5))
    vals, jac = p.values_and_jac(y)
    assert jac.shape == (2, 3 + 9)
    for i in range(2):
        fd = central_diff(lambda z, i=i: p.values(z)[i], y, h=1e-7)
        np.testing.assert_allclose(jac[i], fd, rtol=1e-5, atol=1e-8)
    # the @4 scenario ignores ranks 5..9: its gradient by a rank-5+ increment equals
    # that of the whole mass moved (increments past rank 4 shift d_1..d_4 uniformly)
    g, d = p.param.vectors(y)
    assert vals[0] == pytest.approx(Scenario(small, 4).value(g, d[:4]), rel=1e-12)


def test_constraint_gradients_match_finite_differences(small):
    p = Problem.build([Scenario(small, 6)], vary="discount")
    pb = Problem((Scenario(small, 3),), p.param)
    y = p.param.random(np.random.default_rng(6))
    prior = p.param.natural(p.param.variables(p.param.gain, discount_vector("log2", 6)))
    for c in (PhiConstraint(pb, 0.1), PriorConstraint(p.param, prior, 0.2)):
        _, hj = c.value_and_jac(y)
        fd = central_diff(lambda z, c=c: c.value_and_jac(z)[0], y, h=1e-7)
        np.testing.assert_allclose(hj, fd, rtol=1e-5, atol=1e-8)


# ----------------------------------------------------------------- parametrisation


@pytest.mark.parametrize("monotone", [True, False])
def test_parametrisation_round_trip_and_normalisation(monotone):
    par = Parametrisation(4, 7, "joint", monotone, gain_vector("linear", 3), discount_vector("log2", 7))
    y = par.random(np.random.default_rng(1))
    g, d = par.vectors(y)
    assert g[0] == 0 and g[1:].sum() == pytest.approx(1) and d.sum() == pytest.approx(1)
    if monotone:
        assert np.all(np.diff(g) >= 0) and np.all(np.diff(d) <= 0)
    np.testing.assert_allclose(par.variables(g, d), y, atol=1e-15)
    np.testing.assert_allclose(par.natural_to_y(par.natural(y)), y, atol=1e-15)


def test_a_start_that_breaks_the_ordering_is_rejected():
    par = Parametrisation(4, 3, "discount", True, gain_vector("linear", 3), discount_vector("log2", 3))
    with pytest.raises(MeasureError, match="ordering"):
        par.variables(par.gain, np.array([0.1, 0.5, 0.4]))


def test_frank_wolfe_gap_is_zero_at_a_vertex_optimum():
    # one-dimensional simplex (k = 1): every point is optimal, the gap is 0
    coll = small_collection()
    task = Task(Problem.build([Scenario(coll, 1)], vary="discount"))
    gap, _ = task.gap(np.array([1.0]))
    assert gap == 0.0


# ----------------------------------------------------------------- errors


def test_cutoff_beyond_the_depth_names_the_cutoff(small):
    with pytest.raises(IRStabError, match=r"cutoff: 31 exceeds the collection depth 30"):
        Scenario(small, 31)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_cutoff_must_be_a_positive_integer(small, bad):
    with pytest.raises(IRStabError, match="cutoff"):
        Scenario(small, bad)


def test_one_system_is_degenerate():
    coll = small_collection(n_systems=1)
    with pytest.raises(DegenerateDataError, match="1 system"):
        Scenario(coll, 5)


def test_one_topic_is_degenerate(small):
    with pytest.raises(DegenerateDataError, match="1 topic"):
        Scenario(small, 5, topics=(2,))


def test_gain_of_the_wrong_length_names_the_gain(small):
    s = Scenario(small, 5)
    with pytest.raises(MeasureError, match=r"gain: has 3 values .* grades 0\.\.3"):
        s.value([0, 1, 2], discount_vector("log2", 5))
    with pytest.raises(MeasureError, match="gain"):
        Problem.build([s], vary="discount", gain=(0, 1, 2))


def test_discount_of_the_wrong_length_names_the_discount(small):
    with pytest.raises(MeasureError, match="discount"):
        Problem.build([Scenario(small, 5)], vary="gain", discount=(1, 0.5))


def test_collections_with_different_grade_scales_cannot_share_a_gain(small):
    binary = small_collection(n_grades=2)
    with pytest.raises(IRStabError, match="grade scales"):
        Problem.build([Scenario(small, 5), Scenario(binary, 5)])


def test_value_is_finite_everywhere_on_the_simplex_edges(small):
    # gain (0,0,0,1): topics without a grade-3 document have IDCG 0 and score 0 (convention)
    s = Scenario(small, 10)
    v = s.value(np.array([0, 0, 0, 1.0]), discount_vector("log2", 10))
    assert math.isfinite(v)



class _NoIndexTricks:
    """Stands for ``np.r_`` where the optimizer's evaluations must not call it."""

    def __getitem__(self, key):
        raise AssertionError("np.r_ in an evaluation of the objective")


@pytest.mark.parametrize("monotone", [True, False])
def test_evaluations_and_the_grid_build_vectors_without_index_tricks(small, monotone,
                                                                     monkeypatch):
    # np.r_ costs more than the sums it joins (a report evaluates the objective thousands
    # of times and builds 1,891 grid gains a check): neither an evaluation nor the grid
    # calls it. Oracles: the grid's merit is each point's objective with the gain built
    # one point at a time by np.r_, evaluated alone (to rounding: the grid multiplies in
    # batches); the evaluation's numbers are unchanged, bit for bit
    from irstab.optimizer.grid import _compositions, grid_values

    sc = Scenario(small, 8)
    gp = Problem.build([sc], vary="joint", monotone=monotone)
    ys = _compositions(gp.param.n_grades - 1, 12)
    y = gp.param.random(np.random.default_rng(5))
    _, disc = gp.param.vectors(y)
    a = gp.param._a_gain
    gains = [np.r_[0.0, np.cumsum(r / a)] if monotone else np.r_[0.0, r] for r in ys]
    want = np.array([sc.value(g, disc) for g in gains])
    want_v, want_j = Problem.build([Scenario(small, 8)], vary="joint",
                                   monotone=monotone).values_and_jac(y)
    monkeypatch.setattr(np, "r_", _NoIndexTricks())
    np.testing.assert_allclose(grid_values(gp, disc, ys), want, rtol=1e-12, atol=1e-15)
    got_v, got_j = gp.values_and_jac(y)
    assert got_v.tobytes() == want_v.tobytes() and got_j.tobytes() == want_j.tobytes()


@pytest.mark.parametrize("cutoff", [3, 8, 30])
def test_dcg_and_its_gradients_by_the_sparse_kernels_are_bincounts_sums(small, cutoff,
                                                                       monkeypatch):
    # the DCG of every cell and the gradients by rank and by grade are SciPy's CSR/CSC
    # kernels on the cached structure (no matrix object, no bincount per evaluation): the
    # same products added in the same order as np.bincount adds them, so equal to the bit
    from irstab.optimizer.scenario import _sum_by

    sc = Scenario(small, cutoff)
    rng = np.random.default_rng(cutoff)
    S, T = sc._shape
    for _ in range(5):
        gain = np.r_[0.0, np.sort(rng.random(sc.n_grades - 1))]
        disc = np.sort(rng.random(cutoff))[::-1].copy()
        want_n = _sum_by(sc._cell, gain[sc._grade] * disc[sc._rank], S * T).reshape(S, T)
        w = rng.normal(size=S * T)
        wc = w[sc._cell]
        want_d = _sum_by(sc._rank, wc * gain[sc._grade], cutoff)
        want_g = _sum_by(sc._grade, wc * disc[sc._rank], sc.n_grades)
        sc.dcg(gain, disc), sc.value_and_grad(gain, disc)  # structures cached
        with monkeypatch.context() as m:
            m.setattr(np, "bincount", lambda *a, **k: pytest.fail("bincount in an evaluation"))
            got_n = sc.dcg(gain, disc)
            sc.value_and_grad(gain, disc)
            from irstab.optimizer.scenario import _products

            got_d = _products(sc._structure(), gain[sc._grade], w, S * T, cutoff,
                              transpose=True)
            got_g = _products(sc._grade_structure(), disc[sc._rank], w, S * T, sc.n_grades,
                              transpose=True)
        assert got_n.tobytes() == want_n.tobytes()
        assert got_d.tobytes() == want_d.tobytes() and got_g.tobytes() == want_g.tobytes()
