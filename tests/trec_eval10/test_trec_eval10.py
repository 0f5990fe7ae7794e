"""``irstab evaluate -f trec`` prints what trec_eval 10.0 prints, byte for byte.

Oracle: trec_eval 10.0 itself (github.com/usnistgov/trec_eval, tag v10.0), run by
``make_references.py`` on all 37 TREC DL 2019 runs for every option set of ``cases.py``
(``-q``, ``-c``, ``-l 2``/``-l 3``, ``-n``, ``-M``, ``-J``, the ``official``, ``all_trec``
and ``set`` nicknames, every parametrised measure of ``all_trec`` with other parameters).
``digests.json`` holds the SHA-256 of each output, and of the 37 outputs of an option set
concatenated in run file order, which is what one ``irstab evaluate -f trec OPTIONS qrels
runs/`` prints; ``full.json.xz`` holds the full text for three runs, so a difference there
shows as a diff. With a trec_eval binary of release 10 (``$IRSTAB_TREC_EVAL``, else
``trec_eval`` on PATH: trec_eval_binary.py), the test runs it too and compares irstab with it
directly; without one those tests skip, saying how to set the variable.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import lzma
import shlex
import subprocess
from pathlib import Path

import pytest

import irstab.cli

from cases import FULL_RUNS, OPTION_SETS  # pytest puts this directory on sys.path
from trec_eval_binary import trec_eval_10

HERE = Path(__file__).resolve().parent
DIGESTS = json.loads((HERE / "digests.json").read_text())
FULL = json.loads(lzma.decompress((HERE / "full.json.xz").read_bytes()))


def _irstab(capsys, options: str, qrels: Path, runs: Path) -> str:
    code = irstab.cli.main(["evaluate", "-f", "trec", *shlex.split(options), str(qrels),
                            str(runs)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err
    return out


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _first_difference(expected: str, got: str) -> str:
    lines = difflib.unified_diff(expected.splitlines(), got.splitlines(), "trec_eval 10.0",
                                 "irstab", lineterm="", n=0)
    return "\n".join(list(lines)[:12])


def test_references_cover_every_run_and_option_set(dl2019_dir):
    runs = sorted(p.name.removesuffix(".gz") for p in (dl2019_dir / "runs").glob("*.gz"))
    assert len(runs) == 37
    assert set(DIGESTS) == set(OPTION_SETS) == set(FULL)
    for name in OPTION_SETS:
        assert sorted(DIGESTS[name]) == sorted(runs + ["*"])
        assert sorted(FULL[name]) == sorted(FULL_RUNS)
        for tag, text in FULL[name].items():  # the stored texts are what the digests hash
            assert _sha(text) == DIGESTS[name][tag]
    # what trec_eval prints: e.g. TUA1-1 map 0.4724, -M 100 P_200 0.1888, set_F.0.5 0.1089
    assert "map                   \tall\t0.4724\n" in FULL["default"]["TUA1-1"]
    assert FULL["M100-P200"]["TUA1-1"] == "P_200                 \tall\t0.1888\n"
    assert "set_F_0.5             \tall\t0.1089\n" in FULL["params-q-c"]["TUA1-1"]
    assert FULL["all_trec-n"]["TUA1-1"] == ""  # -n without -q prints nothing


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_byte_identical_to_trec_eval_10_on_every_run(dl2019_dir, capsys, name):
    qrels, runs = dl2019_dir / "qrels.txt", dl2019_dir / "runs"
    out = _irstab(capsys, OPTION_SETS[name], qrels, runs)
    if _sha(out) == DIGESTS[name]["*"]:
        return
    # localise: run by run, with a diff where the full text is stored
    differing = []
    for path in sorted(runs.glob("*.gz")):
        tag = path.name.removesuffix(".gz")
        one = _irstab(capsys, OPTION_SETS[name], qrels, path)
        if _sha(one) != DIGESTS[name][tag]:
            differing.append(tag)
            if tag in FULL[name]:
                pytest.fail(f"{name}, {tag}:\n" + _first_difference(FULL[name][tag], one))
    pytest.fail(f"{name}: irstab differs from trec_eval 10.0 on {differing}")


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_one_run_at_a_time_as_trec_eval_reads_it(dl2019_dir, capsys, name):
    # trec_eval evaluates one run per call: so does `irstab evaluate -f trec OPTS QRELS RUN`
    for tag in FULL_RUNS:
        run = dl2019_dir / "runs" / f"{tag}.gz"
        out = _irstab(capsys, OPTION_SETS[name], dl2019_dir / "qrels.txt", run)
        assert out == FULL[name][tag], f"{name}, {tag}:\n" + _first_difference(FULL[name][tag], out)


@pytest.fixture(scope="module")
def trec_eval_binary() -> str:
    """``$IRSTAB_TREC_EVAL``, else ``trec_eval`` on PATH, of release 10 (trec_eval_binary.py);
    the skip message says why there is none and how to set the variable."""
    binary, reason = trec_eval_10()
    if binary is None:
        pytest.skip(reason)
    return binary


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_equal_to_a_trec_eval_binary_on_path(trec_eval_binary, dl2019_dir, capsys, tmp_path,
                                             name):
    binary = trec_eval_binary
    import gzip

    qrels = dl2019_dir / "qrels.txt"
    for path in sorted((dl2019_dir / "runs").glob("*.gz"))[::6]:  # every sixth run
        plain = tmp_path / path.name.removesuffix(".gz")  # trec_eval reads plain text
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        theirs = subprocess.run([binary, *shlex.split(OPTION_SETS[name]), str(qrels),
                                 str(plain)], capture_output=True, text=True, check=True,
                                timeout=120).stdout
        ours = _irstab(capsys, OPTION_SETS[name], qrels, path)
        assert ours == theirs, f"{name}, {plain.name}:\n" + _first_difference(theirs, ours)
