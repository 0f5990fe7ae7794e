"""The docstring Examples of the judges modules and the cheap-judge planner run."""

from __future__ import annotations

import doctest
import importlib
import warnings

import pytest


@pytest.mark.parametrize("name", ["irstab.judges.ppi", "irstab.judges.facet",
                                  "irstab.design.cheap"])
def test_doctests(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
