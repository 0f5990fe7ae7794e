"""``irstab evaluate -f trec`` reads and checks its files without pandas ([speed-2] item 2):
the duplicate check, the qrels and their lookup on pyarrow and numpy, with the same results.

Oracles: pandas itself, on the same data (``DataFrame.duplicated`` for the first repeated
pair, ``Index.get_indexer`` for topic codes, ``read_table``'s frame for the qrels' rows), and
the same command in a process that has imported pandas (the tests' own) for the bytes.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from dataclasses import FrozenInstanceError

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab
from irstab.cli import main
from irstab.collection.index import QrelsIndex
from irstab.io.sources import Qrels
from irstab.io.trec import QRELS, read_table
from irstab.io.trecbatch import _first_repeat

NAMES = ["1", "2", "10", "a", "é", "e\u0301", "", "a b"]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=40),
       st.lists(st.integers(0, 40), max_size=3), st.lists(st.booleans(), min_size=4, max_size=4))
def test_first_repeat_is_the_row_pandas_duplicated_finds_first(pairs, cuts, large):
    # oracle: pandas' DataFrame.duplicated of the pairs (the rule _first_repeat replaced): the
    # first row whose (topic, docid) an earlier row holds, across parts of mixed string types
    frame = pd.DataFrame(pairs, columns=["topic", "docid"], dtype=object)
    dup = frame.duplicated(["topic", "docid"]).to_numpy() if pairs else np.zeros(0, bool)
    want = int(np.flatnonzero(dup)[0]) if dup.any() else None
    bounds = [0, *sorted(min(c, len(pairs)) for c in cuts), len(pairs)]
    parts = []
    for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        kind = pa.large_string() if large[k % 4] else pa.string()
        parts.append((pa.array([t for t, _ in pairs[lo:hi]], kind),
                      pa.array([d for _, d in pairs[lo:hi]], kind)))
    assert _first_repeat(parts) == want
    if len(parts) == 1:
        assert _first_repeat(parts[0]) == want


def _qrels_text(tmp_path, text, name="qrels"):
    path = tmp_path / name
    path.write_text(text)
    return path


QRELS_TEXTS = {
    "streamed": "3 0 d1 2\n1 0 d2 0\n1 0 d1 1\n10 0 d9 -1\n2 0 d1 0\n",
    "careful": "3 0 d1 2\n\n1  0 d2 0\n1\t0 d1 1\n10 0 d9 -1\n2 0 d1 0\n",  # blank line, tab
}


@pytest.mark.parametrize("reader", sorted(QRELS_TEXTS))
def test_qrels_rows_give_the_frame_read_table_gives(tmp_path, reader):
    # oracle: read_table's frame of the same file (what Qrels.frame held before)
    path = _qrels_text(tmp_path, QRELS_TEXTS[reader])
    q = irstab.read_qrels(path)
    want = read_table(path, QRELS)[["topic", "docid", "grade"]]
    pd.testing.assert_frame_equal(q.frame, want)
    assert q.frame is q.frame  # made once
    from_frame = Qrels(q.path, want)  # the positional form other modules use
    assert (len(q), q.max_grade, q.topics) == (len(from_frame), from_frame.max_grade,
                                              from_frame.topics) == (5, 2, ["1", "10", "2", "3"])
    for got, exp in zip(q.columns(), from_frame.columns()):
        assert (got.equals(exp) if isinstance(got, pa.Array) else got.tolist() == exp.tolist())
    assert repr(q) == f"Qrels(path={str(path)!r})"
    with pytest.raises(FrozenInstanceError):
        q.path = "other"
    back = pickle.loads(pickle.dumps(q))
    pd.testing.assert_frame_equal(back.frame, want)
    assert back.keys.tolist() == q.keys.tolist()
    with pytest.raises(TypeError):
        Qrels("nothing")


def test_an_index_of_qrels_rows_equals_that_of_their_frame(tmp_path):
    # oracle: the index built from the frame (columns through arrow_strings, as before), and
    # pandas' Index.get_indexer for the topic codes it replaced
    path = _qrels_text(tmp_path, "".join(f"{t} 0 d{d} {(t * d) % 4 - 1}\n"
                                         for t in (3, 1, 20, 2, 7) for d in range(12)))
    q = irstab.read_qrels(path)
    for every in (False, True):
        with pytest.warns(irstab.IRStabWarning, match="'20'"):  # judged only -1
            a = QrelsIndex.from_qrels(q, every_topic=every)
        with pytest.warns(irstab.IRStabWarning, match="'20'"):
            b = QrelsIndex.from_qrels(Qrels(q.path, q.frame), every_topic=every)
        assert (a.topics, a.known_topics, a.max_grade) == (b.topics, b.known_topics, b.max_grade)
        for name in ("table", "key_topics", "key_grades", "grade_counts", "ideal"):
            assert getattr(a, name).tolist() == getattr(b, name).tolist(), name
        assert a.docids.equals(b.docids)
        names = ["20", "x", "1", "2", "7", "3", ""]
        assert a.topic_codes(names).tolist() == pd.Index(a.topics).get_indexer(names).tolist()
        assert a.topic_index.equals(pd.Index(a.topics))


#: the benchmarks' 6 measures (benchmarks/peer_eval.py MEASURES), and every layout option
COMMANDS = [
    ["-m", "ndcg_cut.10,ndcg_cut.100,map,P.10,recip_rank,recall.1000", "-f", "trec"],
    ["-q", "-c", "-m", "all_trec", "-f", "trec"],
    ["-q", "-J", "-l", "2", "-m", "map", "-m", "iprec_at_recall", "-f", "trec"],
]


def test_evaluate_trec_without_pandas_prints_the_same_bytes(dl2019_dir, capsys):
    # oracle: the same commands in this process, which has imported pandas (pyarrow's pandas
    # integration on); then, in the process that ran them without pandas, a frame and a
    # command that needs pandas still work: the same csv, the same qrels frame
    qrels, runs = str(dl2019_dir / "qrels.txt"), str(dl2019_dir / "runs")
    want = []
    for opts in COMMANDS + [["-q", "-m", "map", "-f", "csv"]]:
        assert main(["evaluate", qrels, runs, *opts]) == 0
        want.append(capsys.readouterr().out)
    frame = irstab.read_qrels(qrels).frame
    code = (
        "import io, json, sys, contextlib; from irstab.cli import main\n"
        f"qrels, runs, commands = {qrels!r}, {runs!r}, {json.dumps(COMMANDS)}\n"
        "out = []\n"
        "for opts in commands:\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as f:\n"
        "        assert main(['evaluate', qrels, runs, *opts]) == 0\n"
        "    out.append(f.getvalue())\n"
        "pandas = 'pandas' in sys.modules\n"
        "with contextlib.redirect_stdout(io.StringIO()) as f:\n"
        "    assert main(['evaluate', qrels, runs, '-q', '-m', 'map', '-f', 'csv']) == 0\n"
        "out.append(f.getvalue())\n"
        "import irstab\n"
        "frame = irstab.read_qrels(qrels).frame\n"
        "print(json.dumps([out, pandas, frame.to_json(), str(frame.dtypes.to_dict())]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=True)
    out, pandas, frame_json, dtypes = json.loads(done.stdout.splitlines()[-1])
    assert not pandas
    assert out == want
    assert (frame_json, dtypes) == (frame.to_json(), str(frame.dtypes.to_dict()))
