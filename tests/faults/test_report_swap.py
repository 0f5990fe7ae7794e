"""The report directory switches all at once (issue 26, item 5), even under kill -9.

Fault injection: a child process replaces a report directory of generation A by one of
generation B through :func:`irstab.io.outputtree.atomic_write_tree`, with every step of
the write slowed down, and is killed with SIGKILL at a random moment. Afterwards every
file in the directory must belong to one generation (all A or all B, none missing):
the closed-form invariant of an atomic switch. The next write removes what the killed
child left beside the directory.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import irstab
from irstab.io.outputtree import atomic_write_tree

SRC = str(Path(irstab.__file__).parents[1])
NAMES = ["report.json", "report.md", "report.html"] + [f"figures/f{i:02d}.png" for i in range(20)]


def generation(tag: str) -> dict[str, bytes]:
    return {name: f"{tag}:{name}:".encode() + bytes(2000) for name in NAMES}


CHILD = """
import json, os, sys, time
from pathlib import Path
from irstab.io import outputtree as af

out, contents = sys.argv[1], {k: v.encode() + bytes(2000) for k, v in json.loads(sys.argv[2]).items()}
slow = float(sys.argv[3])
real_exchange, real_rename, real_chmod = af._exchange, os.rename, os.chmod

def exchange(a, b):
    time.sleep(slow); r = real_exchange(a, b); time.sleep(slow); return r

def rename(a, b):
    time.sleep(slow); real_rename(a, b); time.sleep(slow)

def chmod(p, m):
    time.sleep(slow / 20); real_chmod(p, m)

af._exchange, os.rename, os.chmod = exchange, rename, chmod
print("start", flush=True)
af.atomic_write_tree(out, contents)
print("done", flush=True)
"""


def _state(out: Path) -> set[str]:
    tags = set()
    for name in NAMES:
        p = out / name
        assert p.is_file(), f"{name} missing"
        tags.add(p.read_bytes().split(b":")[0].decode())
    return tags


TRIALS = range(12)


def _kill_at(out: Path, delay: float, outcome: dict) -> None:
    """Start the slowed writer of generation B over ``out`` and SIGKILL it ``delay`` seconds
    after it said "start"; ``outcome["error"]`` says what went wrong, if anything did."""
    b = {name: f"B:{name}:" for name in NAMES}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(out), json.dumps(b), "0.3"],
                            env=dict(os.environ, PYTHONPATH=SRC), stdout=subprocess.PIPE,
                            text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)  # the child's first line, bounded
        if not ready:
            outcome["error"] = "the child said nothing within 60 s"
            return
        line = proc.stdout.readline().strip()
        if line != "start":
            outcome["error"] = f"the child said {line!r}, not 'start'"
            return
        time.sleep(delay)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """Every trial's writer, started at once (each mostly sleeps in its slowed steps, so they
    barely share the CPU) and killed at its own random moment after its own start: trial ->
    (directory, delay, the thread that started and killed it, its outcome)."""
    import threading

    trials = {}
    for trial in TRIALS:
        root = tmp_path_factory.mktemp(f"trial{trial}")
        out = root / "rep"
        atomic_write_tree(out, generation("A"))
        (out / "notes.txt").write_text("mine")  # a user's file in the report directory stays
        delay = np.random.default_rng(trial).uniform(0.0, 1.4)
        outcome: dict = {}
        thread = threading.Thread(target=_kill_at, args=(out, delay, outcome), daemon=True)
        thread.start()
        trials[trial] = out, delay, thread, outcome
    yield trials
    for _, _, thread, _ in trials.values():
        thread.join(timeout=120)


@pytest.mark.parametrize("trial", TRIALS)
def test_a_killed_report_write_leaves_one_generation(killed, trial):
    out, delay, thread, outcome = killed[trial]
    thread.join(timeout=120)  # 60 s for the child's first line, 1.4 s, 30 s for its end
    assert not thread.is_alive(), "the writer was not killed within 120 s"
    assert "error" not in outcome, outcome["error"]
    state = _state(out)
    assert state in ({"A"}, {"B"}), (delay, state)
    assert (out / "notes.txt").read_text() == "mine"
    # the next write clears what the killed writer left beside the directory
    atomic_write_tree(out, generation("C"))
    assert _state(out) == {"C"}
    assert [p.name for p in out.parent.iterdir()] == ["rep"]


def test_the_report_is_swapped_whole(tmp_path, small_graded):
    from irstab.report.render import write_report
    from irstab.report.study import run_study

    st = run_study(small_graded, (5,), starts=0, n_bootstrap=40, seed=1, tol=1e-3)
    out = tmp_path / "rep"
    write_report(st, out)
    older = out / "figures" / "from-an-older-study.png"  # a file the report does not write
    older.write_bytes(b"old")
    inode, older_inode = os.stat(out).st_ino, os.stat(older).st_ino
    paths = write_report(st, out)
    assert os.stat(out).st_ino != inode  # a new directory took the old one's place
    assert paths.json.is_file() and json.loads(paths.json.read_text())["cutoffs"] == [5]
    assert older.read_bytes() == b"old" and os.stat(older).st_ino == older_inode  # the same file
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]
