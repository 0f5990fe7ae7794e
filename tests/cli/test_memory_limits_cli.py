"""Counts and inputs whose arrays cannot fit, refused before any allocation.

``irstab systems`` with more pairs or resamples than memory holds, and any command under
a process memory limit (``ulimit -v``): exit 1, one line on stderr, no traceback.
Expected sizes are the closed forms of the byte counts (irstab.systems.table and
irstab.verdict.draws): P = S(S - 1)/2 pairs, 8 bytes per float.
"""

from __future__ import annotations

import json
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


def _regraded(src: Path, dst: Path, seed: int) -> Path:
    """A copy of the qrels with about 20 % of the grades redrawn from 0-2 (a second assessor)."""
    rng = np.random.default_rng(seed)
    lines = []
    for ln in src.read_text().splitlines():
        parts = ln.split()
        if len(parts) == 4 and rng.random() < 0.2:
            parts[3] = str(rng.integers(0, 3))
        lines.append(" ".join(parts))
    dst.write_text("\n".join(lines) + "\n")
    return dst


@pytest.mark.parametrize("measures, what", [
    (["-m", "nDCG@10"], "(one per number of assessors) need 154 GB"),
    # one table per measure: 2 x 1536 bytes x 10^8
    (["-m", "nDCG@10", "-m", "AP"], "(one per number of assessors) for each of 2 measures "
                                    "need 307 GB"),
])
def test_assessors_refuses_designs_that_cannot_fit_before_the_study(tmp_path, measures, what):
    # before: 10^8 designs passed the check (64 bytes each), took 19.5 s and 5.7 GB for the
    # table, and did not finish in 120 s with -f json (1.3 KB per design, measured at 10^6).
    # 1536 bytes per design x 10^8 = 154 GB; the child's 3 GiB limit makes an allocation
    # attempted before the check fail with a traceback instead.
    qrels = EXAMPLE / "qrels.txt"
    judges = [_regraded(qrels, tmp_path / f"{n}.txt", s) for n, s in (("alice", 1), ("bob", 2))]
    proc = run_limited(["assessors", qrels, EXAMPLE / "runs", "-a", judges[0], "-a", judges[1],
                        *measures, "--max-assessors", 10**8, "-f", "json"], 3 * 2**30, tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"irstab: error: max_assessors: 100000000 designs {what} "
                                  "of memory, more than half of this machine's")


def test_assessors_default_designs_are_unchanged(tmp_path, capsys):
    # the check only refuses: 10 designs (the default) give the table of 10 rows, one per count
    qrels = EXAMPLE / "qrels.txt"
    judges = [_regraded(qrels, tmp_path / f"{n}.txt", s) for n, s in (("alice", 1), ("bob", 2))]
    code, out, err = cli(capsys, "assessors", qrels, EXAMPLE / "runs", "-a", judges[0], "-a",
                         judges[1], "-B", "0", "-f", "json")
    assert code == 0, err
    rows = json.loads(out)[0]["cheapest"]["by_assessors"]
    assert [r["n_assessors"] for r in rows] == list(range(1, 11))
