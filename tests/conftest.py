"""Shared fixtures: the real TREC DL 2019 data, used in place (never copied); the CLI in a
child process, with or without root's permission to read and write every file; ranx, its JIT
warmed before the first test that uses it starts its deadline (tests/jit_warmup.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# The suite draws the same Hypothesis examples on every run (a red CI names a change, not an
# unlucky draw); IRSTAB_HYPOTHESIS=explore draws new ones each run, to look for failures.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("IRSTAB_HYPOTHESIS", "repeatable"))

REPO = Path(__file__).resolve().parents[1]
DL2019 = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"


#: The files that take longest (seconds on one worker, 2 vCPU, 2026-12-04), collected first
LONG_FILES = (
    "tests/test_readme_console.py",  # 115-127 s with its cache empty
    "tests/cli/test_help_examples.py",  # about 130 s
    "tests/cli/test_report_preferences_cli.py",  # 25-27 s
    "tests/faults/test_cluster_faults.py",  # about 60 s
    "tests/faults/test_stopped_workers.py",
)


def pytest_collection_modifyitems(session, config, items):
    """The files of :data:`LONG_FILES` first, in that order, then the others by their number
    of tests, most first; within a file the order is unchanged (a stable sort).

    ``--dist loadfile`` with ``--no-loadscope-reorder`` (pyproject.toml) hands files to the
    workers in this order. xdist's own order (most tests first) started the README's console
    test (2 tests, 2 minutes) last, while the other worker had nothing left to run."""
    from collections import Counter

    rank = {name: i for i, name in enumerate(LONG_FILES)}
    files = [item.nodeid.split("::")[0] for item in items]
    counts = Counter(files)
    order = {id(item): (rank.get(f, len(rank)), -counts[f]) for item, f in zip(items, files)}
    items.sort(key=lambda item: order[id(item)])


@pytest.fixture(scope="session")
def dl2019_dir() -> Path:
    if not (DL2019 / "qrels.txt").is_file():
        pytest.skip(f"TREC DL 2019 data not found at {DL2019}")
    return DL2019


@pytest.fixture(scope="session")
def dl2019(dl2019_dir):
    """The DL-2019 Collection at depth 1000 (built once per session)."""
    import irstab

    return irstab.Collection.from_files(dl2019_dir / "qrels.txt", dl2019_dir / "runs")


@pytest.fixture(scope="session")
def dl2019_te9(dl2019_dir):
    """The DL-2019 Collection ordered as trec_eval 9 orders it, scores in single precision:
    what pytrec_eval (trec_eval 9's code) sees, for the tests it is the oracle of."""
    import irstab

    return irstab.Collection.from_files(dl2019_dir / "qrels.txt", dl2019_dir / "runs",
                                        order="score32")


@pytest.fixture(scope="session")
def small_graded():
    """4 simulated systems x 5 topics, depth 30, grades 0-3 (seed 7)."""
    import warnings

    import irstab

    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=5, depth=30, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstab.Collection.build(sim.qrels, sim.runs, depth=30)


# ---------------------------------------------------------------- peers with a JIT

#: The outcome of this process's ranx warm-up: the result of jit_warmup.warm_ranx, or the
#: exception it raised; empty until a test that uses the ``ranx`` fixture is about to run.
_RANX_WARM: dict = {}


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """Warm ranx before the first test that uses it, outside that test's deadline.

    pytest-timeout arms a test's deadline in its own ``pytest_runtest_protocol`` wrapper,
    around setup, call and teardown; this wrapper runs first (``tryfirst``), so the
    warm-up (jit_warmup.warm_ranx, under a deadline of its own) is over before the test's
    300 s begin, and a session fixture set up in the test's setup then costs nothing. It is
    warmed for the document ids of DL-2019, which the oracle tests read.
    """
    if "ranx" in getattr(item, "fixturenames", ()) and not _RANX_WARM:
        from jit_warmup import warm_ranx

        try:
            _RANX_WARM["result"] = warm_ranx([DL2019])
        except Exception as exc:  # ImportError (no ranx) or the warm-up's own deadline
            _RANX_WARM["error"] = exc
    yield


@pytest.fixture(scope="session")
def ranx():
    """The ranx module, its numba kernels compiled for what the oracle tests call (once per
    process, before the first test that asks for it; see :func:`pytest_runtest_protocol`)."""
    if not _RANX_WARM:  # asked for outside the runtest protocol (not by a test)
        from jit_warmup import warm_ranx

        try:
            _RANX_WARM["result"] = warm_ranx([DL2019])
        except Exception as exc:
            _RANX_WARM["error"] = exc
    error = _RANX_WARM.get("error")
    if isinstance(error, ImportError):
        pytest.skip(f"ranx is not installed ({error})")
    if error is not None:
        pytest.fail(f"ranx's JIT warm-up failed: {type(error).__name__}: {error}",
                    pytrace=False)
    return _RANX_WARM["result"]["module"]


@pytest.fixture(scope="session")
def ranx_warm_up(ranx) -> dict:
    """What the ranx warm-up took: ``seconds`` and ``alarm_before`` (tests/test_jit_warmup.py)."""
    return _RANX_WARM["result"]


_CLI_MAIN = "import sys, irstab.cli; sys.exit(irstab.cli.main())"


@pytest.fixture
def irstab_process():
    """``run(argv, prefix=())``: the CLI in a child process (for stdout as a real pipe, signals
    and dropped privileges); returns the CompletedProcess."""

    def run(argv, prefix=(), **kwargs):
        env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
        return subprocess.run(
            [*prefix, sys.executable, "-c", _CLI_MAIN, *map(str, argv)],
            capture_output=True, text=True, env=env, timeout=300, **kwargs,
        )

    return run


@pytest.fixture
def unprivileged():
    """A command prefix under which file permissions apply (root drops its override
    capabilities with setpriv); skips where that cannot be had."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: every file is readable and writable")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}"]
