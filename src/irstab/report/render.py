"""Render a :class:`~irstab.report.study.Study`: Markdown, self-contained HTML, report.json.

Presentation only: every number comes from :meth:`Study.to_dict` or the
study's library objects. :func:`write_report` writes into one directory

* ``report.json``: :meth:`Study.to_dict` (NaN and infinity as ``null``);
* ``report.md``: the report in Markdown, figures linked from ``figures/``;
* ``report.html``: the same, with the figures embedded as base64 PNG (one
  file, no network access needed);
* ``figures/*.png``.

Every file is written through a temporary file and a rename
(:func:`irstab.io.atomic_writer`), so a failure never leaves half a file.
matplotlib is imported lazily (Agg backend).
"""

from __future__ import annotations

import base64
import dataclasses
import html
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import IRStabError
from .study import REFERENCE, TARGETS, Study, display_name

__all__ = [
    "Figure",
    "ReportFiles",
    "figures",
    "render_html",
    "render_markdown",
    "to_json",
    "write_report",
]

_SORT_NOTE = (
    "Sorted by Phi (dependability at the observed number of topics). Topics needed are "
    "point estimates from the G-study."
)


@dataclass(frozen=True)
class Figure:
    """One figure of the report: file stem, caption and PNG bytes."""

    name: str
    caption: str
    png: bytes


@dataclass(frozen=True)
class ReportFiles:
    """Paths written by :func:`write_report`."""

    directory: Path
    html: Path
    markdown: Path
    json: Path
    figures: tuple[Path, ...]


def _f(v: float, digits: int = 3) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:.{digits}f}"


def _n(v: float) -> str:
    return "never" if not math.isfinite(v) else str(int(v))


def _pct(v: float) -> str:
    return "n/a" if not math.isfinite(v) else f"{v:.0%}"


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


# ----------------------------------------------------------------- figures


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def _phi_figure(study: Study):
    from .figures import _pyplot

    plt = _pyplot()
    cands = sorted((c for c in study.candidates if math.isfinite(c.phi)), key=lambda c: c.phi)
    y = np.arange(len(cands))
    fig, ax = plt.subplots(figsize=(7.0, 0.22 * len(cands) + 1.2), layout="constrained")
    best = study.recommendation.best.measure
    colours = [
        "tab:red" if c.measure == best else ("tab:blue" if c.is_ndcg else "tab:gray") for c in cands
    ]
    phi = np.array([c.phi for c in cands])
    err = np.array([[c.phi - c.phi_lower for c in cands], [c.phi_upper - c.phi for c in cands]])
    ax.barh(y, phi, xerr=np.clip(err, 0, None), color=colours, error_kw={"lw": 0.6})
    ax.set_yticks(y, [display_name(c) for c in cands], fontsize=7)
    ax.set_xlabel(f"Phi at {len(study.topics)} topics (95 % F interval)")
    ax.set_xlim(max(0.0, float(np.nanmin([c.phi_lower for c in cands])) - 0.05), 1.0)
    ax.set_title("Dependability of every candidate (red: recommended; blue: nDCG)", fontsize=9)
    return fig


def figures(study: Study) -> list[Figure]:
    """The report's figures as PNG bytes (D-study, Phi of every candidate, optimal vectors)."""
    from .figures import plot_dstudy
    from .optimizer_figures import plot_discounts, plot_result

    rec = study.recommendation
    shown = list(dict.fromkeys(
        c.measure for c in (rec.best, rec.best_preset, rec.reference, rec.most_stable_overall)
    ))
    if "AP" in study.gstudies and "AP" not in shown:
        shown.append("AP")
    top = max([len(study.topics) * 3, 50, *(
        study.candidate(m).topics_95 for m in shown
        if math.isfinite(study.candidate(m).topics_95)
    )])
    grid = np.unique(np.linspace(1, min(top, 2000), 120).round())
    ds = []
    for m in shown:
        if m in study.gstudies:
            d = study.gstudies[m].dstudy(grid, targets=TARGETS)
            ds.append(_renamed(d, display_name(study.candidate(m))))
    out = []
    if ds:
        fig = plot_dstudy(ds, coefficient="phi", targets=TARGETS,
                          title="D-study: Phi against the number of topics")
        out.append(Figure("dstudy", "Phi against the number of topics (D-study), with the "
                          "0.90 and 0.95 targets.", _png(fig)))
    out.append(Figure("phi", "Phi of every candidate with its 95 % interval.",
                      _png(_phi_figure(study))))
    joints = [(k, r) for kind, k, r in study.optima if kind == "joint"]
    if joints:
        fig = plot_discounts([r.discount for _, r in joints],
                             [f"joint optimum @{k}" for k, _ in joints],
                             suptitle="Stability-optimal discounts (joint with the gain)")
        out.append(Figure("discounts", "Optimal discount (joint optimisation) at every cutoff, "
                          "against the log2, zipf and linear presets.", _png(fig)))
    res = _result_of(study, rec.best.measure)
    if res is not None:
        fig = plot_result(res, title=f"Recommended: {display_name(rec.best)}")
        out.append(Figure("recommended", "Gain and discount of the recommended configuration.",
                          _png(fig)))
    return out


def _renamed(d, name: str):
    import dataclasses

    return dataclasses.replace(d, name=name)


def _result_of(study: Study, measure: str):
    for _, _, r in study.optima:
        if r.measure_string == measure:
            return r
    mm = study.minimax
    if mm is not None and any(s.optimum.measure == measure for s in mm.scenarios):
        return mm
    return None


# ----------------------------------------------------------------- tables


def _candidate_rows(study: Study) -> tuple[list[str], list[list[str]]]:
    head = ["measure", "family", "Phi", "95 % CI", "Erho2", "topics Phi=0.90", "topics Phi=0.95",
            "disc. power", f"tau vs {REFERENCE}"]
    rows = []
    for c in sorted(study.candidates, key=lambda c: -c.phi if math.isfinite(c.phi) else 1.0):
        ci = f"[{_f(c.phi_lower)}, {_f(c.phi_upper)}]"
        rows.append([display_name(c), c.family, _f(c.phi), ci,
                     _f(c.erho2), _n(c.topics_90), _n(c.topics_95), _pct(c.discriminative_power),
                     _f(c.kendall_tau)])
    return head, rows


def _optimum_rows(study: Study) -> tuple[list[str], list[list[str]]]:
    head = ["problem", "cutoff", "Phi (1 topic)", "Phi", "topics Phi=0.95", "status", "gain"]
    rows = []
    for kind, k, r in study.optima:
        rows.append([f"optimal {kind}", str(k), _f(r.phi1), _f(r.phi), _n(r.topics_needed),
                     r.status.value, ", ".join(f"{g:.3f}" for g in r.gain)])
    if study.minimax is not None:
        mm = study.minimax
        for s in mm.scenarios:
            rows.append([f"minimax ({s.name})", str(s.cutoff), _f(s.optimum.phi1),
                         _f(s.optimum.phi),
                         _n(s.optimum.topics_needed), mm.status.value,
                         ", ".join(f"{g:.3f}" for g in mm.gain)])
    return head, rows


def _long_measures(study: Study) -> list[tuple[str, str]]:
    return [(display_name(c), c.measure) for c in study.candidates if display_name(c) != c.measure]


def _md_table(head, rows) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _intro(study: Study) -> str:
    return (
        f"{len(study.systems)} systems, {len(study.topics)} topics, runs read to depth "
        f"{study.depth}; cutoffs {', '.join(map(str, study.cutoffs))}. Optimizer: "
        f"{study.settings['starts']} random starts besides the presets (seed "
        f"{study.settings['seed']}); discriminative power: paired bootstrap, "
        f"B = {study.settings['n_bootstrap']}, alpha = {study.settings['alpha']}."
    )


def render_markdown(
    study: Study, figure_dir: str = "figures", figs: list[Figure] | None = None
) -> str:
    """The report as Markdown, linking the figures as ``{figure_dir}/{name}.png``."""
    rec = study.recommendation
    figs = figures(study) if figs is None else figs
    parts = [
        "# irstab report: which nDCG is most stable on this collection?",
        "",
        _intro(study),
        "",
        "## Recommendation",
        "",
        rec.text,
        "",
        "Measure string (works with `irstab evaluate -m`):",
        "",
        "```",
        rec.best.measure,
        "```",
        "",
        "## Candidates",
        "",
        _SORT_NOTE,
        "",
        _md_table(*_candidate_rows(study)),
        "",
        "## Stability-optimal configurations",
        "",
        _md_table(*_optimum_rows(study)),
        "",
    ]
    longs = _long_measures(study)
    if longs:
        parts += ["### Measure strings of the optima", ""]
        for lab, m in longs:
            parts += [f"- {lab}: `{m}`"]
        parts.append("")
    parts += ["## Figures", ""]
    for f in figs:
        parts += [f"![{f.caption}]({figure_dir}/{f.name}.png)", "", f"*{f.caption}*", ""]
    if study.warnings:
        parts += ["## Warnings", ""] + [f"- {w}" for w in study.warnings] + [""]
    parts += ["Every number is in `report.json`.", ""]
    return "\n".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;font-size:0.85em;margin:1em 0}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
td{white-space:nowrap}
.rec p{overflow-wrap:anywhere}
th:first-child,td:first-child,td:nth-child(2){text-align:left}
th{background:#f3f3f3}
code,pre{background:#f6f6f6;font-size:0.85em}
pre{padding:0.6em;white-space:pre-wrap;word-break:break-all}
.rec{border-left:4px solid #c33;padding:0.3em 1em;background:#fff6f6}
figure{margin:1.5em 0}
figure img{max-width:100%;height:auto}
"""


def _html_table(head, rows) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def render_html(study: Study, figs: list[Figure] | None = None) -> str:
    """The report as one self-contained HTML page (figures as base64 PNG data URIs)."""
    rec = study.recommendation
    figs = figures(study) if figs is None else figs
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>irstab report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>irstab report: which nDCG is most stable on this collection?</h1>",
        f"<p>{e(_intro(study))}</p>",
        "<h2>Recommendation</h2>",
        f'<div class="rec"><p>{e(rec.text)}</p>',
        "<p>Measure string (works with <code>irstab evaluate -m</code>):</p>",
        f"<pre>{e(rec.best.measure)}</pre></div>",
        "<h2>Candidates</h2>",
        f"<p>{_SORT_NOTE}</p>",
        _html_table(*_candidate_rows(study)),
        "<h2>Stability-optimal configurations</h2>",
        _html_table(*_optimum_rows(study)),
    ]
    longs = _long_measures(study)
    if longs:
        parts.append("<details><summary>Measure strings of the optima</summary><ul>")
        parts += [f"<li>{e(lab)}: <code>{e(m)}</code></li>" for lab, m in longs]
        parts.append("</ul></details>")
    parts.append("<h2>Figures</h2>")
    for f in figs:
        data = base64.b64encode(f.png).decode("ascii")
        parts.append(
            f'<figure><img alt="{e(f.caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{e(f.caption)}</figcaption></figure>"
        )
    if study.warnings:
        parts.append("<h2>Warnings</h2><ul>")
        parts += [f"<li>{e(w)}</li>" for w in study.warnings]
        parts.append("</ul>")
    parts.append("<p>Every number is in <code>report.json</code>.</p></body></html>")
    return "\n".join(parts) + "\n"


def write_report(study: Study, directory, sections=()) -> ReportFiles:
    """Write report.json, report.md, report.html and figures/*.png into ``directory``.

    Parameters
    ----------
    study : Study
    directory : path-like
        Created when missing; existing report files are replaced together:
        all of them or, on an error, none.
    sections : sequence, optional
        Extra sections appended to the report, e.g.
        :class:`~irstab.report.assessor_section.AssessorSection`: objects with
        ``markdown``, ``html``, ``data`` (under ``report.json``'s key
        ``key``, default ``"assessors"``), ``figure_name`` and ``figure_png``;
        or :class:`~irstab.report.informativeness_panel.InformativenessPanel`.

    Returns
    -------
    ReportFiles

    Raises
    ------
    irstab.errors.IRStabError
        The directory cannot be created or written (the message names it).
    """
    from ..io import atomic_write_files

    out = Path(directory)
    figs = figures(study)
    paths = ReportFiles(out, out / "report.html", out / "report.md", out / "report.json",
                        tuple(out / "figures" / f"{f.name}.png" for f in figs))
    contents = {p: f.png for f, p in zip(figs, paths.figures)}
    data, md, page = study.to_dict(), render_markdown(study, "figures", figs), render_html(study, figs)
    for sec in sections:  # appended after the study's own content
        contents[out / "figures" / f"{sec.figure_name}.png"] = sec.figure_png
        data[getattr(sec, "key", "assessors")] = sec.data
        md = md.rstrip("\n") + "\n\n" + sec.markdown
        page = page.replace("</body></html>", sec.html + "\n</body></html>")
        paths = dataclasses.replace(
            paths, figures=paths.figures + (out / "figures" / f"{sec.figure_name}.png",)
        )
    contents[paths.json] = to_json(data).encode("utf-8")
    contents[paths.markdown] = md.encode("utf-8")
    contents[paths.html] = page.encode("utf-8")
    try:
        atomic_write_files(contents)  # all files or none: never a new JSON beside an old HTML
    except OSError as exc:
        where = exc.filename or out
        raise IRStabError(f"cannot write the report file {where}: {exc.strerror or exc}") from None
    return paths
