"""Evaluation tables in other tools' layouts: trec_eval's text and a LaTeX tabular.

Both read the long frame of :func:`irstab.evaluate` (columns ``run, measure,
topic, value``; topic ``all`` is the mean over the topic set).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._repr import escape_name, latex_escape

if TYPE_CHECKING:  # pandas is imported where a frame is read: trec_eval_text needs none
    import pandas as pd

__all__ = ["to_trec_eval", "trec_eval_text", "to_latex", "escape_controls"]

#: One run's block: (run, topics in print order, measures (frame names) in print order,
#: values[topic, measure], the run's first ``all`` value of each measure)
_Block = tuple[object, list, list, np.ndarray, dict]

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
    undefined: Mapping[str, Iterable[tuple]] | None = None,
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
    ``num_rel``). ``undefined`` names the cells where trec_eval divides 0 by 0: they
    print as it prints that NaN, ``-nan`` right-aligned in 6 (``%6.4f``; the x86-64 NaN of
    ``0.0 / 0.0`` has its sign bit set, and glibc prints it), and so does the ``all`` line
    of that run and measure, whose sum holds it.

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
    undefined : mapping, optional
        Measure (frame name) -> the ``(run, topic)`` cells trec_eval leaves undefined
        (``iprec_at_recall`` and ``11pt_avg`` of a ranking ``-J`` empties); needs the
        per-topic rows.

    Examples
    --------
    >>> import pandas as pd
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
    measures = list(order) if order is not None else list(dict.fromkeys(frame["measure"]))
    rank = {m: i for i, m in enumerate(measures)}
    return _trec_text(_run_blocks(frame, rank, measures), measures, names, summed, per_topic,
                      geometric=geometric, text=text, runid=runid, num_q=num_q,
                      summary=summary, totals=totals, undefined=undefined)


def trec_eval_text(
    systems: Sequence, topics: Sequence, measures: Sequence[str], values: np.ndarray,
    means: Mapping[str, np.ndarray], names: Mapping[str, str] | None = None,
    summed: Iterable[str] = (), per_topic: bool = True, order: Sequence[str] | None = None,
    **options,
) -> str | None:
    """:func:`to_trec_eval` of scores held as arrays, without a DataFrame.

    ``values[s, m, t]`` is run ``systems[s]``'s score of ``measures[m]`` on
    ``topics[t]`` (what :func:`irstab.evaluation.evaluate_values` returns), ``means``
    each measure's ``all`` values by run (a measure without a summary absent); the
    other parameters are :func:`to_trec_eval`'s. The text equals :func:`to_trec_eval`
    of the long frame of the same scores byte for byte; None where that frame is not
    a full grid (a run or topic named twice, topics whose strings coincide, no run or
    no topic, a NaN score), whose text the frame's per-run pivot decides: render the
    frame there.
    """
    S, M, T = values.shape
    keys = [str(t) for t in topics]
    if (S == 0 or T == 0 or M == 0 or len(set(systems)) != S or len(set(keys)) != T
            or len(set(topics)) != T or values.dtype.kind != "f" or np.isnan(values).any()):
        return None
    order = list(order) if order is not None else list(dict.fromkeys(measures))
    rank = set(order)
    where = {m: j for j, m in reversed(list(enumerate(measures)))}  # the first of a name
    if len(where) != M:
        return None
    columns = [m for m in order if m in where]
    t_order = sorted(range(T), key=lambda i: keys[i])
    shown_topics = [topics[i] for i in t_order]
    grid = values[:, [where[m] for m in columns]][:, :, t_order].transpose(0, 2, 1)
    alls = {m: v for m, v in means.items() if m in rank}

    def blocks():
        for s, run in enumerate(systems):
            yield run, shown_topics, columns, grid[s], {m: v[s] for m, v in alls.items()}

    return _trec_text(blocks(), order, names, summed, per_topic, **options)


def _trec_text(blocks: Iterable[_Block], measures: Sequence[str], names, summed, per_topic,
               *, geometric=(), text=None, runid=True, num_q=True, summary=True,
               totals=None, undefined=None) -> str:
    """The lines of :func:`to_trec_eval` from its runs' blocks."""
    names = dict(names or {})
    summed, geometric = frozenset(summed), frozenset(geometric)
    text, totals = dict(text or {}), dict(totals or {})
    undefined = {m: frozenset(cells) for m, cells in (undefined or {}).items()}
    shown = [names.get(m, m) for m in measures]
    lines: list[str] = []
    for run, topics, columns, values, means in blocks:
        values = _undefined_cells(values, topics, columns, run, undefined)
        printed = [names.get(m, m) for m in columns]
        if per_topic:
            for topic, row in zip(topics, values):
                for name, v in zip(printed, row):
                    if name not in geometric:
                        lines.append(_trec_line(name, topic, v, summed, text))
        if not summary:
            continue
        if runid:
            lines.append(f"{'runid':<22}\tall\t{escape_controls(run)}")
        n_topics = len(topics)
        if n_topics and num_q:
            lines.append(f"{'num_q':<22}\tall\t{n_topics}")
        computed = dict(zip(columns, _summaries(values, printed, summed, geometric)))
        for m, name in zip(measures, shown):
            if name in text:
                continue
            if name in totals:
                value = totals[name]
            elif n_topics and m in computed:
                value = computed[m]
            elif name in summed:
                raise ValueError(f"{name}: the all line is a sum over topics; pass the per-topic rows")
            elif m in means:
                value = means[m]
            else:
                continue
            lines.append(_trec_line(name, "all", value, summed, text))
    return "".join(line + "\n" for line in lines)


def _undefined_cells(values: np.ndarray, topics: Sequence, columns: Sequence[str], run,
                     undefined: Mapping[str, frozenset]) -> np.ndarray:
    """``values`` (one run's topics x measures) with NaN in the cells ``undefined`` names."""
    marks = [(i, j) for j, m in enumerate(columns) if m in undefined
             for i, t in enumerate(topics) if (run, t) in undefined[m]]
    if not marks:
        return values
    values = values.astype(np.float64)  # a copy: the caller's values stay as they are
    for i, j in marks:
        values[i, j] = np.nan
    return values


def _run_blocks(frame: pd.DataFrame, rank: Mapping[str, int], measures: Sequence[str]):
    """The :data:`_Block` of every run in order of appearance: its per-topic values (topics
    in string order, the measures of ``rank`` in print order) and its first ``all`` value
    of each measure.

    A frame whose per-topic rows are a full grid (every run has every topic of every
    measure, once, none NaN: what :func:`irstab.evaluate` returns) is cut into runs with
    one factorisation; any other frame is pivoted run by run (the first value of a
    repeated cell, NaN cells left out).
    """
    import pandas as pd

    run_code, runs = pd.factorize(frame["run"], sort=False)
    keep = frame["measure"].isin(rank).to_numpy()
    is_all = (frame["topic"] == "all").to_numpy()
    tops = frame[keep & ~is_all]
    grid = _grid(tops, run_code[keep & ~is_all], len(runs), measures)
    named = keep & is_all & (run_code >= 0)  # a NaN run is no group (as groupby drops it)
    alls = frame[named].assign(code=run_code[named]).drop_duplicates(["code", "measure"])
    mean_of = [dict() for _ in runs]
    for c, m, v in zip(alls["code"].to_numpy(), alls["measure"].to_numpy(),
                       alls["value"].to_numpy()):
        mean_of[c][m] = v
    if grid is not None:
        values, topics, columns = grid
        for r, run in enumerate(runs):
            yield run, list(topics), columns, values[r], mean_of[r]
        return
    for r, (run, block) in enumerate(frame.groupby("run", sort=False)):
        if not rank:  # -m num_q (or runid) alone: no value printed, the topics still counted
            topics = sorted(set(block["topic"][block["topic"] != "all"]), key=str)
            yield run, topics, [], np.zeros((len(topics), 0)), mean_of[runs.get_loc(run)]
            continue
        rows = block[block["measure"].isin(rank) & (block["topic"] != "all")]
        wide = rows.pivot_table(index="topic", columns="measure", values="value", sort=False,
                                aggfunc="first")
        wide = wide.reindex(index=sorted(wide.index, key=str),
                            columns=[m for m in measures if m in wide.columns])
        yield (run, list(wide.index), list(wide.columns), wide.to_numpy(),
               mean_of[runs.get_loc(run)])


def _grid(rows: pd.DataFrame, run_code: np.ndarray, n_runs: int, measures: Sequence[str]):
    """``(values[run, topic, measure], topics, measures)`` when ``rows`` (per-topic rows)
    hold every (run, topic, measure) of their topics and measures exactly once, float and
    not NaN; else None. Topics in string order, measures in the order of ``measures``."""
    import pandas as pd

    values = rows["value"].to_numpy()
    if (len(rows) == 0 or (run_code < 0).any() or values.dtype.kind != "f"
            or np.isnan(values).any()):
        return None
    t_code, topics = pd.factorize(rows["topic"], sort=False)
    m_code, present = pd.factorize(rows["measure"], sort=False)
    if (t_code < 0).any() or len(rows) != n_runs * len(topics) * len(present):
        return None
    keys = [str(t) for t in topics]
    if len(set(keys)) != len(keys):  # "1" and 1: the per-run pivot decides their order
        return None
    cell = (run_code * len(topics) + t_code) * len(present) + m_code
    if len(np.unique(cell)) != len(cell):
        return None
    grid = np.empty(n_runs * len(topics) * len(present))
    grid[cell] = values
    grid = grid.reshape(n_runs, len(topics), len(present))
    t_order = sorted(range(len(topics)), key=lambda i: keys[i])
    columns = [m for m in measures if m in set(present)]
    m_order = [present.get_loc(m) for m in columns]
    return grid[:, t_order][:, :, m_order], pd.Index([topics[i] for i in t_order]), columns


def _summaries(values: np.ndarray, printed: Sequence[str], summed: frozenset,
               geometric: frozenset) -> np.ndarray:
    """Each measure's ``all`` value as trec_eval forms it: a sum in topic order (cumulative
    sums are sequential), divided by the topics unless ``summed``; ``geometric``: of logs."""
    values = np.array(values, dtype=np.float64, copy=True)
    is_gm = np.array([p in geometric for p in printed], dtype=bool)
    with np.errstate(divide="ignore"):  # log 0 = -inf: a geometric mean of 0
        values[:, is_gm] = np.log(values[:, is_gm])
    n = max(values.shape[0], 1)
    total = np.cumsum(values, axis=0)[-1] if values.shape[0] else np.zeros(values.shape[1])
    is_sum = np.array([p in summed for p in printed], dtype=bool)
    out = np.where(is_sum, total, total / n)
    out[is_gm] = np.exp(out[is_gm])
    return out


def _trec_line(name: str, topic, value, summed: frozenset, text: Mapping) -> str:
    if name in text:
        shown = f"'{text[name](value)}'"
    elif name in summed:
        shown = f"{int(value)}"  # trec_eval's (long) cast
    elif np.isnan(value):
        shown = f"{'-nan':>6}"  # printf("%6.4f") of 0.0 / 0.0 on x86-64 with glibc
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
    >>> import pandas as pd
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
