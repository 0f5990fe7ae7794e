"""Worker processes and waits with deadlines: a pool that stops with its command, one BLAS
thread per worker, and no wait without an end.

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
* on a normal exit the pool is shut down and the workers joined (for at most
  :data:`JOIN_SECONDS`, then terminated).

Deadlines. The pool's ``map`` waits for each result in slices of a second; a task
may run as long as it needs, but when no task has finished for
``$IRSTAB_JOB_TIMEOUT`` seconds (default :data:`DEFAULT_JOB_TIMEOUT`, an hour) the
workers are taken for stuck (a deadlock after ``fork``, a file system that stopped
answering) and the command fails with an :class:`~irstab.errors.IRStabError` saying
so. A worker that dies (killed, out of memory) fails the command at once, naming
its exit signal. :func:`call_within` bounds any other blocking call (used for the
Dask client, :mod:`irstab.collection.cluster`), :func:`seconds_from_env` reads the
deadlines' environment variables.

:func:`one_blas_thread` limits BLAS to one thread where the vectors are small
and the processes already fill the cores.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from .errors import IRStabError

__all__ = ["JOB_TIMEOUT_ENV", "call_checked", "call_within", "job_timeout", "one_blas_thread",
           "process_pool", "seconds_from_env", "start_method"]

JOB_TIMEOUT_ENV = "IRSTAB_JOB_TIMEOUT"
DEFAULT_JOB_TIMEOUT = 3600.0  # seconds without any task finishing before workers are stuck
JOIN_SECONDS = 30.0  # a finished pool's workers exit at once; this only bounds a stuck exit
_SLICE = 1.0  # seconds of one wait for a result between checks


def seconds_from_env(name: str, default: float) -> float:
    """The number of seconds in the environment variable ``name`` (``default`` if unset or empty).

    Raises
    ------
    IRStabError
        The value is not a finite number > 0 (the message names the variable).
    """
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise IRStabError(f"{name} must be a number of seconds > 0, got {text!r}")
    return value


def job_timeout() -> float:
    """Seconds a pool or a cluster may go without finishing a task: ``$IRSTAB_JOB_TIMEOUT``."""
    return seconds_from_env(JOB_TIMEOUT_ENV, DEFAULT_JOB_TIMEOUT)


def call_within(seconds: float, fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)``, or :class:`TimeoutError` when it has not returned in ``seconds``.

    The call runs in a daemon thread; on a timeout it is left to finish (or not) on its
    own, so use this only for calls whose late completion is harmless (asking a Dask
    scheduler a question, closing a client). What ``fn`` raises is raised here.
    """
    return call_checked(seconds, seconds, None, fn, *args, **kwargs)


def call_checked(seconds: float, every: float, check: Callable[[], None] | None,
                 fn: Callable, *args, **kwargs):
    """:func:`call_within`, calling ``check()`` every ``every`` seconds while ``fn`` runs.

    For a long call that should end early when what it depends on is gone: ``check`` raises
    (a transfer from a Dask worker whose scheduler stopped answering fails within the
    scheduler's deadline, not the transfer's).
    """
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    name = getattr(fn, "__qualname__", "call")
    thread = threading.Thread(target=run, name=f"irstab: {name}", daemon=True)
    thread.start()
    deadline = time.monotonic() + seconds
    while True:
        thread.join(max(min(every, deadline - time.monotonic()), 0.0))
        if not thread.is_alive():
            break
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{name} did not return within {seconds:g} s")
        if check is not None:
            check()
    if "error" in box:
        raise box["error"]
    return box.get("value")


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


def _died(processes) -> str:
    """How a pool's dead workers ended, e.g. ``killed by SIGKILL`` (the SIGTERM the executor
    sends the others once one died is named only when it is all there is). The executor's
    thread reaps them concurrently: their exit codes are read once all are known (at most
    two seconds)."""
    deadline = time.monotonic() + 2.0
    while any(p.exitcode is None for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    how = []
    for proc in processes:
        code = proc.exitcode
        if code is not None and code < 0:
            try:
                how.append(f"killed by {signal.Signals(-code).name}")
            except ValueError:
                how.append(f"killed by signal {-code}")
        elif code:
            how.append(f"exit code {code}")
    causes = [h for h in dict.fromkeys(how) if h != "killed by SIGTERM"] or how[:1]
    return ", ".join(causes) or "ended abruptly"


class BoundedPool:
    """A :class:`~concurrent.futures.ProcessPoolExecutor` whose ``map`` waits with a deadline.

    ``map(fn, items)`` submits every item at once (as the executor's own ``map``) and
    yields the results in order. It waits for each in slices of :data:`_SLICE` seconds;
    when no task has finished for ``timeout`` seconds it raises :class:`IRStabError`
    (the workers are then terminated by :func:`process_pool`). A worker that died
    raises :class:`IRStabError` naming how it ended.
    """

    def __init__(self, executor: ProcessPoolExecutor, timeout: float):
        self.executor = executor
        self.timeout = timeout

    def map(self, fn: Callable, items: Iterable) -> Iterator:
        futures = [self.executor.submit(fn, item) for item in items]
        # the executor forgets its processes once one died; keep them to say how
        self._seen = list((getattr(self.executor, "_processes", None) or {}).values())
        return self._results(futures)

    def _results(self, futures: list[Future]) -> Iterator:
        last = time.monotonic()
        for done, future in enumerate(futures):
            while True:
                try:
                    result = future.result(timeout=_SLICE)
                    break
                except TimeoutError:
                    if future.done():  # the task itself raised TimeoutError
                        raise
                    if time.monotonic() - last > self.timeout:
                        raise IRStabError(
                            f"no worker process finished a task for {self.timeout:g} s "
                            f"({done} of {len(futures)} done): the workers are stuck; they "
                            f"were stopped (raise {JOB_TIMEOUT_ENV} for longer tasks)"
                        ) from None
                except BrokenProcessPool:
                    raise IRStabError(
                        f"a worker process died ({_died(self._seen)}; out of memory?) with "
                        f"{len(futures) - done} of {len(futures)} tasks unfinished"
                    ) from None
            last = time.monotonic()
            yield result


def _processes(pool: ProcessPoolExecutor) -> list:
    return list((getattr(pool, "_processes", None) or {}).values())


def _stop(pool: ProcessPoolExecutor, processes: list) -> None:
    """Terminate ``processes`` (SIGTERM, then SIGKILL after a second) and drop the pool."""
    _quiet(getattr(pool, "_executor_manager_thread", None))
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.join(timeout=1.0)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=1.0)


def _terminate(pool: ProcessPoolExecutor) -> None:
    _stop(pool, _processes(pool))


@contextmanager
def process_pool(workers: int, initializer: Callable | None = None, initargs: tuple = (),
                 method: str | None = None) -> Iterator[ProcessPoolExecutor]:
    """A :class:`BoundedPool` of ``workers`` processes (module docstring: deadlines).

    Leaving the block normally shuts it down and joins the workers (for at most
    :data:`JOIN_SECONDS`); leaving it by any exception (``KeyboardInterrupt``, the CLI's
    SIGTERM/SIGHUP exception, an error, a deadline, ``GeneratorExit``), also one that
    arrives while the pool shuts down, terminates them at once. ``$IRSTAB_JOB_TIMEOUT`` is
    read (and checked) before any process starts.
    """
    timeout = job_timeout()
    pool = ProcessPoolExecutor(max_workers=workers,
                               mp_context=mp.get_context(method or start_method()),
                               initializer=_init, initargs=(initializer, initargs))
    try:
        yield BoundedPool(pool, timeout)
        _shutdown(pool)
    except BaseException:
        _terminate(pool)
        raise


def _shutdown(pool: ProcessPoolExecutor) -> None:
    """Shut a finished pool down; a worker that does not exit within JOIN_SECONDS is killed.

    The workers are known before ``shutdown`` forgets them: a signal that interrupts the
    joins (the command then ends with ``os._exit``) terminates them here, or they would
    outlive the command, waiting on a queue whose other ends they hold themselves.
    """
    processes = _processes(pool)
    try:
        pool.shutdown(wait=False)
        deadline = time.monotonic() + JOIN_SECONDS
        for proc in processes:
            proc.join(timeout=max(deadline - time.monotonic(), 0.0))
    except BaseException:
        _stop(pool, processes)
        raise
    if any(proc.is_alive() for proc in processes):
        _stop(pool, processes)


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
