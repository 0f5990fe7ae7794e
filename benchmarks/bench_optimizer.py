"""Discount optimisation on TREC DL 2019: both backends, and the naive SLSQP it replaces.

    python benchmarks/bench_optimizer.py [--repeat 3] [--naive-cutoffs 20 100]

Reading the runs happens once and is not timed. In the same process, best of
``--repeat`` wall-clock times (after one untimed warm-up that also compiles the
CVXPY problem):

- one local solve of the optimal discount (linear gains) from the log2 start,
  at k = 20, 100 and 1000, with the SciPy backend (SLSQP on a working set, analytic
  gradients) and the CVXPY backend (SCP with Clarabel);
- the whole ``optimize()`` call (4 preset + 4 random starts, the result's figures
  for the 8 presets) at the same cutoffs;
- the peer: SLSQP with finite-difference gradients whose objective recomputes
  nDCG@k with the evaluate kernel (``nDCG(...).compute``) and Phi with ``gstudy``
  at every call, on the discount itself with the ordering as linear constraints
  (the paper's fmincon set-up). It is timed per cutoff in
  ``--naive-cutoffs`` (best of ``--repeat`` up to k = 100; once above: at k = 1000 it
  takes minutes, 1001 kernel calls per gradient).

Prints the times, the objectives (all runs must reach the same Phi), and the
speed-up of the SciPy backend over the peer as a ratio. Skips when the data are
absent.

Whole commands (``--commands``): ``irstab optimize discount -k K`` (default
multi-start) at each cutoff, ``irstab optimize pareto -k 1000 --prior log2
--points 5`` (``--pareto``) and ``--no-monotone`` at k = 1000 (``--free``), each a
fresh process, wall time best of ``--repeat``, against the same commands run
with the code of ``--baseline`` (a git revision, extracted with ``git archive``
into a temporary directory), side by side; the ratio is baseline / current.
Commands are stopped after ``--timeout`` seconds (reported as ``>timeout``).
Each row gives wall and CPU time (user + sys of the process and its children,
which a loaded machine inflates far less than wall time). For each
``optimize discount -k K`` a second row ("optimisation only") times, in a fresh
process of each tree, only the call ``optimize(collection, K)`` with the
defaults of the command (4 presets + 4 random starts, seed 0, the preset figures),
after the runs have been read and the solver modules imported. The load average
is printed with every row: on a shared machine the ratios are the figures to
trust, not the seconds.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"


def best_of(repeat: int, fn):
    fn()  # warm-up (imports, DPP compilation)
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def naive_objective(coll, k: int):
    """-Phi(1) of nDCG@k with linear gains and discount ``d``, recomputed from scratch."""
    from irstab.errors import IRStabWarning
    from irstab.metrics import Discount, Gain, nDCG
    from irstab.stability import gstudy

    def phi(d):
        m = nDCG(gain=Gain.of("linear"), discount=Discount.of(tuple(np.clip(d, 0, None))), cutoff=k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)
            return -gstudy(m.compute(coll)).phi(1)

    return phi


def naive_slsqp(coll, k: int):
    """SLSQP, finite-difference gradients, nDCG recomputed by the kernel at every call."""
    from scipy.optimize import LinearConstraint, minimize

    from irstab.metrics import Discount

    phi = naive_objective(coll, k)
    d0 = Discount.of("log2").vector(k)
    d0 = d0 / d0.sum()
    order = np.zeros((k - 1, k))
    order[np.arange(k - 1), np.arange(k - 1)] = 1.0
    order[np.arange(k - 1), np.arange(1, k)] = -1.0  # d_r - d_{r+1} >= 0
    cons = [LinearConstraint(order, 0, np.inf), LinearConstraint(np.ones((1, k)), 1, 1)]
    t0 = time.perf_counter()
    res = minimize(phi, d0, method="SLSQP", bounds=[(0, 1)] * k, constraints=cons,
                   options={"maxiter": 500, "ftol": 1e-10})
    return time.perf_counter() - t0, -res.fun, res.nit, res.nfev


def _timed(cmd: list[str], env: dict, timeout: float) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + sys of the child and its own children) and stdout of ``cmd``."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, env=env, timeout=timeout, check=True, capture_output=True,
                             text=True).stdout
    except subprocess.TimeoutExpired:
        return float("inf"), float("inf"), ""
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


#: Run in a fresh process: read the runs, import the solvers, then time only optimize().
_OPTIMISE_ONLY = """
import json, resource, sys, time, warnings
from irstab.collection import Collection
from irstab.optimizer import optimize
import scipy.optimize, scipy.sparse  # noqa: E401,F401  (imports outside the timing)
warnings.simplefilter("ignore")
qrels, runs, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
coll = Collection.from_files(qrels, runs, depth=k)
def cpu():
    return sum(getattr(resource.getrusage(w), f) for w in
               (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
t0, c0 = time.perf_counter(), cpu()
res = optimize(coll, k)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": cpu() - c0, "value": res.value}))
"""


def whole_commands(args) -> None:
    """Current tree against ``args.baseline`` on the same commands (module docstring)."""
    import json
    import os
    import subprocess
    import sys
    import tempfile

    repo = Path(__file__).resolve().parents[1]
    q, runs = str(DATA / "qrels.txt"), str(DATA / "runs")
    cli = [sys.executable, "-c",
           "import sys; from irstab.cli import main; sys.exit(main(sys.argv[1:]))"]
    rows = []
    for k in args.cutoffs:
        rows.append((f"optimize discount -k {k}", cli + ["optimize", "discount", q, runs, "-k",
                                                          str(k)]))
        rows.append((f"  optimisation only, k={k}", [sys.executable, "-c", _OPTIMISE_ONLY, q, runs,
                                                      str(k)]))
    if args.pareto:
        rows.append(("optimize pareto -k 1000 --prior log2 --points 5",
                     cli + ["optimize", "pareto", q, runs, "-k", "1000", "--prior", "log2",
                            "--points", "5"]))
    if args.free:
        rows.append(("optimize discount -k 1000 --no-monotone",
                     cli + ["optimize", "discount", q, runs, "-k", "1000", "--no-monotone",
                            "--no-strict"]))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(repo), "archive", args.baseline, "src"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {"current": repo / "src", f"baseline {args.baseline}": Path(tmp) / "src"}
        print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
              f"{platform.python_version()}; fresh process each, best of {args.repeat}, "
              f"timeout {args.timeout} s; seconds as wall / CPU")
        print(f"{'command':<50}{'current':>16}{'baseline':>16}{'ratio wall':>11}{'ratio CPU':>10}"
              f"{'load':>6}")
        for label, cmd in rows:
            best = {}
            for name, src in trees.items():
                env = dict(os.environ, PYTHONPATH=str(src))
                runs_ = [_timed(cmd, env, args.timeout) for _ in range(args.repeat)]
                wall = min(r[0] for r in runs_)
                cpu = min(r[1] for r in runs_)
                if runs_[-1][2].strip().startswith("{"):  # optimisation only: its own clock
                    inner = [json.loads(r[2]) for r in runs_]
                    wall = min(r["wall"] for r in inner)
                    cpu = min(r["cpu"] for r in inner)
                best[name] = (wall, cpu)
            (cw, cc), (bw, bc) = best.values()

            def fmt(w, c):
                if not np.isfinite(w):
                    return f">{args.timeout:.0f}"
                return f"{w:.2f} / {c:.2f}"

            def ratio(b, c):
                return f"{b / c:.2f}" if np.isfinite(b) and np.isfinite(c) else "nan"

            print(f"{label:<50}{fmt(cw, cc):>16}{fmt(bw, bc):>16}{ratio(bw, cw):>11}"
                  f"{ratio(bc, cc):>10}{os.getloadavg()[0]:>6.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cutoffs", type=int, nargs="+", default=[20, 100, 1000])
    parser.add_argument("--naive-cutoffs", type=int, nargs="*", default=[20, 100])
    parser.add_argument("--commands", action="store_true",
                        help="Only the whole-command comparison with --baseline.")
    parser.add_argument("--baseline", default="f3d26f7", help="git revision to compare with")
    parser.add_argument("--pareto", action="store_true")
    parser.add_argument("--free", action="store_true")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    if not (DATA / "qrels.txt").is_file():
        print(f"TREC DL 2019 not found at {DATA}; nothing to benchmark")
        return
    if args.commands:
        whole_commands(args)
        return

    import cvxpy
    import scipy

    from irstab.collection import Collection
    from irstab.optimizer import (
        Problem,
        Scenario,
        cvxpy_backend,
        optimize,
        scipy_backend,
    )
    from irstab.optimizer.scenario import discount_vector
    from irstab.optimizer.task import Task

    coll = Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=1000)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, scipy {scipy.__version__}, cvxpy {cvxpy.__version__}")
    print(f"TREC DL 2019: {coll.n_systems} systems x {coll.n_topics} topics; linear gains; "
          f"best of {args.repeat}\n")

    rows = {}
    print(f"{'task':<44}{'k':>6}{'seconds':>10}{'Phi(1)':>12}{'iter':>7}")
    for k in args.cutoffs:
        task = Task(Problem.build([Scenario(coll, k)], vary="discount", gain="linear"))
        y0 = task.param.variables(task.param.gain, discount_vector("log2", k))
        for name, solve in (("scipy backend (SLSQP), one start", scipy_backend.solve),
                            ("cvxpy backend (SCP), one start", cvxpy_backend.solve)):
            sec, sol = best_of(args.repeat, lambda solve=solve, task=task, y0=y0: solve(task, y0))
            rows[name, k] = (sec, sol.value)
            print(f"{name:<44}{k:>6}{sec:>10.3f}{sol.value:>12.8f}{sol.iterations:>7}")
        for backend in ("scipy", "cvxpy"):
            name = f"optimize(backend={backend}), 8 starts"
            sec, res = best_of(1, lambda backend=backend, k=k: optimize(coll, k, backend=backend))
            rows[name, k] = (sec, res.value)
            print(f"{name:<44}{k:>6}{sec:>10.3f}{res.value:>12.8f}{res.iterations:>7}")

    print()
    for k in sorted(set(args.cutoffs) | set(args.naive_cutoffs)):
        task = Task(Problem.build([Scenario(coll, k)], vary="discount", gain="linear"))
        y0 = task.param.variables(task.param.gain, discount_vector("log2", k))
        fast, _ = best_of(20, lambda task=task, y0=y0: task.problem.values_and_jac(y0))
        phi = naive_objective(coll, k)
        d0 = task.param.vectors(y0)[1]
        slow, _ = best_of(5, lambda phi=phi, d0=d0: phi(d0))
        print(f"k={k}: Phi(1) + analytic gradient {fast * 1e3:.2f} ms; one naive evaluation "
              f"(kernel nDCG + gstudy) {slow * 1e3:.2f} ms, {k + 1} of them per FD gradient")
    print()
    for k in args.naive_cutoffs:
        runs = [naive_slsqp(coll, k) for _ in range(args.repeat if k <= 100 else 1)]
        sec, value, nit, nfev = min(runs)
        name = "naive SLSQP, FD gradients, nDCG recomputed"
        print(f"{name:<44}{k:>6}{sec:>10.3f}{value:>12.8f}{nit:>7}   ({nfev} nDCG+Phi evaluations)")
        fast = rows.get(("scipy backend (SLSQP), one start", k))
        if fast is not None:
            print(f"  speed-up of the scipy backend over the naive SLSQP at k={k}: "
                  f"{sec / fast[0]:.0f}x  (Phi {fast[1]:.8f} vs {value:.8f})")


if __name__ == "__main__":
    main()
