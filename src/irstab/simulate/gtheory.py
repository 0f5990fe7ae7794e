r"""A G-theory-faithful simulator: fixed systems, resampled topics, and a known truth.

After Urbano ("Test collection reliability: a study of bias and robustness to
statistical assumptions via stochastic simulation", Information Retrieval Journal 19,
2016, §4): the score matrix is split by the two-way ANOVA,

.. math:: x_{st} = \mu_s + b_t + e_{st}, \qquad \mu_s = \bar x_{s\cdot}, \quad
          b_t = \bar x_{\cdot t} - \bar x_{\cdot\cdot}, \quad
          e_{st} = x_{st} - \bar x_{s\cdot} - \bar x_{\cdot t} + \bar x_{\cdot\cdot},

the systems' means are kept fixed, and a new topic draws its topic
effect and its vector of residuals *together*, so that their distributions and their
dependence (between systems, and between a topic's difficulty and how systems spread
on it) are those of the collection:

``effects="kernel"`` (default)
    a smoothed bootstrap of the topics' columns :math:`v_t = (b_t, e_{1t}, \dots,
    e_{St})`: a column :math:`v_I` at random plus Gaussian noise with the columns' own
    covariance times :math:`h^2` (Silverman, *Density Estimation*, 1986, §6.4.1), i.e.
    a Gaussian-kernel density estimate of the joint distribution, each coordinate with
    bandwidth :math:`h` times its standard deviation; :math:`h = 1.06\,T^{-1/5}`
    (Silverman's normal-reference rule) unless given;
``effects="normal"``
    a multivariate normal with the columns' covariance (the textbook model, for
    comparison).

Each draw is scaled, :math:`B = k_b v^*_0`, :math:`E = k_e v^*_{1..S}`, so that the
universe has the fitted collection's variance components (below). Scores are
:math:`x_{st} = \mu_s + B_t + E_{st}`; they are *not* clipped to the measure's range
(a clipped score would change the components, and the truth is the point of this
model): a few may fall outside it.

The truth
    Every column of :math:`e` sums to 0 over systems, and so does every draw of
    :math:`E` (the noise is a combination of those columns). With :math:`\Sigma_E`
    the covariance of a topic's residual vector (so :math:`\Sigma_E \mathbf 1 = 0`),
    the expected mean squares of the two-way ANOVA of a simulated collection of ``n``
    topics are (written out from :math:`E[SS] = \sum E[\cdot^2]`, the system means
    fixed):

    .. math:: E[MS_s] = \frac{n \sum_s (\mu_s - \bar\mu)^2 + \operatorname{tr}\Sigma_E}{S - 1},
              \quad E[MS_t] = S\,\sigma_B^2, \quad
              E[MS_e] = \frac{\operatorname{tr}\Sigma_E}{S - 1},

    so the G-study's estimators (:math:`\hat\sigma^2_s = (MS_s - MS_e)/n`,
    :math:`\hat\sigma^2_t = (MS_t - MS_e)/S`, :math:`\hat\sigma^2_e = MS_e`) are
    unbiased for

    .. math:: \sigma^2_s = \frac{\sum_s (\mu_s - \bar\mu)^2}{S - 1}, \quad
              \sigma^2_t = \sigma_B^2 - \frac{\sigma^2_e}{S}, \quad
              \sigma^2_e = \frac{\operatorname{tr}\Sigma_E}{S - 1}.

    :math:`k_e^2 (1 + h^2)\,\sum e^2 / T = \sum e^2 / (T - 1)` makes :math:`\sigma^2_e`
    the collection's :math:`MS_e`, and :math:`k_b` makes :math:`\sigma^2_t` its
    estimate :math:`(MS_t - MS_e)/S`. The observed means' variance,
    :math:`MS_s / T`, also holds the residuals' :math:`MS_e / T`; the fixed means are
    therefore the observed ones shrunk towards their average,
    :math:`\mu_s = \bar\mu + (\bar x_{s\cdot} - \bar\mu)\sqrt{(MS_s - MS_e)/MS_s}`,
    so that :math:`\sigma^2_s` is the estimate :math:`(MS_s - MS_e)/T` (``shrink=False``
    keeps the observed means). The universe then has exactly the collection's
    estimated components; a negative estimate becomes 0, with a warning.
    :attr:`GTheoryModel.components` returns these exact values, hence the true
    :math:`\Phi` and :math:`E\rho^2` at any number of topics (Brennan,
    *Generalizability Theory*, 2001, eqs. 4.10-4.11) and the topics needed.

Resampled systems (``resample_systems=True``)
    The systems above are fixed: a collection's G-study then errs only by its topics. The
    G-study's coefficients, though, generalise to new systems as well as new topics, and
    a collection's system variance errs by which systems it holds, most where their means
    are heavy-tailed (a few runs far below the rest). With ``resample_systems`` each
    collection also draws its ``S`` systems with replacement from the fitted ones, each
    bringing its mean :math:`\mu_i` and its own row of every drawn topic's residuals:
    the bootstrap of the system facet, beside the (smoothed) bootstrap of the topic facet;
    together the two-facet ("pigeonhole") bootstrap of a crossed array (McCullagh,
    "Resampling and exchangeable arrays", Bernoulli 6, 2000; Owen, "The pigeonhole
    bootstrap", Annals of Applied Statistics 1, 2007; Brennan 2001, §6.2, *boot-p,i*).
    Systems and topics are then independent draws from a population of rows
    :math:`i = 1..S` (equally likely) and columns (the kernel), whose effects are the
    conditional means: the system effect :math:`\mu_i - \bar\mu` (a row of residuals
    averages 0 over the topics), the topic effect :math:`B` (a column of :math:`E` sums
    to 0 over the systems) and the interaction :math:`E_i`. The two-way ANOVA of such
    draws is unbiased for (Cornfield & Tukey, Annals of Mathematical Statistics 27,
    1956, infinite populations)

    .. math:: \sigma^2_s = \frac1S \sum_i (\mu_i - \bar\mu)^2, \quad
              \sigma^2_t = \sigma_B^2, \quad
              \sigma^2_e = \frac{\operatorname{tr}\Sigma_E}{S},

    and the fit makes them the collection's estimates again:
    :math:`k_e^2 (1 + h^2) \sum e^2 / (T S) = MS_e`, :math:`\sigma_B^2 = (MS_t - MS_e)/S`
    (0 if negative), and the means shrunk by
    :math:`\sqrt{S (MS_s - MS_e) / ((S - 1) MS_s)}` (``shrink=False``: the observed
    means, :math:`\sigma^2_s` their variance with divisor :math:`S`).
"""

from __future__ import annotations

import enum
import math
import numbers
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._numeric import check_allocation, check_seed
from .._repr import short_repr
from ..errors import IRStabError, IRStabWarning
from .collection_model import _count, score_matrix_input

__all__ = ["Effects", "TrueComponents", "GTheoryModel", "fit_gtheory"]


class Effects(str, enum.Enum):
    """How :class:`GTheoryModel` draws a topic's effect and residuals (module docstring)."""

    kernel = "kernel"
    normal = "normal"


@short_repr
@dataclass(frozen=True)
class TrueComponents:
    r"""The variance components of a simulated universe, exact (module docstring)."""

    system: float
    topic: float
    residual: float

    def phi(self, n_topics) -> np.ndarray | float:
        r""":math:`\Phi(n) = \sigma^2_s / (\sigma^2_s + (\sigma^2_t + \sigma^2_e)/n)`."""
        n = np.asarray(n_topics, dtype=float)
        out = self.system / (self.system + (self.topic + self.residual) / n)
        return float(out) if out.ndim == 0 else out

    def erho2(self, n_topics) -> np.ndarray | float:
        r""":math:`E\rho^2(n) = \sigma^2_s / (\sigma^2_s + \sigma^2_e/n)`."""
        n = np.asarray(n_topics, dtype=float)
        out = self.system / (self.system + self.residual / n)
        return float(out) if out.ndim == 0 else out

    def topics_needed(self, target: float = 0.95, coefficient: str = "phi") -> float:
        r"""Smallest ``n >= 1`` whose coefficient reaches ``target``:
        :math:`\lceil g\,\text{noise} / ((1 - g)\,\sigma^2_s) \rceil` (inf if
        :math:`\sigma^2_s = 0`)."""
        noise = {"phi": self.topic + self.residual, "erho2": self.residual}
        if coefficient not in noise:
            raise IRStabError(f"coefficient: expected 'phi' or 'erho2', got {coefficient!r}")
        if not 0.0 < target < 1.0:
            raise IRStabError(f"target: must be in (0, 1), got {target!r}")
        if self.system <= 0:
            return math.inf
        raw = target * noise[coefficient] / ((1.0 - target) * self.system)
        return float(max(math.ceil(raw * (1.0 - 1e-12)), 1))

    def _summary(self) -> str:
        return (f"sigma2 system {self.system:.6g}, topic {self.topic:.6g}, "
                f"residual {self.residual:.6g}")

    def to_dict(self) -> dict:
        return {"system": self.system, "topic": self.topic, "residual": self.residual}


@short_repr
@dataclass(frozen=True, eq=False)
class GTheoryModel:
    r"""Fixed systems, resampled topics (module docstring). Draw with :meth:`draw`; the truth
    is :attr:`components`.

    Attributes
    ----------
    systems : tuple of str
    system_means : numpy.ndarray
        The fixed expected scores :math:`\mu_s`.
    columns : numpy.ndarray, shape (S + 1, T)
        The fitted topics' columns :math:`(b_t, e_{\cdot t})`.
    effects : Effects
    bandwidth : float
        :math:`h` (0 for ``normal``).
    scale_topic, scale_residual : float
        :math:`k_b`, :math:`k_e`.
    """

    systems: tuple[str, ...]
    system_means: np.ndarray = field(repr=False)
    columns: np.ndarray = field(repr=False)
    effects: Effects = Effects.kernel
    bandwidth: float = 0.0
    scale_topic: float = 1.0
    scale_residual: float = 1.0
    resample_systems: bool = False

    @property
    def n_topics(self) -> int:
        """Topics the model was fitted on."""
        return self.columns.shape[1]

    @property
    def components(self) -> TrueComponents:
        """The universe's variance components, exact (module docstring)."""
        S, T = len(self.systems), self.n_topics
        mu = self.system_means
        c = 1.0 + self.bandwidth ** 2
        b, e = self.columns[0], self.columns[1:]
        var_b = self.scale_topic ** 2 * c * float(b @ b) / T
        # fixed systems: divisor S - 1; resampled ones: the population of S rows, divisor S
        rows = S if self.resample_systems else S - 1
        residual = self.scale_residual ** 2 * c * float((e * e).sum()) / T / rows
        system = float(((mu - mu.mean()) ** 2).sum() / rows)
        topic = var_b if self.resample_systems else var_b - residual / S
        return TrueComponents(system=system, topic=topic, residual=residual)

    def draw(self, n_collections: int, n_topics: int, rng=None) -> np.ndarray:
        """``n_collections`` collections of ``n_topics`` new topics: shape (R, S, T).

        With :attr:`resample_systems`, row ``s`` of collection ``r`` is system
        ``I[r, s]``, drawn with replacement: its mean and its residuals on that
        collection's topics. The systems are drawn from a child of ``rng``
        (``rng.spawn``, which leaves ``rng``'s own stream where it is), so that for one
        ``rng`` both kinds of model draw the same topics (common random numbers between
        them) and whatever draws from ``rng`` next sees the same stream either way.
        """
        R = _count(n_collections, "n_collections")
        T = _count(n_topics, "n_topics")
        S, T0 = len(self.systems), self.n_topics
        check_allocation(8.0 * R * T * ((3 if self.resample_systems else 2) * (S + 1) + T0),
                         f"n_collections x n_topics: {R} x {T} topics of {S} systems")
        gen = check_seed(rng, "rng")
        N = R * T
        v = self.columns
        noise = gen.standard_normal((N, T0)) @ v.T / math.sqrt(T0)       # (N, S + 1)
        draws = _DRAW[self.effects](v, noise, self.bandwidth, gen)
        topic = self.scale_topic * draws[:, :1]
        resid = self.scale_residual * draws[:, 1:]
        if not self.resample_systems:
            x = self.system_means[None, :] + topic + resid                # (N, S)
            return np.ascontiguousarray(x.reshape(R, T, S).transpose(0, 2, 1))
        pick = _child(gen).integers(0, S, size=(R, 1, S))                 # rows of each
        resid = np.take_along_axis(resid.reshape(R, T, S), pick, axis=2)
        x = self.system_means[pick] + topic.reshape(R, T, 1) + resid     # (R, T, S)
        return np.ascontiguousarray(x.transpose(0, 2, 1))

    def with_system_means(self, means) -> GTheoryModel:
        """The same model with other fixed system means (e.g. a planted difference)."""
        m = np.asarray(means, dtype=np.float64)
        if m.shape != (len(self.systems),) or not np.isfinite(m).all():
            raise IRStabError(f"means: expected {len(self.systems)} finite numbers, "
                              f"got shape {m.shape}")
        m = m.copy()
        m.setflags(write=False)
        return replace(self, system_means=m)

    def _summary(self) -> str:
        kind = "resampled" if self.resample_systems else "fixed"
        return (f"{len(self.systems)} {kind} systems, {self.effects.value} topic effects and "
                f"residuals from {self.n_topics} topics; true {self.components._summary()}")

    def to_frame(self) -> pd.DataFrame:
        """One row per system: its fixed mean and its residual standard deviation."""
        e = self.columns[1:]
        c = 1.0 + self.bandwidth ** 2
        sd = self.scale_residual * np.sqrt(c * (e * e).mean(axis=1))
        return pd.DataFrame({"system": list(self.systems), "mean": self.system_means,
                             "residual_sd": sd})

    def to_dict(self) -> dict:
        return {"systems": list(self.systems), "effects": self.effects.value,
                "resample_systems": self.resample_systems,
                "bandwidth": self.bandwidth, "n_topics": self.n_topics,
                "system_means": [float(v) for v in self.system_means],
                "components": self.components.to_dict()}


def _child(gen: np.random.Generator) -> np.random.Generator:
    """An independent generator from ``gen``'s seed sequence, ``gen``'s stream untouched
    (a generator without a seed sequence gives itself)."""
    try:
        return gen.spawn(1)[0]
    except TypeError:
        return gen


def _kernel(v, noise, h, gen):
    pick = gen.integers(0, v.shape[1], size=noise.shape[0])
    return v[:, pick].T + h * noise


def _normal(v, noise, h, gen):
    return noise


_DRAW = {Effects.kernel: _kernel, Effects.normal: _normal}


def fit_gtheory(scores, *, effects: Effects | str = Effects.kernel, bandwidth: float | None = None,
                shrink: bool = True, bounds=(0.0, 1.0),
                resample_systems: bool = False) -> GTheoryModel:
    r"""Fit the G-theory-faithful simulator to a systems x topics score matrix (module docstring).

    Parameters
    ----------
    scores : pandas.DataFrame or array-like, shape (S, T)
        ``S >= 2`` systems, ``T >= 4`` topics.
    effects : {"kernel", "normal"}
        How a topic's effect and residuals are drawn.
    bandwidth : float, optional
        :math:`h > 0` of the kernel (default :math:`1.06\,T^{-1/5}`).
    shrink : bool
        Shrink the fixed system means so that their variance is the G-study's
        :math:`\hat\sigma^2_s` (module docstring); False keeps the observed means.
    bounds : (float, float)
        The measure's range; scores outside it are refused (draws may leave it).
    resample_systems : bool
        Each collection also draws its systems with replacement from the fitted ones
        (module docstring): the universe's systems are random, as the G-study's
        coefficients assume, and a collection's estimates err by its systems too.

    Returns
    -------
    GTheoryModel

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = 0.5 + rng.normal(0, 0.05, (6, 1)) + rng.normal(0, 0.1, (1, 30)) + rng.normal(0, 0.05, (6, 30))
    >>> model = fit_gtheory(np.clip(x, 0, 1))
    >>> model.draw(10, 25, rng=1).shape
    (10, 6, 25)
    >>> round(model.components.phi(50), 3) == round(model.components.system / (model.components.system + (model.components.topic + model.components.residual) / 50), 3)
    True
    >>> both = fit_gtheory(np.clip(x, 0, 1), resample_systems=True)
    >>> bool(np.isclose(both.components.system, model.components.system))  # the same truth
    True
    """
    x, systems, _, _ = score_matrix_input(scores, bounds)
    S, T = x.shape
    if not isinstance(resample_systems, (bool, np.bool_)):
        raise IRStabError(f"resample_systems: expected True or False, got {resample_systems!r}")
    resample_systems = bool(resample_systems)
    if S < 2:
        raise IRStabError("scores: the G-theory simulator needs at least 2 systems")
    try:
        effects = Effects(effects)
    except ValueError:
        raise IRStabError(f"effects: expected one of {[e.value for e in Effects]}, "
                          f"got {effects!r}") from None
    if effects is Effects.normal:
        h = 0.0
    elif bandwidth is None:
        h = 1.06 * T ** -0.2
    elif (not isinstance(bandwidth, numbers.Real) or isinstance(bandwidth, bool)
          or not math.isfinite(bandwidth) or bandwidth <= 0):
        raise IRStabError(f"bandwidth: must be a finite number > 0, got {bandwidth!r}")
    else:
        h = float(bandwidth)
    mu = x.mean(axis=1)
    grand = mu.mean()
    b = x.mean(axis=0) - grand
    e = x - mu[:, None] - b[None, :]
    ms_t = S * float(b @ b) / (T - 1)
    ms_e = float((e * e).sum()) / ((S - 1) * (T - 1))
    c = 1.0 + h * h
    # fixed systems: sigma_B^2 = sigma2_t + sigma2_e / S; resampled: sigma_B^2 = sigma2_t
    # (module docstring); sigma2_t >= 0 either way
    rows = S / (S - 1) if resample_systems else 1.0
    k_e = math.sqrt(rows * T / ((T - 1) * c))
    target_b = (max(ms_t - ms_e, 0.0) if resample_systems else max(ms_t, ms_e)) / S
    bb = float(b @ b)
    if bb <= 0:
        raise IRStabError("scores: every topic has the same mean score, so there is no topic "
                          "effect to resample")
    if ms_t < ms_e:
        warnings.warn(f"the topic variance component is estimated negative "
                      f"({(ms_t - ms_e) / S:.3g}); the simulated universe has none (0)",
                      IRStabWarning, stacklevel=2)
    k_b = math.sqrt(target_b * T / (c * bb))
    ms_s = T * float(((mu - grand) ** 2).sum()) / (S - 1)
    if ms_s < ms_e and shrink:
        warnings.warn(f"the system variance component is estimated negative "
                      f"({(ms_s - ms_e) / T:.3g}); the simulated systems are all equal",
                      IRStabWarning, stacklevel=2)
    factor = math.sqrt(rows * max(ms_s - ms_e, 0.0) / ms_s) if (shrink and ms_s > 0) else 1.0
    means = grand + (mu - grand) * factor
    means.setflags(write=False)
    cols = np.vstack([b[None, :], e])
    cols.setflags(write=False)
    return GTheoryModel(systems=systems, system_means=means, columns=cols, effects=effects,
                        bandwidth=h, scale_topic=k_b, scale_residual=k_e,
                        resample_systems=resample_systems)
