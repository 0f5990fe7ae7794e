"""Short ``repr`` and notebook HTML for result objects.

A dataclass ``repr`` of a result prints every field (score arrays, every
system and topic): unreadable in a console and a notebook. :func:`short_repr`
gives a class a one-line ``repr`` from its ``_summary()`` and a
``_repr_html_`` (Jupyter's rich display) that adds the ``to_frame()`` table.
"""

from __future__ import annotations

import html

__all__ = ["short_repr"]

_MAX_ROWS = 20


def _repr(self) -> str:
    return f"<{type(self).__name__} {self._summary()}>"


def _repr_html(self) -> str:
    head = f"<p><b>{html.escape(type(self).__name__)}</b> {html.escape(self._summary())}</p>"
    to_frame = getattr(self, "to_frame", None)
    if to_frame is None:
        return head
    frame = to_frame()
    more = f"<p>{len(frame) - _MAX_ROWS} more rows: <code>.to_frame()</code></p>" if len(frame) > _MAX_ROWS else ""
    return head + frame.head(_MAX_ROWS).to_html(index=False, float_format=lambda x: f"{x:.4g}") + more


def short_repr(cls):
    """Class decorator (above ``@dataclass``): ``repr`` and ``_repr_html_`` from ``_summary()``."""
    cls.__repr__ = _repr
    cls._repr_html_ = _repr_html
    return cls
