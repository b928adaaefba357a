"""The claims and text verdict fingerprints are a table, never a view (review r9-final, F1;
macros/gates/verdict_binding.sql).

deid_<kind>_verdict_inputs records the fingerprint of every relation the verdict assessed; the
publish gate <kind>_verdict_bound compares each with the relation as it is then. As a view (a
project's `+materialized: view` override, or a relation replaced by hand), every read at publish
computes the fingerprints of the relations as they are *now*, with the invocation id and settings
md5 baked in when the view was created: each relation was compared with itself and a verdict
computed on other detections (claims: other D2 records) published. Now the model refuses to be
built unless it is materialized as table, and the gate refuses a verdict-inputs relation that
is not a table.

default__verdict_inputs_sql and default__verdict_bound_result rendered with Jinja outside dbt
(tests/macro_render.py), the SQL run on DuckDB in memory with the package's DuckDB fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from tests.macro_render import CompilerError, macro_caller, raise_compiler_error

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "gates" / "verdict_binding.sql",
         ROOT / "macros" / "releases" / "upstream_not_built.sql",
         ROOT / "macros" / "publish" / "table_fingerprint.sql"]
#: kind -> (a raw input, the staged model the verdict and the published table read, the verdict
#: models)
KINDS = {"text": ("text_detections", "deid_text_detections", ["deid_text_risk_assessment"]),
         "claims": ("claims_claims", "deid_claims_d2", ["deid_claims_lola", "deid_claims_attack"])}
SETTINGS = {"name": "it_release", "tau": 0.05}
BUILD = "build-1"


class _Rel:
    """A relation as dbt's api.Relation renders it here: `schema.identifier`; `type` as
    adapter.get_relation gives it."""

    def __init__(self, identifier: str, type_: str | None = None) -> None:
        self.database, self.schema, self.identifier, self.type = "db", "main", identifier, type_

    def __str__(self) -> str:
        return f"{self.schema}.{self.identifier}"


def _caller(con: duckdb.DuckDBPyConnection, kind: str, materialized: str = "table",
            which: str = "build"):
    """The macros of verdict_binding.sql for `kind` on `con`, the model being built
    deid_<kind>_verdict_inputs with `materialized` (its config), under `dbt <which>`."""
    source, staged, _ = KINDS[kind]
    model = f"deid_{kind}_verdict_inputs"
    relations = [(f"input:{source}", _Rel(source)), (staged, _Rel(staged))]

    def get_relation(database: str, schema: str, identifier: str) -> _Rel | None:
        found = con.execute("select table_type from information_schema.tables"
                            " where table_schema = ? and table_name = ?",
                            [schema, identifier]).fetchall()
        if not found:
            return None
        return _Rel(identifier, "view" if found[0][0] == "VIEW" else "table")

    def columns(rel: object) -> list[SimpleNamespace]:
        """As dbt's adapters: no column of a relation that does not exist."""
        if get_relation("db", "main", str(rel).split(".")[-1]) is None:
            return []
        return [SimpleNamespace(name=r[0]) for r in con.execute(f"describe {rel}").fetchall()]

    def context(call):
        return {
            "var": lambda name, default=None: (
                SETTINGS if name == f"deid_{kind}_release" else default),
            "tojson": lambda v, sort_keys=False: json.dumps(v, sort_keys=sort_keys),
            "local_md5": lambda s: hashlib.md5(s.encode()).hexdigest(),
            "run_query": lambda sql: SimpleNamespace(rows=con.execute(sql).fetchall()),
            "ref": lambda package, name: _Rel(name),
            "adapter": SimpleNamespace(get_relation=get_relation, get_columns_in_relation=columns),
            "execute": True,
            "flags": SimpleNamespace(WHICH=which),
            "invocation_id": BUILD,
            "env_var": lambda name, default=None: default,
            "graph": SimpleNamespace(nodes={}),
            "selected_resources": [],
            "model": SimpleNamespace(unique_id=f"model.dbt_deid.{model}", name=model),
            "this": _Rel(model),
            "config": SimpleNamespace(get=lambda key, default=None: (
                materialized if key == "materialized" else default)),
            "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint"),
            "dbt_deid": SimpleNamespace(
                verdict_relations=lambda k: relations,
                verdict_models=call("verdict_models"),
                kind_settings_md5=call("kind_settings_md5"),
                verdict_chain_check=call("verdict_chain_check"),
                upstream_not_built=call("default__upstream_not_built"),
                table_fingerprint=call("table_fingerprint"),
                table_fingerprint_sql=call("duckdb__table_fingerprint_sql"),
                fingerprint_select_sql=lambda cols: call("duckdb__fingerprint_select_sql")(
                    cols, "", None, ["row_count", "fingerprint"]),
                _fingerprint_count=call("_fingerprint_count"),
                _fingerprint_when=call("_fingerprint_when"),
                _compile_only_command=lambda: which in ["compile", "generate", "list", "parse"],
                ident=lambda c: '"' + c + '"',
                literal=lambda v: "'" + str(v).replace("'", "''") + "'"),
        }
    return macro_caller(FILES, context)


def _built(kind: str, as_view: bool) -> duckdb.DuckDBPyConnection:
    """A built release of `kind`: its raw input and staged model (2 rows each), the verdict
    inputs (as a table, or as the view a `+materialized: view` override made before this fix)
    and the verdict model, which read those fingerprints under these settings."""
    source, staged, verdicts = KINDS[kind]
    con = duckdb.connect()
    for t in [source, staged]:
        con.execute(f"create table main.{t} as select * from"
                    " (values ('d1', 'NAME'), ('d2', 'DATE')) as t(doc_id, label)")
    sql = _caller(con, kind)("default__verdict_inputs_sql")(kind)
    con.execute(f"create {'view' if as_view else 'table'} main.deid_{kind}_verdict_inputs as {sql}")
    md5 = hashlib.md5(json.dumps(SETTINGS, sort_keys=True).encode()).hexdigest()
    for verdict in verdicts:
        con.execute(f"create table main.{verdict} as select 0.01 as upper, '{md5}' as settings_md5,"
                    f" '{BUILD}' as inputs_invocation_id")
    return con


def _new_detections(con: duckdb.DuckDBPyConnection, kind: str) -> None:
    """New records land in the input and the staged model is rebuilt alone (`dbt run -s
    deid_text_detections ...`): the verdict is not recomputed."""
    source, staged, _ = KINDS[kind]
    for t in [source, staged]:
        con.execute(f"insert into main.{t} values ('d3', 'NAME')")


@pytest.mark.parametrize("kind", ["text", "claims"])
@pytest.mark.parametrize("materialized", ["view", "incremental", "ephemeral", "materialized_view"])
def test_the_verdict_inputs_model_is_built_only_as_a_table(kind: str, materialized: str) -> None:
    """The model refuses any materialization but table, naming itself, the setting and the fix
    (before: rendered, and dbt created a view of the fingerprint queries)."""
    con = duckdb.connect()
    with pytest.raises(CompilerError) as err:
        _caller(con, kind, materialized)("default__verdict_inputs_sql")(kind)
    message = str(err.value)
    print(message)
    assert f"model deid_{kind}_verdict_inputs: must be materialized as table" in message
    assert f"got +materialized: {materialized}" in message
    assert f"publish gate {kind}_verdict_bound" in message
    assert "remove the project's +materialized override" in message


@pytest.mark.parametrize("kind", ["text", "claims"])
def test_a_command_that_only_compiles_renders_inputs_not_built_yet(kind: str) -> None:
    """`dbt docs generate` after a build that excluded this release compiles the verdict
    inputs while the relations they fingerprint were never built (CI on 6753a2f:
    "deid_text_documents ... cannot be fingerprinted: dbt lists no column of it", and the docs
    were not generated). A compile-only command renders null fingerprints; a build still
    refuses the relation dbt lists no column of."""
    con = duckdb.connect()
    sql = _caller(con, kind, which="generate")("default__verdict_inputs_sql")(kind)
    rows = con.execute(f"select relation_name, row_count, fingerprint from ({sql}) as t"
                       " order by 1").fetchall()
    assert [(r[1], r[2]) for r in rows] == [(None, None), (None, None)]
    with pytest.raises(CompilerError) as err:
        _caller(con, kind, which="build")("default__verdict_inputs_sql")(kind)
    assert "cannot be fingerprinted: dbt lists no column of it" in str(err.value)


@pytest.mark.parametrize("kind", ["text", "claims"])
def test_a_verdict_inputs_table_binds_the_verdict(kind: str) -> None:
    """As a table (the default) the gate passes on the relations the verdict assessed and
    refuses them once changed: the fingerprints are those of the build."""
    con = _built(kind, as_view=False)
    call = _caller(con, kind)
    rows = con.execute("select relation_name, row_count, invocation_id"
                       f" from deid_{kind}_verdict_inputs order by 1").fetchall()
    assert [(r[1], r[2]) for r in rows] == [(2, BUILD), (2, BUILD)]
    ok = call("default__verdict_bound_result")(kind)
    assert ok["passed"], ok["message"]
    _new_detections(con, kind)
    out = call("default__verdict_bound_result")(kind)
    assert not out["passed"]
    assert f"{KINDS[kind][1]} (main.{KINDS[kind][1]}) changed since the verdict was computed" \
        " (2 rows then, 3 now)" in out["message"]


@pytest.mark.parametrize("kind", ["text", "claims"])
def test_a_verdict_inputs_view_is_refused_at_publish(kind: str) -> None:
    """The verdict inputs a view (made by a `+materialized: view` override before this fix, or
    replaced by hand): after new detections the gate refused nothing before (on 3b6ae05:
    passed, "the verdict was computed under these settings on these inputs (2 relations
    fingerprinted, build build-1)"), every fingerprint computed anew at the read; now refused,
    naming the relation, also when nothing changed."""
    for changed in [True, False]:
        con = _built(kind, as_view=True)
        if changed:
            _new_detections(con, kind)
        out = _caller(con, kind)("default__verdict_bound_result")(kind)
        print(kind, "changed" if changed else "unchanged", out["passed"], out["message"])
        assert out["gate"] == f"{kind}_verdict_bound"
        assert not out["passed"], out["message"]
        assert f"main.deid_{kind}_verdict_inputs (the fingerprints of what the verdict" \
            " assessed) is a view, not a table" in out["message"]
        assert f"dbt build -s +tag:deid_{kind}" in out["message"]


def test_the_gate_table_reads_no_relation() -> None:
    """The discharge release's gate table (deid_gate_results) has no view hole: its SQL
    (gate_table_sql) is constants only, the verdicts and the binding (settings_md5, input_hash,
    checked_hash, released_levels, working_hashes, invocation_id) written as literals when it
    is built, so a view of it (a `+materialized: view` override) returns the same rows at every
    read. Run on a database holding no table at all."""
    con = duckdb.connect()
    binding = {"settings_md5": "s", "input_hash": "i", "checked_hash": "c",
               "released_levels": '{"age": 2}', "working_hashes": '{"deid_hierarchy": "h"}'}

    def context(call):
        return {"invocation_id": BUILD, "log": lambda *a, **k: "",
                "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint",
                                       type_int=lambda: "integer", type_boolean=lambda: "boolean"),
                "dbt_deid": SimpleNamespace(
                    literal=lambda v: "'" + str(v).replace("'", "''") + "'")}
    call = macro_caller([ROOT / "macros" / "gates" / "gate_table.sql"], context)
    results = [{"gate": "k_anonymity", "passed": True, "failures": 0, "message": "ok"},
               {"gate": "max_suppression", "passed": False, "failures": 3, "message": "3 records"}]
    sql = call("gate_table_sql")(results, binding)
    con.execute(f"create view gate_view as {sql}")
    rows = con.execute("select gate, passed, settings_md5, input_hash, checked_hash,"
                       " released_levels, working_hashes, invocation_id from gate_view"
                       " order by gate_order").fetchall()
    bound = ("s", "i", "c", '{"age": 2}', '{"deid_hierarchy": "h"}', BUILD)
    assert rows == [("k_anonymity", True, *bound), ("max_suppression", False, *bound)]
    assert con.execute("select count(*) from information_schema.tables where table_type <> 'VIEW'"
                       ).fetchone() == (0,)
