"""Maximum-entropy solver internals against independent routes.

Full Newton for the AP family (tridiagonal resolvent) against dense linear
algebra and against the linearised path; merged outcome classes against the
unmerged solve; blocks, workers and trimmed ranks against one plain batch.
"""

from __future__ import annotations

import numpy as np
import pytest

import irstab

from irstab.informativeness.analysis import cell_inputs
from irstab.informativeness.maxent import _solve_batch, entropy, solve_maxent
from irstab.informativeness.maxent_newton import _resolvent, _tridiagonal, coupling, supports_full_newton
from irstab.informativeness.maxent_outcomes import merge_outcomes
from irstab.informativeness.product_expectation import product_form
from irstab.metrics import parse_measure


@pytest.fixture(scope="module")
def small(small_graded):
    """4 simulated systems x 5 topics, depth 30, grades 0-3 (tests/conftest.py)."""
    return small_graded


@pytest.fixture(scope="module")
def dl_cells(dl2019):
    """60 DL-2019 (system, topic) lists, a fixed random choice, and their inputs."""
    grades, onehot, counts, free = cell_inputs(dl2019)
    cells = np.sort(np.random.default_rng(11).choice(len(grades), 60, replace=False))
    return dl2019, cells, onehot[cells], counts[cells], free[cells]


def _dense_K(W, h):
    """``dG/dP`` as a dense (N A) x (N A) matrix: ``W (x) H'``, ``H'_nm = h_max(n,m)`` (0 on
    the diagonal)."""
    N = len(h)
    n = np.arange(N)
    Hp = h[np.maximum(n[:, None], n[None, :])]
    np.fill_diagonal(Hp, 0.0)
    return np.kron(Hp, W)  # rank-major, outcome-minor


@pytest.mark.parametrize("name", ["AP", "AP(rel=2)@20", "GAP", "eGAP"])
def test_jacobian_of_the_gradient_is_W_kron_Hprime(small, name):
    # closed form of the module docstring, checked by exact differences (E[M] is quadratic,
    # so G is affine in P and a unit difference is the derivative)
    form = product_form(parse_measure(name), small).take(np.array([3]))
    _, onehot, counts, free = cell_inputs(small)
    A, N = form.outcome_value.shape[0], onehot.shape[1]
    P = np.random.default_rng(0).dirichlet(np.ones(A), size=(1, N))
    _, G0 = form.value_and_gradient(P)
    J = np.empty((N * A, N * A))
    for m in range(N):
        for b in range(A):
            Q = P.copy()
            Q[0, m, b] += 1.0
            J[:, m * A + b] = (form.value_and_gradient(Q)[1] - G0)[0].ravel()
    E = (np.arange(A)[None, :] >= form.thresholds[:, None]).astype(float)
    W = np.einsum("k,ka,kb->ab", form.alpha[0], E, E)
    np.testing.assert_allclose(J, _dense_K(W, form.h[:N]), atol=1e-12)
    assert supports_full_newton(form)
    if len(form.thresholds) == 1:  # one threshold: the rank-one coupling is exact
        w = coupling(form)[0]
        np.testing.assert_allclose(np.outer(w, w), W, atol=1e-15)


@pytest.mark.parametrize("cutoff", [None, 9])
def test_resolvent_equals_dense_inverse(cutoff):
    # (I - mu K D)^{-1} b by a dense solve of the (N A) x (N A) system (brute force) against
    # the tridiagonal route: y = b + mu w (x) (H'X)
    rng = np.random.default_rng(1)
    N, A, mu = 14, 3, 37.0
    h = 1.0 / np.arange(1, N + 1)
    if cutoff is not None:
        h[cutoff:] = 0.0
    w = np.array([0.0, 0.4, 0.9])
    P = rng.dirichlet(np.ones(A), size=N)  # (N, A)
    D = np.zeros((N * A, N * A))
    for n in range(N):
        D[n * A:(n + 1) * A, n * A:(n + 1) * A] = np.diag(P[n]) - np.outer(P[n], P[n])
    K = _dense_K(np.outer(w, w), h)
    B = rng.normal(size=(N * A, 4))
    Y = np.linalg.solve(np.eye(N * A) - mu * K @ D, B)
    S = P @ w
    V = P @ w**2 - S**2
    beta = np.stack([(P * w * B[:, j].reshape(N, A)).sum(1) - S * (P * B[:, j].reshape(N, A)).sum(1)
                     for j in range(4)])[:, None, :]
    d, off, kc = _tridiagonal(h, N)
    HX, ok = _resolvent(beta, V[None], np.array([mu]), h, d, off, kc)
    assert ok.all()
    Y2 = B + mu * np.einsum("jn,a->naj", HX[:, 0], w).reshape(N * A, 4)
    np.testing.assert_allclose(Y2, Y, rtol=1e-9, atol=1e-10)


def test_resolvent_over_several_cells_with_pivoting():
    # three cells in one tridiagonal system: no coupling may leak across cells, and a cell
    # whose T - diag(b) is indefinite (mu large) sends the block to the pivoted solve; each
    # cell against its own dense (N A) x (N A) solve (brute force)
    rng = np.random.default_rng(4)
    N, A = 10, 2
    h = 1.0 / np.arange(1, N + 1)
    w = np.array([0.0, 1.0])
    mus = np.array([5.0, 400.0, -30.0])
    P = rng.dirichlet(np.ones(A), size=(3, N))  # (C, N, A)
    B = rng.normal(size=(3, N * A, 2))
    S = P @ w
    V = P @ w**2 - S**2
    beta = np.stack([np.stack([(P[c] * w * B[c, :, j].reshape(N, A)).sum(1)
                               - S[c] * (P[c] * B[c, :, j].reshape(N, A)).sum(1)
                               for c in range(3)]) for j in range(2)])
    d, off, kc = _tridiagonal(h, N)
    state = [True]
    HX, ok = _resolvent(beta, V, mus, h, d, off, kc, state)
    assert ok.all()
    assert state == [False]  # Cholesky failed once (the mu = 400 cell): pivoting from then on
    K = _dense_K(np.outer(w, w), h)
    for c in range(3):
        D = np.zeros((N * A, N * A))
        for n in range(N):
            D[n * A:(n + 1) * A, n * A:(n + 1) * A] = np.diag(P[c, n]) - np.outer(P[c, n], P[c, n])
        Y = np.linalg.solve(np.eye(N * A) - mus[c] * K @ D, B[c])
        Y2 = B[c] + mus[c] * np.einsum("jn,a->naj", HX[:, c], w).reshape(N * A, 2)
        np.testing.assert_allclose(Y2, Y, rtol=1e-8, atol=1e-9)


def test_several_thresholds_take_the_best_rank_one_coupling(small):
    # Eckart-Young: W - w w^T is what the rank-one approximation leaves, its largest
    # eigenvalue is W's second, and w w^T carries W's largest (eigh of W, the closed form)
    form = product_form(parse_measure("GAP"), small)
    A = form.outcome_value.shape[0]
    E = (np.arange(A)[None, :] >= form.thresholds[:, None]).astype(float)
    W = np.einsum("ck,ka,kb->cab", form.alpha, E, E)
    w = coupling(form)
    val = np.linalg.eigvalsh(W)
    rest = np.linalg.eigvalsh(W - np.einsum("ca,cb->cab", w, w))
    np.testing.assert_allclose(rest[:, -1], val[:, -2], atol=1e-14)
    np.testing.assert_allclose((w * w).sum(axis=1), val[:, -1], rtol=1e-12)


@pytest.mark.parametrize("name", ["AP", "GAP"])
def test_full_newton_finds_the_linearised_paths_solution(dl_cells, name):
    coll, cells, onehot, counts, free = dl_cells
    form = product_form(parse_measure(name), coll).take(cells)
    v = form.value(onehot)
    new = _solve_batch(form, counts, free, v, fallback=False)
    old = _solve_batch(form, counts, free, v, fallback=False, full_newton=False)
    both = new.converged & old.converged
    # measured on these 60 lists (f217c8a): both routes solve all 60 for AP and for GAP, and
    # agree to 3e-10 in P; the bounds leave room for a platform's rounding
    assert both.sum() >= 55
    assert new.converged.sum() >= old.converged.sum()
    np.testing.assert_allclose(new.P[both], old.P[both], atol=1e-7)
    np.testing.assert_allclose(entropy(new.P[both]), entropy(old.P[both]), rtol=1e-9)
    np.testing.assert_allclose(form.value(new.P)[new.converged], v[new.converged], atol=1e-8)
    # the reason for the full Newton iteration: measured medians (f217c8a) are 8 (AP) and 14.5
    # (GAP, rank-one coupling) iterations against 64.5 and 58.5 on the linearised path
    assert np.median(new.iterations[both]) <= (10 if name == "AP" else 18)
    assert np.median(old.iterations[both]) > 2 * np.median(new.iterations[both])


@pytest.mark.parametrize("name", ["P@10", "AP(rel=2)", "RBP(p=0.8)", "nDCG"])
def test_merged_grades_split_back_exactly(small, name):
    grades, onehot, counts, free = cell_inputs(small)
    form = product_form(parse_measure(name), small)
    v = form.value(onehot)
    merged = merge_outcomes(form, counts, free)
    if name == "nDCG":  # every grade has its own gain: nothing to merge
        assert merged is None
        return
    assert merged.counts.shape[1] == 2  # relevant at the measure's level or not
    sol = solve_maxent(form, counts, free, v, workers=1)
    plain = _solve_batch(form, counts, free, v)  # every grade its own outcome
    assert sol.converged.all() and plain.converged.all()
    np.testing.assert_allclose(sol.P, plain.P, atol=1e-7)
    np.testing.assert_allclose(sol.P.sum(axis=1), counts, atol=1e-8)
    fin = np.isfinite(plain.lam)
    np.testing.assert_allclose(sol.lam[fin], plain.lam[fin], atol=1e-5)


def test_workers_and_blocks_do_not_change_the_solution(dl2019):
    grades, onehot, counts, free = cell_inputs(dl2019)
    cells = np.arange(150)  # three blocks of 64 or fewer, short runs among them
    form = product_form(parse_measure("GAP"), dl2019).take(cells)
    v = form.value(onehot[cells])
    one = solve_maxent(form, counts[cells], free[cells], v, fallback=False, workers=1)
    two = solve_maxent(form, counts[cells], free[cells], v, fallback=False, workers=2)
    for k in ("P", "mu", "converged", "iterations", "residual"):
        assert np.array_equal(getattr(one, k), getattr(two, k)), k


def test_trimmed_ranks_give_the_untrimmed_solution(dl2019):
    # DL-2019 holds runs of 20 and 50 documents (depth 1000): their blocks are solved on the
    # ranks that hold documents; the plain batch solves all 1000 ranks
    grades, onehot, counts, free = cell_inputs(dl2019)
    length = free.sum(axis=1)
    cells = np.flatnonzero(length <= 50)[:40]
    assert cells.size == 40
    for name in ("AP(rel=2)", "P@10"):
        form = product_form(parse_measure(name), dl2019).take(cells)
        v = form.value(onehot[cells])
        sol = solve_maxent(form, counts[cells], free[cells], v, fallback=False, workers=1)
        plain = _solve_batch(form, counts[cells], free[cells], v, fallback=False)
        both = sol.converged & plain.converged
        assert both.sum() >= 30  # measured (f217c8a): 35 of 40 for AP(rel=2), 40 for P@10
        np.testing.assert_allclose(sol.P[both], plain.P[both], atol=1e-7)
        past = sol.P[~free[cells]]  # ranks past the run: no document, grade 0 for sure
        assert np.all(past[:, 0] == 1.0) and np.all(past[:, 1:] == 0.0)
        np.testing.assert_allclose(sol.P.sum(axis=2), 1.0, atol=1e-12)


@pytest.mark.parametrize("name", ["AP(rel=2)", "GAP", "nDCG"])
def test_a_cells_solution_does_not_depend_on_its_block_mates(name):
    # a run of relevant documents only (grades 1, 2, 1, 2, 1), 5 long in a depth-8 collection:
    # grade 0 is barred from its ranks, so it poses the same problem alone (trimmed to 5
    # ranks), beside a longer run (8 ranks) and in one plain batch
    grades = np.array([[1, 2, 1, 2, 1, 0, 0, 0], [2, 0, 1, 0, 0, 1, 0, 2]], dtype=np.int8)
    coll = irstab.Collection(
        systems=("short", "long"), topics=("t",), depth=8, grades=grades[:, None, :],
        judged=np.ones((2, 1, 8), bool), run_length=np.array([[5], [8]]),
        ideal=np.array([[2, 2, 2, 2, 1, 1, 1, 1]], np.int8),
        grade_counts=np.array([[10, 4, 4]]), max_grade=2,
    )
    _, onehot, counts, free = cell_inputs(coll)
    form = product_form(parse_measure(name), coll)
    v = form.value(onehot)
    alone = solve_maxent(form.take(np.array([0])), counts[:1], free[:1], v[:1], workers=1)
    pair = solve_maxent(form, counts, free, v, workers=1)
    plain = _solve_batch(form, counts, free, v)
    for sol in (alone, pair, plain):
        assert sol.converged[0]
        assert np.isneginf(sol.lam[0, 0]) and np.isfinite(sol.lam[0, 1:]).all()
        assert np.all(sol.P[0, :5, 0] == 0.0) and np.all(sol.P[0, 5:, 0] == 1.0)
    np.testing.assert_allclose(pair.P[0], alone.P[0], atol=1e-9)
    np.testing.assert_allclose(plain.P[0], alone.P[0], atol=1e-9)
    np.testing.assert_allclose(pair.lam[0, 1:], alone.lam[0, 1:], atol=1e-6)
    np.testing.assert_allclose(plain.lam[0, 1:], alone.lam[0, 1:], atol=1e-6)
