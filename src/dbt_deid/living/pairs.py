"""The refresh's input: one pattern table pairing the store's records with the current ones.

The warehouse joins, by record identity, the latest state of every record in the per-record
store (its true values at the line's levels and the finest cell any version revealed) to the
current records generalized at the same levels, and groups the result (a full outer join, then
one ``GROUP BY``). Per quasi-identifier ``q`` the frame has three columns:

* ``q``: the current true value; null when the record is not in the current table;
* ``q__earlier``: the true value the store holds (the record's latest published state); null
  when the record was never published;
* ``q__published``: the record's cell in the previous version (null = suppressed), where the
  refresh starts from so that unchanged rows stay the same; for a record not in the previous
  version (an earlier state, a deleted record), its ``q__revealed``;
* ``q__revealed``: the finest cell any earlier version revealed of that state (the combined
  view's cell: null when suppressed in every version or never published);

and a count column. Earlier states of records that changed in an earlier refresh, and deleted
records, come as rows without current values: they stay in the combined view.

An optional column ``deid_history`` (:data:`HISTORY`; the warehouse always gives it) tells, on a
current record's row, which stored releases of the line hold the record: one character per
release (the line's release ids, sorted), ``1`` when it holds the record's latest state, ``2``
another state, ``3`` another state in a release at other levels than this version (no target
of the guard; the gate's SQL compares it with the current state at the finer of the two
levels, with another stored state at the coarser: review 12b H1, review 12 final L1; review 11
final, L1),
``0`` not the record (null on other rows). The linked guard
(:mod:`dbt_deid.living.linked`) reads it: a record counts for a changed record only if it is held,
in its latest state, in every release that holds the changed record (review 10 final, H1). A
frame without the column is read as one stored release.

Optional columns (the warehouse gives them with ``deid_history``; review 11 final, M1) carry,
per stored release ``i`` (1-based, in the order of ``deid_history``'s characters) and QI ``q``,
what the gate's linked check reads per release (:func:`history_detail_columns`):
``q__was<i>_min``/``_max``, the record's true value in release ``i`` where that release holds it
in another state than its latest (null otherwise: held in its latest state, the value is
``q__earlier``), and ``q__own<i>_min``/``_max``, the record's own cell in release ``i`` (null:
suppressed, or not held). They are not part of the pairs' key: each is the smallest and the
largest value over the records of the row (nulls left out), so a row whose records differ there
reads as the least consistent of them (:mod:`dbt_deid.living.linked`). A frame without them
reads as before: a record held by some release in an older state gets no other record counted.

The same detail comes in **long form** past a few stored releases (the warehouse chooses:
refresh_line.sql's ``_refresh_pairs_long``, 4 x QIs x releases columns above 400; session 16):
per QI ``q`` (:func:`detail_row_columns`) ``q__was_min``/``_max`` and ``q__own_min``/``_max``
on **detail rows**, which repeat their pairs row's key (the pair columns and ``deid_history``),
have ``n`` = 0 and :data:`DETAIL` (null on the pairs rows themselves), one character per
release, ``1`` for the releases these values are of. A release that holds none of the row's
records is in no detail row (all null). The table's width then does not grow with the number of
stored releases (PostgreSQL refuses more than 1,600 columns: the wide form, four columns per QI
and release, reached it near 49 versions of a line of 8 QIs), nor its rows much (a record kept
night after night shows the same cells: one detail row). Both forms read into the same arrays.

A missing original value is data (the missing label, a string), so a null true value only ever
means "absent".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np
import pandas as pd

from dbt_deid.coded import row_keys
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.patterns import COUNT_COLUMN, SUPPRESSED, record_counts

EARLIER = "__earlier"
PUBLISHED = "__published"
REVEALED = "__revealed"
SUFFIXES = (EARLIER, PUBLISHED, REVEALED)
HISTORY = "deid_history"
WAS = "__was"
OWN = "__own"
#: the releases of a detail row (long form), one character per release (null on the pairs
#: rows): module docstring
DETAIL = "deid_detail_releases"
#: a pairs row whose records differ in a detail cell (``_min`` != ``_max``, both shown): equal
#: to no true value (fail closed: the row counts only where all its records would)
CONFLICT = -2


def history_detail_columns(columns: Sequence[str], releases: int) -> list[str]:
    """The optional per-release columns (module docstring) for QIs ``columns`` and ``releases``
    stored releases: per release, per QI, ``was`` min and max, then ``own`` min and max."""
    return [f"{q}{what}{i}_{end}" for i in range(1, releases + 1) for q in columns
            for what in (WAS, OWN) for end in ("min", "max")]


def detail_row_columns(columns: Sequence[str]) -> list[str]:
    """The long form's detail rows' value columns (module docstring) for QIs ``columns``: per
    QI, ``was`` min and max, then ``own`` min and max (one set, whatever the number of
    releases)."""
    return [f"{q}{what}_{end}" for q in columns for what in (WAS, OWN) for end in ("min", "max")]


class Status(IntEnum):
    """What happened to a record between the store and the current table."""

    KEPT = 0  # published before, in the current table with the same true values
    CHANGED = 1  # published before, in the current table with other true values
    NEW = 2  # not published before
    GONE = 3  # published before, not in the current table (deleted, or an earlier state)


@dataclass
class RefreshInput:
    """The pairs, integer-coded (codes follow the sorted labels; -1 = suppressed or absent).

    Row ``i`` stands for ``counts[i]`` records and is row ``origin[i]`` of the input frame.
    ``current`` holds the current true values (rows of GONE records: -1), ``earlier`` the
    stored true values (rows of NEW records: -1), ``published`` the previous version's cells
    and ``revealed`` the earlier combined cells. ``history`` codes each row's ``deid_history``
    (an index into ``history_labels``; -1 = null), ``has_history`` tells whether the frame had
    the column (then it is part of the map's key).
    """

    columns: list[str]
    labels: list[np.ndarray]
    current: np.ndarray
    earlier: np.ndarray
    published: np.ndarray
    revealed: np.ndarray
    counts: np.ndarray
    status: np.ndarray
    origin: np.ndarray
    history: np.ndarray
    history_labels: list[str]
    has_history: bool = False
    #: per row, stored release and QI (rows x releases x QIs; -1 = null, CONFLICT = the row's
    #: records differ): the true value where the release holds another state, and the row's own
    #: cell there (:func:`history_detail_columns`); None when the frame has no such columns.
    #: Codes are ``labels``'s, extended past them for values no other column holds.
    was: np.ndarray | None = None
    own: np.ndarray | None = None

    def records(self, status: Status) -> int:
        return int(self.counts[self.status == status].sum())


def pair_columns(columns: Sequence[str]) -> list[str]:
    """The frame's columns for the QIs ``columns``: the QIs, then their earlier, published and
    revealed columns (in that order)."""
    out = list(columns) + [c + s for s in SUFFIXES for c in columns]
    clash = sorted(set(columns) & {c + s for c in columns for s in SUFFIXES})
    if clash or len(set(out)) != len(out):
        raise ConfigError(f"quasi-identifier column(s) {clash} have the name of a column the"
                          " refresh reads for another QI; rename them")
    return out


def _encode(frame: pd.DataFrame, q: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """Shared label codes (sorted labels, -1 = null) of ``q`` and its earlier, published and
    revealed columns: each column hashed once (``pd.factorize``: Arrow's dictionary encoding on
    the warehouse's Arrow text), then only its distinct values are turned into text."""
    vocab: dict[str, int] = {}
    ids: list[np.ndarray] = []
    for name in (q, *(q + s for s in SUFFIXES)):
        codes, uniq = pd.factorize(frame[name], use_na_sentinel=True)
        local = np.array([vocab.setdefault(str(v), len(vocab)) for v in uniq] + [-1],
                         dtype=np.int64)
        ids.append(local[codes])  # code -1 (null) indexes the appended -1
    labels = np.array(sorted(vocab), dtype=object)
    rank = np.empty(len(vocab) + 1, dtype=np.int32)
    rank[[vocab[t] for t in labels]] = np.arange(len(labels), dtype=np.int32)
    rank[-1] = SUPPRESSED  # id -1 (null) indexes the last entry
    return labels, [rank[i] for i in ids]


def _presence(codes: np.ndarray, columns: Sequence[str], what: str) -> np.ndarray:
    """Rows where every column holds a value; a row with only some is an error."""
    have = codes != SUPPRESSED
    some = have.any(axis=1) & ~have.all(axis=1)
    if some.any():
        row = int(np.flatnonzero(some)[0])
        missing = [c for c, h in zip(columns, have[row], strict=True) if not h]
        raise DataError(f"refresh pairs: {int(some.sum())} row(s) hold {what} for some"
                        f" quasi-identifiers only (first: none for {missing}); a true value is"
                        " never null (a missing original value is the missing label)")
    return have.all(axis=1)


def read_pairs(
    frame: pd.DataFrame, columns: Sequence[str], count_column: str | None = COUNT_COLUMN
) -> RefreshInput:
    """Encode and validate the pairs frame (see the module docstring) for QIs ``columns``."""
    cols = list(columns)
    if not cols:
        raise ConfigError("the refresh needs at least one quasi-identifier")
    missing = [c for c in pair_columns(cols) if c not in frame.columns]
    if missing:
        raise DataError(f"refresh pairs have no column(s) {missing}")
    whole, detail, is_detail = frame, None, np.zeros(len(frame), dtype=bool)
    if DETAIL in frame.columns:  # long form: the detail rows (module docstring) apart
        is_detail = frame[DETAIL].notna().to_numpy(dtype=bool)
        detail = frame[is_detail]
        frame = frame[~is_detail].reset_index(drop=True)
    if len(frame) == 0:
        raise DataError("refresh pairs are empty: neither the store nor the source has records")
    counts = record_counts(frame, count_column, "refresh pairs")
    labels: list[np.ndarray] = []
    coded: list[list[np.ndarray]] = [[], [], [], []]
    for q in cols:  # long form: the detail rows' keys coded with the pairs rows' (one pass)
        lab, parts = _encode(whole, q)
        labels.append(lab)
        for store, part in zip(coded, parts, strict=True):
            store.append(part)
    every = np.column_stack([np.column_stack(a) for a in coded])  # all rows, the 4 parts
    current, earlier, published, revealed = (np.column_stack(a)[~is_detail] for a in coded)
    in_current = _presence(current, cols, "current values")
    in_store = _presence(earlier, cols, "stored true values")
    if (~in_current & ~in_store).any():
        raise DataError("refresh pairs: a row has neither current nor stored true values:"
                        " a record of the per-record store had its true values blanked (an"
                        " edit by hand, e.g. to honour an erasure), so the store is"
                        " inconsistent; restore the store from a backup, or start the line"
                        " over with the setting `restart: {reason: '...'}` (audited)")
    for cells, what in ((published, PUBLISHED), (revealed, REVEALED)):
        wrong = (cells != SUPPRESSED) & (cells != earlier)
        if wrong.any():
            bad = [cols[j] + what for j in np.flatnonzero(wrong.any(axis=0))]
            raise DataError(f"refresh pairs: a cell of {bad} is not the stored true value (or"
                            " the record was never published): the store is inconsistent")
    if ((published != SUPPRESSED) & (revealed == SUPPRESSED)).any():
        raise DataError("refresh pairs: a previous version's cell is not among the revealed"
                        " cells: the store is inconsistent")
    has_history = HISTORY in frame.columns
    if has_history:
        codes, uniq = pd.factorize(frame[HISTORY], use_na_sentinel=True)
        history_labels = [str(v) for v in uniq]
        history = codes.astype(np.int64)
        bad = [h for h in history_labels if set(h) - {"0", "1", "2", "3"}]
        if bad or len({len(h) for h in history_labels}) > 1:
            raise DataError(f"refresh pairs: {HISTORY} holds {len(bad)} value(s) other than"
                            " one character 0, 1, 2 or 3 per release, or values of different"
                            " lengths: the store is inconsistent")
        if (in_store & in_current & (history < 0)).any():
            raise DataError(f"refresh pairs: a stored current record has no {HISTORY}")
    else:  # one stored release: every stored record held there in its latest state
        history_labels = [""]
        history = np.where(in_store & in_current, 0, -1).astype(np.int64)
    status = np.full(len(frame), Status.KEPT, dtype=np.int8)
    status[in_current & in_store & (current != earlier).any(axis=1)] = Status.CHANGED
    status[~in_store] = Status.NEW
    status[~in_current] = Status.GONE
    # Rows in a canonical order (status, then label order), whatever order the warehouse
    # returned them in: ties are broken by these keys, never by row order.
    cards = [len(lab) for lab in labels]
    keys = [row_keys(part, cards) for part in (revealed, published, earlier, current)]
    rank = np.argsort(np.argsort(np.array(history_labels, dtype=object), kind="stable"))
    hist_key = np.append(rank, -1)[history]  # -1 (null) indexes the appended -1
    order = np.lexsort((counts, hist_key, *keys, status))
    releases = max((len(h) for h in history_labels), default=0) if has_history else 0
    if detail is None:
        was, own = _read_detail(frame, cols, labels, releases)
    else:
        was, own = _read_detail_rows(detail, cols, labels, releases, history, history_labels,
                                     (every, is_detail))
    return RefreshInput(
        cols, labels, current[order], earlier[order], published[order], revealed[order],
        counts[order], status[order], order.astype(np.int64), history[order],
        history_labels, has_history,
        None if was is None else was[order], None if own is None else own[order],
    )


def _read_detail(frame: pd.DataFrame, cols: list[str], labels: list[np.ndarray], releases: int
                 ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The per-release detail (:func:`history_detail_columns`) coded with ``labels`` (values
    outside them get codes past them, per QI), or (None, None) when the frame has none of its
    columns or no history (no current record was stored: no target); some but not all of
    them is an error."""
    names = history_detail_columns(cols, releases)
    present = [c for c in frame.columns if any(
        str(c).startswith(q + w) for q in cols for w in (WAS, OWN))]
    if not releases or not present:
        # no detail, or no current record stored before (every history null): no target
        return None, None
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise DataError(f"refresh pairs: {len(missing)} per-release column(s) missing (first:"
                        f" {missing[0]}) for {releases} stored release(s): the store is"
                        " inconsistent")
    out = {w: np.full((len(frame), releases, len(cols)), SUPPRESSED, dtype=np.int64)
           for w in (WAS, OWN)}
    for j, q in enumerate(cols):
        vocab = {str(v): i for i, v in enumerate(labels[j])}
        for i in range(1, releases + 1):
            for w in (WAS, OWN):
                ends = []
                for end in ("min", "max"):
                    codes, uniq = pd.factorize(frame[f"{q}{w}{i}_{end}"], use_na_sentinel=True)
                    local = np.array([vocab.setdefault(str(v), len(vocab)) for v in uniq]
                                     + [SUPPRESSED], dtype=np.int64)
                    ends.append(local[codes])
                lo, hi = ends
                if ((lo == SUPPRESSED) != (hi == SUPPRESSED)).any():
                    raise DataError(f"refresh pairs: {q}{w}{i}_min and _max are null on"
                                    " different rows: the store is inconsistent")
                out[w][:, i - 1, j] = np.where(lo == hi, lo, CONFLICT)
    return out[WAS], out[OWN]


def _read_detail_rows(detail: pd.DataFrame, cols: list[str], labels: list[np.ndarray],
                      releases: int, history: np.ndarray, history_labels: list[str],
                      coded: tuple[np.ndarray, np.ndarray]
                      ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The long form's per-release detail (module docstring) as (rows x releases x QIs)
    arrays of the pairs rows (in the frame's order; ``history`` their history codes), coded
    with ``labels`` (values outside them get codes past them, per QI), or (None, None) when
    there is no history (no current record was stored: no target). ``coded``:
    the four parts' codes of every row of the frame, pairs and detail rows, and which rows are
    detail rows. A detail row that matches no pairs row, or that repeats a release of its pairs
    row, is an error."""
    if not releases:  # no current record stored before (every history null): no target
        return None, None
    names = detail_row_columns(cols)
    missing = [c for c in names if c not in detail.columns]
    if missing:
        raise DataError(f"refresh pairs: {len(missing)} per-release column(s) missing (first:"
                        f" {missing[0]}): the store is inconsistent")
    out = {w: np.full((len(history), releases, len(cols)), SUPPRESSED, dtype=np.int64)
           for w in (WAS, OWN)}
    if len(detail) == 0:
        return out[WAS], out[OWN]
    every, is_detail = coded
    codes, uniq = pd.factorize(detail[HISTORY], use_na_sentinel=True)
    local = np.append(pd.Index(history_labels).get_indexer([str(v) for v in uniq]), -1)
    hist = np.empty(len(every), dtype=np.int64)
    hist[~is_detail], hist[is_detail] = history, local[codes]
    key = row_keys(np.column_stack([every, hist]),
                   [len(lab) for lab in labels] * 4
                   + [len(history_labels)])
    index = pd.Index(key[~is_detail])
    if not index.is_unique:
        raise DataError("refresh pairs: two pairs rows have the same key, so their detail rows"
                        " cannot be told apart: the store is inconsistent")
    row = index.get_indexer(key[is_detail])
    row[(local[codes] < 0)] = -1  # a history no pairs row has
    masks = detail[DETAIL].astype(str)
    joined = "".join(masks.tolist())
    chars = np.frombuffer(joined.encode("utf-8"), dtype="S1")
    if ((row < 0).any() or len(chars) != len(masks) * releases
            or (masks.str.len() != releases).any() or not np.isin(chars, [b"0", b"1"]).all()):
        raise DataError(f"refresh pairs: a detail row matches no pairs row, or its {DETAIL} is"
                        f" not one character 0 or 1 per stored release ({releases}): the store"
                        " is inconsistent")
    # detail row, release (0-based) of each value
    at, release = np.nonzero(chars.reshape(len(masks), releases) == b"1")
    if len(np.unique(row[at] * releases + release)) != len(at):
        raise DataError("refresh pairs: a pairs row has two detail rows for one release: the"
                        " store is inconsistent")
    for j, q in enumerate(cols):
        vocab = {str(v): i for i, v in enumerate(labels[j])}
        for w in (WAS, OWN):
            ends = []
            for end in ("min", "max"):
                codes, uniq = pd.factorize(detail[f"{q}{w}_{end}"], use_na_sentinel=True)
                local = np.array([vocab.setdefault(str(v), len(vocab)) for v in uniq]
                                 + [SUPPRESSED], dtype=np.int64)
                ends.append(local[codes])
            lo, hi = ends
            if ((lo == SUPPRESSED) != (hi == SUPPRESSED)).any():
                raise DataError(f"refresh pairs: {q}{w}_min and _max are null on different"
                                " detail rows: the store is inconsistent")
            out[w][row[at], release, j] = np.where(lo == hi, lo, CONFLICT)[at]
    return out[WAS], out[OWN]
