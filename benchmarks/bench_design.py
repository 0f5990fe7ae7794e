"""``irstab design power`` and ``irstab design budget`` on TREC DL 2019, next to their peers.

    python benchmarks/bench_design.py [--repeat 3]

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
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
