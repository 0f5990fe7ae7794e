"""`irstab compare --informativeness`: the column, JSON, and refusals.

Expected numbers come from the library's :func:`irstab.compare.informativeness`
(tested against its own oracles in tests/compare/test_informativeness.py).
"""

from __future__ import annotations

import json
import warnings

import pytest

import irstab
import irstab.cli
import irstab.cli.compare  # noqa: F401  (registers the command)
from irstab.compare import informativeness
from irstab.simulate import simulate_collection


@pytest.fixture(scope="module")
def coll_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=5, n_topics=8, depth=30, seed=4).write(d)
    return d


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def args(d, *extra):
    return ["compare", d / "qrels.txt", d / "runs", "-m", "AP", "-m", "nDCG",
            "--bootstrap", "100", "--swap-trials", "20", "--informativeness",
            "--min-relevant", "2", "--min-top", "1", *extra]


def test_json_matches_library(capsys, coll_dir):
    code, out, err = cli(capsys, *args(coll_dir, "--format", "json"))
    assert code == 0, err
    recs = {r["measure"]: r for r in json.loads(out)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = irstab.Collection.from_files(coll_dir / "qrels.txt", coll_dir / "runs")
    lib = informativeness(coll, ["AP", "nDCG"], min_relevant=2, min_top=1, seed=0).summary()
    for row in lib.itertuples():
        got = recs[row.measure]["informativeness"][f"rel>={row.level}"]
        assert got["mean_rms"] == pytest.approx(row.mean_rms, abs=1e-12)
        assert got["n_cells"] == row.n_cells


def test_table_has_the_column(capsys, coll_dir):
    code, out, err = cli(capsys, *args(coll_dir))
    assert code == 0, err
    assert "inform. RMS rel>=1" in out and "maximum-entropy PR curve" in out


@pytest.mark.parametrize("extra, message", [
    (["-m", "ERR"], "no expected value under a product distribution"),
    (["--min-relevant", "100000"], "min_relevant"),
])
def test_refusals(capsys, coll_dir, extra, message):
    code, out, err = cli(capsys, *args(coll_dir, *extra))
    assert code == 1 and message in err and out == ""


def test_scores_input_refused(capsys, tmp_path):
    f = tmp_path / "AP.csv"
    f.write_text("system,1,2\na,0.1,0.2\nb,0.3,0.1\n")
    code, out, err = cli(capsys, "compare", "--scores", f, "--informativeness")
    assert code == 1 and "needs the ranked lists" in err
