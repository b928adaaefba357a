"""The column-lineage gate on a real dbt manifest (issue 17, item 4): a model declared as a
consumer of the published table (tag deid_consumer) passes when it selects published columns,
and fails naming the column when it joins a direct identifier back in from the raw source."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from dbt_deid.tools.cli import main as cli_main
from tests.integration.dbt_runner import INTEGRATION, project_vars, run_dbt

pytestmark = pytest.mark.dbt


def test_lineage_gate_names_a_direct_identifier_joined_back(it_database, tmp_path, capsys):
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    clean = {**project_vars(INTEGRATION), "deid_lineage_case": "clean"}
    run = run_dbt(INTEGRATION, ["build", "--select", "package:dbt_deid", "published_consumer"],
                  tmp_path / "clean", clean, db, artifacts=True)
    assert run.ok, run.output[-3000:]
    manifest = tmp_path / "clean" / "target" / "manifest.json"

    assert cli_main(["lineage", "--manifest", str(manifest), "--database", str(db),
                     "--json"]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out
    assert "model(s) (deid_published, published_consumer); 0 failure(s)" in out
    assert '"role": "pass_through"' in out and '"role": "quasi_identifier"' in out

    # the last history row is a release dbt skipped (record_skipped_releases): no lineage
    # recorded (NULL lineage_json); the gate reads the last row that recorded one (issue 35)
    with duckdb.connect(str(db)) as con:
        con.execute("insert into main.deid_release_history (release_name, published_relation,"
                    " status, recorded_at, settings_json, lineage_json) select release_name,"
                    " published_relation, 'refused', '9999-12-31T00:00:00Z', settings_json, null"
                    " from main.deid_release_history where status = 'published'")
    assert cli_main(["lineage", "--manifest", str(manifest), "--database", str(db)]) == 0
    assert "0 failure(s)" in capsys.readouterr().out

    joined = {**clean, "deid_lineage_case": "joined"}
    compiled = run_dbt(INTEGRATION, ["compile", "--select", "deid_published",
                                     "published_consumer"], tmp_path / "joined", joined, db)
    assert compiled.ok, compiled.output[-3000:]
    assert cli_main(["lineage", "--manifest",
                     str(tmp_path / "joined" / "target" / "manifest.json"),
                     "--database", str(db)]) == 1
    out = capsys.readouterr().out
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 1, out
    assert fails[0].startswith("FAIL published_consumer.health_card_number: derives from")
    assert "discharge_abstracts.health_card_number (direct_identifiers" in fails[0]
    assert "1 failure(s)" in out
