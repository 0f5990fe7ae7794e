"""CPU of ``irstab report`` and ``irstab calibrate`` on TREC DL 2019, two trees interleaved.

    python benchmarks/bench_report_cpu.py --before /path/to/old/src --after src [--rounds 3]

Each tree runs on its own ``PYTHONPATH`` (a ``src`` directory), in the same interpreter.
The commands, each a fresh process (imports, reading the 37 gzipped runs and scoring them
included):

- ``irstab report QRELS RUNS -o DIR``: the defaults (cutoffs 10, 20, 100, 4 random
  starts, B = 1000, the trust card and cross-fitting on);
- ``irstab calibrate QRELS RUNS -m nDCG@10 -f json -o FILE``: the defaults.

CPU is user + system time of the whole process tree (:mod:`_proc`), the figure to read
on a shared machine; rounds rotate the order of the four commands (:func:`_proc.rounds`),
and the table gives the median over rounds. Both trees run from their bytecode, as an
installed irstab does: it is written beside each tree's sources first (``compileall``), and
``PYTHONDONTWRITEBYTECODE`` is dropped from the commands' environment (a machine that sets
it would otherwise compile irstab's modules in every process: 0.1-0.2 s of each command).
``--no-bytecode`` measures that instead. With ``--compare`` the outputs of the two
trees are compared: ``report.json`` key by key without its timings (``seconds``),
``report.md`` and the figures byte for byte, calibrate's JSON byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _proc  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"


def _json_differences(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k == "seconds":
                continue
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in one")
            else:
                out += _json_differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} against {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _json_differences(x, y,
                                                                                  f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} against {b!r}"]


def compare(out: Path) -> None:
    rb, ra = out / "report-before", out / "report-after"
    diffs = _json_differences(json.loads((rb / "report.json").read_text()),
                              json.loads((ra / "report.json").read_text()))
    print(f"report.json: {len(diffs)} differences besides the timings")
    for d in diffs[:20]:
        print("  ", d[:200])
    for f in ["report.md", *sorted(p.name for p in (rb / "figures").iterdir())]:
        p = f if f == "report.md" else f"figures/{f}"
        same = (rb / p).read_bytes() == (ra / p).read_bytes()
        print(f"{p}: {'the same bytes' if same else 'DIFFERENT'}")
    same = (out / "calibrate-before.json").read_bytes() == (out / "calibrate-after.json").read_bytes()
    print(f"calibrate JSON: {'the same bytes' if same else 'DIFFERENT'}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="src directory of the old tree")
    ap.add_argument("--after", default=str(REPO / "src"), help="src directory of the new tree")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", action="store_true", help="compare the two trees' outputs")
    ap.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                    help="compile irstab's sources in every process (PYTHONDONTWRITEBYTECODE=1)")
    args = ap.parse_args()
    if not (DL / "qrels.txt").is_file():
        sys.exit(f"needs {DL}")
    q, runs = str(DL / "qrels.txt"), str(DL / "runs")
    exe = [sys.executable, "-m", "irstab.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        commands = {}
        for tree, src in (("before", args.before), ("after", args.after)):
            env = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
            env["PYTHONPATH"] = str(Path(src).resolve())
            if args.bytecode:
                subprocess.run([sys.executable, "-m", "compileall", "-q", env["PYTHONPATH"]],
                               env=env, check=True)
            else:
                env["PYTHONDONTWRITEBYTECODE"] = "1"
            commands[f"report, {tree}"] = (
                lambda env=env, tree=tree: _proc.run(
                    exe + ["report", q, runs, "-o", str(out / f"report-{tree}")], env))
            commands[f"calibrate, {tree}"] = (
                lambda env=env, tree=tree: _proc.run(
                    exe + ["calibrate", q, runs, "-m", "nDCG@10", "-f", "json", "-o",
                           str(out / f"calibrate-{tree}.json")], env))
        got = _proc.rounds(commands, args.rounds)
        print(_proc.table({k: v for k, v in got.items() if k.startswith("report")},
                          "report, before"))
        print(_proc.table({k: v for k, v in got.items() if k.startswith("calibrate")},
                          "calibrate, before"))
        if args.compare:
            compare(out)


if __name__ == "__main__":
    main()
