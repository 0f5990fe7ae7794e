"""Parser of canonical measure strings.

Grammar::

    measure := NAME [ "(" params ")" ] [ "@" INT ]
    params  := param ("," param)*
    param   := IDENT "=" value
    value   := NUMBER | IDENT [ "(" params ")" ] | "(" NUMBER ("," NUMBER)* [","] ")"

``NAME`` may contain letters, digits, ``_``, ``-`` and ``.`` (``R-prec``,
``RBP.residual``). Whitespace is ignored. ``P_10``-style trec_eval names are
not accepted; the error message suggests the nearest canonical spelling of the whole text
(:mod:`irstab.metrics.suggest`; :func:`irstab.metrics.parse_measure` reads both grammars
and suggests from both).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import MeasureError
from .base import REGISTRY, Measure
from .condensed import build_measure
from .suggest import nearest

__all__ = ["parse_measure"]

_TOKEN = re.compile(
    r"\s*(?:(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)"
    r"|(?P<punct>[(),=@]))"
)


class Unparsed(MeasureError):
    """Malformed text or an unknown name: the caller adds the nearest spelling it reads
    (:func:`hinted`), having the whole text. ``head`` and ``tail`` are the message around
    where the suggestion goes; ``fallback`` the hint used when no spelling is near."""

    def __init__(self, head: str, tail: str = "", fallback: str | None = None):
        super().__init__(head + tail)
        self.head, self.tail, self.fallback = head, tail, fallback


def hinted(error: Unparsed, hint: str | None) -> MeasureError:
    """``error`` as a plain :class:`MeasureError` with ``(did you mean HINT?)`` in place."""
    hint = hint or error.fallback
    return MeasureError(error.head + (f" (did you mean {hint}?)" if hint else "") + error.tail)


def unknown_measure(name: str) -> Unparsed:
    """The error for a name no measure has (the fallback hint: trec_eval's name, or the
    name in another case)."""
    base = re.sub(r"_\d+$", "", name)
    hint = _TREC_EVAL_NAMES.get(base) or _TREC_EVAL_NAMES.get(name)
    folded = {n.lower(): n for n in REGISTRY}
    if hint is None and name.lower() in folded:
        hint = folded[name.lower()]
    return Unparsed(f"unknown measure {name!r}", "; `irstab measures` lists them all", hint)


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

    def error(self, message: str, pos: int | None = None) -> Unparsed:
        if pos is None:
            pos = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        return Unparsed(f"cannot parse measure {self.text!r} at position {pos}: {message}")

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


def _reads(text: str) -> bool:
    """Whether a suggested spelling parses (the user's parameters may not fit it); no
    suggestion is sought for it in turn."""
    try:
        _parse(text)
    except MeasureError:
        return False
    return True


def _parse(text: str) -> Measure:
    """:func:`parse_measure` of a string, an unknown name or malformed text raised as
    :class:`Unparsed` (no suggestion)."""
    name, params, cutoff = _Parser(text).measure()
    cls = REGISTRY.get(name)
    if cls is None:
        raise unknown_measure(name)
    return build_measure(cls, params, cutoff)


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
    try:
        return _parse(text)
    except Unparsed as exc:  # the nearest canonical spelling of the whole text, cutoff included
        raise hinted(exc, nearest(text, trec=False, accept=_reads)) from None
