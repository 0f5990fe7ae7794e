r"""Fitting a system's margin: bounded families chosen by BIC, lattices detected from the data.

After Urbano & Nagler ("Stochastic Simulation of Test Collections: Evaluation Scores",
SIGIR 2018, §3.1-3.2): a system's scores over topics are a sample of its margin, a
distribution on the measure's range :math:`[lo, hi]` (scaled here to :math:`y \in [0, 1]`).

Continuous measures (nDCG, AP, ...)
    * ``beta``: Beta(a, b), maximum likelihood;
    * ``truncnorm``: a normal truncated to [0, 1], maximum likelihood;
    * ``beta-kernel``: Chen's beta-kernel density estimate (Chen, "Beta kernel
      estimators for density functions", CSDA 31, 1999, estimator :math:`\hat f_1`):
      :math:`\hat f(y) = \frac1m \sum_i K_{y/b + 1,\,(1-y)/b + 1}(y_i)`, where
      :math:`K_{\alpha,\beta}` is the Beta(:math:`\alpha, \beta`) density, normalised to
      integrate to 1 over [0, 1]; the bandwidth ``b`` maximises the leave-one-out
      likelihood (likelihood cross-validation), and its degrees of freedom are the
      effective ones, the trace of the smoother, :math:`\sum_i K_{y_i}(y_i) / (m\,\hat
      f(y_i))` (Loader, *Local Regression and Likelihood*, 1999, §5.4 for density
      estimates).

    Real scores pile up at the ends of the range (nDCG@10 of 0 when nothing relevant
    is retrieved, 1 for a perfect list). Every continuous family is therefore
    *inflated* at the ends it is seen at: point masses :math:`p_{lo} = n_{lo}/n` and
    :math:`p_{hi} = n_{hi}/n` (their maximum-likelihood values, one parameter each)
    and the family on the :math:`m = n - n_{lo} - n_{hi}` scores strictly inside. The
    likelihood is taken with respect to the same measure (Lebesgue inside, counting at
    the ends) for every family, so the BICs compare.

Lattice measures (P@k, RR)
    Scores on a finite set of levels :math:`l_0 < \dots < l_K`; the families are
    distributions of the level's index :math:`j`:

    * ``beta-binomial``: :math:`P(j) = \binom{K}{j} B(j + a, K - j + b) / B(a, b)`,
      maximum likelihood (fitted when :math:`K \ge 2`);
    * ``discrete-kernel``: the geometric kernel for ordered categories (Wang & van
      Ryzin, Biometrika 68, 1981; Li & Racine, *Nonparametric Econometrics*, 2007,
      §2.5.1), normalised on the lattice:
      :math:`\hat p(j) = \frac1n \sum_i \lambda^{|j - j_i|} / N_{j_i}(\lambda)`,
      :math:`N_{j'}(\lambda) = \sum_{k=0}^{K} \lambda^{|k - j'|}`; :math:`\lambda = 0` is
      the empirical distribution. :math:`\lambda` maximises the leave-one-out
      likelihood; its degrees of freedom are the trace of the smoother, as above.

    Point masses at the ends are levels like any other.

The family with the smallest BIC, :math:`-2\ell + \mathrm{df}\log n`, is the margin.

Lattices
    :func:`detect_lattice` looks at all scores of a matrix (one measure): the range
    cut in ``k`` equal steps for the smallest :math:`k \le` :data:`MAX_STEPS` that puts
    every score on a step (P@10: 11 levels), or 0 and the reciprocals :math:`1/r`,
    :math:`r \le` :data:`MAX_RANK`, if every non-zero score is one (RR; the levels are
    0 and :math:`1/r` for every :math:`r` up to the deepest seen), whichever has fewer
    levels; else none (continuous). A score counts as on a level within :data:`LATTICE_TOL`.

Degenerate margins
    A system with every score equal is a point mass there (``point-mass``); one with
    fewer than :data:`MIN_DISTINCT` distinct scores inside the range has no
    continuous shape to fit and gets its empirical distribution (``empirical``).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ..errors import IRStabError
from .margins import GRID_CELLS, Margin

__all__ = ["Family", "Lattice", "detect_lattice", "fit_margin", "CONTINUOUS", "DISCRETE",
           "MAX_STEPS", "MAX_RANK", "LATTICE_TOL", "MIN_DISTINCT"]

#: Largest number of equal steps a detected regular lattice may have (P@100).
MAX_STEPS = 100
#: Deepest rank of a detected reciprocal lattice (RR at depth 1000 and beyond).
MAX_RANK = 10_000
#: A score lies on a lattice level within this absolute tolerance (on the unit range).
LATTICE_TOL = 1e-9
#: A score within this of an end of the unit range is at the end (a point mass).
END_TOL = 1e-12
#: Distinct scores inside the range a continuous family needs.
MIN_DISTINCT = 3


class Family(str, enum.Enum):
    """The margins the simulator fits (module docstring)."""

    beta = "beta"
    truncnorm = "truncnorm"
    beta_kernel = "beta-kernel"
    beta_binomial = "beta-binomial"
    discrete_kernel = "discrete-kernel"
    point_mass = "point-mass"
    empirical = "empirical"


CONTINUOUS = (Family.beta, Family.truncnorm, Family.beta_kernel)
DISCRETE = (Family.beta_binomial, Family.discrete_kernel)


@dataclass(frozen=True)
class Lattice:
    """The levels a lattice measure can take, on the measure's scale, increasing."""

    levels: tuple[float, ...]
    kind: str  # "regular" (k equal steps), "reciprocal" (0 and 1/r) or "given"

    def __post_init__(self):
        lv = np.asarray(self.levels, dtype=np.float64)
        if lv.ndim != 1 or len(lv) < 2 or not np.isfinite(lv).all() or np.any(np.diff(lv) <= 0):
            raise IRStabError(f"lattice: levels must be at least two finite, strictly increasing "
                              f"numbers, got {self.levels!r}")

    def __str__(self) -> str:
        n = len(self.levels)
        return f"{self.kind} lattice of {n} levels [{self.levels[0]:g}, {self.levels[-1]:g}]"

    def index(self, x: np.ndarray, where: str = "scores") -> np.ndarray:
        """The level index of each score; an error if a score is on no level."""
        lv = np.asarray(self.levels)
        k = np.clip(np.searchsorted(lv, x), 1, len(lv) - 1)
        near = np.where(np.abs(x - lv[k - 1]) <= np.abs(x - lv[k]), k - 1, k)
        off = np.abs(x - lv[near]) > LATTICE_TOL * max(1.0, float(np.abs(lv).max()))
        if off.any():
            bad = float(np.asarray(x)[off].flat[0])
            raise IRStabError(f"{where}: score {bad!r} is on no level of the {self}")
        return near


def detect_lattice(x: np.ndarray, bounds: tuple[float, float]) -> Lattice | None:
    """The lattice every score of ``x`` lies on (module docstring), or None (continuous).

    Where both a regular and a reciprocal lattice hold every score, the one with fewer
    levels is taken (the regular one on a tie).

    Examples
    --------
    >>> import numpy as np
    >>> detect_lattice(np.array([0.0, 0.3, 0.7, 1.0, 0.1]), (0.0, 1.0)).kind
    'regular'
    >>> len(detect_lattice(np.array([0.0, 1.0, 0.5, 1 / 3, 0.125]), (0.0, 1.0)).levels)
    9
    >>> detect_lattice(np.array([0.0, 0.3183, 0.5]), (0.0, 1.0)) is None
    True
    """
    lo, hi = bounds
    y = (np.asarray(x, dtype=np.float64).ravel() - lo) / (hi - lo)
    found = []
    for k in range(1, MAX_STEPS + 1):
        r = y * k
        if np.all(np.abs(r - np.rint(r)) <= LATTICE_TOL * k):
            found.append(Lattice(tuple(lo + (hi - lo) * np.arange(k + 1) / k), "regular"))
            break
    nz = y[y > END_TOL]
    if len(nz) and np.all(nz <= 1.0 + LATTICE_TOL):
        r = 1.0 / nz
        rr = np.rint(r)
        if np.all(np.abs(r - rr) <= LATTICE_TOL * r * r) and rr.max() <= MAX_RANK:
            unit = np.concatenate([[0.0], 1.0 / np.arange(int(rr.max()), 0, -1)])
            found.append(Lattice(tuple(lo + (hi - lo) * unit), "reciprocal"))
    # both fit (RR seen only at ranks 1-4 is also 12 equal steps): the fewer levels
    return min(found, key=lambda lat: len(lat.levels)) if found else None


# ---------------------------------------------------------------- the fit


def fit_margin(x: np.ndarray, *, bounds: tuple[float, float] = (0.0, 1.0),
               lattice: Lattice | None = None,
               families: Sequence[Family] | None = None, name: str = "scores") -> Margin:
    """A system's margin: every candidate family fitted, the smallest BIC kept.

    Parameters
    ----------
    x : numpy.ndarray, shape (n,)
        The system's scores over topics, inside ``bounds``.
    bounds : (float, float)
        The measure's range.
    lattice : Lattice, optional
        Levels of a lattice measure (then the discrete families are fitted), or None
        (continuous families).
    families : sequence of Family, optional
        Restrict the candidates (default: :data:`CONTINUOUS` or :data:`DISCRETE`).
    name : str
        How errors name the scores (e.g. the system).

    Returns
    -------
    Margin
        With ``candidates``: every family tried, best (smallest BIC) first.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.random.default_rng(1).beta(2.0, 5.0, size=400)
    >>> fit_margin(y).family
    'beta'
    """
    x = np.asarray(x, dtype=np.float64)
    lo, hi = bounds
    n = len(x)
    if families is not None:
        try:
            families = tuple(Family(f) for f in families)
        except ValueError:
            raise IRStabError(f"families: expected names among {[f.value for f in Family]}, "
                              f"got {list(families)!r}") from None
    if n < 2:
        raise IRStabError(f"{name}: a margin needs at least 2 scores, got {n}")
    if np.ptp(x) <= END_TOL * max(1.0, abs(hi - lo)):
        return _point_mass(float(np.clip(x.mean(), lo, hi)), n, bounds)
    y = np.clip((x - lo) / (hi - lo), 0.0, 1.0)
    if lattice is not None:
        j = lattice.index(x, name)
        candidates = tuple(families) if families else DISCRETE
        allowed = [f for f in candidates if f in DISCRETE]
        fits = [_FIT_DISCRETE[f](j, len(lattice.levels) - 1) for f in allowed]
        fits = [f for f in fits if f is not None]
        if not fits:
            raise IRStabError(f"{name}: no discrete family among {list(map(str, candidates))} "
                              f"can be fitted to a {lattice}")
        return _select([(f.family, f.loglik, f.df, f.table_discrete(lattice)) for f in fits],
                       n, bounds)
    at_lo, at_hi = y <= END_TOL, y >= 1.0 - END_TOL
    inner = y[~at_lo & ~at_hi]
    if len(np.unique(inner)) < MIN_DISTINCT:
        return _empirical(x, n, bounds)
    candidates = tuple(families) if families else CONTINUOUS
    allowed = [f for f in candidates if f in CONTINUOUS]
    if not allowed:
        raise IRStabError(f"{name}: families {list(map(str, candidates))} include no "
                          f"continuous family for continuous scores")
    n_lo, n_hi, m = int(at_lo.sum()), int(at_hi.sum()), len(inner)
    ends_ll = sum(c * math.log(c / n) for c in (n_lo, n_hi, m) if c > 0)
    ends_df = (n_lo > 0) + (n_hi > 0)
    scale_ll = -m * math.log(hi - lo)  # densities on the measure's scale
    out = []
    for fam in allowed:
        f = _FIT_CONTINUOUS[fam](inner)
        cdf = f.cdf_grid()
        u = _continuous_knots(cdf, n_lo / n, n_hi / n)
        params = f.params + (("p_lo", n_lo / n), ("p_hi", n_hi / n))
        out.append((fam.value, params, f.loglik + ends_ll + scale_ll, f.df + ends_df, u))
    xs = lo + (hi - lo) * _continuous_x()
    return _select_continuous(out, xs, n, bounds)


def _select(fits, n, bounds) -> Margin:
    """Discrete fits ``(family, loglik, df, (params, u, x))``: the smallest BIC wins."""
    scored = sorted(((-2 * ll + df * math.log(n), fam, ll, df, tab) for fam, ll, df, tab in fits),
                    key=lambda r: r[0])
    cands = tuple((fam, ll, df, bic) for bic, fam, ll, df, _ in scored)
    _, fam, ll, df, (params, u, x) = scored[0]
    return Margin(fam, params, u=u, x=x, bounds=bounds, loglik=ll, df=df, n=n, candidates=cands)


def _select_continuous(fits, xs, n, bounds) -> Margin:
    scored = sorted(((-2 * ll + df * math.log(n), fam, params, ll, df, u)
                     for fam, params, ll, df, u in fits), key=lambda r: r[0])
    cands = tuple((fam, ll, df, bic) for bic, fam, _, ll, df, _ in scored)
    _, fam, params, ll, df, u = scored[0]
    return Margin(fam, params, u=u, x=xs, bounds=bounds, loglik=ll, df=df, n=n, candidates=cands)


def _continuous_x() -> np.ndarray:
    """Knot positions on the unit range: the lower end twice, the grid, the upper end twice."""
    grid = np.linspace(0.0, 1.0, GRID_CELLS + 1)
    return np.concatenate([[0.0], grid, [1.0]])


def _continuous_knots(cdf: np.ndarray, p_lo: float, p_hi: float) -> np.ndarray:
    """Knot probabilities: the point mass at 0, the family's CDF scaled, the mass at 1."""
    cdf = np.maximum.accumulate(np.clip(cdf, 0.0, 1.0))
    cdf = (cdf - cdf[0]) / (cdf[-1] - cdf[0])
    inner = p_lo + (1.0 - p_lo - p_hi) * cdf
    inner[-1] = 1.0 - p_hi
    return np.concatenate([[0.0], inner, [1.0]])


def _point_mass(v: float, n: int, bounds) -> Margin:
    return Margin(Family.point_mass.value, (("value", v),), u=[0.0, 1.0], x=[v, v],
                  bounds=bounds, loglik=0.0, df=0.0, n=n,
                  candidates=((Family.point_mass.value, 0.0, 0.0, 0.0),))


def _empirical(x: np.ndarray, n: int, bounds) -> Margin:
    vals, counts = np.unique(x, return_counts=True)
    p = counts / n
    ll = float(counts @ np.log(p))
    df = float(len(vals) - 1)
    u, xs = _discrete_knots(vals, p)
    return Margin(Family.empirical.value, (("levels", float(len(vals))),), u=u, x=xs,
                  bounds=bounds, loglik=ll, df=df, n=n,
                  candidates=((Family.empirical.value, ll, df, -2 * ll + df * math.log(n)),))


def _discrete_knots(levels: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knots of a distribution with mass ``p[k]`` at ``levels[k]``: a zero-width cell each."""
    F = np.concatenate([[0.0], np.cumsum(p)])
    F = np.minimum(F / F[-1], 1.0)
    u = np.repeat(F, 2)[1:-1]  # F_{k-1}, F_k for each level
    x = np.repeat(np.asarray(levels, dtype=np.float64), 2)
    return u, x


# ---------------------------------------------------------------- continuous families


@dataclass(frozen=True)
class _ContinuousFit:
    family: Family
    params: tuple[tuple[str, float], ...]
    loglik: float  # of the interior scores, on the unit range
    df: float
    cdf_grid: Callable[[], np.ndarray]  # the CDF at the GRID_CELLS + 1 grid points


def _grid() -> np.ndarray:
    return np.linspace(0.0, 1.0, GRID_CELLS + 1)


def _beta_nll(p, sl, sl1, m):
    a, b = np.exp(p)
    nll = -((a - 1) * sl + (b - 1) * sl1) + m * special.betaln(a, b)
    dab = special.digamma(a + b)
    ga = -sl + m * (special.digamma(a) - dab)
    gb = -sl1 + m * (special.digamma(b) - dab)
    return nll, np.array([ga * a, gb * b])


def _fit_beta(y: np.ndarray) -> _ContinuousFit:
    m = len(y)
    sl, sl1 = float(np.log(y).sum()), float(np.log1p(-y).sum())
    mu, v = y.mean(), y.var()
    common = max(mu * (1 - mu) / max(v, 1e-12) - 1, 1e-3)  # method of moments start
    start = np.log([max(mu * common, 1e-3), max((1 - mu) * common, 1e-3)])
    res = optimize.minimize(_beta_nll, np.clip(start, -9, 9), args=(sl, sl1, m), jac=True,
                            method="TNC", bounds=[(-10, 10), (-10, 10)])
    a, b = np.exp(res.x)
    return _ContinuousFit(Family.beta, (("a", float(a)), ("b", float(b))), float(-res.fun), 2.0,
                          lambda: special.betainc(a, b, _grid()))


def _log_mass(lo, hi):
    """log(Phi(hi) - Phi(lo)) for lo < hi, accurate in both tails."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    upper = lo > 0  # both in the upper tail: use the mirror image
    a = np.where(upper, -hi, lo)
    b = np.where(upper, -lo, hi)
    lb, la = special.log_ndtr(b), special.log_ndtr(a)
    return lb + np.log1p(-np.exp(np.minimum(la - lb, 0.0)))


def _truncnorm_nll(p, y):
    """Negative log-likelihood of N(mu, s^2) truncated to [0, 1] and its gradient in (mu, log s)."""
    mu, s = p[0], math.exp(p[1])
    m = len(y)
    z = (y - mu) / s
    a, b = -mu / s, (1 - mu) / s
    logz = float(_log_mass(a, b))
    nll = 0.5 * (z @ z) + m * (p[1] + 0.5 * math.log(2 * math.pi) + logz)
    # phi(a) / Z and phi(b) / Z in logs: Z may be 1e-300 when [0, 1] is far in a tail
    ra = math.exp(-0.5 * a * a - 0.5 * math.log(2 * math.pi) - logz)
    rb = math.exp(-0.5 * b * b - 0.5 * math.log(2 * math.pi) - logz)
    g_mu = -z.sum() / s + m * (ra - rb) / s
    g_ls = -(z @ z) + m + m * (a * ra - b * rb)
    return float(nll), np.array([g_mu, g_ls])


def _fit_truncnorm(y: np.ndarray) -> _ContinuousFit:
    start = np.array([y.mean(), math.log(max(y.std(), 1e-3))])
    res = optimize.minimize(_truncnorm_nll, start, args=(y,), jac=True, method="TNC",
                            bounds=[(-5.0, 6.0), (math.log(1e-4), math.log(10.0))])
    mu, s = float(res.x[0]), float(math.exp(res.x[1]))

    def cdf():
        a, b = -mu / s, (1 - mu) / s
        z = np.maximum((_grid() - mu) / s, a)
        with np.errstate(divide="ignore"):
            return np.exp(_log_mass(a, z) - _log_mass(a, b))

    return _ContinuousFit(Family.truncnorm, (("mu", mu), ("sigma", s)), float(-res.fun), 2.0, cdf)


#: Bandwidths tried by the beta kernel's likelihood cross-validation.
_BETA_KERNEL_B = np.geomspace(2e-3, 0.5, 40)
#: Grid on which the beta kernel estimate is normalised while its bandwidth is chosen.
_NORM_GRID = np.linspace(0.0, 1.0, 513)


def _beta_kernel_log(y_eval: np.ndarray, data: np.ndarray, b: float) -> np.ndarray:
    """log K_{y/b+1,(1-y)/b+1}(data): shape (len(y_eval), len(data))."""
    a = y_eval / b + 1.0
    c = (1.0 - y_eval) / b + 1.0
    return ((a - 1)[:, None] * np.log(data)[None, :] + (c - 1)[:, None] * np.log1p(-data)[None, :]
            - special.betaln(a, c)[:, None])


def _trapezoid(f: np.ndarray, grid: np.ndarray) -> float:
    return float(((f[1:] + f[:-1]) * 0.5) @ np.diff(grid))


def _fit_beta_kernel(y: np.ndarray) -> _ContinuousFit:
    # O(m^2) per bandwidth (the leave-one-out likelihood): fitting, not drawing
    m = len(y)
    lcv = np.full(len(_BETA_KERNEL_B), -np.inf)
    for i, b in enumerate(_BETA_KERNEL_B):
        k = np.exp(_beta_kernel_log(y, y, b))
        norm = _trapezoid(np.exp(_beta_kernel_log(_NORM_GRID, y, b)).mean(axis=1), _NORM_GRID)
        loo = (k.sum(axis=1) - np.diagonal(k)) / ((m - 1) * norm)
        with np.errstate(divide="ignore"):
            lcv[i] = np.log(loo).sum()
    b = float(_BETA_KERNEL_B[int(np.argmax(lcv))])
    fine = _grid()
    dens = np.exp(_beta_kernel_log(fine, y, b)).mean(axis=1)
    cum = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) * 0.5 * np.diff(fine))])
    total = cum[-1]
    k = np.exp(_beta_kernel_log(y, y, b))
    fit_dens = k.mean(axis=1) / total  # the normalised estimate at the data
    ll = float(np.log(fit_dens).sum())
    df = float((np.diagonal(k) / (m * total) / fit_dens).sum())
    return _ContinuousFit(Family.beta_kernel, (("bandwidth", b),), ll, df, lambda: cum / total)


_FIT_CONTINUOUS: dict[Family, Callable[[np.ndarray], _ContinuousFit]] = {
    Family.beta: _fit_beta,
    Family.truncnorm: _fit_truncnorm,
    Family.beta_kernel: _fit_beta_kernel,
}


# ---------------------------------------------------------------- discrete families


@dataclass(frozen=True)
class _DiscreteFit:
    family: str
    params: tuple[tuple[str, float], ...]
    loglik: float
    df: float
    pmf: np.ndarray  # over the K + 1 levels

    def table_discrete(self, lattice: Lattice):
        u, x = _discrete_knots(np.asarray(lattice.levels), self.pmf)
        return self.params, u, x


def _betabinom_logpmf(j: np.ndarray, K: int, a: float, b: float) -> np.ndarray:
    return (special.gammaln(K + 1) - special.gammaln(j + 1) - special.gammaln(K - j + 1)
            + special.betaln(j + a, K - j + b) - special.betaln(a, b))


def _betabinom_nll(p, levels, counts, K):
    a, b = np.exp(p)
    n = counts.sum()
    nll = -(counts @ _betabinom_logpmf(levels, K, a, b))
    dab = special.digamma(K + a + b)
    ga = counts @ (special.digamma(levels + a) - dab) - n * (special.digamma(a) - special.digamma(a + b))
    gb = counts @ (special.digamma(K - levels + b) - dab) - n * (special.digamma(b) - special.digamma(a + b))
    return nll, -np.array([ga * a, gb * b])


def _fit_beta_binomial(j: np.ndarray, K: int) -> _DiscreteFit | None:
    if K < 2:  # a Bernoulli: a and b are not identified
        return None
    levels, counts = np.unique(j, return_counts=True)
    levels, counts = levels.astype(float), counts.astype(float)
    mu = (j / K).mean()
    v = max((j / K).var(), 1e-6)
    common = max(mu * (1 - mu) / v - 1, 1e-2)
    start = np.log([max(mu * common, 1e-2), max((1 - mu) * common, 1e-2)])
    res = optimize.minimize(_betabinom_nll, np.clip(start, -7, 7), args=(levels, counts, K),
                            jac=True, method="TNC", bounds=[(-8, 8), (-8, 8)])
    a, b = np.exp(res.x)
    pmf = np.exp(_betabinom_logpmf(np.arange(K + 1.0), K, a, b))
    return _DiscreteFit(Family.beta_binomial.value, (("a", float(a)), ("b", float(b))),
                        float(-res.fun), 2.0, pmf / pmf.sum())


def _geometric_norm(lam: np.ndarray, j: np.ndarray, K: int) -> np.ndarray:
    r"""N_j(lambda) = sum_{k=0..K} lambda^|k - j| in closed form: shape (len(lam), len(j))."""
    lam = np.asarray(lam, float)[:, None]
    j = np.asarray(j, float)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        below = lam * (1 - lam ** j) / (1 - lam)
        above = lam * (1 - lam ** (K - j)) / (1 - lam)
    return 1.0 + np.where(lam > 0, below, 0.0) + np.where(lam > 0, above, 0.0)


#: Smoothing parameters tried by the discrete kernel's likelihood cross-validation.
_LAMBDAS = np.concatenate([[0.0], np.geomspace(1e-3, 0.98, 60)])


def _fit_discrete_kernel(j: np.ndarray, K: int) -> _DiscreteFit:
    levels, counts = np.unique(j, return_counts=True)
    n = counts.sum()
    lam = _LAMBDAS
    dist = np.abs(levels[:, None] - levels[None, :]).astype(float)       # (L, L)
    with np.errstate(divide="ignore"):
        powers = np.where(dist[None] == 0, 1.0, lam[:, None, None] ** dist[None])  # (G, L, L)
    norm = _geometric_norm(lam, levels, K)                                 # (G, L)
    # p at observed level a: sum over observed levels b of counts_b lam^|a-b| / N_b
    contrib = powers * (counts / norm)[:, None, :]                        # (G, L, L)
    full = contrib.sum(axis=2)
    self_k = 1.0 / norm                                                   # a point's own kernel
    loo = (full - self_k) / (n - 1)
    with np.errstate(divide="ignore"):
        lcv = (np.log(np.maximum(loo, 0.0)) * counts).sum(axis=1)
    best = int(np.argmax(lcv))
    lb = float(lam[best])
    p_obs = full[best] / n
    ll = float(counts @ np.log(p_obs))
    df = float((counts * self_k[best] / n / p_obs).sum())
    grid = np.arange(K + 1.0)
    d_all = np.abs(grid[:, None] - levels[None, :])
    k_all = np.where(d_all == 0, 1.0, lb ** d_all) if lb > 0 else (d_all == 0).astype(float)
    pmf = k_all @ (counts / norm[best]) / n
    return _DiscreteFit(Family.discrete_kernel.value, (("lambda", lb),), ll, df, pmf / pmf.sum())


_FIT_DISCRETE: dict[Family, Callable[[np.ndarray, int], _DiscreteFit | None]] = {
    Family.beta_binomial: _fit_beta_binomial,
    Family.discrete_kernel: _fit_discrete_kernel,
}
