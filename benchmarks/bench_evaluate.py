"""TREC DL 2019 (37 runs at depth 1000): the whole ``irstab evaluate`` command against
pytrec_eval, C trec_eval 10 and ir_measures, in CPU seconds of each process tree.

    python benchmarks/bench_evaluate.py --rounds 5 [--trec-eval PATH | --trec-eval-src DIR] \
        [--before OLD/src]
    python benchmarks/bench_evaluate.py --in-process [--repeat 5]

Default (whole processes): the runs are decompressed once, untimed, into a temporary
directory (C trec_eval reads plain text only; every tool then reads the same bytes). Each
round runs, in an order rotated by one every round (``_proc.rounds``):

- ``irstab evaluate QRELS RUNDIR -m <6 measures> -f trec`` (the console script);
- the same on the original ``.gz`` files;
- with ``--before SRC``: the command from that source tree (``PYTHONPATH``);
- ``peer_eval.py pytrec_eval``: plain Python parse + one pytrec_eval evaluator;
- C trec_eval 10, one process per run file (37 processes, times summed);
- ``peer_eval.py ir_measures`` when ir_measures is installed.

The 6 measures are trec_eval's ``ndcg_cut.10, ndcg_cut.100, map, P.10, recip_rank,
recall.1000`` at relevance level 1, computed alike by the four tools. Printed: the median
and range over the rounds of wall and CPU seconds (user + system of the process and every
descendant it waited for: irstab's worker processes included), CPU over irstab's, the
largest process's peak RSS and the 1-minute load average; and a check of the outputs:
irstab's must equal trec_eval's byte for byte, the Python peers' means to 4 decimals.
trec_eval comes from ``--trec-eval``, ``$TREC_EVAL`` or a build with ``make`` in
``--trec-eval-src`` (gcc needed); without one that peer is skipped.

Bytecode: the Python commands write and read it under a temporary ``PYTHONPYCACHEPREFIX``,
filled by one untimed run of each before the rounds, as an installed irstab (compiled when
pip installs it) and the installed peers run; ``--no-bytecode`` sets
``PYTHONDONTWRITEBYTECODE`` instead, so every run compiles irstab's sources again (a source
tree in an environment that forbids ``__pycache__``: 0.1-0.2 CPU seconds a command more), as
``bench_startup.py`` does.

``--in-process`` keeps the earlier comparison: parse all runs and compute trec_eval's 11
measures (at relevance levels 1 and 2 where they apply), irstab against pytrec_eval and
ranx when installed, end to end in this process; the best of ``--repeat`` wall times.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import _proc
import peer_eval

import irstab

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"
IRSTAB = [
    "nDCG@10", "nDCG@20", "nDCG@100", "nDCG", "AP", "P@10", "RR", "R-prec", "bpref",
    "Recall@100", "Recall@1000",
    "AP(rel=2)", "P(rel=2)@10", "RR(rel=2)", "R-prec(rel=2)", "bpref(rel=2)",
    "Recall(rel=2)@100", "Recall(rel=2)@1000",
]
TREC = {"ndcg_cut.10,20,100", "ndcg", "map", "P.10", "recip_rank", "Rprec", "bpref",
        "recall.100,1000"}
TREC_L2 = {"map", "P.10", "recip_rank", "Rprec", "bpref", "recall.100,1000"}


def run_irstab():
    return irstab.evaluate(DATA / "qrels.txt", DATA / "runs", IRSTAB, per_topic=True)


def _parse_trec():
    qrels = {}
    with open(DATA / "qrels.txt") as fh:
        for line in fh:
            t, _, d, g = line.split()
            qrels.setdefault(t, {})[d] = int(g)
    runs = {}
    for path in sorted((DATA / "runs").glob("*.gz")):
        run = {}
        with gzip.open(path, "rt") as fh:
            for line in fh:
                t, _, d, _, s, tag = line.split()
                run.setdefault(t, {})[d] = float(s)
        runs[path.name] = run
    return qrels, runs


def run_pytrec_eval():
    import pytrec_eval

    qrels, runs = _parse_trec()
    ev1 = pytrec_eval.RelevanceEvaluator(qrels, TREC)
    ev2 = pytrec_eval.RelevanceEvaluator(qrels, TREC_L2, relevance_level=2)
    return {name: (ev1.evaluate(run), ev2.evaluate(run)) for name, run in runs.items()}


def run_ranx():
    from ranx import Qrels, Run, evaluate

    qrels, runs = _parse_trec()  # ranx reads no .gz: same Python parse as pytrec_eval
    qrels = Qrels(qrels)
    metrics = ["ndcg@10", "ndcg@20", "ndcg@100", "ndcg", "map", "precision@10", "mrr",
               "r-precision", "recall@100", "recall@1000"]
    return {name: evaluate(qrels, Run(run), metrics) for name, run in runs.items()}


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def in_process(repeat: int) -> None:
    run_irstab()  # warm-up: imports, thread pool
    results = {"irstab": best_time(run_irstab, repeat)}
    results["pytrec_eval"] = best_time(run_pytrec_eval, repeat)
    try:
        import ranx  # noqa: F401

        run_ranx()
        results["ranx"] = best_time(run_ranx, repeat)
    except ImportError:
        print("ranx not installed: skipped")
    print(f"37 runs x 43 topics, depth 1000, {len(IRSTAB)} measure/level pairs "
          f"(ranx: its 10 level-1 equivalents, no bpref); best of {repeat}")
    for name, t in results.items():
        ratio = t / results["irstab"]
        print(f"  {name:12s} {t:7.3f} s   {ratio:5.2f}x irstab's time")


def whole_processes(args) -> None:
    binary = _proc.trec_eval(args.trec_eval, args.trec_eval_src)
    print(f"# DL-2019: 37 runs x 43 topics, depth 1000; measures {args.measures}; "
          f"{args.rounds} interleaved rounds; {os.cpu_count()} CPUs; Python "
          f"{sys.version.split()[0]}; "
          f"{'bytecode written once, untimed' if args.bytecode else 'no bytecode'}; "
          f"load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="irstab-bench-") as tmp:
        env = _proc.python_env(Path(tmp), args.bytecode)
        plain = Path(tmp) / "runs"
        plain.mkdir()
        for path in sorted((DATA / "runs").iterdir()):
            target = plain / path.name.removesuffix(".gz")
            with gzip.open(path, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        qrels, runs = DATA / "qrels.txt", sorted(plain.iterdir())
        evaluate = _proc.irstab_command() + ["evaluate", str(qrels)]
        opts = ["-m", args.measures, "-f", "trec"]
        peer = [sys.executable, str(Path(__file__).with_name("peer_eval.py"))]
        commands = {
            "irstab evaluate": lambda: _proc.run(evaluate + [str(plain)] + opts, env, pss=True),
            "irstab evaluate (.gz)": lambda: _proc.run(evaluate + [str(DATA / "runs")] + opts,
                                                       env),
            "pytrec_eval script": lambda: _proc.run(
                peer + ["pytrec_eval", str(qrels), str(plain), "-m", args.measures], env),
        }
        if args.before:  # the same command from another source tree, in the same rounds
            before = [sys.executable, "-c",
                      "import sys; from irstab.cli import main; sys.exit(main())"]
            before_env = dict(env, PYTHONPATH=args.before)
            commands["irstab evaluate (before)"] = lambda: _proc.run(
                before + ["evaluate", str(qrels), str(plain)] + opts, before_env, pss=True)
        if binary:
            te = _proc.trec_eval_argv(binary, args.measures) + [str(qrels)]
            commands["C trec_eval, 1 process per run"] = lambda: _proc.run_each(
                [te + [str(r)] for r in runs])
        if importlib.util.find_spec("ir_measures") is not None:
            commands["ir_measures script"] = lambda: _proc.run(
                peer + ["ir_measures", str(qrels), str(plain), "-m", args.measures], env)
        else:
            print("ir_measures not installed: skipped")
        commands["irstab --version"] = lambda: _proc.run(
            _proc.irstab_command() + ["--version"], env)
        if args.bytecode:  # untimed: the bytecode written, the files in the page cache
            for name, command in commands.items():
                if not name.startswith("C trec_eval"):
                    command()
        got = _proc.rounds(commands, args.rounds)
    print(_proc.table(got, "irstab evaluate"))
    _proc.check(got, [r.name for r in runs])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--measures", default=peer_eval.MEASURES)
    parser.add_argument("--trec-eval", default=None, metavar="PATH",
                        help="C trec_eval executable (default: $TREC_EVAL)")
    parser.add_argument("--trec-eval-src", default=None, metavar="DIR",
                        help="trec_eval source tree to build with make when no executable is given")
    parser.add_argument("--in-process", action="store_true",
                        help="the earlier in-process comparison (11 measures, best of --repeat)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", default=None, metavar="SRC",
                        help="also time irstab evaluate from this source tree (PYTHONPATH)")
    parser.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                        help="compile irstab's sources on every run (PYTHONDONTWRITEBYTECODE=1)")
    args = parser.parse_args()
    if not (DATA / "qrels.txt").is_file():
        raise SystemExit(f"data not found: {DATA}")
    if args.in_process:
        in_process(args.repeat)
    else:
        whole_processes(args)


if __name__ == "__main__":
    main()
