"""Does the card's per-candidate coverage say what happens in collections like the user's?

    python benchmarks/bench_card_candidates.py [--subsets 12] [--size 20 25] [--collection web2010]

The card (``irstab calibrate -c``) measures a candidate's coverage in the user's collection's
own universe: its systems and topics resampled. Here the user's collection is a random
``S x T`` part of TREC DL 2019 (37 runs x 43 topics, ../shared/data, scored in place), drawn
without replacement, ``--subsets`` times; what the card says (200 collections each, as
``irstab calibrate``) is set against the coverage of the same interval in collections of
that size drawn from the whole of DL-2019 (1000 collections), the population the part came
from. Per candidate: the population's coverage, the card's coverage on each part, their
mean, their sd between parts (less the Monte-Carlo variance, as
:func:`irstab.trust.result.between_collections_sd` takes it), and in how many parts the two
agree within 3 Monte-Carlo errors (the card's and the population's, combined). Seeds are
fixed.

The card also says how far its coverage moves between collections like the user's, which
its Monte-Carlo error does not include (``coverage_sampling_se``,
``irstab calibrate --sampling-resamples``, default 10): each part is resampled (systems and
topics with replacement, at its own size) and the coverage measured again on each resample
(half the card's collections each); the spread of those, less their Monte-Carlo variance, is
that error (the bootstrap principle: the part stands for the population as the population
stood for the part). The table also counts the parts within 3 errors with it added.
``--sampling 0`` leaves it out.
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
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
MEASURES = ("nDCG@10", "nDCG@100", "nDCG(gain=exp)@10", "nDCG(discount=zipf)@10", "AP")
URBANO = REPO / "data" / "sigir2019-statistical"
URBANO_MEASURES = {"adhoc": ("ap", "p10", "rr"), "web": ("ndcg20", "err20")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--collection", default="dl2019",
                    choices=["dl2019", *(f"adhoc{k}" for k in (5, 6, 7, 8)),
                             *(f"web{k}" for k in (2010, 2011, 2012, 2013))],
                    help="DL-2019 (scored in place) or one of Urbano, Lima & Hanjalic's score "
                    "matrices (SIGIR 2019; data/sigir2019-statistical): TREC 5-8 ad hoc AP "
                    "with P@10 and RR as candidates, TREC Web 2010-2013 nDCG@20 with ERR@20")
    ap.add_argument("--subsets", type=int, default=12)
    ap.add_argument("--size", type=int, nargs=2, default=(20, 25))
    ap.add_argument("--card", type=int, default=200,
                    help="collections of the card on each part (irstab calibrate: 200)")
    ap.add_argument("--sampling", type=int, default=10,
                    help="bootstrap resamples of each part for the card's error between "
                    "collections (irstab calibrate --sampling-resamples: 10)")
    ap.add_argument("--sampling-replicates", type=int, default=None,
                    help="collections on each resample (irstab calibrate: half the card's)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import irstab
    from irstab.trust.checks import _candidate_checks
    from irstab.trust.result import between_collections_sd
    from irstab.verdict.calibration import calibrate
    from irstab.verdict.universes import resampled_universe

    if args.collection == "dl2019":
        coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
        sc = {k: v.to_numpy() for k, v in irstab.score_matrices(coll, list(MEASURES)).items()}
        names, label = list(MEASURES), "DL-2019"
    else:  # Urbano, Lima & Hanjalic's matrices: the measures of one TREC track side by side
        names = list(URBANO_MEASURES[args.collection.rstrip("0123456789")])
        sc = {m: pd.read_csv(URBANO / f"{args.collection}_{m}.csv", index_col=0).to_numpy(float)
              for m in names}
        label = f"TREC {args.collection}"
    base, cands = sc[names[0]], names[1:]
    (S, T), (N_s, N_t) = args.size, base.shape
    rng = np.random.default_rng(45)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d')}; baseline {names[0]}, "
          f"parts of {S} x {T} from {label}'s {N_s} x {N_t}")
    c0 = time.process_time()
    pop = {}
    for c in cands:
        u = resampled_universe("population", {"b": base, c: sc[c]}, "b", S, T)
        cov = float(calibrate(u, n_replicates=1000, seed=rng).coverage[0])
        pop[c] = (cov, math.sqrt(cov * (1 - cov) / 1000))
    got = {c: [] for c in cands}
    spread = {c: [] for c in cands}
    for _ in range(args.subsets):
        si, ti = rng.choice(N_s, S, replace=False), rng.choice(N_t, T, replace=False)
        x = base[np.ix_(si, ti)]
        part = {c: sc[c][np.ix_(si, ti)] for c in cands}
        for check in _candidate_checks(x, part, T, args.card, 0.95, rng, None, args.sampling,
                                       args.sampling_replicates or max(2, args.card // 2)):
            d = check.to_dict()
            got[check.measure].append((d["coverage"], d["coverage_se"]))
            spread[check.measure].append(d["coverage_sampling_se"] or 0.0)
    extra = " | the card's error between collections, median | within 3 errors, it added" \
        if args.sampling > 1 else ""
    print(f"\n| candidate | population coverage | the card on each part | mean | between-part sd "
          f"| within 3 errors{extra} |")
    print("|---|---|---|---|---|---|" + ("---|---|" if args.sampling > 1 else ""))
    for c in cands:
        cov = np.array([a for a, _ in got[c]])
        se = np.array([b for _, b in got[c]])
        z = (cov - pop[c][0]) / np.sqrt(se ** 2 + pop[c][1] ** 2)
        between = between_collections_sd(cov, args.card)  # less the Monte-Carlo variance
        row = (f"| {c} | {pop[c][0]:.3f} ± {pop[c][1]:.3f} | "
               f"{', '.join(f'{v:.3f}' for v in cov)} | {cov.mean():.3f} | {between:.3f} | "
               f"{int((np.abs(z) <= 3).sum())}/{len(z)} |")
        if args.sampling > 1:
            sd = np.array(spread[c])
            zb = (cov - pop[c][0]) / np.sqrt(se ** 2 + sd ** 2 + pop[c][1] ** 2)
            row += f" {np.median(sd):.3f} | {int((np.abs(zb) <= 3).sum())}/{len(zb)} |"
        print(row)
    print(f"\n# {time.process_time() - c0:.1f} CPU s")


if __name__ == "__main__":
    main()
