r"""Data and code inside a page's ``<script>`` elements: what cannot end them, comment them out or
fail to parse.

The HTML parser reads a ``<script>`` element's text as raw text up to the first ``</script``
(in any case); inside it, ``<!--`` opens an escaped section in which ``<script`` nests and
``</script>`` no longer ends the element (HTML Living Standard, 13.2.5.4 "script data state"
and the states after it). Data placed there must hold none of these sequences and must still
read back, character for character, through ``JSON.parse``. Run tags, topic ids, measure
labels and the name of the qrels folder come from users' files, so :func:`script_json` is the
only way irstab writes data into a page (the explorer, :mod:`irstab.report.explorer`; the
report's own page, :mod:`irstab.report.render`, carries no data in a script).

The rule of :func:`script_json`: ``json.dumps`` with ``ensure_ascii`` (every character beyond
ASCII as ``\uXXXX``: U+2028 and U+2029, which older JavaScript refused inside string literals,
NUL and the other controls, and lone surrogates, which UTF-8 cannot encode: a file name read
with ``surrogateescape`` keeps its ``\udcff`` through the page as the same escape), then ``<``,
``>`` and ``&`` written as ``\u003c``, ``\u003e``, ``\u0026``. Those three never occur in JSON
outside a string, and inside one the escape is the same character to a JSON parser, so the text
is valid JSON that parses to the same value, and it is pure ASCII without ``<``: no
``</script``, ``<!--``, ``-->`` or ``<script`` can appear in any case. NaN and infinities are
refused (``ValueError``), as JSON has no literal for them.

:func:`script_code` guards the page's own scripts (package files, not users' data): it refuses
code holding ``<!--``, ``<script`` or ``</script`` in any case, where the old rewriting
(``</`` as ``<\/``) was right only inside string literals.
"""

from __future__ import annotations

import json
import re

__all__ = ["script_json", "script_code"]

_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}
_MARKUP = re.compile(r"<!--|</?script", re.IGNORECASE)


def script_json(value) -> str:
    r"""``value`` as JSON text for a ``<script type="application/json">`` element.

    Parameters
    ----------
    value : JSON-serialisable
        Strings may hold anything Python's ``str`` does (markup, ``<!--``, NUL, U+2028,
        lone surrogates, backslashes, quotes).

    Returns
    -------
    str
        ASCII JSON (compact separators) without ``<``, ``>`` or ``&``; ``json.loads`` and
        ``JSON.parse`` give back ``value`` exactly.

    Raises
    ------
    ValueError
        A NaN or an infinity (JSON has none).

    Examples
    --------
    >>> script_json({"run": "</script><!--\u2028"})
    '{"run":"\\u003c/script\\u003e\\u003c!--\\u2028"}'
    >>> json.loads(script_json(["a\ud800b", "\x00"])) == ["a\ud800b", "\x00"]
    True
    """
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.translate(_ESCAPES)


def script_code(code: str, name: str = "script") -> str:
    """The page's own ``code`` for a ``<script>`` element, unchanged, once it is checked.

    Raises
    ------
    ValueError
        ``code`` holds ``<!--``, ``<script`` or ``</script`` (any case), which would end the
        element or change how it is read (the message names ``name`` and the line).
    """
    m = _MARKUP.search(code)
    if m:
        line = code.count("\n", 0, m.start()) + 1
        raise ValueError(f"{name}:{line}: {m.group(0)!r} cannot stand inside a <script> element; "
                         f"write it as '<' + '...' in a string")
    return code
