"""The ``irstab`` program: a click group that lists every command and imports one on demand.

Imported by :func:`irstab.cli.main` after the signal handlers are in place. The group
knows each command's name and help from :data:`.commands.COMMANDS`, and imports the
module of a command (which registers it on the Typer app) only when that command is asked
for: ``irstab --version`` and ``irstab --help`` import no numpy, pandas or scipy, and
``irstab evaluate`` none of the other commands' libraries. Path parameters are parsed here
(one-line errors for empty paths, ``-`` for a run on standard input), and the help of every
command is given one style.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from pathlib import Path

import typer
from typer.core import TyperCommand, TyperGroup

from ..errors import IRStabError
from ..io import registry
from . import typer_app
from ._common import columnar_output, say
from .commands import COMMANDS


def __getattr__(name: str):
    # `program.app`: the Typer app with every command registered, for tests and embedding
    if name == "app":
        load_commands()
        return typer_app.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_commands() -> None:
    """Import every command module: each registers its commands on the Typer app."""
    for module in dict.fromkeys(module for module, _ in COMMANDS.values()):
        importlib.import_module(f".{module}", __package__)


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
_INPUT_PARAMETERS = ("qrels", "runs", "run", "scores", "assessor_qrels", "cheap_qrels", "prefs")
#: Commands whose ``output`` is a directory (the report); every other output is a file.
_DIRECTORY_OUTPUTS = ("report", "demo")
#: String parameters that take measures, where ``@file`` names an input.
_MEASURE_PARAMETERS = ("measure", "baseline", "candidate", "top_by")


def _parse_paths_ourselves(typer_instance: typer.Typer) -> None:
    """Give every ``Path`` parameter of every command :func:`_path_parser`, every integer
    one (but seeds) :func:`_int_parser` (:func:`_parse_command_paths` on each)."""
    for info in typer_instance.registered_commands:
        _parse_command_paths(info)
    for group in typer_instance.registered_groups:
        _parse_paths_ourselves(group.typer_instance)


def _parse_command_paths(info) -> None:
    """:func:`_parse_paths_ourselves` on one command (a Typer ``CommandInfo``); idempotent."""
    import inspect
    import typing

    from typer.models import ParameterInfo

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
    _tidy_own_help(command)
    for sub in getattr(command, "commands", {}).values():
        _tidy_help(sub)


def _tidy_own_help(command) -> None:
    """:func:`_tidy_help` on ``command`` itself, not on its subcommands."""
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


class _LazyCommands(Mapping):
    """The subcommands of :class:`_LazyGroup`: names from :data:`.commands.COMMANDS`, each
    click command built (its module imported) on first access and kept."""

    def __init__(self, build):
        self._build = build
        self._built: dict[str, object] = {}

    def __getitem__(self, name: str):
        if name not in COMMANDS:
            raise KeyError(name)
        if name not in self._built:
            self._built[name] = self._build(name)
        return self._built[name]

    def __contains__(self, name) -> bool:  # Mapping's would build the command
        return name in COMMANDS

    def __iter__(self):
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class _LazyGroup(TyperGroup):
    """The ``irstab`` group: every command of :data:`.commands.COMMANDS`, imported on demand.

    ``irstab --help`` lists the table's names and help lines (a placeholder command each,
    rendered by Typer as the real one would be); running a command, or asking for its own
    ``--help``, imports its module only. ``commands`` is a mapping whose values are built
    on access, so walking the whole tree (tests, :func:`_tidy_help`) still sees every
    command as Typer builds it.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.commands = _LazyCommands(_build_command)
        self._listing = False

    def list_commands(self, ctx) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx, cmd_name: str):
        if self._listing and cmd_name in COMMANDS:
            return TyperCommand(name=cmd_name, help=COMMANDS[cmd_name][1])
        return self.commands.get(cmd_name)

    def format_help(self, ctx, formatter) -> None:
        self._listing = True  # the listing needs names and help lines, not the commands
        try:
            return super().format_help(ctx, formatter)
        finally:
            self._listing = False


def _build_command(name: str):
    """The click command ``name``: its module imported, its paths parsed by irstab
    (:func:`_parse_command_paths`), its help tidied and given its examples."""
    from typer.main import get_command_from_info, get_command_name, get_group_from_info

    from .examples import add_examples

    module = COMMANDS[name][0]
    importlib.import_module(f".{module}", __package__)
    app = typer_app.app
    settings = {"pretty_exceptions_short": app.pretty_exceptions_short,
                "rich_markup_mode": app.rich_markup_mode}
    commands = [info for info in app.registered_commands
                if (info.name or get_command_name(info.callback.__name__)) == name]
    groups = [info for info in app.registered_groups if info.name == name]
    if commands:
        _parse_command_paths(commands[0])
        cmd = get_command_from_info(commands[0], **settings)
    elif groups:
        _parse_paths_ourselves(groups[0].typer_instance)
        cmd = get_group_from_info(groups[0], suggest_commands=app.suggest_commands, **settings)
    else:  # a programming error, caught by tests/cli/test_startup.py
        raise RuntimeError(f"irstab.cli.{module} registers no command {name!r}; "
                           "irstab.cli.commands.COMMANDS is out of date")
    _tidy_help(cmd)
    add_examples(cmd, (name,))
    _plain_coercion(cmd)
    return cmd


def _plain_coercion(cmd) -> None:
    """Coerce the options of ``cmd`` (and its subcommands) without pydantic where that is plain.

    Typer coerces every parameter through a pydantic ``TypeAdapter``: importing pydantic
    and building the adapters cost about 0.14 s of CPU per command, before any work. The
    values click hands over need none of it when the parameter has a parser (irstab's
    paths, integers and measures: the adapter only calls it), is a choice (an Enum: the
    adapter calls typer's ``coerce_cli_choice``), or is text or a flag click already
    made a str or bool: :class:`_PlainParam` does the same there. Any other parameter, and any value those calls refuse with a
    ValueError (what the adapter turns into its message), goes to Typer's own coercion,
    so messages are Typer's. Leaves ``cmd`` as it is if Typer's internals differ.
    """
    try:
        from typer._coercion import RuntimeParam, build_runtime_param
        from typer._param_types import coerce_cli_choice
        from typer.core import _TyperParameter
    except ImportError:  # pragma: no cover - another Typer: its own coercion
        return
    plain = _plain_param_class(RuntimeParam, build_runtime_param, coerce_cli_choice)
    subcommands = getattr(cmd, "commands", {})
    if not isinstance(subcommands, _LazyCommands):  # the program's are built when asked for
        for sub in subcommands.values():
            _plain_coercion(sub)

    def plain_coercion(param):
        info = getattr(param, "type_descriptor", None)
        if (isinstance(param, _TyperParameter) and info is not None
                and getattr(param, "_runtime_param", False) is None
                and plain.leaf(info.annotation, info.parameter_info) is not None):
            param._runtime_param = plain(parameter_info=info.parameter_info,
                                         annotation=info.annotation)
        return param

    for param in cmd.params:
        plain_coercion(param)
    help_option = cmd.get_help_option  # --help is made when first asked for

    def get_help_option(ctx):
        option = help_option(ctx)
        return option if option is None else plain_coercion(option)

    cmd.get_help_option = get_help_option


_PLAIN: list = []  # the _PlainParam class, made once


def _plain_param_class(base, build_runtime_param, coerce_cli_choice):
    """:class:`_PlainParam`, a subclass of Typer's ``RuntimeParam`` (made on first use)."""
    if _PLAIN:
        return _PLAIN[0]
    import dataclasses
    import typing
    from enum import Enum

    @dataclasses.dataclass(frozen=True)
    class _PlainParam(base):
        """A parameter coerced as Typer's adapter coerces it, without pydantic."""

        @staticmethod
        def leaf(annotation, info):
            """How a leaf value is coerced (a function of value and context), or None."""
            if typing.get_origin(annotation) is list:
                (annotation,) = typing.get_args(annotation)
            if typing.get_origin(annotation) is not None:  # tuples, literals: Typer's
                return None
            if info.parser is not None:
                parser = info.parser
                return lambda value, ctx: parser(value)
            if isinstance(annotation, type) and issubclass(annotation, Enum):
                choices, sensitive = tuple(annotation), info.case_sensitive
                return lambda value, ctx: coerce_cli_choice(
                    value, choices=choices, case_sensitive=sensitive, ctx=ctx)
            if annotation in (str, bool):
                kind = annotation
                return lambda value, ctx: value if type(value) is kind else _no(value)
            return None

        def _coerce_value(self, value, param, ctx):
            leaf = self.leaf(self.annotation, self.parameter_info)
            try:
                if typing.get_origin(self.annotation) is list:
                    items = value if isinstance(value, (list, tuple)) else [value]
                    return [leaf(item, ctx) for item in items]
                return leaf(value, ctx)
            except (ValueError, AssertionError):  # Typer's adapter says why, in its words
                typer_param = build_runtime_param(param.type_descriptor)
                return typer_param._coerce_value(value, param=param, ctx=ctx)

    _PLAIN.append(_PlainParam)
    return _PlainParam


def _no(value):
    raise ValueError(f"{value!r} is not text")


def command():
    """The click command of the whole program, ready to call with ``args=``.

    A :class:`_LazyGroup` with the Typer app's callback (``--version``) and settings; each
    command is built when it is first looked up.
    """
    import copy

    from typer.main import get_group_from_info
    from typer.models import TyperInfo

    app = typer_app.app
    shell = copy.copy(app)  # the app's settings and callback without the commands it holds
    shell.registered_commands, shell.registered_groups = [], []
    root = get_group_from_info(TyperInfo(shell, cls=_LazyGroup),
                               pretty_exceptions_short=app.pretty_exceptions_short,
                               rich_markup_mode=app.rich_markup_mode,
                               suggest_commands=app.suggest_commands)
    _tidy_own_help(root)
    _plain_coercion(root)
    return root
