"""TREC qrels/run reading: every bad-input case of issue 2 names the file and the 1-based line.

Each case is checked three ways: through the library (``read_qrels``/``read_run``,
plain and gzip), with blank lines in front (line numbers must move with them), and
through the CLI (exit code 1, ``file:line`` on stderr, no traceback, no output file
and no temporary file left behind by ``-o``).

Expected line numbers are counted by hand from the file texts written in this module.
"""

from __future__ import annotations

import gzip
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

import irstab
import irstab.cli
from irstab.errors import InputFormatError, IRStabWarning
from irstab.io import read_qrels, read_run, read_runs

GOOD_QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 1\n"
GOOD_RUN = "1 Q0 d1 1 2.0 good\n1 Q0 d2 2 1.0 good\n2 Q0 d1 1 5.0 good\n"


@dataclass(frozen=True)
class Bad:
    """One malformed file: its kind, text, the 1-based line to blame, and a word of the message."""

    kind: str  # "qrels" or "run"
    text: str
    line: int | None  # None: the file as a whole (empty file)
    words: tuple[str, ...]


BAD = {
    # wrong number of fields -------------------------------------------------------------
    "qrels-too-few-fields": Bad("qrels", "1 0 d1 1\n1 0 d2\n1 0 d3 1\n", 2, ("4 fields", "found 3")),
    "qrels-too-many-fields": Bad("qrels", "1 0 d1 1\n1 0 d2 1\n1 0 d3 1 x\n", 3, ("4 fields", "found 5")),
    "qrels-far-too-many-fields": Bad("qrels", "1 0 d1 1\n1 0 d2 1 x y z\n", 2, ("4 fields",)),
    "qrels-first-line-short": Bad("qrels", "1 0 d1\n1 0 d2 1\n", 1, ("4 fields",)),
    "run-too-few-fields": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2\n", 2, ("6 fields", "found 4")),
    "run-too-many-fields": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t x\n", 2, ("6 fields", "found 7")),
    "run-far-too-many-fields": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t x y z\n", 2, ("6 fields",)),
    # the tag must be on every line or on none
    "run-tag-missing-on-one-line": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0\n", 2, ("6 fields", "tag")),
    "run-tag-only-on-later-line": Bad("run", "1 Q0 d1 1 2.0\n1 Q0 d2 2 1.0 t\n", 2, ("5 fields", "tag")),
    # values ----------------------------------------------------------------------------
    "qrels-grade-decimal": Bad("qrels", "1 0 d1 1\n1 0 d2 1.5\n", 2, ("grade", "1.5", "integer")),
    "qrels-grade-word": Bad("qrels", "1 0 d1 1\n1 0 d2 1\n1 0 d3 high\n", 3, ("grade", "high", "integer")),
    "run-score-word": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 abc t\n", 2, ("score", "abc")),
    "run-score-nan": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 nan t\n", 2, ("score",)),
    "run-score-NaN": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 NaN t\n1 Q0 d3 3 0.5 t\n", 2, ("score",)),
    "run-score-inf": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n1 Q0 d3 3 inf t\n", 3, ("score",)),
    "run-score-minus-inf": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 -inf t\n", 2, ("score",)),
    "run-score-overflow": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1e999 t\n", 2, ("score",)),
    # structure -------------------------------------------------------------------------
    "run-same-document-twice": Bad(
        "run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n2 Q0 d1 1 3.0 t\n1 Q0 d1 3 0.5 t\n", 4,
        ("d1", "twice"),
    ),
    "run-several-tags": Bad(
        "run", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n1 Q0 d3 3 0.5 u\n", 3, ("tag", "'u'")
    ),
    "qrels-empty": Bad("qrels", "", None, ("empty",)),
    "run-empty": Bad("run", "", None, ("empty",)),
    "qrels-only-blank-lines": Bad("qrels", "\n\n  \n", None, ("empty",)),
    "run-only-blank-lines": Bad("run", "\n\t\n\n", None, ("empty",)),
}

# Cases whose text has lines to shift (an empty file stays "empty" with blank lines).
SHIFTABLE = {k: v for k, v in BAD.items() if v.line is not None}


def _write(path: Path, text: str, compress: bool = False) -> Path:
    if compress:
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def _read(kind: str, path: Path):
    return read_qrels(path) if kind == "qrels" else read_run(path)


def _check_message(exc: InputFormatError, path: Path, case: Bad) -> None:
    message = str(exc)
    assert exc.path == str(path)
    assert exc.line == case.line
    if case.line is None:
        assert message.startswith(f"{path}: "), message
    else:
        assert message.startswith(f"{path}:{case.line}: "), message
    for word in case.words:
        assert word in message, (word, message)


# ------------------------------------------------------------------ library, one test per case


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_names_file_and_line(tmp_path, name, compress):
    case = BAD[name]
    path = _write(tmp_path / name, case.text, compress)
    with pytest.raises(InputFormatError) as info:
        _read(case.kind, path)
    _check_message(info.value, path, case)


@pytest.mark.parametrize("name", list(SHIFTABLE))
def test_blank_lines_keep_line_numbers(tmp_path, name):
    """Two blank lines in front and one blank line after line 1 move the bad line by 3."""
    case = SHIFTABLE[name]
    first, rest = case.text.split("\n", 1)
    text = "\n\n" + first + "\n\n" + rest
    shifted = Bad(case.kind, text, case.line + (3 if case.line > 1 else 2), case.words)
    path = _write(tmp_path / name, text)
    with pytest.raises(InputFormatError) as info:
        _read(case.kind, path)
    _check_message(info.value, path, shifted)


def test_blank_lines_with_spaces_and_crlf_keep_line_numbers(tmp_path):
    # lines: 1 "1 Q0 d1 ..", 2 "   ", 3 "", 4 "\t", 5 bad score
    text = "1 Q0 d1 1 2.0 t\r\n   \r\n\r\n\t\r\n1 Q0 d2 2 oops t\r\n"
    path = _write(tmp_path / "crlf", text)
    with pytest.raises(InputFormatError, match=r"crlf:5: score 'oops'"):
        read_run(path)


# A field missing next to a doubled space: split on whitespace the line has too few fields.
# The careful reader says so; the fast single-space reader must not instead read an empty
# field (docid "" or iteration "") and accept the line.
DOUBLE_SPACE_MISSING_FIELD = {
    "run-docid": Bad("run", "1 Q0 d1 1 2.0 t\n1 Q0  2 1.0 t\n", 2, ("fields",)),
    "qrels-iteration": Bad("qrels", "1 0 d1 1\n1  d2 2\n", 2, ("fields",)),
}


@pytest.mark.parametrize("name", list(DOUBLE_SPACE_MISSING_FIELD))
def test_missing_field_next_to_double_space_is_an_error(tmp_path, capsys, name):
    case = DOUBLE_SPACE_MISSING_FIELD[name]
    path = _write(tmp_path / name, case.text)
    with pytest.raises(InputFormatError) as info:
        _read(case.kind, path)
    _check_message(info.value, path, case)
    # same through the CLI
    bad, qrels, run = _files(tmp_path, case, name)
    code, out, err = _cli(capsys, "evaluate", qrels, run, "-m", "AP")
    assert code == 1 and f"{bad}:{case.line}:" in err


def test_invalid_error_is_a_value_error(tmp_path):
    """Library callers can catch one type: InputFormatError < IRStabError < ValueError."""
    path = _write(tmp_path / "r", BAD["run-score-word"].text)
    with pytest.raises(ValueError):
        read_run(path)
    with pytest.raises(irstab.IRStabError):
        read_run(path)


def test_nonfinite_score_message_quotes_the_file_text(tmp_path):
    """The message shows what the file says ('inf'), not a numpy repr like np.float64(inf)."""
    path = _write(tmp_path / "r", BAD["run-score-inf"].text)
    with pytest.raises(InputFormatError) as info:
        read_run(path)
    assert "np.float64" not in str(info.value), str(info.value)
    assert "inf" in str(info.value)


def test_missing_file_is_named(tmp_path):
    path = tmp_path / "nope"
    with pytest.raises(InputFormatError, match="nope"):
        read_run(path)
    with pytest.raises(InputFormatError, match="nope"):
        read_qrels(path)


def test_same_document_in_two_topics_is_fine(tmp_path):
    path = _write(tmp_path / "r", "1 Q0 d1 1 2.0 t\n2 Q0 d1 1 1.0 t\n")
    assert read_run(path).frame["docid"].tolist() == ["d1", "d1"]


def test_negative_grades_are_kept(tmp_path):
    """DESIGN.md: grades may be negative (TREC Web spam = -2); nothing is dropped."""
    path = _write(tmp_path / "q", "1 0 d1 -2\n1 0 d2 +1\n1 0 d3 0\n")
    assert read_qrels(path).frame["grade"].tolist() == [-2, 1, 0]


# ------------------------------------------------------------------ well-formed input


def test_irregular_whitespace_parses_like_single_spaces(tmp_path):
    single = _write(tmp_path / "single", "1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.0 t\n2 Q0 d1 1 3 t\n")
    messy = _write(
        tmp_path / "messy", "1\tQ0  d1 1   2.5\tt\n\n  1 Q0 d2 2 1.0 t  \n2 Q0 d1\t1 3 t"
    )
    a, b = read_run(single), read_run(messy)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert a.tag == b.tag == "t"
    qa = read_qrels(_write(tmp_path / "qa", "1 0 d1 1\n1 0 d2 0\n"))
    qb = read_qrels(_write(tmp_path / "qb", "1\t0\td1\t1\n\n1  0 d2   0 \n"))
    pd.testing.assert_frame_equal(qa.frame, qb.frame)


def test_crlf_line_ends(tmp_path):
    a = read_run(_write(tmp_path / "lf", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n"))
    b = read_run(_write(tmp_path / "crlf", "1 Q0 d1 1 2.0 t\r\n1 Q0 d2 2 1.0 t\r\n"))
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert b.tag == "t"


def test_gzip_equals_plain(tmp_path):
    run_text = "".join(f"{t} Q0 d{i} {i} {10 - i / 4} sys\n" for t in (1, 2) for i in range(1, 30))
    qrels_text = "".join(f"{t} 0 d{i} {i % 4}\n" for t in (1, 2) for i in range(1, 40, 3))
    plain, packed = _write(tmp_path / "r", run_text), _write(tmp_path / "r", run_text, True)
    assert packed.name == "r.gz"
    pd.testing.assert_frame_equal(read_run(plain).frame, read_run(packed).frame)
    qp, qz = _write(tmp_path / "q", qrels_text), _write(tmp_path / "q", qrels_text, True)
    pd.testing.assert_frame_equal(read_qrels(qp).frame, read_qrels(qz).frame)
    # and evaluation through either gives the same numbers
    a = irstab.evaluate(qp, [plain], ["nDCG@10", "AP"], per_topic=True)
    b = irstab.evaluate(qz, [packed], ["nDCG@10", "AP"], per_topic=True)
    pd.testing.assert_frame_equal(a, b)


def test_file_order_and_values_are_kept(tmp_path):
    """Nothing is silently dropped or reordered: rows come back in file order."""
    path = _write(tmp_path / "r", "2 Q0 b 1 0.5 t\n1 Q0 a 7 -3.25 t\n2 Q0 a 2 0.5 t\n")
    frame = read_run(path).frame
    assert frame["topic"].tolist() == ["2", "1", "2"]
    assert frame["docid"].tolist() == ["b", "a", "a"]
    assert frame["rank"].tolist() == [1.0, 7.0, 2.0]
    assert frame["score"].tolist() == [0.5, -3.25, 0.5]


def test_run_named_by_tag(tmp_path):
    run = read_run(_write(tmp_path / "file-name", GOOD_RUN))
    assert (run.name, run.tag) == ("good", "good")


@pytest.mark.parametrize(
    "filename, expected",
    [("myrun.txt", "myrun.txt"), ("myrun", "myrun"), ("myrun.txt.gz", "myrun.txt")],
)
def test_run_without_tag_is_named_by_its_file(tmp_path, filename, expected):
    text = "1 Q0 d1 1 2.0\n1 Q0 d2 2 1.0\n"
    path = tmp_path / filename
    if filename.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    run = read_run(path)
    assert run.tag is None
    assert run.name == expected
    assert [r.name for r in read_runs([path])] == [expected]


def test_shared_tag_runs_named_by_file_with_warning_and_not_merged(tmp_path):
    a = _write(tmp_path / "alpha", "1 Q0 d1 1 2.0 same\n1 Q0 d2 2 1.0 same\n")
    b = _write(tmp_path / "beta", "1 Q0 d3 1 2.0 same\n", compress=True)
    c = _write(tmp_path / "gamma", "1 Q0 d1 1 2.0 other\n")
    with pytest.warns(IRStabWarning, match="same"):
        runs = read_runs([a, b, c])
    assert [r.name for r in runs] == ["alpha", "beta", "other"]
    assert [len(r) for r in runs] == [2, 1, 1]  # not merged
    assert [r.tag for r in runs] == ["same", "same", "other"]
    # both appear as separate systems in an evaluation
    qrels = _write(tmp_path / "q", "1 0 d1 1\n1 0 d3 1\n")
    with pytest.warns(IRStabWarning):
        frame = irstab.evaluate(qrels, [a, b, c], "P@1")
    assert dict(zip(frame["run"], frame["value"])) == {"alpha": 1.0, "beta": 1.0, "other": 1.0}


def test_unique_tags_give_no_warning(tmp_path):
    a = _write(tmp_path / "a", "1 Q0 d1 1 2.0 x\n")
    b = _write(tmp_path / "b", "1 Q0 d1 1 2.0 y\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [r.name for r in read_runs([a, b])] == ["x", "y"]


def test_directory_reads_every_non_hidden_file(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    _write(d / "r1", "1 Q0 d1 1 2.0 one\n")
    _write(d / "r2", "1 Q0 d2 1 2.0 two\n", compress=True)
    _write(d / "r3.txt", "1 Q0 d3 1 2.0\n")  # no tag: named by file
    _write(d / ".hidden", "this is not a run\n")
    (d / "sub").mkdir()
    _write(d / "sub" / "r4", "1 Q0 d4 1 2.0 four\n")
    runs = read_runs(d)
    assert sorted(r.name for r in runs) == ["one", "r3.txt", "two"]
    # a directory and a file together
    extra = _write(tmp_path / "r5", "1 Q0 d5 1 2.0 five\n")
    assert sorted(r.name for r in read_runs([d, extra])) == ["five", "one", "r3.txt", "two"]


def test_directory_with_a_bad_file_names_that_file(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    _write(d / "a", "1 Q0 d1 1 2.0 a\n")
    bad = _write(d / "b", "1 Q0 d1 1 2.0 b\n1 Q0 d2 2 x b\n")
    with pytest.raises(InputFormatError, match=rf"{bad}:2: score 'x'"):
        read_runs(d)


def test_empty_directory_is_an_error(tmp_path):
    d = tmp_path / "none"
    d.mkdir()
    (d / ".only-hidden").write_text("1 Q0 d1 1 2.0 x\n")
    with pytest.raises(InputFormatError, match="none"):
        read_runs(d)


# ------------------------------------------------------------------ CLI


def _cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _files(tmp_path, case: Bad, name: str) -> tuple[Path, Path, Path]:
    bad = _write(tmp_path / name, case.text)
    qrels = bad if case.kind == "qrels" else _write(tmp_path / "qrels", GOOD_QRELS)
    run = bad if case.kind == "run" else _write(tmp_path / "run", GOOD_RUN)
    return bad, qrels, run


@pytest.mark.parametrize("name", list(BAD))
def test_cli_bad_input_exit_1_names_file_and_line(tmp_path, capsys, name):
    case = BAD[name]
    bad, qrels, run = _files(tmp_path, case, name)
    code, out, err = _cli(capsys, "evaluate", qrels, run, "-m", "AP", "-f", "tsv")
    assert code == 1
    where = f"{bad}:{case.line}:" if case.line is not None else f"{bad}:"
    assert where in err, err
    for word in case.words:
        assert word in err
    assert "Traceback" not in out + err
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err  # one line, not a rich panel


@pytest.mark.parametrize("name", list(BAD))
def test_cli_bad_input_writes_nothing_with_output_file(tmp_path, capsys, name):
    case = BAD[name]
    _, qrels, run = _files(tmp_path, case, name)
    outdir = tmp_path / "out"
    target = outdir / "result.tsv"
    code, out, err = _cli(capsys, "evaluate", qrels, run, "-m", "nDCG@10", "-f", "tsv", "-o", target)
    assert code == 1
    assert "Traceback" not in out + err
    assert not target.exists()
    assert not outdir.exists() or list(outdir.iterdir()) == []  # no temporary leftovers


def test_cli_bad_input_leaves_existing_output_untouched(tmp_path, capsys):
    case = BAD["run-score-nan"]
    _, qrels, run = _files(tmp_path, case, "bad")
    target = tmp_path / "result.tsv"
    target.write_text("previous\n")
    before = sorted(os.listdir(tmp_path))
    code, _, err = _cli(capsys, "evaluate", qrels, run, "-m", "AP", "-o", target)
    assert code == 1 and f"{run}:2:" in err
    assert target.read_text() == "previous\n"
    assert sorted(os.listdir(tmp_path)) == before


def test_cli_shared_tags_warn_on_stderr_and_evaluate_both(tmp_path, capsys):
    qrels = _write(tmp_path / "q", GOOD_QRELS)
    a = _write(tmp_path / "a", "1 Q0 d1 1 2.0 same\n")
    b = _write(tmp_path / "b", "1 Q0 d2 1 2.0 same\n")
    code, out, err = _cli(capsys, "evaluate", qrels, a, b, "-m", "P@1", "-f", "tsv")
    assert code == 0, err
    assert "warning" in err and "same" in err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert [(r[0], float(r[3])) for r in rows] == [("a", 0.5), ("b", 0.0)]


def test_cli_missing_file_exit_1(tmp_path, capsys):
    qrels = _write(tmp_path / "q", GOOD_QRELS)
    code, out, err = _cli(capsys, "evaluate", qrels, tmp_path / "missing", "-m", "AP")
    assert code == 1
    assert "missing" in err and "Traceback" not in out + err
