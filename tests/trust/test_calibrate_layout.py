"""``irstab calibrate`` answers first (issue 45, item 6): the card's sentences before the model
and the table, columns that say what they are, and rows that cannot reject anything marked in
the row with the B that would.

Oracles: Holm's rule written out (a Monte-Carlo p-value is at least 1/(B+1); Holm over P pairs
rejects the smallest p-value when P p <= alpha), checked with the library's own
:func:`irstab.systems.significance.holm` on such p-values, for generated P and alpha; the
output's own lines, in every format.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import irstab.cli
from irstab.systems.significance import holm
from irstab.trust.paired_tests import min_resamples_for_holm

DELTAS = ("0.01", "0.02", "0.05")


@pytest.fixture(scope="module")
def score_file(tmp_path_factory):
    rng = np.random.default_rng(8)
    x = np.clip(0.5 + rng.normal(0, 0.06, (9, 1)) + rng.normal(0, 0.1, (1, 16))
                + rng.normal(0, 0.1, (9, 16)), 0, 1)
    path = tmp_path_factory.mktemp("layout") / "nDCG@10.csv"
    pd.DataFrame(x, index=[f"s{i}" for i in range(9)]).rename_axis("system").to_csv(path)
    return path


def run(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


ARGS = ("-R", "10", "-B", "50", "--verdict-replicates", "10")


def test_the_cards_sentences_come_first(score_file, capsys):
    out = run(capsys, "calibrate", "--scores", score_file, *ARGS)
    card = json.loads(run(capsys, "calibrate", "--scores", score_file, *ARGS, "-f", "json"))
    lines = out.splitlines()
    sentences = card["card"]
    assert lines[:len(sentences)] == sentences  # the answer, before anything else
    first_model = next(i for i, ln in enumerate(lines) if ln.startswith("# "))
    header = next(i for i, ln in enumerate(lines) if ln.split()[:2] == ["test", "correction"])
    assert len(sentences) < first_model < header
    assert lines[first_model].startswith("# nDCG@10: 9 systems")


def test_columns_say_what_they_are_in_every_format(score_file, capsys):
    table = run(capsys, "calibrate", "--scores", score_file, *ARGS)
    for d in DELTAS:
        assert f"power at delta {d}" in table and f"type III at delta {d}" in table
        assert f"power {d}" not in table and f"type III {d}" not in table
    for fmt, sep in (("tsv", "\t"), ("csv", ",")):
        head = run(capsys, "calibrate", "--scores", score_file, *ARGS, "-f", fmt)
        cols = head.splitlines()[0].split(sep)
        for d in DELTAS:
            assert {f"power_at_delta_{d}", f"power_at_delta_{d}_se",
                    f"type_iii_at_delta_{d}", f"type_iii_at_delta_{d}_se"} <= set(cols)
            assert f"power_{d}" not in cols
        assert "rejects_nothing_unless_b" in cols


def test_rows_that_cannot_reject_say_so_with_the_b_that_would(score_file, capsys, tmp_path):
    P = 9 * 8 // 2  # 36 pairs; at alpha 0.05 Holm needs 1/(B+1) <= 0.05/36: B >= 719
    need = min_resamples_for_holm(P, 0.05)
    assert need == 719
    table = run(capsys, "calibrate", "--scores", score_file, *ARGS)
    rows = {tuple(ln.split()[:2]): ln for ln in table.splitlines()
            if ln.split()[:1] and ln.split()[0] in ("t", "permutation", "bootstrap",
                                                    "wilcoxon", "sign", "tukey")}
    mark = f"rejects nothing unless B >= {need}"
    for test in ("permutation", "bootstrap"):
        assert rows[(test, "holm")].endswith(mark)
        assert mark not in rows[(test, "none")] and mark not in rows[(test, "bh")]
    assert mark not in rows[("t", "holm")]  # its p-values are not Monte-Carlo
    d = json.loads(run(capsys, "calibrate", "--scores", score_file, *ARGS, "-f", "json"))
    marked = {(r["test"], r["correction"]): r["min_resamples_to_reject"] for r in d["tests"]}
    assert marked[("permutation", "holm")] == marked[("bootstrap", "holm")] == need
    assert marked[("t", "holm")] is None and marked[("permutation", "none")] is None
    target = tmp_path / "c.csv"
    run(capsys, "calibrate", "--scores", score_file, *ARGS, "-f", "csv", "-o", target)
    f = pd.read_csv(target)
    f = f[f["part"] == "test"].set_index(["test", "correction"])
    assert f.loc[("bootstrap", "holm"), "rejects_nothing_unless_b"] == need
    assert math.isnan(f.loc[("t", "holm"), "rejects_nothing_unless_b"])
    # with that many resamples the rows can reject: no mark
    table = run(capsys, "calibrate", "--scores", score_file, "-R", "10", "-B", str(need),
                "--verdict-replicates", "0")
    assert "rejects nothing" not in table and "note" not in table.splitlines()[
        next(i for i, ln in enumerate(table.splitlines()) if ln.split()[:1] == ["test"])]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 20_000), st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.2])
       | st.floats(1e-4, 0.5))
def test_the_b_that_would_is_the_smallest_with_which_holm_rejects(P, alpha):
    B = min_resamples_for_holm(P, alpha)
    assert B == max(1, math.ceil(P / alpha) - 1) or abs(B - (P / alpha - 1)) <= 1

    def rejects(b):  # every pair at the smallest Monte-Carlo p-value, 1/(b+1)
        return bool(holm(np.full(P, 1.0 / (1.0 + b))).min() <= alpha)

    assert rejects(B)
    assert B == 1 or not rejects(B - 1)
