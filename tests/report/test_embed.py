"""Data in a page's script element (irstab.report.embed) and the explorer page around it.

Oracles: Python's ``json`` parser (the JSON text reads back to the value, compared as UTF-16
code units, the strings JavaScript holds: a high surrogate followed by a low one is one
character there); the HTML Living Standard's script data states (13.2.5.4 on): a script
element ends at ``</script`` in any case and ``<!--`` changes how what follows is read, so
the page may hold ``</script`` only where its own two elements end and no ``<!--`` at all;
:func:`irstab._repr.escape_name` for the text a reader sees. Chromium reads the same pages in
test_explorer_names_browser.py.
"""

from __future__ import annotations

import json
import re
from html import unescape
from importlib import resources

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import irstab
from irstab._repr import escape_name
from irstab.report.embed import script_code, script_json
from irstab.report.explorer import explorer_page, write_explorer

from hostile_text import distinct, hostile, named, utf16

ASSETS = resources.files("irstab.report").joinpath("explorer_assets")
SCRIPTS = ("core.js", "interval.js", "plot.js", "ui.js")  # the page's load order


def same(a, b) -> bool:
    """Equal as JSON values whose strings are compared as UTF-16 code units."""
    if isinstance(a, str) and isinstance(b, str):
        return utf16(a) == utf16(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return (list(map(utf16, a)) == list(map(utf16, b))
                and all(same(x, y) for x, y in zip(a.values(), b.values())))
    return type(a) is type(b) and a == b


#: JSON values with hostile strings (the keys are the page's own, plain text).
values = st.recursive(
    st.one_of(hostile, st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(value=values)
@example(value={"run": "</script><script>window.pwned=1</script>", "topic": "<!--"})
@example(value=["\ud800", "\u2028\u2029", "\x00", "a\\\"b", "<\\!--"])
def test_any_value_reads_back_and_holds_no_markup(value):
    text = script_json(value)
    assert same(json.loads(text), value)
    assert text.isascii()  # U+2028/U+2029, NUL, surrogates: all \\u escapes
    assert not re.search(r"[<>&]", text)  # so no </script, <!--, -->, <script in any case


def test_escapes_are_the_json_of_the_same_characters():
    # each escape written by hand: \u003c is "<", \u2028 the line separator, \ud800 a lone
    # surrogate (valid JSON: RFC 8259 section 7 allows any \uXXXX)
    assert script_json(["</script>", "<!--", "a&b", "\u2028", "\ud800", "\x00"]) == (
        '["\\u003c/script\\u003e","\\u003c!--","a\\u0026b","\\u2028","\\ud800","\\u0000"]')
    with pytest.raises(ValueError):
        script_json(float("nan"))


@pytest.mark.parametrize("code, line", [("var a = '<!--';", 1), ("x\ny = '</SCRIPT>'", 2),
                                        ("s = '<script src=x>'", 1)])
def test_own_code_with_markup_is_refused_by_line(code, line):
    with pytest.raises(ValueError, match=rf"^ui\.js:{line}: "):
        script_code(code, "ui.js")
    assert script_code("a = '</label>' + '<' + 'script>'", "ui.js")  # the way to write them


# ----------------------------------------------------------------- the explorer page as written


@pytest.fixture(scope="module")
def small():
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=5, depth=12, seed=5)
    return irstab.Collection.build(sim.qrels, sim.runs, depth=12)


def embedded(html: str) -> str:
    m = re.search(r'<script type="application/json" id="irstab-data">(.*?)</script>', html, re.S)
    return m.group(1)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(systems=distinct(4), topics=distinct(5), title=hostile, note=hostile)
@example(systems=["</script><script>window.pwned=1</script>", "<!--", "x\x00\u2028", "\\"],
         topics=["%%DATA%%", "-->", "t\u2029", "<\\!--", "5"], title="q<!--%%SCRIPTS%%\udcff",
         note="%%DATA%%")
def test_any_names_leave_the_page_whole(small, systems, topics, title, note):
    page = explorer_page(named(small, systems, topics), cutoff=10, optimize_at=(), title=title,
                         notes=[note])
    html = page.html
    html.encode("utf-8")  # writable: no lone surrogate left raw (page.nbytes, write_explorer)
    assert len(re.findall(r"</script", html, re.I)) == 2  # where the page's two elements end
    assert len(re.findall(r"<script", html, re.I)) == 2 and "<!--" not in html
    code = re.search(r"<script>(.*?)</script>", html, re.S).group(1)
    assert code == "\n".join(ASSETS.joinpath(n).read_text(encoding="utf-8") for n in SCRIPTS)
    data = json.loads(embedded(html))
    assert same(data, page.data)  # every name, as given
    assert same(data["collection"]["systems"], systems)
    assert same(data["collection"]["topics"], topics) and same(data["title"], title)
    # the title as text: escape_name's visible escapes, then HTML's (html_text)
    shown = escape_name(title, keep="\n\t")
    m = re.search(r"<title>irstab explorer: (.*?)</title>", html, re.S)
    assert "<" not in m.group(1) and unescape(m.group(1)) == shown
    m = re.search(r'<p id="summary" class="muted">(.*?)</p>', html, re.S)
    assert "<" not in m.group(1) and unescape(m.group(1)).startswith(shown + ": 4 systems x 5")
    assert unescape(m.group(1)).endswith(" " + escape_name(note, keep="\n\t"))


def test_a_name_with_a_comment_opener_keeps_the_page_parseable(small, tmp_path):
    """Issue 41's example: "<!--" was written "<\\!--", which is no JSON."""
    page = explorer_page(named(small, ["a<!--b", "s2", "s3", "s4"], list("12345")), cutoff=10,
                         optimize_at=(), title="x<!--y")
    out = write_explorer(page, tmp_path / "e.html")
    data = json.loads(embedded(out.read_text(encoding="utf-8")))
    assert data["collection"]["systems"][0] == "a<!--b" and data["title"] == "x<!--y"
