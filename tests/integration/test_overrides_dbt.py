"""A consumer project cannot silently replace a gate (issue 32, item 3).

dbt's ``adapter.dispatch(name, 'dbt_deid')`` searches the root project before the package, and
dbt picks a root-project ``{% materialization deid_publish %}`` over the package's. On main
(732cd92) a consumer macro ``default__release_gate_results`` returning one passing gate
published a release with ``max_suppression: 0.001`` ("1 gates passed"), and a consumer
materialization published without any gate. Each way now fails the build naming the macro,
and nothing is published (docs/overrides.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from tests.integration.dbt_runner import INTEGRATION, copy_of, release_vars, run_dbt
from tests.integration.test_fail_closed_dbt import _consumer_project

pytestmark = pytest.mark.dbt

FAILING = {"max_suppression": 0.001}

OVERRIDES = {
    # the whole gate set replaced by one passing gate (the reproduction)
    "default__release_gate_results": """
{% macro default__release_gate_results(cfg, published, truth) -%}
  {{ return([{'gate': 'consumer', 'passed': true, 'failures': 0, 'message': 'all good'}]) }}
{%- endmacro %}
""",
    # one dispatched gate query, adapter-specific: MaxSup never fails
    "duckdb__gate_max_suppression_sql": """
{% macro duckdb__gate_max_suppression_sql(relation, max_suppression, columns) -%}
  select 1 as records, 0 as records_with_suppression, 0.0 as share_records_with_suppression,
    {{ max_suppression }} as max_suppression where 1 = 0
{%- endmacro %}
""",
    # the publish materialization: writes the model's SQL, no gate, no history
    "materialization_deid_publish_default": """
{% materialization deid_publish, default %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {% call statement('main') -%}
    {{ get_create_table_as_sql(False, target_relation, sql) }}
  {%- endcall %}
  {{ adapter.commit() }}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
""",
}


def _project_with(tmp_path: Path, macro: str) -> Path:
    """integration_tests as a consumer project with one more macro file holding ``macro``."""
    extra = tmp_path / "consumer" / "consumer_macros"
    project = _consumer_project(tmp_path, **{"macro-paths": [
        str((INTEGRATION / "macros").resolve()), str(extra)]})
    extra.mkdir(parents=True, exist_ok=True)
    (extra / "override.sql").write_text(OVERRIDES[macro])
    return project


@pytest.fixture(scope="module")
def project_with(tmp_path_factory) -> Callable[[str], Path]:
    """``project_with(macro)``: the consumer project of ``_project_with``, made once per module
    and macro (a copy of the project and its `dbt deps`), so that the tests of one macro run
    the same project, with the same vars, on one saved parse instead of a full parse each."""
    made: dict[str, Path] = {}

    def get(macro: str) -> Path:
        if macro not in made:
            made[macro] = _project_with(tmp_path_factory.mktemp("consumer"), macro)
        return made[macro]

    return get


@pytest.mark.parametrize("macro", sorted(OVERRIDES))
def test_a_consumer_override_publishes_nothing_and_is_named(
        it_database, project_with, tmp_path, macro) -> None:
    project = project_with(macro)
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    # `dbt run`: no test stands between the gates and the publish step, as on main, where
    # each of these published the failing release
    run = run_dbt(project, ["run", "--select", "package:dbt_deid"], tmp_path,
                  release_vars(**FAILING), db)
    assert not run.ok, run.output[-3000:]
    assert "deid_published" not in run.tables(), run.output[-3000:]
    assert f"dbt_deid_integration_tests.{macro}" in run.output, run.output[-3000:]
    assert "docs/overrides.md" in run.output


def test_the_publish_model_alone_with_a_consumer_materialization_is_refused(
        default_release, project_with, tmp_path) -> None:
    """`dbt run -s deid_published` on a built release (the gate model does not run): the
    publish model refuses while dbt renders its SQL, before the replaced materialization could
    write anything, whatever the gates say (it would publish without them and without the
    history row)."""
    project = project_with("materialization_deid_publish_default")
    run = copy_of(default_release, tmp_path / "db")
    before = run.query("select * from deid_published")
    history = run.query("select count(*) as n from deid_release_history")["n"].iloc[0]
    run = run_dbt(project, ["run", "--select", "deid_published"], tmp_path,
                  release_vars(**FAILING), run.database)
    assert not run.ok, run.output[-3000:]
    assert "dbt_deid_integration_tests.materialization_deid_publish_default" in run.output
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), before)
    assert run.query("select count(*) as n from deid_release_history")["n"].iloc[0] == history
