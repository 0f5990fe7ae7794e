"""Signals end a command with one line and nothing partial (issue 26, item 17).

A command is started as the `irstab` console script in its own session; a signal
is sent at a chosen moment. Expected (closed forms of the CLI's contract): SIGINT
exits 130 with "irstab: interrupted", SIGTERM/SIGHUP exit 128 + signum with
"irstab: stopped by SIG...", never a traceback, within two seconds of the signal,
with no worker process left in the session and no output file (or temporary file)
written.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import irstab

SRC = str(Path(irstab.__file__).parents[1])
EXE = str(Path(sys.executable).parent / "irstab")


_STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_leftovers():
    """A command a test started is gone when the test ends, whatever happened (a test that
    failed on its deadline would otherwise leave it running)."""
    yield
    while _STARTED:
        proc = _STARTED.pop()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def _start(args, cwd, workers: str | None = None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=SRC)
    if workers is not None:
        env["IRSTAB_WORKERS"] = workers
    proc = subprocess.Popen([EXE, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    _STARTED.append(proc)
    return proc


@pytest.fixture(scope="module")
def startup() -> float:
    """Seconds the interpreter takes to start here and now (before irstab's first line can
    run): a signal inside that window meets Python's defaults, not irstab's handlers."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, timeout=60)
    return time.perf_counter() - t0 + 0.05  # + importing irstab.cli, which is light


def _session_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def whole_output(tmp_path_factory, dl2019_dir) -> str:
    """What the command below writes when nothing stops it."""
    d = tmp_path_factory.mktemp("whole")
    proc = _start(["evaluate", str(dl2019_dir / "qrels.txt"), str(dl2019_dir / "runs"),
                   "-m", "nDCG@10", "-o", "out.tsv"], d, workers="2")
    proc.communicate(timeout=120)
    assert proc.returncode == 0
    return (d / "out.tsv").read_text()


@pytest.mark.parametrize("delay", [0.15, 0.4, 1.0])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM])
def test_a_signal_at_any_moment_gives_one_line(tmp_path, dl2019_dir, signum, delay, startup,
                                               whole_output):
    # delays inside the imports (0.15 s), the parse and the scoring
    proc = _start(["evaluate", str(dl2019_dir / "qrels.txt"), str(dl2019_dir / "runs"),
                   "-m", "nDCG@10", "-o", "out.tsv"], tmp_path, workers="2")
    time.sleep(delay)
    os.kill(proc.pid, signum)
    t0 = time.perf_counter()
    out, err = proc.communicate(timeout=60)
    stopped = time.perf_counter() - t0
    if proc.returncode == 0:  # finished before the signal: nothing to check but the output
        assert (tmp_path / "out.tsv").is_file()
        return
    if proc.returncode == -signum or signum == signal.SIGINT and "KeyboardInterrupt" in err:
        # before irstab's first line ran (the machine is loaded): only then
        assert delay < startup, (delay, startup, err)
        return
    assert "Traceback" not in err, err
    if signum == signal.SIGINT:
        assert proc.returncode == 130 and err.strip().endswith("irstab: interrupted"), err
    else:
        assert proc.returncode == 128 + signum, err
        assert err.strip().endswith(f"irstab: stopped by {signal.Signals(signum).name}"), err
    assert stopped < 2.0
    left = sorted(p.name for p in tmp_path.iterdir())
    if left:  # the signal came after the output was renamed into place: it is whole
        assert left == ["out.tsv"]
        assert (tmp_path / "out.tsv").read_text() == whole_output
    # else: no output, no temporary file
    time.sleep(0.5)
    assert not _session_alive(proc.pid)  # the worker pool went with the command


def test_sigterm_stops_the_worker_pool_mid_build(tmp_path, dl2019_dir):
    # the pool of run-file readers is busy when SIGTERM arrives: the command and its
    # workers are gone within two seconds (it used to finish its tasks first: 7 s)
    proc = _start(["stability", str(dl2019_dir / "qrels.txt"), str(dl2019_dir / "runs"),
                   "-m", "nDCG@10", "-m", "AP", "-o", "g.csv", "-f", "csv"], tmp_path,
                  workers="2")
    deadline = time.time() + 30
    while time.time() < deadline:  # wait until the workers exist
        children = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True,
                                  text=True, timeout=30).stdout.split()
        if len(children) >= 3 or proc.poll() is not None:
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.skip("the command finished before its workers were seen")
    os.kill(proc.pid, signal.SIGTERM)
    t0 = time.perf_counter()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert time.perf_counter() - t0 < 2.0
    time.sleep(0.5)
    assert not _session_alive(proc.pid)
    assert list(tmp_path.iterdir()) == []


def _main_raising(raising, capsys, monkeypatch) -> tuple[int, str]:
    """``irstab evaluate --help`` in this process, the argument parsing replaced by
    ``raising``: the exit code and stderr."""
    import irstab.cli as cli_module

    monkeypatch.setattr("irstab.cli.grammar.normalise_argv", raising)
    return cli_module.main(["evaluate", "--help"]), capsys.readouterr().err


def test_a_signal_wrapped_by_python_still_gives_one_line(capsys, monkeypatch):
    """A signal landing in ``__set_name__`` during an import reaches the CLI as the
    RuntimeError Python wraps it in (seen under load): still one line and 128 + signum."""
    import irstab.cli as cli_module

    def wrapped(*args, **kwargs):
        try:
            raise cli_module._Terminated(signal.SIGHUP)
        except cli_module._Terminated as exc:
            raise RuntimeError("Error calling __set_name__") from exc

    code, err = _main_raising(wrapped, capsys, monkeypatch)
    assert code == 128 + signal.SIGHUP
    assert err == "irstab: stopped by SIGHUP\n"


def test_a_signal_whose_exception_c_code_replaced_still_gives_one_line(capsys, monkeypatch):
    """numpy's C API replaces what it meets while a compiled module imports it with
    "ImportError: numpy._core.multiarray failed to import" and no chain (seen under load: a
    SIGHUP inside pandas' import read "the package 'pandas' is missing or broken"). The
    real signal is delivered here, and the ImportError raised without its cause: the
    command still says it was stopped, 128 + signum, not that a package is missing."""

    def replaced(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGHUP)  # irstab's handler raises inside this frame
            time.sleep(5)  # (not reached: the handler runs at the next bytecode)
        except BaseException:
            pass  # as C code does: the exception is dropped, another raised in its place
        raise ImportError("numpy._core.multiarray failed to import")

    code, err = _main_raising(replaced, capsys, monkeypatch)
    assert code == 128 + signal.SIGHUP
    assert err == "irstab: stopped by SIGHUP\n"


def test_an_import_error_without_a_signal_still_names_the_package(capsys, monkeypatch):
    """The other side: the same ImportError with no signal received is a broken package,
    and says which (the message of :mod:`irstab.cli.dependencies`); a stop of an earlier
    main() in this process is not carried over."""

    def broken(*args, **kwargs):
        import numpy  # noqa: F401  (a module the message can name)

        raise ImportError("numpy._core.multiarray failed to import", name="numpy")

    code, err = _main_raising(broken, capsys, monkeypatch)
    assert code == 1
    assert err.startswith("irstab: error: ") and "stopped" not in err
