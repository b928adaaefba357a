"""Compiled loops of a node evaluation (numba): the roll-up of a keyed pattern table around
numpy's sort.

A node's generalized pattern table is derived from a cached table of a specialization (see
:mod:`dbt_deid.ola.evaluate`; El Emam et al. 2009, predictive tagging needs one table per
evaluated node). Per row the roll-up rewrites the bit fields of the QIs whose level changes
(shift, mask, lookup, add) and packs the row's count beside its new key; the packed keys are
sorted with numpy's sort; one pass then merges equal keys, summing their counts, and adds up the
records in classes smaller than k (the records OLA would suppress). In numpy these are a dozen
whole-array passes with a temporary array each (more than half of a node's time on tables of a
few thousand classes, ARX's example2 with 12 QIs); here they are two loops. The results are
integers, identical to the numpy path's (:func:`dbt_deid.ola.evaluate.group_keys`), which stays
the reference and the fallback for keys that do not leave room for the count.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def map_pack(keys: np.ndarray, counts: np.ndarray, shifts: np.ndarray, masks: np.ndarray,
             offsets: np.ndarray, deltas: np.ndarray, count_bits: int) -> np.ndarray:
    """``(new_key << count_bits) | count`` per row, where ``new_key = key + sum_c
    deltas[offsets[c] + ((key >> shifts[c]) & masks[c])]`` over the changed fields c."""
    n = keys.shape[0]
    m = shifts.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        key = keys[i]
        new = key
        for c in range(m):
            new += deltas[offsets[c] + ((key >> shifts[c]) & masks[c])]
        out[i] = (new << count_bits) | counts[i]
    return out


@njit(cache=True, nogil=True)
def merge_sorted(packed: np.ndarray, count_bits: int, k: int
                 ) -> tuple[np.ndarray, np.ndarray, int]:
    """From sorted packed keys (see :func:`map_pack`): the distinct keys, the summed count of
    each, and the records in classes with a count below ``k``."""
    n = packed.shape[0]
    cmask = (np.int64(1) << count_bits) - 1
    keys = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    j = -1
    prev = np.int64(-1)
    for i in range(n):
        p = packed[i]
        key = p >> count_bits
        if key != prev:
            j += 1
            keys[j] = key
            counts[j] = p & cmask
            prev = key
        else:
            counts[j] += p & cmask
    m = j + 1
    suppressed = 0
    for i in range(m):
        if counts[i] < k:
            suppressed += counts[i]
    return keys[:m].copy(), counts[:m].copy(), suppressed


@njit(cache=True, nogil=True)
def class_terms(keys: np.ndarray, counts: np.ndarray, k: int, mode: int, shifts: np.ndarray,
                masks: np.ndarray, offsets: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """The per-class metric terms of the selected classes (``mode`` 0: all, 1: count below
    ``k``, the suppressed classes, 2: count at least ``k``), in table order: ``out[a, r] =
    costs[offsets[a] + ((key_r >> shifts[a]) & masks[a])] * count_r`` for QI a and selected
    class r, the same products as the numpy gather of :meth:`Metrics._class_terms`, whose row
    sums stay with numpy (so the metric is the same to the last bit)."""
    n = keys.shape[0]
    q = shifts.shape[0]
    m = 0
    for i in range(n):
        c = counts[i]
        if mode == 0 or (mode == 1 and c < k) or (mode == 2 and c >= k):
            m += 1
    out = np.empty((q, m), dtype=np.float64)
    r = 0
    for i in range(n):
        c = counts[i]
        if mode == 0 or (mode == 1 and c < k) or (mode == 2 and c >= k):
            key = keys[i]
            w = np.float64(c)
            for a in range(q):
                out[a, r] = costs[offsets[a] + ((key >> shifts[a]) & masks[a])] * w
            r += 1
    return out
