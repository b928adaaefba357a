"""The package's SQL macros rendered with Jinja outside dbt, for tests that run the SQL on DuckDB
or Spark directly (no dbt run, so they can try many random tables in seconds).

dbt's ``return()`` is a stand-in that hands the value back to the caller, and a macro of the
package calls another through the ``dbt_deid`` namespace the test builds, with ``call(name)``
(the default form, ``default__<macro>``, or a plain macro of the files).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2


class MacroReturn(Exception):
    """dbt's ``return()``: the value a macro hands back."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


def _raise_return(value: Any) -> None:
    raise MacroReturn(value)


class CompilerError(Exception):
    """What a rendered macro's ``exceptions.raise_compiler_error`` raised (tests: the refusal)."""


def raise_compiler_error(message: str) -> None:
    """A stand-in for dbt's ``exceptions.raise_compiler_error``: raises :class:`CompilerError`."""
    raise CompilerError(message)


def macro_caller(files: Iterable[Path],
                 context: Callable[[Callable[[str], Callable[..., Any]]], dict[str, Any]],
                 ) -> Callable[[str], Callable[..., Any]]:
    """Load ``files`` as one Jinja module; ``context(call)`` gives the globals (``dbt_deid``,
    ``dbt``, ``run_query``...), where ``call(name)`` calls the module's macro ``name`` and
    returns what it returned (or its rendered text). Returns ``call``."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    module: dict[str, Any] = {}

    def call(name: str) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return getattr(module["m"], _exported(name))(*args, **kwargs)
            except MacroReturn as r:
                return r.value
        return run

    env.globals.update(context(call))
    env.globals["return"] = _raise_return
    text = "\n".join(_dbt_blocks_as_macros(Path(f).read_text()) for f in files)
    module["m"] = _template(env, text).make_module()
    return call


#: Compiled Jinja code by template text: every Environment of :func:`macro_caller` is made the
#: same way (``jinja2.ext.do``, defaults otherwise), and what Jinja compiles depends on the
#: text and those settings only, never on the globals (read when a template renders). Compiling
#: was most of a macro test's CPU: tests/unit/test_linked_changes_sql.py compiled the same two
#: files for each of its 117 cases (~80% of its time; docs/performance.md, "The suite's time,
#: session 20").
_COMPILED: dict[str, Any] = {}


def _template(env: jinja2.Environment, text: str) -> jinja2.Template:
    """``env.from_string(text)`` on the compiled code of an earlier call with the same text."""
    code = _COMPILED.get(text)
    if code is None:
        code = _COMPILED[text] = env.compile(text)
    return env.template_class.from_code(env, code, env.make_globals(None))


def _exported(name: str) -> str:
    """Jinja does not export a module's macros whose names start with ``_`` (dbt does): they
    are loaded as ``p_<name>`` (see :func:`_dbt_blocks_as_macros`)."""
    return "p_" + name if name.startswith("_") else name


def _dbt_blocks_as_macros(text: str) -> str:
    """dbt's generic test blocks (``{% test name(...) %}`` .. ``{% endtest %}``), which Jinja
    does not know, as macros named ``test_<name>``: files that hold tests load as they are."""
    text = re.sub(r"{%(-?)\s*test\s+", r"{%\1 macro test_", text)
    text = re.sub(r"{%(-?)\s*macro\s+_", r"{%\1 macro p__", text)
    return re.sub(r"{%(-?)\s*endtest\s*(-?)%}", r"{%\1 endmacro \2%}", text)


class Rel:
    """A stand-in for a dbt relation in schema ``main``: ``str()`` gives ``main.<identifier>``."""

    def __init__(self, identifier: str) -> None:
        self.database, self.schema, self.identifier = "db", "main", identifier

    def __str__(self) -> str:
        return f"{self.schema}.{self.identifier}"


def duckdb_run_query(con: Any) -> Callable[[str], SimpleNamespace]:
    """dbt's ``run_query`` on a DuckDB connection: a table with ``column_names`` and ``rows``."""
    def run_query(sql: str) -> SimpleNamespace:
        cur = con.execute(sql)
        return SimpleNamespace(column_names=[d[0] for d in cur.description],
                               rows=cur.fetchall())
    return run_query


def duckdb_get_relation(con: Any) -> Callable[[str, str, str], str | None]:
    """``adapter.get_relation`` on a DuckDB connection: the identifier when the table exists."""
    def get_relation(database: str, schema: str, identifier: str) -> str | None:
        found = con.execute("select 1 from information_schema.tables where table_name = ?",
                            [identifier]).fetchall()
        return identifier if found else None
    return get_relation
