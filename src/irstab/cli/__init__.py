"""The ``irstab`` command line: a thin Typer layer over the library (the top floor).

Each command module parses options, calls one library function and renders
the result. Domain errors (:class:`irstab.errors.IRStabError`) become a
one-line message on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..errors import IRStabError

from .app import app

# Command modules register themselves on `app` when imported.
from . import evaluate as _evaluate  # noqa: E402,F401
from . import stability as _stability  # noqa: E402,F401
from . import crp as _crp  # noqa: E402,F401
from . import compare as _compare  # noqa: E402,F401
from . import optimize as _optimize  # noqa: E402,F401
from . import report as _report  # noqa: E402,F401
from . import assessors as _assessors  # noqa: E402,F401
from . import design as _design  # noqa: E402,F401


def _path_parser(label: str, stdin: bool = False):
    """Parse a path parameter: the text as a Path, an empty text a one-line error (exit 1).

    Replaces Typer's own conversion, which turns ``''`` into ``.`` and checks
    readability itself (a usage box, exit code 2): the readers and writers name
    the file in a one-line error instead, as for every other bad input. With
    ``stdin`` (run arguments), ``-`` is standard input, saved to a temporary
    file that :func:`main` removes.
    """

    def parse(value):
        if isinstance(value, str) and value == "":
            typer.echo(f"irstab: error: {label}: empty path; give a file name", err=True)
            raise typer.Exit(1)
        if stdin and value == "-":
            from ._common import stdin_run

            try:
                return stdin_run()
            except IRStabError as exc:  # a ValueError: click would make it a usage box
                typer.echo(f"irstab: error: {exc}", err=True)
                raise typer.Exit(1) from None
        return Path(value)

    return parse


#: Parameters that take run files, where ``-`` reads a run from standard input.
_RUN_PARAMETERS = ("runs", "run")


def _parse_paths_ourselves(typer_app: typer.Typer) -> None:
    """Give every ``Path`` parameter of every command :func:`_path_parser`."""
    import inspect
    import typing

    from typer.models import ParameterInfo

    for info in typer_app.registered_commands:
        hints = typing.get_type_hints(info.callback)
        for name, param in inspect.signature(info.callback).parameters.items():
            default = param.default
            if not isinstance(default, ParameterInfo) or default.parser is not None:
                continue
            if Path in (hints.get(name), *_leaves(hints.get(name))):
                label = "/".join(getattr(default, "param_decls", ()) or ()) or name.upper()
                default.parser = _path_parser(label, stdin=name in _RUN_PARAMETERS)
    for group in typer_app.registered_groups:
        _parse_paths_ourselves(group.typer_instance)


def _leaves(hint) -> tuple:
    """The types inside ``X | None`` and ``list[X]``."""
    import typing

    return tuple(a for arg in typing.get_args(hint) for a in (arg, *typing.get_args(arg)))


class _Terminated(BaseException):
    """SIGTERM or SIGHUP: unwinds like an exception, so temporary output files are removed."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame):
    raise _Terminated(signum)


def _on_termination(handler) -> dict:
    """Install ``handler`` for SIGTERM and SIGHUP; the previous handlers (none off the main thread)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    return {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}


def _tidy_help(command) -> None:
    """One help style for every command (typer >= 0.29 defaults differ between commands).

    Usage lines name arguments in capitals, bare when required and in brackets
    when optional, ``...`` when repeatable (``QRELS RUNS...``, ``[QRELS]
    [RUNS]...``); flags show no ``<bool>`` type placeholder.
    """
    for param in getattr(command, "params", ()):
        if param.param_type_name == "argument":
            name = (param.metavar or param.name).upper().removesuffix("...")
            name += "..." if param.nargs != 1 else ""
            param.metavar = name
            shown = name if param.required else f"[{name}]"
            param._usage_display_name = lambda shown=shown: shown  # typer's usage hook
            param.display_type_rich = lambda ctx: None
        elif getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _tidy_help(sub)
    help_option = getattr(command, "get_help_option", None)
    if help_option is not None:  # click adds --help on demand: no <bool> there either
        command.get_help_option = lambda ctx, _get=help_option: _no_metavar(_get(ctx))


def _no_metavar(option):
    if option is not None:
        option.metavar = ""
    return option


def main(argv: list[str] | None = None) -> int:
    """Console entry point: run the app; library errors become exit code 1."""
    import signal
    import warnings

    saved = warnings.showwarning
    saved_signals = _on_termination(_raise_terminated)
    try:
        _parse_paths_ourselves(app)
        command = typer.main.get_command(app)
        _tidy_help(command)
        command(args=argv, prog_name="irstab")
    except _Terminated as exc:
        typer.echo(f"irstab: stopped by {signal.Signals(exc.signum).name}", err=True)
        return 128 + exc.signum
    except IRStabError as exc:
        typer.echo(f"irstab: error: {exc}", err=True)
        return 1
    except OSError as exc:  # a path the command could not read or write: one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        typer.echo(f"irstab: error: {where}{exc.strerror or exc}", err=True)
        return 1
    except SystemExit as exc:  # Typer/click exit after --help, usage errors (2), success
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        typer.echo("irstab: interrupted", err=True)
        return 130
    finally:
        from ._common import remove_stdin_runs

        remove_stdin_runs()
        warnings.showwarning = saved
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
