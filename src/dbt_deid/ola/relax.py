"""When no node passes: the figures at the lattice's top node and which limit to relax.

El Emam et al. 2009 (prescription records) "Apply Generalization and Suppression", flow
chart: when no node of the lattice has at most MaxSup records in classes smaller than k, the
analyst relaxes MaxSup, tau or the maximum generalization levels. :func:`relax_message` says
which limit would make the top node pass, with the figures at the top node.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from dbt_deid.ola.combinations import small_in_any
from dbt_deid.ola.evaluate import allowed_suppression
from dbt_deid.ola.run import OlaResult


def top_class_sizes(result: OlaResult, patterns: pd.DataFrame, count_column: str = "n"
                    ) -> np.ndarray:
    """Class sizes at the top node of the lattice (every QI at its maximum level)."""
    codes = []
    for c, lvl in zip(result.names, result.lattice.max_levels, strict=True):
        h = result.hierarchies[c]
        codes.append(h.maps[lvl][h.encode(patterns[c])])
    mat = np.column_stack(codes)
    _, inverse = np.unique(mat, axis=0, return_inverse=True)
    counts = patterns[count_column].to_numpy(dtype=np.int64)
    return np.bincount(inverse.ravel(), weights=counts).astype(np.int64)


def top_small_counter(result: OlaResult, patterns: pd.DataFrame, count_column: str = "n"
                      ) -> Callable[[int], int]:
    """At the lattice's top node: k -> the records OLA would suppress (in a class smaller than
    k over all QIs, or on any of ``result.combinations``: :mod:`dbt_deid.ola.combinations`)."""
    codes, radices = [], []
    for c, lvl in zip(result.names, result.lattice.max_levels, strict=True):
        h = result.hierarchies[c]
        codes.append(h.maps[lvl][h.encode(patterns[c])])
        radices.append(len(h.labels[lvl]))
    mat = np.column_stack(codes)
    counts = patterns[count_column].to_numpy(dtype=np.int64)
    combos = result.combinations or (tuple(range(len(result.names))),)

    def small(k: int) -> int:
        return int(counts[small_in_any(mat, counts, radices, combos, k)].sum())

    return small


def top_small_records(result: OlaResult, patterns: pd.DataFrame, k: int,
                      count_column: str = "n") -> int:
    """Records in a class smaller than ``k`` at the top node (see :func:`top_small_counter`)."""
    return top_small_counter(result, patterns, count_column)(k)


def relax_message(
    result: OlaResult, sizes: np.ndarray, min_levels: Mapping[str, int],
    small_at: Callable[[int], int] | None = None,
) -> str:
    """El Emam et al. 2009 (prescription records), flow chart: no node passes -> relax MaxSup,
    tau or the maximum levels. Says which limit would make the top node pass (MaxSup, tau) or
    can still move (max levels). ``small_at``: k -> records in classes smaller than k at the
    top node (:func:`top_small_counter`; default from ``sizes``, the all-QI classes)."""
    n, k = result.n_records, result.k
    top = {c: min_levels[c] + lvl
           for c, lvl in zip(result.names, result.lattice.max_levels, strict=True)}
    on = ("" if result.combinations is None else " on any of the combinations "
          + "; ".join("+".join(result.names[j] for j in c) for c in result.combinations))
    small_of = small_at or (lambda kk: int(sizes[sizes < kk].sum()))
    small = small_of(k)
    share = small / n
    lines = [
        f"OLA found no node with at most MaxSup = {result.max_suppression:g} of the {n} records"
        f" in classes smaller than k = {k}{on}. At the top node"
        f" ({', '.join(f'{c}={v}' for c, v in top.items())}), {small} records"
        f" ({share:.2%}) are in classes smaller than k. Relax a limit (El Emam et al. 2009,"
        " prescription records, flow chart):"
        f" MaxSup: set max_suppression to at least {math.ceil(share * 1e4) / 1e4:g};",
    ]
    k_ok = next((kk for kk in range(k - 1, 1, -1)
                 if small_of(kk) <= allowed_suppression(result.max_suppression, n)),
                None)
    if k_ok is not None:
        lines.append(f" tau: k = {k_ok} (tau >= {1 / k_ok:.4g}) passes at the top node;")
    else:
        lines.append(" tau: no k >= 2 passes at the top node;")
    movable = [
        f"{c} ({top[c]} of {min_levels[c] + h})"
        for c, h, lvl in zip(result.names, result.heights, result.lattice.max_levels,
                             strict=True) if lvl < h
    ]
    if movable:
        lines.append(f" maximum levels: raise generalization.max_levels of {', '.join(movable)}.")
    else:
        lines.append(" maximum levels: every quasi-identifier is already at its hierarchy's top.")
    return "".join(lines)
