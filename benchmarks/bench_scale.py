"""Large simulated collections: wall time, CPU and peak memory of irstab against pytrec_eval,
C trec_eval 10 and a bare pyarrow parse.

    python benchmarks/bench_scale.py --root /work/bigdata --systems 200 --topics 1000 --depth 100
    python benchmarks/bench_scale.py ... --tasks evaluate,stability,optimize,pytrec_eval,cluster
    python benchmarks/bench_scale.py --systems 100 --topics 200 --depth 1000 --tasks "" \
        --rounds 3 --trec-eval PATH

The collection (``write_simulated``, seed 12) is written once under ``--root`` (outside the
repository) and reused; writing is timed separately. Every task runs in its own child
process, so its peak RSS is its own: the figure reported is the child's peak resident set
minus its baseline after imports (numpy, pandas, pyarrow, irstab and, for the peer,
pytrec_eval; the import peak is forgotten through /proc/self/clear_refs), divided by the number of ranked entries (systems x topics x depth). Worker
processes (irstab reduces run files in one process per core) are reported separately
(the largest worker's peak RSS), and so is the whole tree's peak (child and workers
summed, sampled every 50 ms: ``_proc.tree_rss``). Each task's CPU is user + system seconds of its whole
process tree (the child, its workers and their imports; ``_proc.run``), beside the wall
time of the timed section and of the whole child.

``--rounds N`` then times whole commands in N interleaved rounds (order rotated each round,
``_proc.rounds``): ``irstab evaluate QRELS RUNDIR -m <6 trec_eval measures> -f trec``, the
pytrec_eval script and the bare ``pyarrow.csv.read_csv`` parse of every file
(``peer_eval.py``), and C trec_eval 10 once per run file (summed) when ``--trec-eval``,
``$TREC_EVAL`` or ``--trec-eval-src`` gives one; printed as in bench_evaluate.py, with
irstab's output checked against trec_eval's. As there, the Python commands write their
bytecode once, untimed, under a temporary prefix (whatever PYTHONDONTWRITEBYTECODE says).

Tasks
-----
evaluate     irstab.evaluate, 3 measures (nDCG@10, nDCG@100, AP), batch by batch
stability    scores of nDCG@10 batch by batch + G-study (variance components, Phi)
optimize     sparse linear forms to rank 100, batch by batch (what ``irstab optimize`` builds)
             + optimize_discount(cutoff=100) (SciPy SLSQP)
pytrec_eval  pytrec_eval on the same 3 measures, one run file at a time (Python parse)
cluster      irstab.evaluate on a dask LocalCluster of 2 worker processes
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import _proc
import peer_eval

MEASURES = ["nDCG@10", "nDCG@100", "AP"]
TREC = {"ndcg_cut.10,100", "map"}


def _rss() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _peak() -> int:
    """Peak resident set since the last :func:`_reset_peak` (VmHWM)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _reset_peak() -> None:
    """Forget the peak of the imports (Linux: writing 5 to clear_refs resets VmHWM)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def child(task: str, root: Path) -> dict:
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401

    import irstab

    if task == "pytrec_eval":
        import pytrec_eval
    qrels, runs = root / "qrels.txt", root / "runs"
    _reset_peak()
    base = _rss()
    t0 = time.perf_counter()
    if task == "evaluate":
        frame = irstab.evaluate(qrels, runs, MEASURES)
        check = float(frame["value"].sum())
    elif task == "stability":
        from irstab.evaluation import score_runs
        from irstab.stability import gstudy

        scores = score_runs(qrels, runs, ["nDCG@10"])
        g = gstudy(scores.matrix("nDCG@10"))
        check = float(g.phi(scores.values.shape[2]))
    elif task == "optimize":
        from irstab.optimizer import linear_forms, optimize_discount

        forms = linear_forms(qrels, runs, 100)
        result = optimize_discount(forms, cutoff=100)
        check = float(result.value)
    elif task == "pytrec_eval":
        q: dict = {}
        with open(qrels) as fh:
            for line in fh:
                t, _, d, g = line.split()
                q.setdefault(t, {})[d] = int(g)
        ev = pytrec_eval.RelevanceEvaluator(q, TREC)
        check = 0.0
        for path in sorted(runs.iterdir()):
            run: dict = {}
            with open(path) as fh:
                for line in fh:
                    t, _, d, _, s, _ = line.split()
                    run.setdefault(t, {})[d] = float(s)
            res = ev.evaluate(run)
            check += sum(v["map"] for v in res.values())
    elif task == "cluster":
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as lc, \
                Client(lc) as client:
            t0 = time.perf_counter()  # the cluster's start-up is not timed
            frame = irstab.evaluate(qrels, runs, MEASURES, client=client)
            check = float(frame["value"].sum())
    else:
        raise SystemExit(f"unknown task {task}")
    wall = time.perf_counter() - t0
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return {"task": task, "wall": wall, "peak": _peak(), "base": base,
            "worker_peak": children, "check": check}


def ensure(root: Path, S: int, T: int, D: int) -> float | None:
    if (root / "qrels.txt").is_file() and (root / "runs").is_dir() and \
            len(list((root / "runs").iterdir())) == S:
        return None
    from irstab.simulate import write_simulated

    t0 = time.perf_counter()
    write_simulated(root, n_systems=S, n_topics=T, depth=D, seed=12)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("/work/bigdata"))
    ap.add_argument("--systems", type=int, default=200)
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--tasks", default="evaluate,stability,optimize,pytrec_eval,cluster")
    ap.add_argument("--rounds", type=int, default=0,
                    help="then time whole commands against the peers in this many rounds")
    ap.add_argument("--measures", default=peer_eval.MEASURES, help="measures of --rounds")
    ap.add_argument("--trec-eval", default=None, metavar="PATH",
                    help="C trec_eval executable for --rounds (default: $TREC_EVAL)")
    ap.add_argument("--trec-eval-src", default=None, metavar="DIR",
                    help="trec_eval source tree to build with make when no executable is given")
    ap.add_argument("--runs", type=int, default=0, metavar="N",
                    help="--rounds on the collection's first N run files only (links in a "
                         "directory beside them): 10 of 100 runs make 2e6 entries of 2e7")
    ap.add_argument("--before", default=None, metavar="SRC",
                    help="--rounds also times irstab from this source tree (PYTHONPATH)")
    ap.add_argument("--no-peers", dest="peers", action="store_false",
                    help="--rounds without the pytrec_eval script")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    S, T, D = args.systems, args.topics, args.depth
    root = args.root / f"sim_{S}x{T}x{D}"
    if args.child:
        print(json.dumps(child(args.child, root)))
        return
    written = ensure(root, S, T, D)
    entries = S * T * D
    size = sum(p.stat().st_size for p in (root / "runs").iterdir())
    print(f"collection {root}: {S} x {T} x {D} = {entries:.3g} entries, {size / 1e6:.0f} MB of runs"
          + (f"; written in {written:.1f} s" if written else ""))
    results = {}
    for task in filter(None, args.tasks.split(",")):
        try:
            proc = _proc.run([sys.executable, __file__, "--root", str(args.root), "--systems",
                              str(S), "--topics", str(T), "--depth", str(D), "--child", task],
                             env=os.environ)
        except SystemExit as failed:
            print(f"{task}: failed\n{failed}")
            continue
        r = json.loads(proc.stdout[0].strip().splitlines()[-1])
        results[task] = r
        above = r["peak"] - r["base"]
        print(f"{task:12s} wall {r['wall']:8.1f} s (whole child {proc.wall:6.1f} s)   "
              f"CPU {proc.cpu:7.1f} s   peak RSS {r['peak'] / 2**30:6.2f} GB   "
              f"above baseline {above / 2**20:8.0f} MB = {above / entries:6.2f} B/entry   "
              f"largest worker {r['worker_peak'] / 2**30:5.2f} GB   "
              f"process tree {proc.tree_rss / 2**30:5.2f} GB   "
              f"load {proc.load_before:.2f}->{proc.load_after:.2f}")
    if "pytrec_eval" in results and "evaluate" in results:
        print(f"pytrec_eval / irstab evaluate: "
              f"{results['pytrec_eval']['wall'] / results['evaluate']['wall']:.2f}x")
    if args.rounds:
        whole_commands(root, args)


def whole_commands(root: Path, args) -> None:
    """Interleaved rounds of whole commands on the collection (module docstring)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="irstab-bench-") as tmp:
        _whole_commands(root, args, _proc.python_env(Path(tmp), bytecode=True))


def _whole_commands(root: Path, args, env: dict) -> None:
    """:func:`whole_commands` with the Python commands' environment ``env``: bytecode under
    a temporary prefix, written in an untimed first run (an environment that sets
    PYTHONDONTWRITEBYTECODE would otherwise compile irstab's modules in every round:
    0.8 s of a 2e6 figure)."""
    binary = _proc.trec_eval(args.trec_eval, args.trec_eval_src)
    qrels, rundir = root / "qrels.txt", root / "runs"
    runs = sorted(rundir.iterdir())
    if args.runs:
        runs = runs[:args.runs]
        rundir = root / f"first{args.runs}"
        rundir.mkdir(exist_ok=True)
        for r in runs:
            if not (rundir / r.name).exists():
                (rundir / r.name).symlink_to(r)
    peer = [sys.executable, str(Path(__file__).with_name("peer_eval.py"))]
    evaluate = ["evaluate", str(qrels), str(rundir), "-m", args.measures, "-f", "trec"]
    commands = {
        "irstab evaluate": lambda: _proc.run(_proc.irstab_command() + evaluate, env, pss=True),
    }
    if args.before:
        before_env = dict(env, PYTHONPATH=args.before)
        commands["irstab evaluate (before)"] = lambda: _proc.run(
            [sys.executable, "-c", "import sys; from irstab.cli import main; sys.exit(main())"]
            + evaluate, env=before_env, pss=True)
    if args.peers:
        commands["pytrec_eval script"] = lambda: _proc.run(
            peer + ["pytrec_eval", str(qrels), str(rundir), "-m", args.measures], env)
    commands["pyarrow read_csv, parse only"] = lambda: _proc.run(
        peer + ["pyarrow", str(qrels), str(rundir)], env)
    if binary:
        te = _proc.trec_eval_argv(binary, args.measures) + [str(qrels)]
        commands["C trec_eval, 1 process per run"] = lambda: _proc.run_each(
            [te + [str(r)] for r in runs])
    entries = len(runs) * args.topics * args.depth
    print(f"# whole commands, {args.rounds} interleaved rounds; {len(runs)} runs, "
          f"{entries:.3g} entries; measures {args.measures}; "
          f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
          f"load average {os.getloadavg()}")
    for name, command in commands.items():  # untimed: the bytecode written, files cached
        if not name.startswith("C trec_eval"):
            command()
    got = _proc.rounds(commands, args.rounds)
    print(_proc.table(got, "irstab evaluate"))
    for name, samples in got.items():
        cpu = sorted(s.cpu for s in samples)[len(samples) // 2]
        print(f"{name}: {cpu / entries * 1e9:.0f} ns of CPU an entry (median round)")
    print(f"# load average after: {os.getloadavg()}")
    _proc.check(got, [r.name for r in runs])


if __name__ == "__main__":
    main()
