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


# ---------------------------------------------------------------- item 3: integers


def _integer_options():
    """(command path, option) of every integer option of every command (but seeds)."""
    import typing

    from irstab.cli.program import app, command

    command()  # registers every command
    out = []

    def walk(typer_app, prefix):
        for info in typer_app.registered_commands:
            name = info.name or info.callback.__name__.replace("_", "-")
            hints = typing.get_type_hints(info.callback)
            for pname, hint in hints.items():
                leaves = (hint, *typing.get_args(hint),
                          *[a for arg in typing.get_args(hint) for a in typing.get_args(arg)])
                if int in leaves and bool not in leaves and pname != "seed":
                    out.append((prefix + [name], pname))
        for group in typer_app.registered_groups:
            walk(group.typer_instance, prefix + [group.name])

    walk(app, [])
    return out


def test_every_integer_option_is_parsed_by_the_bounded_parser():
    # the class: each integer option of every command gets the range check (not Typer's int)
    import inspect

    from irstab.cli.program import INT_LIMIT, app
    from typer.models import ParameterInfo

    options = _integer_options()
    assert len(options) >= 10
    seen = 0

    names = {o for _, o in options}

    def walk(typer_app):
        nonlocal seen
        for info in typer_app.registered_commands:
            for pname, param in inspect.signature(info.callback).parameters.items():
                if pname in names and isinstance(param.default, ParameterInfo):
                    parser = param.default.parser
                    assert parser is not None and parser.__qualname__.startswith("_int_parser"), pname
                    assert parser(str(INT_LIMIT)) == INT_LIMIT
                    seen += 1
        for group in typer_app.registered_groups:
            walk(group.typer_instance)

    walk(app)
    assert seen >= len(options)


@pytest.mark.parametrize("value", [str(10**30), str(-(10**30)), str(2**63), str(2**53 + 1)])
def test_integers_past_the_limit_are_refused(capsys, value):
    code, out, err = cli(capsys, "topics", QRELS, RUNS, "-m", "nDCG@10", "-n", value)
    assert code == 1 and out == ""
    assert err.startswith("irstab: error: --topics/-n:") and "out of range" in err
    code, out, err = cli(capsys, "evaluate", QRELS, RUNS, "-m", "nDCG@10", "--depth", value)
    assert code == 1 and "--depth" in err and "out of range" in err


def test_a_seed_may_be_any_integer(capsys):
    # numpy's default_rng takes any integer >= 0
    code, out, err = cli(capsys, "compare", QRELS, RUNS, "-m", "nDCG@10", "-B", "100",
                         "--swap-trials", "20", "--seed", str(10**30))
    assert code == 0, err


# ---------------------------------------------------------------- items 11, 12: memory


def test_a_deep_cutoff_reads_only_the_ranks_present(monkeypatch):
    # nDCG@10^7 at depth 10^7 on runs of 100 documents allocated S x T x 10^7 (26.8 GiB on
    # DL-2019); the arrays are now sized by the deepest ranking present. Closed forms: past
    # every run and every ideal list nothing is added, so each @10^7 value equals the
    # value without cutoff; P@k = |relevant retrieved| / k.
    import numpy as np

    import irstab
    from irstab.collection import Collection

    coll = irstab.Collection.from_files(QRELS, RUNS, depth=10**7)
    real = Collection.grades_to

    def no_padding(self, k):
        assert k <= self.grades.shape[2], f"padded to {k} ranks"
        return real(self, k)

    monkeypatch.setattr(Collection, "grades_to", no_padding)
    deep = irstab.score_matrices(coll, ["nDCG@10000000", "RBP(p=0.8)@10000000",
                                        "ERR@10000000", "AP@10000000", "P@10000000",
                                        "RBP.residual(p=0.8)@10000000", "Judged@10000000"])
    plain = irstab.score_matrices(coll, ["nDCG", "RBP(p=0.8)", "ERR", "AP", "P@100",
                                         "RBP.residual(p=0.8)", "Judged@100"])
    for (a, x), (b, y) in zip(deep.items(), plain.items()):
        scale = 100 / 10**7 if a.startswith(("P@", "Judged")) else 1.0
        np.testing.assert_allclose(x.to_numpy(), y.to_numpy() * scale, rtol=1e-12, atol=1e-15,
                                   err_msg=a)


def test_a_list_length_that_cannot_fit_is_refused(capsys):
    # CRP reads N ranks per run (the ranks past a run count: Angelini et al. 2012);
    # N = 10^9 for 12 runs x 30 topics would need 3.2 TB
    code, out, err = cli(capsys, "evaluate", QRELS, RUNS, "-m", "CRP@1000000000",
                         "--depth", "1000000000")
    assert code == 1 and "1000000000 ranks for 12 runs x 30 topics need" in err
    assert "of memory" in err


@pytest.mark.parametrize("args, expected", [
    (["compare", "-m", "nDCG@10", "-B", "1000000000"],
     "n_bootstrap: 1000000000 bootstrap samples of 30 topics need 480 GB"),  # 16 B x T
    (["optimize", "discount", "-k", "10", "--starts", "1000000000"],
     "starts: 1000000000 random starts of 14 variables need 448 GB"),  # 32 B x (G + k)
    (["stability", "-m", "nDCG@10", "--interval", "bootstrap", "--resamples", "10000000000"],
     "n_resamples: 10000000000 resamples of 12 systems x 30 topics need"),
    (["compare", "-m", "nDCG@10", "--swap-trials", "1000000000"],
     "n_trials: 1000000000 random splits of 30 topics need"),
])
def test_counts_that_cannot_fit_are_refused_with_the_figure(capsys, args, expected):
    code, out, err = cli(capsys, args[0], *([args[1]] if args[0] == "optimize" else []),
                         QRELS, RUNS, *(args[2:] if args[0] == "optimize" else args[1:]))
    assert code == 1 and out == ""
    assert expected in err and "more than half of this machine's" in err


def test_an_optimizer_cutoff_past_every_ranking_is_refused(capsys):
    # the example runs hold 100 documents; the deepest ideal list is the largest number of
    # relevant documents of a topic, counted here from the qrels
    from collections import Counter

    rows = [line.split() for line in QRELS.read_text().splitlines()]
    J = max(Counter(t for t, _, _, g in rows if int(g) > 0).values())
    deepest = max(100, J)
    code, out, err = cli(capsys, "optimize", "discount", QRELS, RUNS, "-k", "100000",
                         "--depth", "100000")
    assert code == 1
    assert f"no rank past {deepest} holds a document" in err and f"at most {deepest}" in err
