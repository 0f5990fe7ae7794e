"""Shared fixtures: the real TREC DL 2019 data, used in place (never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DL2019 = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"


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
