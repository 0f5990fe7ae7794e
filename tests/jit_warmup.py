"""Peers that compile on first use, warmed once per test run before any test's deadline starts.

ranx is the suite's only peer with a JIT: its kernels are numba functions compiled on first
call (``@njit(cache=True)``), 40-80 s of CPU for what the oracle tests use on a fresh
environment, and several minutes on a machine whose cores are busy. Compiled inside a test,
that time counts against the test's deadline (300 s, pyproject.toml), and a peer's compile
decides the test. (ir_measures' tests use its pytrec_eval, gdeval, Judged and cwl_eval
providers, none of which compiles; pytrec_eval is C.)

:func:`warm_ranx` makes every call the oracle tests make, with the same constructors on a
tiny collection (``Qrels.from_file``, ``Run.from_df`` with string ids): each metric of
:data:`RANX_METRICS` and both of ``compare``'s tests. numba compiles one version per
argument type, and ranx's types carry the width of the longest document id (numpy's
``U7`` arrays, dicts keyed by ``[unichr x 7]``): the tiny collection is made once for every
width that the real collections the tests read hold (:func:`docid_widths`). tests/conftest.py runs it when the first test that uses the ``ranx`` fixture is
about to start, before pytest-timeout arms that test's deadline, under a deadline of its own
(:data:`DEADLINE_ENV`, default :data:`DEFAULT_DEADLINE`); the pytest-xdist workers take
turns (a file lock), so the first compiles into numba's on-disk cache and the others load
from it. Typed containers' helpers are compiled in each process all the same (numba caches
none of them): about 10 s per worker with the cache.
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import hashlib
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

#: ranx's metric names that the tests evaluate (tests/test_peer_habits.py, tests/systems/
#: test_significance.py); tests/test_jit_warmup.py checks that no test names another.
RANX_METRICS = ("ndcg@10-l2", "map@100-l2", "precision@10-l2", "mrr@10-l2", "recall@100-l2",
                "ndcg@10")
#: ranx.compare's tests that the tests run (fisher's is a numba kernel).
RANX_TESTS = ("student", "fisher")
#: Environment variable: seconds the warm-up may take (waiting for another worker included).
DEADLINE_ENV = "IRSTAB_JIT_WARMUP_TIMEOUT"
DEFAULT_DEADLINE = 900.0


class WarmUpTimeout(Exception):
    """The warm-up did not end within its deadline."""


@contextlib.contextmanager
def deadline(seconds: float, what: str, stacks: bool = True):
    """Raise :class:`WarmUpTimeout` in the main thread after ``seconds``; with ``stacks``,
    every thread's stack is printed 20 s before (faulthandler, whose one timer pytest's
    ``faulthandler_timeout`` uses within a test), as the suite does for a test.

    Uses SIGALRM. An alarm already set (a test's deadline, pytest-timeout's signal method)
    is suspended meanwhile and re-armed after with the time it had left, less the time spent
    here (at least a millisecond, so an expired one still fires). Off the main thread, or
    without SIGALRM, it only prints the stacks.
    """
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")

    def expire(signum, frame):
        raise WarmUpTimeout(f"{what}: no end after {seconds:g} s (set ${DEADLINE_ENV} for "
                            "more)")

    if stacks:
        faulthandler.dump_traceback_later(max(1.0, seconds - 20), exit=False)
    start = time.monotonic()
    if armed:
        previous = signal.signal(signal.SIGALRM, expire)
        left, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if left > 0:
                signal.setitimer(signal.ITIMER_REAL,
                                 max(left - (time.monotonic() - start), 0.001))
        if stacks:
            faulthandler.cancel_dump_traceback_later()


@contextlib.contextmanager
def _turn(key: str, seconds: float):
    """One process at a time per ``key`` (the ranx installation, hence its numba cache)."""
    name = hashlib.sha256(key.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"irstab-jit-warmup-{os.getuid()}-{name}.lock"
    end = time.monotonic() + seconds
    with open(path, "a") as fh:
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > end:
                    raise WarmUpTimeout(f"waited {seconds:g} s for another process's ranx "
                                        f"warm-up ({path})") from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


#: Width of the document ids when no real collection is given (DL-2019 passage ids: 7).
DEFAULT_WIDTH = 7


def docid_widths(directory: Path) -> set[int]:
    """The lengths of the longest document id of the qrels and of each run of a collection
    directory (``qrels.txt`` and ``runs/``, plain or gzipped): one compiled version each."""
    import gzip

    def longest(path: Path) -> int:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as fh:
            # the third field: qrels "topic iteration docid grade", runs "topic Q0 docid ..."
            return max((len(line.split()[2]) for line in fh if line.strip()), default=1)

    files = [directory / "qrels.txt", *sorted((directory / "runs").iterdir())]
    return {longest(path) for path in files if path.is_file()}


def tiny_collection(ranx, directory: Path, width: int = DEFAULT_WIDTH, tag: str = ""):
    """``(qrels, [run, run])`` as the oracle fixtures build them: qrels read from a TREC file,
    runs from DataFrames with string (object) topic and document ids and float scores; every
    document id ``width`` characters long."""
    import pandas as pd

    def doc(letter: str) -> str:
        return letter.rjust(width, "0")

    qrels_file = directory / f"qrels{tag}-{width}.txt"
    qrels_file.write_text("".join(f"{t} 0 {doc(d)} {g}\n" for t, d, g in (
        ("1", "a", 2), ("1", "b", 1), ("1", "c", 0), ("2", "a", 3), ("2", "d", 1),
        ("3", "e", 1))))
    qrels = ranx.Qrels.from_file(str(qrels_file), kind="trec")
    runs = []
    for name, scores in (("x", [3.0, 2.0, 1.0, 0.5]), ("y", [1.0, 3.0, 2.0, 0.25])):
        frame = pd.DataFrame({"topic": ["1"] * 4 + ["2"] * 4,
                              "docid": [doc(d) for d in "abdeacdf"],
                              "score": scores + scores})
        frame = frame.assign(topic=frame["topic"].astype(str).astype(object),
                             docid=frame["docid"].astype(str).astype(object))
        run = ranx.Run.from_df(frame, q_id_col="topic", doc_id_col="docid", score_col="score")
        run.name = name + tag
        runs.append(run)
    return qrels, runs


def exercise(ranx, directory: Path, width: int = DEFAULT_WIDTH, tag: str = "") -> None:
    """Every ranx call the oracle tests make, on :func:`tiny_collection` (and ``to_dict``,
``to_dataframe``: irstab reads ranx objects through them)."""
    import warnings

    qrels, runs = tiny_collection(ranx, directory, width, tag)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety notes about ranx's own casts
        for run in runs:
            for metric in RANX_METRICS:
                ranx.evaluate(qrels, run, metric, make_comparable=True)
                ranx.evaluate(qrels, run, metric, return_mean=False, make_comparable=True)
        for peer in (qrels, *runs):  # irstab reads ranx objects through these
            peer.to_dict()
            peer.to_dataframe()
        for test in RANX_TESTS:
            ranx.compare(qrels, runs, ["ndcg@10"], stat_test=test, n_permutations=100,
                         make_comparable=True)


def warm_deadline() -> float:
    return float(os.environ.get(DEADLINE_ENV, DEFAULT_DEADLINE))


def warm_ranx(collections=(), seconds: float | None = None) -> dict:
    """Import ranx and compile what the tests use, for the document id widths of the
    ``collections`` the tests read (directories; those missing are left out) and
    :data:`DEFAULT_WIDTH`.

    Returns ``{"module", "seconds", "alarm_before", "widths"}``: ``alarm_before`` is the
    time left on the process's SIGALRM timer when the warm-up began (0: no test's deadline
    was running). Raises ImportError without ranx and :class:`WarmUpTimeout` past the
    deadline (:func:`warm_deadline`).
    """
    seconds = warm_deadline() if seconds is None else seconds
    alarm_before = signal.getitimer(signal.ITIMER_REAL)[0] if hasattr(signal, "SIGALRM") else 0.0
    start = time.monotonic()
    with deadline(seconds, "ranx's JIT warm-up"):
        import ranx

        widths = {DEFAULT_WIDTH}.union(*(docid_widths(Path(c)) for c in collections
                                         if (Path(c) / "qrels.txt").is_file()))
        with _turn(os.path.dirname(ranx.__file__), seconds), \
                tempfile.TemporaryDirectory(prefix="irstab-jit-warmup-") as directory:
            for width in sorted(widths):
                exercise(ranx, Path(directory), width)
    return {"seconds": time.monotonic() - start, "alarm_before": alarm_before,
            "module": sys.modules["ranx"], "widths": sorted(widths)}


def compiled_versions() -> int:
    """How many compiled versions every numba function of the loaded ranx modules holds."""
    from numba.core.dispatcher import Dispatcher

    total = 0
    for name, module in list(sys.modules.items()):
        if name == "ranx" or name.startswith("ranx."):
            for value in vars(module).values():
                if isinstance(value, Dispatcher):
                    total += len(value.overloads)
    return total
