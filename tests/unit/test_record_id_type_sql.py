"""A floating-point record id is refused with one error naming the model, column and type
(macros/validation/assert_record_id_type.sql, review hole 1): 5 and 5.0 hash as two records,
so a recipient's earlier versions would look like other records. Rendered with Jinja outside
dbt through assert_source_columns (the check every release build makes)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT

FILES = [ROOT / "macros" / "validation" / "assert_release_inputs.sql",
         ROOT / "macros" / "validation" / "assert_record_id_type.sql"]


class Refused(Exception):
    pass


def _check(dtype: str) -> None:
    def refuse(msg: str) -> None:
        raise Refused(msg)

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, run_data_checks=lambda: True,
                assert_column_roles=lambda cfg: None,
                assert_release_names=lambda cfg, names: None,
                release_source=lambda cfg: "src",
                assert_record_id_type=lambda cfg, cols: call("assert_record_id_type")(cfg, cols)),
            "adapter": SimpleNamespace(
                dispatch=lambda name, pkg: call("default__" + name),
                get_columns_in_relation=lambda rel: [
                    SimpleNamespace(name="Abstract_Id", dtype=dtype),
                    SimpleNamespace(name="age", dtype="DOUBLE")]),
            "exceptions": SimpleNamespace(raise_compiler_error=refuse),
            "this": SimpleNamespace(identifier="deid_published"),
        }
    call = macro_caller(FILES, context)
    call("assert_source_columns")({"record_id": "abstract_id"})


@pytest.mark.parametrize("dtype", ["DOUBLE", "FLOAT", "REAL", "float64", "double precision"])
def test_a_floating_point_record_id_is_refused(dtype: str) -> None:
    with pytest.raises(Refused, match=r"deid_published: column 'Abstract_Id' \(record_id\) is"
                       r" of floating-point type .*cast it to an integer or text"):
        _check(dtype)


@pytest.mark.parametrize("dtype", ["INTEGER", "BIGINT", "VARCHAR", "DECIMAL(18,0)"])
def test_integer_and_text_ids_pass(dtype: str) -> None:
    _check(dtype)  # a QI of type DOUBLE is not the record id
