"""``-f trec`` where trec_eval 10.0 does what irstab's own layouts do not.

Two cases, each derived from trec_eval 10.0's source (tag v10.0):

* The topic set. ``get_qrels.c`` makes one topic of every qid of the qrels, sorted by
  ``strcmp``, and ``trec_eval.c`` evaluates each of them, whatever its grades; a topic
  whose qrels hold only 0 or only -1 (pooled, not judged) has ``num_rel`` 0 and counts in
  ``num_q`` and every mean. irstab's topic set (DESIGN.md) leaves such topics out, with a
  warning; ``-f trec`` evaluates them, as trec_eval does, and keeps the warning.
* 0 / 0. ``m_iprec_at_recall.c`` and ``m_11pt_avg.c`` start from ``precis = num_rel_ret /
  num_ret`` and give it to every recall level whose count of relevant documents,
  ``lround(level * num_rel)``, is not above ``num_rel_ret``; a level needing more keeps the
  0 it was reset to. Under ``-J`` (``form_res_rels.c``: ``num_ret`` counts the judged
  documents kept) a ranking of unjudged documents only has ``num_ret = 0``, so
  ``precis`` is NaN at every level needing 0 relevant documents, and ``11pt_avg`` sums
  them; a topic the run lacks is, under ``-c``, one unjudged document (``trec_eval.c``'s
  ``bogus_ranking``): the same. The summary sums the topics' values: NaN. trec_eval prints
  it with ``printf("%6.4f")``: ``  -nan`` (x86-64's 0.0 / 0.0 has its sign bit set; glibc
  prints the sign).

The expected lines below are worked out from that logic (a Python port of the two
functions for the generated cases); with a trec_eval 10 binary (``IRSTAB_TREC_EVAL`` or
``trec_eval`` on PATH) the generated cases are also compared with its output, byte for byte.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab
import irstab.cli

NAN = "  -nan"  # printf("%6.4f", 0.0 / 0.0) on x86-64 with glibc


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def rows(out: str) -> list[tuple[str, str, str]]:
    return [tuple(part.strip() if i < 2 else part for i, part in enumerate(line.split("\t")))
            for line in out.splitlines()]


def test_topics_judged_only_minus_one_or_zero_are_evaluated_as_trec_eval_does(tmp_path, capsys):
    # topic 1: a relevant, at rank 1 -> map 1, P_5 = 1/5; topic 2: c, d judged -1 (pooled,
    # not judged): num_rel 0 (form_res_rels.c counts grades >= 0 only), map 0 (m_map.c
    # divides by num_rel only when it is not 0), P_5 0; topic 3: e judged 0: the same.
    # num_q = 3; the means divide by 3: map 1/3, P_5 0.2/3 = 0.0667; num_rel sums: 1.
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c -1\n2 0 d -1\n3 0 e 0\n")
    r.write_text("1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n2 Q0 c 1 3 r\n2 Q0 y 2 2 r\n3 Q0 e 1 3 r\n")
    code, out, err = cli(capsys, "evaluate", q, r, "-f", "trec", "-q",
                         "-m", "num_q", "-m", "num_rel", "-m", "map", "-m", "P.5")
    assert code == 0, err
    assert out == "".join(f"{name:<22}\t{topic}\t{value}\n" for name, topic, value in [
        ("num_rel", "1", "1"), ("map", "1", "1.0000"), ("P_5", "1", "0.2000"),
        ("num_rel", "2", "0"), ("map", "2", "0.0000"), ("P_5", "2", "0.0000"),
        ("num_rel", "3", "0"), ("map", "3", "0.0000"), ("P_5", "3", "0.0000"),
        ("num_q", "all", "3"), ("num_rel", "all", "1"), ("map", "all", "0.3333"),
        ("P_5", "all", "0.0667")])
    # the warning names the topics (and says what -f trec does with them), once
    assert err.count("warning") == 1, err
    assert "2 qrels topic(s) without a relevant document are evaluated" in err
    assert "['2', '3']" in err
    # irstab's own layouts keep their topic set: topic 1 only (map 1), as before
    code, out, err = cli(capsys, "evaluate", q, r, "-m", "AP", "-f", "csv")
    assert code == 0 and "are not evaluated: ['2', '3']" in err
    assert out.splitlines()[1:] == ["r,AP,all,1.0"]


def test_a_ranking_minus_j_empties_prints_trec_eval_nan(tmp_path, capsys):
    # -c -J. topic 1 (R = 4): x, y unjudged -> num_ret 0; levels needing lround(p 4) = 0
    # relevant (p = 0, 0.1) are -nan, the others keep 0; 11pt_avg sums a NaN: -nan.
    # topic 2 (R = 1): f at rank 1 -> 1 at every level. topic 3 (R = 1): the run lacks it,
    # -c ranks one unjudged document, -J drops it: num_ret 0; lround(p) = 0 for p < 0.5
    # (lround(0.5) = 1: half away from zero) -> -nan at 0 .. 0.4. The means: -nan where a
    # topic is -nan, else (0 + 1 + 0) / 3.
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 d 1\n1 0 e 0\n2 0 f 1\n3 0 g 1\n")
    r.write_text("1 Q0 x 1 2 r\n1 Q0 y 2 1 r\n2 Q0 f 1 1 r\n")
    code, out, err = cli(capsys, "evaluate", q, r, "-f", "trec", "-q", "-c", "-J",
                         "-m", "iprec_at_recall", "-m", "11pt_avg")
    assert code == 0, err
    levels = [f"{p / 10:.2f}" for p in range(11)]
    want = {
        "1": [NAN, NAN] + ["0.0000"] * 9 + [NAN],
        "2": ["1.0000"] * 12,
        "3": [NAN] * 5 + ["0.0000"] * 6 + [NAN],
        "all": [NAN] * 5 + ["0.3333"] * 6 + [NAN],
    }
    names = [f"iprec_at_recall_{x}" for x in levels] + ["11pt_avg"]
    assert out == "".join(f"{n:<22}\t{t}\t{v}\n" for t, vs in want.items()
                          for n, v in zip(names, vs))
    assert "keep no document, on topic(s) ['1', '3']" in err and "-f trec prints its -nan" in err
    # the other measures are numbers there (map 0: no relevant retrieved), and irstab's own
    # layouts give 0 (never a NaN), as before
    code, out, err = cli(capsys, "evaluate", q, r, "-f", "trec", "-c", "-J", "-m", "map")
    assert code == 0 and out == f"{'map':<22}\tall\t0.3333\n"
    code, out, err = cli(capsys, "evaluate", q, r, "-c", "-J", "-m", "IPrecAvg", "-f", "csv")
    assert code == 0 and "nan" not in out.lower() and "keep no document" in err


# ----------------------------------------------------------- generated cases, ported logic


def _lround(x: float) -> int:
    return int(math.floor(x + 0.5))  # C's lround for x >= 0: half away from zero


def _iprec(rels: list[int], num_rel: int, level: int, percents: list[float]) -> list[float]:
    """m_iprec_at_recall.c's values for one topic: ``rels`` the relevance values of the
    ranked documents kept (form_res_rels.c), ``num_rel`` the relevant judgments."""
    cutoffs = [_lround(p * num_rel) for p in percents]
    num_ret = len(rels)
    num_rel_ret = sum(g >= level for g in rels)
    values = [0.0] * len(percents)
    cut = len(percents) - 1
    while cut >= 0 and cutoffs[cut] > num_rel_ret:
        cut -= 1
    precis = num_rel_ret / num_ret if num_ret else math.nan  # 0 / 0
    best, so_far = precis, num_rel_ret
    for i in range(num_ret, 0, -1):
        if so_far <= 0:
            break
        precis = so_far / i
        if best < precis:  # C compares: False when best is NaN
            best = precis
        if rels[i - 1] >= level:
            while cut >= 0 and so_far == cutoffs[cut]:
                values[cut] = best
                cut -= 1
            so_far -= 1
    while cut >= 0:
        values[cut] = best
        cut -= 1
    return values


def _shown(v: float) -> str:
    return NAN if math.isnan(v) else f"{v:6.4f}"


def _expected(qrels: dict, run: dict, judged_only: bool, level: int, percents) -> str:
    """``-q -c`` lines of iprec_at_recall (at ``percents``) and 11pt_avg, as trec_eval 10."""
    lines, sums, topics = [], [0.0] * (len(percents) + 1), sorted(qrels)
    for t in topics:
        judged = qrels[t]
        # form_res_rels.c: score descending, ties by docno descending; -c ranks one made-up
        # document for a topic the run lacks (trec_eval.c's bogus_ranking)
        ranked = sorted(run.get(t, {"ceci_nest_pas_un_docno": 1.0}).items(),
                        key=lambda d: (d[1], d[0]), reverse=True)
        rels = [judged.get(d, -1) for d, _ in ranked]  # -1: not in the pool
        if judged_only:
            rels = [g for g in rels if g >= 0]
        num_rel = sum(g >= level for g in judged.values())
        at = _iprec(rels, num_rel, level, list(percents))
        # m_11pt_avg.c: the same loop, summing each level's value from the highest level down
        # (a level never reached adds nothing: its 0.0 changes no double)
        avg = 0.0
        for v in reversed(at):
            avg += v
        avg /= len(percents)
        values = at + [avg]
        for k, v in enumerate(values):
            sums[k] += v
        lines += [(t, v) for v in values]
    # 11pt_avg with parameters prints them as given (te_print_single_meas_s_double_p)
    names = [f"iprec_at_recall_{p:.2f}" for p in percents] + [
        "11pt_avg_" + ",".join(map(str, percents))]
    out = [f"{names[k % len(names)]:<22}\t{t}\t{_shown(v)}" for k, (t, v) in enumerate(lines)]
    out += [f"{n:<22}\tall\t{_shown(s / len(topics))}" for n, s in zip(names, sums)]
    return "".join(line + "\n" for line in out)


def _trec_eval_10() -> str | None:
    binary = os.environ.get("IRSTAB_TREC_EVAL") or shutil.which("trec_eval")
    if not binary or not Path(binary).exists():
        return None
    version = subprocess.run([binary, "-v"], capture_output=True, text=True, timeout=60)
    return binary if "version 10." in version.stdout + version.stderr else None


GRADES = {"relevant": [1, 2, 0, -1], "zero": [0], "minus": [-1], "mixed": [-1, 0]}


@st.composite
def collections(draw):
    n_topics = draw(st.integers(1, 4))
    kinds = [draw(st.sampled_from(list(GRADES))) for _ in range(n_topics)]
    qrels, run = {}, {}
    for t, kind in enumerate(kinds, start=1):
        docs = draw(st.integers(1, 5))
        qrels[str(t)] = {f"d{t}{i}": draw(st.sampled_from(GRADES[kind])) for i in range(docs)}
        pool = list(qrels[str(t)]) + [f"u{t}{i}" for i in range(3)]
        got = draw(st.lists(st.sampled_from(pool), unique=True, max_size=6))
        if got:
            run[str(t)] = {d: float(draw(st.integers(0, 3))) for d in got}
    if not run:  # a run holds one line at least
        run["1"] = {"u10": 1.0}
    return qrels, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=collections(), judged_only=st.booleans(), level=st.sampled_from([1, 2]))
def test_generated_topic_sets_and_emptied_rankings_print_as_trec_eval(case, judged_only, level,
                                                                      capsys):
    qrels, run = case
    percents = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0)
    first = min(qrels)  # trec_eval stops when its first topic holds only negative grades
    stops = max(qrels[first].values()) < 0
    with tempfile.TemporaryDirectory() as tmp:
        q, r = Path(tmp) / "qrels", Path(tmp) / "run"
        q.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items()
                             for d, g in docs.items()))
        r.write_text("".join(f"{t} Q0 {d} {i + 1} {s} r\n" for t, docs in run.items()
                             for i, (d, s) in enumerate(docs.items())))
        options = ["-q", "-c", "-l", str(level)] + (["-J"] if judged_only else [])
        measures = ["-m", "iprec_at_recall." + ",".join(map(str, percents)),
                    "-m", "11pt_avg." + ",".join(map(str, percents))]
        code, out, err = cli(capsys, "evaluate", q, r, "-f", "trec", *options, *measures)
        assert code == 0, err
        assert out == _expected(qrels, run, judged_only, level, percents)
        assert ("trec_eval 10.0 stops on these qrels" in err) == stops
        binary = _trec_eval_10()
        if binary is None:
            return
        theirs = subprocess.run([binary, *options, "-m", "all_trec", str(q), str(r)],
                                capture_output=True, text=True, timeout=60)
        code, out, err = cli(capsys, "evaluate", q, r, "-f", "trec", *options, "-m", "all_trec")
        if stops:  # form_res_rels.c: no grade counters yet, none asked for: "Can't calculate"
            assert theirs.returncode == 4 and "Can't calculate measure" in theirs.stderr
        else:
            assert theirs.returncode == 0 and out == theirs.stdout
