"""benchmarks/_proc.py, the whole-process measurement the speed benchmarks report: CPU of a
command's process tree includes its worker processes, peak RSS is the command's own (not
the benchmark process's), trec_eval's -m options and outputs are read as trec_eval prints
them. No time is asserted; only what the measurement must include."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "bench_proc", Path(__file__).resolve().parents[1] / "benchmarks" / "_proc.py")
proc = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = proc  # dataclasses look their module up there
_SPEC.loader.exec_module(proc)


def test_cpu_counts_forked_and_spawned_workers(tmp_path):
    # Oracle: each worker's own time.process_time(), printed by the command; the tree's CPU
    # cannot be less than what its workers report they used.
    script = tmp_path / "burn.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing as mp, sys, time
        def burn(_):
            t = time.process_time()
            while time.process_time() - t < 0.3:
                pass
            return time.process_time()
        if __name__ == "__main__":
            with mp.get_context(sys.argv[1]).Pool(2) as pool:
                print(sum(pool.map(burn, [0, 1])))
    """))
    for method in ("fork", "spawn"):
        got = proc.run([sys.executable, str(script), method])
        workers = float(got.stdout[0])
        assert workers >= 0.6
        assert got.cpu >= workers, method


@pytest.mark.skipif(proc.GNU_TIME is None or shutil.which("true") is None,
                    reason="needs GNU time and true")
def test_peak_rss_is_the_commands_not_the_parents():
    # The parent holds 64 MiB more than a C program's few MB; through exec Linux would
    # report the parent's peak for the child, GNU time reports the child's own.
    ballast = b"\x01" * (64 * 2**20)  # written, so resident
    small = proc.run([shutil.which("true")])
    big = proc.run([sys.executable, "-c", "x = b'\\x01' * (128 * 2**20)"])
    assert small.peak_rss < 16 * 2**20
    assert big.peak_rss >= 128 * 2**20
    del ballast


def test_failed_command_raises_with_its_stderr():
    with pytest.raises(SystemExit, match="boom"):
        proc.run([sys.executable, "-c", "import sys; sys.exit('boom')"])


def test_trec_eval_options_group_parameters():
    # trec_eval's usage: -m measure[.params], parameters of one measure comma-separated
    assert proc.trec_eval_argv("te", "ndcg_cut.10,ndcg_cut.100,map,P.10,recall.1000") == [
        "te", "-m", "ndcg_cut.10,100", "-m", "map", "-m", "P.10", "-m", "recall.1000"]


def test_means_name_the_runs_of_summary_output():
    # two runs of trec_eval's summary layout (measure padded to 22, 'all', %6.4f)
    text = "map                   \tall\t0.1941\nP_10                  \tall\t0.7372\n" \
           "map                   \tall\t0.1897\nP_10                  \tall\t0.7000\n"
    assert proc.means(text, ["a", "b"]) == {("a", "map"): "0.1941", ("a", "P_10"): "0.7372",
                                           ("b", "map"): "0.1897", ("b", "P_10"): "0.7000"}
    assert proc.means("map\tr1\t0.5000\n") == {("r1", "map"): "0.5000"}


def test_tree_peak_sums_the_command_and_its_children(tmp_path):
    # Oracle: what the processes write into memory. The parent holds 96 MiB and its child
    # 160 MiB at the same time (the parent waits for the child), so the tree holds at least
    # 256 MiB at once while neither process holds more than 160 MiB plus Python's own.
    script = tmp_path / "tree.py"
    script.write_text(textwrap.dedent("""
        import subprocess, sys
        held = b"\\x01" * (96 * 2**20)
        child = "import time; x = b'\\\\x01' * (160 * 2**20); time.sleep(0.4)"
        subprocess.run([sys.executable, "-c", child], check=True)
    """))
    got = proc.run([sys.executable, str(script)])
    assert got.tree_rss >= 256 * 2**20
    assert got.tree_rss > got.peak_rss  # the sum exceeds the largest process
    assert got.tree_rss < 400 * 2**20  # two Pythons' own few tens of MB, not a double count


def test_tree_rss_of_this_process_and_of_none():
    # Oracle: 64 MiB written here is resident here; a pid above Linux's largest (2**22)
    # names no process.
    ballast = b"\x01" * (64 * 2**20)
    assert proc.tree_rss(proc.os.getpid()) >= 64 * 2**20
    assert proc.tree_rss(2**22 + 12345) == 0
    del ballast


def test_tree_pss_counts_a_forked_childs_shared_pages_once(tmp_path):
    # Oracle: what the processes write into memory. The parent writes 128 MiB, then forks a
    # child that only reads it (the pages stay shared) and writes 64 MiB of its own. The
    # tree's RSS counts the shared 128 MiB twice (>= 320 MiB); its PSS counts them once
    # (128 + 64 MiB and two Pythons' own tens of MB: under 290 MiB, at least 192 MiB).
    script = tmp_path / "fork.py"
    script.write_text(textwrap.dedent("""
        import os, time
        held = bytearray(b"\\x01" * (128 * 2**20))
        pid = os.fork()
        if pid == 0:
            assert sum(held[::4096]) == 32768  # read every page: resident, still shared
            own = b"\\x02" * (64 * 2**20)
            time.sleep(1.5)
            os._exit(0)
        os.waitpid(pid, 0)
    """))
    got = proc.run([sys.executable, str(script)], pss=True)
    assert got.tree_rss >= 320 * 2**20
    assert 192 * 2**20 <= got.tree_pss < 290 * 2**20


def test_tree_pss_of_this_process_and_of_none():
    # Oracle: 64 MiB written here and shared with no process is in this process's PSS whole;
    # a pid above Linux's largest (2**22) names no process
    ballast = b"\x01" * (64 * 2**20)
    assert proc.tree_pss(proc.os.getpid()) >= 64 * 2**20
    assert proc.tree_pss(2**22 + 12345) == 0
    del ballast
