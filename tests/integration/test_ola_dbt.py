"""dbt integration of OLA (issue 4, items 3 and 4): the search on the pattern table, the chosen
levels driving deid_generalized, record-level or cell suppression after it, the gates, the
"no node passes" gate (El Emam et al. 2009 (CJHP) flow chart) and k from the population
(El Emam et al. 2012 eq. 3).

Runs ``dbt build`` in ``integration_tests`` on a copy of one prebuilt DuckDB file per test.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from dbt_deid.dbt_side.glue.report_inputs import report_input_parts
from dbt_deid.ola import run_ola
from tests.combined_view_check import level_map, linked_violations, mixed_level_figures
from tests.independent_check import smallest_class
from tests.integration.dbt_runner import (
    INTEGRATION,
    NO_REPORT,
    DbtRun,
    build_release,
    check_settings,
    release_vars,
    run_dbt,
)

pytestmark = pytest.mark.dbt

QIS = ["province", "age", "gender", "admission_date"]
COMBINATIONS = [["province", "age", "gender"], ["age", "gender", "admission_date"]]


def _release(**changes) -> dict:
    """The integration release narrowed to four QIs with room to search (48 nodes); the other
    QI columns of the source are excluded (every column has a role)."""
    base = {
        "quasi_identifiers": {
            "province": {"hierarchy": "province_hierarchy", "level": 0},
            "age": {"rule": {"type": "interval", "levels": [
                {"width": 5, "top_code": 90}, {"width": 10, "top_code": 90},
                {"width": 20, "top_code": 80}]}, "level": 0},
            "gender": {"hierarchy": "gender_hierarchy", "level": 0},
            "admission_date": {"rule": {"type": "date", "levels": [
                {"trunc": "month"}, {"trunc": "quarter"}]}, "level": 1},
        },
        "excluded": ["cmg", "total_cost_cad", "los_days", "mrdx", "cci_code"],
        "combinations": COMBINATIONS, "max_suppression": 0.05, "column_suppression_cap": 0.05,
        "generalization": {"search": "ola"},
    }
    return release_vars(**{**base, **changes})


def _build(it_database: Path, tmp: Path, variables: dict, command: str = "build",
           report: bool = False):
    return build_release(it_database, tmp, variables, command, report=report)


def _independent_hierarchies(long: pd.DataFrame, patterns: pd.DataFrame,
                             mins: dict[str, int]) -> dict[str, pd.DataFrame]:
    out = {}
    for q, lo in mins.items():
        rows = long[long["qi_name"] == q]
        top = int(rows["level"].max())
        wide = rows.pivot(index="original_value", columns="level", values="generalized_value")
        frame = wide[list(range(lo, top + 1))].drop_duplicates()
        out[q] = frame[frame[lo].isin(set(patterns[q]))].reset_index(drop=True)
    return out


@pytest.fixture(scope="module")
def records_build(it_database, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ola_records")
    variables = _release(report={"path": str(tmp / "reports" / "release.html")})
    run = _build(it_database, tmp, variables, report=True)  # the report test reads it
    assert run.ok, run.output[-4000:]
    return run


def test_ola_levels_match_run_ola(records_build) -> None:
    run = records_build
    levels = run.query("select qi_name, level, min_level from deid_ola_levels order by qi_order")
    patterns = run.query("select * from deid_ola_patterns")
    long = run.query("select * from deid_hierarchy")
    mins = dict(zip(levels["qi_name"], levels["min_level"], strict=True))
    direct = run_ola(patterns, _independent_hierarchies(long, patterns, mins), k=5,
                     max_suppression=0.05, metric="entropy", combinations=COMBINATIONS)
    assert direct.chosen is not None
    chosen = {q: mins[q] + lvl for q, lvl in direct.chosen_levels().items()}
    assert dict(zip(levels["qi_name"], levels["level"], strict=True)) == chosen
    report = run.query("select * from deid_ola_search")
    kmin = report[report["role"] == "k_minimal"]
    assert len(kmin) == len(direct.k_minimal) and kmin["k_minimal"].all()
    assert report["chosen"].sum() == 1 and (report["chosen"] == report["optimal"]).all()
    chosen = report[report["chosen"]]
    assert chosen["suppressed"].item() == direct.suppressed
    assert chosen["role"].item() == ("k_minimal" if direct.chosen_is_k_minimal else "optimal")
    assert kmin["best_k_minimal"].sum() == 1 and not report.loc[
        report["role"] != "k_minimal", "best_k_minimal"].any()


def test_report_plots_the_nodes_the_search_evaluated(records_build) -> None:
    """Issue 36 item 4 through dbt: the release report (written by deid_release_report) plots
    every node of deid_report_inputs' search_nodes part (the nodes the search evaluated, read
    from the warehouse and split as the report splits it),
    with one released node whose levels are the published ones and the MaxSup line."""
    run = records_build
    nodes = report_input_parts(run.query("select * from deid_report_inputs"))["search_nodes"]
    assert list(nodes.columns[:len(QIS)]) == QIS
    search = run.query("select * from deid_ola_search where role <> 'top'")
    assert len(nodes) == len(search) == int(nodes["nodes_evaluated"].iloc[0])
    assert (nodes["metric"] == "entropy").all()
    same = nodes.merge(search, on=QIS, suffixes=("", "_search"))
    assert len(same) == len(nodes)  # one row per node, its value of the metric in full precision
    assert (same["information_loss"] == same["entropy"]).all()
    assert (same["suppressed"] == same["suppressed_search"]).all()
    levels = run.query("select qi_name, level from deid_ola_levels order by qi_order")
    published = ",".join(str(int(v)) for v in levels["level"])
    chosen = nodes[nodes["chosen"]]
    assert ",".join(str(int(chosen[q].item())) for q in QIS) == published
    path = Path(run.query("select path from deid_release_report")["path"][0])
    page = path.read_text(encoding="utf-8")
    svgs = re.findall(r'<svg[^>]*class="risk-utility".*?</svg>', page, re.S)
    assert len(svgs) == 1, "one risk-utility picture"
    marks = re.findall(r'class="node (pass|fail|released)" data-node="([^"]*)"', svgs[0])
    assert len(marks) == len(nodes)
    assert [n for kind, n in marks if kind == "released"] == [published]
    assert 'class="maxsup"' in svgs[0] and "MaxSup 5%" in svgs[0]
    assert f"all {len(nodes):,} nodes the search evaluated" in page
    for q, level in zip(levels["qi_name"], levels["level"], strict=True):  # the status table
        row = rf'<td class="l">{q}</td>(?:(?!</tr>).)*?<td[^>]*>{int(level)} '
        assert re.search(row + r"\(chosen by the optimal OLA search\)</td>", page, re.S), q


def test_published_uses_chosen_levels_with_record_suppression(records_build) -> None:
    run = records_build
    assert "deid_published" in run.tables() and "ERROR=0" in run.output
    levels = run.query("select qi_name, level from deid_ola_levels")
    hier = run.query("select * from deid_hierarchy")
    s = run.query("select * from deid_suppressed")
    for q, lvl in zip(levels["qi_name"], levels["level"], strict=True):
        allowed = set(hier.loc[(hier["qi_name"] == q) & (hier["level"] == lvl),
                               "generalized_value"])
        assert set(s[f"{q}__generalized"]) <= allowed, q
    nulls = s[QIS].isna()
    assert (nulls.all(axis=1) == nulls.any(axis=1)).all()  # record-level: all QIs or none
    chosen = run.query("select suppressed from deid_ola_search where chosen").iloc[0, 0]
    suppressed = int(nulls.all(axis=1).sum())
    assert suppressed == chosen or (0 < chosen < 5 and suppressed == 5)
    published = run.query("select * from deid_published")
    for b in COMBINATIONS:
        assert smallest_class(published, b) >= 5, b
    # issue 35: an ungeneralized number stays a number (the source's BIGINT), a generalized one
    # is an interval label; the admission date's month or quarter is a period, not a day
    chosen = dict(zip(levels["qi_name"], levels["level"], strict=True))
    types = dict(run.query("select column_name, data_type from information_schema.columns"
                           " where table_name = 'deid_published'").itertuples(index=False))
    if chosen["age"] == 0:
        assert types["age"] == "BIGINT"  # the source column's type (a pandas int64)
    else:
        assert published["age"].dropna().str.match(r"^(\[\d+, \d+\)|\d+\+)$").all()
    assert types["province"] == types["admission_date"] == "VARCHAR"
    assert published["admission_date"].dropna().str.match(r"^\d{4}-(\d{2}|Q[1-4])$").all()


def test_ola_with_two_combinations_finds_the_node_they_publish_at(records_build, it_database,
                                                                  tmp_path) -> None:
    """Issue 35, item 3: OLA judges each combination's classes (not all four QIs at once), so
    its node is one the same two combinations publish at with fixed levels (the default cell
    suppression), and all QIs at once would have asked for more generalization."""
    run = records_build
    assert "judging classes of each combination separately" in run.output
    levels = run.query("select qi_name, level, min_level from deid_ola_levels order by qi_order")
    chosen = dict(zip(levels["qi_name"], levels["level"], strict=True))
    patterns = run.query("select * from deid_ola_patterns")
    long = run.query("select * from deid_hierarchy")
    mins = dict(zip(levels["qi_name"], levels["min_level"], strict=True))
    all_qi = run_ola(patterns, _independent_hierarchies(long, patterns, mins), k=5,
                     max_suppression=0.05, metric="entropy")
    assert all_qi.chosen is None or sum(all_qi.chosen) > sum(
        chosen[q] - mins[q] for q in QIS), "the data must tell the two criteria apart"

    qis = _release()["deid_release"]["quasi_identifiers"]
    for q in QIS:
        qis[q]["level"] = int(chosen[q])
    fixed = _release(quasi_identifiers=qis)
    del fixed["deid_release"]["generalization"]
    published = _build(it_database, tmp_path, fixed)
    assert published.ok, published.output[-4000:]
    table = published.query("select * from deid_published")
    for b in COMBINATIONS:
        assert smallest_class(table, b) >= 5, b


def test_a_rekey_of_an_ola_release_is_refused(records_build, tmp_path) -> None:
    """Review 7, finding 2b: the line is checked for OLA releases too. The published OLA
    release re-keyed (another unique column as the record id) is refused before anything is
    computed; on a5cf6b0 it published (`records_shared 0`: every record looked new)."""
    db = tmp_path / "release.duckdb"
    shutil.copy(records_build.database, db)
    with duckdb.connect(str(db)) as con:
        con.execute("alter table main.discharge_abstracts add column intake_no bigint")
        con.execute("update main.discharge_abstracts set intake_no = abstract_id + 5000000000")
    base = _release()["deid_release"]
    run = run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid,+deid_patterns"], tmp_path,
                  _release(record_id="intake_no", excluded=[*base["excluded"], "abstract_id"]),
                  db)
    assert not run.ok
    assert ("record_id is intake_no but the published versions were keyed by abstract_id"
            in run.output), run.output[-3000:]
    assert "restart: {reason: '...'}" in run.output


def test_corrected_records_of_an_ola_version_are_linked_across_versions(it_database,
                                                                        tmp_path) -> None:
    """Review 10, B1: an OLA version is never built as a refresh, so the refresh's linked guard
    never ran on it. An OLA line at a MaxSup of 0.0002 (its node fully suppresses no record);
    three records' ages corrected upstream (+40 years); the next version, same settings, same
    node: each corrected record shows its new age bin while every other record present in both
    versions shows its true age twice, so a recipient who links the versions (row order) and
    knows the correction finds it alone (each version alone and the combined view pass). The
    gate combined_releases now counts that linked set in SQL and refuses; on e1bf34b it
    published ("published 4000 rows; 13 gates passed", linked consistent sets 1-2)."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    tight = _release(max_suppression=0.0002, column_suppression_cap=0.0002)
    command = ["run", "--select", "package:dbt_deid,+deid_published", *NO_REPORT]
    v1 = run_dbt(INTEGRATION, command, tmp_path / "v1", tight, db)
    assert v1.ok and "published 4000 rows" in v1.output, v1.output[-3000:]
    first = _checked_records(v1)
    with duckdb.connect(str(db)) as con:
        ids = [r[0] for r in con.execute(
            "select abstract_id from main.discharge_abstracts where age between 25 and 34"
            " order by abstract_id limit 3").fetchall()]
        con.execute("update main.discharge_abstracts set age = age + 40 where abstract_id in"
                    f" ({', '.join(map(str, ids))})")
    run = run_dbt(INTEGRATION, command, tmp_path / "v2", tight, db)
    assert _ola_levels(run) == _ola_levels(v1)
    linked = linked_violations(QIS, [first, _checked_records(run)], COMBINATIONS, 5)
    print(f"OLA line, 3 corrected records: {len(linked)} linked violations")
    assert linked, "the independent check must see the corrected records linked"
    assert not run.ok, run.output[-3000:]
    assert "published 4000 rows" not in run.output
    assert "changed record(s) consistent with fewer than k = 5 records linked across" \
        " versions" in run.output, run.output[-3000:]
    history = run.query("select status from deid_release_history order by recorded_at")
    assert list(history["status"]).count("published") == 1, history


def test_cell_suppression_and_population_k(it_database, tmp_path) -> None:
    """`suppression: cells` runs El Emam et al. 2011's combinations suppression on the chosen node;
    k from population_threshold 20 and sampling_fraction 0.25 is 5."""
    variables = _release(
        tau=None, population_threshold=20, sampling_fraction=0.25,
        generalization={"search": "ola", "suppression": "cells", "metric": "precision"},
    )
    run = _build(it_database, tmp_path, variables)
    assert run.ok, run.output[-4000:]
    assert set(run.query("select k from deid_ola_search")["k"]) == {5}
    s = run.query("select * from deid_suppressed")
    nulls = s[QIS].isna()
    assert (nulls.any(axis=1) & ~nulls.all(axis=1)).any()  # cells, not whole records
    published = run.query("select * from deid_published")
    for b in COMBINATIONS:
        assert smallest_class(published, b) >= 5, b


def test_no_node_passes_fails_the_gate_with_the_relax_message(it_database, tmp_path) -> None:
    qis = _release()["deid_release"]["quasi_identifiers"]
    qis["admission_date"]["level"] = 0
    variables = _release(
        quasi_identifiers=qis, max_suppression=0.0,
        generalization={"search": "ola", "max_levels": dict.fromkeys(QIS, 0)},
    )
    run = _build(it_database, tmp_path, variables)
    assert not run.ok
    assert "deid_gate_ola_node_found" in run.output
    tables = run.tables()
    assert "deid_ola_levels" in tables
    assert not {"deid_generalized", "deid_published"} & tables
    message = run.query("select distinct message from deid_ola_levels").iloc[0, 0]
    assert "MaxSup" in message and "max_suppression to at least" in message
    assert "tau" in message and "generalization.max_levels" in message
    assert "province (0 of 2)" in message


#: Bad search and sampling settings (issues 18 and 36), each failing the parse with these words in
#: its message.
BAD_SETTINGS = {
    "unknown": ({"generalization": {"search": "ola", "max_node": 10}},
                ["max_node", "unknown setting"]),
    "max_seconds": ({"generalization": {"search": "ola", "max_seconds": 0}},
                    ["generalization.max_seconds"]),
    "heuristic_seconds": ({"generalization": {"search": "ola", "heuristic_seconds": 0}},
                          ["generalization.heuristic_seconds"]),
    "sampling_fraction": ({"tau": None, "population_threshold": 20, "sampling_fraction": 1.5},
                          ["sampling_fraction", "(0, 1]"]),
}


@pytest.fixture(scope="module")
def bad_setting_runs(tmp_path_factory) -> dict[str, DbtRun]:
    """Every case of BAD_SETTINGS through the validator the parse runs (the package's
    release_config, given the release: ``check_settings``), in one dbt process on the project's
    saved parse instead of a full parse and compile per case; test_search_budget_settings_...
    compiles the first case for real, showing that the validator's error fails `dbt compile`."""
    runs = check_settings([("release", _release(**changes)["deid_release"])
                           for changes, _ in BAD_SETTINGS.values()],
                          tmp_path_factory.mktemp("ola_settings"))
    return dict(zip(BAD_SETTINGS, runs, strict=True))


def _assert_named(run: DbtRun, case: str) -> None:
    assert not run.ok, (case, run.output[-2000:])
    for words in BAD_SETTINGS[case][1]:
        assert words in run.output, (case, run.output[-2000:])


def test_sampling_fraction_outside_unit_interval_is_an_error(bad_setting_runs) -> None:
    _assert_named(bad_setting_runs["sampling_fraction"], "sampling_fraction")


def test_search_budget_settings_are_validated_and_enforced(
        it_database, bad_setting_runs, tmp_path) -> None:
    """generalization.max_nodes / max_seconds (issue 18) and heuristic_seconds (issue 36):
    unknown names and bad values fail at compile time naming the setting; a lattice over
    max_nodes is searched by the heuristic search, and the levels table says so."""
    (tmp_path / "small").mkdir()
    unknown = _build(it_database, tmp_path, _release(**BAD_SETTINGS["unknown"][0]),
                     command="compile")
    _assert_named(unknown, "unknown")  # a real `dbt compile`
    for case in ("unknown", "max_seconds", "heuristic_seconds"):
        _assert_named(bad_setting_runs[case], case)
    run = _build(it_database, tmp_path / "small", _release(
        generalization={"search": "ola", "max_nodes": 10}))
    assert run.ok, run.output
    assert "48 nodes" in run.output and "generalization.max_nodes = 10" in run.output
    levels = run.query("select qi_name, level, search from deid_ola_levels")
    assert set(levels["search"]) == {"heuristic"} and levels["level"].notna().all()
    report = run.query("select role, search, passes from deid_ola_search where chosen")
    assert report.values.tolist() == [["heuristic", "heuristic", True]]
    assert "deid_published" in run.tables()


def _ola_levels(run: DbtRun) -> dict[str, int]:
    levels = run.query("select qi_name, level from deid_ola_levels")
    return {q: int(v) for q, v in zip(levels["qi_name"], levels["level"], strict=True)}


def test_publish_refuses_levels_other_than_the_checked_ones(it_database, tmp_path) -> None:
    """Review 9, G4: the publish step formatted every cell (and recorded the history's levels)
    from deid_ola_levels as it was at publish time, bound to neither the gate table nor the
    checked release. (1) The release checked, not published (OLA: age level 3, 20-year bins);
    (2) `dbt run -s +deid_ola_levels` under another `generalization.max_levels` (the levels
    table now says age 2); (3) `dbt run -s deid_published` with the original vars: on da67971
    "published 4000 rows; 11 gates passed", every checked `0-19` published as the level-2
    interval `[0, 10)` and the history recording age level 2. It is refused now, and so is
    (4) the gate table rebuilt over the stale checked release (`dbt run -s deid_gate_results+`;
    on da67971 also "published 4000 rows; 11 gates passed"): the checked release was not
    generalized at the levels it would record."""
    variables = _release()
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    checked = run_dbt(INTEGRATION, ["build", "--select", "package:dbt_deid", "--exclude",
                                    "deid_published", *NO_REPORT[1:]], tmp_path / "a",
                      variables, db)
    assert checked.ok, checked.output[-4000:]
    chosen = _ola_levels(checked)
    assert chosen["age"] == 3, chosen  # the data must make OLA choose the 20-year bins
    assert set(checked.query("select gate, passed from deid_gate_results")["passed"]) == {True}

    other = _release()
    other["deid_release"]["generalization"]["max_levels"] = {"age": 2}
    preview = run_dbt(INTEGRATION, ["run", "--select", "+deid_ola_levels"], tmp_path / "b",
                      other, db)
    assert preview.ok, preview.output[-4000:]
    assert _ola_levels(preview)["age"] == 2

    def refused(run: DbtRun) -> None:
        assert not run.ok, run.output[-4000:]
        assert "published 4000 rows" not in run.output
        history = run.query("select status from deid_release_history")
        assert "published" not in set(history["status"]), history
        assert "deid_published" not in run.tables()

    publish = run_dbt(INTEGRATION, ["run", "--select", "deid_published"], tmp_path / "c",
                      variables, db)
    refused(publish)
    assert ("the released levels changed since the gate table" in publish.output
            and "age 3 (now 2)" in publish.output), publish.output[-4000:]

    # the gate table and what reads it (the history's figures) rebuilt, the release not
    regated = run_dbt(INTEGRATION, ["run", "--select", "deid_gate_results+", "--exclude",
                                    "*deid_release_report"], tmp_path / "d", variables, db)
    refused(regated)
    assert "dbt_deid gate released_levels FAILED" in regated.output, regated.output[-4000:]
    gates = regated.query("select gate, passed, message from deid_gate_results")
    row = gates[gates["gate"] == "released_levels"].iloc[0]
    assert not row["passed"] and "age" in row["message"], row["message"]


def _checked_records(run: DbtRun) -> dict[int, tuple[tuple, tuple]]:
    """record id -> (published cells, true values at the released level) of the checked
    release (deid_suppressed), read with the test's own query."""
    cols = ", ".join(f"{q}, {q}__generalized" for q in QIS)
    out = {}
    for row in run.query(f"select abstract_id, {cols} from deid_suppressed").itertuples(
            index=False):
        values = [None if pd.isna(v) else v for v in row[1:]]
        out[int(row[0])] = (tuple(values[0::2]), tuple(values[1::2]))
    return out


def test_a_later_version_at_other_levels_is_checked_at_the_levels_published(
        records_build, tmp_path) -> None:
    """Review 9, G4 follow-up: the history of an OLA line records the levels the store's
    labels are at (the gate table's, proven from the checked release), so a later version at
    other levels (here `max_levels: {age: 2}`: age 2, gender 1 after age 3, gender 0) is
    combined with the first at mixed levels, each store row read at the level it was released
    at: the gate's figures are the independent check's (tests/combined_view_check.py, records
    linked by id), published or refused by them."""
    db = tmp_path / "release.duckdb"
    shutil.copy(records_build.database, db)
    first = DbtRun(0, "", db)
    levels1 = _ola_levels(first)
    recorded = json.loads(first.query("select released_levels_json from deid_release_history"
                                      " where status = 'published'").iloc[0, 0])
    assert {q: s["level"] for q, s in recorded.items()} == levels1
    rel1 = _checked_records(first)
    other = _release()
    other["deid_release"]["generalization"]["max_levels"] = {"age": levels1["age"] - 1}
    second = run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid,+deid_published"],
                     tmp_path / "v2", other, db)
    levels2 = _ola_levels(second)
    assert levels2 != levels1, (levels1, levels2)
    rel2 = _checked_records(second)
    up = level_map(second.query("select qi_name, original_value, level, generalized_value"
                                " from deid_hierarchy").itertuples(index=False), "<missing>")
    figures = mixed_level_figures(QIS, [(levels1, rel1), (levels2, rel2)], COMBINATIONS, 5, up)
    print(f"OLA line at mixed levels {levels1} then {levels2}: {figures}")
    history = second.query("select * from deid_release_history order by recorded_at")
    last = history.iloc[-1]
    assert "at mixed levels" in last["gates_json"], last["gates_json"]
    assert last["combined_min_consistent"] == min(s for s, _ in figures.values())
    gate = {f["combination"]: f["min_consistent"]
            for f in json.loads(last["line_json"])["combined"]}
    assert gate == {c: s for c, (s, _b) in figures.items()}
    below = sum(b for _s, b in figures.values())
    assert (last["status"] == "published") == (below == 0 and second.ok), second.output[-3000:]


def test_a_gate_table_rebuilt_at_another_fixed_level_is_refused(it_database, tmp_path) -> None:
    """Review 9, G4, with fixed levels: the release checked (not published) at age level 3; a
    `level` changed in the settings and only the gate table and what reads it rebuilt (`dbt
    run -s deid_gate_results+`) over the checked release built at level 3. The gate
    released_levels fails (every age is a level-3 bin, not a level-2 one) and nothing is
    published: the candidate showed each `0-19` as the level-2 interval `[0, 10)`."""
    qis = _release()["deid_release"]["quasi_identifiers"]
    qis["age"]["level"] = 3
    fixed = _release(quasi_identifiers=qis)
    del fixed["deid_release"]["generalization"]
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    checked = run_dbt(INTEGRATION, ["build", "--select", "package:dbt_deid", "--exclude",
                                    "deid_published", *NO_REPORT[1:]], tmp_path / "a", fixed, db)
    assert checked.ok, checked.output[-4000:]
    moved = _release(quasi_identifiers={**qis, "age": {**qis["age"], "level": 2}})
    del moved["deid_release"]["generalization"]
    run = run_dbt(INTEGRATION, ["run", "--select", "deid_gate_results+", "--exclude",
                                "*deid_release_report"], tmp_path / "moved", moved, db)
    assert not run.ok, run.output[-4000:]
    assert "published 4000 rows" not in run.output
    assert "dbt_deid gate released_levels FAILED" in run.output, run.output[-4000:]
    assert "age (level 2: " in run.output
    assert "published" not in set(run.query("select status from deid_release_history")["status"])
    assert "deid_published" not in run.tables()
