"""``irstab evaluate -f trec`` is trec_eval's output: names, sums, num_q, runid, number format.

Oracle: trec_eval 9 through pytrec_eval (its C code) on all 37 DL-2019 runs, at ``-l 1`` and
``-l 2``, for every measure of trec_eval's ``all_trec`` set that irstab computes. The parser
below is written from trec_eval's print format (``meas_print_single.c``,
``meas_print_final.c``: ``"%-22s\\t%s\\t%6.4f\\n"`` for values, ``"%-22s\\t%s\\t%ld\\n"`` for
counts, ``runid`` and ``num_q`` in the ``all`` block), not from irstab's writer: a script that
reads trec_eval's output reads this one.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import irstab.cli

pytrec_eval = pytest.importorskip("pytrec_eval")

from test_trec_eval_oracle import _plain_qrels, _plain_run  # tests/ is on sys.path

# trec_eval's line: name padded to 22, a tab, the topic, a tab, the value
_LINE = re.compile(r"(?P<name>\S+) *\t(?P<topic>[^\t]+)\t(?P<value>\S+)")
_COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_q"}
# pytrec_eval's names of the measures compared (its supported set minus what irstab lacks)
_TREC_SPEC = {"num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
              "iprec_at_recall", "P", "recall", "infAP", "ndcg", "success", "map_cut", "ndcg_cut",
              "set_P", "set_recall", "set_F"}


def parse_trec_eval(text: str) -> dict:
    """``{run: {"all": {name: value}, topic: {name: value}}}`` from trec_eval -q output.

    Per-topic lines come before their run's ``runid`` line; ``runid``'s value is the run
    name; counts are integers, every other value has exactly four decimals (``%6.4f``).
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
        "-m", "all_trec", "-l", str(level), "-c", "-q", "-f", "trec"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "all_trec: trec_eval's gm_map" in err  # what is not computed is said
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
        assert set(got["all"]) == names | {"num_q"}  # trec_eval's names, nothing else
        assert got["all"]["num_q"] == len(theirs)
        for name in names:
            per_topic = np.array([theirs[t][name] for t in theirs])
            for t in theirs:
                if name in _COUNTS:
                    assert got[t][name] == int(theirs[t][name]), (tag, t, name)
                else:  # printed with 4 decimals: within half a unit of the last digit
                    worst = max(worst, abs(got[t][name] - theirs[t][name]))
                compared += 1
            if name in _COUNTS:  # trec_eval sums the counts over topics
                assert got["all"][name] == int(per_topic.sum()), (tag, name)
            else:
                worst = max(worst, abs(got["all"][name] - per_topic.mean()))
    assert compared == 37 * 43 * 62
    assert worst <= 0.5e-4 + 1e-12


def test_trec_layout_orders_as_trec_eval(dl2019_dir, capsys):
    # trec_eval prints in its measures.c order, whatever the -m order, topics in string order
    code = irstab.cli.main(["evaluate", str(dl2019_dir / "qrels.txt"),
                            str(dl2019_dir / "runs" / "TUA1-1.gz"),
                            "-m", "ndcg_cut.10,P.10,map,num_ret", "-f", "trec"])
    out, err = capsys.readouterr()
    assert code == 0, err
    names = [line.split()[0] for line in out.splitlines()]
    assert names == ["runid", "num_q", "num_ret", "map", "P_10", "ndcg_cut_10"]


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
    assert names == ["runid", "num_q", "P@1", "P(rel=2)@1", "RBP(p=0.8)"]


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
