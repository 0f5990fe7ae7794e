"""Issue 41, item 18: a peer's JIT compile never decides a test.

ranx compiles its numba kernels on first use (40-80 s of CPU on a fresh environment, minutes
on a busy machine); tests/conftest.py warms it once per process, before the first test that
uses the ``ranx`` fixture starts its deadline, under a deadline of its own
(tests/jit_warmup.py). Oracles: the process's alarm timer (pytest-timeout's signal method
arms it per test), numba's own count of compiled versions, and the tests' source.
"""

from __future__ import annotations

import ast
import signal
import time
from pathlib import Path

import pytest

from jit_warmup import RANX_METRICS, RANX_TESTS, WarmUpTimeout, compiled_versions, deadline, \
    exercise

TESTS = Path(__file__).resolve().parent


def test_the_ranx_fixture_is_session_scoped(request):
    definitions = request._fixturemanager.getfixturedefs("ranx", request.node)
    assert definitions and definitions[-1].scope == "session"
    assert definitions[-1].baseid == "tests"  # tests/conftest.py's: every test shares it


def test_the_warm_up_ran_before_the_tests_deadline_and_the_test_keeps_its_own(
        ranx_warm_up, request):
    # no alarm was set when it began: it ran outside every test's deadline
    assert ranx_warm_up["alarm_before"] == 0.0
    assert ranx_warm_up["seconds"] > 0
    config = request.config
    if config.getini("timeout_method") == "signal" and float(config.getini("timeout")) > 0:
        # this test's own deadline is armed, and counts from this test's start
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0 < left <= float(config.getini("timeout"))


def test_nothing_is_compiled_in_a_test_after_the_warm_up(ranx, ranx_warm_up, tmp_path):
    """Every call the oracle tests make, on another collection built the same way: numba
    finds a compiled version for each (none added), so no test pays for a compile."""
    before = compiled_versions()
    start = time.monotonic()
    for width in ranx_warm_up["widths"]:
        exercise(ranx, tmp_path, width, tag="-again")
    assert compiled_versions() == before
    assert time.monotonic() - start < 60  # compiling takes minutes; calling, milliseconds


def test_the_dl2019_oracle_data_compiles_nothing_after_the_warm_up(ranx, dl2019_dir):
    """The oracle fixtures' own inputs (DL-2019's qrels and a run, as they read them): their
    document ids are 7 characters, a type of their own to numba, warmed too."""
    import irstab

    frame = irstab.read_run(dl2019_dir / "runs" / "ICT-BERT2.gz").frame
    frame = frame.assign(topic=frame["topic"].astype(str).astype(object),
                         docid=frame["docid"].astype(str).astype(object))
    before = compiled_versions()
    qrels = ranx.Qrels.from_file(str(dl2019_dir / "qrels.txt"), kind="trec")
    run = ranx.Run.from_df(frame, q_id_col="topic", doc_id_col="docid", score_col="score")
    for metric in RANX_METRICS:
        ranx.evaluate(qrels, run, metric, make_comparable=True)
    assert compiled_versions() == before


def _ranx_test_files():
    """Test modules with a function or fixture that takes the ``ranx`` fixture."""
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in ("jit_warmup.py", "test_jit_warmup.py"):  # the warm-up, its tests
            continue
        tree = ast.parse(path.read_text(), str(path))
        if any(isinstance(node, ast.FunctionDef) and "ranx" in [a.arg for a in node.args.args]
               for node in ast.walk(tree)):
            yield path, tree


def _strings(node) -> list[str] | None:
    """The string constants ``node`` is (one, or a list/tuple of them), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def _parametrized(function: ast.FunctionDef, name: str):
    """The values of ``@pytest.mark.parametrize("name", VALUES)`` on ``function``."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == \
                "parametrize" and _strings(decorator.args[0]) == [name]:
            return decorator.args[1]
    return None


def _metrics_named(function: ast.FunctionDef, node) -> list[str]:
    """The metrics a ranx call's ``metrics`` argument names, read from the test's source."""
    values = _strings(node)
    if values is not None:
        return values
    if isinstance(node, ast.Name):
        given = _parametrized(function, node.id)
        if isinstance(given, ast.Name) and given.id == "RANX_METRICS":
            return list(RANX_METRICS)
        if given is not None and _strings(given) is not None:
            return _strings(given)
    raise AssertionError(f"{function.name}: cannot tell which ranx metric {ast.dump(node)} is")


def test_every_ranx_metric_and_test_the_tests_name_is_warmed():
    """Each call of ranx.evaluate or ranx.compare in a test names metrics (as text, or as
    the test's parameter) and compare's tests that the warm-up compiled."""
    files = list(_ranx_test_files())
    assert {p.name for p, _ in files} >= {"test_peer_habits.py", "test_significance.py"}
    calls = 0
    for path, tree in files:
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            for call in [n for n in ast.walk(function) if isinstance(n, ast.Call)]:
                func = call.func
                if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                        and func.value.id == "ranx" and func.attr in ("evaluate", "compare")):
                    continue
                calls += 1
                keywords = {k.arg: k.value for k in call.keywords}
                metrics = call.args[2] if len(call.args) > 2 else keywords["metrics"]
                for metric in _metrics_named(function, metrics):
                    assert metric in RANX_METRICS, (path.name, function.name, metric)
                if func.attr == "compare":
                    assert _strings(keywords["stat_test"])[0] in RANX_TESTS, path.name
    assert calls >= 5


def test_no_test_imports_ranx_itself():
    """A module-level ``import ranx`` (or importorskip) would compile in whichever test
    first calls it: every test gets ranx from the fixture."""
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == "jit_warmup.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert "ranx" not in [a.name.partition(".")[0] for a in node.names], path.name
            elif isinstance(node, ast.ImportFrom):
                assert (node.module or "").partition(".")[0] != "ranx", path.name
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") in (
                    "importorskip", "import_module"):
                assert _strings(node.args[0]) != ["ranx"], path.name


def test_the_warm_up_deadline_ends_a_wait_and_gives_the_tests_alarm_back():
    before = signal.getitimer(signal.ITIMER_REAL)[0]
    handler = signal.getsignal(signal.SIGALRM)
    start = time.monotonic()
    with pytest.raises(WarmUpTimeout, match="no end after 0.2 s"):
        with deadline(0.2, "a wait", stacks=False):
            time.sleep(30)
    assert time.monotonic() - start < 10
    assert signal.getsignal(signal.SIGALRM) is handler
    after = signal.getitimer(signal.ITIMER_REAL)[0]
    if before > 0:  # the test's own deadline runs on, less the time spent
        assert 0 < after <= before
    else:
        assert after == 0.0
