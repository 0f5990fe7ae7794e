"""One option grammar for every command: comma lists, one name per concept, no silent repeats.

:func:`normalise_argv` rewrites the command line before click reads it:

* a repeatable option takes comma lists as well as repetition: ``-k 10,20 -k 100`` is
  ``-k 10 -k 20 -k 100`` (measures keep their own list syntax, see
  :func:`irstab.metrics.split_measure_list`; a path that exists is never split);
* the old names of renamed options still work, hidden from ``--help``
  (:data:`ALIASES`: ``--resamples`` is ``--bootstrap``, ``--plot`` is ``--figure``, ...);
* an option that takes one value keeps the last one given, as in every click or argparse
  tool (so a shell alias's option can be overridden); every option that takes several values is
  repeatable (tests/cli/test_option_grammar.py checks both on every command).
"""

from __future__ import annotations

import typing
from pathlib import Path

from ..errors import IRStabError

__all__ = ["normalise_argv", "ALIASES", "command_options"]

#: Old option name -> today's, for every command that has today's name.
ALIASES = {
    "--resamples": "--bootstrap",
    "--plot": "--figure",
    "--plot-curve": "--figure",
    "--assessor-design": "--design",
    "--cutoffs": "--cutoff",
}


def command_options(command) -> dict[str, object]:
    """``{option string: click parameter}`` of one command (``--cutoff`` and ``-k`` alike)."""
    out = {}
    for param in getattr(command, "params", ()):
        if param.param_type_name == "option":
            for opt in (*param.opts, *param.secondary_opts):
                out[opt] = param
    return out


def _leaf(root, argv: list[str]) -> tuple[object, int]:
    """The command ``argv`` invokes and the index of its first own token."""
    command, i = root, 0
    while hasattr(command, "commands") and i < len(argv) and argv[i] in command.commands:
        command, i = command.commands[argv[i]], i + 1
    return command, i


def _element(param) -> type | None:
    """The element type of a repeatable option (``list[int]`` -> int)."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    args = typing.get_args(annotation)
    return args[0] if args else None


def _split(param, value: str) -> list[str]:
    """The items of a comma list given to a repeatable option."""
    element = _element(param)
    if element is str or "," not in value:  # measures parse their own lists
        return [value]
    if element is Path and Path(value).exists():  # a file name with a comma
        return [value]
    items = [v.strip() for v in value.split(",")]
    if any(not v for v in items):
        raise IRStabError(f"{'/'.join(param.opts)}: empty item in the list {value!r}")
    return items


def normalise_argv(root, argv: list[str]) -> list[str]:
    """``argv`` in the one grammar (see the module docstring); the rest untouched.

    Raises
    ------
    IRStabError
        An empty item in a comma list.
    """
    command, start = _leaf(root, argv)
    options = command_options(command)
    if not options:
        return list(argv)
    out = list(argv[:start])
    i = start
    while i < len(argv):
        token = argv[i]
        if token == "--":
            out += argv[i:]
            break
        name, attached = token, None
        if token.startswith("--") and "=" in token:
            name, attached = token.split("=", 1)
        elif token.startswith("-") and not token.startswith("--") and len(token) > 2 \
                and token[:2] in options:  # -k10
            name, attached = token[:2], token[2:]
        name = ALIASES.get(name, name) if ALIASES.get(name) in options else name
        param = options.get(name)
        if param is None or param.is_flag or getattr(param, "count", False):
            out.append(name if param is not None and attached is None else token)  # -qf: as typed
            i += 1
            continue
        if attached is None:
            if i + 1 >= len(argv):
                out.append(name)  # click reports the missing value
                break
            value, i = argv[i + 1], i + 2
        else:
            value, i = attached, i + 1
        if param.multiple:
            for item in _split(param, value):
                out += [name, item]
            continue
        out += [name, value]
    return out
