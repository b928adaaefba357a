"""The claims release's retained patients and claims (models/longitudinal/
deid_claims_retained_*.sql, macros/longitudinal/claims_retained_sql.sql): every patient
except those flagged in deid_claims_stigmatized_members (El Emam et al. 2012, "Removal of
High-Risk Patients and Claims"). A NULL member id among the flagged members emptied both
tables on 5dda012 (`NOT IN` is unknown for every row once its list holds a NULL), and rows
without a member id were dropped silently whatever was flagged; NOT EXISTS keeps every
unflagged row (a NULL member id is flagged only when the flagged list holds NULL: claims
without a member id had a stigmatized code). The model files rendered with Jinja outside dbt
and run on DuckDB in memory."""

from __future__ import annotations

from types import SimpleNamespace

import duckdb
import jinja2
import pytest

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT


def _model_sql(table: str) -> str:
    """The model file rendered, its macro claims_retained_sql (macros/longitudinal) too."""
    text = (ROOT / "models" / "longitudinal" / f"deid_claims_retained_{table}.sql").read_text()
    refs = {"deid_claims_pseudonymized_claims": "claims",
            "deid_claims_pseudonymized_patients": "patients",
            "deid_claims_stigmatized_members": "flagged"}
    namespace = SimpleNamespace(
        claims_release_enabled=lambda: True,
        claims_release_config=lambda: SimpleNamespace(member_id="MemberID"),
        ident=lambda n: '"' + n + '"', own=lambda m: m)
    call = macro_caller([ROOT / "macros" / "longitudinal" / "claims_retained_sql.sql"],
                        lambda call: {"dbt_deid": namespace, "adapter": SimpleNamespace(
                            dispatch=lambda name, package: call(f"default__{name}"))})
    namespace.claims_retained_sql = call("claims_retained_sql")
    return jinja2.Environment(extensions=["jinja2.ext.do"]).from_string(text).render(
        config=lambda **kw: "", ref=lambda package, name: refs[name], dbt_deid=namespace)


@pytest.mark.parametrize("table", ["patients", "claims"])
def test_a_null_flagged_member_id_does_not_empty_the_release(table: str) -> None:
    con = duckdb.connect()
    con.execute('create table patients as select * from (values (\'p1\'), (\'p2\'), (null))'
                ' as t("MemberID")')
    con.execute('create table claims as select * from (values (\'p1\', 1), (\'p2\', 2),'
                ' (\'p2\', 3), (null, 4)) as t("MemberID", claim)')
    con.execute("create table flagged as select * from (values ('p1', 1), (null, 1))"
                " as t(member_id, flagged_claims)")
    kept = con.execute(f'select "MemberID" from ({_model_sql(table)}) as r order by 1'
                       ).fetchall()
    # p1 is flagged, and so are the claims without a member id (a stigmatized claim among
    # them: the flagged list's NULL), removed with that "member"; p2 is kept
    assert kept == ([("p2",)] if table == "patients" else [("p2",), ("p2",)])
    # nothing flagged: every row is kept, those without a member id too (`NOT IN` dropped
    # them silently: NULL NOT IN (...) is unknown)
    con.execute("delete from flagged")
    assert len(con.execute(f"select * from ({_model_sql(table)}) as r").fetchall()) == (
        3 if table == "patients" else 4)
    con.execute("insert into flagged values ('p2', 2)")
    assert con.execute(f'select count(*) from ({_model_sql(table)}) as r where "MemberID"'
                       " is null").fetchone()[0] == 1
