"""Writing a directory of files (the report) all at once, replacing only what irstab wrote.

:func:`atomic_write_tree` is the one way a directory is replaced:

* The directory must be new, empty, or a directory irstab wrote: its manifest
  (:data:`~irstab.io.atomicfile.MANIFEST`, written with every report, listing its
  files) says so; a report of an earlier irstab is recognised by its files. Any other
  directory is refused: replacing it would take what is in it along.
* The new tree is written whole beside the directory, with a new manifest, then takes
  the directory's place in one atomic exchange (``renameat2(RENAME_EXCHANGE)``): a
  reader, or a kill at any moment, sees the whole old tree or the whole new one.
* What the old directory holds besides the old report (a user's notes, a file in
  ``figures/``) is carried into the new tree by hard links, never copied: the same
  files, untouched. A subdirectory irstab did not write, a mount point (also a bind
  mount, from ``/proc/self/mountinfo``) or an entry on another device cannot be
  carried that way and makes the write refuse, naming it, before anything is written.
* The old tree is then removed with :func:`~irstab.io.atomicfile.remove_written_tree`:
  only names the old manifest lists or that the new tree links to, never ``rmtree``,
  never into a mount point.
* The directory may not be, hold, or lie inside an input of the command
  (:mod:`irstab.io.registry`).
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from . import registry
from .atomicfile import (
    _TMP_MARK, _UMASK, MANIFEST, PathLike, atomic_write_files, manifest_files, remove_stale,
    remove_written_tree,
)

__all__ = ["atomic_write_tree"]

_RENAME_EXCHANGE = 2  # linux/fs.h


def _exchange(a: str, b: str) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), b)


def _mount_points() -> set[str]:
    """Every mount point of this process's view (``/proc/self/mountinfo``); empty elsewhere."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
            fields = [line.split() for line in fh]
    except OSError:
        return set()

    def unescape(text: str) -> str:  # mountinfo writes space, tab, newline, backslash in octal
        import re

        return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)

    return {unescape(f[4]) for f in fields if len(f) > 4}


def _refuse(path, text: str) -> OSError:
    return OSError(errno.EEXIST, text, os.fspath(path))


def _carried(target: Path, written: frozenset[str], given) -> list[str]:
    """The entries of the old directory to carry over by hard links (relative paths).

    Directories are entered only where a report writes (the old manifest's or the new
    contents' directories), on the same device and not a mount point; any other
    directory is refused, as is a directory that is not an irstab report at all.
    """
    listed = manifest_files(target)
    entries = list(os.scandir(target))
    if listed is None and entries:
        shown = ", ".join(sorted(e.name for e in entries)[:5])
        raise _refuse(given, f"exists and is not an irstab report (it has no {MANIFEST} and "
                      f"holds {shown}{' ...' if len(entries) > 5 else ''}); irstab replaces only "
                      "a directory it wrote, or an empty one: give a new or empty directory")
    ours = {str(Path(f).parent) for f in (listed or frozenset()) | written} - {"."}
    mounts = {m for m in _mount_points() if m.startswith(str(target) + os.sep)}
    dev = os.lstat(target).st_dev
    out: list[str] = []

    def walk(here: Path, rel: str) -> None:
        for e in os.scandir(here):
            r = f"{rel}{e.name}"
            st = e.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                if e.path in mounts or st.st_dev != dev:
                    raise _refuse(given, f"holds a mount point ({e.path}); irstab never replaces "
                                  "or enters one: unmount it, or write the report elsewhere")
                if r not in ours:
                    raise _refuse(given, f"holds a directory irstab did not write ({e.path}); the "
                                  "report would have to take it along: move it out, or write "
                                  "the report elsewhere")
                walk(Path(e.path), r + "/")
            elif r not in written and r not in (listed or ()) and r != MANIFEST:
                out.append(r)  # neither the new report's nor the old one's: the user's

    walk(target, "")
    return out


def atomic_write_tree(directory: PathLike, contents: Mapping[str, bytes]) -> None:
    """Write a directory of files (``{relative path: bytes}``) all at once, or not at all.

    See the module docstring for what it replaces, carries and removes. A file that
    replaces an old one keeps its permission bits; where the old one was a symbolic
    link, the link stays and its target is written through (that file lies outside
    the tree, so it is replaced just before the swap rather than with it). On a file
    system without the exchange the old directory is moved aside and the new one
    renamed in (a kill between the two renames leaves the new report under the
    temporary name, the old one aside, nothing mixed). A symbolic link to a directory
    is written through.

    Raises
    ------
    OSError
        With ``filename`` the directory the user gave: it is not new, empty or an
        irstab report; it holds a directory irstab did not write or a mount point; it
        is, holds or lies inside an input; or it cannot be written.
    """
    given = directory
    if str(directory) == "":
        raise OSError(errno.ENOENT, "empty directory name", "''")
    target = Path(os.path.realpath(os.path.abspath(directory)))
    if target.exists() and not target.is_dir():
        raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(given))
    if str(target) in _mount_points():
        raise _refuse(given, "is a mount point; irstab replaces the report directory whole: "
                      "write the report into a new directory inside it")
    registry.check_written(target, given, directory=True)
    written = frozenset(contents)
    for rel in contents:  # never replace a directory or a device by a file
        old = target / rel
        if not old.is_symlink() and old.exists() and not old.is_file():
            raise OSError(errno.EISDIR if old.is_dir() else errno.EEXIST,
                          "is a directory" if old.is_dir() else "is not a regular file", str(old))
    carry = _carried(target, written, given) if target.exists() else []
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale(parent, target.name)
        staging = tempfile.mkdtemp(prefix=f".{target.name[:100]}.{os.getpid()}{_TMP_MARK}",
                                   dir=parent)
    except OSError as exc:
        exc.filename = str(given)
        raise
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) if target.exists() else 0o777 & ~_UMASK
        os.chmod(staging, mode)
        # the manifest first: a killed writer's tree lists what it was writing
        manifest = {"written by": "irstab", "files": sorted(written)}
        Path(staging, MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        through: dict[Path, bytes] = {}
        for rel, data in contents.items():
            out, old = Path(staging) / rel, target / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if old.is_symlink():
                os.symlink(os.readlink(old), out)
                through[old] = data
                continue
            with open(out, "wb") as fh:
                fh.write(data)
            try:
                os.chmod(out, stat.S_IMODE(os.stat(old).st_mode))
            except FileNotFoundError:
                os.chmod(out, 0o666 & ~_UMASK)
        for rel in carry:  # the user's entries: the same files, by hard links
            dst = Path(staging) / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(target / rel, dst, follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed meanwhile
            except OSError as exc:
                raise _refuse(given, f"holds {target / rel}, which cannot be carried into the new "
                              f"report by a hard link ({exc.strerror}); move it out, or write "
                              "the report elsewhere") from None
        if through:
            atomic_write_files(through)
        if target.exists():
            if _exchange(staging, str(target)):
                remove_written_tree(staging)  # now the old tree
                return
            aside = f"{staging}.old"
            os.rename(target, aside)
            os.rename(staging, target)
            remove_written_tree(aside)
        else:
            os.rename(staging, target)
    except BaseException as exc:  # a signal too: leave no temporary tree behind
        if os.path.isdir(staging):
            remove_written_tree(staging)
        if isinstance(exc, OSError):
            exc.filename = str(given)
        raise
