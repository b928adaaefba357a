"""Seeded disjoint samples of a release, and seed 000's order: protect the population, then sample.

El Emam et al. 2011 (discharge PUMF), "Attack 3": the adversary does not know who is in the PUMF,
so the risk of a record is 1/F_j with F_j its class in the population, and "to maintain a
probability of 0.05 we must ensure that F_j >= 20 for all j [...] generalization and
suppression were performed on the full population DAD and the PUMF samples drawn from that";
the two files are "a different non-overlapping 10% random sample from the population" (Data
Sets). ``sample.order: population_first`` is that order; ``sample_first`` (the default) draws
the sample and protects it, so that every class of the published file has k records.

:func:`sample_mask` is the Python twin of the SQL condition ``dbt_deid.sample_condition``
(macros/releases/release_input.sql): the first 8 hex digits of md5("<seed>:<record id>") fall in
[slot x fraction, (slot + 1) x fraction) of 2^32, so slots of the same seed and fraction are
disjoint and a slot is the same set in every run, on every engine.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError
from dbt_deid.suppression import SuppressionResult, run_suppression

_SCALE = 4294967296  # 2^32: the range of the 8 hex digits compared

#: sample.order values (settings_schema), the default first.
ORDERS = ("sample_first", "population_first")


def _check(fraction: float, slot: int, seed: int) -> None:
    ok = isinstance(fraction, numbers.Real) and not isinstance(fraction, bool)
    if not ok or not 0 < fraction <= 1 or math.isnan(fraction):
        raise ConfigError(f"sample.fraction must be a number in (0, 1], got {fraction!r}")
    if not isinstance(slot, int) or isinstance(slot, bool) or slot < 0 or (
        (slot + 1) * fraction > 1.000000001
    ):
        raise ConfigError(
            f"sample.slot must be an integer >= 0 with (slot + 1) x fraction <= 1, got {slot!r}"
        )
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError("sample.seed must be an integer")


def sample_mask(
    record_ids: Sequence[object] | pd.Series, fraction: float, slot: int = 0, seed: int = 0
) -> np.ndarray:
    """Which records are in sample slot ``slot`` (same hash and bounds as the SQL)."""
    _check(fraction, slot, seed)
    lo = f"{math.floor(slot * fraction * _SCALE):08x}"
    hi_n = math.floor((slot + 1) * fraction * _SCALE)
    hi = f"{hi_n:08x}"
    out = np.empty(len(record_ids), dtype=bool)
    for i, rid in enumerate(record_ids):
        h = hashlib.md5(f"{seed}:{rid}".encode()).hexdigest()[:8]
        out[i] = h >= lo and (hi_n >= _SCALE or h < hi)
    return out


@dataclass
class PopulationFirstRelease:
    """The protected population and the sample files drawn from it."""

    suppression: SuppressionResult
    population: pd.DataFrame  # record id and released QIs (None = suppressed), every record
    samples: list[pd.DataFrame]  # the files, one per slot, rows of ``population``


def population_first(
    frame: pd.DataFrame,
    record_id: str,
    k: int,
    combinations: Sequence[Sequence[str]],
    fraction: float,
    slots: Sequence[int],
    seed: int,
    *,
    weights: Mapping[str, float] | None = None,
    algorithm: str = "combinations",
) -> PopulationFirstRelease:
    """Seed 000's order: suppress the whole population (every class of every combination at
    least k records, the combinations algorithm, El Emam et al. 2011), then draw the disjoint
    sample files (slots of the seeded hash) from the suppressed records."""
    if record_id not in frame.columns:
        raise ConfigError(f"record_id column {record_id!r} is not in the frame")
    ids = frame[record_id]
    if ids.isna().any() or ids.duplicated().any():
        raise ConfigError(f"record_id {record_id!r} must be unique and not null")
    qis = list(dict.fromkeys(c for combo in combinations for c in combo))
    result = run_suppression(frame[qis + [record_id]], k, combinations, weights,
                             algorithm=algorithm, count_column=None, record_key=record_id)
    published = result.published().drop(columns=["n"])
    published.insert(0, record_id, ids.to_numpy()[result.table.origin])
    published = published.sort_values(record_id, kind="stable").reset_index(drop=True)
    samples = [published[sample_mask(published[record_id], fraction, s, seed)]
               .reset_index(drop=True) for s in slots]
    return PopulationFirstRelease(result, published, samples)


__all__ = ["ORDERS", "PopulationFirstRelease", "population_first", "sample_mask"]
