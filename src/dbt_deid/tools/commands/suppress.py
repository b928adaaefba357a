"""``python -m dbt_deid suppress``: the combinations suppression algorithm on a CSV file.

El Emam et al. (2011), "Combinations Suppression Algorithm", on one record per row. The file is
read and written cell by cell as text (:mod:`dbt_deid.tools.io`). The core sees the
quasi-identifiers
under positional internal names (``q0``, ``q1``, ...) and a row key, so that no user column
(``n``, ``rank_from``, ``x__suppressed``, ...) can collide with a name the core uses.

Row order never changes the output. Records that share their quasi-identifier values are taken
(into the fully suppressed class) in the order of a row key: the SHA-256 of the record id
(``--record-id``, which must be unique and present in every row) or, without one, of the whole
row's cells. Rows identical in every cell are interchangeable; among them the first in input
order gets the first outcome, so a shuffled input gives the same rows, and the same multiset of
outcomes for each distinct row, written in the input's order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dbt_deid.config import DEFAULT_MISSING_LABEL
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.patterns import SUPPRESSED
from dbt_deid.suppression import run_suppression, verify_result
from dbt_deid.tools.io import mark_missing, read_rows, write_rows

_KEY = "row_key"


def _weights(items: list[str], used: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        col, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--weight expects column=weight, got {item!r}")
        try:
            w = float(value)
        except ValueError as exc:
            raise ConfigError(f"--weight {item!r}: weight must be a number in [0, 1]") from exc
        if col not in used:
            raise ConfigError(f"weight given for unknown column {col!r}; the combinations use"
                              f" {used}")
        if not 0 <= w <= 1:
            raise ConfigError(f"weight of {col!r} must be in [0, 1], got {w!r}")
        out[col] = w
    return out


def _combinations(items: list[str], header: list[str], source: str) -> list[list[str]]:
    combos = [[c.strip() for c in combo.split(",") if c.strip()] for combo in items]
    for combo, item in zip(combos, items, strict=True):
        twice = sorted({c for c in combo if combo.count(c) > 1})
        if twice:
            raise ConfigError(f"--combination {item!r} names column(s) {twice} more than once")
    used = list(dict.fromkeys(c for combo in combos for c in combo))
    unknown = [c for c in used if c not in header]
    if unknown:
        raise ConfigError(
            f"--combination names unknown column(s) {unknown}; {source} has {header}"
        )
    return combos


def row_keys(header: Sequence[str], rows: Sequence[Sequence[str]],
             record_id: str | None) -> list[str]:
    """The stable key of every row: SHA-256 of the record id, or of all the row's cells
    (each cell length-prefixed, so that cell boundaries cannot shift), then the text itself."""
    if record_id is not None:
        if record_id not in header:
            raise ConfigError(f"--record-id names unknown column {record_id!r}; the file has"
                              f" {list(header)}")
        j = list(header).index(record_id)
        ids = [row[j] for row in rows]
        if any(v == "" for v in ids):
            raise DataError(f"--record-id column {record_id!r} is empty in"
                            f" {sum(v == '' for v in ids)} row(s)")
        if len(set(ids)) != len(ids):
            raise DataError(f"--record-id column {record_id!r} has {len(ids) - len(set(ids))}"
                            " duplicate value(s); record ids must be unique")
        return [hashlib.sha256(v.encode()).hexdigest() + "\x00" + v for v in ids]
    keys = []
    for row in rows:
        text = "".join(f"{len(v)}:{v}" for v in row)
        keys.append(hashlib.sha256(text.encode()).hexdigest() + "\x00" + text)
    return keys


def run(args: argparse.Namespace) -> int:
    header, rows = read_rows(args.input, args.delimiter)
    if not rows:
        raise DataError(f"input file {str(args.input)!r} has no records")
    combos = _combinations(args.combination, header, args.input)
    used = list(dict.fromkeys(c for combo in combos for c in combo))
    weights = _weights(args.weight, used)
    internal = {c: f"q{i}" for i, c in enumerate(used)}
    position = [header.index(c) for c in used]
    frame = pd.DataFrame(
        {c: pd.Series([row[j] for row in rows], dtype=object)
         for c, j in zip(used, position, strict=True)}
    )
    work = mark_missing(frame, used, args.missing_label)
    work.columns = [internal[c] for c in used]
    work[_KEY] = row_keys(header, rows, args.record_id)
    algorithm = _algorithm(args)
    try:
        result = run_suppression(
            work, args.k, [[internal[c] for c in b] for b in combos],
            {internal[c]: w for c, w in weights.items()},
            algorithm=algorithm, count_column=None,
            record_key=_KEY,
        )
    except (ConfigError, DataError) as exc:  # name the user's columns, not the internal ones
        message = str(exc)
        for c in used:
            message = message.replace(repr(internal[c]), repr(c))
        raise type(exc)(message) from exc
    table = result.table
    if len(table.counts) != len(rows):  # pragma: no cover - counts of 1 are never split
        raise DataError("internal error: the suppressed table does not have one row per record")
    # One table row per record (count_column=None, counts of 1 are never split): the row whose
    # origin is i is input row i.
    codes = np.empty((len(rows), len(used)), dtype=np.int64)
    codes[table.origin] = table.codes[:, [table.col(internal[c]) for c in used]]
    out = [list(row) for row in rows]
    for q, (c, j) in enumerate(zip(used, position, strict=True)):
        labels = np.append(table.labels[table.col(internal[c])].astype(object), "")
        published = labels[codes[:, q]]  # code -1 -> "" (suppressed)
        for i, v in enumerate(published.tolist()):
            out[i][j] = str(v)
    write_rows(args.output, header, out, args.delimiter)
    checks = verify_result(result)
    name = {v: c for c, v in internal.items()}
    summary = {
        "k": args.k,
        "algorithm": algorithm,
        "records": len(rows),
        "cells_suppressed": result.stats.cells,
        "phase1_cells": result.stats.phase1_cells,
        "phase2_cells": result.stats.phase2_cells,
        "records_moved_to_fully_suppressed_class": result.stats.growth_records,
        "records_with_suppression": int((codes == SUPPRESSED).any(axis=1).sum()),
        "passes": result.stats.passes,
        "combinations": [
            {"columns": [name[c] for c in chk.combination], "smallest_class": chk.smallest_class,
             "min_consistent": chk.min_consistent, "ok": chk.ok}
            for chk in checks
        ],
    }
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if all(c.ok for c in checks) else 1


def _algorithm(args: argparse.Namespace) -> str:
    """--algorithm, or --complete (its older spelling); both must agree."""
    chosen = args.algorithm or ("complete" if args.complete else "combinations")
    if args.complete and chosen != "complete":
        raise ConfigError(f"--complete contradicts --algorithm {args.algorithm}")
    return chosen


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "suppress",
        help="combinations cell suppression (El Emam et al. 2011) on a CSV file",
        description="Suppress cells so that every combination's classes reach k. The output has"
        " the input's rows and columns; an empty cell is a suppressed value, a missing input"
        " value is written as the missing label. The output does not depend on the row order:"
        " records with the same quasi-identifiers are ranked by a hash of --record-id (or of"
        " the whole row when there is none).",
    )
    p.add_argument("--input", required=True, help="CSV file, one record per row, with a header")
    p.add_argument("--output", required=True, help="where to write the suppressed CSV")
    p.add_argument("--k", type=int, required=True, help="minimum class size (k >= 2)")
    p.add_argument("--combination", action="append", required=True,
                   help="comma-separated QI columns; repeat for each combination")
    p.add_argument(
        "--weight", action="append", default=[], metavar="COLUMN=W",
        help="weight w in [0, 1] of a column (repeatable; default 1). Higher = suppressed LATER:"
             " a value's weighted support is support x w and the smallest goes first (El Emam et"
             " al. 2011),"
             " so give the columns analysts need most the highest weight. sdcMicro's"
             " localSuppression importance runs the other way (importance 1 = most important,"
             " suppressed last; larger numbers are suppressed first): do not copy its values.")
    p.add_argument("--complete", action="store_true",
                   help="one combination of all QIs (the paper's 'complete' algorithm)")
    p.add_argument("--algorithm", choices=["combinations", "complete", "mask_cover"],
                   default=None,
                   help="combinations (default: El Emam et al. 2011), complete (one combination"
                   " of all QIs) or mask_cover (fewer cells, the same gates:"
                   " docs/suppression-exact.md)")
    p.add_argument("--record-id", default=None,
                   help="column with a unique record id: ranks records that share their"
                   " quasi-identifiers (default: a hash of the whole row)")
    p.add_argument("--delimiter", default=",", help="field delimiter (default ',')")
    p.add_argument("--missing-label", default=DEFAULT_MISSING_LABEL,
                   help="how a missing input value is written in the output")
    p.set_defaults(func=run)
