"""Issue 41, item 8: a missing or broken dependency is one line naming the package and the
``pip install`` that repairs it, exit 1, for every command (irstab.cli.dependencies).

Oracles: the requirements are pyproject.toml's own (read here with tomllib); the module each
installs is what the installed distribution says it provides (importlib.metadata); the
commands run in a child process with a directory first on PYTHONPATH whose fake package
raises on import, as a broken installation does; the expected line is written in the test.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irstab.cli.dependencies import REQUIREMENTS, missing_package_message

REPO = Path(__file__).resolve().parents[2]
Q, R = "data/example/qrels.txt", "data/example/runs"


def _pyproject_requirements() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return {*project["dependencies"], *project["optional-dependencies"]["dask"],
            *project["optional-dependencies"]["irds"]}


def _strip_comment(requirement: str) -> str:
    return requirement.split("#")[0].strip()


def test_every_requirement_is_pyprojects_own_and_every_dependency_is_mapped():
    declared = {_strip_comment(r) for r in _pyproject_requirements()}
    assert set(REQUIREMENTS.values()) <= declared
    # every run-time dependency of pyproject.toml is reachable from a module name
    core = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert {_strip_comment(r) for r in core} <= set(REQUIREMENTS.values())


@pytest.mark.parametrize("module", sorted(REQUIREMENTS))
def test_each_requirement_installs_the_module_it_is_named_for(module):
    """The distribution of the requirement is the one that provides the module here."""
    provided = metadata.packages_distributions().get(module)
    if provided is None:
        pytest.skip(f"{module} is not installed here")
    name, extras = re.fullmatch(r"([\w.-]+)(?:\[([\w,-]+)\])?.*", REQUIREMENTS[module]).groups()
    installs = {name, *(extras or "").split(",")} - {""}  # dask[distributed]: distributed too

    def normal(names):
        return {re.sub(r"[-_.]+", "-", n).lower() for n in names}

    assert normal(installs) & normal(provided), (REQUIREMENTS[module], provided)


def _third_party_imports() -> set[str]:
    names = set()
    for path in (REPO / "src" / "irstab").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {a.name.partition(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.partition(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "irstab"}


def test_every_third_party_module_irstab_imports_has_its_requirement():
    assert _third_party_imports() - set(REQUIREMENTS) == set()


# --- the message, for every package and every way an import fails --------------------

def _raised_in(module: str, exc: BaseException) -> BaseException:
    """``exc`` raised from code whose module is ``module`` (a frame as a package's own)."""
    try:
        exec(compile("raise exc", f"<{module}>", "exec"), {"__name__": module, "exc": exc})
    except BaseException as raised:
        return raised
    raise AssertionError("not raised")


def _missing(name: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named '{name}'", name=name)


#: Ways a dependency ``pkg`` fails to import, each (what is raised, as Python raises it).
FAILURES = {
    # not installed: irstab's own `import pkg`
    "missing": lambda pkg: _raised_in("irstab.io.trec", _missing(pkg)),
    # a submodule missing (a partial install): `from pkg.sub import x`
    "submodule missing": lambda pkg: _raised_in("irstab.report.figures", _missing(f"{pkg}.sub")),
    # installed but broken: its __init__ raises (a compiled part that does not load)
    "broken": lambda pkg: _raised_in(pkg, ImportError("DLL load failed")),
    # broken deeper inside, in a submodule
    "broken inside": lambda pkg: _raised_in(f"{pkg}.core._impl", ImportError("undefined symbol")),
    # one of *its* dependencies missing (not one of irstab's): raised in its frames
    "its dependency missing": lambda pkg: _raised_in(pkg, _missing("kiwisolver_gone")),
}


def _wrapped(inner: BaseException) -> BaseException:
    """``inner`` as pandas reports an optional import: its own ImportError, from inner."""
    outer = ImportError("Missing optional dependency. Use pip or conda to install it.")
    outer.__cause__ = inner
    return _raised_in("pandas.compat._optional", outer)


@settings(max_examples=60, deadline=None)
@given(pkg=st.sampled_from(sorted(REQUIREMENTS)), how=st.sampled_from(sorted(FAILURES)),
       wrapped=st.booleans())
def test_the_message_names_the_package_and_its_install_command(pkg, how, wrapped):
    exc = FAILURES[how](pkg)
    if wrapped:
        exc = _wrapped(exc)
    got = missing_package_message(exc)
    assert got is not None
    assert got.startswith(f"the package '{pkg}' is missing or broken (")
    assert got.endswith(f"): pip install '{REQUIREMENTS[pkg]}'")
    assert "\n" not in got


def test_a_long_many_line_message_is_cut_to_its_first_line():
    text = "\n\nIMPORTANT: PLEASE READ THIS\n" + "x" * 500
    got = missing_package_message(_raised_in("numpy", ImportError(text)))
    assert "(ImportError: IMPORTANT: PLEASE READ THIS): pip install 'numpy>=1.26'" in got


def test_a_standard_module_missing_says_so_and_no_pip():
    got = missing_package_message(_raised_in("bz2", _missing("_bz2")))
    assert got.startswith("Python's module '_bz2' is missing or broken")
    assert "pip" not in got


def test_a_failing_import_inside_irstab_keeps_its_traceback():
    """Not a dependency: a bug, whose traceback is the report (main re-raises)."""
    exc = _raised_in("irstab.cli.program", ImportError("cannot import name 'x' from 'irstab.io'",
                                                         name="irstab.io"))
    assert missing_package_message(exc) is None
    assert missing_package_message(ValueError("no import")) is None


# --- the commands, in a child process with a broken package first on the path ----------

#: package -> commands that need it (argv after ``irstab``), from the repository root
NEEDS = {
    "matplotlib": [["report", Q, R, "-o", "{tmp}/report"],
                   ["topics", Q, R, "--figure", "{tmp}/d.png"],
                   ["crp", Q, f"{R}/sim01", "--topic", "01", "--figure", "{tmp}/c.png"],
                   ["design", "power", Q, R, "--figure", "{tmp}/p.png"]],
    "pyarrow": [["evaluate", Q, R], ["stability", Q, R], ["explore", Q, R, "-o", "{tmp}/e.html"]],
    "pyvinecopulib": [["calibrate", Q, R, "-m", "nDCG@10", "--copula", "vine"],
                      ["calibrate", "--scores", "data/trec3-adhoc/AP.csv", "--copula", "vine"]],
    "numpy": [["evaluate", Q, R], ["measures"]],
    "pandas": [["evaluate", Q, R]],
    "scipy": [["stability", Q, R], ["systems", Q, R, "-m", "AP"]],
    "statsmodels": [["compare", Q, R, "-m", "nDCG@10,AP", "--ttest", "holm"]],
    "cvxpy": [["optimize", "joint", Q, R, "-k", "10", "--backend", "cvxpy"]],
    "typer": [["--version"], ["evaluate", Q, R]],
    "rich": [["stability", Q, R]],
    "threadpoolctl": [["optimize", "discount", Q, R, "-k", "10"]],
}


def _broken(root: Path, package: str, body: str) -> Path:
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text(body)
    return root


@pytest.mark.parametrize("package, argv", [(p, a) for p, cases in NEEDS.items() for a in cases],
                         ids=lambda x: x if isinstance(x, str) else " ".join(x[:2]))
def test_a_command_with_a_broken_dependency_says_which_in_one_line(package, argv, tmp_path):
    fake = _broken(tmp_path / "site", package, "raise ImportError('broken on purpose')\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake), str(REPO / "src")]))
    got = subprocess.run([sys.executable, "-m", "irstab.cli", *argv], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=240)
    assert got.returncode == 1, got.stderr
    assert "Traceback" not in got.stderr
    assert got.stderr == (f"irstab: error: the package '{package}' is missing or broken "
                          f"(ImportError: broken on purpose): pip install "
                          f"'{REQUIREMENTS[package]}'\n")


def test_a_package_that_is_not_installed_at_all(tmp_path):
    """As Python says it when pyarrow is absent: ModuleNotFoundError naming it."""
    fake = _broken(tmp_path / "site", "pyarrow",
                   "raise ModuleNotFoundError(\"No module named 'pyarrow'\", name='pyarrow')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake), str(REPO / "src")]))
    got = subprocess.run([sys.executable, "-m", "irstab.cli", "evaluate", Q, R], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=240)
    assert got.returncode == 1
    assert got.stderr == ("irstab: error: the package 'pyarrow' is missing or broken "
                          "(ModuleNotFoundError: No module named 'pyarrow'): "
                          "pip install 'pyarrow>=14'\n")
