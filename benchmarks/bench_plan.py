"""The out-of-core batch plan: 1 and 2 workers, wall, CPU and peak RSS of ``irstab evaluate``.

    python benchmarks/bench_plan.py --root /tmp/plan-bench --systems 20 --topics 200 \
        --depth 10000 --workers 0,2 --tree before=/path/to/old/src --tree after=src

A simulated collection (``write_simulated``, seed 12; written once under ``--root``,
outside the repository) is evaluated by each tree's ``irstab evaluate QRELS RUNS -m
nDCG@10,nDCG@100,AP -M DEPTH`` in a child process, ``IRSTAB_WORKERS`` set to each count
(0: everything in the one process), rounds interleaved. Printed per run: wall seconds,
CPU seconds (user + system of the whole process tree: the child and its worker
processes), peak RSS (GNU time's %M: the largest process of the tree) and the load
average before the run; and, for the tree this script belongs to, the plan's jobs
(runs per job, MB of text of the largest).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import _proc

MEASURES = "nDCG@10,nDCG@100,AP"


def timed(argv: list[str], env: dict) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds of the process tree and peak RSS (MB) of one child run."""
    got = _proc.run(argv, env=env, timeout=7200)
    return got.wall, got.cpu, got.peak_rss / 2**20


def show_plan(root: Path, depth: int, workers: int) -> str:
    from irstab.collection.batches import plan
    from irstab.collection.index import QrelsIndex
    from irstab.io import read_qrels
    from irstab.io.textfiles import text_size

    files = sorted((root / "runs").iterdir())
    T = QrelsIndex.from_qrels(read_qrels(root / "qrels.txt")).n_topics
    jobs = plan(files, T, depth, 32 * 2**20, workers)
    largest = max(sum(text_size(f) for f in fs) for fs, _ in jobs)
    return (f"plan with {max(workers, 1)} worker(s): {[len(fs) for fs, _ in jobs]} runs per "
            f"job, largest job {largest / 2**20:.1f} MB of text")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("/tmp/plan-bench"))
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--topics", type=int, default=200)
    ap.add_argument("--depth", type=int, default=10000)
    ap.add_argument("--workers", default="0,2", help="IRSTAB_WORKERS values, comma-separated")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=SRC",
                    help="a source tree to run (repeatable); default: this one")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    S, T, D = args.systems, args.topics, args.depth
    root = args.root / f"sim_{S}x{T}x{D}"
    if not (root / "runs").is_dir() or len(list((root / "runs").iterdir())) != S:
        from irstab.simulate import write_simulated

        t0 = time.perf_counter()
        write_simulated(root, n_systems=S, n_topics=T, depth=D, seed=12)
        print(f"written in {time.perf_counter() - t0:.1f} s")
    size = sum(p.stat().st_size for p in (root / "runs").iterdir())
    print(f"collection {root}: {S} runs x {T} topics x {D} deep, {size / 1e6:.0f} MB of runs")
    trees = [t.split("=", 1) for t in args.tree] or [
        ("this", str(Path(__file__).resolve().parents[1] / "src"))]
    counts = [int(w) for w in args.workers.split(",")]
    for w in counts:
        print(show_plan(root, D, w))
    irstab = str(Path(sys.executable).parent / "irstab")
    print(f"{'tree':8s} {'workers':>7s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MB':>12s} "
          f"{'load':>5s}")
    for _ in range(args.rounds):
        for w in counts:
            for name, src in trees:
                env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()),
                       "IRSTAB_WORKERS": str(w)}
                load = os.getloadavg()[0]
                wall, cpu, peak = timed([irstab, "evaluate", str(root / "qrels.txt"),
                                         str(root / "runs"), "-m", MEASURES, "-M", str(D),
                                         "-f", "csv"], env)
                print(f"{name:8s} {w:7d} {wall:8.1f} {cpu:8.1f} {peak:12.0f} {load:5.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
