"""The package layout is part of the contract (docs/architecture.md).

* the import contracts of pyproject.toml hold (pipeline floors, no circles in any
  package, each package's own floors): ``lint-imports``, which reads function-local
  imports too (grimp), run as CI runs it;
* ``src/irstab/`` holds at most 6 modules besides its subpackages (and its ``__init__``);
* no module is over 700 lines unless its docstring says why it is one subject
  (a line starting ``One subject:``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import irstab

PACKAGE = Path(irstab.__file__).parent
REPO = PACKAGE.parents[1]


def test_import_contracts_hold():
    exe = Path(sys.executable).parent / "lint-imports"
    cmd = [str(exe)] if exe.exists() else [shutil.which("lint-imports") or "lint-imports"]
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(PACKAGE.parent), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def test_top_level_holds_few_modules():
    modules = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert len(modules) <= 6, modules


def test_no_module_is_two_rooms():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        lines = text.count("\n")
        doc = text.split('"""')[1] if text.lstrip().startswith(('"""', 'r"""')) else ""
        if lines > 700 and "One subject:" not in doc:
            too_long.append(f"{path.relative_to(PACKAGE)} ({lines} lines)")
    assert not too_long, too_long
