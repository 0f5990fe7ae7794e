r"""Universes to calibrate the verdict in: normal ones, and ones made of real scores.

A :class:`Universe` is a population of systems and topics whose true Phi at
:math:`n` topics, and so every candidate's true difference :math:`\Delta_c` to the
baseline, is known. Three kinds:

* **normal** (:func:`family`, :func:`two_measures`, :func:`fitted_universe`,
  :func:`standard_universes`): covariance components
  (:mod:`irstab.stability.multivariate`), effects drawn from the normal
  random-effects model the G-study assumes;
* **empirical effects** (:func:`robustness_universes`): the components fitted to
  DL-2019, effects drawn from its own estimated effects (Carpenter, Goldstein &
  Rasbash 2003);
* **real scores** (:func:`resampled_universe`, :func:`real_universes`): a real
  score matrix is the population; a collection resamples its systems and topics
  (with or without replacement) and the truth is the population's own components
  (:func:`population_components`). Nothing is assumed about the scores'
  distribution: where a method and the normal universes disagree with these,
  these decide.

References
----------
Carpenter, J. R., Goldstein, H., Rasbash, J. (2003). A novel bootstrap
procedure for assessing the relationship between class size and
achievement. Journal of the Royal Statistical Society C 52(4), 431-443
(effects rescaled to fitted covariances, as the empirical universes here).
Cornfield, J., Tukey, J. W. (1956). Average values of mean squares in
factorials. Annals of Mathematical Statistics 27(4), 907-949 (sampling
without replacement from finite populations of rows and columns).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import IRStabError
from ..io.scores import as_scores, not_among

__all__ = ["Universe", "two_measures", "family", "fitted_universe", "standard_universes",
           "robustness_universes", "resampled_universe", "real_universes", "planted_scores",
           "population_components", "PLANT_RESIDUAL"]

#: The moderate plant's residual factor (residual sd .18 against .25): a planted twin
#: ``planted_scores(x, PLANT_RESIDUAL)`` is truly more stable than ``x``.
PLANT_RESIDUAL = 0.72


@dataclass(frozen=True, eq=False)
class Universe:
    """A universe of systems and topics, and the size of the collections drawn from it.

    Attributes
    ----------
    name : str
    measures : tuple of str
        The first is the baseline.
    components : irstab.stability.multivariate.CovarianceComponents
        Positive semi-definite, M x M each.
    n_systems, n_topics : int
    candidates : tuple of str
        The measures the rule may recommend (default: all but the baseline).
    effects : tuple of ndarray or None
        ``(system, topic, residual)`` effect vectors (rows of M) to draw from
        with replacement instead of the normal distribution (a non-normal
        universe; :func:`fitted_universe` with ``shape="empirical"``).
    note : str
    population : ndarray or None
        ``(M, N_s, N_t)`` real scores: a collection is ``n_systems`` rows and
        ``n_topics`` columns of it, drawn with replacement (``replace``) or
        without (:func:`resampled_universe`); ``components`` are then the
        population's own.
    replace : bool
    """

    name: str
    measures: tuple[str, ...]
    components: object
    n_systems: int
    n_topics: int
    candidates: tuple[str, ...] = ()
    effects: tuple | None = None
    note: str = ""
    population: np.ndarray | None = None
    replace: bool = True

    def __post_init__(self):
        if not self.candidates:
            object.__setattr__(self, "candidates", tuple(self.measures[1:]))

    @property
    def baseline(self) -> str:
        return self.measures[0]

    def true_phi(self) -> np.ndarray:
        """Phi of every measure at the collections' number of topics."""
        return self.components.phi(self.n_topics)

    def true_diff(self) -> np.ndarray:
        """True Phi difference of every measure to the baseline."""
        phi = self.true_phi()
        return phi - phi[0]

    def resized(self, n_systems: int, n_topics: int, name: str | None = None) -> Universe:
        """The same universe, collections of another size."""
        return replace(self, n_systems=n_systems, n_topics=n_topics,
                       name=name or self.name)

    @property
    def kind(self) -> str:
        """``"normal"``, ``"empirical effects"`` or ``"real scores"`` (how it draws)."""
        if self.population is not None:
            return "real scores" + ("" if self.replace else ", without replacement")
        return "normal" if self.effects is None else "empirical effects"

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """One collection's scores, ``(M, n_systems, n_topics)``."""
        from ..stability.multivariate import simulate_scores

        if self.population is not None:
            _, n_s, n_t = self.population.shape
            if self.replace:
                rows = rng.integers(0, n_s, self.n_systems)
                cols = rng.integers(0, n_t, self.n_topics)
            else:
                rows = rng.choice(n_s, self.n_systems, replace=False)
                cols = rng.choice(n_t, self.n_topics, replace=False)
            return np.ascontiguousarray(self.population[:, rows][:, :, cols])
        if self.effects is None:
            return simulate_scores(self.components, self.n_systems, self.n_topics, rng)
        a, b, e = self.effects
        S, T = self.n_systems, self.n_topics
        x = (a[rng.integers(0, len(a), S)][:, None, :] + b[rng.integers(0, len(b), T)][None]
             + e[rng.integers(0, len(e), (S, T))])
        return np.ascontiguousarray(np.moveaxis(x, -1, 0))


# ----------------------------------------------------------------- universes


def _cov(sd: Sequence[float], corr: float) -> np.ndarray:
    sd = np.asarray(sd, dtype=float)
    c = np.full((len(sd), len(sd)), float(corr))
    np.fill_diagonal(c, 1.0)
    return c * np.outer(sd, sd)


def family(
    name: str,
    n_systems: int,
    n_topics: int,
    sd: Sequence[tuple[float, float, float]],
    corr: tuple[float, float, float],
    measures: Sequence[str] | None = None,
    note: str = "",
) -> Universe:
    """A baseline and candidates with given effect sds and one correlation per facet.

    ``sd[m] = (system, topic, residual)`` standard deviations of measure m
    (the first is the baseline); ``corr = (rho_sys, rho_top, rho_res)``:
    every pair of measures' effects correlate this much.
    """
    from ..stability.multivariate import CovarianceComponents

    sd = np.asarray(sd, dtype=float)
    if sd.ndim != 2 or sd.shape[1] != 3 or len(sd) < 2 or (sd < 0).any():
        raise IRStabError(f"sd: expected rows (system, topic, residual) >= 0, got {sd.tolist()}")
    names = tuple(measures or ["baseline", *(f"candidate {k}" for k in range(1, len(sd)))])
    comps = CovarianceComponents(*(_cov(sd[:, f], corr[f]) for f in range(3)))
    return Universe(name, names, comps, n_systems, n_topics, note=note)


def two_measures(name, n_systems, n_topics, baseline, candidate, corr, note="") -> Universe:
    """:func:`family` of a baseline and one candidate."""
    return family(name, n_systems, n_topics, [baseline, candidate], corr,
                  ["baseline", "candidate"], note)


def _rescaled(z: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """Centred rows of ``z`` transformed so that their covariance (divisor n) is ``cov``."""
    z = z - z.mean(axis=0)
    emp = z.T @ z / len(z)

    def power(c, p):
        w, v = np.linalg.eigh((c + c.T) / 2.0)
        keep = w > 1e-12 * max(float(w.max(initial=0.0)), 1e-300)
        return (v[:, keep] * w[keep] ** p) @ v[:, keep].T

    return z @ power(emp, -0.5) @ power(cov, 0.5)


def fitted_universe(
    name: str,
    scores: Mapping,
    baseline: str,
    *,
    candidates: Sequence[str] | None = None,
    shape: str = "normal",
    note: str = "",
) -> Universe:
    """The universe whose components are those fitted to ``scores`` (made PSD).

    ``shape="normal"`` draws effects from the normal model;
    ``"empirical"`` draws them with replacement from the scores' own
    estimated effects (system and topic means, residuals), rescaled so that
    their covariances equal the fitted components (Carpenter, Goldstein &
    Rasbash 2003): the same components, the data's skewness and tails.
    """
    from ..stability.multivariate import covariance_components, mean_products

    data = as_scores(scores)
    if baseline not in data.measures:
        raise IRStabError(not_among("baseline", baseline, data.measures))
    order = [baseline, *(m for m in data.measures if m != baseline)]
    cube = data.cube[[data.measures.index(m) for m in order]]
    comps = covariance_components(mean_products(cube)).psd()
    effects = None
    if shape == "empirical":
        M = cube.shape[0]
        grand = cube.mean(axis=(1, 2), keepdims=True)
        rows, cols = cube.mean(axis=2, keepdims=True), cube.mean(axis=1, keepdims=True)
        effects = (
            _rescaled((rows - grand)[:, :, 0].T, comps.systems),
            _rescaled((cols - grand)[:, 0, :].T, comps.topics),
            _rescaled((cube - rows - cols + grand).reshape(M, -1).T, comps.residual),
        )
    elif shape != "normal":
        raise IRStabError(f"shape: expected 'normal' or 'empirical', got {shape!r}")
    return Universe(name, tuple(order), comps, data.n_systems, data.n_topics,
                    candidates=tuple(candidates or ()), effects=effects, note=note)


def _scaled(universe: Universe, name: str, topic: float = 1.0, residual: float = 1.0,
            note: str = "") -> Universe:
    """The candidate's (measure 1's) topic and residual variances multiplied (covariances follow)."""
    from ..stability.multivariate import CovarianceComponents

    c = universe.components
    scale = np.ones(len(universe.measures))

    def times(m, f):
        s = scale.copy()
        s[1] = math.sqrt(f)
        return m * np.outer(s, s)

    return replace(universe, name=name, note=note, components=CovarianceComponents(
        c.systems.copy(), times(c.topics, topic), times(c.residual, residual)))


def _null_pair(fitted: Universe) -> Universe:
    """Both measures with the baseline's components; correlations as fitted."""
    from ..stability.multivariate import CovarianceComponents

    out = []
    for c in (fitted.components.systems, fitted.components.topics, fitted.components.residual):
        rho = c[0, 1] / math.sqrt(c[0, 0] * c[1, 1]) if c[0, 0] * c[1, 1] > 0 else 0.0
        out.append(c[0, 0] * np.array([[1.0, rho], [rho, 1.0]]))
    return replace(fitted, components=CovarianceComponents(*out))


def standard_universes(dl2019: Mapping | None = None) -> list[Universe]:
    """The settings of ``docs/calibration.md``.

    * 12 x 30 and 30 x 40: system sd 0.15, topic sd 0.20, residual sd 0.25; the
      two measures share their system and topic effects, their residuals are
      independent. Null: equal components. Unequal topic variance: the
      candidate's topic sd is 0.15 and its residual variance larger by as
      much (equal Phi). Planted: the candidate's residual sd is 0.18 (the
      moderate plant; with topic sd 0.15, residual variance chosen for the
      same true difference). A family of 8 candidates at 30 x 40: all null,
      or one of them planted.
    * DL-2019 (``dl2019``: ``{measure: 37 x 43 scores}`` with ``nDCG@10``,
      ``nDCG@20`` and the nDCG presets): nDCG@10's fitted components for
      both measures, correlated as nDCG@10 and nDCG@20 are; unequal topic
      variance: half the candidate's topic variance moved to its residual;
      planted: the candidate's residual variance times 0.5184 (= 0.72^2, the
      ratio of the moderate plant), or (unequal topic variance) half its
      topic variance and the residual variance that gives the same true
      difference; and nDCG@10 with the nDCG presets, as fitted.
    """
    out = []
    base, shared = (0.15, 0.20, 0.25), (1.0, 1.0, 0.0)
    eq_plant = (0.15, 0.20, 0.18)
    noise = 0.20 ** 2 + 0.18 ** 2  # the moderate plant's topic + residual variance
    uneq_null = (0.15, 0.15, math.sqrt(0.20 ** 2 + 0.25 ** 2 - 0.15 ** 2))
    uneq_plant = (0.15, 0.15, math.sqrt(noise - 0.15 ** 2))
    for S, T in ((12, 30), (30, 40)):
        size = f"{S} x {T}"
        out += [
            two_measures(f"{size}, null, equal topic variance", S, T, base, base, shared),
            two_measures(f"{size}, null, unequal topic variance", S, T, base, uneq_null, shared),
            two_measures(f"{size}, planted, equal topic variance", S, T, base, eq_plant, shared),
            two_measures(f"{size}, planted, unequal topic variance", S, T, base, uneq_plant,
                         shared),
        ]
    out += [
        family("30 x 40, 8 candidates, all null", 30, 40, [base] * 9, shared),
        family("30 x 40, 8 candidates, one planted", 30, 40, [base, eq_plant] + [base] * 7,
               shared),
    ]
    if dl2019 is not None:
        pair = {m: dl2019[m] for m in ("nDCG@10", "nDCG@20")}
        fitted = fitted_universe("DL-2019", pair, "nDCG@10")
        null = _null_pair(fitted)
        c = null.components
        half = 0.5 * c.topics[0, 0]
        uneq = _scaled(null, "", topic=0.5, residual=(c.residual[0, 0] + half) / c.residual[0, 0])
        plant = _scaled(null, "", residual=PLANT_RESIDUAL ** 2)
        noise = c.topics[0, 0] + PLANT_RESIDUAL ** 2 * c.residual[0, 0]
        uneq_plant = _scaled(null, "", topic=0.5,
                             residual=(noise - half) / c.residual[0, 0])
        out += [
            replace(null, name="DL-2019 37 x 43, null, equal topic variance"),
            replace(uneq, name="DL-2019 37 x 43, null, unequal topic variance"),
            replace(plant, name="DL-2019 37 x 43, planted, equal topic variance"),
            replace(uneq_plant, name="DL-2019 37 x 43, planted, unequal topic variance"),
        ]
        presets = [m for m in dl2019 if m.startswith("nDCG(") and m != "nDCG@10"]
        if presets:
            scores = {"nDCG@10": dl2019["nDCG@10"], **{m: dl2019[m] for m in presets}}
            out.append(fitted_universe(f"DL-2019 37 x 43, nDCG@10 and {len(presets)} nDCG "
                                       "presets as fitted", scores, "nDCG@10"))
    return out


def robustness_universes(dl2019: Mapping) -> list[Universe]:
    """Outside the model: DL-2019's own (non-normal) effects, rescaled to the fitted components.

    nDCG@10 against nDCG@20, DCG_UL(version=2)@10 and AP (those of them in
    ``dl2019``), each drawn with ``shape="empirical"`` at 37 x 43 and 12 x 30.
    DL-2019's system effects are heavy-tailed (a few runs far below the rest),
    which biases every Phi estimate downwards, the more so the heavier the
    tail; ``docs/calibration.md`` shows what that does to the intervals.
    """
    out = []
    for other in ("nDCG@20", "DCG_UL(version=2)@10", "AP"):
        if other not in dl2019:
            continue
        u = fitted_universe(f"DL-2019 37 x 43, nDCG@10 and {other}, DL-2019's own effects",
                            {"nDCG@10": dl2019["nDCG@10"], other: dl2019[other]}, "nDCG@10",
                            shape="empirical")
        out += [u, u.resized(12, 30, name=f"12 x 30, nDCG@10 and {other}, DL-2019's own "
                                          "effects")]
    return out


# ----------------------------------------------------------------- the simulation


# ----------------------------------------------------------------- real-score universes


def population_components(x: np.ndarray, replace: bool = True):
    r"""The true components of a population of real scores ``x (M, N_s, N_t)``.

    Drawn with replacement, a collection's systems and topics are independent
    draws from the population's rows and columns, whose effects have variances
    with divisor :math:`N`: :math:`\sigma^2_s = \frac1{N_s}\sum_i a_i^2`,
    :math:`\sigma^2_t = \frac1{N_t}\sum_j b_j^2`, :math:`\sigma^2_e =
    \frac1{N_s N_t}\sum_{ij} e_{ij}^2` (and the covariances between measures
    likewise). Without replacement the truth is the population's own G-study
    (divisors :math:`N - 1`, the ANOVA of the whole matrix). Sample components
    average to these over draws (tested).
    """
    from ..stability.multivariate import CovarianceComponents, covariance_components, \
        mean_products

    x = np.asarray(x, dtype=float)
    if not replace:
        return covariance_components(mean_products(x))
    M, n_s, n_t = x.shape
    g = x.mean(axis=(1, 2), keepdims=True)
    a = (x.mean(axis=2, keepdims=True) - g)[:, :, 0]
    b = (x.mean(axis=1, keepdims=True) - g)[:, 0, :]
    e = (x - x.mean(axis=2, keepdims=True) - x.mean(axis=1, keepdims=True) + g).reshape(M, -1)
    return CovarianceComponents(a @ a.T / n_s, b @ b.T / n_t, e @ e.T / (n_s * n_t))


def resampled_universe(
    name: str,
    scores: Mapping,
    baseline: str,
    n_systems: int,
    n_topics: int,
    *,
    candidates: Sequence[str] | None = None,
    replace: bool = True,
    note: str = "",
) -> Universe:
    """A universe made of real scores: collections resample the systems and topics of ``scores``.

    ``scores`` is ``{measure: systems x topics}`` of one real collection (the
    population); each collection draws ``n_systems`` of its systems and
    ``n_topics`` of its topics, with or without replacement; the truth is
    :func:`population_components`. Nothing about the scores' distribution is
    assumed: heavy-tailed system effects, bounded scores, lattices and
    heteroscedastic residuals come as they are.
    """
    data = as_scores(scores)
    if baseline not in data.measures:
        raise IRStabError(not_among("baseline", baseline, data.measures))
    order = [baseline, *(m for m in data.measures if m != baseline)]
    pop = np.ascontiguousarray(data.cube[[data.measures.index(m) for m in order]])
    _, n_s, n_t = pop.shape
    if not replace and (n_systems > n_s or n_topics > n_t):
        raise IRStabError(
            f"without replacement a collection of {n_systems} x {n_topics} needs a population "
            f"that large, got {n_s} x {n_t}"
        )
    return Universe(name, tuple(order), population_components(pop, replace), n_systems,
                    n_topics, candidates=tuple(candidates or ()), note=note, population=pop,
                    replace=replace)


def planted_scores(x: np.ndarray, residual: float = 1.0, permute=None) -> np.ndarray:
    """Real scores with a planted change: ``grand + a + b + residual * e`` (rows of ``e`` permuted).

    ``x`` is one systems x topics matrix; ``a``, ``b`` and ``e`` its system,
    topic and residual effects. ``residual < 1`` makes a measure that is
    exactly more stable in the population (the same system and topic effects,
    less interaction); ``permute`` (a permutation of the systems) moves every
    system's row of residuals to another system: the components, and so the
    true Phi, are exactly the original's, but the two measures' residuals are no
    longer the same draws (a real-score null pair).
    """
    x = np.asarray(x, dtype=float)
    g = x.mean()
    rows, cols = x.mean(axis=1, keepdims=True), x.mean(axis=0, keepdims=True)
    e = x - rows - cols + g
    if permute is not None:
        e = e[np.asarray(permute)]
    return rows + cols - g + residual * e


def real_universes(dl2019: Mapping, trec3: Mapping | None = None,
                   sizes: Sequence[tuple[int, int]] = ((12, 20), (20, 25), (30, 40))) -> list[Universe]:
    """The real-score settings of ``docs/calibration.md``.

    From TREC DL 2019 (``dl2019``: ``{measure: 37 x 43}`` with nDCG@10, nDCG@20,
    nDCG@100, ``nDCG(discount=zipf)@10``, ``nDCG(gain=exp)@10``, AP and RR),
    at every size: nDCG@10 against each of nDCG@20, @100, the zipf discount and the
    exp gain (effects correlated .96 to .99), against AP and RR (lower
    correlation), against a null twin (its residual rows permuted) and a planted
    one (residual times 0.72, the moderate plant), and against the four nDCG
    configurations at once (a simultaneous family); at 20 x 25 and 30 x 40 the
    pair nDCG@10 / @100 and the family also without replacement. From the TREC-3
    ad hoc AP matrix (``trec3``: ``{"AP": 40 x 50}``), AP against its null twin
    and its planted one. Measures missing from the inputs are left out.
    """
    out = []
    pairs = ["nDCG@20", "nDCG@100", "nDCG(discount=zipf)@10", "nDCG(gain=exp)@10", "AP", "RR"]
    fam = [m for m in pairs[:4] if m in dl2019]
    base = np.asarray(dl2019["nDCG@10"], dtype=float)
    perm = np.roll(np.arange(base.shape[0]), 1)
    made = {"null twin": planted_scores(base, 1.0, perm), "planted": planted_scores(base, PLANT_RESIDUAL)}
    for S, T in sizes:
        size = f"DL-2019 {S} x {T}"
        for other in [m for m in pairs if m in dl2019]:
            out.append(resampled_universe(f"{size}, nDCG@10 vs {other}",
                                          {"nDCG@10": base, other: dl2019[other]}, "nDCG@10", S, T))
        for label, x in made.items():
            out.append(resampled_universe(f"{size}, nDCG@10 vs its {label}",
                                          {"nDCG@10": base, label: x}, "nDCG@10", S, T))
        if len(fam) > 1:
            out.append(resampled_universe(
                f"{size}, nDCG@10 vs {len(fam)} nDCG configurations",
                {"nDCG@10": base, **{m: dl2019[m] for m in fam}}, "nDCG@10", S, T))
        if (S, T) != sizes[0]:
            if "nDCG@100" in dl2019:
                out.append(resampled_universe(
                    f"{size} without replacement, nDCG@10 vs nDCG@100",
                    {"nDCG@10": base, "nDCG@100": dl2019["nDCG@100"]}, "nDCG@10", S, T,
                    replace=False))
            if len(fam) > 1:
                out.append(resampled_universe(
                    f"{size} without replacement, nDCG@10 vs {len(fam)} nDCG configurations",
                    {"nDCG@10": base, **{m: dl2019[m] for m in fam}}, "nDCG@10", S, T,
                    replace=False))
    if trec3 is not None:
        ap = np.asarray(trec3["AP"], dtype=float)
        twin = planted_scores(ap, 1.0, np.roll(np.arange(ap.shape[0]), 1))
        for S, T in sizes[1:]:
            size = f"TREC-3 {S} x {T}"
            out.append(resampled_universe(f"{size}, AP vs its null twin",
                                          {"AP": ap, "null twin": twin}, "AP", S, T))
            out.append(resampled_universe(f"{size}, AP vs its planted",
                                          {"AP": ap, "planted": planted_scores(ap, PLANT_RESIDUAL)},
                                          "AP", S, T))
    return out
