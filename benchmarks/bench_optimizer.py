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
The load average is printed with every row: on a shared machine the ratios are
the figures to trust, not the seconds.
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


def _cli_time(src: Path, argv: list[str], timeout: float) -> float:
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(src))
    code = "import sys; from irstab.cli import main; sys.exit(main(sys.argv[1:]))"
    t0 = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-c", code, *argv], env=env, timeout=timeout, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.perf_counter() - t0


def whole_commands(args) -> None:
    """Current tree against ``args.baseline`` on the same commands (module docstring)."""
    import os
    import subprocess
    import tempfile

    repo = Path(__file__).resolve().parents[1]
    q, runs = str(DATA / "qrels.txt"), str(DATA / "runs")
    commands = [(f"optimize discount -k {k}", ["optimize", "discount", q, runs, "-k", str(k)])
                for k in args.cutoffs]
    if args.pareto:
        commands.append(("optimize pareto -k 1000 --prior log2 --points 5",
                         ["optimize", "pareto", q, runs, "-k", "1000", "--prior", "log2",
                          "--points", "5"]))
    if args.free:
        commands.append(("optimize discount -k 1000 --no-monotone",
                         ["optimize", "discount", q, runs, "-k", "1000", "--no-monotone",
                          "--no-strict"]))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(repo), "archive", args.baseline, "src"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {"current": repo / "src", f"baseline {args.baseline}": Path(tmp) / "src"}
        print(f"whole commands, fresh process each, best of {args.repeat}, timeout {args.timeout} s")
        print(f"{'command':<50}{'current':>10}{'baseline':>10}{'ratio':>8}{'load':>7}")
        for label, argv in commands:
            best = {}
            for name, src in trees.items():
                best[name] = min(_cli_time(src, argv, args.timeout) for _ in range(args.repeat))
            cur, base = best.values()
            fmt = lambda v: f">{args.timeout:.0f}" if v == float("inf") else f"{v:.2f}"  # noqa: E731
            ratio = base / cur if np.isfinite(cur) and np.isfinite(base) else float("nan")
            print(f"{label:<50}{fmt(cur):>10}{fmt(base):>10}{ratio:>8.2f}"
                  f"{os.getloadavg()[0]:>7.1f}", flush=True)


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
    from irstab.optimizer.problem import Task, discount_vector

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
