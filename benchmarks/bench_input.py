"""CPU of ``irstab evaluate`` against a bare pyarrow parse and pytrec_eval, per ranked entry.

    python benchmarks/bench_input.py --root /work/bigdata --collections 100x200x1000,10x200x10000
    python benchmarks/bench_input.py ... --tasks bare,irstab --rounds 3

Each collection ``SxTxD`` (runs x topics x depth, ``write_simulated``, seed 12, as
``bench_scale.py`` writes them) is written once under ``--root`` (outside the repository).
Every task is one process timed by ``/usr/bin/time``: CPU is user + system time of the
process and of the worker processes it waited for, so the whole tree; wall and the peak
resident set of the largest process are printed too, with the load average (the machine
may be shared: compare tasks of the same round).

Tasks
-----
irstab       ``irstab evaluate QRELS RUNDIR -m ndcg_cut.10 -m map`` (the whole command)
bare         ``pyarrow.csv.read_csv`` of the qrels and of every run file (space delimited,
             no header, column names given; no checks, nothing computed)
pytrec_eval  the qrels and each run parsed in Python, then ``RelevanceEvaluator`` on
             ``ndcg_cut.10`` and ``map`` (as ``bench_scale.py`` runs it)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BARE = """
import sys, pathlib
import pyarrow.csv as pacsv
root = pathlib.Path(sys.argv[1])
def read(path, names):
    return pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=names),
                          parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False))
n = read(root / "qrels.txt", ["topic", "iteration", "docid", "grade"]).num_rows
for f in sorted((root / "runs").iterdir()):
    n += read(f, ["topic", "q0", "docid", "rank", "score", "tag"]).num_rows
print(n)
"""

PYTREC = """
import sys, pathlib, pytrec_eval
root = pathlib.Path(sys.argv[1])
q = {}
with open(root / "qrels.txt") as fh:
    for line in fh:
        t, _, d, g = line.split()
        q.setdefault(t, {})[d] = int(g)
ev = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10", "map"})
total = 0.0
for path in sorted((root / "runs").iterdir()):
    run = {}
    with open(path) as fh:
        for line in fh:
            t, _, d, _, s, _ = line.split()
            run.setdefault(t, {})[d] = float(s)
    total += sum(v["map"] for v in ev.evaluate(run).values())
print(total)
"""


def command(task: str, root: Path) -> list[str]:
    if task == "irstab":
        return [sys.executable, "-m", "irstab.cli", "evaluate", str(root / "qrels.txt"),
                str(root / "runs"), "-m", "ndcg_cut.10", "-m", "map"]
    return [sys.executable, "-c", BARE if task == "bare" else PYTREC, str(root)]


def timed(cmd: list[str]) -> tuple[float, float, float, int]:
    """(CPU user + sys of the process tree, wall, seconds; peak RSS, bytes) of ``cmd``."""
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%e %U %S %M", *cmd],
                       stdout=subprocess.DEVNULL, check=True, env=os.environ)
        wall, user, system, rss = out.read().split()[-4:]
    return float(user) + float(system), float(wall), float(user), int(rss) * 1024


def ensure(root: Path, S: int, T: int, D: int) -> None:
    if (root / "qrels.txt").is_file() and (root / "runs").is_dir() and \
            len(list((root / "runs").iterdir())) == S:
        return
    from irstab.simulate import write_simulated

    write_simulated(root, n_systems=S, n_topics=T, depth=D, seed=12)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("/work/bigdata"))
    ap.add_argument("--collections", default="100x200x1000,10x200x10000")
    ap.add_argument("--tasks", default="bare,irstab,pytrec_eval")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    print(f"{'collection':>14s} {'task':>11s} {'CPU s':>7s} {'wall s':>7s} {'peak MB':>8s} "
          f"{'CPU ns/entry':>12s} {'/ bare':>6s} {'load':>5s}")
    for spec in args.collections.split(","):
        S, T, D = map(int, spec.split("x"))
        root = args.root / f"sim_{S}x{T}x{D}"
        ensure(root, S, T, D)
        entries = S * T * D
        for _ in range(args.rounds):
            bare = None
            for task in args.tasks.split(","):
                cpu, wall, _, rss = timed(command(task, root))
                bare = cpu if task == "bare" else bare
                load = os.getloadavg()[0]
                ratio = f"{cpu / bare:6.2f}" if bare and task != "bare" else "      "
                print(f"{spec:>14s} {task:>11s} {cpu:7.2f} {wall:7.2f} {rss / 2**20:8.0f} "
                      f"{cpu / entries * 1e9:12.0f} {ratio} {load:5.1f}", flush=True)


if __name__ == "__main__":
    main()
