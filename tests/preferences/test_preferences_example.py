"""data/example-preferences/preferences.csv is what scripts/make_example_preferences.py writes
(byte for byte), and reads without a warning."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_example_preferences_are_what_the_script_writes():
    spec = importlib.util.spec_from_file_location(
        "make_example_preferences", REPO / "scripts" / "make_example_preferences.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = (REPO / "data" / "example-preferences" / "preferences.csv").read_text()
    assert module.build() == written
    rows = written.splitlines()
    # the README's counts: 720 judgments, A / B / none 311 / 275 / 134
    assert len(rows) == 721
    sides = [r.split(",")[3] for r in rows[1:]]
    assert (sides.count("A"), sides.count("B"), sides.count("none")) == (311, 275, 134)
