"""read_score_matrix: layouts, delimiters, and errors that name file and line."""

from __future__ import annotations

import codecs
import gzip
import os
import re
import socket
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.errors import InputFormatError
from irstab.io import textfiles
from irstab.io.scorematrix import read_facet_scores, read_score_matrices, read_score_matrix
from irstab.stability import gstudy

WIDE = "system,t1,t2,t3\nbm25,0.1,0.2,0.3\nbert,0.4,0.5,0.7\nrm3,0.2,0.2,0.1\n"
EXPECTED = pd.DataFrame(
    [[0.1, 0.2, 0.3], [0.4, 0.5, 0.7], [0.2, 0.2, 0.1]],
    index=pd.Index(["bm25", "bert", "rm3"], name="system"),
    columns=pd.Index(["t1", "t2", "t3"], name="topic"),
)


def write(tmp_path, name, text):
    p = tmp_path / name
    if name.endswith(".gz"):
        p.write_bytes(gzip.compress(text.encode()))
    else:
        p.write_text(text)
    return p


def long_text(sep=","):
    lines = ["system,topic,score".replace(",", sep)]
    for s in EXPECTED.index:
        for t in EXPECTED.columns:
            lines.append(sep.join([s, t, repr(float(EXPECTED.loc[s, t]))]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "name, text",
    [
        ("s.csv", WIDE),
        ("s.tsv", WIDE.replace(",", "\t")),
        ("s.txt", WIDE.replace(",", "\t")),  # delimiter sniffed from the header
        ("s.dat", WIDE),
        ("s.csv.gz", WIDE),
        ("s.tsv.gz", WIDE.replace(",", "\t")),
        ("s.csv", "\n" + WIDE.replace("\n", "\n\n")),  # blank lines skipped
        ("s.csv", WIDE.replace(",", " , ")),  # whitespace stripped
        ("s.csv", "\ufeff" + WIDE),  # BOM
        ("l.csv", long_text()),
        ("l.tsv", long_text("\t")),
        (
            "l.csv",
            long_text()
            .upper()
            .replace("BM25", "bm25")
            .replace("BERT", "bert")
            .replace("RM3", "rm3")
            .replace("T", "t"),
        ),
    ],
)
def test_layouts_and_delimiters(tmp_path, name, text):
    frame = read_score_matrix(write(tmp_path, name, text))
    pd.testing.assert_frame_equal(frame, EXPECTED)


def test_wide_and_long_give_the_same_gstudy(tmp_path):
    a = gstudy(read_score_matrix(write(tmp_path, "w.csv", WIDE)))
    b = gstudy(read_score_matrix(write(tmp_path, "l.csv", long_text())))
    assert a == b


def test_long_keeps_first_appearance_order(tmp_path):
    text = "system,topic,score\nb,t2,1\na,t2,2\nb,t1,3\na,t1,4\n"
    frame = read_score_matrix(write(tmp_path, "l.csv", text))
    assert list(frame.index) == ["b", "a"] and list(frame.columns) == ["t2", "t1"]
    assert frame.loc["a", "t1"] == 4.0


def test_explicit_layout(tmp_path):
    p = write(tmp_path, "w.csv", WIDE)
    with pytest.raises(InputFormatError, match=r"w\.csv:1: long layout needs the header"):
        read_score_matrix(p, layout="long")
    with pytest.raises(InputFormatError, match="layout must be"):
        read_score_matrix(p, layout="diagonal")
    # a long file forced to wide: its repeated system names are caught
    with pytest.raises(InputFormatError, match=r"l\.csv:3: duplicate system 'bm25'"):
        read_score_matrix(write(tmp_path, "l.csv", long_text()), layout="wide")


@pytest.mark.parametrize(
    "text, pattern",
    [
        (WIDE.replace("bert,0.4,0.5,0.7", "bert,0.4,0.5"), r"s\.csv:3: expected 4 fields .*got 3"),
        (
            WIDE.replace("0.5", "high"),
            r"s\.csv:3: system 'bert', topic 't2': score 'high' is not a number",
        ),
        (WIDE.replace("rm3", "bm25"), r"s\.csv:4: duplicate system 'bm25' \(first on line 2\)"),
        (WIDE.replace("t3", "t1"), r"s\.csv:1: duplicate topic 't1'"),
        (WIDE.replace("bert,", ",", 1), r"s\.csv:3: empty system name"),
        ("system\nbm25\n", r"s\.csv:1: header has no topic columns"),
        ("system,t1\n", r"s\.csv: no system lines after the header"),
        ("", r"s\.csv: empty file"),
        ("\n\n", r"s\.csv: empty file"),
        ('system,t1\n"bm25,0.5\n', r"s\.csv:2: expected 2 fields"),
    ],
)
def test_wide_errors_name_file_and_line(tmp_path, text, pattern):
    with pytest.raises(InputFormatError, match=pattern):
        read_score_matrix(write(tmp_path, "s.csv", text))


def test_line_numbers_count_blank_lines(tmp_path):
    text = "system,t1\n\nbm25,0.5\n\n\nbert,x\n"
    with pytest.raises(InputFormatError, match=r"s\.csv:6: "):
        read_score_matrix(write(tmp_path, "s.csv", text))


@pytest.mark.parametrize(
    "text, pattern",
    [
        (
            "system,topic,score\na,t1,0.5\na,t1,0.6\n",
            r"l\.csv:3: duplicate cell \(system 'a', topic 't1'\), first on line 2",
        ),
        ("system,topic,score\na,t1\n", r"l\.csv:2: expected 3 fields"),
        ("system,topic,score\na,t1,1\n,t2,3\n", r"l\.csv:3: empty system or topic name"),
        (
            "system,topic,score\na,t1,1\nb,t1,1e\n",
            r"l\.csv:3: system 'b', topic 't1': score '1e' is not a number",
        ),
        ("system,topic,score\n", r"l\.csv: no score lines"),
    ],
)
def test_long_errors_name_file_and_line(tmp_path, text, pattern):
    with pytest.raises(InputFormatError, match=pattern):
        read_score_matrix(write(tmp_path, "l.csv", text))


def test_missing_cells_are_named(tmp_path):
    wide = WIDE.replace("0.5,", ",").replace("rm3,0.2,0.2,0.1", "rm3,NA,0.2,nan")
    with pytest.raises(
        InputFormatError,
        match=r"s\.csv: 3 missing cell\(s\): line 3: \(system 'bert', topic 't2'\), "
        r"line 4: \(system 'rm3', topic 't1'\), line 4: \(system 'rm3', topic 't3'\)",
    ):
        read_score_matrix(write(tmp_path, "s.csv", wide))
    long = "system,topic,score\na,t1,1\na,t2,2\nb,t1,3\n"
    with pytest.raises(InputFormatError, match=r"1 missing cell\(s\): \(system 'b', topic 't2'\)"):
        read_score_matrix(write(tmp_path, "l.csv", long))


def test_allow_missing_returns_nan(tmp_path):
    long = "system,topic,score\na,t1,1\na,t2,2\nb,t1,\n"
    frame = read_score_matrix(write(tmp_path, "l.csv", long), allow_missing=True)
    assert frame.shape == (2, 2) and int(np.isnan(frame.to_numpy()).sum()) == 2


def test_missing_file(tmp_path):
    with pytest.raises(InputFormatError, match="no such file"):
        read_score_matrix(tmp_path / "nope.csv")


@pytest.mark.parametrize("token", ["inf", "-inf", "Infinity", "1e999"])
@pytest.mark.parametrize("layout", ["wide", "long", "long.gz"])
def test_an_infinite_score_is_named_by_file_line_system_and_topic(tmp_path, token, layout):
    # it was read, and later named by indices only ("system 1, topic 2"); the reader names it
    if layout == "wide":
        path, line = write(tmp_path, "s.csv", WIDE.replace("0.7", token)), 3
    else:
        text = long_text().replace("0.7", token)
        path, line = write(tmp_path, "s.csv" + layout[4:], text), 7  # header, bm25's 3, bert's 3rd
    with pytest.raises(InputFormatError, match=rf"s\.csv(\.gz)?:{line}: system 'bert', topic "
                       rf"'t3': score '{token}' is not finite"):
        read_score_matrix(path)


def test_gstudy_refuses_a_non_finite_frame_by_labels():
    from irstab.errors import DegenerateDataError

    frame = EXPECTED.copy()
    frame.loc["bert", "t3"] = np.inf
    with pytest.raises(DegenerateDataError, match=r"non-finite.*\(system 'bert', topic 't3'\)"):
        gstudy(frame)


# ------------------------------------------------------------------ what is not a regular file


@pytest.mark.timeout(30)  # a reader that opened the FIFO would wait for a writer for ever
@pytest.mark.parametrize("reader", [read_score_matrix, read_score_matrices, read_facet_scores])
def test_a_fifo_is_refused_before_it_is_opened(tmp_path, reader):
    fifo = tmp_path / "s.csv"
    os.mkfifo(fifo)  # nobody writes: opening it for reading would block
    with pytest.raises(InputFormatError, match=re.escape(
            f"{fifo}: is a FIFO (named pipe), not a regular file; save the matrix to a file")):
        reader(fifo)


def test_a_pipe_holding_a_matrix_is_called_a_pipe_and_left_unread(tmp_path):
    # process substitution <(cat s.csv) gives such a path; it was called an empty file, because
    # sniffing the compression consumed the bytes the parser then looked for
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd")
    r, w = os.pipe()
    os.write(w, WIDE.encode())
    os.close(w)
    try:
        with pytest.raises(InputFormatError) as info:
            read_score_matrix(f"/proc/self/fd/{r}")
        assert f"/proc/self/fd/{r}: is a pipe (process substitution" in str(info.value)
        assert "empty" not in str(info.value)
        assert os.read(r, 1 << 16) == WIDE.encode()  # refused before any byte was taken
    finally:
        os.close(r)


def test_a_socket_and_a_device_are_named(tmp_path):
    sock = socket.socket(socket.AF_UNIX)
    path = tmp_path / "s"
    try:
        sock.bind(str(path))
    except OSError as exc:  # a tmp_path too long for a socket address
        pytest.skip(f"cannot bind a socket here: {exc}")
    try:
        with pytest.raises(InputFormatError, match=re.escape(f"{path}: is a socket, not a regular")):
            read_score_matrix(path)
    finally:
        sock.close()
    with pytest.raises(InputFormatError, match="/dev/null: is a character device, not a regular"):
        read_score_matrix("/dev/null")  # it was "empty file"


# ------------------------------------------------------------------ a byte that is not UTF-8


@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_byte_that_is_not_utf8_is_named_by_its_line(tmp_path, compressed, bom, newline):
    # line 6 of the file (blank lines 2-3 count: the reader cuts them before decoding, the
    # error's line is the file's); it said "not a UTF-8 text file" without a line
    lines = [b"system,t1,t2", b"", b"  ", b"a,0.1,0.2", b"b,0.3,0.4", b"c\xff,0.5,0.6", b"d,0.7,0.8"]
    data = (codecs.BOM_UTF8 if bom else b"") + newline.encode().join(lines) + newline.encode()
    path = tmp_path / "s.csv"
    path.write_bytes(gzip.compress(data) if compressed else data)
    with pytest.raises(InputFormatError) as info:
        read_score_matrix(path)
    assert info.value.line == 6 and "not a UTF-8 text file (invalid start byte)" in str(info.value)


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["", "é", "日本"])),
                     min_size=2, max_size=25),
       bad=st.integers(0, 100), newline=st.sampled_from(["\n", "\r\n"]),
       bad_bytes=st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80"]), gz=st.booleans())
def test_the_first_bad_byte_is_located_whatever_the_blank_lines(rows, bad, newline, bad_bytes,
                                                                 gz):
    # oracle: the line the test put the bad bytes on, counted while the file is built
    import tempfile

    nl = newline.encode()
    out, bad_row = [b"system,t1"], bad % len(rows)
    for i, (blanks, name) in enumerate(rows):
        out += [b" \t"[: i % 3]] * blanks  # runs of blank lines (spaces and tabs too)
        label = f"s{i}{name}".encode() + (bad_bytes if i == bad_row else b"")
        if i == bad_row:
            line = len(out) + 1
        out.append(label + b",0.5")
    data = nl.join(out) + nl
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.csv"
        path.write_bytes(gzip.compress(data) if gz else data)
        with pytest.raises(InputFormatError) as info:
            read_score_matrix(path)
    assert info.value.line == line, (info.value, line)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.text(alphabet="aé€\U0001f600", max_size=6), min_size=1, max_size=12),
       breaks=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=12, max_size=12),
       at=st.integers(0, 100), bad_bytes=st.sampled_from([b"\xff", b"\xc3(", b"\xe2\x82"]),
       block=st.integers(1, 9))
def test_invalid_utf8_line_counts_breaks_across_blocks(lines, breaks, at, bad_bytes, block):
    # oracle: the line breaks (\r\n, \r, \n as the csv module counts them) before the bad
    # bytes, counted by one regular expression over the whole text; the scan reads blocks of
    # 1 to 9 bytes, so sequences and \r\n pairs straddle blocks
    import tempfile

    data = "".join(t + b for t, b in zip(lines, breaks)).encode()
    cut = at % (len(data) + 1)
    while cut < len(data) and (data[cut] & 0xC0) == 0x80:  # not inside a character
        cut += 1
    data = data[:cut] + bad_bytes + data[cut:]
    expected = len(re.findall(rb"\r\n|\r|\n", data[:cut])) + 1
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(textfiles, "_BLOCK", block)
        path = Path(tmp) / "f"
        path.write_bytes(data)
        got = textfiles.invalid_utf8_line(path, universal=True)
        plain = textfiles.invalid_utf8_line(path)
    assert got is not None and got[0] == expected, (data, got, expected)
    assert plain[0] == data[:cut].count(b"\n") + 1  # runs and qrels: lines end at \n
