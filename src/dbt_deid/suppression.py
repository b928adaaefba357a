"""El Emam et al. 2011's combinations cell-suppression algorithm, run on the pattern table.

El Emam et al. (2011), "Combinations Suppression Algorithm" (Figure 4) and "Suppression
Algorithm Walkthrough" (Figures 5-7):

* Phase 1 (steps 1.1-1.4): every value l[z_b] of every QI used by a combination whose support
  sup(l[z_b]) < k is suppressed in every record.
* Phase 2 (steps 2.1-2.7): combinations with moles (equivalence classes smaller than k) are
  ordered by their number of moles M_b, largest first. Within a combination the values on its QIs
  are visited by increasing weighted support wsup(l[z_b]) = sup(l[z_b]) x w[z_b]; each value is
  suppressed in the classes smaller than k that contain it, until the combination has no mole.

Two additions make the published guarantee hold, which the paper leaves implicit:

* A suppressed cell is its own category when classes are formed, so the records whose every QI
  of a combination is suppressed form a class too. When it is smaller than k it is grown by fully
  suppressing records taken from classes that stay at k or above (cheapest records first: those
  with the fewest unsuppressed cells in the combination).
* Suppressing a value for one combination can shrink a class of another (sdcMicro issue #352), so
  phase 2 is repeated over all combinations until none has a class smaller than k.

The "complete" algorithm of the paper's evaluation is the same procedure with one combination of
all QIs (:func:`run_suppression` with ``algorithm="complete"``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from dbt_deid.attribute_remedy import ClassDistributions, Remedy, failing_classes_count, merged
from dbt_deid.coded import group_totals
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.families import Family, check_total_orders, propagate
from dbt_deid.patterns import COUNT_COLUMN, SUPPRESSED, PatternTable
from dbt_deid.progress import Logger, get_logger

MAX_PASSES = 1000
_INT64_SAFE = 2**62


@dataclass
class SuppressionStats:
    """Counts of what each step did (cells are record-level cells)."""

    phase1_cells: int = 0
    phase2_cells: int = 0
    growth_records: int = 0
    growth_cells: int = 0
    propagated_cells: int = 0
    passes: int = 0
    #: ``attribute_disclosure.remedy`` (dbt_deid.attribute_remedy): "none" or "suppress"; the
    #: classes still failing an
    #: attribute-disclosure model when it stopped (0: every class passes).
    remedy: str = "none"
    remedy_failing_classes: int = 0
    phase1_seconds: float = 0.0
    phase2_seconds: float = 0.0
    combination_order: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def cells(self) -> int:
        return self.phase1_cells + self.phase2_cells + self.growth_cells + self.propagated_cells


@dataclass
class SuppressionResult:
    """The suppressed pattern table and the statistics of the run."""

    table: PatternTable
    input_table: PatternTable
    k: int
    combinations: list[tuple[str, ...]]
    stats: SuppressionStats
    verify_combinations: list[tuple[str, ...]] = field(default_factory=list)

    def published(self) -> pd.DataFrame:
        """Released patterns (None = suppressed) with counts; several rows may share a tuple."""
        _no_clash(self.table.columns, (COUNT_COLUMN,), ())
        return self.table.decode()

    def true_codes(self) -> np.ndarray:
        """Codes of the true (input) values of every row of ``table`` (int64, same labels:
        suppression only turns codes into -1, so equal codes are equal values)."""
        source = self.input_table
        return source.codes[source.rows_of(self.table.origin)].astype(np.int64)

    def suppression_map(self, *, only_suppressed: bool = True) -> pd.DataFrame:
        """The map SQL joins back onto the records.

        One row per (input pattern, variant): the input pattern's values, the variant's record
        count ``n`` and its record ranks ``rank_from``..``rank_to`` (1-based, inclusive, in the
        order SQL numbers the pattern's records), and ``<column>__suppressed`` flags. With
        ``only_suppressed`` the input patterns with no suppressed cell are left out (SQL keeps
        their values as they are).
        """
        t = self.table
        _no_clash(self.input_table.columns, _MAP_COLUMNS, t.columns)
        order = np.lexsort((np.arange(len(t.counts)), t.origin))
        origin = t.origin[order]
        counts = t.counts[order]
        suppressed = t.codes[order] == SUPPRESSED
        # Merge consecutive variants of one origin that carry the same mask.
        keep = np.ones(len(order), dtype=bool)
        same_origin = origin[1:] == origin[:-1]
        same_mask = (suppressed[1:] == suppressed[:-1]).all(axis=1)
        merge = np.concatenate([[False], same_origin & same_mask])
        group = np.cumsum(~merge) - 1
        counts = np.bincount(group, weights=counts).astype(np.int64)
        keep = ~merge
        origin, suppressed = origin[keep], suppressed[keep]
        # Running record count within each origin: the variant's last rank.
        starts_of_origin = np.concatenate([[True], origin[1:] != origin[:-1]])
        cum = np.cumsum(counts)
        first = np.flatnonzero(starts_of_origin)
        before = np.repeat(cum[first] - counts[first], np.diff(np.append(first, len(counts))))
        ends = cum - before
        if only_suppressed:  # keep the variants of origins with any suppressed cell
            any_sup = suppressed.any(axis=1)
            hit = np.zeros(int(origin.max(initial=-1)) + 1, dtype=bool)
            hit[origin[any_sup]] = True
            sel = hit[origin]
            origin, counts, ends, suppressed = origin[sel], counts[sel], ends[sel], suppressed[sel]
        rows = self.input_table.rows_of(origin)
        frame = pd.DataFrame(
            {c: self.input_table.labels_at(c, rows) for c in self.input_table.columns}
        )
        frame.insert(0, "pattern_index", origin)
        frame["n"] = counts
        frame["rank_from"] = ends - counts + 1
        frame["rank_to"] = ends
        for j, c in enumerate(t.columns):
            frame[f"{c}__suppressed"] = suppressed[:, j]
        return frame


_MAP_COLUMNS = ("pattern_index", COUNT_COLUMN, "rank_from", "rank_to")


def _no_clash(columns: Sequence[str], internal: Sequence[str], flagged: Sequence[str]) -> None:
    """Fail when a QI column has the name of a column the output adds (never overwrite it)."""
    names = set(internal) | {f"{c}__suppressed" for c in flagged}
    clash = [c for c in columns if c in names]
    if clash:
        raise ConfigError(
            f"quasi-identifier column(s) {clash} have the name of a column the suppression output"
            f" adds ({sorted(names & set(clash))}); rename them"
        )


def _mixed_radix(cards: Sequence[int]) -> tuple[np.ndarray, bool]:
    """Multipliers so that key = sum((code + 1) * mult) is unique per tuple; suppressed -> 0."""
    mults: list[int] = []
    m = 1
    for card in reversed(cards):
        mults.append(m)
        m *= card + 1
    mults.reverse()
    fits = m < _INT64_SAFE
    return np.array(mults, dtype=np.int64 if fits else object), fits


def _class_keys(table: PatternTable, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """One key per row for the classes of ``cols`` (suppressed cells as their own category):
    mixed radix over the codes + 1 (int64 when it fits, else Python integers), and the radix
    multipliers."""
    mults, fits = _mixed_radix([len(table.labels[j]) for j in cols])
    digits = table.codes[:, cols].astype(np.int64) + 1
    if fits:
        return digits @ mults, mults, True
    # Python integers: slower, exact for any number of categories
    return (digits.astype(object) * mults).sum(axis=1), mults, False


class _ClassIndex:
    """Equivalence classes of one combination (suppressed cells as their own category),
    updated incrementally as cells are suppressed.

    A class id is the position of its key among the sorted keys of the initial classes
    (``np.searchsorted``); classes that appear later, when cells are suppressed, get the next
    ids from a small dict, instead of a dict of every initial key looked up one key at a time
    in Python (issue 18: millions of patterns at 24 million records)."""

    def __init__(self, table: PatternTable, cols: np.ndarray, spare: int) -> None:
        self.table = table
        self.cols = cols
        self.keys, self.mults, self._fits = _class_keys(table, cols)
        uniq, cid = np.unique(self.keys, return_inverse=True)
        self._initial = uniq
        self._later: dict[object, int] = {}
        self.cid = cid.reshape(-1).astype(np.int64)
        self.n_classes = len(uniq)
        self.size = np.zeros(self.n_classes + spare + 1, dtype=np.int64)
        self.size[: self.n_classes] = np.bincount(self.cid, weights=table.counts).astype(np.int64)
        self.dists: ClassDistributions | None = None

    def attach(self, remedy: Remedy) -> None:
        """Track the classes' sensitive distributions (``attribute_disclosure.remedy``)."""
        cols = [self.table.col(c) for c in remedy.columns]
        self.dists = ClassDistributions(remedy, self.table.codes[:, cols], self.table.counts,
                                        self.cid, [self.table.labels[j] for j in cols])

    def small(self, cids: np.ndarray, k: int) -> np.ndarray:
        """Classes ``cids`` smaller than k, or (with a remedy attached) failing an
        attribute-disclosure model: the classes phase 2 suppresses in."""
        out = self.size[cids] < k
        if self.dists is not None and not out.all():
            out[~out] = self.dists.failing_mask(cids[~out])
        return out

    def cid_of_key(self, key: int) -> int | None:
        """The id of the class with ``key``, None when no such class was ever formed."""
        found = self._cid_of_initial(np.array([key], dtype=self._initial.dtype))
        if found[0] >= 0:
            return int(found[0])
        return self._later.get(key)

    def _cid_of_initial(self, keys: np.ndarray) -> np.ndarray:
        """Ids of ``keys`` among the initial classes, -1 where a key is not one of them."""
        if len(self._initial) == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self._initial, keys), len(self._initial) - 1)
        return np.where(self._initial[pos] == keys, pos, -1).astype(np.int64)

    def _cid_of(self, keys: np.ndarray) -> np.ndarray:
        # Suppressing one value sends many rows to the same class: look up distinct keys only.
        uniq, inverse = np.unique(keys, return_inverse=True)
        out = self._cid_of_initial(uniq)
        missing = np.nonzero(out < 0)[0]
        if len(missing):
            # One Python list of keys and one dict pass (no numpy scalar per key): at 24 million
            # records this loop met 3.5 million keys (issue 18). New classes get ids in key order.
            later = self._later
            keys_missing = uniq[missing].tolist()
            found = [later.get(key, -1) for key in keys_missing]
            new = [key for key, c in zip(keys_missing, found, strict=True) if c < 0]
            if new:
                start = self.n_classes
                later.update(zip(new, range(start, start + len(new)), strict=True))
                self.n_classes += len(new)
                while self.n_classes > len(self.size):
                    self.size = np.concatenate([self.size, np.zeros(len(self.size), np.int64)])
                found = [later[key] for key in keys_missing]
            out[missing] = found
        return out[inverse.reshape(-1)]

    def suppress(self, rows: np.ndarray, pos: int, code: int) -> None:
        """Suppress column ``cols[pos]`` (currently ``code``) in pattern ``rows``."""
        counts = self.table.counts[rows]
        np.subtract.at(self.size, self.cid[rows], counts)
        new_keys = self.keys[rows] - (code + 1) * self.mults[pos]
        new_cid = self._cid_of(new_keys)
        np.add.at(self.size, new_cid, counts)
        if self.dists is not None:
            self.dists.move(rows, self.cid[rows], new_cid, self.table.counts)
        self.keys[rows] = new_keys
        self.cid[rows] = new_cid
        self.table.codes[rows, self.cols[pos]] = SUPPRESSED

    def mole_rows(self, k: int) -> np.ndarray:
        if self.dists is None:
            return np.nonzero(self.size[self.cid] < k)[0]
        return np.nonzero(self.small(self.cid, k))[0]


def count_moles(table: PatternTable, cols: Sequence[int], k: int) -> tuple[int, int]:
    """M_b: the number of classes smaller than k, and the records in them."""
    keys, _mults, _fits = _class_keys(table, np.asarray(cols))
    sizes = group_totals(keys, table.counts)
    small = sizes[(sizes > 0) & (sizes < k)]
    return len(small), int(small.sum())


def phase1(table: PatternTable, cols: Sequence[int], k: int) -> int:
    """Phase 1: suppress, in every record, each value whose support is below k.

    Returns the number of record cells suppressed.
    """
    cells = 0
    for j in cols:
        col = table.codes[:, j]
        ok = col != SUPPRESSED
        support = np.bincount(col[ok], weights=table.counts[ok], minlength=len(table.labels[j]))
        rare = (support > 0) & (support < k)
        if rare.any():
            hit = ok & rare[np.where(ok, col, 0)]
            cells += int(table.counts[hit].sum())
            table.codes[hit, j] = SUPPRESSED
    return cells


def value_visits(
    codes: np.ndarray, counts: np.ndarray, labels: Sequence[np.ndarray], cols: np.ndarray,
    weights: np.ndarray, moles: np.ndarray, support_rows: np.ndarray | None = None,
) -> tuple[list[tuple[float, int, str, int]], list[dict[int, np.ndarray]]]:
    """Step 2.5's order: the values the ``moles`` rows show on ``cols``, as (wsup, position in
    ``cols``, label, code) sorted by weighted support wsup = sup x w (support over
    ``support_rows``, every row when None), then position and label; and per position the mole
    rows holding each code."""
    entries: list[tuple[float, int, str, int]] = []
    rows_by_value: list[dict[int, np.ndarray]] = []
    for pos, j in enumerate(cols):
        col = codes[:, j] if support_rows is None else codes[support_rows, j]
        w = counts if support_rows is None else counts[support_rows]
        ok = col != SUPPRESSED
        support = np.bincount(col[ok], weights=w[ok], minlength=len(labels[j]))
        mcodes = codes[moles, j]
        present = mcodes != SUPPRESSED
        rows_sorted = moles[present][np.argsort(mcodes[present], kind="stable")]
        codes_sorted = codes[rows_sorted, j]
        if len(codes_sorted) == 0:
            rows_by_value.append({})
            continue
        uniq, starts = np.unique(codes_sorted, return_index=True)
        ends = np.append(starts[1:], len(codes_sorted))
        rows_by_value.append(
            {int(c): rows_sorted[s:e] for c, s, e in zip(uniq, starts, ends, strict=True)}
        )
        for c in uniq.tolist():
            entries.append((float(support[c]) * float(weights[pos]), pos, str(labels[j][c]), c))
    entries.sort(key=lambda e: (e[0], e[1], e[2]))
    return entries, rows_by_value


def _phase2_combination(
    table: PatternTable, cols: np.ndarray, weights: np.ndarray, k: int,
    remedy: Remedy | None = None,
) -> tuple[int, int, int]:
    """Phase 2 for one combination, then growth of its fully suppressed class.

    With ``remedy`` (``attribute_disclosure.remedy: suppress``, :mod:`dbt_deid.attribute_remedy`)
    a class failing an attribute-disclosure model is a mole too, and the fully suppressed class
    is then grown by whole classes until it passes (:func:`_grow_for_remedy`).

    Returns (cells suppressed in phase 2, records moved into the fully suppressed class, cells
    suppressed by that growth).
    """
    idx = _ClassIndex(table, cols, spare=0)
    if remedy is not None:
        idx.attach(remedy)
    moles = idx.mole_rows(k)
    if len(moles) == 0:
        return 0, 0, 0
    idx.size = np.concatenate([idx.size, np.zeros(len(moles) * len(cols), np.int64)])
    counts = table.counts
    entries, rows_by_value = value_visits(table.codes, counts, table.labels, cols, weights,
                                          moles)

    cells = 0
    for _wsup, pos, _label, code in entries:
        rows = rows_by_value[pos][code]
        small = idx.small(idx.cid[rows], k)
        if not small.any():
            continue
        sel = rows[small]
        cells += int(counts[sel].sum())
        idx.suppress(sel, pos, code)

    moved, growth_cells = _grow_fully_suppressed(table, idx, k)
    if remedy is not None:
        more, more_cells = _grow_for_remedy(table, cols, remedy)
        moved, growth_cells = moved + more, growth_cells + more_cells
    return cells, moved, growth_cells


def _grow_for_remedy(table: PatternTable, cols: np.ndarray, remedy: Remedy) -> tuple[int, int]:
    """Grow the fully suppressed class of a combination until it passes the attribute-disclosure
    models (``attribute_disclosure.remedy``): whole classes are moved into it (every record of a
    donor class, so no class is left smaller than k), each time the class that lowers its
    deficit (:meth:`dbt_deid.attribute_remedy.Remedy.deficit`) most per cell suppressed, then
    the lowest deficit, then the class key (stable); a class that lowers nothing is moved only
    when none does. Stops when it passes or every class is in it (the whole table then fails: the
    gates refuse). Returns (records moved, cells suppressed)."""
    idx = _ClassIndex(table, cols, spare=0)
    idx.attach(remedy)
    dists = idx.dists
    assert dists is not None
    full = idx.cid_of_key(0)
    if full is None or idx.size[full] == 0 or not dists.fails(full):
        return 0, 0
    unsup = (table.codes[:, cols] != SUPPRESSED).sum(axis=1)
    cells_of = np.zeros(idx.n_classes, dtype=np.int64)
    np.add.at(cells_of, idx.cid, unsup * table.counts)
    current = dists.dists[full]
    left = [c for c in range(idx.n_classes) if c != full and idx.size[c] > 0]
    chosen: list[int] = []
    deficit = remedy.deficit(current, dists.wholes, dists.orders)
    while deficit > 0 and left:
        scored = []
        for c in left:
            after = remedy.deficit(merged(current, dists.dists[c]), dists.wholes, dists.orders)
            gain = deficit - after
            scored.append((gain <= 0, -gain / max(int(cells_of[c]), 1), after, c))
        _, _, deficit, best = min(scored)
        current = merged(current, dists.dists[best])
        chosen.append(best)
        left.remove(best)
    if not chosen:
        return 0, 0
    hit = np.isin(idx.cid, np.array(chosen, dtype=np.int64))
    moved = int(table.counts[hit].sum())
    cells = int((unsup[hit] * table.counts[hit]).sum())
    for j in cols:
        table.codes[hit, j] = SUPPRESSED
    return moved, cells


def _grow_fully_suppressed(table: PatternTable, idx: _ClassIndex, k: int) -> tuple[int, int]:
    """Bring the class of records whose every QI of the combination is suppressed up to k.

    An adversary who knows a target's true values rules out every record that contradicts them,
    so a handful of fully suppressed records is still a small class. Records are taken, cheapest
    first (fewest unsuppressed cells in the combination, then the largest classes), from classes
    that stay at k or above. When those surpluses cannot cover the need, whole classes are taken
    first (cheapest, then smallest), just enough that the surpluses of the remaining classes
    cover the rest. Every other record can be taken, so the class always reaches k when the
    table has k records (a class emptied entirely leaves no small class behind).
    """
    full = idx.cid_of_key(0)
    if full is None:
        return 0, 0
    have = int(idx.size[full])
    if have == 0 or have >= k:
        return 0, 0
    need = k - have
    n_cls = idx.n_classes
    sizes = idx.size[:n_cls]
    unsup = (table.codes[:, idx.cols] != SUPPRESSED).sum(axis=1)
    cost = np.zeros(n_cls, dtype=np.int64)
    cost[idx.cid] = unsup  # every pattern of a class has the same cells in the combination
    classes = np.arange(n_cls)
    others = classes[(sizes > 0) & (classes != full)]
    surplus = np.maximum(sizes - k, 0)
    available = int(surplus[others].sum())
    whole: list[int] = []
    if available < need:
        for c in others[np.lexsort((others, sizes[others], cost[others]))].tolist():
            whole.append(c)
            need -= int(sizes[c])
            available -= int(surplus[c])
            if need <= available:
                break
    if need > available:
        raise DataError(
            f"only {table.n_records} records: a combination cannot reach k = {k} even with every"
            " record fully suppressed"
        )
    order_rows = np.argsort(idx.cid, kind="stable")
    bounds = np.searchsorted(idx.cid[order_rows], np.arange(n_cls + 1))
    takes_rows: list[int] = []
    takes_n: list[int] = []

    def take_from(c: int, amount: int) -> int:
        got = 0
        for r in order_rows[bounds[c] : bounds[c + 1]].tolist():
            if got == amount:
                break
            t = min(int(table.counts[r]), amount - got)
            if t > 0:
                takes_rows.append(r)
                takes_n.append(t)
                got += t
        return got

    for c in whole:
        take_from(c, int(sizes[c]))
    if need > 0:
        taken = set(whole)
        donors = np.array([c for c in others.tolist() if surplus[c] > 0 and c not in taken],
                          dtype=np.int64)
        for c in donors[np.lexsort((donors, -sizes[donors], cost[donors]))].tolist():
            need -= take_from(c, min(need, int(surplus[c])))
            if need <= 0:
                break
    rows = np.array(takes_rows, dtype=np.int64)
    amounts = np.array(takes_n, dtype=np.int64)
    growth_cells = int((unsup[rows] * amounts).sum())
    new_rows = table.split(rows, amounts)
    for j in idx.cols:
        table.codes[new_rows, j] = SUPPRESSED
    return int(amounts.sum()), growth_cells


def carried_columns(
    combinations: Sequence[Sequence[str]], columns: Sequence[str] = (),
    propagation: Sequence[tuple[str, str]] = (), verify_combinations: Sequence[Sequence[str]] = (),
) -> list[str]:
    """The columns :func:`run_suppression` encodes from a pattern frame, in its order: the
    combinations' columns, then ``columns``, the propagation pairs and the verified
    combinations (first occurrence kept). A caller encoding the table itself
    (:meth:`PatternTable.from_frame`) with these columns gets the table the run would build."""
    used = [col for c in combinations for col in c]
    return list(dict.fromkeys(
        [*used, *columns, *(c for pair in propagation for c in pair),
         *(c for b in verify_combinations for c in b)]
    ))


def _key_ranks(frame: pd.DataFrame, record_key: str | None) -> np.ndarray | None:
    """Rank of each row's ``record_key`` value (compared as text; a missing key is an error)."""
    if record_key is None:
        return None
    if record_key not in frame.columns:
        raise ConfigError(
            f"record_key names unknown column {record_key!r}; columns are {list(frame.columns)}"
        )
    values = frame[record_key]
    if values.isna().any():
        raise DataError(f"record key column {record_key!r} has {int(values.isna().sum())}"
                        " missing value(s)")
    _, ranks = np.unique(np.array([str(v) for v in values], dtype=object), return_inverse=True)
    return ranks.reshape(-1).astype(np.int64)


def run_suppression(
    patterns: pd.DataFrame | PatternTable,
    k: int,
    combinations: Sequence[Sequence[str]],
    weights: Mapping[str, float] | None = None,
    *,
    algorithm: str = "combinations",
    count_column: str | None = "n",
    logger: Logger | None = None,
    propagation: Sequence[tuple[str, str]] = (),
    columns: Sequence[str] = (),
    verify_combinations: Sequence[Sequence[str]] = (),
    families: Sequence[Family] = (),
    record_key: str | None = None,
    remedy: Remedy | None = None,
) -> SuppressionResult:
    """Run the combinations (or complete) suppression algorithm, or ``mask_cover``
    (:mod:`dbt_deid.mask_cover`: another step per combination, no phase 1).

    ``patterns`` is the pattern table (QI columns plus a count column; ``count_column=None``
    for one row per record). ``propagation`` pairs (source, target) suppress ``target`` in a
    record whenever ``source`` is suppressed (hierarchical QIs, :mod:`dbt_deid.families`); they
    are applied after every pass and the passes repeat until no combination has a class smaller
    than k. ``columns`` are further QIs carried in the result (e.g. released levels that are
    only suppressed by propagation). Returns the suppressed table; the input is not modified.

    Ties are broken by stable keys, never by the order of the rows: values are visited in label
    order, and the records of one pattern are taken (e.g. into the fully suppressed class) in
    the order of ``record_key``, a column of ``patterns`` (a record id, or any key that is
    the same in every run; compared as text), then of their counts. Rows equal in all of these
    are interchangeable, so the published multiset never depends on the row order.

    ``remedy`` (:mod:`dbt_deid.attribute_remedy`, ``attribute_disclosure.remedy: suppress``):
    classes of ``remedy.combinations`` (the verified combinations; ``combinations`` when empty)
    that fail an attribute-disclosure model on the sensitive columns ``remedy.columns`` (columns
    of ``patterns``, carried, never suppressed) are moles too; the passes repeat until every
    class passes, or stop when a pass suppresses no cell (the gates then refuse). None (the
    default) runs seed 000's algorithm unchanged.
    """
    log = logger or get_logger()
    if not isinstance(k, int) or isinstance(k, bool) or k < 2:
        raise ConfigError(f"k must be an integer >= 2, got {k!r}")
    if algorithm not in ("combinations", "complete", "mask_cover"):
        raise ConfigError(
            f"algorithm must be combinations, complete or mask_cover, got {algorithm!r}"
        )
    combos = [tuple(c) for c in combinations]
    if not combos or any(len(c) == 0 for c in combos):
        raise ConfigError("combinations must be a non-empty list of non-empty column lists")
    used = list(dict.fromkeys(col for c in combos for col in c))
    if count_column is not None and count_column in used:
        raise ConfigError(f"combination column {count_column!r} is the count column of the"
                          " pattern table")
    if algorithm == "complete":
        combos = [tuple(used)]
    if remedy is not None and algorithm == "mask_cover":
        raise ConfigError("attribute_disclosure.remedy: suppress works with algorithm"
                          " combinations or complete, not mask_cover")
    ad_combos = ([tuple(b) for b in remedy.combinations] or combos) if remedy else []
    carried = carried_columns(combos, [*columns, *(remedy.columns if remedy else ())],
                              propagation, [*verify_combinations, *ad_combos])
    if isinstance(patterns, PatternTable):
        if record_key is not None:
            raise ConfigError("record_key needs a frame; a PatternTable is already ordered")
        source = patterns
    else:
        unknown = [c for c in carried if c not in patterns.columns]
        if unknown:
            raise ConfigError(
                f"combination names unknown column(s) {unknown};"
                f" columns are {list(patterns.columns)}"
            )
        source = PatternTable.from_frame(
            patterns, carried, count_column, _key_ranks(patterns, record_key)
        )
    weights = dict(weights or {})
    known = set(source.columns) if isinstance(patterns, PatternTable) else set(patterns.columns)
    for col, w in weights.items():
        if col not in known:
            raise ConfigError(f"weight given for unknown column {col!r}")
        if not isinstance(w, (int, float)) or not 0 <= w <= 1:
            raise ConfigError(f"weight of {col!r} must be in [0, 1], got {w!r}")
    if source.n_records < k:
        raise DataError(f"the data has {source.n_records} records, fewer than k = {k}")

    check_total_orders(source, families)
    table = source.copy()
    stats = SuppressionStats()
    col_idx = {c: table.col(c) for c in used}
    t0 = time.perf_counter()
    step = _phase2_combination
    if algorithm == "mask_cover":  # dbt_deid.mask_cover: no phase 1, another step
        from dbt_deid.mask_cover import mask_cover_step

        step = partial(mask_cover_step, propagation=propagation, column_weights=weights,
                       grow=lambda t, c, kk: _grow_fully_suppressed(t, _ClassIndex(t, c, 0), kk))
    else:
        stats.phase1_cells = phase1(table, [col_idx[c] for c in used], k)
    stats.phase1_seconds = time.perf_counter() - t0
    log.info(
        f"dbt_deid: phase 1 suppressed {stats.phase1_cells} cells in {len(used)} QIs"
        f" (k = {k}, {len(table.counts)} patterns, {table.n_records} records)"
    )
    t1 = time.perf_counter()
    gated = remedy
    if remedy is not None:
        stats.remedy = "suppress"
        col_idx.update({c: table.col(c) for b in ad_combos for c in b})
        if _failing(table, [], remedy):
            # One class of every record fails: no suppression can make the release pass.
            log.info("dbt_deid: attribute_disclosure.remedy: the whole table fails an"
                     " attribute-disclosure model, so no suppression can make every class"
                     " pass; suppressing for k only (the gates refuse the release)")
            remedy, ad_combos = None, []
    work = combos + [b for b in ad_combos if b not in combos]
    before = -1
    while True:
        stats.propagated_cells += propagate(table, propagation)
        moles = [((count_moles(table, [col_idx[c] for c in b], k)[0] if b in combos else 0)
                  + (_failing(table, [col_idx[c] for c in b], remedy) if b in ad_combos
                     else 0), i, b)
                 for i, b in enumerate(work)]
        todo = sorted((m for m in moles if m[0] > 0), key=lambda m: (-m[0], m[1]))
        if not todo:
            break
        if remedy is not None:
            if stats.passes and _suppressed_cells(table) == before:
                # nothing left to suppress for it: the remaining classes fail as a whole table
                log.info(f"dbt_deid: attribute_disclosure.remedy: stopped after pass"
                         f" {stats.passes}: {sum(m[0] for m in todo)} class(es) still fail"
                         " (the gates refuse the release)")
                break
            before = _suppressed_cells(table)
        stats.passes += 1
        if stats.passes > MAX_PASSES:  # pragma: no cover - each pass suppresses at least a cell
            raise DataError("suppression did not converge")
        for n_moles, _i, b in todo:
            if stats.passes == 1:
                stats.combination_order.append(b)
            cols = np.array([col_idx[c] for c in b])
            w = np.array([float(weights.get(c, 1.0)) for c in b])
            if remedy is not None and b in ad_combos:
                cells, moved, gcells = _phase2_combination(table, cols, w, k, remedy)
            else:
                cells, moved, gcells = step(table, cols, w, k)
            stats.phase2_cells += cells
            stats.growth_records += moved
            stats.growth_cells += gcells
            log.info(
                f"dbt_deid: pass {stats.passes}, combination {'+'.join(b)}: {n_moles} moles,"
                f" {cells} cells suppressed, {moved} records moved to the fully suppressed class"
            )
    stats.phase2_seconds = time.perf_counter() - t1
    if gated is not None:
        stats.remedy_failing_classes = sum(
            _failing(table, [col_idx[c] for c in b], gated)
            for b in ([tuple(b) for b in gated.combinations] or combos))
    checks = [tuple(b) for b in verify_combinations] or combos
    return SuppressionResult(table, source, k, combos, stats, list(dict.fromkeys(checks)))


def _failing(table: PatternTable, cols: Sequence[int], remedy: Remedy | None) -> int:
    """The classes of ``cols`` (suppressed cells their own category) failing the remedy."""
    if remedy is None:
        return 0
    keys, _mults, _fits = _class_keys(table, np.asarray(cols, dtype=np.int64))
    sens = [table.col(c) for c in remedy.columns]
    return failing_classes_count(remedy, table.codes[:, sens], table.counts, keys,
                                 [table.labels[j] for j in sens])


def _suppressed_cells(table: PatternTable) -> int:
    """Record cells suppressed so far (every column)."""
    return int(((table.codes == SUPPRESSED) * table.counts[:, None]).sum())


def verify_result(result: SuppressionResult) -> list:
    """:func:`dbt_deid.verify.check_release` on a result (true = input values), on the codes
    (the result and its input share labels, so equal codes are equal values)."""
    from dbt_deid.verify import check_coded

    table = result.table
    truth = result.true_codes()
    cards = [len(lab) for lab in table.labels]
    combos = result.verify_combinations or result.combinations
    return check_coded(
        truth, table.codes.astype(np.int64), cards, table.columns, combos, result.k,
        table.counts.astype(np.int64),
    )
