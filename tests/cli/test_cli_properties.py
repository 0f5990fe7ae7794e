"""Property tests of the command line on generated input, garbage included.

Hypothesis writes TREC qrels and run lines (well-formed, odd and broken), measure
strings (from the grammar and not) and score matrices (numbers, NaN, infinities,
text, missing headers), runs the CLI in-process and checks what every outcome must
satisfy, whatever the input:

* the exit code is 0 or 1 (2 is kept for usage errors, which these are not);
* no traceback, and on exit 1 one ``irstab: error:`` line that names something;
* no NaN printed, neither on stdout nor in the output file;
* with ``-o``, the output file exists after exit 0 and does not after exit 1, and no
  temporary file is left beside it.
"""

from __future__ import annotations

import gzip
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import irstab.cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"
NAN = re.compile(r"\bnan\b", re.IGNORECASE)

SETTINGS = settings(
    max_examples=60,
    deadline=None,  # the CLI imports lazily and the machine may be shared
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def run_cli(capsys, directory: Path, argv: list, output: Path | None) -> tuple[int, str, str]:
    """Run ``irstab argv``; check the properties every run must have; return code, out, err."""
    before = {p.name for p in directory.iterdir()}
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code in (0, 1), (code, err)
    event(f"exit {code}")  # --hypothesis-show-statistics: both outcomes must be exercised
    assert "Traceback" not in out + err
    assert not NAN.search(out), out
    after = {p.name for p in directory.iterdir()}
    new = after - before
    if code == 1:
        errors = [line for line in err.splitlines() if line.startswith("irstab: error:")]
        assert len(errors) == 1, err
        assert len(errors[0]) > len("irstab: error: ") + 5
        assert out == ""
        assert new == set(), new  # nothing half-written, no temporary file
    elif output is not None:
        assert new == {output.name}, new
        assert not NAN.search(output.read_text()), output.read_text()
    return code, out, err


# ------------------------------------------------------------------ TREC lines
# Each file is either clean (every value valid, odd ones included: ties, negative
# grades, ranks beyond 2**53, extreme scores) or dirty (odd values and garbage lines
# mixed in), so that both outcomes, a table and a located error, are exercised.

TOPICS = st.sampled_from(["1", "2", "3", "10", "q"])
DOCS = st.sampled_from(["d1", "d2", "d3", "d4", "d5", "d6"])
GRADES = st.integers(-3, 4).map(str)
BAD_GRADES = st.sampled_from(["99999999999999999999999", "-129", "128", "1.5", "x", "1e3", "٣"])
RANKS = st.one_of(st.integers(0, 1000), st.integers(2**53 - 5, 2**63 - 1)).map(str)
BAD_RANKS = st.sampled_from([str(2**64), "1e20", "nan", "r", "-1e300"])
SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["0", "1", "1", "2.5"]),  # ties
    st.floats(-10, 10).map(lambda x: f"{x:.4f}"),
)
BAD_SCORES = st.sampled_from(["nan", "inf", "-inf", "1e400", "x", "1,5"])
GARBAGE = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    st.lists(st.sampled_from(["1", "Q0", "d1", "2", "0.5", "t", "\t", ""]), max_size=8).map(" ".join),
)


def _mixed(good, bad, clean: bool):
    return good if clean else st.one_of(good, good, bad)


@st.composite
def trec_file(draw, kind: str):
    """Text of a qrels or run file; unique (topic, docid) pairs unless dirty."""
    clean = draw(st.booleans())
    with_tag = draw(st.booleans())
    n = draw(st.integers(1 if kind == "qrels" else 0, 12))
    pairs = draw(st.lists(st.tuples(TOPICS, DOCS), min_size=n, max_size=n,
                          unique=clean or draw(st.booleans())))
    lines = []
    for t, d in pairs:
        if kind == "qrels":
            lines.append(f"{t} 0 {d} {draw(_mixed(GRADES, BAD_GRADES, clean))}")
        else:
            rank, score = draw(_mixed(RANKS, BAD_RANKS, clean)), draw(_mixed(SCORES, BAD_SCORES, clean))
            tag = draw(st.sampled_from(["A"] * 5 + ([] if clean else ["B"])))
            lines.append(f"{t} Q0 {d} {rank} {score}" + (f" {tag}" if with_tag else ""))
    if kind == "qrels" and clean:
        lines.append("1 0 d1 2")  # a relevant document: a clean collection is evaluable
        lines = [line for line in lines if not line.startswith("1 0 d1 ")] + [lines[-1]]
    if not clean and draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(GARBAGE))
    sep = draw(st.sampled_from(["\n", "\r\n", "\n\n"]))
    return sep.join(lines) + ("\n" if lines else "")


@SETTINGS
@given(
    qrels=trec_file("qrels"),
    run=trec_file("run"),
    compress=st.booleans(),
    truncate=st.integers(0, 30),
    order=st.sampled_from(["score", "rank", "file"]),
)
def test_evaluate_on_generated_trec_files(capsys, qrels, run, compress, truncate, order):
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "qrels.txt").write_text(qrels, encoding="utf-8")
        run_path = d / ("run.gz" if compress else "run")
        data = run.encode("utf-8")
        if compress:
            data = gzip.compress(data)
            data = data[: len(data) - truncate] if truncate < 10 else data  # some cut short
        run_path.write_bytes(data)
        out = d / "out.tsv"
        run_cli(capsys, d, ["evaluate", d / "qrels.txt", run_path, "-m", "nDCG@5", "-m", "AP",
                            "-m", "P@3", "--order", order, "-f", "tsv", "-o", out], out)


@SETTINGS
@given(data=st.binary(max_size=200))
def test_evaluate_on_binary_garbage(capsys, data):
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "run").write_bytes(data)
        run_cli(capsys, d, ["evaluate", EXAMPLE / "qrels.txt", d / "run", "-m", "nDCG@10"], None)


# ------------------------------------------------------------------ measure strings

NUMBER = st.one_of(
    st.integers(-3, 20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["0", "1e308", "-1e308", "1e-320", "nan", "inf", "x", ""]),
)
VECTOR = st.lists(NUMBER, min_size=0, max_size=6).map(lambda v: "(" + ",".join(v) + ")")
PARAM_VALUE = st.one_of(
    NUMBER, VECTOR, st.sampled_from(["exp", "linear", "log2", "zipf", "uniform", "ideal"])
)
PARAM_NAME = st.sampled_from(["gain", "discount", "rel", "p", "g", "beta", "version", "bogus"])
NAMES = st.sampled_from(["nDCG", "DCG", "AP", "P", "RR", "RBP", "ERR", "GAP", "xGAP", "eGAP",
                         "CRP", "R-prec", "bpref", "Recall", "Q-measure", "SP_UL", "DCG_UL",
                         "CRP.min_ratio", "nope"])


def measure_string():
    params = st.lists(st.tuples(PARAM_NAME, PARAM_VALUE), max_size=3).map(
        lambda ps: "" if not ps else "(" + ",".join(f"{k}={v}" for k, v in ps) + ")"
    )
    cutoff = st.one_of(st.just(""), st.integers(-2, 200).map(lambda k: f"@{k}"),
                       st.sampled_from(["@", "@x", "@1e3", "@99999999999999999999"]))
    grammar = st.builds(lambda n, p, k: n + p + k, NAMES, params, cutoff)
    return st.one_of(grammar, grammar, grammar, st.text(max_size=30))


@SETTINGS
@given(measures=st.lists(measure_string(), min_size=1, max_size=3))
def test_evaluate_on_generated_measure_strings(capsys, measures):
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        out = d / "out.csv"
        argv = ["evaluate", EXAMPLE / "qrels.txt", EXAMPLE / "runs" / "sim01",
                EXAMPLE / "runs" / "sim02", "-f", "csv", "-o", out]
        for m in measures:
            argv += ["-m", m]
        run_cli(capsys, d, argv, out)


# ------------------------------------------------------------------ score matrices

CELL = st.one_of(st.floats(0, 1).map(lambda x: f"{x:.3f}"), st.sampled_from(["0", "1", "0.5"]))
BAD_CELL = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", "NA", "nan", "inf", "x", "1e400"]),
)


@st.composite
def score_matrix_text(draw):
    clean = draw(st.booleans())
    n_sys, n_top = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    header = draw(st.sampled_from(["wide", "wide-int", "long"] + ([] if clean else ["none", "bad"])))
    cell = _mixed(CELL, BAD_CELL, clean)
    rows = [[f"s{i}", *(draw(cell) for _ in range(n_top))] for i in range(n_sys)]
    if draw(st.booleans()) and len(rows) > 1:
        rows[1][1:] = rows[0][1:]  # identical systems happen
    if header == "long":
        lines = ["system,topic,score"] + [f"{r[0]},t{j},{r[j + 1]}" for r in rows
                                          for j in range(n_top)]
    else:
        head = {"wide": ["system", *(f"t{j}" for j in range(n_top))],
                "wide-int": ["system", *(str(j + 1) for j in range(n_top))],
                "none": None,
                "bad": [draw(st.text(max_size=8)) for _ in range(draw(st.integers(1, 6)))]}
        lines = ([",".join(head[header])] if head[header] is not None else [])
        lines += [",".join(r) for r in rows]
    if not clean and draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(GARBAGE))
    return "\n".join(lines) + "\n"


@SETTINGS
@given(text=score_matrix_text(),
       command=st.sampled_from(["stability", "compare", "design power"]))
def test_score_matrix_commands_on_generated_matrices(capsys, text, command):
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "m.csv").write_text(text, encoding="utf-8")
        (d / "n.csv").write_text(text, encoding="utf-8")
        out = d / "out.json"
        argv = [*command.split(), "--scores", d / "m.csv", "-f", "json", "-o", out]
        if command == "compare":
            argv[2:2] = ["--scores", d / "n.csv", "-B", "20"]
        run_cli(capsys, d, argv, out)
