"""A missing or broken dependency in one line: which package, and the command that installs it.

:func:`irstab.cli.main` turns an :class:`ImportError` that reaches it into
``irstab: error: the package 'matplotlib' is missing or broken (ImportError: ...): pip
install 'matplotlib>=3.8'`` and exit code 1, for every command: ``report`` and the figures
need matplotlib, ``evaluate`` pyarrow, ``calibrate --copula vine`` pyvinecopulib, and
every command numpy, scipy, pandas and the rest.

Which package. Python says it two ways. ``import pyarrow`` with no pyarrow installed is a
``ModuleNotFoundError`` whose ``name`` is ``'pyarrow'``; a package that is installed but
broken raises from inside its own modules (``matplotlib/__init__.py`` failing to load
its compiled part, or one of *its* dependencies missing), with a ``name`` that is
another module or none. The package is therefore, for the innermost
:class:`ImportError` of the exception's chain (``raise ... from``, or raised while handling
another: pandas turns a failed ``import pyarrow`` into its own "Missing optional
dependency"), the first of

1. the module named by the error, when it is one of :data:`REQUIREMENTS`;
2. the innermost frame of the traceback that runs code of one of :data:`REQUIREMENTS`
   (``kiwisolver`` missing inside matplotlib: matplotlib, which ``pip`` repairs with it);
3. a module of Python's standard library named by the error (a Python built without
   ``_bz2`` or ``_lzma``): that Python lacks it, and pip cannot help.

Anything else (an import inside irstab that fails: a bug) keeps its traceback.

This module imports only the standard library: it runs when other imports have failed.
"""

from __future__ import annotations

import sys

__all__ = ["REQUIREMENTS", "missing_package_message"]

#: Top-level module -> the requirement that installs it, as pyproject.toml states it (the
#: project's dependencies and the ``dask`` extra); tests/cli/test_dependencies.py checks
#: that every third-party module irstab imports is here and that each requirement is
#: pyproject.toml's own.
REQUIREMENTS: dict[str, str] = {
    "numpy": "numpy>=1.26",
    "scipy": "scipy>=1.11",
    "pandas": "pandas>=2.1",
    "pyarrow": "pyarrow>=14",
    "statsmodels": "statsmodels>=0.14",
    "cvxpy": "cvxpy>=1.4",
    "typer": "typer>=0.29,<0.30",
    "rich": "rich>=13",
    "matplotlib": "matplotlib>=3.8",
    "threadpoolctl": "threadpoolctl>=3.1",
    "pyvinecopulib": "pyvinecopulib>=1.0",
    "dask": "dask[distributed]>=2024.1",
    "distributed": "dask[distributed]>=2024.1",
    "ir_datasets": "ir_datasets>=0.5",
}

#: Longest part of the import error's own message shown in the line.
_MESSAGE_CHARS = 200


def _top(module: str | None) -> str:
    return (module or "").partition(".")[0]


def _chain(exc: BaseException):
    """``exc`` and its causes and contexts, outermost first, each once."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _known_frame(exc: BaseException) -> str | None:
    """The innermost frame of ``exc``'s traceback running a module of :data:`REQUIREMENTS`."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        top = _top(tb.tb_frame.f_globals.get("__name__"))
        if top in REQUIREMENTS:
            found = top
        tb = tb.tb_next
    return found


def _culprit(exc: ImportError) -> tuple[str, bool] | None:
    """(module, whether it belongs to the standard library) of one import error, or None."""
    named = _top(exc.name)
    if named in REQUIREMENTS:
        return named, False
    framed = _known_frame(exc)
    if framed is not None:
        return framed, False
    if named and named in sys.stdlib_module_names:
        return named, True
    return None


def _reason(exc: BaseException) -> str:
    """``Type: first line of the message``, at most :data:`_MESSAGE_CHARS` of it."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else "(no message)"
    if len(text) > _MESSAGE_CHARS:
        text = text[:_MESSAGE_CHARS - 3] + "..."
    return f"{type(exc).__name__}: {text}"


def missing_package_message(exc: BaseException) -> str | None:
    """The one-line error for an import that failed, or None when no package is to blame.

    Parameters
    ----------
    exc
        The exception that ended the command (an :class:`ImportError`, or any exception
        with one in its chain of causes).

    Returns
    -------
    str or None
        ``the package 'X' is missing or broken (ImportError: ...): pip install 'X>=v'``
        (the requirement of :data:`REQUIREMENTS`), or for a module of the standard
        library ``Python's module 'X' is missing or broken (...): use a Python built with
        it``; None when the innermost import error names no dependency and none of its
        frames runs one (a failing import inside irstab: its traceback is the report).

    Examples
    --------
    >>> missing_package_message(ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow"))
    "the package 'pyarrow' is missing or broken (ModuleNotFoundError: No module named 'pyarrow'): pip install 'pyarrow>=14'"
    >>> missing_package_message(ImportError("cannot import name 'x' from 'irstab.io'",
    ...                                     name="irstab.io")) is None
    True
    """
    errors = [e for e in _chain(exc) if isinstance(e, ImportError)]
    for error in reversed(errors):  # innermost first: the original failure
        culprit = _culprit(error)
        if culprit is None:
            continue
        module, stdlib = culprit
        if stdlib:
            return (f"Python's module '{module}' is missing or broken ({_reason(error)}): "
                    "this Python was built without it; use a Python that has it")
        return (f"the package '{module}' is missing or broken ({_reason(error)}): "
                f"pip install '{REQUIREMENTS[module]}'")
    return None
