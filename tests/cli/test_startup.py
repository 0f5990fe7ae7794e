"""Issue [speed], item 3: ``irstab`` imports a command's module only when it is asked for.

* the table of :mod:`irstab.cli.commands` (name -> module, help line) equals what the command
  modules register, so that ``irstab --help`` (built from the table) cannot drift from them;
* ``irstab --help`` lists the commands exactly as Typer lists the fully built program;
* ``irstab --version`` and ``--help`` import no numpy, pandas, pyarrow, scipy or matplotlib,
  and ``irstab evaluate`` none of the other commands' libraries (a fresh interpreter's
  ``sys.modules``). The time this saves is measured by benchmarks/bench_startup.py.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

import irstab
import irstab.cli
from irstab.cli import program
from irstab.cli.commands import COMMANDS

SRC = str(Path(irstab.__file__).parents[1])
#: Libraries that no command needs before it runs, and that `evaluate` never needs.
HEAVY = ("scipy", "matplotlib", "statsmodels", "cvxpy", "dask", "distributed", "sklearn",
         "pyvinecopulib")
#: What the reader and the tables need: absent from --version and --help.
DATA = ("numpy", "pandas", "pyarrow")


def _modules_after(args: list[str], cwd: Path,
                   columns: str = "80") -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``irstab ARGS`` in a fresh interpreter; its result and the modules it imported."""
    code = ("import json, sys\nfrom irstab.cli import main\ncode = main(sys.argv[1:])\n"
            "sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)))\nsys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ, PYTHONPATH=SRC, COLUMNS=columns),
                          timeout=120)
    err, _, modules = proc.stderr.rpartition("\n")
    proc.stderr = err
    return proc, set(json.loads(modules))


def _listing_help(command) -> str:
    """The text Typer shows for ``command`` in its group's listing: the first paragraph of its
    help (typer.rich_utils._make_command_help)."""
    return inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0].strip()


def _registering_module(name: str) -> str:
    """The module of irstab.cli whose import registers the command or group ``name``."""
    from typer.main import get_command_name

    app = program.app  # every command module imported
    for info in app.registered_commands:
        if (info.name or get_command_name(info.callback.__name__)) == name:
            return info.callback.__module__.rpartition(".")[2]
    group = next(g for g in app.registered_groups if g.name == name)
    modules = {i.callback.__module__ for i in group.typer_instance.registered_commands}
    assert len(modules) == 1, modules
    return modules.pop().rpartition(".")[2]


def test_table_equals_the_registered_commands():
    # oracle: the click group Typer builds from the app once every module has registered
    eager = typer.main.get_command(program.app)
    # the order is the listing's, checked below in a fresh process: here it is the order in
    # which this process's tests happened to import the command modules
    assert set(eager.commands) == set(COMMANDS)
    for name, command in eager.commands.items():
        module, line = COMMANDS[name]
        assert _registering_module(name) == module, name
        assert _listing_help(command) == line, name
        assert "\n" not in line, name  # the placeholder renders it as one paragraph


def test_every_table_module_registers_only_its_own_commands():
    # each module named in the table registers exactly the names the table gives it: a command
    # added to a module without a table row would be missing from `irstab --help`
    app = program.app
    by_module: dict[str, set[str]] = {}
    for name in [*(i.name or i.callback.__name__ for i in app.registered_commands),
                 *(g.name for g in app.registered_groups)]:
        by_module.setdefault(_registering_module(name), set()).add(name)
    assert by_module == {m: {n for n, (mod, _) in COMMANDS.items() if mod == m}
                         for m in {mod for mod, _ in COMMANDS.values()}}


def test_help_listing_equals_the_fully_built_program(tmp_path):
    # oracle: the program as it was built before the table, in a fresh process: every command
    # module imported in turn, the click group built by Typer, its help tidied
    eager = ("import sys, typer\nfrom irstab.cli import program\nprogram.load_commands()\n"
             "root = typer.main.get_command(program.typer_app.app)\nprogram._tidy_help(root)\n"
             "root(args=['--help'], prog_name='irstab')")
    env = dict(os.environ, PYTHONPATH=SRC, COLUMNS="100")
    want = subprocess.run([sys.executable, "-c", eager], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert want.returncode == 0, want.stderr
    proc, _ = _modules_after(["--help"], tmp_path, columns="100")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == want.stdout
    for name in COMMANDS:  # every command listed (the oracle could be empty too)
        assert f"│ {name} " in proc.stdout, name


def test_a_stale_table_is_an_error_not_a_missing_command(monkeypatch):
    # a row whose module registers no such command fails loudly when the command is built
    monkeypatch.setitem(COMMANDS, "nosuch", ("crp", "A command that crp.py does not register."))
    root = program.command()
    with pytest.raises(RuntimeError, match="registers no command 'nosuch'.*out of date"):
        root.commands["nosuch"]  # noqa: B018


@pytest.mark.parametrize("args, code, out", [
    (["--version"], 0, f"irstab {irstab.__version__}\n"),
    (["--help"], 0, "Commands"),
    ([], 2, "Commands"),  # no arguments: the help, exit code 2 (Typer's no_args_is_help)
])
def test_version_and_help_import_no_data_library(tmp_path, args, code, out):
    proc, modules = _modules_after(args, tmp_path)
    assert proc.returncode == code, proc.stderr
    assert out in proc.stdout + proc.stderr
    assert not set(HEAVY + DATA) & modules
    assert not {f"irstab.cli.{m}" for m, _ in COMMANDS.values()} & modules  # no command module


def test_a_mistyped_command_imports_no_command_module(tmp_path):
    proc, modules = _modules_after(["evaluat"], tmp_path)
    assert proc.returncode == 2
    assert "No such command 'evaluat'. Did you mean 'evaluate'?" in proc.stderr  # as before
    assert not {f"irstab.cli.{m}" for m, _ in COMMANDS.values()} & modules


def test_evaluate_imports_only_what_evaluating_needs(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 2.5 r\n")
    proc, modules = _modules_after(["evaluate", "qrels.txt", "run.txt", "-m", "ndcg_cut_10"],
                                   tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the one judged document, relevant, at rank 1: DCG = IDCG, nDCG@10 = 1 (trec_eval's too)
    assert proc.stdout == "run topic  nDCG@10\n  r   all   1.0000\n"
    assert not set(HEAVY) & modules
    others = {f"irstab.cli.{m}" for m, _ in COMMANDS.values()} - {"irstab.cli.evaluate"}
    assert not others & modules
    assert "irstab.cli.evaluate" in modules and "pandas" in modules  # the check can fail
