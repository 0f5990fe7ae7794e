"""Parser of canonical measure strings.

Grammar::

    measure := NAME [ "(" params ")" ] [ "@" INT ]
    params  := param ("," param)*
    param   := IDENT "=" value
    value   := NUMBER | IDENT [ "(" params ")" ] | "(" NUMBER ("," NUMBER)* [","] ")"

``NAME`` may contain letters, digits, ``_``, ``-`` and ``.`` (``R-prec``,
``RBP.residual``). Whitespace is ignored. ``P_10``-style trec_eval names are
not accepted; the error message suggests the canonical form.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import MeasureError
from .base import REGISTRY, Measure
from .condensed import build_measure

__all__ = ["parse_measure"]

_TOKEN = re.compile(
    r"\s*(?:(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)"
    r"|(?P<punct>[(),=@]))"
)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        stripped = text.rstrip()
        while pos < len(stripped):
            m = _TOKEN.match(stripped, pos)
            if not m or m.end() == pos:
                raise self.error(f"unexpected character {stripped[pos:].lstrip()[:1]!r}", pos)
            kind = m.lastgroup
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    def error(self, message: str, pos: int | None = None) -> MeasureError:
        if pos is None:
            pos = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        return MeasureError(f"cannot parse measure {self.text!r} at position {pos}: {message}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, kind: str, value: str | None = None) -> str:
        tok = self.peek()
        if tok is None or tok[0] != kind or (value is not None and tok[1] != value):
            want = value or kind
            got = "end of text" if tok is None else repr(tok[1])
            raise self.error(f"expected {want}, found {got}")
        self.i += 1
        return tok[1]

    def accept(self, value: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[0] == "punct" and tok[1] == value:
            self.i += 1
            return True
        return False

    def measure(self) -> tuple[str, dict[str, Any], int | None]:
        name = self.take("name")
        params = self.params() if self.accept("(") else {}
        cutoff = None
        if self.accept("@"):
            tok = self.take("number")
            if not re.fullmatch(r"\d+", tok):
                raise self.error(f"cutoff must be a positive integer, got {tok!r}")
            cutoff = int(tok)
        if self.peek() is not None:
            raise self.error(f"unexpected {self.peek()[1]!r}")
        return name, params, cutoff

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while True:
            key = self.take("name")
            if key in out:
                raise self.error(f"parameter {key!r} given twice")
            self.take("punct", "=")
            out[key] = self.value()
            if self.accept(")"):
                return out
            self.take("punct", ",")

    def value(self) -> Any:
        tok = self.peek()
        if tok is None:
            raise self.error("expected a value")
        if tok[0] == "number":
            self.i += 1
            return _number(tok[1])
        if tok[0] == "name":
            self.i += 1
            if self.accept("("):
                return (tok[1], self.params())
            return tok[1]
        if self.accept("("):
            values = [_number(self.take("number"))]
            while self.accept(","):
                if self.accept(")"):
                    return tuple(values)
                values.append(_number(self.take("number")))
            self.take("punct", ")")
            return tuple(values)
        raise self.error(f"unexpected {tok[1]!r}")


def _number(text: str) -> int | float:
    return int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)


_TREC_EVAL_NAMES = {
    "map": "AP", "ndcg": "nDCG", "ndcg_cut": "nDCG@k", "P": "P@k", "Rprec": "R-prec",
    "recip_rank": "RR", "recall": "Recall@k", "err": "ERR@k", "rbp": "RBP",
}


def parse_measure(text: str | Measure) -> Measure:
    """Parse a canonical measure string into a measure object.

    Parameters
    ----------
    text : str or Measure
        E.g. ``"nDCG@10"``, ``"nDCG(gain=exp,discount=zipf)@20"``,
        ``"AP(rel=2)"``, ``"RBP(p=0.95)"``. A Measure is returned unchanged.

    Raises
    ------
    MeasureError
        Unknown measure or parameter, bad value, malformed text.

    Examples
    --------
    >>> from irstab.metrics import parse_measure
    >>> str(parse_measure("nDCG( gain = exp , discount = zipf ) @ 20"))
    'nDCG(gain=exp,discount=zipf)@20'
    >>> str(parse_measure("nDCG(discount=log(base=10))@10"))
    'nDCG(discount=log(base=10))@10'
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str) or not text.strip():
        raise MeasureError(f"a measure must be a non-empty string, got {text!r}")
    name, params, cutoff = _Parser(text).measure()
    cls = REGISTRY.get(name)
    if cls is None:
        base = re.sub(r"_\d+$", "", name)
        hint = _TREC_EVAL_NAMES.get(base) or _TREC_EVAL_NAMES.get(name)
        folded = {n.lower(): n for n in REGISTRY}
        if hint is None and name.lower() in folded:
            hint = folded[name.lower()]
        if hint is None:
            import difflib

            close = difflib.get_close_matches(name, list(REGISTRY), n=1, cutoff=0.6)
            hint = close[0] if close else None
        suggestion = f" (did you mean {hint}?)" if hint else ""
        raise MeasureError(
            f"unknown measure {name!r}{suggestion}; `irstab measures` lists them all"
        )
    return build_measure(cls, params, cutoff)
