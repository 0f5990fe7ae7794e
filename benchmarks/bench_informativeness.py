"""Maximum-entropy solves on TREC DL 2019: vectorised Newton against a per-cell SciPy solve.

    python benchmarks/bench_informativeness.py [--data DIR] [--sample 12] [--workers N]

All 37 x 43 (system, topic) cells for five measures (AP, GAP, nDCG with exp gain, P@10,
RBP(p=0.8)) with :func:`irstab.informativeness.maxent.solve_maxent` (blocks of 64 cells on the
free cores, SciPy fallback off so the time is the vectorised solver's alone), against
the peer: the same equations solved cell by cell with :func:`scipy.optimize.root`
(MINPACK hybr, the solver's own fallback), timed on a random sample of cells and scaled
to all cells. Prints CPU seconds (this process and its workers) and wall seconds, the
ratio, how many cells each left unsolved, the largest difference between the two
solutions on the sample and the entropy gap there (ours minus SciPy's: >= 0 when ours
is the larger), and the peak RSS.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings
from pathlib import Path

import numpy as np

from irstab.collection import Collection
from irstab.informativeness.analysis import cell_inputs
from irstab.informativeness.maxent import auto_workers, entropy, solve_maxent
from irstab.informativeness.maxent_scipy import solve_cell_scipy
from irstab.informativeness.product_expectation import product_form
from irstab.metrics import parse_measure

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2019-passage"
MEASURES = ["AP", "GAP", "nDCG(gain=exp)", "P@10", "RBP(p=0.8)"]


def _cpu() -> float:
    """CPU seconds of this process and of its finished worker processes."""
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + child.ru_utime + child.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--sample", type=int, default=12, help="cells per measure for the SciPy peer")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None,
                    help="processes for solve_maxent (default: its own choice, the free cores)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    coll = Collection.from_files(args.data / "qrels.txt", args.data / "runs")
    grades, onehot, counts, free = cell_inputs(coll)
    C = len(grades)
    rng = np.random.default_rng(args.seed)
    workers = auto_workers(C) if args.workers is None else args.workers
    print(f"{coll.n_systems} systems x {coll.n_topics} topics = {C} cells, depth {grades.shape[1]}, "
          f"{workers} worker process(es) on {os.cpu_count()} cores")
    print(f"{'measure':16s} {'ours cpu':>9s} {'wall':>7s} {'unsolved':>8s} "
          f"{'scipy cpu/cell':>14s} {'scipy all (est.)':>16s} {'ratio':>7s} {'max |dP|':>9s} {'dH':>9s}")
    tot_ours = tot_ours_wall = tot_peer = 0.0
    for name in MEASURES:
        form = product_form(parse_measure(name), coll)
        v = form.value(onehot)
        c0, w0 = _cpu(), time.perf_counter()
        sol = solve_maxent(form, counts, free, v, fallback=False, workers=workers)
        ours, ours_wall = _cpu() - c0, time.perf_counter() - w0
        sample = rng.choice(np.flatnonzero(sol.converged & np.isfinite(sol.mu)),
                            size=args.sample, replace=False)
        c0 = time.process_time()
        diffs, dH, failed = [], [], 0
        for c in sample:
            out = solve_cell_scipy(form.take(np.array([c])), counts[c], free[c], v[c],
                                    np.zeros(counts.shape[1]), 0.0, 1e-9)
            if out is None:
                failed += 1
            else:
                diffs.append(np.abs(out[0] - sol.P[c]).max())
                dH.append(entropy(sol.P[c][None])[0] - entropy(out[0][None])[0])
        per_cell = (time.process_time() - c0) / len(sample)
        peer = per_cell * C
        tot_ours += ours
        tot_ours_wall += ours_wall
        tot_peer += peer
        print(f"{name:16s} {ours:9.2f} {ours_wall:7.2f} {int((~sol.converged).sum()):8d} "
              f"{per_cell:14.3f} {peer:16.1f} {peer / ours:7.1f} "
              f"{max(diffs) if diffs else float('nan'):9.2e} "
              f"{min(dH) if dH else float('nan'):9.1e}"
              + (f"  (SciPy failed on {failed}/{len(sample)} sampled cells)" if failed else ""))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n = len(MEASURES)
    print(f"{'all five':16s} {tot_ours:9.2f} {tot_ours_wall:7.2f} {'':8s} "
          f"{tot_peer / (n * C):14.3f} {tot_peer:16.1f} {tot_peer / tot_ours:7.1f}")
    print(f"\nsummary: {coll.n_systems} x {coll.n_topics} cells x {n} measures, vectorised Newton "
          f"{tot_ours:.2f} s CPU ({tot_ours_wall:.2f} s wall; target < 10 s: "
          f"{'met' if tot_ours_wall < 10 else 'not met'})")
    print(f"summary: per-cell SciPy solve {1000 * tot_peer / (n * C):.1f} ms CPU (mean over "
          f"{args.sample} sampled cells per measure), all cells {tot_peer:.1f} s; "
          f"ratio SciPy / vectorised {tot_peer / tot_ours:.1f}x")
    print(f"summary: peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
