"""The ``irstab`` program: the Typer app with every command module registered on it.

Imported by :func:`irstab.cli.main` after the signal handlers are in place. Path
parameters are parsed here (one-line errors for empty paths, ``-`` for a run on
standard input), and the help of every command is given one style.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from ..errors import IRStabError
from ..io import registry
from ._common import columnar_output, say
from .typer_app import app

# Command modules register themselves on `app` when imported.
from . import evaluate as _evaluate  # noqa: E402,F401
from . import stability as _stability  # noqa: E402,F401
from . import crp as _crp  # noqa: E402,F401
from . import compare as _compare  # noqa: E402,F401
from . import optimize as _optimize  # noqa: E402,F401
from . import report as _report  # noqa: E402,F401
from . import assessors as _assessors  # noqa: E402,F401
from . import design as _design  # noqa: E402,F401
from . import explore as _explore  # noqa: E402,F401
from . import systems as _systems  # noqa: E402,F401
from . import calibrate as _calibrate  # noqa: E402,F401


#: Commands whose ``-o x.parquet`` writes Parquet; every other refuses a Parquet/Arrow name.
_PARQUET_COMMANDS = frozenset({"evaluate"})


def _reads_as_measures(text: str) -> bool:
    """Whether a missing run path is rather a measure list (``'nDCG@10 P@5'``, typed as
    ir_measures' third argument)."""
    from ..errors import MeasureError
    from ..metrics import resolve_measures

    try:
        resolve_measures(text)
    except (MeasureError, ValueError, OSError):
        return False
    return True


def _path_parser(label: str, stdin: bool = False, read: bool = False, file: bool = False,
                 parquet: bool = False):
    """Parse a path parameter: the text as a Path, an empty text a one-line error (exit 1).

    Replaces Typer's own conversion, which turns ``''`` into ``.`` and checks
    readability itself (a usage box, exit code 2): the readers and writers name
    the file in a one-line error instead, as for every other bad input. With
    ``stdin`` (run arguments), ``-`` is standard input, saved to a temporary
    file that :func:`irstab.cli.main` removes. With ``read`` (the command's inputs)
    the file, or a directory's files, are registered so that no output of the
    command is written over them or into them (:mod:`irstab.io.registry`); every
    other path is an output, registered too (``directory`` for the report's), and
    checked against the inputs and the other outputs before the command runs. With
    ``file`` (an output file) a path ending in ``/`` is refused: it names a
    directory, and ``Path`` would drop the slash and write a file of that name.
    """

    def parse(value):
        if isinstance(value, str) and value == "":
            say(f"irstab: error: {label}: empty path; give a file name", err=True)
            raise typer.Exit(1)
        if stdin and value == "-":
            from ._common import stdin_run

            try:
                return stdin_run()
            except IRStabError as exc:  # a ValueError: click would make it a usage box
                say(f"irstab: error: {exc}", err=True)
                raise typer.Exit(1) from None
        if stdin and isinstance(value, str) and not os.path.lexists(value) \
                and _reads_as_measures(value):
            say(f"irstab: error: {value}: no such run file; it reads as measures: give them "
                f"with -m (as in irstab evaluate QRELS RUN -m '{value}'; ir_measures takes "
                "them as its third argument)", err=True)
            raise typer.Exit(1)
        if read:
            registry.register_input([value])
        if file and isinstance(value, str) and value.endswith(("/", os.sep)):
            say(f"irstab: error: {label}: {value} names a directory (it ends with '/'); "
                       "give a file name", err=True)
            raise typer.Exit(1)
        if file and value is not None and columnar_output(value) and not parquet:
            say(f"irstab: error: {label} {value}: this command writes text, not Parquet/Arrow; "
                "give a .txt, .csv, .tsv or .json name (irstab evaluate -o x.parquet writes "
                "its long table as Parquet)", err=True)
            raise typer.Exit(1)
        if not read and value is not None:
            registry.register_output(value, directory=not file, option=label)
        return Path(value)

    return parse


def _measure_parser(value):
    """A ``-m`` (or ``--baseline``, ``--candidate``) value as given; its ``@file`` items, the
    results ``irstab optimize --save`` wrote, are registered as inputs of the command."""
    if isinstance(value, str) and "@" in value:
        from ..metrics.names import _LABEL, split_measure_list

        try:
            items = [value, *split_measure_list(value)]
        except IRStabError:
            items = [value]
        for item in items:
            labelled = _LABEL.fullmatch(item)
            item = (labelled.group("rest") if labelled else item).strip()
            if item.startswith("@") and os.path.isfile(item[1:]):
                registry.register_input([item[1:]])
    return value


def _checked(callback):
    """``callback`` preceded by :func:`irstab.io.registry.check_outputs`: an output that would
    destroy or pollute an input, or another output, is refused before any work."""
    import functools

    if getattr(callback, "_outputs_checked", False):
        return callback

    @functools.wraps(callback)
    def run(*args, **kwargs):
        registry.check_outputs()
        return callback(*args, **kwargs)

    run._outputs_checked = True
    return run


#: Parameters that take run files, where ``-`` reads a run from standard input.
_RUN_PARAMETERS = ("runs", "run")
#: Parameters whose files the command reads: no output may be written over them.
_INPUT_PARAMETERS = ("qrels", "runs", "run", "scores", "assessor_qrels")
#: Commands whose ``output`` is a directory (the report); every other output is a file.
_DIRECTORY_OUTPUTS = ("report", "demo")
#: String parameters that take measures, where ``@file`` names an input.
_MEASURE_PARAMETERS = ("measure", "baseline", "candidate", "top_by")


def _parse_paths_ourselves(typer_app: typer.Typer) -> None:
    """Give every ``Path`` parameter of every command :func:`_path_parser`, every integer
    one (but seeds) :func:`_int_parser`."""
    import inspect
    import typing

    from typer.models import ParameterInfo

    for info in typer_app.registered_commands:
        info.callback = _checked(info.callback)
        hints = typing.get_type_hints(info.callback)
        for name, param in inspect.signature(info.callback).parameters.items():
            default = param.default
            if not isinstance(default, ParameterInfo) or default.parser is not None:
                continue
            if name in _MEASURE_PARAMETERS:
                default.parser = _measure_parser
                continue
            label = "/".join(getattr(default, "param_decls", ()) or ()) or name.upper()
            kinds = (hints.get(name), *_leaves(hints.get(name)))
            if Path in kinds:
                command_name = info.name or info.callback.__name__
                default.parser = _path_parser(
                    label, stdin=name in _RUN_PARAMETERS, read=name in _INPUT_PARAMETERS,
                    file=name not in _INPUT_PARAMETERS and not (
                        name == "output" and command_name in _DIRECTORY_OUTPUTS),
                    parquet=name == "output" and command_name in _PARQUET_COMMANDS)
            elif int in kinds and bool not in kinds and name != "seed":
                default.parser = _int_parser(label, default.min, default.max,
                                             bool(default.clamp))
    for group in typer_app.registered_groups:
        _parse_paths_ourselves(group.typer_instance)


def _leaves(hint) -> tuple:
    """The types inside ``X | None`` and ``list[X]``."""
    import typing

    return tuple(a for arg in typing.get_args(hint) for a in (arg, *typing.get_args(arg)))


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


#: Largest magnitude of an integer option: float64 still tells neighbouring integers apart,
#: and every count, size and depth is far below it (a seed may be any integer >= 0).
INT_LIMIT = 2**53


def _int_parser(label: str, low=None, high=None, clamp: bool = False):
    """Parse an integer option, refusing values past :data:`INT_LIMIT` in one line (exit 1).

    Python parses ``10**30`` into an int, and numpy then wraps it (a D-study row for
    -9223372036854775808 topics) or overflows a C long (a traceback). Text that is no
    integer, or outside the option's own ``min``/``max``, keeps Typer's usage error.
    """

    def parse(value):
        if isinstance(value, int):
            out = value
        else:
            try:
                out = int(str(value).strip())
            except ValueError:
                raise typer.BadParameter(f"{value!r} is not a valid integer") from None
        if abs(out) > INT_LIMIT:
            say(f"irstab: error: {label}: {value} is out of range; integer options take "
                       f"values of at most {INT_LIMIT:,} in magnitude", err=True)
            raise typer.Exit(1)
        if clamp:
            out = max(out, low) if low is not None else out
            return min(out, high) if high is not None else out
        if low is not None and out < low or high is not None and out > high:
            bounds = (f"x>={low}" if high is None else f"x<={high}" if low is None
                      else f"{low}<=x<={high}")
            raise typer.BadParameter(f"{out} is not in the range {bounds}.")
        return out

    return parse


def command():
    """The click command of the whole program, ready to call with ``args=``."""
    from .examples import add_examples

    _parse_paths_ourselves(app)
    cmd = typer.main.get_command(app)
    _tidy_help(cmd)
    add_examples(cmd)
    return cmd
