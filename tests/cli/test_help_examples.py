"""Every command's --help ends with examples, and each runs as shown from the repository root
(issue 24, point 5; issue 41, item 16: three of them could not).

Oracle: the examples themselves, run as a user pastes them: each in its own child process,
in order, from a temporary directory holding a copy of the repository's ``data/`` and
nothing else, with its own deadline, exit 0. An example may read what an earlier example of
the same --help wrote (``--save opt.json`` then ``-m @opt.json``), nothing else. Those on
the user's own files (marked ``# on your files:``, irstab.cli.examples.ON_YOUR_FILES) are
parsed by click instead.

Cost: 46 child processes, 150-160 s of CPU (the two reports, the two demos and calibrate
are half of it, starting Python and irstab about 1 s each); examples of one --help that share
no file run two at a time, so on 2 cores the file needs about half that in wall time when
they are free (212 s measured at load 4-5, the cores shared with other work).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import irstab.cli
from irstab.cli.examples import EXAMPLES, ON_YOUR_FILES, on_your_files
from irstab.cli.grammar import normalise_argv

REPO = Path(__file__).resolve().parents[2]
#: Deadline of one example (seconds): the report takes 10-35 s on 2 cores shared with other
#: work; this is for a machine ten times as busy, and a test's own deadline adds them up.
EXAMPLE_DEADLINE = 240
#: Examples of one --help run at once (those that share no file).
PARALLEL = max(1, min(2, os.cpu_count() or 1))
#: Options whose value is a file or directory the example writes.
OUTPUT_OPTIONS = ("-o", "--output", "--save", "--figure")


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


def _run(line: str, cwd: Path, after) -> tuple[str, int, str, float]:
    for earlier in after:  # the examples whose files this one reads
        earlier.result()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), TMPDIR=str(cwd.parent / "tmp"),
               COLUMNS="100")
    start = time.monotonic()
    try:
        got = subprocess.run([sys.executable, "-m", "irstab.cli", *_argv(line)], cwd=cwd,
                             env=env, capture_output=True, text=True, timeout=EXAMPLE_DEADLINE)
    except subprocess.TimeoutExpired:
        return line, -1, f"no end after {EXAMPLE_DEADLINE} s", time.monotonic() - start
    return line, got.returncode, got.stderr, time.monotonic() - start


def _help_cases():
    for path, lines in EXAMPLES.items():
        runnable = [line for line in lines if not on_your_files(line)]
        if runnable:
            yield pytest.param(path, runnable, id=" ".join(path), marks=pytest.mark.timeout(
                EXAMPLE_DEADLINE * len(runnable) + 60))


@pytest.mark.parametrize("path, lines", list(_help_cases()))
def test_every_example_runs_from_the_repository_root(path, lines, tmp_path):
    if not (REPO / "data" / "example" / "qrels.txt").is_file():
        pytest.skip("bundled example missing")
    root = tmp_path / "repository"
    shutil.copytree(REPO / "data", root / "data")
    (tmp_path / "tmp").mkdir()
    writes = [_writes(_argv(line)) for line in lines]
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        futures = []
        for j, line in enumerate(lines):
            after = [futures[i] for i in range(j) if any(w in line for w in writes[i])]
            futures.append(pool.submit(_run, line, root, after))
        results = [f.result() for f in futures]
    failed = [f"irstab {line}: exit {code} after {seconds:.0f} s: {err.strip()[-500:]}"
              for line, code, err, seconds in results if code != 0]
    assert not failed, "\n".join(failed)
    # the examples wrote into the copy, nothing beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repository", "tmp"]


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
