"""A release line simulated record by record in pandas, for tests and ``bench/``.

It plays the warehouse's part of a refresh (``docs/living-release.md``): the per-record store
(one row per record and published version: its true values at the line's levels and its
published cells), the pairs frame the refresh reads (a full outer join of the store's latest
state per record with the current records, grouped), and the join of the suppression map back
onto the records (records of one pattern numbered by record id). The core
(:func:`dbt_deid.living.refresh`) only ever sees the pairs frame.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from dbt_deid.living import RefreshResult, refresh
from dbt_deid.living.pairs import (
    DETAIL,
    EARLIER,
    HISTORY,
    OWN,
    PUBLISHED,
    REVEALED,
    WAS,
    detail_row_columns,
    history_detail_columns,
    pair_columns,
)

ID = "record_id"
CELL = "__cell"
NULL_KEY = "\x00null"


@dataclass
class Line:
    """One release line: its settings and its store (all published versions)."""

    qis: list[str]
    k: int
    combinations: list[tuple[str, ...]]
    weights: Mapping[str, float] = field(default_factory=dict)
    verify: list[tuple[str, ...]] = field(default_factory=list)
    store: pd.DataFrame | None = None
    version: int = 0
    versions: list[pd.DataFrame] = field(default_factory=list)
    #: run the gate's SQL linked check (:func:`sql_linked`) before publishing a refresh
    gate: bool = True
    gate_linked: dict[str, tuple[int, int | None, int]] = field(default_factory=dict)
    #: give the refresh the pairs' per-release detail (refresh_line.sql; review 11 final, M1)
    detail: bool = True
    #: the detail in long form (detail rows, living.pairs.DETAIL), as refresh_line.sql writes
    #: it past 400 per-release columns; default: the environment's PAIRS_FORM=long (fuzz on
    #: the long form: fuzz/fuzz_refresh.py's lines are too short to reach it), else wide
    pairs_long: bool = field(default_factory=lambda: os.environ.get("PAIRS_FORM") == "long")
    #: per published refresh: combinations where the guard counted more than the gate's SQL
    #: (more records below k in the gate, or a smaller smallest set): must stay empty
    guard_over_gate: list[str] = field(default_factory=list)

    def stored(self) -> list[tuple[pd.DataFrame, pd.DataFrame]]:
        """The published versions: (record id + cells, record id + true values) each."""
        assert self.store is not None
        return [(published, self.store[self.store["version"] == i + 1][[ID, *self.qis]])
                for i, published in enumerate(self.versions)]

    def pairs(self, current: pd.DataFrame) -> pd.DataFrame:
        """The pairs frame, record by record (one row per record and per earlier state), with
        the record id: :meth:`publish` groups it."""
        q = self.qis
        cur = current[[ID, *q]].astype({c: object for c in q})
        if self.store is None:
            out = cur.copy()
            for c in q:
                for s in (EARLIER, PUBLISHED, REVEALED):
                    out[c + s] = None
            out[HISTORY] = None
            return out
        st = self.store
        state_key = st[q].astype(str).agg("\x1f".join, axis=1)
        st = st.assign(_state=state_key)
        # Per (record, state): cells revealed by any version, and the latest version.
        agg = {c + CELL: "first" for c in q}  # first non-null: the revealed cell
        agg.update({c: "first" for c in q})
        agg["version"] = "max"
        states = st.groupby([ID, "_state"], sort=False).agg(agg).reset_index()
        latest_version = states.groupby(ID)["version"].transform("max")
        states["_latest"] = states["version"] == latest_version
        last = st[st["version"] == self.version].set_index([ID, "_state"])
        prev = states.merge(last[[c + CELL for c in q]].add_suffix("_prev"), how="left",
                            left_on=[ID, "_state"], right_index=True)
        in_prev = states.set_index([ID, "_state"]).index.isin(last.index)
        earlier = pd.DataFrame({ID: states[ID], "_latest": states["_latest"]})
        for c in q:
            earlier[c + EARLIER] = states[c]
            earlier[c + REVEALED] = states[c + CELL]
            earlier[c + PUBLISHED] = np.where(in_prev, prev[c + CELL + "_prev"],
                                              states[c + CELL])
        latest = earlier[earlier["_latest"]].drop(columns="_latest")
        older = earlier[~earlier["_latest"]].drop(columns="_latest")
        latest = latest.merge(self._history(st, states), on=ID, how="left")
        latest = latest.merge(self._detail(st, states), on=ID, how="left")
        joined = cur.merge(latest, on=ID, how="outer")
        gone = ~joined[ID].isin(cur[ID])
        joined.loc[gone, HISTORY] = None  # deleted: not a current record
        joined.loc[gone, self._detail_names()] = None
        out = pd.concat([joined, older], ignore_index=True)
        cols = [ID, *pair_columns(q), HISTORY, *self._detail_names()]
        return out[cols].astype(object).where(out[cols].notna(), None)

    def _detail_rows(self, keyed: pd.DataFrame, records: pd.DataFrame, cols: list[str]
                     ) -> pd.DataFrame:
        """The pairs' detail rows, as refresh_pairs_sql writes them: per pairs row (``cols``
        of ``keyed``) and version ``i`` with a value, per QI the smallest and largest (SQL min,
        max) of its records' ``<qi>__was<i>`` and ``<qi>__own<i>``, folded over the versions
        with the same values (``DETAIL``: one character per version, ``1`` for those), ``n``
        = 0; a version holding none of its records is in no row (all null)."""
        values = detail_row_columns(self.qis)
        parts = []
        for i in range(1, self.version + 1):
            names = [f"{q}{w}{i}" for q in self.qis for w in (WAS, OWN)]
            detail = pd.concat([keyed, records[names].astype(object)], axis=1)
            agg = detail.groupby(cols, sort=False, dropna=False)[names].agg(["min", "max"])
            agg.columns = [f"{c[: -len(str(i))]}_{end}" for c, end in agg.columns]
            agg = agg[agg.notna().any(axis=1)].reset_index()
            agg["_release"] = i - 1
            parts.append(agg)
        columns = [*cols, DETAIL, *values, "n"]
        if not parts:
            return pd.DataFrame(columns=columns)
        rows = pd.concat(parts, ignore_index=True)
        rows[values] = rows[values].astype(object).where(rows[values].notna(), NULL_KEY)
        out = rows.groupby([*cols, *values], sort=False, dropna=False)["_release"].agg(
            lambda r: "".join("1" if i in set(r) else "0" for i in range(self.version)))
        out = out.rename(DETAIL).reset_index()
        out["n"] = 0
        return out.mask(out == NULL_KEY)[columns]

    def _detail_names(self) -> list[str]:
        return [f"{q}{w}{i}" for i in range(1, self.version + 1) for q in self.qis
                for w in (WAS, OWN)]

    def _detail(self, st: pd.DataFrame, states: pd.DataFrame) -> pd.DataFrame:
        """Per stored record and version ``i``, as refresh_line.sql writes them
        (:func:`dbt_deid.living.pairs.history_detail_columns`, before grouping):
        ``<qi>__was<i>``, its true value there when version ``i`` holds another state than its
        latest (else None), and ``<qi>__own<i>``, its cell there (None: suppressed or not
        held)."""
        last = states.loc[states.groupby(ID)["version"].idxmax(), [ID, "_state"]]
        rows = st.merge(last, on=ID, suffixes=("", "_last"))
        out = pd.DataFrame({ID: np.unique(st[ID].to_numpy())}).set_index(ID)
        for i in range(1, self.version + 1):
            there = rows[rows["version"] == i].set_index(ID)
            other = there[there["_state"] != there["_state_last"]]
            for q in self.qis:
                out[f"{q}{WAS}{i}"] = other[q].reindex(out.index)
                out[f"{q}{OWN}{i}"] = there[q + CELL].reindex(out.index)
        return out.reset_index()

    def _history(self, st: pd.DataFrame, states: pd.DataFrame) -> pd.DataFrame:
        """Per stored record, its ``deid_history`` (:data:`dbt_deid.living.pairs.HISTORY`):
        per version, ``1`` when it holds the record's latest state, ``2`` another state, ``0``
        not the record. Every version of a Line is at one level, so it never writes ``3`` (a
        state in a release at other levels: refresh_line.sql)."""
        last = states.loc[states.groupby(ID)["version"].idxmax(), [ID, "_state"]]
        rows = st[[ID, "version", "_state"]].merge(last, on=ID, suffixes=("", "_last"))
        ids, rec = np.unique(rows[ID].to_numpy(), return_inverse=True)
        chars = np.full((len(ids), self.version), "0", dtype="<U1")
        chars[rec, rows["version"].to_numpy(dtype=np.int64) - 1] = np.where(
            rows["_state"].to_numpy() == rows["_state_last"].to_numpy(), "1", "2")
        return pd.DataFrame({ID: ids, HISTORY: ["".join(r) for r in chars]})

    def publish(self, current: pd.DataFrame, **kwargs: object
                ) -> tuple[pd.DataFrame | None, RefreshResult]:
        """Refresh onto ``current`` (record id + QIs at the line's levels); when the result may
        be published, store it as the next version and return the published records (record
        id + cells, None = suppressed), else (None, result)."""
        records = self.pairs(current)
        cols = [*pair_columns(self.qis), HISTORY]
        keyed = records[cols].astype(object).where(records[cols].notna(), NULL_KEY)
        grouped = keyed.value_counts(sort=False, dropna=False).reset_index(name="n")
        frame = grouped.mask(grouped == NULL_KEY)  # NULL_KEY back to a null
        if self.detail and self.versions and self.pairs_long:  # detail rows (long form)
            frame = pd.concat([frame, self._detail_rows(keyed, records, cols)],
                              ignore_index=True)
            frame = frame.astype(object).where(frame.notna(), None)
        elif self.detail and self.versions:  # per row the smallest and largest (SQL min, max)
            names = self._detail_names()
            detail = pd.concat([keyed, records[names].astype(object)], axis=1)
            agg = detail.groupby(cols, sort=False, dropna=False)[names].agg(["min", "max"])
            agg.columns = [f"{c}_{end}" for c, end in agg.columns]
            frame = frame.merge(agg.reset_index().mask(lambda d: d == NULL_KEY), on=cols,
                                how="left")
            frame = frame[[*cols, "n", *history_detail_columns(self.qis, self.version)]]
            frame = frame.astype(object).where(frame.notna(), None)
        result = refresh(frame, self.k, self.combinations, self.weights,
                         verify_combinations=self.verify, **kwargs)
        # the warehouse's order: the Python map is built whatever its linked guard counted (it
        # counts no more than the gate); the gate's SQL linked check decides (combined_releases)
        if [r for r in result.refusals() if not r.startswith(LINKED_REFUSAL)]:
            return None, result
        published = self._apply(records[ID], keyed, result)
        if self.gate and self.versions:
            self.gate_linked = sql_linked(self.qis, [*self.stored(), (published, current)],
                                          list(self.verify or self.combinations), self.k)
            for check in result.linked:
                n, smallest, below = self.gate_linked.get("+".join(check.combination),
                                                          (0, None, 0))
                if below > check.records_below_k or (
                        smallest is not None and check.min_consistent is not None
                        and smallest < check.min_consistent):
                    self.guard_over_gate.append(
                        f"version {self.version + 1}: {'+'.join(check.combination)}: guard"
                        f" ({check.changed_records}, {check.min_consistent},"
                        f" {check.records_below_k}), gate ({n}, {smallest}, {below})")
            if any(below for _n, _m, below in self.gate_linked.values()):
                return None, result
        self.version += 1
        rows = current[[ID, *self.qis]].merge(published, on=ID, suffixes=("", CELL))
        rows["version"] = self.version
        self.store = pd.concat([self.store, rows], ignore_index=True)
        self.versions.append(published)
        return published, result

    def _apply(self, ids: pd.Series, keyed: pd.DataFrame, result: RefreshResult
               ) -> pd.DataFrame:
        """Join the map onto the current records: a record's rank within its pattern (by record
        id) picks its variant."""
        cols = [*pair_columns(self.qis), HISTORY]
        mapping = result.suppression_map(only_suppressed=False)
        mapping[cols] = mapping[cols].astype(object).where(mapping[cols].notna(), NULL_KEY)
        recs = pd.concat([ids, keyed], axis=1)
        recs = recs[keyed[self.qis[0]] != NULL_KEY].copy()  # current records only
        recs["_order"] = recs[ID].astype(str)
        recs = recs.sort_values("_order", kind="stable")
        recs["_rank"] = recs.groupby(cols, sort=False, dropna=False).cumcount() + 1
        joined = recs.merge(mapping, on=cols, how="left")
        joined = joined[(joined["_rank"] >= joined["rank_from"])
                        & (joined["_rank"] <= joined["rank_to"])]
        if len(joined) != len(recs):
            raise AssertionError(f"{len(joined)} records matched the map, {len(recs)} exist")
        out = pd.DataFrame({ID: joined[ID].to_numpy()})
        for c in self.qis:
            out[c] = np.where(joined[f"{c}__suppressed"].to_numpy(dtype=bool), None,
                              joined[c].to_numpy())
        return out.astype(object).where(out.notna(), None)


LINKED_REFUSAL = "changed records linked across versions"
LINKED_SQL = Path(__file__).resolve().parents[1] / "macros" / "gates" / "linked_changes_sql.sql"
_CALLER: list = []  # sql_linked's compiled macro
_COLUMNS: dict[str, list[str]] = {}  # the columns of its tables, for get_columns_in_relation


def sql_linked(qis: Sequence[str], versions: Sequence[tuple[pd.DataFrame, pd.DataFrame]],
               combinations: Sequence[Sequence[str]], k: int
               ) -> dict[str, tuple[int, int | None, int]]:
    """The gate's linked check (``macros/gates/linked_changes_sql.sql``, rendered outside dbt)
    on DuckDB in memory: the last of ``versions`` (record id + cells, None = suppressed; record
    id + true values) the candidate, the others the store, every QI at level 0. Per
    combination: (changed records, smallest linked set, changed records below k)."""
    import duckdb

    from tests.macro_render import macro_caller

    def rows(published: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
        t = truth.set_index(ID)[list(qis)]
        p = published.set_index(ID).loc[t.index, list(qis)]
        out = pd.DataFrame({"rid": [str(r) for r in t.index]})
        for q in qis:
            out[q] = [None if v is None or pd.isna(v) else str(v) for v in p[q]]
            out[q + "__generalized"] = [str(v) for v in t[q]]
        return out

    con = duckdb.connect()
    *earlier, candidate = versions
    truth = rows(*candidate)  # noqa: F841 - read by DuckDB by name
    store = pd.concat([rows(*v).assign(release_id=f"r{i}") for i, v in enumerate(earlier)],
                      ignore_index=True).rename(columns={"rid": "record_key"})
    con.register("truth", truth)
    con.register("store", store)
    con.execute("create table deid_key as select 'k' as key_value")
    _COLUMNS.clear()
    _COLUMNS.update({"truth": list(truth.columns), "store": list(store.columns)})
    if not _CALLER:  # the template compiled once per process
        def context(call):  # noqa: ANN001, ANN202 - macro_render's context
            return {
                "dbt_deid": SimpleNamespace(
                    own=lambda m: m, ident=lambda n: '"' + n + '"',
                    literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                    keyed_record_hash_sql=lambda e, _k: f"cast({e} as varchar)"),
                "dbt": SimpleNamespace(type_string=lambda: "varchar"),
                "adapter": SimpleNamespace(
                    dispatch=lambda name, package: call("default__" + name),
                    get_columns_in_relation=lambda rel: [SimpleNamespace(name=n)
                                                         for n in _COLUMNS[rel]]),
            }
        _CALLER.append(macro_caller([LINKED_SQL], context))

    ordered = [f"r{i}" for i in range(len(earlier))]
    zero = {q: 0 for q in qis}
    cfg = {"released_qis": list(qis), "record_id": "rid"}
    # LINKED_FORM=long or wide: the macro's form forced (fuzz/fuzz_refresh.py on the long form
    # against main's, whose lines are too short to reach it); unset: the gate's own choice
    form = {"long": True, "wide": False}.get(os.environ.get("LINKED_FORM", ""))
    sql = _CALLER[0]("linked_changes_sql")(
        cfg, "truth", "deid_key", "store", ordered, {r: zero for r in ordered}, zero,
        [list(b) for b in combinations], k, None, form)
    return {r[0]: (int(r[1]), None if r[2] is None else int(r[2]), int(r[3]))
            for r in con.execute(str(sql)).fetchall()}


def releases(line: Line, truths: Sequence[pd.DataFrame]
             ) -> list[dict[object, tuple[tuple, tuple]]]:
    """Each published version as {record id: (published cells, true values)} (the input of
    the independent combined-view check)."""
    out = []
    for published, truth in zip(line.versions, truths, strict=True):
        t = truth.set_index(ID)[line.qis]
        out.append({rid: (tuple(None if pd.isna(row[c]) else row[c] for c in line.qis),
                          tuple(t.loc[rid]))
                    for rid, row in published.set_index(ID).iterrows()})
    return out


QIS = ["province", "age_group", "gender", "los", "diagnosis"]
COMBINATIONS = [("province", "age_group", "gender", "los"),
                ("province", "age_group", "gender", "diagnosis")]


def generalize(frame: pd.DataFrame) -> pd.DataFrame:
    """Synthetic discharge abstracts (:mod:`dbt_deid.tools.synthetic.discharge`) at the levels the
    tests and the refresh benchmark release: province, 5-year age groups top-coded at 90,
    gender, length of stay in days up to a week then weeks (top-coded at 26), and the
    diagnosis's 3-character code (DIAG3, seed 000 Table 2)."""
    age = np.minimum(frame["age"].to_numpy(dtype=np.int64) // 5 * 5, 90)
    los = frame["los_days"].to_numpy(dtype=np.int64)
    los_label = np.where(los <= 7, np.char.add("d", los.astype(str)),
                         np.char.add("w", np.minimum((los + 6) // 7, 26).astype(str)))
    return pd.DataFrame({
        ID: frame["abstract_id"].to_numpy(),
        "province": frame["province"].astype(str).to_numpy(),
        "age_group": np.char.add("a", age.astype(str)),
        "gender": frame["gender"].astype(str).to_numpy(),
        "los": los_label,
        "diagnosis": frame["mrdx"].astype(str).str[:3].to_numpy(),
    })


def discharges(rows: int, seed: int, first_id: int = 1) -> pd.DataFrame:
    """``rows`` generalized synthetic abstracts with ids from ``first_id``."""
    from dbt_deid.tools.synthetic.discharge import discharge_table

    return generalize(discharge_table(rows, seed=seed, first_id=first_id).to_pandas())
