"""The report's informativeness panel (``irstab report --informativeness``).

Self-contained: :func:`informativeness_panel` runs the maximum entropy method
(Aslam, Yilmaz & Pavlu, SIGIR 2005; Robertson, Kanoulas & Yilmaz, SIGIR 2010,
§4.1) on the report's recommended measure and a few references, and the panel
renders itself as Markdown, HTML and JSON, with one figure (the mean RMS
error per measure and relevance level, with its interval).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["InformativenessPanel", "informativeness_panel", "REFERENCES"]

REFERENCES = ("AP", "GAP", "nDCG", "P@10")
TITLE = "Informativeness (maximum entropy method)"


@dataclass(frozen=True, eq=False)
class InformativenessPanel:
    """The panel: the :class:`~irstab.compare.Informativeness` result and its figure.

    It is a report section of :func:`irstab.report.render.write_report`:
    ``markdown``, ``html``, ``data`` (under ``report.json``'s key ``key``),
    ``figure_name`` and ``figure_png``.
    """

    result: object
    figure_png: bytes
    figure_name: str = "informativeness"
    key: str = "informativeness"
    caption: str = ("Mean RMS error between actual and maximum-entropy PR curves, per measure "
                    "(lower: more informative), with 95% topic-bootstrap intervals")

    def _rows(self) -> tuple[list[str], list[list[str]]]:
        s = self.result.summary()
        head = ["measure"] + [f"RMS, relevant = grade >= {t}" for t in self.result.levels] + ["lists"]
        rows = []
        for m in self.result.measures:
            part = s[s["measure"] == m].set_index("level")
            cells = [_cell(*part.loc[t, ["mean_rms", "ci_low", "ci_high"]])
                     for t in self.result.levels]
            unsolved = int(part["n_unsolved"].max())
            lists = str(int(part["n_cells"].max())) + (f" ({unsolved} unsolved)" if unsolved else "")
            rows.append([m] + cells + [lists])
        return head, rows

    def _intro(self) -> str:
        r = self.result
        return (
            "How well each measure's value alone predicts the ranked list (Aslam, Yilmaz & Pavlu, "
            "SIGIR 2005): per (run, topic) list with >= "
            f"{r.min_relevant} relevant and >= {r.min_top} top-grade documents, the maximum-entropy "
            "probability-at-rank distribution with the measure's value and the list's grade counts "
            "gives an inferred precision-recall curve; the table gives its mean RMS error against "
            "the actual curve (lower: more informative) with a 95% topic-bootstrap interval."
        )

    @property
    def markdown(self) -> str:
        return self.markdown_for("figures")

    def markdown_for(self, figure_dir: str) -> str:
        """The panel's Markdown, linking its figure under ``figure_dir``."""
        from .render import md_escape as md

        head, rows = self._rows()
        lines = [f"## {md(TITLE)}", "", md(self._intro(), line_start=True), "",
                 "| " + " | ".join(md(h) for h in head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(md(c) for c in r) + " |" for r in rows]
        lines += ["", f"![{md(self.caption)}]({figure_dir}/{self.figure_name}.png)", ""]
        return "\n".join(lines)

    @property
    def html(self) -> str:
        import base64

        from .._repr import html_text as e
        head, rows = self._rows()
        table = ("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"
                 + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
                 + "</table>")
        data = base64.b64encode(self.figure_png).decode("ascii")
        return (f"<h2>{TITLE}</h2><p>{e(self._intro())}</p>{table}"
                f'<figure><img alt="{e(self.caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{e(self.caption)}</figcaption></figure>")

    @property
    def data(self) -> dict:
        return self.result.to_dict()


def _cell(mean: float, low: float, high: float) -> str:
    """``mean [low, high]``; the library warns when a mean or interval is undefined."""
    if not math.isfinite(mean):
        return "no list solved"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{mean:.3f} (no interval: one topic)"
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]"


def _figure(result) -> bytes:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    s = result.summary()
    measures = list(result.measures)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(measures) + 2), 3.6))
    width = 0.8 / len(result.levels)
    for k, t in enumerate(result.levels):
        part = s[s["level"] == t].set_index("measure").loc[measures]
        x = [i + (k - (len(result.levels) - 1) / 2) * width for i in range(len(measures))]
        err = [part["mean_rms"] - part["ci_low"], part["ci_high"] - part["mean_rms"]]
        ax.bar(x, part["mean_rms"], width, yerr=err, capsize=3, label=f"relevant = grade >= {t}")
    ax.set_xticks(range(len(measures)))
    ax.set_xticklabels([m if len(m) <= 22 else m[:20] + "..." for m in measures],
                       rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("mean RMS error (PR curve)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def informativeness_panel(collection, measures: Sequence, *, seed: int = 0,
                          progress: Callable[[str, int, int], None] | None = None,
                          **options) -> InformativenessPanel:
    """Run :func:`irstab.compare.informativeness` on ``measures`` (those with a
    product-distribution expectation; others are skipped) and build the panel.

    ``options`` go to :func:`~irstab.compare.informativeness` (``min_relevant``, ...).
    """
    from ..informativeness.analysis import informativeness
    from ..informativeness.product_expectation import SUPPORTED
    from ..evaluation import parse_measures

    ms, seen = [], set()
    for m in parse_measures(list(measures)):
        if type(m) in SUPPORTED and str(m) not in seen:
            ms.append(m)
            seen.add(str(m))
    result = informativeness(collection, ms, seed=seed, progress=progress, **options)
    return InformativenessPanel(result, _figure(result))
