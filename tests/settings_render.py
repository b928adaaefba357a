"""The package's parse-time settings check (the Jinja config macros) rendered outside dbt, for
tests: :func:`dbt_deid.dbt_side.settings_jinja.jinja_config` (what ``python -m dbt_deid check``
runs)."""

from __future__ import annotations

from dbt_deid.dbt_side.settings_jinja import JinjaSettingError, jinja_config

__all__ = ["JinjaSettingError", "jinja_config"]
