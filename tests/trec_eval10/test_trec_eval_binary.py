"""Issue 41, item 18: the trec_eval 10 tests find a binary through ``$IRSTAB_TREC_EVAL``, and
say how to set it when they skip (trec_eval_binary.py).

Oracle: fake ``trec_eval`` executables written here, each printing a version line as
trec_eval 10.0 prints it (``trec_eval version 10.0-rc3``, on stderr) or another one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from trec_eval_binary import ENV, trec_eval_10


def _fake(directory: Path, version_line: str, name: str = "trec_eval", body: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}echo '{version_line}' >&2\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _env(tmp_path: Path, **values) -> dict:
    empty = tmp_path / "empty-path"
    empty.mkdir(exist_ok=True)
    return {"PATH": str(empty), **values}


def test_the_variable_names_a_trec_eval_10(tmp_path):
    fake = _fake(tmp_path / "built", "trec_eval version 10.0-rc3")
    assert trec_eval_10(_env(tmp_path, **{ENV: str(fake)})) == (str(fake), "")


@pytest.mark.parametrize("line", ["trec_eval version 9.0.7", "trec_eval version 8.1",
                                  "trec_eval version 100.0"])
def test_another_release_is_refused_with_its_version_and_how_to_set_the_variable(tmp_path,
                                                                                  line):
    fake = _fake(tmp_path / "old", line)
    binary, reason = trec_eval_10(_env(tmp_path, **{ENV: str(fake)}))
    assert binary is None
    version = line.split()[-1]
    assert reason.startswith(f"{ENV}={fake} is trec_eval {version}, not release 10; ")
    assert f"set {ENV}=/path/to/trec_eval" in reason and "v10.0" in reason


def test_the_variable_wins_over_path_and_a_wrong_one_is_not_replaced(tmp_path):
    on_path = _fake(tmp_path / "bin", "trec_eval version 10.0-rc3")
    wrong = _fake(tmp_path / "old", "trec_eval version 9.0.7")
    env = {"PATH": str(on_path.parent), ENV: str(wrong)}
    binary, reason = trec_eval_10(env)
    assert binary is None and "9.0.7" in reason
    assert trec_eval_10({"PATH": str(on_path.parent)}) == (str(on_path), "")


def test_a_name_in_the_variable_is_looked_up_on_path(tmp_path):
    fake = _fake(tmp_path / "bin", "trec_eval version 10.0", name="trec_eval-10")
    assert trec_eval_10({"PATH": str(fake.parent), ENV: "trec_eval-10"}) == (str(fake), "")


@pytest.mark.parametrize("case", ["missing", "not executable", "no version", "silent",
                                  "no answer"])
def test_a_binary_that_cannot_say_its_version_is_refused_with_the_reason(tmp_path, case):
    if case == "missing":
        named, expected = str(tmp_path / "nowhere" / "trec_eval"), "no such file"
    elif case == "not executable":
        path = tmp_path / "trec_eval"
        path.write_text("#!/bin/sh\n")
        named, expected = str(path), "not executable"
    elif case == "no version":
        named, expected = str(_fake(tmp_path / "x", "usage: trec_eval [-h]")), \
            "does not say 'trec_eval version ...'"
    elif case == "silent":
        path = tmp_path / "trec_eval"
        path.write_text("#!/bin/sh\nexit 0\n")
        path.chmod(0o755)
        named, expected = str(path), "printed nothing"
    else:
        named = str(_fake(tmp_path / "y", "trec_eval version 10.0", body="sleep 30\n"))
        expected = "gave no answer within 0.5 s"
    binary, reason = trec_eval_10(_env(tmp_path, **{ENV: named}), timeout=0.5)
    assert binary is None
    assert reason.startswith(f"{ENV}={named}") and expected in reason, reason
    assert f"set {ENV}=" in reason


def test_without_either_the_reason_says_how_to_set_the_variable(tmp_path):
    binary, reason = trec_eval_10(_env(tmp_path))
    assert binary is None
    assert reason.startswith(f"no trec_eval 10: {ENV} is not set and PATH has no trec_eval; ")
    assert "tests/trec_eval10/README.md" in reason


def test_the_comparison_tests_skip_with_that_reason(tmp_path):
    """Run by pytest as a user would, with a wrong binary named: every one of the tests that
    need trec_eval 10 skips, and the summary shows the reason (pytest -ra)."""
    import subprocess
    import sys

    fake = _fake(tmp_path / "old", "trec_eval version 9.0.7")
    here = Path(__file__).resolve().parent
    env = dict(os.environ, **{ENV: str(fake)})
    got = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-n", "0", "-p", "no:cacheprovider",
         str(here / "test_trec_eval10.py"), "-k", "binary_on_path"],
        capture_output=True, text=True, env=env, cwd=here.parents[1], timeout=240)
    assert got.returncode == 0, got.stdout[-2000:]
    if "no tests ran" in got.stdout or "skipped" not in got.stdout:
        pytest.fail(got.stdout[-2000:])
    assert f"{ENV}={fake} is trec_eval 9.0.7, not release 10" in got.stdout
