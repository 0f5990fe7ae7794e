"""The trec_eval command lines whose output ``irstab evaluate -f trec`` reproduces byte for byte.

Shared by ``make_references.py`` (which runs a trec_eval binary to write the references) and
``test_trec_eval10.py`` (which compares irstab with them). Each option set is run on every
TREC DL 2019 run: ``trec_eval OPTIONS qrels.txt RUN``.
"""

from __future__ import annotations

# Every parametrised measure of trec_eval 10's all_trec set, with parameters other than its
# defaults (cutoffs past the runs' 1,000 documents, gains of rel_level=gain pairs, ...). Gains
# differ by 1 or more: trec_eval sorts gain levels with a comparator that truncates their
# difference to an integer, so a gain below 1 ties with grade 0's and may drop out of its
# ideal list (tests/metrics/test_trec_gain.py shows the case).
PARAMS = (
    "-m P.1,3,7,2000 -m recall.3,2000 -m ndcg.1=2,2=4,3=10 -m ndcg_cut.3,7,2000 "
    "-m map_cut.7,2000 -m success.2,3 -m iprec_at_recall.0.05,0.25,0.33,0.5 "
    "-m 11pt_avg.0.2,0.5,0.8 -m Rprec_mult.0.5,1.5,3 -m utility.2,-1,-0.5,0 "
    "-m relative_P.3,2000 -m set_F.0.5 -m rbp.p=0.8 -m rbp_resid.p=0.5 -m unj.3,50 "
    "-m G.1=1,2=5,3=10 -m Rndcg.1=2,2=3,3=7 -m ndcg_rel.2=3 -m relstring.5"
)

#: name -> trec_eval options (before QRELS RUN)
OPTION_SETS = {
    "default": "",
    "official-q": "-q -m official",
    "all_trec-q": "-q -m all_trec",
    "all_trec-q-c": "-q -c -m all_trec",
    "all_trec-q-c-l2": "-q -c -l 2 -m all_trec",
    "all_trec-q-c-l3": "-q -c -l 3 -m all_trec",
    "all_trec-q-c-M100": "-q -c -M 100 -m all_trec",
    "all_trec-q-c-J": "-q -c -J -m all_trec",
    "all_trec-q-c-J-l2-M50": "-q -c -J -l 2 -M 50 -m all_trec",
    "all_trec-n-q-c": "-n -q -c -m all_trec",
    "all_trec-n": "-n -m all_trec",
    "set-q-c": "-q -c -m set",
    "M100-P200": "-M 100 -m P.200",
    "params-q-c": "-q -c " + PARAMS,
    "params-q-c-l2": "-q -c -l 2 " + PARAMS,
}

#: runs whose full output is stored (the others by digest): a full run, a 20-deep run, and
#: the run with the most ties that single precision makes (trec_eval 10 reads doubles)
FULL_RUNS = ("TUA1-1", "ICT-BERT2", "runid2")
