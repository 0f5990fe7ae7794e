"""Strings that end, comment out or break a page's script element or its JSON (issue 41).

Shared by test_embed.py (the page as written) and test_explorer_names_browser.py (the page in
Chromium). The pieces follow the HTML Living Standard's script data states (13.2.5.4 on: a
script element ends at ``</script`` in any case; ``<!--`` opens an escaped section where
``<script`` nests), JSON's own specials (quote, backslash, NUL, lone surrogates) and
JavaScript's former line terminators inside strings (U+2028, U+2029), plus the explorer
template's slots (``%%DATA%%``) and markup that would run if it were parsed as HTML.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

PIECES = ["<!--", "-->", "</script", "</SCRIPT >", "<script>", "<ScRiPt", "</", "<\\/", "<\\!--",
          "\u2028", "\u2029", "\ud800", "\udbff", "\udc80", "\udfff", "\x00", "\x1b", "\r\n",
          "\\", '"', "'", "&", "&amp;", "<", ">", "]]>", "\ufeff", "\u202e", "%%DATA%%",
          "%%SCRIPTS%%", "%%TITLE%%", "\\u003c", "<script>window.pwned=1</script>",
          '<img src=x onerror="window.pwned=2">']

#: Any Python string: pieces and arbitrary characters, lone surrogates included (a file name
#: read with surrogateescape holds them).
hostile = st.lists(st.one_of(st.sampled_from(PIECES),
                             st.text(st.characters(exclude_categories=()), max_size=4)),
                   max_size=6).map("".join)

#: Any name a run or qrels file can hold: the same without lone surrogates (files are UTF-8).
names = st.lists(st.one_of(st.sampled_from([p for p in PIECES if p.encode("utf-8", "replace")
                                            .decode("utf-8") == p]), st.text(max_size=4)),
                 max_size=6).map("".join)


def distinct(n: int):
    """``n`` different names."""
    return st.lists(names, min_size=n, max_size=n, unique=True)


def utf16(text: str) -> bytes:
    """The UTF-16 code units of ``text`` (what a JavaScript string holds)."""
    return text.encode("utf-16-le", "surrogatepass")


def named(coll, systems, topics):
    """``coll`` with these system and topic names (its arrays unchanged)."""
    return dataclasses.replace(coll, systems=list(systems), topics=list(topics))
