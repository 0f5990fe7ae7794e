"""Worker processes: a pool that stops with its command, and one BLAS thread per worker.

Run files are reduced, batches scored, optimizer starts and maximum-entropy
blocks solved in forked worker processes. :func:`process_pool` is the one way
they are started:

* the workers reset SIGTERM and SIGHUP to the defaults and ignore SIGINT (a
  forked worker would otherwise inherit the command's handlers and raise in
  the middle of a task); Ctrl-C reaches the whole process group, and the
  command decides;
* when the command stops for any reason other than finishing (an error,
  SIGTERM, Ctrl-C, a generator closed early), the workers are terminated at
  once instead of finishing their tasks: a stopped command ends within a
  second, and it writes nothing (outputs are written whole or not at all);
* on a normal exit the pool is shut down and the workers joined.

:func:`one_blas_thread` limits BLAS to one thread where the vectors are small
and the processes already fill the cores.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

__all__ = ["process_pool", "one_blas_thread", "start_method"]


def start_method() -> str:
    """``fork`` where the platform has it (workers inherit the job), else ``spawn``."""
    return "fork" if "fork" in mp.get_all_start_methods() else "spawn"


def _init(initializer: Callable | None, initargs: tuple) -> None:
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def _quiet(thread) -> None:
    """Drop what ``thread`` raises from now on (the manager thread of a pool whose workers
    were terminated finds their pipes closed; its traceback is noise after the command's
    own one-line message)."""
    if thread is None:
        return
    previous = threading.excepthook

    def hook(args):
        if args.thread is not thread:
            previous(args)

    threading.excepthook = hook


def _terminate(pool: ProcessPoolExecutor) -> None:
    _quiet(getattr(pool, "_executor_manager_thread", None))
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.join(timeout=1.0)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=1.0)


@contextmanager
def process_pool(workers: int, initializer: Callable | None = None, initargs: tuple = (),
                 method: str | None = None) -> Iterator[ProcessPoolExecutor]:
    """A :class:`~concurrent.futures.ProcessPoolExecutor` of ``workers`` processes.

    Leaving the block normally shuts it down and joins the workers; leaving it
    by any exception (``KeyboardInterrupt``, the CLI's SIGTERM/SIGHUP exception,
    an error, ``GeneratorExit``) terminates them at once.
    """
    pool = ProcessPoolExecutor(max_workers=workers,
                               mp_context=mp.get_context(method or start_method()),
                               initializer=_init, initargs=(initializer, initargs))
    try:
        yield pool
    except BaseException:
        _terminate(pool)
        raise
    pool.shutdown(wait=True)


_BLAS = None  # threadpoolctl.ThreadpoolController of this process's BLAS libraries


def one_blas_thread():
    """Context in which BLAS/LAPACK run on one thread (the local solves' vectors are small).

    SLSQP's least-squares subproblem and L-BFGS-B call BLAS on vectors of a
    few hundred entries thousands of times; a multi-threaded BLAS (OpenBLAS)
    wakes its threads for each call and spends more on them than on the
    arithmetic, most of all on a loaded machine: the default multi-start on
    DL-2019 at k = 100 took 5.2 s of CPU with OpenBLAS's threads and 0.9 s
    with one, with the same iterates. Starts run in parallel as processes
    instead (``workers``).
    """
    global _BLAS
    if _BLAS is None:  # once: finding the loaded libraries reads /proc/self/maps
        import scipy.optimize  # noqa: F401  (SciPy's own BLAS must be loaded to be limited)
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")
