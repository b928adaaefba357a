"""``python -m dbt_deid build`` on the README's quick-start project (issue 35, item 5): the
segmented build (``--python-nodes runner``, the path PostgreSQL and Spark take) prints no raw
``{"unique_id": ...}`` line of ``dbt ls`` and ends with one verdict line, published here and
refused (naming the failed gate) when the project asks for more than the data allows."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from tests.integration import dbt_fork
from tests.integration.dbt_runner import DBT, REPO, suite_caches
from tests.integration.test_readme_quickstart_dbt import quickstart

pytestmark = pytest.mark.dbt


def _project(tmp_path):
    files, _ = quickstart()
    (tmp_path / "dbt_deid").symlink_to(REPO)
    project = tmp_path / "my_project"
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    return project


def _build(project, env, *extra: str) -> subprocess.CompletedProcess:
    # a child of the fork server (dbt imported), as test_engines_release runs the same command,
    # with the suite's Jinja and figure caches (test_readme_quickstart_dbt's runs)
    return dbt_fork.run(
        [sys.executable, "-m", "dbt_deid", "build", "--python-nodes", "runner", "--selector",
         "deid_release", "--profiles-dir", ".", *extra], project, env)


def test_build_ends_with_one_verdict_and_no_raw_json(tmp_path) -> None:
    project = _project(tmp_path)
    env = suite_caches({**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"})
    deps = dbt_fork.run([DBT, "deps", "--profiles-dir", "."], project, env)
    assert deps.returncode == 0, deps.stdout[-2000:]

    ok = _build(project, env)
    assert ok.returncode == 0, (ok.stdout + ok.stderr)[-4000:]
    lines = ok.stdout.strip().splitlines()
    assert not [line for line in lines if line.lstrip().startswith('{"unique_id"')]
    assert lines[-1] == "verdict: PUBLISHED deid_published"
    assert sum(line.startswith("verdict:") for line in lines) == 1

    # tau 0.001 (k = 1000) on 2,000 records: nearly every cell suppressed, MaxSup fails
    config = yaml.safe_load((project / "dbt_project.yml").read_text())
    config["vars"]["deid_release"]["tau"] = 0.001
    # a new threshold on a line with a published version starts the line over explicitly
    # (otherwise the refresh refuses the changed settings before any gate: issue 32)
    config["vars"]["deid_release"]["restart"] = {"reason": "k = 1000 from now on"}
    (project / "dbt_project.yml").write_text(yaml.safe_dump(config))
    refused = _build(project, env)
    assert refused.returncode == 1, (refused.stdout + refused.stderr)[-4000:]
    last = refused.stdout.strip().splitlines()[-1]
    assert last.startswith("verdict: REFUSED deid_published (failed: "), last
    assert "max_suppression" in last
