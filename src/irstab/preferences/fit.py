r"""The gain and discount that agree best with users' side-by-side preferences.

A comparison :math:`i` shows a user two rankings of one topic, side A and side B, and the user
prefers one (:math:`p_i = +1` for A, :math:`-1` for B) or neither (:math:`p_i = 0`). A
configuration of nDCG@k (gain :math:`g`, discount :math:`d`) prefers the side with the larger
DCG: both sides rank documents for the same topic, so the ideal DCG is the same and the sign of
the nDCG difference is that of the DCG difference

.. math::

    \Delta_i(g, d) = A_i - B_i, \qquad
    A_i = \sum_{r=1}^{k} g_{a(i,r)}\, d_r, \quad B_i = \sum_{r=1}^{k} g_{b(i,r)}\, d_r,

where :math:`a(i, r)` is the grade of the document at rank :math:`r` of side A (no document or
a grade :math:`\le 0`: gain 0). Both are linear in :math:`g` for fixed :math:`d` and in
:math:`d` for fixed :math:`g`: with :math:`K^A_{i,(j,r)}` the number of documents of grade
:math:`j \ge 1` at rank :math:`r` (0 or 1), :math:`A = K^A \operatorname{vec}(g_{1..m} d^\top)`,
a sparse product; the gradient by :math:`g` and :math:`d` is one transposed product and an
outer-product contraction (no loop over comparisons or ranks).

Exact agreement
---------------
Over the comparisons with a preference, the configuration *agrees* when
:math:`\operatorname{sign}\Delta_i = p_i`, *disagrees* when :math:`\operatorname{sign}\Delta_i
= -p_i` and *ties* when :math:`\Delta_i = 0` (to :math:`10^{-12}` of :math:`A_i + B_i`, so
that sums of the same gains in a different order tie). Two rates of those counts
(:data:`~irstab.preferences.comparisons.TIE_RULES`):

* ``exclude``, :attr:`Agreement.rate`: Sanderson et al.'s (SIGIR 2010), agreements over the
  comparisons the measure separates, its ties left out of both counts (the default of
  ``irstab preferences``, :mod:`irstab.preferences.agreement`);
* ``half``, :attr:`Agreement.half_rate`: over every comparison with a preference, a tie
  counting as half an agreement (the measure must decide; a tie is a coin flip);
* ``disagree``, :attr:`Agreement.disagree_rate`: a tie counting as a disagreement (as b3 of
  Urbano & Marrero, ECIR 2015).

The names are those of ``irstab preferences --ties``.

The optimum is chosen by ``half`` unless asked otherwise (:data:`DEFAULT_TIES`), because the
Sanderson rate rewards abstaining: a configuration that ties the hard comparisons (e.g. a gain
on the top grade only) raises it without agreeing more often. Measured on TREC DL 2019 with
simulated users (exp gain, zipf discount; 40 comparisons per topic at k = 10): the optimum by
the Sanderson rate tied 213 of 1,707 comparisons against the user's own configuration's 76,
and its Sanderson rate (0.780) beat the user's own (0.774) while its half rate (0.745) was below
it (0.762). Both rates are always reported.

Surrogate
---------
The rate is a step function of :math:`(g, d)`; it is maximised through the smooth

.. math::

    S_\tau(g, d) = \frac{1}{n} \sum_i \sigma\!\left(\tau\, p_i\, \frac{A_i - B_i}{A_i + B_i}
    \right),

the logistic :math:`\sigma` of the relative DCG difference (0 when both sides have DCG 0),
which tends to the half rate as :math:`\tau` grows (:math:`\sigma(0) = 1/2` at a tie). The
relative difference lies in :math:`[-1, 1]` and is invariant to scaling :math:`g` or
:math:`d`, as nDCG is, so one temperature :math:`\tau` serves every collection and cutoff. The
solve runs the optimizer's own machinery (:class:`irstab.optimizer.Parametrisation`: monotone
gain and discount on simplices; the SciPy backend, SLSQP with the Frank-Wolfe gap as its
measure of convergence) from every preset and a few seeded random points, warm-starting at
increasing temperatures (:data:`DEFAULT_TAUS`: smooth first, then closer to the step). Among
every start and every solve the configuration with the largest exact rate of the chosen rule
is kept (ties: the half rate, or for ``half`` the excluding one, then the surrogate at the last
temperature). The presets
are among the candidates, so the optimised rate on the topics it was fitted to is at least
every preset's there: a guarantee by construction, not a hope.

Judged out of sample
--------------------
An optimum found on some topics flatters itself on them. :func:`cross_fit_agreement` splits the
*topics* into seeded folds (:func:`irstab.optimizer.topic_folds`, as the report's optimised rows
are cross-fitted), fits on the other folds' comparisons only (no warm start from the optimum of
all topics, which has seen the held-out fold) and counts each held-out comparison under its
fold's configuration; the cross-fitted rate is reported beside the in-sample one and the
presets' (which are not fitted, so in and out of sample are the same).

References
----------
M. Sanderson, M. L. Paramita, P. Clough, E. Kanoulas (2010). Do user preferences and
evaluation measures line up? SIGIR 2010.
J. Urbano, M. Marrero (2015). How do gain and discount functions affect the correlation
between DCG and user satisfaction? ECIR 2015.
E. Kanoulas, J. A. Aslam (2009). Empirical justification of the gain and discount function
for nDCG. CIKM 2009.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .._numeric import check_seed
from ..errors import IRStabError
from ..optimizer import Parametrisation, Status, Task, topic_folds
from ..optimizer.scenario import discount_vector, gain_vector
from ..optimizer.starts import Backend, run_starts
from .comparisons import TIE_RULES

__all__ = [
    "Agreement", "AgreementForms", "AgreementProblem", "AgreementFit", "AgreementCrossFit",
    "PRESET_GAINS", "PRESET_DISCOUNTS", "DEFAULT_TAUS", "TIE_RULES", "DEFAULT_TIES", "check_ties",
    "preset_names", "sign_agreement",
    "fit_agreement", "fit_agreement_arrays", "cross_fit_agreement", "cross_fit_agreement_arrays",
]

#: The report's nDCG presets (``irstab.report.study``): gain x discount at every cutoff.
PRESET_GAINS: tuple[str, ...] = ("linear", "exp")
PRESET_DISCOUNTS: tuple[str, ...] = ("log2", "zipf", "linear", "flat")
#: Temperatures of the surrogate, solved in turn from each start (each warm-starts the next).
DEFAULT_TAUS: tuple[float, ...] = (4.0, 16.0, 64.0)
#: The rate the optimum is chosen by (:data:`~irstab.preferences.comparisons.TIE_RULES`:
#: ``half``, a tie counts half; ``exclude``, ties left out, Sanderson et al., SIGIR 2010;
#: ``disagree``, a tie disagrees). Not ``exclude``: an optimum chosen by it can gain by tying
#: the hard comparisons (docs/preferences-front.md).
DEFAULT_TIES = "half"
#: A DCG difference within this fraction of ``A + B`` is a tie.
TIE_RTOL = 1e-12


def preset_names(cutoff: int) -> list[tuple[str, str, str]]:
    """``[(measure string, gain, discount), ...]`` of the presets at ``cutoff``."""
    return [(f"nDCG(gain={g},discount={d})@{cutoff}", g, d)
            for g in PRESET_GAINS for d in PRESET_DISCOUNTS]


@dataclass(frozen=True)
class Agreement:
    """Counts of a measure against the comparisons with a preference (module docstring).

    ``rate = agree / (agree + disagree)`` (Sanderson et al., SIGIR 2010: ties of the measure
    left out; NaN when the measure separates no comparison); ``half_rate = (agree + tie / 2)
    / n`` counts a tie as half an agreement.
    """

    agree: int
    tie: int
    disagree: int

    @property
    def n(self) -> int:
        return self.agree + self.tie + self.disagree

    @property
    def rate(self) -> float:
        separated = self.agree + self.disagree
        return self.agree / separated if separated else float("nan")

    @property
    def half_rate(self) -> float:
        return (self.agree + 0.5 * self.tie) / self.n if self.n else float("nan")

    @property
    def disagree_rate(self) -> float:
        return self.agree / self.n if self.n else float("nan")

    def value(self, ties: str = DEFAULT_TIES) -> float:
        """The rate of ``ties`` (:data:`~irstab.preferences.comparisons.TIE_RULES`)."""
        return {"half": self.half_rate, "exclude": self.rate,
                "disagree": self.disagree_rate}[check_ties(ties)]

    def key(self, ties: str = DEFAULT_TIES) -> tuple[float, float]:
        """``ties``'s rate, then the half rate (the rate itself for ``half``), for ordering
        (NaN as -inf)."""
        second = self.rate if check_ties(ties) == "half" else self.half_rate
        return tuple(-np.inf if np.isnan(v) else v for v in (self.value(ties), second))

    def to_dict(self) -> dict:
        return {"agree": self.agree, "tie": self.tie, "disagree": self.disagree,
                "n": self.n, "rate": self.rate, "half_rate": self.half_rate,
                "disagree_rate": self.disagree_rate}


def check_ties(ties) -> str:
    if ties not in TIE_RULES:
        raise IRStabError(f"ties: expected one of {', '.join(TIE_RULES)}, got {ties!r}")
    return ties


def _outcomes(a: np.ndarray, b: np.ndarray, preferred: np.ndarray) -> np.ndarray:
    """Per comparison: +1 agrees, 0 ties, -1 disagrees (``preferred`` must be +-1)."""
    delta = a - b
    tie = np.abs(delta) <= TIE_RTOL * (np.abs(a) + np.abs(b))
    return np.where(tie, 0, np.sign(delta) * preferred).astype(np.int8)


def _count(outcomes: np.ndarray) -> Agreement:
    return Agreement(int(np.sum(outcomes > 0)), int(np.sum(outcomes == 0)),
                     int(np.sum(outcomes < 0)))


def sign_agreement(dcg_a, dcg_b, preferred) -> Agreement:
    """Agreement of per-side scores with the preferences (``preferred == 0`` not counted).

    Examples
    --------
    >>> a = sign_agreement([1.0, 0.5, 2.0, 1.0], [0.5, 0.5, 1.0, 3.0], [1, -1, -1, 0])
    >>> (a.agree, a.tie, a.disagree), a.rate, a.half_rate, round(a.disagree_rate, 3)
    ((1, 1, 1), 0.5, 0.5, 0.333)
    """
    a, b, p = (np.asarray(x, dtype=float).reshape(-1) for x in (dcg_a, dcg_b, preferred))
    if not (len(a) == len(b) == len(p)):
        raise IRStabError(f"dcg_a, dcg_b, preferred: lengths differ ({len(a)}, {len(b)}, {len(p)})")
    keep = p != 0
    return _count(_outcomes(a[keep], b[keep], np.sign(p[keep])))


def _check_arrays(topic, preferred, grades_a, grades_b):
    topic = np.asarray(topic).reshape(-1)
    pref = np.asarray(preferred)
    ga, gb = np.asarray(grades_a), np.asarray(grades_b)
    n = len(topic)
    if pref.shape != (n,):
        raise IRStabError(f"preferred: expected shape ({n},), got {pref.shape}")
    if not np.isin(pref, (-1, 0, 1)).all():
        raise IRStabError("preferred: values must be +1 (side A), -1 (side B) or 0 (none)")
    for name, g in (("grades_a", ga), ("grades_b", gb)):
        if g.ndim != 2 or g.shape[0] != n:
            raise IRStabError(f"{name}: expected shape ({n}, depth), got {g.shape}")
        if not np.issubdtype(g.dtype, np.integer):
            raise IRStabError(f"{name}: expected integer grades, got {g.dtype}")
    return topic, pref.astype(np.int8), ga, gb


class AgreementForms:
    r"""The comparisons with a preference as sparse linear forms in :math:`g \otimes d`.

    Parameters
    ----------
    topic, preferred, grades_a, grades_b : array_like
        As :class:`irstab.preferences.comparisons.Comparisons` holds them.
    cutoff : int, optional
        ``k`` (default: the depth of the grade arrays); ranks past it are ignored.
    max_grade : int, optional
        Largest grade of the gain vector (default: the largest in the data, at least 1).
    """

    def __init__(self, topic, preferred, grades_a, grades_b, *, cutoff: int | None = None,
                 max_grade: int | None = None):
        from scipy import sparse

        topic, pref, ga, gb = _check_arrays(topic, preferred, grades_a, grades_b)
        depth = max(ga.shape[1], gb.shape[1])
        k = depth if cutoff is None else cutoff
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= depth:
            raise IRStabError(f"cutoff: expected an integer in 1..{depth} (the rankings' "
                              f"depth), got {cutoff!r}")
        keep = pref != 0
        if not keep.any():
            raise IRStabError("preferred: no comparison has a preference; nothing to agree with")
        top = int(max(ga.max(initial=0), gb.max(initial=0)))
        m = max(top, 1) if max_grade is None else int(max_grade)
        if m < top or m < 1:
            raise IRStabError(f"max_grade: {max_grade} is below the data's largest grade {top} "
                              "or below 1")
        self.cutoff, self.max_grade = int(k), m
        self.topic, self.preferred = topic[keep], pref[keep].astype(float)
        self.n_dropped = int((~keep).sum())
        n = int(keep.sum())

        def forms(g):
            g = g[keep][:, :k]
            rows, ranks = np.nonzero(g > 0)
            cols = (g[rows, ranks].astype(np.int64) - 1) * k + ranks
            return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, m * k))

        ka, kb = forms(ga), forms(gb)
        self._diff, self._sum = (ka - kb).tocsr(), (ka + kb).tocsr()

    @property
    def n(self) -> int:
        return len(self.preferred)

    @property
    def n_grades(self) -> int:
        return self.max_grade + 1

    def subset(self, mask: np.ndarray) -> AgreementForms:
        """The comparisons where ``mask`` (over the comparisons with a preference) holds."""
        out = object.__new__(AgreementForms)
        out.cutoff, out.max_grade, out.n_dropped = self.cutoff, self.max_grade, 0
        out.topic, out.preferred = self.topic[mask], self.preferred[mask]
        out._diff, out._sum = self._diff[mask], self._sum[mask]
        return out

    def _w(self, gain, discount) -> np.ndarray:
        g = np.asarray(gain, dtype=float)[1: self.max_grade + 1]
        return np.outer(g, np.asarray(discount, dtype=float)[: self.cutoff]).ravel()

    def delta_total(self, gain, discount) -> tuple[np.ndarray, np.ndarray]:
        """``(A - B, A + B)`` of every comparison with a preference."""
        w = self._w(gain, discount)
        return self._diff @ w, self._sum @ w

    def outcomes(self, gain, discount) -> np.ndarray:
        """+1 agrees, 0 ties, -1 disagrees, per comparison with a preference."""
        delta, total = self.delta_total(gain, discount)
        tie = np.abs(delta) <= TIE_RTOL * total
        return np.where(tie, 0, np.sign(delta) * self.preferred).astype(np.int8)

    def agreement(self, gain, discount) -> Agreement:
        return _count(self.outcomes(gain, discount))

    def _transposed(self):
        """The forms' transposes, built once: ``.T`` of a sparse matrix builds a new object
        at every call, which cost the optimizer's gradients more than their products (the
        same sums, in the same order)."""
        cached = self.__dict__.get("_forms_t")
        if cached is None:
            cached = self._forms_t = (self._diff.T.tocsr(), self._sum.T.tocsr())
        return cached

    def surrogate(self, gain, discount, tau: float, grad: bool = True):
        r""":math:`S_\tau` and its gradient by the full gain and discount vectors."""
        from scipy.special import expit

        g = np.asarray(gain, dtype=float)
        d = np.asarray(discount, dtype=float)[: self.cutoff]
        delta, total = self.delta_total(g, d)
        pos = total > 0
        safe = np.where(pos, total, 1.0)
        r = np.where(pos, delta / safe, 0.0)
        s = expit(tau * self.preferred * r)
        value = float(s.mean())
        if not grad:
            return value, None, None
        c = tau * self.preferred * s * (1.0 - s) / self.n  # dS/dr
        c = np.where(pos, c / safe, 0.0)  # dS/d(delta); dS/d(total) = -c r
        diff_t, sum_t = self._transposed()
        gw = (diff_t @ c - sum_t @ (c * r)).reshape(self.max_grade, self.cutoff)
        grad_g = np.zeros(len(g))
        grad_g[1: self.max_grade + 1] = gw @ d
        grad_d = np.zeros(len(np.asarray(discount)))
        grad_d[: self.cutoff] = g[1: self.max_grade + 1] @ gw
        return value, grad_g, grad_d


@dataclass(frozen=True, eq=False)
class AgreementProblem:
    r"""The surrogate :math:`S_\tau` over a :class:`~irstab.optimizer.Parametrisation`.

    It has the interface of :class:`irstab.optimizer.Problem` the solvers use (``values``,
    ``values_and_jac``, ``n_scenarios``, ``param``, ``prepare``), so a
    :class:`~irstab.optimizer.Task` of it runs on the optimizer's backends, and it can be the
    constraint of another problem (:class:`irstab.optimizer.constraints.PhiConstraint`).
    """

    forms: AgreementForms
    param: Parametrisation
    tau: float

    n_scenarios = 1

    def prepare(self) -> None:
        """Nothing to share before worker processes fork."""

    def values(self, y) -> np.ndarray:
        g, d = self.param.vectors(y)
        return np.array([self.forms.surrogate(g, d, self.tau, grad=False)[0]])

    def values_and_jac(self, y) -> tuple[np.ndarray, np.ndarray]:
        g, d = self.param.vectors(y)
        v, gg, gd = self.forms.surrogate(g, d, self.tau)
        return np.array([v]), self.param.grad(gg, gd)[None, :]

    def natural_values_and_jac(self, v) -> tuple[np.ndarray, np.ndarray]:
        g, d = self.param.from_natural(v)
        val, gg, gd = self.forms.surrogate(g, d, self.tau)
        return np.array([val]), self.param.natural_grad(gg, gd)[None, :]


def parametrisation(forms: AgreementForms, vary="joint", monotone: bool = True,
                    gain="linear", discount="log2") -> Parametrisation:
    """The optimizer's variables for ``forms``' grades and cutoff."""
    return Parametrisation(n_grades=forms.n_grades, cutoff=forms.cutoff, vary=vary,
                           monotone=bool(monotone), gain=gain_vector(gain, forms.max_grade),
                           discount=discount_vector(discount, forms.cutoff))


@dataclass(frozen=True)
class AgreementFit:
    """The configuration of nDCG@k that agrees best with the preferences it was fitted on.

    Attributes
    ----------
    gain, discount : tuple of float
        The optimum (gain of grades ``0..max_grade`` normalised to sum 1 over the relevant
        grades; discount of ranks ``1..cutoff`` to sum 1).
    cutoff : int
    agreement : Agreement
        Exact counts of the optimum on the comparisons it was fitted to.
    surrogate : float
        :math:`S_\\tau` of the optimum at the last temperature.
    presets : tuple of (str, Agreement)
        Every preset reachable in the parametrisation, on the same comparisons.
    start : str
        The start the optimum came from (a preset name, ``random-i`` or a temperature).
    status : Status
        Of the local solve that gave the optimum (``optimal`` for a start kept as is).
    vary : str
    monotone : bool
    n_topics : int
        Topics of the comparisons fitted.
    ties : str
        The rate the optimum was chosen by (:data:`~irstab.preferences.comparisons.TIE_RULES`).
    """

    gain: tuple[float, ...]
    discount: tuple[float, ...]
    cutoff: int
    agreement: Agreement
    surrogate: float
    presets: tuple[tuple[str, Agreement], ...]
    start: str
    status: Status
    vary: str
    monotone: bool
    n_topics: int
    ties: str = DEFAULT_TIES

    @property
    def measure(self):
        from ..metrics import Discount, Gain, nDCG

        return nDCG(gain=Gain.of(self.gain), discount=Discount.of(self.discount),
                    cutoff=self.cutoff)

    @property
    def measure_string(self) -> str:
        return self.measure.canonical()

    @property
    def best_preset(self) -> tuple[str, Agreement]:
        return max(self.presets, key=lambda p: p[1].key(self.ties))

    def to_dict(self) -> dict:
        return {"measure": self.measure_string, "gain": list(self.gain),
                "discount": list(self.discount), "cutoff": self.cutoff,
                "agreement": self.agreement.to_dict(), "surrogate": self.surrogate,
                "presets": [{"measure": m, **a.to_dict()} for m, a in self.presets],
                "start": self.start, "status": self.status.value, "vary": self.vary,
                "monotone": self.monotone, "n_topics": self.n_topics, "ties": self.ties}


def _normalised(g, d) -> tuple[tuple[float, ...], tuple[float, ...]]:
    g = np.asarray(g, dtype=float)
    d = np.asarray(d, dtype=float)
    return tuple(float(x) for x in g / g[1:].sum()), tuple(float(x) for x in d / d.sum())


def _fit(forms: AgreementForms, *, vary="joint", monotone=True, gain="linear",
         discount="log2", taus: Sequence[float] = DEFAULT_TAUS, starts: int = 4, seed=0,
         max_iter: int = 200, tol: float = 1e-6, ties: str = DEFAULT_TIES) -> AgreementFit:
    check_ties(ties)
    taus = tuple(float(t) for t in taus)
    if not taus or min(taus) <= 0:
        raise IRStabError(f"taus: expected positive temperatures, got {taus!r}")
    if isinstance(starts, bool) or not isinstance(starts, (int, np.integer)) or starts < 0:
        raise IRStabError(f"starts: expected an integer >= 0, got {starts!r}")
    param = parametrisation(forms, vary, monotone, gain, discount)
    k = forms.cutoff
    presets, points = [], []
    for name, g_name, d_name in preset_names(k):
        g, d = gain_vector(g_name, forms.max_grade), discount_vector(d_name, k)
        reachable = ((param.varies_gain or np.allclose(g[1:] / g[1:].sum(), param.gain[1:]))
                     and (param.varies_discount or np.allclose(d / d.sum(), param.discount)))
        if reachable:
            presets.append((name, forms.agreement(g, d)))
            points.append((name, param.variables(g, d, check=False)))
    rng = check_seed(seed)
    kinds = ("dirichlet-1", "dirichlet-0.1", "flat-top")
    points += [(f"random-{i + 1}", param.random(rng, kinds[i % 3])) for i in range(starts)]
    last = AgreementProblem(forms, param, taus[-1])

    def key(y):
        g, d = param.vectors(y)
        return (*forms.agreement(g, d).key(ties), float(last.values(y)[0]))

    best = None  # (key, y, start, status)
    for name, y0 in points:
        y = param.project(y0)
        cands = [(name, y, Status.optimal)]
        for tau in taus:
            ((_, sol),) = run_starts(Task(AgreementProblem(forms, param, tau)), [(name, y)],
                                     Backend.scipy, method=None, max_iter=max_iter, tol=tol,
                                     workers=1)
            y = sol.y
            cands.append((f"{name} (tau {tau:g})", y, sol.status))
        for label, yc, status in cands:
            kc = key(yc)
            if best is None or kc > best[0]:
                best = (kc, yc, label, status)
    (*_, surr), y, label, status = best
    g, d = param.vectors(y)
    gn, dn = _normalised(g, d)
    return AgreementFit(gn, dn, k, forms.agreement(g, d), surr, tuple(presets), label, status,
                        param.vary.value, bool(monotone), len(np.unique(forms.topic)), ties)


def fit_agreement_arrays(topic, preferred, grades_a, grades_b, *, cutoff: int | None = None,
                         max_grade: int | None = None, vary="joint", monotone: bool = True,
                         gain="linear", discount="log2", taus: Sequence[float] = DEFAULT_TAUS,
                         starts: int = 4, seed=0, max_iter: int = 200,
                         tol: float = 1e-6, ties: str = DEFAULT_TIES) -> AgreementFit:
    """The nDCG@k that agrees best with the preferences (module docstring), from arrays.

    Parameters
    ----------
    topic : array_like of str, shape (n,)
    preferred : array_like of int, shape (n,)
        +1 side A preferred, -1 side B, 0 none (not counted).
    grades_a, grades_b : array_like of int, shape (n, depth)
        Grade at each rank of each side (-1 where no document, 0 unjudged).
    cutoff, max_grade
        As :class:`AgreementForms`.
    vary : {"joint", "discount", "gain"}
        The blocks optimised; the other is ``gain`` or ``discount``.
    monotone : bool
        Non-decreasing gain, non-increasing discount (the optimizer's parametrisation).
    taus : sequence of float
        Temperatures of the surrogate, in order.
    starts : int
        Seeded random starts besides the presets.
    seed, max_iter, tol
        Of the random starts; of each local solve (iterations; Frank-Wolfe gap).
    ties : {"half", "exclude", "disagree"}
        The rate the optimum is chosen by (module docstring; both are reported).

    Returns
    -------
    AgreementFit

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[1, 0], [0, 2], [2, 0]])  # grade at ranks 1, 2 of side A
    >>> b = np.array([[0, 2], [1, 0], [0, 1]])
    >>> fit = fit_agreement_arrays(["t1", "t1", "t2"], [1, 1, 1], a, b, starts=0)
    >>> fit.agreement.half_rate >= max(p.half_rate for _, p in fit.presets)
    True
    """
    forms = AgreementForms(topic, preferred, grades_a, grades_b, cutoff=cutoff,
                           max_grade=max_grade)
    return _fit(forms, vary=vary, monotone=monotone, gain=gain, discount=discount, taus=taus,
                starts=starts, seed=seed, max_iter=max_iter, tol=tol, ties=ties)


def _arrays(comparisons):
    try:
        return (comparisons.topic, comparisons.preferred, comparisons.grades_a,
                comparisons.grades_b)
    except AttributeError as exc:
        raise IRStabError(f"comparisons: expected topic, preferred, grades_a and grades_b "
                          f"(irstab.preferences.Comparisons), got {type(comparisons).__name__}"
                          ) from exc


def fit_agreement(comparisons, **options) -> AgreementFit:
    """:func:`fit_agreement_arrays` of any object with ``topic``, ``preferred``,
    ``grades_a`` and ``grades_b`` (a :class:`~irstab.preferences.comparisons.Comparisons`)."""
    return fit_agreement_arrays(*_arrays(comparisons), **options)


@dataclass(frozen=True)
class AgreementCrossFit:
    """The optimised agreement judged on topics it was not fitted to.

    Attributes
    ----------
    optimum : AgreementFit
        Fitted on all topics (the configuration a user would take); its agreement is in sample.
    cross_fitted : Agreement
        Every comparison counted under the configuration fitted without its topic's fold.
    presets : tuple of (str, Agreement)
        On all comparisons (not fitted: in and out of sample alike).
    folds : ndarray
        ``(comparisons with a preference,)`` the fold of each comparison's topic.
    fold_fits : tuple of AgreementFit
        Each fold's optimum, fitted on the other folds (its ``agreement`` and ``presets`` are
        on those training comparisons).
    outcomes : ndarray
        ``(comparisons with a preference,)``: +1 / 0 / -1 of the held-out configuration.
    topic : ndarray
        ``(comparisons with a preference,)`` their topics.
    preset_outcomes : tuple of ndarray
        +1 / 0 / -1 of each preset (in the order of ``presets``), for paired comparisons
        (:func:`irstab.preferences.paired.paired_difference`).
    """

    optimum: AgreementFit
    cross_fitted: Agreement
    presets: tuple[tuple[str, Agreement], ...]
    folds: np.ndarray = field(repr=False)
    fold_fits: tuple[AgreementFit, ...] = field(repr=False)
    outcomes: np.ndarray = field(repr=False)
    topic: np.ndarray | None = field(default=None, repr=False)
    preset_outcomes: tuple = field(default=(), repr=False)

    @property
    def best_preset(self) -> tuple[str, Agreement]:
        """The preset with the largest rate of the optimum's rule (ties: the first)."""
        return max(self.presets, key=lambda p: p[1].key(self.ties))

    def preset_outcome(self, name: str) -> np.ndarray:
        return self.preset_outcomes[[m for m, _ in self.presets].index(name)]

    @property
    def n_folds(self) -> int:
        return len(self.fold_fits)

    @property
    def ties(self) -> str:
        return self.optimum.ties

    def rows(self) -> list[dict]:
        """One row per configuration: the optimum in and out of sample, then the presets."""
        out = [{"measure": self.optimum.measure_string, "kind": "optimised (in sample)",
                **self.optimum.agreement.to_dict()},
               {"measure": self.optimum.measure_string,
                "kind": f"optimised (cross-fitted, {self.n_folds} folds)",
                **self.cross_fitted.to_dict()}]
        out += [{"measure": m, "kind": "preset", **a.to_dict()} for m, a in self.presets]
        return out

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows())

    def to_dict(self) -> dict:
        return {"optimum": self.optimum.to_dict(), "cross_fitted": self.cross_fitted.to_dict(),
                "n_folds": self.n_folds, "ties": self.ties, "rows": self.rows(),
                "fold_optima": [f.to_dict() for f in self.fold_fits]}


def _cross_fit(forms: AgreementForms, *, folds: int = 5, seed=0, **options):
    topics, codes = np.unique(forms.topic, return_inverse=True)
    fold_of_topic = topic_folds(len(topics), folds, seed)
    fold = fold_of_topic[codes]
    optimum = _fit(forms, seed=seed, **options)
    outcomes = np.zeros(forms.n, dtype=np.int8)
    fits = []
    for f in range(int(fold_of_topic.max()) + 1):
        held = fold == f
        fit = _fit(forms.subset(~held), seed=seed, **options)  # never sees fold f's comparisons
        outcomes[held] = forms.subset(held).outcomes(
            np.asarray(fit.gain), np.asarray(fit.discount))
        fits.append(fit)
    names = preset_names(forms.cutoff)
    preset_out = tuple(forms.outcomes(gain_vector(g, forms.max_grade),
                                      discount_vector(d, forms.cutoff)) for _, g, d in names)
    presets = tuple((name, _count(o)) for (name, _, _), o in zip(names, preset_out))
    return AgreementCrossFit(optimum, _count(outcomes), presets, fold, tuple(fits), outcomes,
                             forms.topic, preset_out)


def cross_fit_agreement_arrays(topic, preferred, grades_a, grades_b, *, cutoff=None,
                               max_grade=None, folds: int = 5, seed=0,
                               **options) -> AgreementCrossFit:
    """The optimum on all topics and its cross-fitted agreement (module docstring).

    ``folds`` folds of the topics (seeded by ``seed``, which also seeds the random starts);
    ``options`` as :func:`fit_agreement_arrays`.
    """
    forms = AgreementForms(topic, preferred, grades_a, grades_b, cutoff=cutoff,
                           max_grade=max_grade)
    return _cross_fit(forms, folds=folds, seed=seed, **options)


def cross_fit_agreement(comparisons, **options) -> AgreementCrossFit:
    """:func:`cross_fit_agreement_arrays` of a Comparisons-like object (duck typing)."""
    return cross_fit_agreement_arrays(*_arrays(comparisons), **options)
