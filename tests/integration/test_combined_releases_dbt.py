"""Repeated releases cannot be combined against the guarantee (issue 17, item 3).

A recipient holding several releases of the same records takes, per record, the cells revealed
by any of them. One database, one `dbt run` of the release's nodes per step (the fewest that
cover the cases; each takes tens of seconds):

1. half of the records (seeded sample, slot 0): published, nothing to combine;
2. the other half (slot 1, disjoint, El Emam et al. 2011's non-overlapping PUMF samples) as the
   project's extra release `it_second` (var deid_releases, integration_tests/models/
   deid_it_second): combined with the first (what is combined is the source's records, not a
   release name, nor a release of the project: every release writes the project's one store;
   issue 32 item 2), published, no record shared (the history says 0), both releases' rows in
   the one store, and an independent check of the combined view of both published tables finds
   every record consistent with at least k rows. On main 7a63135 (a store and key per extra
   release) it was refused: "earlier published release(s) combined_it version 1 ... have no
   per-record rows in it_second__deid_release_records" (its own store; the other store's
   records, keyed with another key, could not be linked). On main 55b4c8e another name was
   refused ("a new name is not a new line");
3. all the records with the same settings, as `it_second` again: each half was suppressed for
   its own 2,000 records, the whole file for 4,000, so a record's cells differ between
   releases. The combined view of the default release's rows and the extra release's breaks
   the guarantee (the independent check, records linked by id, finds records below k, the
   same figures the gate prints): refused, nothing published, the store untouched, a refused
   history row naming the gate. On the code before the combined_releases gate this release
   was published; on 7a63135 it was refused for its missing store, not for the figures;
4. a QI released at a finer level than in the earlier releases: combined at mixed levels (each
   cell at the finest level any release revealed it), checked cell by cell at each cell's
   level (the other name's history row without its line: its store rows are read at its own
   level all the same); the combination breaks k here: refused, with the independent check's
   figures; a coarser level (province '*') over the first half: combined at mixed levels and
   published, with the independent check's figures;
5. an earlier release's records deleted from the store and the key dropped: refused.

The store keeps a record's true value only where it differs from its published cell; step 3
reads a store holding both that form and the earlier one (the true value in every row).

And no record id in clear in the tables the gate adds (the store, the key, the history).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from tests.combined_view_check import level_map, mixed_level_figures
from tests.independent_check import combined_view, consistent_minimum
from tests.integration.dbt_runner import INTEGRATION, release_vars, run_dbt
from tests.published_form import published_cell

pytestmark = pytest.mark.dbt

NAME = "combined_it"
#: The second half's release: the project's extra release (var deid_releases, models in
#: integration_tests/models/deid_it_second) over the same source, combined with NAME's.
OTHER = "it_second"
#: Record ids moved to 10-digit numbers no released label can be, so "no id in clear" is an
#: exact search (the generator numbers records 1..n, which collide with short labels).
ID_OFFSET = 7_300_000_000
PASS = "discharge_disposition"
#: What each step runs: the package's nodes the publish step needs (the gates, the store and the
#: history are written by it); the nodes nothing here reads (the report, the risk figures, the
#: algorithm comparison) are left out, ~1.7 CPU s a run (docs/performance.md, "Suite time,
#: session 5"), except in step 4, which runs the whole package over the combined line.
#: The history row's limits are this build's settings (no longer read from a settings table:
#: deid_release_parameters was not an ancestor of the publish model; its rows are now the
#: plan's, kind 'setting').
RELEASE_NODES = "package:dbt_deid,+deid_published"
#: The same for the extra release OTHER: its models (tag) that its publish step needs.
OTHER_NODES = f"tag:deid_release_{OTHER},+{OTHER}__deid_published"


def _sample(slot: int) -> dict:
    return {"fraction": 0.5, "slot": slot, "seed": 3}


def _records(run, prefix: str = "") -> dict[int, tuple[tuple, tuple]]:
    """record id -> (published cells, true values at the released level) of the last release
    computed (deid_suppressed, the checked release; ``prefix`` ``it_second__`` for the extra
    release's), read with the test's own query."""
    qis = [c for c in run.query("select * from deid_published limit 0").columns if c != PASS]
    cols = ", ".join(f"{q}, {q}__generalized" for q in qis)
    frame = run.query(f"select abstract_id, {cols} from {prefix}deid_suppressed")
    out = {}
    for row in frame.itertuples(index=False):
        values = [None if pd.isna(v) else v for v in row[1:]]
        out[int(row[0])] = (tuple(values[0::2]), tuple(values[1::2]))
    return out


def _published(run, prefix: str = "") -> pd.DataFrame:
    frame = run.query(f"select * from {prefix}deid_published")
    return frame.sort_values(list(frame.columns), na_position="first").reset_index(drop=True)


def _linked(run, prefix: str = "") -> tuple[list[str], dict[int, tuple[tuple, tuple]]]:
    """The published table's rows linked to their records: the records of deid_suppressed,
    after checking (here, in Python) that the published table holds exactly their cells, in
    their published form (periods and intervals as labels: tests/published_form.py)."""
    published = run.query(f"select * from {prefix}deid_published")
    qis = [c for c in published.columns if c != PASS]
    records = _records(run, prefix)
    table = Counter(tuple(None if pd.isna(v) else v for v in r)
                    for r in published[qis].itertuples(index=False))
    spec = release_vars(name=NAME)["deid_release"]["quasi_identifiers"]
    shown = Counter(tuple(published_cell(v, spec[q].get("rule"), spec[q].get("level", 0))
                          for q, v in zip(qis, cells, strict=True))
                    for cells, _ in records.values())
    assert table == shown
    return qis, records


def _as_older_package(con, name: str) -> None:
    """The history rows of ``name`` as an older package version wrote them: no fingerprint of
    their stored rows (line_json's store_check, review 19 F2), so store rows rewritten below to
    an older store's form are read as that form, not refused as edited."""
    for rid, line in con.execute("select release_id, line_json from main.deid_release_history"
                                 " where release_name = ? and line_json is not null",
                                 [name]).fetchall():
        manifest = json.loads(line)
        manifest.pop("store_check", None)
        con.execute("update main.deid_release_history set line_json = ? where release_id = ?",
                    [json.dumps(manifest, sort_keys=True), rid])


def _gate_minima(history_row) -> dict[str, int]:
    """The gate's smallest consistent set per combination, as the history's line_json records
    the combined view's figures."""
    return {f["combination"]: f["min_consistent"]
            for f in json.loads(history_row["line_json"])["combined"]}


def _independent(qis, releases, combinations, k) -> dict[str, tuple[int, int]]:
    truth, published = combined_view(releases)
    return {"+".join(b): consistent_minimum(qis, truth, published, b, k) for b in combinations}


def test_combined_releases_fail_closed(it_database, tmp_path):
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    with duckdb.connect(str(db)) as con:
        con.execute(f"update main.discharge_abstracts set abstract_id = abstract_id + {ID_OFFSET}")
        ids = {int(r[0]) for r in con.execute(
            "select abstract_id from main.discharge_abstracts").fetchall()}
    base = release_vars(name=NAME)["deid_release"]
    combinations, k = base["combinations"], round(1 / base["tau"])

    def run(step: str, name: str = NAME, select: str = RELEASE_NODES, **changes):
        return run_dbt(INTEGRATION, ["run", "--select", select], tmp_path / step,
                       release_vars(name=name, **changes), db)

    def run_other(step: str, **changes):
        """The project's extra release OTHER (its own models), the default release declared
        as in step 1."""
        variables = release_vars(name=NAME, sample=_sample(0))
        other = {**base, "name": OTHER, **changes}
        variables["deid_releases"] = {OTHER: {k: v for k, v in other.items() if v is not None}}
        return run_dbt(INTEGRATION, ["run", "--select", OTHER_NODES], tmp_path / step,
                       variables, db)

    # 1. half of the records: published, the first release of the name
    first = run("slot0", sample=_sample(0))
    assert first.ok, first.output[-3000:]
    qis, rel1 = _linked(first)

    published1 = _published(first)

    # 2. the other half as the project's extra release: combined with the first, disjoint (the
    # combined view shares no record), published; the history says no record is shared
    second = run_other("slot1", sample=_sample(1))
    assert second.ok, second.output[-3000:]
    _, rel2 = _linked(second, f"{OTHER}__")
    assert not set(rel1) & set(rel2) and len(rel1) + len(rel2) == len(ids)
    history = second.query("select * from deid_release_history order by recorded_at")
    assert list(history["status"]) == ["published", "published"]
    assert list(history["records_shared"]) == [0, 0]
    assert history["combined_min_consistent"].isna().all()
    assert (f"no record shared with the 1 earlier published release(s) of '{OTHER}' and of the"
            " same source (main.discharge_abstracts) (version(s) " + NAME + " version 1)"
            ) in history["gates_json"].iloc[-1]
    # the independent check of the combined view of both published tables
    figures = _independent(qis, [rel1, rel2], combinations, k)
    assert all(below == 0 and smallest >= k for smallest, below in figures.values()), figures
    store = second.query("select release_name, count(*) as n from deid_release_records"
                         f" group by release_name order by release_name = '{OTHER}'")
    assert store["n"].tolist() == [len(rel1), len(rel2)]
    # one store and one key for the project: no per-release store or key
    assert not {f"{OTHER}__deid_release_records", f"{OTHER}__deid_history_key"} & second.tables(
        "main_deid_work")
    # the store holds each release's (published cells, true values): the true value only where
    # it is not the published cell, read back as coalesce(true, published)
    for name, rel in ((NAME, rel1), (OTHER, rel2)):
        stored = second.query(
            "select " + ", ".join(qis) + ", "
            + ", ".join(f"coalesce({q}__generalized, {q}) as {q}__true" for q in qis)
            + f" from deid_release_records where release_name = '{name}'")
        rows = Counter((tuple(None if pd.isna(v) else v for v in r[:len(qis)]),
                        tuple(None if pd.isna(v) else v for v in r[len(qis):]))
                       for r in stored.itertuples(index=False))
        assert rows == Counter(rel.values())
    kept = second.query("select count(*) as n from deid_release_records where "
                        + " or ".join(f"{q}__generalized = {q}" for q in qis))
    assert kept["n"].iloc[0] == 0
    assert second.query("select count(*) as n from deid_release_records where "
                        + " or ".join(f"{q}__generalized is not null" for q in qis)
                        )["n"].iloc[0] > 0  # the suppressed cells' true values
    # version 1 rewritten as the store's earlier form (the true value in every row): step 3
    # reads both forms, and its figures are checked against the independent check below
    with duckdb.connect(str(db)) as con:
        _as_older_package(con, NAME)
        con.execute("update main_deid_work.deid_release_records set "
                    + ", ".join(f"{q}__generalized = coalesce({q}__generalized, {q})"
                                for q in qis)
                    + f" where release_name = '{NAME}'")
    published2 = _published(second, f"{OTHER}__")

    # 3. all the records, suppressed for the whole file, as the extra release again: the
    # combined view of both releases' rows breaks the guarantee
    third = run_other("full", sample=None)
    assert not third.ok
    assert "release refused, nothing published" in third.output
    assert "[combined_releases]" in third.output
    history = third.query("select * from deid_release_history order by recorded_at")
    last = history.iloc[-1]
    assert last["status"] == "refused" and last["gates_failed"] == "combined_releases"
    assert last["records_shared"] == len(ids)
    pd.testing.assert_frame_equal(_published(third, f"{OTHER}__"), published2)  # it stays
    assert third.query("select count(*) as n from deid_release_records")["n"].iloc[0] == len(ids)
    assert "deid_combined_releases__candidate" not in third.tables()
    # the line's states (the gate's one pass over the candidate and the store) are dropped
    assert not [t for t in third.tables() if "deid_combined_releases__states" in t]
    # the gate's figures are the independent check's (records below k, smallest set)
    rel3 = _records(third, f"{OTHER}__")  # the refused candidate's records (never published)
    assert set(rel3) == ids
    figures = _independent(qis, [rel1, rel2, rel3], combinations, k)
    failing = {c: f for c, f in figures.items() if f[1] > 0}
    assert failing, figures
    assert last["combined_min_consistent"] == min(s for s, _ in figures.values())
    for combination, (smallest, below) in failing.items():
        assert (f"{combination}: {below} record(s) consistent with fewer than k = {k} combined"
                f" records (smallest {smallest})") in third.output

    # 4. a QI released at a finer level (admission month) than in the releases it shares
    # records with (quarter): combined at mixed levels, each cell at the finest level any
    # release revealed it, the exact check counting cell by cell at each cell's level. Its
    # verdict and figures are the independent check's (records linked by id); when the
    # combination breaks k it is refused, the published table unchanged (on main 55b4c8e any
    # other level was refused without a check). The other name's history row lost its line
    # (line_json): its store rows are still the line's, read at its own recorded level (on
    # 44a3bb3 they were read at this release's level, and the other name was left out)
    with duckdb.connect(str(db)) as con:
        con.execute(f"update main.deid_release_history set line_json = null"
                    f" where release_name = '{OTHER}'")
    quasi = {**base["quasi_identifiers"], "admission_date": {
        **base["quasi_identifiers"]["admission_date"], "level": 1}}
    # the whole package once in the chain, on a line with history (RELEASE_NODES elsewhere)
    fourth = run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid"], tmp_path / "level",
                     release_vars(name=NAME, quasi_identifiers=quasi), db)
    rel4 = _records(fourth)
    coarse = {q: base["quasi_identifiers"][q].get("level", 0) for q in qis}
    up = level_map(fourth.query("select qi_name, original_value, level, generalized_value"
                                " from deid_hierarchy").itertuples(index=False),
                   base.get("missing_label", "<missing>"))
    figures = mixed_level_figures(qis, [(coarse, rel1), (coarse, rel2),
                                        ({**coarse, "admission_date": 1}, rel4)],
                                  combinations, k, up)
    assert (f"(version(s) 1, {OTHER} version 1); combined view of 4000 records at mixed levels"
            " (admission_date at levels 1/2" in fourth.output), fourth.output[-3000:]
    history = fourth.query("select * from deid_release_history order by recorded_at")
    assert history["combined_min_consistent"].iloc[-1] == min(s for s, _ in figures.values())
    assert _gate_minima(history.iloc[-1]) == {c: s for c, (s, _b) in figures.items()}
    failing = {c: f for c, f in figures.items() if f[1] > 0}
    print(f"mixed levels (month after quarter): {figures}")
    assert failing, figures  # this data: the month cells break k together with the quarters
    assert not fourth.ok
    for combination, (smallest, below) in failing.items():
        assert (f"{combination}: {below} record(s) consistent with fewer than k = {k} combined"
                f" records (smallest {smallest})") in fourth.output
    assert history["status"].tolist() == ["published", "published", "refused", "refused"]
    assert history["gates_failed"].iloc[-1] == "combined_releases"
    pd.testing.assert_frame_equal(_published(fourth), published1)

    # 4b. a coarser level (province: level 2, '*') over the first half: combined at mixed
    # levels with both halves and published, its figures the independent check's
    coarser = {**base["quasi_identifiers"], "province": {
        **base["quasi_identifiers"]["province"], "level": 2}}
    fourth_b = run("coarser", quasi_identifiers=coarser, sample=_sample(0))
    assert fourth_b.ok, fourth_b.output[-3000:]
    rel4b = _records(fourth_b)
    assert set(rel4b) == set(rel1)
    figures = mixed_level_figures(qis, [(coarse, rel1), (coarse, rel2),
                                        ({**coarse, "province": 2}, rel4b)], combinations, k,
                                  up)
    print(f"mixed levels (province '*' after region): {figures}")
    last = fourth_b.query("select * from deid_release_history order by recorded_at").iloc[-1]
    assert (last["status"], last["release_version"]) == ("published", 2)
    assert last["records_shared"] == len(rel1)
    assert last["combined_min_consistent"] == min(s for s, _ in figures.values()) >= k
    # every combination's figure is the reference's (on 44a3bb3 the reference, without the
    # hierarchy, counted 15 for province+age+admission_date where the SQL counts 16)
    assert _gate_minima(last) == {c: s for c, (s, _b) in figures.items()}
    assert "at mixed levels (province at levels 1/2" in last["gates_json"]
    published4b = _published(fourth_b)

    # 4c. another name over the first half that no longer releases admission_date: the earlier
    # releases verified province+age+admission_date, which the combined view of this release
    # cannot check (the column is outside it), so it is refused naming the combination, the
    # published table unchanged (before, the combination was skipped and only this release's
    # own combinations were checked)
    narrower = {q: v for q, v in base["quasi_identifiers"].items() if q != "admission_date"}
    fourth_c = run("narrower", name="combined_it_third", quasi_identifiers=narrower,
                   combinations=[b for b in combinations if "admission_date" not in b],
                   excluded=[*base["excluded"], "admission_date"], sample=_sample(0))
    assert not fourth_c.ok
    assert "whose combinations the combined view cannot check" in fourth_c.output
    assert ("verified province+age+admission_date, over admission_date which this release does"
            " not release") in fourth_c.output
    pd.testing.assert_frame_equal(_published(fourth_c), published4b)

    # 4d. the same records moved: another name over a copy of the source in another schema
    # (discharge_abstracts_moved), all 4,000 records suppressed for the whole file. A recipient
    # links it with the earlier releases by their rows; the line is found by the records (the
    # store's record keys), not by the relation's name, so it is combined with every earlier
    # release sharing records (at mixed levels: 4b released province at level 2) and refused
    # with the independent check's figures. On 12b6452 (a line was its relation's name) it
    # was published: "no earlier published release of 'combined_it_moved', nothing to combine"
    # The extra release's store rows lose their source, as rows written before the store
    # recorded it: they are the line's by their records all the same (never ignored: the
    # figures below count them; without them they differ)
    with duckdb.connect(str(db)) as con:
        _as_older_package(con, OTHER)
        (recorded,), = con.execute("select distinct source_relation from"
                                   " main_deid_work.deid_release_records"
                                   f" where release_name = '{OTHER}'").fetchall()
        con.execute("update main_deid_work.deid_release_records set source_relation = null"
                    f" where release_name = '{OTHER}'")
    moved_vars = release_vars(name="combined_it_moved", source="discharge_abstracts_moved",
                              sample=None)
    moved_vars["it_moved_source"] = True
    moved = run_dbt(INTEGRATION, ["run", "--select", f"{RELEASE_NODES} discharge_abstracts_moved"],
                    tmp_path / "moved", moved_vars, db)
    print("moved source:", [ln for ln in moved.output.splitlines() if "combined releases" in ln])
    rel_moved = _records(moved)
    assert set(rel_moved) == ids
    figures = mixed_level_figures(qis, [(coarse, rel1), (coarse, rel2),
                                        ({**coarse, "province": 2}, rel4b), (coarse, rel_moved)],
                                  combinations, k, up)
    print(f"moved source (all records, after both halves and province '*'): {figures}")
    failing = {c: f for c, f in figures.items() if f[1] > 0}
    assert failing, figures  # linked by their rows, the releases break k together
    assert not moved.ok, moved.output[-3000:]
    last = moved.query("select * from deid_release_history order by recorded_at").iloc[-1]
    assert (last["status"], last["gates_failed"]) == ("refused", "combined_releases")
    assert last["records_shared"] == len(ids)
    for combination, (smallest, below) in failing.items():
        assert (f"{combination}: {below} record(s) consistent with fewer than k = {k} combined"
                f" records (smallest {smallest})") in moved.output
    assert ("and of the releases sharing its records from main.discharge_abstracts,"
            " (no source recorded)") in moved.output
    pd.testing.assert_frame_equal(_published(moved), published4b)
    with duckdb.connect(str(db)) as con:
        con.execute("update main_deid_work.deid_release_records set source_relation = ?"
                    f" where release_name = '{OTHER}'", [recorded])

    # no record id in clear in the tables the gate adds, nor the key in logs or target/
    key = third.query("select key_value from deid_history_key")["key_value"].tolist()
    assert len(key) == 1 and len(key[0]) >= 64
    clear = {str(i) for i in ids}
    unkeyed = {hashlib.md5(s.encode()).hexdigest() for s in clear}
    for table in ("deid_release_records", "deid_history_key", "deid_release_history"):
        frame = third.query(f"select * from {table}")
        assert "abstract_id" not in frame.columns
        for column in frame.columns:
            for value in frame[column].dropna().astype(str).unique():
                assert not set(re.findall(r"\d{10}", value)) & clear, (table, column)
                assert value not in unkeyed, (table, column)
    keys = set(third.query("select record_key from deid_release_records")["record_key"])
    assert keys == {hashlib.md5(f"{key[0]}|{i}".encode()).hexdigest() for i in ids}
    for path in Path(tmp_path).rglob("*"):
        if path.is_file() and path.suffix != ".duckdb" and not path.name.endswith(".wal"):
            assert key[0] not in path.read_text(errors="ignore"), path

    # 5. the store and its key must be whole: with version 1's records deleted and the key
    # dropped, the release is refused naming both (the chain rebuilt with step 3's settings);
    # and an extra release's own store of before one store per project, holding rows of the
    # line (keyed with another key: they cannot be linked), is named too, never read or ignored
    with duckdb.connect(str(db)) as con:
        con.execute("delete from main_deid_work.deid_release_records where release_version = 1"
                    f" and release_name = '{NAME}'")
        con.execute("drop table main_deid_work.deid_history_key")
        con.execute(f"create table main_deid_work.{OTHER}__deid_release_records as select *"
                    f" from main_deid_work.deid_release_records where release_name = '{OTHER}'")
    variables = release_vars(name=NAME)
    variables["deid_releases"] = {OTHER: {**base, "name": OTHER}}
    fifth = run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / "lost",
                    variables, db)
    assert not fifth.ok
    assert (f"{OTHER}__deid_release_records\" (release {OTHER}'s own store, written before"
            f" dbt_deid kept one store per project) holds {len(rel2)} row(s) of this line keyed"
            " with its own key") in fifth.output, fifth.output[-3000:]
    assert (f"combined releases: earlier published release(s) 1 of '{NAME}' and of the same"
            " source (main.discharge_abstracts) have no per-record rows in") in fifth.output
    assert "deid_history_key\" is missing, so the stored records cannot be matched" in fifth.output
    assert fifth.query("select gates_failed from deid_release_history order by recorded_at"
                       )["gates_failed"].iloc[-1] == "combined_releases"
    pd.testing.assert_frame_equal(_published(fifth), published4b)


def test_a_version_that_stops_releasing_a_qi_is_refused(it_database, tmp_path):
    """Review 9b, H1, second half: version 1 releases province, age and gender (the default
    combination: every QI); version 2 moves province to `excluded` (the default combination
    changes with it, and `combinations` stays undeclared, so the line settings do not refuse
    it). The recipient links version 2's records to their version-1 province; the gate used to
    skip every earlier combination over a QI this version does not release, so version 1's
    province+age+gender was never checked on the combined view (on s9-fixola version 2
    published). Refused now, naming the combination and the QI (never a value)."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    base = release_vars(name="dropped_qi")["deid_release"]
    qis = base["quasi_identifiers"]
    three = ["province", "age", "gender"]

    def release(kept: list[str]) -> dict:
        return release_vars(name="dropped_qi", combinations=None,
                            quasi_identifiers={q: qis[q] for q in kept},
                            excluded=[*base["excluded"], *(q for q in qis if q not in kept)])

    first = run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / "v1",
                    release(three), db)
    assert first.ok, first.output[-3000:]
    second = run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / "v2",
                     release(["age", "gender"]), db)
    assert not second.ok, second.output[-3000:]
    assert "whose combinations are over quasi-identifiers this release does not release" in (
        second.output), second.output[-3000:]
    assert "version 1 released province (not released now)" in second.output, second.output[-3000:]
    history = second.query("select status from deid_release_history order by recorded_at")
    assert history["status"].tolist() == ["published", "refused"]


def test_a_disjoint_sample_over_changed_ids_is_refused(it_database, tmp_path):
    """Review 18, F3: a line of seeded disjoint samples (El Emam et al. 2011's non-overlapping
    PUMF files: slot 0, then slot 1) whose record ids change upstream between the two files
    (every id another number, as a reload numbering the records anew). Slot 1 drawn over the
    new ids is a fresh random half of the same people (about half of them in slot 0 too), and
    it shares no record with slot 0 under any ids, so the disjoint-sample exemption of review
    8's rule 2 let it through: on cb5e90c published, records_shared 0, no restart (the
    reviewer's run linked by person found classes of 1 in the combined view). Refused now: no
    record of the whole source is one the line stored. Nothing of slot 1 is published."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)

    def run(step: str, slot: int):
        return run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / step,
                       release_vars(name="rekeyed_half", sample=_sample(slot)), db)

    first = run("slot0", 0)
    assert first.ok, first.output[-3000:]
    published1 = _published(first)
    with duckdb.connect(str(db)) as con:
        con.execute("update main.discharge_abstracts set abstract_id = abstract_id + 1000000")
    second = run("slot1_rekeyed", 1)
    assert not second.ok, second.output[-3000:]
    assert ("no record of the source (any sample slot) is one the line's published version(s)"
            " 1 hold") in second.output, second.output[-3000:]
    assert "`restart: {reason: '...'}`" in second.output
    history = second.query("select status, release_version from deid_release_history"
                           " order by recorded_at")
    assert history["status"].tolist() == ["published", "refused"]
    pd.testing.assert_frame_equal(_published(second), published1)  # slot 0 stays


def test_both_schemas_moved_do_not_start_a_line_beside_the_old_one(it_database, tmp_path):
    """Review 18 F2 / review 20 F-A: a line's memory is its history (next to the published
    table) and its store and key (in the working schema). Version 2 built with both moved (the
    var deid_work_schema and the published models' schema) found neither and published a
    version 1 beside the old line (on 8b94a27, at admission_date level 1 instead of 2: by
    person 4 records consistent with fewer than k = 5, smallest 3). Refused now, naming where
    the line's history is; the audited `restart` is the way out. Then review 20, F-D: the
    working schema pointed at the schema of that published mart is refused before anything
    is built."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    first = run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / "v1",
                    release_vars(name="moved_line"), db)
    assert first.ok, first.output[-3000:]
    qis = release_vars(name="moved_line")["deid_release"]["quasi_identifiers"]
    finer = {**qis, "admission_date": {**qis["admission_date"], "level": 1}}
    moved = {**release_vars(name="moved_line", quasi_identifiers=finer),
             "deid_work_schema": "w2", "it_published_schema": "p2"}
    second = run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / "v2", moved, db)
    assert not second.ok, second.output[-3000:]
    assert ("has published releases recorded in main.deid_release_history: 'moved_line'"
            " version 1") in second.output, second.output[-3000:]
    assert "the working schema (var deid_work_schema) and the published schema" in second.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from information_schema.tables where table_schema ="
                           " 'main_p2' and table_name = 'deid_published'").fetchone()[0] == 0
    restarted = {**moved, "deid_release": {**moved["deid_release"],
                                           "restart": {"reason": "a new recipient"}}}
    third = run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / "v3",
                    restarted, db)
    assert third.ok, third.output[-3000:]
    # review 20, F-D: the working schema pointed at main_p2, which now holds a published mart
    # and its history (this graph publishes to main): refused before anything is built (on
    # 8b94a27 deid_input and deid_suppressed, original values, were built into main_p2)
    into_mart = {**release_vars(name="moved_line"), "deid_work_schema": "p2"}
    fourth = run_dbt(INTEGRATION, ["run", "--select", RELEASE_NODES], tmp_path / "v4",
                     into_mart, db)
    assert not fourth.ok, fourth.output[-3000:]
    assert ("working model(s) would be built in release.main_p2, which holds a release history"
            in fourth.output), fourth.output[-3000:]
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from information_schema.tables where table_schema ="
                           " 'main_p2' and table_name in ('deid_input', 'deid_suppressed')"
                           ).fetchone()[0] == 0
