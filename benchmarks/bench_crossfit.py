"""Do cross-fitted differences predict held-out ones? The split study on TREC DL 2019.

    python benchmarks/bench_crossfit.py [--splits 20] [--folds 5] [--starts 4] [--seed 0]

The report judges an optimised configuration by its cross-fitted scores
(irstab.optimizer.crossfit): each topic scored by the configuration optimised on the
other folds. This checks that figure against what matters, topics the configuration
never saw. For every optimisation problem of the report (discount, gain and joint at
cutoffs 10, 20 and 100, and the minimax over them), against nDCG@10:

* **all topics**: the configuration optimised on all 43 topics, its in-sample difference
  in Phi (what the report showed before) and its cross-fitted difference (``--folds``
  folds; what the verdict reads now);
* **random half-splits** (``--splits``): optimised on one half (the report's settings,
  ``--starts`` random starts besides the presets), then its difference on that half (in
  sample) and on the other half (held out), each projected to 43 topics by the D-study
  (Phi at n = 43 from the half's components), and its cross-fitted difference within the
  optimisation half (projected likewise);
* whether the all-topics cross-fitted difference lies within 2 standard errors (sd over
  the splits / sqrt(splits)) of the mean held-out difference, and how the per-split
  cross-fitted figure tracks the held-out one (mean gap).

Prints one row per problem; ``--markdown`` prints the table for benchmarks/README.md.
Skips when the DL-2019 data are absent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"
KINDS = ("discount", "gain", "joint")
CUTOFFS = (10, 20, 100)


def _phi(x: np.ndarray, n: int) -> float:
    from irstab.stability.dstudy import crossed_phi

    return float(crossed_phi(x, n))


def _solve(coll, kind, topics, starts, seed):
    from irstab.optimizer import minimax, optimize
    from irstab.optimizer.scenario import Scenario

    if kind == "minimax":
        return minimax([Scenario(coll, k, topics=topics) for k in CUTOFFS], starts=starts,
                       seed=seed, strict=False)
    kind, k = kind
    return optimize(coll, k, vary=kind, topics=topics, starts=starts, seed=seed, strict=False)


def _scores(whole, res, k):
    """nDCG@k of every system and topic under the optimum's vectors."""
    return whole[k].ndcg(np.asarray(res.gain), np.asarray(res.discount)[:k])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--starts", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    if not (DATA / "qrels.txt").is_file():
        print(f"skipped: {DATA} not found")
        return 0
    import irstab
    from irstab.optimizer import cross_fit
    from irstab.optimizer.scenario import Scenario

    warnings.simplefilter("ignore")
    t_start, cpu_start = time.perf_counter(), time.process_time()
    coll = irstab.Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=max(CUTOFFS))
    T = coll.n_topics
    base = irstab.score_matrices(coll, ["nDCG@10"])["nDCG@10"].to_numpy()
    whole = {k: Scenario(coll, k) for k in CUTOFFS}
    problems = [(kind, k) for k in CUTOFFS for kind in KINDS] + ["minimax"]
    label = (lambda p: "minimax nDCG@10/20/100" if p == "minimax" else f"{p[0]} nDCG@{p[1]}")
    cut = (lambda p: 100 if p == "minimax" else p[1])  # the minimax row: its @100 configuration
    cfk = (lambda p: ("minimax", CUTOFFS) if p == "minimax" else (p[0], (p[1],)))
    rows = {}
    t_opt = t_cf = 0.0
    for p in problems:  # all topics
        t0 = time.perf_counter()
        res = _solve(coll, p, None, args.starts, args.seed)
        t1 = time.perf_counter()
        kind, ks = cfk(p)
        cf = cross_fit(coll, kind, ks, res, folds=args.folds, seed=args.seed)[cut(p)]
        t_cf += time.perf_counter() - t1
        t_opt += t1 - t0
        rows[p] = {"in_sample": _phi(_scores(whole, res, cut(p)), T) - _phi(base, T),
                   "cross_fitted": _phi(cf.scores, T) - _phi(base, T),
                   "opt": [], "held": [], "cf_half": []}
    rng = np.random.default_rng(args.seed)
    for s in range(args.splits):
        perm = rng.permutation(T)
        a, b = np.sort(perm[: T // 2 + T % 2]), np.sort(perm[T // 2 + T % 2:])
        for p in problems:
            res = _solve(coll, p, tuple(int(t) for t in a), args.starts, args.seed)
            x = _scores(whole, res, cut(p))
            r = rows[p]
            r["opt"].append(_phi(x[:, a], T) - _phi(base[:, a], T))
            r["held"].append(_phi(x[:, b], T) - _phi(base[:, b], T))
            kind, ks = cfk(p)
            cf = cross_fit(coll, kind, ks, res, folds=args.folds, seed=args.seed, topics=a)
            r["cf_half"].append(_phi(cf[cut(p)].scores, T) - _phi(base[:, a], T))
        print(f"split {s + 1}/{args.splits} done", file=sys.stderr, flush=True)
    wall, cpu = time.perf_counter() - t_start, time.process_time() - cpu_start
    head = ("| configuration | in sample, 43 topics | cross-fitted, 43 topics | optimisation half "
            "| held-out half (mean ± se) | held-out > 0 | cross-fitted within half | "
            "within 2 se |\n|---|---:|---:|---:|---:|---:|---:|---|")
    lines = [head]
    for p in problems:
        r = rows[p]
        held = np.array(r["held"])
        se = held.std(ddof=1) / np.sqrt(len(held))
        ok = abs(r["cross_fitted"] - held.mean()) <= 2 * se
        lines.append(
            f"| {label(p)} | {r['in_sample']:+.4f} | {r['cross_fitted']:+.4f} | "
            f"{np.mean(r['opt']):+.4f} | {held.mean():+.4f} ± {se:.4f} | "
            f"{int((held > 0).sum())} of {len(held)} | {np.mean(r['cf_half']):+.4f} | "
            f"{'yes' if ok else 'no'} |")
    print("\n".join(lines))
    load = os.getloadavg()
    print(f"\n{args.splits} splits, {args.folds} folds, {args.starts} random starts; "
          f"all-topics optimisation {t_opt:.1f} s, its cross-fitting {t_cf:.1f} s "
          f"({t_cf / max(t_opt, 1e-9):.2f} x); whole run {wall:.0f} s wall, {cpu:.0f} s CPU; "
          f"load average {load[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
