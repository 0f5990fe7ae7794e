"""Simulated assessors for the tests: the base grades with seeded +-1 noise, clipped to 0-3."""

from __future__ import annotations

import warnings

import numpy as np

import irstab.io as io
from irstab.collection.assessors import assessor_collection
from irstab.errors import IRStabWarning


def noisy_qrels(frame, names, seed) -> dict:
    """``{name: Qrels}``: each name's grades are the base grades + U{-1, 0, 1}, clipped."""
    rng = np.random.default_rng(seed)
    return {
        n: io.Qrels(n, frame.assign(
            grade=np.clip(frame["grade"].to_numpy() + rng.integers(-1, 2, len(frame)), 0, 3)))
        for n in names
    }


def noisy_collection(sim, names, seed):
    """The (topic, assessor) collection of a simulated collection with noisy assessors."""
    f = sim.qrels.frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        return assessor_collection(io.Qrels("nist.txt", f), sim.runs, noisy_qrels(f, names, seed))
