"""Render a :class:`~irstab.report.study.Study`: Markdown, self-contained HTML, report.json.

Presentation only: every number comes from :meth:`Study.to_dict` or the
study's library objects, laid out by the section functions of
:mod:`irstab.report.sections`. :func:`write_report` writes into one directory

* ``report.json``: :meth:`Study.to_dict` (NaN and infinity as ``null``; the
  per-pair comparisons only with ``full=True``);
* ``report.md``: the report in Markdown, figures linked from ``figures/``;
  every string is escaped for Markdown and HTML (:func:`md_escape`), so a
  run named ``<img src=x onerror=alert(1)>`` stays text in any viewer;
* ``report.html``: the same, with the figures embedded as base64 PNG, a
  sortable and filterable candidate table (a small inline script) and
  collapsed warnings: one file, no network access needed, fits 800 px;
* ``figures/*.png``.

Every file is written through a temporary file and a rename
(:func:`irstab.io.atomic_writer`), so a failure never leaves half a file.
matplotlib is imported lazily (Agg backend).
"""

from __future__ import annotations

import base64
import dataclasses
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._repr import escape_name, html_text
from ..errors import IRStabError
from .sections import Code, Details, Fig, Items, Para, Section, Table, intro, sections
from .study import Study
from .study_figures import Figure, figures

__all__ = [
    "Figure",
    "ReportFiles",
    "figures",
    "md_escape",
    "render_html",
    "render_markdown",
    "section_html",
    "section_markdown",
    "to_json",
    "write_report",
]


@dataclass(frozen=True)
class ReportFiles:
    """Paths written by :func:`write_report`."""

    directory: Path
    html: Path
    markdown: Path
    json: Path
    figures: tuple[Path, ...]


def _clean(o):
    if isinstance(o, (float, np.floating)):
        return float(o) if math.isfinite(o) else None
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.ndarray):
        return _clean(o.tolist())
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def to_json(obj) -> str:
    """JSON text of ``obj``: numpy values converted, NaN and infinity written as ``null``."""
    import json

    return json.dumps(_clean(obj), indent=1, allow_nan=False) + "\n"


# ----------------------------------------------------------------- Markdown

# Characters that make markup in the middle of a line (GitHub-flavoured Markdown): emphasis,
# code, links and images (``!`` and ``(`` act only after ``]``), tables, strikethrough.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
# "&" only matters where it starts an entity reference (CommonMark 6.2): "&amp;", "&#38;"
_MD_ENTITY = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]*;)")
# what starts a block at the beginning of a line: heading, bullet list or thematic break,
# ordered list ("1. ", "2)" at the end)
_MD_BLOCK_START = re.compile(r"^(#|[-+]|\d{1,9}(?=[.)](\s|$)))")


def md_escape(text: str, *, line_start: bool = False) -> str:
    """Plain text -> Markdown that renders as the same text, never as markup or HTML.

    ``<`` and ``>`` become entities, and so does an ``&`` that would start
    an entity reference (CommonMark decodes them back to text; any other
    ``&`` is already literal); the punctuation that makes inline markup gets
    a backslash; line breaks become spaces (a string never starts a block of
    its own); other control and format characters (the bidirectional overrides)
    are escaped visibly first (:func:`irstab._repr.escape_name`: backslashes doubled). With
    ``line_start`` (text that begins a paragraph or a list
    item) a heading, list or thematic-break marker at the start gets a backslash
    too, and leading blanks are dropped (four would open a code block).

    Examples
    --------
    >>> md_escape("<img src=x onerror=alert(1)>")
    '&lt;img src=x onerror=alert(1)&gt;'
    >>> md_escape("a_b|[c](d)")
    'a\\\\_b\\\\|\\\\[c\\\\](d)'
    >>> md_escape("Efron & Tibshirani; &copy;")
    'Efron & Tibshirani; &amp;copy;'
    >>> md_escape("# 1. run", line_start=True), md_escape("-0.5")
    ('\\\\# 1. run', '-0.5')
    """
    t = escape_name(text, keep="\r\n\t")  # controls, bidirectional overrides: visible
    t = _MD_ENTITY.sub("&amp;", t).replace("<", "&lt;").replace(">", "&gt;")
    t = _MD_SPECIAL.sub(r"\\\1", t)
    t = re.sub(r"\s*[\r\n]+\s*", " ", t)
    if not line_start:
        return t
    t = t.lstrip()  # four leading spaces would open a code block
    m = _MD_BLOCK_START.match(t)
    if m is None:
        return t
    mark = m.group(1)
    if mark[0].isdigit():  # "1. " -> "1\\. ": the backslash goes before the delimiter
        return f"{mark}\\{t[m.end():]}"
    return f"\\{mark}{t[m.end():]}"


def _md_code(text: str) -> list[str]:
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return [fence, text.replace("\n", " "), fence]


def _md_block(b, figure_dir: str) -> list[str]:
    e = md_escape
    if isinstance(b, Para):
        if b.cls == "headline":
            return [f"**{e(b.text)}**", ""]
        return [e(b.text, line_start=True), ""]
    if isinstance(b, Code):
        return [*_md_code(b.text), ""]
    if isinstance(b, Items):
        return [f"- {e(i, line_start=True)}" for i in b.items] + [""]
    if isinstance(b, Table):
        lines = ["| " + " | ".join(e(h) for h in b.head) + " |", "|" + "---|" * len(b.head)]
        lines += ["| " + " | ".join(e(v) for v in r) + " |" for r in b.rows]
        return lines + [""]
    if isinstance(b, Fig):
        f = b.figure
        return [f"![{e(f.caption)}]({figure_dir}/{f.name}.png)", "", f"*{e(f.caption)}*", ""]
    if isinstance(b, Details):
        out = [f"**{e(b.summary)}**", ""]
        for x in b.blocks:
            out += _md_block(x, figure_dir)
        return out
    raise TypeError(f"unknown report block {type(b).__name__}")


def render_markdown(
    study: Study, figure_dir: str = "figures", figs: list[Figure] | None = None
) -> str:
    """The report as Markdown, linking the figures as ``{figure_dir}/{name}.png``."""
    figs = figures(study) if figs is None else figs
    parts = ["# irstab report: which nDCG is most stable on this collection?", "",
             md_escape(intro(study), line_start=True), ""]
    for sec in sections(study, figs):
        parts += section_markdown(sec, figure_dir).split("\n")
    parts += ["Every number is in `report.json`.", ""]
    return "\n".join(parts)


def section_markdown(sec: Section, figure_dir: str = "figures") -> str:
    """One :class:`~irstab.report.sections.Section` as Markdown (title, escaped blocks)."""
    parts = [f"## {md_escape(sec.title)}", ""]
    for b in sec.blocks:
        parts += _md_block(b, figure_dir)
    return "\n".join(parts)


# ----------------------------------------------------------------- HTML

_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1360px;
margin:1.5em auto;padding:0 1em;color:#222;line-height:1.45}
p,li,ul,figure,details,nav,h1,h2,h3{max-width:1100px}
h1{font-size:1.5em}
nav{font-size:0.9em;margin-bottom:1em}
nav a{margin-right:0.8em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:0.82em;margin:0.5em 0}
th,td{border:1px solid #ccc;padding:3px 5px;text-align:right}
td{white-space:nowrap}
td.wrap{white-space:normal;min-width:10.5em}
th{white-space:normal;vertical-align:bottom;min-width:4.5em}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}
td:first-child{white-space:normal;min-width:12em;max-width:22em;overflow-wrap:break-word}
th:first-child,td:first-child{position:sticky;left:0;z-index:1;background:#fff}
th{background:#f3f3f3}
th:first-child{background:#f3f3f3}
th button{all:unset;cursor:pointer}
th button:after{content:" \\2195";color:#999}
th[aria-sort=ascending] button:after{content:" \\2191";color:#222}
th[aria-sort=descending] button:after{content:" \\2193";color:#222}
tr.lit td{background:#fff2cc;font-weight:600}
input.filter{margin:0.3em 0;padding:3px 6px;width:18em;max-width:100%}
code,pre{background:#f6f6f6;font-size:0.85em}
pre{padding:0.6em;white-space:pre-wrap;word-break:break-all}
p,li{overflow-wrap:anywhere}
.rec{border-left:4px solid #c33;padding:0.3em 1em;background:#fff6f6}
.rec p.headline{font-size:1.3em;font-weight:700;margin:0.3em 0}
.rec ul{margin:0.3em 0;padding-left:1.2em}
.narrow-note{display:none;font-size:0.85em;color:#555}
figure{margin:1em 0}
figure img{max-width:100%;height:auto}
figcaption{font-size:0.85em;color:#444}
details{margin:0.4em 0}
summary{cursor:pointer}
@media (max-width:900px){.narrow-hide{display:none}.narrow-note{display:block}
body{padding:0 0.5em}}
"""

# Sort on a click on a column head (numbers numerically, text alphabetically, n/a last) and
# filter rows by the text typed above the table. No network, no library.
_JS = """
(function(){
function key(td){var t=td.textContent.trim();var m=t.match(/^\\[?([+-]?\\d+(\\.\\d+)?)/);
return m?parseFloat(m[1]):(t==='never'?Infinity:(t==='n/a'?NaN:t.toLowerCase()));}
function isnan(v){return typeof v==='number'&&isNaN(v);}
document.querySelectorAll('table.sortable').forEach(function(tb){
var ths=tb.tHead.rows[0].cells;
Array.prototype.forEach.call(ths,function(th,ci){
var b=th.querySelector('button');if(!b)return;
b.addEventListener('click',function(){
var asc=th.getAttribute('aria-sort')!=='ascending';
Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',asc?'ascending':'descending');
var body=tb.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(r1,r2){var a=key(r1.cells[ci]),c=key(r2.cells[ci]);
if(isnan(a)||isnan(c))return isnan(a)-isnan(c);
if(typeof a!==typeof c)return typeof a==='number'?-1:1;
return (a<c?-1:a>c?1:0)*(asc?1:-1);});
rows.forEach(function(r){body.appendChild(r);});});});
var f=document.getElementById(tb.id+'-filter');
if(f)f.addEventListener('input',function(){var q=f.value.toLowerCase();
Array.prototype.forEach.call(tb.tBodies[0].rows,function(r){
r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?'':'none';});});
});})();
"""


def _html_table(t: Table, tid: str) -> str:
    e = html_text
    hide = set(t.narrow_hide)

    wrap = set(t.wrap)

    def cls(i):
        names = " ".join(n for n, on in (("narrow-hide", i in hide), ("wrap", i in wrap)) if on)
        return f' class="{names}"' if names else ""

    if t.sortable:
        th = "".join(f'<th{cls(i)}><button type="button">{e(h)}</button></th>'
                     for i, h in enumerate(t.head))
    else:
        th = "".join(f"<th{cls(i)}>{e(h)}</th>" for i, h in enumerate(t.head))
    lit = set(t.highlight)
    body = "".join(
        ('<tr class="lit">' if k in lit else "<tr>")
        + "".join(f"<td{cls(i)}>{e(v)}</td>" for i, v in enumerate(r)) + "</tr>"
        for k, r in enumerate(t.rows)
    )
    table = (f'<table id="{tid}"' + (' class="sortable"' if t.sortable else "")
             + f"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>")
    flt = (f'<input class="filter" id="{tid}-filter" type="search" placeholder="filter rows" '
           'aria-label="filter the table">' if t.sortable else "")
    note = ""
    if hide:  # shown only where the columns are hidden (the @media rule of _CSS)
        names = ", ".join(t.head[i] for i in sorted(hide))
        note = (f'<p class="narrow-note" id="{tid}-hidden">Narrow screen: the columns '
                f"{e(names)} are hidden; widen the window to see them (report.md and "
                "report.json have every column).</p>")
    return f'{flt}{note}<div class="scroll">{table}</div>'


def _html_block(b, ids: list[int]) -> str:
    e = html_text
    if isinstance(b, Para):
        cls = f' class="{e(b.cls)}"' if b.cls else ""
        return f"<p{cls}>{e(b.text)}</p>"
    if isinstance(b, Code):
        return f"<pre>{e(b.text)}</pre>"
    if isinstance(b, Items):
        return "<ul>" + "".join(f"<li>{e(i)}</li>" for i in b.items) + "</ul>"
    if isinstance(b, Table):
        ids[0] += 1
        return _html_table(b, f"table{ids[0]}")
    if isinstance(b, Fig):
        f = b.figure
        data = base64.b64encode(f.png).decode("ascii")
        return (f'<figure><img alt="{e(f.caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{e(f.caption)}</figcaption></figure>")
    if isinstance(b, Details):
        inner = "".join(_html_block(x, ids) for x in b.blocks)
        return f"<details><summary>{e(b.summary)}</summary>{inner}</details>"
    raise TypeError(f"unknown report block {type(b).__name__}")


def section_html(sec: Section) -> str:
    """One :class:`~irstab.report.sections.Section` appended to the report, as HTML.

    Its tables are numbered from 100 on, apart from the report's own.
    """
    return _html_section(sec, [100])


def _html_section(sec: Section, ids: list[int]) -> str:
    e = html_text
    inner = "".join(_html_block(b, ids) for b in sec.blocks)
    if sec.cls:
        inner = f'<div class="{e(sec.cls)}">{inner}</div>'
    return f'<section id="{e(sec.id)}"><h2>{e(sec.title)}</h2>{inner}</section>'


def render_html(study: Study, figs: list[Figure] | None = None) -> str:
    """The report as one self-contained HTML page (figures as base64 PNG data URIs)."""
    figs = figures(study) if figs is None else figs
    e = html_text
    secs = sections(study, figs)
    ids = [0]
    nav = "".join(f'<a href="#{e(s.id)}">{e(s.title)}</a>' for s in secs)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>irstab report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>irstab report: which nDCG is most stable on this collection?</h1>",
        f"<p>{e(intro(study))}</p>",
        f"<nav>{nav}</nav>",
        *(_html_section(s, ids) for s in secs),
        "<p>Every number is in <code>report.json</code>.</p>",
        f"<script>{_JS}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def write_report(study: Study, directory, sections=(), *, full: bool = False) -> ReportFiles:
    """Write report.json, report.md, report.html and figures/*.png into ``directory``.

    Parameters
    ----------
    study : Study
    directory : path-like
        Created when missing; otherwise it must be empty or hold an earlier
        report (irstab never replaces a directory it did not write). The whole
        report is written into a new directory beside it and swapped in with one
        atomic exchange (:func:`irstab.io.outputtree.atomic_write_tree`): a reader,
        an error or a kill leaves the old report or the new one, never a mix;
        files of the old directory that the report does not write are kept (the
        same files, by hard links).
    sections : sequence, optional
        Extra sections appended to the report, e.g.
        :class:`~irstab.report.assessor_section.AssessorSection`: objects with
        ``markdown``, ``html``, ``data`` (under ``report.json``'s key
        ``key``, default ``"assessors"``), ``figure_name`` and ``figure_png`` (or
        ``figures``: ``(name, png)`` pairs, possibly none) and optionally ``files``
        (``{name: bytes}`` written beside report.html, as the explorer page of
        :class:`~irstab.report.explorer.ExplorerSection`); or
        :class:`~irstab.report.informativeness_panel.InformativenessPanel`, or
        :class:`~irstab.report.design_section.DesignSection`.
    full : bool
        Keep the per-pair comparisons in report.json (:meth:`Study.to_dict`).

    Returns
    -------
    ReportFiles

    Raises
    ------
    irstab.errors.IRStabError
        The directory cannot be created or written (the message names it).
    """
    from ..io.atomicfile import remove_stale
    from ..io.outputtree import atomic_write_tree

    out = Path(directory)
    figs = figures(study)
    paths = ReportFiles(out, out / "report.html", out / "report.md", out / "report.json",
                        tuple(out / "figures" / f"{f.name}.png" for f in figs))
    contents = {p: f.png for f, p in zip(figs, paths.figures)}
    data = study.to_dict(full=full)
    md, page = render_markdown(study, "figures", figs), render_html(study, figs)
    for sec in sections:  # appended after the study's own content
        pngs = getattr(sec, "figures", None)
        if pngs is None:
            pngs = ((sec.figure_name, sec.figure_png),)
        for name, payload in getattr(sec, "files", {}).items():  # pages beside the report
            contents[out / name] = payload
        for name, png in pngs:
            contents[out / "figures" / f"{name}.png"] = png
            paths = dataclasses.replace(
                paths, figures=paths.figures + (out / "figures" / f"{name}.png",)
            )
        data[getattr(sec, "key", "assessors")] = sec.data
        md = md.rstrip("\n") + "\n\n" + sec.markdown
        page = page.replace("</body></html>", sec.html + "\n</body></html>")
    contents[paths.json] = to_json(data).encode("utf-8")
    contents[paths.markdown] = md.encode("utf-8")
    contents[paths.html] = page.encode("utf-8")
    for d in (out, out / "figures"):  # a killed run's files, whatever it was writing
        remove_stale(d)
    try:  # all files or none: never a new JSON beside an old HTML
        atomic_write_tree(out, {str(p.relative_to(out)): data for p, data in contents.items()})
    except OSError as exc:
        where = exc.filename or out
        raise IRStabError(f"cannot write the report file {where}: {exc.strerror or exc}") from None
    return paths
