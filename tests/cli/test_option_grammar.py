"""Issue 24, point 4: one option grammar across the CLI, checked on every command's options.

Walks the click commands (``typer.main.get_command``): every repeatable option takes both
repetition and comma lists and keeps every value; no option whose help speaks of several values
keeps only one; the old names still work, hidden from --help. Oracle: the parsed parameters click hands to the command (``make_context``),
after :func:`irstab.cli.grammar.normalise_argv`.
"""

from __future__ import annotations

import typing
from enum import Enum
from pathlib import Path

import pytest

from irstab.cli.grammar import ALIASES, command_options, normalise_argv
from irstab.metrics import resolve_measures


def _root():
    from irstab.cli.program import command

    return command()


def _commands(command, path=()):
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield path, command


ROOT = _root()
COMMANDS = dict(_commands(ROOT))


def _element(param):
    annotation = param.type_descriptor.annotation
    args = typing.get_args(annotation)
    return args[0] if args else annotation


def _two_values(param) -> tuple[str, str]:
    kind = _element(param)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return tuple(m.value for m in list(kind)[:2])
    if kind is str and ("measure" in param.name or param.name == "candidate"):  # measures
        return "nDCG@10", "AP"
    return {int: ("3", "5"), float: ("0.5", "0.75"), Path: ("a.txt", "b.txt")}.get(kind, ("x", "y"))


def _required(command, skip=None) -> list[str]:
    """Values for the required arguments and options (but ``skip``), so click parses the line."""
    argv = []
    for param in command.params:
        if param.param_type_name == "argument":
            argv += ["q.txt"] if param.nargs == 1 else ["r1.txt"]
        elif param.required and param.name != skip:
            argv += [param.opts[0], "1"]
    return argv


def _parsed(path, command, extra, skip=None) -> dict:
    argv = normalise_argv(ROOT, [*path, *_required(command, skip), *extra])[len(path):]
    ctx = command.make_context(" ".join(path), argv, resilient_parsing=False)
    return ctx.params


REPEATABLE = [(path, p) for path, c in COMMANDS.items() for p in c.params
              if p.param_type_name == "option" and p.multiple]
SINGLE = [(path, p) for path, c in COMMANDS.items() for p in c.params
          if p.param_type_name == "option" and not p.multiple and not p.is_flag]


def test_the_walk_sees_the_commands():
    assert {"evaluate", "report", "assessors"} <= {p[0] for p in COMMANDS}
    assert ("optimize", "minimax") in COMMANDS
    names = {(path, "/".join(p.opts)) for path, p in REPEATABLE}
    assert (("report",), "--cutoff/-k") in names  # report -k 10 -k 20 keeps both
    assert (("assessors",), "--measure/-m") in names
    assert len(REPEATABLE) >= 15 and len(SINGLE) >= 100


@pytest.mark.parametrize("path, param", REPEATABLE, ids=lambda x: "/".join(x) if isinstance(x, tuple) else x.name)
def test_repeatable_options_take_repetition_and_comma_lists(path, param):
    command = COMMANDS[path]
    a, b = _two_values(param)
    opt = param.opts[0]
    repeated = _parsed(path, command, [opt, a, opt, b], param.name)[param.name]
    listed = _parsed(path, command, [opt, f"{a},{b}"], param.name)[param.name]
    if _element(param) is str:  # measures: the command resolves the list (commas in parentheses)
        repeated, listed = (resolve_measures(list(v)) for v in (repeated, listed))
        assert [str(m) for m in repeated] == [str(m) for m in listed] == [a, b]
    else:
        assert len(repeated) == 2, f"{opt} kept {repeated}"
        assert list(listed) == list(repeated), f"{opt} read {a},{b} as {listed}"


@pytest.mark.parametrize("path, param", SINGLE, ids=lambda x: "/".join(x) if isinstance(x, tuple) else x.name)
def test_options_that_take_lists_are_repeatable(path, param):
    # an option whose help speaks of several values must keep them all (report -k 10 -k 20
    # used cutoff 20 only): it is declared repeatable, and so checked above
    text = (param.help or "").lower()
    assert not any(w in text for w in ("repeatable", "comma-separated", "comma list")), \
        f"{' '.join(path)} {param.opts[0]} takes a list but keeps one value"
    # a single value given twice: the last counts (click's rule, kept so aliases can override)
    a, b = _two_values(param)
    opt = param.opts[-1]
    assert normalise_argv(ROOT, [*path, opt, a, opt, b]) == [*path, opt, a, opt, b]


def test_old_names_are_hidden_aliases():
    for path, command in COMMANDS.items():
        shown = command_options(command)
        for old, new in ALIASES.items():
            assert old not in shown or old == new  # never listed in --help
            if new in shown:
                assert normalise_argv(ROOT, [*path, old, "v"])[len(path)] == new
    assert normalise_argv(ROOT, ["stability", "--resamples", "200"]) == ["stability", "--bootstrap", "200"]
    assert normalise_argv(ROOT, ["report", "--cutoffs", "10,20"]) == \
        ["report", "--cutoff", "10", "--cutoff", "20"]


def test_fixed_choices_are_choices():
    # --order, --ttest, --coefficient, report --design: a fixed set is shown as one
    for path, name in ((("evaluate",), "order"), (("crp",), "order"), (("compare",), "ttest"),
                       (("topics",), "coefficient"), (("report",), "assessor_design")):
        param = next(p for p in COMMANDS[path].params if p.name == name)
        kind = _element(param)
        assert isinstance(kind, type) and issubclass(kind, Enum), (path, name)


def test_report_keeps_every_cutoff(capsys):
    # the bug of issue 24: report -k 10 -k 20 used cutoff 20 only
    params = _parsed(("report",), COMMANDS[("report",)], ["-k", "10", "-k", "20"])
    assert params["cutoffs"] == [10, 20]
    from irstab.cli.report import parse_cutoffs

    assert parse_cutoffs(params["cutoffs"]) == (10, 20)


def test_clustered_short_flags_and_attached_values_pass_through():
    # click reads -qf trec as -q -f trec, and -k10 as -k 10: the grammar keeps both forms
    assert normalise_argv(ROOT, ["evaluate", "q", "r", "-qf", "trec"]) == \
        ["evaluate", "q", "r", "-qf", "trec"]
    assert normalise_argv(ROOT, ["report", "q", "r", "-k10,20"]) == \
        ["report", "q", "r", "-k", "10", "-k", "20"]
    assert normalise_argv(ROOT, ["report", "q", "r", "--cutoffs=10,20", "--", "-k"]) == \
        ["report", "q", "r", "--cutoff", "10", "--cutoff", "20", "--", "-k"]
