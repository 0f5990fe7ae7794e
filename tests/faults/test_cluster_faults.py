"""Faults of a Dask cluster: paths, dead workers, a dead or frozen scheduler, addresses that are
no scheduler; and the deadlines that end every wait on them.

Oracle: the in-process call on the same files (itself tested against pytrec_eval);
a fault may cost a retry or end the run with a message naming the cluster and what was
waited for, never change a number, never wait without an end. Every test has its own
deadline (the timeout marks); the worker kills are made at a known point of the run (a
worker plugin that kills the worker starting the n-th job), not after a sleep.
"""

from __future__ import annotations

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
from cluster_support import (
    Background, KillNth, dask_processes, kill_group, local_cluster as bounded_cluster, read_line, start,
    tls_files,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.collection import cluster, connect
from irstab.errors import IRStabError

distributed = pytest.importorskip("distributed")

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
SRC = str(Path(irstab.__file__).parents[1])


@pytest.fixture()
def local_cluster():
    with bounded_cluster(2) as pair:
        yield pair


def _copy_example(dest: Path, n_runs: int = 12, flip: bool = False) -> None:
    (dest / "runs").mkdir(parents=True)
    shutil.copy(EXAMPLE / "qrels.txt", dest / "qrels.txt")
    for run in sorted((EXAMPLE / "runs").iterdir())[:n_runs]:
        text = run.read_text()
        if flip:  # same names and sizes' order of magnitude, other rankings: other numbers
            rows = [line.split() for line in text.splitlines()]
            text = "".join(f"{t} Q0 {d} {r} {-float(s):.4f} {tag}\n" for t, _, d, r, s, tag in rows)
        (dest / "runs" / run.name).write_text(text)


def _irstab(args, cwd: Path, timeout: float = 240, env=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC, **(env or {}))
    exe = Path(sys.executable).parent / "irstab"
    return subprocess.run([str(exe), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.timeout(240)
def test_relative_paths_read_the_clients_files(tmp_path, monkeypatch):
    # issue 26 item 1: workers started in a directory holding *other* files under the same
    # relative names used to evaluate those (every run 0.6919); the client's files are read
    decoy, mine = tmp_path / "decoy", tmp_path / "mine"
    _copy_example(decoy, 4, flip=True)
    _copy_example(mine, 4)
    monkeypatch.chdir(decoy)  # the workers' working directory
    with bounded_cluster(2) as (lc, _):
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
    _copy_example(tmp_path, 3)
    real = cluster._located

    def wrong(job):
        job, prints = real(job)
        return job, {p: (size + 1, digest) for p, (size, digest) in prints.items()}

    monkeypatch.setattr(cluster, "_located", wrong)  # the client's view of the files differs
    with bounded_cluster(1, processes=False) as (_, client):
        with pytest.raises(IRStabError, match=r"Dask worker \S+ reads a different file at /.*sim0\d"):
            irstab.evaluate(tmp_path / "qrels.txt", tmp_path / "runs", ["AP"], client=client)


def test_run_checked_names_a_missing_file(tmp_path):
    with pytest.raises(IRStabError, match=r"cannot read .*gone.*same absolute paths"):
        cluster.run_checked(lambda **_: None, {str(tmp_path / "gone"): (1, "x")})


def test_a_worker_that_keys_documents_otherwise_is_refused():
    # a client of another release whose (topic, docid) keys differ (its probe key here one
    # more than this one's): the worker says so before reading anything, instead of
    # matching no run document to the client's qrels index
    version, key = cluster.key_probe()
    assert cluster.run_checked(lambda **job: job, {}, probe=(version, key), x=1) == {"x": 1}
    with pytest.raises(IRStabError, match=r"runs irstab .*, which keys \(topic, docid\) pairs "
                                          r"unlike this client's irstab 0\.0\.1: install"):
        cluster.run_checked(lambda **_: None, {}, probe=("0.0.1", (key + 1) % 2**64))


@pytest.mark.timeout(240)
@pytest.mark.parametrize("nth", [0, 5])
def test_a_killed_worker_costs_a_retry_not_the_job(local_cluster, tmp_path, nth):
    # the worker starting the first (nth=0) or the sixth job of 12 kills itself mid-job;
    # the job is rescheduled (by Dask, or resubmitted here with the index scattered again)
    lc, client = local_cluster
    local = irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", ["nDCG@10", "AP"],
                            per_topic=True, depth=100)
    marks = tmp_path / "marks"
    marks.mkdir()
    client.register_plugin(KillNth(str(marks), nth))
    # one run per batch: 12 jobs
    remote = irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", ["nDCG@10", "AP"],
                             per_topic=True, depth=100, client=client,
                             max_batch_bytes=2 * 30 * 100)
    assert (marks / str(nth)).exists()  # the kill happened, at the chosen job
    pd.testing.assert_frame_equal(remote, local, check_exact=False, atol=1e-12, rtol=0)


@pytest.mark.timeout(240)
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


_SCRIPT = """\
import os, sys
os.environ['DASK_LOGGING__DISTRIBUTED'] = 'critical'  # as the CLI sets it
import irstab
from irstab.collection.cluster import scheduler_client
from irstab.evaluation import score_runs
seen = []

def progress(n):  # after the first batch: tell the test, wait for its go
    if not seen:
        seen.append(n)
        print('first batch', flush=True)
        sys.stdin.readline()

with scheduler_client(sys.argv[1]) as c:
    print('connected', flush=True)
    try:
        score_runs(sys.argv[2], sys.argv[3], ['AP'], client=c, max_batch_bytes=90_000,
                   progress=progress)  # one DL-2019 run per job: 37 jobs
    except irstab.IRStabError as e:
        print('error:', e, flush=True)
        sys.exit(1)
print('finished', flush=True)
"""


def _client_at_first_batch(address: str, dl2019_dir: Path, env: dict):
    """The library call the CLI makes, in a child that stops after its first batch until the
    test writes a line; returns the child once it stopped there."""
    proc = start([sys.executable, "-c", _SCRIPT, address, str(dl2019_dir / "qrels.txt"),
                  str(dl2019_dir / "runs")], env=env, stdin=subprocess.PIPE,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert read_line(proc, 120).strip() == "connected"
        assert read_line(proc, 180).strip() == "first batch"
    except BaseException:
        kill_group(proc)
        raise
    return proc


def _finish(proc, seconds: float) -> tuple[str, str, float]:
    t0 = time.monotonic()
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    try:
        out, err = proc.communicate(timeout=seconds)
    finally:
        kill_group(proc)
    return out.decode(), err.decode(), time.monotonic() - t0


@pytest.mark.timeout(300)
def test_a_dead_scheduler_ends_the_run_with_a_message(dl2019_dir):
    # killed after the first of 37 jobs, while the client waits: one line, exit 1 (Dask's
    # client tries to reconnect for the connect deadline, 10 s here, 30 s by default)
    with dask_processes(1) as (address, sched, _):
        proc = _client_at_first_batch(address, dl2019_dir, {"IRSTAB_CONNECT_TIMEOUT": "10"})
        kill_group(sched)
        out, err, elapsed = _finish(proc, 180)
    assert proc.returncode == 1, (out, err[-2000:])
    assert "Traceback" not in err
    assert "error:" in out and address in out, out
    assert "scheduler at" in out and ("is gone" in out or "did not answer" in out), out


@pytest.mark.timeout(300)
def test_a_scheduler_whose_workers_are_all_killed_ends_the_run(dl2019_dir):
    # the only worker (no nanny to restart it) dies after the first job: no progress is
    # possible, and the run ends after the worker deadline (3 s here), naming it
    with dask_processes(1) as (address, _, workers):
        proc = _client_at_first_batch(address, dl2019_dir, {"IRSTAB_WORKER_TIMEOUT": "3"})
        kill_group(workers[0])
        out, err, elapsed = _finish(proc, 120)
    assert proc.returncode == 1, (out, err[-2000:])
    assert "Traceback" not in err
    assert f"the Dask cluster at {address} has no worker left (none for 3 s" in out, out
    assert "IRSTAB_WORKER_TIMEOUT" in out and "of 37 jobs had finished" in out
    assert elapsed < 60  # 3 s, a 2 s slice, the checks; forever before


@pytest.mark.timeout(300)
def test_a_scheduler_that_stops_answering_ends_the_run(dl2019_dir):
    # SIGSTOP: the scheduler's socket stays open but nothing answers (a frozen VM, a
    # paused container); the client's question is bounded by the connect deadline (3 s)
    with dask_processes(1) as (address, sched, _):
        proc = _client_at_first_batch(address, dl2019_dir, {"IRSTAB_CONNECT_TIMEOUT": "3"})
        os.killpg(sched.pid, signal.SIGSTOP)
        out, err, elapsed = _finish(proc, 120)
    assert proc.returncode == 1, (out, err[-2000:])
    assert "Traceback" not in err
    assert f"the Dask scheduler at {address} did not answer within 3 s" in out, out
    assert "IRSTAB_CONNECT_TIMEOUT" in out
    assert elapsed < 60


def _accepting(send):
    """A TCP server on 127.0.0.1 that calls ``send(conn)`` on each connection it accepts."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    stop = threading.Event()
    conns = []

    def serve():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conns.append(conn)
            send(conn)
        for c in conns:
            c.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()

    def close():
        stop.set()
        t.join(timeout=10)
        srv.close()

    return srv.getsockname()[1], close


def _reset(conn):  # SO_LINGER 0: close sends RST instead of FIN
    import struct

    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


# what a server does with a new connection -> what the error must say, and how soon
# (the bounds leave the CLI's start-up on a loaded machine some 20 s; the waits themselves
# are 10 s for a silent server and none for the others)
SERVERS = {
    "silent (an HTTP server waits for a request)": (lambda c: None, "sent nothing within 10 s", 40),
    "closes at once": (lambda c: c.close(), "closed it at once without sending anything", 30),
    "resets at once": (_reset, "reset it without sending anything", 30),
    "garbage: a 2.8 EiB length header": (lambda c: c.sendall(b"\xff" * 64),
                                         "not the Dask protocol", 30),
    "garbage: a small frame of text": (lambda c: c.sendall(b"\x0c" + b"\0" * 7 + b"hello, world"),
                                      "not the Dask protocol", 30),
}


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    """Each kind of server of SERVERS, and ``irstab evaluate --scheduler`` at it, all started
    at once (the silent one waits 10 s; the others' time is the CLI's start-up)."""
    started, closers = {}, []
    try:
        for kind, (send, _, _) in SERVERS.items():
            port, close = _accepting(send)
            closers.append(close)
            started[kind] = port, Background(
                [str(Path(sys.executable).parent / "irstab"), "evaluate",
                 str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-m", "AP", "--scheduler",
                 f"tcp://127.0.0.1:{port}"], cwd=tmp_path_factory.mktemp("refused"),
                env=dict(os.environ, PYTHONPATH=SRC), deadline=60)
        yield started
    finally:
        for _, run in started.values():
            run.kill()
        for close in closers:
            close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", list(SERVERS))
def test_an_address_that_is_no_scheduler_is_refused_quickly(kind, refused):
    _, expected, seconds = SERVERS[kind]
    port, run = refused[kind]
    proc = run.result()  # within its 60 s, or killed and failed
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert expected in proc.stderr and f"127.0.0.1:{port}" in proc.stderr, proc.stderr
    assert "it is not a Dask scheduler" in proc.stderr
    assert run.elapsed < seconds  # 600 s before: a silent server hung the command


@pytest.mark.timeout(240)
def test_a_worker_or_nanny_address_is_refused_naming_the_scheduler(capsys):
    # a Dask worker and its nanny answer Dask's handshake too; asked what they are they
    # say so (the Client's TypeError traceback before)
    from irstab.cli import main

    with bounded_cluster(1) as (lc, client):
        scheduler = client.scheduler.address
        (worker,) = client.scheduler_info()["workers"]
        (nanny,) = [n.address for n in lc.workers.values()]
        for address, what, hint in ((worker, "a Dask worker", f"its scheduler is at {scheduler}"),
                                    (nanny, "a Dask nanny", "e.g. tcp://host:8786")):
            code = main(["evaluate", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-m",
                         "AP", "--scheduler", address])
            err = capsys.readouterr().err
            assert code == 1, err
            assert err.startswith(f"irstab: error: {address} is {what}"), err
            assert "not the scheduler" in err and hint in err and "Traceback" not in err
        code = main(["evaluate", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-m", "AP",
                     "--scheduler", scheduler, "-f", "csv"])
        assert code == 0 and "sim01" in capsys.readouterr().out  # the scheduler itself works


@pytest.mark.timeout(300)
def test_a_tls_scheduler_is_reached_with_dasks_tls_configuration(tmp_path):
    # tls:// with the client's files in Dask's configuration gives the local numbers; the
    # same scheduler named tcp:// waits silently for a TLS hello, and the error says tls://
    files = tls_files(tmp_path)
    if files is None:
        pytest.skip("openssl not installed")
    ca, cert, key = files
    args = ["evaluate", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-m", "AP", "-f",
            "csv"]
    env = {"DASK_DISTRIBUTED__COMM__TLS__CA_FILE": ca,
           "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": cert,
           "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": key}
    exe, base = str(Path(sys.executable).parent / "irstab"), dict(os.environ, PYTHONPATH=SRC)
    # the three commands run at once (the plain one waits 10 s for a hello), each bounded
    local = Background([exe, *args], cwd=tmp_path, env=base, deadline=240)
    with dask_processes(1, tls=files) as (address, _, _):
        remote = Background([exe, *args, "--scheduler", address], cwd=tmp_path,
                            env={**base, **env}, deadline=240)
        plain = Background([exe, *args, "--scheduler", address.replace("tls://", "tcp://")],
                           cwd=tmp_path, env={**base, **env}, deadline=240)
        remote, plain = remote.result(), plain.result()
    local = local.result()
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout and "sim01" in local.stdout
    assert plain.returncode == 1 and "Traceback" not in plain.stderr
    assert "sent nothing within 10 s" in plain.stderr and "needs tls://" in plain.stderr


ADDRESSES = {  # --scheduler value -> what the one-line error must say
    "tcp://127.0.0.1:120233": "port 120233 is outside 1..65535",  # wrapped to 54697 before
    "tcp://127.0.0.1:" + "9" * 5000: "port 999999... (5000 digits) is outside 1..65535",
    "tcp://127.0.0.1:0": "port 0 is outside 1..65535",
    "127.0.0.1:65536": "port 65536 is outside 1..65535",
    "tcp://127.0.0.1": "expected tcp://HOST:PORT",
    "tcp://:8786": "expected tcp://HOST:PORT",
    "tcp://host:87a6": "expected tcp://HOST:PORT",
    "tls://127.0.0.1:8786": "a tls:// scheduler needs this client's TLS files",  # TypeError before
    "inproc://x": "reaches a scheduler only inside the process that started it",  # unpack error
    "inproc://192.0.2.2/1/1": "reaches a scheduler only inside the process that started it",
    "ws://127.0.0.1:8786": "not ws://",
    "ucx://127.0.0.1:8786": "not ucx://",
}


@pytest.mark.parametrize("address", list(ADDRESSES), ids=lambda a: a[:40])
def test_a_malformed_or_unsupported_address_is_one_line(address, capsys, monkeypatch):
    from irstab.cli import main

    for name in ("DASK_DISTRIBUTED__COMM__TLS__CA_FILE", "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT"):
        monkeypatch.delenv(name, raising=False)
    t0 = time.perf_counter()
    code = main(["evaluate", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-m", "AP",
                 "--scheduler", address])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("irstab: error: "), err
    assert ADDRESSES[address] in err and address[:40] in err
    assert time.perf_counter() - t0 < 10  # refused before anything is read or connected


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-10**6, max_value=10**6))
def test_a_port_is_accepted_exactly_in_1_to_65535(port):
    # the class of the wrap-around: the parser takes a port iff it is a TCP port number
    address = f"tcp://10.0.0.1:{port}"
    if 1 <= port <= 65535:
        assert connect._host_port(address, f"10.0.0.1:{port}", "tcp") == ("10.0.0.1", port)
    else:
        with pytest.raises(IRStabError, match="outside 1..65535|expected tcp://HOST:PORT"):
            connect._host_port(address, f"10.0.0.1:{port}", "tcp")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_address_text_is_parsed_or_refused_by_name(text):
    # garbage: never another exception, and what passes names a supported scheme
    try:
        scheme, rest = connect.check_address(text)
    except IRStabError as exc:
        assert "--scheduler" in str(exc)
        return
    assert scheme in ("tcp", "tls", "inproc")


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
