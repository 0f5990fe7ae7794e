"""Issue 13, item 8: every command's help reads the same way and cites papers, not files.

The layout rules are irstab.cli._tidy_help's: usage lines name arguments in capitals (bare when
required, in brackets when optional), flags show no ``<bool>`` placeholder; pyproject pins
typer's release line the rules were written against.
"""

from __future__ import annotations

import re

import pytest
import typer

import irstab.cli
from irstab.cli import _tidy_help, app


def _commands():
    root = typer.main.get_command(app)
    out = []

    def walk(cmd, path):
        subs = getattr(cmd, "commands", {})
        out.append(path)
        for name, sub in subs.items():
            walk(sub, [*path, name])

    walk(root, [])
    return out


@pytest.mark.parametrize("path", _commands(), ids=lambda p: " ".join(p) or "irstab")
def test_help_layout(path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code = irstab.cli.main([*path, "--help"])
    out = capsys.readouterr().out
    assert code == 0
    assert "<bool>" not in out
    # "seed 003", "seed Fig. 2", "seed eq. 4": a paper is cited by its authors, not its file
    assert not re.search(r"\b[Ss]eed (\d{3}|Fig|eq|Sec|Table)|seed's|seed_", out), \
        "help cites a seed file"
    usage = next(line for line in out.splitlines() if "Usage:" in line).split("Usage:")[1].strip()
    # irstab <command...> [OPTIONS] then QRELS / [QRELS] / RUNS... / [RUNS...] / COMMAND [ARGS]...
    assert re.fullmatch(
        r"irstab(?: [a-z-]+)* \[OPTIONS\](?: (?:[A-Z]+(?:\.\.\.)?|\[[A-Z]+(?:\.\.\.)?\]))*"
        r"(?: \[ARGS\]\.\.\.)?", usage), usage
    assert "{" not in usage


def test_tidy_help_is_idempotent_on_one_command():
    root = typer.main.get_command(app)
    _tidy_help(root)
    _tidy_help(root)
    evaluate = root.commands["evaluate"]
    args = [p.metavar for p in evaluate.params if p.param_type_name == "argument"]
    assert args == ["QRELS", "RUNS..."]
