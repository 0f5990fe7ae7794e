r"""Prediction-powered intervals: a few gold-labelled topics, cheap labels on every topic.

A measure's score on a topic is a function of that topic's labels only (nDCG with any gain,
discount and cutoff, AP, P@k ...), so the **topics are the units** of the inference: gold
labels (NIST's) on a random subset :math:`L` of :math:`n` of the :math:`N` topics, cheap
labels (an LLM's, a crowd's, a second assessor's) on all :math:`N`. For one run (or the
difference of two runs, topic by topic), :math:`Y_i` is its score on topic :math:`i` under the
gold labels, :math:`f_i` under the cheap ones. The prediction-powered estimate (Angelopoulos
et al., *Science* 2023) with the power-tuning parameter :math:`\lambda` of PPI++
(Angelopoulos, Duchi & Zrnic, arXiv 2311.01453, 2023) is

.. math::

    \hat\theta_\lambda = \frac1n \sum_{i\in L} (Y_i - \lambda f_i)
                         + \lambda\,\frac1N \sum_{i=1}^N f_i ,

the cheap mean over every topic, corrected by the rectifier :math:`Y - \lambda f` measured on
the gold topics. :math:`\lambda = 1` is PPI, :math:`\lambda = 0` the gold-only mean, and
PPI++ takes the :math:`\lambda` that minimises the variance below,
:math:`\lambda^* = \mathrm{Cov}(Y, f) / \mathrm{Var}(f)`, estimated as
:math:`\hat\lambda = \widehat{\mathrm{Cov}}_L(Y, f) / S^2_{f,N}`: the covariance on the gold
topics over the cheap scores' variance on *every* topic, which is known exactly (Angelopoulos,
Duchi & Zrnic estimate the cheap side on the labelled and unlabelled data together); 0 when
the cheap scores do not vary. Dividing by the gold topics' own variance of :math:`f` instead
(the least-squares slope) is noisy with few gold topics and made PPI++ cover 0.87-0.89 at 4
gold topics of DL-2019 (``benchmarks/bench_ppi.py``).

**Which value the interval covers** (:class:`Estimand`). Write :math:`a = Y - \lambda f`.
With :math:`L` a simple random sample of the topics,
:math:`\hat\theta_\lambda - \bar Y_N = \bar a_L - \bar a_N`, so

* ``topics``: the mean over *these* :math:`N` topics under gold labels, what labelling
  every topic with gold would give (the finite population; sampling without replacement):
  :math:`\mathrm{Var} = (1/n - 1/N)\,S^2_a`;
* ``universe`` (default): the mean over the universe of topics the :math:`N` are a sample of (the
  super-population, topics i.i.d.): :math:`\mathrm{Var} = (1/n - 1/N)\,S^2_a + S^2_Y/N =
  S^2_a/n + (2\lambda\,\mathrm{Cov}(a, f) + \lambda^2 S^2_f)/N`, estimated with
  :math:`S^2_a` and :math:`\mathrm{Cov}(a, f)` on the gold topics and :math:`S^2_f` on all.

Both are minimised by the same :math:`\lambda`. The interval is
:math:`\hat\theta \pm t_{\nu,\,1-\alpha/2}\,\widehat{\mathrm{se}}`: the rectifier's variance,
estimated from :math:`n` topics, dominates, hence Student's t, with :math:`\nu = n - 1` for the
gold-only interval and, for PPI and PPI++, Satterthwaite's degrees of freedom of a variance
estimate from a population with excess kurtosis :math:`\kappa`,

.. math::

    \nu = \Big(\frac{1}{n - d} + \frac{\hat\kappa}{2n}\Big)^{-1},\qquad
    \hat\kappa = c\,\max\Big(0,\ \overline{g_2} + \frac{6}{n+1}\Big),\quad c = 3,

:math:`d = 1` for PPI, 2 for PPI++ (its :math:`\hat\lambda` is estimated on the same topics;
with cheap scores on every topic PPI++ is the regression estimator of survey sampling,
Cochran, *Sampling Techniques*, 1977, §7.1-7.3); :math:`\overline{g_2}` is the rectifiers'
sample excess kurtosis :math:`m_4/m_2^2 - 3` averaged over the rows that share the gold
topics (every run and pair of one call, or one ``groups`` label), :math:`-6/(n+1)` its
expectation under normality. **Why:** a rectifier is heavy-tailed where gold scores are not.
A cheap judge is close to gold on most topics and far off on a few, so :math:`Y - f` has a few
large values (DL-2019 with a re-annotator as the cheap judge: excess kurtosis over the 43
topics 2.4-3.1 averaged over runs and pairs, up to 24; the gold scores' -0.4), and its
variance estimate is worth fewer degrees of freedom than :math:`n - d`. A small sample of a
heavy-tailed population shows only part of its kurtosis (pooled over DL-2019's runs and pairs,
:math:`\overline{g_2} + 6/(n+1)` is about 0.6 at 9 gold topics and 1.6-2.4 at 22); the factor
:math:`c = 3` makes up for that. It was chosen on DL-2019 and checked where it was not: on eight
TREC measure pairs it raised coverage everywhere, and in normal models it changes coverage by at
most 0.012 (``docs/judges-ppi.md``, "Few gold topics"). Normal rectifiers give
:math:`\hat\kappa \approx 0` and :math:`\nu \approx n - d`; :math:`\nu \to \infty` as :math:`n`
grows.

**Fewer than 10 gold topics: λ fixed at ½, not tuned.** Estimating :math:`\lambda` on the
same :math:`n` topics is charged twice: the rectifier's variance is divided by :math:`n - 2`
and t's degrees of freedom start from :math:`n - 2`. Together they widen the interval by
:math:`t_{n-2}/t_{n-1}\cdot\sqrt{(n-1)/(n-2)}`: 1.66 at 4 gold topics (4.30 against 3.18),
1.21 at 6, 1.08 at 10, 1.03 at 20. At 4 gold topics of DL-2019 that made PPI++ 1.4 times
wider than gold only, and every tuned variant narrower than gold only covered at most 0.91
(``docs/judges-ppi.md``). Below :data:`TUNED_MIN_GOLD_TOPICS` gold topics, ``lam="tuned"``
therefore uses :math:`\lambda =` :data:`SMALL_SAMPLE_LAMBDA` :math:`= 1/2`, fixed before any
label is seen, with :math:`d = 1`: the difference estimator with a preassigned coefficient
(Cochran 1977, §7.2), unbiased and valid for any fixed :math:`\lambda`. Its variance
:math:`\sigma^2_Y(1 - \rho r + r^2/4)` (:math:`\rho` the gold-cheap correlation over topics,
:math:`r = \sigma_f/\sigma_Y`) is below gold only's whenever :math:`\rho > r/4`, and within
1.25 of the optimum's :math:`\sigma^2_Y(1 - \rho^2)` for :math:`\rho = 0.8, r = 1`; a cheap
judge that copies gold (:math:`\rho \to 1`) is the case where tuning would gain more
(``PPIInterval.lam`` shows which :math:`\lambda` was used). On DL-2019 at 4 gold topics it
covers 0.933-0.951 of the runs' means at 0.76 of gold only's width.

Closed forms the tests check: :math:`\lambda = 0` is the gold-only interval; cheap labels equal
to gold with :math:`\lambda = 1` give the classical interval over all :math:`N` topics
(``universe``) and a zero-width interval at the exact full-gold mean (``topics``).
benchmarks/bench_ppi.py measures coverage on DL-2019 with re-annotators as the cheap judge
(docs/judges-ppi.md).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pandas as pd

from ..errors import DegenerateDataError, IRStabError, IRStabWarning

__all__ = ["Estimand", "PPIInterval", "PPIResult", "RECTIFIER_KURTOSIS_SCALE",
           "SMALL_SAMPLE_LAMBDA", "TUNED_MIN_GOLD_TOPICS", "ppi_interval", "ppi_scores",
           "ppi_from_qrels", "ppi_score_matrices", "tuned_lambda"]

#: Fewest gold topics on which ``lam="tuned"`` estimates lambda (module docstring).
TUNED_MIN_GOLD_TOPICS = 10
#: The lambda ``lam="tuned"`` fixes beforehand below :data:`TUNED_MIN_GOLD_TOPICS` gold topics.
SMALL_SAMPLE_LAMBDA = 0.5


class Estimand(str, Enum):
    """What a PPI interval covers (module docstring)."""

    topics = "topics"
    universe = "universe"


def _check_confidence(confidence) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)) \
            or not (0.0 < float(confidence) < 1.0):
        raise IRStabError(f"confidence: must be a number in (0, 1), got {confidence!r}")
    return float(confidence)


def _check_estimand(estimand) -> Estimand:
    try:
        return Estimand(estimand)
    except ValueError:
        raise IRStabError(
            f"estimand: expected 'topics' or 'universe', got {estimand!r}") from None


def _as_2d(name: str, x) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise IRStabError(f"{name}: expected numbers, got {type(x).__name__}") from None
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise IRStabError(f"{name}: expected a vector or a (targets x topics) array, "
                          f"got {a.ndim} dimensions")
    if not np.all(np.isfinite(a)):
        r, c = np.argwhere(~np.isfinite(a))[0]
        raise IRStabError(f"{name}: non-finite score at row {r}, topic {c}")
    return a


def tuned_lambda(y_gold, f_gold, f_all=None) -> np.ndarray:
    r"""PPI++'s :math:`\hat\lambda` per row (module docstring).

    ``y_gold``, ``f_gold``: ``(targets, n)``; ``f_all``: ``(targets, N)``, the cheap scores on
    every topic. With ``f_all``, :math:`\hat\lambda = \widehat{\mathrm{Cov}}_L(Y, f) /
    S^2_{f,N}` (the cheap scores' variance over all topics, divisor :math:`N - 1`); without it,
    the least-squares slope of gold on cheap over the gold topics. 0 where the cheap scores are
    constant (no information to borrow), or vary only by rounding (a variance below 1e-20 of
    the scores' sum of squares).
    """
    y = _as_2d("y_gold", y_gold)
    f = _as_2d("f_gold", f_gold)
    fc = f - f.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    cov = (fc * yc).sum(axis=1)
    scale = (f * f).sum(axis=1) + (y * y).sum(axis=1)
    if f_all is None:
        var = (fc * fc).sum(axis=1)
    else:
        fa = _as_2d("f_all", f_all)
        fac = fa - fa.mean(axis=1, keepdims=True)
        # the same divisor as the covariance's sum: S2_f,N * (n - 1)
        var = (fac * fac).sum(axis=1) * (y.shape[1] - 1) / max(fa.shape[1] - 1, 1)
        scale = scale + (fa * fa).sum(axis=1) * y.shape[1] / fa.shape[1]
    # negligible against the scores' own size (rounding, not a signal): no borrowing
    ok = var > 1e-20 * scale
    return np.where(ok, cov / np.where(ok, var, 1.0), 0.0)


#: The factor c of the rectifiers' pooled excess kurtosis in the t quantile's degrees of freedom
#: (module docstring).
RECTIFIER_KURTOSIS_SCALE = 3.0


@dataclass(frozen=True)
class PPIInterval:
    """Result of :func:`ppi_interval`: one entry per row (target) of the input.

    ``estimate, se, lower, upper, lam`` are arrays of shape ``(targets,)``.
    """

    estimand: Estimand
    confidence: float
    n_gold: int
    n_topics: int
    estimate: np.ndarray = field(repr=False)
    se: np.ndarray = field(repr=False)
    lower: np.ndarray = field(repr=False)
    upper: np.ndarray = field(repr=False)
    lam: np.ndarray = field(repr=False)

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"estimate": self.estimate, "se": self.se, "lower": self.lower,
                             "upper": self.upper, "lam": self.lam})

    def to_dict(self) -> dict:
        return {"estimand": self.estimand.value, "confidence": self.confidence,
                "n_gold": self.n_gold, "n_topics": self.n_topics,
                "rows": self.to_frame().to_dict(orient="records")}


def _rectifier_df(a: np.ndarray, lam: np.ndarray, df0: int, groups) -> np.ndarray:
    """Degrees of freedom per row: ``df0`` where lambda is 0, else Satterthwaite's with the
    group's pooled, bias-corrected and scaled excess kurtosis (module docstring)."""
    n = a.shape[1]
    ac = a - a.mean(axis=1, keepdims=True)
    m2 = (ac * ac).mean(axis=1)
    m4 = (ac ** 4).mean(axis=1)
    # rows whose rectifier is constant (to rounding) carry no shape information
    informative = (lam != 0.0) & (m2 > 1e-24 * np.maximum((a * a).mean(axis=1), 1e-300))
    g2 = np.where(informative, m4 / np.where(informative, m2 * m2, 1.0) - 3.0, 0.0)
    if groups is None:
        codes = np.zeros(len(a), dtype=np.intp)
    else:
        codes = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
        if len(codes) != len(a):
            raise IRStabError(f"groups: {len(codes)} labels for {len(a)} rows")
    k = codes.max() + 1 if len(codes) else 0
    count = np.bincount(codes, weights=informative.astype(float), minlength=k)
    total = np.bincount(codes, weights=g2, minlength=k)
    mean_g2 = np.where(count > 0, total / np.where(count > 0, count, 1.0), -6.0 / (n + 1))
    kappa = RECTIFIER_KURTOSIS_SCALE * np.maximum(mean_g2 + 6.0 / (n + 1), 0.0)[codes]
    nu = 1.0 / (1.0 / df0 + kappa / (2.0 * n))
    return np.where(lam == 0.0, float(df0), nu)


def ppi_interval(y_gold, f_gold, f_all, *, lam="tuned", estimand: Estimand | str = "universe",
                 confidence: float = 0.95, groups=None) -> PPIInterval:
    r"""PPI / PPI++ interval of the mean gold score, vectorised over rows (module docstring).

    Parameters
    ----------
    y_gold : array ``(targets, n)`` or ``(n,)``
        Gold scores on the gold-labelled topics.
    f_gold : array like ``y_gold``
        Cheap scores on the same topics, same order.
    f_all : array ``(targets, N)`` or ``(N,)``
        Cheap scores on every topic (the gold topics included), ``N >= n``.
    lam : "tuned", float or array ``(targets,)``
        Power-tuning parameter: ``"tuned"`` (PPI++, :func:`tuned_lambda` from
        :data:`TUNED_MIN_GOLD_TOPICS` gold topics on, :data:`SMALL_SAMPLE_LAMBDA` below),
        1 (PPI), 0 (gold only), or any finite value.
    estimand : {"topics", "universe"}
    confidence : float in (0, 1)
    groups : array ``(targets,)``, optional
        Which rows share their gold topics, for the pooled kurtosis of the degrees of freedom
        (module docstring). Default: all rows do (every run and pair of one collection).

    Raises
    ------
    irstab.errors.DegenerateDataError
        Fewer than 2 gold topics.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0.2, 0.5, 0.4, 0.7]); f_all = np.array([0.3, 0.5, 0.5, 0.6, 0.4, 0.2])
    >>> r = ppi_interval(y, f_all[:4], f_all, lam=0.0)   # gold only: the mean of y
    >>> float(r.estimate[0])
    0.45
    """
    y = _as_2d("y_gold", y_gold)
    fl = _as_2d("f_gold", f_gold)
    fa = _as_2d("f_all", f_all)
    estimand = _check_estimand(estimand)
    confidence = _check_confidence(confidence)
    if fl.shape != y.shape:
        raise IRStabError(f"f_gold: shape {fl.shape} differs from y_gold's {y.shape}")
    if fa.shape[0] != y.shape[0]:
        raise IRStabError(f"f_all: {fa.shape[0]} rows, y_gold has {y.shape[0]}")
    n, N = y.shape[1], fa.shape[1]
    if n < 2:
        raise DegenerateDataError(f"y_gold: an interval needs gold labels on at least 2 topics, "
                                  f"got {n}")
    if N < n:
        raise IRStabError(f"f_all: cheap scores on {N} topics, fewer than the {n} gold topics; "
                          "the cheap judge must label every topic the gold one does")
    tuned = False
    if isinstance(lam, str):
        if lam != "tuned":
            raise IRStabError(f"lam: expected 'tuned' or a number, got {lam!r}")
        tuned = n >= TUNED_MIN_GOLD_TOPICS
        # too few gold topics to pay for estimating lambda: fixed beforehand instead
        lam_v = tuned_lambda(y, fl, fa) if tuned else np.full(y.shape[0], SMALL_SAMPLE_LAMBDA)
    else:
        try:
            lam_v = np.broadcast_to(np.asarray(lam, dtype=float), (y.shape[0],)).copy()
        except (TypeError, ValueError):
            raise IRStabError(f"lam: expected 'tuned', a number or one per row, got {lam!r}") \
                from None
        if not np.all(np.isfinite(lam_v)):
            raise IRStabError(f"lam: must be finite, got {lam!r}")
    # PPI++'s lambda is estimated on the same n topics: its residuals keep n - 2 degrees of
    # freedom, as the regression estimator's do (Cochran 1977, §7.3)
    ddof = 2 if tuned else 1
    lc = lam_v[:, None]
    a = y - lc * fl
    est = a.mean(axis=1) + lam_v * fa.mean(axis=1)
    var_a = a.var(axis=1, ddof=ddof)
    if estimand is Estimand.topics:
        v = (1.0 / n - 1.0 / N) * var_a
    else:
        ac = a - a.mean(axis=1, keepdims=True)
        flc = fl - fl.mean(axis=1, keepdims=True)
        cov_af = (ac * flc).sum(axis=1) / (n - 1)
        var_f = fa.var(axis=1, ddof=1) if N > 1 else np.zeros(len(fa))
        v = var_a / n + (2.0 * lam_v * cov_af + lam_v ** 2 * var_f) / N
    se = np.sqrt(np.maximum(v, 0.0))
    from scipy import stats

    df = _rectifier_df(a, lam_v, n - ddof, groups)
    q = stats.t.ppf(0.5 + confidence / 2.0, df)
    return PPIInterval(estimand=estimand, confidence=confidence, n_gold=n, n_topics=N,
                       estimate=est, se=se, lower=est - q * se, upper=est + q * se, lam=lam_v)


# ----------------------------------------------------------------- score matrices


_METHODS = {"ppi++": "tuned", "ppi": 1.0, "gold": 0.0}


@dataclass(frozen=True)
class PPIResult:
    """Result of :func:`ppi_scores`: every run's mean and every pair's difference.

    ``frame`` has one row per (target, method): ``kind`` (``run`` or ``pair``), ``system``,
    ``other`` (the second run of a pair, the difference being ``system - other``; empty for a
    run), ``method`` (``ppi++``, ``ppi``, ``gold``), ``lam``, ``estimate``, ``se``, ``lower``,
    ``upper``, ``width``, and ``cheap_mean`` (the cheap judge's mean over every topic, uncorrected).
    """

    measure: str | None
    estimand: Estimand
    confidence: float
    n_topics: int
    n_gold: int
    gold_topics: tuple
    frame: pd.DataFrame = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def width_ratio(self, method: str = "ppi++") -> pd.DataFrame:
        """Width of ``method``'s interval over the gold-only one, per target."""
        if method not in _METHODS:
            raise IRStabError(f"method: expected one of {', '.join(_METHODS)}, got {method!r}")
        key = ["kind", "system", "other"]
        f = self.frame
        a = f[f["method"] == method].set_index(key)["width"]
        g = f[f["method"] == "gold"].set_index(key)["width"]
        return (a / g).rename("width_ratio").reset_index()

    def to_dict(self) -> dict:
        f = self.frame.astype(object).where(self.frame.notna(), None)
        return {"measure": self.measure, "estimand": self.estimand.value,
                "confidence": self.confidence, "n_topics": self.n_topics,
                "n_gold": self.n_gold, "gold_topics": [str(t) for t in self.gold_topics],
                "intervals": f.to_dict(orient="records")}


def _pairs(systems: Sequence, pairs) -> list[tuple[int, int]]:
    idx = {s: i for i, s in enumerate(systems)}
    if pairs is None:
        return []
    if isinstance(pairs, str):
        if pairs != "all":
            raise IRStabError(f"pairs: expected 'all', None or (run, run) pairs, got {pairs!r}")
        k = len(systems)
        return [(i, j) for i in range(k) for j in range(i + 1, k)]
    out = []
    for p in pairs:
        try:
            a, b = p
        except (TypeError, ValueError):
            raise IRStabError(f"pairs: expected (run, run) pairs, got {p!r}") from None
        for s in (a, b):
            if s not in idx:
                raise IRStabError(f"pairs: unknown run {s!r}")
        if a == b:
            raise IRStabError(f"pairs: a run paired with itself, {a!r}")
        out.append((idx[a], idx[b]))
    return out


def _as_matrix(name: str, x) -> pd.DataFrame:
    if not isinstance(x, pd.DataFrame):
        raise IRStabError(f"{name}: expected a systems x topics DataFrame, "
                          f"got {type(x).__name__}")
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise IRStabError(f"{name}: empty score matrix")
    if x.index.has_duplicates or x.columns.has_duplicates:
        raise IRStabError(f"{name}: duplicate system or topic labels")
    vals = x.to_numpy(dtype=float, na_value=np.nan)
    if not np.all(np.isfinite(vals)):
        r, c = np.argwhere(~np.isfinite(vals))[0]
        raise IRStabError(f"{name}: missing or non-finite score of system {x.index[r]!r} on "
                          f"topic {x.columns[c]!r}")
    return x


def ppi_scores(gold, cheap, *, pairs="all", estimand: Estimand | str = "universe",
               confidence: float = 0.95, measure: str | None = None) -> PPIResult:
    """PPI++, PPI and gold-only intervals of every run's mean and of pairs' differences.

    Parameters
    ----------
    gold : DataFrame, systems x topics
        Scores under the gold labels on the gold-labelled topics only (a random sample of the
        topics: the intervals are valid for that design).
    cheap : DataFrame, systems x topics
        Scores under the cheap labels on every topic; its columns include ``gold``'s and its
        rows are ``gold``'s systems.
    pairs : "all", None or iterable of (run, run)
        Differences to estimate (``system - other``, topic by topic).
    estimand, confidence
        As in :func:`ppi_interval`.
    measure : str, optional
        Label of the measure.

    Warns
    -----
    irstab.errors.IRStabWarning
        Gold and cheap scores identical on at least half of the gold cells (a cheap judge
        that copies gold on most topics: the rectifier is concentrated, its variance
        underestimated from few topics).
    """
    gold = _as_matrix("gold", gold)
    cheap = _as_matrix("cheap", cheap)
    estimand = _check_estimand(estimand)
    confidence = _check_confidence(confidence)
    missing_sys = [s for s in gold.index if s not in cheap.index]
    if missing_sys or len(gold.index) != len(cheap.index):
        extra = [s for s in cheap.index if s not in gold.index]
        raise IRStabError(
            "cheap: its systems differ from gold's"
            + (f"; not in cheap: {missing_sys[:5]}" if missing_sys else "")
            + (f"; not in gold: {extra[:5]}" if extra else ""))
    missing_t = [t for t in gold.columns if t not in cheap.columns]
    if missing_t:
        raise IRStabError(f"cheap: no cheap scores on gold topic(s) {missing_t[:5]}; the cheap "
                          "judge must label every topic")
    systems = list(gold.index)
    cheap = cheap.loc[systems]
    y = gold.to_numpy(dtype=float)
    fl = cheap.loc[:, gold.columns].to_numpy(dtype=float)
    fa = cheap.to_numpy(dtype=float)
    pr = _pairs(systems, pairs)
    if pr:
        i, j = np.array(pr).T
        y = np.vstack([y, y[i] - y[j]])
        fl = np.vstack([fl, fl[i] - fl[j]])
        fa = np.vstack([fa, fa[i] - fa[j]])
    same = float(np.mean(y[: len(systems)] == fl[: len(systems)]))
    if y.shape[1] < fa.shape[1] and same >= 0.5:
        warnings.warn(
            f"gold and cheap scores are identical on {same:.0%} of the (run, gold topic) cells: "
            "the rectifier sits on a few topics, and with few gold topics its variance is "
            "underestimated (the 'topics' interval under-covers most; docs/judges-ppi.md)",
            IRStabWarning, stacklevel=2)
    kind = ["run"] * len(systems) + ["pair"] * len(pr)
    first = systems + [systems[a] for a, _ in pr]
    second = [None] * len(systems) + [systems[b] for _, b in pr]
    cheap_mean = fa.mean(axis=1)
    frames = []
    for method, lam in _METHODS.items():
        r = ppi_interval(y, fl, fa, lam=lam, estimand=estimand, confidence=confidence)
        frames.append(pd.DataFrame({
            "kind": kind, "system": first, "other": second, "method": method,
            "lam": r.lam, "estimate": r.estimate, "se": r.se, "lower": r.lower,
            "upper": r.upper, "width": r.width, "cheap_mean": cheap_mean}))
    frame = pd.concat(frames, ignore_index=True)
    order = {m: k for k, m in enumerate(_METHODS)}
    frame["_t"] = np.tile(np.arange(len(kind)), len(_METHODS))
    frame = frame.sort_values(["_t", "method"], key=lambda c: c.map(order) if c.name == "method"
                              else c, kind="stable").drop(columns="_t").reset_index(drop=True)
    return PPIResult(measure=measure, estimand=estimand, confidence=confidence,
                     n_topics=fa.shape[1], n_gold=y.shape[1], gold_topics=tuple(gold.columns),
                     frame=frame)


def ppi_score_matrices(gold_qrels, cheap_qrels, runs, measures=("nDCG@10",), *,
                       gold_topics: Iterable | None = None, depth: int = 1000,
                       order: str = "score") -> dict:
    """``{measure: (gold, cheap)}``: the score matrices :func:`ppi_scores` takes, from qrels.

    The runs are scored once under each judge for all ``measures`` (the topic and gold-topic
    rules are :func:`ppi_from_qrels`'s): ``cheap`` systems x every topic of the cheap qrels,
    ``gold`` systems x the gold-labelled topics. ``depth``, ``order``: as in
    :meth:`irstab.collection.Collection.build`.
    """
    from ..evaluation import score_runs
    from ..io import read_qrels

    if isinstance(measures, str):
        measures = [measures]
    names = [str(_measure(m)) for m in measures]
    gq = read_qrels(gold_qrels) if not hasattr(gold_qrels, "frame") else gold_qrels
    cq = read_qrels(cheap_qrels) if not hasattr(cheap_qrels, "frame") else cheap_qrels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        cheap_scores = score_runs(cq, runs, list(measures), depth=depth, order=order,
                                  every_topic=True)
    cheap = {m: cheap_scores.matrix(m) for m in names}
    topics = list(cheap[names[0]].columns)
    if gold_topics is None:
        judged = set(gq.frame["topic"].unique())
        chosen = [t for t in topics if t in judged]
    else:
        chosen = [str(t) for t in gold_topics]
        unknown = [t for t in chosen if t not in set(topics)]
        if unknown:
            raise IRStabError(f"gold_topics: not topics of the cheap qrels: {unknown[:5]}")
    gframe = gq.frame[gq.frame["topic"].isin(chosen)]
    if gframe.empty:
        raise IRStabError(f"{getattr(gq, 'path', 'gold_qrels')}: no gold label on any topic "
                          "of the cheap qrels")
    sub = type(gq)(path=gq.path, frame=gframe.reset_index(drop=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        gold_scores = score_runs(sub, runs, list(measures), depth=depth, order=order,
                                 every_topic=True)
    out = {}
    for m in names:
        g = gold_scores.matrix(m).reindex(columns=chosen, fill_value=0.0) \
            .reindex(index=cheap[m].index)
        out[m] = (g, cheap[m])
    return out


def ppi_from_qrels(gold_qrels, cheap_qrels, runs, measure="nDCG@10", *,
                   gold_topics: Iterable | None = None, pairs="all",
                   estimand: Estimand | str = "universe", confidence: float = 0.95,
                   depth: int = 1000) -> PPIResult:
    """:func:`ppi_scores` from qrels: runs scored under the gold and the cheap judge.

    The topics are every topic the cheap qrels label, whatever the labels say (a topic set
    chosen by the cheap judge's finding something relevant would depend on its labels); a
    topic without a relevant document under a judge scores 0 under that judge (nDCG's
    IDCG = 0 convention; ``irstab evaluate`` leaves such topics out instead, so with them the
    full-gold value here is the mean with zeros). The gold-labelled topics are
    ``gold_topics`` if given (they must be a random sample, chosen before looking at the
    scores), else every topic of the gold qrels that is among them.
    """
    name = str(_measure(measure))
    g, cheap = ppi_score_matrices(gold_qrels, cheap_qrels, runs, [measure],
                                  gold_topics=gold_topics, depth=depth)[name]
    return ppi_scores(g, cheap, pairs=pairs, estimand=estimand, confidence=confidence,
                      measure=name)


def _measure(measure):
    from ..metrics import parse_measure

    return parse_measure(measure)

