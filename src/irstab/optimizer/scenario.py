r"""nDCG@k as a function of its gain and discount vectors: the linear forms.

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

References
----------
E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009.
R. L. Brennan (2001). *Generalizability Theory*. Springer, ch. 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..collection import Collection
from ..errors import DegenerateDataError, IRStabError, MeasureError
from ..metrics.gains import Discount, Gain
from .objectives import Objective, as_enum, objective_and_gradient, objective_batch

__all__ = ["Scenario", "gain_vector", "discount_vector", "check_cutoff"]


#: Triplets from which :meth:`Scenario.dcg` of a gain other than the cached one is a sparse
#: product on the cached structure (the same sums, to the last bit) rather than a gather and
#: a ``bincount``: at 9.9 million, 0.03 s instead of 0.08 s of CPU (the presets' figures).
MATRIX_ENTRIES = 1_000_000


def _sum_by(index: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """``out[i] = sum(weights[index == i])`` as float64 (bincount of no entries is int64)."""
    return np.bincount(index, weights=weights, minlength=n).astype(np.float64, copy=False)


def _products(structure, values: np.ndarray, x: np.ndarray, n_rows: int, n_cols: int,
              transpose: bool = False) -> np.ndarray:
    """``A x`` (or ``A^T x``) for ``A`` in CSR form on ``structure = (indptr, indices)``.

    SciPy's own kernels on the arrays as they are: no matrix object is built, which at
    DL-2019's sizes (11,000-53,000 triplets) cost more than the product. ``A x`` sums each
    row's products ``values[e] * x[indices[e]]`` from 0 in the row's order, and ``A^T x``
    adds ``values[e] * x[row]`` to its column in the triplets' order: the order in which
    :func:`_sum_by` adds the same products, so the sums are the same to the last bit.
    """
    from scipy.sparse import _sparsetools

    indptr, indices = structure
    values = np.ascontiguousarray(values, dtype=np.float64)
    x = np.ascontiguousarray(x, dtype=np.float64)
    if transpose:  # A's CSR arrays are A^T's CSC arrays
        out = np.zeros(n_cols)
        _sparsetools.csc_matvec(n_cols, n_rows, indptr, indices, values, x, out)
    else:
        out = np.zeros(n_rows)
        _sparsetools.csr_matvec(n_rows, n_cols, indptr, indices, values, x, out)
    return out


def check_cutoff(collection: Collection, cutoff) -> int:
    if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff < 1:
        raise IRStabError(f"cutoff: must be a positive integer, got {cutoff!r}")
    if cutoff > collection.depth:
        raise IRStabError(
            f"cutoff: {cutoff} exceeds the collection depth {collection.depth} (ranks kept per "
            "topic); lower the cutoff or build the collection with a larger depth"
        )
    deepest = _deepest_rank(collection)
    if cutoff > deepest:
        raise IRStabError(
            f"cutoff: {cutoff}, but no rank past {deepest} holds a document of any run or of "
            f"any topic's ideal list, so the discount weights of ranks {deepest + 1}..{cutoff} "
            f"would be undefined (and {cutoff} variables cost memory for nothing); use a cutoff "
            f"of at most {deepest}"
        )
    return int(cutoff)


def _deepest_rank(collection) -> int:
    """The last rank that can carry a gain: the deepest ranking present (a Collection) or the
    deepest positive grade (LinearForms, which keep only those), and the longest ideal list."""
    ideal = int(np.asarray(collection.grade_counts)[:, 1:].sum(axis=1).max(initial=0))
    if isinstance(collection, Collection):
        return max(collection.stored(), ideal)
    return max(int(collection.rank.max(initial=-1)) + 1, ideal)


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
            hint = ""
            if isinstance(c, (str, bytes)) or hasattr(c, "__fspath__"):
                hint = (": build the Collection from qrels and runs first, e.g. "
                        "irstab.optimize(irstab.Collection.from_files('qrels.txt', 'runs/'), 10)")
            raise IRStabError(
                f"collection: expected an irstab.Collection or LinearForms, got "
                f"{type(c).__name__}{hint}"
            )
        k = check_cutoff(c, self.cutoff)
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
            grades = np.clip(c.grades_to(c.stored(k))[:, t_idx, :], 0, None)
            s, t, r = np.nonzero(grades)
            grade = grades[s, t, r]
        if not len(s):
            raise DegenerateDataError(
                f"cutoff {k}: no run ranks a relevant document in its top {k} on any of the "
                f"{len(t_idx)} topics, so every nDCG@{k} is 0 and Phi is undefined; "
                "raise the cutoff"
            )
        cell = (s * T + t).astype(np.int64)
        if np.any(cell[1:] < cell[:-1]):  # not in np.nonzero's order (_structure needs it)
            order = np.lexsort((r, cell))
            cell, r, grade = cell[order], r[order], grade[order]
        # sparse triplets of positive grades: cell index, rank, grade
        object.__setattr__(self, "_cell", cell)
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
    def n_entries(self) -> int:
        """Positive grades within the cutoff: the entries of the linear forms."""
        return len(self._cell)

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
        """``(A, A^T)``: ``A`` in CSR form, ``A[s T + t, r]`` the gain at rank ``r`` of cell ``(s, t)``.

        For a fixed gain (a discount problem) ``N = A d`` and the discount
        gradient ``A^T w`` are sparse products, several times faster than
        gathering and summing the triplets anew at every call. ``A^T`` is the CSC
        view of the same arrays: its product scatters each cell's row into the ``k``
        sums, which at 200 systems x 1,000 topics x 100 ranks took half the time of
        a CSR copy of ``A^T`` (whose rows gather from ``w`` of S T entries) and needs no
        copy. Cached for the last gain; with ``build=False`` only a cached matrix is
        returned (else None).
        """
        key = gain.tobytes()
        hit = self._cache.get("matrix")
        if hit is not None and hit[0] == key:
            return hit[1]
        if not build:
            return None
        a = self._csr(gain)
        out = (a, a.T)
        self._cache["matrix"] = (key, out)
        return out

    def _csr(self, gain: np.ndarray):
        """``A`` of :meth:`_gain_matrix` for ``gain``, not cached: its values on the cached
        row pointers and column indices of :meth:`_structure`."""
        from scipy.sparse import csr_matrix

        S, T = self._shape
        indptr, indices = self._structure()
        return csr_matrix((self._gain_terms(gain)[0], indices, indptr),
                          shape=(S * T, self.cutoff))

    def _structure(self) -> tuple[np.ndarray, np.ndarray]:
        """Row pointers and column indices of ``A`` (:meth:`_gain_matrix`), built once.

        The triplets are ordered by cell, and by rank within a cell (``np.nonzero``'s
        order), so the rows are the cells' runs of triplets in place: their pointers
        are the cumulated counts, with no conversion from triplets (which scatters each
        into its row and checks for duplicates: 0.26 s of CPU against 0.18 s for 9.9
        million triplets, 200 systems x 1,000 topics x 100 ranks). A row holds
        its triplets in their order, so ``A d`` sums each cell's terms in the order
        :func:`_sum_by` does, to the same last bit.
        """
        hit = self._cache.get("structure")
        if hit is not None:
            return hit
        S, T = self._shape
        itype = np.int32 if self.n_entries < np.iinfo(np.int32).max else np.int64
        counts = np.bincount(self._cell, minlength=S * T)
        out = (np.r_[0, np.cumsum(counts)].astype(itype), self._rank.astype(itype))
        self._cache["structure"] = out
        return out

    def _grade_structure(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_structure`'s row pointers with each triplet's grade as its column: the
        matrix whose transpose gathers the gain gradient (cell rows, grade columns)."""
        hit = self._cache.get("grade structure")
        if hit is None:
            indptr, ranks = self._structure()
            hit = (indptr, self._grade.astype(ranks.dtype))
            self._cache["grade structure"] = hit
        return hit

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
        if self.n_entries >= MATRIX_ENTRIES:  # one pass over the triplets instead of three
            return (self._csr(gain) @ discount).reshape(S, T)
        return _products(self._structure(), self._gain_terms(gain)[0], discount, S * T,
                         self.cutoff).reshape(S, T)

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
            # the triplets' products with the cells' weights, added up by rank and by grade
            flat = w_n.reshape(-1)
            grad_d = _products(self._structure(), gw, flat, flat.size, k, transpose=True)
            grad_g = _products(self._grade_structure(), self._disc_terms(discount), flat,
                               flat.size, G, transpose=True)
            # ideal DCG: dD_t/dg_j = discount mass of grade j's block
            cum = np.concatenate(([0.0], np.cumsum(discount)))
            grad_g = grad_g + w_d @ (cum[end] - cum[start])
            grad_g[0] = 0.0
        grad_d = grad_d + w_d @ ideal  # ideal DCG: dD_t/dd_r = gain at r
        return value, grad_g, grad_d
