"""Issue 24, point 7: every console block, table and quoted figure of README.md is what the
commands print today.

scripts/readme_console.py writes them; this test reruns each command on DL-2019 (and the
re-annotation, and the bundled example) and compares: a change of row order, column names or
figures shows up here, not in a user's terminal. Wall times and the machine are checked for
their form only. The commands' outputs are cached under a key that hashes irstab's source and
the data (see the script's docstring): the first run on a fresh machine takes about two
minutes, later runs with nothing changed a few seconds.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

spec = importlib.util.spec_from_file_location("readme_console", REPO / "scripts" / "readme_console.py")
readme_console = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readme_console)


def _texts() -> dict:
    return {p: p.read_text(encoding="utf-8") for p in readme_console.documents() if p.exists()}


def test_every_scripted_part_is_in_the_docs_once(dl2019_dir):
    assert readme_console.DATA == dl2019_dir
    texts = _texts().values()
    for found, names in ((readme_console.blocks, readme_console.BLOCKS),
                         (readme_console.tables, readme_console.TABLES),
                         (readme_console.values, readme_console.VALUES)):
        seen = [n for text in texts for n in found(text)]
        assert sorted(seen) == sorted(names)


# every README command, each a process of its own with its own deadline (the script's
# _COMMAND_SECONDS): about two minutes on 2 quiet cores, three with both cores loaded,
# so the suite's 300 s per test would fail a slow machine, not a hang
@pytest.mark.timeout(1200)
def test_readme_matches_the_commands(dl2019_dir):
    stale = [f"{path.name}: {what}" for path, text in _texts().items()
             for what in readme_console.stale(text)]
    assert not stale, f"stale ({', '.join(stale)}): run python scripts/readme_console.py"
