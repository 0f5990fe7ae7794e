"""Evaluation tables in other tools' layouts: trec_eval's text and a LaTeX tabular.

Both read the long frame of :func:`irstab.evaluate` (columns ``run, measure,
topic, value``; topic ``all`` is the mean over the topic set).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["to_trec_eval", "to_latex"]

_LATEX_SPECIAL = re.compile(r"([&%$#_{}~^\\])")
_LATEX_REPLACE = {"~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def to_trec_eval(frame: pd.DataFrame) -> str:
    """trec_eval's ``-q`` layout: ``measure<TAB>topic<TAB>value``, one block per run.

    As ``trec_eval -q`` prints it: the measure name left-aligned in 22
    characters, values with 4 decimals, per-topic lines topic by topic (each
    topic's measures together), then ``runid  all  <run>`` and the ``all``
    lines. Measures keep irstab's canonical names (``nDCG@10``, not
    ``ndcg_cut_10``), and ``all`` is the mean for every measure, also for the
    counts (trec_eval sums ``num_ret``, ``num_rel`` and ``num_rel_ret``).

    Examples
    --------
    >>> f = pd.DataFrame({"run": ["r"] * 3, "measure": ["AP"] * 3,
    ...                   "topic": ["1", "2", "all"], "value": [0.5, 0.25, 0.375]})
    >>> print(to_trec_eval(f), end="")  # doctest: +NORMALIZE_WHITESPACE
    AP                    	1	0.5000
    AP                    	2	0.2500
    runid                 	all	r
    AP                    	all	0.3750
    """
    lines: list[str] = []
    for run, block in frame.groupby("run", sort=False):
        is_all = (block["topic"] == "all").to_numpy()
        per_topic = block[~is_all]
        # topic-major order as trec_eval -q: every measure of a topic, then the next topic
        topic_order = pd.Categorical(per_topic["topic"], categories=list(dict.fromkeys(per_topic["topic"])))
        per_topic = per_topic.assign(_t=topic_order).sort_values("_t", kind="stable")
        lines += _lines(per_topic)
        lines.append(f"{'runid':<22}\tall\t{run}")
        lines += _lines(block[is_all])
    return "".join(line + "\n" for line in lines)


def _lines(block: pd.DataFrame) -> list[str]:
    return [
        f"{m:<22}\t{t}\t{v:.4f}"
        for m, t, v in zip(block["measure"], block["topic"], block["value"], strict=True)
    ]


def _escape(text: str) -> str:
    return _LATEX_SPECIAL.sub(lambda m: _LATEX_REPLACE.get(m.group(1), "\\" + m.group(1)), str(text))


def to_latex(frame: pd.DataFrame, digits: int = 4) -> str:
    r"""A booktabs ``tabular`` of the means: one row per run, one column per measure.

    The best run of each measure is in bold (every run tied with it, after
    rounding to ``digits``). Run and measure names are escaped for LaTeX; the
    table needs ``\usepackage{booktabs}``. Per-topic rows are not shown.

    Examples
    --------
    >>> f = pd.DataFrame({"run": ["a_1", "b"], "measure": ["AP", "AP"],
    ...                   "topic": ["all", "all"], "value": [0.5, 0.25]})
    >>> print(to_latex(f))  # doctest: +NORMALIZE_WHITESPACE
    \begin{tabular}{lr}
    \toprule
    Run & AP \\
    \midrule
    a\_1 & \textbf{0.5000} \\
    b & 0.2500 \\
    \bottomrule
    \end{tabular}
    """
    means = frame[frame["topic"] == "all"]
    wide = means.pivot(index="run", columns="measure", values="value")
    wide = wide.loc[list(dict.fromkeys(means["run"])), list(dict.fromkeys(means["measure"]))]
    values = np.round(wide.to_numpy(dtype=float), digits)
    best = values == np.nanmax(values, axis=0, keepdims=True)
    out = [
        r"\begin{tabular}{l" + "r" * wide.shape[1] + "}",
        r"\toprule",
        "Run & " + " & ".join(_escape(m) for m in wide.columns) + r" \\",
        r"\midrule",
    ]
    for i, run in enumerate(wide.index):
        cells = [
            (r"\textbf{%s}" if best[i, j] else "%s") % f"{values[i, j]:.{digits}f}"
            for j in range(wide.shape[1])
        ]
        out.append(_escape(run) + " & " + " & ".join(cells) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"
