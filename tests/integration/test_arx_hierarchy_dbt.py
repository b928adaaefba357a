"""Hierarchy files as users have them (issue 19, item 3): an ARX hierarchy file (no header row,
`;`-separated) loaded as a dbt seed the way docs/configuration.md documents (`+delimiter: ";"` and a
one-line model calling dbt_deid.arx_hierarchy) releases like the same hierarchy with a header;
used directly, the missing-value error says the header row looks like data."""

from __future__ import annotations

import copy

import pytest

from tests.integration.dbt_runner import INTEGRATION, build_release, project_vars

pytestmark = pytest.mark.dbt


def _release(province: dict) -> dict:
    variables = project_vars(INTEGRATION)
    release = copy.deepcopy(variables["deid_release"])
    release["quasi_identifiers"]["province"] = province
    variables["deid_release"] = release
    return variables


def test_headerless_arx_hierarchy_releases_like_the_headed_one(it_database, tmp_path) -> None:
    (tmp_path / "arx").mkdir()
    (tmp_path / "headed").mkdir()
    arx = build_release(it_database, tmp_path / "arx",
                        _release({"hierarchy": "province_hierarchy_from_arx", "level": 1}))
    assert arx.ok, arx.output[-3000:]
    headed = build_release(it_database, tmp_path / "headed",
                           _release({"hierarchy": "province_hierarchy", "level": 1}))
    assert headed.ok, headed.output[-3000:]
    # the first line of the file (ON;Central;*) is a hierarchy row, not lost as a header
    levels = arx.query(
        "select original_value, generalized_value from deid_hierarchy"
        " where qi_name = 'province' and level = 1 order by 1")
    assert ("ON", "Central") in set(map(tuple, levels.to_numpy().tolist()))
    same = headed.query(
        "select original_value, generalized_value from deid_hierarchy"
        " where qi_name = 'province' and level = 1 order by 1")
    assert levels.to_numpy().tolist() == same.to_numpy().tolist()
    key = "abstract_id"
    a = arx.query(f"select * from deid_suppressed order by {key}")
    b = headed.query(f"select * from deid_suppressed order by {key}")
    assert a["province"].tolist() == b["province"].tolist()


def test_headerless_seed_used_directly_says_its_header_looks_like_data(
    it_database, tmp_path
) -> None:
    run = build_release(it_database, tmp_path,
                        _release({"hierarchy": "province_hierarchy_arx", "level": 1}))
    assert not run.ok
    assert "is missing from hierarchy 'province_hierarchy_arx'" in run.output, run.output[-3000:]
    assert "header row looks like data" in run.output
    assert "dbt_deid.arx_hierarchy('province_hierarchy_arx')" in run.output
    assert "deid_published" not in run.tables()
