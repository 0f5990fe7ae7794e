"""Exceptions and warnings raised by irstab.

Every error a user can cause is an :class:`IRStabError` (a ``ValueError``), so
library callers can catch one type and the CLI can turn it into a one-line
message on stderr with exit code 1.
"""

from __future__ import annotations

__all__ = [
    "IRStabError",
    "InputFormatError",
    "MeasureError",
    "DegenerateDataError",
    "IRStabWarning",
]


class IRStabError(ValueError):
    """Base class of every error caused by bad input or degenerate data."""


#: Paths that errors name otherwise: a run read from standard input is saved to a
#: temporary file, which the user never named; its errors say ``<stdin>``.
PATH_ALIASES: dict[str, str] = {}


class InputFormatError(IRStabError):
    """A qrels, run or score file is malformed.

    The message names the file and, where there is one, the line (1-based).
    """

    def __init__(self, path: object, message: str, line: int | None = None):
        self.path = PATH_ALIASES.get(str(path), str(path))
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        self.message = message
        super().__init__(f"{where}: {message}")

    def __reduce__(self):  # picklable (errors travel back from worker processes)
        return (type(self), (self.path, self.message, self.line))


class MeasureError(IRStabError):
    """A measure string or a measure parameter is invalid."""


class DegenerateDataError(IRStabError):
    """The data cannot support the requested statistic (one system, constant scores, ...)."""


class IRStabWarning(UserWarning):
    """Something was dropped, renamed or replaced by a documented convention."""
