"""Whole-process measurements shared by the benchmarks: wall and CPU seconds of a command's
process tree, its largest process's peak RSS and the load average, in interleaved rounds.

CPU is user + system time of the child and of every descendant it waited for, from
``os.wait4`` on the child (Linux folds a reaped process's own children into it, as
``getrusage(RUSAGE_CHILDREN)`` does for the caller). irstab's worker processes are joined
by their pool, so they are counted; a descendant left running or never reaped would not
be (none of the commands benchmarked here leaves one). Peak RSS is the largest
``ru_maxrss`` among those processes (the biggest single process, not their sum), as GNU
time (``/usr/bin/time -f %M``) reports it: the command runs under it because Linux keeps
the peak of the memory a child replaces at ``exec``, which for a child of this process is
this process's own (a C program would show Python's 14 MB). The wrapper's own CPU, about
1 ms a process, is in the CPU figures; without GNU time the peak is ``wait4``'s, an upper
bound that includes this process's.

The tree's peak (``tree_rss``) is the sum of the resident sets of the command and all its
descendants (``/proc/PID/statm``, descendants found through ``/proc/*/stat``'s parent
field), sampled every :data:`TREE_INTERVAL` seconds while it runs, and its largest sum:
what the command holds at once, workers included. Sampling can miss a peak shorter than
the interval; the GNU time wrapper's own 2-3 MB is in the sum. Linux only (0 elsewhere).
A forked worker's pages still shared with its parent count once per process in that sum;
``run(..., pss=True)`` also samples the tree's summed proportional set size (``tree_pss``:
``Pss`` of ``/proc/PID/smaps_rollup``, a shared page counted 1/k in each of its k
processes), every :data:`PSS_INTERVAL` seconds: each page once, the memory figure of
record for commands with workers.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path


#: seconds between two samples of the process tree's resident sets
TREE_INTERVAL = 0.05
#: seconds between two samples of the process tree's summed PSS (:func:`tree_pss`)
PSS_INTERVAL = 0.2
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def tree_rss(root: int) -> int:
    """Bytes resident in process ``root`` and all its descendants now (0 if it is gone)."""
    total = 0
    for pid in _tree(root):
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * _PAGE
        except OSError:
            continue
    return total


def tree_pss(root: int) -> int:
    """Proportional set size of process ``root`` and all its descendants now, summed (bytes;
    0 if it is gone): ``Pss`` of ``/proc/PID/smaps_rollup``, where a page shared by k
    processes counts 1/k in each, so the sum counts every resident page once (a forked
    worker's pages still shared with its parent are not counted twice, as RSS counts them)."""
    total = 0
    for pid in _tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                for line in f:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError):
            continue
    return total


def _tree(root: int) -> list[int]:
    """``root`` and its descendants now (found through ``/proc/*/stat``'s parent field)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # exited meanwhile
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])  # the name may hold spaces
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


class _TreeSampler(threading.Thread):
    """Samples :func:`tree_rss` of ``pid`` until stopped; ``peak`` is the largest sample;
    with ``pss``, also :func:`tree_pss` (``peak_pss``, every :data:`PSS_INTERVAL` seconds:
    reading smaps_rollup walks the process's page tables, a few ms for a GB)."""

    def __init__(self, pid: int, interval: float = TREE_INTERVAL, pss: bool = False):
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak, self.peak_pss = pid, interval, 0, 0
        self.pss = pss
        self.done = threading.Event()

    def run(self) -> None:
        last = 0.0
        while True:
            self.peak = max(self.peak, tree_rss(self.pid))
            if self.pss and time.perf_counter() - last >= PSS_INTERVAL:
                last = time.perf_counter()
                self.peak_pss = max(self.peak_pss, tree_pss(self.pid))
            if self.done.wait(self.interval):
                return


#: GNU time, the wrapper that reports a command's peak RSS (module docstring)
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


@dataclass
class Sample:
    """One command (or a sequence of commands, summed) measured once."""

    wall: float = 0.0
    cpu: float = 0.0
    user: float = 0.0
    system: float = 0.0
    peak_rss: int = 0  # bytes, the largest single process
    tree_rss: int = 0  # bytes, the largest sampled sum over the process tree
    tree_pss: int = 0  # bytes, the largest sampled sum of PSS over the tree (``pss=True``)
    processes: int = 0  # commands run (their descendants not counted)
    load_before: float = 0.0
    load_after: float = 0.0
    stdout: list[str] = field(default_factory=list)

    def add(self, other: Sample) -> None:
        self.wall += other.wall
        self.cpu += other.cpu
        self.user += other.user
        self.system += other.system
        self.peak_rss = max(self.peak_rss, other.peak_rss)
        self.tree_rss = max(self.tree_rss, other.tree_rss)
        self.tree_pss = max(self.tree_pss, other.tree_pss)
        self.processes += other.processes
        self.load_after = other.load_after
        self.stdout += other.stdout


def run(argv: list[str], env: dict | None = None, timeout: float = 3600.0,
        pss: bool = False) -> Sample:
    """Run ``argv`` to completion and measure it; a non-zero exit raises ``SystemExit``.
    ``pss``: also sample the tree's summed PSS (:func:`tree_pss`)."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as peak:
        wrapped = [GNU_TIME, "-f", "%M", "-o", peak.name, *argv] if GNU_TIME else argv
        start = time.perf_counter()
        proc = subprocess.Popen(wrapped, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        # a timer kills a hung command; the blocking wait4 then returns at once
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        sampler = _TreeSampler(proc.pid, pss=pss)
        sampler.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
            sampler.done.set()
            sampler.join()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
        reported = peak.read().split()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))}: exit {proc.returncode}\n{errors[-2000:]}")
    return Sample(wall=wall, cpu=usage.ru_utime + usage.ru_stime, user=usage.ru_utime,
                  system=usage.ru_stime, processes=1,
                  peak_rss=int(reported[-1] if GNU_TIME and reported else usage.ru_maxrss) * 1024,
                  tree_rss=sampler.peak, tree_pss=sampler.peak_pss,
                  load_before=load, load_after=os.getloadavg()[0], stdout=[text])


def run_each(argvs: list[list[str]], env: dict | None = None) -> Sample:
    """Run the commands one after another; their times are summed, their peak is the max."""
    total = Sample(load_before=os.getloadavg()[0])
    for argv in argvs:
        total.add(run(argv, env))
    return total


def rounds(commands: dict[str, callable], n: int, log=print) -> dict[str, list[Sample]]:
    """Run every command once per round, round ``k`` starting at the ``k``-th command
    (rotating order), so that a change of the machine's load reaches every command alike."""
    names = list(commands)
    got: dict[str, list[Sample]] = {name: [] for name in names}
    for k in range(n):
        order = names[k % len(names):] + names[:k % len(names)]
        for name in order:
            sample = commands[name]()
            got[name].append(sample)
            log(f"  round {k + 1}: {name}: wall {sample.wall:.2f} s, CPU {sample.cpu:.2f} s, "
                f"load {sample.load_before:.2f}->{sample.load_after:.2f}")
    return got


def table(got: dict[str, list[Sample]], reference: str) -> str:
    """Median (min-max) wall and CPU over the rounds, median CPU over ``reference``'s,
    peak RSS (the largest process, and the sampled sum over the process tree) and the 1-minute load average around the command (median of the rounds)."""
    med = {name: statistics.median(s.cpu for s in samples) for name, samples in got.items()}
    lines = ["| command | processes | wall s, median (min-max) | CPU s, median (min-max) | "
             f"CPU / {reference}'s | peak RSS MB, largest process | peak RSS MB, tree | "
             "peak PSS MB, tree | load before -> after |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, samples in got.items():
        wall, cpu = [s.wall for s in samples], [s.cpu for s in samples]
        ratio = med[name] / med[reference] if med[reference] > 0 else float("inf")
        lines.append(
            f"| {name} | {samples[0].processes} | {statistics.median(wall):.2f} "
            f"({min(wall):.2f}-{max(wall):.2f}) | {statistics.median(cpu):.2f} "
            f"({min(cpu):.2f}-{max(cpu):.2f}) | {ratio:.2f} | "
            f"{max(s.peak_rss for s in samples) / 2**20:.0f} | "
            f"{max(s.tree_rss for s in samples) / 2**20:.0f} | "
            f"{max(s.tree_pss for s in samples) / 2**20:.0f} | "
            f"{statistics.median(s.load_before for s in samples):.2f} -> "
            f"{statistics.median(s.load_after for s in samples):.2f} |")
    return "\n".join(lines)


def trec_eval(path: str | None, source: str | None) -> str | None:
    """The C trec_eval to time: ``path`` (``--trec-eval``), else ``$TREC_EVAL``, else one
    built with ``make`` in ``source`` (a trec_eval source tree) when gcc is present.
    ``None`` (with the reason printed) when there is none: the benchmark skips that peer."""
    path = path or os.environ.get("TREC_EVAL")
    if path:
        if not os.access(path, os.X_OK):
            raise SystemExit(f"--trec-eval / TREC_EVAL: {path} is not an executable")
        return path
    if not source:
        print("trec_eval: no --trec-eval, TREC_EVAL or --trec-eval-src: skipped")
        return None
    built = os.path.join(source, "trec_eval")
    if not os.access(built, os.X_OK):
        if shutil.which("gcc") is None or shutil.which("make") is None:
            print(f"trec_eval: gcc or make not found, cannot build {source}: skipped")
            return None
        done = subprocess.run(["make", "-C", source], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"trec_eval: make in {source} failed: skipped\n{done.stderr[-1000:]}")
            return None
    return built


def irstab_command() -> list[str]:
    """``irstab`` as a user runs it: the console script beside this interpreter if any."""
    script = Path(sys.executable).with_name("irstab")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from irstab.cli import main; sys.exit(main())"]


def trec_eval_argv(binary: str, measures: str) -> list[str]:
    """trec_eval's ``-m`` options for comma-separated names ("ndcg_cut.10,ndcg_cut.100"
    -> ``-m ndcg_cut.10,100``: one measure with its parameters)."""
    params: dict[str, list[str]] = {}
    for name in measures.split(","):
        base, _, param = name.partition(".")
        params.setdefault(base, [])
        if param:
            params[base].append(param)
    argv = [binary]
    for base, values in params.items():
        argv += ["-m", base + ("." + ",".join(values) if values else "")]
    return argv


def means(text: str, runids: list[str] | None = None) -> dict[tuple[str, str], str]:
    """{(run, measure): value} of trec_eval-layout lines; ``runids`` names the runs of
    output whose run column is ``all`` (trec_eval without -q), in the order printed."""
    out, k, seen = {}, -1, set()
    for line in text.splitlines():
        measure, run, value = (f.strip() for f in line.split("\t"))
        if runids is not None:
            if measure in seen or k < 0:
                k, seen = k + 1, set()
            seen.add(measure)
            run = runids[k]
        out[(run, measure)] = value
    return out


def check(got: dict, runids: list[str]) -> None:
    """The outputs agree: irstab's with trec_eval's byte for byte, the rest to 4 decimals."""
    last = {name: samples[-1].stdout for name, samples in got.items()}
    ref_name = "C trec_eval, 1 process per run"
    if ref_name in last:
        reference = "".join(last[ref_name])
        same = last["irstab evaluate"][0] == reference
        print(f"check: irstab -f trec {'==' if same else '!='} trec_eval's output, byte for byte")
        ref = means(reference, runids)
    else:
        ref = means(last["irstab evaluate"][0], runids)
    for name in last:
        if name in ("irstab evaluate", ref_name) or not (name.startswith("irstab evaluate")
                                                         or name.endswith("script")):
            continue
        text = last[name][0]
        other = means(text, runids) if name.startswith("irstab") else means(text)
        common = set(ref) & set(other)
        diff = [k for k in common if ref[k] != other[k]]
        print(f"check: {name}: {len(common)} of {len(ref)} run/measure means compared, "
              f"{len(diff)} differ at 4 decimals" + (f" (e.g. {diff[0]}: {ref[diff[0]]} vs "
                                                       f"{other[diff[0]]})" if diff else ""))


def python_env(root, bytecode: bool) -> dict:
    """The environment of the Python commands: bytecode under ``root/pycache``, or none."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
