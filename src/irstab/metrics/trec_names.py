"""trec_eval's measure names: what ``-m`` reads and what ``-f trec`` prints.

Follows trec_eval 10.0 (``measures.c``, ``meas_init.c``): every measure of its
``all_trec`` set, its nicknames ``official``, ``all_trec`` and ``set``, and its
parameter syntax after a ``.``:

* cutoffs (``P.5,10``, ``ndcg_cut.10``, ``iprec_at_recall.0.25``, ``Rprec_mult.0.5``):
  one measure per value, printed ``P_5`` (``%ld``) or ``iprec_at_recall_0.25``
  (``%3.2f``), in increasing order;
* ``rel_level=gain`` pairs (``ndcg.1=3.5,2=9``, ``G``, ``Rndcg``, ``ndcg_rel``,
  ``rbp``; ``rbp.p=0.8`` and ``rbp_resid.p=0.8`` set the persistence): one measure,
  printed with the parameter text as given (``ndcg_1=3.5,2=9``);
* plain numbers (``utility.1,-1,0,0``, ``11pt_avg.0.2,0.5``, ``set_F.0.5``,
  ``relstring.5``): one measure, printed with the text as given.

A bare parametrised name gives trec_eval's default list (``P`` is ``P@5 ... P@1000``).
``runid`` and ``num_q`` are lines of the ``-f trec`` layout, not measures
(:func:`irstab.metrics.trec_eval_request` reports them). ``rel`` (trec_eval ``-l``) and ``version``
(``--trec-eval 9``: trec_eval 9's rounding of recall levels) apply to every measure that
takes them and does not set them itself.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import MeasureError
from .base import REGISTRY, Measure

__all__ = ["TREC_EVAL_NAMES", "TREC_EVAL_ORDER", "NICKNAMES", "TREC_EVAL_SUMMED",
           "TREC_CUTOFFS", "RECALL_LEVELS", "DISPLAY_ITEMS", "trec_measures", "trec_eval_name",
           "trec_eval_position", "is_trec_form", "with_defaults"]

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
_RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class _Trec:
    """A trec_eval measure family and how its parameters after ``.`` map to irstab's."""

    measure: str  # the irstab registry name
    style: str = "none"  # none | cut_long | cut_double | pairs | numbers
    param: str | None = None  # what a cut value sets ("cutoff" or a field)
    defaults: tuple = ()  # the cut values of the bare name
    fixed: tuple = ()  # parameters always set: ((name, value), ...)


#: trec_eval 10 name -> irstab measure (``m_*.c``).
TREC_EVAL_NAMES: dict[str, _Trec] = {
    "num_ret": _Trec("NumRet"),
    "num_rel": _Trec("NumRel"),
    "num_rel_ret": _Trec("NumRelRet"),
    "map": _Trec("AP"),
    "gm_map": _Trec("GMAP"),
    "Rprec": _Trec("R-prec"),
    "bpref": _Trec("bpref"),
    "recip_rank": _Trec("RR"),
    "iprec_at_recall": _Trec("IPrec", "cut_double", "recall", RECALL_LEVELS),
    "P": _Trec("P", "cut_long", "cutoff", TREC_CUTOFFS),
    "relstring": _Trec("RelString", "numbers"),
    "recall": _Trec("Recall", "cut_long", "cutoff", TREC_CUTOFFS),
    "infAP": _Trec("infAP"),
    "gm_bpref": _Trec("GMbpref"),
    "Rprec_mult": _Trec("R-prec", "cut_double", "mult", _RPREC_MULTS),
    "utility": _Trec("Utility", "numbers"),
    "11pt_avg": _Trec("IPrecAvg", "numbers"),
    "binG": _Trec("BinG"),
    "G": _Trec("G", "pairs"),
    "dcg": _Trec("DCG", "pairs"),
    "ndcg": _Trec("nDCG", "pairs"),
    "ndcg_rel": _Trec("nDCG-rel", "pairs"),
    "Rndcg": _Trec("RnDCG", "pairs"),
    "ndcg_cut": _Trec("nDCG", "cut_long", "cutoff", TREC_CUTOFFS),
    "map_cut": _Trec("AP", "cut_long", "cutoff", TREC_CUTOFFS),
    "relative_P": _Trec("RelP", "cut_long", "cutoff", TREC_CUTOFFS),
    "success": _Trec("Success", "cut_long", "cutoff", (1, 5, 10)),
    "set_P": _Trec("SetP"),
    "set_relative_P": _Trec("SetRelP"),
    "set_recall": _Trec("SetR"),
    "set_map": _Trec("SetAP"),
    "set_F": _Trec("SetF", "numbers"),
    "num_nonrel_judged_ret": _Trec("NumNonrelJudgedRet"),
    "rbp": _Trec("RBP", "pairs", fixed=(("p", 0.9), ("gain", "linear"))),
    "rbp_resid": _Trec("RBP.residual", "pairs", fixed=(("p", 0.9), ("tail", "unjudged"))),
    "unj": _Trec("Unjudged", "cut_long", "cutoff", (5, 10, 20)),
}

#: lines of the ``-f trec`` layout that trec_eval lists among its measures
DISPLAY_ITEMS = ("runid", "num_q")

#: trec_eval names irstab does not compute, with the reason shown to the user
_UNSUPPORTED = {
    "ideal_dcg": "the ideal DCG of a topic is not computed (nDCG's denominator)",
}

#: trec_eval 10's measures in the order it prints them (``measures.c``, ``te_trec_measures``)
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
)

#: trec_eval 10's nicknames (``measures.c``)
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
                 "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                 "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}

#: trec_eval measures whose ``all`` line is the sum over topics (printed as integers)
TREC_EVAL_SUMMED = frozenset({"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)"
_ITEM = rf"(?:[A-Za-z0-9]+={_NUM}|{_NUM})"
_FORM = re.compile(rf"(?P<base>[A-Za-z0-9_]+?)(?:[._](?P<args>{_ITEM}(?:,{_ITEM})*))?")
_FOLDED = {k.lower(): k for k in TREC_EVAL_NAMES}


def is_trec_form(text: str) -> bool:
    """Whether ``text`` has trec_eval's ``name.params`` shape, parameters included (not
    whether the name is known)."""
    m = _FORM.fullmatch(text)
    return m is not None and m.group("args") is not None


def with_defaults(cls: type[Measure], params: dict[str, Any], rel: int | None,
                  version: int | None = None) -> dict[str, Any]:
    """``params`` plus ``rel`` (trec_eval ``-l``) and the trec_eval ``version`` where the
    measure takes them and does not set them."""
    fields = {f.name for f in dataclasses.fields(cls)}
    out = dict(params)
    if rel is not None and "rel" not in out and cls.takes_rel(out):
        out["rel"] = rel
    if version is not None and "trec_eval" in fields and "trec_eval" not in out:
        out["trec_eval"] = version
    return out


def _numbers(text: str, args: str) -> list[float]:
    try:
        return [float(a) for a in args.split(",")]
    except ValueError:
        raise MeasureError(f"{text!r}: trec_eval's parameters here are numbers, got {args!r}") \
            from None


def _pairs(base: str, text: str, args: str) -> dict[str, Any]:
    """``1=3.5,2=9`` -> ``{"gain": levels(g1=3.5,g2=9)}``; ``p=0.8`` -> ``{"p": 0.8}``."""
    levels: dict[int, float] = {}
    out: dict[str, Any] = {}
    for item in args.split(","):
        key, sep, value = item.partition("=")
        if not sep:
            hint = f"; a cutoff is {base}_cut.{item}" if base in ("ndcg", "map") else ""
            raise MeasureError(f"{text!r}: trec_eval's {base} takes rel_level=gain pairs "
                               f"(e.g. {base}.1=0.5,2=2), got {item!r}{hint}")
        number = float(value)
        if key == "p" and base in ("rbp", "rbp_resid"):
            out["p"] = number
        elif key.isdigit() and base != "rbp_resid":
            levels[int(key)] = number
        else:
            raise MeasureError(f"{text!r}: trec_eval's {base} has no parameter {key!r}")
    if levels:
        out["gain"] = ("levels", {f"g{g}": v for g, v in levels.items()})
    return out


def _cut_values(text: str, family: _Trec, args: str) -> list:
    values = sorted(_numbers(text, args))
    if len(set(values)) != len(values):
        raise MeasureError(f"{text!r}: duplicate cutoffs (trec_eval refuses them too)")
    if family.style == "cut_long":
        if not all(v.is_integer() and v > 0 for v in values):
            raise MeasureError(f"{text!r}: cutoffs must be positive integers")
        return [int(v) for v in values]
    return values


def _numbers_params(base: str, text: str, args: str) -> dict[str, Any]:
    values = _numbers(text, args)
    return _NUMBERS[base](text, values)


def _utility(text: str, v: list[float]) -> dict[str, Any]:
    if len(v) != 4:
        raise MeasureError(f"{text!r}: utility takes 4 coefficients (a,b,c,d: relevant and "
                           "non-relevant retrieved, relevant and non-relevant missed)")
    return dict(zip("abcd", v))


def _relstring(text: str, v: list[float]) -> dict[str, Any]:
    if len(v) != 1 or not v[0].is_integer():
        raise MeasureError(f"{text!r}: relstring takes one length, e.g. relstring.10")
    return {"length": int(v[0])}


def _set_f(text: str, v: list[float]) -> dict[str, Any]:
    return {"beta": v[0]}  # trec_eval reads the first number only


_NUMBERS: dict[str, Callable[[str, list[float]], dict[str, Any]]] = {
    "utility": _utility,
    "11pt_avg": lambda text, v: {"levels": tuple(v)},
    "set_F": _set_f,
    "relstring": _relstring,
}


def trec_measures(text: str, rel: int | None, version: int | None = None
                  ) -> list[tuple[Measure, str]] | None:
    """The measures of one trec_eval name with their printed names, or None if ``text`` is
    not one. ``[]`` for ``runid`` and ``num_q`` (layout lines, not measures)."""
    m = _FORM.fullmatch(text)
    if m is None:
        return None
    base, args = m.group("base"), m.group("args")
    if base not in TREC_EVAL_NAMES and args is not None:  # NDCG_CUT_10, p.10: any case
        base = _FOLDED.get(base.lower(), base)
    if base in DISPLAY_ITEMS and args is None:
        return []
    if base in _UNSUPPORTED:
        raise MeasureError(f"trec_eval's {base} is not supported: {_UNSUPPORTED[base]}")
    family = TREC_EVAL_NAMES.get(base)
    if family is None:
        return None
    cls = REGISTRY[family.measure]
    fixed = dict(family.fixed)
    if family.style in ("cut_long", "cut_double"):
        values = family.defaults if args is None else _cut_values(text, family, args)
        out = []
        for v in values:
            params = with_defaults(cls, fixed if family.param == "cutoff" else
                                   {**fixed, family.param: v}, rel, version)
            measure = cls.from_params(params, v if family.param == "cutoff" else None)
            shown = f"{base}_{v}" if family.style == "cut_long" else f"{base}_{v:3.2f}"
            out.append((measure, shown))
        return out
    if args is None:
        params = fixed
    elif family.style == "none":
        raise MeasureError(f"trec_eval's {base} takes no parameter, got {text!r}"
                           + (" (did you mean ndcg_cut.k?)" if base == "ndcg" else ""))
    elif family.style == "pairs":
        params = {**fixed, **_pairs(base, text, args)}
    else:
        params = {**fixed, **_numbers_params(base, text, args)}
    measure = cls.from_params(with_defaults(cls, params, rel, version), None)
    return [(measure, base if args is None else f"{base}_{args}")]


def trec_eval_name(measure: Measure) -> str | None:
    """trec_eval's printed name of ``measure`` (``ndcg_cut_10``, ``map``, ``P_10``), or None.

    The inverse of :data:`TREC_EVAL_NAMES` as trec_eval prints names (``meas_init.c``):
    a cutoff as ``_%ld`` (``P_10``), a recall level or multiple of R as ``_%3.2f``
    (``iprec_at_recall_0.10``), other parameters as trec_eval's own parameter text
    (``set_F_0.5``, ``rbp_p=0.8``), nothing at trec_eval's defaults. ``rel`` (trec_eval's
    ``-l``) and the ``trec_eval`` version are not shown, as trec_eval does not show them.
    None when trec_eval has no such measure (other parameters, a named measure).

    Examples
    --------
    >>> from irstab.metrics import parse_measure
    >>> [trec_eval_name(parse_measure(s)) for s in ("nDCG@10", "AP(rel=2)", "IPrec(recall=0.1)",
    ...                                             "nDCG(gain=exp)@10", "RR@10", "SetF(beta=0.5)")]
    ['ndcg_cut_10', 'map', 'iprec_at_recall_0.10', None, None, 'set_F_0.5']
    """
    name = type(measure).name
    for base, family in TREC_EVAL_NAMES.items():
        if family.measure != name:
            continue
        shown = _printed(base, family, measure)
        if shown is not None:
            return shown
    return None


def _printed(base: str, family: _Trec, measure: Measure) -> str | None:
    params = {k: v for k, v in measure.params().items() if k not in ("rel", "trec_eval")}
    fixed = dict(family.fixed)
    for k, v in fixed.items():  # the family's fixed parameters must hold (p is rbp's .p=)
        if (k == "gain" and measure.gain is None) or (k not in ("gain", "p")
                                                      and getattr(measure, k) != v):
            return None
        params.pop(k, None)
    if family.style in ("cut_long", "cut_double"):
        if family.param == "cutoff":
            return f"{base}_{measure.cutoff}" if measure.cutoff is not None and not params else None
        if measure.cutoff is None and set(params) <= {family.param}:
            return f"{base}_{getattr(measure, family.param):3.2f}"
        return None
    if measure.cutoff is not None:
        return None
    return _PRINTERS.get(family.style, _plain)(base, measure, params, fixed)


def _plain(base, measure, params, fixed):
    return None if params else base


def _g(x: float) -> str:
    return f"{x:g}"


def _pairs_name(base, measure, params, fixed):
    if set(params) - {"gain", "p"}:
        return None
    items = []
    if "p" in fixed and measure.p != fixed["p"]:
        items.append(f"p={_g(measure.p)}")
    kind = getattr(getattr(measure, "gain", None), "kind", None)
    if kind is not None and kind.value not in ("linear", "levels"):
        return None
    if kind is not None and kind.value == "levels":
        items += [f"{g}={_g(v)}" for g, v in measure.gain.levels]
    return base if not items else f"{base}_{','.join(items)}"


def _numbers_name(base, measure, params, fixed):
    if not params:
        return base
    value = _NUMBER_TEXT[base](measure)
    return None if value is None else f"{base}_{value}"


_NUMBER_TEXT = {
    "utility": lambda m: ",".join(_g(getattr(m, k)) for k in "abcd") if m.docs == 0 else None,
    "11pt_avg": lambda m: ",".join(_g(x) for x in m.levels),
    "set_F": lambda m: _g(m.beta),
    "relstring": lambda m: str(m.length),
}

_PRINTERS = {"pairs": _pairs_name, "numbers": _numbers_name}


def trec_eval_position(measure: Measure) -> tuple:
    """Sort key of ``measure`` in trec_eval's print order (measures it lacks last, in order).

    trec_eval prints measures in ``measures.c`` order, each family's parameters ascending
    (``P_5 ... P_1000``).
    """
    name = trec_eval_name(measure)
    if name is None:
        return (len(TREC_EVAL_ORDER), 0.0)
    m = _FORM.fullmatch(name)
    base = m.group("base") if m is not None else name
    if base not in TREC_EVAL_NAMES:  # ndcg_1=0.5,... parsed with a short base
        base = next(b for b in sorted(TREC_EVAL_NAMES, key=len, reverse=True)
                    if name.startswith(b))
    family = TREC_EVAL_NAMES[base]
    arg = 0.0
    if family.style in ("cut_long", "cut_double"):
        arg = float(measure.cutoff if family.param == "cutoff" else getattr(measure, family.param))
    return (TREC_EVAL_ORDER.index(base), arg)
