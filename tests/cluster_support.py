"""Bounded Dask clusters, child processes and a deterministic worker killer for the tests.

Every wait here has a deadline: a cluster that does not start or close in time fails the
test (or is left to the process's exit), a child that says nothing within its deadline is
killed, and every process group a test starts is killed when it ends.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import cloudpickle
import pytest

from irstab._workers import call_within

distributed = pytest.importorskip("distributed")
from distributed.diagnostics.plugin import WorkerPlugin  # noqa: E402

SRC = str(Path(__file__).resolve().parents[1] / "src")
BIN = Path(sys.executable).parent
START_SECONDS = 120.0  # a LocalCluster of 2 processes starts in ~2 s on 2 quiet cores
CLOSE_SECONDS = 60.0

# the plugin travels to workers started by `dask worker`, which cannot import this module
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@contextlib.contextmanager
def local_cluster(n_workers: int = 2, **kwargs):
    """``(LocalCluster, Client)`` of ``n_workers`` processes, started and closed within
    deadlines; the nannies' restarts of killed workers are waited for (bounded) first."""
    from distributed import Client, LocalCluster

    options = dict(n_workers=n_workers, threads_per_worker=1, processes=True,
                   dashboard_address=None)
    lc = call_within(START_SECONDS, LocalCluster, **{**options, **kwargs})
    client = call_within(START_SECONDS, Client, lc, timeout="60s")
    try:
        yield lc, client
    finally:
        with contextlib.suppress(Exception):
            client.wait_for_workers(n_workers, timeout=30)
        # closing a cluster whose workers were killed can race in distributed's own
        # bookkeeping (a KeyError for a worker it already removed): not examined here
        for closing in (client.close, lc.close):
            with contextlib.suppress(Exception):
                call_within(CLOSE_SECONDS, closing)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(args, **kwargs) -> subprocess.Popen:
    """A child in its own session (so :func:`kill_group` reaches its children too)."""
    env = dict(os.environ, PYTHONPATH=SRC, **kwargs.pop("env", {}))
    return subprocess.Popen(args, env=env, start_new_session=True, **kwargs)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a child's whole session (after SIGCONT, in case a test stopped it)."""
    for signum in (signal.SIGCONT, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signum)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def tls_files(directory: Path) -> tuple[str, str, str] | None:
    """``(CA, certificate, key)`` for 127.0.0.1, made with openssl; None without openssl."""
    import shutil

    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    d = Path(directory)
    run = dict(check=True, capture_output=True, timeout=60, cwd=d)
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=irstab test CA"],
                   **run)
    subprocess.run([openssl, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem",
                    "-out", "cert.csr", "-subj", "/CN=127.0.0.1"], **run)
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    subprocess.run([openssl, "x509", "-req", "-in", "cert.csr", "-CA", "ca.pem", "-CAkey",
                    "ca.key", "-CAcreateserial", "-out", "cert.pem", "-days", "2", "-extfile",
                    "ext.cnf"], **run)
    return str(d / "ca.pem"), str(d / "cert.pem"), str(d / "key.pem")


@contextlib.contextmanager
def dask_processes(n_workers: int = 1, nanny: bool = False, tls: tuple | None = None):
    """``(address, scheduler process, [worker processes])``: ``dask scheduler`` and
    ``dask worker`` as children, ready (the workers registered) within START_SECONDS;
    over TLS with ``tls = (CA, certificate, key)`` (:func:`tls_files`)."""
    port = free_port()
    scheme = "tls" if tls else "tcp"
    address = f"{scheme}://127.0.0.1:{port}"
    secure = ["--tls-ca-file", tls[0], "--tls-cert", tls[1], "--tls-key", tls[2]] if tls else []
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sched = start([str(BIN / "dask"), "scheduler", "--port", str(port), "--no-dashboard",
                   "--protocol", scheme, *secure], **quiet)
    workers = [start([str(BIN / "dask"), "worker", address, "--nthreads", "1",
                      "--no-dashboard", "--nanny" if nanny else "--no-nanny", *secure], **quiet)
               for _ in range(n_workers)]
    try:
        from distributed import Client
        from distributed.security import Security

        security = (Security(tls_ca_file=tls[0], tls_client_cert=tls[1], tls_client_key=tls[2],
                             require_encryption=True) if tls else None)
        deadline = time.monotonic() + START_SECONDS
        while True:  # the scheduler takes a moment to listen
            try:
                client = call_within(30, Client, address, timeout="10s", security=security)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        try:
            call_within(START_SECONDS, client.wait_for_workers, n_workers,
                        timeout=START_SECONDS - 5)
        finally:
            with contextlib.suppress(Exception):
                call_within(CLOSE_SECONDS, client.close)
        yield address, sched, workers
    finally:
        for p in (*workers, sched):
            kill_group(p)


class Background:
    """A child started now in its own session, waited for by a thread: ``done`` is set when
    it ends, or when it is killed (its whole session) at ``deadline`` seconds; then ``out``
    is the CompletedProcess (None after a kill) and ``elapsed`` the seconds from its start to
    its end. Several run at once where each mostly waits (for a deadline of the command)."""

    def __init__(self, args, *, cwd, env: dict, deadline: float):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.deadline = deadline
        self.out, self.elapsed, self.done = None, None, threading.Event()
        threading.Thread(target=self._wait, daemon=True).start()

    def _wait(self):
        try:
            stdout, stderr = self.proc.communicate(timeout=self.deadline)
            self.elapsed = time.monotonic() - self.t0
            self.out = subprocess.CompletedProcess(self.proc.args, self.proc.returncode,
                                                   stdout, stderr)
        except subprocess.TimeoutExpired:
            self.kill()
        finally:
            self.done.set()

    def kill(self):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def result(self) -> subprocess.CompletedProcess:
        """The CompletedProcess; fails the test if the child was killed at its deadline."""
        assert self.done.wait(timeout=self.deadline + 30), f"{self.proc.args}: no end"
        assert self.out is not None, f"{self.proc.args} did not end within {self.deadline:g} s"
        return self.out


def read_line(proc: subprocess.Popen, seconds: float) -> str:
    """The child's next stdout line within ``seconds`` ('' at its end); the child is killed
    and the test fails when none comes."""
    deadline = time.monotonic() + seconds
    line = b""
    fd = proc.stdout.fileno()
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(left, 0))
        if not ready:
            kill_group(proc)
            raise AssertionError(f"no line from the child within {seconds:g} s (got {line!r})")
        chunk = os.read(fd, 1)
        if not chunk:
            break
        line += chunk
    return line.decode()


class KillNth(WorkerPlugin):
    """A Dask worker plugin: the worker that starts the ``nth`` (0-based) execution of a task
    whose key starts with ``prefix``, counted over every worker of the cluster, kills itself
    with SIGKILL, once. The count is kept in ``marks`` (a directory): each execution claims
    the next number with an exclusive create, so exactly one worker dies, at a known point."""

    name = "irstab-test-kill-nth"

    def __init__(self, marks: str, nth: int, prefix: str = "run_checked"):
        self.marks, self.nth, self.prefix = marks, nth, prefix

    def setup(self, worker) -> None:
        pass

    def teardown(self, worker) -> None:
        pass

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish != "executing" or not str(key).startswith(self.prefix):
            return
        for n in range(10_000):
            try:
                os.close(os.open(os.path.join(self.marks, str(n)), os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                continue
            if n == self.nth:
                os.kill(os.getpid(), signal.SIGKILL)
            return
