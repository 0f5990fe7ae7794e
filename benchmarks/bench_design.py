"""``irstab design power`` and ``irstab design budget`` on TREC DL 2019, next to their peers.

    python benchmarks/bench_design.py [--repeat 3] [--calibration] [--replicates 4000]

Targets (issue 25): ``design power`` on DL-2019 under 2 s; ``design budget`` with the
re-annotation data under 30 s. Each command runs as a user runs it (a fresh process:
imports, reading the 37 runs, the computation, the output), best of ``--repeat`` wall
times, side by side with the peer that does the same reading without the design work:

- ``irstab design power qrels runs/`` (the default six measures) against
  ``irstab evaluate qrels runs/`` (the same six measures): the difference is the power
  computation (topics for three designs and their inverses, per measure);
- ``irstab design budget qrels runs/ -m nDCG@10 -a reannotation/main`` (depths 5, 10, 20,
  50, 100; three-facet G-study at each) against ``irstab assessors qrels runs/ -a
  reannotation/main -m nDCG@10 --resamples 0`` (one three-facet G-study at full depth);
- in process, on the score matrices already computed: ``power_study`` of the six measures
  and ``budget_plan`` on a finished depth study (what the design adds on top of scoring).

The machine's load average is printed with the results: the 2-vCPU machine is shared, and
a loaded machine is 2-3x slower in wall time.

``--calibration`` (the answer carries its own calibration): for nDCG@10 and AP on DL-2019,
fresh collections are drawn from the fitted two-way model (normal system x topic residuals
with variance V_E, normal topic effects with the G-study's topic component) at the
recommended topic counts, and the tests a user would run are run on them:

- the paired t-test between two systems D = 0.05 apart (target power 0.80);
- the ANOVA for the least favourable configuration of a range 0.05 over the 37 systems,
  tested as a user tests systems x topics scores: the two-way ANOVA without replication,
  F = MS_sys / MS_res on (m-1, (m-1)(n-1)) degrees of freedom (Sakai's design uses the
  one-way degrees of freedom m(n-1); this shows what that costs);
- the paired 95 % interval's mean half-width (target: at most D / 2) and its coverage;
- the t-test with no difference (its level, 0.05).

Each with ``--replicates`` collections and the Monte-Carlo standard error.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
DL = SHARED / "trec-dl-2019-passage"
RE = SHARED / "trec-dl-2019-reannotation" / "main"
CLI = "import sys, irstab.cli; sys.exit(irstab.cli.main())"
MEASURES = ["nDCG@10", "AP", "RR", "P@10", "R-prec", "bpref"]


def wall(argv, repeat: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", CLI, *map(str, argv)], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def calibration(replicates: int) -> None:
    """Rejection rates and widths on collections drawn from the fitted model (docstring)."""
    import numpy as np
    from scipy import stats

    from irstab.design import power_plan
    from irstab.evaluation import score_runs
    from irstab.stability import gstudy

    warnings.simplefilter("ignore")
    mats = score_runs(DL / "qrels.txt", DL / "runs", ["nDCG@10", "AP"]).matrices()
    rng = np.random.default_rng(7)
    R = replicates
    print(f"# calibration: {R} simulated collections per line, seed 7")
    print("measure  method  design             topics  target   observed  (MC s.e.)")
    for name, x in mats.items():
        g = gstudy(x)
        s_t, s_r = np.sqrt(max(g.var_topic, 0)), np.sqrt(g.var_residual)
        m = x.shape[0]
        for method in ("exact", "sakai"):
            p = power_plan(x, name=name, min_diff=0.05, method=method)
            n = int(p.topics_ttest)
            for diff, target, label in ((0.05, 0.80, "t-test D=0.05"),
                                        (0.0, 0.05, "t-test D=0 (level)")):
                e = rng.normal(0, s_r, (R, 2, n))  # topic effects cancel in the pair
                d = diff + e[:, 0] - e[:, 1]
                t = d.mean(1) / (d.std(1, ddof=1) / np.sqrt(n))
                rate = (2 * stats.t.sf(np.abs(t), n - 1) < 0.05).mean()
                se = np.sqrt(target * (1 - target) / R)
                print(f"{name:8} {method:7} {label:18} {n:6d}  {target:.3f}   {rate:.4f}   "
                      f"({se:.4f})")
            h = p.half_width
            nc = int(p.topics_ci)
            e = rng.normal(0, s_r, (R, 2, nc))
            d = 0.05 + e[:, 0] - e[:, 1]
            hw = stats.t.ppf(0.975, nc - 1) * d.std(1, ddof=1) / np.sqrt(nc)
            cover = (np.abs(d.mean(1) - 0.05) <= hw).mean()
            print(f"{name:8} {method:7} {'CI half-width':18} {nc:6d}  <={h:.4f} {hw.mean():.5f}  "
                  f"({hw.std() / np.sqrt(R):.5f}); coverage {cover:.4f} (target 0.95)")
            na = int(p.topics_anova)
            mu = np.zeros(m)
            mu[0], mu[1] = 0.025, -0.025  # range 0.05, the others in the middle
            reps = max(R // 10, 200)  # m x n cells per collection: fewer collections
            xs = (mu[None, :, None] + rng.normal(0, s_t, (reps, 1, na))
                  + rng.normal(0, s_r, (reps, m, na)))
            gm = xs.mean((1, 2), keepdims=True)
            ms_s = na * ((xs.mean(2, keepdims=True) - gm) ** 2).sum((1, 2)) / (m - 1)
            res = xs - xs.mean(2, keepdims=True) - xs.mean(1, keepdims=True) + gm
            ms_r = (res**2).sum((1, 2)) / ((m - 1) * (na - 1))
            crit = stats.f.isf(0.05, m - 1, (m - 1) * (na - 1))
            rate = (ms_s / ms_r > crit).mean()
            print(f"{name:8} {method:7} {'ANOVA range 0.05':18} {na:6d}  0.800   {rate:.4f}   "
                  f"({np.sqrt(0.16 / reps):.4f}) [{reps} collections, two-way test]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calibration", action="store_true")
    ap.add_argument("--replicates", type=int, default=4000)
    args = ap.parse_args()
    if args.calibration:
        calibration(args.replicates)
        return
    if not (DL / "qrels.txt").is_file():
        sys.exit(f"DL-2019 data not found at {DL}")
    q, runs = DL / "qrels.txt", DL / "runs"
    print(f"# {platform.node()} {platform.machine()} {os.cpu_count()} CPUs, python "
          f"{platform.python_version()}; load average before: {os.getloadavg()[0]:.2f}")

    power = wall(["design", "power", q, runs], args.repeat)
    evaluate = wall(["evaluate", q, runs, "-m", ",".join(MEASURES)], args.repeat)
    print(f"design power (6 measures)        {power:6.2f} s   target < 2 s")
    print(f"  peer: evaluate (same measures) {evaluate:6.2f} s   ratio {power / evaluate:.2f}")

    if RE.is_dir():
        budget = wall(["design", "budget", q, runs, "-m", "nDCG@10", "-a", RE], args.repeat)
        facet = wall(["assessors", q, runs, "-a", RE, "-m", "nDCG@10", "--resamples", "0"],
                     args.repeat)
        print(f"design budget -a reannotation    {budget:6.2f} s   target < 30 s")
        print(f"  peer: assessors (one depth)    {facet:6.2f} s   ratio {budget / facet:.2f}")

    from irstab.design import budget_plan, depth_study, power_study
    from irstab.evaluation import score_runs

    warnings.simplefilter("ignore")
    mats = score_runs(q, runs, MEASURES).matrices()
    t_power = best_of(lambda: power_study(mats), args.repeat)
    print(f"in process: power_study, 6 measures          {1000 * t_power:7.1f} ms")
    t0 = time.perf_counter()
    study = depth_study(q, runs, ["nDCG@10"], assessor_qrels=RE if RE.is_dir() else None)
    t_depth = time.perf_counter() - t0
    t_plan = best_of(lambda: budget_plan(study, "nDCG@10"), args.repeat)
    print(f"in process: depth_study (5 depths{', assessors' if RE.is_dir() else ''}) "
          f"{t_depth:7.2f} s")
    print(f"in process: budget_plan (frontier of 50 budgets) {1000 * t_plan:7.1f} ms")
    print(f"# load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
