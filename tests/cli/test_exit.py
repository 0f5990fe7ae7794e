"""The console script's exit: the interpreter's teardown skipped only where nothing is lost.

Oracles: what the child process prints and its exit code, written in the test.
"""

from __future__ import annotations

import subprocess
import sys


def _child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)


def test_exit_handlers_run_and_output_is_flushed_before_the_fast_exit():
    got = _child("import atexit, sys\n"
                 "from irstab.cli import _leave\n"
                 "atexit.register(lambda: print('handler ran'))\n"
                 "sys.stdout.write('written, not flushed; ')\n"
                 "sys.stderr.write('on stderr')\n"
                 "_leave(3)\n")
    assert got.returncode == 3
    assert got.stdout == "written, not flushed; handler ran\n"
    assert got.stderr == "on stderr"


def test_a_thread_still_running_gets_the_ordinary_exit():
    """A second thread alive at the end: Python's own exit waits for it (os._exit would not)."""
    got = _child("import threading, time\n"
                 "from irstab.cli import _leave\n"
                 "threading.Thread(target=lambda: (time.sleep(0.2), print('thread done'))).start()\n"
                 "_leave(0)\n")
    assert got.returncode == 0
    assert got.stdout == "thread done\n"
