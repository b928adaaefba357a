"""The Python half of the verdict binding (review 9, G1; macros/gates/verdict_binding.sql): the
md5 a verdict model records for the settings it ran with equals the one the publish step
computes (dbt's ``local_md5(tojson(var, sort_keys=true))``), and a verdict is bound to exactly
one build of its input fingerprints."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from dbt_deid.dbt_side.glue.frames import bind_verdict, settings_md5
from dbt_deid.errors import DataError

#: Settings in the order a project writes them, with nulls, floats, nested maps and lists.
RELEASE = {"name": "claims", "tau": 0.05, "sampling_fraction": 0.1614, "max_suppression": None,
           "hierarchies": {"los": "h_los", "age": "h_age"}, "claim_qis": ["los", "dsfc"],
           "restart": {"reason": "a note corrected"}, "bootstrap": 1000}


def _dbt_md5(value: object) -> str:
    """dbt's local_md5(tojson(value, sort_keys=true)): json.dumps(value, sort_keys=True), md5."""
    return hashlib.md5(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()


def test_the_recorded_md5_is_the_publish_steps() -> None:
    # the model is given tojson(var) without sorted keys (the YAML config)
    assert settings_md5(json.dumps(RELEASE)) == _dbt_md5(RELEASE)
    other = RELEASE | {"sampling_fraction": 0.03}
    assert settings_md5(json.dumps(other)) != _dbt_md5(RELEASE)
    assert settings_md5(json.dumps(RELEASE | {"restart": None})) != _dbt_md5(RELEASE)


def test_a_verdict_is_bound_to_one_build_of_its_inputs() -> None:
    verdict = pd.DataFrame({"measure": ["direct", "quasi"], "upper": [0.01, 0.02]})
    inputs = pd.DataFrame({"relation_name": ["a", "b"], "invocation_id": ["build-1"] * 2})
    bound = bind_verdict(verdict, json.dumps(RELEASE), inputs, model="m")
    assert list(bound["settings_md5"]) == [_dbt_md5(RELEASE)] * 2
    assert list(bound["inputs_invocation_id"]) == ["build-1"] * 2
    assert "settings_md5" not in verdict.columns  # the verdict frame is not changed
    for ids in ([], ["build-1", "build-2"]):
        with pytest.raises(DataError, match=f"model m: .* hold {len(ids)} builds"):
            bind_verdict(verdict, json.dumps(RELEASE),
                         pd.DataFrame({"invocation_id": pd.Series(ids, dtype=object)}), model="m")
