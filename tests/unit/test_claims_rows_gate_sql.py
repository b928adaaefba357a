"""The claims published-rows gate (macros/gates/claims_publish_gates.sql, `<table>_rows`):
the written table holds exactly the rows of the table's input generalized to LOLA's release node
(computed by the gate: review 9, G1; here the generalization is stubbed by a table), as
multisets. It
reuses the project's multiset-equality proof gate_published_matches_sql (macros/gates/gates.sql,
one UNION ALL and GROUP BY), as the discharge publish step does; duplicates count ({a, a, b}
against {a, b, b} is refused: `EXCEPT` passed it before 5dda012). Rendered with Jinja outside
dbt and run on DuckDB in memory."""

from __future__ import annotations

from types import SimpleNamespace

import duckdb
import pytest

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT

FILES = [ROOT / "macros" / "gates" / "claims_publish_gates.sql",
         ROOT / "macros" / "gates" / "gates.sql"]
CFG = {"member_id": "member", "pseudonymize": {"patients": []},
       "demographic_qis": ["Age"], "release_columns": {"patients": []}}


class _Relation(str):
    """A relation as the macro sees it: its text, and its identifier."""

    @property
    def identifier(self) -> str:
        return str(self)


def _rows_gate(con: duckdb.DuckDBPyConnection) -> dict:
    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, ident=lambda n: '"' + n.replace('"', '""') + '"',
                claims_published_columns=lambda cfg, t: call("claims_published_columns")(cfg, t),
                gate_published_matches_sql=lambda *a: call("gate_published_matches_sql")(*a),
                claims_levels_sql=lambda cfg, lola: "select 1 as level",
                claims_generalize_sql=lambda cfg, t, base, h, lv: "select * from generalized"),
            "adapter": SimpleNamespace(
                dispatch=lambda name, package: call(f"default__{name}"),
                get_columns_in_relation=lambda rel: [
                    SimpleNamespace(name=r[0]) for r in con.execute(f"describe {rel}").fetchall()]),
            "ref": lambda package, name: _Relation(name),
            "run_query": lambda sql: SimpleNamespace(rows=con.execute(sql).fetchall()),
        }
    results = macro_caller(FILES, context)("claims_table_gate_results")(CFG, "patients", "written")
    (rows,) = [r for r in results if r["gate"] == "patients_rows"]
    return rows


@pytest.mark.parametrize(("written", "generalized", "passed"), [
    (["a", "b"], ["b", "a"], True),                  # the same rows in another order
    (["a", None, None], [None, "a", None], True),    # NULLs equal to each other
    (["a", "a", "b"], ["a", "b", "b"], False),       # same sets and counts, other multisets
    (["a", "b"], ["a", "b", "b"], False),            # a row missing
    (["a", "c"], ["a", "b"], False),                 # a row not in it
    ([], ["a"], False),
])
def test_published_rows_are_the_checked_rows_as_multisets(written, generalized, passed) -> None:
    con = duckdb.connect()
    for table, ages in [("written", written), ("generalized", generalized)]:
        con.execute(f'create table {table} (member integer, "Age" varchar)')
        for age in ages:
            con.execute(f"insert into {table} values (1, ?)", [age])
    result = _rows_gate(con)
    assert result["passed"] is passed, result["message"]
    assert result["figure"] == len(written) and result["limit"] == len(generalized)
    if not passed:
        assert "duplicates counted" in result["message"]
