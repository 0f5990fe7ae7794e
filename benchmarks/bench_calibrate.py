"""``irstab calibrate`` and the report's trust card on TREC DL 2019 (37 runs x 43 topics).

    python benchmarks/bench_calibrate.py [--skip-report] [--repeat 1]

Each timing is a whole command in a fresh process (interpreter start, reading the 37 gzipped
runs and scoring them included), wall seconds and the CPU seconds of the child process:

- ``irstab calibrate QRELS RUNS -m nDCG@10`` with its defaults (the target: under 60 s
  on 2 cores);
- the same from a score file (``--scores``; the simulation alone);
- ``irstab report QRELS RUNS`` with and without ``--no-trust-card`` (the card may add at
  most 30 s).

In process, the parts of the calibration (one call each, ``time.process_time``): the
tests' blocks, with the peer written the direct way (every test called on one
collection at a time through :func:`irstab.systems.significance.run_test`, a Python
loop over collections) on the first 20 collections; the verdict's universes; the
topics-needed G-studies; the verdict per candidate (calibrate's default 7, 200 collections
each); the split-half fit check and its rule.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"


def run(argv: list[str]) -> tuple[float, float]:
    """Wall and child CPU seconds of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ})
    wall = time.perf_counter() - w
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{proc.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def in_process(scores, candidates=None) -> list[tuple[str, float]]:
    from irstab.systems.significance import run_test
    from irstab.trust.checks import _candidate_checks, _topics_needed_check, _verdict_check, \
        judge_fit
    from irstab.simulate import fit_check
    from irstab.trust.paired_tests import PAIRED_TESTS, _block, _levels, default_replicates
    from irstab.simulate import fit_collection

    x = scores.to_numpy()
    S, T = x.shape
    out = []
    c = time.process_time()
    model = fit_collection(x, seed=0)
    out.append(("fit the simulator (Gaussian copula)", time.process_time() - c))
    R = default_replicates(S)
    levels = _levels((0.01, 0.02, 0.05))
    c = time.process_time()
    for b in range(R // 16):  # the default's 20 blocks of 16
        _block(model, levels, b, 16, T, [0.05], 1000, b)
    out.append((f"tests: {R} collections x {S * (S - 1) // 2} pairs, 6 tests, B = 1000",
                time.process_time() - c))
    draws = model.draw(20, T, np.random.default_rng(0))
    I, J = np.triu_indices(S, 1)
    c = time.process_time()
    for xr in draws:  # the peer: one collection at a time
        for test in (*PAIRED_TESTS, "tukey"):
            run_test(test, xr, I, J, n_resamples=1000, seed=1)
    peer = (time.process_time() - c) * R / 20
    out.append((f"  peer: run_test per collection, scaled from 20 to {R}", peer))
    c = time.process_time()
    _verdict_check(x, T, 200, 0.95, 0, None)
    out.append(("verdict: 2 x 200 real-score collections, jackknife", time.process_time() - c))
    if candidates:
        c = time.process_time()
        _candidate_checks(x, candidates, T, 200, 0.95, 0, None)
        out.append((f"verdict per candidate: {len(candidates)} x 200 real-score collections",
                    time.process_time() - c))
    c = time.process_time()
    _topics_needed_check(x, 2000, T, 0.95, np.random.default_rng(0))
    out.append(("topics needed: 2000 G-theory collections", time.process_time() - c))
    c = time.process_time()
    fit = fit_check(x, n_collections=300, n_reference=0, seed=0)
    out.append(("fit check: 300 collections", time.process_time() - c))
    c = time.process_time()
    judge_fit(fit, 0)
    out.append(("  its rule: 1000 correct-model splits", time.process_time() - c))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-report", action="store_true")
    args = ap.parse_args()
    if not (DL / "qrels.txt").is_file():
        sys.exit(f"needs {DL}")
    warnings.simplefilter("ignore")
    import irstab

    coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
    scores = irstab.score_matrix(coll, "nDCG@10")
    from irstab.metrics import parse_measure
    from irstab.report.study import preset_set

    presets = [m for m in dict.fromkeys(str(parse_measure(p)) for p in preset_set([10]))
               if m != "nDCG@10"]  # calibrate's default candidates
    candidates = {m: f.to_numpy() for m, f in irstab.score_matrices(coll, presets).items()}
    load = os.getloadavg()[0]
    print(f"# DL-2019 nDCG@10 (37 x 43); {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {load:.1f}, {time.strftime('%Y-%m-%d')}")
    exe = [sys.executable, "-m", "irstab.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        scores.rename_axis("system").to_csv(tmp / "nDCG@10.csv")
        rows = [("irstab calibrate QRELS RUNS -m nDCG@10 (defaults)",
                 *run(exe + ["calibrate", str(DL / "qrels.txt"), str(DL / "runs"), "-m",
                             "nDCG@10", "-f", "json", "-o", str(tmp / "c.json")])),
                ("irstab calibrate --scores nDCG@10.csv",
                 *run(exe + ["calibrate", "--scores", str(tmp / "nDCG@10.csv"), "-f", "json",
                             "-o", str(tmp / "c2.json")]))]
        if not args.skip_report:
            rows.append(("irstab report QRELS RUNS --no-trust-card",
                         *run(exe + ["report", str(DL / "qrels.txt"), str(DL / "runs"),
                                     "--no-trust-card", "-o", str(tmp / "r0")])))
            rows.append(("irstab report QRELS RUNS (with the trust card)",
                         *run(exe + ["report", str(DL / "qrels.txt"), str(DL / "runs"),
                                     "-o", str(tmp / "r1")])))
    print(f"{'command':<58} {'wall s':>8} {'CPU s':>8}")
    for label, wall, cpu in rows:
        print(f"{label:<58} {wall:8.1f} {cpu:8.1f}")
    if not args.skip_report:
        print(f"# the trust card adds {rows[3][1] - rows[2][1]:+.1f} s wall, "
              f"{rows[3][2] - rows[2][2]:+.1f} s CPU to the report")
    print(f"# load average after: {os.getloadavg()[0]:.1f}")
    print("\nin process (CPU s):")
    for label, cpu in in_process(scores, candidates):
        print(f"  {label:<70} {cpu:7.2f}")


if __name__ == "__main__":
    main()
