r"""Does the verdict's 95 % mean 95 %? Simulate what the decision rule claims.

A :class:`Universe` is a population of systems and topics given by its
covariance components (:mod:`irstab.stability.multivariate`): for every
measure its system, topic and residual variance, and for every pair of
measures the covariances of their effects. Its true Phi at :math:`n` topics,
and so every candidate's true difference :math:`\Delta_c` to the baseline, is
known. :func:`calibrate` draws ``n_replicates`` collections of its size (fresh
systems *and* topics each time), runs the paired comparison and the rule on
each, exactly as :func:`irstab.compare.verdict` does, and counts:

* **coverage**: how often a candidate's interval contains its true
  :math:`\Delta_c`; for several candidates, how often *all* of them do
  (simultaneous coverage);
* **width against the true sd**: the true sd of :math:`\hat\Delta_c` is the
  standard deviation of the estimates over the replicates; ``sd_ratio`` is
  the mean sd of the method's draws over it, ``width_ratio`` the mean
  interval width over :math:`2 z_{0.975}` true sd's (1 for an exact normal
  interval of one candidate; simultaneous intervals are wider by design);
* **wrong recommendations**: replicates whose recommended candidate is not
  truly more stable (:math:`\Delta_c \le 0`);
* **power**: replicates that recommend a candidate that is truly more stable.

Monte-Carlo error of a rate :math:`p` over :math:`R` replicates:
:math:`\sqrt{p(1-p)/R}` (0.007 for coverage 0.95 at R = 1000).

:func:`standard_universes` are the settings of ``docs/calibration.md``
(written by ``benchmarks/bench_calibration.py --write-docs``): 12 x 30,
30 x 40 and DL-2019's 37 x 43, null and planted, equal and unequal topic
variance, a family of candidates and DL-2019's nDCG configurations as
fitted; :func:`robustness_universes` step outside the model, drawing
DL-2019's own (non-normal) effects.

References
----------
Carpenter, J. R., Goldstein, H., Rasbash, J. (2003). A novel bootstrap
procedure for assessing the relationship between class size and
achievement. Journal of the Royal Statistical Society C 52(4), 431-443
(effects rescaled to fitted covariances, as the empirical universes here).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._repr import short_repr
from ..errors import IRStabError
from ._input import as_scores, check_positive_int, check_seed
from .decision import choose, topics_needed
from .paired import PhiInterval, check_interval, phi_differences

__all__ = ["Universe", "Calibration", "calibrate", "two_measures", "family",
           "fitted_universe", "standard_universes", "robustness_universes"]

_TRUE_TOL = 1e-12  # a true difference within this of 0 is "not more stable"


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
    """

    name: str
    measures: tuple[str, ...]
    components: object
    n_systems: int
    n_topics: int
    candidates: tuple[str, ...] = ()
    effects: tuple | None = None
    note: str = ""

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

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """One collection's scores, ``(M, n_systems, n_topics)``."""
        from ..stability.multivariate import simulate_scores

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
        raise IRStabError(f"baseline: {baseline!r} is not among {list(data.measures)}")
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
        plant = _scaled(null, "", residual=0.72 ** 2)
        noise = c.topics[0, 0] + 0.72 ** 2 * c.residual[0, 0]
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


@short_repr
@dataclass(frozen=True, eq=False)
class Calibration:
    """What the rule did on ``n_replicates`` collections drawn from one universe.

    Arrays of shape (R, K) follow the replicates and the universe's
    candidates; ``recommended[r]`` is the index of the recommended candidate
    or -1.
    """

    universe: Universe
    interval: str
    n_replicates: int
    n_bootstrap: int
    confidence: float
    target: float
    min_saving: float
    diff_hat: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sd_draws: np.ndarray
    recommended: np.ndarray
    true_diff: np.ndarray = field(repr=False)

    # -- per candidate
    @property
    def covered(self) -> np.ndarray:
        t = self.true_diff[None, :]
        return (self.lower <= t) & (t <= self.upper)

    @property
    def coverage(self) -> np.ndarray:
        return self.covered.mean(axis=0)

    @property
    def true_sd(self) -> np.ndarray:
        return self.diff_hat.std(axis=0, ddof=1)

    @property
    def sd_ratio(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.sd_draws.mean(axis=0) / self.true_sd

    @property
    def width_ratio(self) -> np.ndarray:
        from scipy.stats import norm

        z = norm.ppf(0.5 + self.confidence / 2.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (self.upper - self.lower).mean(axis=0) / (2.0 * z * self.true_sd)

    @property
    def lower_above_zero(self) -> np.ndarray:
        return (self.lower > 0).mean(axis=0)

    # -- over the family
    @property
    def simultaneous_coverage(self) -> float:
        return float(self.covered.all(axis=1).mean())

    @property
    def truly_better(self) -> np.ndarray:
        return self.true_diff > _TRUE_TOL

    @property
    def wrong_rate(self) -> float:
        """Replicates recommending a candidate that is not truly more stable."""
        rec = self.recommended
        bad = np.concatenate([~self.truly_better, [False]])  # index -1: no recommendation
        return float(bad[np.where(rec < 0, len(self.truly_better), rec)].mean())

    @property
    def power(self) -> float:
        """Replicates recommending a truly more stable candidate (NaN if there is none)."""
        if not self.truly_better.any():
            return math.nan
        good = np.concatenate([self.truly_better, [False]])
        rec = self.recommended
        return float(good[np.where(rec < 0, len(self.truly_better), rec)].mean())

    def mc_error(self, p: float) -> float:
        """Monte-Carlo standard error of a rate ``p`` over the replicates."""
        return math.sqrt(p * (1.0 - p) / self.n_replicates) if math.isfinite(p) else math.nan

    def _summary(self) -> str:
        s = self.summary()
        return (f"{self.universe.name}, {self.interval}: coverage {s['coverage']:.3f} "
                f"(+-{s['coverage_mc_error']:.3f}), wrong {s['wrong_recommendations']:.3f}, "
                f"power {s['power']:.3f} over {self.n_replicates} collections")

    def summary(self) -> dict:
        """One row of the docs table: the family's figures.

        ``coverage`` is the simultaneous coverage (with one candidate, its
        coverage); ``true_diff`` and ``true_sd`` are the largest true
        difference's candidate's; ``sd_ratio`` and ``width_ratio`` the
        means over the candidates.
        """
        k = int(np.argmax(self.true_diff))
        cov = self.simultaneous_coverage
        power = self.power
        return {
            "universe": self.universe.name,
            "interval": self.interval,
            "n_systems": self.universe.n_systems,
            "n_topics": self.universe.n_topics,
            "candidates": len(self.true_diff),
            "replicates": self.n_replicates,
            "true_diff": float(self.true_diff[k]),
            "true_sd": float(self.true_sd[k]),
            "sd_ratio": float(np.nanmean(self.sd_ratio)),
            "width_ratio": float(np.nanmean(self.width_ratio)),
            "coverage": cov,
            "coverage_mc_error": self.mc_error(cov),
            "lower_above_zero": float(self.lower_above_zero[k]),
            "wrong_recommendations": self.wrong_rate,
            "power": power,
            "power_mc_error": self.mc_error(power),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per candidate."""
        return pd.DataFrame({
            "candidate": list(self.universe.candidates),
            "true_diff": self.true_diff,
            "true_sd": self.true_sd,
            "sd_ratio": self.sd_ratio,
            "width_ratio": self.width_ratio,
            "coverage": self.coverage,
            "lower_above_zero": self.lower_above_zero,
            "recommended": [(self.recommended == k).mean() for k in range(len(self.true_diff))],
        })

    def to_dict(self) -> dict:
        return {**self.summary(), "per_candidate": self.to_frame().to_dict(orient="records")}


def calibrate(
    universe: Universe,
    *,
    interval: PhiInterval | str | Callable = PhiInterval.parametric,
    n_replicates: int = 1000,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    target: float = 0.95,
    min_saving: float = 0.10,
    seed=0,
    progress: Callable[[int], None] | None = None,
) -> Calibration:
    """Draw collections from ``universe`` and tally what the rule does (module docstring).

    Each replicate runs :func:`~irstab.compare.paired.phi_differences` (the
    Phi part of :func:`irstab.compare.verdict`, with the candidates as the
    simultaneous family) and the rule of :func:`~irstab.compare.decision.decide`
    on G-study topics needed, as :func:`irstab.compare.verdict` does.

    Parameters
    ----------
    universe : Universe
    interval : {"parametric", "bootstrap", "topic-bootstrap"} or callable
        The method under test; a callable ``(cube, n_draws, rng) -> (M, n_draws)``
        Phi draws calibrates a method the library does not offer.
    n_replicates : int
        Collections drawn (>= 200 for the docs).
    n_bootstrap, confidence, target, min_saving
        As in :func:`irstab.compare.verdict`; ``n_bootstrap`` is not held to
        :func:`~irstab.compare.paired.min_draws` here, so that what too few draws do
        can be measured (the verdict refuses them).
    seed : int or numpy.random.Generator
    progress : callable, optional
        Called with the number of replicates done.

    Returns
    -------
    Calibration

    Examples
    --------
    >>> u = two_measures("toy", 20, 30, (0.15, 0.2, 0.25), (0.15, 0.2, 0.25), (1, 1, 0))
    >>> c = calibrate(u, n_replicates=40, n_bootstrap=200, seed=1)
    >>> c.coverage.shape, 0.8 <= c.simultaneous_coverage <= 1.0
    ((1,), True)
    """
    R = check_positive_int("n_replicates", n_replicates)
    B = check_positive_int("n_bootstrap", n_bootstrap)
    if not callable(interval):
        interval = check_interval(interval)
    rng = check_seed(seed)
    measures = universe.measures
    cand = np.array([m in universe.candidates for m in measures])
    cand[0] = False
    idx = np.flatnonzero(cand)
    K = len(idx)
    if K == 0:
        raise IRStabError(f"universe {universe.name!r}: no candidate besides the baseline")
    out = {k: np.empty((R, K)) for k in ("diff", "lower", "upper", "sd")}
    rec = np.full(R, -1)
    for r in range(R):
        cube = universe.draw(rng)
        d = phi_differences(cube, 0, cand, interval=interval, n_bootstrap=B,
                            confidence=confidence, rng=rng)
        needed = topics_needed(cube, target)
        pick = choose(d.diff, d.lower, needed, 0, idx.tolist(), min_saving)
        rec[r] = -1 if pick is None else int(np.flatnonzero(idx == pick)[0])
        for key, arr in (("diff", d.diff), ("lower", d.lower), ("upper", d.upper), ("sd", d.sd)):
            out[key][r] = arr[idx]
        if progress is not None:
            progress(r + 1)
    name = interval.value if isinstance(interval, PhiInterval) else getattr(
        interval, "__name__", "custom")
    return Calibration(
        universe=universe, interval=name, n_replicates=R, n_bootstrap=B,
        confidence=float(confidence), target=float(target), min_saving=float(min_saving),
        diff_hat=out["diff"], lower=out["lower"], upper=out["upper"], sd_draws=out["sd"],
        recommended=rec, true_diff=universe.true_diff()[idx],
    )
