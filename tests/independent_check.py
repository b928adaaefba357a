"""An independent re-implementation of the release guarantee, for tests only.

Deliberately written without the package's code: plain Python loops over records. For every
combination and every record, count the released records consistent with the record's true
values (a suppressed cell, None, is consistent with anything), and the class sizes with a
suppressed value as its own category.

The loops are the reference. ``consistent_counts`` (and ``smallest_consistent_set_fast``,
``records_below_k`` on it) counts the same thing with numpy arrays instead, for tables of
millions of true tuples (``bench/bench_scale.py`` at 24M records); the unit tests
(tests/unit/test_independent_check_fast.py) compare it with ``smallest_consistent_set``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd


def _row_counts(frame: pd.DataFrame, cols: Sequence[str]) -> Counter:
    """How many rows of ``frame`` have each tuple of values on ``cols`` (a missing value, NaN
    or None, as None). The distinct tuples are found first (pandas' value_counts keeps missing
    values) and only they are converted, one by one, so a 240,000-row file costs a few thousand
    conversions instead of a million. On categorical columns value_counts also lists the
    combinations of categories no row has, with count 0: they are skipped."""
    counts: Counter = Counter()
    distinct = frame[list(cols)].value_counts(dropna=False, sort=False)
    for key, n in distinct.items():
        if n == 0:
            continue
        values = key if isinstance(key, tuple) else (key,)
        counts[tuple(None if pd.isna(v) else v for v in values)] += int(n)
    assert sum(counts.values()) == len(frame)  # no row lost by the grouping
    return counts


def _published_counts(
    published: pd.DataFrame, combination: Sequence[str], counts: str | None
) -> Counter:
    """Published rows per tuple of the combination; with ``counts``, each row of ``published``
    stands for that many records (a pattern table: the same multiset of rows, grouped)."""
    if counts is None:
        return _row_counts(published, combination)
    out: Counter = Counter()
    grouped = published.groupby(list(combination), dropna=False, sort=False,
                                observed=True)[counts].sum()
    for key, n in grouped.items():
        values = key if isinstance(key, tuple) else (key,)
        out[tuple(None if pd.isna(v) else v for v in values)] += int(n)
    assert sum(out.values()) == int(published[counts].sum())  # no pattern lost by the grouping
    return out


def smallest_class(
    published: pd.DataFrame, combination: Sequence[str], counts: str | None = None
) -> int:
    return min(_published_counts(published, combination, counts).values())


def smallest_consistent_set(
    true_values: pd.DataFrame, published: pd.DataFrame, combination: Sequence[str],
    counts: str | None = None,
) -> int:
    """min over records of |{released r : r agrees with the record wherever r is not None}|.

    Counted by the set S of suppressed cells of the released rows: a released row with S
    suppressed is consistent with a record exactly when its other cells equal the record's
    values there, so a record's count is the sum, over every S that occurs, of the released rows
    with S suppressed whose other cells equal the record's (a dictionary look-up per S).
    ``counts`` names a column of record counts when ``published`` is grouped (see
    ``_published_counts``); ``true_values`` may hold each true tuple once: only the set of true
    tuples matters."""
    by_suppressed: dict[tuple[bool, ...], Counter] = {}
    for row, n in _published_counts(published, combination, counts).items():
        suppressed = tuple(v is None for v in row)
        shown = tuple(str(v) for v in row if v is not None)
        by_suppressed.setdefault(suppressed, Counter())[shown] += n
    best = None
    for t in _row_counts(true_values, combination):
        target = [str(v) for v in t]
        n = sum(
            rows.get(tuple(v for v, off in zip(target, suppressed, strict=True) if not off), 0)
            for suppressed, rows in by_suppressed.items()
        )
        best = n if best is None else min(best, n)
    return int(best or 0)


# --------------------------------------------------------------------------------------------
# The same count as ``smallest_consistent_set``, vectorised (numpy, no loop over tuples).


def _text_codes(
    true_col: pd.Series, published_col: pd.Series, column: str
) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer codes of one column, equal exactly when the reference's texts are equal.

    The reference compares ``str(value)`` of both sides. Here each side's distinct values are
    found first (``pd.factorize``: code -1 for a missing value, None, NaN or NA) and only they
    are turned into text; the vocabulary is the true column's texts, numbered 0 .. V-1.
    Returns (true codes, published codes, V): a published code is -1 for a suppressed cell and
    -2 for a value no true tuple has (such a cell is consistent with no record).
    A missing TRUE value is refused: a missing original value is its own category (the missing
    label, a string), so a null among the true values means the check was handed the wrong
    table (the reference would silently compare it as the text 'None')."""
    t_codes, t_uniques = pd.factorize(true_col)
    if (t_codes < 0).any():
        raise ValueError(f"the true values of column {column!r} hold a null; a missing value"
                         " must be the missing label (a string)")
    vocab: dict[str, int] = {}
    t_map = np.array([vocab.setdefault(str(v), len(vocab)) for v in t_uniques], dtype=np.int64)
    p_codes, p_uniques = pd.factorize(published_col)
    # the last entry, -1, is what factorize's code -1 (a suppressed cell) indexes
    p_map = np.array([vocab.get(str(v), -2) for v in p_uniques] + [-1], dtype=np.int64)
    return t_map[t_codes], p_map[p_codes], len(vocab)


def _joint_keys(columns: Sequence[np.ndarray], sizes: Sequence[int], n: int) -> np.ndarray:
    """One int64 key per row (``n`` rows) over several code columns (codes 0 .. size-1): equal
    keys exactly when every column's code is equal (all 0 without columns). Mixed radix; when
    the next column would overflow int64, the keys so far are renumbered densely first
    (np.unique), so any number of columns fits."""
    key = np.zeros(n, dtype=np.int64)
    span = 1  # keys so far lie in 0 .. span-1
    for codes, size in zip(columns, sizes, strict=True):
        if span * max(size, 1) >= 2**62:
            uniques, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64).reshape(-1)
            span = len(uniques)
        key = key * max(size, 1) + codes
        span *= max(size, 1)
    return key


def consistent_counts(
    true_values: pd.DataFrame, published: pd.DataFrame, combination: Sequence[str],
    counts: str | None = None,
) -> np.ndarray:
    """Per row of ``true_values``: how many published records are consistent with it on
    ``combination`` (every cell suppressed or equal to the true value, compared as text as
    ``smallest_consistent_set`` does). Same arguments as ``smallest_consistent_set``.

    The same sum as the reference, by suppression pattern S (the set of suppressed cells of a
    published row): the published rows with exactly S suppressed are grouped by their shown
    cells (np.unique of a joint key, their counts added), and every true tuple looks its own
    cells outside S up among them (np.searchsorted); its count is the sum over every S."""
    b = list(combination)
    n_true = len(true_values)
    weights = (np.ones(len(published), dtype=np.int64) if counts is None
               else published[counts].to_numpy(dtype=np.int64))
    true_cols, pub_cols, sizes = [], [], []
    for c in b:
        t, p, size = _text_codes(true_values[c], published[c], c)
        true_cols.append(t)
        pub_cols.append(p)
        sizes.append(size)
    total = np.zeros(n_true, dtype=np.int64)
    if not b:
        raise ValueError("an empty combination")
    if not len(published):
        return total
    pub = np.column_stack(pub_cols)
    # A published row showing a value no true tuple has is consistent with no true tuple.
    usable = ~(pub == -2).any(axis=1)
    pub, weights = pub[usable], weights[usable]
    suppressed = pub == -1
    patterns, which = np.unique(suppressed, axis=0, return_inverse=True)
    which = which.reshape(-1)
    for s_index, pattern in enumerate(patterns):
        rows = which == s_index
        shown = [j for j in range(len(b)) if not pattern[j]]
        shown_sizes = [sizes[j] for j in shown]
        # keys of the true tuples and of these published rows, over the shown columns only
        # (no shown column, the fully suppressed rows: every key 0, consistent with all)
        keys = _joint_keys([np.concatenate([true_cols[j], pub[rows, j]]) for j in shown],
                           shown_sizes, n_true + int(rows.sum()))
        t_keys, p_keys = keys[:n_true], keys[n_true:]
        distinct, inverse = np.unique(p_keys, return_inverse=True)
        per_key = np.zeros(len(distinct), dtype=np.int64)
        np.add.at(per_key, inverse.reshape(-1), weights[rows])
        pos = np.minimum(np.searchsorted(distinct, t_keys), len(distinct) - 1)
        hit = distinct[pos] == t_keys
        total[hit] += per_key[pos[hit]]
    return total


def smallest_consistent_set_fast(
    true_values: pd.DataFrame, published: pd.DataFrame, combination: Sequence[str],
    counts: str | None = None,
) -> int:
    """``smallest_consistent_set``, vectorised (``consistent_counts``); 0 without true rows."""
    per_tuple = consistent_counts(true_values, published, combination, counts)
    return int(per_tuple.min()) if len(per_tuple) else 0


def records_below_k(
    true_values: pd.DataFrame, published: pd.DataFrame, combination: Sequence[str], k: int,
    counts: str | None = None, true_counts: str | None = None,
) -> int:
    """Records whose true values are consistent with fewer than ``k`` published records;
    with ``true_counts``, each row of ``true_values`` stands for that many records."""
    per_tuple = consistent_counts(true_values, published, combination, counts)
    n = (np.ones(len(true_values), dtype=np.int64) if true_counts is None
         else true_values[true_counts].to_numpy(dtype=np.int64))
    return int(n[per_tuple < k].sum())


def release_violations(
    columns: Sequence[str],
    truth: Sequence[Sequence[object]],
    published: Sequence[Sequence[object]],
    combinations: Sequence[Sequence[str]],
    k: int,
) -> list[str]:
    """Every way a release breaks the guarantee, checked with plain loops over records.

    ``truth`` and ``published`` are aligned rows over ``columns`` (None in ``published`` = a
    suppressed cell). Checks: as many published rows as true ones; every published cell is the
    true value or suppressed; on every combination, every class (a suppressed value as its own
    category, the fully suppressed class included) has k records, and every record's true
    values are consistent with k published records. Messages give sizes and row numbers only,
    never values.
    """
    out: list[str] = []
    if len(truth) != len(published):
        return [f"{len(published)} published rows for {len(truth)} records"]
    for i, (t_row, p_row) in enumerate(zip(truth, published, strict=True)):
        for j, (t, p) in enumerate(zip(t_row, p_row, strict=True)):
            if p is not None and p != t:
                out.append(f"row {i}, column {columns[j]!r}: published value is not the true one")
    for b in combinations:
        idx = [list(columns).index(c) for c in b]
        classes: dict[tuple, int] = {}
        for p_row in published:
            key = tuple(p_row[j] for j in idx)
            classes[key] = classes.get(key, 0) + 1
        for key, size in classes.items():
            if size < k:
                full = " (the fully suppressed class)" if all(v is None for v in key) else ""
                out.append(f"combination {list(b)}: a class of {size} < k = {k}{full}")
        for i, t_row in enumerate(truth):
            consistent = 0
            for p_row in published:
                if all(p_row[j] is None or p_row[j] == t_row[j] for j in idx):
                    consistent += 1
            if consistent < k:
                out.append(f"combination {list(b)}: record {i} is consistent with"
                           f" {consistent} < k = {k} published records")
    return out


def combined_view(
    releases: Sequence[Mapping[object, tuple[tuple, tuple]]],
) -> tuple[list[tuple], list[tuple]]:
    """The view of a recipient holding several releases of the same records, built with plain
    loops: ``releases`` maps each release's record id to (published cells, true values), both
    tuples over the same columns (None = suppressed). Per record in any release, a cell is
    revealed when any release holding the record published it; a record in one release keeps
    its row. Returns aligned (truth, published) rows. Records whose true values differ between
    releases are not modelled here (ValueError): the tests publish the same records twice."""
    truth: dict[object, tuple] = {}
    cells: dict[object, list] = {}
    for release in releases:
        for rid, (published, true) in release.items():
            if rid in truth and truth[rid] != tuple(true):
                raise ValueError("a record's true values differ between releases")
            truth[rid] = tuple(true)
            merged = cells.setdefault(rid, [None] * len(true))
            for j, value in enumerate(published):
                if value is not None:
                    if merged[j] is not None and merged[j] != value:
                        raise ValueError("two releases published different values for a cell")
                    merged[j] = value
    ids = sorted(truth, key=str)
    return [truth[i] for i in ids], [tuple(cells[i]) for i in ids]


def consistent_minimum(
    columns: Sequence[str], truth: Sequence[tuple], published: Sequence[tuple],
    combination: Sequence[str], k: int,
) -> tuple[int, int]:
    """(smallest consistent set, records consistent with fewer than k rows) for one combination,
    with plain loops: a published row is consistent with a record's true values when every cell
    of the combination is suppressed (None) or equal to the true value."""
    idx = [list(columns).index(c) for c in combination]
    rows = Counter(tuple(p[j] for j in idx) for p in published)
    targets = Counter(tuple(t[j] for j in idx) for t in truth)
    smallest, below = None, 0
    for target, n_records in targets.items():
        consistent = 0
        for row, n in rows.items():
            if all(v is None or v == t for v, t in zip(row, target, strict=True)):
                consistent += n
        smallest = consistent if smallest is None else min(smallest, consistent)
        if consistent < k:
            below += n_records
    return int(smallest or 0), below
