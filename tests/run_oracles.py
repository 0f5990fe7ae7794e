"""Oracles shared by the reader tests (tests/io): what reading a run must give."""

from __future__ import annotations

import pytest

import irstab
from irstab.errors import InputFormatError


def assert_read_as_a_set_finds(path, rows):
    """``read_run(path)`` of the run written from ``rows`` ``(topic, docid number)``: its rows
    when no pair repeats, else the error naming the first line whose pair an earlier line
    holds (oracle: a Python set over the whole file)."""
    seen, first = set(), None
    for i, key in enumerate(rows):
        if key in seen:
            first = i + 1
            break
        seen.add(key)
    if first is None:
        got = irstab.read_run(path).frame
        assert list(zip(got["topic"], got["docid"])) == [(str(t), f"d{d}") for t, d in rows]
    else:
        t, d = rows[first - 1]
        with pytest.raises(InputFormatError,
                           match=rf"run:{first}: document 'd{d}' appears twice for topic '{t}'"):
            irstab.read_run(path)
