r"""The stability-optimal nDCG problem: objective, analytic gradient, parametrisation.

Kanoulas & Aslam, CIKM 2009 (Kanoulas & Aslam, CIKM 2009, §2.2) treats the gain vector
:math:`g` (one value per grade, :math:`g_0 = 0`) and the discount vector
:math:`d` (one weight per rank :math:`1..k`) of nDCG@k as unknowns and
maximises the dependability coefficient :math:`\Phi` of the systems x topics
nDCG matrix at one topic.

Linear forms
------------
With :math:`j(s,t,r)` the grade that system :math:`s` ranks at position
:math:`r` for topic :math:`t`,

.. math::

    N_{st}(g, d) = \sum_{r=1}^{k} g_{j(s,t,r)}\, d_r, \qquad
    D_t(g, d) = \sum_{r=1}^{k} g_{i(t,r)}\, d_r, \qquad
    x_{st} = N_{st} / D_t,

where :math:`i(t, r)` is the grade at position :math:`r` of topic :math:`t`'s
ideal list (its relevant grades sorted by decreasing *gain*, then cut at
:math:`k`). For fixed :math:`g` both are linear in :math:`d`, for fixed
:math:`d` linear in :math:`g` (for non-decreasing gains; for other gains the
ideal order, hence the form, changes at the points where two grades swap
gains), and jointly bilinear. They are stored sparsely: only positions with a
positive grade contribute. :class:`Scenario` is proved equal to
:class:`irstab.metrics.nDCG` (the kernel ``irstab evaluate`` reports) in
``tests/optimizer/test_optimizer_problem.py``.

Objective and gradient
----------------------
The variance components come from the same ANOVA kernel as the G-study
(:func:`irstab.stability.gstudy._components`). With row, column and grand
means :math:`\bar x_s, \bar x_t, \bar x` and residual
:math:`e_{st} = x_{st} - \bar x_s - \bar x_t + \bar x`,

.. math::

    \frac{\partial SS_{sys}}{\partial x_{st}} = 2(\bar x_s - \bar x), \quad
    \frac{\partial SS_{top}}{\partial x_{st}} = 2(\bar x_t - \bar x), \quad
    \frac{\partial SS_{res}}{\partial x_{st}} = 2 e_{st}

(the cross terms vanish because deviations from a mean sum to zero), and
through :math:`MS = SS/df` and the expected-mean-square equations
:math:`\sigma^2_{sys} = (MS_s - MS_r)/n_t`,
:math:`\sigma^2_{top} = (MS_t - MS_r)/n_s`, :math:`\sigma^2_{res} = MS_r`.
With :math:`V = \sigma^2_{sys} + \sigma^2_{top} + \sigma^2_{res}`,
:math:`\Phi(1) = \sigma^2_{sys}/V` has
:math:`\partial\Phi/\partial\sigma^2_{sys} = (\sigma^2_{top}+\sigma^2_{res})/V^2`
and :math:`\partial\Phi/\partial\sigma^2_{top} =
\partial\Phi/\partial\sigma^2_{res} = -\sigma^2_{sys}/V^2`
(:math:`E\rho^2(1) = \sigma^2_{sys}/(\sigma^2_{sys}+\sigma^2_{res})` likewise).
As in the G-study a negative component counts as 0 (and then contributes no
gradient); :math:`0/0 = 0`. Finally, with :math:`G = \partial\Phi/\partial x`,

.. math::

    \frac{\partial\Phi}{\partial N_{st}} = \frac{G_{st}}{D_t}, \qquad
    \frac{\partial\Phi}{\partial D_t} = -\sum_s \frac{G_{st}\,x_{st}}{D_t},

and the linear forms give the gradients in :math:`d` and :math:`g`. A topic
with :math:`D_t = 0` scores 0 (the nDCG convention) and has no gradient.

Optimising :math:`\Phi(1)` optimises :math:`\Phi(n')` for every :math:`n'`:
:math:`\Phi(n') = n'\Phi(1)/(1 + (n'-1)\Phi(1))` is increasing in
:math:`\Phi(1)` (Kanoulas & Aslam, CIKM 2009, §2.2).

Parametrisation
---------------
nDCG is scale-free in :math:`g` and in :math:`d`, so each is normalised to
sum 1 (Kanoulas & Aslam, CIKM 2009, §2.2). A monotone block (non-increasing :math:`d`,
non-decreasing :math:`g_1..g_m`) is written with non-negative increments,
and each increment is scaled by the mass it adds, so that every block lives on
a standard simplex :math:`y \ge 0, \sum y = 1`:

.. math::

    d_r = \sum_{i \ge r} y_i / i, \qquad
    g_j = \sum_{i \le j} y_i / (m - i + 1).

The ordering constraints then become bounds, which keeps SLSQP fast at large
:math:`k`. Without monotonicity :math:`y` is the vector itself.

References
----------
E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009.
R. L. Brennan (2001). *Generalizability Theory*. Springer, ch. 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from ..collection import Collection
from ..errors import DegenerateDataError, IRStabError, MeasureError
from ..metrics.dcg import unit_max
from ..metrics.gains import Discount, Gain
from ..stability.designs.crossed import crossed_components

__all__ = [
    "DISCOUNT_PRESETS",
    "GAIN_PRESETS",
    "Objective",
    "Parametrisation",
    "PhiConstraint",
    "PriorConstraint",
    "Problem",
    "RANDOM_KINDS",
    "Scenario",
    "Task",
    "Vary",
    "discount_vector",
    "gain_vector",
    "objective_and_gradient",
    "stability_and_gradient",
]


class Vary(str, Enum):
    """Which vectors are unknowns."""

    discount = "discount"
    gain = "gain"
    joint = "joint"


class Objective(str, Enum):
    """What is maximised: a function of the systems x topics nDCG matrix.

    ``phi`` and ``erho2``: the coefficient at one topic;
    ``discrimination``: the smooth share of significant system pairs
    (:mod:`irstab.optimizer.discrimination`).
    """

    phi = "phi"
    erho2 = "erho2"
    discrimination = "discrimination"


def as_enum(cls, value, name: str):
    """``cls(value)`` or an :class:`~irstab.errors.IRStabError` naming the parameter."""
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise IRStabError(f"{name}: expected one of {choices}, got {value!r}") from None


#: Discount presets of Kanoulas & Aslam, CIKM 2009 (Fig. 2) used as starts and for comparison.
DISCOUNT_PRESETS: tuple[str, ...] = ("log2", "zipf", "linear", "flat")
#: Gain presets of Kanoulas & Aslam, CIKM 2009 (Table 2); ``flat`` gives every relevant grade the same gain.
GAIN_PRESETS: tuple[str, ...] = ("linear", "exp", "flat")
#: Kinds of random start, used in turn (:meth:`Parametrisation.random`).
RANDOM_KINDS: tuple[str, ...] = ("dirichlet-1", "dirichlet-0.1", "flat-top")


# ----------------------------------------------------------------- objective


def _coefficient_grad(comps: np.ndarray, objective: Objective) -> tuple[float, np.ndarray]:
    """Coefficient at one topic and its derivative by the raw components."""
    c = np.maximum(comps, 0.0)
    active = comps > 0
    sys_, top, res = c
    noise = res if objective is Objective.erho2 else top + res
    total = sys_ + noise
    if total <= 0:
        return 0.0, np.zeros(3)
    value = sys_ / total
    d = np.array([noise, -sys_, -sys_]) / total**2
    if objective is Objective.erho2:
        d[1] = 0.0
    return float(value), d * active


def stability_and_gradient(
    x: np.ndarray, objective: Objective | str = Objective.phi
) -> tuple[float, np.ndarray]:
    r"""Phi(1) (or Erho2(1)) of a score matrix and its gradient by every cell.

    Parameters
    ----------
    x : numpy.ndarray, shape (n_systems, n_topics)
    objective : {"phi", "erho2"}

    Returns
    -------
    value : float
        The coefficient at one topic from the G-study's components
        (negative components count as 0; ``0/0 = 0``).
    grad : numpy.ndarray, shape of ``x``
        :math:`\partial value / \partial x_{st}` (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7], [0.1, 0.3, 0.5]])
    >>> v, g = stability_and_gradient(x)
    >>> round(v, 4)  # gstudy(x).phi(1): 0.035 / (0.035 + 0.01 + 0.0225)
    0.5185
    >>> g.shape
    (4, 3)
    """
    objective = as_enum(Objective, objective, "objective")
    n_s, n_t = x.shape
    comps = crossed_components(x)
    value, dc = _coefficient_grad(comps, objective)
    if not dc.any():
        return value, np.zeros_like(x)
    grand = x.mean()
    rows = x.mean(axis=1, keepdims=True)
    cols = x.mean(axis=0, keepdims=True)
    d_ms_s = 2.0 * (rows - grand) / (n_s - 1)
    d_ms_t = 2.0 * (cols - grand) / (n_t - 1)
    d_ms_r = 2.0 * (x - rows - cols + grand) / ((n_s - 1) * (n_t - 1))
    grad = (
        dc[0] * (d_ms_s - d_ms_r) / n_t
        + dc[1] * (d_ms_t - d_ms_r) / n_s
        + dc[2] * d_ms_r
    )
    return value, grad


def _discrimination(x: np.ndarray) -> tuple[float, np.ndarray]:
    from .discrimination import discrimination_and_gradient

    return discrimination_and_gradient(x)


#: ``objective -> f(x) = (value, d value / d x)`` for a systems x topics score matrix ``x``.
#: Everything above the score matrix (nDCG's linear forms, the parametrisations, the
#: backends) is shared, so a new objective is one entry here and one in ``_BATCH``.
OBJECTIVE_FUNCTIONS = {
    Objective.phi: lambda x: stability_and_gradient(x, Objective.phi),
    Objective.erho2: lambda x: stability_and_gradient(x, Objective.erho2),
    Objective.discrimination: _discrimination,
}


def objective_and_gradient(x: np.ndarray, objective: Objective | str) -> tuple[float, np.ndarray]:
    """The objective of a score matrix ``x`` (systems x topics) and its gradient by every cell."""
    return OBJECTIVE_FUNCTIONS[as_enum(Objective, objective, "objective")](x)


def objective_batch(x: np.ndarray, objective: Objective | str) -> np.ndarray:
    """The objective for a batch ``x[..., s, t]`` (no gradient)."""
    objective = as_enum(Objective, objective, "objective")
    if objective is Objective.discrimination:
        from .discrimination import discrimination_batch

        return discrimination_batch(x)
    return stability_batch(x, objective)


def stability_batch(x: np.ndarray, objective: Objective | str = Objective.phi) -> np.ndarray:
    """The coefficient at one topic for a batch ``x[..., s, t]`` (no gradient)."""
    objective = Objective(objective)
    c = np.maximum(crossed_components(x), 0.0)
    noise = c[..., 2] if objective is Objective.erho2 else c[..., 1] + c[..., 2]
    total = c[..., 0] + noise
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, c[..., 0] / total, 0.0)


# ----------------------------------------------------------------- scenario


def _sum_by(index: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """``out[i] = sum(weights[index == i])`` as float64 (bincount of no entries is int64)."""
    return np.bincount(index, weights=weights, minlength=n).astype(np.float64, copy=False)


def _check_cutoff(collection: Collection, cutoff) -> int:
    if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff < 1:
        raise IRStabError(f"cutoff: must be a positive integer, got {cutoff!r}")
    if cutoff > collection.depth:
        raise IRStabError(
            f"cutoff: {cutoff} exceeds the collection depth {collection.depth} (ranks kept per "
            "topic); lower the cutoff or build the collection with a larger depth"
        )
    return int(cutoff)


def gain_vector(spec, max_grade: int) -> np.ndarray:
    """Gains of grades ``0..max_grade`` from a preset name, a Gain or a sequence.

    ``flat`` (every positive grade gains 1) is accepted besides the measure
    gains; a sequence must have ``max_grade + 1`` values with ``g[0] = 0``.
    """
    if isinstance(spec, str) and spec == "flat":
        return np.r_[0.0, np.ones(max_grade)]
    if isinstance(spec, np.ndarray):
        spec = tuple(spec.tolist())
    return Gain.of(spec).vector(max_grade)


def discount_vector(spec, cutoff: int) -> np.ndarray:
    """Weights of ranks ``1..cutoff`` from a preset name, a Discount or a sequence."""
    if isinstance(spec, np.ndarray):
        spec = tuple(spec.tolist())
    disc = Discount.of(spec)
    if disc.length is not None and disc.length != cutoff:
        raise MeasureError(
            f"discount: has {disc.length} weights but the cutoff is {cutoff}; give one weight "
            "per rank"
        )
    return disc.vector(cutoff, cutoff)


@dataclass(frozen=True, eq=False)
class Scenario:
    r"""nDCG@k on one collection (optionally a subset of its topics) as a function of g and d.

    Parameters
    ----------
    collection : irstab.Collection or irstab.optimizer.LinearForms
        LinearForms: the same positions without the grade tensor
        (:mod:`irstab.optimizer.forms`).
    cutoff : int
        ``k``; at most the collection's depth.
    topics : sequence of int, optional
        Indices of the topics to use (default all).
    objective : {"phi", "erho2"}
    name : str, optional
        Label (default ``"@k"``).
    design : optional
        The stability objective of another G-study design over the
        collection's topics, e.g. an
        :class:`irstab.stability.objective.FacetObjective` whose cells are the
        collection's topics (:func:`irstab.collection.assessors.assessor_collection`):
        any object with ``value_and_grad(x) -> (float, grad)`` and
        ``values(x[..., s, t]) -> array``. Default: Phi/Erho2 at one topic of
        the crossed systems x topics design (``objective``).

    Notes
    -----
    Built once: the positions ``(s, t, r)`` of positive grades in the top
    ``k`` (sparse triplets) and every topic's count of each grade. Evaluating
    :meth:`ndcg` or :meth:`value_and_grad` costs O(nnz + S T) with ``bincount``;
    no Python loop runs over systems, topics or ranks.
    """

    collection: Collection
    cutoff: int
    topics: tuple[int, ...] | None = None
    objective: Objective = Objective.phi
    name: str | None = None
    design: object | None = None

    def __post_init__(self) -> None:
        from .forms import LinearForms

        c = self.collection
        if not isinstance(c, (Collection, LinearForms)):
            raise IRStabError(
                f"collection: expected an irstab.Collection or LinearForms, got {type(c).__name__}"
            )
        k = _check_cutoff(c, self.cutoff)
        object.__setattr__(self, "cutoff", k)
        object.__setattr__(self, "objective", as_enum(Objective, self.objective, "objective"))
        if self.topics is None:
            t_idx = np.arange(c.n_topics)
        else:
            t_idx = np.asarray(self.topics, dtype=np.int64).reshape(-1)
            if t_idx.size and (t_idx.min() < 0 or t_idx.max() >= c.n_topics):
                raise IRStabError(f"topics: indices must be in 0..{c.n_topics - 1}")
            if len(np.unique(t_idx)) != len(t_idx):
                raise IRStabError("topics: indices must be distinct")
        object.__setattr__(self, "topics", tuple(int(t) for t in t_idx))
        if c.n_systems < 2:
            raise DegenerateDataError(
                f"collection: {c.n_systems} system(s); Phi needs at least 2 systems to compare"
            )
        if len(t_idx) < 2:
            raise DegenerateDataError(
                f"topics: {len(t_idx)} topic(s); Phi needs at least 2 topics"
            )
        if self.design is not None:
            if not (hasattr(self.design, "value_and_grad") and hasattr(self.design, "values")):
                raise IRStabError("design: needs value_and_grad(x) and values(x) methods")
            if self.topics != tuple(range(c.n_topics)):
                raise IRStabError("topics: a design objective uses all of the collection's topics")
            if getattr(self.design, "n_cells", c.n_topics) != c.n_topics:
                raise IRStabError(
                    f"design: has {self.design.n_cells} cells but the collection has "
                    f"{c.n_topics} topics"
                )
        if self.name is None:
            object.__setattr__(self, "name", f"@{k}")
        S, T = c.n_systems, len(t_idx)
        if isinstance(c, LinearForms):
            s, t, r, grade = c.positions(t_idx, k)
        else:
            grades = np.clip(c.grades_to(k)[:, t_idx, :], 0, None)
            s, t, r = np.nonzero(grades)
            grade = grades[s, t, r]
        if not len(s):
            raise DegenerateDataError(
                f"cutoff {k}: no run ranks a relevant document in its top {k} on any of the "
                f"{len(t_idx)} topics, so every nDCG@{k} is 0 and Phi is undefined; "
                "raise the cutoff"
            )
        # sparse triplets of positive grades: cell index, rank, grade
        object.__setattr__(self, "_cell", (s * T + t).astype(np.int64))
        object.__setattr__(self, "_rank", r.astype(np.int64))
        object.__setattr__(self, "_grade", grade.astype(np.int64))
        counts = np.asarray(c.grade_counts)[t_idx].copy()
        counts[:, 0] = 0
        object.__setattr__(self, "_counts", counts)  # (T, G) relevant docs per grade
        object.__setattr__(self, "_shape", (S, T))
        object.__setattr__(self, "_cache", {})

    # ------------------------------------------------------------ sizes

    @property
    def n_systems(self) -> int:
        return self._shape[0]

    @property
    def n_topics(self) -> int:
        return self._shape[1]

    @property
    def n_grades(self) -> int:
        """``max_grade + 1``: the length of a gain vector."""
        return self.collection.max_grade + 1

    @property
    def topic_ids(self) -> tuple[str, ...]:
        return tuple(self.collection.topics[t] for t in self.topics)

    # ------------------------------------------------------------ linear forms

    def _ideal_blocks(self, gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Start and end positions (clipped to k) of each grade's block in the ideal lists.

        Grades are ordered by decreasing gain (stable in decreasing grade, as the
        kernel sorts ``gain[ideal]``); ties in gain do not change IDCG.
        """
        G = len(gain)
        return self._blocks_for_order(np.lexsort((-np.arange(G), -gain)))  # gain desc, grade desc

    def _blocks_for_order(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Block positions when the ideal list puts grades in ``order`` (first = top)."""
        G = len(order)
        cnt = self._counts[:, order]
        end = np.cumsum(cnt, axis=1)
        start = end - cnt
        k = self.cutoff
        inv = np.empty(G, dtype=np.int64)
        inv[order] = np.arange(G)
        return np.minimum(start, k)[:, inv], np.minimum(end, k)[:, inv]

    def _ideal_gains(self, gain: np.ndarray) -> np.ndarray:
        """``B[t, r]``: the gain at ideal position ``r`` (zeros past the relevant documents)."""
        return self._gain_terms(gain)[3]

    def _gain_terms(self, gain: np.ndarray):
        """Gain-dependent arrays, cached for the last gain (fixed in a discount problem)."""
        key = gain.tobytes()
        hit = self._cache.get("gain")
        if hit is not None and hit[0] == key:
            return hit[1]
        start, end = self._ideal_blocks(gain)
        r = np.arange(self.cutoff)
        inside = (r[None, None, :] >= start[:, :, None]) & (r[None, None, :] < end[:, :, None])
        ideal = np.einsum("tjr,j->tr", inside, gain)
        terms = (gain[self._grade], start, end, ideal)
        self._cache["gain"] = (key, terms)
        return terms

    def _gain_matrix(self, gain: np.ndarray, build: bool = True):
        """``(A, A^T)`` in CSR form, ``A[s T + t, r]`` the gain at rank ``r`` of cell ``(s, t)``.

        For a fixed gain (a discount problem) ``N = A d`` and the discount
        gradient ``A^T w`` are sparse products, several times faster than
        gathering and summing the triplets anew at every call. Cached for the
        last gain; with ``build=False`` only a cached matrix is returned (else None).
        """
        key = gain.tobytes()
        hit = self._cache.get("matrix")
        if hit is not None and hit[0] == key:
            return hit[1]
        if not build:
            return None
        from scipy.sparse import csr_matrix

        S, T = self._shape
        a = csr_matrix(
            (self._gain_terms(gain)[0], (self._cell, self._rank)), shape=(S * T, self.cutoff)
        )
        out = (a, a.T.tocsr())
        self._cache["matrix"] = (key, out)
        return out

    def _disc_terms(self, discount: np.ndarray):
        """Discount at each stored position, cached for the last discount."""
        key = discount.tobytes()
        hit = self._cache.get("disc")
        if hit is not None and hit[0] == key:
            return hit[1]
        terms = discount[self._rank]
        self._cache["disc"] = (key, terms)
        return terms

    def dcg(self, gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
        """``N[s, t]``: DCG@k of every system on every topic."""
        S, T = self._shape
        matrix = self._gain_matrix(gain, build=False)
        if matrix is not None:
            return (matrix[0] @ discount).reshape(S, T)
        w = self._gain_terms(gain)[0] * self._disc_terms(discount)
        return _sum_by(self._cell, w, S * T).reshape(S, T)

    def idcg(self, gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
        """``D[t]``: ideal DCG@k of every topic."""
        return self._gain_terms(gain)[3] @ discount

    def ndcg(self, gain, discount) -> np.ndarray:
        """nDCG@k matrix ``(systems, topics)``; 0 where IDCG = 0 (the kernel's convention)."""
        gain, discount = self.check_vectors(gain, discount)
        return self._ndcg(gain, discount)[0]

    def _ndcg(self, gain, discount):
        n = self.dcg(gain, discount)
        dd = self.idcg(gain, discount)
        ok = dd > 0
        x = np.divide(n, dd, out=np.zeros_like(n), where=ok[None, :])
        return x, dd, ok

    def check_vectors(self, gain, discount) -> tuple[np.ndarray, np.ndarray]:
        """Validate full vectors: ``gain`` of length ``max_grade + 1`` with ``g[0] = 0``."""
        gain = np.asarray(gain, dtype=np.float64).reshape(-1)
        discount = np.asarray(discount, dtype=np.float64).reshape(-1)
        if len(gain) != self.n_grades:
            raise MeasureError(
                f"gain: has {len(gain)} values but the qrels have grades 0..{self.n_grades - 1} "
                f"({self.n_grades} values needed)"
            )
        if gain[0] != 0:
            raise MeasureError(f"gain: gain[0] (grade 0, non-relevant) must be 0, got {gain[0]!r}")
        if len(discount) < self.cutoff:
            raise MeasureError(
                f"discount: has {len(discount)} weights but the cutoff is {self.cutoff}"
            )
        for name, v in (("gain", gain), ("discount", discount)):
            if not np.all(np.isfinite(v)) or np.any(v < 0):
                raise MeasureError(f"{name}: values must be finite and >= 0")
        return gain, discount[: self.cutoff]

    # ------------------------------------------------------------ objective

    def stability(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """The objective of a score matrix and its gradient (the design's, if given)."""
        if self.design is None:
            return objective_and_gradient(x, self.objective)
        return self.design.value_and_grad(x)

    def stability_batch(self, x: np.ndarray) -> np.ndarray:
        """The objective of every matrix of a batch ``x[..., s, t]``."""
        if self.design is None:
            return objective_batch(x, self.objective)
        return self.design.values(x)

    def value(self, gain, discount) -> float:
        """The objective (Phi(1), Erho2(1), discrimination, or the design's) of the nDCG matrix."""
        gain, discount = self.check_vectors(gain, discount)
        return self.stability(self._ndcg(gain, discount)[0])[0]

    def value_and_grad(self, gain, discount) -> tuple[float, np.ndarray, np.ndarray]:
        """Objective and its gradients by the full gain vector and by the discount.

        Returns ``(value, grad_gain (max_grade + 1,), grad_discount (k,))``;
        ``grad_gain[0]`` is 0 (``g_0`` is fixed).
        """
        gain, discount = self.check_vectors(gain, discount)
        return self._value_and_grad(gain, discount)

    def _value_and_grad(self, gain, discount, gain_grad: bool = True):
        """As :meth:`value_and_grad`; ``gain_grad=False`` (gain fixed) returns a zero gain gradient.

        With the gain fixed the linear forms are the cached sparse matrix of
        :meth:`_gain_matrix` (the same sums, in another order).
        """
        matrix = None if gain_grad else self._gain_matrix(gain)
        x, dd, ok = self._ndcg(gain, discount)
        value, gx = self.stability(x)
        safe = np.where(ok, dd, 1.0)
        w_n = np.where(ok[None, :], gx / safe[None, :], 0.0)  # dPhi/dN
        w_d = -(w_n * x).sum(axis=0)  # dPhi/dD
        G, k = self.n_grades, self.cutoff
        gw, start, end, ideal = self._gain_terms(gain)
        grad_g = np.zeros(G)
        if matrix is not None:
            grad_d = matrix[1] @ w_n.reshape(-1)
        else:
            wc = w_n.reshape(-1)[self._cell]
            grad_d = _sum_by(self._rank, wc * gw, k)
            grad_g = _sum_by(self._grade, wc * self._disc_terms(discount), G)
            # ideal DCG: dD_t/dg_j = discount mass of grade j's block
            cum = np.r_[0.0, np.cumsum(discount)]
            grad_g = grad_g + w_d @ (cum[end] - cum[start])
            grad_g[0] = 0.0
        grad_d = grad_d + w_d @ ideal  # ideal DCG: dD_t/dd_r = gain at r
        return value, grad_g, grad_d


# ----------------------------------------------------------------- parametrisation


def _normalise(v: np.ndarray, what: str) -> np.ndarray:
    v = unit_max(v)  # first: a sum of weights near 1e308 would overflow
    total = v.sum()
    if not total > 0:
        raise MeasureError(f"{what}: all weights are 0; nDCG is undefined")
    return v / total


@dataclass(frozen=True, eq=False)
class Parametrisation:
    r"""Map between optimisation variables ``y`` (a product of simplices) and (g, d).

    Parameters
    ----------
    n_grades : int
        Length of the gain vector (``max_grade + 1``).
    cutoff : int
        Length of the discount vector.
    vary : Vary
        Unknown blocks: discount, gain or both (joint).
    monotone : bool
        Non-increasing discount and non-decreasing gain (Kanoulas & Aslam, CIKM 2009, Fig. 1);
        without it only non-negativity (Kanoulas & Aslam, CIKM 2009, Fig. 3).
    gain, discount : numpy.ndarray
        Fixed vectors for the block that does not vary (normalised to sum 1).

    Notes
    -----
    Blocks are ordered gain first, then discount. See the module docstring
    for the increment coordinates.
    """

    n_grades: int
    cutoff: int
    vary: Vary
    monotone: bool
    gain: np.ndarray
    discount: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "vary", as_enum(Vary, self.vary, "vary"))
        m, k = self.n_grades - 1, self.cutoff
        # mass added by one unit of increment i
        object.__setattr__(self, "_a_gain", np.arange(m, 0, -1, dtype=float))
        object.__setattr__(self, "_a_disc", np.arange(1, k + 1, dtype=float))
        object.__setattr__(self, "gain", _normalise(np.asarray(self.gain, float), "gain"))
        object.__setattr__(self, "discount", _normalise(np.asarray(self.discount, float), "discount"))

    @property
    def varies_gain(self) -> bool:
        return self.vary is not Vary.discount

    @property
    def varies_discount(self) -> bool:
        return self.vary is not Vary.gain

    @property
    def blocks(self) -> tuple[slice, ...]:
        """Slices of ``y`` that each sum to 1."""
        m, k = self.n_grades - 1, self.cutoff
        out, at = [], 0
        if self.varies_gain:
            out.append(slice(at, at + m))
            at += m
        if self.varies_discount:
            out.append(slice(at, at + k))
        return tuple(out)

    @property
    def n_vars(self) -> int:
        return sum(b.stop - b.start for b in self.blocks)

    # -- one block each way

    def _gain_from(self, y: np.ndarray) -> np.ndarray:
        g = np.cumsum(y / self._a_gain) if self.monotone else y
        return np.r_[0.0, g]

    def _disc_from(self, y: np.ndarray) -> np.ndarray:
        return np.cumsum((y / self._a_disc)[::-1])[::-1] if self.monotone else y.copy()

    def _gain_to(self, g: np.ndarray) -> np.ndarray:
        g = g[1:]
        return np.diff(np.r_[0.0, g]) * self._a_gain if self.monotone else g.copy()

    def _disc_to(self, d: np.ndarray) -> np.ndarray:
        return -np.diff(np.r_[d, 0.0]) * self._a_disc if self.monotone else d.copy()

    def vectors(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(gain, discount)`` of ``y``; the fixed block is returned as given."""
        y = np.asarray(y, dtype=float)
        blocks = iter(self.blocks)
        g = self._gain_from(y[next(blocks)]) if self.varies_gain else self.gain
        d = self._disc_from(y[next(blocks)]) if self.varies_discount else self.discount
        return g, d

    def variables(self, gain: np.ndarray, discount: np.ndarray, check: bool = True) -> np.ndarray:
        """``y`` of full vectors (each normalised to sum 1 first).

        Raises :class:`~irstab.errors.MeasureError` when a vector violates the
        ordering constraints of a monotone parametrisation (with
        ``check=False`` the violation is clipped instead: for solver output
        that meets the constraints only to the solver's tolerance).
        """
        parts = []
        if self.varies_gain:
            g = np.asarray(gain, dtype=float)
            g = np.r_[0.0, _normalise(g[1:], "gain")]
            parts.append(self._gain_to(g))
        if self.varies_discount:
            parts.append(self._disc_to(_normalise(np.asarray(discount, float), "discount")))
        y = np.concatenate(parts) if parts else np.zeros(0)
        if check and np.any(y < -1e-12):
            raise MeasureError(
                "start: the vector breaks the ordering constraints (gain non-decreasing in the "
                "grade, discount non-increasing in the rank); use monotone=False"
            )
        return np.clip(y, 0.0, None)

    def grad(self, grad_gain: np.ndarray, grad_disc: np.ndarray) -> np.ndarray:
        """Chain rule from full-vector gradients to ``y``."""
        parts = []
        if self.varies_gain:
            gg = grad_gain[1:]
            if self.monotone:
                gg = np.cumsum(gg[::-1])[::-1] / self._a_gain
            parts.append(gg)
        if self.varies_discount:
            gd = np.cumsum(grad_disc) / self._a_disc if self.monotone else grad_disc
            parts.append(gd)
        return np.concatenate(parts)

    def project(self, y: np.ndarray) -> np.ndarray:
        """Clip to ``y >= 0`` and rescale each block to sum 1 (nDCG is scale-free)."""
        y = np.clip(np.asarray(y, dtype=float), 0.0, None)
        for b in self.blocks:
            s = y[b].sum()
            y[b] = y[b] / s if s > 0 else 1.0 / (b.stop - b.start)
        return y

    def random(
        self, rng: np.random.Generator, kind: str = "dirichlet-1", support: int = 32
    ) -> np.ndarray:
        r"""A random feasible point of one of the kinds in :data:`RANDOM_KINDS`.

        Every block (a simplex in the increment coordinates ``y``) is drawn
        independently:

        * ``dirichlet-1``: :math:`y \sim \mathrm{Dirichlet}(1, \dots, 1)`, uniform
          on the simplex;
        * ``dirichlet-0.1``: :math:`\mathrm{Dirichlet}(0.1, \dots, 0.1)`, mass on
          a few coordinates anywhere in the block;
        * ``flat-top``: a mixture (Dirichlet(1) weights) of one to three
          vertices :math:`e_j`, ``j`` uniform over the block: for a monotone
          discount a mixture of flat-top-``j`` discounts (weight on ranks
          ``1..j``, zero below).

        A Dirichlet draw on a block longer than ``support`` keeps only its
        ``support`` largest coordinates (renormalised): the shape of the
        discount is kept (the positions are still uniform over all ranks) while
        the local solver starts on a small working set instead of crawling
        from a thousand-step discount. Uniform coverage matters: on DL-2019 at
        k = 1000 the better of two local optima (an almost flat discount) is
        reached from discounts whose mass spreads to the deep ranks, and
        starts concentrated on the top ranks all end in the other one.
        """
        if kind not in RANDOM_KINDS:
            raise IRStabError(f"kind: expected one of {', '.join(RANDOM_KINDS)}, got {kind!r}")
        parts = []
        for b in self.blocks:  # one or two blocks
            n = b.stop - b.start
            y = np.zeros(n)
            if kind == "flat-top":
                idx = np.unique(rng.integers(0, n, size=int(rng.integers(1, 4))))
                y[idx] = rng.dirichlet(np.ones(len(idx)))
            else:
                alpha = 1.0 if kind == "dirichlet-1" else 0.1
                y = rng.dirichlet(np.full(n, alpha))
                if n > support:
                    y[np.argsort(y)[: n - support]] = 0.0
                    y /= y.sum()
            parts.append(y)
        return np.concatenate(parts)

    # -- natural coordinates: the varying vectors themselves (g_1..g_m, d_1..d_k)

    def natural(self, y: np.ndarray) -> np.ndarray:
        """``v``: the varying blocks of ``(g[1:], d)`` (each sums to 1)."""
        g, d = self.vectors(y)
        parts = ([g[1:]] if self.varies_gain else []) + ([d] if self.varies_discount else [])
        return np.concatenate(parts)

    def from_natural(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(gain, discount)`` of natural coordinates ``v``."""
        v = np.asarray(v, dtype=float)
        blocks = iter(self.blocks)
        g = np.r_[0.0, v[next(blocks)]] if self.varies_gain else self.gain
        d = v[next(blocks)] if self.varies_discount else self.discount
        return g, d

    def natural_to_y(self, v: np.ndarray) -> np.ndarray:
        """``y`` of natural coordinates, clipped and renormalised (solver tolerance)."""
        g, d = self.from_natural(np.clip(v, 0.0, None))
        return self.project(self.variables(g, d, check=False))

    def natural_grad(self, grad_gain: np.ndarray, grad_disc: np.ndarray) -> np.ndarray:
        parts = ([grad_gain[1:]] if self.varies_gain else []) + (
            [grad_disc] if self.varies_discount else []
        )
        return np.concatenate(parts)


# ----------------------------------------------------------------- problem


@dataclass(frozen=True, eq=False)
class Problem:
    r"""Scenarios sharing one gain and one discount, over a :class:`Parametrisation`.

    One scenario is the problem of Kanoulas & Aslam, CIKM 2009, Fig. 1; several are the minimax
    problem (each scenario's discount is the shared one truncated at its
    cutoff). The objective values are ``values(y)``; the single-scenario
    objective is ``values(y)[0]``.

    Examples
    --------
    >>> import numpy as np
    >>> from irstab.simulate import simulate_collection
    >>> from irstab.evaluation import as_collection
    >>> sim = simulate_collection(n_systems=6, n_topics=8, depth=20, seed=3)
    >>> coll = as_collection(sim.qrels, sim.runs, depth=20)
    >>> p = Problem.build([Scenario(coll, 10)], vary="discount")
    >>> y = p.param.variables(p.param.gain, discount_vector("log2", 10))
    >>> v, jac = p.values_and_jac(y)
    >>> v.shape, jac.shape
    ((1,), (1, 10))
    """

    scenarios: tuple[Scenario, ...]
    param: Parametrisation

    @classmethod
    def build(
        cls,
        scenarios: Sequence[Scenario],
        *,
        vary: Vary | str = Vary.discount,
        monotone: bool = True,
        gain="linear",
        discount="log2",
    ) -> Problem:
        """Problem over shared vectors; the discount is defined on the largest cutoff."""
        scenarios = tuple(scenarios)
        if not scenarios:
            raise IRStabError("scenarios: give at least one")
        grades = {s.n_grades for s in scenarios}
        if len(grades) != 1:
            raise IRStabError(
                f"scenarios: collections have different grade scales {sorted(grades)}; one "
                "gain vector cannot serve them all"
            )
        k = max(s.cutoff for s in scenarios)
        G = grades.pop()
        if G < 2:
            raise IRStabError("gain: the qrels need at least one positive grade")
        param = Parametrisation(
            n_grades=G,
            cutoff=k,
            vary=as_enum(Vary, vary, "vary"),
            monotone=bool(monotone),
            gain=gain_vector(gain, G - 1),
            discount=discount_vector(discount, k),
        )
        return cls(scenarios, param)

    @property
    def n_scenarios(self) -> int:
        return len(self.scenarios)

    def values_of(self, gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
        """Objective of every scenario for full vectors (no gradient)."""
        return np.array(
            [
                s.stability(s._ndcg(gain, discount[: s.cutoff])[0])[0]
                for s in self.scenarios
            ]
        )

    def values(self, y: np.ndarray) -> np.ndarray:
        return self.values_of(*self.param.vectors(y))

    def _full_grads(self, gain, discount):
        vals = np.empty(self.n_scenarios)
        K = self.param.cutoff
        gg = np.empty((self.n_scenarios, len(gain)))
        gd = np.zeros((self.n_scenarios, K))
        for i, s in enumerate(self.scenarios):  # loop over scenarios only (a handful)
            vals[i], gg[i], gd[i, : s.cutoff] = s._value_and_grad(
                gain, discount[: s.cutoff], gain_grad=self.param.varies_gain
            )
        return vals, gg, gd

    def values_and_jac(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Objective of every scenario and the Jacobian by ``y``, ``(n_scenarios, n_vars)``."""
        vals, gg, gd = self._full_grads(*self.param.vectors(y))
        jac = np.stack([self.param.grad(a, b) for a, b in zip(gg, gd)])
        return vals, jac

    def natural_values_and_jac(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Objective of every scenario and the Jacobian by natural coordinates ``v``."""
        vals, gg, gd = self._full_grads(*self.param.from_natural(v))
        jac = np.stack([self.param.natural_grad(a, b) for a, b in zip(gg, gd)])
        return vals, jac

    def ndcg(self, y: np.ndarray, scenario: int = 0) -> np.ndarray:
        g, d = self.param.vectors(y)
        s = self.scenarios[scenario]
        return s._ndcg(g, d[: s.cutoff])[0]


# ----------------------------------------------------------------- tasks


@dataclass(frozen=True, eq=False)
class PhiConstraint:
    r"""``Phi_B(y) >= epsilon`` for a second problem over the same parametrisation."""

    problem: Problem
    epsilon: float

    def value_and_jac(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        """``h(y) = Phi_B(y) - epsilon`` and its gradient by ``y``."""
        v, j = self.problem.values_and_jac(y)
        return float(v[0] - self.epsilon), j[0]

    def natural_value_and_grad(self, v: np.ndarray) -> tuple[float, np.ndarray]:
        val, j = self.problem.natural_values_and_jac(v)
        return float(val[0] - self.epsilon), j[0]


@dataclass(frozen=True, eq=False)
class PriorConstraint:
    r"""``||v - p||_2 <= epsilon``: the varying vectors stay near a prior.

    ``v`` and ``p`` are natural coordinates (``g_1..g_m`` and/or
    ``d_1..d_k``, each block normalised to sum 1), e.g. the log2 discount.
    As a smooth inequality: :math:`h = \epsilon^2 - \lVert v - p\rVert^2 \ge 0`.
    """

    param: Parametrisation
    prior: np.ndarray
    epsilon: float

    def distance(self, y: np.ndarray) -> float:
        return float(np.linalg.norm(self.param.natural(y) - self.prior))

    def value_and_jac(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        g, d = self.param.vectors(y)
        v = self.param.natural(y)
        diff = v - self.prior
        h = self.epsilon**2 - float(diff @ diff)
        blocks = iter(self.param.blocks)
        gg = np.zeros_like(g)
        gd = np.zeros_like(d)
        if self.param.varies_gain:
            gg[1:] = -2.0 * diff[next(blocks)]
        if self.param.varies_discount:
            gd = -2.0 * diff[next(blocks)]
        return h, self.param.grad(gg, gd)


@dataclass(frozen=True, eq=False)
class Task:
    """What one local solve maximises.

    One scenario: its objective. Several: the smallest objective (minimax,
    epigraph form in the solvers). An optional ``constraint`` ``h(y) >= 0``
    (:class:`PhiConstraint` or :class:`PriorConstraint`) for the
    epsilon-constraint sweep of :func:`irstab.optimizer.pareto`.
    """

    problem: Problem
    constraint: PhiConstraint | PriorConstraint | None = None
    feasibility_tol: float = 1e-9

    @property
    def maximin(self) -> bool:
        return self.problem.n_scenarios > 1

    @property
    def param(self) -> Parametrisation:
        return self.problem.param

    def merit(self, y: np.ndarray) -> float:
        """Objective (smallest over scenarios); ``-inf`` where the constraint is violated."""
        if self.constraint is not None and self.constraint.value_and_jac(y)[0] < -self.feasibility_tol:
            return -np.inf
        return float(self.problem.values(y).min())

    def sparsify(self, y: np.ndarray, rel: float = 1e-10) -> np.ndarray:
        """Zero the coordinates below ``rel`` x the block's largest when that costs nothing.

        Solvers leave round-off mass (1e-17) where the optimum has exact zeros;
        dropping it gives exact steps in the vectors (and shorter measure
        strings). Kept only if the merit does not drop by more than 1e-15.
        """
        z = np.asarray(y, dtype=float).copy()
        for b in self.param.blocks:
            blk = z[b]
            blk[blk < rel * blk.max()] = 0.0
            z[b] = blk
        z = self.param.project(z)
        return z if self.merit(z) >= self.merit(y) - 1e-15 else y

    def gap(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        r"""Frank-Wolfe gap at ``y`` and the maximising vertex ``y'`` of the linearisation.

        .. math:: \max_{y' \in P} \min_j [f_j + \nabla f_j (y' - y)] - \min_j f_j

        over the feasible polytope :math:`P` (with the constraint linearised).
        It is 0 exactly at first-order (KKT) points and does not depend on the
        parametrisation of the polytope; the solvers report it as the
        convergence measure.
        """
        vals, jac = self.problem.values_and_jac(y)
        if not self.maximin and self.constraint is None:
            gr = jac[0]
            best = np.zeros_like(y)
            gap = 0.0
            for b in self.param.blocks:  # a handful of blocks
                i = b.start + int(np.argmax(gr[b]))
                best[i] = 1.0
                gap += float(gr[i] - gr[b] @ y[b])
            return max(gap, 0.0), best
        from scipy.optimize import linprog

        n = len(y)
        m = self.problem.n_scenarios
        lo = float(vals.min())
        # variables (y', s): maximise s subject to f_j + J_j (y' - y) >= lo + s
        a_ub = np.hstack([-jac, np.ones((m, 1))])
        b_ub = vals - jac @ y - lo
        if self.constraint is not None:
            h, hj = self.constraint.value_and_jac(y)
            a_ub = np.vstack([a_ub, np.r_[-hj, 0.0]])
            b_ub = np.r_[b_ub, h - hj @ y]
        a_eq = np.zeros((len(self.param.blocks), n + 1))
        for i, b in enumerate(self.param.blocks):
            a_eq[i, b] = 1.0
        res = linprog(
            np.r_[np.zeros(n), -1.0],
            A_ub=a_ub,
            b_ub=b_ub,
            A_eq=a_eq,
            b_eq=np.ones(len(self.param.blocks)),
            bounds=[(0.0, 1.0)] * n + [(None, None)],
            method="highs",
        )
        if res.status != 0:
            return np.inf, y.copy()
        return max(float(-res.fun), 0.0) + 0.0, res.x[:n]  # + 0.0: no -0.0
