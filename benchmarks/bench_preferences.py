"""Does the agreement-optimal nDCG find a known user, and is its cross-fitted figure honest?

    python benchmarks/bench_preferences.py [--per-topic 10,40,160] [--seed 7] [--figure PATH]

TREC DL 2019 (37 runs, 43 topics, k = 10) with SIMULATED side-by-side preferences
(irstab.preferences.simulated: pairs of runs shown on one topic, a simulated user who prefers
side A with probability sigma(8 (A - B) / (A + B)) for the DCG@10 of a hidden exp gain and zipf
discount). No public data set pairs runs with users' preferences on the same topics, so the
user is simulated, with a known truth: no configuration can agree with this user more often,
in expectation, than the user's own (exp, zipf). For each number of comparisons per topic and
each rule (a tie counts half; Sanderson et al.'s, ties left out):

* the optimum's agreement on all topics (in sample), cross-fitted (5 topic folds), the best
  preset's and the user's own configuration's, and the ties of the optimum and of the user's;
* CPU seconds of the cross-fit (6 fits) and of the front of Phi against agreement.

A cross-fitted figure above the user's own would be optimism leaking through; an in-sample
figure above it is the search's optimism, which should shrink as comparisons grow. Prints one
row per setting; ``--markdown`` the table for benchmarks/README.md; ``--figure`` writes the
front at the largest setting. Skips when the DL-2019 data are absent.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-topic", default="10,40,160")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--figure", type=Path, default=None)
    args = ap.parse_args(argv)
    if not (DATA / "qrels.txt").is_file():
        print(f"skipped: {DATA} not found")
        return 0
    import irstab
    from irstab.preferences.fit import cross_fit_agreement
    from irstab.preferences.front import agreement_front
    from irstab.preferences.simulated import simulated_comparisons

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=100)
    user = "nDCG(gain=exp,discount=zipf)@10"
    rows = []
    for per in (int(p) for p in args.per_topic.split(",")):
        prefs = simulated_comparisons(coll, 10, per_topic=per, seed=args.seed)
        for rule in ("half", "sanderson"):
            t0 = time.process_time()
            cf = cross_fit_agreement(prefs, cutoff=10, max_grade=coll.max_grade, folds=5,
                                     starts=2, rule=rule)
            cpu_fit = time.process_time() - t0
            t0 = time.process_time()
            front = agreement_front(coll, prefs, 10, starts=2, rule=rule)
            cpu_front = time.process_time() - t0
            presets = dict(cf.presets)
            best_name, best = max(cf.presets, key=lambda p: p[1].key(rule))
            rows.append((per, cf.cross_fitted.n, rule, cf.optimum.agreement.value(rule),
                         cf.cross_fitted.value(rule), best_name, best.value(rule),
                         presets[user].value(rule), cf.optimum.agreement.tie, presets[user].tie,
                         len(front.front), cpu_fit, cpu_front))
            if args.figure is not None and rule == "half":
                last_front = front
            print(*(f"{v:.4f}" if isinstance(v, float) else v for v in rows[-1]), sep="\t",
                  file=sys.stderr)
    if args.markdown:
        print("| per topic | comparisons | rule | in sample | cross-fitted | best preset | "
              "its rate | user's own | ties (optimum / user's) | front points | CPU s "
              "cross-fit / front |")
        print("|" + "---|" * 11)
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.4f} | {r[4]:.4f} | {r[5]} | "
                  f"{r[6]:.4f} | {r[7]:.4f} | {r[8]} / {r[9]} | {r[10]} | "
                  f"{r[11]:.1f} / {r[12]:.1f} |")
    if args.figure is not None:
        from irstab.report.preference_figures import plot_agreement_front

        plot_agreement_front(last_front, args.figure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
