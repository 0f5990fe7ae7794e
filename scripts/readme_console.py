"""Regenerate (or check) the console examples of README.md from the commands themselves.

Each block in README.md that follows a ``<!-- console:NAME -->`` line is the output of
the command below on TREC DL 2019 (../shared/data/trec-dl-2019-passage), cut to its first
lines, with the wall time and rounding-level figures masked (``MASKS``).
``python scripts/readme_console.py`` rewrites the blocks; ``--check`` exits 1 when
one differs (tests/test_readme_console.py runs the check).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
README = REPO / "README.md"

# name -> (command as shown, lines of output kept; None = all)
BLOCKS = {
    "evaluate": (
        "irstab evaluate qrels.txt runs/ -m nDCG@10 -m 'nDCG(gain=exp,discount=zipf)@10' "
        "-m 'AP(rel=2)' -m 'RR(rel=2)' -m 'RBP(p=0.8)'", 5),
    "trec-names": ("irstab evaluate qrels.txt runs/TUA1-1.gz -m ndcg_cut.10,map,P.10 -l 2 -f trec",
                   None),
    "compare": ("irstab compare qrels.txt runs/ -m nDCG@10 -m 'nDCG(gain=exp)@10' -m AP --top 30",
                None),
    "optimize": ("irstab optimize discount qrels.txt runs/ --cutoff 20", 12),
    "verdict": ("irstab compare qrels.txt runs/ -m nDCG@10,nDCG@20,'nDCG(discount=zipf)@20',"
                "'nDCG(gain=exp)@10',AP --baseline nDCG@10 --candidate nDCG@20 "
                "--candidate 'nDCG(discount=zipf)@20' --candidate 'nDCG(gain=exp)@10'", None),
}
# What changes between runs or solver revisions at rounding level, or is too long to show,
# replaced in the shown output: the wall time, the spread of the starts' optima, and the
# optimum's full-precision discount vector (the "# discount:" line shows it rounded).
MASKS = (
    (re.compile(r"(, )\d+(?:\.\d+)? s\)$", re.M), r"\1... s)"),
    (re.compile(r"spread [^,]+,"), "spread ...,"),
    (re.compile(r"discount=\([^()]*\)"), "discount=(...)"),
)
_BLOCK = re.compile(r"(<!-- console:(?P<name>[\w-]+) -->\n```console\n)(?P<body>.*?)(```)", re.S)


def run(shown: str) -> str:
    """The command's stdout, with qrels.txt and runs/ read from the DL-2019 directory."""
    import irstab.cli

    argv = [a.replace("qrels.txt", str(DATA / "qrels.txt")).replace("runs/", str(DATA / "runs") + "/")
            for a in shlex.split(shown)[1:]]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = irstab.cli.main(argv)
    if code != 0:
        raise RuntimeError(f"{shown}: exit code {code}")
    return out.getvalue()


def render(name: str) -> str:
    shown, keep = BLOCKS[name]
    text = run(shown)
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    lines = text.splitlines()
    cut = keep is not None and len(lines) > keep
    body = lines[:keep] if cut else lines
    return "$ " + shown + "\n" + "".join(f"{line}\n" for line in body) + ("...\n" if cut else "")


def blocks(text: str) -> dict[str, str]:
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    fresh = {name: render(name) for name in blocks(text)}
    if "--check" in argv:
        stale = [n for n, body in blocks(text).items() if body != fresh[n]]
        for n in stale:
            print(f"README.md: console block {n!r} differs from the command's output", file=sys.stderr)
        return 1 if stale else 0
    README.write_text(_BLOCK.sub(lambda m: m.group(1) + fresh[m.group("name")] + m.group(4), text),
                      encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
