"""A process that forks ``python -m irstab.cli`` children for tests/cli/test_help_examples.py.

Starting Python and importing numpy, pandas, SciPy's statistics and matplotlib cost 1-1.5 s of
CPU in every child process, and the --help examples start 45 of them: about 45 s of the
file's 150 s. This process imports those once, then forks one child per example. A child is
what ``python -m irstab.cli ARGS`` is after those imports: its own process (and session),
working directory, environment, standard streams (files) and exit status; it runs
``irstab/cli/__main__.py`` as ``__main__`` (``runpy``, as ``-m`` does), which imports the
commands and whatever else they use itself. Only modules that every command imports anyway,
or whose submodules load on first use (SciPy), are imported here; ``matplotlib.pyplot`` and
irstab's own command modules are not, so a missing import still fails in the child.

Protocol, one JSON object a line: ``{"id", "argv", "cwd", "env", "stdout", "stderr"}`` on
standard input forks a child and answers ``{"id", "pid"}``; each child's end answers
``{"pid", "returncode"}`` (negative: the signal that ended it, as subprocess says). End of
input: the process ends (children still running are the caller's to kill, by process group).
"""

from __future__ import annotations

import json
import os
import select
import sys

PRELOAD = ("numpy", "pandas", "scipy.stats", "matplotlib")


def _child(request: dict) -> None:
    """In the forked child: become ``python -m irstab.cli ARGV``, never return."""
    import atexit
    import runpy
    import tempfile

    code = 1
    try:
        os.setsid()  # its own process group: the caller kills it and its children at once
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as ``-m`` puts it first (not this script's directory)
        os.environ.update(request["env"])
        tempfile.tempdir = None  # TMPDIR is read again, as in a new process
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            out = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, fd)
            os.close(out)
        os.close(null)
        sys.argv = ["irstab", *request["argv"]]
        code = 0
        try:
            runpy.run_module("irstab.cli", run_name="__main__", alter_sys=True)
        except SystemExit as exc:  # as the interpreter ends on it
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        atexit._run_exitfuncs()
    except BaseException:  # an uncaught error: its traceback and 1, as Python ends
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _reap(children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        _answer({"pid": pid, "returncode": os.waitstatus_to_exitcode(status)})


def main() -> None:
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    _answer({"ready": os.getpid()})
    children: set[int] = set()
    stdin = sys.stdin.buffer.raw  # unbuffered: select() sees what has not been read
    pending = b""
    while True:
        readable, _, _ = select.select([stdin], [], [], 0.05)
        if readable:
            chunk = os.read(stdin.fileno(), 65536)
            if not chunk:
                _reap(children)
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in filter(None, lines):
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    _child(request)
                children.add(pid)
                _answer({"id": request["id"], "pid": pid})
        _reap(children)


if __name__ == "__main__":
    main()
