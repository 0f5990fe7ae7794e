"""The optimised rows of a study, judged on held-out topics (and, for contrast, in sample).

:func:`cross_fitted_rows` replaces every optimised configuration's scores, for the
verdict, by its cross-fitted scores (:mod:`irstab.optimizer.crossfit`: each topic scored
by the configuration optimised without its fold); :func:`in_sample_differences` keeps the
in-sample difference to the baseline, with a marginal interval, to show how much the
search flattered it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._numeric import check_seed
from ..errors import DegenerateDataError
from .candidates import NDCG_FAMILIES

__all__ = ["cross_fitted_rows", "in_sample_differences", "InSample"]


def cross_fitted_rows(collection, optima, mm, ks, names, families, scores, gs, folds, seed, tol):
    """``{measure: (cross-fitted DataFrame, its GStudy or None)}`` of the optimised rows."""
    from ..optimizer import cross_fitted_measures
    from ..stability import gstudy

    if not folds:
        return {}
    fits = cross_fitted_measures(collection, optima, mm, ks, folds=folds, seed=seed, tol=tol)
    out = {}
    for m in names:
        if m not in fits or m not in gs or families[m][0] not in NDCG_FAMILIES - {"preset"}:
            continue
        frame = scores[m].copy()
        frame.loc[:, :] = fits[m].scores  # the collection's system and topic order
        try:
            g = gstudy(frame, name=f"{m} (cross-fitted)")
        except DegenerateDataError:
            g = None
        out[m] = (frame, g)
    return out


def in_sample_differences(scores, base, optimised, interval, seed):
    """In-sample differences of the optimised rows to the baseline, marginal intervals."""
    from ..verdict.paired import phi_differences

    names = [base, *optimised]
    cube = np.stack([scores[m].to_numpy(dtype=float) for m in names])
    d = phi_differences(cube, 0, np.zeros(len(names), dtype=bool), interval=interval,
                        rng=check_seed(seed))
    return InSample(names, d.diff, d.lower, d.upper)


@dataclass(frozen=True)
class InSample:
    names: list
    diff: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    def index(self, m: str) -> int:
        return self.names.index(m)

