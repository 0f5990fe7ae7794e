"""A score matrix padded with blank lines: ``irstab stability -s`` against the decompressor.

    python benchmarks/bench_blank_lines.py --mib 64,256 --tree before=/path/to/old/src \
        --tree after=src

A gzip of a three-line score matrix followed by ``--mib`` MiB of blank lines (a 1 MB gzip
expands to a gigabyte) is read by each tree's ``irstab stability -s`` in a child process,
rounds interleaved; the peer is ``gzip -dc FILE | wc -l``, the floor any reader of the
file pays. Printed per case: wall and CPU seconds (user + system of the child tree), the
ratio of CPU to the peer's, and the child's peak RSS.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import zlib
from pathlib import Path

HEAD = b"system,t1,t2,t3\na,0.1,0.2,0.4\nb,0.3,0.5,0.1\nc,0.2,0.1,0.3\n"


def write_case(root: Path, mib: int) -> Path:
    """A gzip of ``HEAD`` and ``mib`` MiB of newlines, compressed as it is produced."""
    path = root / f"blank{mib}.csv.gz"
    if not path.exists():
        z = zlib.compressobj(6, zlib.DEFLATED, 31)
        with open(path, "wb") as fh:
            fh.write(z.compress(HEAD))
            block = b"\n" * (1 << 20)
            for _ in range(mib):
                fh.write(z.compress(block))
            fh.write(z.flush())
    return path


def timed(argv: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB, GNU time's %M) of one child run."""
    rss = Path(f"/tmp/blank-bench-rss.{os.getpid()}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(rss), *argv], env=env,
                          capture_output=True, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv}: exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, int(rss.read_text().split()[-1]) / 1024.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("/tmp/blank-bench"))
    ap.add_argument("--mib", default="64,256", help="MiB of blank lines per case")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=SRC",
                    help="an irstab source tree to time (repeatable); default: this one")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    trees = [t.split("=", 1) for t in args.tree] or [["this", str(Path(__file__).parents[1] / "src")]]
    code = "import sys; from irstab.cli import main; sys.exit(main())"
    print(f"# load average {os.getloadavg()[0]:.2f}; {len(trees)} tree(s); best of {args.repeat}")
    print("case | command | wall s | CPU s | CPU / peer | peak RSS MB")
    for mib in (int(m) for m in args.mib.split(",")):
        path = write_case(args.root, mib)
        best: dict[str, tuple[float, float, float]] = {}
        for _ in range(args.repeat):  # rounds interleaved: the load hits every command alike
            runs = [("gzip -dc | wc -l", None, ["sh", "-c", f"gzip -dc {path} | wc -l"])]
            runs += [(f"irstab stability -s ({name})", dict(os.environ, PYTHONPATH=src),
                      [sys.executable, "-c", code, "stability", "-s", str(path)])
                     for name, src in trees]
            for label, env, argv in runs:
                got = timed(argv, env)
                if label not in best or got[1] < best[label][1]:
                    best[label] = got
        peer = best["gzip -dc | wc -l"][1]
        for label, (wall, cpu, rss) in best.items():
            print(f"{mib} MiB | {label} | {wall:.2f} | {cpu:.2f} | {cpu / peer:.1f} | {rss:.0f}")


if __name__ == "__main__":
    main()
