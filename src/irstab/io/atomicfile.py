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
* A file or directory the command reads (registered with :func:`protect`, i.e.
  :mod:`irstab.io.registry`: the CLI registers every input it was given) is never
  written: an output path naming an input, through a link or not, or lying inside an
  input directory, is an error (it would replace the runs with the results, or add a
  "run" to their directory).

A directory of files (the report) is written by
:func:`irstab.io.outputtree.atomic_write_tree`: whole into a new directory beside it,
then swapped in with one ``renameat2`` exchange, so a reader (or a kill) sees the old
report or the new one, never a mix. It replaces only a directory that irstab wrote
(its :data:`MANIFEST` lists the files) or an empty one, and removes only what it
wrote (:func:`remove_written_tree`).

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

from . import registry

__all__ = ["Staged", "atomic_writer", "atomic_write_text", "atomic_write_files",
           "remove_stale", "remove_written_tree", "manifest_files", "MANIFEST", "protect",
           "forget_protected"]

PathLike = str | os.PathLike

_UMASK = os.umask(0o022)  # read once at import (os.umask is the only way to read it)
os.umask(_UMASK)
_TMP_MARK = ".irstab-tmp"
_MAX_LINKS = 40  # like the kernel's limit on symbolic links in one lookup (ELOOP)


def _error(code: int, path: PathLike, text: str | None = None) -> OSError:
    return OSError(code, text or os.strerror(code), str(path))


def protect(paths) -> None:
    """Register input files and directories: no output may be written over or into them.

    The registry is :mod:`irstab.io.registry` (its :func:`~irstab.io.registry.register_input`);
    the CLI registers every input it reads for the duration of the command
    (:func:`forget_protected` after it); library callers may too.
    """
    registry.register_input(paths)


def forget_protected() -> None:
    """Clear the registry (the command is over: an inode may be reused once its file is gone)."""
    registry.forget()


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
            registry.check_written(p, path)  # a new file, perhaps inside an input directory
            return p, False  # a new file (or the missing target of a dangling link)
        except OSError as exc:
            exc.filename = str(path)
            raise
        if stat.S_ISLNK(st.st_mode):
            p = p.parent / os.readlink(p)
            continue
        if stat.S_ISDIR(st.st_mode):
            raise _error(errno.EISDIR, path)
        registry.check_written(p, path)
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
                remove_written_tree(entry.path)  # a report tree it was writing (or the old one)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
        except OSError:  # alive (EPERM: another user's live process)
            pass


#: The file a report directory holds that lists what irstab wrote there (JSON): only a
#: directory holding one (or an empty one) is ever replaced, and only what it lists is
#: ever removed.
MANIFEST = ".irstab-report"


def manifest_files(directory: PathLike) -> frozenset[str] | None:
    """The relative paths ``directory``'s manifest lists; None when it has none.

    A report of an earlier irstab, which wrote no manifest, is recognised by its three
    files (``report.json``, ``report.md``, ``report.html``): those and ``figures/*.png``.
    """
    import json

    root = Path(directory)
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
        files = data["files"] if isinstance(data, dict) and data.get("written by") == "irstab" else None
        if isinstance(files, list) and all(isinstance(f, str) for f in files):
            return frozenset(files)
    except (OSError, ValueError, KeyError):
        pass
    legacy = ("report.json", "report.md", "report.html")
    if all((root / f).is_file() and not (root / f).is_symlink() for f in legacy):
        figs = root / "figures"
        pngs = [f"figures/{e.name}" for e in os.scandir(figs) if e.name.endswith(".png")] \
            if figs.is_dir() and not figs.is_symlink() else []
        return frozenset([*legacy, *pngs])
    return None


def remove_written_tree(path: PathLike) -> None:
    """Remove a tree irstab wrote (a report being written, or the one it replaced), carefully.

    Never ``rmtree``: walking up from the leaves, a name is unlinked only when the
    tree's own manifest lists it or another link to its file exists (a user's file
    carried into the new report by a hard link); directories are removed only once
    empty; nothing on another device (a mount point) is entered, no link followed.
    What remains (a file that appeared meanwhile) stays where it is.
    """
    root = os.fspath(path)
    try:
        dev = os.lstat(root).st_dev
    except OSError:
        return
    listed = manifest_files(root) or frozenset()
    for here, dirs, files in os.walk(root, topdown=False, followlinks=False):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(here, d))]:
            p = os.path.join(here, name)
            rel = os.path.relpath(p, root)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if st.st_dev == dev and (rel in listed or st.st_nlink > 1) and rel != MANIFEST:
                with contextlib.suppress(OSError):
                    os.unlink(p)
        if here != root:
            with contextlib.suppress(OSError):
                if os.lstat(here).st_dev == dev:
                    os.rmdir(here)  # only when empty
    with contextlib.suppress(OSError):
        if all(e.name == MANIFEST for e in os.scandir(root)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(root, MANIFEST))
            os.rmdir(root)


#: Seconds a FIFO output may wait for a reader before the write is refused (opening a
#: FIFO that nobody reads would otherwise block for ever).
FIFO_READER_WAIT = 10.0


def _open_in_place(target: Path, mode: str, encoding: str | None):
    """``open(target, mode)`` for a target written in place (a FIFO, a device, /proc).

    A FIFO is opened without blocking, retried until a reader comes or
    :data:`FIFO_READER_WAIT` seconds have passed (then ``ENXIO``: no reader), and written
    in blocking mode once open.
    """
    import fcntl
    import time

    try:
        fifo = stat.S_ISFIFO(os.stat(target).st_mode)
    except OSError:
        fifo = False
    if not fifo:
        return open(target, mode, encoding=encoding)
    deadline = time.monotonic() + FIFO_READER_WAIT
    while True:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() > deadline:
                if exc.errno == errno.ENXIO:
                    raise OSError(errno.ENXIO, f"is a FIFO that nobody read within "
                                  f"{FIFO_READER_WAIT:g} s (start its reader first)") from None
                raise
            time.sleep(0.05)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return os.fdopen(fd, mode, encoding=encoding)


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
                return _open_in_place(self.target, mode.replace("w", "a"), encoding)
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


def _write_bytes(staged: Staged, data: bytes) -> None:
    try:
        with staged.open("wb") as fh:
            fh.write(data)
    except OSError as exc:
        exc.filename = str(staged.path)
        raise
