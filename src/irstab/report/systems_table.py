r"""Layouts of a system comparison (:class:`irstab.systems.table.SystemComparison`).

The systems table marks each mean with the letters of the systems it is
significantly better than, as ranx's ``compare`` report does: superscripts
(``0.4512ᵃᶜ``) in text, ``$^{a,c}$`` in LaTeX, ``<sup>a,c</sup>`` in Markdown.
Beyond 26 systems the letters run on as ``aa, ab, ...`` and the marks are
comma-separated everywhere. The LaTeX needs ``\usepackage{booktabs}``.
"""

from __future__ import annotations

import pandas as pd

from .._repr import escape_name, latex_escape
from .render import md_escape

__all__ = ["systems_text", "systems_latex", "systems_markdown", "comparison_note"]

_SUPER = dict(zip("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ"))

_TESTS = {
    "t": "paired t-test", "permutation": "randomisation test (sign flips)",
    "bootstrap": "paired bootstrap test (shift method)", "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test", "tukey": "randomised Tukey HSD test",
}
_CORRECTIONS = {"none": "no adjustment", "holm": "Holm's adjustment",
                "bh": "Benjamini-Hochberg adjustment"}


def comparison_note(result) -> str:
    """One sentence: measure, topics, test, adjustment, alpha, what the marks mean."""
    n_pairs = len(result.pairs)
    scope = (f"each system against {escape_name(result.baseline)}"
             if result.baseline is not None else "all pairs")
    resamples = f", {result.n_resamples} resamples" if result.n_resamples else ""
    return (f"{escape_name(result.measure)} over {result.n_topics} topics; {scope} ({n_pairs} pairs), "
            f"{_TESTS[result.test]}{resamples}, {_CORRECTIONS[result.correction]}, alpha "
            f"{result.alpha:g}. Marks: the systems a system is significantly better than.")


def _superscript(marks: str) -> str:
    letters = marks.split(",") if marks else []
    if all(len(m) == 1 for m in letters):
        return "".join(_SUPER[m] for m in letters)
    return "^" + marks


def systems_text(result, digits: int = 4) -> pd.DataFrame:
    """The systems table as shown in a terminal: ``label, system, mean`` (marked),
    ``better than``, ``worse than``."""
    s = result.systems
    return pd.DataFrame({
        "": s["label"], "system": s["system"],
        "mean": [f"{m:.{digits}f}{_superscript(b)}" for m, b in zip(s["mean"], s["better_than"])],
        "better than": s["better_than"], "worse than": s["worse_than"],
    })


def systems_latex(result, digits: int = 4) -> str:
    r"""A booktabs ``table`` of the systems' means with their marks, and a caption.

    >>> import pandas as pd
    >>> from irstab.systems.table import compare_systems
    >>> x = pd.DataFrame([[0.5, 0.6, 0.7, 0.4, 0.6], [0.1, 0.2, 0.1, 0.3, 0.2]],
    ...                  index=["bm25_x", "dense"])
    >>> print(systems_latex(compare_systems(x)).splitlines()[6])
    a & bm25\_x & \textbf{0.5600}$^{b}$ \\
    """
    s = result.systems
    width = max((len(b) for b in s["better_than"]), default=0)
    lines = [
        r"\begin{table}",
        r"\centering",
        r"\begin{tabular}{llr}",
        r"\toprule",
        " & System & " + latex_escape(result.measure) + r" \\",
        r"\midrule",
    ]
    best = s["mean"].round(digits).max()
    for label, system, mean, better in zip(s["label"], s["system"], s["mean"], s["better_than"]):
        value = f"{mean:.{digits}f}"
        if round(mean, digits) == best:
            value = rf"\textbf{{{value}}}"
        mark = f"$^{{{better}}}$" if better else ""
        pad = rf"\hphantom{{$^{{{'m' * (width - len(better))}}}$}}" if width > len(better) else ""
        lines.append(f"{label} & {latex_escape(system)} & {value}{mark}{pad}" + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              r"\caption{" + latex_escape(comparison_note(result)) + "}",
              r"\end{table}"]
    return "\n".join(lines) + "\n"


def systems_markdown(result, digits: int = 4) -> str:
    """A Markdown table of the systems' means with ``<sup>`` marks, and the note below it."""
    s = result.systems
    lines = [f"| | system | {md_escape(result.measure)} |", "|---|---|---:|"]
    for label, system, mean, better in zip(s["label"], s["system"], s["mean"], s["better_than"]):
        mark = f"<sup>{better}</sup>" if better else ""
        lines.append(f"| {label} | {md_escape(system)} | {mean:.{digits}f}{mark} |")
    return "\n".join(lines) + "\n\n" + md_escape(comparison_note(result)) + "\n"
