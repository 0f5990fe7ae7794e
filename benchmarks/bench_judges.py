"""``irstab judges`` on TREC DL 2019 with the re-annotation: the whole command, and the
agreement's bootstrap against a loop over resamples with the reference packages.

    python benchmarks/bench_judges.py [--rounds 3] [--resamples 1000]

1. The whole command as a child process (``benchmarks/_proc.py``: CPU = user + system of the
   process tree), NIST's qrels + 8 re-annotators (9 judge sets) + 37 runs, six measures,
   ``-f json`` (with the judge facet, the default; without it; with the facet and PPI); beside it ``irstab evaluate`` of the same runs and measures, the floor that
   reading and scoring the runs sets.
2. In this process: irstab's agreement with ``--resamples`` bootstrap resamples over topics
   for every pair (one matrix product per pair), against the peer that recomputes each
   resample with scikit-learn's ``cohen_kappa_score`` and the ``krippendorff`` package's
   ``alpha`` (ordinal) for one pair (NIST against one re-annotator); the ratio is per
   resample and pair.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _proc  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DL = SHARED / "trec-dl-2019-passage"
RE = SHARED / "trec-dl-2019-reannotation" / "main"
MEASURES = "nDCG@10,nDCG(gain=exp)@10,nDCG@100,AP,P(rel=2)@10,RR(rel=2)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--peer-resamples", type=int, default=100)
    args = ap.parse_args()
    if not (DL / "qrels.txt").is_file() or not RE.is_dir():
        raise SystemExit(f"DL-2019 data not found under {SHARED}")
    irstab = _proc.irstab_command()
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    commands = {
        "irstab judges (9 judge sets, 37 runs, 6 measures)": lambda: _proc.run(
            [*irstab, "judges", str(DL / "qrels.txt"), str(RE), str(DL / "runs"), "-m", MEASURES,
             "-f", "json", "-B", str(args.resamples)]),
        "irstab judges, 6 measures, --no-facet": lambda: _proc.run(
            [*irstab, "judges", str(DL / "qrels.txt"), str(RE), str(DL / "runs"), "-m", MEASURES,
             "-f", "json", "-B", str(args.resamples), "--no-facet"]),
        "irstab judges, 6 measures, facet + PPI (--cheap froebe --gold-topics 0.5)":
            lambda: _proc.run(
                [*irstab, "judges", str(DL / "qrels.txt"), str(RE), str(DL / "runs"), "-m",
                 MEASURES, "-f", "json", "-B", str(args.resamples), "--cheap", "froebe",
                 "--gold-topics", "0.5"]),
        "irstab judges, agreement only (no runs)": lambda: _proc.run(
            [*irstab, "judges", str(DL / "qrels.txt"), str(RE), "-f", "json",
             "-B", str(args.resamples)]),
        "irstab evaluate (same runs and measures)": lambda: _proc.run(
            [*irstab, "evaluate", str(DL / "qrels.txt"), str(DL / "runs"), "-m", MEASURES]),
    }
    got = _proc.rounds(commands, args.rounds)
    print(_proc.table(got, "irstab judges (9 judge sets, 37 runs, 6 measures)"))

    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    from irstab.judges.agreement import _draw_weights, agreement
    from irstab.judges.labels import read_judge_sets

    warnings.simplefilter("ignore")
    sets = read_judge_sets(DL / "qrels.txt", [RE])
    t0 = time.process_time()
    r = agreement(sets, n_resamples=args.resamples, seed=0)
    ours = time.process_time() - t0
    n_pairs = len(r.pairs)
    a, b = sets.labels[0], sets.labels[1]
    m = ~np.isnan(a) & ~np.isnan(b)
    codes, _ = sets.topic_codes()
    used, g = np.unique(codes[m], return_inverse=True)
    W = _draw_weights(np.random.default_rng(0), args.peer_resamples, len(used))
    t0 = time.process_time()
    for w in W:  # the peer: each resample's pairs rebuilt and scored
        reps = w[g].astype(int)
        x, y = np.repeat(a[m], reps), np.repeat(b[m], reps)
        cohen_kappa_score(x, y, labels=[0, 1, 2, 3])
        krippendorff.alpha(np.stack([x, y]), level_of_measurement="ordinal",
                           value_domain=[0, 1, 2, 3])
    peer = time.process_time() - t0
    per_ours = ours / (args.resamples * n_pairs)
    per_peer = peer / args.peer_resamples
    print(f"\nagreement, {n_pairs} pairs x {args.resamples} resamples (6 statistics + binarised "
          f"at 3 levels + all judges): {ours:.2f} CPU s, {per_ours * 1e6:.1f} us per resample "
          f"and pair")
    print(f"peer loop (sklearn kappa + krippendorff ordinal alpha), {args.peer_resamples} "
          f"resamples of one pair: {peer:.2f} CPU s, {per_peer * 1e6:.0f} us per resample; "
          f"ratio peer / irstab {per_peer / per_ours:.0f}x")


if __name__ == "__main__":
    main()
