"""Discriminative power and the other measure comparisons on TREC DL 2019 (37 systems x 43 topics).

    python benchmarks/bench_compare.py [--repeat 5] [--bootstrap 1000]

Evaluation (reading the runs, computing the score matrices) happens once and is
not timed. Then, in the same process, best of ``--repeat`` wall-clock times per
measure for all 666 pairs x B bootstrap samples x 43 topics:

- irstab ``discriminative_power`` (target: < 1 s per measure);
- peer 1: a loop over pairs, each pair vectorised over the B samples
  (``w[samples]``, a (B, T) gather per pair), on the same samples;
- peer 2: Sakai's algorithm as written, a Python loop over pairs and samples,
  timed on 20 pairs and scaled to 666 (checked equal on those pairs).

and, for the record, randomised Tukey HSD (1000 trials), swap rates (1000
splits), Holm-corrected paired t-tests, rank correlations and the whole
``compare_measures`` of 3 measures. Without the data it exits with a message.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import irstab
from irstab.compare import (
    compare_measures,
    discriminative_power,
    paired_t_tests,
    randomised_tukey_hsd,
    rank_correlation,
    swap_rates,
)
from irstab.errors import IRStabWarning

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"
MEASURES = ["nDCG@10", "nDCG(discount=zipf)@10", "AP"]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def per_pair_loop(x, samples):
    """Peer 1: for each pair, the (B, T) matrix of drawn differences, then t* per sample."""
    S, T = x.shape
    out = []
    for i in range(S):
        for j in range(i + 1, S):
            z = x[i] - x[j]
            sd = z.std(ddof=1)
            if sd == 0:  # identical runs: irstab's documented ASL 1, not compared
                out.append(np.nan)
                continue
            t_obs = abs(z.mean()) / (sd / math.sqrt(T))
            w = z - z.mean()
            wb = w[samples]
            with np.errstate(divide="ignore", invalid="ignore"):  # samples of equal differences
                t = wb.mean(axis=1) / (wb.std(axis=1, ddof=1) / math.sqrt(T))
            out.append(np.mean(np.abs(t) >= t_obs * (1 - 1e-10)))
    return np.array(out)


def sakai_loop(x, samples, n_pairs):
    """Peer 2: one pair and one sample at a time, for the first ``n_pairs`` pairs."""
    S, T = x.shape
    out = []
    for i in range(S):
        for j in range(i + 1, S):
            if len(out) == n_pairs:
                return np.array(out)
            z = x[i] - x[j]
            if z.std() == 0:
                out.append(np.nan)
                continue
            t_obs = abs(z.mean()) / (z.std(ddof=1) / math.sqrt(T))
            w = z - z.mean()
            count = 0
            for idx in samples:
                wb = w[idx]
                t = wb.mean() / (wb.std(ddof=1) / math.sqrt(T))
                count += abs(t) >= t_obs * (1 - 1e-10)
            out.append(count / len(samples))
    return np.array(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--bootstrap", type=int, default=1000)
    opts = ap.parse_args()
    if not (DATA / "qrels.txt").is_file():
        print(f"TREC DL 2019 data not found at {DATA}", file=sys.stderr)
        return 1
    warnings.simplefilter("ignore", IRStabWarning)
    print(f"{datetime.date.today()}  {platform.processor() or platform.machine()}  "
          f"{os.cpu_count()} CPUs  Python {platform.python_version()}  numpy {np.__version__}")
    t = time.perf_counter()
    coll = irstab.Collection.from_files(DATA / "qrels.txt", DATA / "runs")
    scores = irstab.score_matrices(coll, MEASURES)
    print(f"evaluation (not timed below): {time.perf_counter() - t:.2f} s; "
          f"{coll.n_systems} systems x {coll.n_topics} topics, {len(MEASURES)} measures\n")
    B, R = opts.bootstrap, opts.repeat
    S = coll.n_systems
    P = S * (S - 1) // 2

    print(f"paired bootstrap, {P} pairs x B={B} x {coll.n_topics} topics, per measure (best of {R})")
    print(f"{'measure':<26}{'irstab':>10}{'per-pair loop':>15}{'ratio':>8}{'Sakai loop*':>13}{'ratio':>9}")
    for name in MEASURES:
        one = {name: scores[name]}
        t_ir, res = best(lambda: discriminative_power(one, n_bootstrap=B, seed=1), R)
        x = scores[name].to_numpy()
        samples = np.asarray(res.samples)
        t_pp, asl_pp = best(lambda: per_pair_loop(x, samples), max(1, R // 2))
        n = 20
        t_sk, asl_sk = best(lambda: sakai_loop(x, samples, n), 1)
        t_sk_all = t_sk * P / n
        # the peers are equal to irstab on these data (no degenerate pairs except identical runs)
        regular = np.isfinite(asl_pp)
        ok = np.isfinite(asl_sk)
        same = np.array_equal(asl_pp[regular], res.asl[0][regular]) and np.array_equal(
            asl_sk[ok], res.asl[0][:n][ok])
        print(f"{name:<26}{t_ir:>9.3f}s{t_pp:>14.3f}s{t_pp / t_ir:>7.0f}x{t_sk_all:>12.1f}s"
              f"{t_sk_all / t_ir:>8.0f}x  {'equal ASLs' if same else 'ASLs DIFFER'}")
    print("* timed on 20 pairs, scaled to all pairs\n")

    rows = [
        ("randomised Tukey HSD, 1000 trials", lambda: randomised_tukey_hsd(scores, n_trials=1000, seed=1)),
        ("swap rates, 1000 splits of 21+21 topics", lambda: swap_rates(scores, n_trials=1000, seed=1)),
        ("paired t-tests + Holm", lambda: paired_t_tests(scores, correction="holm")),
        ("rank correlations (tau-b, tau_AP, rho, RMSE)", lambda: rank_correlation(scores)),
        (f"compare_measures (bootstrap B={B} + swap + PAD + correlations)",
         lambda: compare_measures(scores, n_bootstrap=B, seed=1)),
    ]
    print(f"all {len(MEASURES)} measures together (best of {R})")
    for label, fn in rows:
        t_run, _ = best(fn, R)
        print(f"  {label:<62}{t_run:>8.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
