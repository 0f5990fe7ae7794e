"""irstab's commands coerce their options without pydantic (``program._plain_coercion``),
to the values Typer's own coercion gives, with Typer's messages for what it refuses.

Oracles: Typer's runtime coercion (``typer._coercion.build_runtime_param``, a pydantic
TypeAdapter) on the same parameter and value; ``sys.modules`` of a child process.
"""

from __future__ import annotations

import enum
import json
import subprocess
import sys

import pytest

typer_coercion = pytest.importorskip("typer._coercion")

from irstab.cli import program  # noqa: E402
from irstab.cli.commands import COMMANDS  # noqa: E402


def _commands():
    root = program.command()
    for name in COMMANDS:
        cmd = root.commands[name]
        yield from ([(name, cmd)] if not hasattr(cmd, "commands") else
                    [(f"{name} {sub}", c) for sub, c in cmd.commands.items()])


def _values(param):
    """Values click may hand the parameter: its default and, for a choice, every choice
    spelled as typed (and in capitals, which a case-sensitive choice refuses)."""
    annotation = param.type_descriptor.annotation
    values = [] if param.default is None or callable(param.default) else [param.default]
    leaf = getattr(annotation, "__args__", (annotation,))[0]
    if isinstance(leaf, type) and issubclass(leaf, enum.Enum):
        spelled = [str(c.value) for c in leaf] + [str(c.value).upper() for c in leaf]
        values += [[s] for s in spelled] if annotation is not leaf else spelled
    return values


def test_every_option_coerces_as_typer_does():
    plain_seen = 0
    for name, cmd in _commands():
        ctx = cmd.make_context(name, [], resilient_parsing=True)
        for param in [*cmd.params, cmd.get_help_option(ctx)]:
            runtime = param.get_runtime_param()
            if type(runtime).__name__ != "_PlainParam":
                continue
            plain_seen += 1
            typer_own = typer_coercion.build_runtime_param(param.type_descriptor)
            for value in _values(param):
                try:
                    want = typer_own.coerce(value, param=param, ctx=ctx)
                except Exception as exc:  # noqa: BLE001 - the same refusal, the same words
                    with pytest.raises(type(exc)) as got:
                        runtime.coerce(value, param=param, ctx=ctx)
                    assert str(got.value) == str(exc), (name, param.name, value)
                    continue
                got = runtime.coerce(value, param=param, ctx=ctx)
                assert got == want and type(got) is type(want), (name, param.name, value)
    assert plain_seen > 100  # every command's options: the check is not vacuous


def test_evaluate_imports_no_pydantic(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 2.5 r\n")
    code = ("import json, sys; from irstab.cli import main; "
            f"code = main(['evaluate', {str(qrels)!r}, {str(run)!r}, '-m', 'map', '-f', 'trec']); "
            "sys.stdout.flush(); "
            "print(json.dumps([code, sorted(m for m in sys.modules if m.startswith('pydantic'))]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.splitlines()
    # trec_eval's map of one relevant document at rank 1: 1
    assert out[0] == f"{'map':<22}\tall\t1.0000"
    assert json.loads(out[1]) == [0, []]
