"""Column lineage gate (dbt_deid.dbt_side.lineage) on small hand-written manifests: what passes
(released
QIs, pass-through, other relations) and what fails (direct identifiers, record ids, raw QIs,
untraceable models), and which models count as declared consumers."""

from __future__ import annotations

import pytest

from dbt_deid.dbt_side.lineage import check_manifest, declared_consumers, roles_from_settings
from dbt_deid.errors import DataError

SETTINGS = {
    "source": "src",
    "record_id": "rid",
    "direct_identifiers": ["name"],
    "excluded": ["cost"],
    "pass_through": ["outcome"],
    "quasi_identifiers": {"age": {"level": 1}, "dx_block": {"column": "dx", "level": 2}},
}
SCHEMA = {"db": {
    "main": {
        "src": {"rid": "int", "name": "text", "cost": "int", "outcome": "text", "age": "int",
                "dx": "text"},
        "deid_published": {"age": "text", "dx_block": "text", "outcome": "text"},
        "lookup": {"outcome": "text", "label": "text"},
    },
    "main_deid_work": {
        "deid_release_gate": {"rid": "int", "age": "text", "dx_block": "text",
                              "age__original": "int"},
    },
}}
PUBLISH = ('select s."age" as "age", s."dx_block" as "dx_block", src."outcome" as "outcome"'
           ' from "db"."main"."src" as src inner join "db"."main_deid_work"."deid_release_gate"'
           ' as s on s."rid" = src."rid"')


def _node(name, sql, *, package="proj", materialized="table", tags=(), parents=(),
          resource_type="model", schema="main", language="sql"):
    return {"name": name, "resource_type": resource_type, "package_name": package,
            "relation_name": f'"db"."{schema}"."{name}"', "compiled_code": sql,
            "language": language, "config": {"materialized": materialized}, "tags": list(tags),
            "depends_on": {"nodes": list(parents)}}


def _manifest(consumer_sql=None, *, tags=("deid_consumer",), exposure=False,
              language="sql"):
    nodes = {
        "model.proj.src": _node("src", "select 1"),
        "model.dbt_deid.deid_release_gate": _node(
            "deid_release_gate", "select * from x", package="dbt_deid", materialized="view",
            schema="main_deid_work"),
        "model.dbt_deid.deid_published": _node(
            "deid_published", PUBLISH, package="dbt_deid", materialized="deid_publish",
            parents=["model.proj.src", "model.dbt_deid.deid_release_gate"]),
        "seed.proj.lookup": _node("lookup", None, resource_type="seed"),
    }
    exposures = {}
    if consumer_sql is not None:
        nodes["model.proj.mart"] = _node("mart", consumer_sql, tags=tags, language=language,
                                         parents=["model.dbt_deid.deid_published"])
        if exposure:
            exposures["exposure.proj.dash"] = {"depends_on": {"nodes": ["model.proj.mart"]}}
    return {"nodes": nodes, "sources": {}, "exposures": exposures}


def _check(consumer_sql=None, **kw):
    result = check_manifest(_manifest(consumer_sql, **kw), SETTINGS, SCHEMA,
                            "model.dbt_deid.deid_published")
    return {(c.model, c.column): c for c in result}


def test_publish_model_traces_to_released_qis_and_pass_through():
    got = _check()
    assert set(got) == {("deid_published", c) for c in ("age", "dx_block", "outcome")}
    assert all(c.passed for c in got.values())
    assert [o.role for o in got["deid_published", "outcome"].origins] == ["pass_through"]
    assert "released level of source column dx" in got["deid_published", "dx_block"].origins[0].why


def test_consumer_selecting_published_columns_and_a_lookup_passes():
    got = _check('select p.*, l.label from "db"."main"."deid_published" as p'
                 ' left join "db"."main"."lookup" as l on l.outcome = p.outcome')
    assert all(c.passed for c in got.values())
    assert {c for m, c in got if m == "mart"} == {"age", "dx_block", "outcome", "label"}
    assert got["mart", "label"].origins[0].role == "other"


@pytest.mark.parametrize(("expr", "role"), [
    ("upper(s.name)", "direct_identifiers"),  # computed from a direct identifier
    ("s.rid", "record_id"),
    ("s.cost", "excluded"),
    ("s.age", "quasi_identifier"),            # the raw QI, not the released level
])
def test_consumer_joining_the_source_back_fails_naming_the_column(expr, role):
    got = _check(f'select p.age, {expr} as leaked from "db"."main"."deid_published" as p'
                 ' join "db"."main"."src" as s on s.outcome = p.outcome')
    assert got["mart", "age"].passed
    leaked = got["mart", "leaked"]
    assert not leaked.passed
    assert [(o.relation, o.role) for o in leaked.origins] == [("db.main.src", role)]


def test_working_table_original_values_fail():
    got = _check('select g.age__original as age_exact from'
                 ' "db"."main_deid_work"."deid_release_gate" as g')
    origin = got["mart", "age_exact"].origins[0]
    assert not origin.allowed and "source level" in origin.why


def test_a_python_consumer_cannot_be_traced_and_fails_closed():
    got = _check("def model(dbt, session): ...", language="python")
    # a Python model has no SQL to trace: the check fails it rather than passing it
    bad = got["mart", "*"]
    assert not bad.passed and "Python models cannot be traced" in bad.origins[0].why


def test_consumers_are_tagged_or_behind_an_exposure():
    assert declared_consumers(_manifest("select 1 as x"),
                              {"model.dbt_deid.deid_published"}) == ["model.proj.mart"]
    assert declared_consumers(_manifest("select 1 as x", tags=()),
                              {"model.dbt_deid.deid_published"}) == []
    assert declared_consumers(_manifest("select 1 as x", tags=(), exposure=True),
                              {"model.dbt_deid.deid_published"}) == ["model.proj.mart"]


def test_roles_and_missing_source():
    assert roles_from_settings(SETTINGS) == {
        "rid": "record_id", "name": "direct_identifiers", "cost": "excluded",
        "outcome": "pass_through", "age": "quasi_identifier", "dx": "quasi_identifier"}
    with pytest.raises(DataError, match="release source 'elsewhere'"):
        check_manifest(_manifest(), {**SETTINGS, "source": "elsewhere"}, SCHEMA,
                       "model.dbt_deid.deid_published")
