"""Reading and aligning judge sets: names, shared pairs, located errors on bad input."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import InputFormatError, IRStabError, IRStabWarning
from irstab.judges.labels import read_judge_sets


def _write(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


@pytest.fixture
def gold(tmp_path):
    return _write(tmp_path / "nist-qrels.txt",
                  ["1 0 a 0", "1 0 b 2", "1 0 c 3", "2 0 d 1", "2 0 e 0"])


def test_names_alignment_and_missing_labels(tmp_path, gold):
    other = _write(tmp_path / "llm.qrels", ["1 0 b 1", "1 0 z 0", "2 0 e 0"])
    s = read_judge_sets(gold, [other])
    assert s.judges == ("nist", "llm")  # stems, as irstab assessors names them
    assert s.grades == (0, 1, 2, 3)  # every integer from the gold's smallest to largest
    assert list(zip(s.topics, s.docids)) == [("1", "a"), ("1", "b"), ("1", "c"), ("1", "z"),
                                            ("2", "d"), ("2", "e")]
    np.testing.assert_array_equal(s.labels, [[0, 2, 3, np.nan, 1, 0],
                                             [np.nan, 1, np.nan, 0, np.nan, 0]])
    assert s.judged_topics("llm") == ["1", "2"]
    assert s.to_frame()["llm"].isna().sum() == 3


def test_gzip_and_directories(tmp_path, gold):
    d = tmp_path / "judges"
    d.mkdir()
    with gzip.open(d / "crowd-qrels.txt.gz", "wt") as fh:
        fh.write("1 0 a 0\n")
    _write(d / "README.md", ["# notes"])
    with pytest.warns(IRStabWarning, match="README"):
        s = read_judge_sets(gold, [d])
    assert s.judges == ("nist", "crowd")


def test_only_one_judge_set(gold):
    with pytest.raises(IRStabError, match="only one judge set"):
        read_judge_sets(gold, [])


def test_topics_that_do_not_overlap_name_the_file(tmp_path, gold):
    other = _write(tmp_path / "other.txt", ["7 0 a 1", "8 0 b 0"])
    with pytest.raises(IRStabError, match=r"other\.txt: none of its 2 topic"):
        read_judge_sets(gold, [other])


def test_topics_outside_gold_are_left_out_with_a_warning(tmp_path, gold):
    other = _write(tmp_path / "other.txt", ["1 0 a 1", "9 0 b 0"])
    with pytest.warns(IRStabWarning, match="1 topic"):
        s = read_judge_sets(gold, [other])
    assert "9" not in set(s.topics)


def test_unknown_grade_names_file_and_line(tmp_path, gold):
    other = _write(tmp_path / "other.txt", ["1 0 a 1", "1 0 b 2", "2 0 d 7"])
    with pytest.raises(InputFormatError, match=r"other\.txt:3: grade 7 is not on the scale 0\.\.3"):
        read_judge_sets(gold, [other])


def test_non_integer_grade_names_file_and_line(tmp_path, gold):
    other = _write(tmp_path / "other.txt", ["1 0 a 1", "1 0 b 0.5"])
    with pytest.raises(InputFormatError, match=r"other\.txt:2"):
        read_judge_sets(gold, [other])


def test_same_name_twice(tmp_path, gold):
    (tmp_path / "x").mkdir()
    a = _write(tmp_path / "llm.txt", ["1 0 a 1"])
    b = _write(tmp_path / "x" / "llm-qrels.txt", ["1 0 a 1"])
    with pytest.raises(IRStabError, match="already taken"):
        read_judge_sets(gold, [a, b])
    c = _write(tmp_path / "x" / "nist.txt", ["1 0 a 1"])
    with pytest.raises(IRStabError, match="gold qrels' name 'nist'"):
        read_judge_sets(gold, [c])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["0", "1", "3", "-1", "4", "x", "1.5", "99"]),
                min_size=1, max_size=6))
def test_garbage_grades_raise_a_located_error(tmp_path_factory, grades):
    tmp = tmp_path_factory.mktemp("g")
    gold = _write(tmp / "gold.txt", ["1 0 a 0", "1 0 b 3"])
    other = _write(tmp / "o.txt", [f"1 0 d{i} {g}" for i, g in enumerate(grades)])
    bad = [i for i, g in enumerate(grades) if g not in {"0", "1", "3"}]
    if not bad:
        assert read_judge_sets(gold, [other]).judges == ("gold", "o")
        return
    with pytest.raises(InputFormatError) as err:
        read_judge_sets(gold, [other])
    assert str(err.value).startswith(f"{other}:")
    assert err.value.line is not None
