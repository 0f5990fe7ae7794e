"""Issue 24, point 1: a score matrix with topics in rows (gt4ireval's layout) gives the right
answer or a warning, by CLI and API.

Oracle: the G-study of the same DL-2019 nDCG@10 matrix written with systems in rows
(Phi 0.924, 43 topics; tests/stability checks that figure against statsmodels and Brennan):
every other layout must give exactly it, or warn that it guessed.
"""

from __future__ import annotations

import json
import warnings

import pytest

import irstab
import irstab.cli
from irstab.errors import IRStabWarning


@pytest.fixture(scope="module")
def matrix(dl2019):
    return irstab.score_matrix(dl2019, "nDCG@10")  # 37 systems x 43 topics


def _write(path, frame, corner):
    lines = [",".join([corner, *map(str, frame.columns)])]
    lines += [",".join([str(i), *(repr(float(v)) for v in row)]) for i, row in
              zip(frame.index, frame.to_numpy())]
    path.write_text("\n".join(lines) + "\n")
    return path


def _phi(capsys, path, *extra):
    code = irstab.cli.main(["stability", "--scores", str(path), "-f", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    row = json.loads(out)[0]
    return row, err


@pytest.mark.parametrize("corner", ["topic", "qid", "query", "Topic"])
def test_topics_in_rows_named_by_the_header_are_read_right(tmp_path, capsys, matrix, corner):
    want = irstab.gstudy(matrix)
    row, err = _phi(capsys, _write(tmp_path / "m.csv", matrix.T, corner))
    assert row["n_systems"] == 37 and row["n_topics"] == 43
    assert row["phi"] == pytest.approx(want.phi(), abs=1e-12)
    assert "guess" not in err


def test_unnamed_corner_with_topic_ids_in_rows_is_transposed_with_a_warning(tmp_path, capsys, matrix):
    want = irstab.gstudy(matrix)
    row, err = _phi(capsys, _write(tmp_path / "m.csv", matrix.T, ""))
    assert row["n_topics"] == 43 and row["phi"] == pytest.approx(want.phi(), abs=1e-12)
    assert "took the systems to be the columns" in err and "--systems" in err


def test_unknown_corner_warns_and_systems_option_decides(tmp_path, capsys, matrix):
    # topic labels that are not integers: nothing tells; the guess (rows) warns
    t = matrix.T.copy()
    t.index = [f"q{x}" for x in t.index]
    path = _write(tmp_path / "m.csv", t, "id")
    row, err = _phi(capsys, path)
    assert row["n_systems"] == 43  # the wrong way round ...
    assert "a guess" in err and "--systems rows|columns" in err  # ... but said so
    row, err = _phi(capsys, path, "--systems", "columns")
    assert row["n_systems"] == 37 and row["phi"] == pytest.approx(irstab.gstudy(matrix).phi(), abs=1e-12)
    assert "guess" not in err


def test_systems_in_rows_stay_quiet(tmp_path, capsys, matrix):
    row, err = _phi(capsys, _write(tmp_path / "m.csv", matrix, "run"))
    assert row["n_systems"] == 37 and "guess" not in err


def test_api_transposed_frame_and_known_systems(tmp_path, matrix, dl2019):
    want = irstab.gstudy(matrix).phi()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # named axes: no guess, no warning
        assert irstab.gstudy(matrix.T).phi() == pytest.approx(want, abs=1e-12)
        assert irstab.gstudy(matrix.T.to_numpy(), systems="columns").phi() == pytest.approx(want, abs=1e-12)
        # run names of the collection identify the axis of a file whose header says nothing
        t = matrix.T.copy()
        t.index = [f"q{x}" for x in t.index]
        got = irstab.read_score_matrix(_write(tmp_path / "k.csv", t, "id"), known_systems=dl2019.systems)
        assert got.shape == (37, 43)
    bare = matrix.T.copy()
    bare.index.name = bare.columns.name = None
    with pytest.warns(IRStabWarning, match="took the systems to be the columns"):
        assert irstab.gstudy(bare).phi() == pytest.approx(want, abs=1e-12)
