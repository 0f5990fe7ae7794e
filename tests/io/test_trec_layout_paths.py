"""trec_eval's layout from a long frame: the grid path (one factorisation, the frame
:func:`irstab.evaluate` returns) and the run-by-run pivot (any other frame) print alike.

Oracles: lines written out in the test (trec_eval's ``%-22s\\t%s\\t%6.4f`` and the mean of
the per-topic values computed by hand), and the two paths on the same values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irstab.io.layouts import _grid, to_trec_eval


def _frame(rows):
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


GRID = _frame([
    ("b", "AP", "2", 0.5), ("b", "AP", "10", 0.25), ("b", "AP", "all", 0.375),
    ("b", "RR", "2", 1.0), ("b", "RR", "10", 0.5), ("b", "RR", "all", 0.75),
    ("a", "AP", "2", 0.0), ("a", "AP", "10", 1.0), ("a", "AP", "all", 0.5),
    ("a", "RR", "2", 0.125), ("a", "RR", "10", 1.0), ("a", "RR", "all", 0.5625),
])


def test_a_full_grid_takes_the_grid_path_and_prints_trec_eval_lines():
    tops = GRID[GRID["topic"] != "all"]
    codes = pd.factorize(tops["run"])[0]
    assert _grid(tops, codes, 2, ["AP", "RR"]) is not None
    out = to_trec_eval(GRID, {"AP": "map", "RR": "recip_rank"}, per_topic=True)
    # topics in string order ("10" before "2"), runs in order of appearance; means by hand
    assert out.splitlines() == [
        "map                   \t10\t0.2500", "recip_rank            \t10\t0.5000",
        "map                   \t2\t0.5000", "recip_rank            \t2\t1.0000",
        "runid                 \tall\tb", "num_q                 \tall\t2",
        "map                   \tall\t0.3750", "recip_rank            \tall\t0.7500",
        "map                   \t10\t1.0000", "recip_rank            \t10\t1.0000",
        "map                   \t2\t0.0000", "recip_rank            \t2\t0.1250",
        "runid                 \tall\ta", "num_q                 \tall\t2",
        "map                   \tall\t0.5000", "recip_rank            \tall\t0.5625",
    ]
    # row order does not matter to the grid
    shuffled = GRID.sample(frac=1.0, random_state=0)
    assert to_trec_eval(shuffled, {"AP": "map", "RR": "recip_rank"}, order=["AP", "RR"]) == (
        to_trec_eval(GRID.iloc[[6, 0] + list(range(1, 6)) + list(range(7, 12))],
                     {"AP": "map", "RR": "recip_rank"}, order=["AP", "RR"]))


def test_frames_that_are_not_grids_print_as_the_grid_does():
    names = {"AP": "map", "RR": "recip_rank"}
    want = to_trec_eval(GRID, names)
    # a repeated cell (its first value counts), a NaN repeat (left out), values of dtype
    # object: pivoted run by run
    repeated = pd.concat([GRID, _frame([("b", "AP", "2", 0.9)])], ignore_index=True)
    tops = repeated[repeated["topic"] != "all"]
    assert _grid(tops, pd.factorize(tops["run"])[0], 2, ["AP", "RR"]) is None
    assert to_trec_eval(repeated, names) == want
    with_nan = pd.concat([GRID, _frame([("a", "RR", "10", np.nan)])], ignore_index=True)
    assert to_trec_eval(with_nan, names) == want
    ints = GRID.assign(value=GRID["value"].astype(object))
    assert to_trec_eval(ints, names) == want


def test_a_run_missing_a_topic_has_its_own_topic_count():
    """Run a lacks topic 10: its num_q is 1 and its mean that of topic 2 alone."""
    frame = GRID[~((GRID["run"] == "a") & (GRID["topic"] == "10"))]
    out = to_trec_eval(frame, {"AP": "map", "RR": "recip_rank"}, per_topic=False)
    assert out.splitlines()[4:] == [
        "runid                 \tall\ta", "num_q                 \tall\t1",
        "map                   \tall\t0.0000", "recip_rank            \tall\t0.1250",
    ]


def test_a_measure_with_only_an_all_row_prints_its_mean():
    frame = pd.concat([GRID, _frame([("b", "GM", "all", 0.3), ("a", "GM", "all", 0.2)])],
                      ignore_index=True)
    out = to_trec_eval(frame, {"AP": "map"}, per_topic=False, order=["AP", "GM"])
    assert "GM                    \tall\t0.3000" in out.splitlines()
    assert "GM                    \tall\t0.2000" in out.splitlines()
