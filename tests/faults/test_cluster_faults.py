"""Faults of a Dask cluster: paths, dead workers, a dead scheduler, addresses that are no scheduler.

Oracle: the in-process call on the same files (itself tested against pytrec_eval);
a fault may cost a retry or end the run with a message, never change a number.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.collection import cluster
from irstab.errors import IRStabError

distributed = pytest.importorskip("distributed")

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
SRC = str(Path(irstab.__file__).parents[1])


@pytest.fixture()
def local_cluster():
    from distributed import Client, LocalCluster

    lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = Client(lc)
    yield lc, c
    with contextlib.suppress(Exception):  # the nannies restart killed workers: let them settle
        c.wait_for_workers(2, timeout=30)
    # closing a cluster whose workers were killed can race in distributed's own bookkeeping
    # (a KeyError for a worker it already removed): not what these tests examine
    with contextlib.suppress(Exception):
        c.close()
    with contextlib.suppress(Exception):
        lc.close()


def _copy_example(dest: Path, n_runs: int = 12, flip: bool = False) -> None:
    (dest / "runs").mkdir(parents=True)
    shutil.copy(EXAMPLE / "qrels.txt", dest / "qrels.txt")
    for run in sorted((EXAMPLE / "runs").iterdir())[:n_runs]:
        text = run.read_text()
        if flip:  # same names and sizes' order of magnitude, other rankings: other numbers
            rows = [line.split() for line in text.splitlines()]
            text = "".join(f"{t} Q0 {d} {r} {-float(s):.4f} {tag}\n" for t, _, d, r, s, tag in rows)
        (dest / "runs" / run.name).write_text(text)


def _irstab(args, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC)
    exe = Path(sys.executable).parent / "irstab"
    return subprocess.run([str(exe), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_relative_paths_read_the_clients_files(tmp_path, monkeypatch):
    # issue 26 item 1: workers started in a directory holding *other* files under the same
    # relative names used to evaluate those (every run 0.6919); the client's files are read
    from distributed import LocalCluster

    decoy, mine = tmp_path / "decoy", tmp_path / "mine"
    _copy_example(decoy, 4, flip=True)
    _copy_example(mine, 4)
    monkeypatch.chdir(decoy)  # the workers' working directory
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as lc:
        remote = _irstab(["evaluate", "qrels.txt", "runs", "-m", "nDCG@10", "-f", "csv",
                          "--scheduler", lc.scheduler_address], cwd=mine)
    local = _irstab(["evaluate", "qrels.txt", "runs", "-m", "nDCG@10", "-f", "csv"], cwd=mine)
    decoyed = _irstab(["evaluate", "qrels.txt", "runs", "-m", "nDCG@10", "-f", "csv"], cwd=decoy)
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout
    assert remote.stdout != decoyed.stdout  # the decoy would have given other numbers


def test_a_worker_that_sees_another_file_is_named(tmp_path, monkeypatch):
    # A worker checks each file's size and first-MiB hash against the client's; a mismatch
    # (another file under the same absolute path) stops the job, naming worker and path.
    from distributed import Client, LocalCluster

    _copy_example(tmp_path, 3)
    real = cluster._located

    def wrong(job):
        job, prints = real(job)
        return job, {p: (size + 1, digest) for p, (size, digest) in prints.items()}

    monkeypatch.setattr(cluster, "_located", wrong)  # the client's view of the files differs
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as lc, \
            Client(lc) as client:
        with pytest.raises(IRStabError, match=r"Dask worker \S+ reads a different file at /.*sim0\d"):
            irstab.evaluate(tmp_path / "qrels.txt", tmp_path / "runs", ["AP"], client=client)


def test_run_checked_names_a_missing_file(tmp_path):
    with pytest.raises(IRStabError, match=r"cannot read .*gone.*same absolute paths"):
        cluster.run_checked(lambda **_: None, {str(tmp_path / "gone"): (1, "x")})


@pytest.mark.parametrize("delay", [0.3, 1.0])
def test_a_killed_worker_costs_a_retry_not_the_job(local_cluster, delay):
    lc, client = local_cluster
    local = irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", ["nDCG@10", "AP"],
                            per_topic=True, depth=100)

    def kill_one():
        time.sleep(delay)
        pids = client.run(os.getpid)
        os.kill(pids[sorted(pids)[0]], signal.SIGKILL)

    killer = threading.Thread(target=kill_one)
    killer.start()
    # one run per batch: 12 jobs, so the kill lands mid-run
    remote = irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", ["nDCG@10", "AP"],
                             per_topic=True, depth=100, client=client,
                             max_batch_bytes=2 * 30 * 100)
    killer.join()
    pd.testing.assert_frame_equal(remote, local, check_exact=False, atol=1e-12, rtol=0)


def test_a_lost_index_is_scattered_again(local_cluster):
    # every worker dies after the index was scattered: the job waits for the nanny's new
    # workers, scatters the index again and still gives the in-process numbers
    lc, client = local_cluster
    local = irstab.Collection.from_files(EXAMPLE / "qrels.txt", EXAMPLE / "runs", depth=100)
    real_scatter = client.scatter
    calls = []

    def scatter_then_kill(*args, **kwargs):
        out = real_scatter(*args, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            for pid in client.run(os.getpid).values():
                os.kill(pid, signal.SIGKILL)
        return out

    client.scatter = scatter_then_kill
    try:
        remote = irstab.Collection.from_files(EXAMPLE / "qrels.txt", EXAMPLE / "runs", depth=100,
                                              client=client)
    finally:
        del client.scatter
    assert len(calls) >= 2  # scattered again after the loss
    np.testing.assert_array_equal(remote.grades, local.grades)
    np.testing.assert_array_equal(remote.judged, local.judged)
    assert remote.systems == local.systems


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dead_scheduler_ends_the_run_with_a_message(tmp_path, dl2019_dir):
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=SRC)
    bindir = Path(sys.executable).parent
    sched = subprocess.Popen([str(bindir / "dask"), "scheduler", "--port", str(port),
                              "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    worker = subprocess.Popen([str(bindir / "dask"), "worker", f"tcp://127.0.0.1:{port}",
                               "--nthreads", "1", "--no-dashboard"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    script = (  # the library call the CLI makes, with the CLI's logging of dask
        "import os; os.environ['DASK_LOGGING__DISTRIBUTED'] = 'critical'\n"
        "import sys, irstab\n"
        "from irstab.collection.cluster import get_client\n"
        f"c = get_client('tcp://127.0.0.1:{port}')\n"
        "c.wait_for_workers(1, timeout=60)\n"
        "print('connected', flush=True)\n"
        "try:\n"
        f"    irstab.evaluate('{dl2019_dir / 'qrels.txt'}', '{dl2019_dir / 'runs'}', ['AP'],"
        " client=c, max_batch_bytes=90_000)\n"  # one run per job: 37 jobs
        "except irstab.IRStabError as e:\n"
        "    print('error:', e); sys.exit(1)\n"
        "print('finished')\n"
    )
    try:
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "connected"
        time.sleep(1.5)
        os.killpg(sched.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=180)
    finally:
        for p in (sched, worker):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert proc.returncode == 1, (out, err[-2000:])
    assert "Traceback" not in err
    assert "error:" in out and ("scheduler is gone" in out or "no worker left" in out), out


@pytest.mark.parametrize("kind", ["http", "bytes"])
def test_an_address_that_is_no_scheduler_is_refused_quickly(kind, tmp_path):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]
    stop = threading.Event()

    def serve():
        srv.settimeout(0.2)
        conns = []
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conns.append(conn)
            if kind == "bytes":  # a length header of 2.8 EiB, as the server sent
                conn.sendall(b"\xff" * 64)
        for c in conns:
            c.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        t0 = time.perf_counter()
        proc = _irstab(["evaluate", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-m",
                        "AP", "--scheduler", f"tcp://127.0.0.1:{port}"], cwd=tmp_path, timeout=60)
        elapsed = time.perf_counter() - t0
    finally:
        stop.set()
        t.join()
        srv.close()
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    expected = "sent nothing within" if kind == "http" else "not the Dask protocol"
    assert expected in proc.stderr and f"127.0.0.1:{port}" in proc.stderr
    assert elapsed < 30  # 600 s before: a silent server hung the command


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([".", "..", "sub", "runs"]), max_size=4), st.booleans())
def test_any_spelling_of_a_path_travels_as_the_same_file(tmp_path_factory, detour, via_link):
    # the class of item 1: relative spellings (./, ../, detours), links; the job carries
    # an absolute path whose fingerprint the worker recomputes equal (closed form: the same
    # bytes give the same size and hash), from any working directory
    import os as _os

    root = tmp_path_factory.mktemp("p")
    (root / "sub").mkdir()
    (root / "runs").mkdir()
    run = root / "runs" / "sim01"
    run.write_bytes((EXAMPLE / "runs" / "sim01").read_bytes())
    if via_link:
        (root / "sub" / "link").symlink_to(run)
    cwd = _os.getcwd()
    try:
        _os.chdir(root / "sub")
        steps = [".."] + [d for d in detour if d != "runs"] + [".."] * sum(
            d in ("sub",) for d in detour)
        rel = _os.path.join(*steps, "runs", "sim01") if not via_link else "link"
        if not _os.path.exists(rel):
            return
        job, prints = cluster._located({"files": [rel]})
    finally:
        _os.chdir(cwd)
    (path,) = job["files"]
    assert _os.path.isabs(path) and _os.path.samefile(path, run)
    assert cluster.run_checked(lambda files, **_: files, prints, files=job["files"]) == [path]
