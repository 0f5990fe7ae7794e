"""Informativeness of GAP, nDCG and AP on TREC DL 2019: docs/informativeness-dl2019.md.

    python scripts/informativeness_study.py [--data DIR] [--out docs/informativeness-dl2019.md]
                                            [--step 0.5] [--seed 0]

Robertson, Kanoulas & Yilmaz (SIGIR 2010, §4.1, Fig. 2) judge GAP's thresholding
probabilities by the maximum entropy method of Aslam, Yilmaz & Pavlu (SIGIR 2005).
This script redoes that study on the DL-2019 passage runs (grades 0-3, so GAP has
three thresholds g1, g2, g3 = 1 - g1 - g2): GAP over a grid of (g1, g2), against
nDCG (exp gain, log2 discount), AP, P@10, RBP and the stability-optimal nDCG@100
(gain and discount maximising Phi, Kanoulas & Aslam, CIKM 2009). Every number in
the document is computed here; the prose states only what the numbers show.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from irstab.collection import Collection
from irstab.informativeness.analysis import cell_curves, informativeness
from irstab.errors import IRStabWarning
from irstab.io import atomic_write_text
from irstab.metrics import parse_measure
from irstab.optimizer import optimize
from irstab.report.informativeness_figures import plot_gap_grid, plot_pr_curves

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
BASE = ["AP", "nDCG(gain=exp)", "nDCG(gain=exp)@100", "P@10", "RBP(p=0.8)", "GAP"]


def _md(frame: pd.DataFrame, floatfmt: str = "{:.4f}") -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        cells = [floatfmt.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "informativeness-dl2019.md")
    ap.add_argument("--step", type=float, default=0.5, help="grid step of g1 and g2")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    figdir = args.out.parent / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore", IRStabWarning)
    t0 = time.time()
    coll = Collection.from_files(args.data / "qrels.txt", args.data / "runs")
    c = coll.max_grade

    opt = optimize(coll, 100, vary="joint", starts=2, seed=args.seed)
    optimum = opt.measure
    measures = [parse_measure(m) for m in BASE] + [optimum]
    res = informativeness(coll, measures, seed=args.seed)
    s = res.summary()
    name_opt = str(optimum)

    n = int(round(1 / args.step))
    grid_rows = []
    for i in range(n + 1):
        for j in range(n + 1 - i):
            g1, g2 = i / n, j / n
            g3 = max(0.0, 1.0 - g1 - g2)
            gap = parse_measure(f"GAP(g=({g1:g},{g2:g},{g3:g}))")
            r = informativeness(coll, [gap], seed=args.seed).summary()
            for row in r.itertuples():
                grid_rows.append({"g1": g1, "g2": g2, "g3": g3, "level": row.level,
                                  "mean_rms": row.mean_rms, "ci_low": row.ci_low,
                                  "ci_high": row.ci_high, "n_unsolved": row.n_unsolved})
            print(f"GAP g=({g1:g},{g2:g},{g3:g}) done", flush=True)
    grid = pd.DataFrame(grid_rows)

    def level_values(name):
        rows = s[s["measure"] == name]
        return {int(r.level): float(r.mean_rms) for r in rows.itertuples()}

    refs = {"AP": level_values("AP"), "nDCG(gain=exp)": level_values("nDCG(gain=exp)"),
            "optimal nDCG@100": level_values(name_opt)}
    grid_png = figdir / "dl2019-informativeness-gap-grid.png"
    plot_gap_grid(grid, refs, grid_png)

    # PR curves of the cell with the median AP error at grade >= 1
    cells = res.cells
    ap1 = cells[(cells["measure"] == "AP") & (cells["level"] == 1)].sort_values("rms")
    mid = ap1.iloc[len(ap1) // 2]
    # GAP with the best mean error over both levels (the best at grade >= 1 alone is AP)
    both = grid.groupby(["g1", "g2", "g3"], as_index=False)["mean_rms"].mean()
    best_g = both.sort_values("mean_rms").iloc[0]
    shown = ["AP", "nDCG(gain=exp)", "P@10", f"GAP(g=({best_g.g1:g},{best_g.g2:g},{best_g.g3:g}))"]
    curves = [cell_curves(coll, m, mid.system, mid.topic, level) for m in shown for level in (1, c)]
    pr_png = figdir / "dl2019-informativeness-pr.png"
    plot_pr_curves(curves, pr_png)

    elapsed = time.time() - t0
    short_opt = "stability-optimal nDCG@100"
    last_weight = int(np.flatnonzero(optimum.discount.vector(100, 100))[-1]) + 1
    table = s.copy()
    table["measure"] = [short_opt if m == name_opt else m for m in table["measure"]]
    table = table.rename(columns={"mean_rms": "mean RMS", "ci_low": "95% low", "ci_high": "95% high"})
    wide = {lvl: s[s["level"] == lvl].set_index("measure")["mean_rms"] for lvl in res.levels}
    order1 = wide[1].sort_values().rename(index={name_opt: short_opt})
    orderc = wide[c].sort_values().rename(index={name_opt: short_opt})
    g1best = grid[grid["level"] == 1].sort_values("mean_rms").iloc[0]
    gcbest = grid[grid["level"] == c].sort_values("mean_rms").iloc[0]
    ap_point = grid[(grid["g1"] == 1.0) & (grid["level"] == 1)]["mean_rms"]

    text = f"""# Informativeness on TREC DL 2019: GAP across g, nDCG and AP

Generated by `python scripts/informativeness_study.py` on {datetime.date.today()} ({platform.machine()},
Python {platform.python_version()}; {elapsed / 60:.1f} min on a shared, loaded machine).

The maximum entropy method (Aslam, Yilmaz & Pavlu, SIGIR 2005) asks how well a measure's
value alone predicts the ranked list it was computed from: for each (run, topic) list, the
most random probability-at-rank distribution whose expected measure equals the value and
whose expected number of documents of each grade equals the list's is found, its
precision-recall curve is inferred (expected counts, Aslam et al.), and the RMS error
against the actual curve is taken at the recall levels where the actual curve changes.
Lower error: more informative. Robertson, Kanoulas & Yilmaz (SIGIR 2010, §4.1, Fig. 2)
used it to choose GAP's thresholding probabilities. Here: 37 runs x 43 topics of the
TREC 2019 Deep Learning passage task (grades 0-3); lists with >= 5 relevant (grade >= 1)
and >= 5 grade-3 documents, as in both papers: {int(s['n_cells'].max())} lists on
{int(s['n_topics'].max())} topics. Intervals: 95% percentile bootstrap over topics.
The PR curves use "relevant = grade >= 1" and "relevant = grade {c}" (the highest).

## All measures

{_md(table[["measure", "level", "mean RMS", "95% low", "95% high", "n_cells", "n_unsolved"]])}
Ordering at grade >= 1 (most informative first): {", ".join(order1.index)}.
Ordering at grade {c}: {", ".join(orderc.index)}.

The stability-optimal nDCG@100 (gain and discount maximising Phi, Kanoulas & Aslam, CIKM
2009; `irstab optimize joint`, 2 random starts) is

```
{name_opt}
```

Its error is {wide[1][name_opt]:.4f} at
grade >= 1 and {wide[c][name_opt]:.4f} at grade {c}, against {wide[1]['nDCG(gain=exp)@100']:.4f}
and {wide[c]['nDCG(gain=exp)@100']:.4f} for nDCG(gain=exp)@100 at the same cutoff; its discount
is 0 past rank {last_weight}, so its value says nothing about the ranks after it. A measure
with a cutoff says nothing about ranks past it, so cutoff measures are compared with each other.

## GAP across its thresholding probabilities (Robertson et al., Fig. 2 redone)

![GAP grid]({grid_png.relative_to(args.out.parent)})

{_md(grid[["g1", "g2", "g3", "level", "mean_rms", "ci_low", "ci_high", "n_unsolved"]])}
Most informative g at grade >= 1: ({g1best.g1:g}, {g1best.g2:g}, {g1best.g3:g}) with
{g1best.mean_rms:.4f}; at grade {c}: ({gcbest.g1:g}, {gcbest.g2:g}, {gcbest.g3:g}) with
{gcbest.mean_rms:.4f}; best mean of both levels: ({best_g.g1:g}, {best_g.g2:g}, {best_g.g3:g}).
GAP with g = (1, 0, 0) is AP with relevant = grade >= 1 ({float(ap_point.iloc[0]) if len(ap_point) else float('nan'):.4f}
at grade >= 1). Robertson et al. found g1 = g2 = 0.5 best on TREC 9, 10 and 12 (two relevant
grades); the rows above show where DL-2019's optimum lies.

## One list: actual and inferred PR curves

{mid.system} on topic {mid.topic} (the list with the median AP error at grade >= 1); the GAP
shown has the g with the best mean error over both levels:

![PR curves]({pr_png.relative_to(args.out.parent)})
"""
    atomic_write_text(args.out, text)
    print(f"wrote {args.out} in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
