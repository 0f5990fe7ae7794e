r"""Grades a measure cannot tell apart: merged before the maximum-entropy solve, split after.

P@k, RBP and AP only ask whether a document is relevant at their level, so
on graded judgements several grades enter ``E[M]`` with identical
coefficients. At the maximum-entropy solution such grades share their
feature, so ``P_na = exp(lambda_a + mu G_n(class)) / Z_n`` and the split of a
class among its grades is the same at every rank: ``P_na = P_n(class) R_a /
R_class`` (``R``: the grade counts over the ranks that hold a document). The
solve therefore runs on the classes (for binary measures two outcomes instead
of ``c + 1``) and the solution is split back exactly.

Classes are maximal runs of consecutive grades with equal coefficients (so
thresholds ``t_k`` stay expressible); a grade equal to a non-adjacent one
keeps its own class, which is still exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .product_expectation import ProductForm

__all__ = ["OutcomeClasses", "merge_outcomes"]


@dataclass(frozen=True, eq=False)
class OutcomeClasses:
    """The merged problem and what splits its solution back."""

    form: ProductForm
    counts: np.ndarray  # (C, J) documents per class
    cls: np.ndarray  # (A,) class of each grade
    share: np.ndarray  # (C, A) a grade's share of its class on ranks holding a document

    def split(self, P: np.ndarray, lam: np.ndarray, free: np.ndarray, counts: np.ndarray,
              cells: np.ndarray):
        """``(P (C, N, A), lam (C, A))`` of the grades from the classes' solution.

        ``cells``: the cells ``P`` holds; ``free`` and ``counts`` are theirs.
        """
        share = self.share[cells]
        out = P[:, :, self.cls] * share[:, None, :]
        past = ~free
        out[past] = 0.0
        out[:, :, 0] = np.where(past, 1.0, out[:, :, 0])
        with np.errstate(divide="ignore", invalid="ignore"):
            lg = np.where(share > 0, np.log(np.where(share > 0, share, 1.0)), -np.inf)
            full = lam[:, self.cls] + lg
            ref = (counts - np.where(np.arange(counts.shape[1]) == 0, (~free).sum(axis=1)[:, None],
                                     0)).argmax(axis=1)  # the run's most frequent grade
            base = full[np.arange(len(full)), ref]
            full = full - np.where(np.isfinite(base), base, 0.0)[:, None]
        return out, full


def merge_outcomes(
    form: ProductForm, counts: np.ndarray, free: np.ndarray
) -> OutcomeClasses | None:
    """Merge grades with identical coefficients in ``form``; None when every grade differs."""
    A = form.outcome_value.shape[0]
    member = (np.arange(A)[None, :] >= form.thresholds[:, None]).astype(np.float64)
    sig = np.concatenate([form.outcome_value[None, :], form.u.reshape(-1, A), member], axis=0)
    new = np.concatenate([[True], np.any(sig[:, 1:] != sig[:, :-1], axis=0)])
    cls = np.cumsum(new) - 1
    J = int(cls[-1]) + 1
    if J == A:
        return None
    first = np.flatnonzero(new)
    t = np.asarray(form.thresholds)
    t_new = np.where(t < A, cls[np.minimum(t, A - 1)], J)
    u = form.u[:, :, first]
    merged = ProductForm(form.scale, form.rank_weight, form.outcome_value[first], form.alpha,
                         np.ascontiguousarray(u), t_new.astype(np.int64), form.h)
    onehot = np.zeros((A, J))
    onehot[np.arange(A), cls] = 1.0
    counts_j = counts @ onehot
    on_free = counts.astype(np.float64).copy()
    on_free[:, 0] -= (~free).sum(axis=1)
    denom = (on_free @ onehot)[:, cls]
    share = np.divide(on_free, denom, out=np.zeros_like(on_free), where=denom > 0)
    return OutcomeClasses(merged, counts_j, cls, share)
