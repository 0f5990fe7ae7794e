"""No wait without an end: worker-process pools, Dask jobs, the index's scatter, the deadlines'
environment variables.

Oracles: the deadline set in the test (a stuck task or job must end the call within it plus
a bounded margin for slices and cleanup, with a message naming the variable that sets it);
the plain results of the same pool or cluster when nothing is stuck.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_support import local_cluster

from irstab._workers import call_checked, call_within, process_pool, seconds_from_env
from irstab.collection import cluster
from irstab.collection.connect import Deadlines
from irstab.errors import IRStabError

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _square(x):
    return x * x


def _kill_self_at_two(x):
    if x == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return x


def _stuck_at_one(x):
    time.sleep(600 if x == 1 else 0)  # a deadlocked worker, as far as the pool can tell
    return x


def _alive(pids) -> list[int]:
    out = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        with open(f"/proc/{pid}/stat") as fh:  # a zombie is dead, only not yet reaped
            if fh.read().split(")")[-1].split()[0] != "Z":
                out.append(pid)
    return out


@pytest.mark.timeout(120)
def test_a_pool_gives_its_results_in_order():
    with process_pool(2) as pool:
        assert list(pool.map(_square, range(7))) == [0, 1, 4, 9, 16, 25, 36]


@pytest.mark.timeout(120)
def test_a_worker_process_that_dies_fails_the_call_naming_how():
    t0 = time.monotonic()
    with pytest.raises(IRStabError, match=r"a worker process died \(killed by SIGKILL"):
        with process_pool(2) as pool:
            list(pool.map(_kill_self_at_two, range(6)))
    assert time.monotonic() - t0 < 30


@pytest.mark.timeout(120)
def test_a_stuck_pool_ends_at_the_job_deadline_and_its_workers_go(monkeypatch):
    monkeypatch.setenv("IRSTAB_JOB_TIMEOUT", "2")
    t0 = time.monotonic()
    with pytest.raises(IRStabError, match=r"no worker process finished a task for 2 s \(1 of 4 "
                                          r"done\).*IRSTAB_JOB_TIMEOUT"):
        with process_pool(2) as pool:
            pids = [p.pid for p in pool.executor._processes.values()]
            list(pool.map(_stuck_at_one, range(4)))
    elapsed = time.monotonic() - t0
    assert 2 <= elapsed < 20  # the deadline, a 1 s slice, the termination
    assert _alive(pids) == []  # the stuck worker was terminated, not left sleeping


_INTERRUPTED_SHUTDOWN = """\
import os, multiprocessing.process as mpp
from irstab._workers import process_pool

def square(x):
    return x * x

real = mpp.BaseProcess.join
pids = []
try:
    with process_pool(2) as pool:
        list(pool.map(square, range(4)))
        pids = [p.pid for p in pool.executor._processes.values()]

        def join(self, timeout=None):  # the signal's exception, while the pool shuts down
            mpp.BaseProcess.join = real
            raise KeyboardInterrupt

        mpp.BaseProcess.join = join
except KeyboardInterrupt:
    pass
print(*pids, flush=True)
os._exit(130)  # as the CLI ends after a signal: no interpreter teardown
"""


@pytest.mark.timeout(120)
def test_a_signal_during_the_pools_shutdown_leaves_no_worker_behind(tmp_path):
    # the workers of a finished pool exit once its manager thread sends them the end; a
    # signal that interrupted the joins and the os._exit after it used to leave them waiting
    # forever (they hold the ends of their own queue, and the command's stdout: a test
    # reading that stdout through a pipe waited for its deadline)
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        code = subprocess.run([sys.executable, "-c", _INTERRUPTED_SHUTDOWN], stdout=out,
                              stderr=err, timeout=60, env=dict(os.environ, PYTHONPATH=SRC)
                              ).returncode
    pids = [int(p) for p in (tmp_path / "out").read_text().split()]
    assert code == 130 and len(pids) == 2, (tmp_path / "err").read_text()
    time.sleep(1.0)
    left = _alive(pids)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "inf", "1e999"])
@pytest.mark.parametrize("name", ["IRSTAB_JOB_TIMEOUT", "IRSTAB_CONNECT_TIMEOUT",
                                  "IRSTAB_WORKER_TIMEOUT"])
def test_a_bad_deadline_in_the_environment_is_named(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(IRStabError, match=rf"{name} must be a number of seconds > 0, got "):
        Deadlines.from_env()


def test_deadlines_default_and_read_the_environment(monkeypatch):
    for name in ("IRSTAB_JOB_TIMEOUT", "IRSTAB_CONNECT_TIMEOUT", "IRSTAB_WORKER_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    assert Deadlines.from_env() == Deadlines(connect=30.0, workers=60.0, job=3600.0)
    monkeypatch.setenv("IRSTAB_WORKER_TIMEOUT", " 2.5 ")
    assert Deadlines.from_env().workers == 2.5
    assert seconds_from_env("IRSTAB_UNSET_FOR_THIS_TEST", 7.0) == 7.0


def test_call_within_returns_raises_or_times_out():
    assert call_within(5, _square, 3) == 9
    with pytest.raises(ZeroDivisionError):
        call_within(5, lambda: 1 / 0)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="did not return within 0.3 s"):
        call_within(0.3, time.sleep, 30)
    assert time.monotonic() - t0 < 5


def test_call_checked_ends_when_its_check_raises():
    calls = []

    def check():
        calls.append(1)
        if len(calls) == 3:
            raise IRStabError("what the call depends on is gone")

    assert call_checked(5, 0.05, lambda: None, _square, 4) == 16  # a quick call, checked or not
    t0 = time.monotonic()
    with pytest.raises(IRStabError, match="is gone"):
        call_checked(60, 0.1, check, time.sleep, 30)  # the third check: after ~0.3 s
    assert time.monotonic() - t0 < 10 and len(calls) == 3
    # what the call raises is raised; a call that outlives its deadline is a TimeoutError
    with pytest.raises(ZeroDivisionError):
        call_checked(5, 0.05, lambda: None, lambda: 1 / 0)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="did not return within 0.3 s"):
        call_checked(0.3, 0.05, lambda: None, time.sleep, 30)
    assert time.monotonic() - t0 < 5


def _nap(seconds, index=None):
    time.sleep(seconds)
    return seconds


@pytest.mark.timeout(240)
def test_a_job_that_never_finishes_ends_at_the_job_deadline():
    # the cluster is alive and answers, but no job finishes: the job deadline (3 s here,
    # an hour by default) ends the wait, naming the scheduler and the variable
    with local_cluster(1) as (_, client):
        quick = list(cluster.map_jobs(client, _nap, [{"seconds": 0.1}] * 3, index=None))
        assert quick == [0.1] * 3
        t0 = time.monotonic()
        with pytest.raises(IRStabError, match=r"no job finished on the Dask cluster at tcp://"
                                              r"\S+ for 3 s although it has 1 worker.*"
                                              r"IRSTAB_JOB_TIMEOUT.*1 of 3 jobs had finished"):
            list(cluster.map_jobs(client, _nap, [{"seconds": 0.1}, {"seconds": 600},
                                                 {"seconds": 0.1}], index=None,
                                  deadlines=Deadlines(connect=10, workers=10, job=3)))
        assert time.monotonic() - t0 < 30  # 3 s and a 2 s slice; forever before


@pytest.mark.timeout(240)
def test_a_scatter_that_never_returns_ends_with_a_message(monkeypatch):
    # a scatter stuck at a worker that stopped answering: bounded, retried, then named
    with local_cluster(1) as (_, client):
        monkeypatch.setattr(client, "scatter", lambda *a, **k: time.sleep(600))
        t0 = time.monotonic()
        with pytest.raises(IRStabError, match=r"cannot send the qrels index to the workers of "
                                              r"tcp://\S+ \(3 attempts; the last: no answer"):
            list(cluster.map_jobs(client, _nap, [{"seconds": 0.1}], index=None,
                                  deadlines=Deadlines(connect=1, workers=1, job=60)))
        assert time.monotonic() - t0 < 30  # 3 x (1 + 1 s); forever before
