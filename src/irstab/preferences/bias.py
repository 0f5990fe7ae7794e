r"""Bias scores of a measure against users (Urbano & Marrero, ECIR 2015) and their ANOVA.

Urbano & Marrero ask how the probability that users are satisfied with a ranking, or prefer
the side a measure prefers, follows the measure. Each curve is a logistic regression on a
quadratic polynomial of the measure, fitted by maximum likelihood; a bias score is an area or
a distance between the curve and the ideal one:

* :math:`b_1` -- satisfaction: from the comparisons where the judge had no preference and said
  whether both sides were good (satisfied, 1) or both bad (0), every side is one observation
  :math:`(\phi, \text{sat})`. With :math:`\hat P(\text{Sat} \mid \phi)` the fitted curve,
  :math:`b_1 = \int_0^1 |\phi - \hat P(\text{Sat}\mid\phi)|\,d\phi` (a measure whose value is
  the probability of satisfaction has :math:`b_1 = 0`);
* :math:`b_2 = \tfrac12\,(\hat P(\text{Sat}\mid 0) + 1 - \hat P(\text{Sat}\mid 1))`, the
  distance of the same curve from the ideal at the two ends;
* :math:`b_3` -- preference: every comparison is one observation
  :math:`(|\Delta\phi|, \text{agree})`, with agree = 1 when the judge preferred the side with
  the larger measure value, 0 otherwise (the other side, no preference, or a tie of the
  measure); :math:`b_3 = \int_0^1 (1 - \hat P(\text{Pref}\mid|\Delta\phi|))\,d|\Delta\phi|`.

The integrals are the mean over the 1001 points :math:`0, 0.001, \ldots, 1`, as the authors
computed them. The fit is iteratively reweighted least squares started and stopped as R's
``glm`` is (start :math:`\mu = (w y + 1/2)/(w + 1)`; stop when the deviance changes by less than
:math:`10^{-8}(|\text{dev}| + 0.1)`), so the scores equal those the authors published
(``output/biases.csv`` of julian-urbano/ecir2015-dcg) to 1e-9; the quadratic is fitted on a
centred and scaled basis, which leaves the fitted curve unchanged (IRLS is invariant to a
linear change of basis).

Validated against: the 108 bias scores and the three ANOVA tables of that repository
(tests/preferences/test_reproduction.py).
"""

from __future__ import annotations

import numpy as np

from irstab.errors import DegenerateDataError, IRStabError

from .comparisons import TIE_ATOL, ScoredComparisons

__all__ = ["BIAS_SCORES", "GRID", "logistic_quadratic", "bias_scores", "bias_anova"]

#: The bias scores, in the authors' order.
BIAS_SCORES = ("b1", "b2", "b3")

#: The points where the fitted curves are averaged (the integrals over [0, 1]).
GRID = np.linspace(0.0, 1.0, 1001)

_EPSILON = 1e-8  # R glm.control()$epsilon
_MAXIT = 25  # R glm.control()$maxit


def _binomial_deviance(y, mu, w):
    """Deviance of 0/1 outcomes ``y``: -2 sum w log(mu) where y = 1, log(1 - mu) where 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -2.0 * np.sum(w * np.log(np.where(y > 0, mu, 1.0 - mu)), axis=-1)


def _solve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Solve each ``a[k] x = b[k]``; (solutions, ok) with NaN where ``a[k]`` is singular."""
    try:
        return np.linalg.solve(a, b[..., None])[..., 0], np.ones(a.shape[0], dtype=bool)
    except np.linalg.LinAlgError:
        x = np.full(b.shape, np.nan)
        ok = np.zeros(a.shape[0], dtype=bool)
        for k in range(a.shape[0]):
            try:
                x[k] = np.linalg.solve(a[k], b[k])
                ok[k] = True
            except np.linalg.LinAlgError:
                pass
        return x, ok


def logistic_quadratic(x, y, weights=None, grid=GRID, strict: bool = True) -> np.ndarray:
    r"""Fit :math:`P(y = 1 \mid x) = \operatorname{logit}^{-1}(\beta_0 + \beta_1 x + \beta_2 x^2)`
    by maximum likelihood (IRLS, as R's ``glm(family = binomial)``), and evaluate it on ``grid``.

    Vectorised over leading axes: ``x``, ``y`` and ``weights`` broadcast to shape (..., n);
    each problem is iterated until its own deviance converges.

    Parameters
    ----------
    x : array_like, shape (..., n)
        The covariate.
    y : array_like, shape (..., n)
        0 or 1.
    weights : array_like, shape (..., n), optional
        Frequency weights (bootstrap counts); default 1. A weight of 0 drops the observation.
    grid : array_like, shape (g,)
        Where to evaluate the fitted probability.
    strict : bool
        Raise on a problem that cannot be fitted; with ``strict=False`` its curve is NaN.

    Returns
    -------
    ndarray, shape (..., g)

    Raises
    ------
    DegenerateDataError
        (``strict``) When a problem does not converge in 25 iterations (R's limit), or its
        covariate takes fewer than three distinct values (no quadratic through it).

    Examples
    --------
    Twenty observations at five values; statsmodels' ``GLM(family=Binomial())`` on
    :math:`(1, x, x^2)` gives 0.27698, 0.68998, 0.95302 at 0, 0.5, 1:

    >>> x = np.repeat([0.0, 0.25, 0.5, 0.75, 1.0], 4)
    >>> y = [0, 0, 0, 1,  0, 0, 1, 1,  0, 1, 1, 1,  1, 1, 1, 0,  1, 1, 1, 1]
    >>> logistic_quadratic(x, y, grid=[0.0, 0.5, 1.0]).round(5).tolist()
    [0.27698, 0.68998, 0.95302]
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=float)
    x, y, w = np.broadcast_arrays(x, y, w)
    lead = x.shape[:-1]
    x, y, w = (a.reshape(-1, a.shape[-1]) for a in (x, y, w))
    if y.size and np.any((y != 0) & (y != 1)):
        raise IRStabError("y: expected outcomes 0 or 1")
    x, y, w = _without_zero_weights(x, y, w)
    total = w.sum(axis=1, keepdims=True)
    failed = total[:, 0] <= 0
    total = np.where(failed[:, None], 1.0, total)
    centre = (w * x).sum(axis=1, keepdims=True) / total
    scale = np.sqrt((w * (x - centre) ** 2).sum(axis=1, keepdims=True) / total)
    failed |= ~(scale[:, 0] > 0)
    scale = np.where(scale > 0, scale, 1.0)
    t = (x - centre) / scale
    mu = (w * y + 0.5) / (w + 1.0)
    eta = np.log(mu / (1 - mu))
    dev = _binomial_deviance(y, mu, w)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        beta, failed, active = _irls(t, y, w, mu, eta, dev, failed)
    if strict and failed.any():
        raise DegenerateDataError(
            "logistic fit: no convergence in 25 iterations, or the covariate takes fewer than "
            "three distinct values (no quadratic curve through it)")
    g = (np.asarray(grid, dtype=float)[None, :] - centre) / scale  # (k, g)
    eta_g = beta[:, :1] + beta[:, 1:2] * g + beta[:, 2:3] * g * g
    with np.errstate(over="ignore"):
        p = 1.0 / (1.0 + np.exp(-eta_g))
    p[failed] = np.nan
    return p.reshape(lead + (g.shape[-1],))


def _without_zero_weights(x, y, w):
    """Drop the observations of weight 0 (bootstrap rows leave about a third out), each row
    keeping its others in order, padded to the longest row with weight-0 copies: a weight of
    0 adds exactly 0 to every sum of the fit, so the fit is unchanged."""
    keep = w != 0
    width = int(keep.sum(axis=1).max(initial=0))
    if width == w.shape[1]:
        return x, y, w
    order = np.argsort(~keep, axis=1, kind="stable")[:, :max(width, 1)]
    pick = (lambda a: np.take_along_axis(a, order, axis=1))
    return pick(x), pick(y), np.where(np.take_along_axis(keep, order, axis=1), pick(w), 0.0)


def _irls(t, y, w, mu, eta, dev, failed):
    """The iterations of :func:`logistic_quadratic` (R's glm.fit) on the basis 1, t, t^2:
    (beta, failed, active). The normal equations are sums of the weights times powers of t.

    The rows still iterating are kept in arrays of their own, compacted only when some stop
    (copying them out of the full arrays at every iteration cost 13-17 % of ``irstab
    preferences`` on the crowd data); each row's arithmetic is the same whichever rows
    iterate beside it. ``mu``, ``eta`` and ``dev`` are the starting values; only ``beta`` is
    the fit's."""
    k = t.shape[0]
    beta = np.zeros((k, 3))
    active = ~failed
    pos = np.flatnonzero(active)
    m, e, yy, ww, tt = mu[pos], eta[pos], y[pos], w[pos], t[pos]
    tt2 = tt * tt
    pw = np.stack([np.ones_like(tt), tt, tt2, tt2 * tt, tt2 * tt2], axis=1)  # (k, 5, n)
    d_old = dev[pos]
    for _ in range(_MAXIT):
        if pos.size == 0:
            break
        var = m * (1 - m)
        wt = ww * var
        wz = wt * (e + (yy - m) / var)
        s = np.einsum("kpn,kn->kp", pw, wt)  # sums of wt t^p, p = 0..4
        xtwx = s[:, [[0, 1, 2], [1, 2, 3], [2, 3, 4]]]
        xtwz = np.einsum("kpn,kn->kp", pw[:, :3], wz)
        b, ok = _solve(xtwx, xtwz)
        ok &= np.isfinite(b).all(axis=1)
        if not ok.all():
            failed[pos[~ok]] = True
            active[pos[~ok]] = False
            pos, b, yy, ww, tt, tt2, pw, d_old = (
                a[ok] for a in (pos, b, yy, ww, tt, tt2, pw, d_old))
        e = b[:, :1] + b[:, 1:2] * tt + b[:, 2:3] * tt2
        m = 1.0 / (1.0 + np.exp(-e))
        d_new = _binomial_deviance(yy, m, ww)
        beta[pos] = b
        done = np.abs(d_new - d_old) / (np.abs(d_new) + 0.1) < _EPSILON
        d_old = d_new
        if done.any():
            active[pos[done]] = False
            keep = ~done
            pos, m, e, yy, ww, tt, tt2, pw, d_old = (
                a[keep] for a in (pos, m, e, yy, ww, tt, tt2, pw, d_old))
    failed |= active | ~np.isfinite(beta).all(axis=1)
    return beta, failed, active


def _sat_observations(scored: ScoredComparisons):
    if scored.satisfied is None or not (scored.satisfied >= 0).any():
        raise IRStabError(
            "b1, b2: no comparison says whether both sides satisfied the judge "
            "(answers 'good' / 'bad' where there was no preference)")
    rows = np.flatnonzero(scored.satisfied >= 0)
    sat = scored.satisfied[rows].astype(float)
    # every side is one observation: (m, 2 r) values, the satisfaction repeated per side
    phi = np.concatenate([scored.scores[rows, :, 0], scored.scores[rows, :, 1]], axis=0).T
    return rows, phi, np.concatenate([sat, sat])


def _pref_observations(scored: ScoredComparisons, atol: float):
    diff = scored.scores[:, :, 0] - scored.scores[:, :, 1]  # (n, m)
    sign = np.where(np.abs(diff) <= atol, 0, np.sign(diff))
    agree = (scored.preferred[:, None] != 0) & (sign == scored.preferred[:, None])
    return np.abs(diff).T, agree.T.astype(float)  # (m, n) each


def bias_scores(scored: ScoredComparisons, weights=None, atol: float = TIE_ATOL) -> np.ndarray:
    """The bias scores b1, b2, b3 of every measure of ``scored``.

    Parameters
    ----------
    scored : ScoredComparisons
        The measure values per side; b1 and b2 need ``satisfied``.
    weights : array_like, shape (B, n) or (n,), optional
        Frequency weights of the comparisons (bootstrap counts); default 1 each.
    atol : float
        Tie tolerance of the measure (a tie never agrees, for b3).

    Returns
    -------
    ndarray, shape (3, m), or (B, 3, m) with two-dimensional weights
        Rows b1, b2, b3 (:data:`BIAS_SCORES`); NaN rows b1, b2 when no comparison records
        satisfaction, and NaN where a curve cannot be fitted (the measure takes fewer than
        three distinct values, or the outcome is perfectly separated: no convergence).
    """
    n, m = scored.n, len(scored.measures)
    w = np.ones((1, n)) if weights is None else np.asarray(weights, dtype=float)
    squeeze = w.ndim == 1
    w = np.atleast_2d(w)
    if w.shape[1] != n:
        raise IRStabError(f"weights: expected {n} columns (one per comparison), got {w.shape}")
    out = np.full((w.shape[0], 3, m), np.nan)
    x, y = _pref_observations(scored, atol)
    p = logistic_quadratic(x[None], y[None], w[:, None, :], strict=False)  # (B, m, g)
    out[:, 2] = np.mean(1.0 - p, axis=-1)
    if scored.satisfied is not None and (scored.satisfied >= 0).any():
        rows, phi, sat = _sat_observations(scored)
        ws = np.concatenate([w[:, rows], w[:, rows]], axis=1)
        p = logistic_quadratic(phi[None], sat[None, None, :], ws[:, None, :], strict=False)
        out[:, 0] = np.mean(np.abs(GRID - p), axis=-1)
        out[:, 1] = (p[..., 0] + 1.0 - p[..., -1]) / 2.0
    return out[0] if (weights is None or squeeze) else out


def bias_anova(values: np.ndarray, factors: dict) -> list[dict]:
    """Two-way ANOVA (main effects, sequential sums of squares) of each bias score on the
    measures' factors, as R's ``anova(lm(value ~ gain + discount))``.

    Parameters
    ----------
    values : ndarray, shape (3, m)
        :func:`bias_scores`.
    factors : dict of str to sequence of str
        Each measure's label per factor, in model order (e.g. gain, then discount).

    Returns
    -------
    list of dict
        ``{"score", "factor", "df", "sum_sq", "f", "p"}`` per bias score and factor, then
        ``factor = "residual"`` (its ``f`` and ``p`` NaN).
    """
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    if not factors:
        raise IRStabError("bias ANOVA: the measures carry no factors (e.g. gain and discount)")
    names = list(factors)
    rows = []
    for i, score in enumerate(BIAS_SCORES):
        if np.isnan(values[i]).any():
            continue
        frame = pd.DataFrame({f"f{j}": list(factors[n]) for j, n in enumerate(names)})
        frame["value"] = values[i]
        formula = "value ~ " + " + ".join(f"C(f{j})" for j in range(len(names)))
        table = anova_lm(smf.ols(formula, data=frame).fit(), typ=1)
        labels = [*names, "residual"]
        for label, (_, r) in zip(labels, table.iterrows()):
            rows.append({"score": score, "factor": label, "df": int(r["df"]),
                         "sum_sq": float(r["sum_sq"]), "f": float(r["F"]),
                         "p": float(r["PR(>F)"])})
    return rows
