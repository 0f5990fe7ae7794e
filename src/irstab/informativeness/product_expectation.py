r"""Expected values of measures under a product (independent per rank) grade distribution.

The maximum entropy method (Aslam, Yilmaz & Pavlu, SIGIR 2005; Robertson,
Kanoulas & Yilmaz, SIGIR 2010, §4.1) needs ``E[M]`` of a measure ``M`` when
the grade at each rank is drawn independently: ``P[c, n, a]`` is the
probability that rank ``n`` of cell ``c`` (one system on one topic) holds a
document of grade ``a`` (``a = 0..c_max``; grades <= 0 and unjudged are 0).
Robertson et al. omit the derivations; they are given here.

Every supported measure has the form

.. math::

    E[M] = s \sum_n w_n \sum_a P_{na} v_a
         + \sum_k \alpha_k \sum_n h_n U_n(k) \bigl(1 + Q_{n-1}(k)\bigr)

with ``U_n(k) = sum_a P_na u_k(a)``, ``S_n(k) = P(grade_n >= t_k)`` and
``Q_{n-1}(k) = sum_{m<n} S_m(k)``. The first (linear) part is exact because
expectation is linear. The second part comes from the average-precision
family: with ``x_n = 1[grade_n >= t]``, ``AP = (1/R) sum_n (1/n) x_n
sum_{m<=n} x_m``; since ``x_n^2 = x_n`` and ranks are independent,
``E[x_n sum_{m<=n} x_m] = S_n (1 + sum_{m<n} S_m)``. A per-rank weight
``u(grade_n)`` multiplying ``x_n`` (xGAP) passes through the same way.

=============  =====================================================================
measure        terms
=============  =====================================================================
nDCG, DCG      linear: ``w = discount``, ``v = gain``, ``s = 1/IDCG`` (1 for DCG)
P@k            linear: ``w_n = 1[n <= k]``, ``v_a = 1[a >= rel]``, ``s = 1/k``
Recall@k       linear: as P@k with ``s = 1/R``
RBP(p)         linear: ``w_n = (1-p) p^(n-1)``, ``v_a = 1[a >= rel]``
AP(rel=t)      one quadratic term: ``t_1 = t``, ``u = 1[a >= t]``, ``alpha = 1/R``
GAP(g)         ``t_k = k``, ``u_k = 1[a >= k]``, ``alpha_k = g_k / sum_j g_j RB(j)``
eGAP(g)        ``t_k = k``, ``u_k = 1[a >= k]``, ``alpha_k = g_k / RB(k)``
xGAP(g)        ``t_k = k``, ``u_k(a) = w(a) 1[a >= k]``, ``alpha_k = g_k``
=============  =====================================================================

``h_n = 1/n`` up to the cutoff and 0 beyond; ``RB(k)`` counts the topic's
judged documents of grade >= k and ``w(a)`` is xGAP's per-grade weight
``sum_{j<=a} (g_j/RB(j)) / G_a`` (see :mod:`irstab.metrics.gap`). The
eGAP and GAP rows follow from the identity ``sum_{m<=n} Delta(m,n) = sum_k
g_k 1[r_n >= k] C_k(n)`` of that module. Zero denominators (``R = 0``,
``IDCG = 0``) give coefficient 0, the measures' own convention.

The gradient ``dE/dP_na`` (the maximum-entropy solver's features) is
``s w_n v_a + sum_k alpha_k [h_n u_k(a) (1 + Q_{n-1}(k)) + 1[a >= t_k] T_n(k)]``
with ``T_n(k) = sum_{m>n} h_m U_m(k)``: one cumulative sum each way per term.

Validated: at a one-hot ``P`` (the actual list) ``E[M]`` equals the
measure's own kernel; under random ``P`` it equals the mean over 10^5
sampled rankings to the Monte-Carlo error (tests/compare/test_informativeness.py).
ERR, RR, R-prec and bpref are not supported (not of this form).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import MeasureError
from ..metrics import base
from ..metrics.binary import AP, Precision, Recall
from ..metrics.dcg import DCG, _ideal_gains, nDCG
from ..metrics.gap import EGAP, GAP, XGAP, threshold_vector
from ..metrics.user import RBP

__all__ = ["ProductForm", "product_form", "SUPPORTED"]


@dataclass(frozen=True, eq=False)
class ProductForm:
    """``E[M]`` of one measure on ``C`` cells as a function of ``P`` (C, N, A).

    Attributes
    ----------
    scale : ndarray (C,)
        ``s`` of the linear part (zeros: no linear part).
    rank_weight : ndarray (N,)
        ``w_n``.
    outcome_value : ndarray (A,)
        ``v_a``.
    alpha : ndarray (C, K)
        Weights of the quadratic (AP-like) terms; ``K = 0`` for linear measures.
    u : ndarray (C or 1, K, A)
        ``u_k(a)``.
    thresholds : ndarray (K,)
        ``t_k``: ``S_n(k) = sum_{a >= t_k} P_na``.
    h : ndarray (N,)
        ``h_n`` (``1/n`` up to the cutoff).
    """

    scale: np.ndarray
    rank_weight: np.ndarray
    outcome_value: np.ndarray
    alpha: np.ndarray
    u: np.ndarray
    thresholds: np.ndarray
    h: np.ndarray

    @property
    def n_cells(self) -> int:
        return self.scale.shape[0]

    @property
    def is_linear(self) -> bool:
        return self.alpha.shape[1] == 0

    def take(self, idx: np.ndarray) -> ProductForm:
        """The form restricted to cells ``idx``."""
        u = self.u if self.u.shape[0] == 1 else self.u[idx]
        return ProductForm(self.scale[idx], self.rank_weight, self.outcome_value,
                           self.alpha[idx], u, self.thresholds, self.h)

    def value(self, P: np.ndarray) -> np.ndarray:
        """``E[M]`` per cell, shape (C,), for ``P`` of shape (C, N, A)."""
        return self.value_and_gradient_t(np.moveaxis(P, 2, 0), gradient=False)[0]

    def value_and_gradient(self, P: np.ndarray, gradient: bool = True):
        """``(E[M] (C,), dE/dP (C, N, A) or None)`` for ``P`` of shape (C, N, A)."""
        val, grad = self.value_and_gradient_t(np.moveaxis(P, 2, 0), gradient)
        return val, None if grad is None else np.moveaxis(grad, 0, 2)

    def value_and_gradient_t(self, P: np.ndarray, gradient: bool = True):
        """As :meth:`value_and_gradient` in outcome-major layout: ``P`` and dE/dP are (A, C, N).

        The solver works in this layout: sums over the few outcomes become
        sums of contiguous (C, N) slices.
        """
        A, C, N = P.shape
        val = np.zeros(C)
        grad = np.zeros((A, C, N)) if gradient else None
        if np.any(self.scale != 0):
            w = self.rank_weight[:N]
            val += self.scale * (np.tensordot(self.outcome_value, P, axes=1) @ w)
            if gradient:
                sw = self.scale[:, None] * w
                for a in range(A):
                    if self.outcome_value[a] != 0:
                        grad[a] += self.outcome_value[a] * sw
        h = self.h[:N]
        if self._indicator_terms(A):
            self._indicator_value_and_gradient(P, h, val, grad)
            return val, grad
        for k, t in enumerate(self.thresholds):
            uk = self.u[:, k, :]  # (C or 1, A)
            S = P[t:].sum(axis=0)
            if uk.shape[0] == 1 and np.array_equal(uk[0], np.arange(A) >= t):
                U = S  # AP, GAP, eGAP: the weight is the threshold's indicator
            elif uk.shape[0] == 1:
                U = np.tensordot(uk[0], P, axes=1)
            else:
                U = sum(uk[:, a, None] * P[a] for a in range(A) if np.any(uk[:, a]))
            q_prev = np.cumsum(S, axis=1)
            q_prev -= S
            term = h * U
            ak = self.alpha[:, k, None]
            val += ak[:, 0] * (term * (1.0 + q_prev)).sum(axis=1)
            if gradient:
                tail = np.cumsum(term[:, ::-1], axis=1)[:, ::-1]
                tail -= term  # sum_{m>n} h_m U_m
                base = ak * h * (1.0 + q_prev)
                tail *= ak
                for a in range(A):
                    if np.any(uk[:, a]):
                        grad[a] += uk[:, a, None] * base
                    if a >= t:
                        grad[a] += tail
        return val, grad

    def _indicator_terms(self, A: int) -> bool:
        """Every quadratic term weighs a rank by its threshold's indicator (AP, GAP, eGAP)."""
        t = np.asarray(self.thresholds)
        if t.size == 0 or self.u.shape[0] != 1 or np.any(np.diff(t) <= 0):
            return False
        return bool(np.array_equal(self.u[0], np.arange(A)[None, :] >= t[:, None]))

    def _indicator_value_and_gradient(self, P, h, val, grad):
        """The quadratic terms when ``u_k(a) = 1[a >= t_k]`` (thresholds increasing).

        Same sums as the general loop, fewer passes: ``U = S``, and the
        gradient of grade ``a`` is the running sum over the thresholds ``t_k <=
        a`` of ``alpha_k (h_n (1 + Q_{n-1}(k)) + sum_{m>n} h_m S_m(k))``.
        """
        A = P.shape[0]
        t = self.thresholds
        K = len(t)
        Ss = [P[t[-1]:].sum(axis=0)]  # S_k, from the top threshold down
        for k in range(K - 2, -1, -1):
            Ss.append(Ss[-1] + P[t[k]:t[k + 1]].sum(axis=0))
        run = None
        for k in range(K):
            S = Ss[K - 1 - k]
            q = np.cumsum(S, axis=1)
            q -= S
            q += 1.0  # 1 + Q_{n-1}
            term = h * S
            ak = self.alpha[:, k, None]
            val += ak[:, 0] * (term * q).sum(axis=1)
            if grad is None:
                continue
            f = np.cumsum(term[:, ::-1], axis=1)[:, ::-1]
            f -= term  # sum_{m>n} h_m S_m
            q *= h
            f += q
            f *= ak
            run = f if run is None else run + f  # thresholds t_j <= t_k
            for a in range(min(t[k], A), t[k + 1] if k < K - 1 else A):
                grad[a] += run

def _cells(per_topic: np.ndarray, n_systems: int) -> np.ndarray:
    """Repeat per-topic rows for every system: cell index ``s * T + t``."""
    return np.tile(per_topic, (n_systems,) + (1,) * (per_topic.ndim - 1))


def _ranks(n: int, cutoff: int | None) -> np.ndarray:
    h = 1.0 / np.arange(1, n + 1)
    if cutoff is not None:
        h[cutoff:] = 0.0
    return h


def _safe_inverse(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return np.divide(1.0, x, out=np.zeros_like(x), where=x > 0)


def _linear(collection, scale, weights, values, N, A) -> ProductForm:
    C = collection.n_systems * collection.n_topics
    w = np.zeros(N)
    m = min(N, len(weights))
    w[:m] = weights[:m]
    return ProductForm(np.broadcast_to(np.asarray(scale, np.float64), (C,)).copy(), w,
                       np.asarray(values, np.float64), np.zeros((C, 0)), np.zeros((1, 0, A)),
                       np.zeros(0, dtype=np.int64), np.zeros(N))


def _indicator(A: int, t: int) -> np.ndarray:
    return (np.arange(A) >= t).astype(np.float64)


def _ap_form(m: AP, collection, N: int, A: int) -> ProductForm:
    S = collection.n_systems
    t = min(m.rel, A)  # rel above the top grade: nothing is relevant, alpha = 0
    alpha = _cells(_safe_inverse(collection.num_relevant(m.rel))[:, None], S)
    return ProductForm(np.zeros(alpha.shape[0]), np.zeros(N), np.zeros(A), alpha,
                       _indicator(A, t)[None, None, :], np.array([t]), _ranks(N, m.cutoff))


def _recall_base(collection) -> np.ndarray:
    """``RB(k)``, k = 1..c: judged documents of grade >= k per topic (T, c)."""
    return np.cumsum(collection.grade_counts[:, :0:-1], axis=1)[:, ::-1].astype(np.float64)


def _graded_ap_form(m, collection, N: int, A: int) -> ProductForm:
    c = collection.max_grade
    S = collection.n_systems
    g = threshold_vector(m.g, c, m.name)
    rb = _recall_base(collection)
    thresholds = np.arange(1, c + 1)
    u = np.stack([_indicator(A, k) for k in thresholds])[None]  # (1, c, A)
    if isinstance(m, GAP):
        alpha = g[None, :] * _safe_inverse(rb @ g)[:, None]
    elif isinstance(m, EGAP):
        alpha = g[None, :] * _safe_inverse(rb)
    else:  # xGAP: u_k(a) = w_t(a) 1[a >= k], alpha_k = g_k
        ratio = g[None, :] * _safe_inverse(rb)
        G = np.cumsum(g)
        w = np.zeros((rb.shape[0], A))
        np.divide(np.cumsum(ratio, axis=1), G[None, :], out=w[:, 1:], where=G[None, :] > 0)
        u = _cells(w[:, None, :] * u, S)  # (C, c, A)
        alpha = np.broadcast_to(g, rb.shape)
    return ProductForm(np.zeros(S * rb.shape[0]), np.zeros(N), np.zeros(A),
                       _cells(np.ascontiguousarray(alpha), S), u, thresholds, _ranks(N, m.cutoff))


def _dcg_form(m: DCG, collection, N: int, A: int) -> ProductForm:
    gain, discount, k_run, k_ideal = m.vectors(collection)
    if isinstance(m, nDCG):
        idcg = _ideal_gains(collection, gain, k_ideal) @ discount[:k_ideal]
        scale = _cells(_safe_inverse(idcg), collection.n_systems)
    else:
        scale = 1.0
    return _linear(collection, scale, discount[:k_run], gain[:A], N, A)


def _binary_values(m, A: int) -> np.ndarray:
    return _indicator(A, min(m.rel, A))


def _precision_form(m: Precision, collection, N: int, A: int) -> ProductForm:
    return _linear(collection, 1.0 / m.cutoff, np.ones(m.cutoff), _binary_values(m, A), N, A)


def _recall_form(m: Recall, collection, N: int, A: int) -> ProductForm:
    k = N if m.cutoff is None else m.cutoff
    scale = _cells(_safe_inverse(collection.num_relevant(m.rel)), collection.n_systems)
    return _linear(collection, scale, np.ones(k), _binary_values(m, A), N, A)


def _rbp_form(m: RBP, collection, N: int, A: int) -> ProductForm:
    k = N if m.cutoff is None else min(N, m.cutoff)
    return _linear(collection, 1.0, m._weights(k), _binary_values(m, A), N, A)


SUPPORTED: dict[type, Callable] = {
    AP: _ap_form,
    GAP: _graded_ap_form,
    EGAP: _graded_ap_form,
    XGAP: _graded_ap_form,
    nDCG: _dcg_form,
    DCG: _dcg_form,
    Precision: _precision_form,
    Recall: _recall_form,
    RBP: _rbp_form,
}


def product_form(measure: base.Measure, collection) -> ProductForm:
    """The :class:`ProductForm` of ``measure`` on every cell of ``collection``.

    Cells are ordered system-major (``s * n_topics + t``); ``N`` is the
    collection's depth and ``A = max_grade + 1`` outcomes (grades 0..c).

    Raises
    ------
    MeasureError
        When the measure has no product-distribution expectation here.
    """
    build = SUPPORTED.get(type(measure))
    if build is None:
        names = ", ".join(sorted(cls.name for cls in SUPPORTED))
        raise MeasureError(
            f"{measure}: informativeness needs the expected value under a product "
            f"distribution, derived for {names} only"
        )
    return build(measure, collection, collection.grades.shape[2], collection.max_grade + 1)
