"""The peers' whole commands for bench_evaluate.py and bench_scale.py: evaluate TREC runs
as a user of pytrec_eval or ir_measures would write it, or only parse them with pyarrow.

    python benchmarks/peer_eval.py pytrec_eval QRELS RUN... [-m ndcg_cut.10,map,...]
    python benchmarks/peer_eval.py ir_measures QRELS RUN... [-m ...]
    python benchmarks/peer_eval.py pyarrow QRELS RUN...

pytrec_eval: qrels and runs parsed with plain Python (``str.split`` per line, nested dicts;
pytrec_eval has no reader), one ``RelevanceEvaluator``, one run file at a time. ir_measures:
its own readers and ``calc_aggregate`` (pytrec_eval underneath for these measures).
Both print one line ``runid measure mean`` per run and measure in trec_eval's layout
(mean over the topics that the run retrieved and the qrels judge, trec_eval without -c).
pyarrow: ``pyarrow.csv.read_csv`` of the qrels and of every run (space-delimited, 4 and
6 columns, no header): the bare parse of the same bytes, with no evaluation; prints the
number of rows read. A directory among RUN... stands for its files.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

#: trec_eval's names, computed alike by trec_eval 10, pytrec_eval and ir_measures
MEASURES = "ndcg_cut.10,ndcg_cut.100,map,P.10,recip_rank,recall.1000"
#: pytrec_eval's result keys for MEASURES ("ndcg_cut.10" -> "ndcg_cut_10")
ORDER = ["map", "recip_rank", "P_10", "recall_1000", "ndcg_cut_10", "ndcg_cut_100"]


def files(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        out += sorted(q for q in p.iterdir() if q.is_file()) if p.is_dir() else [p]
    return out


def _open(path: Path):
    return gzip.open(path, "rt") if path.suffix == ".gz" else open(path)


def read_qrels(path: Path) -> dict:
    qrels: dict = {}
    with _open(path) as fh:
        for line in fh:
            t, _, d, g = line.split()
            qrels.setdefault(t, {})[d] = int(g)
    return qrels


def read_run(path: Path) -> tuple[str, dict]:
    run: dict = {}
    tag = path.name
    with _open(path) as fh:
        for line in fh:
            t, _, d, _, s, tag = line.split()
            run.setdefault(t, {})[d] = float(s)
    return tag, run


def pytrec_eval_main(qrels_path: Path, runs: list[Path], measures: set[str]) -> None:
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(read_qrels(qrels_path), measures)
    for path in runs:
        tag, run = read_run(path)
        per_topic = evaluator.evaluate(run)
        for key in sorted(next(iter(per_topic.values())), key=_rank):
            mean = sum(v[key] for v in per_topic.values()) / len(per_topic)
            print(f"{key}\t{tag}\t{mean:.4f}")


def ir_measures_main(qrels_path: Path, runs: list[Path], measures: set[str]) -> None:
    import ir_measures

    # printed under trec_eval's names ("ndcg_cut.10" -> "ndcg_cut_10"), as the others print
    names = {parsed: name.replace(".", "_") for name in sorted(measures)
             for parsed in ir_measures.parse_trec_measure(name)}
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    for path in runs:
        run = list(ir_measures.read_trec_run(str(path)))
        for measure, value in ir_measures.calc_aggregate(list(names), qrels, run).items():
            print(f"{names[measure]}\t{path.name}\t{value:.4f}")


def pyarrow_main(qrels_path: Path, runs: list[Path]) -> None:
    import pyarrow.csv as pc

    def read(path, n):
        names = pc.ReadOptions(column_names=[f"c{i}" for i in range(n)])
        return pc.read_csv(path, read_options=names, parse_options=pc.ParseOptions(delimiter=" "))

    rows = read(qrels_path, 4).num_rows
    for path in runs:
        rows += read(path, 6).num_rows
    print(rows)


def _rank(key: str) -> int:
    return ORDER.index(key) if key in ORDER else len(ORDER)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tool", choices=["pytrec_eval", "ir_measures", "pyarrow"])
    ap.add_argument("qrels", type=Path)
    ap.add_argument("runs", nargs="+")
    ap.add_argument("-m", "--measures", default=MEASURES,
                    help=f"trec_eval names, comma-separated (default {MEASURES})")
    args = ap.parse_args()
    runs = files(args.runs)
    measures = set(args.measures.split(","))
    if args.tool == "pytrec_eval":
        pytrec_eval_main(args.qrels, runs, measures)
    elif args.tool == "ir_measures":
        ir_measures_main(args.qrels, runs, measures)
    else:
        pyarrow_main(args.qrels, runs)


if __name__ == "__main__":
    sys.exit(main())
