"""Fixtures of the optimizer tests."""

from __future__ import annotations

import pytest
from optimizer_data import small_collection


@pytest.fixture(scope="session")
def small():
    """8 systems x 12 topics, grades 0-3, depth 30 (simulate_collection, seed 11)."""
    return small_collection()
