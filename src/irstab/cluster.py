"""Dask clusters: score run files on ``dask.distributed`` workers, reduce on the client.

Start a scheduler and workers where the run files are readable under the
same paths (a shared file system), then point irstab at the scheduler with
``--scheduler tcp://host:8786`` on the command line, the ``IRSTAB_SCHEDULER``
environment variable, or ``client=`` in the Python API::

    dask scheduler                                # on one machine
    dask worker tcp://host:8786 --nworkers 8 --nthreads 1   # on each node

What travels: the qrels index (judged ``(topic, docid)`` keys and grades,
broadcast once) and batches of run file *paths* go to the workers; each
returns its runs' score rows (``systems x measures x topics`` float64) and
tags. The G-study, comparisons and reports reduce those rows on the client.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from .errors import IRStabError

__all__ = ["SCHEDULER_ENV", "get_client", "map_batches"]

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


def map_batches(client, batches: Sequence[Sequence[str]], index, depth: int, order: str,
                measures: Sequence) -> Iterator[tuple]:
    """Score each batch of run files on the cluster; results in batch order."""
    from .outofcore import score_batch

    if not hasattr(client, "map") or not hasattr(client, "scatter"):
        raise IRStabError(f"client must be a distributed.Client, got {type(client).__name__}")
    shared = client.scatter(index, broadcast=True)
    futures = [client.submit(score_batch, list(b), shared, depth, order, list(measures), 0,
                             pure=False) for b in batches]
    try:
        for f in futures:
            yield f.result()
    finally:
        client.cancel(futures)
