"""The README's quick start works verbatim in a fresh project (issue 19, item 6): the fenced
blocks whose first line is a `quickstart-file: <path>` comment are written to a new project
next to a `dbt_deid` folder (the `local: ../dbt_deid` of its packages.yml), and the commands
of the `quickstart-run` block are run there."""

from __future__ import annotations

import os
import re

import duckdb
import pytest

from tests.integration import dbt_fork
from tests.integration.dbt_runner import DBT, REPO, suite_caches

pytestmark = pytest.mark.dbt

BLOCK = re.compile(r"```[a-z]*\n(.*?)```", re.S)
MARK = re.compile(r"^(?:#|--) quickstart-(file|run)(?:: (\S+))?\n")


def quickstart() -> tuple[dict[str, str], list[str]]:
    """(path -> text of each quickstart-file block, command lines of the quickstart-run block)."""
    section = REPO.joinpath("README.md").read_text()
    files: dict[str, str] = {}
    commands: list[str] = []
    for block in BLOCK.findall(section):
        m = MARK.match(block)
        if not m:
            continue
        if m.group(1) == "file":
            files[m.group(2)] = block
        else:
            commands = [line for line in block[m.end():].splitlines() if line.strip()]
    return files, commands


def test_readme_quickstart_builds_verbatim(tmp_path) -> None:
    files, commands = quickstart()
    assert {"packages.yml", "profiles.yml", "dbt_project.yml", "models/patients.sql",
            "selectors.yml"} <= set(files)
    assert commands and all(c.startswith("dbt ") for c in commands)
    (tmp_path / "dbt_deid").symlink_to(REPO)
    project = tmp_path / "my_project"
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    env = suite_caches({**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"})
    output = ""
    for command in commands:
        proc = dbt_fork.run([DBT, *command.split()[1:]], project, env)
        output += proc.stdout + proc.stderr
        assert proc.returncode == 0, output[-3000:]
    # no deprecation warning about ref resolution (the flag is in the quick start)
    assert "require_ref_prefers_node_package_to_root" not in output
    assert "deid_gate_k_anonymity" in output  # the selector ran the gates
    with duckdb.connect(str(project / "my_project.duckdb"), read_only=True) as con:
        cols = [r[0] for r in con.execute(
            "select column_name from information_schema.columns where table_schema = 'main'"
            " and table_name = 'deid_published' order by ordinal_position").fetchall()]
        n = con.execute("select count(*) from main.deid_published").fetchone()[0]
    assert n == 2000
    assert "patient_id" not in cols and "health_card" not in cols
    assert {"age", "sex", "province", "visits"} <= set(cols)
