"""Few gold topics: which PPI interval covers the full-gold value (docs/judges-ppi.md).

    python benchmarks/bench_ppi_rules.py [--reps 1000] [--markdown]

The ``topics`` estimand (the full-gold mean of a collection's topics; gold topics a simple
random sample without replacement) at 10 %, 20 % and 50 % gold topics, for the interval rules
tried while choosing the shipped one. Three kinds of universes:

- **DL-2019** (chosen on): NIST's qrels as gold, the five re-annotation judges of
  ``bench_ppi.py`` as cheap (37 runs and 20 random pairs, 43 topics);
- **eight TREC measure pairs** (not chosen on): the score matrices of Urbano, Lima & Hanjalic
  (SIGIR 2019; ``data/sigir2019-statistical``), one measure as gold and a correlated one as
  cheap on the same systems and topics: TREC 5-8 ad hoc AP (gold) with P@10 (cheap), TREC Web
  2010-2013 nDCG@20 with ERR@20; 37 random runs and 20 random pairs each;
- **normal models** (not chosen on): gold and cheap correlated normals (rho 0.5, 0.8) and cheap
  noise from Student's t with 5 df, 60 topics.

Rules (``d`` = 1 for PPI, 2 for PPI++; all use the finite-population variance):

- ``ppi++ slope, t``: lambda the least-squares slope on the gold topics, t with n - 2 df
  (irstab before this study);
- ``ppi++, t``: lambda = Cov on the gold topics / Var of the cheap scores on all topics;
- ``ppi++, t cap 6``: the same with at most 6 df;
- ``ppi++ (shipped)``, ``ppi (shipped)``: ``irstab.judges.ppi.ppi_interval``: Satterthwaite's
  df with the rectifiers' pooled, bias-corrected kurtosis times 3; PPI++'s lambda tuned from
  10 gold topics on, fixed at 1/2 below;
- ``ppi++ tuned at every n``: the shipped PPI++ with lambda tuned whatever the number of gold
  topics (irstab's PPI++ before the fixed 1/2);
- ``ppi++, variance n - 1``, ``ppi++, df base n - 1``, ``ppi++, lambda as if known``: that
  always-tuned PPI++ with one or both of its charges for the tuned lambda removed (the
  rectifier's variance divided by n - 1 instead of n - 2; the kurtosis df built on n - 1
  instead of n - 2): what the second degree of freedom costs at 4 gold topics;
- ``lambda 1/2 at every n``, ``lambda 0.7 at every n``: a lambda fixed beforehand (the
  difference estimator, Cochran 1977, §7.2) with the shipped kurtosis df on n - 1;
- ``ppi, t``: lambda = 1, t with n - 1 df; ``gold, t``: the gold-only interval.

Printed per universe kind, rule and gold fraction: the smallest and largest coverage over the
universes of that kind (runs and pairs separately), and the median width ratio to gold only.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from irstab.errors import IRStabWarning

ROOT = Path(__file__).resolve().parents[1]
URBANO = ROOT / "data" / "sigir2019-statistical"


def _targets(G, C, runs, rng, n_pairs=20):
    S = len(G)
    allp = [(a, b) for a in range(S) for b in range(a + 1, S)]
    pick = rng.choice(len(allp), n_pairs, replace=False)
    i, j = np.array([allp[p] for p in pick]).T
    return np.vstack([G[runs], G[i] - G[j]]), np.vstack([C[runs], C[i] - C[j]]), len(runs)


def dl2019(reps_seed=0):
    import bench_ppi as B

    from irstab.io import read_runs

    nist = B.read_frame(B.DL / "qrels.txt")
    topics = sorted(set(nist.loc[nist["grade"] > 0, "topic"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        runs = read_runs(B.DL / "runs")
    sets, _ = B.judges(nist, topics)
    G = B.scores(nist, runs, "nDCG@10", topics).to_numpy()
    for name in ("first+nist", "second+nist", "first-only", "second-only",
                 "sean-macavaney+nist"):
        gold = B.scores(nist, runs, "nDCG@10", topics)
        C = B.scores(sets[name], runs, "nDCG@10", topics).loc[gold.index].to_numpy()
        yield f"dl2019 {name}", *_targets(G, C, np.arange(len(G)), np.random.default_rng(0))


def measure_pairs():
    pairs = ([(f"adhoc{k}_ap", f"adhoc{k}_p10") for k in (5, 6, 7, 8)]
             + [(f"web{k}_ndcg20", f"web{k}_err20") for k in (2010, 2011, 2012, 2013)])
    for g, c in pairs:
        G = pd.read_csv(URBANO / f"{g}.csv", index_col=0).to_numpy(float)
        C = pd.read_csv(URBANO / f"{c}.csv", index_col=0).to_numpy(float)
        rng = np.random.default_rng(1)
        runs = rng.choice(len(G), min(len(G), 37), replace=False)
        yield f"{g} / {c.split('_')[1]}", *_targets(G, C, runs, rng)


def normal_models():
    rng = np.random.default_rng(5)
    for rho in (0.5, 0.8):
        y = rng.normal(size=(57, 60))
        yield f"normal rho {rho}", y, rho * y + np.sqrt(1 - rho ** 2) * rng.normal(size=(57, 60)), 37
    y = rng.normal(size=(57, 60))
    yield "t5 noise", y, 0.8 * y + 0.6 * rng.standard_t(5, size=(57, 60)), 37


def _own(Y, F, f_all, lam, N, cap=None):
    """Alternative rules, vectorised over (reps, targets, n)."""
    n = Y.shape[-1]
    fc = F - F.mean(-1, keepdims=True)
    yc = Y - Y.mean(-1, keepdims=True)
    if lam == "slope":
        var = (fc * fc).sum(-1)
        L = np.where(var > 1e-20, (fc * yc).sum(-1) / np.where(var > 1e-20, var, 1), 0.0)
        d = 2
    elif lam == "pop":
        vf = f_all.var(1, ddof=1)[None, :] * (n - 1)
        L = np.where(vf > 1e-20, (fc * yc).sum(-1) / np.where(vf > 1e-20, vf, 1), 0.0)
        d = 2
    else:
        L = np.full(Y.shape[:2], float(lam))
        d = 1
    A = Y - L[..., None] * F
    est = A.mean(-1) + L * f_all.mean(1)[None, :]
    se = np.sqrt((1 / n - 1 / N) * A.var(-1, ddof=d))
    q = stats.t.ppf(0.975, n - d if cap is None else min(n - d, cap))
    return est, q * se


def _kurtosis_df(Y, F, f_all, N, var_ddof, df_ddof):
    """PPI++ with the shipped kurtosis degrees of freedom, its two small-sample charges for
    the tuned lambda (the variance's divisor ``n - var_ddof``, the df's base ``n - df_ddof``;
    the shipped rule takes 2 and 2) set apart."""
    from irstab.judges.ppi import _rectifier_df, tuned_lambda

    reps, k, n = Y.shape
    y, f = Y.reshape(reps * k, n), F.reshape(reps * k, n)
    fa = np.tile(f_all, (reps, 1))
    lam = tuned_lambda(y, f, fa)
    a = y - lam[:, None] * f
    est = a.mean(1) + lam * fa.mean(1)
    se = np.sqrt((1 / n - 1 / N) * a.var(1, ddof=var_ddof))
    df = _rectifier_df(a, lam, n - df_ddof, np.repeat(np.arange(reps), k))
    return est.reshape(reps, k), (stats.t.ppf(0.975, df) * se).reshape(reps, k)


def _shipped(Y, F, f_all, lam):
    from irstab.judges.ppi import ppi_interval

    reps, k, n = Y.shape
    r = ppi_interval(Y.reshape(reps * k, n), F.reshape(reps * k, n), np.tile(f_all, (reps, 1)),
                     lam=lam, estimand="topics", groups=np.repeat(np.arange(reps), k))
    return r.estimate.reshape(reps, k), (r.upper - r.estimate).reshape(reps, k)


RULES = {
    "ppi++ slope, t": lambda Y, F, fa, N: _own(Y, F, fa, "slope", N),
    "ppi++, t": lambda Y, F, fa, N: _own(Y, F, fa, "pop", N),
    "ppi++, t cap 6": lambda Y, F, fa, N: _own(Y, F, fa, "pop", N, cap=6),
    "ppi++ (shipped)": lambda Y, F, fa, N: _shipped(Y, F, fa, "tuned"),
    "ppi++ tuned at every n": lambda Y, F, fa, N: _kurtosis_df(Y, F, fa, N, 2, 2),
    "ppi++, variance n - 1": lambda Y, F, fa, N: _kurtosis_df(Y, F, fa, N, 1, 2),
    "ppi++, df base n - 1": lambda Y, F, fa, N: _kurtosis_df(Y, F, fa, N, 2, 1),
    "ppi++, lambda as if known": lambda Y, F, fa, N: _kurtosis_df(Y, F, fa, N, 1, 1),
    "lambda 1/2 at every n": lambda Y, F, fa, N: _shipped(Y, F, fa, 0.5),
    "lambda 0.7 at every n": lambda Y, F, fa, N: _shipped(Y, F, fa, 0.7),
    "ppi, t": lambda Y, F, fa, N: _own(Y, F, fa, 1.0, N),
    "ppi (shipped)": lambda Y, F, fa, N: _shipped(Y, F, fa, 1.0),
    "gold, t": lambda Y, F, fa, N: _own(Y, F, fa, 0.0, N),
}


def simulate(kind, universes, reps):
    rows = []
    for name, y_all, f_all, S in universes:
        N = y_all.shape[1]
        truth = y_all.mean(1)
        for frac in (0.1, 0.2, 0.5):
            n = max(3, int(round(frac * N)))
            rng = np.random.default_rng([0, n])
            gold = np.argsort(rng.random((reps, N)), axis=1)[:, :n]
            Y = y_all[:, gold].transpose(1, 0, 2)
            F = f_all[:, gold].transpose(1, 0, 2)
            half_gold = None
            for rule, fn in RULES.items():
                est, half = fn(Y, F, f_all, N)
                cov = np.abs(est - truth[None]) <= half + 1e-15
                if rule == "gold, t":
                    half_gold = half
                rows.append(dict(kind=kind, universe=name, gold=f"{frac:.0%}", rule=rule,
                                 runs=cov[:, :S].mean(), pairs=cov[:, S:].mean(), half=half))
            for r in rows[-len(RULES):]:
                ok = half_gold > 0
                r["width"] = float(np.median(r.pop("half")[ok] / half_gold[ok]))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = []
    for kind, gen in (("DL-2019 (chosen on)", dl2019), ("8 TREC measure pairs", measure_pairs),
                      ("normal models", normal_models)):
        rows += simulate(kind, list(gen()), args.reps)
    df = pd.DataFrame(rows)
    out = (df.groupby(["kind", "rule", "gold"], sort=False)
             .agg(runs_min=("runs", "min"), runs_max=("runs", "max"),
                  pairs_min=("pairs", "min"), pairs_max=("pairs", "max"),
                  width=("width", "median")).reset_index())
    if args.markdown:
        cols = list(out.columns)
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for r in out.itertuples(index=False):
            print("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r) + " |")
    else:
        with pd.option_context("display.width", 200, "display.max_rows", 500):
            print(out.round(3).to_string(index=False))
    print(f"# {args.reps} gold subsets per universe and fraction; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
