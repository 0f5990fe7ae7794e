r"""Does the simulator look like the collection? A split-half check the user sees.

:func:`fit_check` fits the simulator (:func:`irstab.simulate.fit_collection`) on a
random half of the topics, draws ``R`` collections with as many topics as the other
half, and compares what the held-out half shows with what the simulated collections
show, statistic by statistic:

* each system's **mean** score and **variance** over topics (ddof 1);
* each system's **zero fraction**, the share of its scores at the range's lower end
  (nDCG@10 of 0: nothing relevant retrieved in the top 10);
* **Kendall's tau-b** between every two systems' score vectors over topics (how
  strongly systems agree on which topics are hard), undefined, and left out, where a
  system scores the same on every held-out topic.

A held-out statistic is *inside* when it lies in the central 95 % of its ``R``
simulated values. Even a correct model scores less than 95 %: it is fitted on half the
topics, so its centre is off by that half's sampling error, as large as the held-out
half's own (for a mean, the share inside is then about :math:`2\Phi(1.96/\sqrt 2) - 1
= 0.83`). The check therefore measures that reference too: ``n_reference`` collections
drawn from the fitted model itself go through the same split, refit, simulation and
comparison, and the share of their statistics inside is what a model that is right
scores (Monte-Carlo). A statistic inside far less often than its reference says what the
simulator gets wrong on this collection. The lattice of a lattice measure is detected on
all topics (it is the measure's, not a fitted quantity).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._numeric import check_seed
from .._repr import short_repr
from ..errors import IRStabError
from .collection_model import (
    MIN_TOPICS,
    CollectionModel,
    _count,
    _lattice_arg,
    fit_collection,
    score_matrix_input,
)
from .copula import CopulaKind, kendall_tau

__all__ = ["FitCheck", "fit_check", "STATISTICS"]

#: The statistics compared, in the order of :meth:`FitCheck.to_frame`.
STATISTICS = ("mean", "variance", "zero fraction", "kendall tau")
#: Central share of the simulated values a held-out statistic should fall in.
LEVEL = 0.95
#: float32 sign entries per block of the vectorised tau (about 64 MB).
_TAU_BLOCK = 16_000_000


@short_repr
@dataclass(frozen=True, eq=False)
class FitCheck:
    """The split-half comparison (module docstring).

    Attributes
    ----------
    statistics : pandas.DataFrame
        One row per statistic and system (or pair of systems): ``statistic, system,
        other, held_out, simulated, lo, hi, inside`` (``simulated`` the mean of the
        ``R`` simulated values, ``lo``/``hi`` their 2.5 % and 97.5 % quantiles).
    model : CollectionModel
        The simulator fitted on the fit half.
    fit_topics, held_topics : tuple of str
        The two halves.
    n_collections : int
        ``R``.
    """

    statistics: pd.DataFrame = field(repr=False)
    model: CollectionModel = field(repr=False)
    fit_topics: tuple[str, ...] = field(repr=False)
    held_topics: tuple[str, ...] = field(repr=False)
    n_collections: int = 0
    reference: dict = field(default_factory=dict)
    n_reference: int = 0

    def to_frame(self) -> pd.DataFrame:
        """The per-system and per-pair rows (a copy)."""
        return self.statistics.copy()

    def summary_frame(self) -> pd.DataFrame:
        """Per statistic: rows compared, share inside, mean absolute error of the simulated
        mean against the held-out value, the mean width of the 95 % range, and the share
        inside that a correct model scores (``reference_share``, module docstring)."""
        f = self.statistics.dropna(subset=["held_out", "simulated"])
        rows = []
        for stat in STATISTICS:
            g = f[f["statistic"] == stat]
            rows.append({
                "statistic": stat, "compared": len(g),
                "inside": int(g["inside"].sum()),
                "share_inside": float(g["inside"].mean()) if len(g) else math.nan,
                "mean_abs_error": float((g["simulated"] - g["held_out"]).abs().mean())
                if len(g) else math.nan,
                "mean_range_width": float((g["hi"] - g["lo"]).mean()) if len(g) else math.nan,
                "reference_share": self.reference.get(stat, math.nan),
            })
        return pd.DataFrame(rows)

    def _summary(self) -> str:
        s = self.summary_frame()
        parts = ", ".join(
            f"{r.statistic} {r.inside}/{r.compared}"
            + (f" ({r.reference_share:.0%} for a correct model)" if r.reference_share == r.reference_share
               else "") for r in s.itertuples())
        return (f"fitted on {len(self.fit_topics)} topics, compared with {len(self.held_topics)} "
                f"held out over {self.n_collections} simulated collections "
                f"({self.model.copula.kind.value} copula): held-out values inside the simulated "
                f"95 % range: {parts}")

    def summary(self) -> str:
        """One line: the halves and, per statistic, how many held-out values were inside."""
        return self._summary()

    def to_dict(self) -> dict:
        """Summary, per-statistic table and rows as plain Python types (JSON-ready)."""
        rows = self.statistics.astype(object).where(self.statistics.notna(), None)
        return {
            "summary": self.summary(),
            "fit_topics": list(self.fit_topics),
            "held_topics": list(self.held_topics),
            "n_collections": int(self.n_collections),
            "n_reference": int(self.n_reference),
            "copula": self.model.copula.kind.value,
            "statistics": self.summary_frame().to_dict("records"),
            "rows": rows.to_dict("records"),
        }


def _per_system(x: np.ndarray, lo: float) -> dict[str, np.ndarray]:
    """Means, variances and zero fractions over the last axis."""
    return {
        "mean": x.mean(axis=-1),
        "variance": x.var(axis=-1, ddof=1),
        "zero fraction": (x <= lo).mean(axis=-1),
    }


def _taus(sim: np.ndarray) -> np.ndarray:
    R, S, T = sim.shape
    block = max(1, _TAU_BLOCK // max(1, S * T * (T - 1) // 2))
    return np.concatenate([kendall_tau(sim[i:i + block]) for i in range(0, R, block)])


def _rows(stat, held, sims, systems, other=None):
    q_lo, q_hi = (1 - LEVEL) / 2, (1 + LEVEL) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a pair whose tau is never defined
        sim_mean = np.nanmean(sims, axis=0)
        lo = np.nanquantile(sims, q_lo, axis=0)
        hi = np.nanquantile(sims, q_hi, axis=0)
    undefined = np.isnan(held) | np.isnan(sim_mean)
    inside = pd.array((held >= lo) & (held <= hi), dtype="boolean")
    inside[undefined] = pd.NA
    return pd.DataFrame({"statistic": stat, "system": systems,
                         "other": other if other is not None else None,
                         "held_out": held, "simulated": sim_mean, "lo": lo, "hi": hi,
                         "inside": inside})


def _compare(model: CollectionModel, held: np.ndarray, systems, R: int, lo: float,
             rng: np.random.Generator) -> pd.DataFrame:
    """Held-out statistics against ``R`` collections drawn from ``model``."""
    S = held.shape[0]
    sim = model.draw(R, held.shape[1], rng)
    held_stats, sim_stats = _per_system(held, lo), _per_system(sim, lo)
    out = [_rows(stat, held_stats[stat], sim_stats[stat], list(systems)) for stat in STATISTICS[:3]]
    if S > 1:
        i, j = np.triu_indices(S, k=1)
        out.append(_rows("kendall tau", kendall_tau(held)[i, j], _taus(sim)[:, i, j],
                         [systems[k] for k in i], [systems[k] for k in j]))
    return pd.concat(out, ignore_index=True)


def _split(T: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    perm = rng.permutation(T)
    return np.sort(perm[: (T + 1) // 2]), np.sort(perm[(T + 1) // 2:])


def fit_check(scores, *, bounds=(0.0, 1.0), lattice="auto",
              copula: CopulaKind | str = CopulaKind.gaussian, families: Sequence[str] | None = None,
              n_collections: int = 1000, n_reference: int = 10, seed=0) -> FitCheck:
    """Fit on a random half of the topics, simulate, compare with the other half.

    Parameters
    ----------
    scores : pandas.DataFrame or array-like, shape (S, T)
        The collection's score matrix (one measure), ``T >= 8`` topics.
    bounds, lattice, copula, families
        As :func:`irstab.simulate.fit_collection`.
    n_collections : int
        Simulated collections ``R`` (each with as many topics as the held-out half).
    n_reference : int
        Collections drawn from the fitted model itself and checked the same way (split,
        refit, simulate, compare): the share inside that a *correct* model scores, since
        the fit's own error on half the topics keeps it below 95 % (0 to skip).
    seed : int or numpy.random.Generator
        The split, the fit's ties and the draws.

    Returns
    -------
    FitCheck

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> x = np.clip(rng.normal(0.5, 0.1, (5, 1)) + rng.normal(0, 0.15, (1, 40)) + rng.normal(0, 0.1, (5, 40)), 0, 1)
    >>> check = fit_check(x, n_collections=200, n_reference=1, seed=1)
    >>> check.summary_frame()["statistic"].tolist()
    ['mean', 'variance', 'zero fraction', 'kendall tau']
    """
    x, systems, topics, bounds = score_matrix_input(scores, bounds, min_topics=2 * MIN_TOPICS)
    R = _count(n_collections, "n_collections")
    if not isinstance(n_reference, int) or isinstance(n_reference, bool) or n_reference < 0:
        raise IRStabError(f"n_reference: must be an integer >= 0, got {n_reference!r}")
    rng = check_seed(seed, "seed")
    lat = _lattice_arg(lattice, x, bounds)
    support = lat if lat is not None else "continuous"
    S, T = x.shape
    options = dict(bounds=bounds, lattice=support, copula=copula, families=families)

    def check(matrix: np.ndarray, gen) -> tuple[CollectionModel, pd.DataFrame, tuple, tuple]:
        fit_idx, held_idx = _split(T, gen)
        frame = pd.DataFrame(matrix[:, fit_idx], index=list(systems),
                             columns=[topics[i] for i in fit_idx])
        model = fit_collection(frame, seed=gen, **options)
        stats = _compare(model, matrix[:, held_idx], systems, R, bounds[0], gen)
        return model, stats, tuple(topics[k] for k in fit_idx), tuple(topics[k] for k in held_idx)

    model, stats, fit_topics, held_topics = check(x, rng)
    reference = []
    for _ in range(n_reference):  # each one a whole fit: not a hot path
        pseudo = model.draw(1, T, rng)[0]
        reference.append(check(pseudo, rng)[1])
    ref = _reference_shares(reference) if reference else {}
    return FitCheck(statistics=stats, model=model, fit_topics=fit_topics,
                    held_topics=held_topics, n_collections=R, reference=ref,
                    n_reference=n_reference)


def _reference_shares(frames: list[pd.DataFrame]) -> dict[str, float]:
    f = pd.concat(frames, ignore_index=True).dropna(subset=["inside"])
    return {stat: float(f.loc[f["statistic"] == stat, "inside"].astype(float).mean())
            for stat in STATISTICS if (f["statistic"] == stat).any()}
