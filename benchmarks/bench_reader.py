"""Reading wide and deep runs: wall time of ``irstab evaluate`` and of the reader alone.

    python benchmarks/bench_reader.py --root /tmp/reader-bench --cases 1e5,3e5,1e6,deep
    PYTHONPATH=<other tree>/src python benchmarks/bench_reader.py ...   # another tree

Cases (one qrels file and one run file each, written once under ``--root``):

``1e5``, ``3e5``, ``1e6``
    that many topics with one judged and one retrieved document each (a wide run: the
    run's documents cannot span the reader's 2 MiB batches, but its topics fill many);
``deep``
    100 topics retrieved 10,000 deep (a deep run: one topic spans several batches).

Each case runs in its own child process: ``read_run`` on the plain file and on its bzip2
copy (bzip2 records no size, so it is always streamed in batches), then the whole
``irstab evaluate QRELS RUN -m P@1`` command. Times are wall seconds, best of
``--repeat``.
"""

from __future__ import annotations

import argparse
import bz2
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CASES = {"1e5": (100_000, 1), "3e5": (300_000, 1), "1e6": (1_000_000, 1), "deep": (100, 10_000)}


def write_case(root: Path, name: str) -> tuple[Path, Path, Path]:
    topics, depth = CASES[name]
    qrels, run, packed = root / f"{name}.qrels", root / f"{name}.run", root / f"{name}.run.bz2"
    if not packed.exists():
        with open(qrels, "w") as fh:
            fh.writelines(f"{t} 0 d{t}-0 1\n" for t in range(topics))
        with open(run, "w") as fh:
            for t in range(topics):
                fh.writelines(f"{t} Q0 d{t}-{r} {r + 1} {depth - r} bench\n" for r in range(depth))
        packed.write_bytes(bz2.compress(run.read_bytes(), 1))
    return qrels, run, packed


_CHILD = """
import json, subprocess, sys, time
import irstab
qrels, run, packed, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
out = {}
for label, path in (("read_run plain", run), ("read_run bz2", packed)):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter(); irstab.read_run(path); best = min(best, time.perf_counter() - t)
    out[label] = best
best = float("inf")
for _ in range(repeat):
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "irstab.cli", "evaluate", qrels, run, "-m", "P@1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = min(best, time.perf_counter() - t)
out["evaluate"] = best
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, required=True, help="where the inputs are written")
    ap.add_argument("--cases", default="1e5,3e5,deep", help="comma list of " + ",".join(CASES))
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    for name in args.cases.split(","):
        files = write_case(args.root, name)
        env = dict(os.environ)
        res = subprocess.run([sys.executable, "-c", _CHILD, *map(str, files), str(args.repeat)],
                             capture_output=True, text=True, env=env, check=True)
        times = json.loads(res.stdout)
        shown = ", ".join(f"{k} {v:.2f} s" for k, v in times.items())
        print(f"{name}: {shown}", flush=True)


if __name__ == "__main__":
    main()
