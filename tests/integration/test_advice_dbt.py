"""Advice on every refusal (issue 35, item 3; docs/advice-and-report.md).

A fixed-level release refused for MaxSup gets advice (in the publish step's failure message,
the refused report and the advice rows of deid_suppression_map, deid_release_advice before
session 13, which `python -m dbt_deid advise` prints) and the
advised levels publish on the next build: on the integration project's 4,000 records and on
50,000 synthetic discharge abstracts. One refused and one published build per data set."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests import browser
from tests.integration import dbt_fork
from tests.integration.dbt_runner import (
    INTEGRATION,
    NO_REPORT,
    DbtRun,
    copy_of,
    deps,
    release_vars,
    run_dbt,
    suite_caches,
)

pytestmark = pytest.mark.dbt


def _advised(run, model: str = "deid_suppression_map") -> tuple[dict[str, int], list[str]]:
    # the advice rows of the map's table (session 13: the model deid_release_advice's rows)
    advice = run.query(
        "select advice__kind as kind, advice__item as item, advice__levels_json as levels_json,"
        f" advice__message as message from {model} where advice__kind is not null")
    status = advice[advice["kind"] == "status"]
    assert status["message"].iloc[0] != "passes", status
    options = advice[advice["kind"] == "option"].sort_values("item")
    assert len(options), advice[advice["kind"] == "line"]["message"].tolist()
    lines = advice[advice["kind"] == "line"].sort_values("item")["message"].tolist()
    return json.loads(options["levels_json"].iloc[0]), lines


def _with_levels(variables: dict, levels: dict[str, int]) -> dict:
    out = json.loads(json.dumps(variables))
    for q, lvl in levels.items():
        out["deid_release"]["quasi_identifiers"][q]["level"] = lvl
    return out


def _refuse_then_apply(it_database, tmp_path, variables: dict, extra: list[str] = ()) -> None:
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    # `dbt run`: no gate test stops the publish model, so its materialization refuses and
    # its failure message carries the advice
    bad = run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid", *extra], tmp_path,
                  variables, db)
    assert not bad.ok
    assert "release refused, nothing published" in bad.output, bad.output[-3000:]
    assert "[max_suppression] MaxSup" in bad.output
    # the materialization's own message (the advice model logs the same lines)
    assert "Advice (deid_suppression_map's advice rows;" in bad.output, bad.output[-4000:]
    assert "nearest levels that pass (1)" in bad.output
    assert "suppressed cells by quasi-identifier" in bad.output
    levels, lines = _advised(bad)
    assert any(line.startswith("nearest levels that pass (1)") for line in lines)
    reports = list((tmp_path / "reports").rglob("*.refused.html"))
    assert reports, "no refused report"
    page = reports[0].read_text()
    assert "What to change" in page and "nearest levels that pass" in page
    assert "What this release would hold (not published)" in page
    assert "What the published table holds" not in page
    # every gate of the release is in the report: the gate table's and combined_releases
    gates = set(bad.query("select gate from deid_gate_results")["gate"]) | {"combined_releases"}
    missing = [g for g in gates if f'<td class="l">{g}</td>' not in page]
    assert not missing, missing
    if browser.chromium() is not None:  # the real page fits 1,280 px too
        box = browser.layout(reports[0], width=1280)
        assert box["scroll"] <= box["client"] and box["cut"] == 0, box
    good = run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid", *extra, *NO_REPORT],
                   tmp_path, _with_levels(variables, levels), db)
    assert good.ok, good.output[-3000:]
    history = good.query("select status from deid_release_history order by recorded_at")
    assert history["status"].tolist()[-1] == "published"


def _report_vars(variables: dict, tmp_path) -> dict:
    variables["deid_release"]["report"] = {"path": str(tmp_path / "reports" / "{target}"
                                                       / "release.html")}
    return variables


def test_advise_previews_and_the_advice_publishes(it_database, tmp_path) -> None:
    """4,000 records, the integration release at finer levels with MaxSup 5%: `python -m
    dbt_deid advise` builds up to the advice (nothing published), prints it and exits 1; the
    advised levels publish on the next build."""
    variables = release_vars(max_suppression=0.05, column_suppression_cap=None)
    variables["deid_release"]["quasi_identifiers"]["age"]["level"] = 0
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    preview = _advise(variables, db, tmp_path)
    out = preview.stdout
    assert preview.returncode == 1, (out + preview.stderr)[-4000:]
    assert "release integration_release refused: MaxSup" in out
    assert "suppressed cells by quasi-identifier: age" in out
    assert "nearest levels that pass (1):" in out, out[-3000:]
    with duckdb.connect(str(db), read_only=True) as con:  # nothing was published
        tables = {r[0] for r in con.execute(
            "select table_name from information_schema.tables").fetchall()}
    assert "deid_published" not in tables and "deid_suppression_map" in tables
    levels, _ = _advised(DbtRun(0, "", db))
    good = run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid", *NO_REPORT], tmp_path,
                   _with_levels(variables, levels), db)
    assert good.ok, good.output[-3000:]
    history = good.query("select status from deid_release_history order by recorded_at")
    assert history["status"].tolist() == ["published"]


def test_advise_reports_its_failed_build_not_an_earlier_advice(default_release, tmp_path) -> None:
    """Review 9b, H2: the published project release holds its advice table; a preview without
    province (a combination change after version 1: the build stops at deid_patterns) must
    not print that earlier advice as the preview's. On s9-fixola advise printed "release
    integration_release passes: MaxSup ..." with province's combinations and exited 0."""
    db = copy_of(default_release, tmp_path / "db").database
    base = release_vars()["deid_release"]
    variables = release_vars(
        quasi_identifiers={k: v for k, v in base["quasi_identifiers"].items() if k != "province"},
        combinations=[["age", "gender", "los_days", "mrdx"], ["age", "gender", "cci_code"],
                      ["age", "admission_date"]],
        excluded=[*base["excluded"], "province"])
    preview = _advise(variables, db, tmp_path)
    out = preview.stdout
    assert preview.returncode == 2, (out + preview.stderr)[-4000:]
    assert "advise: ERROR this build did not build deid_suppression_map" in out, out[-3000:]
    assert "passes" not in out.split("advise: ERROR")[-1]
    assert "release integration_release passes" not in out


def test_advice_on_50000_discharge_abstracts_publishes(it_database, tmp_path) -> None:
    """50,000 synthetic discharge abstracts (dbt_deid.tools.synthetic), three QIs, MaxSup 2%."""
    variables = release_vars(
        max_suppression=0.02, column_suppression_cap=None,
        quasi_identifiers={
            "province": {"hierarchy": "province_hierarchy", "level": 0},
            "age": {"rule": {"type": "interval", "levels": [{"width": 5, "top_code": 90},
                                                             {"width": 10, "top_code": 90},
                                                             {"width": 20, "top_code": 80}]},
                    "level": 1},
            "gender": {"hierarchy": "gender_hierarchy", "level": 0},
            "los_days": {"rule": {"type": "interval", "levels": [
                {"width": 7, "top_code": 182, "label": "index"}]}, "level": 1},
        },
        combinations=[["province", "age", "gender", "los_days"]],
        excluded=["cmg", "total_cost_cad", "mrdx", "cci_code", "admission_date"],
        tau=0.05,
    )
    variables["it_rows"] = 50_000
    _refuse_then_apply(it_database, tmp_path, _report_vars(variables, tmp_path),
                       extra=["discharge_abstracts"])


def _advise(variables: dict, db: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`python -m dbt_deid advise --vars variables` in the integration project on ``db``: a
    child of the fork server (dbt imported), with the suite's caches, as test_cli_build_dbt runs
    `python -m dbt_deid build`."""
    deps(INTEGRATION)
    env = suite_caches({**os.environ, "DBT_DEID_DUCKDB_PATH": str(db),
                        "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"})
    return dbt_fork.run(
        [sys.executable, "-m", "dbt_deid", "advise", "--profiles-dir", "profiles",
         "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs"),
         "--vars", json.dumps(variables)], INTEGRATION, env)
