"""Regenerate data/example/: a small synthetic graded collection, deterministically.

Usage (from the repository root)::

    python scripts/make_example_data.py [--out data/example]

Writes ``qrels.txt``, ``runs/<name>`` (one plain-text TREC run per system) and
``README.md`` (which records the parameters and a summary, so it cannot drift
from the data). Files in ``runs/`` that this script did not write are removed,
so the directory always holds exactly the generated runs. The same command
always produces the same content.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from irstab.io import atomic_write_text, read_qrels, read_runs
from irstab.simulate import EXAMPLE_PARAMS, SimulatedCollection, simulate_collection

ROOT = Path(__file__).resolve().parent.parent
PARAMS = EXAMPLE_PARAMS
COMMAND = "python scripts/make_example_data.py"


def precision_at_10(c: SimulatedCollection) -> pd.Series:
    """Mean P@10 (grade >= 1 relevant) per run; a sanity column for the README."""
    judged = c.qrels.frame
    out = {}
    for run in c.runs:
        top = run.frame[run.frame["rank"] <= 10].merge(judged, on=["topic", "docid"], how="left")
        hits = (top["grade"].fillna(0) >= 1).groupby(top["topic"]).sum() / 10
        out[run.name] = hits.reindex(list(c.topics), fill_value=0).mean()
    return pd.Series(out)


def readme(c: SimulatedCollection) -> str:
    s = c.summary()
    grades = s["grade_counts"]
    total = sum(grades.values())
    grade_rows = "\n".join(
        f"| {g} | {n:,} | {n / total:.1%} |" for g, n in grades.items()
    )
    p10 = precision_at_10(c)
    order = sorted(range(len(c.runs)), key=lambda i: -c.quality[i])
    system_rows = "\n".join(
        f"| {c.runs[i].name} | {c.quality[i]:.3f} | {p10[c.runs[i].name]:.3f} |" for i in order
    )
    params = ", ".join(f"{k}={v!r}" for k, v in PARAMS.items())
    per_topic = s["judged_per_topic"]
    return f"""# Example collection (synthetic)

A small graded test collection for demos, tests and the quickstart: {s['systems']} systems,
{s['topics']} topics, runs to depth {s['depth']}. It is **synthetic**: drawn by
`irstab.simulate.simulate_collection` (the generative model is in its docstring), written by
this project, with no third-party data in it.

## Regenerate

From the repository root, with irstab installed (`pip install -e .`):

```
{COMMAND}
```

It calls, with the library defaults for every other parameter,

```python
irstab.simulate.simulate_collection({params})
```

and writes this directory. It is deterministic: the same code gives the same qrels and the
same files, byte for byte.

## Files

- `qrels.txt`: TREC qrels (`topic 0 docid grade`), grades 0-{c.n_grades - 1} (0 non-relevant),
  {s['judged']:,} judgments, {per_topic['min']}-{per_topic['max']} per topic
  (median {per_topic['median']:g}); every topic has at least one relevant document.
- `runs/<name>`: one plain-text TREC run per system (`topic Q0 docid rank score tag`, tag = name),
  {s['depth']} documents per topic, a mix of judged and unjudged documents. Scores are rounded
  to {PARAMS['score_decimals']} decimals; where that creates a tie, the file orders the tied
  documents by docid descending (trec_eval's order), so file order and score order agree.

## Summary

Grade distribution of the judgments:

| grade | judgments | share |
|---|---|---|
{grade_rows}

True system quality (the generator's `quality`, in [0, 1]) and mean P@10 (grade >= 1 counts
as relevant; computed by the script with pandas), best first:

| run | true quality | P@10 |
|---|---|---|
{system_rows}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "example",
                        help="output directory (default: data/example in the repository)")
    out = parser.parse_args(argv).out

    c = simulate_collection(**PARAMS)
    runs_dir = out / "runs"
    if runs_dir.is_dir():
        keep = {run.name for run in c.runs}
        for stale in runs_dir.iterdir():
            if stale.is_file() and stale.name not in keep:
                stale.unlink()
    c.write(out, compress=False)
    atomic_write_text(out / "README.md", readme(c))

    # Read back: the files must say exactly what the in-memory collection says.
    back_q = read_qrels(out / "qrels.txt").frame
    pd.testing.assert_frame_equal(back_q, c.qrels.frame)
    back = {r.name: r.frame for r in read_runs(runs_dir)}
    if sorted(back) != sorted(c.system_names):
        raise SystemExit(f"unexpected runs in {runs_dir}: {sorted(back)}")
    for run in c.runs:
        pd.testing.assert_frame_equal(back[run.name], run.frame)

    s = c.summary()
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"wrote {out}: {s['systems']} systems, {s['topics']} topics, depth {s['depth']}, "
          f"{s['judged']} judgments, grades {s['grade_counts']}, {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
