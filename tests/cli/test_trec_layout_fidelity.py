"""``irstab evaluate -f trec`` is trec_eval's output: names, sums, num_q, runid, number format.

Oracle: trec_eval 9 through pytrec_eval (its C code) on all 37 DL-2019 runs, at ``-l 1`` and
``-l 2``, for every measure of trec_eval's ``all_trec`` set that trec_eval 9 has (10.0 adds
rbp, rbp_resid and unj, checked against trec_eval 10.0 itself in ``tests/trec_eval10/``),
with irstab's ``--trec-eval 9``. The parser below is written from trec_eval's print format
(``meas_print_single.c``, ``meas_print_final.c``: ``"%-22s\\t%s\\t%6.4f\\n"`` for values,
``"%-22s\\t%s\\t%ld\\n"`` for counts, ``runid`` and ``num_q`` in the ``all`` block), not from
irstab's writer: a script that reads trec_eval's output reads this one.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

import irstab.cli

pytrec_eval = pytest.importorskip("pytrec_eval")

from test_trec_eval_oracle import _plain_qrels, _plain_run  # tests/ is on sys.path

# trec_eval's line: name padded to 22, a tab, the topic, a tab, the value
_LINE = re.compile(r"(?P<name>\S+) *\t(?P<topic>[^\t]+)\t(?P<value>\S+)")
_COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret"}
_GEOMETRIC = {"gm_map", "gm_bpref"}  # summary only; pytrec_eval gives the per-topic logs
# trec_eval 9's all_trec minus what is not a number per topic
_TREC_SPEC = set(pytrec_eval.supported_nicknames["all_trec"]) - {"runid", "num_q", "relstring"}
_NEW_IN_10 = {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"}
# judgments of grade > 0 in DL-2019's qrels: 1601 + 1804 + 697 (awk '$4 > 0'); of grade >= 2:
# 1804 + 697
_RELEVANT = {1: 4102, 2: 2501}


def parse_trec_eval(text: str) -> dict:
    """``{run: {"all": {name: value}, topic: {name: value}}}`` from trec_eval -q output.

    Per-topic lines come before their run's ``runid`` line; ``runid``'s value is the run
    name; counts are integers, relstring a quoted string, every other value has exactly four
    decimals (``%6.4f``).
    """
    runs, pending = {}, {}
    for line in text.splitlines():
        m = _LINE.fullmatch(line)
        assert m is not None, f"not a trec_eval line: {line!r}"
        name, topic, value = m.group("name", "topic", "value")
        assert line.index("\t") == max(22, len(name)), f"name not padded to 22: {line!r}"
        if name == "runid":
            assert topic == "all"
            current = runs.setdefault(value, {"all": {}})
            current.update(pending)
            pending = {}
            continue
        if name in _COUNTS:
            assert re.fullmatch(r"\d+", value), line
            number = int(value)
        elif name == "relstring":
            assert re.fullmatch(r"'[0-9>\-.<]*'", value), line
            number = value.strip("'")
        else:
            assert re.fullmatch(r"-?\d+\.\d{4}", value), line
            number = float(value)
        if topic == "all":
            current["all"][name] = number
        else:
            pending.setdefault(topic, {})[name] = number
    assert not pending, "per-topic lines after the last runid"
    return runs


@pytest.mark.parametrize("level", [1, 2])
def test_trec_layout_equals_trec_eval_for_all_trec(dl2019_dir, capsys, level):
    code = irstab.cli.main([
        "evaluate", str(dl2019_dir / "qrels.txt"), str(dl2019_dir / "runs"),
        "-m", "all_trec", "-l", str(level), "-c", "-q", "-f", "trec", "--trec-eval", "9"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "all_trec" not in err  # every measure of all_trec is computed: nothing to warn of
    ours = parse_trec_eval(out)

    qrels = _plain_qrels(dl2019_dir / "qrels.txt")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, _TREC_SPEC, relevance_level=level)
    paths = sorted((dl2019_dir / "runs").glob("*.gz"))
    assert len(paths) == len(ours) == 37
    worst, compared = 0.0, 0
    for path in paths:
        tag, run = _plain_run(path)
        theirs = evaluator.evaluate(run)
        got = ours[tag]
        assert set(got) - {"all"} == set(theirs)  # the same 43 topics
        names = set(next(iter(theirs.values())))
        # trec_eval's names, nothing else; the gm_ measures and relstring have one line only
        assert set(got["all"]) == (names | {"num_q"} | _NEW_IN_10)
        assert got["all"]["num_q"] == len(theirs)
        for t in theirs:
            assert set(got[t]) == (names - _GEOMETRIC) | {"relstring"} | _NEW_IN_10
        for name in names:
            per_topic = np.array([theirs[t][name] for t in theirs])
            if name in _GEOMETRIC:  # trec_eval's summary: exp(mean of the per-topic logs)
                worst = max(worst, abs(got["all"][name] - math.exp(per_topic.mean())))
                continue
            for t in theirs:
                if name in _COUNTS:
                    assert got[t][name] == int(theirs[t][name]), (tag, t, name)
                else:  # printed with 4 decimals: within half a unit of the last digit
                    worst = max(worst, abs(got[t][name] - theirs[t][name]))
                compared += 1
            if name == "num_rel":  # -c: every relevant judgment of the qrels, whatever -l
                assert got["all"][name] == _RELEVANT[1], tag
                assert per_topic.sum() == _RELEVANT[level], tag
            elif name in _COUNTS:  # trec_eval sums the counts over topics
                assert got["all"][name] == int(per_topic.sum()), (tag, name)
            else:
                worst = max(worst, abs(got["all"][name] - per_topic.mean()))
    assert compared == 37 * 43 * (len(names) - 2)
    assert worst <= 0.5e-4 + 1e-12


def test_complete_num_rel_total_is_the_qrels_count(dl2019_dir, capsys):
    # trec_eval -c prints as num_rel's total the qrels' judgments of grade > 0 (m_num_rel.c),
    # not the sum of its -l 2 lines: 4102 and 2501 on DL-2019 (awk-counted, above)
    run = str(dl2019_dir / "runs" / "TUA1-1.gz")
    for flags, total in ((["-c"], _RELEVANT[1]), ([], _RELEVANT[2])):
        code = irstab.cli.main(["evaluate", str(dl2019_dir / "qrels.txt"), run, "-m", "num_rel",
                                "-l", "2", "-f", "trec", *flags])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert out == f"num_rel               \tall\t{total}\n"


def test_trec_layout_orders_as_trec_eval(dl2019_dir, capsys):
    # trec_eval prints in its measures.c order, whatever the -m order, topics in string order;
    # runid and num_q only with a nickname that holds them (official, all_trec, set) or by name
    def names(*measures):
        argv = ["evaluate", str(dl2019_dir / "qrels.txt"), str(dl2019_dir / "runs" / "TUA1-1.gz"),
                "-f", "trec"] + [x for m in measures for x in ("-m", m)]
        code = irstab.cli.main(argv)
        out, err = capsys.readouterr()
        assert code == 0, err
        return [line.split()[0] for line in out.splitlines()]

    assert names("ndcg_cut.10,P.10,map,num_ret") == ["num_ret", "map", "P_10", "ndcg_cut_10"]
    assert names("ndcg_cut.10", "num_q", "runid") == ["runid", "num_q", "ndcg_cut_10"]
    assert names("runid") == ["runid"]
    assert names("set_map", "official")[:2] == ["runid", "num_q"]


def test_measures_trec_eval_lacks_keep_their_names_and_clashes_stay_canonical(tmp_path, capsys):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 2\n1 0 b 1\n2 0 a 1\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 a 1 1 x\n")
    code = irstab.cli.main(["evaluate", str(q), str(r), "-m", "P@1,P(rel=2)@1,RBP(p=0.8)",
                            "-f", "trec"])
    out, err = capsys.readouterr()
    assert code == 0, err
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    # both would print P_1: they keep irstab's names so neither is mistaken for the other
    assert names == ["P@1", "P(rel=2)@1", "RBP(p=0.8)"]


@pytest.mark.parametrize("name", ["a\tb", "a\nall\tforged", "a\x1b[31mred", "a\rb\x07"])
def test_control_characters_in_run_names_cannot_forge_lines(name, capsys):
    # Issue 26, items 4 and 25: a run name from a DataFrame or Parquet column
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0],
                        "run": [name, name]})
    frame = irstab.evaluate(qrels, run, ["AP"], per_topic=True)
    from irstab.io.layouts import escape_controls, to_trec_eval

    text = to_trec_eval(frame, {"AP": "map"})
    lines = text.splitlines()
    assert len(lines) == 4  # 1 topic line, runid, num_q, map
    assert all(line.count("\t") == 2 for line in lines)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)
    assert lines[1] == "runid                 \tall\t" + escape_controls(name)
    assert escape_controls(name).encode("ascii")  # visible escapes only
