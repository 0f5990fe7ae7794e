r"""A simulator of the user's collection: margins per system, a copula between them.

:func:`fit_collection` fits, to a systems x topics score matrix of one measure, the model
of Urbano & Nagler ("Stochastic Simulation of Test Collections: Evaluation Scores",
SIGIR 2018): each system's scores over topics follow a bounded margin
(:mod:`.families`, chosen by BIC), and the systems' scores on a topic are joined by a
copula (:mod:`.copula`). A new topic is a draw :math:`u` of the copula mapped through
each margin's quantile function, :math:`x_s = Q_s(u_s)`; a new collection is ``T``
independent topics. The model's truths are exact: the expected score of every system
is its margin's mean (:attr:`CollectionModel.means`), computed from the tabulated margin
that is drawn from.

Planted effects
    :meth:`CollectionModel.plant` gives system ``j`` the margin of system ``i``
    (``delta=0``: the two systems have the same expected score, a known null) or that
    margin moved to mean :math:`\mu_i + \delta` (a known difference, exact to 1e-9),
    keeping the copula and so ``j``'s dependence with every other system (Urbano &
    Nagler §3.4, §5: "systems with the same expected value").

Randomness
    Only from numpy Generators: the fit's ``seed`` breaks ties of the pseudo-observations,
    a draw's ``rng`` makes the topics. :meth:`CollectionModel.draw` makes ``R``
    collections at once, shape ``(R, S, T)``, with no Python loop over collections,
    topics or systems.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._numeric import check_allocation, check_seed, check_varies
from .._repr import short_repr
from ..errors import IRStabError
from .copula import CopulaKind, GaussianCopula, VineCopula, fit_copula, pseudo_observations
from .families import Family, Lattice, detect_lattice, fit_margin
from .margins import Margin, stack_quantiles

__all__ = ["CollectionModel", "fit_collection", "score_matrix_input", "MIN_TOPICS"]

#: Topics a fit needs at least (ranks, a margin's BIC).
MIN_TOPICS = 4
#: A score counts as inside the range within this fraction of the range's width.
_RANGE_TOL = 1e-9


@short_repr
@dataclass(frozen=True, eq=False)
class CollectionModel:
    """A fitted simulator of a collection (module docstring). Immutable: planting returns a
    new model.

    Attributes
    ----------
    systems : tuple of str
        System names, in the order of every array and of the draws' axis 1.
    margins : tuple of Margin
        Each system's score distribution.
    copula : GaussianCopula or VineCopula
        The dependence between systems.
    bounds : (float, float)
        The measure's range.
    lattice : Lattice or None
        The levels of a lattice measure, None for a continuous one.
    n_topics : int
        Topics the model was fitted on.
    observed_means : numpy.ndarray
        Each system's mean score on those topics.
    planted : tuple of str
        What :meth:`plant` changed, in order.
    """

    systems: tuple[str, ...]
    margins: tuple[Margin, ...] = field(repr=False)
    copula: GaussianCopula | VineCopula = field(repr=False)
    bounds: tuple[float, float] = (0.0, 1.0)
    lattice: Lattice | None = None
    n_topics: int = 0
    observed_means: np.ndarray = field(default=None, repr=False)
    planted: tuple[str, ...] = ()

    # ---------------------------------------------------------------- truths

    @property
    def means(self) -> np.ndarray:
        """Each system's expected score over the population of topics (exact)."""
        return np.array([m.mean for m in self.margins])

    @property
    def variances(self) -> np.ndarray:
        """Each system's score variance over topics (exact)."""
        return np.array([m.var for m in self.margins])

    @property
    def p_lo(self) -> np.ndarray:
        """Each system's probability of the range's lower end (a score of 0)."""
        return np.array([m.p_lo for m in self.margins])

    # ---------------------------------------------------------------- drawing

    def draw(self, n_collections: int, n_topics: int, rng=None) -> np.ndarray:
        """``n_collections`` simulated collections of ``n_topics`` new topics each.

        Parameters
        ----------
        n_collections, n_topics : int
            ``R >= 1`` and ``T >= 1``.
        rng : numpy.random.Generator or int
            Source of the draws (an int seeds a new Generator; a Generator is consumed).

        Returns
        -------
        numpy.ndarray, shape (R, S, T)
            Scores; ``out[r, s, t]`` is system ``s`` on topic ``t`` of collection ``r``.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(3)
        >>> scores = rng.beta(2, 3, size=(4, 30)) ** np.array([[1.0], [1.2], [0.8], [1.5]])
        >>> model = fit_collection(scores)
        >>> model.draw(100, 30, rng=1).shape
        (100, 4, 30)
        """
        R = _count(n_collections, "n_collections")
        T = _count(n_topics, "n_topics")
        S = len(self.systems)
        # u, the quantiles and the result: about four arrays of R*T*S doubles at once
        check_allocation(4.0 * 8 * R * T * S, f"n_collections x n_topics: {R} x {T} topics "
                                              f"of {S} systems")
        gen = check_seed(rng, "rng")
        u = self.copula.draw(R * T, gen)
        x = stack_quantiles(self.margins, u)
        return np.ascontiguousarray(x.reshape(R, T, S).transpose(0, 2, 1))

    # ---------------------------------------------------------------- planting

    def index(self, system) -> int:
        """The position of ``system`` (a name or a 0-based index)."""
        if isinstance(system, numbers.Integral) and not isinstance(system, bool):
            if not 0 <= system < len(self.systems):
                raise IRStabError(f"system: index {system} is out of range "
                                  f"(0..{len(self.systems) - 1})")
            return int(system)
        try:
            return self.systems.index(system)
        except ValueError:
            raise IRStabError(f"system: {system!r} is not one of the model's "
                              f"{len(self.systems)} systems") from None

    def plant(self, system, like=None, delta: float = 0.0) -> CollectionModel:
        r"""A model in which ``system`` has the margin of ``like``, moved by ``delta``.

        Parameters
        ----------
        system : str or int
            The system whose margin is replaced (its place in the copula is kept).
        like : str or int, optional
            The system whose margin it takes (default: ``system`` itself).
        delta : float
            Difference of expected scores to plant: the new mean is ``like``'s mean +
            ``delta`` (``delta = 0`` with another ``like``: the two systems are equal in
            expectation, the null).

        Returns
        -------
        CollectionModel
            :attr:`means` ``[system]`` equals ``means[like] + delta`` to 1e-9.

        Raises
        ------
        IRStabError
            An unknown system, or a target mean the margin cannot reach.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> model = fit_collection(rng.beta(2, 3, size=(3, 40)))
        >>> null = model.plant(1, like=0)
        >>> bool(null.means[1] == null.means[0])
        True
        >>> shifted = model.plant(1, like=0, delta=0.05)
        >>> round(float(shifted.means[1] - shifted.means[0]), 9)
        0.05
        """
        j = self.index(system)
        i = j if like is None else self.index(like)
        if not isinstance(delta, numbers.Real) or isinstance(delta, bool) \
                or not math.isfinite(delta):
            raise IRStabError(f"delta: must be a finite number, got {delta!r}")
        source = self.margins[i]
        margin = source if delta == 0 else source.with_mean(
            source.mean + float(delta), name=f"delta: system {self.systems[i]!r}")
        margins = list(self.margins)
        margins[j] = margin
        what = f"{self.systems[j]} = {self.systems[i]}" + (f" {delta:+g}" if delta else "")
        return replace(self, margins=tuple(margins), planted=self.planted + (what,))

    def with_means(self, means) -> CollectionModel:
        """A model whose systems have the expected scores ``means`` (each margin moved by
        :meth:`Margin.with_mean`), the copula kept."""
        target = np.asarray(means, dtype=np.float64)
        if target.shape != (len(self.systems),) or not np.isfinite(target).all():
            raise IRStabError(f"means: expected {len(self.systems)} finite numbers, "
                              f"got shape {target.shape}")
        margins = tuple(m.with_mean(float(t), name=f"means: system {s!r}")
                        for m, t, s in zip(self.margins, target, self.systems))
        return replace(self, margins=margins, planted=self.planted + ("means set",))

    # ---------------------------------------------------------------- presentation

    def _summary(self) -> str:
        fams = Counter(m.family for m in self.margins)
        fam = ", ".join(f"{f} {c}" for f, c in fams.most_common())
        support = str(self.lattice) if self.lattice is not None else "continuous"
        planted = f"; planted: {', '.join(self.planted)}" if self.planted else ""
        return (f"{len(self.systems)} systems fitted on {self.n_topics} topics, "
                f"{support} on [{self.bounds[0]:g}, {self.bounds[1]:g}]; margins: {fam}; "
                f"{self.copula.describe()}{planted}")

    def summary(self) -> str:
        """One line: systems, topics, margins by family, the copula."""
        return self._summary()

    def to_frame(self) -> pd.DataFrame:
        """One row per system: family, parameters, exact mean, sd and end masses, BIC."""
        rows = []
        for s, m, obs in zip(self.systems, self.margins, self.observed_means):
            rows.append({
                "system": s, "family": m.family,
                "params": ", ".join(f"{k}={v:.4g}" for k, v in m.params),
                "mean": m.mean, "observed_mean": float(obs), "sd": math.sqrt(m.var),
                "p_lo": m.p_lo, "p_hi": m.p_hi, "bic": m.bic,
                "runner_up": m.candidates[1][0] if len(m.candidates) > 1 else "",
                "bic_gap": (m.candidates[1][3] - m.candidates[0][3])
                if len(m.candidates) > 1 else math.nan,
            })
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """The model as plain Python types (JSON-ready)."""
        return {
            "systems": list(self.systems),
            "n_topics": int(self.n_topics),
            "bounds": [float(self.bounds[0]), float(self.bounds[1])],
            "lattice": None if self.lattice is None else {
                "kind": self.lattice.kind, "levels": len(self.lattice.levels)},
            "margins": [m.to_dict() for m in self.margins],
            "copula": self.copula.to_dict(),
            "planted": list(self.planted),
        }


def _count(v, name: str) -> int:
    if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1:
        raise IRStabError(f"{name}: must be an integer >= 1, got {v!r}")
    return int(v)


# ---------------------------------------------------------------- fitting


def score_matrix_input(scores, bounds=(0.0, 1.0), *, min_topics: int = MIN_TOPICS,
                       where: str = "scores"):
    """Validate a systems x topics score matrix; return (values, systems, topics, bounds).

    ``scores`` is a DataFrame (index: systems, columns: topics, as
    :func:`irstab.read_score_matrix` and :func:`irstab.score_matrices` give) or a 2-D
    array (systems x topics, named ``0..S-1`` and ``0..T-1``). Errors name the parameter
    and, for a bad score, the system and topic.
    """
    if (not isinstance(bounds, (tuple, list)) or len(bounds) != 2
            or not all(isinstance(b, numbers.Real) and not isinstance(b, bool) for b in bounds)
            or not all(math.isfinite(b) for b in bounds) or not bounds[0] < bounds[1]):
        raise IRStabError(f"bounds: expected two finite numbers lo < hi (the measure's range), "
                          f"got {bounds!r}")
    lo, hi = float(bounds[0]), float(bounds[1])
    if isinstance(scores, pd.DataFrame):
        systems = tuple(str(s) for s in scores.index)
        topics = tuple(str(t) for t in scores.columns)
        try:
            x = scores.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise IRStabError(f"{where}: every score must be a number") from None
    else:
        try:
            x = np.asarray(scores, dtype=np.float64)
        except (TypeError, ValueError):
            raise IRStabError(f"{where}: expected a systems x topics matrix of numbers") from None
        if x.ndim != 2:
            raise IRStabError(f"{where}: expected a 2-D systems x topics matrix, got "
                              f"{x.ndim} dimension(s)")
        systems = tuple(str(s) for s in range(x.shape[0]))
        topics = tuple(str(t) for t in range(x.shape[1]))
    S, T = x.shape
    if S < 1:
        raise IRStabError(f"{where}: no systems")
    if T < min_topics:
        raise IRStabError(f"{where}: {T} topic(s); the simulator needs at least {min_topics}")
    if len(set(systems)) != S:
        dup = next(s for s, c in Counter(systems).items() if c > 1)
        raise IRStabError(f"{where}: system {dup!r} appears twice")
    bad = ~np.isfinite(x)
    tol = _RANGE_TOL * (hi - lo)
    outside = (x < lo - tol) | (x > hi + tol)
    for mask, what in ((bad, "is not a finite number"),
                       (outside, f"is outside the measure's range [{lo:g}, {hi:g}] (give its "
                                 "range: --bounds LO HI, or bounds=(lo, hi) in Python)")):
        if mask.any():
            s, t = map(int, np.argwhere(mask)[0])
            raise IRStabError(f"{where}: score of system {systems[s]!r} on topic {topics[t]!r} "
                              f"({float(x[s, t])!r}) {what}")
    check_varies(x, where, then="there is no variation to simulate")
    return np.clip(x, lo, hi), systems, topics, (lo, hi)


def _lattice_arg(lattice, x, bounds) -> Lattice | None:
    if isinstance(lattice, Lattice):
        lattice.index(x.ravel(), "lattice")
        return lattice
    if isinstance(lattice, str):
        choices = {"auto": lambda: detect_lattice(x, bounds), "continuous": lambda: None}
        if lattice not in choices:
            raise IRStabError(f"lattice: expected 'auto', 'continuous' or a sequence of levels, "
                              f"got {lattice!r}")
        return choices[lattice]()
    try:
        levels = np.asarray(lattice, dtype=np.float64)
    except (TypeError, ValueError):
        raise IRStabError(f"lattice: expected 'auto', 'continuous' or a sequence of levels, "
                          f"got {lattice!r}") from None
    lat = Lattice(tuple(levels.tolist()), "given")
    lat.index(x.ravel(), "lattice")
    return lat


def fit_collection(scores, *, bounds=(0.0, 1.0), lattice="auto",
                   copula: CopulaKind | str = CopulaKind.gaussian,
                   families: Sequence[Family | str] | None = None, seed=0) -> CollectionModel:
    r"""Fit the simulator of a collection to its systems x topics score matrix (one measure).

    Parameters
    ----------
    scores : pandas.DataFrame or array-like, shape (S, T)
        Scores of ``S`` systems on ``T >= 4`` topics (:func:`score_matrix_input`).
    bounds : (float, float)
        The measure's range (default [0, 1], every measure irstab normalises).
    lattice : "auto", "continuous" or sequence of float
        ``"auto"`` detects P@k- and RR-like lattices from the scores
        (:func:`irstab.simulate.families.detect_lattice`); ``"continuous"`` never; a
        sequence gives the levels.
    copula : {"gaussian", "vine"}
        The dependence between systems (:mod:`irstab.simulate.copula`).
    families : sequence of str, optional
        Restrict the margins' candidate families (default: all that fit the support).
    seed : int or numpy.random.Generator
        Breaks ties of the pseudo-observations.

    Returns
    -------
    CollectionModel

    Raises
    ------
    IRStabError
        Scores that are not a matrix of finite numbers in ``bounds`` (naming the system and
        topic), fewer than 4 topics, unknown options.

    Notes
    -----
    Cost: each margin fits in about 10 ms at 43 topics (the beta kernel's
    cross-validation is :math:`O(T^2)` per bandwidth); the Gaussian copula is an
    eigendecomposition of S x S; the vine, pyvinecopulib's selection of
    :math:`S(S-1)/2` pair copulas at most.
    """
    x, systems, _, bounds = score_matrix_input(scores, bounds)
    lat = _lattice_arg(lattice, x, bounds)
    fams = None
    if families is not None:
        try:
            fams = tuple(Family(f) for f in families)
        except ValueError:
            raise IRStabError(f"families: expected names among {[f.value for f in Family]}, "
                              f"got {list(families)!r}") from None
    rng = check_seed(seed, "seed")
    margins = tuple(fit_margin(row, bounds=bounds, lattice=lat, families=fams,
                               name=f"system {s!r}") for s, row in zip(systems, x))
    u = pseudo_observations(x.T, rng)
    cop = fit_copula(u, copula)
    return CollectionModel(systems=systems, margins=margins, copula=cop, bounds=bounds,
                           lattice=lat, n_topics=x.shape[1], observed_means=x.mean(axis=1))
