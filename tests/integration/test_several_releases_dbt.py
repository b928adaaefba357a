"""Several discharge releases in one project (issue 19, item 1; docs, "Several releases in one
project"): the default release (var deid_release, the package's models) and an extra one (var
deid_releases, the models integration_tests/models/deid_it_second written by `python -m dbt_deid
add-release it_second`) are built by one `dbt build`, each gated on its own tables: the extra
release, a different sample with MaxSup 1%, fails its MaxSup gate and publishes nothing, while
the default release publishes.

And two releases of one project over the same source and record identity, built by ONE `dbt
run` on a fresh warehouse (issue 32, item 2): the second to publish is combined with the first
(one store and one key for the project's releases) and refused when their combination breaks k.
On main 7a63135 both published: the gate of the second found no history (created in the same
invocation before the publish models, not in dbt's relation cache) and its own empty store,
"no earlier published release, nothing to combine", and the independent check of the two
published tables, records linked by id, finds records below k."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import duckdb
import pytest

from tests.independent_check import combined_view, consistent_minimum
from tests.integration.dbt_runner import INTEGRATION, build_release, release_vars, run_dbt
from tests.integration.test_combined_releases_dbt import _linked, _records

pytestmark = pytest.mark.dbt


def _two_releases() -> dict:
    variables = release_vars()
    second = copy.deepcopy(variables["deid_release"])
    second.update(name="it_second", max_suppression=0.01,
                  sample={"fraction": 0.5, "slot": 1, "seed": 11})
    variables["deid_releases"] = {"it_second": second}
    return variables


def test_two_releases_in_one_build_are_gated_independently(it_database, tmp_path) -> None:
    run = build_release(it_database, tmp_path, _two_releases(),
                        extra=["tag:deid_release_it_second"], report=True, artifacts=True)
    out = run.output
    assert not run.ok  # the extra release's gate failed
    # each release's gate tests ran, with their own verdicts and figures
    assert re.search(r"PASS deid_gate_max_suppression ", out), out[-3000:]
    assert re.search(r"FAIL 1 it_second__deid_gate_max_suppression ", out), out[-3000:]
    assert re.search(r"dbt_deid gate max_suppression FAILED: MaxSup \d+\.\d% > 1\.0%", out)

    # the default release published, the extra one published nothing
    tables = run.tables()
    assert "deid_published" in tables
    assert not {"it_second__deid_published", "it_second__deid_published__deid_candidate"} & tables
    history = run.query("select release_name, status, published_rows, gates_failed, gates_json"
                        " from deid_release_history order by release_name")
    assert history[["release_name", "status", "published_rows"]].to_dict("records") == [
        {"release_name": "integration_release", "status": "published", "published_rows": 4000},
        {"release_name": "it_second", "status": "refused", "published_rows": None}]
    # dbt skipped the failing release's publish model; the package's on-run-end hook still
    # wrote its refused row, naming the failed gate test (names and counts, never values)
    assert history.gates_failed[1] == "it_second__deid_gate_max_suppression"
    assert "failed (1 failing row(s))" in history.gates_json[1]
    assert run.query("select count(*) as n from deid_published").n[0] == 4000

    # each release's tables hold its own sample and settings
    n_second = run.query("select count(*) as n from it_second__deid_suppressed").n[0]
    assert 1000 < n_second < 3000
    gates = {r.gate: r for r in run.query("select * from deid_gate_results").itertuples()}
    second = {r.gate: r for r in
              run.query("select * from it_second__deid_gate_results").itertuples()}
    assert all(g.passed for g in gates.values())
    assert [g for g, r in second.items() if not r.passed] == ["max_suppression"]
    assert f"of {n_second} records" in second["max_suppression"].message
    assert "> 1.0%" in second["max_suppression"].message
    params = dict(run.query("select setting, value from it_second__deid_release_plan"
                            " where kind = 'setting'").itertuples(index=False))
    assert params["release"] == "it_second" and params["max_suppression"] == "0.01"
    report = run.query("select release, published, path from it_second__deid_release_report")
    assert report.release[0] == "it_second" and not report.published[0]
    assert report.path[0].endswith("it_second.refused.html")
    # the gate table is bound to it_second's settings, those its plan was resolved from
    bound = set(run.query("select settings_md5 from it_second__deid_gate_results").settings_md5)
    planned = set(run.query("select settings_md5 from it_second__deid_release_plan").settings_md5)
    default = set(run.query("select settings_md5 from deid_gate_results").settings_md5)
    assert len(bound) == 1 and bound == planned and not bound & default

    # the chains never cross: every node and test of it_second reads only it_second's nodes
    # (and the shared inputs), the default release's never read it_second's
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text())
    for node in manifest["nodes"].values():
        if node["package_name"] not in ("dbt_deid", "dbt_deid_integration_tests"):
            continue
        parents = [p.split(".")[-1] for p in node["depends_on"].get("nodes", [])]
        release_parents = [p for p in parents if p.startswith("deid_") or "__deid_" in p]
        if node["name"].startswith("it_second__"):
            assert all(p.startswith("it_second__") for p in release_parents), (
                node["name"], parents)
            assert "deid_release_it_second" in node["tags"]
            if node["resource_type"] == "test" and "__deid_gate_" in node["name"] and parents:
                assert sorted(parents) == ["it_second__deid_diagnostics",
                                           "it_second__deid_gate_results"], (node["name"], parents)
        elif node["resource_type"] in ("model", "test"):
            assert not any(p.startswith("it_second__") for p in parents), (node["name"], parents)


def test_each_release_has_the_tests_of_the_gates_it_declares(tmp_path) -> None:
    """Issue 33: the test of an optional gate exists only when the release declares it, each
    release deciding from its own settings (the test finds its release from the model it tests,
    as the release's models do): the default release declares t-closeness, it_second distinct
    l-diversity, over the sensitive column discharge_disposition. add-release writes every gate
    test of the package (on the gate table, which every release builds). Old code (31d64a4) listed
    the five optional tests in both releases."""
    variables = _two_releases()
    sensitive = {"pass_through": None, "sensitive": ["discharge_disposition"]}
    variables["deid_release"] = {**release_vars(**sensitive)["deid_release"],
                                 "attribute_disclosure": {"t": 0.5}}
    second = variables["deid_releases"]["it_second"]
    second.pop("pass_through", None)
    second.update(sensitive=["discharge_disposition"], attribute_disclosure={"distinct_l": 2})
    run = run_dbt(INTEGRATION, ["ls", "--select", "package:dbt_deid", "tag:deid_release_it_second",
                                "--resource-type", "test", "--output", "name", "--quiet"],
                  tmp_path, variables)
    assert run.ok, run.output[-3000:]
    listed = {line.strip() for line in run.output.splitlines() if line.strip()}
    optional = {"deid_gate_small_areas", "deid_gate_distinct_l_diversity",
                "deid_gate_entropy_l_diversity", "deid_gate_recursive_cl_diversity",
                "deid_gate_t_closeness"}
    for prefix, declared in (("", "deid_gate_t_closeness"),
                             ("it_second__", "deid_gate_distinct_l_diversity")):
        mine = {t.removeprefix(prefix) for t in listed if t.startswith(prefix)
                and (prefix or "__" not in t)}
        assert {"deid_gate_k_anonymity", "deid_gate_max_suppression", declared} <= mine, mine
        assert mine & optional == {declared}, (prefix, sorted(mine))


def test_a_hostile_release_name_is_an_error(tmp_path) -> None:
    """A release name becomes part of node, table and file names: only identifiers."""
    variables = _two_releases()
    variables["deid_releases"] = {"x; drop table t": variables["deid_releases"]["it_second"]}
    run = run_dbt(INTEGRATION, ["parse"], tmp_path, variables)
    assert not run.ok
    assert "release name 'x; drop table t' is not allowed" in run.output, run.output[-3000:]


def test_two_releases_of_one_source_in_one_run_are_combined(it_database, tmp_path) -> None:
    """The default release (k = 5) and the extra release it_second at tau 0.34 (k = 3), both
    over every record, one `dbt run` (one thread: the publishes one after the other, in dbt's
    order): the second to publish is combined with the first through the project's one store
    (at the larger k) and refused, with the figures an independent record-linked check of
    both gives, or built as a refresh of the first (its cells held fixed) and published; either
    way the two published tables together are k-anonymous."""
    variables = release_vars(name="combined_it")
    variables["deid_releases"] = {"it_second": {**variables["deid_release"], "name": "it_second",
                                                "tau": 0.34}}
    # A. without the line lock (dropped, as on a warehouse of before it, and the publish models
    # run without what creates it: the model deid_release_history_init not selected before
    # issue 33, now dbt run without the package's on-run-start hook prepare_release_tables,
    # dbt_without_release_tables_hook.py): both publish models on four threads could each read
    # the store before the other writes, so each is refused naming the lock. Review of session
    # 5: before this, both published 4,000 rows, never combined (2 records below k = 5,
    # smallest 4).
    (tmp_path / "nolock").mkdir()
    init = build_release(it_database, tmp_path / "nolock", variables, command="run",
                         select="deid_release_plan")  # the hook creates the tables
    assert init.ok, init.output[-3000:]
    with duckdb.connect(str(init.database)) as con:
        assert con.execute("select count(*) from main_deid_work.deid_line_locks").fetchone()[0]
        con.execute("drop table main_deid_work.deid_line_locks")
    nolock = run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid",
                                   "tag:deid_release_it_second", "--threads", "4"],
                     tmp_path / "nolock", variables, init.database,
                     script=Path(__file__).with_name("dbt_without_release_tables_hook.py"))
    assert not nolock.ok
    assert not {"deid_published", "it_second__deid_published"} & nolock.tables("main")
    statuses = nolock.query("select release_name, status from deid_release_history")
    assert set(statuses.status) == {"refused"} and len(statuses) == 2, statuses
    assert "deid_line_locks is missing, so a publish of the same source on another thread" in (
        nolock.output.replace('"', "")), nolock.output[-3000:]
    # B. the release chains and the lock, one thread
    run = build_release(it_database, tmp_path, variables, command="run",
                        extra=["tag:deid_release_it_second", "--threads", "1"])
    history = run.query("select release_name, status, records_shared, gates_failed"
                        " from deid_release_history order by recorded_at")
    print(history.to_string())
    base = variables["deid_release"]
    combinations, k = base["combinations"], round(1 / base["tau"])
    prefixes = {"combined_it": "", "it_second": "it_second__"}
    published = [prefixes[n] for n in history.release_name[history.status == "published"]]
    linked = [_linked(run, p)[1] for p in published]
    qis = _linked(run, published[0])[0]
    truth, cells = combined_view(linked)
    figures = {"+".join(b): consistent_minimum(qis, truth, cells, b, k) for b in combinations}
    print(f"published {published}: combined view of the published tables {figures}")
    # what a recipient holds is k-anonymous together: on main 7a63135 both published and the
    # combined view of the two tables had records below k
    assert all(below == 0 for _s, below in figures.values()), figures
    if history.status.tolist() == ["published", "published"]:  # a refresh of the first
        assert history.records_shared.iloc[1] == len(linked[0])
        return
    assert history.status.tolist() == ["published", "refused"], history
    refused = history.iloc[1]
    assert refused.gates_failed == "combined_releases"
    assert refused.records_shared == len(linked[0])
    # the gate's figures are the independent check's with the refused candidate's records
    truth, cells = combined_view([*linked, _records(run, prefixes[refused.release_name])])
    below_k = {"+".join(b): consistent_minimum(qis, truth, cells, b, k) for b in combinations}
    print(f"with the refused candidate: {below_k}")
    failing = {c: f for c, f in below_k.items() if f[1] > 0}
    assert failing, below_k
    for combination, (smallest, below) in failing.items():
        assert (f"{combination}: {below} record(s) consistent with fewer than k = {k} combined"
                f" records (smallest {smallest})") in run.output, run.output[-3000:]
    # one store, one key, for the project's releases
    tables = run.tables("main_deid_work")
    assert {"deid_release_records", "deid_history_key"} <= tables
    assert not {"it_second__deid_release_records", "it_second__deid_history_key"} & tables


def test_the_var_deid_work_schema_moves_every_working_model(tmp_path) -> None:
    """Review 18, F4: docs/projects.md documents the var `deid_work_schema` (default
    `deid_work`) as the working schema, but dbt renders a package's dbt_project.yml without
    the root project's vars, so `+schema: "{{ var('deid_work_schema', ...) }}"` there always
    took the default: with the var set, the package's working models stayed in
    `<target>_deid_work` while the extra releases' (their YAML reads the var) moved, a split
    the publish step refuses (on ec04311: deid_input listed in main_deid_work). The var is
    now read in each working model's properties (YAML config), which dbt renders with the
    root's vars: every working model of both releases is in `<target>_<var>`, the publish
    models stay in the target schema."""
    variables = _two_releases()
    args = ["ls", "--select", "package:dbt_deid", "tag:deid_release_it_second",
            "--resource-type", "model", "--output", "json", "--output-keys", "name schema",
            "--quiet"]
    for var, working in ((None, "main_deid_work"),
                         ("deid_work_elsewhere", "main_deid_work_elsewhere")):
        if var is not None:
            variables["deid_work_schema"] = var
        run = run_dbt(INTEGRATION, args, tmp_path / (var or "default"), variables)
        assert run.ok, run.output[-3000:]
        nodes = [json.loads(line) for line in run.output.splitlines() if line.startswith("{")]
        schemas = {n["name"]: n["schema"] for n in nodes}
        published = {"deid_published", "it_second__deid_published"}
        assert published <= set(schemas) and len(schemas) > 20, schemas
        assert {schemas[n] for n in published} == {"main"}, schemas
        assert {s for n, s in schemas.items() if n not in published} == {working}, schemas
