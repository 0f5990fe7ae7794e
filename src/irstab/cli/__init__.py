"""The ``irstab`` command line: a thin Typer layer over the library (the top floor).

Each command module parses options, calls one library function and renders
the result. Domain errors (:class:`irstab.errors.IRStabError`) become a
one-line message on stderr and exit code 1, never a traceback; so does a
dependency that is missing or broken (an :class:`ImportError`: the package and the
``pip install`` that repairs it, :mod:`.dependencies`).

This module stays light: :func:`main` installs its signal handlers (SIGINT,
SIGTERM, SIGHUP) before it imports the program (:mod:`.program`: Typer, and the
module of the command asked for with its libraries), so a signal at any moment
ends the command with one line, not a traceback.
"""

from __future__ import annotations

import os
import sys

from ..errors import IRStabError

__all__ = ["main", "entry"]

_STOPPED: list[int] = []  # the signal that stopped the last main(), if any
_RECEIVED: list[int] = []  # the signal received during the current main(), if any


def __getattr__(name: str):
    # `irstab.cli.app` and the help helpers, for tests and embedding; imported on first use
    if name in ("app", "_tidy_help", "command"):
        from . import program

        return getattr(program, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Terminated(BaseException):
    """SIGINT, SIGTERM or SIGHUP: unwinds like an exception, so temporary output files are removed."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame):
    _RECEIVED[:] = [signum]  # remembered: C code may replace the exception (see _cause)
    raise _Terminated(signum)


def _on_termination(handler) -> dict:
    """Install ``handler`` for SIGINT, SIGTERM and SIGHUP; the previous handlers (none off the
    main thread). SIGINT too: Click turns a KeyboardInterrupt into a silent exit, and the
    command must say it was interrupted."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    return {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}


def _terminated_by(exc: BaseException) -> int | None:
    """The signal of a :class:`_Terminated` in ``exc``'s chain of causes, else None.

    Python wraps what some hooks raise (``__set_name__`` during an import: RuntimeError),
    so a signal that lands there arrives as another exception caused by it."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, _Terminated):
            return exc.signum
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _cause(exc: BaseException) -> int | None:
    """The signal that made ``exc``, if one did: a :class:`_Terminated` in its chain
    (:func:`_terminated_by`), else any signal received during this command. Some C code
    replaces the exception it meets with its own and drops the chain: numpy's C API, when
    a signal lands while a compiled module imports it, raises "ImportError:
    numpy._core.multiarray failed to import" (seen under load, inside pandas' import), which
    is not a missing package but the stop."""
    signum = _terminated_by(exc)
    return signum if signum is not None else (_RECEIVED[0] if _RECEIVED else None)


def _stopped(signum: int) -> int:
    import signal

    _STOPPED[:] = [signum]
    if signum == signal.SIGINT:
        _say("irstab: interrupted")
    else:
        _say(f"irstab: stopped by {signal.Signals(signum).name}")
    return 128 + signum


def main(argv: list[str] | None = None) -> int:
    """Console entry point: run the app; library errors become exit code 1."""
    import os
    import signal
    import warnings

    import time

    # dask.distributed logs a lost worker or scheduler with tracebacks on stderr; the CLI
    # says what happened in one line instead (IRSTAB users may still set their own level)
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")

    saved = warnings.showwarning
    _STOPPED.clear()
    _RECEIVED.clear()
    saved_signals = _on_termination(_raise_terminated)
    try:
        from ._common import _STARTED
        from .grammar import normalise_argv
        from .program import command

        _STARTED[:] = [0.0 if argv is None else time.time()]  # None: the console script: /proc
        from ..io import registry

        registry.forget()  # this command's inputs and outputs only
        cmd = command()
        argv = normalise_argv(cmd, list(sys.argv[1:] if argv is None else argv))
        cmd(args=argv, prog_name="irstab")
    except _Terminated as exc:
        return _stopped(exc.signum)
    except IRStabError as exc:
        if _RECEIVED:  # raised while a signal unwound the command: the stop is the news
            return _stopped(_RECEIVED[0])
        _say(f"irstab: error: {exc}")
        return 1
    except OSError as exc:  # a path the command could not read or write: one line, no traceback
        if _RECEIVED:
            return _stopped(_RECEIVED[0])
        where = f"{exc.filename}: " if exc.filename else ""
        _say(f"irstab: error: {where}{exc.strerror or exc}")
        return 1
    except SystemExit as exc:  # Typer/click exit after --help, usage errors (2), success
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        _say("irstab: interrupted")
        return 130
    except Exception as exc:  # a signal raised inside code that wraps what it catches
        signum = _cause(exc)
        if signum is not None:
            return _stopped(signum)
        from .dependencies import missing_package_message

        missing = missing_package_message(exc)  # a dependency missing or broken
        if missing is None:
            raise
        _say(f"irstab: error: {missing}")
        return 1
    finally:
        if "irstab.cli._common" in sys.modules:  # stdin runs exist only once it was imported
            sys.modules["irstab.cli._common"].remove_stdin_runs()
        if "irstab.io.registry" in sys.modules:  # this command's inputs are no longer read
            sys.modules["irstab.io.registry"].forget()
        warnings.showwarning = saved
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
    return 0


def entry() -> None:
    """The ``irstab`` console script: :func:`main`, then exit with its code.

    After a signal the process ends at once (``os._exit``, streams flushed): the
    command has already unwound (temporary files removed, workers terminated), and the
    interpreter's teardown would join a stopped worker pool's threads, which can wait.
    """
    code = main()
    if _STOPPED:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    _leave(code)


def _leave(code: int) -> None:
    """Exit with ``code`` without the interpreter's teardown where nothing is left to finish.

    Tearing down the modules and objects of a command (pandas, pyarrow, the arrays it
    built) costs CPU and nothing else: 0.1-0.15 s of the 1.8 s of ``irstab evaluate`` on
    TREC DL 2019. When only the main thread is left, the exit handlers run
    (:mod:`atexit`: temporary directories, logging) and the streams are flushed, then the
    process ends. Otherwise, or when a stream cannot be flushed (a closed pipe: Python's
    own exit reports it), the ordinary exit.
    """
    import atexit
    import threading

    if threading.active_count() == 1:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            sys.exit(code)
        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            sys.exit(code)
        os._exit(code)
    sys.exit(code)


def _say(line: str) -> None:
    """One line on stderr (without importing Typer: a signal may arrive before it is loaded),
    its control and format characters escaped (:func:`irstab._repr.one_line`): a name in a
    message never ends the line, drives the terminal or reorders what is shown."""
    from .._repr import one_line

    line = one_line(line)
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: the exit code still tells
        pass


if __name__ == "__main__":  # pragma: no cover
    entry()
