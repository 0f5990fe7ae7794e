"""Does the card's per-candidate coverage say what happens in collections like the user's?

    python benchmarks/bench_card_candidates.py [--subsets 12] [--size 20 25]

The card (``irstab calibrate -c``) measures a candidate's coverage in the user's collection's
own universe: its systems and topics resampled. Here the user's collection is a random
``S x T`` part of TREC DL 2019 (37 runs x 43 topics, ../shared/data, scored in place), drawn
without replacement, ``--subsets`` times; what the card says (200 collections each, as
``irstab calibrate``) is set against the coverage of the same interval in collections of
that size drawn from the whole of DL-2019 (1000 collections), the population the part came
from. Per candidate: the population's coverage, the card's coverage on each part, their
mean, and in how many parts the two agree within 3 Monte-Carlo errors (the card's and the
population's, combined). Seeds are fixed.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
MEASURES = ("nDCG@10", "nDCG@100", "nDCG(gain=exp)@10", "nDCG(discount=zipf)@10", "AP")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--subsets", type=int, default=12)
    ap.add_argument("--size", type=int, nargs=2, default=(20, 25))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import irstab
    from irstab.trust.checks import _candidate_checks
    from irstab.verdict.calibration import calibrate
    from irstab.verdict.universes import resampled_universe

    coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
    sc = {k: v.to_numpy() for k, v in irstab.score_matrices(coll, list(MEASURES)).items()}
    base, cands = sc[MEASURES[0]], MEASURES[1:]
    (S, T), (N_s, N_t) = args.size, base.shape
    rng = np.random.default_rng(45)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d')}; baseline nDCG@10, "
          f"parts of {S} x {T} from DL-2019's {N_s} x {N_t}")
    c0 = time.process_time()
    pop = {}
    for c in cands:
        u = resampled_universe("population", {"b": base, c: sc[c]}, "b", S, T)
        cov = float(calibrate(u, n_replicates=1000, seed=rng).coverage[0])
        pop[c] = (cov, math.sqrt(cov * (1 - cov) / 1000))
    got = {c: [] for c in cands}
    for _ in range(args.subsets):
        si, ti = rng.choice(N_s, S, replace=False), rng.choice(N_t, T, replace=False)
        part = {c: sc[c][np.ix_(si, ti)] for c in cands}
        for check in _candidate_checks(base[np.ix_(si, ti)], part, T, 200, 0.95, rng, None):
            d = check.to_dict()
            got[check.measure].append((d["coverage"], d["coverage_se"]))
    print("\n| candidate | population coverage | the card on each part | mean | within 3 errors |")
    print("|---|---|---|---|---|")
    for c in cands:
        cov = np.array([a for a, _ in got[c]])
        se = np.array([b for _, b in got[c]])
        z = (cov - pop[c][0]) / np.sqrt(se ** 2 + pop[c][1] ** 2)
        print(f"| {c} | {pop[c][0]:.3f} ± {pop[c][1]:.3f} | "
              f"{', '.join(f'{v:.3f}' for v in cov)} | {cov.mean():.3f} | "
              f"{int((np.abs(z) <= 3).sum())}/{len(z)} |")
    print(f"\n# {time.process_time() - c0:.1f} CPU s")


if __name__ == "__main__":
    main()
