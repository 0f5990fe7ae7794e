"""Paths whose names hold bytes that are not UTF-8 are read like any other.

Python carries such a name (``q\\xff``) as a lone surrogate; Arrow encodes paths as UTF-8 and
raised ``UnicodeEncodeError`` from inside every command that read a TREC file through it
(a traceback). Oracle: the same files under an ASCII name give the same numbers.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

import irstab
import irstab.cli

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"


@pytest.fixture()
def odd(tmp_path) -> Path:
    d = tmp_path / os.fsdecode(b"q\xff\xfe")
    d.mkdir()
    shutil.copy(EXAMPLE / "qrels.txt", d / "qrels.txt")
    run = sorted((EXAMPLE / "runs").iterdir())[0]
    shutil.copy(run, d / "run.txt")
    table = pa.table({"query_id": ["01", "01"], "doc_id": ["D00169", "D00004"],
                      "score": [2.0, 1.0], "run": ["r", "r"]})
    with open(d / "run.parquet", "wb") as fh:
        pq.write_table(table, fh)
    with open(d / "run.arrow", "wb") as fh:
        feather.write_feather(table, fh)
    return d


@pytest.mark.parametrize("run", ["run.txt", "run.parquet", "run.arrow"])
def test_an_undecodable_directory_name_reads_as_an_ascii_one(odd, tmp_path, run):
    plain = tmp_path / "plain"
    shutil.copytree(odd, plain)
    ours = irstab.evaluate(odd / "qrels.txt", odd / run, ["nDCG@10", "AP"])
    ref = irstab.evaluate(plain / "qrels.txt", plain / run, ["nDCG@10", "AP"])
    assert ours.equals(ref)


def test_the_cli_reads_it_and_names_it_escaped(odd, capsys):
    code = irstab.cli.main(["evaluate", str(odd / "qrels.txt"), str(odd / "run.txt"),
                            "-m", "nDCG@10"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err, err
    code = irstab.cli.main(["evaluate", str(odd / "qrels.txt"), str(odd / "none.txt")])
    out, err = capsys.readouterr()
    assert code == 1 and "no such run file" in err and "Traceback" not in err
