"""``python -m dbt_deid check --vars ...`` (issue 33): the same answers as a build, without a
warehouse: accept, or the error text of the Jinja parse-time check or, past it, of the plan
node's resolver, exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dbt_deid.errors import DeidError
from dbt_deid.settings_resolve import resolve
from dbt_deid.tools.cli import main
from tests.settings_render import JinjaSettingError, jinja_config

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "dbt_project.yml"


def _check(capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, str, str]:
    rc = main(["check", "--vars", text])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_the_demo_project_passes(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _check(capsys, str(DEMO))
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 5 and all(line.startswith("ok: ") for line in lines)
    assert "release 'discharge_clinical': k = 20 (tau 0.05)" in out
    assert "release 'discharge_analytical': k = 5 (tau 0.2)" in out  # the living line
    assert "claims release 'demo_hhp_claims'" in out and "max_suppression 0.008" in out


@pytest.mark.parametrize(("var", "kind", "change"), [
    ("deid_release", "release", {"k": "5", "tau": None}),
    ("deid_release", "release", {"max_supression": 0.1}),
    ("deid_release", "release", {"sample": {"fraction": float("nan")}}),
    ("deid_release", "release", {"combinations": [["age", "nope"]]}),
    ("deid_claims_release", "claims", {"max_sup": 0.1}),
    ("deid_claims_release", "claims", {"alpha": 0.5}),
    ("deid_claims_release", "claims", {"pool_size": 0}),
    ("deid_text_release", "text", {"attempt": [0.5, 0.2, 0.9]}),
])
def test_a_bad_setting_gets_the_build_error_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, var: str, kind: str,
    change: dict[str, Any],
) -> None:
    variables = yaml.safe_load(DEMO.read_text())["vars"]
    raw = {k: v for k, v in {**variables[var], **change}.items() if v is not None}
    try:  # the parse-time check's words, else the plan node's (the one resolver)
        jinja_config(kind, raw)
        with pytest.raises(DeidError) as plan:
            resolve(kind, raw)
        expected = str(plan.value)
    except JinjaSettingError as jinja:
        expected = str(jinja)
    vars_file = tmp_path / "vars.yml"
    vars_file.write_text(yaml.safe_dump({var: raw}, sort_keys=False))
    inline = yaml.safe_dump({var: raw}, default_flow_style=True, width=10**6, sort_keys=False)
    for text in (str(vars_file), inline):
        rc, out, err = _check(capsys, text)
        assert rc == 2 and out == ""
        assert err == f"error: {expected}\n"


def test_inline_json_vars(capsys: pytest.CaptureFixture[str]) -> None:
    variables = yaml.safe_load(DEMO.read_text())["vars"]
    rc, out, _ = _check(capsys, json.dumps({"deid_text_release": variables["deid_text_release"]}))
    assert rc == 0 and out.startswith("ok: text release 'demo_clinical_notes'")


def test_vars_without_a_release_or_not_yaml_are_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _check(capsys, "{other: 1}")[0] == 2
    rc, _, err = _check(capsys, "{unclosed: [")
    assert rc == 2 and "not YAML or JSON" in err
    rc, _, err = _check(capsys, json.dumps({"deid_releases": {"Bad-Name": {}}}))
    assert rc == 2 and "release name 'Bad-Name' is not allowed" in err


def test_check_help_touches_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ok:
        main(["check", "--help"])
    assert ok.value.code == 0 and "--vars" in capsys.readouterr().out
