"""The package installs like any other (issue 35, item 1): ``python -m build`` makes a wheel
of this tree, a fresh virtual environment gets it with the documented install command only
(``pip install 'dbt_deid[duckdb]'``, pointed at the wheel file), and that environment's dbt
builds the README's quick start (the blocks tests/integration/test_readme_quickstart_dbt.py
extracts), with the package version in the CLI and in the release's history row.

Slow by nature: 69 s of CPU for the whole test (60 s user + 9 s system, children included:
the wheel build, the venv, pip from its warm cache ~40 s, the quick start's dbt runs), measured
with `/usr/bin/time -v pytest tests/integration/test_wheel_install.py` on 2026-11-26 (a shared
machine: 9 min wall). Nothing else in the suite installs the package from a wheel, so nothing
else would catch a module or file missing from it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib

import duckdb
import pytest

from tests.integration.dbt_runner import REPO
from tests.integration.test_readme_quickstart_dbt import quickstart

pytestmark = pytest.mark.dbt

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
#: the documented install command of the Python core with the DuckDB adapter
INSTALL = re.compile(r"^\s*pip install '(dbt_deid\[duckdb\])'\s*$", re.M)


def _install_command() -> str:
    """The install command as the docs write it (docs/install.md; the README's too when it
    has one): the requirement ``dbt_deid[duckdb]``."""
    found = [m.group(1) for doc in ("README.md", "docs/install.md")
             if (REPO / doc).exists() for m in INSTALL.finditer((REPO / doc).read_text())]
    assert found, "docs/install.md must show: pip install 'dbt_deid[duckdb]'"
    return found[0]


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, (" ".join(cmd), (proc.stdout + proc.stderr)[-4000:])
    return proc


def test_wheel_installs_with_the_documented_command_and_builds_the_quickstart(tmp_path) -> None:
    requirement = _install_command()
    # build from a copy of what the wheel is made of, so the tree gets no build/ folder
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"),
          str(source)])
    wheels = list((tmp_path / "dist").glob(f"dbt_deid-{VERSION}-py3-none-any.whl"))
    assert len(wheels) == 1, list((tmp_path / "dist").iterdir())

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "0"
    bin_dir = venv / "bin"
    # the documented command, the name replaced by the wheel file: pip install '<wheel>[duckdb]'
    _run([str(bin_dir / "pip"), "install", requirement.replace("dbt_deid", str(wheels[0]), 1)],
         env=env, cwd=tmp_path)

    where = _run([str(bin_dir / "python"), "-c", "import dbt_deid; print(dbt_deid.__file__)"],
                 env=env, cwd=tmp_path).stdout
    assert str(venv) in where and str(REPO) not in where  # the wheel's copy, not the tree's
    for cli in ([str(bin_dir / "dbt-deid"), "--version"],
                [str(bin_dir / "python"), "-m", "dbt_deid", "--version"]):
        assert _run(cli, env=env, cwd=tmp_path).stdout.strip() == f"dbt_deid {VERSION}"

    files, commands = quickstart()
    (tmp_path / "dbt_deid").symlink_to(REPO)  # packages.yml: local: ../dbt_deid
    project = tmp_path / "my_project"
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    assert commands and all(c.startswith("dbt ") for c in commands)
    for command in commands:
        _run([str(bin_dir / "dbt"), *command.split()[1:]], env=env, cwd=project)
    with duckdb.connect(str(project / "my_project.duckdb"), read_only=True) as con:
        rows = con.execute("select count(*) from main.deid_published").fetchone()[0]
        history = con.execute("select status, package_version from main.deid_release_history"
                              ).fetchall()
    assert rows == 2000
    assert history == [("published", VERSION)]
