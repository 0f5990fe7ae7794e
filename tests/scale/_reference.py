"""The all-runs-at-once Collection build that the streaming build replaced.

Kept as the oracle of the equality tests: it stacks every run, factorises all
document ids together and sorts once, an independent route to the same arrays.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd

from irstab.errors import IRStabError, IRStabWarning


def _sort_topics(topics: Iterable[str]) -> list[str]:
    topics = list(topics)
    if all(t.lstrip("-").isdigit() for t in topics):
        return sorted(topics, key=int)
    return sorted(topics)


def _break_ties_by_docid(
    perm: np.ndarray, group: np.ndarray, score: np.ndarray, doc: np.ndarray
) -> np.ndarray:
    """Reorder blocks of equal (group, score) in ``perm`` by docid code descending."""
    g, s = group[perm], score[perm]
    tie = (g[1:] == g[:-1]) & (s[1:] == s[:-1])
    if not tie.any():
        return perm
    in_tie = np.zeros(len(perm), dtype=bool)
    in_tie[1:] |= tie
    in_tie[:-1] |= tie
    block = np.cumsum(np.r_[True, ~tie])
    idx = np.flatnonzero(in_tie)
    sub = perm[idx]
    perm = perm.copy()
    perm[idx] = sub[np.lexsort((-doc[sub], block[idx]))]
    return perm


def reference_arrays(qrels, runs, depth=1000, order="score"):
    """``dict`` of the Collection arrays built in one vectorised pass over all runs."""
    order = str(getattr(order, "value", order))
    runs = list(runs)
    names = [r.name for r in runs]
    runs = list(runs)
    if not runs:
        raise IRStabError("no runs given")
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise IRStabError(f"run names must be unique, got {names}")

    q = qrels.frame
    qgrade = q["grade"].to_numpy(dtype=np.int64)
    relevant_topics = pd.unique(q["topic"].to_numpy()[qgrade > 0])
    topics = _sort_topics(relevant_topics)
    if not topics:
        raise IRStabError(f"{qrels.path}: no topic has a relevant document (grade > 0)")
    dropped = sorted(set(q["topic"].unique()) - set(topics))
    if dropped:
        warnings.warn(
            f"{len(dropped)} qrels topic(s) without a relevant document are not "
            f"evaluated: {dropped[:10]}{' ...' if len(dropped) > 10 else ''}",
            IRStabWarning,
            stacklevel=2,
        )
    topic_index = pd.Index(topics)
    T, S = len(topics), len(runs)

    # All runs stacked. Each (run, topic) group gets a code in file order, so the
    # sort key below is already nearly sorted for the usual grouped run files.
    local = [pd.factorize(r.frame["topic"]) for r in runs]
    n_groups = np.array([len(u) for _, u in local])
    offsets = np.r_[0, np.cumsum(n_groups)[:-1]]
    gcode = np.concatenate([c.astype(np.int64) + o for (c, _), o in zip(local, offsets)])
    gtopic = pd.Index(np.concatenate([np.asarray(u, dtype=object) for _, u in local]))
    g_t_idx = topic_index.get_indexer(gtopic)
    g_run_idx = np.repeat(np.arange(S), n_groups)
    run_doc = pd.concat([r.frame["docid"] for r in runs], ignore_index=True)
    qtopic_known = set(q["topic"].unique())
    only_in_runs = sorted(set(gtopic) - qtopic_known)
    if only_in_runs:
        warnings.warn(
            f"{len(only_in_runs)} topic(s) appear in runs but not in the qrels and are "
            f"dropped: {only_in_runs[:10]}{' ...' if len(only_in_runs) > 10 else ''}",
            IRStabWarning,
            stacklevel=2,
        )
    keep = g_t_idx[gcode] >= 0
    qcode, qvalues = pd.factorize(q["topic"])
    qkeep = topic_index.get_indexer(qvalues)[qcode]
    # One docid factorisation for qrels and runs, sorted: codes order like the strings.
    all_docs = pd.concat([run_doc[keep], q["docid"][qkeep >= 0]], ignore_index=True)
    codes, uniques = pd.factorize(all_docs, sort=True)
    n_keep = int(keep.sum())
    doc_code = codes[:n_keep].astype(np.int64)
    gcode = gcode[keep]
    group = gcode.astype(np.float64)

    # Stable sorts on a complex key sort by (real, imag) lexicographically and
    # run in near-linear time on files that are already grouped and sorted.
    if order in ("score", "score32"):
        score = pd.concat([r.frame["score"] for r in runs], ignore_index=True).to_numpy()[keep]
        if order == "score32":  # trec_eval 9 holds scores as C floats: equal as float32 tie
            with np.errstate(over="ignore"):
                score = score.astype(np.float32).astype(np.float64)
        # lexsort, not the complex key: -1j * -inf has a NaN real part (a score beyond
        # float32's range) and would move that row to the end of the whole stack.
        perm = np.lexsort((-score, group))
        perm = _break_ties_by_docid(perm, group, score, doc_code)
    elif order == "rank":
        rank = pd.concat([r.frame["rank"] for r in runs], ignore_index=True).to_numpy()[keep]
        perm = np.argsort(group + 1j * rank, kind="stable")
    else:
        perm = np.argsort(group, kind="stable")
    gcode, doc_code = gcode[perm], doc_code[perm]
    run_idx, t_idx = g_run_idx[gcode], g_t_idx[gcode]

    # Position of each row within its (run, topic) group.
    group = gcode
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    pos = np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))
    run_length = np.zeros((S, T), dtype=np.int64)
    counts = np.bincount(group, minlength=len(gtopic))
    valid = g_t_idx >= 0
    run_length[g_run_idx[valid], g_t_idx[valid]] = np.minimum(counts[valid], depth)
    D = int(min(depth, run_length.max(initial=0))) or 1
    within = pos < depth
    run_idx, t_idx, doc_code, pos = run_idx[within], t_idx[within], doc_code[within], pos[within]

    # Grade lookup: sorted (topic, doc) keys of the qrels, binary search.
    qt = qkeep[qkeep >= 0].astype(np.int64)
    qdoc = codes[n_keep:].astype(np.int64)
    qg = qgrade[qkeep >= 0]
    n_docs = len(uniques) + 1
    qkey = qt * n_docs + qdoc
    qorder = np.argsort(qkey)
    qkey, qg_sorted = qkey[qorder], qg[qorder]
    maybe = np.zeros(n_docs, dtype=bool)
    maybe[qdoc] = True
    cand = np.flatnonzero(maybe[doc_code])  # only documents judged for some topic
    key = t_idx[cand] * n_docs + doc_code[cand]
    at = np.minimum(np.searchsorted(qkey, key), len(qkey) - 1)
    hit = qkey[at] == key
    found = np.zeros(len(doc_code), dtype=bool)
    found[cand[hit]] = True
    grade = np.zeros(len(doc_code), dtype=np.int64)
    grade[cand[hit]] = qg_sorted[at[hit]]

    grades = np.zeros((S, T, D), dtype=np.int8)
    judged = np.zeros((S, T, D), dtype=bool)
    grades[run_idx, t_idx, pos] = grade
    judged[run_idx, t_idx, pos] = found

    max_grade = max(int(qgrade.max()), 1)
    G = max_grade + 1
    grade_counts = np.zeros((T, G), dtype=np.int64)
    np.add.at(grade_counts, (qt[qg >= 0], qg[qg >= 0]), 1)  # negative grades: not counted
    n_rel = grade_counts[:, 1:].sum(axis=1)
    J = int(n_rel.max())
    # ideal[t, j]: positive grades sorted decreasing (from the per-grade counts).
    ideal = np.zeros((T, J), dtype=np.int8)
    j = np.arange(J)
    upper = np.cumsum(grade_counts[:, ::-1][:, :-1], axis=1)  # counts of grades >= g, g = max..1
    level = (j[None, :, None] < upper[:, None, :]).argmax(axis=2)  # first grade band covering j
    ideal[:] = np.where(j[None, :] < n_rel[:, None], max_grade - level, 0)

    return dict(systems=tuple(names), topics=tuple(topics), grades=grades, judged=judged,
                run_length=run_length, ideal=ideal, grade_counts=grade_counts,
                max_grade=max_grade)
