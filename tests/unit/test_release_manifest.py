"""The release manifest outside dbt (issue 17): the report's "Computed from" section, the
history command's rendering, and one package version everywhere."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dbt_deid.dbt_side.glue.report import gate_table_manifest, manifest_fields
from dbt_deid.errors import DataError
from dbt_deid.report.html import ReleaseStatus, _status_sections
from dbt_deid.tools.commands.history import find_release, render_list, render_release

REPO = Path(__file__).resolve().parents[2]


def test_package_version_is_the_same_in_the_macro_pyproject_and_dbt_project():
    macro = (REPO / "macros/publish/materialization_deid_publish.sql").read_text()
    recorded = re.search(r"macro package_version\(\) -%\}\{\{ return\('([^']+)'\)", macro)
    assert recorded is not None
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    dbt_project = yaml.safe_load((REPO / "dbt_project.yml").read_text())["version"]
    assert recorded.group(1) == pyproject == dbt_project


def test_report_states_the_settings_hash_and_input_fingerprint():
    status = ReleaseStatus(
        gates=pd.DataFrame({"gate": ["k_anonymity"], "passed": [True], "message": ["ok"]}),
        released=pd.DataFrame({"quasi-identifier": ["age"], "source column": ["age"],
                               "level": ["1"]}),
        dropped={"record id": ["rid"]}, pass_through=[],
        manifest=manifest_fields({"settings_md5": "a" * 32, "input_rows": 4000,
                                  "input_hash": "b" * 32, "input_relation": '"db"."main"."src"',
                                  "unrelated": "x"}),
    )
    html = "".join(_status_sections(status))
    assert "Computed from" in html and "a" * 32 in html and "b" * 32 in html
    assert "settings hash" in html and "input fingerprint" in html and "unrelated" not in html
    no_manifest = "".join(_status_sections(ReleaseStatus(
        gates=status.gates, released=status.released, dropped={}, pass_through=[])))
    assert "Computed from" not in no_manifest


def test_the_report_shows_the_snapshot_fingerprint_the_gate_table_recorded():
    """The gate table (deid_gate_results) holds what deid_input_fingerprint held until session
    11: "Computed from" shows its snapshot fingerprint (snapshot_hash) as the input fingerprint,
    not the table's own input_hash (the source's, taken by input_unchanged)."""
    gates = pd.DataFrame({
        "gate_order": [2, 1], "gate": ["k_anonymity", "upstream_built"], "passed": [True, True],
        "settings_md5": ["a" * 32] * 2, "input_hash": ["s" * 32] * 2,
        "snapshot_hash": ["b" * 32] * 2, "input_rows": [4000, 4000],
        "input_relation": ['"db"."main"."src"'] * 2, "input_columns": ["rid, age"] * 2,
        "package_version": ["0.3.0"] * 2})
    fields = manifest_fields(gate_table_manifest(gates).iloc[0].to_dict())
    assert fields == {"settings hash (md5 of the settings JSON)": "a" * 32,
                      "package version": "0.3.0", "input": '"db"."main"."src"',
                      "input columns fingerprinted": "rid, age", "input rows": "4000",
                      "input fingerprint": "b" * 32}
    # no verdict, or a gate table an earlier dbt_deid wrote: no "Computed from"
    assert gate_table_manifest(gates.iloc[0:0]) is None
    assert gate_table_manifest(gates.drop(columns=["snapshot_hash"])) is None


HISTORY = pd.DataFrame({
    "release_id": ["abc123", "abd456", "ffff00"],
    "release_name": ["r", "r", "r"],
    "release_version": [1, 2, None],
    "status": ["published", "published", "refused"],
    "recorded_at": ["t1", "t2", "t3"],
    "published_rows": [10, 10, None],
    "settings_md5": ["s" * 32] * 3,
    "input_hash": ["i" * 32] * 3,
    "published_hash": ["p" * 32, "p" * 32, None],
    "gates_failed": ["", "", "max_suppression"],
    "gates_json": ['[{"gate": "k_anonymity", "passed": true}]'] * 3,
})


def test_history_list_and_show():
    listing = render_list(HISTORY)
    assert listing.count(" published ") == 2 and "max_suppression" in listing
    assert "p" * 12 in listing and "p" * 13 not in listing  # hashes shortened
    assert render_list(HISTORY.iloc[:0]) == "no release recorded"
    row = find_release(HISTORY, "abd")
    shown = render_release(row)
    assert "release_id: abd456" in shown and '"gate": "k_anonymity"' in shown
    with pytest.raises(DataError, match="matches 2 releases"):
        find_release(HISTORY, "ab")
    with pytest.raises(DataError, match="is not in deid_release_history"):
        find_release(HISTORY, "zzz")
