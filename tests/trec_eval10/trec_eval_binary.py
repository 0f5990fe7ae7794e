"""The trec_eval 10 binary the direct comparison runs, or why there is none.

``$IRSTAB_TREC_EVAL`` (the path of a trec_eval of release 10) first, else ``trec_eval`` on
PATH; each is asked its version (``trec_eval -v`` prints ``trec_eval version 10.0-rc3``, on
stderr), and one of another release is refused. The reason says how to set the variable.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

__all__ = ["ENV", "HOW", "trec_eval_10"]

#: The environment variable that names a trec_eval 10 binary.
ENV = "IRSTAB_TREC_EVAL"
#: How to get one, for the skip messages.
HOW = (f"set {ENV}=/path/to/trec_eval (built from github.com/usnistgov/trec_eval at tag v10.0: "
       "tests/trec_eval10/README.md) or put it on PATH; the stored references stand in")


def _version(binary: str, timeout: float) -> tuple[str | None, str]:
    """(the version trec_eval reports, or None; what went wrong)."""
    try:
        answer = subprocess.run([binary, "-v"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"`{binary} -v` gave no answer within {timeout:g} s"
    except OSError as exc:
        return None, f"cannot run {binary}: {exc.strerror or exc}"
    found = re.search(r"trec_eval version (\S+)", answer.stdout + answer.stderr)
    if found is None:
        text = (answer.stdout + answer.stderr).strip().splitlines()
        return None, (f"`{binary} -v` does not say 'trec_eval version ...' (it says "
                      f"{text[0][:80]!r})" if text else f"`{binary} -v` printed nothing")
    return found.group(1), ""


def trec_eval_10(environ=None, timeout: float = 60) -> tuple[str | None, str]:
    """``(binary, "")`` for a trec_eval of release 10, else ``(None, reason)``.

    ``$IRSTAB_TREC_EVAL`` first (a path, or a name looked up on PATH); when it is set, PATH
    is not searched: a wrong binary there is refused with its reason rather than replaced.
    Else ``trec_eval`` on PATH. A binary is accepted when ``-v`` reports a version
    ``10.*``.
    """
    environ = os.environ if environ is None else environ
    named = environ.get(ENV, "").strip()
    path = environ.get("PATH", os.defpath)
    if named:
        binary = shutil.which(named, path=path) if os.sep not in named else named
        if binary is None or not os.path.isfile(binary):
            return None, f"{ENV}={named}: no such file; {HOW}"
        if not os.access(binary, os.X_OK):
            return None, f"{ENV}={named}: not executable (chmod +x); {HOW}"
        source = f"{ENV}={named}"
    else:
        binary = shutil.which("trec_eval", path=path)
        if binary is None:
            return None, f"no trec_eval 10: {ENV} is not set and PATH has no trec_eval; {HOW}"
        source = f"trec_eval on PATH ({binary})"
    version, problem = _version(binary, timeout)
    if version is None:
        return None, f"{source}: {problem}; {HOW}"
    if not version.startswith("10."):
        return None, f"{source} is trec_eval {version}, not release 10; {HOW}"
    return binary, ""
