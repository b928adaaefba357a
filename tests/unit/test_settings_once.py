"""Issue 33, "compile the release once": the Jinja validation of the settings is the generated
definition and the shape check only (at most 300 lines, all in ``macros/config``), and every
value rule runs once, in the Python resolver of the plan nodes (``docs/settings-once.md``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "macros" / "config"

#: Files outside macros/config that raise a setting's name, and why they may: they check the
#: data in the warehouse against a setting (a column or hierarchy missing), or that an extra
#: release's models exist in the graph, at execute time.
DATA_CHECKS = {"validation/assert_release_inputs.sql", "risk_suite/small_areas_sql.sql",
               "publish/publish_sql.sql", "releases/releases.sql"}


def test_jinja_validation_is_at_most_300_lines() -> None:
    lines = sum(len(p.read_text().splitlines()) for p in CONFIG.glob("*.sql"))
    assert lines <= 300, f"macros/config holds {lines} lines"


def test_settings_are_checked_in_macros_config_only() -> None:
    """A macro raising a setting error ("dbt_deid ... setting '<name>'", _setting_error,
    _check_var) outside macros/config is a second validator."""
    pattern = re.compile(r"_setting_error\(|_check_var\(|_check_section\(|dbt_deid \w* ?setting '")
    found = {str(p.relative_to(ROOT / "macros")) for p in (ROOT / "macros").rglob("*.sql")
             if p.parent != CONFIG and pattern.search(p.read_text())}
    assert found <= DATA_CHECKS, found - DATA_CHECKS


def test_config_macros_raise_only_parse_time_errors() -> None:
    """What is left in Jinja: names, renames, types (dbt_deid._setting_error), the extra
    releases' names; no value rule (a comparison of settings raising an error)."""
    for p in CONFIG.glob("*.sql"):
        text = p.read_text()
        for call in re.findall(r"_config_error\('([^']+)'", text):
            raise AssertionError(f"{p.name}: a value rule on {call} (move it to the resolver)")
