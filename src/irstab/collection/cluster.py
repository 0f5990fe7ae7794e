"""Dask clusters: reduce and score run files on ``dask.distributed`` workers, reduce on the client.

Start a scheduler and workers where the run files are readable under the
same paths (a shared file system), then point irstab at the scheduler with
``--scheduler tcp://host:8786`` on the command line, the ``IRSTAB_SCHEDULER``
environment variable, or ``client=`` in the Python API::

    dask scheduler                                # on one machine
    dask worker tcp://host:8786 --nworkers 8 --nthreads 1   # on each node

What travels: the qrels index (judged ``(topic, docid)`` keys and grades,
scattered once) and jobs naming run file *paths* (batches of files, or one
large file with a range of topics) go to the workers. What comes back depends
on the command: score rows (``systems x measures x topics`` float64) for
``evaluate``, ``stability``, ``topics`` and ``compare``; the optimizer's
sparse linear forms (rank and grade of each relevant document in the top k)
for ``optimize``; the runs' grade and judged arrays (2 bytes per ranked
entry) for the commands that need the ranked lists (``report``, ``crp``,
``assessors``, ``compare --informativeness``). G-studies, comparisons,
reports and the optimizer's iterations run on the client.

The workers read what the client reads
---------------------------------------
Run-file paths are made absolute on the client (a relative path would be read
against each worker's own working directory) and each carries a fingerprint:
its size and the SHA-256 of its first MiB (the whole file when it is smaller).
A worker checks the fingerprint before it reads the file; a worker that sees
no file, or another file, under that path stops the job with an error naming
the worker and the path, never with another collection's numbers. Each job also
carries the key the client's irstab gives a fixed ``(topic, docid)`` pair
(:func:`key_probe`): a worker whose irstab keys pairs otherwise (another release)
refuses the job, naming both versions, rather than match no document to the index.

Faults and deadlines
--------------------
A task whose worker dies is rescheduled by Dask on another worker; a job whose
inputs were lost with a worker (the scattered qrels index, a cancelled future)
is resubmitted here, with every job not yet finished, and the index scattered
again under a new key (re-scattering under the old key can leave a restarted worker
waiting forever for data the scheduler believes it holds, in distributed 2026.8).
Errors of the job itself (a bad run file) are not retried: they are raised once,
naming the file.

No wait is without an end (the deadlines are those of
:mod:`irstab.collection.connect`, set by ``IRSTAB_CONNECT_TIMEOUT``,
``IRSTAB_WORKER_TIMEOUT`` and ``IRSTAB_JOB_TIMEOUT``). The client waits for each job
in slices of two seconds; between slices it asks the scheduler (within the connect
deadline) how many workers it has. The run fails with a message naming the
scheduler and what was waited for when the scheduler is gone or stops answering,
when no worker is left for the worker deadline, when no job has finished for the
job deadline, or after four losses of the same job. A job may run as long as it
needs while the cluster is alive and jobs keep finishing.

The index is scattered to one worker, not broadcast: the other workers fetch it
from there with their first job (and from each other after that). A broadcast
makes the scheduler replicate the index over the workers it saw when it began,
and a worker dying meanwhile makes the broadcast fail with errors that do not say
so (a ``KeyError`` naming the worker, a ``ValueError`` from the scheduler's
sampling of targets, in distributed 2026.8).

Addresses are checked before a client is made (:mod:`irstab.collection.connect`):
an HTTP server, a server that closes the connection or sends other bytes, a Dask
worker instead of its scheduler, a port outside 1..65535, ``tls://`` without TLS
configuration, another process's ``inproc://`` are refused within seconds, naming
what was found there.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Callable, Iterator, Sequence

from .._workers import JOB_TIMEOUT_ENV, call_checked, call_within
from ..errors import IRStabError
from .connect import (
    CONNECT_TIMEOUT_ENV, SCHEDULER_ENV, WORKER_TIMEOUT_ENV, Deadlines, get_client,
    scheduler_client,
)

__all__ = ["SCHEDULER_ENV", "Deadlines", "get_client", "map_jobs", "scheduler_client",
           "fingerprint", "worker_slots", "key_probe"]

_BLOCK = 2**20  # bytes of a run file hashed for its fingerprint
_ATTEMPTS = 3  # losses of one job to dead workers before the job fails
_SLICE = 2.0  # seconds of one wait for a job between checks of the cluster


def worker_slots(client) -> int:
    """Jobs the cluster runs at once (its workers' threads), asked within the connect
    deadline; 1 when the scheduler does not answer (:func:`map_jobs` then says why)."""
    try:
        return max(1, sum(call_within(Deadlines.from_env().connect, client.nthreads).values()))
    except Exception:  # noqa: BLE001 - only sizes the plan; map_jobs reports the fault
        return 1


# ---------------------------------------------------------------- the files a job reads


def fingerprint(path: str) -> tuple[int, str]:
    """``(size, SHA-256 of the first MiB)`` of a file (the whole file when it is smaller)."""
    with open(path, "rb") as fh:
        head = fh.read(_BLOCK)
        size = os.fstat(fh.fileno()).st_size
    return size, hashlib.sha256(head).hexdigest()


def _located(job: dict) -> tuple[dict, dict[str, tuple[int, str]]]:
    """The job with its ``files`` as absolute paths, and their fingerprints (client side)."""
    files = job.get("files")
    if not files:
        return job, {}
    absolute = [os.path.abspath(f) for f in files]
    prints = {}
    for f in absolute:
        try:
            prints[f] = fingerprint(f)
        except OSError as exc:
            raise IRStabError(f"{f}: cannot read: {exc.strerror or exc}") from None
    return dict(job, files=absolute), prints


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "a worker"


@functools.lru_cache(maxsize=1)
def key_probe() -> tuple[str, int]:
    """This irstab's version and the 64-bit key it gives a fixed ``(topic, docid)`` pair.

    A worker whose key differs from the client's would match none of its run documents
    to the qrels index the client built (every run unjudged, silently): the key scheme
    (:mod:`irstab.io.keys`) may change between releases."""
    from importlib.metadata import PackageNotFoundError, version

    from ..io.keys import pair_keys

    try:
        mine = version("irstab")
    except PackageNotFoundError:  # a source tree on sys.path, not installed
        mine = "(not installed)"
    # a short id and one past the word-by-word length (io.keys hashes those otherwise)
    short, long = pair_keys(["irstab-probe"] * 2, ["document-0", "document-" + "0" * 5000])
    return mine, int(short ^ long)


def run_checked(fn: Callable, prints: dict, probe: tuple[str, int] | None = None, **job):
    """On a worker: check that it keys documents as the client does (``probe``, the client's
    :func:`key_probe`) and that every file of the job is the client's, then ``fn(**job)``."""
    if probe is not None:
        here = key_probe()
        if here[1] != probe[1]:
            raise IRStabError(
                f"Dask worker {_worker_name()} runs irstab {here[0]}, which keys (topic, "
                f"docid) pairs unlike this client's irstab {probe[0]}: install the same "
                "irstab release on the workers as on the client")
    for path, (size, digest) in prints.items():
        try:
            seen = fingerprint(path)
        except OSError as exc:
            raise IRStabError(
                f"Dask worker {_worker_name()} cannot read {path} ({exc.strerror or exc}): "
                "the workers must see the client's run files under the same absolute paths "
                "(a shared file system)"
            ) from None
        if seen != (size, digest):
            raise IRStabError(
                f"Dask worker {_worker_name()} reads a different file at {path} ({seen[0]} "
                f"bytes, the client's has {size}, or other content): the workers must see the "
                "client's run files under the same absolute paths (a shared file system)"
            )
    return fn(**job)


# ---------------------------------------------------------------- mapping jobs


def _address(client) -> str:
    return getattr(getattr(client, "scheduler", None), "address", None) or "the scheduler"


class _Watch:
    """The deadlines of one :func:`map_jobs` call: is the scheduler there, since when has
    it had no worker, when did a job last finish."""

    def __init__(self, client, deadlines: Deadlines, total: int):
        self.client = client
        self.deadlines = deadlines
        self.total = total
        self.done = 0
        self.last = time.monotonic()  # when a job last finished (or the run started)
        self.alone: float | None = None  # since when the cluster has had no worker

    def _fail(self, what: str) -> IRStabError:
        return IRStabError(f"{what}; {self.done} of {self.total} jobs had finished")

    def finished(self) -> None:
        self.done += 1
        self.last = time.monotonic()

    def workers(self) -> int:
        """The scheduler's number of workers, asked within the connect deadline."""
        seconds = self.deadlines.connect
        try:
            return len(call_within(seconds, self.client.nthreads))
        except TimeoutError:
            if getattr(self.client, "status", None) == "connecting":  # Dask lost the connection
                raise self._fail(f"the Dask scheduler at {_address(self.client)} is gone: the "
                                 f"connection was lost and not re-established within "
                                 f"{seconds:g} s ({CONNECT_TIMEOUT_ENV} sets the deadline)"
                                 ) from None
            raise self._fail(f"the Dask scheduler at {_address(self.client)} did not answer "
                             f"within {seconds:g} s ({CONNECT_TIMEOUT_ENV} sets the deadline)"
                             ) from None
        except Exception as exc:  # noqa: BLE001 - any failure here means: no scheduler to ask
            raise self._fail(f"the Dask scheduler at {_address(self.client)} is gone "
                             f"({type(exc).__name__})") from None

    def check(self) -> None:
        """Raise when the cluster has had no worker, or no job finished, for too long."""
        count, now = self.workers(), time.monotonic()
        if count:
            self.alone = None
        else:
            self.alone = self.alone if self.alone is not None else now
            if now - self.alone > self.deadlines.workers:
                raise self._fail(
                    f"the Dask cluster at {_address(self.client)} has no worker left (none "
                    f"for {self.deadlines.workers:g} s; {WORKER_TIMEOUT_ENV} sets the deadline)")
        if now - self.last > self.deadlines.job:
            raise self._fail(
                f"no job finished on the Dask cluster at {_address(self.client)} for "
                f"{self.deadlines.job:g} s although it has {count} worker(s) (raise "
                f"{JOB_TIMEOUT_ENV} for longer jobs)")

    def require_workers(self) -> None:
        """Return once the cluster has a worker; raise after the worker deadline."""
        while not self.workers():
            self.alone = self.alone if self.alone is not None else time.monotonic()
            self.check()
            time.sleep(0.25)
        self.alone = None

    def result(self, future):
        """The job's result: waited for in slices, the cluster checked between them."""
        from distributed import wait

        while True:
            try:
                wait([future], timeout=_SLICE)
                break
            except TimeoutError:
                if future.done():
                    break
                self.check()
        if future.status == "error":
            return future.result()  # raises the job's own error (or a fault) at once
        # a finished result still travels from its worker, through the scheduler: the
        # scheduler is asked between slices, the transfer itself may take the deadline (and
        # its helper thread ends there too, not waiting on past the call)
        seconds = self.deadlines.connect + self.deadlines.workers
        try:
            return call_checked(seconds, _SLICE, self.workers, future.result, timeout=seconds)
        except TimeoutError:
            raise _Lost(f"its result did not arrive within {seconds:g} s") from None


class _Lost(Exception):
    """A job's result that never arrived (the worker holding it stopped answering)."""


def _is_fault(exc: BaseException) -> bool:
    """A loss of the cluster (a dead worker, lost inputs), not an error of the job itself."""
    from concurrent.futures import CancelledError

    if isinstance(exc, (CancelledError, KeyError, _Lost)):
        return True
    module = type(exc).__module__ or ""
    return module.startswith(("distributed", "tornado")) or isinstance(exc, (EOFError,
                                                                              ConnectionError))


def _scatter(client, index, watch: _Watch):
    """Send the qrels index to one worker (module docstring), within a deadline, retried."""
    from dask.sizeof import sizeof

    d = watch.deadlines
    seconds = d.connect + d.workers + sizeof(index) / 2**20
    last = "no attempt"
    for _ in range(_ATTEMPTS):
        watch.require_workers()
        try:  # hash=False: a new key each time, never one a lost worker half-held
            return call_within(seconds, client.scatter, index, hash=False, timeout=d.workers)
        except TimeoutError:
            last = f"no answer within {seconds:.0f} s"
        except Exception as exc:  # noqa: BLE001 - a worker left while the index was sent
            if not _is_fault(exc):
                raise
            last = type(exc).__name__
    raise watch._fail(f"cannot send the qrels index to the workers of {_address(client)} "
                      f"({_ATTEMPTS} attempts; the last: {last}; {CONNECT_TIMEOUT_ENV} and "
                      f"{WORKER_TIMEOUT_ENV} set how long each may take)")


def map_jobs(client, fn: Callable, jobs: Sequence[dict], index,
             deadlines: Deadlines | None = None, *, reads_runs: bool = True) -> Iterator:
    """``fn(index=index, **job)`` of every job on the cluster; results in job order.

    The qrels ``index`` is scattered once; each job's ``files`` travel as absolute
    paths with fingerprints the worker checks (:func:`run_checked`). When a job is
    lost with a worker, the index is scattered again under a new key and every job
    not yet finished is resubmitted with it (the old ones cancelled); a job lost four
    times fails the run. An error raised by a job itself is raised here (the first in
    job order) and the other jobs are cancelled. Waits end by ``deadlines`` (default
    :meth:`Deadlines.from_env`; module docstring).

    Every cluster path of irstab waits through here. ``reads_runs=False`` is for jobs that
    compute from their arguments alone (the trust card's blocks of simulated collections):
    no index is sent (``index`` must be None), no key scheme checked, and ``fn(**job)``
    runs with the same deadlines, retries and cancellation.
    """
    if not hasattr(client, "submit") or not hasattr(client, "scatter"):
        raise IRStabError(f"client must be a distributed.Client, got {type(client).__name__}")
    deadlines = deadlines or Deadlines.from_env()
    located = [_located(job) for job in jobs]
    if not reads_runs and index is not None:
        raise IRStabError("map_jobs: reads_runs=False jobs take no index")
    probe = key_probe() if reads_runs else None
    total = len(located)
    watch = _Watch(client, deadlines, total)

    def scatter():
        return _scatter(client, index, watch) if reads_runs else None

    shared = scatter()

    def submit(k: int):
        job, prints = located[k]
        if reads_runs:
            job = dict(job, index=shared)
        return client.submit(run_checked, fn, prints, probe=probe, pure=False, **job)

    futures = [submit(k) for k in range(total)]
    losses = [0] * total
    try:
        for k in range(total):
            while True:
                try:
                    result = watch.result(futures[k])
                    break
                except Exception as exc:  # noqa: BLE001 - sorted into faults and job errors
                    if not _is_fault(exc):
                        raise
                    losses[k] += 1
                    if losses[k] > _ATTEMPTS:
                        raise watch._fail(
                            f"job {k + 1} of {total} was lost with a Dask worker {losses[k]} "
                            f"times ({exc if isinstance(exc, _Lost) else type(exc).__name__}); "
                            f"the cluster at {_address(client)} is losing workers") from None
                    # a fresh key: the index's old key may be half-known to a restarted worker
                    shared = scatter()
                    stale = [j for j in range(k, total) if futures[j].status != "finished"]
                    _cancel(client, [futures[j] for j in stale], deadlines)
                    for j in stale:
                        futures[j] = submit(j)
            watch.finished()
            yield result
    finally:
        _cancel(client, futures, deadlines)


def _cancel(client, futures, deadlines: Deadlines) -> None:
    try:
        call_within(deadlines.connect, client.cancel, futures)
    except Exception:  # noqa: BLE001 - the scheduler may be gone already
        pass
