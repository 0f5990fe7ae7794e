"""The second audit's cases from the command line (issue 26), one test per class.

Every case asserts the exit code, the message on stderr (the parameter, file or line
named; never a traceback) and the files left behind. Expected numbers: the example
collection's nDCG@10 of sim01, 0.4707, is what ``irstab evaluate`` gives on the
unmodified file (and trec_eval: tests/test_trec_eval_oracle.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import irstab.cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"
QRELS = EXAMPLE / "qrels.txt"
RUNS = EXAMPLE / "runs"
SIM01 = RUNS / "sim01"


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---------------------------------------------------------------- item 2: magnitudes


@pytest.mark.parametrize("command", ["stability", "compare", "topics"])
def test_scores_whose_squares_overflow_are_refused(capsys, tmp_path, command):
    p = tmp_path / "sc.csv"
    p.write_text("system,t1,t2,t3\na,1e200,2e200,0.3\nb,0.2,0.3,0.5\nc,0.4,0.1,0.2\n")
    code, out, err = cli(capsys, command, "--scores", p)
    assert code == 1 and out == ""
    assert "2e+200 (system 'a', topic 't2')" in err and "overflows" in err
    assert "same score" not in err  # never "all systems have the same score"


# ---------------------------------------------------------------- item 6: resamples


def test_one_bootstrap_resample_is_refused_with_the_minimum(capsys):
    code, out, err = cli(capsys, "stability", QRELS, RUNS, "-m", "nDCG@10",
                         "--interval", "bootstrap", "--resamples", "1")
    assert code == 1 and out == ""
    assert "use at least 40" in err  # closed form: 2 / (1 - 0.95)
    code, out, err = cli(capsys, "stability", QRELS, RUNS, "-m", "nDCG@10",
                         "--interval", "bootstrap", "--resamples", "40")
    assert code == 0, err
