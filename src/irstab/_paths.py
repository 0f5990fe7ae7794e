"""What an input path is, found without opening it.

Opening a FIFO for reading blocks until a writer comes (for ever, if none does), and a
pipe (process substitution ``<(...)``, ``/dev/stdin`` fed by a shell pipe) can be read
only once, while irstab's readers open a file at least twice (first to read the magic
bytes of its compression, then to parse it). Every reader of a named input file asks
:func:`special_file` first, which looks with :func:`os.stat` only, and refuses what is
not a regular file.
"""

from __future__ import annotations

import os
import stat

__all__ = ["special_file"]

# (test of st_mode, what the path is), for everything that is neither a file nor a directory
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def special_file(path) -> str | None:
    """What ``path`` is when it exists and is neither a regular file nor a directory.

    Returns ``"a FIFO (named pipe)"``, ``"a socket"``, ``"a character
    device"``, ``"a block device"``, or ``"a special file"`` for any other type;
    None for a regular file, a directory, or a path that :func:`os.stat` cannot reach
    (the reader then says why). Nothing is opened.

    Examples
    --------
    >>> special_file("/dev/null")
    'a character device'
    >>> special_file("/") is None
    True
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "a special file")
