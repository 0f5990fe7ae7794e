"""Write the trec_eval 10.0 reference outputs of ``test_trec_eval10.py``.

Usage (from the repository root; the DL-2019 data as in ``tests/conftest.py``)::

    python tests/trec_eval10/make_references.py /path/to/trec_eval

The binary is trec_eval 10.0 built from its public source (github.com/usnistgov/trec_eval,
tag v10.0, commit f4253652c8efd0d86ddffd0d163cc0a0f813111a, ``make``; its ``-v`` says
``10.0-rc3``, the version string its Makefile still sets); it is not part of this
repository. trec_eval reads plain text, so each run is decompressed to a temporary file
named by its run tag first. Writes ``digests.json``: for every option set of ``cases.py``,
the SHA-256 of the output on every run and (``"*"``) of all 37 outputs concatenated in run
file order, which is what ``irstab evaluate -f trec OPTIONS qrels runs/`` prints; and
``full.json.xz``: the full text for ``cases.FULL_RUNS``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cases import FULL_RUNS, OPTION_SETS  # noqa: E402

DATA = HERE.parents[2] / "shared" / "data" / "trec-dl-2019-passage"


def main(binary: str) -> None:
    digests: dict[str, dict[str, str]] = {}
    full: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        runs = {}
        for path in sorted((DATA / "runs").glob("*.gz")):
            plain = Path(tmp) / path.name.removesuffix(".gz")
            plain.write_bytes(gzip.decompress(path.read_bytes()))
            runs[plain.name] = plain
        for name, options in OPTION_SETS.items():
            digests[name], full[name] = {}, {}
            every = hashlib.sha256()
            for tag, plain in runs.items():
                out = subprocess.run([binary, *shlex.split(options), str(DATA / "qrels.txt"),
                                      str(plain)], capture_output=True, check=True,
                                     timeout=600).stdout
                digests[name][tag] = hashlib.sha256(out).hexdigest()
                every.update(out)
                if tag in FULL_RUNS:
                    full[name][tag] = out.decode()
            digests[name]["*"] = every.hexdigest()
    (HERE / "digests.json").write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    (HERE / "full.json.xz").write_bytes(
        lzma.compress(json.dumps(full, sort_keys=True).encode(), preset=9 | lzma.PRESET_EXTREME))


if __name__ == "__main__":
    main(sys.argv[1])
