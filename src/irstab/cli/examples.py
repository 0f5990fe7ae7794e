"""The examples every ``--help`` ends with, on the data the repository ships.

Each example runs as shown from the repository root, on ``data/example/`` (the bundled
synthetic collection), ``data/trec3-adhoc/`` (TREC-3's AP score matrix) or a file that an
earlier example of the same ``--help`` writes (``optimize discount ... --save opt.json``,
then ``-m @opt.json``); ``irstab demo`` finds the collection by itself. An example that
needs data the repository cannot ship (a second assessor's judgments) names the user's
own files ``qrels.txt``, ``runs/`` and so on, and says so in its comment
(:data:`ON_YOUR_FILES`). tests/cli/test_help_examples.py runs every other example of
every ``--help``, in order, in a temporary copy of ``data/``, and parses those.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "ON_YOUR_FILES", "add_examples", "on_your_files"]

Q, R = "data/example/qrels.txt", "data/example/runs"
TREC3 = "data/trec3-adhoc/AP.csv"
CROWD = "data/ecir2015-dcg/crowd.csv"
PREFS = "data/example-preferences/preferences.csv"

#: The comment that marks an example on the user's own files (paths that are placeholders).
ON_YOUR_FILES = "# on your files:"

#: command path -> example command lines (without the leading ``irstab``)
EXAMPLES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("evaluate",): (
        f"evaluate {Q} {R} -m nDCG@10,AP,P@10",
        f"evaluate {Q} {R} -m 'ndcg_cut.10 map' -l 2 -q -f trec",
        f"evaluate {Q} {R} -m 'nDCG(gain=exp,discount=zipf)@20' -q -f csv -o scores.csv",
    ),
    ("measures",): ("measures", "measures -f json"),
    ("stability",): (
        f"stability {Q} {R} -m nDCG@10,AP,'nDCG(gain=exp)@10'",
        f"stability {Q} {R} -m nDCG@10 --interval bootstrap -B 500 --seed 1",
        f"stability --scores {TREC3} --drop-worst 0.25   # gt4ireval's TREC-3 G-study",
    ),
    ("topics",): (
        f"topics {Q} {R} -m nDCG@10,AP -n 25,50,100",
        f"topics {Q} {R} -m nDCG@10 --target 0.9,0.95 --figure dstudy.png",
    ),
    ("crp",): (
        f"crp {Q} {R}/sim01 --topic 01",
        f"crp {Q} {R}/sim01 --topic 01 --figure crp.png",
    ),
    ("compare",): (
        f"compare {Q} {R} -m nDCG@10,AP,RR",
        f"compare {Q} {R} -m nDCG@10,AP --ttest holm --figure asl.png",
        f"compare {Q} {R} -m nDCG@10,nDCG@20,AP --baseline nDCG@10 --candidate nDCG@20",
    ),
    ("systems",): (
        f"systems {Q} {R} -m nDCG@10",
        f"systems {Q} {R} -m AP --baseline sim01 --test permutation --correction bh",
        f"systems {Q} {R} -m nDCG@10 --test tukey -f latex -o systems.tex",
    ),
    ("preferences",): (
        f"preferences {CROWD}   # Urbano & Marrero's crowd preferences, 36 DCGs",
        f"preferences {CROWD} -B 200 -f json -o preferences.json",
        f"preferences {PREFS} {Q} {R} -m nDCG@10,'nDCG(gain=exp,discount=zipf)@10',AP "
        "--ties half   # run names per row, judges resampled too",
    ),
    ("calibrate",): (
        f"calibrate {Q} {R} -m nDCG@10",
        f"calibrate {Q} {R} -m AP --topics 50 --alpha 0.01,0.05 --delta 0.03 --copula vine "
        "-f json",
        f"calibrate --scores {TREC3} -R 100 -f csv",
    ),
    ("report",): (
        f"report {Q} {R} -o example-report",
        f"report {Q} {R} -k 10,20 -B 200 --starts 1 -o light-report",
    ),
    ("demo",): ("demo", "demo -o demo-report"),
    ("explore",): (
        f"explore {Q} {R} -o explore.html",
        f"optimize discount {Q} {R} -k 20 --save opt.json   # a measure for the page",
        f"explore {Q} {R} -k 20 --baseline 'nDCG(gain=exp)@10' -m @opt.json --no-optimize "
        "-o opt.html",
    ),
    ("assessors",): (
        "assessors qrels.txt runs/ -a judge2-qrels.txt -m nDCG@10,AP   "
        f"{ON_YOUR_FILES} a second judge's qrels of your topics",
        "assessors qrels.txt runs/ -a reannotation/ -m nDCG@10 --figure c.png   "
        f"{ON_YOUR_FILES} a directory of qrels, one per judge",
    ),
    ("judges",): (
        "judges qrels.txt llm-qrels.txt crowd-qrels.txt   "
        f"{ON_YOUR_FILES} agreement of two judge sets with the gold qrels",
        "judges qrels.txt reannotation/ runs/ -m nDCG@10,AP -f json   "
        f"{ON_YOUR_FILES} a directory of qrels and the runs: do conclusions survive?",
    ),
    ("optimize", "discount"): (
        f"optimize discount {Q} {R} -k 10",
        f"optimize discount {Q} {R} -k 20 --starts 8 --save opt.json --figure opt.png",
        f"evaluate {Q} {R} -m @opt.json,nDCG@20   # the result is a measure",
    ),
    ("optimize", "gain"): (
        f"optimize gain {Q} {R} -k 10",
        f"optimize gain {Q} {R} -k 10 --discount zipf",
    ),
    ("optimize", "joint"): (
        f"optimize joint {Q} {R} -k 10",
        f"optimize joint {Q} {R} -k 20 --backend cvxpy",
    ),
    ("optimize", "minimax"): (
        f"optimize minimax {Q} {R} -k 10,20,100",
        f"optimize minimax {Q} {R} -k 10 --topic-splits 4",
    ),
    ("optimize", "pareto"): (
        f"optimize pareto {Q} {R} -k 10,100 --points 5",
        f"optimize pareto {Q} {R} -k 20 --prior log2",
    ),
    ("design", "power"): (
        f"design power {Q} {R} -m nDCG@10,AP --min-diff 0.05",
        f"design power {Q} {R} -m nDCG@10 --method sakai --figure topics.png",
        f"design power {Q} {R} -m nDCG@10 --pairs -f csv -o pairs.csv",
    ),
    ("design", "budget"): (
        f"design budget {Q} {R} -m nDCG@10 --depths 5,10,20",
        f"design budget {Q} {R} -m nDCG@10 --budget 5000 --cost-per-topic 20 --figure b.png",
        f"design budget {Q} {R} -m nDCG@10 --min-tau 0.9 --frontier -f csv",
    ),
}


def add_examples(root, prefix: tuple[str, ...] = ()) -> None:
    """Set each command's epilog to its examples (click prints it after the options).

    ``root`` is the command at ``prefix`` (``()``: the whole program; ``("optimize",)``:
    the optimize group); only the commands under it are given their examples.
    """
    for path, lines in EXAMPLES.items():
        if path[:len(prefix)] != prefix:
            continue
        command = root
        for name in path[len(prefix):]:
            command = command.commands[name]
        where = ("on your own files" if all(map(on_your_files, lines))
                 else "from the repository root")
        command.epilog = f"Examples ({where}):\n\n" + "\n\n".join(
            f"  $ irstab {line}" for line in lines)


def on_your_files(line: str) -> bool:
    """Whether the example ``line`` reads the user's own files (marked :data:`ON_YOUR_FILES`)."""
    return ON_YOUR_FILES in line
