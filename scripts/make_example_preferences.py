"""Regenerate data/example-preferences/: synthetic side-by-side preferences on data/example.

Usage (from the repository root)::

    python scripts/make_example_preferences.py [--out data/example-preferences]

For every topic of the bundled example collection, 8 pairs of its runs are drawn, and each
pair is shown to 3 of 6 simulated judges (top 10 of each run, trec_eval's order). A judge's
utility of a ranking is a rank-biased sum of exponential gains, sum_r (2^g_r - 1) p^(r-1)
with p = 0.7, divided by the ideal ranking's; the judge prefers side A when
``10 (u_A - u_B) + b_j + e`` exceeds 0.5, side B when it is below -0.5, and has no preference
otherwise (``b_j``: the judge's own lean towards side A, normal with sd 0.3; ``e``: standard
normal noise per comparison). The users thus follow neither nDCG's log discount nor its
linear gain: a measure-selection study has something to find. Deterministic (seed 2015):
the same code writes the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import tempfile
from pathlib import Path

import numpy as np

from irstab.io import atomic_write_text
from irstab.preferences.read import read_comparisons

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"
SEED = 2015
PAIRS_PER_TOPIC, JUDGES_PER_PAIR, JUDGES, PERSISTENCE = 8, 3, 6, 0.7


def _pairs(rng: np.random.Generator) -> list[tuple[str, str, str]]:
    qrels = (EXAMPLE / "qrels.txt").read_text().split("\n")
    topics = sorted({line.split()[0] for line in qrels if line.strip()})
    runs = sorted(p.name for p in (EXAMPLE / "runs").iterdir())
    out = []
    for t in topics:
        for _ in range(PAIRS_PER_TOPIC):
            a, b = rng.choice(len(runs), 2, replace=False)
            out.append((t, runs[a], runs[b]))
    return out


def _utility(grades: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """Rank-biased exponential-gain utility of each row, over the ideal ranking's."""
    weights = PERSISTENCE ** np.arange(grades.shape[-1])
    gain = np.where(grades >= 0, 2.0 ** np.maximum(grades, 0) - 1, 0.0)
    best = ((2.0 ** ideal - 1) * PERSISTENCE ** np.arange(ideal.shape[-1])).sum(-1)
    return (gain * weights).sum(-1) / np.maximum(best, 1e-12)


def build() -> str:
    rng = np.random.default_rng(SEED)
    pairs = _pairs(rng)
    # the sides' grades, read by irstab's own reader from a file of run names
    tmp = io.StringIO()
    w = csv.writer(tmp, lineterminator="\n")
    w.writerow(["topic", "run_a", "run_b", "preferred"])
    w.writerows([(t, a, b, "none") for t, a, b in pairs])
    with tempfile.TemporaryDirectory() as scratch:
        pairs_file = Path(scratch) / "pairs.csv"
        pairs_file.write_text(tmp.getvalue())
        c = read_comparisons(pairs_file, EXAMPLE / "qrels.txt", [EXAMPLE / "runs"], depth=10)
    grades_by_topic: dict[str, list[int]] = {}
    for line in (EXAMPLE / "qrels.txt").read_text().splitlines():
        t, _, _, g = line.split()
        if int(g) > 0:
            grades_by_topic.setdefault(t, []).append(int(g))
    ideal = np.zeros((c.n, 10))
    for i, t in enumerate(c.topic):
        top = sorted(grades_by_topic.get(t, []), reverse=True)[:10]
        ideal[i, :len(top)] = top
    gap = _utility(c.grades_a, ideal) - _utility(c.grades_b, ideal)
    lean = rng.normal(0.0, 0.3, JUDGES)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["topic", "run_a", "run_b", "preferred", "judge"])
    for i, (t, a, b) in enumerate(pairs):
        for j in sorted(rng.choice(JUDGES, JUDGES_PER_PAIR, replace=False)):
            latent = 10.0 * gap[i] + lean[j] + rng.normal()
            side = "A" if latent > 0.5 else "B" if latent < -0.5 else "none"
            w.writerow([t, a, b, side, f"judge{j + 1}"])
    return out.getvalue()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "example-preferences")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "preferences.csv", build())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
