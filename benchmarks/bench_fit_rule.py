"""When does the simulator fail its split-half fit check? Three rules on real and simulated data.

    python benchmarks/bench_fit_rule.py [--null 40] [--splits 8] [--only NAME ...]

The statistic is the card's: ``k``, the systems whose held-out topics' mean lies outside the
central 95 % of the simulated means (:func:`irstab.simulate.fit_check`, 300 collections). The
rules, each at level 0.01:

* ``binomial 5 %``: a one-sided binomial test of ``k`` out of ``S`` against 5 %;
* ``binomial 17 %``: the same against the share a correct model fitted on half the topics
  leaves outside, :math:`1 - (2\\Phi(1.96/\\sqrt 2) - 1) = 0.166`;
* ``irstab``: :func:`irstab.trust.checks.judge_fit`, ``k`` against the counts of a correct
  model's splits (Monte-Carlo, 1000 of them), which keep the systems' dependence.

Two tables. **Correct models**: ``--null`` collections drawn from the model fitted to each
collection (so the model is right by construction), each checked as the card checks it; the
share each rule calls a failure is its false-alarm rate (the level, 0.01, if it is right).
**Real collections**: each collection checked on ``--splits`` random splits of its topics;
how many splits each rule calls a failure. Data: TREC DL 2019 nDCG@10 (../shared/data), the
TREC-3 ad hoc AP matrix and the 20 matrices of Urbano, Lima & Hanjalic (SIGIR 2019) in
data/. Seeds are fixed.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import binom

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
NULL_SETS = ("DL-2019 nDCG@10", "TREC-3 AP", "web2013_ndcg20", "adhoc5_p10")
LEVEL = 0.01
P_CORRECT = 0.166  # 1 - (2 Phi(1.96 / sqrt 2) - 1)


def collections() -> dict[str, np.ndarray]:
    import irstab

    out = {}
    if (DL / "qrels.txt").is_file():
        coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
        out["DL-2019 nDCG@10"] = irstab.score_matrix(coll, "nDCG@10").to_numpy()
    out["TREC-3 AP"] = irstab.read_score_matrix(REPO / "data" / "trec3-adhoc" / "AP.csv").to_numpy()
    for path in sorted((REPO / "data" / "sigir2019-statistical").glob("*.csv")):
        out[path.stem] = irstab.read_score_matrix(path).to_numpy()
    return out


def rules(x: np.ndarray, rng) -> tuple[int, int, dict[str, bool]]:
    from irstab.simulate import fit_check
    from irstab.trust.checks import judge_fit

    fc = fit_check(x, n_collections=300, n_reference=0, seed=rng)
    j = judge_fit(fc, rng)
    k, S = j.outside, j.compared
    return k, S, {"binomial 5 %": binom.sf(k - 1, S, 0.05) < LEVEL,
                  "binomial 17 %": binom.sf(k - 1, S, P_CORRECT) < LEVEL,
                  "irstab": j.fails}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--null", type=int, default=40)
    ap.add_argument("--splits", type=int, default=8)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    from irstab.simulate import fit_collection

    data = collections()
    if args.only:
        data = {k: v for k, v in data.items() if k in args.only}
    names = ("binomial 5 %", "binomial 17 %", "irstab")
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d')}")
    print(f"\nCorrect models ({args.null} collections drawn from each fitted model):\n")
    print("| collection | systems x topics | outside: median (max) | "
          + " | ".join(f"{n} false alarms" for n in names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for name in NULL_SETS:
        if name not in data:
            continue
        x = data[name]
        rng = np.random.default_rng(7)
        model = fit_collection(x, seed=rng)
        ks, fired = [], {n: 0 for n in names}
        for _ in range(args.null):
            k, S, verdicts = rules(model.draw(1, x.shape[1], rng)[0], rng)
            ks.append(k)
            for n in names:
                fired[n] += verdicts[n]
        print(f"| {name} | {x.shape[0]} x {x.shape[1]} | {int(np.median(ks))} ({max(ks)}) | "
              + " | ".join(f"{fired[n]}/{args.null}" for n in names) + " |", flush=True)
    print(f"\nReal collections ({args.splits} random splits each; splits called failures):\n")
    print("| collection | systems x topics | outside per split | "
          + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for name, x in data.items():
        ks, fired = [], {n: 0 for n in names}
        for seed in range(args.splits):
            k, S, verdicts = rules(x, np.random.default_rng(seed))
            ks.append(k)
            for n in names:
                fired[n] += verdicts[n]
        print(f"| {name} | {x.shape[0]} x {x.shape[1]} | {', '.join(map(str, ks))} | "
              + " | ".join(f"{fired[n]}/{args.splits}" for n in names) + " |", flush=True)


if __name__ == "__main__":
    main()
