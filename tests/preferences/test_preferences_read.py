"""Preference files: agreement rates from real files equal a brute-force count; every malformed
row gets an error naming the file, the line and the column."""

from __future__ import annotations

import csv
import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irstab.errors import InputFormatError, IRStabWarning
from irstab.preferences.agreement import preference_agreement
from irstab.preferences.comparisons import agreement_counts, agreement_rate
from irstab.preferences.read import read_comparisons, read_preference_rows, read_preferences

QRELS = {"1": {"d1": 2, "d2": 1, "d3": 0, "d4": 3}, "2": {"e1": 1, "e2": 3, "e3": 2}}


def _write_qrels(path: Path) -> Path:
    path.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in QRELS.items()
                            for d, g in docs.items()))
    return path


def _dcg(topic, docs, k=5):
    """nDCG's numerator as trec_eval: grade / log2(rank + 1) over the first k ranks."""
    return sum(QRELS[topic].get(d, 0) / math.log2(r + 2) for r, d in enumerate(docs[:k]))


def _brute(rows):
    """(agree, disagree) counted row by row with the naive DCG (both sides share the ideal, so
    the sign of the nDCG difference is that of the DCG difference)."""
    agree = disagree = 0
    for topic, a, b, pref in rows:
        d = _dcg(topic, a) - _dcg(topic, b)
        if pref == 0 or abs(d) <= 1e-12:
            continue
        agree += (d > 0) == (pref > 0)
        disagree += (d > 0) != (pref > 0)
    return agree, disagree


def test_hand_built_file(tmp_path):
    qrels = _write_qrels(tmp_path / "qrels")
    prefs = tmp_path / "prefs.csv"
    prefs.write_text(
        "topic,ranking_a,ranking_b,preferred,judge\n"
        "1,d1 d2 d3,d3 d2 d1,A,u1\n"        # DCG 2+0.63 vs 0+0.63+1: measure A, judge A: agree
        "1,d3|d9,d1,A,u2\n"                  # 0 vs 2: measure B, judge A: disagree
        '2,"[""e1"",""e2""]",e2 e1,B,u1\n'   # 1+1.89 vs 3+0.63: measure B, judge B: agree
        "2,e1,e1,none,u2\n"                  # no preference: left out
        "2,e3 e1,e1 e3,B,u3\n"               # 2+0.63 vs 1+1.26: measure A, judge B: disagree
        "1,d2,d2,A,u1\n")                    # a tie of the measure: left out
    scored = read_preferences(prefs, qrels, measures=["nDCG@5"])
    c = agreement_counts(scored.scores[:, :, 0] - scored.scores[:, :, 1], scored.preferred)
    assert (int(c["agree"][0]), int(c["disagree"][0]), int(c["tie"][0]),
            int(c["no_preference"][0])) == (2, 2, 1, 1)
    with pytest.warns(IRStabWarning, match="no logistic curve"):  # 6 rows: b3 cannot be fitted
        result = preference_agreement(scored, n_boot=200, bias_boot=False)
    assert result.rate[0] == 0.5
    assert result.resampled == "topics and judges" and result.n_judges == 3
    assert result.rate_low[0] <= 0.5 <= result.rate_high[0]


def test_rankings_from_runs_in_trec_order(tmp_path):
    qrels = _write_qrels(tmp_path / "qrels")
    (tmp_path / "r1").write_text("1 Q0 d3 1 1.0 r1\n1 Q0 d1 2 3.0 r1\n2 Q0 e1 1 1 r1\n")
    (tmp_path / "r2").write_text("1 Q0 d2 1 5 r2\n1 Q0 d4 2 5 r2\n")
    prefs = tmp_path / "p.jsonl"
    prefs.write_text(json.dumps({"topic": "1", "run_a": "r1", "run_b": "r2", "preferred": "A"})
                     + "\n" + json.dumps({"topic": "2", "run_a": "r2", "run_b": "r1",
                                          "preferred": "b"}) + "\n")
    with pytest.warns(IRStabWarning, match=r"1 run\(s\) .*: r2 \(100% of ranks tied\)"):
        c = read_comparisons(prefs, qrels, [tmp_path / "r1", tmp_path / "r2"])
    # r1 on topic 1 by score: d1 (3.0), d3 (1.0); r2 ties at 5: docid descending, d4 then d2
    assert c.grades_a[0, :2].tolist() == [2, 0] and c.grades_b[0, :2].tolist() == [3, 1]
    # r2 lacks topic 2: an empty side (-1 everywhere)
    assert (c.grades_a[1] == -1).all() and c.grades_b[1, 0] == 1
    assert c.preferred.tolist() == [1, -1] and c.depth == 2
    # --order rank (the rank column) and file (line order): d3, d1 and d2, d4
    for order in ("rank", "file"):
        c = read_comparisons(prefs, qrels, [tmp_path / "r1", tmp_path / "r2"], order=order)
        assert c.grades_a[0, :2].tolist() == [0, 2] and c.grades_b[0, :2].tolist() == [1, 3]


_DOCS = {"1": ["d1", "d2", "d3", "d4", "d9"], "2": ["e1", "e2", "e3", "e8"]}


@st.composite
def _rows(draw):
    rows = []
    for _ in range(draw(st.integers(1, 15))):
        topic = draw(st.sampled_from(["1", "2"]))
        side = st.lists(st.sampled_from(_DOCS[topic]), min_size=1, max_size=4, unique=True)
        rows.append((topic, draw(side), draw(side), draw(st.sampled_from([1, -1, 0]))))
    return rows


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rows(), st.sampled_from([" ", "|", ";", "json"]), st.sampled_from(["csv", "tsv", "jsonl"]))
def test_agreement_of_any_file_equals_a_brute_force_count(rows, sep, layout):
    word = {1: "A", -1: "B", 0: "none"}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        qrels = _write_qrels(tmp / "qrels")
        path = tmp / f"p.{layout}"

        def cell(docs):
            return json.dumps(docs) if sep == "json" else sep.join(docs)

        if layout == "jsonl":
            path.write_text("".join(json.dumps({"topic": t, "ranking_a": a if sep == "json"
                                                else cell(a), "ranking_b": cell(b),
                                                "preferred": word[p]}) + "\n"
                                    for t, a, b, p in rows))
        else:
            with open(path, "w", newline="") as fh:
                w = csv.writer(fh, delimiter="\t" if layout == "tsv" else ",")
                w.writerow(["topic", "ranking_a", "ranking_b", "preferred"])
                for t, a, b, p in rows:
                    w.writerow([t, cell(a), cell(b), word[p]])
        scored = read_preferences(path, qrels, measures=["nDCG@5"])
    diff = scored.scores[:, 0, 0] - scored.scores[:, 0, 1]
    c = agreement_counts(diff, scored.preferred)
    assert (int(c["agree"]), int(c["disagree"])) == _brute(rows)
    agree, disagree = _brute(rows)
    rate = agreement_rate(diff, scored.preferred)
    if agree + disagree:
        assert rate == agree / (agree + disagree)
    else:
        assert np.isnan(rate)


BAD_ROWS = [
    ("topic,ranking_a,ranking_b,preferred\n1,d1,d2,A\n1,d1,d2,maybe\n", 3, "column 4 (preferred)"),
    ("topic,ranking_a,ranking_b,preferred\n1,d1,d2,A,extra\n", 2, "expected 4 fields"),
    ("topic,ranking_a,ranking_b,preferred\n1,d1 d1,d2,A\n", 2, "column 2 (ranking_a)"),
    ("topic,ranking_a,ranking_b,preferred\n1,d1,,A\n", 2, "column 3 (ranking_b)"),
    ("topic,ranking_a,ranking_b,preferred\n,d1,d2,A\n", 2, "column 1 (topic)"),
    ('topic,ranking_a,ranking_b,preferred\n1,"[""d1"",",d2,A\n', 2, "column 2 (ranking_a)"),
    ("topic,a:m,b:m,preferred\n1,0.5,x,A\n", 2, "column 3 (b:m)"),
    ("topic,a:m,b:m,preferred\n1,0.5,0.2,A\n1,nan,0.2,B\n", 3, "column 2 (a:m)"),
    ("topic,a:m,preferred\n1,0.5,A\n", 1, "side B"),
    ("topic,ranking_a,preferred\n1,d1,A\n", 1, "same kind"),
    ("topic,preferred\n1,A\n", 1, "no sides"),
    ('{"topic": "1", "a:m": 1, "b:m": 0, "preferred": "A"}\n{"topic": "1", "a:m": 1,\n', 2,
     "column"),
    ('{"topic": "1", "a:m": 1, "b:m": 0, "preferred": "A"}\n{"topic": "1", "b:m": 0, '
     '"preferred": "A"}\n', 2, "missing key 'a:m'"),
    ("topic\tranking_a\tranking_b\tpreferred\n1\td1\td2\tA\n1\td1\td2\n", 3, "expected 4 fields"),
    ("topic,ranking_a,ranking_b,preferred,topic\n1,d1,d2,A,1\n", 1, "column 1: the header names"),
]


@pytest.mark.parametrize("text, line, where", BAD_ROWS)
def test_malformed_rows_are_located(tmp_path, text, line, where):
    path = tmp_path / ("p.jsonl" if text.startswith("{") else
                       "p.tsv" if "\t" in text else "p.csv")
    path.write_text(text)
    with pytest.raises(InputFormatError) as err:
        read_preference_rows(path)
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert where in str(err.value)


def test_a_run_not_given_is_located(tmp_path):
    qrels = _write_qrels(tmp_path / "qrels")
    (tmp_path / "r1").write_text("1 Q0 d1 1 1.0 r1\n")
    prefs = tmp_path / "p.csv"
    prefs.write_text("topic,run_a,run_b,preferred\n1,r1,r1,A\n1,r1,nope,B\n")
    with pytest.raises(InputFormatError, match=rf"^{prefs}:3: column 3: run 'nope'"):
        read_comparisons(prefs, qrels, [tmp_path / "r1"])


_HEADER = ["topic", "a:m", "b:m", "preferred"]
_ACCEPTED = {"a", "left", "1", "+1", "b", "right", "-1", "none", "0", "tie", "equal", "neither",
             "no preference", "good", "bad"}


def _valid_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 4), st.sampled_from([1, 2, 3]), st.text(max_size=12))
def test_garbage_in_any_cell_is_valid_or_located(row, column, garbage):
    rows = [["1", "0.5", "0.25", "A"] for _ in range(5)]
    rows[row][column] = garbage
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.csv"
        with open(path, "w", newline="", encoding="utf-8", errors="surrogatepass") as fh:
            w = csv.writer(fh)
            w.writerow(_HEADER)
            w.writerows(rows)
        if column == 3:
            valid = garbage.strip().lower() in _ACCEPTED
        else:
            valid = _valid_number(garbage)
        try:
            got = read_preference_rows(path)
        except InputFormatError as exc:
            assert not valid, exc
            assert str(exc).startswith(f"{path}:{row + 2}: "), str(exc)
            assert f"column {column + 1} ({_HEADER[column]})" in str(exc), str(exc)
        else:
            assert valid
            assert got.n == 5


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 3), st.text(max_size=40).map(lambda t: t.replace("\n", " ")))
def test_garbage_json_lines_are_valid_or_located(row, garbage):
    good = {"topic": "1", "a:m": 0.5, "b:m": 0.25, "preferred": "A"}
    lines = [json.dumps(good)] * 4
    lines[row] = garbage
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            got = read_preference_rows(path)
        except InputFormatError as exc:
            assert str(exc).startswith(f"{path}:{row + 1}: "), str(exc)
            assert "column" in str(exc) or "missing key" in str(exc), str(exc)
        else:
            # read: the line was blank (skipped) or an object with valid values
            assert got.n == (3 if not garbage.strip() else 4)
            if garbage.strip():
                obj = json.loads(garbage)
                assert isinstance(obj, dict) and set(good) <= set(obj)
