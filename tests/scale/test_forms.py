"""The optimizer's sparse linear forms built batch by batch equal those of the whole Collection.

Oracle: the positions of positive grades in the Collection's top k
(``np.nonzero`` of its grade tensor, the Scenario's own construction), and the
optimizer run on the Collection itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _close import assert_close

import irstab
from irstab.optimizer import LinearForms, Scenario, linear_forms, optimize

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
FIELDS = ("system", "topic", "rank", "grade", "grade_counts")


@pytest.mark.parametrize("batch_runs", [1 / 3, 5, 100])
def test_dl2019_forms_in_batches_equal_the_collection(dl2019, dl2019_dir, batch_runs):
    k = 100
    per_run = 2 * dl2019.n_topics * k
    forms = linear_forms(dl2019_dir / "qrels.txt", dl2019_dir / "runs", k,
                         max_batch_bytes=int(np.ceil(batch_runs * per_run)))
    want = LinearForms.from_collection(dl2019, k)
    assert forms.systems == dl2019.systems and forms.topics == dl2019.topics
    assert forms.depth == k and forms.max_grade == dl2019.max_grade
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(forms, name), getattr(want, name), err_msg=name)
    # only relevant retrieved documents are kept: 11 bytes each
    g = dl2019.grades[:, :, :k]
    assert len(forms.grade) == int((g > 0).sum()) and forms.nbytes == 11 * len(forms.grade)


@pytest.mark.parametrize("topics", [None, (7, 2, 11, 0, 5)])
def test_scenario_of_forms_equals_scenario_of_collection(topics):
    coll = irstab.Collection.from_files(EXAMPLE / "qrels.txt", EXAMPLE / "runs", depth=100)
    forms = LinearForms.from_collection(coll, 20)
    for k in (5, 20):
        a, b = Scenario(coll, k, topics=topics), Scenario(forms, k, topics=topics)
        for name in ("_cell", "_rank", "_grade", "_counts"):
            np.testing.assert_array_equal(getattr(b, name), getattr(a, name))
    with pytest.raises(irstab.IRStabError, match="exceeds the collection depth 20"):
        Scenario(forms, 21)


def test_optimum_from_forms_equals_optimum_from_collection():
    coll = irstab.Collection.from_files(EXAMPLE / "qrels.txt", EXAMPLE / "runs", depth=100)
    forms = linear_forms(EXAMPLE / "qrels.txt", EXAMPLE / "runs", 10)
    a = optimize(coll, 10, starts=1).to_dict()
    b = optimize(forms, 10, starts=1).to_dict()
    assert_close(b, a)


@pytest.mark.filterwarnings("ignore:.*the same score")
def test_forms_reduced_in_worker_processes_equal_those_of_one_process():
    # each worker reduces whole batches (here of 3 runs); the batches come back in file
    # order, so the forms are those reduced in this process (the oracle), entry for entry
    qrels, runs, k = EXAMPLE / "qrels.txt", EXAMPLE / "runs", 20
    three_runs = 3 * 2 * len(irstab.io.read_qrels(qrels).topics) * k
    one = linear_forms(qrels, runs, k, workers=0, max_batch_bytes=three_runs)
    two = linear_forms(qrels, runs, k, workers=2, max_batch_bytes=three_runs)
    assert two.systems == one.systems and len(one.systems) > 2
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(two, name), getattr(one, name), err_msg=name)
