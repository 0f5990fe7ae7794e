"""Issue 13, item 8: README's console blocks are the commands' output today.

scripts/readme_console.py writes them; this test reruns each command on DL-2019 and compares
(so a change of row order, column names or figures shows up here, not in a user's terminal).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

spec = importlib.util.spec_from_file_location("readme_console", REPO / "scripts" / "readme_console.py")
readme_console = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readme_console)


def test_readme_console_blocks_match_the_commands(dl2019_dir):
    assert readme_console.DATA == dl2019_dir
    shown = readme_console.blocks(readme_console.README.read_text(encoding="utf-8"))
    assert set(shown) == set(readme_console.BLOCKS)  # every scripted block is in the README
    for name, body in shown.items():
        assert body == readme_console.render(name), f"README block {name!r} is stale: run " \
            "python scripts/readme_console.py"
