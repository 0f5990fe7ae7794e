r"""Several measures on one crossed systems x topics design: the multivariate G-study.

When M measures score the same systems on the same topics, each has its own
variance components, and every pair of measures has *covariance* components:
the system effects of nDCG@10 and nDCG@20 are nearly the same effects. The
design is Brennan's :math:`p^\bullet \times i^\bullet` (every measure observed
on every cell; Brennan 2001, ch. 9). Its statistics are the mean-product
matrices (M x M; their diagonals are the mean squares of each measure's own
ANOVA), with :math:`\bar x_{s\cdot}, \bar x_{\cdot t}, \bar x` the row, column
and grand means (vectors over the measures):

.. math::

    MP_s = \tfrac{n_t}{n_s-1} \sum_s (\bar x_{s\cdot}-\bar x)(\bar x_{s\cdot}-\bar x)^\top,\quad
    MP_t = \tfrac{n_s}{n_t-1} \sum_t (\bar x_{\cdot t}-\bar x)(\bar x_{\cdot t}-\bar x)^\top,

.. math::

    MP_e = \tfrac{1}{(n_s-1)(n_t-1)} \sum_{s,t} r_{st} r_{st}^\top,\qquad
    r_{st} = x_{st} - \bar x_{s\cdot} - \bar x_{\cdot t} + \bar x .

Their expectations, :math:`E\,MP_s = n_t\Sigma_s + \Sigma_e`, :math:`E\,MP_t =
n_s\Sigma_t + \Sigma_e`, :math:`E\,MP_e = \Sigma_e`, give the covariance
components :math:`\hat\Sigma_e = MP_e`, :math:`\hat\Sigma_s = (MP_s - MP_e)/n_t`,
:math:`\hat\Sigma_t = (MP_t - MP_e)/n_s` (:func:`covariance_components`); their
diagonals are the univariate G-study's components.

Sampling distribution
---------------------
Under the normal random-effects model (system, topic and residual effect
vectors multivariate normal and independent) the three sums of products are
independent Wishart matrices (the multivariate form of the chi-square laws
behind the F-based intervals; Anderson 2003, ch. 7):

.. math::

    (n_s-1)\,MP_s \sim W_M(n_s-1,\ n_t\Sigma_s+\Sigma_e),\quad
    (n_t-1)\,MP_t \sim W_M(n_t-1,\ n_s\Sigma_t+\Sigma_e),\quad
    (n_s-1)(n_t-1)\,MP_e \sim W_M((n_s-1)(n_t-1),\ \Sigma_e).

:func:`draw_mean_squares` samples the three matrices at fitted expectations
(a parametric bootstrap of every measure's mean squares at once, with their
correlations) and returns their diagonals: the mean squares of a fresh sample
of systems *and* topics from the fitted universe, without building any score
matrix. A Wishart matrix :math:`W_r(\nu, I)` is drawn by Bartlett's
decomposition :math:`AA^\top` (A lower triangular, :math:`A_{ii}^2 \sim
\chi^2_{\nu-i+1}`, :math:`A_{ij} \sim N(0,1)` below the diagonal; Smith & Hocking
1972) when :math:`\nu \ge r`, else as :math:`Z^\top Z` with :math:`Z` a
:math:`\nu \times r` standard normal matrix; :math:`W_M(\nu, LL^\top) = L\,W_r(\nu,
I)\,L^\top` for a rank-r factor L of the scale, taken as :math:`L = D L_R` with
:math:`D` the scale's standard deviations and :math:`L_R` a factor of its correlations,
so that rescaling one measure rescales its draws and nothing else.

:func:`pivotal_mean_squares` turns the draws into generalized pivotal
quantities of the expected mean squares (Weerahandi 1993), from which the
verdict's interval of a Phi difference is made
(:mod:`irstab.verdict.paired`). :func:`simulate_scores` draws whole score
matrices from the model (the calibration study's universe).

References
----------
Brennan, R. L. (2001). Generalizability Theory. Springer, ch. 9 (multivariate
G studies, the :math:`p^\bullet \times i^\bullet` design, covariance components from
mean products).
Anderson, T. W. (2003). An Introduction to Multivariate Statistical Analysis,
3rd ed. Wiley, ch. 7 (the Wishart distribution).
Smith, W. B., Hocking, R. R. (1972). Algorithm AS 53: Wishart variate
generator. Applied Statistics 21(3), 341-345.
Weerahandi, S. (1993). Generalized confidence intervals. Journal of the
American Statistical Association 88(423), 899-905.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import IRStabError
from .coefficients import Coefficient, coef_from_psi, psi_of
from .designs.crossed import components_from_mean_squares

__all__ = [
    "MeanProducts",
    "CovarianceComponents",
    "mean_products",
    "covariance_components",
    "draw_mean_squares",
    "pivotal_mean_squares",
    "phi_from_mean_squares",
    "simulate_scores",
]

_BLOCK_CELLS = 2_000_000  # draws x measures x rank per block (~16 MB of float64)
_RANK_RTOL = 1e-12  # eigenvalues below this fraction of the largest count as 0


@dataclass(frozen=True, eq=False)
class MeanProducts:
    """The three mean-product matrices of M measures on an ``n_systems x n_topics`` design.

    Attributes
    ----------
    systems, topics, residual : ndarray, shape (M, M)
        :math:`MP_s, MP_t, MP_e` of the module docstring (symmetric, positive
        semi-definite).
    n_systems, n_topics : int
    """

    systems: np.ndarray
    topics: np.ndarray
    residual: np.ndarray
    n_systems: int
    n_topics: int

    @property
    def degrees_of_freedom(self) -> tuple[int, int, int]:
        """``(n_s - 1, n_t - 1, (n_s - 1)(n_t - 1))``."""
        s, t = self.n_systems - 1, self.n_topics - 1
        return s, t, s * t

    def mean_squares(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The diagonals: each measure's ``(MS_sys, MS_top, MS_res)``."""
        return np.diag(self.systems), np.diag(self.topics), np.diag(self.residual)


@dataclass(frozen=True, eq=False)
class CovarianceComponents:
    r"""System, topic and residual covariance components (M x M each).

    ``systems[k, k]`` is measure k's :math:`\sigma^2_{sys}`; ``systems[k, j]``
    the covariance of measures k and j's system effects (likewise topics and
    residual).
    """

    systems: np.ndarray
    topics: np.ndarray
    residual: np.ndarray

    def psd(self) -> CovarianceComponents:
        """The nearest positive semi-definite components (negative eigenvalues set to 0).

        Estimates can be indefinite (a negative variance estimate, or a
        covariance larger than the variances allow); a universe to simulate
        from cannot.
        """
        return CovarianceComponents(*(_psd(c) for c in (self.systems, self.topics,
                                                        self.residual)))

    def phi(self, n_topics) -> np.ndarray:
        """Phi of every measure at ``n_topics`` topics (components clipped at 0)."""
        comps = np.stack([np.diag(self.systems), np.diag(self.topics),
                          np.diag(self.residual)], axis=-1)
        return coef_from_psi(psi_of(comps, Coefficient.phi), n_topics)


def _psd(c: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh((c + c.T) / 2.0)
    return (v * np.clip(w, 0.0, None)) @ v.T


def mean_products(cube) -> MeanProducts:
    """Mean-product matrices of ``cube[m, s, t]`` (measures x systems x topics).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[[0.2, 0.4, 0.3], [0.5, 0.9, 0.4], [0.6, 0.8, 0.7]]])
    >>> mp = mean_products(x)
    >>> from irstab.stability.designs.crossed import sums_of_squares
    >>> ss_s, ss_t, ss_e = sums_of_squares(x[0])
    >>> bool(np.isclose(mp.systems[0, 0], ss_s / 2) and np.isclose(mp.residual[0, 0], ss_e / 4))
    True
    """
    x = np.asarray(cube, dtype=float)
    if x.ndim != 3:
        raise IRStabError(f"cube: expected measures x systems x topics, got shape {x.shape}")
    _, n_s, n_t = x.shape
    if n_s < 2 or n_t < 2:
        raise IRStabError(f"cube: needs at least 2 systems and 2 topics, got {n_s} x {n_t}")
    grand = x.mean(axis=(1, 2), keepdims=True)
    rows = x.mean(axis=2, keepdims=True)
    cols = x.mean(axis=1, keepdims=True)
    a = (rows - grand)[:, :, 0]  # (M, S)
    b = (cols - grand)[:, 0, :]  # (M, T)
    r = (x - rows - cols + grand).reshape(x.shape[0], -1)  # (M, S*T)
    return MeanProducts(
        systems=n_t / (n_s - 1) * (a @ a.T),
        topics=n_s / (n_t - 1) * (b @ b.T),
        residual=(r @ r.T) / ((n_s - 1) * (n_t - 1)),
        n_systems=n_s,
        n_topics=n_t,
    )


def covariance_components(mp: MeanProducts) -> CovarianceComponents:
    """Covariance components from mean products (module docstring); may be indefinite."""
    return CovarianceComponents(
        systems=(mp.systems - mp.residual) / mp.n_topics,
        topics=(mp.topics - mp.residual) / mp.n_systems,
        residual=mp.residual.copy(),
    )


def _factor(scale: np.ndarray) -> np.ndarray:
    """L (M x r) with ``L @ L.T == scale`` for a PSD ``scale``; r its numerical rank."""
    w, v = np.linalg.eigh((scale + scale.T) / 2.0)
    top = max(float(w.max(initial=0.0)), 0.0)
    keep = w > _RANK_RTOL * top
    return v[:, keep] * np.sqrt(w[keep])


def _correlation_factor(scale: np.ndarray) -> np.ndarray:
    """L with ``L @ L.T == scale``, factored as ``D @ factor(R)`` (``R`` the correlations).

    Rescaling one measure's scores rescales its row of ``L`` and nothing else, so every
    draw of every measure's mean square moves with its own scale only: the pivots, and the
    verdict, are the same draw for draw whatever units each measure's scores are in (an
    eigenvector basis of ``scale`` itself would turn with the units). A measure with no
    variance has a zero row.
    """
    sd = np.sqrt(np.clip(np.diag(scale), 0.0, None))
    live = sd > 0
    L = np.zeros((scale.shape[0], 0))
    if live.any():
        r = scale[np.ix_(live, live)] / np.outer(sd[live], sd[live])
        f = _factor(r)
        L = np.zeros((scale.shape[0], f.shape[1]))
        L[live] = sd[live, None] * f
    return L


def _wishart_diagonals(scale: np.ndarray, df: int, n: int, rng) -> np.ndarray:
    """Diagonals of ``n`` draws of ``W_M(df, scale) / df``, shape (n, M)."""
    M = scale.shape[0]
    L = _correlation_factor(scale)
    r = L.shape[1]
    out = np.zeros((n, M))
    if r == 0:
        return out
    k = min(r, df)
    block = max(1, _BLOCK_CELLS // (M * k + r * k))
    low = np.tril_indices(r, -1)
    for start in range(0, n, block):  # blocks of draws, vectorised within
        b = min(block, n - start)
        if df >= r:  # Bartlett: W_r(df, I) = A A^T
            a = np.zeros((b, r, r))
            a[:, low[0], low[1]] = rng.standard_normal((b, len(low[0])))
            a[:, np.arange(r), np.arange(r)] = np.sqrt(rng.chisquare(df - np.arange(r),
                                                                     size=(b, r)))
        else:  # fewer degrees of freedom than the rank: W_r(df, I) = Z^T Z
            a = np.swapaxes(rng.standard_normal((b, df, r)), 1, 2)
        la = np.matmul(L, a)  # (b, M, k)
        out[start:start + b] = np.einsum("bmk,bmk->bm", la, la) / df
    return out


def draw_mean_squares(
    mp: MeanProducts, n_draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean squares of ``n_draws`` fresh samples of systems and topics, every measure at once.

    Each draw is the diagonal of three independent Wishart matrices with
    expectations ``mp.systems``, ``mp.topics``, ``mp.residual`` (module
    docstring): the normal-theory sampling distribution of every measure's
    mean squares, at the fitted components, jointly over the measures.

    Parameters
    ----------
    mp : MeanProducts
        The fitted expectations (usually the observed mean products).
    n_draws : int
    rng : numpy.random.Generator

    Returns
    -------
    (ms_sys, ms_top, ms_res) : tuple of ndarray, each (n_draws, M)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> mp = mean_products(rng.normal(size=(2, 20, 30)))
    >>> ms_s, ms_t, ms_e = draw_mean_squares(mp, 4000, np.random.default_rng(1))
    >>> bool(np.allclose(ms_s.mean(axis=0), np.diag(mp.systems), rtol=0.05))
    True
    """
    df_s, df_t, df_e = mp.degrees_of_freedom
    return (
        _wishart_diagonals(mp.systems, df_s, n_draws, rng),
        _wishart_diagonals(mp.topics, df_t, n_draws, rng),
        _wishart_diagonals(mp.residual, df_e, n_draws, rng),
    )


def pivotal_mean_squares(
    mp: MeanProducts, n_draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Generalized pivotal quantities of every measure's expected mean squares, jointly.

    For one mean square with :math:`\nu` degrees of freedom, :math:`MS = E\,U/\nu`
    with :math:`U \sim \chi^2_\nu`, so :math:`R = MS\,\nu/U` is the generalized
    pivotal quantity of :math:`E` (Weerahandi 1993): its distribution given the
    observed :math:`MS` is the fiducial distribution of :math:`E`, and
    percentiles of a function of such pivots are generalized confidence
    intervals. The :math:`U` of all measures and the three facets are taken
    from one :func:`draw_mean_squares` draw, :math:`U_m/\nu = MS^*_m/MS_m`, so
    that :math:`R_m = MS_m^2/MS^*_m`: each :math:`R_m` has exactly the pivot's
    distribution and the measures' pivots are correlated as their mean squares
    are. (The pivot of the whole matrix, :math:`L W^{-1} L^\top`, would give each
    diagonal only :math:`\nu - M + 1` degrees of freedom.)

    Returns
    -------
    (sys, top, res) : tuple of ndarray, each (n_draws, M)
        Draws of the expected mean squares (0 where the observed one is 0).

    References
    ----------
    Weerahandi, S. (1993). Generalized confidence intervals. Journal of the
    American Statistical Association 88(423), 899-905.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> mp = mean_products(np.random.default_rng(0).normal(size=(1, 12, 30)))
    >>> r_sys = pivotal_mean_squares(mp, 20000, np.random.default_rng(1))[0][:, 0]
    >>> lo, hi = np.quantile(r_sys, [0.025, 0.975])  # the exact chi-square interval
    >>> ms, df = mp.systems[0, 0], 11
    >>> exact = ms * df / stats.chi2.ppf([0.975, 0.025], df)
    >>> bool(np.allclose([lo, hi], exact, rtol=0.03))
    True
    """
    observed = mp.mean_squares()
    out = []
    for obs, drawn in zip(observed, draw_mean_squares(mp, n_draws, rng)):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # obs * (obs / drawn), not obs**2 / drawn: the square alone may overflow
            out.append(np.where(drawn > 0, obs * (obs / np.where(drawn > 0, drawn, 1.0)), 0.0))
    return tuple(out)


def phi_from_mean_squares(ms_sys, ms_top, ms_res, n_systems: int, n_topics: int,
                          n=None) -> np.ndarray:
    """Phi at ``n`` topics (default ``n_topics``) from mean squares of any shape.

    The components are those of the crossed design (expected mean squares),
    negligible ones set to 0 and negative ones clipped, as the G-study does.
    """
    comps = components_from_mean_squares(ms_sys, ms_top, ms_res, n_systems, n_topics)
    return coef_from_psi(psi_of(comps, Coefficient.phi), n_topics if n is None else n)


def simulate_scores(
    components: CovarianceComponents,
    n_systems: int,
    n_topics: int,
    rng: np.random.Generator,
    mean=0.0,
) -> np.ndarray:
    r"""One collection's scores ``(M, n_systems, n_topics)`` from the normal random-effects model.

    :math:`x_{m,s,t} = \mu_m + a_{s,m} + b_{t,m} + e_{st,m}` with the vectors
    :math:`a_s \sim N(0, \Sigma_s)`, :math:`b_t \sim N(0, \Sigma_t)`,
    :math:`e_{st} \sim N(0, \Sigma_e)` all independent: a fresh sample of
    systems and topics from the universe the G-study assumes.

    Parameters
    ----------
    components : CovarianceComponents
        Positive semi-definite (:meth:`CovarianceComponents.psd`).
    n_systems, n_topics : int
    rng : numpy.random.Generator
    mean : float or array of M
        :math:`\mu_m` (no effect on any variance).
    """
    factors = []
    for name, c in (("systems", components.systems), ("topics", components.topics),
                    ("residual", components.residual)):
        w = np.linalg.eigvalsh((c + c.T) / 2.0)
        if w.min(initial=0.0) < -1e-9 * max(float(np.abs(w).max(initial=0.0)), 1e-300):
            raise IRStabError(
                f"components.{name}: not positive semi-definite (eigenvalue {w.min():.3g}); "
                "use CovarianceComponents.psd()"
            )
        factors.append(_factor(c))
    ls, lt, le = factors
    M = components.systems.shape[0]
    a = rng.standard_normal((n_systems, ls.shape[1])) @ ls.T  # (S, M)
    b = rng.standard_normal((n_topics, lt.shape[1])) @ lt.T  # (T, M)
    e = rng.standard_normal((n_systems, n_topics, le.shape[1])) @ le.T  # (S, T, M)
    x = a[:, None, :] + b[None, :, :] + e + np.broadcast_to(np.asarray(mean, float), (M,))
    return np.ascontiguousarray(np.moveaxis(x, -1, 0))
