"""The docstring Examples of the stability modules and the score-matrix reader run."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "name", ["irstab.stability.gstudy", "irstab.stability.bootstrap", "irstab.io.scorematrix"]
)
def test_doctests(name):
    # importlib: `irstab.stability.gstudy` as an attribute is the function, not the module
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
