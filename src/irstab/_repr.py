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
:func:`one_line`
    for a line of its own (a message, a verdict): everything but tabs escaped.
:func:`terminal_safe`
    the last guard before text reaches the terminal or a file: everything escaped
    but the layout's own tabs and newlines.
:func:`latex_escape`
    :func:`escape_text`, then LaTeX's specials, and ``[``/``]`` braced (``{[}``),
    so that a cell starting with ``[`` is never the optional argument of the ``\\\\``
    (or ``\\midrule``) before it.
:func:`html_text`
    :func:`escape_text` (keeping newlines and tabs), then HTML's escapes; Markdown
    (``irstab.report.render.md_escape``) starts from :func:`escape_text` too.
:func:`csv_cell`
    a text cell a spreadsheet would run as a formula (starting with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return, not a number) prefixed with ``'``
    (OWASP's advice for CSV injection); the CSV writer quotes the rest. CSV keeps
    names otherwise as they are, so that a score file written by ``evaluate -f csv``
    reads back with the same names; its control characters are quoted, not escaped.

This module imports only the standard library: the CLI's last-resort error printer
uses it before anything else is loaded.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["short_repr", "escape_text", "one_line", "terminal_safe", "latex_escape", "csv_cell",
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


def escape_text(text, keep: str = "") -> str:
    r"""``text`` with every non-printing character written as a visible escape.

    See the module docstring for which characters; those in ``keep`` stay as they
    are. Other text, any script, is unchanged.

    Examples
    --------
    >>> escape_text("run\tx\n\x1b[31mred")
    'run\\tx\\n\\x1b[31mred'
    >>> escape_text("abc\u202edef"), escape_text("a\u2028b"), escape_text("Kanoulas ≥ Aslam")
    ('abc\\u202edef', 'a\\u2028b', 'Kanoulas ≥ Aslam')
    """
    text = str(text)
    if text.isascii():
        if not _ASCII_CONTROL.search(text):
            return text
        return _ASCII_CONTROL.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()),
                                  text)
    return "".join(_escape(c) if c not in keep and _needs_escape(c) else c for c in text)


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
    'x\\textbackslash{}u202ey\\textbackslash{}z'
    """
    return _LATEX_SPECIAL.sub(lambda m: _LATEX_REPLACE.get(m.group(1), "\\" + m.group(1)),
                              escape_text(text))


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
    r"""Plain text as HTML that shows the same characters: :func:`escape_text` (newlines and
    tabs kept, a ``<pre>`` block uses them), then ``html.escape``.

    Examples
    --------
    >>> html_text("<b>run\u202e</b>")
    '&lt;b&gt;run\\u202e&lt;/b&gt;'
    """
    return html.escape(escape_text(text, keep="\n\t"))
