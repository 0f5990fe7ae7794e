"""trec_eval's options on ``irstab evaluate``: -n, -J, -M, --trec-eval 9, runid/num_q/relstring.

Expected numbers are worked out by hand in the comments from trec_eval 10.0's definitions
(``trec_eval.c``, ``form_res_rels.c``, ``m_*.c``); the deep run and the single-precision tie
are also checked against pytrec_eval (trec_eval 9's C code), which reads every line of a run
and compares scores as C floats. The byte-for-byte comparison with trec_eval 10.0 on DL-2019
is ``tests/trec_eval10/``.
"""

from __future__ import annotations

import math

import pytest

import irstab.cli

# topic 1: a (grade 1), b (0), c (2) judged, x unjudged; topic 2: a (1), b (0)
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 b 0\n"
# ranks, topic 1: x (unjudged), a, b, c; topic 2: b, a
RUN = ("1 Q0 x 1 4 r\n1 Q0 a 2 3 r\n1 Q0 b 3 2 r\n1 Q0 c 4 1 r\n"
       "2 Q0 b 1 2 r\n2 Q0 a 2 1 r\n")


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels", tmp_path / "r"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def lines(out):
    return [line.split("\t") for line in out.splitlines()]


def test_no_summary_prints_the_topic_lines_only(files, capsys):
    # P@1: topic 1 ranks x (unjudged: not relevant) first -> 0; topic 2 ranks b (0) -> 0
    code, out, err = cli(capsys, "evaluate", *files, "-m", "P.1", "-f", "trec", "-q", "-n")
    assert code == 0, err
    assert lines(out) == [["P_1" + " " * 19, "1", "0.0000"], ["P_1" + " " * 19, "2", "0.0000"]]
    code, out, err = cli(capsys, "evaluate", *files, "-m", "official", "-f", "trec", "-n")
    assert code == 0 and out == ""  # trec_eval -n without -q prints nothing
    # other layouts: -n drops the summary rows
    code, out, err = cli(capsys, "evaluate", *files, "-m", "P@1", "-f", "csv", "-q", "-n")
    assert code == 0 and [r[2] for r in (x.split(",") for x in out.splitlines()[1:])] == ["1", "2"]


def test_judged_only_drops_unjudged_documents(files, capsys):
    # -J: topic 1 becomes a, b, c (x removed, the rest move up): P@1 = 1, map = (1/1 + 2/3)/2
    # = 5/6, num_ret 3; topic 2 unchanged: b, a: P@1 0, map 1/2, num_ret 2.
    # Means: P_1 1/2, map (5/6 + 1/2)/2 = 2/3; num_ret sums to 5
    code, out, err = cli(capsys, "evaluate", *files, "-m", "P.1", "-m", "map", "-m", "num_ret",
                         "-f", "trec", "-J")
    assert code == 0, err
    got = {r[0].rstrip(): r[2] for r in lines(out)}
    assert got == {"num_ret": "5", "map": f"{2 / 3:6.4f}", "P_1": "0.5000"}
    # without -J: topic 1 map (1/2 + 2/4)/2 = 1/2, P@1 0
    code, out, err = cli(capsys, "evaluate", *files, "-m", "P.1", "-m", "map", "-f", "trec")
    assert {r[0].rstrip(): r[2] for r in lines(out)} == {"map": "0.5000", "P_1": "0.0000"}


def test_runid_num_q_and_relstring_are_trec_eval_lines(files, capsys):
    code, out, err = cli(capsys, "evaluate", *files, "-m", "num_q", "-m", "runid", "-m",
                         "relstring", "-f", "trec", "-q")
    assert code == 0, err
    # relstring: topic 1 x, a, b, c -> '-102' (not in the qrels: '-'); topic 2 b, a -> '01'
    assert lines(out) == [["relstring" + " " * 13, "1", "'-102'"],
                          ["relstring" + " " * 13, "2", "'01'"],
                          ["runid" + " " * 17, "all", "r"], ["num_q" + " " * 17, "all", "2"]]
    # the numeric layouts have no such lines: said on stderr, the measures still shown
    code, out, err = cli(capsys, "evaluate", *files, "-m", "all_trec", "-f", "csv")
    assert code == 0 and "relstring" in err and "runid" in err
    assert "relstring" not in out and "RelString" not in out
    code, out, err = cli(capsys, "evaluate", *files, "-m", "relstring", "-f", "table")
    assert code == 1 and "-f trec" in err and out == ""


def test_runs_are_read_to_their_end_with_trec_eval_names(tmp_path, capsys):
    # topic 1: relevant documents r1..r10 at ranks 500, 1500, ..., 9500 of a 10,000-deep run.
    # AP over every rank (trec_eval): (1/10) sum_k k / (500 + 1000 (k - 1)) = 0.0011935...;
    # cut at 1,000 ranks: (1/10)(1/500) = 0.0002
    q, r = tmp_path / "qrels", tmp_path / "deep"
    q.write_text("".join(f"1 0 r{k} 1\n" for k in range(1, 11)))
    rel_at = {500 + 1000 * (k - 1): f"r{k}" for k in range(1, 11)}
    r.write_text("".join(f"1 Q0 {rel_at.get(i, f'n{i}')} {i} {10000 - i} deep\n"
                         for i in range(1, 10001)))
    full = sum(k / (500 + 1000 * (k - 1)) for k in range(1, 11)) / 10
    for argv, want in ((["-m", "map", "-f", "trec"], full), (["-m", "map", "-f", "tsv"], full),
                       (["-m", "AP", "-f", "tsv"], 0.0002),
                       (["-m", "map", "-M", "1000", "-f", "tsv"], 0.0002)):
        code, out, err = cli(capsys, "evaluate", q, r, *argv)
        assert code == 0, err
        assert float(out.split()[-1]) == pytest.approx(want, abs=5e-5 if "trec" in argv else 1e-12)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"1": {doc: 10000.0 - i for i, doc in
                 ((i, rel_at.get(i, f"n{i}")) for i in range(1, 10001))}}
    theirs = pytrec_eval.RelevanceEvaluator({"1": {f"r{k}": 1 for k in range(1, 11)}},
                                            {"map"}).evaluate(run)
    assert theirs["1"]["map"] == pytest.approx(full, abs=1e-12)
    code, out, err = cli(capsys, "evaluate", "--help")
    assert "else 1000" in " ".join(out.split())  # where irstab keeps a depth, its help says so


def test_cutoff_past_the_depth_reads_the_cut_run(files, capsys):
    # trec_eval -M 2 -m P.4: topic 1 keeps x, a -> 1 relevant of 4 -> 0.25; topic 2 b, a
    # -> 1/4; mean 0.25. The canonical spelling keeps irstab's refusal.
    code, out, err = cli(capsys, "evaluate", *files, "-M", "2", "-m", "P.4", "-f", "trec")
    assert code == 0, err
    assert lines(out) == [["P_4" + " " * 19, "all", "0.2500"]]
    code, out, err = cli(capsys, "evaluate", *files, "-M", "2", "-m", "P@4", "-f", "tsv")
    assert code == 1 and "depth" in err


def test_trec_eval_9_compares_scores_in_single_precision(tmp_path, capsys):
    # a (not relevant) scores 1.00000001, z (relevant) 1.0: distinct doubles, one float32.
    # trec_eval 10 ranks a first (P@1 = 0); trec_eval 9 and pytrec_eval tie them and break
    # the tie by docid descending, z first (P@1 = 1)
    q, r = tmp_path / "qrels", tmp_path / "r"
    q.write_text("1 0 z 1\n1 0 a 0\n")
    r.write_text("1 Q0 a 1 1.00000001 r\n1 Q0 z 2 1.0 r\n")
    results = {}
    for version in ("10", "9"):
        code, out, err = cli(capsys, "evaluate", q, r, "-m", "P.1", "-f", "trec",
                             "--trec-eval", version)
        assert code == 0, err
        results[version] = out.split()[-1]
    assert results == {"10": "0.0000", "9": "1.0000"}
    pytrec_eval = pytest.importorskip("pytrec_eval")
    theirs = pytrec_eval.RelevanceEvaluator({"1": {"z": 1, "a": 0}}, {"P.1"}).evaluate(
        {"1": {"a": 1.00000001, "z": 1.0}})
    assert theirs["1"]["P_1"] == 1.0


def test_trec_eval_9_rounds_recall_levels_as_9(tmp_path, capsys):
    # R = 3, relevant at ranks 2 and 4: iprec_at_recall_0.80 needs lround(2.4) = 2 relevant in
    # trec_eval 10 -> max(2/4) = 0.5; floor(2.4 + 0.9) = 3 in trec_eval 9 -> 0 (3 > 2 found)
    q, r = tmp_path / "qrels", tmp_path / "r"
    q.write_text("1 0 d2 1\n1 0 d4 1\n1 0 z 1\n")
    r.write_text("".join(f"1 Q0 d{i} {i} {10 - i} r\n" for i in range(1, 6)))
    got = {}
    for version in ("10", "9"):
        code, out, err = cli(capsys, "evaluate", q, r, "-m", "iprec_at_recall.0.8", "-f", "trec",
                             "--trec-eval", version)
        assert code == 0, err
        got[version] = float(out.split()[-1])
    assert got == {"10": 0.5, "9": 0.0}
    pytrec_eval = pytest.importorskip("pytrec_eval")
    theirs = pytrec_eval.RelevanceEvaluator({"1": {"d2": 1, "d4": 1, "z": 1}},
                                            {"iprec_at_recall.0.8"}).evaluate(
        {"1": {f"d{i}": float(10 - i) for i in range(1, 6)}})
    assert theirs["1"]["iprec_at_recall_0.80"] == 0.0
    assert math.isclose(got["10"], 0.5)


def test_judged_only_says_where_trec_eval_is_undefined(tmp_path, capsys):
    # -J empties topic 1 (x, y unjudged): trec_eval 10.0 prints -nan for iprec_at_recall_0.00
    # there (0 relevant / 0 retrieved, m_iprec_at_recall.c; so does -f trec, and the mean
    # over topics holds it: -nan) and utility.1,-1,-1,0 = -1 (the relevant a missed);
    # irstab's tables score 0 and say so on stderr. Topic 2 (c relevant at rank 1) scores 1.
    q, r = tmp_path / "qrels", tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r.write_text("1 Q0 x 1 2 r\n1 Q0 y 2 1 r\n2 Q0 c 1 1 r\n")
    code, out, err = cli(capsys, "evaluate", q, r, "-J", "-m", "iprec_at_recall.0", "-f", "trec",
                         "-q")
    assert code == 0, err
    assert [row[2] for row in lines(out)] == ["  -nan", "1.0000", "  -nan"]
    assert "keep no document" in err and "['1']" in err and "-nan" in err
    code, out, err = cli(capsys, "evaluate", q, r, "-J", "-m", "IPrec(recall=0)", "-q")
    assert code == 0 and "keep no document" in err
    assert "0.0000" in out.splitlines()[1] and "nan" not in out  # irstab's own table
    code, out, err = cli(capsys, "evaluate", q, r, "-J", "-m", "map", "-f", "trec")
    assert code == 0 and err == ""  # nothing undefined for AP
