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
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence

from ..errors import IRStabError

__all__ = ["SCHEDULER_ENV", "get_client", "map_jobs", "scheduler_client"]

SCHEDULER_ENV = "IRSTAB_SCHEDULER"


def get_client(scheduler: str | None = None, timeout: float = 10.0):
    """A ``distributed.Client`` for ``scheduler`` (or ``$IRSTAB_SCHEDULER``); None if neither.

    Raises
    ------
    IRStabError
        dask.distributed is not installed, or the scheduler cannot be reached
        (the message names the address).
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


def map_jobs(client, fn: Callable, jobs: Sequence[dict], index) -> Iterator:
    """``fn(index=index, **job)`` of every job on the cluster; results in job order.

    The qrels ``index`` is broadcast to every worker once; an error raised in
    a job is raised here (the first in job order) and the other jobs are
    cancelled.
    """
    if not hasattr(client, "submit") or not hasattr(client, "scatter"):
        raise IRStabError(f"client must be a distributed.Client, got {type(client).__name__}")
    shared = client.scatter(index, broadcast=True)
    futures = [client.submit(fn, index=shared, pure=False, **job) for job in jobs]
    try:
        for f in futures:
            yield f.result()
    finally:
        client.cancel(futures)
