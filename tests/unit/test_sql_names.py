"""Names and values in SQL built by the Python side (issue 13 item 1)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.sql_names import _RESERVED, quote_ident, quote_literal, quote_relation
from dbt_deid.tools.commands.summary import render_summary

REPO = Path(__file__).resolve().parents[2]
HOSTILE = [
    'age" as v from t) as d); drop table canary; select (1 --',
    "Région /* \"nord\" */ ; --\nx",
    "it's",
    'a"b""c',
    "N",
    "n",
    "select",
    "中文 ü",
    "-- comment",
    "/* open",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_quoted_names_are_one_column_in_duckdb(name: str) -> None:
    """Whatever the name, it is one identifier: a table with that column reads back by it."""
    con = duckdb.connect()
    con.execute("create table canary as select 1 as x")
    con.execute(f"create table t as select 42 as {quote_ident(name)}")
    assert con.execute(f"select {quote_ident(name)} from t").fetchone() == (42,)
    assert [d[0] for d in con.execute("select * from t").description] == [name]
    assert con.execute("select x from canary").fetchone() == (1,)


@pytest.mark.parametrize("value", [*HOSTILE, "", "back\\slash'", "tab\tand\r\nlines"])
def test_literals_read_back_unchanged(value: str) -> None:
    con = duckdb.connect()
    assert con.execute(f"select {quote_literal(value)}").fetchone() == (value,)


def test_plain_names_stay_readable_and_reserved_words_are_quoted() -> None:
    assert quote_ident("age") == "age"
    assert quote_ident("n") == "n"
    assert quote_ident("Age") == '"Age"'
    assert quote_ident("order") == '"order"'
    assert quote_ident("a`b", quote="`") == "`a``b`"
    assert quote_relation("main", "deid_published") == "main.deid_published"


def test_nul_is_refused() -> None:
    with pytest.raises(ConfigError, match="NUL"):
        quote_ident("a\x00b")
    with pytest.raises(ConfigError, match="NUL"):
        quote_literal("a\x00b")


def test_reserved_words_match_the_dbt_macro() -> None:
    """One list in two languages: the dbt macro dbt_deid._reserved_words and sql_names; and
    default__ident's own copy (inline: a macro call per name cost more than the check), the
    words between single spaces."""
    text = (REPO / "macros" / "names" / "ident.sql").read_text()
    body = text[text.index("{% macro _reserved_words() -%}"):]
    body = body[:body.index("{%- endmacro %}")]
    assert set(re.findall(r"'([a-z_]+)'", body)) == set(_RESERVED)
    default = text[text.index("{% macro default__ident(name) -%}"):]
    default = default[:default.index("{%- endmacro %}")]
    (inline,) = re.findall(r"\(' ' ~ name ~ ' '\) not in '( [a-z_ ]+ )'", default)
    assert "  " not in inline and inline.split() == sorted(inline.split())
    assert set(inline.split()) == set(_RESERVED)


def test_summary_reads_a_schema_whose_name_is_hostile(tmp_path) -> None:
    """`summary --schema` is quoted: a schema named like SQL reads its own tables and runs
    nothing else."""
    schema = 'odd"; drop table main.canary; --'
    q = quote_ident(schema)
    db = tmp_path / "release.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create table main.canary as select 1 as x")
        con.execute(f"create schema {q}")
        con.execute(f"create table {q}.deid_release_plan as select * from (values"
                    " ('verified', 1, 0, 'a', null, null),"
                    " ('setting', 1, 0, null, 'release', 'r'),"
                    " ('setting', 2, 0, null, 'algorithm', 'combinations'),"
                    " ('setting', 3, 0, null, 'tau', '0.2'), ('setting', 4, 0, null, 'k', '5'),"
                    " ('setting', 5, 0, null, 'max_suppression', '0.5'))"
                    " as t(kind, item, position, column_name, setting, value)")
        con.execute(f"create table {q}.deid_diagnostics as select * from (values"
                    " ('risk_summary', 'a+b', 'published', 3, 5, 0.2, 0.1, 0.0, 5,"
                    "  null, null, null, null, null, null),"
                    " ('information_loss', null, null, null, null, null, null, null, null,"
                    "  'a', 0, 0.0, 0.0, 1.0, 1))"
                    " as t(diagnostic, combination, stage, classes, smallest_class, max_risk,"
                    " mean_risk, share_above_tau, min_consistent_exact, column_name,"
                    " suppressed_cells, share_cells_suppressed, share_records_with_suppression,"
                    " non_uniform_entropy, column_order)")
        con.execute(f"create table {q}.deid_published as select 1 as x")
    text = render_summary(db, schema, schema)  # published and working tables in one schema
    assert "Release r" in text and "1 records" in text
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select x from main.canary").fetchone() == (1,)


def test_ola_report_columns_match_the_core() -> None:
    """assert_release_names refuses QI names of the OLA node report's columns (ignoring case):
    its list is the core's REPORT_COLUMNS."""
    from dbt_deid.dbt_side.glue.ola import REPORT_COLUMNS

    text = (REPO / "macros" / "validation" / "assert_release_inputs.sql").read_text()
    line = next(x for x in text.splitlines() if "{%- for c in ['role'" in x)
    assert re.findall(r"'([a-z_]+)'", line) == list(REPORT_COLUMNS)


def _jinja_ident() -> object:
    """The dbt macro default__ident rendered outside dbt (tests/macro_render.py)."""
    from types import SimpleNamespace

    from tests.macro_render import macro_caller, raise_compiler_error

    holder: dict[str, object] = {}

    class Namespace:
        def __getattr__(self, name: str) -> object:
            return holder["call"](name)  # type: ignore[operator]

    def context(call: object) -> dict[str, object]:
        return {"dbt_deid": Namespace(), "modules": SimpleNamespace(re=re),
                "adapter": SimpleNamespace(quote=lambda s: f'"{s}"'),
                "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error)}

    holder["call"] = macro_caller([REPO / "macros" / "names" / "ident.sql"], context)
    return holder["call"]("default__ident")  # type: ignore[operator]


@pytest.mark.parametrize("name", ["age", "select", "Age", "age\n", "select\n", "a b", "\n", ""])
def test_the_dbt_macro_quotes_as_python_does(name: str) -> None:
    """default__ident and quote_ident agree: a plain name followed by a newline is not a plain
    name (review 16, N1: the macro's `$` matched before a final newline and left `age\n` bare)."""
    assert _jinja_ident()(name) == quote_ident(name)
