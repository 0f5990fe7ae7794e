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

``--outer B`` also asks how far the card's number moves between collections like the user's,
which its Monte-Carlo error does not include: each part is resampled B times (systems and
topics with replacement, at its own size) and the card computed on each resample (``--inner``
collections each); the spread of those B cards, less their Monte-Carlo variance, estimates the
card's sampling error (the bootstrap principle: the part stands for the population as the
population stood for the part). The table then also counts the parts within 3 errors with
that spread added. It is a check, not what ``irstab calibrate`` reports.
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
    ap.add_argument("--card", type=int, default=200,
                    help="collections of the card on each part (irstab calibrate: 200)")
    ap.add_argument("--outer", type=int, default=0,
                    help="bootstrap resamples of each part for the card's sampling error")
    ap.add_argument("--inner", type=int, default=200,
                    help="collections of the card on each bootstrap resample")
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
    spread = {c: [] for c in cands}
    for _ in range(args.subsets):
        si, ti = rng.choice(N_s, S, replace=False), rng.choice(N_t, T, replace=False)
        x = base[np.ix_(si, ti)]
        part = {c: sc[c][np.ix_(si, ti)] for c in cands}
        for check in _candidate_checks(x, part, T, args.card, 0.95, rng, None):
            d = check.to_dict()
            got[check.measure].append((d["coverage"], d["coverage_se"]))
        if args.outer:
            for c, sd in _bootstrap_spread(x, part, T, args, rng, _candidate_checks).items():
                spread[c].append(sd)
    extra = " | card's sampling error (bootstrap), median | within 3 errors, it added" \
        if args.outer else ""
    print(f"\n| candidate | population coverage | the card on each part | mean | between-part sd "
          f"| within 3 errors{extra} |")
    print("|---|---|---|---|---|---|" + ("---|---|" if args.outer else ""))
    for c in cands:
        cov = np.array([a for a, _ in got[c]])
        se = np.array([b for _, b in got[c]])
        z = (cov - pop[c][0]) / np.sqrt(se ** 2 + pop[c][1] ** 2)
        between = math.sqrt(max(cov.var(ddof=1) - float(np.mean(se ** 2)), 0.0))
        row = (f"| {c} | {pop[c][0]:.3f} ± {pop[c][1]:.3f} | "
               f"{', '.join(f'{v:.3f}' for v in cov)} | {cov.mean():.3f} | {between:.3f} | "
               f"{int((np.abs(z) <= 3).sum())}/{len(z)} |")
        if args.outer:
            sd = np.array(spread[c])
            zb = (cov - pop[c][0]) / np.sqrt(se ** 2 + sd ** 2 + pop[c][1] ** 2)
            row += f" {np.median(sd):.3f} | {int((np.abs(zb) <= 3).sum())}/{len(zb)} |"
        print(row)
    print(f"\n# {time.process_time() - c0:.1f} CPU s")


def _bootstrap_spread(x, part, T, args, rng, checks) -> dict:
    """Per candidate: the sd of the card over ``args.outer`` bootstrap resamples of the part
    (systems and topics with replacement), less the cards' mean Monte-Carlo variance."""
    S = x.shape[0]
    cards: dict = {c: [] for c in part}
    for _ in range(args.outer):
        s, t = rng.integers(0, S, S), rng.integers(0, x.shape[1], x.shape[1])
        resampled = {c: y[np.ix_(s, t)] for c, y in part.items()}
        for check in checks(x[np.ix_(s, t)], resampled, T, args.inner, 0.95, rng, None):
            cards[check.measure].append(check.to_dict()["coverage"])
    out = {}
    for c, v in cards.items():
        v = np.array(v)
        out[c] = math.sqrt(max(v.var(ddof=1) - float(np.mean(v * (1 - v))) / args.inner, 0.0))
    return out


if __name__ == "__main__":
    main()
