"""Which axis of a score matrix holds the systems: :func:`orient`."""

from __future__ import annotations

import pandas as pd

__all__ = ["SYSTEM_WORDS", "TOPIC_WORDS", "orient"]

#: Axis names (header words, any case) that say an axis holds systems, or topics.
SYSTEM_WORDS = frozenset({"system", "systems", "run", "runs", "runid", "run_id", "system_id", "tag"})
TOPIC_WORDS = frozenset({"topic", "topics", "qid", "query", "queries", "query_id", "topic_id", "qno"})


def _integer_like(labels) -> bool:
    return len(labels) > 0 and all(str(v).strip().lstrip("+-").isdigit() for v in labels)


def orient(frame: pd.DataFrame, systems: str = "auto", known_systems=None,
           source: str = "scores", guess_rows_quietly: bool = False) -> pd.DataFrame:
    """``frame`` as systems x topics: index ``system``, columns ``topic``.

    Parameters
    ----------
    frame : DataFrame
        A score matrix in either orientation (gt4ireval and many papers put
        topics in rows).
    systems : {"auto", "rows", "columns"}
        Where the systems are. ``auto`` decides, in this order, by the axis
        names (a wide file's first header cell): ``run``/``system`` (and
        :data:`SYSTEM_WORDS`) name the systems' axis, ``topic``/``qid``/
        ``query`` (:data:`TOPIC_WORDS`) the topics'; then by
        ``known_systems`` (the run names of a collection): the axis holding
        more of them; then it guesses, with an
        :class:`~irstab.errors.IRStabWarning` that says so: the columns when
        every row label is an integer (a topic id) and some column label is
        not, else the rows.
    known_systems : iterable of str, optional
        Run names that identify the systems' axis.
    source : str
        What the warning names (a file name).
    guess_rows_quietly : bool
        Take the rows as systems without a warning when nothing says
        otherwise (a DataFrame in the API, systems x topics by convention);
        the integer-label guess still warns.

    Examples
    --------
    >>> f = pd.DataFrame([[0.5, 0.25]], index=pd.Index(["101"], name="qid"), columns=["bm25", "dph"])
    >>> orient(f).index.tolist(), orient(f).columns.tolist()
    (['bm25', 'dph'], ['101'])
    """
    import warnings

    from ..errors import IRStabError, IRStabWarning

    if systems not in ("auto", "rows", "columns"):
        raise IRStabError(f"systems must be auto, rows or columns, got {systems!r}")
    row_name = str(frame.index.name or "").strip().lower()
    col_name = str(frame.columns.name or "").strip().lower()
    transpose = systems == "columns"
    if systems == "auto":
        known = set(map(str, known_systems or ()))
        in_rows = sum(str(v) in known for v in frame.index)
        in_cols = sum(str(v) in known for v in frame.columns)
        if row_name in TOPIC_WORDS or col_name in SYSTEM_WORDS:
            transpose = True
        elif row_name in SYSTEM_WORDS or col_name in TOPIC_WORDS:
            transpose = False
        elif in_rows != in_cols:
            transpose = in_cols > in_rows
        else:
            transpose = _integer_like(frame.index) and not _integer_like(frame.columns)
            if guess_rows_quietly and not transpose:
                return _named(frame)
            axis = "columns" if transpose else "rows"
            why = ("every row label is an integer, like a topic id" if transpose else
                   "the header does not say (its first cell is not run/system or topic/qid/query)")
            warnings.warn(
                f"{source}: took the systems to be the {axis} ({frame.shape[1 if transpose else 0]} "
                f"systems x {frame.shape[0 if transpose else 1]} topics), a guess: {why}; say "
                "where they are with --systems rows|columns (systems= in the API)",
                IRStabWarning, stacklevel=3,
            )
    return _named(frame.T if transpose else frame)


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out.index = pd.Index([str(v) for v in out.index], name="system")
    out.columns = pd.Index([str(v) for v in out.columns], name="topic")
    return out
