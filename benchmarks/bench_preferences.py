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

``--kernel`` instead times the surrogate and its gradient (sparse linear forms in g x d, one
product each way) against a loop over comparisons and ranks written here, on the same
comparisons, and checks that they agree to 1e-12.

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
    ap.add_argument("--kernel", action="store_true")
    args = ap.parse_args(argv)
    if not (DATA / "qrels.txt").is_file():
        print(f"skipped: {DATA} not found")
        return 0
    if args.kernel:
        return kernel(args.seed)
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
        for ties in ("half", "exclude"):
            t0 = time.process_time()
            cf = cross_fit_agreement(prefs, cutoff=10, max_grade=coll.max_grade, folds=5,
                                     starts=2, ties=ties)
            cpu_fit = time.process_time() - t0
            t0 = time.process_time()
            front = agreement_front(coll, prefs, 10, starts=2, ties=ties)
            cpu_front = time.process_time() - t0
            presets = dict(cf.presets)
            best_name, best = max(cf.presets, key=lambda p: p[1].key(ties))
            rows.append((per, cf.cross_fitted.n, ties, cf.optimum.agreement.value(ties),
                         cf.cross_fitted.value(ties), best_name, best.value(ties),
                         presets[user].value(ties), cf.optimum.agreement.tie, presets[user].tie,
                         len(front.front), cpu_fit, cpu_front))
            if args.figure is not None and ties == "half":
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


def _loop_surrogate(ga, gb, pref, g, d, tau):
    """The surrogate and its gradient by a loop over comparisons and ranks (the peer)."""
    import math

    n = len(pref)
    value, grad_g, grad_d = 0.0, [0.0] * len(g), [0.0] * len(d)
    for i in range(n):
        a = sum(g[j] * d[r] for r, j in enumerate(ga[i][: len(d)]) if j > 0)
        b = sum(g[j] * d[r] for r, j in enumerate(gb[i][: len(d)]) if j > 0)
        t = a + b
        r_ = (a - b) / t if t > 0 else 0.0
        s = 1 / (1 + math.exp(-tau * pref[i] * r_))
        value += s / n
        if t <= 0:
            continue
        c = tau * pref[i] * s * (1 - s) / n
        da, db = c * (1 - r_) / t, c * (-1 - r_) / t
        for side, w in ((ga[i], da), (gb[i], db)):
            for r, j in enumerate(side[: len(d)]):
                if j > 0:
                    grad_g[j] += w * d[r]
                    grad_d[r] += w * g[j]
    return value, grad_g, grad_d


def kernel(seed: int) -> int:
    import numpy as np

    import irstab
    from irstab.preferences.fit import AgreementForms
    from irstab.preferences.simulated import simulated_comparisons

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=100)
    prefs = simulated_comparisons(coll, 10, per_topic=160, seed=seed)
    keep = prefs.preferred != 0
    ga, gb, p = prefs.grades_a[keep], prefs.grades_b[keep], prefs.preferred[keep]
    forms = AgreementForms(prefs.topic, prefs.preferred, prefs.grades_a, prefs.grades_b)
    g, d = np.array([0.0, 1.0, 3.0, 7.0]), 1 / np.log2(np.arange(2, 12))
    reps = 200
    forms.surrogate(g, d, 16.0)  # scipy.special's import, once
    t0 = time.process_time()
    for _ in range(reps):
        v, gg, gd = forms.surrogate(g, d, 16.0)
    ours = (time.process_time() - t0) / reps
    t0 = time.process_time()
    lv, lg, ld = _loop_surrogate(ga.tolist(), gb.tolist(), p.tolist(), g.tolist(), d.tolist(),
                                 16.0)
    peer = time.process_time() - t0
    assert abs(v - lv) < 1e-12 and np.allclose(gg, lg, atol=1e-12) and np.allclose(gd, ld,
                                                                                     atol=1e-12)
    print(f"{forms.n} comparisons, k = 10: surrogate and gradient {1e3 * ours:.2f} ms "
          f"(sparse forms) against {1e3 * peer:.0f} ms (loop): {peer / ours:.0f}x; equal to 1e-12")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
