"""Where output goes: -o, --figure, --plot, --save and the report directory.

Every output path is written by :mod:`irstab.io.atomicfile`. From the command line:
a symbolic link is written through to its target (the link stays a link), a FIFO,
a device or ``/dev/stdout`` is written in place (never renamed over), an existing
file keeps its mode, an error names the target (never a temporary file), an empty
path is refused, and a write stopped by SIGTERM or a dead writer's leftovers leave
no temporary file behind. No test here points the tool at a node under /dev: the
device cases use device nodes made with mknod in a temporary directory. A report directory
whose files the user made links or read-only is in tests/cli/test_output_replacement.py
(which has an earlier report to start from).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import irstab.cli
from irstab.simulate import simulate_collection

REPO = Path(__file__).resolve().parents[2]
TMP_MARK = ".irstab-tmp"


@pytest.fixture(scope="module")
def coll(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=5, n_topics=8, depth=20, seed=3).write(d)
    return d / "qrels.txt", d / "runs"


def cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def leftovers(*dirs: Path) -> list[str]:
    """Temporary files of the writer (any generation of its naming) left in ``dirs`` (the
    report's manifest, which lists what irstab wrote there, is no leftover)."""
    from irstab.io.atomicfile import MANIFEST

    return [p.name for d in dirs for p in d.iterdir() if p.name.startswith(".")
            and p.name != MANIFEST]


# One command per output option; ``{out}`` is the path under test.
WRITERS = {
    "evaluate -o": (".tsv", lambda q, r, out: ["evaluate", q, r, "-m", "nDCG@5", "-o", out]),
    "topics --figure": (
        ".png", lambda q, r, out: ["topics", q, r, "-m", "nDCG@5", "-n", "5", "--figure", out]
    ),
    "compare --plot": (
        ".png", lambda q, r, out: ["compare", q, r, "-m", "nDCG@5", "-m", "AP", "-B", "20",
                                   "--plot", out]
    ),
    "optimize --save": (
        ".json", lambda q, r, out: ["optimize", "discount", q, r, "-k", "3", "--starts", "0",
                                    "--save", out]
    ),
    "optimize --plot": (
        ".png", lambda q, r, out: ["optimize", "discount", q, r, "-k", "3", "--starts", "0",
                                   "--plot", out]
    ),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_symlink_is_written_through_to_its_target(coll, tmp_path, capsys, writer):
    suffix, argv = WRITERS[writer]
    real, links = tmp_path / "real", tmp_path / "links"
    real.mkdir()
    links.mkdir()
    target = real / f"t{suffix}"
    target.write_text("keep")
    link = links / f"l{suffix}"
    link.symlink_to(Path("..") / "real" / target.name)  # relative: resolved from the link's dir
    code, _, err = cli(capsys, *argv(*coll, link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == f"../real/{target.name}"
    assert target.read_bytes() != b"keep" and target.stat().st_size > 100
    assert leftovers(real, links) == []


def test_dangling_symlink_creates_its_target(coll, tmp_path, capsys):
    link = tmp_path / "l.tsv"
    link.symlink_to(tmp_path / "new.tsv")
    code, _, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, link))
    assert code == 0, err
    assert link.is_symlink() and (tmp_path / "new.tsv").read_text().startswith("  run")


@pytest.mark.parametrize("mode", [0o444, 0o640, 0o600])
def test_existing_file_keeps_its_mode(coll, tmp_path, capsys, mode):
    out = tmp_path / "x.tsv"
    out.write_text("old")
    out.chmod(mode)
    code, _, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, out))
    assert code == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert out.read_text().startswith("  run")


def test_new_file_gets_umask_mode(coll, tmp_path, capsys):
    old = os.umask(0o027)
    try:
        code, _, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, tmp_path / "new.tsv"))
    finally:
        os.umask(old)
    assert code == 0, err
    # 0666 & ~umask; the umask was read when irstab.io.atomicfile was imported (0o022 here).
    from irstab.io.atomicfile import _UMASK

    assert stat.S_IMODE((tmp_path / "new.tsv").stat().st_mode) == 0o666 & ~_UMASK


# ------------------------------------------------------------------ FIFOs and devices


def _read_fifo(path: Path, sink: list) -> threading.Thread:
    def read():
        with open(path, "rb") as fh:
            sink.append(fh.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("via_link", [False, True])
def test_fifo_is_written_in_place(coll, tmp_path, capsys, via_link):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    path = fifo
    if via_link:
        path = tmp_path / "link"
        path.symlink_to(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    code, _, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, path))
    reader.join(timeout=30)
    assert code == 0, err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got and got[0].decode().startswith("  run topic")
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", ["evaluate -o", "topics --figure"])
def test_a_fifo_nobody_reads_is_refused_after_a_bounded_wait(coll, tmp_path, capsys,
                                                             monkeypatch, writer):
    # opening a FIFO for writing blocks until a reader comes: without a deadline the command
    # waited for ever
    from irstab.io import atomicfile

    monkeypatch.setattr(atomicfile, "FIFO_READER_WAIT", 0.5)
    fifo = tmp_path / f"f{WRITERS[writer][0]}"
    os.mkfifo(fifo)
    start = time.monotonic()
    code, _, err = cli(capsys, *WRITERS[writer][1](*coll, fifo))
    assert code == 1 and "is a FIFO that nobody read within 0.5 s" in err, err
    assert time.monotonic() - start < 60
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_a_report_directory_that_is_a_file_or_fifo_is_refused_before_the_study(
        coll, tmp_path, capsys, monkeypatch, kind):
    import irstab.report.study

    out = tmp_path / "rep"
    if kind == "file":
        out.write_text("keep")
    else:
        os.mkfifo(out)
    ran = []
    monkeypatch.setattr(irstab.report.study, "run_study", lambda *a, **k: ran.append(1))
    code, _, err = cli(capsys, "report", *coll, "-o", out)
    assert code == 1 and f"is a {'FIFO' if kind == 'fifo' else 'file'}, not a directory" in err
    assert ran == []  # refused before any work
    assert kind == "fifo" or out.read_text() == "keep"


def test_a_file_output_that_is_a_directory_is_refused_before_any_work(coll, tmp_path, capsys):
    code, _, err = cli(capsys, "stability", *coll, "-m", "nDCG@5", "-o", tmp_path)
    assert code == 1 and "is a directory; this output is one file" in err, err


def test_a_socket_as_output_is_named_before_any_work(coll, tmp_path, capsys):
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        code, _, err = cli(capsys, "stability", *coll, "-m", "nDCG@5", "-o", path)
    assert code == 1 and "is a socket, which cannot be written as a file" in err, err


def test_a_fifo_in_the_run_directory_is_named_not_skipped(coll, tmp_path, capsys):
    q, r = coll
    runs = tmp_path / "runs"
    runs.mkdir()
    for f in r.iterdir():
        (runs / f.name).write_bytes(f.read_bytes())
    os.mkfifo(runs / "zz")
    code, _, err = cli(capsys, "evaluate", q, runs, "-m", "AP")
    assert code == 1 and "zz: is a FIFO, not a run file, in the run directory" in err, err


def _device(tmp_path: Path, name: str, minor: int) -> Path:
    """A character device node equal to /dev/<name> (major 1), made in ``tmp_path``."""
    node = tmp_path / name
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        with open(node, "wb"):
            pass
    except OSError as exc:
        pytest.skip(f"cannot make or open a device node here: {exc}")
    return node


def test_null_device_is_written_in_place(coll, tmp_path, capsys):
    null = _device(tmp_path, "null", 3)
    code, _, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, null))
    assert code == 0, err
    assert stat.S_ISCHR(null.lstat().st_mode)
    assert leftovers(tmp_path) == []


def test_full_device_error_keeps_the_node(coll, tmp_path, capsys):
    full = _device(tmp_path, "full", 7)
    code, out, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, full))
    assert code == 1 and out == ""
    assert err.strip() == f"irstab: error: cannot write {full}: No space left on device"
    assert stat.S_ISCHR(full.lstat().st_mode)
    assert leftovers(tmp_path) == []


def test_link_to_own_stdout_writes_to_stdout(coll, tmp_path, irstab_process):
    # A link to /proc/self/fd/1 is what /dev/stdout is; the link must survive and the
    # table must arrive on the process's standard output (a pipe here).
    link = tmp_path / "stdout.tsv"
    link.symlink_to("/proc/self/fd/1")
    proc = irstab_process(WRITERS["evaluate -o"][1](*coll, link))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("  run topic")
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"


# ------------------------------------------------------------------ errors name the target


def test_directory_as_output_is_named(coll, tmp_path, capsys):
    code, _, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, tmp_path))
    assert code == 1
    assert err.strip() == (f"irstab: error: {tmp_path}: is a directory; this output is one "
                           "file: give a file name")


@pytest.mark.parametrize("option", ["-o", "--figure"])
def test_empty_output_path_is_refused(coll, capsys, option):
    q, r = coll
    argv = {"-o": ["evaluate", q, r, "-m", "nDCG@5", "-o", ""],
            "--figure": ["topics", q, r, "-m", "nDCG@5", "--figure", ""]}[option]
    code, out, err = cli(capsys, *argv)
    assert code == 1 and out == ""
    label = {"-o": "--output/-o", "--figure": "--figure"}[option]
    assert err.strip() == f"irstab: error: {label}: empty path; give a file name"


@pytest.mark.parametrize("writer", ["evaluate -o", "topics --figure"])
def test_unwritable_directory_names_the_target(coll, tmp_path, writer, irstab_process,
                                               unprivileged):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    suffix, argv = WRITERS[writer]
    target = ro / f"x{suffix}"
    proc = irstab_process(argv(*coll, target), unprivileged)
    ro.chmod(0o755)
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()[-1:]
    assert str(target) in line and "Permission denied" in line
    assert TMP_MARK not in line and f".{target.name}." not in line
    assert list(ro.iterdir()) == []


# ------------------------------------------------------------------ killed writers


def test_sigterm_during_a_write_removes_the_temporary_file(coll, tmp_path):
    # The child stops inside the write (after the temporary file is written, before the
    # rename) and says so through a file; SIGTERM then must unwind and remove it.
    out = tmp_path / "x.tsv"
    ready = tmp_path / "ready"
    script = f"""
import sys, time, pathlib, irstab.io.atomicfile as af, irstab.cli
def stall(self, _commit=af.Staged.commit):
    pathlib.Path({str(ready)!r}).write_text(self.tmp)
    time.sleep(120)
af.Staged.commit = stall
sys.exit(irstab.cli.main(sys.argv[1:]))
"""
    q, r = coll
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    child = subprocess.Popen(
        [sys.executable, "-c", script, "evaluate", str(q), str(r), "-m", "nDCG@5", "-o", str(out)],
        stderr=subprocess.PIPE, text=True, env=env,
    )
    deadline = time.monotonic() + 240
    while not ready.exists() and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.1)
    tmp = Path(ready.read_text())
    assert tmp.exists() and tmp.parent == tmp_path  # the writer really was mid-write
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 128 + signal.SIGTERM
    assert "stopped by SIGTERM" in err and "Traceback" not in err
    assert not tmp.exists() and not out.exists()
    assert leftovers(tmp_path) == []


def test_leftovers_of_a_dead_writer_are_removed_by_the_next_write(coll, tmp_path, capsys):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, timeout=60).stdout.strip()
    stale = tmp_path / f".x.tsv.{dead}{TMP_MARK}abc123"
    live = tmp_path / f".x.tsv.1{TMP_MARK}def456"  # pid 1 runs as long as the machine does
    other = tmp_path / f".y.tsv.{dead}{TMP_MARK}abc123"  # another target's: not ours to judge
    for p in (stale, live, other):
        p.write_text("half")
    code, _, err = cli(capsys, *WRITERS["evaluate -o"][1](*coll, tmp_path / "x.tsv"))
    assert code == 0, err
    assert not stale.exists()
    assert live.exists() and other.exists()


def test_library_figure_writers_go_through_the_same_writer(tmp_path, monkeypatch):
    # irstab.report.informativeness_figures saved with fig.savefig(path): a failure in the
    # middle of the save left half a file. Now it is written whole or not at all, through
    # a symbolic link, and the target keeps its mode.
    import matplotlib.figure
    import matplotlib.pyplot as plt
    import pandas as pd

    from irstab.report.informativeness_figures import plot_gap_grid

    grid = pd.DataFrame({"g1": [0.0, 0.5, 0.0], "g2": [0.0, 0.0, 0.5], "level": [1, 1, 1],
                         "mean_rms": [0.3, 0.2, 0.25]})
    target = tmp_path / "elsewhere" / "gap.png"
    target.parent.mkdir()
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "gap.png"
    link.symlink_to(target)
    save = matplotlib.figure.Figure.savefig

    def dies_halfway(self, fname, **kw):
        if hasattr(fname, "write"):
            fname.write(b"partial")
        else:
            Path(fname).write_bytes(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", dies_halfway)
    with pytest.raises(OSError):
        plot_gap_grid(grid, path=link)
    plt.close("all")
    assert target.read_text() == "old" and leftovers(tmp_path, target.parent) == []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", save)
    plt.close(plot_gap_grid(grid, path=link))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path, target.parent) == []
