"""Names cannot inject: one sanitiser (:mod:`irstab._repr`) for terminal, LaTeX and CSV.

A measure, run, topic or file name comes from the user's files. Whatever it holds, the
output keeps its own lines (no forged ``verdict:`` line), no bidirectional override or
other format control reaches the terminal or LaTeX raw, LaTeX typesets the name rather
than a command (``[40pt]`` after ``\\\\``), and a CSV cell never starts a formula.
Oracles: the output's own structure (lines, fields, LaTeX tokens) counted from the data.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab.cli
from irstab._repr import csv_cell, escape_name, escape_text, latex_escape, one_line, terminal_safe
from irstab.cli._common import OutputFormat, render_frame
from irstab.io.layouts import to_latex, to_trec_eval

# what must never reach the terminal or LaTeX raw: controls (tab and newline are the
# layouts' own), format controls (bidi), line/paragraph separators, lone surrogates
_BAD = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
NASTY = ["b\nverdict: keep base (forged)", "b\rverdict: keep base (forged)",
         "b\u2028verdict: keep base (forged)", "b\x85verdict: keep base (forged)",
         "b\u202everdict: keep base (forged)", "b\x1b[2Kverdict: keep base (forged)"]
NAMES = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=14)


def raw_controls(text: str, allowed: str = "\t\n") -> list[str]:
    return [c for c in text if c not in allowed and unicodedata.category(c) in _BAD]


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---------------------------------------------------------------- reproductions


def _scores(path, shift):
    rows = [f"s{i}," + ",".join(f"{(i * 7 + t * 3 + shift) % 11 / 10 + i / 20:.3f}"
                                for t in range(8)) for i in range(6)]
    path.write_text("system," + ",".join(f"t{t}" for t in range(8)) + "\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("name", NASTY)
def test_a_file_name_cannot_forge_the_verdict_line(tmp_path, capsys, name):
    # the baseline's name is its score file's name: it holds a line break, a CR, a line
    # separator, NEL, a right-to-left override or an escape sequence. Before, the verdict's
    # first line took it raw and printed a second "verdict: keep base (forged)" line.
    base = _scores(tmp_path / f"{name}.csv", 0)
    other = _scores(tmp_path / "c.csv", 3)
    code, out, err = cli(capsys, "compare", "-s", base, "-s", other, "--baseline", name)
    assert code == 0, err
    lines = out.splitlines()
    assert [ln for ln in lines if ln.startswith("verdict:")] == [lines[0]]
    assert lines[0].startswith(f"verdict: keep {escape_text(name)} (")
    assert raw_controls(out) == [] and raw_controls(err) == []


def test_a_long_csv_measure_name_cannot_forge_a_line(tmp_path, capsys):
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(["run", "measure", "topic", "value"])
    for m, shift in ((NASTY[0], 0), ("c", 3)):
        for s in range(6):
            for t in range(8):
                w.writerow([f"s{s}", m, f"t{t}", f"{(s * 7 + t * 3 + shift) % 11 / 10 + s / 20:.3f}"])
    path = tmp_path / "long.csv"
    path.write_text(text.getvalue())
    code, out, err = cli(capsys, "compare", "-s", path, "--baseline", NASTY[0])
    assert code == 0, err
    assert sum(ln.startswith("verdict:") for ln in out.splitlines()) == 1


@pytest.mark.parametrize("name", [*NASTY, "b\tverdict: keep base (forged)"])
def test_a_file_name_cannot_forge_a_tsv_row(tmp_path, capsys, name):
    # TSV has no quoting: before, a name holding a line break was written quoted as CSV
    # would, and a line-based reader saw a row "verdict: keep base (forged)" of its own
    base = _scores(tmp_path / f"{name}.csv", 0)
    other = _scores(tmp_path / "c.csv", 3)
    code, out, err = cli(capsys, "compare", "-s", base, "-s", other, "--baseline", name,
                         "-f", "tsv")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 3  # header, the two measures
    assert {ln.count("\t") for ln in lines} == {lines[0].count("\t")}
    assert lines[1].split("\t")[:2] == [escape_text(name), "baseline"]
    assert raw_controls(out) == []


def _run(tmp_path, name):
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"],
                        "score": [2.0, 1.0, 1.0], "run": [name] * 3})
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    return q, path


def test_a_run_named_like_an_optional_argument_stays_text_in_latex(tmp_path, capsys):
    # "\\\\" then "[40pt]" on the next line is a line break with 40pt of extra space; the
    # name starts the row after "\\midrule" (its optional argument is a rule width, too)
    q, run = _run(tmp_path, "[40pt]zzz")
    code, out, err = cli(capsys, "evaluate", q, run, "-m", "AP,P@1", "-f", "latex")
    assert code == 0, err
    assert "{[}40pt{]}zzz &" in out
    assert not any(ln.lstrip().startswith("[") for ln in out.splitlines())


@pytest.mark.parametrize("fmt", ["table", "trec", "latex", "tsv", "csv"])
def test_a_right_to_left_override_never_reaches_the_terminal(tmp_path, capsys, fmt):
    name = "abc\u202edcba\u2066x\u2069"
    q, run = _run(tmp_path, name)
    # -f trec prints the run's name only when asked (runid), as trec_eval 10 does
    measures = "AP,runid" if fmt == "trec" else "AP"
    code, out, err = cli(capsys, "evaluate", q, run, "-m", measures, "-q", "-f", fmt)
    assert code == 0, err
    assert raw_controls(out) == []
    assert ("\\textbackslash{}u202e" if fmt == "latex" else "\\u202e") in out  # shown, escaped


def test_a_file_name_with_controls_is_escaped_in_messages(tmp_path, capsys):
    q, run = _run(tmp_path, "r")
    link = tmp_path / "o\u202eut\nforged.tsv"  # an output that is an input: the error names it
    link.symlink_to(q)
    code, out, err = cli(capsys, "evaluate", q, run, "-m", "AP", "-o", link)
    assert code == 1 and "is an input of this command" in err
    assert len(err.splitlines()) == 1 and raw_controls(err.rstrip("\n"), "") == []
    target = tmp_path / "o\u202eut\nok.tsv"
    code, out, err = cli(capsys, "evaluate", q, run, "-m", "AP", "-o", target)
    assert code == 0 and target.is_file()
    assert err.splitlines() == [f"wrote {one_line(target)}"]


# ---------------------------------------------------------------- properties, any name


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_one_line_and_terminal_safe_never_add_lines_or_controls(text):
    assert len(one_line(text).splitlines()) <= 1
    assert raw_controls(one_line(text), "\t") == []
    safe = terminal_safe(text)
    assert raw_controls(safe) == []
    # its only line breaks are the text's own newlines (the layouts' separators)
    assert safe.split("\n") == [one_line(part) for part in text.split("\n")]


_LATEX_TOKENS = re.compile(r"\\textbackslash\{\}|\\textasciitilde\{\}|\\textasciicircum\{\}"
                           r"|\\[&%$#_{}]|\{\[\}|\{\]\}")


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_latex_escape_leaves_no_special_and_no_control(text):
    escaped = latex_escape(text)
    bare = _LATEX_TOKENS.sub("", escaped)
    assert not re.search(r"[&%$#_{}~^\\\[\]]", bare), escaped
    assert raw_controls(escaped, "") == []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=NAMES, measure=NAMES, topic=NAMES.filter(lambda t: t != "all"))
def test_text_layouts_keep_their_lines_whatever_the_names(run, measure, topic):
    frame = pd.DataFrame({"run": [run, run], "measure": [measure, measure],
                          "topic": [topic, "all"], "value": [0.5, 0.5]})
    latex = to_latex(frame)
    assert len(latex.splitlines()) == 7  # tabular, toprule, head, midrule, 1 run, bottomrule, end
    assert raw_controls(latex) == []
    assert not any(ln.startswith("[") for ln in latex.splitlines())
    trec = to_trec_eval(frame)
    assert len(trec.splitlines()) == 4 and all(ln.count("\t") == 2 for ln in trec.splitlines())
    assert raw_controls(trec) == []
    table = render_frame(frame, OutputFormat.table)
    assert len(table.splitlines()) == 3 and raw_controls(table) == []
    # as the CLI prints it (emit: terminal_safe), CSV reads back cell for cell
    rows = list(csv.reader(io.StringIO(terminal_safe(render_frame(frame, OutputFormat.csv)))))
    assert len(rows) == 3
    assert rows[1][:3] == [terminal_safe(csv_cell(escape_name(x, keep="\t\n\r")))
                           for x in (run, measure, topic)]
    assert not any(c.startswith(("=", "+", "@")) or (c.startswith("-") and c != "-" and
                                                      not _number(c)) for c in rows[1][:3])


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# names made of the line breaks and separators a reader might split on, and plain text
BREAKING = st.text(alphabet=st.sampled_from(["\n", "\r", "\t", "\u2028", "\x85", ",", '"', "a",
                                             "=", "-", "\\"]), min_size=1, max_size=10)


@settings(max_examples=200, deadline=None)
@given(run=BREAKING, measure=BREAKING, column=BREAKING)
def test_tsv_and_csv_keep_one_record_per_row_whatever_the_names(run, measure, column):
    frame = pd.DataFrame({"run": [run, "r2"], column + "x": [measure, "m"], "value": [0.5, 1.0]})
    # as the CLI prints it (emit: terminal_safe)
    tsv = terminal_safe(render_frame(frame, OutputFormat.tsv))
    # TSV (no quoting): every physical line, by any reader's idea of a line, is a record
    # with the header's three fields; the names are escaped as the table escapes them
    for lines in (tsv.split("\n")[:-1], tsv.splitlines()):
        assert [ln.count("\t") for ln in lines] == [2, 2, 2]
    records = list(csv.reader(io.StringIO(tsv), delimiter="\t"))
    assert records[0][1] == csv_cell(escape_name(column + "x"))
    assert records[1][:2] == [csv_cell(escape_name(run)), csv_cell(escape_name(measure))]
    assert raw_controls(tsv) == []
    # CSV quotes: every record has the header's three fields, the only raw controls are
    # tabs and newlines inside quoted cells, and the cells read back as terminal_safe names
    csv_text = terminal_safe(render_frame(frame, OutputFormat.csv))
    rows = list(csv.reader(io.StringIO(csv_text)))
    assert [len(r) for r in rows] == [3, 3, 3]
    assert rows[1][0] == terminal_safe(csv_cell(escape_name(run, keep="\t\n\r")))
    assert raw_controls(csv_text, "\t\n") == []  # a tab is a plain CSV character


@pytest.mark.parametrize("fmt", ["table", "tsv", "csv", "latex", "trec", "md"])
def test_an_escape_character_and_its_escape_text_print_differently(fmt):
    # a run named ESC[31m and one named with the four characters backslash x 1 b: without the
    # backslash doubled, both print as \x1b[31m in every text layout
    real, literal = "\x1b[31mred", "\\x1b[31mred"
    frame = pd.DataFrame({"run": [real, literal], "measure": ["AP", "AP"], "topic": ["all"] * 2,
                          "value": [0.25, 0.5]})
    if fmt in ("table", "tsv", "csv"):
        text = terminal_safe(render_frame(frame, OutputFormat(fmt)))
        lines = text.splitlines()[1:]
    elif fmt == "latex":
        text = terminal_safe(to_latex(frame))
        lines = [ln for ln in text.splitlines() if "red" in ln]
    elif fmt == "trec":
        text = terminal_safe(to_trec_eval(frame, per_topic=False))
        lines = [ln for ln in text.splitlines() if "red" in ln]
    else:
        from irstab.report.render import md_escape

        lines = [md_escape(real), md_escape(literal)]
    shown = [ln[:ln.index("red")].split("\t")[-1].strip() for ln in lines]  # the name's cell
    assert len(shown) == 2 and shown[0] != shown[1], lines
    assert raw_controls("\n".join(lines), "\t\n") == []


def test_warnings_name_an_escape_character_and_its_text_differently(tmp_path, capsys):
    # two systems with the same scores (tied means, identical pairs), one named with an
    # escape character and one with the text backslash x 1 b: the warnings keep them apart
    real, literal = "a\x1b[31mRED", "a\\x1b[31mRED"
    rows = {real: [0.1, 0.5, 0.3, 0.7], literal: [0.1, 0.5, 0.3, 0.7], "c": [0.2, 0.1, 0.6, 0.4]}
    path = tmp_path / "s.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["system", "t1", "t2", "t3", "t4"])
        for name, v in rows.items():
            w.writerow([name, *v])
    code = irstab.cli.main(["compare", "-s", str(path), "-B", "200"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert raw_controls(err, "\n") == []
    tied = [ln for ln in err.splitlines() if "tied mean scores" in ln]
    pair = {escape_name(real) + "=" + escape_name(literal),
            escape_name(literal) + "=" + escape_name(real)}
    assert tied and any(p in tied[0] for p in pair), err


# every command that prints a header, caption or note naming the measure, in every format
# whose lines are the output's own structure (JSON escapes by itself)
_HEADERS = {
    "stability": (["stability"], ("table", "tsv", "csv")),
    "topics": (["topics"], ("table", "tsv", "csv")),
    "compare": (["compare"], ("table", "tsv", "csv")),
    "systems": (["systems"], ("table", "tsv", "csv", "markdown", "latex")),
    "calibrate": (["calibrate", "-R", "20", "-B", "100", "--verdict-replicates", "0"],
                  ("table", "tsv", "csv")),
    "design": (["design", "power"], ("table", "tsv", "csv")),
}


def _long(path, measure: str, n_topics: int = 12):
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(["run", "measure", "topic", "value"])
    for s in range(6):
        for t in range(n_topics):
            w.writerow([f"s{s}", measure, f"t{t}",
                        f"{(s * 7 + t * 3) % 11 / 12 + s / 40:.3f}"])
    path.write_text(text.getvalue())
    return path


@pytest.mark.parametrize("command", sorted(_HEADERS))
@pytest.mark.parametrize("name", NASTY[:4])
def test_a_measure_name_cannot_forge_a_header_line(tmp_path, capsys, command, name):
    # issue 41 item 7: `calibrate` and `systems` printed the measure raw in their header
    # (a line "verdict: keep base (forged)" of its own); every header goes through the
    # one escaper now. The lines counted: none starts with the payload.
    args, formats = _HEADERS[command]
    path = _long(tmp_path / "long.csv", name)
    for fmt in formats:
        if command == "calibrate" and fmt != "table":
            continue  # its tsv/csv are one row per test: the table holds the headers
        code, out, err = cli(capsys, *args, "-s", path, "-f", fmt)
        if code != 0:  # a reader that refuses the name (a CR inside quotes) names the file
            assert str(path) in err and out == "", (fmt, err)
            continue
        # CSV quotes a line break inside a cell (one record, as a CSV reader sees it)
        lines = ([r[0] for r in csv.reader(io.StringIO(out)) if r] if fmt == "csv"
                 else out.splitlines())
        forged = [ln for ln in lines if ln.lstrip("#% ").startswith("verdict:")]
        assert forged == [], (fmt, forged)
        assert raw_controls(out, "\t\n" if fmt != "csv" else "\t\n\r") == [], fmt
