"""Issue 26, items 4 and 25: control characters in run names (from a Parquet ``run`` column)
neither forge lines of a text layout nor reach the terminal raw, in every layout the CLI prints.

Oracle: the bytes themselves: no ESC, BEL, CR or other C0/C1 control reaches stdout or
stderr; the number of lines is what the layout prints for the data, whatever the name.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab.cli
from irstab.io.layouts import escape_controls

_RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what must never be printed


def _files(tmp_path, name):
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"],
                        "score": [2.0, 1.0, 1.0], "run": [name] * 3})
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    return q, path


@pytest.mark.parametrize("fmt, lines", [("table", 4), ("trec", 5), ("latex", 7), ("tsv", 5),
                                        ("csv", 5), ("json", None)])
def test_escape_sequences_never_reach_the_terminal(tmp_path, capsys, fmt, lines):
    name = "evil\x1b]0;owned\x07\x1b[2J\x9b31m\tall\nmap\tall\t1.0000"
    q, run = _files(tmp_path, name)
    measures = "AP,runid,num_q" if fmt == "trec" else "AP"  # trec_eval prints runid if asked
    code = irstab.cli.main(["evaluate", str(q), str(run), "-m", measures, "-q", "-f", fmt])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not _RAW.search(out) and not _RAW.search(err)
    if fmt == "json":
        assert {r["run"] for r in json.loads(out)} == {name}  # JSON keeps the name exactly
    elif fmt == "csv":  # quoted: the reader gets the tab and newline back
        import io

        back = pd.read_csv(io.StringIO(out))
        assert len(back) == 3 and set(back["run"]) == {escape_controls(name).replace("\\t", "\t")
                                                       .replace("\\n", "\n")}
    elif fmt == "tsv":  # no quoting in TSV: tab and newline escaped, one line per record
        assert len(out.splitlines()) == 4 and {ln.count("\t") for ln in out.splitlines()} == {3}
        assert {ln.split("\t")[0] for ln in out.splitlines()[1:]} == {escape_controls(name)}
    else:
        assert len(out.splitlines()) == lines
        assert escape_controls(name) in out or fmt == "latex"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"),
                    min_size=1, max_size=12).filter(lambda s: s.strip()))
def test_any_name_gives_trec_lines_of_three_fields(tmp_path, capsys, name):
    q, run = _files(tmp_path, name)
    code = irstab.cli.main(["evaluate", str(q), str(run), "-m", "AP,num_ret,runid,num_q", "-q",
                            "-f", "trec"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not _RAW.search(out)
    lines = out.splitlines()
    assert len(lines) == 2 * 2 + 4  # 2 topics x 2 measures, runid, num_q, map, num_ret
    assert all(line.count("\t") == 2 for line in lines)
