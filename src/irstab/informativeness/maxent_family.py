r"""The exponential family of one cell's maximum-entropy problem.

At the optimum every rank's outcome distribution is a softmax of the logits
``lambda_a + mu G_na`` over the outcomes the rank allows (the grades the run
holds on its ranks, outcome 0 past its end). Here: those allowed outcomes, the
reference outcome that pins the multipliers, and the softmax itself, shared by
the vectorised solver (:mod:`.maxent`) and the per-cell SciPy retry
(:mod:`.maxent_scipy`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["entropy", "run_counts", "feasible_mask", "reference", "softmax"]


def entropy(P: np.ndarray) -> np.ndarray:
    """``-sum_{n,a} P log P`` per cell (nats; ``0 log 0 = 0``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(P > 0, P * np.log(np.where(P > 0, P, 1.0)), 0.0)
    return -t.sum(axis=(1, 2))


def run_counts(counts: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Documents of each grade on the ranks that hold one (grade 0 less the ranks past the run)."""
    out = np.array(counts, dtype=np.float64)
    out[:, 0] -= (~np.asarray(free, dtype=bool)).sum(axis=1)
    return out


def feasible_mask(free: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Outcomes allowed at each rank: (C, N, A) bool.

    Free ranks allow every grade the run holds (so a run of relevant
    documents only never puts grade 0 on its ranks, however deep the
    collection); ranks past the run allow only outcome 0.
    """
    allowed = free[:, :, None] & (run_counts(counts, free) > 0)[:, None, :]
    allowed[:, :, 0] |= ~free
    return allowed


def reference(counts: np.ndarray, free: np.ndarray):
    """``(present, ref, lam0)``: the run's grades, its most frequent, ``log R_a - log R_ref``."""
    rc = run_counts(counts, free)
    present = rc > 0
    ref = rc.argmax(axis=1)
    with np.errstate(divide="ignore"):
        lam = np.where(present, np.log(np.where(present, rc, 1.0)), -np.inf)
    base = lam[np.arange(len(lam)), ref]
    lam = lam - np.where(np.isfinite(base), base, 0.0)[:, None]
    # grade 0 also fills the ranks past the run, where it is the only outcome: its multiplier
    # must stay finite there (it is fixed, and the mask keeps grade 0 off the run's ranks)
    lam[:, 0] = np.where(present[:, 0], lam[:, 0], 0.0)
    return present, ref, lam


def softmax(lam, mu, G, mask):
    """``P`` and ``log Z`` (outcome-major (A, C, N)) for multipliers ``(lam, mu)``.

    ``mask`` is 0 where an outcome is allowed and -inf where not.
    """
    z = mu[:, None] * G
    z += lam.T[:, :, None]
    z += mask
    zmax = np.maximum.reduce(z, axis=0)
    z -= zmax
    np.exp(z, out=z)
    Z = z.sum(axis=0)
    z /= Z
    np.log(Z, out=Z)
    Z += zmax
    return z, Z
