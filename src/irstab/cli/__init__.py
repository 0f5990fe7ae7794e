"""The ``irstab`` command line: a thin Typer layer over the library.

Each command module parses options, calls one library function and renders
the result. Domain errors (:class:`irstab.errors.IRStabError`) become a
one-line message on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import sys

import typer

from ..errors import IRStabError

app = typer.Typer(
    name="irstab",
    help=(
        "Which nDCG (gain, discount, cutoff) compares IR systems most stably, how many "
        "topics it needs, and how it compares with the rest of the metric zoo."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Command modules register themselves on `app` when imported.
from . import evaluate as _evaluate  # noqa: E402,F401
from . import stability as _stability  # noqa: E402,F401
from . import crp as _crp  # noqa: E402,F401
from . import compare as _compare  # noqa: E402,F401
from . import optimize as _optimize  # noqa: E402,F401
from . import report as _report  # noqa: E402,F401
from . import assessors as _assessors  # noqa: E402,F401


def _library_reads_paths(typer_app: typer.Typer) -> None:
    """Turn off Typer's own readability check on every parameter of every command.

    Typer declares ``readable=True`` on each ``Path`` parameter, so an unreadable
    input would end in a usage box and exit code 2; the readers name the file
    in a one-line error (exit 1) instead, as for every other bad input.
    """
    import inspect

    from typer.models import ParameterInfo

    for info in typer_app.registered_commands:
        for param in inspect.signature(info.callback).parameters.values():
            if isinstance(param.default, ParameterInfo):
                param.default.readable = False
    for group in typer_app.registered_groups:
        _library_reads_paths(group.typer_instance)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: run the app; library errors become exit code 1."""
    import warnings

    saved = warnings.showwarning
    try:
        _library_reads_paths(app)
        app(args=argv, prog_name="irstab")
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
        warnings.showwarning = saved
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
