"""``irstab evaluate -f trec`` renders trec_eval's text from the score arrays, without the
long DataFrame; the text equals the frame path's byte for byte.

Oracle: the frame path (``_render_trec`` of :func:`irstab.evaluation.long_table`), which
``tests/trec_eval10`` and ``tests/test_trec_eval_oracle.py`` check against trec_eval 10 itself,
on the same scores: TREC DL 2019 under every option of the layout (-q, -n, -c, -J with
iprec_at_recall's -nan), and Hypothesis-generated small score arrays (names with control
characters, topics whose string order is not their order, counts, a geometric mean).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.cli.evaluate import (_TrecLayout, _long_frame, _render_trec, _render_trec_values,
                                 _with_num_ret, _with_total)
from irstab.evaluation import Evaluated, evaluate_values
from irstab.metrics import trec_eval_request

#: trec_eval measures of every kind the layout treats apart: means, counts summed in 'all'
#: (num_ret, num_rel), a geometric mean (gm_map, no per-topic lines), text (relstring, no
#: 'all' line), interpolated precision (-nan under -J), runid and num_q lines
DL_MEASURES = ["map", "ndcg_cut.10", "P.10", "recip_rank", "num_ret", "num_rel", "num_rel_ret",
               "gm_map", "relstring.10", "iprec_at_recall", "11pt_avg", "runid", "num_q"]


def _request(spec):
    request = trec_eval_request(spec, None, 10)
    return request, list(request.measures)


def _evaluated(measures, complete, judged_only):
    evaluated = _with_total(measures) if complete else measures
    return _with_num_ret(evaluated) if judged_only else evaluated


def _both(scored, request, measures, per_topic, summary, complete, judged_only):
    layout = _TrecLayout(dataclasses.replace(request, measures=tuple(measures)), per_topic,
                         summary, complete, judged_only)
    return (_render_trec_values(scored, layout),
            _render_trec(_long_frame(scored, True), layout))


@pytest.mark.parametrize("judged_only", [False, True])
def test_dl2019_every_layout_equals_the_frame_path(dl2019_dir, judged_only):
    request, measures = _request(DL_MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tied scores; -J's emptied rankings
        scored = evaluate_values(dl2019_dir / "qrels.txt", dl2019_dir / "runs",
                                 _evaluated(measures, True, judged_only), depth=None,
                                 judged_only=judged_only, trec_eval=10, strict_depth=False,
                                 every_topic=True)
    assert len(scored.systems) == 37  # the 37 runs of the collection's README
    texts = []
    for per_topic in (True, False):
        for summary in (True, False):
            for complete in (True, False):
                got, want = _both(scored, request, measures, per_topic, summary, complete,
                                  judged_only)
                assert got is not None
                assert got.encode() == want.encode(), (per_topic, summary, complete)
                texts.append(got)
    assert texts[0].count("\n") > 37 * 43 * 10  # 43 topics, 10 measures with per-topic lines


_NAMES = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1,
                 max_size=6).filter(lambda s: s != "all")
_SPECS = ["map", "recip_rank", "ndcg_cut.10", "P.5", "num_ret", "num_rel", "gm_map",
          "iprec_at_recall", "11pt_avg", "runid", "num_q"]


@st.composite
def _scores(draw):
    spec = draw(st.lists(st.sampled_from(_SPECS), min_size=1, max_size=6, unique=True))
    complete, judged_only = draw(st.booleans()), draw(st.booleans())
    request, measures = _request(spec)
    evaluated = _evaluated(measures, complete, judged_only) or _request(["num_ret"])[1]
    systems = draw(st.lists(_NAMES, min_size=1, max_size=3, unique=True))
    topics = draw(st.lists(st.one_of(_NAMES, st.integers(0, 30).map(str)), min_size=1,
                           max_size=5, unique=True))
    shape = (len(systems), len(evaluated), len(topics))
    grades = draw(st.lists(st.integers(0, 5), min_size=int(np.prod(shape)),
                           max_size=int(np.prod(shape))))
    fractions = draw(st.lists(st.floats(0, 1), min_size=int(np.prod(shape)),
                              max_size=int(np.prod(shape))))
    counts = np.array([type(m).__name__ in ("NumRet", "NumRel", "NumRelRet")
                       for m in evaluated])[None, :, None]
    values = np.where(counts, np.reshape(grades, shape).astype(float),
                      np.reshape(fractions, shape))
    layout = (draw(st.booleans()), draw(st.booleans()), complete, judged_only)
    return request, measures, Evaluated(systems, topics, list(evaluated), values), layout


@settings(max_examples=150, deadline=None)
@given(_scores())
def test_generated_scores_render_as_the_frame_path(case):
    request, measures, scored, (per_topic, summary, complete, judged_only) = case
    got, want = _both(scored, request, measures, per_topic, summary, complete, judged_only)
    assert got is not None
    assert got.encode() == want.encode()


def test_an_emptied_ranking_prints_trec_eval_nan_alike():
    # -J leaves run "r" no document on topic "2" (num_ret 0): iprec_at_recall is 0 / 0 there
    request, measures = _request(["iprec_at_recall"])
    evaluated = _evaluated(measures, False, True)
    names = [str(m) for m in evaluated]
    values = np.zeros((1, len(evaluated), 2))
    values[0, names.index("NumRet"), 0] = 10
    values[0, [i for i, n in enumerate(names) if n.startswith("NumRel")], :] = 3
    got, want = _both(Evaluated(["r"], ["1", "2"], evaluated, values), request, measures,
                      True, True, False, True)
    assert "\t2\t  -nan" in got
    assert got.encode() == want.encode()


def test_a_layout_only_the_frame_decides_falls_back():
    # topics "1" and 1 print alike: their order is the frame's per-run pivot's, so the
    # array path declines and the command renders the frame
    request, measures = _request(["map"])
    scored = Evaluated(["r"], ["1", 1], measures, np.array([[[0.5, 0.25]]]))
    layout = _TrecLayout(request, True, True, False, False)
    assert _render_trec_values(scored, layout) is None
    # the frame prints both topics' lines and the mean (no runid, num_q: not asked for)
    assert _render_trec(_long_frame(scored, True), layout).count("\n") == 3


def test_num_q_alone_prints_trec_eval_s_line(dl2019_dir, tmp_path, capsys):
    # trec_eval 10 -m num_q on DL-2019's ICT-BERT2 prints "num_q all 43" (run by hand,
    # /work/ext/trec_eval/trec_eval 10.0); the frame path printed nothing before
    import gzip

    from irstab.cli import main

    run = tmp_path / "ICT-BERT2"
    run.write_bytes(gzip.decompress((dl2019_dir / "runs" / "ICT-BERT2.gz").read_bytes()))
    assert main(["evaluate", str(dl2019_dir / "qrels.txt"), str(run), "-m", "num_q",
                 "-f", "trec"]) == 0
    assert capsys.readouterr().out == f"{'num_q':<22}\tall\t43\n"


def test_evaluate_trec_imports_no_pandas(tmp_path):
    # the goal of [speed-2] item 2: pandas is 0.40 s of every evaluate's CPU
    import json
    import subprocess
    import sys

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 2.5 r\n")
    code = ("import json, sys; from irstab.cli import main; "
            f"code = main(['evaluate', {str(qrels)!r}, {str(run)!r}, '-m', 'map', '-f', 'trec']); "
            "sys.stdout.flush(); print(json.dumps([code, 'pandas' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.splitlines()
    assert json.loads(out[-1]) == [0, False]
