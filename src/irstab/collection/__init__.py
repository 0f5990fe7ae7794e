"""The Collection: qrels and runs turned into dense per-rank arrays, built once.

Rooms, bottom up (each imports only the ones above it in this list):

:mod:`.cluster`     Dask: a client from a scheduler address, jobs mapped over workers
:mod:`.index`       the qrels as a ``(topic, docid) -> grade`` lookup table
:mod:`.batches`     run files cut into jobs: a budget of tensor bytes, balanced over workers
:mod:`.reduce`      one run at a time to its rows of the arrays, in worker processes
:mod:`.build`       runs assembled into the arrays (:class:`~.build.CollectionArrays`)
:mod:`.collection`  :class:`Collection`, which composes a build's arrays
:mod:`.outofcore`   scores batch by batch, the scoring function given by the caller
:mod:`.assessors`   several qrels of one collection as assessors: (topic, assessor) cells

May import: :mod:`irstab.io`, :mod:`irstab.metrics` (the assessor cells are scored with
the measure kernels), :mod:`irstab.errors` and the small helpers. Nothing above it:
:mod:`irstab.evaluation` hands out-of-core scoring its measures as a function.
"""

from .build import RankOrder, check_build_args
from .collection import Collection

__all__ = ["Collection", "RankOrder", "check_build_args"]
