r"""Dependence between systems: copulas fitted on pseudo-observations, drawn many at once.

A topic that is hard for one system is hard for most; the simulator keeps that
dependence by drawing each topic's vector of probabilities :math:`(u_1, \dots, u_S)`
from a copula fitted to the systems' scores and mapping :math:`u_s` through system
``s``'s margin (Urbano & Nagler, "Stochastic Simulation of Test Collections: Evaluation
Scores", SIGIR 2018, §3.3; Sklar's theorem).

Pseudo-observations
    :math:`\hat u_{ts} = r_{ts} / (T + 1)`, :math:`r_{ts}` the rank of topic ``t``
    among system ``s``'s ``T`` scores. Ties (scores of 0, lattice measures) are broken
    at random, as Urbano & Nagler do (through rvinecopulib's ``pseudo_obs``), so the fit
    takes a seed.

Gaussian copula (``copula="gaussian"``, the fast one)
    The correlation of the normal scores is read from Kendall's tau of the
    pseudo-observations, :math:`\rho_{ij} = \sin(\pi \tau_{ij} / 2)`, which holds for
    every elliptical copula (Lindskog, McNeil & Schmock, "Kendall's tau for elliptical
    distributions", 2003). With fewer topics than systems that matrix need not be
    positive semi-definite: its negative eigenvalues are set to 0 and the diagonal
    rescaled to 1 (one step of Higham's alternating projections, "Computing the nearest
    correlation matrix", IMA J. Numer. Anal. 22, 2002); :attr:`GaussianCopula.projection`
    says by how much that moved any implied tau. A draw is :math:`u = \Phi(L z)`,
    :math:`z \sim N(0, I)`, :math:`LL^\top` the correlation; its Kendall taus are
    :math:`\frac{2}{\pi}\arcsin\rho_{ij}` exactly.

Vine copula (``copula="vine"``)
    A regular vine fitted by ``pyvinecopulib`` (Nagler & Vatter, MIT licence): the
    tree structure by maximum spanning trees on :math:`|\tau|` (Dissmann et al., CSDA
    2013), each pair copula chosen by BIC among independence, Gaussian, Student t,
    Clayton, Gumbel, Frank and Joe with their rotations; pair copulas that BIC does not
    prefer to independence cost nothing to draw. A draw is the inverse Rosenblatt
    transform of independent uniforms from the caller's numpy Generator, so every draw
    is reproducible from that Generator alone.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from ..errors import IRStabError

__all__ = ["CopulaKind", "GaussianCopula", "VineCopula", "fit_copula", "pseudo_observations",
           "kendall_tau"]


class CopulaKind(str, enum.Enum):
    """The copulas :func:`fit_copula` fits."""

    gaussian = "gaussian"
    vine = "vine"


def pseudo_observations(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Ranks / (T + 1) of each column of ``x`` (T topics x S systems), ties broken at random.

    Examples
    --------
    >>> import numpy as np
    >>> pseudo_observations(np.array([[0.2], [0.9], [0.5]]), np.random.default_rng(0)).ravel()
    array([0.25, 0.75, 0.5 ])
    """
    T = x.shape[0]
    order = np.lexsort((rng.random(x.shape), x), axis=0)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1, T + 1)[:, None], x.shape), axis=0)
    return ranks / (T + 1.0)


def kendall_tau(x: np.ndarray) -> np.ndarray:
    r"""Kendall's tau-b between the rows of ``x`` over its last axis, for a stack of matrices.

    .. math:: \tau_b(a, b) = \frac{\sum_{i<j} \operatorname{sgn}(a_j - a_i)
              \operatorname{sgn}(b_j - b_i)}{\sqrt{n_a\,n_b}},

    :math:`n_a` the pairs not tied in ``a`` (Kendall, *Rank Correlation Methods*, 1970,
    eq. 3.2). A row with every value equal has no tau with anything: NaN there (the
    diagonal of such a row too), never a number.

    Parameters
    ----------
    x : numpy.ndarray, shape (..., S, T)

    Returns
    -------
    numpy.ndarray, shape (..., S, S)

    Examples
    --------
    >>> import numpy as np
    >>> kendall_tau(np.array([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]]))[0, 1]
    np.float64(-0.3333333333333333)
    """
    T = x.shape[-1]
    i, j = np.triu_indices(T, k=1)
    d = np.sign(x[..., j] - x[..., i]).astype(np.float32)  # exact: entries -1, 0, 1
    num = (d @ np.swapaxes(d, -1, -2)).astype(np.float64)      # exact below 2^24 pairs
    untied = np.abs(d).sum(axis=-1, dtype=np.float64)
    den = np.sqrt(untied[..., :, None] * untied[..., None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


@dataclass(frozen=True, eq=False)
class GaussianCopula:
    """A Gaussian copula: ``corr = factor @ factor.T`` (module docstring)."""

    corr: np.ndarray = field(repr=False)
    factor: np.ndarray = field(repr=False)
    projection: float = 0.0  # largest change of an implied tau made by the PSD projection

    kind = CopulaKind.gaussian

    @property
    def dim(self) -> int:
        return self.corr.shape[0]

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` draws, shape (n, S), uniform margins."""
        z = rng.standard_normal((n, self.factor.shape[1])) @ self.factor.T
        return special.ndtr(z)

    def taus(self) -> np.ndarray:
        r"""Kendall's tau of every pair of systems, :math:`\frac{2}{\pi}\arcsin\rho` (exact)."""
        return 2.0 / math.pi * np.arcsin(np.clip(self.corr, -1.0, 1.0))

    def describe(self) -> str:
        return (f"Gaussian copula (correlation of rank {self.factor.shape[1]}; "
                f"PSD projection moved taus by at most {self.projection:.3f})")

    def to_dict(self) -> dict:
        return {"copula": self.kind.value, "rank": int(self.factor.shape[1]),
                "projection": float(self.projection)}


@dataclass(frozen=True, eq=False)
class VineCopula:
    """A regular vine copula fitted by pyvinecopulib (module docstring)."""

    vine: object = field(repr=False)  # pyvinecopulib.Vinecop
    dim: int = 0

    kind = CopulaKind.vine

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` draws, shape (n, S): the inverse Rosenblatt transform of ``rng``'s uniforms."""
        w = np.asfortranarray(rng.random((n, self.dim)))
        return np.ascontiguousarray(self.vine.inverse_rosenblatt(w))

    def first_tree(self) -> list[tuple[int, int, float]]:
        """The pairs of systems the first tree joins, ``(i, j, tau)`` (0-based, tau of the
        fitted pair copula: for these pairs the vine's bivariate margin is that copula)."""
        M = np.asarray(self.vine.matrix, dtype=np.int64)
        d = self.dim
        return [(int(M[d - 1 - e, e]) - 1, int(M[0, e]) - 1, float(self.vine.get_tau(0, e)))
                for e in range(d - 1)]

    def describe(self) -> str:
        fams = [pc.family.name for tree in self.vine.pair_copulas for pc in tree]
        dep = sum(f != "indep" for f in fams)
        return (f"vine copula ({dep} of {len(fams)} pair copulas not independent, "
                f"{self.vine.npars:.0f} parameters)")

    def to_dict(self) -> dict:
        fams = [pc.family.name for tree in self.vine.pair_copulas for pc in tree]
        counts: dict[str, int] = {}
        for f in fams:
            counts[f] = counts.get(f, 0) + 1
        return {"copula": self.kind.value, "pair_copulas": counts,
                "parameters": float(self.vine.npars), "trees": int(self.vine.trunc_lvl)}


def _gaussian(u: np.ndarray) -> GaussianCopula:
    S = u.shape[1]
    tau = kendall_tau(u.T)
    r = np.sin(math.pi / 2.0 * tau)
    w, v = np.linalg.eigh((r + r.T) / 2.0)
    keep = w > 1e-12 * max(float(w.max()), 1.0)
    f = v[:, keep] * np.sqrt(w[keep])
    d = np.sqrt(np.maximum((f * f).sum(axis=1), 1e-300))
    f = f / d[:, None]
    corr = f @ f.T
    np.fill_diagonal(corr, 1.0)
    moved = float(np.max(np.abs(2.0 / math.pi * np.arcsin(np.clip(corr, -1, 1)) - tau))) \
        if S > 1 else 0.0
    return GaussianCopula(corr=corr, factor=f, projection=moved)


def _vine(u: np.ndarray) -> VineCopula:
    import pyvinecopulib as pv  # imported when a vine is asked for

    F = pv.BicopFamily
    controls = pv.FitControlsVinecop(
        family_set=[F.indep, F.gaussian, F.student, F.clayton, F.gumbel, F.frank, F.joe],
        selection_criterion="bic", num_threads=1)
    vine = pv.Vinecop.from_data(np.asfortranarray(u), controls=controls)
    return VineCopula(vine=vine, dim=u.shape[1])


_FIT = {CopulaKind.gaussian: _gaussian, CopulaKind.vine: _vine}


def fit_copula(u: np.ndarray, kind: CopulaKind | str = CopulaKind.gaussian):
    """Fit a copula of ``kind`` to pseudo-observations ``u`` (T topics x S systems).

    One system has no dependence to fit: its copula is the (one-dimensional) Gaussian
    whatever ``kind`` says.
    """
    try:
        kind = CopulaKind(kind)
    except ValueError:
        raise IRStabError(f"copula: expected one of {[k.value for k in CopulaKind]}, "
                          f"got {kind!r}") from None
    if u.shape[1] < 2:
        return _gaussian(u)
    return _FIT[kind](u)
