"""Two JSON-like results equal: same keys, lists and strings; floats within 1e-12."""

from __future__ import annotations

import pytest


def assert_close(a, b, key: str = "", atol: float = 1e-12) -> None:
    """Recursive equality; keys naming wall-clock times (``seconds``) are not compared."""
    if "seconds" in key:
        return
    if isinstance(a, dict):
        assert a.keys() == b.keys(), key
        for k in a:
            assert_close(a[k], b[k], k, atol)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), key
        for x, y in zip(a, b):
            assert_close(x, y, key, atol)
    elif isinstance(a, float):
        assert a == pytest.approx(b, abs=atol, nan_ok=True), key
    else:
        assert a == b, key
