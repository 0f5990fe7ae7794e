"""A newcomer's first errors, from the command line (issue 41, items 12-15).

The files swapped (the run where the qrels go), a README in the run directory, a run
without its Q0 column, qrels without the iteration column, a mistyped measure: each is
exit 1 with one line on stderr naming the file and line (or the measure) and saying what
the input looks like, or (a README among the runs) a warning naming what is left out.
Each case is tested on the example collection shipped in ``data/example`` (12 simulated
runs, 30 topics) and on generated variants.

Reference values: nDCG@10 of sim01 and sim02 as ``irstab evaluate`` gives them on the
files as shipped (0.4707, 0.5812; ``tests/cli/test_bad_input_io.py`` anchors sim01); a run
directory holding other files must give the same values.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import irstab.cli
from irstab.errors import IRStabWarning, MeasureError
from irstab.metrics import parse_measure

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"
QRELS = EXAMPLE / "qrels.txt"
SIM01 = EXAMPLE / "runs" / "sim01"
SIM02 = EXAMPLE / "runs" / "sim02"
NDCG10 = {"sim01": 0.4707110830, "sim02": 0.5812}

SETTINGS = settings(
    max_examples=40,
    deadline=None,  # the CLI imports lazily and the machine may be shared
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def error_line(capsys, *argv) -> str:
    """The one ``irstab: error:`` line of a command that must fail (exit 1, nothing on stdout)."""
    code, out, err = cli(capsys, *argv)
    assert code == 1 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("irstab: error: "), err
    return lines[0]


def ndcg10(capsys, *runs) -> tuple[dict, str]:
    code, out, err = cli(capsys, "evaluate", QRELS, *runs, "-m", "nDCG@10", "-f", "tsv")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    return {r[0]: float(r[3]) for r in rows}, err


def lines_of(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


def write(path: Path, rows) -> Path:
    path.write_text("".join(" ".join(r) + "\n" for r in rows))
    return path


RUN_LAYOUT = "topic q0 docid rank score tag"
QRELS_LAYOUT = "topic iteration docid grade"
A_RUN = "this looks like a run file (topic Q0 docid rank score tag), not qrels: the qrels come first"
A_QRELS = "this looks like a qrels file (topic iteration docid grade), not a run: the qrels come first"


# ------------------------------------------------------------------ item 12: files swapped


def test_swapped_files_count_the_fields_and_say_the_qrels_come_first(capsys):
    # `irstab evaluate run qrels`: the run's first line has 6 fields (it said "found 5")
    line = error_line(capsys, "evaluate", SIM01, QRELS)
    assert line.startswith(f"irstab: error: {SIM01}:1: expected 4 fields ({QRELS_LAYOUT}), "
                           "found 6; " + A_RUN)


def test_a_seven_field_run_given_as_qrels_says_found_7(capsys, tmp_path):
    run = write(tmp_path / "run7", [r + ["x"] for r in lines_of(SIM01)])
    line = error_line(capsys, "evaluate", run, QRELS)
    assert f"{run}:1: expected 4 fields ({QRELS_LAYOUT}), found 7; {A_RUN}" in line


def test_qrels_given_as_a_run_says_so(capsys):
    line = error_line(capsys, "evaluate", QRELS, QRELS)
    assert f"{QRELS}:1: expected 6 fields ({RUN_LAYOUT}), found 4; {A_QRELS}" in line


WORD = st.text("abcdefghxyzQ0123456789.-_", min_size=1, max_size=6)
SEPARATOR = st.sampled_from([" ", "  ", "\t", " \t "])


@SETTINGS
@given(kind=st.sampled_from(["qrels", "run"]), n=st.integers(1, 9),
       position=st.integers(0, 4), fields=st.lists(WORD, min_size=9, max_size=9),
       sep=SEPARATOR, blanks=st.integers(0, 2))
def test_field_counts_1_to_9_are_counted_right(capsys, kind, n, position, fields, sep, blanks):
    # One line of n fields among well-formed lines, wherever it is (the first line was
    # miscounted: pandas took its extra fields as an index). The expected line and count
    # follow the readers' rule, written here: the first non-blank line decides the layout
    # (a run may have 5 fields on every line), the first line that differs is named.
    good = ["1 0 d{} 1", "1 Q0 d{} 1 2.5 tag"][kind == "run"]
    allowed = {"qrels": {4}, "run": {5, 6}}[kind]
    full = 4 if kind == "qrels" else 6
    assume(n not in allowed or position == 0)  # a 5/6-field line among runs may be right
    rows = [good.format(i) for i in range(5)]
    rows.insert(position, sep.join(fields[:n]))
    text = "\n" * blanks + "\n".join(rows) + "\n"
    counts = [len(r.split()) for r in rows]
    expected = counts[0] if counts[0] in allowed else full
    bad = next((i for i, c in enumerate(counts) if c != expected), None)
    assume(bad is not None)  # a first line of an allowed count makes a consistent file
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "f"
        f.write_text(text)
        argv = ["evaluate", f, SIM01] if kind == "qrels" else ["evaluate", QRELS, f]
        line = error_line(capsys, *argv)
    assert f"{f}:{blanks + bad + 1}: expected {expected} fields" in line
    assert f", found {counts[bad]}" in line


TOPIC = st.sampled_from(["1", "19335", "q7", "TUA1-1"])
DOCID = st.sampled_from(["d1", "D00169", "8841823", "clueweb09-en0000-00-00000"])
RANK = st.integers(1, 1000).map(str)
SCORE = st.floats(-100, 100, allow_nan=False).map(lambda x: f"{x:.4f}")
TAG = st.text("abcdefgh_-", min_size=1, max_size=8).filter(lambda t: t[0].isalpha())
GRADE = st.integers(-2, 4).map(str)


@SETTINGS
@given(rows=st.lists(st.tuples(TOPIC, DOCID, RANK, SCORE, TAG), min_size=1, max_size=4),
       tagless=st.booleans())
def test_any_run_given_as_qrels_says_the_qrels_come_first(capsys, rows, tagless):
    with tempfile.TemporaryDirectory() as d:
        run = write(Path(d) / "run", [(t, "Q0", doc, r, s) + (() if tagless else (tag,))
                                      for t, doc, r, s, tag in rows])
        line = error_line(capsys, "evaluate", run, SIM01)
    assert f"{run}:1: " in line and A_RUN in line


@SETTINGS
@given(rows=st.lists(st.tuples(TOPIC, DOCID, GRADE), min_size=1, max_size=4))
def test_any_qrels_given_as_a_run_says_so(capsys, rows):
    with tempfile.TemporaryDirectory() as d:
        qrels = write(Path(d) / "qrels", [(t, "0", doc, g) for t, doc, g in rows])
        line = error_line(capsys, "evaluate", QRELS, qrels)
    assert f"{qrels}:1: expected 6 fields ({RUN_LAYOUT}), found 4; {A_QRELS}" in line


# ------------------------------------------------------------------ item 13: not runs in a run directory


def run_directory(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(SIM01, runs / "sim01")
    shutil.copy(SIM02, runs / "sim02")
    return runs


def test_a_readme_in_the_run_directory_is_left_out_with_a_warning(capsys, tmp_path):
    # It stopped every command ("expected 6 fields, found 7").
    runs = run_directory(tmp_path)
    (runs / "README.md").write_text("# The runs of our group\n\nOne file per run.\n")
    (runs / "README").write_text("Runs submitted to the track, see below.\n")
    (runs / "notes.txt").write_text("These were run on the new index\nwith 2 shards\n")
    (runs / "config.json").write_text('{"k1": 0.9, "b": 0.4}\n')
    (runs / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1\x00")
    values, err = ndcg10(capsys, runs)
    assert values == pytest.approx(NDCG10, abs=1e-4)
    warning = [w for w in err.splitlines() if w.startswith("irstab: warning:")]
    assert len(warning) == 1, err
    for name in ("README.md", "README ", "notes.txt", "config.json"):
        assert name in warning[0]
    assert "'These were run on the new index' is no TREC line" in warning[0]
    assert ".DS_Store" not in warning[0]  # hidden and no TREC data: left out as ls leaves it


def test_a_hidden_file_holding_a_run_is_named_in_the_warning(capsys, tmp_path):
    runs = run_directory(tmp_path)
    shutil.copy(SIM01, runs / ".sim03")
    values, err = ndcg10(capsys, runs)
    assert set(values) == {"sim01", "sim02"}
    assert ".sim03 (a hidden file, though its first line is a TREC line)" in err


def test_a_readme_given_as_a_run_says_it_is_no_run_file(capsys, tmp_path):
    # `irstab evaluate qrels runs/*` hands the README over as a run: an error, not a skip
    readme = tmp_path / "README.md"
    readme.write_text("# Runs\n\nThe runs of 2019.\n")
    line = error_line(capsys, "evaluate", QRELS, SIM01, readme)
    assert f"{readme}:1: expected 6 fields ({RUN_LAYOUT}), found 2; this does not look like a " \
           "run file (its first line is no TREC line): leave it out of the runs" in line


def test_qrels_in_the_run_directory_are_an_error_saying_so(capsys, tmp_path):
    runs = run_directory(tmp_path)
    shutil.copy(QRELS, runs / "qrels.txt")
    line = error_line(capsys, "evaluate", QRELS, runs)
    assert f"{runs / 'qrels.txt'}:1: expected 6 fields" in line and A_QRELS in line


NAME = st.text("abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=10)
PROSE = st.lists(st.text("abcdefghij,;:!?'()", min_size=1, max_size=9), min_size=1, max_size=9)
NOT_RUN_NAMES = st.one_of(
    st.tuples(st.sampled_from(["README", "readme", "ReadMe", "LICENSE", "CHANGELOG"]),
              st.sampled_from(["", ".md", ".txt", ".rst"])).map("".join),
    st.tuples(NAME, st.sampled_from([".md", ".json", ".py", ".yaml", ".ipynb", ".html",
                                     ".PDF", ".sh"])).map("".join),
)


@SETTINGS
@given(named=st.lists(NOT_RUN_NAMES, max_size=3, unique_by=str.lower),
       prose=st.lists(st.tuples(NAME, st.sampled_from(["", ".txt", ".tsv", ".log"])).map("".join),
                      max_size=2, unique=True),
       hidden=st.lists(NAME.map(lambda n: "." + n), max_size=2, unique=True),
       first=PROSE, run_like_content=st.booleans())
def test_files_plainly_not_runs_are_named_and_the_runs_read(capsys, named, prose, hidden,
                                                            first, run_like_content):
    # Files named as documents, code or data are left out whatever they hold; others whose
    # first line is prose (no TREC line) too; hidden files without a word.
    names = [n for n in named + prose + hidden if not n.startswith("sim0")]
    assume(len({n.lower() for n in names}) == len(names))
    with tempfile.TemporaryDirectory() as d:
        runs = run_directory(Path(d))
        for n in names:
            content = (SIM01.read_text() if run_like_content and n in named
                       else " ".join(first) + "\n2019 results\n")
            (runs / n).write_text(content)
        values, err = ndcg10(capsys, runs)
    assert values == pytest.approx(NDCG10, abs=1e-4)
    warnings = [w for w in err.splitlines() if w.startswith("irstab: warning:")]
    shown = [n for n in names if not n.startswith(".")]
    assert len(warnings) == (1 if shown else 0), err
    for n in shown:
        assert re.search(rf"[:;] {re.escape(n)} \(", warnings[0]), (n, warnings[0])
    for n in hidden:
        assert f" {n} (" not in err


@SETTINGS
@given(name=NAME.filter(lambda n: n.lower() not in ("readme", "license", "changelog",
                                                    "copying") and not n.startswith("sim0")),
       suffix=st.sampled_from(["", ".txt", ".run", ".tsv", ".gz"]),
       line=st.integers(2, 40), extra=st.sampled_from(["x", "x y", ""]))
def test_a_run_with_a_bad_line_later_is_never_left_out(capsys, name, suffix, line, extra):
    # Whatever its name (but a README's or a document's), a file whose first line is a
    # run line is read as a run: its bad line is an error naming the file and the line.
    rows = lines_of(SIM02)
    rows[line - 1] = rows[line - 1][:5] if not extra else rows[line - 1] + extra.split()
    found = len(rows[line - 1])
    with tempfile.TemporaryDirectory() as d:
        runs = run_directory(Path(d))
        (runs / "sim02").unlink()
        bad = write(runs / (name + suffix), rows)
        message = error_line(capsys, "evaluate", QRELS, runs)
    assert f"{bad}:{line}: expected 6 fields ({RUN_LAYOUT}), found {found}" in message


# ------------------------------------------------------------------ item 14: a column missing


def test_a_run_without_q0_says_the_q0_column_is_missing(capsys, tmp_path):
    # It said "score 'sim01' is not a number".
    run = write(tmp_path / "noq0", [[r[0], *r[2:]] for r in lines_of(SIM01)])
    line = error_line(capsys, "evaluate", QRELS, run)
    assert f"{run}:1: score 'sim01' is not a number; the Q0 column seems to be missing (the " \
           "line reads as topic docid rank score tag): a run line is topic Q0 docid rank " \
           "score tag, e.g. '01 Q0 D00169 1 4.4606 sim01'" in line


def test_qrels_without_the_iteration_column_say_so(capsys, tmp_path):
    qrels = write(tmp_path / "q3", [[r[0], r[2], r[3]] for r in lines_of(QRELS)])
    line = error_line(capsys, "evaluate", qrels, SIM01)
    assert f"{qrels}:1: expected 4 fields ({QRELS_LAYOUT}), found 3; the iteration column " \
           "seems to be missing (the line reads as topic docid grade): a qrels line is topic " \
           "iteration docid grade, e.g. '01 0 D00004 0'" in line


MISSING_HINT = {
    "q0": "the Q0 column seems to be missing",
    "rank": "a rank or a score column seems to be missing",
    "score": "a rank or a score column seems to be missing",
    "q0+tag": "the Q0 and tag columns seem to be missing",
}


@SETTINGS
@given(rows=st.lists(st.tuples(TOPIC, DOCID.filter(lambda d: d != "0"), RANK, SCORE, TAG),
                     min_size=1, max_size=4, unique_by=lambda r: (r[0], r[1])),
       missing=st.sampled_from(["q0", "rank", "score", "tag", "q0+tag"]))
def test_a_run_missing_a_column_names_it(capsys, rows, missing):
    # The one column a run may leave out is the tag (5 fields: read, named after the file);
    # any other is named from the content. Scores are written with 4 decimals, so a run
    # without Q0 and tag has a score that is no integer (else it reads as qrels).
    drop = {"q0": {1}, "rank": {3}, "score": {4}, "tag": {5}, "q0+tag": {1, 5}}[missing]
    lines = [[f for i, f in enumerate((t, "Q0", doc, r, s, tag)) if i not in drop]
             for t, doc, r, s, tag in rows]
    if missing == "q0+tag":
        assume(not re.fullmatch(r"[+-]?\d+", lines[0][3]))
    with tempfile.TemporaryDirectory() as d:
        run = write(Path(d) / "run", lines)
        if missing == "tag":
            code, out, err = cli(capsys, "evaluate", QRELS, run, "-m", "P@5")
            assert code == 0, err
            return
        line = error_line(capsys, "evaluate", QRELS, run)
    assert f"{run}:1: " in line and MISSING_HINT[missing] in line


@SETTINGS
@given(rows=st.lists(st.tuples(TOPIC, DOCID, GRADE), min_size=1, max_size=4,
                     unique_by=lambda r: (r[0], r[1])))
def test_any_qrels_without_the_iteration_column_say_so(capsys, rows):
    with tempfile.TemporaryDirectory() as d:
        qrels = write(Path(d) / "q", rows)
        line = error_line(capsys, "evaluate", qrels, SIM01)
    assert f"{qrels}:1: expected 4 fields ({QRELS_LAYOUT}), found 3; the iteration column" in line


# ------------------------------------------------------------------ item 15: measure suggestions


@pytest.mark.parametrize("typed, suggestion", [
    ("nDCG10", "nDCG@10"),  # it suggested nDCG: the cutoff counts
    ("ndcg_cut10", "ndcg_cut.10 (nDCG@10)"),  # it suggested nothing
    ("ndgc@10", "nDCG@10"),  # a transposition; it suggested nothing
    ("nDCG@1O", "nDCG@10"),  # a letter O for a zero: a parse error, suggested too
    ("P_1O", "P_10 (P@10)"),
    ("recip_rnak", "recip_rank (RR)"),
    ("nDGC(gain=exp)@20", "nDCG(gain=exp)@20"),  # the user's parameters kept
    ("mine=ndcg10", "mine=nDCG@10"),
])
def test_a_mistyped_measure_gets_the_nearest_spelling(capsys, typed, suggestion):
    line = error_line(capsys, "evaluate", QRELS, SIM01, "-m", typed)
    assert f"(did you mean {suggestion}?)" in line


def test_a_measure_far_from_every_name_gets_no_guess(capsys):
    line = error_line(capsys, "evaluate", QRELS, SIM01, "-m", "frobnicate@10")
    assert "unknown measure 'frobnicate'" in line and "did you mean" not in line


def osa(a: str, b: str) -> int:
    """Optimal string alignment distance, written out here (the oracle of the property)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


# What users type, in both grammars (a parenthesised part is kept as typed).
SPELLINGS = ["nDCG@10", "nDCG@20", "AP", "AP(rel=2)", "P@5", "Recall@100", "RR", "bpref",
             "R-prec", "ERR@20", "RBP(p=0.8)", "nDCG(gain=exp)@10", "ndcg_cut.10", "P.10",
             "P_20", "map", "recip_rank", "Rprec", "recall.1000", "ndcg", "infAP", "success.5"]
EDIT_CHARS = "abcdgnprtxACDGPR0123456789@._-"


def _strip(text: str) -> str:
    return re.sub(r"\(.*\)", "", text).lower()


@settings(max_examples=300, deadline=None)
@given(spelling=st.sampled_from(SPELLINGS), edit=st.sampled_from(["ins", "del", "sub", "swap"]),
       where=st.integers(0, 100), char=st.sampled_from(EDIT_CHARS))
def test_a_near_miss_gets_a_suggestion_within_its_distance(spelling, edit, where, char):
    # One edit outside the parameters. If the result is no measure (an unknown name or
    # malformed text), the error suggests a spelling at most one edit away (the intended
    # one is, so the nearest is no farther). Other errors name the parameter or cutoff.
    params = re.search(r"\(.*\)", spelling)
    outside = [i for i in range(len(spelling) + 1)
               if params is None or not params.start() < i < params.end()]
    i = outside[where % len(outside)]
    typo = {"ins": spelling[:i] + char + spelling[i:],
            "del": spelling[:i] + spelling[i + 1:],
            "sub": spelling[:i] + char + spelling[i + 1:],
            "swap": spelling[:i] + spelling[i + 1:i + 2] + spelling[i:i + 1] + spelling[i + 2:]}[edit]
    assume(typo.strip() and typo.lower() != spelling.lower())
    assume(params is None or params.group(0) in typo)  # the edit did not touch the parameters
    try:
        parse_measure(typo)
    except MeasureError as exc:
        message = str(exc)
    else:
        assume(False)  # the edit made another measure (P@5 -> P@50)
    assume(message.startswith(("unknown measure", "cannot parse measure")))
    m = re.search(r"\(did you mean (\S+?)(?: \(.*\))?\?\)", message)
    assert m is not None, (typo, message)
    assert osa(_strip(m.group(1)), _strip(typo)) <= osa(_strip(spelling), _strip(typo)) <= 1


def test_a_readme_in_an_assessor_directory_is_left_out_with_a_warning(tmp_path, capsys):
    # the same rule as the run directory: a README beside the assessors' qrels stopped the
    # study ("expected 4 fields"); it is left out and named, the qrels read
    from irstab.collection.assessors import read_assessor_qrels

    example = Path(__file__).resolve().parents[2] / "data" / "example"
    d = tmp_path / "assessors"
    d.mkdir()
    for name in ("a1.txt", "a2.txt"):
        shutil.copy(example / "qrels.txt", d / name)
    (d / "README.md").write_text("# Notes\nJudged by two people in 2026.\n")
    with pytest.warns(IRStabWarning, match=r"not read as qrels: README\.md"):
        got = read_assessor_qrels(d)
    assert list(got) == ["a1", "a2"]
