"""Outputs never destroy what irstab did not write, and never land on or among the inputs.

One replacement mechanism (:mod:`irstab.io.outputtree`): a report directory is replaced
only when it is new, empty or an earlier report (its manifest), foreign files in it are
carried over as the same files (hard links), and a directory irstab did not write or a
mount point makes it refuse before anything is written. One input registry
(:mod:`irstab.io.registry`): every input (qrels, runs and run directories, score files,
``-m @file``) against every output (``-o``, ``--figure``, ``--save``, the report), and
outputs against each other. Oracles: the files' bytes and inodes before and after.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstab.cli
from irstab.io.atomicfile import MANIFEST
from irstab.io.outputtree import atomic_write_tree
from irstab.simulate import simulate_collection


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


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root``: (kind, inode, bytes or link target)."""
    out = {}
    for here, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(here, name)
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = ("link", os.lstat(p).st_ino, os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir", os.lstat(p).st_ino, None)
            else:
                out[rel] = ("file", os.lstat(p).st_ino, p.read_bytes())
    return out


REPORT = ("report", "-k", "3", "--starts", "0", "-B", "40", "--depth", "20")


@pytest.fixture(scope="module")
def made(coll, tmp_path_factory):
    """A report written by ``irstab report`` into an empty directory, once for the module:
    the tests that need an earlier report start from a copy of it (its manifest lists its
    files by relative name, so a copy is an earlier report as much as the original)."""
    q, r = coll
    empty = tmp_path_factory.mktemp("made") / "empty"
    empty.mkdir()
    code = irstab.cli.main([str(a) for a in (*REPORT, q, r, "-o", empty)])
    assert code == 0  # an empty directory is fine
    return empty


def earlier_report(made: Path, at: Path) -> Path:
    shutil.copytree(made, at, symlinks=True)
    return at


# ---------------------------------------------------------------- replacing a directory


def test_a_directory_irstab_did_not_write_is_refused_untouched(coll, made, tmp_path, capsys):
    # before: its content was copied into the new report and the directory deleted
    q, r = coll
    mine = tmp_path / "mine"
    (mine / "notes").mkdir(parents=True)
    (mine / "thesis.tex").write_text("chapter 1")
    (mine / "notes" / "a.txt").write_text("a")
    before = snapshot(mine)
    code, out, err = cli(capsys, *REPORT, q, r, "-o", mine)
    assert code == 1 and out == ""
    assert f"{mine}: exists and is not an irstab report" in err and "thesis.tex" in err
    assert snapshot(mine) == before and os.listdir(tmp_path) == ["mine"]
    # an empty directory is fine (the module's report, `made`, was written into one)
    listed = json.loads((made / MANIFEST).read_text())["files"]
    assert "explore.html" in listed and "report.html" in listed
    assert {f"figures/{p.name}" for p in (made / "figures").iterdir()} <= set(listed)


def test_a_report_keeps_foreign_files_and_refuses_foreign_directories(coll, made, tmp_path,
                                                                       capsys):
    q, r = coll
    rep = earlier_report(made, tmp_path / "rep")
    (rep / "notes.txt").write_text("mine")
    (rep / "figures" / "extra.svg").write_text("<svg/>")
    kept = {p: os.stat(rep / p).st_ino for p in ("notes.txt", "figures/extra.svg")}
    assert cli(capsys, *REPORT, q, r, "-o", rep)[0] == 0
    for p, inode in kept.items():  # the same files, not copies
        assert os.stat(rep / p).st_ino == inode
    assert (rep / "notes.txt").read_text() == "mine"
    (rep / "data").mkdir()
    (rep / "data" / "big.bin").write_bytes(b"x" * 100)
    before = snapshot(rep)
    code, _, err = cli(capsys, *REPORT, q, r, "-o", rep)
    assert code == 1 and f"holds a directory irstab did not write ({rep / 'data'})" in err
    assert snapshot(rep) == before and sorted(os.listdir(tmp_path)) == ["rep"]


def test_report_directory_files_through_symlinks_keep_modes(coll, made, tmp_path, capsys):
    # an earlier report, whose files the user then changes: a link is written through (it
    # stays a link), a read-only file keeps its mode, no temporary file is left anywhere
    q, r = coll
    out = earlier_report(made, tmp_path / "rep")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "md").write_text("old")
    (out / "report.md").unlink()
    (out / "report.md").symlink_to(elsewhere / "md")
    (out / "report.json").write_text("{}")
    (out / "report.json").chmod(0o444)
    code, _, err = cli(capsys, *REPORT, q, r, "-o", out)
    assert code == 0, err
    assert (out / "report.md").is_symlink()
    assert (elsewhere / "md").read_text().startswith("#")
    assert stat.S_IMODE((out / "report.json").stat().st_mode) == 0o444
    assert json.loads((out / "report.json").read_text())["cutoffs"] == [3]
    assert [p.name for d in (out, out / "figures", elsewhere) for p in d.iterdir()
            if p.name.startswith(".") and p.name != MANIFEST] == []  # no temporary file


def _unshare_bind():
    """A command prefix running its command in a private mount namespace with ``$1`` bound
    on ``$2`` (the mount vanishes with the process); skips where that is not allowed."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                           capture_output=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip("cannot make a private mount namespace here")
    script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
    return lambda src, at: ["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                            "sh", str(src), str(at)]


@pytest.mark.parametrize("where", ["figures", "data"])
def test_a_mount_inside_the_report_directory_is_never_entered(coll, made, tmp_path,
                                                              irstab_process, where):
    # the audit's loss: a file system mounted inside DIR was emptied by report -o DIR.
    # Bound on the report's own figures/ or on a directory of the user's: refused, and
    # the mounted files are all there afterwards.
    bind = _unshare_bind()
    q, r = coll
    rep = earlier_report(made, tmp_path / "rep")
    (rep / where).mkdir(exist_ok=True)
    mounted = tmp_path / "volume"
    mounted.mkdir()
    (mounted / "precious.dat").write_bytes(b"\x00precious")
    before = snapshot(rep)
    proc = irstab_process([*REPORT, q, r, "-o", rep], prefix=bind(mounted, rep / where))
    assert proc.returncode == 1, proc.stderr
    assert f"holds a mount point ({rep / where})" in proc.stderr
    assert (mounted / "precious.dat").read_bytes() == b"\x00precious"
    assert snapshot(rep) == before


def test_an_input_directory_reached_through_a_bind_mount_is_still_an_input(coll, tmp_path,
                                                                          irstab_process):
    # the audit's loss: -o alias/out.tsv, alias a bind mount of the run directory, wrote a
    # file the next run read as a run; the mount has the directory's device and inode
    bind = _unshare_bind()
    q, r = coll
    runs = tmp_path / "runs"
    shutil.copytree(r, runs)
    alias = tmp_path / "alias"
    alias.mkdir()
    proc = irstab_process(["evaluate", q, runs, "-m", "AP", "-o", alias / "out.tsv"],
                          prefix=bind(runs, alias))
    assert proc.returncode == 1, proc.stderr
    assert f"lies inside the input directory {runs} (mounted at {alias})" in proc.stderr
    assert sorted(os.listdir(runs)) == sorted(os.listdir(r))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extra=st.lists(st.tuples(st.sampled_from(["", "figures/", "sub/", "figures/deep/"]),
                                st.sampled_from(["a", "b.png", "report.md", ".hidden"]),
                                st.sampled_from(["file", "link", "dir"])),
                      max_size=6, unique_by=lambda x: (x[0], x[1])))
def test_replacing_a_report_keeps_or_refuses_never_loses(tmp_path_factory, extra):
    # any foreign entries in a report directory: either the write is refused and nothing
    # changed, or it succeeds and every foreign file is the same file (inode, bytes)
    root = tmp_path_factory.mktemp("tree")
    rep = root / "rep"
    old = {"report.html": b"A", "report.md": b"A", "figures/f1.png": b"A"}
    atomic_write_tree(rep, old)
    for folder, name, kind in extra:
        p = rep / folder / name
        if p.exists() or p.is_symlink():
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        if kind == "file":
            p.write_bytes(b"user:" + str(p).encode())
        elif kind == "link":
            p.symlink_to("/nonexistent/target")
        else:
            p.mkdir()
    before = snapshot(rep)
    new = {"report.html": b"B", "report.json": b"B", "figures/f2.png": b"B"}
    try:
        atomic_write_tree(rep, new)
    except OSError as exc:
        assert exc.filename == str(rep) or str(exc.filename).startswith(str(rep))
        assert snapshot(rep) == before
    else:
        after = snapshot(rep)
        for rel, (kind, inode, data) in before.items():
            if kind != "dir" and rel not in old and rel not in new and rel != MANIFEST:
                assert after[rel] == (kind, inode, data), rel
        for rel, data in new.items():
            assert (rep / rel).read_bytes() == data
        assert not (rep / "figures" / "f1.png").exists()  # the old report's own file is gone
    assert sorted(os.listdir(root)) == ["rep"]  # no temporary tree left beside it


# ---------------------------------------------------------------- one input registry


def test_report_into_the_run_directory_is_refused(coll, tmp_path, capsys):
    q, r = coll
    runs = tmp_path / "runs"
    shutil.copytree(r, runs)
    before = snapshot(runs)
    for out, why in ((runs, "is the input directory"), (runs / "rep", "lies inside the input "
                                                                         "directory")):
        code, _, err = cli(capsys, *REPORT, q, runs, "-o", out)
        assert code == 1 and why in err, err
        assert snapshot(runs) == before
    # a directory holding an input (the qrels) would be replaced with them inside
    (tmp_path / "qrels.txt").write_bytes(q.read_bytes())
    code, _, err = cli(capsys, *REPORT, tmp_path / "qrels.txt", r, "-o", tmp_path)
    assert code == 1 and f"holds the input {tmp_path / 'qrels.txt'}" in err


def test_an_output_inside_a_run_directory_is_refused(coll, tmp_path, capsys):
    # a new file there would be read as a run the next time the directory is evaluated
    q, r = coll
    runs = tmp_path / "runs"
    shutil.copytree(r, runs)
    code, _, err = cli(capsys, "evaluate", q, runs, "-m", "P@5", "-o", runs / "scores.tsv")
    assert code == 1 and "lies inside the input directory" in err
    assert not (runs / "scores.tsv").exists()


def test_a_saved_measure_is_an_input(coll, tmp_path, capsys):
    q, r = coll
    opt = tmp_path / "opt.json"
    code, _, err = cli(capsys, "optimize", "discount", q, r, "--cutoff", "5", "--starts", "0",
                       "--save", opt)
    assert code == 0, err
    saved = opt.read_bytes()
    for measure in (f"@{opt}", f"mine=@{opt}", f"nDCG@5,@{opt}"):
        code, out, err = cli(capsys, "evaluate", q, r, "-m", measure, "-o", opt)
        assert code == 1 and f"{opt}: is an input of this command" in err, err
        assert opt.read_bytes() == saved


@pytest.mark.parametrize("argv", [
    ("topics", "{q}", "{r}", "-m", "nDCG@5", "--figure", "{x}", "-o", "{x}"),
    ("optimize", "discount", "{q}", "{r}", "--cutoff", "5", "--starts", "0", "--figure", "{x}",
     "--save", "{x}"),
])
def test_two_outputs_of_one_command_may_not_share_a_path(coll, tmp_path, capsys, argv):
    q, r = coll
    x = tmp_path / "x.png"
    code, out, err = cli(capsys, *[a.format(q=q, r=r, x=x) for a in argv])
    assert code == 1 and "is also where another output of this command goes" in err, err
    assert out == "" and not x.exists()
