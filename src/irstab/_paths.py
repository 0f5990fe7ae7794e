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
_ANONYMOUS = {  # what Linux's /proc/<pid>/fd links name for objects with no path
    "pipe:": "a pipe (process substitution <(...) or a shell pipe)",
    "socket:": "a socket",
}
_MAX_LINKS = 40  # as the kernel's symbolic-link limit: a loop ends


def _anonymous(path) -> str | None:
    """What a ``/dev/fd/N``-style link chain ends in when that is an object with no name."""
    p = os.fspath(path)
    for _ in range(_MAX_LINKS):
        try:
            target = os.readlink(p)
        except (OSError, ValueError):
            return None
        for prefix, what in _ANONYMOUS.items():
            if target.startswith(prefix):
                return what
        p = os.path.join(os.path.dirname(p), target)
    return None


def special_file(path) -> str | None:
    """What ``path`` is when it exists and is neither a regular file nor a directory.

    Returns ``"a FIFO (named pipe)"``, ``"a pipe (...)"`` (an anonymous pipe reached
    through ``/dev/fd`` or ``/proc/<pid>/fd``), ``"a socket"``, ``"a character
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
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        anonymous = _anonymous(path)
        if anonymous is not None:
            return anonymous
    return next((what for test, what in _KINDS if test(mode)), "a special file")
