r"""Rank correlation between the system rankings induced by measures (Kanoulas & Aslam, CIKM 2009, Fig. 7, Table 4).

Every statistic here compares *mean* scores of the same systems under two
measures: Kendall's :math:`\tau_b`, the AP rank correlation :math:`\tau_{AP}`
(Yilmaz, Aslam & Robertson 2008; directed and symmetric), Spearman's
:math:`\rho` and the root-mean-square difference of the means (the "RMS
Error" of Kanoulas & Aslam, CIKM 2009, Fig. 7). Rankings are by decreasing mean score.

Ties
----
* :math:`\tau_b` and Spearman's :math:`\rho` (average ranks) handle ties in
  the usual way and equal :func:`scipy.stats.kendalltau` /
  :func:`scipy.stats.spearmanr`.
* :math:`\tau_{AP}` was defined for rankings without ties. Ties follow
  :math:`\tau_{AP,b}` of Urbano & Marrero (2017), the variant for comparing
  two rankings neither of which is the truth: an item is compared only with
  the items strictly above its tie group in the ranking being walked, it is
  concordant with such an item when the other ranking also puts that item
  strictly above it (a tie there counts as not concordant), and items of the
  top tie group are skipped. Without ties this is exactly Yilmaz et al.'s
  definition; identical rankings with ties give 1.
* A statistic that is undefined (a measure gives every system the same mean)
  is returned as NaN with an :class:`~irstab.errors.IRStabWarning`; systems
  whose means tie are named in a warning too.

References
----------
Yilmaz, E., Aslam, J. A., Robertson, S. (2008). A new rank correlation
coefficient for information retrieval. SIGIR 2008, 587-594.
Urbano, J., Marrero, M. (2017). The treatment of ties in AP correlation.
ICTIR 2017, 321-324.
Kanoulas, E., Aslam, J. A. (2009). Empirical justification of the gain and
discount function for nDCG. CIKM 2009, Sec. 3.4.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._numeric import kendall_matrix as _kendall_matrix  # the kernels live below every floor
from .._numeric import tau_ap_matrix as _tau_ap_matrix
from .._repr import escape_name
from ..errors import DegenerateDataError, IRStabError, IRStabWarning
from ..io.scores import Scores, frozen

__all__ = [
    "RankCorrelation",
    "rank_correlation",
    "kendall_tau",
    "tau_ap",
    "tau_ap_symmetric",
    "spearman_rho",
    "rmse",
]

_STATS = ("kendall_tau", "tau_ap", "tau_ap_directed", "spearman", "rmse")


def _as_means(means) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray]:
    """``(measures, systems, (M, S) means)`` from the accepted input forms."""
    if isinstance(means, Scores):
        return means.measures, means.systems, means.means()
    if isinstance(means, pd.DataFrame):
        names = tuple(str(c) for c in means.columns)
        systems = tuple(str(s) for s in means.index)
        try:
            arr = means.to_numpy(dtype=np.float64).T
        except (TypeError, ValueError):
            raise IRStabError("means: not numeric") from None
    elif isinstance(means, Mapping):
        names, rows, systems = [], [], None
        for name, value in means.items():
            if isinstance(value, (pd.DataFrame, pd.Series)):
                labels = tuple(str(s) for s in value.index)
                if systems is not None and labels != systems:
                    raise IRStabError(f"means[{name!r}]: systems differ from the first measure's")
                systems = labels
            v = np.asarray(value, dtype=np.float64)
            if v.ndim == 2:  # a systems x topics matrix: average over topics
                v = v.mean(axis=1)
            if v.ndim != 1:
                raise IRStabError(f"means[{name!r}]: expected 1 or 2 dimensions, got {v.ndim}")
            names.append(str(name))
            rows.append(v)
        if not rows:
            raise IRStabError("means: no measure given")
        if len({len(r) for r in rows}) != 1:
            raise IRStabError(f"means: measures have different numbers of systems {[len(r) for r in rows]}")
        arr = np.stack(rows)
        names = tuple(names)
        systems = systems or tuple(str(i) for i in range(arr.shape[1]))
    else:
        raise IRStabError(
            "means: expected a systems x measures DataFrame or a mapping {measure: means}, "
            f"got {type(means).__name__}"
        )
    if not np.isfinite(arr).all():
        raise IRStabError("means: non-finite mean score")
    if arr.shape[1] < 2:
        raise DegenerateDataError(f"rank correlation needs at least 2 systems, got {arr.shape[1]}")
    return names, systems, arr


def _spearman_matrix(x: np.ndarray) -> np.ndarray:
    # average ranks (scipy's rankdata "average") without importing scipy.stats (slow)
    less = (x[:, None, :] < x[:, :, None]).sum(axis=2)
    equal = (x[:, None, :] == x[:, :, None]).sum(axis=2)
    r = less + (equal + 1) / 2.0
    r = r - r.mean(axis=1, keepdims=True)
    ss = np.sqrt((r * r).sum(axis=1))
    den = np.outer(ss, ss)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, (r @ r.T) / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(out, -1.0, 1.0)


def _rmse_matrix(x: np.ndarray) -> np.ndarray:
    d = x[:, None, :] - x[None, :, :]
    return np.sqrt((d * d).mean(axis=2))


def _warn_ties(names, systems, x: np.ndarray, stacklevel: int) -> None:
    for name, row in zip(names, x):
        values, inverse, counts = np.unique(row, return_inverse=True, return_counts=True)
        if len(values) == 1:
            warnings.warn(
                f"{name}: every system has the same mean score {values[0]:.6g}; rank "
                "correlations with it are undefined (NaN)",
                IRStabWarning,
                stacklevel=stacklevel,
            )
        elif (counts > 1).any():
            groups = [
                "=".join(escape_name(systems[i]) for i in np.flatnonzero(inverse == k))
                for k in np.flatnonzero(counts > 1)
            ]
            shown = ", ".join(groups[:5]) + (" ..." if len(groups) > 5 else "")
            warnings.warn(
                f"{name}: tied mean scores ({shown}); Kendall tau-b, Spearman (average ranks) "
                "and tau_AP (Urbano & Marrero's tau_AP,b) account for the ties",
                IRStabWarning,
                stacklevel=stacklevel,
            )


@dataclass(frozen=True, eq=False)
class RankCorrelation:
    r"""Rank correlations and RMSE between the mean scores of every pair of measures.

    Attributes
    ----------
    measures : tuple of str
    systems : tuple of str
    means : numpy.ndarray, shape (M, S)
        Mean score of each system under each measure.
    kendall_tau : numpy.ndarray, shape (M, M)
        Kendall's :math:`\tau_b`, symmetric, 1 on the diagonal.
    tau_ap : numpy.ndarray, shape (M, M)
        Symmetric :math:`\tau_{AP}`: the average of the two directed values.
        This is the one reported in tables and JSON.
    tau_ap_directed : numpy.ndarray, shape (M, M)
        ``[a, b]``: :math:`\tau_{AP}` with measure ``a`` as the reference and
        the ranking of measure ``b`` walked from the top (``tau_ap(means[a],
        means[b])``).
    spearman : numpy.ndarray, shape (M, M)
    rmse : numpy.ndarray, shape (M, M)
        :math:`\sqrt{\frac1S\sum_s (\bar x_{a,s} - \bar x_{b,s})^2}`.
    """

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    means: np.ndarray
    kendall_tau: np.ndarray
    tau_ap: np.ndarray
    tau_ap_directed: np.ndarray
    spearman: np.ndarray
    rmse: np.ndarray

    def matrix(self, statistic: str = "kendall_tau") -> pd.DataFrame:
        """One statistic as a measures x measures DataFrame (rows: reference for ``tau_ap_directed``)."""
        if statistic not in _STATS:
            raise IRStabError(f"statistic: expected one of {list(_STATS)}, got {statistic!r}")
        idx = pd.Index(self.measures, name="measure")
        return pd.DataFrame(np.array(getattr(self, statistic)), index=idx, columns=list(self.measures))

    def to_frame(self) -> pd.DataFrame:
        """One row per unordered pair of measures ``a`` before ``b`` in input order.

        Columns: ``measure_a, measure_b, kendall_tau, tau_ap, tau_ap_ref_a``
        (a is the reference), ``tau_ap_ref_b``, ``spearman, rmse``.
        """
        a, b = np.triu_indices(len(self.measures), k=1)
        names = np.array(self.measures, dtype=object)
        return pd.DataFrame(
            {
                "measure_a": names[a],
                "measure_b": names[b],
                "kendall_tau": self.kendall_tau[a, b],
                "tau_ap": self.tau_ap[a, b],
                "tau_ap_ref_a": self.tau_ap_directed[a, b],
                "tau_ap_ref_b": self.tau_ap_directed[b, a],
                "spearman": self.spearman[a, b],
                "rmse": self.rmse[a, b],
            }
        )

    def to_dict(self) -> dict:
        """Plain Python: ``{"measures", "systems", "means", <statistic>: nested lists}``."""
        out = {"measures": list(self.measures), "systems": list(self.systems),
               "means": self.means.tolist()}
        out.update({s: np.asarray(getattr(self, s)).tolist() for s in _STATS})
        return out


def rank_correlation(means) -> RankCorrelation:
    r"""Kendall's :math:`\tau_b`, :math:`\tau_{AP}`, Spearman's :math:`\rho` and RMSE between measures.

    Parameters
    ----------
    means : pandas.DataFrame or mapping
        Mean scores as a systems x measures DataFrame, or a mapping
        ``{measure: means}`` whose values are 1-D (one mean per system) or
        systems x topics matrices (averaged over topics), e.g. the output of
        :func:`irstab.score_matrices`.

    Returns
    -------
    RankCorrelation

    Notes
    -----
    With :math:`\operatorname{sgn}_{ij} = \operatorname{sign}(x_i - x_j)`,

    .. math:: \tau_b = \frac{\sum_{i<j} \operatorname{sgn}^x_{ij}\operatorname{sgn}^y_{ij}}
              {\sqrt{(n_0 - n_x)(n_0 - n_y)}}

    (:math:`n_0 = S(S-1)/2`, :math:`n_x, n_y` tied pairs). Directed
    :math:`\tau_{AP}` walks the ranking of :math:`y` from the top:

    .. math:: \tau_{AP}(x \to y) = \frac{2}{|I|}\sum_{i \in I} \frac{C(i)}{g(i)} - 1

    where :math:`g(i)` is the number of systems strictly above :math:`i` in
    :math:`y` (:math:`i-1` without ties), :math:`C(i)` how many of them
    :math:`x` also puts strictly above :math:`i`, and :math:`I` the systems
    with :math:`g(i) > 0`. The symmetric :math:`\tau_{AP}` averages both
    directions. Cost: :math:`O(M^2 S^2)` time, :math:`O(M S^2)` memory.

    Validated against :func:`scipy.stats.kendalltau`,
    :func:`scipy.stats.spearmanr` and a direct transcription of Yilmaz et
    al.'s sum (tests).

    Examples
    --------
    >>> import pandas as pd
    >>> means = pd.DataFrame({"A": [0.5, 0.4, 0.3, 0.2], "B": [0.5, 0.3, 0.4, 0.2]},
    ...                      index=["s1", "s2", "s3", "s4"])
    >>> rc = rank_correlation(means)
    >>> round(float(rc.kendall_tau[0, 1]), 4)  # one discordant pair of 6: (5 - 1) / 6
    0.6667
    >>> round(float(rc.tau_ap[0, 1]), 4)  # 2/3 (1/1 + 1/2 + 3/3) - 1 in both directions
    0.6667
    """
    names, systems, x = _as_means(means)
    _warn_ties(names, systems, x, stacklevel=3)
    directed = _tau_ap_matrix(x)
    return RankCorrelation(
        measures=names,
        systems=systems,
        means=frozen(x),
        kendall_tau=frozen(_kendall_matrix(x)),
        tau_ap=frozen((directed + directed.T) / 2.0),
        tau_ap_directed=frozen(directed),
        spearman=frozen(_spearman_matrix(x)),
        rmse=frozen(_rmse_matrix(x)),
    )


def _pair(x, y, fn) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise IRStabError(f"x, y: expected two 1-D arrays of equal length, got shapes {x.shape}, {y.shape}")
    if len(x) < 2:
        raise DegenerateDataError(f"rank correlation needs at least 2 systems, got {len(x)}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise IRStabError("x, y: non-finite value")
    out = fn(np.stack([x, y]))
    if np.isnan(out[0, 1]):
        warnings.warn(
            "rank correlation undefined: one ranking has all its values tied; returning NaN",
            IRStabWarning,
            stacklevel=3,
        )
    return out


def kendall_tau(x, y) -> float:
    r"""Kendall's :math:`\tau_b` between two score vectors (equals :func:`scipy.stats.kendalltau`).

    Examples
    --------
    >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666666
    """
    return float(_pair(x, y, _kendall_matrix)[0, 1])


def tau_ap(reference, estimate) -> float:
    r"""Directed AP correlation: the ranking by ``estimate`` judged against ``reference``.

    Both arguments are scores (higher = better). Ties: see the module
    docstring (Urbano & Marrero's :math:`\tau_{AP,b}` treatment).

    Examples
    --------
    >>> tau_ap([4, 3, 2, 1], [4, 3, 2, 1])
    1.0
    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4)  # 2/3 (0/1 + 2/2 + 3/3) - 1: top swap costs most
    0.3333
    >>> round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)  # 2/3 (1 + 1 + 2/3) - 1
    0.7778
    """
    return float(_pair(reference, estimate, _tau_ap_matrix)[0, 1])


def tau_ap_symmetric(x, y) -> float:
    r"""Symmetric :math:`\tau_{AP}`: the mean of ``tau_ap(x, y)`` and ``tau_ap(y, x)``."""
    m = _pair(x, y, _tau_ap_matrix)
    return float((m[0, 1] + m[1, 0]) / 2.0)


def spearman_rho(x, y) -> float:
    """Spearman's rho with average ranks for ties (equals :func:`scipy.stats.spearmanr`)."""
    return float(_pair(x, y, _spearman_matrix)[0, 1])


def rmse(x, y) -> float:
    r"""Root-mean-square difference :math:`\sqrt{\frac1n\sum_i (x_i - y_i)^2}` (Kanoulas & Aslam, CIKM 2009, Fig. 7)."""
    return float(_pair(x, y, _rmse_matrix)[0, 1])
