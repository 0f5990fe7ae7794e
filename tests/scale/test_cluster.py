"""A Dask LocalCluster (2 worker processes) gives the in-process numbers, command by command.

Oracle: the same call without a cluster (itself tested against pytrec_eval and
the all-at-once build); equality to 1e-12.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irstab
from irstab.cli import main
from irstab.errors import IRStabError

distributed = pytest.importorskip("distributed")

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "example"
MEASURES = ["nDCG@10", "AP", "bpref", "RBP(p=0.8)"]


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


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


def _cli(args) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "-m", "nDCG@10", "-m", "AP", "-q", "-M", "100"],
        ["stability", "-m", "nDCG@10", "-m", "AP", "-M", "100"],
        ["topics", "-m", "nDCG@10", "-M", "100"],
        ["compare", "-m", "nDCG@10", "-m", "AP", "-M", "100", "-B", "200", "--swap-trials", "100"],
    ],
)
def test_every_command_on_cluster_equals_local(client, command):
    args = [command[0], str(EXAMPLE / "qrels.txt"), str(EXAMPLE / "runs"), *command[1:],
            "-f", "json"]
    local = json.loads(_cli(args))
    remote = json.loads(_cli(args + ["--scheduler", client.scheduler.address]))
    _close(remote, local)


def _close(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
    elif isinstance(a, float):
        assert a == pytest.approx(b, abs=1e-12)
    else:
        assert a == b


def test_bad_run_file_on_a_worker_is_named(client, tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "good").write_text("1 Q0 a 1 2.0 g\n")
    (tmp_path / "runs" / "bad").write_text("1 Q0 a 1 2.0 b\n1 Q0 b 2 oops b\n")
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    with pytest.raises(irstab.InputFormatError, match=r"bad:2: score 'oops' is not a number"):
        irstab.evaluate(tmp_path / "qrels", tmp_path / "runs", ["AP"], client=client)


def test_unreachable_scheduler_is_named():
    from irstab.cluster import get_client

    with pytest.raises(IRStabError, match=r"cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        get_client("tcp://127.0.0.1:9", timeout=1)
