"""The simulator of a collection on TREC DL 2019 nDCG@10 (37 systems x 43 topics).

    python benchmarks/bench_simulator.py [--repeat 3] [--collections 1000]

The score matrix is computed once and not timed. Then, in the same process, best of
``--repeat`` runs, CPU seconds of this process (``time.process_time``: what the work
costs, whatever else the shared machine is doing) and wall seconds:

- fit: :func:`irstab.simulate.fit_collection` with the Gaussian and the vine copula,
  :func:`irstab.simulate.fit_gtheory`;
- draw: ``--collections`` collections of 43 topics from each (one call, shape (R, 37, 43));
- peer draw: the same Gaussian-copula draws with each system's quantiles taken one system
  at a time from scipy.stats' own ``ppf`` of its fitted beta or truncated normal (the
  direct way to write it; kernel margins through irstab's tabulated quantile), against
  irstab's one vectorised pass over the tabulated margins;
- the split-half fit check with its defaults (1000 collections, 10 reference refits).

Without the DL-2019 data, a simulated 37 x 43 matrix is used.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
from scipy import stats

from irstab.simulate import fit_check, fit_collection, fit_gtheory
from irstab.simulate.margins import stack_quantiles

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"


def scores():
    if (DL / "qrels.txt").is_file():
        import irstab

        coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
        return irstab.score_matrix(coll, "nDCG@10"), "DL-2019 nDCG@10"
    rng = np.random.default_rng(0)
    x = np.clip(rng.beta(4, 3, (37, 1)) + rng.normal(0, 0.2, (1, 43))
                + rng.normal(0, 0.15, (37, 43)), 0, 1)
    return x, "simulated 37 x 43"


def best(fn, repeat):
    cpu, wall, out = [], [], None
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        out = fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall), out


def peer_quantiles(margins, u):
    out = np.empty_like(u)
    for s, m in enumerate(margins):  # one system at a time, scipy's ppf
        p = dict(m.params)
        lo, hi = p.get("p_lo", 0.0), p.get("p_hi", 0.0)
        q = np.clip((u[:, s] - lo) / (1.0 - lo - hi), 0.0, 1.0)
        if m.family == "beta":
            v = stats.beta.ppf(q, p["a"], p["b"])
        elif m.family == "truncnorm":
            mu, sd = p["mu"], p["sigma"]
            v = stats.truncnorm.ppf(q, -mu / sd, (1 - mu) / sd, loc=mu, scale=sd)
        else:
            v = m.ppf(u[:, s])
            out[:, s] = v
            continue
        out[:, s] = np.where(u[:, s] <= lo, 0.0, np.where(u[:, s] > 1.0 - hi, 1.0, v))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--collections", type=int, default=1000)
    args = ap.parse_args()
    x, name = scores()
    R, T = args.collections, 43
    print(f"# {name}; {platform.processor() or platform.machine()}, "
          f"{time.strftime('%Y-%m-%d')}; best of {args.repeat}; CPU s / wall s")
    rows = []
    for copula in ("gaussian", "vine"):
        c, w, model = best(lambda: fit_collection(x, copula=copula), args.repeat)
        rows.append((f"fit, {copula} copula", c, w))
        c, w, _ = best(lambda: model.draw(R, T, rng=1), args.repeat)
        rows.append((f"draw {R} x 37 x {T}, {copula} copula", c, w))
        if copula == "gaussian":
            u = model.copula.draw(R * T, np.random.default_rng(1))
            c, w, ours = best(lambda: stack_quantiles(model.margins, u), args.repeat)
            rows.append((f"  quantiles of {R * T} topics: irstab, one pass", c, w))
            c2, w2, theirs = best(lambda: peer_quantiles(model.margins, u), args.repeat)
            rows.append((f"  quantiles: peer, scipy ppf per system ({c2 / c:.1f}x irstab CPU)",
                         c2, w2))
            print(f"# the two quantile paths differ by at most {np.max(np.abs(ours - theirs)):.1e}")
    c, w, gt = best(lambda: fit_gtheory(x), args.repeat)
    rows.append(("fit, G-theory model", c, w))
    c, w, _ = best(lambda: gt.draw(R, T, rng=1), args.repeat)
    rows.append((f"draw {R} x 37 x {T}, G-theory model", c, w))
    c, w, chk = best(lambda: fit_check(x, seed=0), 1)
    rows.append(("fit check (1000 collections, 10 reference refits)", c, w))
    for label, c, w in rows:
        print(f"{label:<62} {c:7.2f} {w:7.2f}")
    print(f"# {chk.summary()}")


if __name__ == "__main__":
    main()
