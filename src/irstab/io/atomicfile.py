"""Writing output files whole or not at all: the one mechanism behind every output path.

Every file irstab writes (``-o``, ``--figure``, ``--plot``, ``--save``, the
report directory, :func:`irstab.io.write_run`) goes through :class:`Staged`:

* A regular file (new or existing) is written to a temporary file in the
  directory of the file that will finally hold the data, then renamed over it,
  so a failure or a kill never leaves half a file. An existing file keeps its
  permission bits (and, where allowed, its owner and group).
* A symbolic link is written through: the file it points to (following a chain
  of links, relative ones from the link's own directory) is replaced in *its*
  directory, and the link itself stays a link.
* Anything that is not a regular file (a FIFO, a character device such as
  ``/dev/null``, a terminal) and the per-process links under ``/proc`` (so
  ``/dev/stdout``, ``/dev/fd/N``) are written to directly, in append mode: there
  is nothing to rename over, and renaming over a device node or the system's
  ``/dev/stdout`` link would destroy it.
* A directory, a path ending in ``/`` (it names a directory), or an empty path, is an
  error naming it.
* A file the command reads (registered with :func:`protect`: the CLI registers every
  input file it was given) is never written: an output path naming an input, through
  a link or not, is an error (it would replace the runs with the results).

A directory of files (the report) is written by :func:`atomic_write_tree`: whole
into a new directory beside it, then swapped in with one ``renameat2`` exchange,
so a reader (or a kill) sees the old report or the new one, never a mix.

Temporary files are named ``.<name>.<pid>.irstab-tmp<random>``. A process that
is killed outright cannot remove its own; the next write to the same target
removes those whose process no longer runs (the report removes every such file in
its directory, whatever its name). The CLI turns SIGTERM and SIGHUP
into a normal exit, so those remove theirs at once.

Every :class:`OSError` raised here names the target the user gave, never the
temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["Staged", "atomic_writer", "atomic_write_text", "atomic_write_files",
           "atomic_write_tree", "remove_stale", "protect", "forget_protected"]

PathLike = str | os.PathLike

_UMASK = os.umask(0o022)  # read once at import (os.umask is the only way to read it)
os.umask(_UMASK)
_TMP_MARK = ".irstab-tmp"
_MAX_LINKS = 40  # like the kernel's limit on symbolic links in one lookup (ELOOP)


def _error(code: int, path: PathLike, text: str | None = None) -> OSError:
    return OSError(code, text or os.strerror(code), str(path))


_PROTECTED: dict[tuple[int, int], str] = {}  # (device, inode) of an input -> its path


def protect(paths) -> None:
    """Register input files (and the files of input directories) as never to be written.

    An output whose target is one of them, by any name (a link, a hard link, ``./x``),
    raises :class:`OSError` naming both. The CLI registers every path argument it
    reads for the duration of the command (:func:`forget_protected` after it);
    library callers may too.
    """
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):  # a run directory: the files it holds (as read)
            with contextlib.suppress(OSError):
                protect([e.path for e in os.scandir(p) if not e.is_dir()])
        elif stat.S_ISREG(st.st_mode):
            _PROTECTED[(st.st_dev, st.st_ino)] = str(p)


def forget_protected() -> None:
    """Clear :func:`protect`'s registry (an inode may be reused once its file is gone)."""
    _PROTECTED.clear()


def _check_not_input(target: Path, path: PathLike) -> None:
    if not _PROTECTED:
        return
    try:
        st = os.stat(target)
    except OSError:
        return
    source = _PROTECTED.get((st.st_dev, st.st_ino))
    if source is not None:
        raise _error(errno.EEXIST, path, f"is an input of this command ({source}); writing "
                     "the output there would destroy it: give another output path")


def resolve_output(path: PathLike) -> tuple[Path, bool]:
    """The file that will hold the data written to ``path``, and whether to write it in place.

    Follows symbolic links one hop at a time (with every parent directory resolved),
    so a link to a file is written through and a link into ``/proc`` (``/dev/stdout``)
    is recognised before the kernel's magic link would lead elsewhere.

    Returns
    -------
    (Path, bool)
        The final file, and True when it must be written in place (not a regular
        file, or a per-process link under ``/proc``).

    Raises
    ------
    OSError
        ``path`` is empty or a directory, or a link loop; ``filename`` is ``path``.
    """
    if str(path) == "":
        raise OSError(errno.ENOENT, "empty file name", "''")
    if str(path).endswith(("/", os.sep)):
        raise _error(errno.EISDIR, path, "names a directory (it ends with '/'); give a file name")
    p = Path(os.path.abspath(path))
    for _ in range(_MAX_LINKS):
        p = Path(os.path.realpath(p.parent)) / p.name
        if p.parts[1:2] == ("proc",):
            return p, True
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return p, False  # a new file (or the missing target of a dangling link)
        except OSError as exc:
            exc.filename = str(path)
            raise
        if stat.S_ISLNK(st.st_mode):
            p = p.parent / os.readlink(p)
            continue
        if stat.S_ISDIR(st.st_mode):
            raise _error(errno.EISDIR, path)
        _check_not_input(p, path)
        return p, not stat.S_ISREG(st.st_mode)
    raise _error(errno.ELOOP, path)


def remove_stale(directory: PathLike, name: str | None = None) -> None:
    """Remove temporary files of ``name`` (any name: None) left by processes that no longer run.

    A single write clears only its own target's leftovers; a writer that owns the
    whole directory (the report) clears every name, since the files a killed run
    was writing need not be among those the next run writes.
    """
    stem = r"\..+\." if name is None else re.escape(f".{name[:100]}.")
    pattern = re.compile(stem + r"(\d+)" + re.escape(_TMP_MARK))  # files and report trees
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        m = pattern.match(entry.name)
        if not m or int(m.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(m.group(1)), 0)
        except ProcessLookupError:  # the writer is gone: its file can never be finished
            if entry.is_dir(follow_symlinks=False):
                _remove_tree(entry.path)  # a report tree it was writing (or the old one)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
        except OSError:  # alive (EPERM: another user's live process)
            pass


class Staged:
    """One output file being written: :meth:`open`, write, then :meth:`commit` or :meth:`discard`.

    Parameters
    ----------
    path : path-like
        The target as the user named it (used in every error message).
    """

    def __init__(self, path: PathLike):
        self.path = path
        self.target, self.direct = resolve_output(path)
        self.tmp: str | None = None

    def open(self, mode: str = "w", encoding: str | None = "utf-8"):
        """A file object to write to: the target itself (in place) or a temporary file."""
        encoding = None if "b" in mode else encoding
        try:
            if self.direct:
                return open(self.target, mode.replace("w", "a"), encoding=encoding)
            directory = self.target.parent
            directory.mkdir(parents=True, exist_ok=True)
            remove_stale(directory, self.target.name)
            prefix = f".{self.target.name[:100]}.{os.getpid()}{_TMP_MARK}"
            fd, self.tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
            self._copy_metadata(fd)
            return os.fdopen(fd, mode, encoding=encoding)
        except BaseException as exc:  # a signal too: never leave the temporary file
            self.discard()
            if isinstance(exc, OSError):
                exc.filename = str(self.path)
            raise

    def _copy_metadata(self, fd: int) -> None:
        """Mode (and owner, where allowed) of the file being replaced; else 0666 & ~umask."""
        try:
            st = os.stat(self.target)
        except FileNotFoundError:
            os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600 files
            return
        os.fchmod(fd, stat.S_IMODE(st.st_mode))
        if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):  # only root (or a group member) may
                os.fchown(fd, st.st_uid, st.st_gid)

    def commit(self) -> None:
        """Rename the temporary file over the target (nothing to do when written in place)."""
        if self.tmp is None:
            return
        try:
            os.replace(self.tmp, self.target)
        except OSError as exc:
            self.discard()
            exc.filename = str(self.path)
            raise
        self.tmp = None

    def discard(self) -> None:
        """Remove the temporary file, if any."""
        if self.tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.tmp)
            self.tmp = None


class atomic_writer:
    """Context manager: the file object of a :class:`Staged` output, committed on success.

    On an exception the temporary file is removed and the target is untouched
    (a FIFO or device written in place has of course received what was written).
    """

    def __init__(self, path: PathLike, mode: str = "w", encoding: str | None = "utf-8"):
        self.path = path
        self.mode = mode
        self.encoding = encoding

    def __enter__(self):
        self.staged = Staged(self.path)
        self.fh = self.staged.open(self.mode, self.encoding)
        return self.fh

    def __exit__(self, exc_type, exc, tb):
        if isinstance(exc, OSError) and not exc.filename:  # a full disk while writing: name it
            exc.filename = str(self.path)
        try:
            try:
                self.fh.close()
            except OSError as err:  # a full device reports it at the final flush
                if exc_type is not None:
                    return False  # the first error is the one to report
                err.filename = str(self.path)
                raise
            if exc_type is None:
                self.staged.commit()
        finally:
            self.staged.discard()  # nothing left to do after a commit
        return False


def atomic_write_text(path: PathLike, text: str) -> None:
    """Write ``text`` to ``path`` as :class:`Staged` describes."""
    with atomic_writer(path) as fh:
        fh.write(text)


def atomic_write_files(contents: Mapping[PathLike, bytes]) -> None:
    """Write several files so that either all are replaced or none is.

    Every regular file is written to a temporary file first; only when all writes
    succeeded are they renamed into place (a crash during the renames themselves,
    a few system calls, can still leave a mix). Targets written in place (FIFOs,
    devices) receive their data only then. On an error every temporary file is
    removed and the targets are untouched.

    Raises
    ------
    OSError
        With ``filename`` set to the target that could not be written.
    """
    staged: list[Staged] = []
    try:
        for path, data in contents.items():
            staged.append(Staged(path))
            if not staged[-1].direct:
                _write_bytes(staged[-1], data)
        for s, data in zip(staged, contents.values(), strict=True):
            if s.direct:
                _write_bytes(s, data)
            s.commit()
    finally:
        for s in staged:
            s.discard()


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


def _remove_tree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def atomic_write_tree(directory: PathLike, contents: Mapping[str, bytes]) -> None:
    """Write a directory of files (``{relative path: bytes}``) all at once, or not at all.

    Everything is written into a new directory beside ``directory`` first; then that
    directory takes the place of ``directory`` with one atomic exchange
    (``renameat2(RENAME_EXCHANGE)``; a new directory is simply renamed into place), and
    the old one is removed. A reader, or a kill at any moment, sees the whole old tree
    or the whole new one. Entries of the old directory that the new one does not
    write (a user's own notes) are carried over; the old report's files are not. A
    file that replaces an old one keeps its permission bits; where the old one was a
    symbolic link, the link stays and its target is written through (as
    :class:`Staged` does; that file lies outside the tree, so it is replaced just
    before the swap rather than with it). On a
    file system without the exchange the old directory is moved aside and the new one
    renamed in (a kill between the two renames leaves the new report under the
    temporary name, the old one aside, nothing mixed). A symbolic link to a directory
    is written through.

    Raises
    ------
    OSError
        With ``filename`` the directory the user gave.
    """
    given = directory
    if str(directory) == "":
        raise OSError(errno.ENOENT, "empty directory name", "''")
    target = Path(os.path.realpath(os.path.abspath(directory)))
    if target.exists() and not target.is_dir():
        raise _error(errno.ENOTDIR, given)
    parent = target.parent
    for rel in contents:  # never replace a directory or a device by a file
        old = target / rel
        if not old.is_symlink() and old.exists() and not old.is_file():
            raise _error(errno.EISDIR if old.is_dir() else errno.EEXIST, old,
                         "is a directory" if old.is_dir() else "is not a regular file")
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
        if through:
            atomic_write_files(through)
        if target.exists():
            _carry_unwritten(str(target), staging)  # what this write does not replace stays
            if _exchange(staging, str(target)):
                _remove_tree(staging)  # now the old tree
                return
            aside = f"{staging}.old"
            os.rename(target, aside)
            os.rename(staging, target)
            _remove_tree(aside)
        else:
            os.rename(staging, target)
    except BaseException as exc:  # a signal too: leave no temporary tree behind
        if os.path.isdir(staging):
            _remove_tree(staging)
        if isinstance(exc, OSError):
            exc.filename = str(given)
        raise


def _carry_unwritten(old: str, new: str) -> None:
    """Hard-link (or copy) into ``new`` every entry of ``old`` that ``new`` does not hold."""
    import shutil

    for entry in os.scandir(old):
        dst = os.path.join(new, entry.name)
        if entry.is_dir(follow_symlinks=False):
            if os.path.isdir(dst) and not os.path.islink(dst):
                _carry_unwritten(entry.path, dst)
            elif not os.path.lexists(dst):
                shutil.copytree(entry.path, dst, symlinks=True, copy_function=_link_or_copy)
        elif not os.path.lexists(dst):
            _link_or_copy(entry.path, dst)


def _link_or_copy(src: str, dst: str) -> None:
    import shutil

    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _write_bytes(staged: Staged, data: bytes) -> None:
    try:
        with staged.open("wb") as fh:
            fh.write(data)
    except OSError as exc:
        exc.filename = str(staged.path)
        raise
