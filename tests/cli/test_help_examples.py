"""Issue 24, point 5: every command's --help ends with examples on the bundled collection,
and the examples work.

Oracle: the examples themselves: the quick ones run from the repository root and exit 0;
the slow ones (optimizer searches, the report) are parsed by click, after the one grammar.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

import irstab.cli
from irstab.cli.examples import EXAMPLES
from irstab.cli.grammar import normalise_argv

REPO = Path(__file__).resolve().parents[2]
QUICK = {("evaluate",), ("measures",), ("crp",), ("stability",), ("topics",)}


def _root():
    from irstab.cli.program import command

    return command()  # every command registered, paths parsed, examples added


def _commands(command, path=()):
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield path, command


def test_every_command_has_two_or_three_examples():
    root = _root()
    for path, command in _commands(root):
        assert path in EXAMPLES, f"irstab {' '.join(path)} has no examples"
        assert 2 <= len(EXAMPLES[path]) <= 3
        assert command.epilog.count("$ irstab ") == len(EXAMPLES[path])


def test_help_ends_with_the_examples(capsys):
    code = irstab.cli.main(["compare", "--help"])
    out = capsys.readouterr().out
    assert code == 0
    # the last example is the help's last paragraph (a wrapped line continues it)
    lines = [line.strip() for line in out.splitlines()]
    last = max(i for i, line in enumerate(lines) if line.startswith("$ irstab compare"))
    rest = [line for line in lines[last + 1:] if line]
    assert len(rest) <= 1 and not any(line.startswith(("-", "╰", "│")) for line in rest), rest
    assert out.index("Examples") > out.index("--format")


@pytest.mark.parametrize("path, line", [(p, line) for p, lines in EXAMPLES.items() for line in lines],
                         ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_examples_parse_and_the_quick_ones_run(path, line, tmp_path, capsys, monkeypatch):
    argv = shlex.split(line.split("#")[0])
    if not (REPO / "data" / "example" / "qrels.txt").is_file():
        pytest.skip("bundled example missing")
    if "trec-dl-2019" in line:  # shown for the real data; parse only
        root = _root()
        command = root.commands[path[0]]
        command.make_context(path[0], normalise_argv(root, argv)[1:])
        return
    monkeypatch.chdir(REPO)
    argv = [a if not a.endswith((".png", ".csv", ".json")) or a.startswith("@")
            else str(tmp_path / a) for a in argv]
    argv = [f"@{tmp_path / a[1:]}" if a.startswith("@") else a for a in argv]
    root = _root()
    command, depth = root, 0
    while hasattr(command, "commands"):
        command, depth = command.commands[argv[depth]], depth + 1
    if argv[:depth] != list(path) and depth == 1 and argv[0] == "evaluate":
        path = ("evaluate",)  # optimize's example feeds its result to evaluate
        argv = [a for a in argv]
        if any(a.startswith("@") for a in argv):  # needs the file the example before wrote
            command.make_context("evaluate", normalise_argv(root, argv)[1:])
            return
    if path in QUICK and "scores.csv" not in line:
        code = irstab.cli.main(argv)
        captured = capsys.readouterr()
        assert code == 0, captured.err
    else:  # slow (optimizer, report) or needs another example's file: click parses it
        command.make_context(" ".join(path), normalise_argv(root, argv)[depth:])
    assert os.getcwd() == str(REPO)
