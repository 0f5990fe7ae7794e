"""G-studies of the README's measures on TREC DL 2019 (37 systems x 43 topics).

    python benchmarks/bench_gstudy.py [--repeat 7] [--resamples 1000]

Evaluation (reading the runs, computing the score matrices) happens once and
is not timed. Then, in the same process, best of ``--repeat`` wall-clock times:

- irstab: ``gstudy`` + F-based D-study (Erho2, Phi, intervals, topics needed)
  for every measure: what ``irstab stability`` computes;
- peer: statsmodels ``ols`` + ``anova_lm`` sums of squares for every measure
  (only the ANOVA, less than irstab does);
- irstab bootstrap: the same D-study with ``--resamples`` topic resamples.

Without the DL-2019 data, a simulated 37 x 43 matrix per measure is used.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from irstab.errors import IRStabWarning
from irstab.stability import gstudy

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"
MEASURES = [
    "nDCG@10",
    "nDCG(discount=zipf)@10",
    "nDCG(discount=linear)@10",
    "nDCG(gain=exp)@10",
    "nDCG(gain=exp,discount=zipf)@10",
    "nDCG(gain=exp,discount=linear)@10",
    "AP",
    "P@10",
    "RR",
    "GAP",  # replaced by nDCG@100 when GAP is not registered
]


def score_matrices() -> tuple[str, list[tuple[str, np.ndarray]]]:
    if (DATA / "qrels.txt").is_file():
        from irstab.collection import Collection
        from irstab.metrics import parse_measure

        from irstab.metrics import REGISTRY

        measures = [m if m != "GAP" or "GAP" in REGISTRY else "nDCG@100" for m in MEASURES]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IRStabWarning)
            coll = Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=1000)
        return "TREC DL 2019", [(m, parse_measure(m).compute(coll)) for m in measures]
    rng = np.random.default_rng(0)
    sims = []
    for m in MEASURES:
        x = (
            0.1 * rng.normal(size=(37, 1))
            + 0.2 * rng.normal(size=(1, 43))
            + 0.15 * rng.normal(size=(37, 43))
        )
        sims.append((m, x))
    return "simulated", sims


def irstab_stability(matrices):
    out = []
    for name, x in matrices:
        g = gstudy(x, name=name)
        out.append(g.dstudy(targets=(0.95,)))
    return out


def irstab_bootstrap(matrices, resamples):
    return [
        gstudy(x, name=name).dstudy(interval="bootstrap", n_resamples=resamples, seed=0)
        for name, x in matrices
    ]


def statsmodels_anova(matrices):
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    out = []
    for _, x in matrices:
        n_s, n_t = x.shape
        long = pd.DataFrame(
            {
                "system": np.repeat(np.arange(n_s), n_t).astype(str),
                "topic": np.tile(np.arange(n_t), n_s).astype(str),
                "score": x.ravel(),
            }
        )
        out.append(anova_lm(ols("score ~ C(system) + C(topic)", data=long).fit()))
    return out


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()

    source, matrices = score_matrices()
    shape = matrices[0][1].shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        irstab_stability(matrices)  # warm-up: lazy imports (scipy.special)
        statsmodels_anova(matrices)
        t_irstab = best_of(lambda: irstab_stability(matrices), args.repeat)
        t_sm = best_of(lambda: statsmodels_anova(matrices), args.repeat)
        t_boot = best_of(
            lambda: irstab_bootstrap(matrices, args.resamples), max(1, args.repeat // 2)
        )

    n = len(matrices)
    print(f"data: {source}, {n} measures, {shape[0]} systems x {shape[1]} topics")
    print(
        f"machine: {platform.processor() or platform.machine()}, "
        f"python {platform.python_version()}, "
        f"numpy {np.__version__}"
    )
    print(f"{'task':<58}{'total s':>10}{'per measure ms':>16}")
    rows = [
        ("irstab gstudy + F-based D-study (stability table)", t_irstab),
        ("statsmodels ols + anova_lm (sums of squares only)", t_sm),
        (f"irstab gstudy + bootstrap D-study ({args.resamples} resamples)", t_boot),
    ]
    for label, t in rows:
        print(f"{label:<58}{t:>10.4f}{1000 * t / n:>16.2f}")
    print(f"ratio statsmodels / irstab (F-based): {t_sm / t_irstab:.1f}x")
    print(f"stability table under 1 s: {'yes' if t_irstab < 1 else 'NO'} ({t_irstab:.4f} s)")


if __name__ == "__main__":
    main()
