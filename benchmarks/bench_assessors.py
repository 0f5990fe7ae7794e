"""Three-facet G-study and its optimizer on TREC DL 2019 with the re-annotation.

    python benchmarks/bench_assessors.py [--repeat 5] [--resamples 1000]

The (topic, assessor) Collection (37 runs x 43 topics x NIST + a pair of
re-annotators, 130 cells) and the nDCG@10 scores are built once; their time is
printed but not part of the G-study. Then, in the same process, best of
``--repeat`` wall-clock times:

- irstab ``facet_gstudy`` (s x (a:t), unbalanced: Henderson's method 1) with
  Erho2, Phi and the cheapest design for Phi >= 0.95;
- peer: GeneralizIT's ``calculate_anova`` (Henderson's method 1 too) on the
  same long table;
- irstab percentile bootstrap over topics and assessors (``--resamples``);
- the optimizer: ``optimize_assessors`` (gain, then discount, nDCG@10, SciPy
  SLSQP, presets + 4 random starts), next to the two-facet ``optimize`` on the
  plain collection.

Peak RSS of the process is printed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import platform
import resource
import time
import warnings
from pathlib import Path

import numpy as np

from irstab.errors import IRStabWarning

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DL = SHARED / "trec-dl-2019-passage"
RE = SHARED / "trec-dl-2019-reannotation" / "main"


def best_of(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    if not (DL / "qrels.txt").is_file() or not RE.is_dir():
        raise SystemExit(f"DL-2019 data not found under {SHARED}")
    warnings.simplefilter("ignore", IRStabWarning)
    from irstab.collection.assessors import assessor_collection
    from irstab.optimizer import optimize, optimize_assessors
    from irstab.stability.facets import facet_gstudy

    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    t0 = time.perf_counter()
    ac = assessor_collection(DL / "qrels.txt", DL / "runs", RE)
    t_build = time.perf_counter() - t0
    long = ac.scores("nDCG@10").drop(columns="measure")
    n_cells = ac.collection.n_topics
    print(f"assessor collection: {ac.collection.n_systems} systems x {n_cells} cells "
          f"({long['topic'].nunique()} topics), built in {t_build:.2f} s (not timed below)")

    def irstab_g():
        g = facet_gstudy(long, "nested", name="nDCG@10")
        return g, g.phi(), g.erho2(), g.needed(0.95)

    t_ir, (g, *_) = best_of(irstab_g, args.repeat)
    print(f"irstab facet_gstudy (+ Phi, Erho2, cheapest design): {t_ir * 1e3:.1f} ms "
          f"[{g.method}]")

    try:
        from generalizit import GeneralizIT
    except ImportError:
        GeneralizIT = None
    if GeneralizIT is not None:
        frame = long.assign(r=long["topic"] + "/" + long["assessor"]).rename(
            columns={"system": "p", "topic": "t"}
        )[["p", "t", "r", "score"]]

        def peer():
            with contextlib.redirect_stdout(io.StringIO()):
                gt = GeneralizIT(frame, "p x (r:t)", "score")
                gt.calculate_anova()
            return gt

        t_peer, _ = best_of(peer, max(1, min(args.repeat, 2)))
        print(f"GeneralizIT calculate_anova: {t_peer:.2f} s  (ratio {t_peer / t_ir:.0f}x)")

    t_boot, iv = best_of(lambda: g.bootstrap(args.resamples, seed=0), max(1, args.repeat // 2))
    print(f"irstab bootstrap, {args.resamples} resamples over topics and assessors: "
          f"{t_boot:.2f} s  (Phi CI {iv.phi[0]:.3f}-{iv.phi[1]:.3f})")

    for vary in ("gain", "discount"):
        t_opt, res = best_of(lambda: optimize_assessors(ac, 10, vary=vary), 1)
        print(f"optimize_assessors vary={vary}: {t_opt:.2f} s, Phi(1,1) {res.value:.4f}, "
              f"{len(res.starts)} starts -> {res}")
    from irstab.collection import Collection

    coll = Collection.from_files(DL / "qrels.txt", DL / "runs", depth=1000)
    t_two, res2 = best_of(lambda: optimize(coll, 10, vary="gain"), 1)
    print(f"two-facet optimize vary=gain on 37 x 43: {t_two:.2f} s, Phi(1) {res2.value:.4f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
