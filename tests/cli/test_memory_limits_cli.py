"""Counts and inputs whose arrays cannot fit, refused before any allocation.

``irstab systems`` with more pairs or resamples than memory holds, and any command under
a process memory limit (``ulimit -v``): exit 1, one line on stderr, no traceback.
Expected sizes are the closed forms of the byte counts (irstab.compare.systems and
irstab.compare.draws): P = S(S - 1)/2 pairs, 8 bytes per float.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irstab.cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "data" / "example"
RAM = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def score_file(path: Path, S: int, T: int, seed: int) -> Path:
    x = np.random.default_rng(seed).random((S, T)).round(4)
    rows = [f"s{s}," + ",".join(f"{v:.4f}" for v in x[s]) for s in range(S)]
    path.write_text("system," + ",".join(f"t{t}" for t in range(T)) + "\n"
                    + "\n".join(rows) + "\n")
    return path


def run_limited(args, limit_bytes: int, cwd: Path):
    """``irstab ARGS`` in a child whose address space is limited (``ulimit -v``)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, resource.RLIM_INFINITY))

    return subprocess.run([sys.executable, "-m", "irstab.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300, preexec_fn=limit)


def test_systems_refuses_pairs_that_cannot_fit_before_allocating(tmp_path):
    # 60,000 systems x 3 topics (1.6 MB): P = 1.79997e9 pairs; the pairs need
    # 8 x (3 P T + 22 P) + S^2 = 450 GB (np.triu_indices alone asked for 13.4 GiB).
    # The child runs under a 3 GiB address-space limit, so an allocation attempted
    # before the check would fail with numpy's traceback, not swap the machine.
    big = score_file(tmp_path / "big.csv", 60_000, 3, 0)
    proc = run_limited(["systems", "-s", big, "-f", "csv"], 3 * 2**30, tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert ("scores: 60000 systems make 1.8e+09 pairs, whose differences on 3 topics need "
            "450 GB of memory, more than half of this machine's") in proc.stderr


@pytest.fixture(scope="module")
def eight_topics(tmp_path_factory):
    """The example collection cut to its first 8 topics: 2^8 = 256 distinct sign flips."""
    d = tmp_path_factory.mktemp("t8")
    qrels = (EXAMPLE / "qrels.txt").read_text().splitlines()
    topics = sorted({line.split()[0] for line in qrels})[:8]
    keep = lambda lines: "\n".join(x for x in lines if x.split()[0] in topics) + "\n"  # noqa: E731
    (d / "qrels.txt").write_text(keep(qrels))
    (d / "runs").mkdir()
    for run in sorted((EXAMPLE / "runs").iterdir()):
        (d / "runs" / run.name).write_text(keep(run.read_text().splitlines()))
    return d


@pytest.mark.parametrize("test", ["permutation", "bootstrap", "tukey"])
def test_systems_refuses_resamples_beyond_memory_as_stability_does(capsys, eight_topics, test):
    # B = 2^53 resamples of 8 topics: 8 B (T + 1) = 6.49e17 bytes, 6.49e+05 TB; this ran
    # forever (only 256 distinct sign flips exist). stability refuses the same -B.
    qrels, runs = eight_topics / "qrels.txt", eight_topics / "runs"
    code, out, err = cli(capsys, "systems", qrels, runs, "-m", "AP", "--test", test,
                         "-B", 2**53)
    assert code == 1 and out == ""
    assert (f"n_resamples: 9007199254740992 resamples of 8 topics ({test} test, 12 systems) "
            "need 6.49e+05 TB of memory, more than half of this machine's") in err
    code, out, err = cli(capsys, "stability", qrels, runs, "-m", "AP", "--interval",
                         "bootstrap", "-B", 2**53)
    assert code == 1 and "n_resamples: 9007199254740992 resamples of 12 systems x 8 topics" in err


def test_systems_without_resampling_ignores_b(capsys, eight_topics):
    # the t-test draws nothing: -B does not enter its memory (0 resamples reported)
    code, out, err = cli(capsys, "systems", eight_topics / "qrels.txt", eight_topics / "runs",
                         "-m", "AP", "-B", 2**53, "-f", "json")
    assert code == 0, err
    assert '"n_resamples": 0' in out


def test_compare_under_an_address_space_limit_is_refused_cleanly(tmp_path):
    # 15,000 systems x 3 topics, two measures, --baseline: the pairs' differences need
    # 8 x (2 P T + 3 P + 3 x 2^22) = 8.15 GB (P = 112,492,500), above half of a
    # 6,000,000 KiB limit (6.14 GB); before, the RAM rule let numpy fail with
    # "Unable to allocate 2.51 GiB" and a traceback.
    limit = 6_000_000 * 1024
    score_file(tmp_path / "a.csv", 15_000, 3, 1)
    score_file(tmp_path / "b.csv", 15_000, 3, 2)
    proc = run_limited(["compare", "-s", "a.csv", "-s", "b.csv", "--baseline", "a"], limit,
                       tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert ("scores: 15000 systems make 1.12e+08 pairs, whose differences on 3 topics need "
            "8.15 GB of memory, more than half of this machine's") in proc.stderr
    if RAM > limit:
        assert "6.14 GB (address-space limit (ulimit -v))" in proc.stderr
