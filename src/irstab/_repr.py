"""Text as irstab shows it: short reprs of result objects, and one sanitiser for names.

Short reprs. A dataclass ``repr`` of a result prints every field (score arrays, every
system and topic): unreadable in a console and a notebook. :func:`short_repr`
gives a class a one-line ``repr`` from its ``_summary()`` and a
``_repr_html_`` (Jupyter's rich display) that adds the ``to_frame()`` table.

The sanitiser. Run names, topic ids, measure names and file names come from users'
files. Written raw into a text layout they can forge lines (a newline in a measure name printing
``verdict: keep base (forged)``), drive the terminal (escape sequences), reorder what
a reader sees (the bidirectional overrides U+202E and friends, "Trojan Source",
Boucher & Anderson, USENIX Security 2023), run in a spreadsheet (``=cmd|...``) or
typeset as LaTeX commands (``[40pt]`` after ``\\\\``). Every renderer passes names
through this module:

:func:`escape_text`
    every character that is not plain visible text, written as a visible escape:
    C0 and C1 controls and DEL (``\\t``, ``\\n``, ``\\r``, ``\\x1b``), format
    controls (Unicode category Cf: the bidirectional embeddings, overrides and
    isolates U+202A-U+202E and U+2066-U+2069, the marks U+200E/U+200F/U+061C, zero
    widths, the byte-order mark), the line and paragraph separators U+2028/U+2029
    and lone surrogates (undecodable file names) as ``\\u202e``, ``\\udc80``.
:func:`escape_name`
    :func:`escape_text` with every backslash doubled (as Python's ``repr``): what a
    layout shows of a name. An escape character and the four characters ``\\x1b``
    then print differently (``\\x1b`` and ``\\\\x1b``).
:func:`one_line`
    for a line of its own (a message, a verdict): everything but tabs escaped.
:func:`terminal_safe`
    the last guard before text reaches the terminal or a file: everything escaped
    but the layout's own tabs and newlines.
:func:`latex_escape`
    :func:`escape_name`, then LaTeX's specials, and ``[``/``]`` braced (``{[}``),
    so that a cell starting with ``[`` is never the optional argument of the ``\\\\``
    (or ``\\midrule``) before it.
:func:`html_text`
    :func:`escape_name` (keeping newlines and tabs), then HTML's escapes; Markdown
    (``irstab.report.render.md_escape``) starts from :func:`escape_name` too.
:func:`csv_cell`
    a text cell a spreadsheet would run as a formula (starting with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return, not a number) prefixed with ``'``
    (OWASP's advice for CSV injection); the CSV writer quotes the rest. A CSV cell
    keeps tabs and line breaks (quoted, so that a score file written by ``evaluate -f
    csv`` reads back with the same names) and is otherwise :func:`escape_name`'d.

This module imports only the standard library: the CLI's last-resort error printer
uses it before anything else is loaded.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["json_records", "short_repr", "escape_text", "escape_name", "one_line", "terminal_safe", "latex_escape", "csv_cell",
           "html_text"]

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


# ---------------------------------------------------------------- the sanitiser

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _needs_escape(ch: str) -> bool:
    return unicodedata.category(ch) in _ESCAPED_CATEGORIES


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape_text(text, keep: str = "", *, backslash: bool = False) -> str:
    r"""``text`` with every non-printing character written as a visible escape.

    See the module docstring for which characters; those in ``keep`` stay as they
    are. With ``backslash``, a backslash is doubled too (:func:`escape_name`). Other
    text, any script, is unchanged.

    Examples
    --------
    >>> escape_text("run\tx\n\x1b[31mred")
    'run\\tx\\n\\x1b[31mred'
    >>> escape_text("abc\u202edef"), escape_text("a\u2028b"), escape_text("Kanoulas ≥ Aslam")
    ('abc\\u202edef', 'a\\u2028b', 'Kanoulas ≥ Aslam')
    """
    text = str(text)
    if backslash and "\\" in text:
        text = text.replace("\\", "\\\\")
    if text.isascii():
        if not _ASCII_CONTROL.search(text):
            return text
        return _ASCII_CONTROL.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()),
                                  text)
    return "".join(_escape(c) if c not in keep and _needs_escape(c) else c for c in text)


def escape_name(text, keep: str = "") -> str:
    r"""A name (run, topic, measure, file) as a layout shows it: :func:`escape_text` with
    every backslash doubled, as Python's ``repr`` does.

    Without the doubling a name holding an escape character and a name holding the four
    characters ``\x1b`` would print alike; with it, what is shown reads back to one name.

    Examples
    --------
    >>> escape_name("\x1b[31m"), escape_name(r"\x1b[31m"), escape_name("bm25")
    ('\\x1b[31m', '\\\\x1b[31m', 'bm25')
    """
    return escape_text(text, keep, backslash=True)


def one_line(text) -> str:
    """:func:`escape_text` keeping tabs only: the text stays one line, whatever it holds."""
    return escape_text(text, keep="\t")


def terminal_safe(text) -> str:
    """:func:`escape_text` keeping tabs and newlines, the layouts' own separators.

    The last guard before anything is printed or written: whatever layout produced the
    text, no escape sequence or bidirectional control from a name reaches the terminal.
    Names holding tabs or newlines were escaped by their layout (tables, trec, LaTeX,
    verdicts) or quoted (TSV, CSV).
    """
    return escape_text(text, keep="\t\n")


_LATEX_SPECIAL = re.compile(r"([&%$#_{}~^\\\[\]])")
_LATEX_REPLACE = {"~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "\\": r"\textbackslash{}", "[": "{[}", "]": "{]}"}


def latex_escape(text) -> str:
    r"""``text`` as LaTeX that typesets the same characters, never a command.

    Examples
    --------
    >>> latex_escape("[40pt]zzz"), latex_escape("a_1 & 50%")
    ('{[}40pt{]}zzz', 'a\\_1 \\& 50\\%')
    >>> latex_escape("x\u202ey\\z")
    'x\\textbackslash{}u202ey\\textbackslash{}\\textbackslash{}z'
    """
    return _LATEX_SPECIAL.sub(lambda m: _LATEX_REPLACE.get(m.group(1), "\\" + m.group(1)),
                              escape_name(text))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A text cell a spreadsheet would run as a formula, prefixed with ``'`` (OWASP).

    Numbers, and text that reads as a number (a topic ``-1``), are left alone, as is
    anything that is not a string.

    Examples
    --------
    >>> csv_cell("=cmd|'/c calc'!A1"), csv_cell("-1"), csv_cell("bm25"), csv_cell(0.5)
    ("'=cmd|'/c calc'!A1", '-1', 'bm25', 0.5)
    """
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def html_text(text) -> str:
    r"""Plain text as HTML that shows the same characters: :func:`escape_name` (newlines and
    tabs kept, a ``<pre>`` block uses them; backslashes doubled), then ``html.escape``.

    Examples
    --------
    >>> html_text("<b>run\u202e</b>")
    '&lt;b&gt;run\\u202e&lt;/b&gt;'
    """
    return html.escape(escape_name(text, keep="\n\t"))


def json_records(frame) -> list[dict]:
    """A DataFrame's rows as JSON-ready dicts: NaN becomes None (JSON has no NaN)."""
    return [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
            for r in frame.to_dict(orient="records")]
