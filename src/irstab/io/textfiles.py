"""Text files as they arrive: compressed or not (by their first bytes), located errors.

A run or qrels file may be gzip, bzip2, xz or zstd compressed whatever its name
says (a ``.gz`` named ``run``, bzip2 on standard input): :func:`compression`
reads the magic bytes, and every reader opens the file through it. A zip
archive is not a text file and says so, naming its members.

Errors found while parsing name the physical line: :func:`physical_line` turns
the index of a non-empty row into its 1-based line number, reading the
decompressed text in blocks (bounded memory, stopping at the row);
:func:`invalid_utf8_line` finds the line of the first byte that is not UTF-8.

Decompression is streamed: nothing here reads a file whole. A parser that
reads lines wraps its stream in :class:`LineBound`, which refuses a line longer
than a limit (naming the file and line) as the bytes arrive, so a compressed
bomb of one endless line costs the limit, not the gigabytes it expands to.
"""

from __future__ import annotations

import bisect
import bz2
import codecs
import gzip
import io
import lzma
import re
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputFormatError

__all__ = ["compression", "open_binary", "open_measured", "physical_line", "invalid_utf8_line",
           "gzip_error", "check_not_archive", "LineBound", "size_text", "declared_text_size",
           "text_size"]

_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
_BLOCK = 1 << 20


def compression(path: Path) -> str | None:
    """``"gzip"``, ``"bz2"``, ``"xz"`` or ``"zstd"`` from the file's first bytes; None: plain."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def text_size(path: Path) -> int:
    """Bytes of text of a run file, for sizing work before reading it: a plain file's size, a
    gzip file's declared size (:func:`declared_text_size`), else 4 times the file's size
    (TREC DL 2019's gzip runs hold 3.8 times their size; bzip2, xz and zstd record none); 0
    if unreadable or not a regular file (a FIFO is never opened here: opening it waits for
    a writer; the reader refuses it with its name)."""
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return 0
        declared = declared_text_size(Path(path), compression(Path(path)))
        return declared if declared is not None else 4 * os.stat(path).st_size
    except OSError:
        return 0


def declared_text_size(path: Path, kind: str | None) -> int | None:
    """The size of the file's text as the file declares it; None when it does not.

    Plain: its size. Gzip: the size its trailer records (modulo 4 GiB), trusted only
    when the compressed file is too small to expand past 4 GiB (deflate compresses at
    most about 1032:1); the trailer speaks for the last member only, so a reader that
    relies on it must hold the stream to it. bzip2, xz and zstd record no size.
    """
    size = path.stat().st_size
    if kind is None:
        return size
    if kind != "gzip" or size * 1032 >= 2**32 or size < 18:
        return None
    with open(path, "rb") as fh:
        fh.seek(-4, 2)
        return int.from_bytes(fh.read(4), "little")


def check_not_archive(path: Path, kind: str) -> None:
    """A zip archive is refused, naming its members (pandas would fail on several)."""
    with open(path, "rb") as fh:
        if fh.read(4) != b"PK\x03\x04":
            return
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except zipfile.BadZipFile:
        names = []
    shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
    raise InputFormatError(
        path, f"is a zip archive ({len(names)} member(s): {shown}); irstab reads {kind} files "
        "as plain text or gzip/bzip2/xz/zstd-compressed text: extract the file from the archive"
    )


@contextmanager
def open_binary(path: Path, kind: str | None = None):
    """The file's decompressed bytes as a binary stream (Python's decompressors, which also
    read a gzip file padded with zeros after its last member)."""
    kind = compression(path) if kind is None else kind
    if kind == "gzip":
        fh = gzip.open(path, "rb")
    elif kind == "bz2":
        fh = bz2.open(path, "rb")
    elif kind == "xz":
        fh = lzma.open(path, "rb")
    elif kind == "zstd":
        fh = arrow_input(path, "zstd")
    else:
        fh = open(path, "rb")
    try:
        yield fh
    finally:
        fh.close()


def arrow_input(path: Path, kind: str | None = None):
    """``pyarrow.input_stream`` of ``path`` (decompressed as ``kind``), for any path.

    Arrow encodes a path as UTF-8, which a name holding bytes that are not (``q\\xff``,
    carried by Python as a lone surrogate) cannot be: such a file is opened by Python and
    handed to Arrow as a file object (the same bytes, read through one more call a block).
    """
    import pyarrow as pa

    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return pa.input_stream(open(path, "rb"), compression=kind)
    return pa.input_stream(name, compression=kind)


#: Compressed bytes a decompressor is handed at a time by :func:`open_measured`: 1032 times
#: that (deflate's largest ratio) is the most text one read can release, 16 MiB
_MEASURED_READ = 1 << 14


class _Consumed(io.RawIOBase):
    """A file read in pieces of at most ``piece`` bytes, counting them."""

    def __init__(self, raw, piece: int):
        super().__init__()
        self.raw, self.piece, self.consumed = raw, piece, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        view = memoryview(buffer)
        n = self.raw.readinto(view[:self.piece])
        self.consumed += n or 0
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


@contextmanager
def open_measured(path: Path, kind: str | None = None):
    """``(stream, consumed)``: the file's decompressed bytes (as :func:`open_binary` reads
    them) and a function giving the bytes of the file itself taken so far.

    A decompressor is fed at most :data:`_MEASURED_READ` bytes at a time, so the ratio of
    text read to file consumed is known early, whatever the compression: a reader that
    holds what it reads can project the file's whole text from it (``file size x text
    read / consumed``), which only underestimates a file of even density (the
    decompressor reads ahead), and so catch a compressed bomb after a bounded prefix,
    where a gzip trailer's size speaks for the last member only and bzip2, xz and zstd
    declare none. A plain file is read as it is (``consumed``: its position).
    """
    kind = compression(path) if kind is None else kind
    if kind is None:
        with open(path, "rb") as fh:
            yield fh, fh.tell
        return
    raw = _Consumed(open(path, "rb"), _MEASURED_READ)
    try:
        if kind == "gzip":
            fh = gzip.GzipFile(fileobj=raw, mode="rb")
        elif kind == "bz2":
            fh = bz2.BZ2File(raw, "rb")
        elif kind == "xz":
            fh = lzma.LZMAFile(raw, "rb")
        else:  # zstd
            import pyarrow as pa

            fh = pa.input_stream(raw, compression="zstd")
    except BaseException:
        raw.close()
        raise
    try:
        yield fh, (lambda: raw.consumed)
    finally:
        fh.close()
        raw.close()


def _blocks(fh):
    while True:
        block = fh.read(_BLOCK)
        if not block:
            return
        yield block


def physical_line(path: Path, row: int, blank_rows: bool = False) -> int | None:
    """1-based line number of the ``row``-th (0-based) non-blank line of the file.

    With ``blank_rows`` every line counts as a row (the careful reader's numbering).
    Reads only as far as the row. None when the file has fewer rows.
    """
    seen = -1  # rows seen so far (the index of the last row)
    line = 0
    carry_blank = True  # the current line (continuing past a block) is blank so far
    with open_binary(path) as fh:
        for block in _blocks(fh):
            start = 0
            while True:
                nl = block.find(b"\n", start)
                end = len(block) if nl < 0 else nl
                if block[start:end].strip():
                    carry_blank = False
                if nl < 0:
                    break
                line += 1
                if blank_rows or not carry_blank:
                    seen += 1
                    if seen == row:
                        return line
                carry_blank = True
                start = nl + 1
    if not carry_blank or blank_rows:  # a last line without a newline
        line += 1
        seen += 1
        if seen == row:
            return line
    return None


def invalid_utf8_line(path: Path, universal: bool = False) -> tuple[int, str] | None:
    """``(1-based line, reason)`` of the first byte that is not UTF-8; None if all are.

    The decompressed file is scanned in blocks (memory bounded by the block, not the
    line), up to the first bad byte. Lines end at ``\\n``; with ``universal`` at
    ``\\r\\n``, ``\\r`` or ``\\n``, each once, as the csv module counts them. A
    UTF-8 byte order mark is UTF-8.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    count = _breaks if universal else (lambda data: data.count(b"\n"))
    lines, last = 0, b""
    with open_binary(path) as fh:
        for block in _blocks(fh):
            held = len(decoder.getstate()[0])  # bytes of a sequence the last block began
            joined = universal and last == b"\r" and block[:1] == b"\n"  # one \r\n break
            try:
                decoder.decode(block)
            except UnicodeDecodeError as exc:
                before = block[:max(0, exc.start - held)]
                return lines + count(before) - (joined and before[:1] == b"\n") + 1, exc.reason
            lines += count(block) - joined
            last = block[-1:]
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        return lines + 1, exc.reason
    return None


def gzip_error(path: Path) -> InputFormatError | None:
    """Why a gzip file cannot be decompressed, naming the line reached; None if it can."""
    lines = 0
    try:
        with gzip.open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read1(1 << 16), b""):  # read1: keep what came
                lines += chunk.count(b"\n")
    except EOFError:
        return InputFormatError(
            path, "truncated gzip file: the compressed data ends inside this line", lines + 1
        )
    except (gzip.BadGzipFile, zlib.error) as exc:
        if lines == 0:
            return InputFormatError(path, f"not a gzip file ({exc})")
        return InputFormatError(path, f"corrupt gzip data ({exc}) in this line", lines + 1)
    return None


def size_text(n: int) -> str:
    """A byte count as people read it: ``8 MiB``, ``1,500 bytes``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"


class LineBound(io.RawIOBase):
    """A binary stream that refuses, as it is read, a line longer than ``limit`` bytes, and
    (``field_limit``) a field longer than ``field_limit`` bytes.

    Wraps the (decompressed) stream a parser reads; when a line grows past
    ``limit`` bytes (its newline not counted) an :class:`InputFormatError` names
    ``path`` and the line, after at most one read block more than the limit has
    been read. ``what`` says what the limit is for (in the message).

    A field is a run of bytes other than a space, a tab or a line break (the careful TREC
    reader's fields): one growing past ``field_limit`` is refused the same way, once that
    many bytes of it are read, whatever follows, so an endless token costs the limit and
    one read block, in time linear in the bytes read (a few ``bytes.find`` per block; the
    blocks are scanned as arrays only when a field could pass the limit inside one). The
    message names the field by ``columns`` (its position on the line) when the line's
    first bytes show it, and its size when its end was read.

    Examples
    --------
    >>> import io
    >>> s = LineBound(io.BytesIO(b"ab\\nabcdef\\n"), "f", limit=4, what="TREC line")
    >>> s.read()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    irstab.errors.InputFormatError: f:2: line longer than 4 bytes: not a TREC line ...
    >>> s = LineBound(io.BytesIO(b"1 Q0 abcdef 1 2 r\\n"), "r", limit=64, what="run line",
    ...               field_limit=4, columns=("topic", "q0", "docid"))
    >>> s.read()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    irstab.errors.InputFormatError: r:1: docid of 6 bytes: a field may hold at most 4 bytes ...
    """

    _SEPARATORS = (b" ", b"\t", b"\n", b"\r")
    _HEAD = 1 << 16  # the first bytes of a line kept to name a long field's column

    def __init__(self, raw, path, limit: int, what: str, field_limit: int | None = None,
                 columns: tuple[str, ...] = ()):
        super().__init__()
        self.raw, self.path, self.limit, self.what = raw, path, int(limit), what
        self.field_limit = None if field_limit is None else int(field_limit)
        self.columns = tuple(columns)
        self.lines = 0  # newlines read so far
        self.since = 0  # bytes read since the last newline
        self.total = 0  # bytes read
        self.field = 0  # bytes read since the last field separator
        self.head = b""  # the current line's first bytes (at most _HEAD)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.raw.read(len(buffer))
        n = len(data)
        self.total += n
        if n:
            if self.field_limit is not None:
                self._check_fields(data)
            self._check(data)
            buffer[:n] = data
        return n

    def _check(self, data: bytes) -> None:
        first = data.find(b"\n")
        if first < 0:
            self.since += len(data)
            if self.since > self.limit:
                self._refuse(self.lines + 1)
            if len(self.head) < self._HEAD:
                self.head += data[:self._HEAD - len(self.head)]
            return
        if self.since + first > self.limit:
            self._refuse(self.lines + 1)
        if len(data) > self.limit:  # a line inside this block may be too long as well
            import numpy as np

            nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
            long = np.flatnonzero(np.diff(nl) - 1 > self.limit)
            if long.size:
                self._refuse(self.lines + 2 + int(long[0]))
        self.lines += data.count(b"\n")
        last = data.rfind(b"\n")
        self.since = len(data) - last - 1
        self.head = data[last + 1:last + 1 + self._HEAD]
        if self.since > self.limit:
            self._refuse(self.lines + 1)

    def _check_fields(self, data: bytes) -> None:
        """Refuse the first field of ``data`` (or the one it continues) that passes
        ``field_limit``; else carry the length of its last field."""
        limit = self.field_limit
        found = [k for k in (data.find(sep) for sep in self._SEPARATORS) if k >= 0]
        if not found:  # the field goes on through the block
            if self.field + len(data) > limit:
                self._refuse_field(data, limit - self.field, -self.field)
            self.field += len(data)
            return
        first = min(found)
        if self.field + first > limit:
            self._refuse_field(data, limit - self.field, -self.field)
        if len(data) - first - 1 > limit:  # a field inside this block may pass the limit
            import numpy as np

            codes = np.frombuffer(data, dtype=np.uint8)
            cuts = np.flatnonzero((codes == 32) | (codes == 9) | (codes == 10) | (codes == 13))
            gaps = np.flatnonzero(np.diff(cuts) - 1 > limit)
            if gaps.size:
                start = int(cuts[gaps[0]]) + 1
                self._refuse_field(data, start + limit, start)
        last = max(data.rfind(sep) for sep in self._SEPARATORS)
        self.field = len(data) - last - 1
        if self.field > limit:
            self._refuse_field(data, last + 1 + limit, last + 1)

    def _refuse_field(self, data: bytes, at: int, start: int):
        """Refuse the field that starts at ``start`` of ``data`` (negative: that many bytes
        before it) and passes the limit at ``at``."""
        line = self.lines + data.count(b"\n", 0, at) + 1
        ends = [k for k in (data.find(sep, at) for sep in self._SEPARATORS) if k >= 0]
        size = (f"{size_text(min(ends) - start)}" if ends
                else f"more than {size_text(self.field_limit)}")
        raise InputFormatError(
            self.path, f"{self._column(data, start)} of {size}: a field may hold at most "
            f"{size_text(self.field_limit)} (refused as it was read: a compressed file may "
            "expand to one endless token)", line)

    def _column(self, data: bytes, start: int) -> str:
        """The column of the field starting at ``start`` of ``data`` (see _refuse_field), from
        the fields before it on its line; ``a field`` when they were not kept."""
        if start >= 0:
            nl = data.rfind(b"\n", 0, start)
            if nl >= 0:  # the line began in this block
                before = data[nl + 1:start]
            elif len(self.head) == self.since:  # before it, and its first bytes were kept
                before = self.head + data[:start]
            else:
                return "a field"
        elif self.since + start <= len(self.head):  # the field began before this block
            before = self.head[:self.since + start]
        else:
            return "a field"
        fields = len([f for f in re.split(rb"[ \t\r]+", before) if f])
        if fields < len(self.columns):
            return self.columns[fields]
        return f"field {fields + 1}"

    def _refuse(self, line: int):
        raise InputFormatError(
            self.path, f"line longer than {size_text(self.limit)}: not a {self.what} (the "
            f"limit bounds the memory a line can take; a compressed file may expand to one "
            f"endless line)", line)


class BlankLineSqueeze(io.RawIOBase):
    r"""A binary stream of CSV text with every run of blank lines outside quotes cut to one.

    A text layer splits lines at Python speed (~0.2 us each): a compressed file that
    expands to a billion blank lines would take minutes to reach its end. This stream
    cuts, block by block and in C (``re``), each run of lines holding only blanks (spaces,
    tabs) after a line break to that line break. Such lines are no records. Blank lines
    inside a double-quoted field are its content and stay: quotes are followed as the
    csv module reads them (a quote opens a field only at the field's start, ``""``
    inside one is a quote, across blocks too), with ``delimiter`` the file's (``None``:
    a tab if the first line holds one, else a comma).
    :meth:`line` maps a line number of the cut stream back to the file's (line breaks:
    ``
``, ``
`` or ``
``, as the csv module counts them).

    Examples
    --------
    >>> s = BlankLineSqueeze(io.BytesIO(b'a,b\n\n \n\t\nc,"d\n\ne"\n\n\nf\n'))
    >>> s.read()
    b'a,b\nc,"d\n\ne"\nf\n'
    >>> [s.line(n) for n in (1, 2, 5)]  # a,b; c,"d; f
    [1, 5, 10]
    """

    # a line break is "\r\n", "\r" not before "\n", or "\n": never split, with no atomic groups
    # or possessive quantifiers (the re of Python 3.11.2, Debian 12's python3, let
    # "(?:...)++" keep the blanks after the last break: "\n\n\t\"" lost its tab; 3.11.7's not)
    _RUN = re.compile(rb'(?:\r\n|\r(?!\n)|\n)(?:[ \t]*(?:\r\n|\r(?!\n)|\n))+|"')

    def __init__(self, raw, delimiter: str | None = ","):
        super().__init__()
        self.raw = raw
        # bytes before an opening quote (both separators until the first line tells which)
        self.opens = (b"", b",", b"\t", b"\r", b"\n")
        self.guess = delimiter is None
        if delimiter is not None:
            self.opens = (b"", delimiter.encode(), b"\r", b"\n")
        self.quoted = False  # inside a double-quoted field
        self.last = b""  # the byte before the current block
        self.pending = b""  # a trailing "\r" or '"' held back: the next byte tells what it is
        self.emitted = 0  # line breaks passed on so far
        self.starts = [1]  # cut-stream line numbers from which ``shift`` holds
        self.shifts = [0]  # file line = cut-stream line + shift

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while True:
            data = self.raw.read(max(1, len(buffer) - len(self.pending)))
            eof = not data
            data = self.pending + data
            self.pending = b""
            if not eof and data[-1:] in (b"\r", b'"'):
                data, self.pending = data[:-1], data[-1:]
            head = b""
            if self.emitted == 0 and not self.last and data.startswith(codecs.BOM_UTF8):
                head, data = codecs.BOM_UTF8, data[3:]  # the text starts after it
            out = head + self._squeeze(data)
            self.last = data[-1:] or self.last
            if out or eof:
                buffer[:len(out)] = out
                return len(out)

    def _squeeze(self, data: bytes) -> bytes:
        if self.guess:  # the first line decides, as it does for the csv reader
            end = min((k for k in (data.find(b"\n"), data.find(b"\r")) if k >= 0), default=-1)
            if b"\t" in data[:end if end >= 0 else len(data)]:
                self.opens, self.guess = (b"", b"\t", b"\r", b"\n"), False
            elif end >= 0:
                self.opens, self.guess = (b"", b",", b"\r", b"\n"), False
        if (not self.quoted and data[:1] in (b"\r", b"\n") and data[-1:] in (b"\r", b"\n")
                and not data.strip(b" \t\r\n")):
            return self._cut(data)  # a block of blank lines (a bomb's): one break
        parts, pos, escaped = [], 0, -1
        for m in self._RUN.finditer(data):
            i = m.start()
            if m.group() == b'"':
                if i == escaped:
                    continue
                if self.quoted:
                    if data[i + 1:i + 2] == b'"':
                        escaped = i + 1  # "" inside a quoted field: a quote
                    else:
                        self.quoted = False
                elif (data[i - 1:i] if i else self.last) in self.opens:
                    self.quoted = True
                continue  # a quote inside an unquoted field is a character
            if self.quoted:
                continue
            before = data[pos:i]
            self.emitted += _breaks(before)
            parts += [before, self._cut(m.group())]
            pos = m.end()
        if not parts:
            self.emitted += _breaks(data)
            return data
        rest = data[pos:]
        self.emitted += _breaks(rest)
        parts.append(rest)
        return b"".join(parts)

    def _cut(self, run: bytes) -> bytes:
        """One break for ``run`` (a break, then blank lines each ended by a break), the lines
        it removes recorded."""
        removed = _breaks(run) - 1
        self.emitted += 1
        if removed:
            self.starts.append(self.emitted + 1)
            self.shifts.append(self.shifts[-1] + removed)
        return b"\n"

    def line(self, n: int) -> int:
        """The file's line number of line ``n`` of the cut stream."""
        return n + self.shifts[bisect.bisect_right(self.starts, n) - 1]


def _breaks(data: bytes) -> int:
    """Line breaks in ``data``: ``\\r\\n``, ``\\r`` and ``\\n`` count one each."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
