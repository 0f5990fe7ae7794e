"""Measure names as users type them: trec_eval names, aliases, lists, named measures.

:func:`resolve_measures` turns what a user writes after ``-m`` into canonical
measure objects. Every output shows the canonical form (or the user's name
for a named measure), whatever spelling went in.

Accepted forms, tried in this order for each comma-separated item
(commas inside parentheses do not split):

``name=MEASURE``
    A named measure, e.g. ``mine=nDCG(gain=exp)@20``: tables show ``mine``,
    JSON keeps the full definition (:class:`Named`).
``@file.json``
    The measure of a result saved by ``irstab optimize --save`` (its
    ``"measure"`` key), named after the file's stem (``@opt.json`` is ``opt``).
    It may start a comma list (``@opt.json,nDCG@10``); an existing file whose
    name holds a comma is read whole.
``official``, ``all_trec``, ``set``
    trec_eval 10's nicknames: its default set (what ``trec_eval`` prints without
    ``-m``), every measure it computes from TREC qrels and runs, its set measures.
    ``runid`` and ``num_q`` among them are lines of the ``-f trec`` layout, not
    measures, and ``relstring`` only prints there (:mod:`irstab.metrics.trec_names`).
trec_eval names
    Every measure of trec_eval 10's ``all_trec`` set (``map``, ``ndcg_cut.10`` /
    ``ndcg_cut_10``, ``P.10`` / ``P_10``, ``gm_map``, ``Rprec_mult``, ``rbp``,
    ``unj``, ``11pt_avg``, ...) with its parameters as trec_eval reads them
    (``P.5,10,20``, ``ndcg.1=0.5,2=2``, ``utility.1,-1,0,0``); a parametrised name
    without parameters gives trec_eval's default list (``P`` is ``P@5 ... P@1000``),
    as ``trec_eval -m P`` prints. trec_eval's exact spellings win; other spellings
    fall through to the canonical grammar (see :mod:`irstab.metrics.trec_names`).
canonical strings, case-insensitive
    ``nDCG@10``, ``NDCG@10``, ``ndcg@10``, ``ap``, ``MAP``, ``MRR``,
    ``R@100`` (Recall), ``P(rel=2)@10``, ``IPrec@0.5`` (ir_measures' spelling
    of ``IPrec(recall=0.5)``).

Peers' forms
    an ir_measures ``Measure`` object (``ir_measures.nDCG@10``) is read from its own
    string; ranx's relevance suffix ``-lN`` (``ndcg@10-l2``, ``map@100-l2``) sets
    ``rel=N`` of binary measures, and for ``ndcg``/``dcg`` gives the grades below N
    gain 0 (``nDCG(gain=levels(g1=0))@10``), as ranx drops those judgments.

``rel`` (trec_eval ``-l``) becomes the relevance level of every measure with
a ``rel`` parameter that the item does not set itself; ``version`` (``9`` for
trec_eval 9's rounding of recall levels) the ``trec_eval`` parameter of
``IPrec`` and ``IPrecAvg``.

The mapping follows trec_eval 10.0's measure names (``trec_eval -h -m all_trec``)
and the reading of ir_measures' ``parse_trec_measure`` (MacAvaney, Macdonald &
Ounis, ECIR 2022).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from .._paths import special_file
from ..errors import MeasureError
from .base import REGISTRY, Measure
from .parse import Unparsed, _Parser, hinted, unknown_measure
from .parse import parse_measure as parse_canonical
from .suggest import nearest
from .trec_names import (DISPLAY_ITEMS, NICKNAMES, TREC_EVAL_NAMES, TREC_EVAL_SUMMED,
                         is_trec_form, trec_eval_name, trec_eval_position, trec_measures,
                         with_defaults)

__all__ = [
    "Named", "parse_measure", "resolve_measure", "resolve_measures", "split_measure_list",
    "DEFAULT_MEASURES", "TREC_EVAL_NAMES", "definitions", "trec_eval_name",
    "trec_eval_position", "TREC_EVAL_SUMMED", "TrecEvalRequest", "trec_eval_request",
]

#: What ``-m`` means when it is not given: the measures most papers report.
DEFAULT_MEASURES = ("nDCG@10", "AP", "RR", "P@10", "R-prec", "bpref")


#: Extra case-insensitive spellings (lower case -> registry name); every registry
#: name is also accepted in any case.
_ALIASES = {
    "map": "AP", "mrr": "RR", "r": "Recall", "rprec": "R-prec", "prec": "P",
    "precision": "P", "q": "Q-measure", "setrecall": "SetR", "setf1": "SetF",
    "judgedrate": "Judged", "num_ret": "NumRet", "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet", "ndcg_cut": "nDCG", "recip_rank": "RR",
    # ir_measures spellings
    "ip": "IPrec", "bpref": "bpref",
    # ranx spellings ("precision" and "rprec" are above)
    "r-precision": "R-prec", "hit_rate": "Success", "hits": "NumRelRet",
}

#: ir_measures and ranx measures irstab does not compute, with the reason shown to the user.
_PEER_UNSUPPORTED = {
    **{n.lower(): "an intent-aware (diversity) measure: it needs subtopic qrels, which irstab "
       "does not read" for n in ("alpha_nDCG", "alpha_DCG", "α_nDCG", "α_DCG", "AP_IA", "MAP_IA",
                                 "P_IA", "nERR_IA", "ERR_IA", "NRBP", "nNRBP", "StRecall")},
    "compat": "it needs an ideal ranking or preference judgments, which irstab does not read",
    "accuracy": "it needs paired (query, document) preference data, which irstab does not read",
    "numq": "a count of topics, not a per-topic score (-f trec prints num_q)",
    **{n.lower(): "a C/W/L measure of cwl_eval that irstab does not compute"
       for n in ("BPM", "INST", "INSQ", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11")},
}

#: ir_measures' nDCG ``dcg`` parameter -> irstab's gain (the discount is log2 in both).
_IRM_DCG = {"log2": None, "exp-log2": "exp"}

_LABEL = re.compile(r"\s*(?P<label>[A-Za-z_][A-Za-z0-9_\-]*)\s*=(?P<rest>.*)", re.S)
_AT_FLOAT = re.compile(r"(?P<name>[A-Za-z_]\w*)\s*@\s*(?P<level>\d*\.\d+)\s*")
# what continues a trec_eval parameter list after a comma: a number or a key=number pair
_CONTINUATION = re.compile(r"(?:[A-Za-z0-9]+=)?[-+]?(?:\d+\.?\d*|\.\d+)")


@dataclass(frozen=True)
class Named(Measure):
    """A measure under a name of the user's choosing (``mine=nDCG(...)@20``).

    ``str()`` is the name, which tables show; :meth:`canonical` is
    ``name=definition``, which :func:`resolve_measure` reads back;
    :attr:`definition` is the measure's own canonical string, which JSON
    outputs keep. Computing delegates to the wrapped measure, so a named
    measure scores exactly as its definition.
    """

    name: ClassVar[str] = "Named"
    cutoff_allowed: ClassVar[bool] = False

    label: str = ""
    measure: Measure | None = None

    def _validate(self) -> None:
        if not isinstance(self.label, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]*", self.label):
            raise MeasureError(
                f"a measure name must be a letter or _ then letters, digits, _ or -, got {self.label!r}"
            )
        if not isinstance(self.measure, Measure) or isinstance(self.measure, Named):
            raise MeasureError(f"{self.label}: the named measure must be a plain measure")

    @property
    def definition(self) -> str:
        """The canonical string of the wrapped measure."""
        return self.measure.canonical()

    def canonical(self) -> str:
        return f"{self.label}={self.definition}"

    def __str__(self) -> str:
        return self.label

    def compute(self, collection):
        return self.measure.compute(collection)

    @property
    def aggregate(self):  # the wrapped measure's summary over topics (GMAP: geometric)
        return self.measure.aggregate

    def depth_needed(self) -> int | None:
        return self.measure.depth_needed()


def definitions(measures: Iterable[Measure]) -> dict[str, str]:
    """``{shown name: full canonical definition}`` (the same string for unnamed measures)."""
    return {str(m): (m.definition if isinstance(m, Named) else m.canonical()) for m in measures}


def split_measure_list(text: str) -> list[str]:
    """Split ``nDCG@10,AP,'nDCG(gain=exp,discount=zipf)@20'`` at top-level commas.

    A bare number or ``key=number`` pair continues the trec_eval parameter list
    before it, so ``P.5,10,ndcg_cut.10`` is ``["P.5,10", "ndcg_cut.10"]`` and
    ``ndcg.1=0.5,2=2`` one item.
    """
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and (ch == "," or (ch.isspace() and _list_space(text, i))):
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    out: list[str] = []
    for item in (s.strip() for s in items):
        if out and _CONTINUATION.fullmatch(item) and is_trec_form(out[-1]):
            out[-1] += "," + item
        elif item:
            out.append(item)
        else:
            raise MeasureError(f"empty measure in the list {text!r}")
    return out


def _list_space(text: str, i: int) -> bool:
    """Whether the blank at ``text[i]`` separates two measures (ir_measures' space-separated lists).

    Blanks next to ``=``, ``,``, ``@`` or a bracket, and runs of blanks, do not
    (``mine = nDCG@10``, ``P.5, 10``, ``nDCG @ 10``).
    """
    before, after = text[:i].rstrip(), text[i + 1:].lstrip()
    if not before or not after or text[i + 1].isspace():
        return False
    return before[-1] not in "=,@(" and after[0] not in "=,@()"


def _registry_class(name: str) -> type[Measure] | None:
    cls = REGISTRY.get(name)
    if cls is not None:
        return cls
    folded = {n.lower(): c for n, c in REGISTRY.items()}
    key = name.lower()
    return folded.get(key) or REGISTRY.get(_ALIASES.get(key, ""))


def _canonical(text: str, rel: int | None, version: int | None = None) -> Measure:
    from .condensed import build_measure

    text = _QUOTED.sub(lambda m: m.group(2), text)  # ir_measures quotes strings: dcg='exp-log2'
    if re.search(r"\bgains\s*=", text):
        _peer_params(REGISTRY["nDCG"], {"gains": None})  # raises: how to write a gain mapping
    at = _AT_FLOAT.fullmatch(text)
    if at is not None and getattr(_registry_class(at.group("name")), "name", "") == "IPrec":
        text = f"IPrec(recall={at.group('level')})"  # ir_measures writes IPrec@0.5, iP@0.5
    name, params, cutoff = _Parser(text).measure()
    if name.lower() in _PEER_UNSUPPORTED and _registry_class(name) is None:
        raise MeasureError(f"{name} is not supported: {_PEER_UNSUPPORTED[name.lower()]}")
    if name.lower() in ("ndcg_burges", "dcg_burges"):  # ranx: exponential gain
        name, params = name[:-len("_burges")], {"gain": "exp", **params}
    cls = _registry_class(name)
    if cls is None or cls is Named:
        raise unknown_measure(name)  # _resolve adds the nearest spelling of the whole item
    params = _peer_params(cls, dict(params))
    if cls.name == "NumRet" and "rel" in params:  # ir_measures: NumRet(rel=k) is NumRelRet(rel=k)
        cls = REGISTRY["NumRelRet"]
    return build_measure(cls, with_defaults(cls, params, rel, version), cutoff)


_QUOTED = re.compile(r"""(['"])([^'"]*)\1""")


def _peer_params(cls: type[Measure], params: dict[str, Any]) -> dict[str, Any]:
    """ir_measures' parameters in irstab's terms (``dcg=exp-log2`` is ``gain=exp``)."""
    if cls.name in ("nDCG", "DCG"):
        if "dcg" in params:
            dcg = str(params.pop("dcg"))
            if dcg not in _IRM_DCG:
                raise MeasureError(f"{cls.name}: dcg must be log2 or exp-log2 (ir_measures), got {dcg!r}")
            if _IRM_DCG[dcg] is not None:
                params.setdefault("gain", _IRM_DCG[dcg])
        if "gains" in params:
            raise MeasureError(
                f"{cls.name}: ir_measures' gains mapping is written gain=(g0,g1,...) here, one gain "
                "per grade from 0, e.g. nDCG(gain=(0,1,3,7))@10"
            )
    return params


def _saved(path_text: str) -> Measure:
    path = Path(path_text)
    special = special_file(path)
    if special is not None:  # opening a FIFO would wait for a writer for ever
        raise MeasureError(f"-m @{path}: is {special}, not a regular file; give the JSON file "
                           "that `irstab optimize --save` wrote")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MeasureError(f"-m @{path}: cannot read the file: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise MeasureError(f"-m @{path}: not a JSON file: {exc}") from None
    except RecursionError:  # json nests one Python frame per [ or {
        raise MeasureError(f"-m @{path}: nested too deeply to be a result saved by "
                           "`irstab optimize --save`") from None
    text = data.get("measure") if isinstance(data, dict) else None
    if not isinstance(text, str):
        raise MeasureError(
            f"-m @{path}: no \"measure\" string at the top level; expected a result saved by "
            "`irstab optimize --save` (a Pareto front holds many measures: name one of them)"
        )
    try:
        return parse_canonical(text)
    except MeasureError as exc:
        raise MeasureError(f"-m @{path}: {exc}") from None


def _is_saved_file(text: str) -> bool:
    """``@file`` naming an existing path, kept whole (a file name may hold commas; what is
    not a regular file is refused by its name)."""
    text = text.strip()
    return text.startswith("@") and Path(text[1:]).exists()


def _label_of(path_text: str) -> str:
    stem = Path(path_text).name.removesuffix(".json")
    label = re.sub(r"[^A-Za-z0-9_\-]", "_", stem)
    return label if re.match(r"[A-Za-z_]", label) else f"m_{label}"


def _resolve(text: str | Measure, rel: int | None, version: int | None
             ) -> list[tuple[Measure, str | None]]:
    """The measures of one item with the name trec_eval prints for each (None where the item
    is not a trec_eval spelling). Malformed text or an unknown name is an error suggesting
    the nearest spelling of the whole item, in either grammar (:func:`_suggestion`)."""
    try:
        return _resolve_item(text, rel, version)
    except Unparsed as exc:
        raise hinted(exc, _suggestion(text)) from None


def _suggestion(text) -> str | None:
    """The spelling nearest ``text`` (:func:`irstab.metrics.suggest.nearest`, canonical and
    trec_eval names and the aliases), that of its measure after a ``name=`` label when the
    whole is not near any; a trec_eval name or an alias shown with its canonical form
    (``ndcg_cut.10 (nDCG@10)``). None when nothing near reads as one measure."""
    if not isinstance(text, str):
        return None
    read: dict[str, list[Measure]] = {}

    def accept(spelling: str) -> bool:  # it reads as one measure (the parameters fit)
        try:
            read[spelling] = [m for m, _ in _resolve_item(spelling, None, None)]
        except MeasureError:
            return False
        return len(read[spelling]) == 1

    found = nearest(text, aliases=_ALIASES, accept=accept)
    labelled, level = _LABEL.fullmatch(text), _RANX_LEVEL.fullmatch(text.strip())
    if found is None and labelled is not None:  # mine=ndcg10
        inner = nearest(labelled.group("rest"), aliases=_ALIASES, accept=accept)
        return None if inner is None else f"{labelled.group('label')}={inner}"
    if found is None and level is not None:  # ndcg10-l2
        base = nearest(level.group("base"), aliases=_ALIASES, accept=accept)
        found = None if base is None else f"{base}-l{level.group('level')}"
        if found is None or not accept(found):
            return None
    if found is None:
        return None
    shown = str(read[found][0])
    return found if shown == found else f"{found} ({shown})"


def _resolve_item(text: str | Measure, rel: int | None, version: int | None
                  ) -> list[tuple[Measure, str | None]]:
    text = _peer_object(text)
    if isinstance(text, Measure):
        return [(text, None)]
    if not isinstance(text, str) or not text.strip():
        raise MeasureError(f"a measure must be a non-empty string, got {text!r}")
    text = text.strip()
    level = _RANX_LEVEL.fullmatch(text)
    if level is not None and not text.startswith("@"):
        return [(_ranx_level(m, int(level.group("level")), text), None)
                for m, _ in _resolve_item(level.group("base"), int(level.group("level")), version)]
    labelled = _LABEL.fullmatch(text)
    if labelled is not None:
        label, rest = labelled.group("label"), labelled.group("rest").strip()
        inner = [m for m, _ in _resolve_item(rest, rel, version)]
        if len(inner) != 1:
            raise MeasureError(f"{label}: a name stands for one measure, {rest!r} gives {len(inner)}")
        base = inner[0].measure if isinstance(inner[0], Named) else inner[0]  # mine=@opt.json
        return [(Named(label=label, measure=base), None)]
    if text.startswith("@"):
        return [(Named(label=_label_of(text[1:]), measure=_saved(text[1:])), None)]
    nick = NICKNAMES.get(text.lower())
    if nick is not None:
        return [pair for name in nick for pair in trec_measures(name, rel, version)]
    if text.lower() == "default":
        return [(m, None) for name in DEFAULT_MEASURES for m, _ in _resolve_item(name, rel, version)]
    found = trec_measures(text, rel, version)
    if found is not None:
        return found
    return [(_canonical(text, rel, version), None)]


_RANX_LEVEL = re.compile(r"(?P<base>[A-Za-z_][\w.\-]*?(?:@\d+)?)-l(?P<level>\d+)", re.S)


def _peer_object(obj):
    """An ir_measures ``Measure`` as its own string (``nDCG@10``, ``AP(rel=2)``), else ``obj``.

    Recognised by its module, so ir_measures need not be installed to read strings.
    """
    if isinstance(obj, (str, Measure)):
        return obj
    module = type(obj).__module__ or ""
    if module.split(".")[0] == "ir_measures":
        return str(obj)
    return obj


def _ranx_level(measure: Measure, level: int, text: str) -> Measure:
    """``measure`` under ranx's ``-lN``: judgments of grade below N dropped.

    Binary measures got ``rel=N`` from the caller; ``nDCG``/``DCG`` with linear gain
    give grades ``1..N-1`` gain 0 (ranx keeps the others' grades as gains).
    """
    from .dcg import DCG
    from .gains import Gain, GainKind

    if level < 1:
        raise MeasureError(f"{text!r}: ranx's relevance level -lN needs N >= 1, got {level}")
    if not isinstance(measure, DCG) or level == 1:
        if level > 1 and not measure.takes_rel({}):
            raise MeasureError(f"{text!r}: {measure} has no relevance level (rel) to set")
        return measure
    if measure.gain.kind is not GainKind.LINEAR:
        raise MeasureError(f"{text!r}: ranx's -l{level} is read for linear gain only (ndcg, dcg); "
                           f"write the gain per grade instead, e.g. gain=(0,0,3,7)")
    return dataclasses.replace(measure, gain=Gain.from_levels({g: 0.0 for g in range(1, level)}))


def parse_measure(text) -> Measure:
    """Exactly one measure, in every spelling ``-m`` and :func:`resolve_measures` read.

    Canonical strings in any case (``nDCG@10``, ``'nDCG(gain=exp,discount=zipf)@20'``),
    trec_eval names (``ndcg_cut.10``, ``map``, ``Rprec``), ir_measures' and ranx's
    spellings (``R@1000``, ``Bpref``, ``iP@0.5``, ``NumRet(rel=1)``, ``ndcg@10-l2``),
    a named measure (``mine=nDCG@20``), ``@opt.json``, an ir_measures ``Measure``
    object or an irstab measure (returned unchanged).

    Raises
    ------
    MeasureError
        Unknown or malformed text, or text that stands for several measures
        (``P.5,10``, ``official``: use :func:`resolve_measures`).

    Examples
    --------
    >>> str(parse_measure("R@1000")), str(parse_measure("iP@0.5"))
    ('Recall@1000', 'IPrec(recall=0.5)')
    >>> parse_measure("ndcg@10-l2").canonical()
    'nDCG(gain=levels(g1=0))@10'
    """
    found = resolve_measure(text)
    if len(found) != 1:
        same = len({type(m) for m in found}) == 1 and getattr(found[0], "cutoff", None) is not None
        hint = f"; one measure needs a cutoff, e.g. {found[0]}" if same else ""
        raise MeasureError(f"{text!r} stands for {len(found)} measures "
                           f"({', '.join(str(m) for m in found[:5])}{', ...' if len(found) > 5 else ''}); "
                           f"parse_measures reads lists{hint}")
    return found[0]


def resolve_measure(text: str | Measure, rel: int | None = None,
                    version: int | None = None) -> list[Measure]:
    """The measures one item of a ``-m`` list stands for (one, or several for ``P.5,10``).

    Parameters
    ----------
    text : str or Measure
        One item (see the module docstring for the forms). A Measure is
        returned as is (``rel`` does not change a measure object).
    rel : int, optional
        Relevance level for measures with a ``rel`` parameter the item leaves unset.
    version : {10, 9}, optional
        trec_eval version of measures with a ``trec_eval`` parameter the item leaves unset.

    Raises
    ------
    MeasureError
        Unknown or malformed measure, unreadable ``@file``.
    """
    return [m for m, _ in _resolve(text, rel, version)]


@dataclass(frozen=True)
class TrecEvalRequest:
    """What ``-m`` asks of trec_eval's layout: measures, their printed names, extra lines.

    ``printed`` maps each measure given in a trec_eval spelling to the name trec_eval
    prints for it (from the parameter text as typed: ``set_F.0.50`` prints ``set_F_0.50``);
    ``display`` holds ``runid`` and ``num_q`` when asked for (``official``, ``all_trec``,
    ``set`` or by name), as trec_eval prints them only then.
    """

    measures: tuple[Measure, ...]
    printed: dict
    display: frozenset


def trec_eval_request(specs, rel: int | None = None, version: int | None = None
                      ) -> TrecEvalRequest:
    """The :class:`TrecEvalRequest` of a ``-m`` list (items as :func:`resolve_measures`)."""
    pairs, display = _resolve_all(specs, rel, version)
    measures = tuple(m for m, _ in pairs)
    return TrecEvalRequest(measures, {m: p for m, p in pairs if p is not None},
                           frozenset(display))


def _resolve_all(specs, rel, version) -> tuple[list[tuple[Measure, str | None]], set[str]]:
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int) or rel < 1):
        raise MeasureError(f"rel (-l) must be an integer >= 1, got {rel!r}")
    if version is not None and version not in (9, 10):
        raise MeasureError(f"the trec_eval version must be 10 or 9, got {version!r}")
    specs = _peer_object(specs)
    if specs is None:
        specs = DEFAULT_MEASURES
    elif isinstance(specs, (str, Measure)):
        specs = [specs]
    items: list[str | Measure] = []
    for spec in specs:
        if isinstance(spec, str) and not _is_saved_file(spec):
            items.extend(split_measure_list(spec))
        else:
            items.append(spec)
    if not items:
        raise MeasureError("no measure given")
    out: list[tuple[Measure, str | None]] = []
    shown: dict[str, Measure] = {}
    seen: set[Measure] = set()  # measures are frozen and hashable: no pairwise comparison
    display: set[str] = set()
    for item in items:
        if isinstance(item, str):
            display.update(w for w in NICKNAMES.get(item.lower(), (item,)) if w in DISPLAY_ITEMS)
        for m, printed in _resolve(item, rel, version):
            if m in seen:
                continue
            seen.add(m)
            other = shown.get(str(m))
            if other is not None:
                raise MeasureError(f"two measures are named {str(m)!r}: {other.canonical()} and {m.canonical()}")
            shown[str(m)] = m
            out.append((m, printed))
    return out, display


def resolve_measures(
    specs: str | Measure | Iterable[str | Measure] | None, rel: int | None = None,
    version: int | None = None,
) -> list[Measure]:
    """Every measure of a ``-m`` list, in order, duplicates removed.

    Parameters
    ----------
    specs : str, Measure, or an iterable of them, or None
        Items as :func:`resolve_measure` reads them; strings may hold
        comma-separated lists. ``None``: :data:`DEFAULT_MEASURES`.
    rel : int, optional
        trec_eval's ``-l``: relevance level of binary measures that do not set
        their own ``rel``.
    version : {10, 9}, optional
        trec_eval version of measures that follow it (``IPrec``, ``IPrecAvg``:
        trec_eval 9 rounded recall levels otherwise) and do not set it.

    Raises
    ------
    MeasureError
        A bad item, an empty list, only ``runid``/``num_q`` (lines of ``-f trec``, not
        measures), or two different measures shown under the same name.

    Examples
    --------
    >>> [str(m) for m in resolve_measures("ndcg_cut.10,map,P.10", rel=2)]
    ['nDCG@10', 'AP(rel=2)', 'P(rel=2)@10']
    >>> [str(m) for m in resolve_measures(["NDCG@10", "mine=nDCG(gain=exp)@20"])]
    ['nDCG@10', 'mine']
    """
    pairs, display = _resolve_all(specs, rel, version)
    if not pairs:
        raise MeasureError(", ".join(sorted(display)) + " are lines of trec_eval's output "
                           "(irstab evaluate -f trec prints them), not measures")
    return [m for m, _ in pairs]
