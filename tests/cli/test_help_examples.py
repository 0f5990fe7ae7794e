"""Every command's --help ends with examples, and each runs as shown from the repository root
(issue 24, point 5; issue 41, item 16: three of them could not).

Oracle: the examples themselves, run as a user pastes them: each in its own child process,
in order, from a temporary directory holding a copy of the repository's ``data/`` and
nothing else, with its own deadline, exit 0. An example may read what an earlier example of
the same --help wrote (``--save opt.json`` then ``-m @opt.json``), nothing else. Those on
the user's own files (marked ``# on your files:``, irstab.cli.examples.ON_YOUR_FILES) are
parsed by click instead. The demo's report is read too (what tests/cli/test_report_cli.py
checked of a second demo run in-process): the files it names, the collection, the settings,
and the verdict line against report.json.

The children are ``python -m irstab.cli`` forked from one process that has imported numpy,
pandas, SciPy's statistics and matplotlib once (tests/cli/example_forks.py says what a child
shares with it and what not): a fresh interpreter importing them costs 1-1.5 s of CPU per
example, a third of the file's CPU.

Cost: 45 child processes, about 90 s of CPU (the two reports, the two demos and calibrate
are most of it); examples of one --help that share no file run two at a time, so on 2 cores
the file needs about half that in wall time when they are free.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import irstab.cli
from irstab.cli.examples import EXAMPLES, ON_YOUR_FILES, on_your_files
from irstab.cli.grammar import normalise_argv
from irstab.report.study import DISPLAY_MAX

REPO = Path(__file__).resolve().parents[2]
#: Deadline of one example (seconds): the report takes 10-35 s on 2 cores shared with other
#: work; this is for a machine ten times as busy, and a test's own deadline adds them up.
EXAMPLE_DEADLINE = 240
#: Examples of one --help run at once (those that share no file).
PARALLEL = max(1, min(2, os.cpu_count() or 1))
#: Options whose value is a file or directory the example writes.
OUTPUT_OPTIONS = ("-o", "--output", "--save", "--figure")
#: Deadline of the forking process's start (its imports) and of each fork's answer.
FORKS_DEADLINE = 120


def _root():
    from irstab.cli.program import command

    return command()  # every command registered, paths parsed, examples added


def _commands(command, path=()):
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield path, command


def test_every_command_has_two_or_three_examples():
    root = _root()
    for path, command in _commands(root):
        assert path in EXAMPLES, f"irstab {' '.join(path)} has no examples"
        assert 2 <= len(EXAMPLES[path]) <= 3
        assert command.epilog.count("$ irstab ") == len(EXAMPLES[path])


def test_help_ends_with_the_examples(capsys):
    code = irstab.cli.main(["compare", "--help"])
    out = capsys.readouterr().out
    assert code == 0
    # the last example is the help's last paragraph (a wrapped line continues it)
    lines = [line.strip() for line in out.splitlines()]
    last = max(i for i, line in enumerate(lines) if line.startswith("$ irstab compare"))
    rest = [line for line in lines[last + 1:] if line]
    assert len(rest) <= 1 and not any(line.startswith(("-", "╰", "│")) for line in rest), rest
    assert out.index("Examples") > out.index("--format")


def _writes(argv: list[str]) -> set[str]:
    """The files and directories an example names as its outputs."""
    return {argv[i + 1] for i, a in enumerate(argv[:-1]) if a in OUTPUT_OPTIONS}


def _argv(line: str) -> list[str]:
    return shlex.split(line, comments=True)


def test_the_examples_name_the_files_they_write_once():
    """Two examples of one --help never write the same file (they may run at once), and an
    example on your files reads nothing of the repository's (it would be runnable)."""
    for path, lines in EXAMPLES.items():
        written = [w for line in lines for w in _writes(_argv(line))]
        assert len(written) == len(set(written)), (path, written)
        for line in lines:
            if on_your_files(line):
                assert "data/" not in line.split(ON_YOUR_FILES)[0], line


class Forks:
    """The process of tests/cli/example_forks.py: ``run(argv, cwd, env, stdout, stderr,
    deadline)`` is the return code of ``python -m irstab.cli ARGV`` (None: no end within the
    deadline, and the child's process group is killed). Every wait has a deadline."""

    def __init__(self, log: Path):
        env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
        self._log = log.open("w")
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name(
            "example_forks.py"))], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._log, env=env, cwd=log.parent, text=True)
        self._answers: dict = {}
        self._changed = threading.Condition()
        self._ids = itertools.count()
        threading.Thread(target=self._read, daemon=True).start()
        assert self._wait(lambda: self._answers.get("ready"), FORKS_DEADLINE), \
            f"example_forks.py did not start within {FORKS_DEADLINE} s: {log.read_text()}"

    def _read(self):
        for line in self.proc.stdout:
            message = json.loads(line)
            with self._changed:
                if "ready" in message:
                    self._answers["ready"] = True
                elif "id" in message:
                    self._answers[("id", message["id"])] = message["pid"]
                else:
                    self._answers[("pid", message["pid"])] = message["returncode"]
                self._changed.notify_all()
        with self._changed:
            self._answers["gone"] = True
            self._changed.notify_all()

    def _wait(self, what, seconds):
        with self._changed:
            self._changed.wait_for(lambda: what() is not None or "gone" in self._answers,
                                   timeout=seconds)
            return what()

    def run(self, argv, cwd, env, stdout, stderr, deadline):
        key = next(self._ids)
        request = {"id": key, "argv": argv, "cwd": str(cwd), "env": env,
                   "stdout": str(stdout), "stderr": str(stderr)}
        with self._changed:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        pid = self._wait(lambda: self._answers.get(("id", key)), FORKS_DEADLINE)
        assert pid is not None, f"example_forks.py forked nothing: {self._log.name}"
        code = self._wait(lambda: self._answers.get(("pid", pid)), deadline)
        if code is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        return code

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self._log.close()


@pytest.fixture(scope="module")
def forks(tmp_path_factory):
    forks = Forks(tmp_path_factory.mktemp("forks") / "example_forks.log")
    yield forks
    forks.close()


def _run(forks: Forks, line: str, cwd: Path, after, k: int) -> tuple[str, int, str, str, float]:
    for earlier in after:  # the examples whose files this one reads
        earlier.result()
    env = {"PYTHONPATH": str(REPO / "src"), "TMPDIR": str(cwd.parent / "tmp"), "COLUMNS": "100"}
    streams = cwd.parent / "streams"
    out, err = streams / f"{k}.out", streams / f"{k}.err"
    start = time.monotonic()
    code = forks.run(_argv(line), cwd, env, out, err, EXAMPLE_DEADLINE)
    seconds = time.monotonic() - start
    if code is None:
        return line, -1, "", f"no end after {EXAMPLE_DEADLINE} s", seconds
    return line, code, out.read_text(), err.read_text(), seconds


def _check_demo_report(report_dir: Path, out: str) -> None:
    """What ``irstab demo -o DIR`` wrote and printed (the example's own output)."""
    for name in ("report.html", "report.md", "report.json", "explore.html"):
        assert (report_dir / name).is_file()
        assert str(report_dir.name / Path(name)) in out
    report = json.loads((report_dir / "report.json").read_text())
    assert report["explorer"]["cutoff_max"] == 100  # the demo writes the explorer page too
    assert report["collection"] == {**report["collection"], "n_systems": 12, "n_topics": 30,
                                    "depth": 100}
    assert report["cutoffs"] == [10, 20, 100]
    assert report["settings"]["n_bootstrap"] == 200
    rec = report["recommendation"]
    first = out.splitlines()[0]
    assert first.startswith("verdict: use " if rec["change"] else "verdict: keep nDCG@10")
    assert (rec["measure"] if len(rec["measure"]) <= DISPLAY_MAX else "nDCG@") in first
    for c in rec["closest"]:  # each closest candidate's interval is printed as in report.json
        (row,) = [r for r in report["candidates"] if r["measure"] == c]
        lo, hi = row["phi_diff_ci"]
        assert f"[{lo:+.3f}, {hi:+.3f}]" in out
    assert report["minimax"] is not None


def _help_cases():
    for path, lines in EXAMPLES.items():
        runnable = [line for line in lines if not on_your_files(line)]
        if runnable:
            yield pytest.param(path, runnable, id=" ".join(path), marks=pytest.mark.timeout(
                EXAMPLE_DEADLINE * len(runnable) + 60))


@pytest.mark.parametrize("path, lines", list(_help_cases()))
def test_every_example_runs_from_the_repository_root(path, lines, tmp_path, forks):
    if not (REPO / "data" / "example" / "qrels.txt").is_file():
        pytest.skip("bundled example missing")
    root = tmp_path / "repository"
    shutil.copytree(REPO / "data", root / "data")
    (tmp_path / "tmp").mkdir()
    (tmp_path / "streams").mkdir()
    writes = [_writes(_argv(line)) for line in lines]
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        futures = []
        for j, line in enumerate(lines):
            after = [futures[i] for i in range(j) if any(w in line for w in writes[i])]
            futures.append(pool.submit(_run, forks, line, root, after, j))
        results = [f.result() for f in futures]
    failed = [f"irstab {line}: exit {code} after {seconds:.0f} s: {err.strip()[-500:]}"
              for line, code, _, err, seconds in results if code != 0]
    assert not failed, "\n".join(failed)
    # the examples wrote into the copy, nothing beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repository", "streams", "tmp"]
    if path == ("demo",):
        (out,) = [out for line, _, out, _, _ in results if _writes(_argv(line))]
        _check_demo_report(root / "demo-report", out)


def test_the_demos_report_is_read():
    """test_every_example_runs_from_the_repository_root[demo] reads the report of the
    example that writes one (``demo -o demo-report``)."""
    assert [w for line in EXAMPLES[("demo",)] for w in _writes(_argv(line))] == ["demo-report"]


@pytest.mark.parametrize("path, line", [(p, line) for p, lines in EXAMPLES.items()
                                        for line in lines if on_your_files(line)],
                         ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_the_examples_on_your_files_parse(path, line):
    root = _root()
    argv = normalise_argv(root, _argv(line))
    command = root
    for name in path:
        command = command.commands[name]
    command.make_context(" ".join(path), argv[len(path):])
