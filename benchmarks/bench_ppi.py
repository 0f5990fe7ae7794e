"""Validity of prediction-powered intervals (irstab.judges.ppi) on TREC DL 2019.

    python benchmarks/bench_ppi.py [--reps 1000] [--pairs 20] [--seed 0] [--measure nDCG@10]

Gold: the official NIST qrels, 43 evaluated topics, 37 runs. Cheap judges, built from the
re-annotation of eight assessors (../shared/data/trec-dl-2019-reannotation/main; each topic
re-judged by a pair of assessors on about 40 % of its NIST pool):

- ``<assessor>+nist``: one re-annotator's labels where it gave them, NIST's everywhere else
  (its unjudged documents and the topics it did not judge): a cheap judge that agrees with
  gold on most labels, the re-annotation study's own convention (``irstab assessors
  --missing base``);
- ``first+nist`` / ``second+nist``: every topic's cheap labels from a re-annotator of its
  pair (the first, or the second, in name order), NIST's on the documents it did not judge;
- ``first-only`` / ``second-only``: the all-cheap judges: only the re-annotator's labels,
  every other document unjudged (non-relevant), no NIST label at all.

For each judge and gold fraction (10 %, 20 %, 50 % of the topics: 4, 9 and 22 topics),
``--reps`` random gold subsets, and the intervals (95 %) of every run's mean and of
``--pairs`` random pairs' differences, by PPI++ (tuned lambda), PPI (lambda = 1) and gold
only. Two estimands, each with its own honest truth:

- ``topics``: the 43 topics are the population; the gold subset is a simple random sample
  without replacement; truth = the full-gold mean over the 43 (what labelling them all would
  give). The interval carries the finite-population correction.
- ``universe``: the 43 topics stand for the universe; each replicate draws a collection of 43
  topics *with replacement* from them, then its gold subset without replacement; truth = the
  mean over the 43 (the universe mean). The interval is the super-population one.

A third row per case scores the ``universe`` interval against the ``topics`` truth: what a
user who reports the super-population interval on their own 43 topics sees (it over-covers).

Printed: coverage (share of replicates x targets whose interval holds the truth), the
smallest per-target coverage, and the median width ratio PPI++ / gold-only, PPI / gold-only.
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

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DL = SHARED / "trec-dl-2019-passage"
RE = SHARED / "trec-dl-2019-reannotation" / "main"


def read_frame(path) -> pd.DataFrame:
    from irstab.io import read_qrels

    return read_qrels(path).frame[["topic", "docid", "grade"]]


def override(base: pd.DataFrame, own: pd.DataFrame) -> pd.DataFrame:
    """``base`` with ``own``'s grades on the (topic, docid) pairs ``own`` judged."""
    key = base["topic"] + "\x1f" + base["docid"]
    mine = set(own["topic"] + "\x1f" + own["docid"])
    return pd.concat([base[~key.isin(mine)], own], ignore_index=True)


def judges(nist: pd.DataFrame, topics: list[str]) -> dict[str, pd.DataFrame]:
    ann = {p.name.removesuffix("-qrels.txt"): read_frame(p) for p in sorted(RE.iterdir())}
    out = {}
    for name, f in ann.items():
        out[f"{name}+nist"] = override(nist, f[f["topic"].isin(topics)])
    by_topic = {t: sorted(n for n, f in ann.items() if t in set(f["topic"])) for t in topics}
    for k, which in enumerate(("first", "second")):
        own = pd.concat([ann[names[min(k, len(names) - 1)]].query("topic == @t")
                         for t, names in by_topic.items() if names], ignore_index=True)
        out[f"{which}+nist"] = override(nist, own)
        out[f"{which}-only"] = own
    uncovered = [t for t, names in by_topic.items() if not names]
    return out, uncovered


def scores(frame: pd.DataFrame, runs, measure: str, topics: list[str]) -> pd.DataFrame:
    from irstab.evaluation import score_runs
    from irstab.io import Qrels

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        m = score_runs(Qrels(path="judge", frame=frame.reset_index(drop=True)), runs, [measure],
                       every_topic=True).matrices()
    x = next(iter(m.values()))
    return x.reindex(columns=topics, fill_value=0.0)


#: (how replicates are drawn and which truth they are scored against, which interval)
SCENARIOS = (("topics", "topics"), ("topics", "universe"), ("universe", "universe"))


def simulate(gold: np.ndarray, cheap: np.ndarray, pair_idx, n: int, reps: int, scenario: str,
             estimand: str, rng) -> dict:
    """Coverage and widths of the three methods over ``reps`` gold subsets of ``n`` topics."""
    from irstab.judges.ppi import ppi_interval

    i, j = pair_idx
    y_all = np.vstack([gold, gold[i] - gold[j]])  # targets x N
    f_all = np.vstack([cheap, cheap[i] - cheap[j]])
    k, N = y_all.shape
    truth = y_all.mean(axis=1)
    # each replicate: the topics of its collection (N of them) and which are gold (the first n)
    if scenario == "topics":
        coll = np.argsort(rng.random((reps, N)), axis=1)  # a random order; first n are gold
    else:
        coll = rng.integers(0, N, size=(reps, N))  # a collection drawn with replacement
    gold_idx = coll[:, :n]
    Y = y_all[:, gold_idx].transpose(1, 0, 2).reshape(reps * k, n)
    FL = f_all[:, gold_idx].transpose(1, 0, 2).reshape(reps * k, n)
    FA = f_all[:, coll].transpose(1, 0, 2).reshape(reps * k, N)
    t = np.tile(truth, reps)
    groups = np.repeat(np.arange(reps), k)  # a replicate's targets share its gold topics
    out = {}
    for method, lam in (("ppi++", "tuned"), ("ppi", 1.0), ("gold", 0.0)):
        r = ppi_interval(Y, FL, FA, lam=lam, estimand=estimand, groups=groups)
        cov = ((r.lower <= t) & (t <= r.upper)).reshape(reps, k)
        out[method] = (cov, r.width.reshape(reps, k))
    return out


def markdown(table: pd.DataFrame) -> str:
    cols = list(table.columns)
    fmt = [(lambda v: f"{v:.3f}") if table[c].dtype.kind == "f" else str for c in cols]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in table.itertuples(index=False):
        lines.append("| " + " | ".join(f(v) for f, v in zip(fmt, r)) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--measure", default="nDCG@10")
    ap.add_argument("--markdown", action="store_true", help="Print the table as Markdown.")
    ap.add_argument("--judges", default="first+nist,second+nist,first-only,second-only,"
                    "sean-macavaney+nist")
    args = ap.parse_args()
    from irstab.io import read_runs

    t0 = time.perf_counter()
    nist = read_frame(DL / "qrels.txt")
    topics = sorted(set(nist.loc[nist["grade"] > 0, "topic"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        runs = read_runs(DL / "runs")
    cheap_sets, uncovered = judges(nist, topics)
    gold = scores(nist, runs, args.measure, topics)
    names = args.judges.split(",")
    cheap = {n: scores(cheap_sets[n], runs, args.measure, topics).loc[gold.index] for n in names}
    t_score = time.perf_counter() - t0
    rng = np.random.default_rng(args.seed)
    S = len(gold)
    all_pairs = [(a, b) for a in range(S) for b in range(a + 1, S)]
    pick = rng.choice(len(all_pairs), args.pairs, replace=False)
    pair_idx = np.array([all_pairs[p] for p in pick]).T
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}; "
          f"{S} runs x {len(topics)} topics, {args.measure}; {args.reps} gold subsets; "
          f"{args.pairs} random pairs; scoring {t_score:.1f} s")
    if uncovered:
        print(f"# topics without a re-annotator (NIST labels in every judge): {uncovered}")
    G = gold.to_numpy()
    rows = []
    t1 = time.perf_counter()
    for name in names:
        C = cheap[name].to_numpy()
        r_topic = np.median([np.corrcoef(G[s], C[s])[0, 1] for s in range(S)
                             if G[s].std() > 0 and C[s].std() > 0])
        same = float(np.mean(np.isclose(G, C)))
        for frac in (0.1, 0.2, 0.5):
            n = max(2, int(round(frac * len(topics))))
            for scenario, estimand in SCENARIOS:
                res = simulate(G, C, pair_idx, n, args.reps, scenario, estimand,
                               np.random.default_rng([args.seed, n, len(scenario)]))
                for kind, sl in (("runs", slice(0, S)), ("pairs", slice(S, None))):
                    row = {"judge": name, "corr": r_topic, "same": same, "gold": f"{frac:.0%}",
                           "n": n, "truth": scenario, "interval": estimand,
                           "targets": kind}
                    gw = res["gold"][1][:, sl]
                    for m in ("ppi++", "ppi", "gold"):
                        cov, w = res[m][0][:, sl], res[m][1][:, sl]
                        row[f"cov {m}"] = cov.mean()
                        row[f"min {m}"] = cov.mean(axis=0).min()
                        if m != "gold":
                            ok = gw > 0
                            row[f"w {m}/gold"] = float(np.median(w[ok] / gw[ok]))
                    rows.append(row)
    t_sim = time.perf_counter() - t1
    table = pd.DataFrame(rows)
    if args.markdown:
        print(markdown(table))
        print(f"# simulation {t_sim:.1f} s")
        return
    with pd.option_context("display.width", 250, "display.max_columns", 30,
                           "display.max_rows", 500, "display.float_format", "{:.3f}".format):
        print(table.to_string(index=False))
    print(f"# simulation {t_sim:.1f} s")


if __name__ == "__main__":
    main()
