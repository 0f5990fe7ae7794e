"""One registry of what a command reads and writes: no output may destroy or pollute an input.

Inputs are registered as they are named (the CLI registers every path argument and
option it reads: qrels, runs and run directories, ``--scores``, assessor qrels, the
``@file`` of ``-m @opt.json``); outputs too (``-o``, ``--figure``, ``--save``, the
report directory). Before the command does any work, and again when each output is
written (:mod:`irstab.io.atomicfile`), an output is refused when

* it is an input file, by any name (a symbolic link, a hard link, ``./x``: the same
  device and inode);
* it lies inside an input directory (a new file in a run directory would be read as
  a run next time; a report written into it would hide among the runs), by any path
  (a bind mount of the directory too: its device and inode are the directory's);
* it is a directory (the report) that is an input directory or holds an input;
* another output of the same command has the same target, or lies inside it
  (``--figure x -o x``: one would overwrite the other).

Refusals are :class:`OSError` (``EEXIST``) naming the output as the user gave it and
the input it would harm; the CLI prints them as one line, exit code 1.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

__all__ = ["register_input", "register_output", "check_outputs", "check_written", "forget"]

_FILES: dict[tuple[int, int], str] = {}  # (device, inode) of an input file -> as named
_DIRS: dict[str, str] = {}  # real path of an input directory -> as named
_DIR_IDS: dict[tuple[int, int], str] = {}  # (device, inode) of an input directory -> as named
_PATHS: dict[str, str] = {}  # real path of every input, file or directory -> as named
_OUTPUTS: dict[str, tuple[str, str, bool]] = {}  # option -> (real path, as named, directory)


def _real(path) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def register_input(paths) -> None:
    """Register input files and directories (a directory's files too, as read)."""
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue  # the reader says what is wrong with it
        real = _real(p)
        _PATHS.setdefault(real, os.fspath(p))
        if stat.S_ISDIR(st.st_mode):
            _DIRS.setdefault(real, os.fspath(p))
            _DIR_IDS.setdefault((st.st_dev, st.st_ino), os.fspath(p))
            with contextlib.suppress(OSError):  # its files, by inode (links to them too)
                for e in os.scandir(p):
                    if not e.is_dir():
                        register_input([e.path])
        elif stat.S_ISREG(st.st_mode):
            _FILES.setdefault((st.st_dev, st.st_ino), os.fspath(p))


def register_output(path, directory: bool = False, option: str | None = None) -> None:
    """Note an output the command will write (checked by :func:`check_outputs`).

    ``option`` names the parameter: registering it again replaces its path (a parser may
    see a default twice); two options may not share a target.
    """
    _OUTPUTS[option or os.fspath(path)] = (_real(path), os.fspath(path), directory)


def forget() -> None:
    """Clear the registry (the command is over; an inode may be reused)."""
    for table in (_FILES, _DIRS, _DIR_IDS, _PATHS, _OUTPUTS):
        table.clear()


def _refuse(path, text: str) -> OSError:
    return OSError(errno.EEXIST, text, os.fspath(path))


def check_written(target, given, directory: bool = False) -> None:
    """Refuse to write ``target`` (the resolved file or directory) when it harms an input.

    ``given`` is the path as the user named it (for the message). The output-against-
    output rule is :func:`check_outputs`'s, before any work: writing the same file
    twice in one program is not an error here.
    """
    real = _real(target)
    source = None
    if _FILES:
        with contextlib.suppress(OSError):
            st = os.stat(target)
            source = _FILES.get((st.st_dev, st.st_ino)) if stat.S_ISREG(st.st_mode) else None
    if source is not None:
        raise _refuse(given, f"is an input of this command ({source}); writing the output "
                      "there would destroy it: give another output path")
    for d, named in _DIRS.items():
        if real == d:
            raise _refuse(given, f"is the input directory {named}; writing the output there "
                          "would mix it with the inputs: give another output path")
        if _inside(real, d):
            raise _refuse(given, f"lies inside the input directory {named}; a file written "
                          "there would be read as an input next time: give another output path")
    if _DIR_IDS:  # the same directories under another path (a bind mount)
        here = real
        while True:
            named = None
            with contextlib.suppress(OSError):
                st = os.stat(here)
                named = _DIR_IDS.get((st.st_dev, st.st_ino)) if stat.S_ISDIR(st.st_mode) else None
            if named is not None:
                what = "is" if here == real else "lies inside"
                raise _refuse(given, f"{what} the input directory {named} (mounted at {here}); "
                              "a file written there would be read as an input next time: give "
                              "another output path")
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    if directory:
        for p, named in _PATHS.items():
            if _inside(p, real):
                raise _refuse(given, f"holds the input {named}; the report replaces its "
                              "directory: give a directory that holds no input")


def _check_kind(given, directory: bool) -> None:
    """An output directory that exists as something else, or an output file that exists as a
    directory, is refused before any work (not after it, when the writer meets it)."""
    try:
        st = os.stat(given)
    except OSError:
        return  # a new path (or a dangling link): the writer creates it or says why not
    if directory and not stat.S_ISDIR(st.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a file")
        raise OSError(errno.ENOTDIR, f"is {kind}, not a directory (this output is a directory "
                      "of files): give a new or existing directory", os.fspath(given))
    if not directory and stat.S_ISSOCK(st.st_mode):
        raise OSError(errno.ENXIO, "is a socket, which cannot be written as a file: give a file "
                      "name", os.fspath(given))
    if not directory and stat.S_ISDIR(st.st_mode):
        raise OSError(errno.EISDIR, "is a directory; this output is one file: give a file name",
                      os.fspath(given))


def check_outputs() -> None:
    """Every registered output against the inputs and against the other outputs."""
    items = list(_OUTPUTS.values())
    for real, given, directory in items:
        check_written(real, given, directory)
        _check_kind(given, directory)
    for i, (a, given_a, dir_a) in enumerate(items):
        for b, given_b, dir_b in items[i + 1:]:
            if a == b or (dir_a and _inside(b, a)) or (dir_b and _inside(a, b)):
                raise _refuse(given_b, f"is also where another output of this command goes "
                              f"({given_a}); one would overwrite the other: give each its own path")
