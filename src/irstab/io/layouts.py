"""Evaluation tables in other tools' layouts: trec_eval's text and a LaTeX tabular.

Both read the long frame of :func:`irstab.evaluate` (columns ``run, measure,
topic, value``; topic ``all`` is the mean over the topic set).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .._repr import escape_text, latex_escape

__all__ = ["to_trec_eval", "to_latex", "escape_controls"]

def escape_controls(text) -> str:
    r"""``text`` with every control or format character written as a visible escape.

    :func:`irstab._repr.escape_text`: tabs, newlines and carriage returns become
    ``\t``, ``\n``, ``\r``, the other C0 and C1 controls and DEL ``\xNN`` (ESC is
    ``\x1b``), bidirectional and other format controls ``\u202e``: a name read from a
    Parquet column or a DataFrame can then neither forge a line of a text layout, nor
    send an escape sequence to the terminal, nor reorder what is shown. Other text is
    unchanged.

    Examples
    --------
    >>> escape_controls("run\tx\n\x1b[31mred\u202e")
    'run\\tx\\n\\x1b[31mred\\u202e'
    """
    return escape_text(text)


def to_trec_eval(
    frame: pd.DataFrame,
    names: Mapping[str, str] | None = None,
    summed: Iterable[str] = (),
    per_topic: bool = True,
    order: Sequence[str] | None = None,
) -> str:
    """trec_eval's output: ``name<TAB>topic<TAB>value`` lines, one block per run.

    As trec_eval 9 prints them (``meas_print_single.c``,
    ``meas_print_final.c``): the name left-aligned in 22 characters
    (``%-22s``), values as ``%6.4f``, counts as integers (``%ld``); with
    ``per_topic`` (trec_eval ``-q``) every topic's lines first, topics in
    string order and each topic's measures together, then ``runid all
    <run>``, ``num_q all <topics>`` and the ``all`` lines. ``all`` is the mean
    over the topics, except for the measures in ``summed`` (trec_eval's
    ``num_ret``, ``num_rel``, ``num_rel_ret``), whose ``all`` is their sum.
    Control characters in run names and topic ids are escaped
    (:func:`escape_controls`), so no name forges a line.

    Parameters
    ----------
    frame : DataFrame
        The long frame of :func:`irstab.evaluate` (``run, measure, topic,
        value``, topic ``all`` = mean) with its per-topic rows
        (``per_topic=True``); without them only the ``all`` lines are printed,
        with no ``num_q`` and no sums.
    names : mapping, optional
        Printed name of each measure (trec_eval's, e.g. ``{"nDCG@10":
        "ndcg_cut_10"}``); a measure not in it keeps its own name.
    summed : iterable of str
        Printed names whose ``all`` line is the sum over topics, as integers.
    per_topic : bool
        Print the per-topic lines (trec_eval ``-q``).
    order : sequence of str, optional
        Measures (frame names) in print order; default: the frame's order.

    Examples
    --------
    >>> f = pd.DataFrame({"run": ["r"] * 6, "measure": ["AP"] * 3 + ["NumRet"] * 3,
    ...                   "topic": ["1", "2", "all"] * 2, "value": [0.5, 0.25, 0.375, 10, 5, 7.5]})
    >>> print(to_trec_eval(f, {"AP": "map", "NumRet": "num_ret"}, {"num_ret"}), end="")
    ... # doctest: +NORMALIZE_WHITESPACE
    map                   	1	0.5000
    num_ret               	1	10
    map                   	2	0.2500
    num_ret               	2	5
    runid                 	all	r
    num_q                 	all	2
    map                   	all	0.3750
    num_ret               	all	15
    """
    names = dict(names or {})
    summed = frozenset(summed)
    measures = list(order) if order is not None else list(dict.fromkeys(frame["measure"]))
    rank = {m: i for i, m in enumerate(measures)}
    lines: list[str] = []
    for run, block in frame.groupby("run", sort=False):
        block = block[block["measure"].isin(rank)]
        is_all = (block["topic"] == "all").to_numpy()
        topics = block.loc[~is_all, "topic"]
        if per_topic:
            rows = block[~is_all].assign(_t=topics.astype(str), _m=block.loc[~is_all, "measure"].map(rank))
            for m, t, v in zip(*(rows.sort_values(["_t", "_m"], kind="stable")[c]
                                 for c in ("measure", "topic", "value")), strict=True):
                lines.append(_trec_line(names.get(m, m), t, v, summed))
        lines.append(f"{'runid':<22}\tall\t{escape_controls(run)}")
        n_topics = topics.nunique()
        if n_topics:
            lines.append(f"{'num_q':<22}\tall\t{n_topics}")
        totals = block[~is_all].groupby("measure", sort=False)["value"].sum() if n_topics else {}
        means = block[is_all].drop_duplicates("measure").set_index("measure")["value"]
        for m in sorted(means.index, key=rank.__getitem__):
            name = names.get(m, m)
            if name in summed:
                if not n_topics:
                    raise ValueError(f"{name}: the all line is a sum over topics; pass the per-topic rows")
                lines.append(_trec_line(name, "all", totals[m], summed))
            else:
                lines.append(_trec_line(name, "all", means[m], summed))
    return "".join(line + "\n" for line in lines)


def _trec_line(name: str, topic, value: float, summed: frozenset) -> str:
    shown = f"{round(value)}" if name in summed else f"{value:6.4f}"
    return f"{escape_controls(name):<22}\t{escape_controls(topic)}\t{shown}"


def to_latex(frame: pd.DataFrame, digits: int = 4) -> str:
    r"""A booktabs ``tabular`` of the means: one row per run, one column per measure.

    The best run of each measure is in bold (every run tied with it, after
    rounding to ``digits``). Run and measure names are escaped for LaTeX
    (:func:`irstab._repr.latex_escape`: specials, controls, and ``[``/``]`` braced so
    that no name is the optional argument of the ``\\`` or ``\midrule`` before it);
    the table needs ``\usepackage{booktabs}``. Per-topic rows are not shown.

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
        "Run & " + " & ".join(latex_escape(m) for m in wide.columns) + r" \\",
        r"\midrule",
    ]
    for i, run in enumerate(wide.index):
        cells = [
            (r"\textbf{%s}" if best[i, j] else "%s") % f"{values[i, j]:.{digits}f}"
            for j in range(wide.shape[1])
        ]
        out.append(latex_escape(run) + " & " + " & ".join(cells) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"
