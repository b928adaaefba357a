"""Gate once (issue 33, item 2): counted from the SQL one integration build ran, each gate of
the release's gate set is evaluated once per build (in the gate table deid_gate_results), not
three times (the gate model, the gate tests, the publish materialization, as on main 732cd92).

The SQL is read from dbt's debug log of the build (``logs/dbt.log``: every statement dbt runs,
model bodies and the ``run_query`` calls of macros alike), split into its events.
"""

from __future__ import annotations

import json
import re
import shutil

import duckdb
import pytest

from tests.integration.dbt_runner import INTEGRATION, REPO, copy_of, release_vars, run_dbt

pytestmark = pytest.mark.dbt

#: A phrase only each gate's query has (macros/gates/gates.sql).
GATE_MARKERS = {
    "k_anonymity": "where smallest_class <",
    "exact_k_anonymity": "where records_below_k > 0",
    "max_suppression": "where share_records_with_suppression >",
    "column_suppression_cap": "where share_suppressed > cap",
    "input_unchanged": "as changed_records",
}
#: The exact consistent-set computation (exact_consistent_sql): its pruned form
#: (exact_risk_summary_sql: the generic test, combined_releases), its full distribution
#: (the model deid_exact_consistent until session 13) and any form of its true tuples' count
#: (the deid_consistent_<i> columns of deid_suppressed_patterns since session 13).
EXACT_MARKERS = ("tuples_evaluated", "cast(sum(n_true) as", "sum(n) as n_true")


def _statements(log: str) -> list[str]:
    """The events of a dbt file log (each starts with its time stamp)."""
    return re.split(r"\n(?=(?:\x1b\[0m)?\d{2}:\d{2}:\d{2}\.\d+ \[)", log)


def test_each_gate_is_evaluated_once_per_build(default_release) -> None:
    log = (default_release.database.parent / "logs" / "dbt.log").read_text()
    statements = [s for s in _statements(log) if re.search(r"\bselect\b", s, re.I)]
    counts = {gate: sum(marker in s for s in statements) for gate, marker in GATE_MARKERS.items()}
    assert counts == dict.fromkeys(GATE_MARKERS, 1), counts
    # the exact check: once, as the columns of deid_suppressed_patterns (the model
    # deid_exact_consistent until session 13) whose distribution the gate table,
    # the risk summary, the report and the algorithm comparison read; on 732cd92 it ran four
    # times, on 55b4c8e twice (the gate table computed its own, pruned at k)
    exact = sum(any(m in s for m in EXACT_MARKERS) for s in statements)
    assert exact == 1, exact


#: The release input and the record-level checked release of the integration build, as its SQL
#: names them (schema and table, quoted; a read is a FROM or JOIN naming the relation).
SOURCE = '"main"."discharge_abstracts"'
CHECKED = '"main_deid_work"."deid_suppressed"'
#: The input snapshot (deid_input): the source read once per build into the working schema.
SNAPSHOT = '"main_deid_work"."deid_input"'
#: Per build, counted on 55b4c8e (2026-11-26; docs/gate-once.md): 31 reads of the source, 119
#: of deid_suppressed (87 in the information loss), the exact check twice, the source
#: fingerprinted twice; on 44a3bb3: 9 and 11; on 7a63135: 4 and 7; on 5dda012: 3 and 5. Now
#: issue 33's targets, 3 and 4: the per-record risk (deid_record_risk, one read of
#: deid_suppressed) is the diagnostics model's '(all combinations)' risk CDF, read from the
#: pattern table (docs/diagnostics.md). Session 8's edited-hierarchy check (F2) adds one: the
#: value-to-group pairs the publish step writes to deid_released_hierarchies, read once from
#: the checked release (they must be what was published); on 45d0c4e they were rendered twice
#: with one scan per hierarchy QI, 8 reads in all (review 8 final, R1). So 5 on da67971: the
#: information loss, the gate table, and the publish step's candidate, record store and pairs.
#: Session 9: the information loss is computed in deid_diagnostics' one grouped scan of
#: deid_generalized with the suppression map applied (the scan its original stage already made;
#: test_the_diagnostics_describe_the_checked_release below checks it against deid_suppressed),
#: so 4: the gate table and the publish step's three.
MAX_SOURCE_READS = 3
MAX_CHECKED_READS = 4


def _node_statements(log: str) -> dict[str, list[str]]:
    """The SQL each node ran (dbt's "On <node>: <sql>" events), by node."""
    out: dict[str, list[str]] = {}
    for event in _statements(log):
        m = re.search(r"\]: On ((?:model|test|seed|snapshot)\.[^:]+): (.*)", event, re.S)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2))
    return out


def _reads(by_node: dict[str, list[str]], relation: str) -> dict[str, int]:
    """FROM/JOIN naming ``relation`` (any database), per node that has one."""
    pattern = re.compile(r"\b(?:from|join)\s+(?:\"[^\"]+\"\.)?" + re.escape(relation), re.I)
    counts = {node: sum(len(pattern.findall(s)) for s in sql) for node, sql in by_node.items()}
    return {node: n for node, n in counts.items() if n}


def _fingerprints(statements: list[str], relation: str) -> int:
    """Statements fingerprinting ``relation`` (table_fingerprint_sql: "... as fingerprint from
    <relation>", the relation ending the query; not a fingerprint taken in a join)."""
    pattern = re.compile(r"as fingerprint\s+from\s+(?:\"[^\"]+\"\.)?" + re.escape(relation)
                         + r"\s*(?:\)|$)", re.I)
    return sum(bool(pattern.search(s)) for s in statements)


def test_source_and_checked_release_reads_per_build(default_release) -> None:
    """Issue 33, item 2, counted from the SQL of one `dbt build` of the integration release:
    the exact consistent-set check computed once (deid_exact_consistent), the source
    fingerprinted once (in the gate table's input_unchanged scan; the publish step of the same
    invocation reuses it) and the input snapshot once (by the gate table, which records it: the
    node deid_input_fingerprint until session 11), and the source and
    deid_suppressed read at most MAX_SOURCE_READS and MAX_CHECKED_READS times. The Python
    models read neither (checked on their refs: dbt runs them in process, so their reads are
    not in the log)."""
    by_node = _node_statements((default_release.database.parent / "logs" / "dbt.log").read_text())
    source, checked = _reads(by_node, SOURCE), _reads(by_node, CHECKED)
    assert source and checked, "the relation names no longer match the build's SQL"
    assert sum(source.values()) <= MAX_SOURCE_READS, source
    assert sum(checked.values()) <= MAX_CHECKED_READS, checked
    statements = [s for sql in by_node.values() for s in sql]
    assert sum(any(m in s for m in EXACT_MARKERS) for s in statements) == 1
    # the input snapshot is fingerprinted once (by the gate table), and the source once,
    # in the gate table's input_unchanged scan of it (not in a query of its own), which
    # refuses when the two differ: a snapshot left from an earlier invocation must not bind
    # this build to stale records
    assert _fingerprints(statements, SNAPSHOT) == 1
    assert _fingerprints(statements, SOURCE) == 0
    assert sum("as source_fingerprint" in s for s in statements) == 1
    python_refs = "\n".join(p.read_text() for p in REPO.glob("python_models/**/*.py"))
    assert 'dbt.ref("deid_suppressed")' not in python_refs
    assert "discharge_abstracts" not in python_refs


def test_the_diagnostics_describe_the_checked_release(default_release) -> None:
    """deid_diagnostics reads the records without reading deid_suppressed (deid_generalized with
    the suppression map applied by deid_suppressed's own SQL, in the plain chain): its
    information loss and its original stage are those of deid_suppressed, counted here from
    deid_suppressed itself (suppressed cells, records with a suppressed cell, non-uniform
    entropy in bits: El Emam et al. 2011 "Measuring Information Loss"; the original stage's
    classes over each combination's original values)."""
    con = duckdb.connect(str(default_release.database), read_only=True)
    try:
        rows = con.execute(
            "select column_name, records, suppressed_cells, records_with_suppression,"
            " non_uniform_entropy from main_deid_work.deid_diagnostics"
            " where diagnostic = 'information_loss' order by column_order").fetchall()
        assert rows and rows[0][0] == "(all quasi-identifiers)"
        qis = [r[0] for r in rows[1:]]
        t = "main_deid_work.deid_suppressed"
        n = con.execute(f"select count(*) from {t}").fetchone()[0]
        any_null = " or ".join(f'"{q}" is null' for q in qis)
        expected_any = con.execute(f"select count(*) from {t} where {any_null}").fetchone()[0]
        assert rows[0][1:4] == (n, sum(r[2] for r in rows[1:]), expected_any)
        for name, records, cells, _, entropy in rows[1:]:
            assert records == n
            assert cells == con.execute(f'select count(*) from {t} where "{name}" is null'
                                        ).fetchone()[0]
            # -log2 of the share of the records with the record's original value among those
            # sharing its released value (a suppressed cell's released value covers all)
            bits = con.execute(
                f'select sum(case when r is null then -log2(n_o / {n})'
                f' else -log2(n_or / n_r) end) from (select "{name}" as r,'
                f' count(*) over (partition by "{name}__original", "{name}") * 1.0 as n_or,'
                f' count(*) over (partition by "{name}") * 1.0 as n_r,'
                f' count(*) over (partition by "{name}__original") * 1.0 as n_o from {t})'
            ).fetchone()[0]
            assert entropy == pytest.approx(bits, rel=1e-9), name
        for combination, total in con.execute(
                "select combination, sum(records) from main_deid_work.deid_diagnostics"
                " where diagnostic = 'class_size_histogram' and stage = 'original'"
                " and combination <> '(all combinations)' group by combination").fetchall():
            cols = ", ".join(f'"{q}__original"' for q in combination.split("+"))
            classes = con.execute(f"select count(*), sum(f) from (select count(*) as f from {t}"
                                  f" group by {cols})").fetchone()
            got = con.execute(
                "select sum(classes), sum(records) from main_deid_work.deid_diagnostics"
                " where diagnostic = 'class_size_histogram' and stage = 'original'"
                f" and combination = '{combination}'").fetchone()
            assert got == classes and total == n, combination
    finally:
        con.close()


def test_the_diagnostics_of_a_later_invocation_read_the_checked_release(it_database,
                                                                         tmp_path) -> None:
    """Review 9 final, F4: before version 1 is published (no line yet, so the diagnostics take
    the plain chain: the map applied to deid_generalized), the release's upstream models are
    built, then a preview rebuilds the suppression map with tau = 0.1 (what `python -m dbt_deid
    advise --vars ...` rebuilds), then `dbt run -s deid_gate_results deid_diagnostics` with the
    release's settings: deid_suppressed was not rebuilt, so the plain chain would describe the
    preview; the diagnostics' suppressed cells are those of the checked release
    deid_suppressed (on e1bf34b the preview's). From a published release (the line's refresh)
    the diagnostics read the checked release already."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    built = run_dbt(INTEGRATION, ["run", "--select", "+deid_gate_results"], tmp_path / "built",
                    release_vars(), db)
    assert built.ok, built.output[-3000:]
    preview = run_dbt(INTEGRATION, ["run", "--select", "deid_suppression_map"],
                      tmp_path / "preview", release_vars(tau=0.1), db)
    assert preview.ok, preview.output[-3000:]
    run = run_dbt(INTEGRATION, ["run", "--select", "deid_gate_results", "deid_diagnostics"],
                  tmp_path / "real", release_vars(), db)
    assert run.ok, run.output[-3000:]
    rows = run.query("select column_name, suppressed_cells from deid_diagnostics"
                     " where diagnostic = 'information_loss'"
                     " and column_name <> '(all quasi-identifiers)'")
    assert len(rows) > 0
    checked = {name: run.query(f'select count(*) as c from deid_suppressed where "{name}" is null'
                               )["c"][0] for name in rows["column_name"]}
    print({name: (cells, checked[name]) for name, cells in rows.itertuples(index=False)})
    for name, cells in rows.itertuples(index=False):
        assert cells == checked[name], name


def test_an_exact_table_missing_a_combination_is_refused(default_release, tmp_path) -> None:
    """The gate table reads the exact check computed once per build only when it describes the
    checked release: from the pattern table as it is now (since session 13 the counts are
    columns of the pattern table itself, deid_consistent_<i>; patterns_hash before) and for
    every verified combination. An exact check that lost a combination (the same pattern
    table; before session 13 the model deid_exact_consistent's rows of the combination were
    deleted, now the combinations it records, deid_exact_combinations) is refused naming what
    to rebuild, and nothing is published (before, the gate passed on the combinations it
    found)."""
    base = copy_of(default_release, tmp_path / "base")
    before = base.query("select * from deid_published order by 1")
    with duckdb.connect(str(base.database)) as con:
        held, = con.execute("select distinct deid_exact_combinations"
                            " from main_deid_work.deid_suppressed_patterns").fetchone()
        kept = [b for b in json.loads(held) if b != ["province", "age", "admission_date"]]
        assert len(kept) == len(json.loads(held)) - 1
        con.execute("update main_deid_work.deid_suppressed_patterns"
                    " set deid_exact_combinations = ?", [json.dumps(kept)])
    run = run_dbt(INTEGRATION, ["run", "--select", "deid_gate_results", "deid_published"],
                  tmp_path / "gate", release_vars(), base.database)
    assert not run.ok
    assert "release refused, nothing published" in run.output
    assert "was computed for other combinations" in run.output
    assert "the exact check does not describe the checked release" in run.output
    after = run.query("select * from deid_published order by 1")
    assert before.equals(after)


def test_a_stale_input_snapshot_is_refused(default_release, tmp_path) -> None:
    """The input snapshot deid_input left from an earlier invocation (`dbt retry` after a failed
    fingerprint, `--exclude deid_input`) over a source that lost a record since: the
    fingerprint, the gate table and the publish step of one invocation must not be bound to the
    stale snapshot (they were, and the deleted record was published). The gate table
    fingerprints the snapshot (the node deid_input_fingerprint did until session 11) and the
    source, and refuses when they differ; nothing is published."""
    base = copy_of(default_release, tmp_path / "base")
    before = base.query("select * from deid_published order by 1")
    with duckdb.connect(str(base.database)) as con:
        con.execute("delete from main.discharge_abstracts where abstract_id ="
                    " (select min(abstract_id) from main.discharge_abstracts)")
    run = run_dbt(INTEGRATION, ["run", "--select", "deid_gate_results",
                                "deid_published"], tmp_path / "stale", release_vars(),
                  base.database)
    assert not run.ok
    assert "release refused, nothing published" in run.output
    assert "the input snapshot deid_input is not the source as it is now" in run.output
    after = run.query("select * from deid_published order by 1")
    assert before.equals(after)


def test_the_snapshot_refuses_a_source_with_none_of_the_release_columns(default_release,
                                                                          tmp_path) -> None:
    """A `source` pointing at the wrong table (none of its columns has a role): the snapshot
    used to copy every column (`select *`, direct identifiers included) into the working schema
    before the role check refused; it refuses, naming the release and the source, and copies
    nothing."""
    base = copy_of(default_release, tmp_path / "base")
    run = run_dbt(INTEGRATION, ["run", "--select", "deid_input"], tmp_path / "wrong",
                  release_vars(source="deid_canary"), base.database)
    assert not run.ok
    assert "has none of the release's columns" in run.output
    with duckdb.connect(str(base.database), read_only=True) as con:
        cols = [r[0] for r in con.execute("describe main_deid_work.deid_input").fetchall()]
    assert "canary" not in cols
