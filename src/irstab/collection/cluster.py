"""Dask clusters: reduce and score run files on ``dask.distributed`` workers, reduce on the client.

Start a scheduler and workers where the run files are readable under the
same paths (a shared file system), then point irstab at the scheduler with
``--scheduler tcp://host:8786`` on the command line, the ``IRSTAB_SCHEDULER``
environment variable, or ``client=`` in the Python API::

    dask scheduler                                # on one machine
    dask worker tcp://host:8786 --nworkers 8 --nthreads 1   # on each node

What travels: the qrels index (judged ``(topic, docid)`` keys and grades,
broadcast once) and jobs naming run file *paths* (batches of files, or one
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
the worker and the path, never with another collection's numbers.

Faults
------
A task whose worker dies is rescheduled by Dask on another worker; a job whose
inputs were lost with a worker (the scattered qrels index, a cancelled future)
is resubmitted here with the index scattered again. The run fails only when no
worker is left (or after four losses of the same job), with a message saying
so. Errors of the job itself (a bad run file) are not retried: they are
raised once, naming the file. An address that does not answer as a Dask scheduler
(an HTTP server, a server sending other bytes, nothing listening) is refused
within seconds, naming what was found there.
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct
from collections.abc import Callable, Iterator, Sequence

from ..errors import IRStabError

__all__ = ["SCHEDULER_ENV", "get_client", "map_jobs", "scheduler_client", "fingerprint"]

SCHEDULER_ENV = "IRSTAB_SCHEDULER"
_BLOCK = 2**20  # bytes of a run file hashed for its fingerprint
_PROBE_TIMEOUT = 5.0  # seconds a scheduler has to greet a new connection
_ATTEMPTS = 3  # losses of one job to dead workers before the job fails


def _probe(address: str, timeout: float = _PROBE_TIMEOUT) -> None:
    """Check that a Dask scheduler answers at a TCP address, or raise naming what was found.

    A Dask scheduler speaks first on a new connection: a handshake frame whose
    8-byte little-endian length header is small and whose message names
    ``pickle-protocol``. An HTTP server waits for a request (says nothing); other
    servers send other bytes. Non-TCP addresses (``tls://``, ``inproc://``,
    ``ucx://``) are left to Dask.
    """
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        return
    host, _, port = rest.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        port_no = int(port.split("/")[0])
    except ValueError:
        raise IRStabError(f"--scheduler {address}: expected tcp://HOST:PORT") from None
    try:
        with socket.create_connection((host, port_no), timeout=timeout) as conn:
            conn.settimeout(timeout)
            greeting = b""
            try:
                while len(greeting) < 512:
                    chunk = conn.recv(512 - len(greeting))
                    if not chunk:
                        break
                    greeting += chunk
                    if b"pickle-protocol" in greeting or len(greeting) >= 8 and \
                            struct.unpack("<Q", greeting[:8])[0] > 2**20:
                        break
            except socket.timeout:
                pass
    except OSError as exc:
        raise IRStabError(
            f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}"
        ) from None
    if not greeting:
        raise IRStabError(
            f"{address} accepted the connection but sent nothing within {timeout:g} s: it is "
            "not a Dask scheduler (an HTTP server waits silently like this); give the "
            "scheduler's address, e.g. tcp://host:8786"
        )
    if len(greeting) < 8 or struct.unpack("<Q", greeting[:8])[0] > 2**20 \
            or b"pickle-protocol" not in greeting:
        raise IRStabError(
            f"{address} answered with bytes that are not the Dask protocol "
            f"({greeting[:24]!r}...): it is not a Dask scheduler; give the scheduler's address, "
            "e.g. tcp://host:8786"
        )


def get_client(scheduler: str | None = None, timeout: float = 10.0):
    """A ``distributed.Client`` for ``scheduler`` (or ``$IRSTAB_SCHEDULER``); None if neither.

    Raises
    ------
    IRStabError
        dask.distributed is not installed, or nothing at the address answers
        as a Dask scheduler within seconds (the message names the address and
        what answered instead).
    """
    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address is None:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise IRStabError(
            f"--scheduler {address}: needs dask.distributed (pip install 'irstab[dask]')"
        ) from None
    _probe(address)
    level = os.environ.get("DASK_LOGGING__DISTRIBUTED")
    if level:  # the CLI sets it: a lost worker is reported in one line, not logged with tracebacks
        import logging

        for name in [n for n in logging.root.manager.loggerDict if n.startswith("distributed")]:
            logging.getLogger(name).setLevel(level.upper())
    try:
        return Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise IRStabError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


class scheduler_client:
    """``with scheduler_client(address) as client:`` -- None without a scheduler; closed after."""

    def __init__(self, scheduler: str | None):
        self.scheduler = scheduler
        self.client = None

    def __enter__(self):
        self.client = get_client(self.scheduler)
        return self.client

    def __exit__(self, *exc) -> None:
        if self.client is not None:
            self.client.close()


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


def run_checked(fn: Callable, prints: dict, **job):
    """On a worker: check that every file of the job is the client's, then ``fn(**job)``."""
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


def _is_fault(exc: BaseException) -> bool:
    """A loss of the cluster (a dead worker, lost inputs), not an error of the job itself."""
    from concurrent.futures import CancelledError

    if isinstance(exc, (CancelledError, KeyError)):
        return True
    module = type(exc).__module__ or ""
    return module.startswith(("distributed", "tornado")) or isinstance(exc, (EOFError,
                                                                              ConnectionError))


def _address(client) -> str:
    return getattr(getattr(client, "scheduler", None), "address", None) or "the scheduler"


def _require_workers(client, done: int, total: int) -> None:
    """Wait a little for a worker; raise when none is left (or the scheduler is gone)."""
    try:
        client.wait_for_workers(1, timeout=10)
    except Exception as exc:  # noqa: BLE001 - any failure here means: no cluster to run on
        raise IRStabError(
            f"the Dask cluster at {_address(client)} has no worker left (or the scheduler is "
            f"gone: {type(exc).__name__}); {done} of {total} jobs had finished"
        ) from None


def _scatter(client, index, done: int, total: int):
    for _ in range(_ATTEMPTS):
        try:
            return client.scatter(index, broadcast=True)
        except Exception as exc:  # noqa: BLE001 - a worker left while the index was sent
            if not _is_fault(exc):
                raise
            _require_workers(client, done, total)
    raise IRStabError(f"cannot send the qrels index to the workers of {_address(client)}")


def map_jobs(client, fn: Callable, jobs: Sequence[dict], index) -> Iterator:
    """``fn(index=index, **job)`` of every job on the cluster; results in job order.

    The qrels ``index`` is broadcast to every worker once; each job's ``files``
    travel as absolute paths with fingerprints the worker checks
    (:func:`run_checked`). A job lost with a worker is resubmitted (the index
    scattered again if it was lost too), up to three times; an error raised by
    the job itself is raised here (the first in job order) and the other jobs
    are cancelled.
    """
    if not hasattr(client, "submit") or not hasattr(client, "scatter"):
        raise IRStabError(f"client must be a distributed.Client, got {type(client).__name__}")
    located = [_located(job) for job in jobs]
    total = len(located)
    shared = _scatter(client, index, 0, total)

    def submit(k: int):
        job, prints = located[k]
        return client.submit(run_checked, fn, prints, index=shared, pure=False, **job)

    futures = [submit(k) for k in range(total)]
    try:
        for k in range(total):
            for attempt in range(_ATTEMPTS + 1):
                try:
                    result = futures[k].result()
                    break
                except Exception as exc:  # noqa: BLE001 - sorted into faults and job errors
                    if not _is_fault(exc):
                        raise
                    if attempt == _ATTEMPTS:
                        raise IRStabError(
                            f"job {k + 1} of {total} was lost with a Dask worker {_ATTEMPTS + 1} "
                            f"times ({type(exc).__name__}); the cluster at {_address(client)} "
                            "is losing workers"
                        ) from None
                    _require_workers(client, k, total)
                    shared = _scatter(client, index, k, total)
                    futures[k] = submit(k)  # later jobs that lost their inputs follow suit
            yield result
    finally:
        try:
            client.cancel(futures)
        except Exception:  # noqa: BLE001 - the scheduler may be gone already
            pass
