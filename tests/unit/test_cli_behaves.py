"""The CLI behaves (issue 35, item 5): ``--version``, ``--help`` of every sub-command without
touching dbt, and the one verdict line ``build`` ends with."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from dbt_deid.dbt_side.engine.verdict import build_verdict
from dbt_deid.tools.cli import build_parser, main

REPO = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_version_prints_the_package_version(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"dbt_deid {VERSION}"


def test_every_subcommand_has_help_without_dbt(tmp_path) -> None:
    """In a fresh process with an empty HOME (no ~/.dbt) and no dbt project: each sub-command's
    --help exits 0 and dbt is never imported (build's help used to run dbt)."""
    commands = sorted(build_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001
    assert "build" in commands and "ola" in commands
    script = (
        "import sys\n"
        "from dbt_deid.tools.cli import main\n"
        f"for cmd in {commands!r}:\n"
        "    try:\n"
        "        main([cmd, '--help'])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, (cmd, exc.code)\n"
        "    else:\n"
        "        raise AssertionError(cmd + ' --help did not exit')\n"
        "print('DBT_MODULES', sorted(m for m in sys.modules if m == 'dbt'"
        " or m.startswith('dbt.')))\n"
    )
    env = {**os.environ, "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "DBT_MODULES []" in proc.stdout
    for cmd in commands:
        assert f"usage: python -m dbt_deid {cmd}" in proc.stdout
    assert "does not exist" not in proc.stdout + proc.stderr


def _node(uid: str, materialized: str) -> SimpleNamespace:
    return SimpleNamespace(unique_id=uid, config={"materialized": materialized})


MANIFEST = SimpleNamespace(nodes={
    "model.dbt_deid.deid_published": _node("model.dbt_deid.deid_published", "deid_publish"),
    "model.dbt_deid.deid_release_gate": _node("model.dbt_deid.deid_release_gate", "table"),
    "test.dbt_deid.deid_gate_k_anonymity": _node("test.dbt_deid.deid_gate_k_anonymity", "test"),
})


def _r(uid: str, status: str, message: str = "") -> dict[str, str]:
    return {"unique_id": uid, "status": status, "message": message}


def test_verdict_published() -> None:
    line = build_verdict(MANIFEST, [_r("model.dbt_deid.deid_release_gate", "success"),
                                    _r("model.dbt_deid.deid_published", "success")])
    assert line == "verdict: PUBLISHED deid_published"


def test_verdict_refused_by_the_publish_step_names_its_failed_gates() -> None:
    message = ("model deid_published: release refused, nothing published. Failed gate(s):\n"
               "  [max_suppression] MaxSup 84.9% > 10.0%\n  [k_anonymity] 3 classes")
    line = build_verdict(MANIFEST, [_r("model.dbt_deid.deid_published", "error", message)])
    assert line.startswith("verdict: REFUSED deid_published (failed: k_anonymity,"
                           " max_suppression)")
    assert "84.9" not in line  # names only, the figures are in dbt's output above


def test_verdict_refused_by_a_skip_names_the_failing_gate_tests() -> None:
    line = build_verdict(MANIFEST, [_r("test.dbt_deid.deid_gate_k_anonymity", "fail"),
                                    _r("model.dbt_deid.deid_published", "skipped")])
    assert line.startswith("verdict: REFUSED deid_published (failed: deid_gate_k_anonymity)")


def test_verdict_error_and_nothing_selected() -> None:
    assert build_verdict(MANIFEST, [_r("model.dbt_deid.deid_release_gate", "error", "boom")]
                         ).startswith("verdict: ERROR 1 node(s) failed (deid_release_gate)")
    assert build_verdict(MANIFEST, [_r("model.dbt_deid.deid_release_gate", "success")]
                         ).startswith("verdict: NOTHING PUBLISHED")
    assert build_verdict(None, [], "dbt parse failed: x") == "verdict: ERROR dbt parse failed: x"
