"""Small errors of issue 35 (item 7, the ones outside the settings), each failing on 732cd92:

* a DOUBLE column holding NaN, inf and 1e300 under an interval rule: the error names every
  kind of bad value (it named only 1e300);
* a source value equal to the missing label: the build refuses it, naming the model, column
  and the clash (it was merged with the NULLs; the CLI already refused);
* the history's version line does not restart at 1 when the DuckDB file is renamed (the
  catalog was part of the key);
* a publish-only build with other limits in ``--vars`` publishes nothing (the gate table was
  computed with other settings) and its history row records the limits it was refused at, the
  settings of its ``settings_json``; the published row keeps the limits its gates used.

Runs ``dbt build`` in ``integration_tests`` on copies of one prebuilt DuckDB file.
"""

from __future__ import annotations

import shutil

import duckdb
import pytest

from tests.integration.dbt_runner import (
    INTEGRATION,
    NO_REPORT,
    build_release,
    release_vars,
    run_dbt,
)

pytestmark = pytest.mark.dbt

ODD = "discharge_abstracts_odd_values"


def _odd_release(qi: str, spec: dict) -> dict:
    """The project's release on the odd-values source with QI ``qi`` added (in a combination
    of its own) and the other added columns excluded."""
    base = release_vars()["deid_release"]
    other = {"age_double", "ward", "odd_row"} - {qi}
    return release_vars(
        source=ODD,
        quasi_identifiers={**base["quasi_identifiers"], qi: spec},
        excluded=[*base.get("excluded", []), *sorted(other)],
        combinations=[*base["combinations"], [qi, "gender"]],
    )


def test_interval_rule_names_every_kind_of_bad_double(it_database, tmp_path) -> None:
    spec = {"rule": {"type": "interval", "levels": [{"width": 10, "top_code": 90}]}, "level": 1}
    run = build_release(it_database, tmp_path, _odd_release("age_double", spec))
    assert not run.ok
    line = next((x for x in run.output.splitlines() if "column 'age_double'" in x), "")
    assert "model deid_hierarchy: column 'age_double' has values that are not a number" in line
    assert "NaN in 1 record(s)" in line
    assert "infinite (inf or -inf) in 1 record(s)" in line
    assert "in 1 record(s), the first '1e+300'" in line
    assert "Conversion Error" not in run.output
    assert "deid_published" not in run.tables()


def test_a_source_value_equal_to_the_missing_label_is_refused(it_database, tmp_path) -> None:
    spec = {"rule": {"type": "prefix", "levels": [{"length": 4}]}, "level": 0}
    run = build_release(it_database, tmp_path, _odd_release("ward", spec))
    assert not run.ok
    assert ("column 'ward' holds the value '<missing>' in 80 record(s), which is the"
            " release's missing_label") in run.output, run.output[-3000:]
    assert "deid_published" not in run.tables()
    # another label: the same data publish, NULLs and '<missing>' kept apart
    (tmp_path / "other_label").mkdir()
    ok = build_release(it_database, tmp_path / "other_label", {
        **(v := _odd_release("ward", spec)),
        "deid_release": {**v["deid_release"], "missing_label": "(none recorded)"}})
    assert ok.ok, ok.output[-3000:]
    wards = set(ok.query("select distinct ward from deid_published")["ward"].dropna())
    assert {"<missing>", "(none recorded)"} <= wards


def test_history_version_survives_renaming_the_duckdb_file(default_release, tmp_path) -> None:
    renamed = tmp_path / "renamed_release.duckdb"
    shutil.copy(default_release.database, renamed)
    again = run_dbt(INTEGRATION, ["build", "--select", "package:dbt_deid", *NO_REPORT],
                    tmp_path, release_vars(), renamed)
    assert again.ok, again.output[-3000:]
    with duckdb.connect(str(renamed), read_only=True) as con:
        rows = con.execute("select published_relation, release_version from"
                           " main.deid_release_history where status = 'published'"
                           " order by recorded_at").fetchall()
    assert [v for _, v in rows] == [1, 2], rows
    assert rows[0][0] != rows[1][0]  # the catalog differs, the version line goes on


def test_publish_only_build_records_the_limits_its_gates_used(default_release, tmp_path) -> None:
    db = tmp_path / "release.duckdb"
    shutil.copy(default_release.database, db)
    with duckdb.connect(str(db), read_only=True) as con:
        computed = con.execute("select k, tau, max_suppression from main.deid_release_history"
                               " where status = 'published'").fetchall()
    assert computed == [(5, 0.2, 0.9)]
    # only the publish model, with other limits in --vars (k = 2): the gate table was computed
    # at k = 5 by the earlier build, so the release is refused (gate_table), and the refused
    # row says which limits were asked for, as its settings_json does
    run = run_dbt(INTEGRATION, ["build", "--select", "deid_published"], tmp_path,
                  release_vars(tau=0.5, max_suppression=0.5), db)
    assert not run.ok and "release refused, nothing published" in run.output
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("select k, tau, max_suppression, status, gates_failed, settings_json"
                           " from main.deid_release_history order by recorded_at").fetchall()
    assert rows[0][:4] == (5, 0.2, 0.9, "published")
    last = rows[-1]
    assert last[:4] == (2, 0.5, 0.5, "refused"), (last, run.output[-2000:])
    assert "gate_table" in last[4]
    assert '"tau": 0.5' in last[5] and '"max_suppression": 0.5' in last[5]
