"""Evaluation tables in other tools' layouts: trec_eval's text and a LaTeX tabular.

Both read the long frame of :func:`irstab.evaluate` (columns ``run, measure,
topic, value``; topic ``all`` is the mean over the topic set).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .._repr import escape_name, latex_escape

__all__ = ["to_trec_eval", "to_latex", "escape_controls"]

def escape_controls(text) -> str:
    r"""``text`` with every control or format character written as a visible escape.

    :func:`irstab._repr.escape_name`: backslashes doubled, tabs, newlines and carriage returns become
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
    return escape_name(text)


def to_trec_eval(
    frame: pd.DataFrame,
    names: Mapping[str, str] | None = None,
    summed: Iterable[str] = (),
    per_topic: bool = True,
    order: Sequence[str] | None = None,
    *,
    geometric: Iterable[str] = (),
    text: Mapping[str, Callable[[float], str]] | None = None,
    runid: bool = True,
    num_q: bool = True,
    summary: bool = True,
    totals: Mapping[str, float] | None = None,
) -> str:
    """trec_eval's output: ``name<TAB>topic<TAB>value`` lines, one block per run.

    As trec_eval 10.0 prints them (``meas_print_single.c``, ``meas_print_final.c``):
    the name left-aligned in 22 characters (``%-22s``), values as ``%6.4f``,
    counts as integers (``%ld``); with ``per_topic`` (trec_eval ``-q``) every
    topic's lines first, topics in string order and each topic's measures
    together, then (``summary``, trec_eval without ``-n``) ``runid all <run>``
    and ``num_q all <topics>`` when asked for, and the ``all`` lines. Control
    characters in run names and topic ids are escaped (:func:`escape_controls`),
    so no name forges a line.

    With the per-topic rows, ``all`` is computed here as trec_eval computes it: the
    values summed in topic order, divided by the number of topics; the measures in
    ``summed`` keep the sum (as integers), those in ``geometric`` take
    ``exp(sum of logs / topics)`` and print no per-topic lines (trec_eval's
    ``gm_map``), those in ``text`` print per-topic strings (``'...'``, decoded by the
    function given) and no ``all`` line. ``totals`` replaces a measure's ``all``
    value (trec_eval ``-c`` prints the qrels' count of relevant judgments as
    ``num_rel``).

    Parameters
    ----------
    frame : DataFrame
        The long frame of :func:`irstab.evaluate` (``run, measure, topic,
        value``, topic ``all`` = its summary) with its per-topic rows
        (``per_topic=True``); without them only the frame's ``all`` lines are
        printed, with no ``num_q`` and no sums.
    names : mapping, optional
        Printed name of each measure (trec_eval's, e.g. ``{"nDCG@10":
        "ndcg_cut_10"}``); a measure not in it keeps its own name.
    summed, geometric : iterable of str
        Printed names whose ``all`` line is the sum over topics (integers), the
        geometric mean.
    per_topic : bool
        Print the per-topic lines (trec_eval ``-q``).
    order : sequence of str, optional
        Measures (frame names) in print order; default: the frame's order. Only
        these are printed.
    text : mapping, optional
        Printed name -> decoder of a string measure (trec_eval's ``relstring``).
    runid, num_q, summary : bool
        Print the ``runid`` and ``num_q`` lines; print the summary block at all.
    totals : mapping, optional
        Printed name -> its ``all`` value, instead of the one computed.

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
    summed, geometric = frozenset(summed), frozenset(geometric)
    text, totals = dict(text or {}), dict(totals or {})
    measures = list(order) if order is not None else list(dict.fromkeys(frame["measure"]))
    rank = {m: i for i, m in enumerate(measures)}
    shown = [names.get(m, m) for m in measures]
    lines: list[str] = []
    for run, block in frame.groupby("run", sort=False):
        block = block[block["measure"].isin(rank)]
        is_all = (block["topic"] == "all").to_numpy()
        rows = block[~is_all]
        # topics in trec_eval's order (string order); measures in print order
        wide = rows.pivot_table(index="topic", columns="measure", values="value", sort=False,
                                aggfunc="first")
        wide = wide.reindex(index=sorted(wide.index, key=str),
                            columns=[m for m in measures if m in wide.columns])
        if per_topic:
            for topic, values in zip(wide.index, wide.to_numpy()):
                for m, v in zip(wide.columns, values):
                    name = names.get(m, m)
                    if name not in geometric:
                        lines.append(_trec_line(name, topic, v, summed, text))
        if not summary:
            continue
        if runid:
            lines.append(f"{'runid':<22}\tall\t{escape_controls(run)}")
        n_topics = len(wide.index)
        if n_topics and num_q:
            lines.append(f"{'num_q':<22}\tall\t{n_topics}")
        means = block[is_all].drop_duplicates("measure").set_index("measure")["value"]
        computed = _summaries(wide, [names.get(m, m) for m in wide.columns], summed, geometric)
        for m, name in zip(measures, shown):
            if name in text:
                continue
            if name in totals:
                value = totals[name]
            elif n_topics and m in wide.columns:
                value = computed[m]
            elif name in summed:
                raise ValueError(f"{name}: the all line is a sum over topics; pass the per-topic rows")
            elif m in means.index:
                value = means[m]
            else:
                continue
            lines.append(_trec_line(name, "all", value, summed, text))
    return "".join(line + "\n" for line in lines)


def _summaries(wide: pd.DataFrame, printed: Sequence[str], summed: frozenset,
               geometric: frozenset) -> pd.Series:
    """Each measure's ``all`` value as trec_eval forms it: a sum in topic order (cumulative
    sums are sequential), divided by the topics unless ``summed``; ``geometric``: of logs."""
    values = wide.to_numpy(dtype=np.float64, copy=True)
    is_gm = np.array([p in geometric for p in printed], dtype=bool)
    with np.errstate(divide="ignore"):  # log 0 = -inf: a geometric mean of 0
        values[:, is_gm] = np.log(values[:, is_gm])
    n = max(values.shape[0], 1)
    total = np.cumsum(values, axis=0)[-1] if values.shape[0] else np.zeros(values.shape[1])
    is_sum = np.array([p in summed for p in printed], dtype=bool)
    out = np.where(is_sum, total, total / n)
    out[is_gm] = np.exp(out[is_gm])
    return pd.Series(out, index=wide.columns)


def _trec_line(name: str, topic, value, summed: frozenset, text: Mapping) -> str:
    if name in text:
        shown = f"'{text[name](value)}'"
    elif name in summed:
        shown = f"{int(value)}"  # trec_eval's (long) cast
    else:
        shown = f"{value:6.4f}"
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
