"""Start-up cost of the ``irstab`` command against Python's own start-up.

    python benchmarks/bench_startup.py --rounds 10 --tree before=/path/to/old/src --tree after=src

Each round runs, one after another in a child process each: ``python -c pass`` (the peer:
what any Python command pays), then for every tree ``irstab --version``, ``irstab --help``
and ``irstab evaluate QRELS RUN -m ndcg_cut_10`` on a run of one line (files written in a
temporary directory). Rounds are interleaved, so a change of the machine's load hits every
command alike. Printed per command: the median and the least wall and CPU seconds over the
rounds (CPU = user + system of the child, from ``resource.getrusage(RUSAGE_CHILDREN)``
deltas), the median CPU over the peer's, and the load average before and after.

Bytecode: by default the children write and read it under a temporary
``PYTHONPYCACHEPREFIX`` (one untimed warm-up round fills it), as an installed irstab
runs; ``--no-bytecode`` sets ``PYTHONDONTWRITEBYTECODE`` and clears the prefix, so every
run compiles irstab's sources again (a source tree in an environment that forbids
``__pycache__``). The trees' own directories are never written.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _proc

#: ``irstab`` as the console script runs it, from whichever tree is on PYTHONPATH
IRSTAB = "import sys; from irstab.cli import main; sys.exit(main())"


def timed(argv: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child process, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv}: exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(trees: list[tuple[str, str]], root: Path,
             bytecode: bool) -> list[tuple[str, dict, list]]:
    """(label, environment, argv) of every command timed in one round."""
    qrels, run = root / "qrels.txt", root / "run.txt"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 2.5 r\n")
    base = _proc.python_env(root, bytecode)
    out = [("python -c pass", base, [sys.executable, "-c", "pass"])]
    for name, src in trees:
        env = dict(base, PYTHONPATH=src, COLUMNS="80")
        for label, args in (("--version", ["--version"]), ("--help", ["--help"]),
                            ("evaluate, 1-line run",
                             ["evaluate", str(qrels), str(run), "-m", "ndcg_cut_10"])):
            out.append((f"irstab {label} ({name})", env, [sys.executable, "-c", IRSTAB, *args]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=SRC",
                    help="an irstab source tree to time (repeatable); default: this one")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                    help="compile every module on every run (PYTHONDONTWRITEBYTECODE=1)")
    args = ap.parse_args()
    trees = [tuple(t.split("=", 1)) for t in args.tree] or [
        ("this", str(Path(__file__).resolve().parents[1] / "src"))]
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="irstab-startup-") as tmp:
        runs = commands(trees, Path(tmp), args.bytecode)
        times: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in runs}
        if args.bytecode:  # untimed: writes the bytecode the timed rounds read
            for _, env, argv in runs:
                timed(argv, env)
        for _ in range(args.rounds):
            for label, env, argv in runs:
                times[label].append(timed(argv, env))
    after = os.getloadavg()
    print(f"# {args.rounds} interleaved rounds, bytecode "
          f"{'cached' if args.bytecode else 'compiled on every run'}; load average (1, 5, 15 min) "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before, "
          f"{after[0]:.2f} {after[1]:.2f} {after[2]:.2f} after; {os.cpu_count()} CPUs; "
          f"Python {sys.version.split()[0]}")
    print("command | wall s median (min) | CPU s median (min) | CPU / python -c pass")
    peer = statistics.median(cpu for _, cpu in times["python -c pass"])
    for label, got in times.items():
        wall, cpu = [w for w, _ in got], [c for _, c in got]
        ratio = statistics.median(cpu) / peer if peer > 0 else float("inf")
        print(f"{label} | {statistics.median(wall):.3f} ({min(wall):.3f}) | "
              f"{statistics.median(cpu):.3f} ({min(cpu):.3f}) | {ratio:.1f}")


if __name__ == "__main__":
    main()
