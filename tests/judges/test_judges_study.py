"""``judge_study``: qrels told from runs by their first line, the answer sentence."""

from __future__ import annotations

import gzip
import warnings

import pytest

from irstab.errors import IRStabError, IRStabWarning
from irstab.io.treclines import file_layout
from irstab.judges.study import judge_study, split_inputs


def _write(path, text):
    path.write_text(text)
    return path


def test_file_layout_reads_the_first_non_blank_line(tmp_path):
    # the layouts of irstab.io.treclines' table, gzip decompressed
    assert file_layout(_write(tmp_path / "q", "\n1 0 d1 2\n")) == "qrels"
    assert file_layout(_write(tmp_path / "q3", "1 d1 2\n")) == "qrels-no-iteration"
    with gzip.open(tmp_path / "r.gz", "wt") as fh:
        fh.write("1 Q0 d1 1 9.5 bm25\n")
    assert file_layout(tmp_path / "r.gz") == "run"
    assert file_layout(_write(tmp_path / "n", "my notes\n")) is None


def test_split_inputs_files_and_directories(tmp_path):
    judges = tmp_path / "judges"
    judges.mkdir()
    a = _write(judges / "a-qrels.txt", "1 0 d1 2\n")
    b = _write(judges / "b.txt", "1 d1 2\n")
    _write(judges / "README.md", "# about these judgments\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    r1 = _write(runs / "r1", "1 Q0 d1 1 2.0 r1\n")
    r2 = _write(tmp_path / "r2", "1 Q0 d1 1 2.0 r2\n")
    with pytest.warns(IRStabWarning, match="README"):
        qrels, found = split_inputs([r2, judges, runs])
    assert qrels == [a, b] and found == [r2, r1]


def test_split_inputs_refuses_what_is_neither(tmp_path):
    notes = _write(tmp_path / "notes.txt", "these are not judgments\n")
    with pytest.raises(IRStabError, match=r"notes\.txt: its first line is neither"):
        split_inputs([notes])
    with pytest.raises(IRStabError, match="no such file"):
        split_inputs([tmp_path / "absent"])


def test_answer_without_and_with_runs(tmp_path):
    from irstab.simulate import simulate_collection
    import irstab.io as io
    import numpy as np

    sim = simulate_collection(n_systems=5, n_topics=6, depth=20, seed=1)
    f = sim.qrels.frame
    gold = io.Qrels("nist.txt", f)
    noisy = f.assign(grade=np.clip(f.grade + np.random.default_rng(0).integers(-1, 2, len(f)),
                                   0, 3))
    other = {"llm": io.Qrels("llm.txt", noisy)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        s = judge_study(gold, other, n_resamples=20)
        assert s.survival is None and s.answer().startswith("Agreement with nist over 1 judge")
        assert s.to_dict()["survival"] == []
        s = judge_study(gold, other, sim.runs, ["nDCG@10", "AP"], n_resamples=0)
    assert "most robust to who judged" in s.answer()
    assert [r["measure"] for r in s.to_dict()["survival_by_measure"]] == \
        s.survival.by_measure()["measure"].tolist()
