"""Every command that runs on a Dask cluster ends, with a message, when its workers stop answering.

SIGSTOP freezes the workers (a paused container, a swapped-out node): the scheduler still
answers and still counts them, so only the job deadline (``IRSTAB_JOB_TIMEOUT``, 5 s here, an
hour by default) can end the wait; a command that sends the qrels index first ends at that
send, bounded by the connect and worker deadlines. Each command's cluster path (scoring batches for evaluate,
reducing runs for report, the optimizer's forms, the assessor cells, the trust card's blocks of
simulated collections) must go through the one waiting helper,
:func:`irstab.collection.cluster.map_jobs`; ``calibrate`` waited for ever before.

Oracle: the command exits 1 within a bound set by the deadlines (plus start-up), names the
scheduler and the variable, and prints no traceback.

The five commands start together (a module fixture) and are waited for by their own tests:
each mostly waits for its deadlines, so one after the other they left a core idle for most
of the file's time. Each keeps its own deadline (180 s for the child, 240 s for the test) and
its bound, measured from its own start to its own end.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cluster_support import Background, dask_processes

import irstab

pytest.importorskip("distributed")

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
SRC = str(Path(irstab.__file__).parents[1])
DEADLINES = {"IRSTAB_JOB_TIMEOUT": "2", "IRSTAB_WORKER_TIMEOUT": "2",
             "IRSTAB_CONNECT_TIMEOUT": "2", "IRSTAB_WORKERS": "0"}


def _scores(path: Path) -> Path:
    rng = np.random.default_rng(4)
    x = np.clip(rng.normal(0.5, 0.1, (6, 1)) + rng.normal(0, 0.15, (6, 12)), 0, 1)
    pd.DataFrame(x, index=[f"s{i}" for i in range(6)],
                 columns=[f"t{j}" for j in range(12)]).rename_axis("system").to_csv(path)
    return path


COMMANDS = {
    "evaluate": lambda d: ["evaluate", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"),
                           "-m", "nDCG@10"],
    "report": lambda d: ["report", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"),
                         "-o", str(d / "rep"), "--no-trust-card"],
    "optimize": lambda d: ["optimize", "discount", str(EXAMPLE / "qrels.txt"),
                           str(EXAMPLE / "runs"), "--cutoff", "5"],
    "assessors": lambda d: ["assessors", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"),
                            "-a", str(EXAMPLE / "qrels.txt"), "--no-base", "-m", "nDCG@10"],
    "calibrate": lambda d: ["calibrate", "--scores", str(_scores(d / "s.csv")),
                            "-R", "20", "-B", "100", "--verdict-replicates", "0"],
}


@pytest.fixture(scope="module")
def stopped_cluster():
    """One scheduler whose only worker is stopped, shared by the commands (one start-up)."""
    with dask_processes(1) as (address, _, workers):
        for w in workers:
            os.killpg(w.pid, signal.SIGSTOP)
        try:
            yield address
        finally:
            for w in workers:
                os.killpg(w.pid, signal.SIGCONT)


#: Deadline of one command's child process (seconds): killed and failed past it.
CHILD_DEADLINE = 180


@pytest.fixture(scope="module")
def started(stopped_cluster, tmp_path_factory):
    """Every command of COMMANDS started at once against the stopped cluster."""
    env = dict(os.environ, PYTHONPATH=SRC, **DEADLINES)
    runs = {}
    try:
        for command in sorted(COMMANDS):
            d = tmp_path_factory.mktemp(command)
            runs[command] = Background(
                [str(Path(sys.executable).parent / "irstab"), *COMMANDS[command](d),
                 "--scheduler", stopped_cluster], cwd=d, env=env, deadline=CHILD_DEADLINE)
        yield runs
    finally:
        for run in runs.values():
            if not run.done.wait(timeout=CHILD_DEADLINE + 10):
                run.kill()


@pytest.mark.timeout(240)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_stopped_workers_end_the_command_with_a_message(command, stopped_cluster, started):
    run = started[command]
    out = run.result()  # within CHILD_DEADLINE, or killed and failed
    assert out.returncode == 1, (out.stdout[-1000:], out.stderr[-2000:])
    assert "Traceback" not in out.stderr
    assert stopped_cluster in out.stderr and "IRSTAB_" in out.stderr, out.stderr[-2000:]
    assert run.elapsed < 90, run.elapsed  # 2 s deadlines, 2 s slices, start-up; forever before
