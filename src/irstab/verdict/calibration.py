r"""Does the verdict's 95 % mean 95 %? Simulate what the decision rule claims.

A universe (:mod:`irstab.verdict.universes`: normal components, or a real score
matrix resampled) has a known true Phi of every measure at :math:`n` topics, and
so a known true difference :math:`\Delta_c` of every candidate to the baseline.
:func:`calibrate` draws ``n_replicates`` collections of its size (fresh systems
*and* topics each time), runs the paired comparison and the rule on each, exactly
as :func:`irstab.verdict.verdict` does, and counts:

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

The settings of ``docs/calibration.md`` (written by
``benchmarks/bench_calibration.py --write-docs``) are
:func:`~irstab.verdict.universes.standard_universes` (normal),
:func:`~irstab.verdict.universes.robustness_universes` (DL-2019's own effects) and
:func:`~irstab.verdict.universes.real_universes` (DL-2019 and TREC-3 resampled).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._repr import short_repr
from ..errors import IRStabError
from ..io.scores import check_positive_int, check_seed
from .decision import choose, topics_needed
from .paired import PhiInterval, check_interval, phi_differences
from .universes import (
    Universe, family, fitted_universe, real_universes, resampled_universe,
    robustness_universes, standard_universes, two_measures,
)

__all__ = ["Universe", "Calibration", "calibrate", "two_measures", "family",
           "fitted_universe", "standard_universes", "robustness_universes",
           "resampled_universe", "real_universes"]

#: Collections whose jackknife intervals are computed in one pass (:mod:`.jackknife_stack`):
#: 32 collections of 2 x 37 x 43 scores keep the pass's arrays in cache (16-64 cost the same).
STACK = 32
_TRUE_TOL = 1e-12  # a true difference within this of 0 is "not more stable"


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
    interval: PhiInterval | str | Callable = PhiInterval.jackknife,
    n_replicates: int = 1000,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    target: float = 0.95,
    min_saving: float = 0.10,
    seed=0,
    progress: Callable[[int], None] | None = None,
) -> Calibration:
    """Draw collections from ``universe`` and tally what the rule does (module docstring).

    Each replicate runs :func:`~irstab.verdict.paired.phi_differences` (the
    Phi part of :func:`irstab.verdict.verdict`, with the candidates as the
    simultaneous family) and the rule of :func:`~irstab.verdict.decision.decide`
    on G-study topics needed, as :func:`irstab.verdict.verdict` does.

    Parameters
    ----------
    universe : Universe
    interval : {"jackknife", "parametric", "bootstrap", "topic-bootstrap"} or callable
        The method under test; a callable ``(cube, n_draws, rng) -> (M, n_draws)``
        Phi draws calibrates a method the library does not offer.
    n_replicates : int
        Collections drawn (>= 200 for the docs).
    n_bootstrap, confidence, target, min_saving
        As in :func:`irstab.verdict.verdict`; ``n_bootstrap`` is not held to
        :func:`~irstab.verdict.paired.min_draws` here, so that what too few draws do
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
    if interval is PhiInterval.jackknife:
        # the jackknife draws nothing: the same collections drawn STACK at a time, each
        # stack's intervals in one pass (the per-collection numbers to the bit)
        from .jackknife_stack import jackknife_differences_stack

        for r0 in range(0, R, STACK):
            cubes = np.stack([universe.draw(rng) for _ in range(min(STACK, R - r0))])
            d = jackknife_differences_stack(cubes, 0, cand, confidence=confidence, target=target)
            needed = d["needed"]
            for i in range(len(cubes)):
                pick = choose(d["diff"][i], d["lower"][i], needed[i], 0, idx.tolist(),
                              min_saving)
                rec[r0 + i] = -1 if pick is None else int(np.flatnonzero(idx == pick)[0])
                if progress is not None:
                    progress(r0 + i + 1)
            for key in out:
                out[key][r0:r0 + len(cubes)] = d[key][:, idx]
    for r in range(R if interval is not PhiInterval.jackknife else 0):
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
