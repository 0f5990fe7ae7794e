"""Calibration of ``irstab systems``' tests in real-score universes of TREC DL 2019.

    python benchmarks/bench_significance.py [--replicates 200] [--resamples 1000]

The population is the 37 systems x 43 topics score matrix of each measure. Two
universes are drawn from it, topics with replacement (``n`` of the 43 per
replicate, the same draw for every system):

- **null**: every system's row shifted to the grand mean
  (:math:`x_{st} - \\bar x_{s\\cdot} + \\bar x_{\\cdot\\cdot}`): no pair differs in the
  population, and each pair's differences keep their real shape (skew, ties,
  heavy tails). The share of the 666 pairs a test calls significant at
  alpha = 0.05 is its per-comparison type I error; the share of replicates with
  any pair significant after Holm's adjustment (or Tukey HSD's own) is the
  family-wise error rate.
- **real**: the scores as they are; the truth is the population mean difference
  of each pair. Power is the share of pairs significant (raw p, alpha = 0.05)
  among pairs whose population difference is at least 0.02; type III errors are
  significant pairs of the wrong sign.

The tests are :func:`irstab.systems.significance.run_test`'s, as ``irstab
systems`` runs them (one draw of resamples shared by all pairs). Without the
data it exits with a message.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import irstab
from irstab.systems.significance import (adjust, bootstrap_test, paired_t, permutation_test,
                                         run_test, sign_test, wilcoxon_test)
from irstab.errors import IRStabWarning

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"
MEASURES = ["nDCG@10", "AP"]
TESTS = ["t", "permutation", "bootstrap", "wilcoxon", "sign"]
SIZES = [10, 20, 43]
ALPHA = 0.05
MIN_EFFECT = 0.02  # population differences counted for power


_PAIRED = {"t": paired_t, "wilcoxon": wilcoxon_test, "sign": sign_test}
_RESAMPLED = {"permutation": permutation_test, "bootstrap": bootstrap_test}


def _p_values(test: str, d: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """p-values of ``test`` for the ``(..., n)`` differences ``d``, every replicate at once."""
    if test in _PAIRED:
        return _PAIRED[test](d).p_value
    return _RESAMPLED[test](d, resamples, seed).p_value


def _rates(p_null, p_real, observed, truth, big, fair) -> dict:
    """Rates over replicates (first axis) and pairs (second axis); ``fair`` marks the
    null draws that are not constant (see :func:`universe`)."""
    sig = p_real < ALPHA
    return {"type1": (p_null < ALPHA)[fair].mean(),
            "fwer": ((p_null < ALPHA) & fair).any(axis=1).mean(),
            "power": sig[:, big].mean(),
            "type3": (sig & (np.sign(observed) != np.sign(truth))).mean()}


def universe(x: np.ndarray, n: int, replicates: int, resamples: int, seed: int) -> dict:
    """Type I error, family-wise error, power and type III rate of every test at ``n`` topics.

    The five paired tests run on all replicates x pairs in one call each (their
    resamples shared by every replicate, as ``irstab systems`` shares them by every
    pair); Tukey HSD needs each replicate's whole matrix, one call per replicate.
    Null draws whose ``n`` differences are all equal are left out of the error rates:
    there the shift to the grand mean turns a pair that differs on few topics into a
    constant non-zero difference, which no real pair of runs shows and on which every
    test is certain (their share is reported). The family-wise rate of the resampling
    tests under Holm needs ``B >= m / alpha`` (13,320 for 666 pairs) on every
    replicate, so it is shown for the others only.
    """
    rng = np.random.default_rng(seed)
    S, T = x.shape
    i, j = np.triu_indices(S, 1)
    null = x - x.mean(axis=1, keepdims=True) + x.mean()
    truth = x[i].mean(axis=1) - x[j].mean(axis=1)
    big = np.abs(truth) >= MIN_EFFECT
    topics = rng.integers(0, T, size=(replicates, n))
    d_null = (null[i] - null[j])[:, topics].transpose(1, 0, 2)  # (replicates, pairs, n)
    d_real = (x[i] - x[j])[:, topics].transpose(1, 0, 2)
    fair = np.ptp(d_null, axis=2) > 1e-12
    observed = d_real.mean(axis=2)
    out = {}
    for test in TESTS:
        p_null = _p_values(test, d_null, resamples, seed + 1)
        rates = _rates(p_null, _p_values(test, d_real, resamples, seed + 2), observed, truth,
                       big, fair)
        held = (adjust(np.where(fair, p_null, 1.0), "holm") < ALPHA).any(axis=1).mean()
        out[test] = rates | {"fwer": float("nan") if test in _RESAMPLED else held}
    p_null = np.array([run_test("tukey", null[:, t], i, j, resamples, seed + 3 + r).p_value
                       for r, t in enumerate(topics)])
    p_real = np.array([run_test("tukey", x[:, t], i, j, resamples, seed + 3 + r).p_value
                       for r, t in enumerate(topics)])
    out["tukey"] = _rates(p_null, p_real, observed, truth, big, np.ones_like(fair))
    out["constant null draws"] = 1.0 - fair.mean()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=200)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not (DATA / "qrels.txt").is_file():
        print(f"TREC DL 2019 data not found at {DATA}", file=sys.stderr)
        return 1
    print(f"{datetime.date.today()}  {platform.processor() or platform.machine()}  "
          f"{os.cpu_count()} CPUs  Python {platform.python_version()}  numpy {np.__version__}  "
          f"load {os.getloadavg()[0]:.1f}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        coll = irstab.Collection.from_files(DATA / "qrels.txt", DATA / "runs")
    print(f"{args.replicates} replicates per universe, B = {args.resamples}, alpha = {ALPHA}; "
          f"power over pairs with |population difference| >= {MIN_EFFECT}")
    print("| measure | topics | test | type I (per pair) | FWER (Holm; Tukey: itself) | "
          "power | type III |")
    print("|---|---:|---|---:|---:|---:|---:|")
    start = time.perf_counter()
    notes = []
    for measure in MEASURES:
        x = irstab.score_matrix(coll, measure).to_numpy()
        for n in SIZES:
            rows = universe(x, n, args.replicates, args.resamples, args.seed)
            constant = rows.pop("constant null draws")
            for test, row in rows.items():
                fwer = "-" if row["fwer"] != row["fwer"] else f"{row['fwer']:.3f}"
                print(f"| {measure} | {n} | {test} | {row['type1']:.3f} | {fwer} | "
                      f"{row['power']:.3f} | {row['type3']:.4f} |", flush=True)
            notes.append(f"{measure} at {n} topics: {constant:.1%} of null draws constant")
    print("\n".join(notes))
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
