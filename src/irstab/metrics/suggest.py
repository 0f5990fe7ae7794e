"""The measure a mistyped one was meant to be: the nearest spelling of either grammar.

An unknown or malformed measure (``nDCG10``, ``ndcg_cut10``, ``ndgc@10``, ``nDCG@1O``) is
compared as a whole, its cutoff included, with the spellings irstab reads:

* irstab's canonical names, bare and with a cutoff (``nDCG``, ``nDCG@10``), with the
  parameters the user wrote (``nDGC(gain=exp)@10`` is compared as ``nDGC@10`` and
  answered ``nDCG(gain=exp)@10``);
* trec_eval's names, bare and with a cutoff for the families that take one (``map``,
  ``ndcg_cut.10``, ``P.5``, and as it prints them, ``P_5``), and its nicknames
  (``official``);
* other accepted spellings passed by the caller (``map``, ``mrr``, ``precision``).

The cutoffs tried are the numbers the text holds, then trec_eval's defaults (5, 10, 15, 20,
30, 100, 200, 500, 1000): ``P@x`` is one edit from ``P@5``; ``nDCG@1O`` is one edit from
``nDCG@10`` and from ``nDCG@15``, and the first tried wins. The distance is the optimal string alignment
distance (Levenshtein's insertions, deletions and substitutions, and transpositions of
two neighbours: ``ndgc`` is one from ``ndcg``), case-insensitive, as the names are read in
any case. A spelling is suggested when it is at most :func:`allowed` edits away (1 up to
7 characters, 2 up to 11, 3 beyond); ties go to the canonical grammar, then trec_eval's,
then the other spellings, then to the length nearest the text's. Only the error path
calls it: a few hundred candidates, most ruled out by their length.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from .base import REGISTRY
from .trec_names import NICKNAMES, TREC_CUTOFFS, TREC_EVAL_NAMES

__all__ = ["nearest", "distance", "allowed", "without_parameters"]

_PARAMS = re.compile(r"\(.*\)", re.S)
_DIGITS = re.compile(r"\d+")
_LONGEST = 64  # longer texts (past their parameters) are not measure names mistyped
_TRIES = 4  # the nearest spellings offered to ``accept``, at most


def distance(a: str, b: str, bound: int | None = None) -> int:
    """Optimal string alignment distance between ``a`` and ``b`` (case-sensitive), or
    ``bound + 1`` as soon as it is known to exceed ``bound``.

    >>> distance("ndgc", "ndcg"), distance("nDCG10", "nDCG@10"), distance("ab", "ab")
    (1, 1, 0)
    """
    if bound is not None and abs(len(a) - len(b)) > bound:
        return bound + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if (i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]):
                row[j] = min(row[j], previous2[j - 2] + 1)
        if bound is not None and min(row) > bound:
            return bound + 1
        previous2, previous = previous, row
    return previous[-1]


def allowed(text: str) -> int:
    """Edits a suggestion may be from ``text`` (its parameters left out): 1 up to 7
    characters, 2 up to 11, 3 beyond."""
    return max(1, min(3, len(text) // 4))


def without_parameters(text: str) -> tuple[str, str]:
    """``text`` without its parenthesised parameters, and those parameters (``''``)."""
    m = _PARAMS.search(text)
    if m is None:
        return text, ""
    return text[:m.start()] + text[m.end():], m.group(0)


def _candidates(rest: str, params: str, aliases: Mapping[str, str]
                ) -> Iterable[tuple[int, str, str]]:
    """``(grammar rank, spelling compared, spelling suggested)`` for every candidate."""
    # the text's own numbers first (the first of equals wins), then trec_eval's cutoffs
    numbers = list(dict.fromkeys(_DIGITS.findall(rest) + [str(k) for k in TREC_CUTOFFS]))
    named = [(0, name, REGISTRY[name]) for name in REGISTRY]
    named += [(2, alias, REGISTRY[target]) for alias, target in aliases.items()
              if target in REGISTRY]
    for rank, name, cls in named:
        yield rank, name, name + params
        if cls.cutoff_allowed:
            for k in numbers:
                yield rank, f"{name}@{k}", f"{name}{params}@{k}"
    if params:  # trec_eval's names take no parenthesised parameters
        return
    for base, family in TREC_EVAL_NAMES.items():
        yield 1, base, base
        if family.style == "cut_long":
            for k in numbers:
                yield 1, f"{base}.{k}", f"{base}.{k}"
                yield 1, f"{base}_{k}", f"{base}_{k}"  # as trec_eval prints it
    for nick in NICKNAMES:
        yield 1, nick, nick


def nearest(text: str, trec: bool = True, aliases: Mapping[str, str] | None = None,
            accept: Callable[[str], bool] | None = None) -> str | None:
    """The spelling nearest ``text`` (module docstring), or None when none is near enough.

    ``trec``: whether trec_eval's names are read where the text was given (``-m`` reads
    both grammars; a saved measure, the canonical one only). ``accept``: whether a
    spelling reads as a measure (the user's parameters may fit one name and not another:
    ``aAP(rel=2)`` is one edit from ``GAP(rel=2)``, which has no ``rel``); the nearest
    accepted one of the :data:`_TRIES` nearest is returned.

    Examples
    --------
    >>> nearest("nDCG10"), nearest("ndcg_cut10"), nearest("ndgc@10")
    ('nDCG@10', 'ndcg_cut.10', 'nDCG@10')
    >>> nearest("nDGC(gain=exp)@20"), nearest("frobnicate") is None
    ('nDCG(gain=exp)@20', True)
    """
    rest, params = without_parameters(text.strip())
    rest = re.sub(r"\s+", "", rest)
    if not rest or len(rest) > _LONGEST:
        return None
    bound = allowed(rest)
    folded = rest.lower()
    near = []
    for n, (rank, compared, suggested) in enumerate(_candidates(rest, params, aliases or {})):
        if rank == 1 and not trec:
            continue
        d = distance(folded, compared.lower(), bound)
        if d == 0 or d > bound:
            continue  # the text itself (in another case), or too far
        near.append(((d, rank, abs(len(compared) - len(rest)), distance(rest, compared), n),
                     suggested))
    tried = sorted(near)[:_TRIES]  # each try parses the user's parameters again
    return next((s for _, s in tried if accept is None or accept(s)), None)
