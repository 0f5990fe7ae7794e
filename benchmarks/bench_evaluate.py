"""Parse all 37 TREC DL 2019 runs at depth 1000 and compute trec_eval's 11 measures
(at relevance levels 1 and 2 where they apply): irstab against pytrec_eval, and ranx
when installed, end to end (parse + evaluate), in the same process.

    python benchmarks/bench_evaluate.py [--repeat 5]

Prints the best of ``--repeat`` wall-clock times for each tool and the ratios.
"""

from __future__ import annotations

import argparse
import gzip
import time
from pathlib import Path

import irstab

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl-2019-passage"
IRSTAB = [
    "nDCG@10", "nDCG@20", "nDCG@100", "nDCG", "AP", "P@10", "RR", "R-prec", "bpref",
    "Recall@100", "Recall@1000",
    "AP(rel=2)", "P(rel=2)@10", "RR(rel=2)", "R-prec(rel=2)", "bpref(rel=2)",
    "Recall(rel=2)@100", "Recall(rel=2)@1000",
]
TREC = {"ndcg_cut.10,20,100", "ndcg", "map", "P.10", "recip_rank", "Rprec", "bpref",
        "recall.100,1000"}
TREC_L2 = {"map", "P.10", "recip_rank", "Rprec", "bpref", "recall.100,1000"}


def run_irstab():
    return irstab.evaluate(DATA / "qrels.txt", DATA / "runs", IRSTAB, per_topic=True)


def _parse_trec():
    qrels = {}
    with open(DATA / "qrels.txt") as fh:
        for line in fh:
            t, _, d, g = line.split()
            qrels.setdefault(t, {})[d] = int(g)
    runs = {}
    for path in sorted((DATA / "runs").glob("*.gz")):
        run = {}
        with gzip.open(path, "rt") as fh:
            for line in fh:
                t, _, d, _, s, tag = line.split()
                run.setdefault(t, {})[d] = float(s)
        runs[path.name] = run
    return qrels, runs


def run_pytrec_eval():
    import pytrec_eval

    qrels, runs = _parse_trec()
    ev1 = pytrec_eval.RelevanceEvaluator(qrels, TREC)
    ev2 = pytrec_eval.RelevanceEvaluator(qrels, TREC_L2, relevance_level=2)
    return {name: (ev1.evaluate(run), ev2.evaluate(run)) for name, run in runs.items()}


def run_ranx():
    from ranx import Qrels, Run, evaluate

    qrels, runs = _parse_trec()  # ranx reads no .gz: same Python parse as pytrec_eval
    qrels = Qrels(qrels)
    metrics = ["ndcg@10", "ndcg@20", "ndcg@100", "ndcg", "map", "precision@10", "mrr",
               "r-precision", "recall@100", "recall@1000"]
    return {name: evaluate(qrels, Run(run), metrics) for name, run in runs.items()}


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not (DATA / "qrels.txt").is_file():
        raise SystemExit(f"data not found: {DATA}")
    run_irstab()  # warm-up: imports, thread pool
    results = {"irstab": best_time(run_irstab, args.repeat)}
    results["pytrec_eval"] = best_time(run_pytrec_eval, args.repeat)
    try:
        import ranx  # noqa: F401

        run_ranx()
        results["ranx"] = best_time(run_ranx, args.repeat)
    except ImportError:
        print("ranx not installed: skipped")
    print(f"37 runs x 43 topics, depth 1000, {len(IRSTAB)} measure/level pairs "
          f"(ranx: its 10 level-1 equivalents, no bpref); best of {args.repeat}")
    for name, t in results.items():
        ratio = t / results["irstab"]
        print(f"  {name:12s} {t:7.3f} s   {ratio:5.2f}x irstab's time")


if __name__ == "__main__":
    main()
