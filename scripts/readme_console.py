"""Regenerate (or check) every console block and quoted figure of the documentation from the commands.

README.md, CONTRIBUTING.md and docs/*.md (:data:`DOCUMENTS`) mark what this script writes:

``<!-- console:NAME -->`` then a fenced ``console`` block
    the command of :data:`BLOCKS` and its stdout on TREC DL 2019
    (``../shared/data/trec-dl-2019-passage``), cut to its first lines, with the figures
    that change from run to run masked (:data:`MASKS`);
``<!-- table:NAME -->`` ... ``<!-- /table -->``
    a Markdown table taken from a command's output (the report's candidates);
``<!-- value:NAME -->`` ... ``<!-- /value -->``
    one figure or sentence quoted in the prose (:data:`VALUES`), computed from the
    commands' outputs; names starting with ``time-`` are wall times, measured here, with the
    1-minute load average of the (shared) machine while they ran, and ``machine`` says where.

``python scripts/readme_console.py`` rewrites them all; ``--check`` exits 1 when one differs
(wall times and the machine only need their form: they differ between runs);
tests/test_readme_console.py runs the check. Each command runs once per process; their
outputs are also kept in a cache directory (``$IRSTAB_README_CACHE``, else
``<tmp>/irstab-readme-cache``) under a key that hashes the command, irstab's source files and
the data files' names and sizes, so a second check with nothing changed takes seconds and any
change of the code or data reruns every command (about two minutes on 2 cores).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
REANNOTATION = REPO.parent / "shared" / "data" / "trec-dl-2019-reannotation"
README = REPO / "README.md"


def documents() -> list[Path]:
    """The files whose marked parts this script writes: README.md, CONTRIBUTING.md, docs/*.md."""
    return [README, REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]

# name -> (command as shown, lines of output kept; None = all)
BLOCKS = {
    "demo": ("irstab demo -o demo-report", None),
    "report": ("irstab report qrels.txt runs/ -o dl2019-report", None),
    "evaluate": (
        "irstab evaluate qrels.txt runs/ -m nDCG@10 -m 'nDCG(gain=exp,discount=zipf)@10' "
        "-m 'AP(rel=2)' -m 'RR(rel=2)' -m 'RBP(p=0.8)'", 5),
    "trec-names": ("irstab evaluate qrels.txt runs/TUA1-1.gz -m ndcg_cut.10,map,P.10 -l 2 -f trec",
                   None),
    "stability": ("irstab stability qrels.txt runs/ -m nDCG@10 -m 'nDCG(gain=exp)@10' "
                  "-m 'nDCG(discount=zipf)@10' -m 'nDCG(gain=exp,discount=zipf)@10' "
                  "-m 'nDCG(discount=linear)@10' -m 'nDCG(gain=exp,discount=linear)@10' "
                  "-m AP -m P@10 -m RR -m GAP", None),
    "compare": ("irstab compare qrels.txt runs/ -m nDCG@10 -m 'nDCG(gain=exp)@10' -m AP --top 30",
                None),
    "optimize": ("irstab optimize discount qrels.txt runs/ --cutoff 20", 12),
    "systems": ("irstab systems qrels.txt runs/ -m nDCG@10 --baseline bm25base_p", 12),
    "calibrate": ("irstab calibrate qrels.txt runs/ -m nDCG@10", None),
    "assessors": ("irstab assessors qrels.txt runs/ -a trec-dl-2019-reannotation/main -m nDCG@10 "
                  "-m AP -m P@10 -m 'nDCG(gain=exp)@10' --figure contours.png", 6),
    "design-power": ("irstab design power qrels.txt runs/ -m nDCG@10 -m AP -m P@10 -m RR",
                     None),
    "design-budget": ("irstab design budget qrels.txt runs/ -m nDCG@10 --cost-per-topic 20",
                      None),
    "explore": ("irstab explore qrels.txt runs/ -o explore.html", None),
    "verdict": ("irstab compare qrels.txt runs/ -m nDCG@10,nDCG@20,'nDCG(discount=zipf)@20',"
                "'nDCG(gain=exp)@10',AP --baseline nDCG@10 --candidate nDCG@20 "
                "--candidate 'nDCG(discount=zipf)@20' --candidate 'nDCG(gain=exp)@10'", None),
    "preferences": ("irstab preferences data/ecir2015-dcg/crowd.csv", 4),
    "judges": ("irstab judges qrels.txt trec-dl-2019-reannotation/main runs/ -m nDCG@10 -m AP "
               "--cheap sean-macavaney --gold-topics 0.5", 13),
    "preferences-example": ("irstab preferences data/example-preferences/preferences.csv "
                            "data/example/qrels.txt data/example/runs "
                            "-m nDCG@10,'nDCG(gain=exp,discount=zipf)@10',AP", None),
}
#: Commands whose outputs only feed VALUES (no console block of their own).
EXTRA: dict[str, str] = {}

# What changes between runs or solver revisions at rounding level, or is too long to show,
# replaced in the shown output: the wall time, the spread of the starts' optima, and the
# optimum's full-precision discount vector (the "# discount:" line shows it rounded).
MASKS = (
    (re.compile(r"(, )\d+(?:\.\d+)? s\)$", re.M), r"\1... s)"),
    (re.compile(r"spread [0-9.e+-]+,"), "spread ...,"),  # the starts' optima (a number)
    (re.compile(r"discount=\([^()]*\)"), "discount=(...)"),
)
_BLOCK = re.compile(r"(<!-- console:(?P<name>[\w-]+) -->\n```console\n)(?P<body>.*?)(```)", re.S)
_TABLE = re.compile(r"(<!-- table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.S)
_VALUE = re.compile(r"(<!-- value:(?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /value -->)", re.S)
_VOLATILE = re.compile(r"(time-|machine)")
_TIME_FORM = re.compile(r"\d+(?:\.\d)? s at load \d+\.\d")


# ------------------------------------------------------------------ running the commands

def _argv(shown: str, out_dir: Path) -> list[str]:
    """The shown command's arguments with the data paths and output files made real."""
    real = []
    for a in shlex.split(shown)[1:]:
        if a.startswith("data/"):  # the repository's own example data (data/example/qrels.txt)
            real.append(str(REPO / a))
            continue
        a = a.replace("qrels.txt", str(DATA / "qrels.txt")).replace("runs/", str(DATA / "runs") + "/")
        a = a.replace("trec-dl-2019-reannotation/", str(REANNOTATION) + "/")
        a = a.replace("data/ecir2015-dcg/", str(REPO / "data" / "ecir2015-dcg") + "/")
        if a in ("dl2019-report", "demo-report", "contours.png"):
            a = str(out_dir / a)
        real.append(a)
    return real


def _source_key(shown: str) -> str:
    h = hashlib.sha256(shown.encode())
    for path in sorted((REPO / "src").rglob("*.py")) + [Path(__file__)]:
        h.update(path.relative_to(REPO).as_posix().encode() + path.read_bytes())
    for root in (DATA, REANNOTATION):
        for path in sorted(root.rglob("*")):
            if path.is_file():
                h.update(f"{path.relative_to(root)}:{path.stat().st_size}".encode())
    return h.hexdigest()[:32]


def _cache_dir() -> Path:
    return Path(os.environ.get("IRSTAB_README_CACHE") or Path(tempfile.gettempdir()) / "irstab-readme-cache")


_RUNS: dict[str, dict] = {}
_MAIN = "import sys, irstab.cli; sys.exit(irstab.cli.main())"
_COMMAND_SECONDS = 600  # one command's deadline (the slowest takes ~50 s on 2 loaded cores)


def run(name: str) -> dict:
    """``{"stdout", "seconds", "files": {name: text}}`` of a command, run once (and cached)."""
    if name in _RUNS:
        return _RUNS[name]
    shown = BLOCKS[name][0] if name in BLOCKS else EXTRA[name]
    key = _source_key(shown)
    cached = _cache_dir() / f"{name}-{key}.json"
    if cached.is_file():
        _RUNS[name] = json.loads(cached.read_text(encoding="utf-8"))
        return _RUNS[name]
    with tempfile.TemporaryDirectory(prefix="irstab-readme-") as tmp:
        out_dir = Path(tmp)
        # a process of its own, as a user runs it: the wall time includes the interpreter's
        # start and the imports; anything the command writes beside lands in out_dir
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
        load0 = os.getloadavg()[0]  # the machine is shared: the load goes with the time
        t0 = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-c", _MAIN, *_argv(shown, out_dir)],
                                  cwd=out_dir, env=env, capture_output=True, text=True,
                                  timeout=_COMMAND_SECONDS)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{shown}: did not finish within {_COMMAND_SECONDS} s") from None
        seconds = time.perf_counter() - t0
        load = max(load0, os.getloadavg()[0])
        if proc.returncode != 0:
            raise RuntimeError(f"{shown}: exit code {proc.returncode}: {proc.stderr[-2000:]}")
        stdout = proc.stdout.replace(str(out_dir) + "/", "").replace(str(REPO) + "/", "")
        files = {}
        for path in out_dir.rglob("*"):
            if path.suffix == ".html" and path.is_file():  # its size only
                files[path.relative_to(out_dir).as_posix() + ":size"] = str(path.stat().st_size)
            if path.suffix in (".json", ".md") and path.is_file():
                files[path.relative_to(out_dir).as_posix()] = path.read_text(encoding="utf-8")
                files[path.relative_to(out_dir).as_posix() + ":size"] = str(path.stat().st_size)
    result = {"stdout": stdout, "seconds": seconds, "load": load, "files": files}
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(result), encoding="utf-8")
    shutil.rmtree(cached.parent / "tmp", ignore_errors=True)
    _RUNS[name] = result
    return result


# ------------------------------------------------------------------ what the README shows

def render(name: str) -> str:
    """A console block: ``$ command`` and its (masked, cut) stdout."""
    shown, keep = BLOCKS[name]
    text = run(name)["stdout"]
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    lines = text.splitlines()
    cut = keep is not None and len(lines) > keep
    body = lines[:keep] if cut else lines
    return "$ " + shown + "\n" + "".join(f"{line}\n" for line in body) + ("...\n" if cut else "")


def _report_md() -> str:
    return run("report")["files"]["dl2019-report/report.md"]


def _report_json() -> dict:
    return json.loads(run("report")["files"]["dl2019-report/report.json"])


def _candidates_table(rows: int = 9) -> str:
    """The first rows of report.md's candidates table, as the report writes them."""
    lines = _report_md().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| measure | family"))
    return "\n".join(lines[start:start + 2 + rows]) + "\n"


TABLES = {"report-candidates": _candidates_table}


def _verdict_lines(md: str) -> list[str]:
    lines = md.splitlines()
    i = lines.index("## Verdict")
    end = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("## ")), len(lines))
    return [line for line in lines[i + 1:end] if line.strip()]


def _headline(md: str) -> str:
    """The verdict's headline and its three bullets, as report.md writes them (one line)."""
    lines = _verdict_lines(md)
    return lines[0].strip("*") + ". " + " ".join(line[2:] for line in lines[1:4])


def _verdict(md: str) -> str:
    """The verdict in full (folded under the headline in the report)."""
    lines = _verdict_lines(md)
    k = next(i for i, line in enumerate(lines) if line.startswith("**The verdict in full"))
    return lines[k + 1]


def _assessor_rows() -> dict:
    """``{measure: {"phi", "sxa", "t1", "t2"}}`` parsed from the assessors table."""
    out = {}
    row = re.compile(r"^\s*(?P<m>\S+) +\d+s x \d+t x [\d.]+a +(?P<phi>[\d.]+) \[.*?\] +[\d.]+ \[.*?\]"
                     r" +[\d.]+ +[\d.]+ +(?P<sxa>[\d.]+) +(?P<t1>\d+) \| (?P<t2>\d+)")
    for line in run("assessors")["stdout"].splitlines():
        m = row.match(line)
        if m:
            out[m.group("m")] = m.groupdict()
    return out


def _assessor_shares() -> str:
    rows = sorted(_assessor_rows().items(), key=lambda kv: float(kv[1]["sxa"]))
    return ", ".join(f"{m} {r['sxa']}%" for m, r in rows)


def _stability_rows() -> dict:
    out = {}
    for line in run("stability")["stdout"].splitlines()[1:]:
        parts = line.split()
        if len(parts) > 10 and not line.startswith("#"):
            out[parts[0]] = {"phi": float(parts[12]), "topics": int(parts[-6])}
    return out


def _ap_more_topics() -> str:
    rows = _stability_rows()
    ratio = rows["AP"]["topics"] / rows["nDCG@10"]["topics"] - 1
    return f"about {round(ratio * 100, -1):.0f}%"


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, shared; {date.today().isoformat()}"


def _timed(name: str, spec: str) -> str:
    """``1.6 s at load 2.3`` : the wall time and the 1-minute load average around it."""
    r = run(name)
    return f"{r['seconds']:{spec}} s at load {r.get('load', float('nan')):.1f}"


VALUES = {
    "report-candidates-count": lambda: str(len(_report_json()["candidates"])),
    "report-verdict": lambda: _verdict(_report_md()),
    "report-headline": lambda: _headline(_report_md()),
    "explorer-size": lambda: f"{int(run('explore')['files']['explore.html:size']) / 1e6:.1f} MB",
    "report-json-size": lambda: f"{int(run('report')['files']['dl2019-report/report.json:size']) / 1e6:.1f} MB",
    "assessor-shares": _assessor_shares,
    "assessor-phi": lambda: f"{float(_assessor_rows()['nDCG@10']['phi']):.2f}",
    "assessor-topics-1a": lambda: _assessor_rows()["nDCG@10"]["t1"],
    "assessor-topics-2a": lambda: _assessor_rows()["nDCG@10"]["t2"],
    "stability-ap-more": _ap_more_topics,
    "stability-ndcg-range": lambda: "{:.2f}-{:.2f}".format(
        *(f(r["phi"] for m, r in _stability_rows().items() if m.startswith("nDCG")) for f in (min, max))),
    "time-demo": lambda: _timed("demo", ".0f"),
    "time-report": lambda: _timed("report", ".0f"),
    "time-evaluate": lambda: _timed("evaluate", ".1f"),
    "time-stability": lambda: _timed("stability", ".1f"),
    "machine": _machine,
}


# ------------------------------------------------------------------ the README

def blocks(text: str) -> dict[str, str]:
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}


def tables(text: str) -> dict[str, str]:
    return {m.group("name"): m.group("body") for m in _TABLE.finditer(text)}


def values(text: str) -> dict[str, str]:
    return {m.group("name"): m.group("body") for m in _VALUE.finditer(text)}


def stale(text: str) -> list[str]:
    """What in ``text`` differs from the commands' output (wall times: only their form)."""
    out = [f"console block {n!r}" for n, body in blocks(text).items() if body != render(n)]
    out += [f"table {n!r}" for n, body in tables(text).items() if body != TABLES[n]()]
    for n, body in values(text).items():
        if n not in VALUES:
            out.append(f"value {n!r} (no such value)")
        elif _VOLATILE.match(n):
            if n.startswith("time-") and not _TIME_FORM.fullmatch(body):
                out.append(f"value {n!r} ({body!r} is not a time)")
        elif body != VALUES[n]():
            out.append(f"value {n!r}")
    return out


def regenerate(text: str) -> str:
    text = _BLOCK.sub(lambda m: m.group(1) + render(m.group("name")) + m.group(4), text)
    text = _TABLE.sub(lambda m: m.group(1) + TABLES[m.group("name")]() + m.group(4), text)
    return _VALUE.sub(lambda m: m.group(1) + VALUES[m.group("name")]() + m.group(4), text)


def main(argv: list[str]) -> int:
    status = 0
    for path in documents():
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        if "--check" in argv:
            for what in stale(text):
                print(f"{path.relative_to(REPO)}: {what} differs from the commands' output",
                      file=sys.stderr)
                status = 1
            continue
        new = regenerate(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
