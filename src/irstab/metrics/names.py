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
``official``
    trec_eval's default set (what ``trec_eval`` prints without ``-m``), minus
    ``runid``, ``num_q`` and ``gm_map`` (a geometric mean over topics, not a
    per-topic score).
trec_eval names
    ``map``, ``ndcg``, ``ndcg_cut.10`` / ``ndcg_cut_10``, ``P.10`` / ``P_10``,
    ``recall.100``, ``Rprec``, ``recip_rank``, ``bpref``, ``success.10``,
    ``map_cut.100``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
    ``iprec_at_recall_0.10``, ``set_P``, ``set_recall``, ``set_F``, ``infAP``.
    Several parameters as trec_eval reads them (``P.5,10,20``); a parametrised
    name without parameters gives trec_eval's default list
    (``P`` is ``P@5 ... P@1000``, ``recall`` is ``Recall@5 ... Recall@1000``),
    as ``trec_eval -m P`` prints. trec_eval's exact spellings win; other
    spellings fall through to the canonical grammar.
canonical strings, case-insensitive
    ``nDCG@10``, ``NDCG@10``, ``ndcg@10``, ``ap``, ``MAP``, ``MRR``,
    ``R@100`` (Recall), ``P(rel=2)@10``, ``IPrec@0.5`` (ir_measures' spelling
    of ``IPrec(recall=0.5)``).

``rel`` (trec_eval ``-l``) becomes the relevance level of every measure with
a ``rel`` parameter that the item does not set itself.

The mapping follows trec_eval 9's measure names (``trec_eval -h -m all_trec``)
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

from ..errors import MeasureError
from .base import REGISTRY, Measure
from .parse import _Parser, parse_measure

__all__ = [
    "Named", "resolve_measure", "resolve_measures", "split_measure_list",
    "DEFAULT_MEASURES", "TREC_EVAL_NAMES", "definitions", "trec_eval_name",
    "trec_eval_position", "TREC_EVAL_SUMMED",
]

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(i / 10 for i in range(11))

#: What ``-m`` means when it is not given: the measures most papers report.
DEFAULT_MEASURES = ("nDCG@10", "AP", "RR", "P@10", "R-prec", "bpref")


@dataclass(frozen=True)
class _Trec:
    """A trec_eval measure family: the irstab measure and the parameter its suffix sets."""

    measure: str
    param: str | None = None  # "cutoff" or a measure parameter; None: takes no suffix
    defaults: tuple = ()  # the list trec_eval prints for the bare name


#: trec_eval name -> irstab measure (trec_eval 9 ``m_*.c``).
TREC_EVAL_NAMES: dict[str, _Trec] = {
    "map": _Trec("AP"),
    "map_cut": _Trec("AP", "cutoff", TREC_CUTOFFS),
    "ndcg": _Trec("nDCG"),
    "ndcg_cut": _Trec("nDCG", "cutoff", TREC_CUTOFFS),
    "P": _Trec("P", "cutoff", TREC_CUTOFFS),
    "recall": _Trec("Recall", "cutoff", TREC_CUTOFFS),
    "Rprec": _Trec("R-prec"),
    "recip_rank": _Trec("RR"),
    "bpref": _Trec("bpref"),
    "success": _Trec("Success", "cutoff", (1, 5, 10)),
    "num_ret": _Trec("NumRet"),
    "num_rel": _Trec("NumRel"),
    "num_rel_ret": _Trec("NumRelRet"),
    "iprec_at_recall": _Trec("IPrec", "recall", RECALL_LEVELS),
    "set_P": _Trec("SetP"),
    "set_recall": _Trec("SetR"),
    "set_F": _Trec("SetF", "beta", (1.0,)),
    "infAP": _Trec("infAP"),
}

#: trec_eval names irstab does not compute, with the reason shown to the user.
_TREC_UNSUPPORTED = {
    "gm_map": "a geometric mean of AP over topics, not a per-topic score",
    "gm_bpref": "a geometric mean of bpref over topics, not a per-topic score",
    "num_q": "a count of topics, not a per-topic score",
    "runid": "the run's name, not a measure",
    "relstring": "a string, not a measure",
}

#: trec_eval 9's measures in the order it prints them (``measures.c``, ``te_trec_measures``).
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
)

#: trec_eval's ``all_trec`` set (``measures.c``), which ``-m all_trec`` reads.
ALL_TREC = (
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility", "11pt_avg",
    "ideal_dcg", "dcg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
    "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
    "set_F", "num_nonrel_judged_ret",
)

#: trec_eval measures whose ``all`` line is the sum over topics (printed as integers).
TREC_EVAL_SUMMED = frozenset({"num_ret", "num_rel", "num_rel_ret"})

#: trec_eval's default measures (``trec_eval`` without ``-m``), in its print order.
OFFICIAL = (
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P",
)

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
    "setap": "set AP (trec_eval set_map) is not computed",
    "setrelp": "relative set precision (trec_eval set_relative_P) is not computed",
}

#: ir_measures' nDCG ``dcg`` parameter -> irstab's gain (the discount is log2 in both).
_IRM_DCG = {"log2": None, "exp-log2": "exp"}

_TREC_FOLDED = {k.lower(): v for k, v in TREC_EVAL_NAMES.items()}
_TREC_FORM = re.compile(
    r"(?P<base>[A-Za-z_]+?)(?:[._](?P<args>\d+(?:\.\d+)?(?:,\d+(?:\.\d+)?)*))?"
)
_LABEL = re.compile(r"\s*(?P<label>[A-Za-z_][A-Za-z0-9_\-]*)\s*=(?P<rest>.*)", re.S)
_AT_FLOAT = re.compile(r"(?P<name>[A-Za-z_]\w*)\s*@\s*(?P<level>\d*\.\d+)\s*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


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

    def depth_needed(self) -> int | None:
        return self.measure.depth_needed()


def definitions(measures: Iterable[Measure]) -> dict[str, str]:
    """``{shown name: full canonical definition}`` (the same string for unnamed measures)."""
    return {str(m): (m.definition if isinstance(m, Named) else m.canonical()) for m in measures}


def split_measure_list(text: str) -> list[str]:
    """Split ``nDCG@10,AP,'nDCG(gain=exp,discount=zipf)@20'`` at top-level commas.

    A bare number continues the trec_eval parameter list before it, so
    ``P.5,10,ndcg_cut.10`` is ``["P.5,10", "ndcg_cut.10"]``.
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
        if out and _NUMBER.fullmatch(item) and _TREC_FORM.fullmatch(out[-1]):
            out[-1] += "," + item
        elif item:
            out.append(item)
        else:
            raise MeasureError(f"empty measure in the list {text!r}")
    return out


def trec_eval_name(measure: Measure) -> str | None:
    """trec_eval's printed name of ``measure`` (``ndcg_cut_10``, ``map``, ``P_10``), or None.

    The inverse of :data:`TREC_EVAL_NAMES` as trec_eval prints names
    (``meas_init.c``): a cutoff or integer parameter as ``_%ld``
    (``P_10``), a recall level as ``_%3.2f`` (``iprec_at_recall_0.10``),
    ``set_F``'s beta as given (``set_F_0.5``; ``set_F`` for beta 1). ``rel``
    is trec_eval's ``-l``, which its names do not show. None when trec_eval has
    no such measure (other parameters, a cutoff it does not take, a named
    measure).

    Examples
    --------
    >>> from irstab.metrics import parse_measure
    >>> [trec_eval_name(parse_measure(s)) for s in ("nDCG@10", "AP(rel=2)", "IPrec(recall=0.1)",
    ...                                             "nDCG(gain=exp)@10", "RR@10")]
    ['ndcg_cut_10', 'map', 'iprec_at_recall_0.10', None, None]
    """
    if isinstance(measure, Named):
        return None
    cls_name = type(measure).name
    params = {k: v for k, v in measure.params().items() if k != "rel"}
    for base, family in TREC_EVAL_NAMES.items():
        if family.measure != cls_name:
            continue
        if family.param == "cutoff":
            if measure.cutoff is not None and not params:
                return f"{base}_{measure.cutoff}"
        elif measure.cutoff is None:
            if family.param is None and not params:
                return base
            if family.param == "recall" and set(params) == {"recall"}:
                return f"{base}_{params['recall']:3.2f}"
            if family.param == "beta" and set(params) <= {"beta"}:
                beta = params.get("beta", 1.0)
                return base if beta == 1.0 else f"{base}_{beta:g}"
    return None


def trec_eval_position(measure: Measure) -> tuple:
    """Sort key of ``measure`` in trec_eval's print order (its other measures after it, in order).

    trec_eval prints measures in ``measures.c`` order, each family's
    parameters ascending (``P_5 ... P_1000``); measures it lacks come last.
    """
    name = trec_eval_name(measure)
    if name is None:
        return (len(TREC_EVAL_ORDER), 0.0)
    m = _TREC_PRINTED.fullmatch(name)
    base, arg = m.group("base"), m.group("arg")
    return (TREC_EVAL_ORDER.index(base), float(arg) if arg else 0.0)


_TREC_PRINTED = re.compile(r"(?P<base>[A-Za-z_]+?)(?:_(?P<arg>\d+(?:\.\d+)?))?")


def _all_trec(rel: int | None) -> list[Measure]:
    """``-m all_trec``: every measure of trec_eval's ``all_trec`` set that irstab computes."""
    import warnings

    from ..errors import IRStabWarning

    skipped = [n for n in ALL_TREC if n not in TREC_EVAL_NAMES]
    warnings.warn(
        "all_trec: trec_eval's " + ", ".join(skipped) + " are not computed (geometric means, "
        "strings, utility and the preference or relative measures irstab does not have); "
        "runid and num_q are printed by -f trec", IRStabWarning, stacklevel=3,
    )
    return [m for name in ALL_TREC if name in TREC_EVAL_NAMES for m in _trec(name, rel)]


def _list_space(text: str, i: int) -> bool:
    """Whether the blank at ``text[i]`` separates two measures (ir_measures' space-separated lists).

    Blanks next to ``=``, ``,``, ``@`` or a bracket, and runs of blanks, do not
    (``mine = nDCG@10``, ``P.5, 10``, ``nDCG @ 10``).
    """
    before, after = text[:i].rstrip(), text[i + 1:].lstrip()
    if not before or not after or text[i + 1].isspace():
        return False
    return before[-1] not in "=,@(" and after[0] not in "=,@()"


def _with_rel(cls: type[Measure], params: dict[str, Any], rel: int | None) -> dict[str, Any]:
    fields = {f.name for f in dataclasses.fields(cls)}
    if rel is not None and "rel" in fields and "rel" not in params:
        return {**params, "rel": rel}
    return params


def _registry_class(name: str) -> type[Measure] | None:
    cls = REGISTRY.get(name)
    if cls is not None:
        return cls
    folded = {n.lower(): c for n, c in REGISTRY.items()}
    key = name.lower()
    return folded.get(key) or REGISTRY.get(_ALIASES.get(key, ""))


def _trec(text: str, rel: int | None) -> list[Measure] | None:
    m = _TREC_FORM.fullmatch(text)
    if m is None:
        return None
    base, args = m.group("base"), m.group("args")
    family = TREC_EVAL_NAMES.get(base)
    if family is None and args is not None:  # NDCG_CUT_10, p.10: any case with a suffix
        family = _TREC_FOLDED.get(base.lower())
    if family is None:
        if base in _TREC_UNSUPPORTED:
            raise MeasureError(f"trec_eval's {base} is not supported: {_TREC_UNSUPPORTED[base]}")
        return None
    cls = REGISTRY[family.measure]
    if args is None:
        values = family.defaults if family.param and family.param != "beta" else ()
    else:
        if family.param is None:
            raise MeasureError(
                f"trec_eval's {base} takes no parameter, got {text!r}"
                + (" (did you mean ndcg_cut.k?)" if base == "ndcg" else "")
            )
        values = tuple(float(a) if "." in a else int(a) for a in args.split(","))
    if not values:
        return [cls.from_params(_with_rel(cls, {}, rel), None)]
    out = []
    for v in values:
        if family.param == "cutoff":
            if not float(v).is_integer():
                raise MeasureError(f"{text!r}: a cutoff must be an integer, got {v}")
            out.append(cls.from_params(_with_rel(cls, {}, rel), int(v)))
        else:
            out.append(cls.from_params(_with_rel(cls, {family.param: float(v)}, rel), None))
    return out


def _canonical(text: str, rel: int | None) -> Measure:
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
        parse_measure(text)  # raises the parser's error with its suggestion
        raise MeasureError(f"unknown measure {name!r}")  # pragma: no cover
    params = _peer_params(cls, dict(params))
    if cls.name == "NumRet" and "rel" in params:  # ir_measures: NumRet(rel=k) is NumRelRet(rel=k)
        cls = REGISTRY["NumRelRet"]
    return build_measure(cls, _with_rel(cls, params, rel), cutoff)


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
        return parse_measure(text)
    except MeasureError as exc:
        raise MeasureError(f"-m @{path}: {exc}") from None


def _is_saved_file(text: str) -> bool:
    """``@file`` naming an existing file, kept whole (a file name may hold commas)."""
    text = text.strip()
    return text.startswith("@") and Path(text[1:]).is_file()


def _label_of(path_text: str) -> str:
    stem = Path(path_text).name.removesuffix(".json")
    label = re.sub(r"[^A-Za-z0-9_\-]", "_", stem)
    return label if re.match(r"[A-Za-z_]", label) else f"m_{label}"


def resolve_measure(text: str | Measure, rel: int | None = None) -> list[Measure]:
    """The measures one item of a ``-m`` list stands for (one, or several for ``P.5,10``).

    Parameters
    ----------
    text : str or Measure
        One item (see the module docstring for the forms). A Measure is
        returned as is (``rel`` does not change a measure object).
    rel : int, optional
        Relevance level for measures with a ``rel`` parameter the item leaves unset.

    Raises
    ------
    MeasureError
        Unknown or malformed measure, unreadable ``@file``.
    """
    if isinstance(text, Measure):
        return [text]
    if not isinstance(text, str) or not text.strip():
        raise MeasureError(f"a measure must be a non-empty string, got {text!r}")
    text = text.strip()
    labelled = _LABEL.fullmatch(text)
    if labelled is not None:
        label, rest = labelled.group("label"), labelled.group("rest").strip()
        inner = resolve_measure(rest, rel)
        if len(inner) != 1:
            raise MeasureError(f"{label}: a name stands for one measure, {rest!r} gives {len(inner)}")
        base = inner[0].measure if isinstance(inner[0], Named) else inner[0]  # mine=@opt.json
        return [Named(label=label, measure=base)]
    if text.startswith("@"):
        return [Named(label=_label_of(text[1:]), measure=_saved(text[1:]))]
    if text.lower() == "all_trec":
        return _all_trec(rel)
    if text.lower() == "official":
        return [m for name in OFFICIAL for m in _trec(name, rel)]
    if text.lower() == "default":
        return [m for name in DEFAULT_MEASURES for m in resolve_measure(name, rel)]
    found = _trec(text, rel)
    if found is not None:
        return found
    return [_canonical(text, rel)]


def resolve_measures(
    specs: str | Measure | Iterable[str | Measure] | None, rel: int | None = None
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

    Raises
    ------
    MeasureError
        A bad item, an empty list, or two different measures shown under the same name.

    Examples
    --------
    >>> [str(m) for m in resolve_measures("ndcg_cut.10,map,P.10", rel=2)]
    ['nDCG@10', 'AP(rel=2)', 'P(rel=2)@10']
    >>> [str(m) for m in resolve_measures(["NDCG@10", "mine=nDCG(gain=exp)@20"])]
    ['nDCG@10', 'mine']
    """
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int) or rel < 1):
        raise MeasureError(f"rel (-l) must be an integer >= 1, got {rel!r}")
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
    out: list[Measure] = []
    shown: dict[str, Measure] = {}
    for item in items:
        for m in resolve_measure(item, rel):
            if m in out:
                continue
            other = shown.get(str(m))
            if other is not None:
                raise MeasureError(f"two measures are named {str(m)!r}: {other.canonical()} and {m.canonical()}")
            shown[str(m)] = m
            out.append(m)
    return out
