"""The suite's saved dbt parses (tests/integration/dbt_runner.py, ``_run_on_saved_parse``): a run
starts from the parse of its own inputs, also in a target folder that holds the parse of other
vars (a test running dbt in one folder with a setting added, then removed), and a parse dbt did
not write in a run is never saved as that run's. dbt is replaced by a stand-in that records the
parse it found and writes its own, as dbt does after parsing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.integration import dbt_runner


@pytest.fixture
def fake_dbt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, str]]:
    """(the parse the run found in its target, its vars) per run; the stand-in writes the parse
    of its vars unless they are 'no-write' (a run that stops before parsing)."""
    monkeypatch.setattr(dbt_runner, "saved_parse_dir", lambda: tmp_path / "cache")
    monkeypatch.delenv("DBT_DEID_TEST_RUN_LOG", raising=False)
    seen: list[tuple[str | None, str]] = []

    def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
        variables = cmd[cmd.index("--vars") + 1]
        own = Path(cmd[cmd.index("--target-path") + 1]) / "partial_parse.msgpack"
        seen.append((own.read_text() if own.exists() else None, variables))
        if "no-write" not in variables:
            own.parent.mkdir(parents=True, exist_ok=True)
            own.write_text(f"parse of {variables}")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(dbt_runner.dbt_fork, "run", run)
    monkeypatch.setattr(dbt_runner, "deps", lambda project: None)
    return seen


def _run(tmp: Path, setting: str) -> None:
    dbt_runner.run_dbt(dbt_runner.INTEGRATION, ["run"], tmp, {"setting": setting})


def test_a_target_holding_other_vars_starts_from_the_saved_parse_of_its_own(
        tmp_path: Path, fake_dbt: list) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    _run(one, "a")  # nothing saved: dbt parses in full and its parse is saved
    _run(two, "b")
    _run(two, "a")  # folder two holds b's parse: a's saved parse replaces it
    _run(two, "b")  # and back
    _run(two, "b")  # its own parse, kept
    found = [parse for parse, _ in fake_dbt]
    assert found == [None, None, 'parse of {"setting": "a"}', 'parse of {"setting": "b"}',
                     'parse of {"setting": "b"}']


def test_a_parse_the_run_did_not_write_is_not_saved_as_its_own(
        tmp_path: Path, fake_dbt: list) -> None:
    folder = tmp_path / "one"
    _run(folder, "a")
    _run(folder, "no-write")  # finds a's parse, writes none: a's parse is not saved as its own
    _run(tmp_path / "two", "no-write")  # nothing saved for these vars
    assert fake_dbt[2][0] is None
    _run(folder, "a")  # a's parse, still marked as a's
    assert fake_dbt[3][0] == 'parse of {"setting": "a"}'
