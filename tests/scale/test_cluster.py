"""A Dask LocalCluster (2 worker processes) gives the in-process numbers, command by command.

Oracle: the same call without a cluster (itself tested against pytrec_eval and
the all-at-once build); equality to 1e-12. Each test runs within pytest's per-test deadline
(pyproject.toml) and every wait of the library on the cluster has its own.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _close import assert_close

import irstab
from irstab.cli import main
from irstab.errors import IRStabError

distributed = pytest.importorskip("distributed")

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
MEASURES = ["nDCG@10", "AP", "bpref", "RBP(p=0.8)"]


@pytest.fixture(scope="module")
def client():
    from cluster_support import local_cluster

    with local_cluster(2) as (_, c):  # started and closed within deadlines
        yield c


def test_evaluate_on_cluster_equals_local(client):
    local = irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", MEASURES, per_topic=True,
                            depth=100)
    # 3 runs per batch: 4 batches spread over the 2 workers
    batch = 3 * 2 * 30 * 100
    remote = irstab.evaluate(EXAMPLE / "qrels.txt", EXAMPLE / "runs", MEASURES, per_topic=True,
                             depth=100, client=client, max_batch_bytes=batch)
    pd.testing.assert_frame_equal(remote.drop(columns="value"), local.drop(columns="value"))
    np.testing.assert_allclose(remote["value"], local["value"], rtol=0, atol=1e-12)
    assert remote["run"].nunique() == 12


TOPIC = irstab.read_qrels(EXAMPLE / "qrels.txt").frame["topic"].iloc[0]
RUN = sorted((EXAMPLE / "runs").iterdir())[0]
COMMANDS = [  # with crp, report and assessors below: every command that reads runs
    # (demo is report on the bundled example)
    ["evaluate", "-m", "nDCG@10", "-m", "AP", "-q", "-M", "100"],
    ["stability", "-m", "nDCG@10", "-m", "AP", "-M", "100"],
    ["topics", "-m", "nDCG@10", "-M", "100"],
    ["compare", "-m", "nDCG@10", "-m", "AP", "-M", "100", "-B", "200", "--swap-trials", "100"],
    ["compare", "-m", "nDCG@10", "-m", "AP", "-M", "100", "-B", "100", "--swap-trials", "50",
     "--informativeness"],
    ["optimize", "discount", "-k", "10", "--starts", "1", "-M", "100"],
    ["optimize", "gain", "-k", "10", "--starts", "0", "-M", "100"],
    ["optimize", "minimax", "-k", "5", "-k", "10", "--starts", "0", "-M", "100"],
    ["optimize", "pareto", "-k", "5", "-k", "10", "--points", "3", "--starts", "0", "-M", "100"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_command_on_cluster_equals_local(client, command):
    head = command[:2] if command[0] == "optimize" else command[:1]
    args = [*head, str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), *command[len(head):],
            "-f", "json"]
    local = json.loads(_cli(args))
    remote = json.loads(_cli(args + ["--scheduler", client.scheduler.address]))
    assert_close(remote, local)


def test_crp_on_cluster_equals_local(client):
    args = ["crp", str(EXAMPLE / "qrels.txt"), str(RUN), "-t", TOPIC, "-M", "100", "-f", "json"]
    local = json.loads(_cli(args))
    remote = json.loads(_cli(args + ["--scheduler", client.scheduler.address]))
    assert local["indicators"]["R"] > 0
    assert_close(remote, local)


def test_report_on_cluster_equals_local(client, tmp_path):
    args = ["report", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-k", "5,10",
            "--starts", "0", "-B", "50", "-M", "100"]
    _cli(args + ["-o", str(tmp_path / "local")])
    _cli(args + ["-o", str(tmp_path / "remote"), "--scheduler", client.scheduler.address])
    local = json.loads((tmp_path / "local" / "report.json").read_text())
    remote = json.loads((tmp_path / "remote" / "report.json").read_text())
    assert_close(remote, local)


def test_assessors_on_cluster_equal_local(client, tmp_path):
    """The (topic, assessor) collection reduced on workers; noisy assessors as in the CLI tests."""
    from irstab.collection.assessors import assessor_collection
    from irstab.io import write_qrels

    base = irstab.read_qrels(EXAMPLE / "qrels.txt").frame
    rng = np.random.default_rng(2)
    for name in ("ann", "bob"):
        g = np.clip(base["grade"].to_numpy() + rng.integers(-1, 2, size=len(base)), 0, 3)
        write_qrels(tmp_path / f"{name}-qrels.txt", base["topic"], base["docid"], g)
    judges = [tmp_path / "ann-qrels.txt", tmp_path / "bob-qrels.txt"]
    a = assessor_collection(EXAMPLE / "qrels.txt", EXAMPLE / "runs", judges, depth=100)
    b = assessor_collection(EXAMPLE / "qrels.txt", EXAMPLE / "runs", judges, depth=100,
                            client=client)
    assert b.collection.systems == a.collection.systems and b.assessors == a.assessors
    pd.testing.assert_frame_equal(b.cells, a.cells)
    for name in ("grades", "judged", "run_length", "ideal", "grade_counts"):
        np.testing.assert_array_equal(getattr(b.collection, name), getattr(a.collection, name))
    args = ["assessors", str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), "-a", str(tmp_path),
            "-M", "100", "--resamples", "50", "-f", "json"]
    local = json.loads(_cli(args))
    assert_close(json.loads(_cli(args + ["--scheduler", client.scheduler.address])), local)
    # irstab judges: the same (topic, judge) collection under its survival table
    args = ["judges", str(EXAMPLE / "qrels.txt"), str(tmp_path), str(EXAMPLE / "runs"),
            "-m", "nDCG@10,AP", "-M", "100", "-B", "50", "-f", "json"]
    local = json.loads(_cli(args))
    assert local["survival"]
    assert_close(json.loads(_cli(args + ["--scheduler", client.scheduler.address])), local)


def test_collection_and_linear_forms_on_cluster_equal_local(client):
    from irstab.optimizer import linear_forms

    local = irstab.Collection.from_files(EXAMPLE / "qrels.txt", EXAMPLE / "runs", depth=100)
    remote = irstab.Collection.from_files(EXAMPLE / "qrels.txt", EXAMPLE / "runs", depth=100,
                                          client=client)
    assert remote.systems == local.systems
    for name in ("grades", "judged", "run_length", "ideal", "grade_counts"):
        np.testing.assert_array_equal(getattr(remote, name), getattr(local, name))
    # a third of a run per job: every run file in 3 topic partitions, on the workers
    third = -(-2 * local.n_topics * 20 // 3)
    a = linear_forms(EXAMPLE / "qrels.txt", EXAMPLE / "runs", 20, max_batch_bytes=third)
    b = linear_forms(EXAMPLE / "qrels.txt", EXAMPLE / "runs", 20, max_batch_bytes=third,
                     client=client)
    assert a.systems == b.systems == local.systems
    for name in ("system", "topic", "rank", "grade", "grade_counts"):
        np.testing.assert_array_equal(getattr(b, name), getattr(a, name))


def _cli(args) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


def test_bad_run_file_on_a_worker_is_named(client, tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "good").write_text("1 Q0 a 1 2.0 g\n")
    (tmp_path / "runs" / "bad").write_text("1 Q0 a 1 2.0 b\n1 Q0 b 2 oops b\n")
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    with pytest.raises(irstab.InputFormatError, match=r"bad:2: score 'oops' is not a number"):
        irstab.evaluate(tmp_path / "qrels", tmp_path / "runs", ["AP"], client=client)


def test_unreachable_scheduler_is_named():
    from irstab.collection.cluster import get_client

    with pytest.raises(IRStabError, match=r"cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        get_client("tcp://127.0.0.1:9", timeout=1)
